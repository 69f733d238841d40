//! The `ctywire` command line, run as a user would.

use std::io::Write;
use std::process::{Command, Stdio};

fn ctywire(args: &[&str], stdin: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ctywire"))
        .args(args)
        // The repository root, where testdata/ is.
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ctywire runs");
    // A command that fails early (a bad --type) exits without reading its
    // input; the broken pipe that leaves is not the test's concern.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn roundtrip_answers_every_line_in_order_and_survives_bad_ones() {
    let input = [
        r#"{"type":["set","string"],"msgpack":"93a163a161a163"}"#,
        r#"{"type":"string","msgpack":"c7030c8101c2","note":"other keys are ignored"}"#,
        "this is not json",
        r#"{"type":["list","number"],"json":"[1,\"2\",3.50]"}"#,
        r#"{"type":"number","msgpack":"cb7ff8000000000000"}"#,
        r#"{"type":["object",{"a":["list","number"]}],"json":"{\"a\":[\"x\"]}"}"#,
    ]
    .join("\n");
    let (ok, out, _) = ctywire(&["roundtrip"], &input);
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(
        lines[0],
        r#"{"msgpack":"92a161a163","json":"[\"a\",\"c\"]"}"#
    );
    assert_eq!(lines[1], r#"{"msgpack":"c7030c8101c2"}"#);
    assert!(
        lines[2].starts_with(r#"{"error":"invalid input line"#),
        "{}",
        lines[2]
    );
    assert_eq!(
        lines[3],
        r#"{"msgpack":"930102cb400c000000000000","json":"[1,2,3.5]"}"#
    );
    assert!(lines[4].contains("NaN"), "{}", lines[4]);
    assert_eq!(lines[5], r#"{"error":".a[0]: a number is required"}"#);
}

#[test]
fn decode_shows_a_real_state_and_unknowns_readably() {
    let (ok, out, err) = ctywire(&["decode", "--case", "testdata/instance.case"], "");
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ami"], "zde8gxd6ncf10");
    let (ok, out, _) = ctywire(
        &["decode", "--type", r#""string""#, "--hex"],
        "d70c8201c202a361623a",
    );
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["$unknown"]["prefix"], "ab:");
    assert_eq!(v["$unknown"]["not_null"], true);
    let (ok, out, _) = ctywire(
        &[
            "decode",
            "--type",
            r#"["list","number"]"#,
            "--format",
            "json",
        ],
        "[123456789012345678901234567890.5]",
    );
    assert!(ok);
    assert_eq!(
        out.trim().replace([' ', '\n'], ""),
        "[123456789012345678901234567890.5]"
    );
    let (ok, _, err) = ctywire(
        &["decode", "--type", r#"["list","number"]"#, "--base64"],
        "kaF4",
    ); // [ "x" ]
    assert!(!ok);
    assert_eq!(err.trim(), "ctywire: [0]: a number is required (at byte 1)");
}

#[test]
fn errors_show_the_byte_offset_they_carry() {
    let (ok, _, err) = ctywire(
        &[
            "decode",
            "--type",
            r#"["object",{"tags":["map",["list","number"]]}]"#,
        ],
        "81a47461677381a16b91a178",
    );
    assert!(!ok);
    assert_eq!(
        err.trim(),
        r#"ctywire: .tags["k"][0]: a number is required (at byte 10)"#
    );
}

#[test]
fn encode_output_pipes_into_decode() {
    let ty = r#"["object",{"a":"number","b":["set","string"]}]"#;
    let (ok, hex, err) = ctywire(&["encode", "--type", ty], r#"{"a":1.50,"b":["y","x"]}"#);
    assert!(ok, "{err}");
    let (ok, out, err) = ctywire(&["decode", "--type", ty], &hex);
    assert!(ok, "{err}");
    assert_eq!(out.replace([' ', '\n'], ""), r#"{"a":1.5,"b":["x","y"]}"#);
    // --raw takes the hex text as bytes; the error points at the flags.
    let (ok, _, err) = ctywire(&["decode", "--type", ty, "--raw"], &hex);
    assert!(!ok);
    assert!(err.contains("--hex or --base64"), "{err}");
}

#[test]
fn text_that_is_not_hex_gets_a_hint_about_the_encoding_flags() {
    // base64 of [ "x" ], given without --base64.
    let (ok, _, err) = ctywire(&["decode", "--type", r#"["list","string"]"#], "kaF4\n");
    assert!(!ok);
    assert!(err.contains("hint:") && err.contains("--base64"), "{err}");
}

#[test]
fn an_unquoted_primitive_type_gets_a_hint_to_quote_it() {
    let (ok, _, err) = ctywire(&["decode", "--type", "string", "--hex"], "a178");
    assert!(!ok);
    assert!(err.contains(r#"--type '"string"'"#), "{err}");
}

#[test]
fn roundtrip_accepts_types_as_deep_as_the_library_does_and_skips_blank_lines() {
    let depth = 200;
    let ty = format!(
        "{}\"string\"{}",
        r#"["list","#.repeat(depth),
        "]".repeat(depth)
    );
    let value = format!("{}\\\"x\\\"{}", "[".repeat(depth), "]".repeat(depth));
    let input = format!("\n{{\"type\":{ty},\"json\":\"{value}\"}}\n   \n");
    let (ok, out, err) = ctywire(&["roundtrip"], &input);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(lines[0].starts_with(r#"{"msgpack":"9191"#), "{}", lines[0]);
}

#[test]
fn decode_prints_numbers_exactly() {
    let (ok, out, err) = ctywire(
        &[
            "decode",
            "--type",
            r#"["list","number"]"#,
            "--format",
            "json",
        ],
        "[9007199254740993, 0.10000000000000000001, 1e30]",
    );
    assert!(ok, "{err}");
    assert_eq!(
        out.replace([' ', '\n'], ""),
        "[9007199254740993,0.10000000000000000001,1000000000000000000000000000000]"
    );
}

#[test]
fn encode_writes_go_cty_bytes_as_hex() {
    let (ok, out, _) = ctywire(
        &[
            "encode",
            "--type",
            r#"["object",{"a":"number","b":"dynamic"}]"#,
        ],
        r#"{"a":"0.1","b":{"value":true,"type":"bool"}}"#,
    );
    assert!(ok);
    assert_eq!(out.trim(), "82a161a3302e31a16292c40622626f6f6c22c3");
}

#[test]
fn implied_type_reads_a_providers_schema_document() {
    let schema = "testdata/terraform/providers-schema-builtin.json";
    let (ok, out, _) = ctywire(
        &[
            "implied-type",
            "--schema",
            schema,
            "--resource",
            "terraform_data",
        ],
        "",
    );
    assert!(ok);
    assert_eq!(
        out.trim(),
        r#"["object",{"id":"string","input":"dynamic","output":"dynamic","triggers_replace":"dynamic"}]"#
    );
    let (ok, _, err) = ctywire(
        &["implied-type", "--schema", schema, "--resource", "nope"],
        "",
    );
    assert!(!ok);
    assert!(err.contains("terraform_data"), "{err}");
}

#[test]
fn bench_prints_one_json_line_of_timings() {
    let (ok, out, _) = ctywire(
        &[
            "bench",
            "--case",
            "testdata/instance.case",
            "--seconds",
            "0.05",
        ],
        "",
    );
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["bytes"], 2928);
    for key in [
        "msgpack_decode",
        "msgpack_encode",
        "json_decode",
        "json_encode",
    ] {
        assert!(v[key].as_u64().unwrap() > 0, "{key}");
    }
}

#[test]
fn a_reader_that_goes_away_ends_the_command_quietly() {
    // `ctywire decode ... | head -1`: the pipe closes before the output is
    // written. That is no error and certainly no panic.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ctywire"))
        .args(["decode", "--case", "testdata/instance.case"])
        // The repository root, where testdata/ is.
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ctywire runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
