//! Hostile input: every way go-cty is known to crash returns an error here,
//! every limit is enforced and named, and nesting cannot overflow the stack.

mod support;

use ctywire::{json, msgpack, Category, DecodeOptions, Type, Value};
use support::{ty, unhex};

#[test]
fn a_nan_float_is_refused_not_a_panic() {
    for nan in ["cb7ff8000000000000", "ca7fc00000", "cbfff8000000000001"] {
        let err = msgpack::decode(&unhex(nan), &Type::Number).unwrap_err();
        assert_eq!(err.category(), Category::Data, "{nan}");
        assert!(err.message().contains("NaN"));
    }
}

#[test]
fn a_length_header_claiming_billions_allocates_nothing_and_fails() {
    // go-cty allocates 128 GiB for these five bytes.
    for header in ["ddffffffff", "dfffffffff", "dd7fffffff"] {
        let t = if header.starts_with("df") {
            ty(r#"["map","string"]"#)
        } else {
            ty(r#"["list","string"]"#)
        };
        let err = msgpack::decode(&unhex(header), &t).unwrap_err();
        assert_eq!(err.category(), Category::Limit, "{header}: {err}");
    }
    // Within the limit the claim is still only trusted as far as the bytes go.
    let err = msgpack::decode(&unhex("dcffff"), &ty(r#"["list","string"]"#)).unwrap_err();
    assert_eq!(err.category(), Category::Eof);
    let err = msgpack::decode(&unhex("dcffff"), &ty(r#"["set","number"]"#)).unwrap_err();
    assert_eq!(err.category(), Category::Eof);
}

#[test]
fn contradictory_refinements_are_refused() {
    let cases = [
        (
            "c7090c82039205c3049201c3",
            "\"number\"",
            "greater than upper bound",
        ), // lower 5 > upper 1
        (
            "c7050c8205030601",
            r#"["list","string"]"#,
            "less than lower bound",
        ), // length 3..1
        ("c7050c8201c201c3", "\"string\"", "contradictory null"), // not null, then null
        ("c7090c8202a2616202a26163", "\"string\"", "contradicts"), // prefixes "ab", "ac"
    ];
    for (hex, t, want) in cases {
        let err = msgpack::decode(&unhex(hex), &ty(t)).unwrap_err();
        assert!(err.message().contains(want), "{hex} as {t}: {err}");
    }
}

#[test]
fn mixed_element_types_under_dynamic_collections_are_refused() {
    let mixed = "9292c40822737472696e6722a16192c408226e756d6265722201";
    for t in [r#"["list","dynamic"]"#, r#"["set","dynamic"]"#] {
        let err = msgpack::decode(&unhex(mixed), &ty(t)).unwrap_err();
        assert!(err.message().contains("inconsistent"), "{err}");
    }
    let err = msgpack::decode(
        &unhex("82a16192c40822737472696e6722a178a16292c40622626f6f6c22c3"),
        &ty(r#"["map","dynamic"]"#),
    )
    .unwrap_err();
    assert!(
        err.message().contains("inconsistent map element types"),
        "{err}"
    );
    let err = json::decode(
        br#"[{"value":"a","type":"string"},{"value":1,"type":"number"}]"#,
        &ty(r#"["list","dynamic"]"#),
    )
    .unwrap_err();
    assert!(
        err.message().contains("inconsistent list element types"),
        "{err}"
    );
}

#[test]
fn a_short_json_tuple_is_refused_at_its_own_path() {
    let err = json::decode(br#"["a"]"#, &ty(r#"["tuple",["string","number"]]"#)).unwrap_err();
    assert_eq!(err.message(), "a tuple of 2 elements is required (1 given)");
    let err = json::decode(
        br#"{"o":{"t":["a"]}}"#,
        &ty(r#"["object",{"o":["object",{"t":["tuple",["string","number"]]}]}]"#),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        ".o.t: a tuple of 2 elements is required (1 given)"
    );
}

#[test]
fn an_undeclared_optional_attribute_is_an_error() {
    let err = Type::parse(r#"["object",{"a":"string"},["b"]]"#).unwrap_err();
    assert_eq!(err.category(), Category::Type);
}

#[test]
fn each_limit_is_enforced_and_named() {
    let list = ty(r#"["list","number"]"#);
    let opts = DecodeOptions::new().max_collection_len(3);
    let err = msgpack::decode_with(&unhex("9401020304"), &list, &opts).unwrap_err();
    assert!(err.to_string().contains("max_collection_len"), "{err}");
    let err = json::decode_with(b"[1,2,3,4]", &list, &opts).unwrap_err();
    assert!(err.to_string().contains("max_collection_len"), "{err}");
    assert!(msgpack::decode_with(&unhex("93010203"), &list, &opts).is_ok());

    let opts = DecodeOptions::new().max_input_len(4);
    let err = msgpack::decode_with(&unhex("9401020304"), &list, &opts).unwrap_err();
    assert!(err.to_string().contains("max_input_len"), "{err}");

    let nested = ty(r#"["list",["list",["list","number"]]]"#);
    let opts = DecodeOptions::new().max_depth(2);
    let err = msgpack::decode_with(&unhex("91919101"), &nested, &opts).unwrap_err();
    assert!(err.to_string().contains("max_depth"), "{err}");
    let err = json::decode_with(b"[[[1]]]", &nested, &opts).unwrap_err();
    assert!(err.to_string().contains("max_depth"), "{err}");

    let opts = DecodeOptions::new().max_number_exponent(10);
    let err = json::decode_with(b"1e11", &Type::Number, &opts).unwrap_err();
    assert_eq!(err.category(), Category::Limit);
    assert!(json::decode_with(b"1e9", &Type::Number, &opts).is_ok());

    // A refinement that collapses into a known list of N unknowns is bound
    // by the collection limit too: 14 bytes must not become 4 billion values.
    let err = msgpack::decode(
        &unhex("c70f0c8301c205ceffffffff06ceffffffff"),
        &ty(r#"["list","string"]"#),
    )
    .unwrap_err();
    assert_eq!(err.category(), Category::Limit, "{err}");
}

/// Runs `f` on a thread with half the default thread stack (1 MiB), even in
/// a debug build, so that unbounded recursion
/// would crash the test rather than pass by luck.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn deeply_nested_dynamic_wrappers_hit_the_depth_limit_not_the_stack() {
    on_small_stack(|| {
        // Each level: [bin "dynamic", <next level>] — 100,000 levels.
        let mut bytes = Vec::new();
        for _ in 0..100_000 {
            bytes.extend_from_slice(b"\x92\xc4\x09\"dynamic\"");
        }
        bytes.push(0xc0);
        let err = msgpack::decode(&bytes, &Type::Dynamic).unwrap_err();
        assert_eq!(err.category(), Category::Limit, "{err}");
        let mut text = String::new();
        for _ in 0..100_000 {
            text.push_str(r#"{"type":"dynamic","value":"#);
        }
        let err = json::decode(text.as_bytes(), &Type::Dynamic).unwrap_err();
        assert_eq!(err.category(), Category::Limit, "{err}");
    });
}

#[test]
fn deep_type_json_inside_a_wrapper_hits_the_depth_limit() {
    on_small_stack(|| {
        let type_json = "[\"list\",".repeat(50_000) + "\"string\"" + &"]".repeat(50_000);
        let mut bytes = vec![0x92, 0xc6];
        bytes.extend_from_slice(&(type_json.len() as u32).to_be_bytes());
        bytes.extend_from_slice(type_json.as_bytes());
        bytes.push(0x90);
        let err = msgpack::decode(&bytes, &Type::Dynamic).unwrap_err();
        assert_eq!(err.category(), Category::Limit, "{err}");
    });
}

#[test]
fn the_default_depth_limit_of_256_is_reachable_on_a_small_stack() {
    on_small_stack(|| {
        let mut t = Type::String;
        for _ in 0..255 {
            t = Type::list(t);
        }
        let mut bytes = vec![0x91; 255];
        bytes.extend_from_slice(b"\xa1x");
        assert!(msgpack::decode(&bytes, &t).is_ok());
        let text = "[".repeat(255) + "\"x\"" + &"]".repeat(255);
        assert!(json::decode(text.as_bytes(), &t).is_ok());
        let v = msgpack::decode(&bytes, &t).unwrap();
        assert_eq!(msgpack::encode(&v, &t).unwrap(), bytes);
    });
}

#[test]
fn truncation_anywhere_is_a_clean_error() {
    let t =
        ty(r#"["object",{"a":["list","string"],"b":"number","c":["map","bool"],"d":"dynamic"}]"#);
    let v = Value::object([
        (
            "a",
            Value::list(
                Type::String,
                vec![Value::string("hello"), Value::string("world")],
            )
            .unwrap(),
        ),
        (
            "b",
            Value::number("12.5".parse::<ctywire::Number>().unwrap()),
        ),
        (
            "c",
            Value::map(Type::Bool, [("k", Value::bool(true))]).unwrap(),
        ),
        ("d", Value::string("dyn")),
    ]);
    let bytes = msgpack::encode(&v, &t).unwrap();
    for cut in 0..bytes.len() {
        let err = msgpack::decode(&bytes[..cut], &t).unwrap_err();
        assert!(
            matches!(err.category(), Category::Eof | Category::Data),
            "cut {cut}: {err}"
        );
    }
    let text = json::encode(&v, &t).unwrap();
    for cut in 0..text.len() {
        assert!(json::decode(&text[..cut], &t).is_err(), "cut {cut}");
    }
}
