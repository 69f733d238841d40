//! Running fixture files: each line decodes msgpack or JSON as a type and
//! states what must come out (see testdata/README.md).

use ctywire::{json, msgpack, Type, Value};

use super::{hex, unhex};
use serde_json::Value as Json;

pub struct Outcome {
    pub passed: usize,
    pub failures: Vec<String>,
}

/// The decoded value, its msgpack re-encoding, and its JSON re-encoding
/// (`None` when the value holds unknowns).
pub type Roundtrip = (Value, Vec<u8>, Option<Vec<u8>>);

/// What the library does with one fixture input, or the first error.
pub fn run(ty: &Type, line: &Json) -> Result<Roundtrip, String> {
    let value = if let Some(h) = line.get("msgpack").and_then(Json::as_str) {
        msgpack::decode(&unhex(h), ty)
    } else {
        let text = line["json"].as_str().unwrap();
        json::decode(text.as_bytes(), ty)
    }
    .map_err(|e| format!("decode: {e}"))?;
    let mp = msgpack::encode(&value, ty).map_err(|e| format!("msgpack encode: {e}"))?;
    let js = match json::encode(&value, ty) {
        Ok(j) => Some(j),
        Err(_) if !value.is_wholly_known() => None,
        Err(e) => return Err(format!("json encode: {e}")),
    };
    Ok((value, mp, js))
}

pub fn check_file(name: &str) -> Outcome {
    let path = format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Outcome {
        passed: 0,
        failures: Vec::new(),
    };
    for (n, raw) in text.lines().enumerate() {
        let line: Json = serde_json::from_str(raw).unwrap();
        let expect = &line["expect"];
        if expect.get("any").is_some() {
            continue;
        }
        let ty_json = serde_json::to_string(&line["type"]).unwrap();
        let ty = Type::parse(&ty_json)
            .unwrap_or_else(|e| panic!("{name}:{}: type {ty_json}: {e}", n + 1));
        let got = run(&ty, &line);
        let verdict = match (&got, expect.get("error")) {
            (Err(_), Some(_)) => Ok(()),
            (Ok((v, _, _)), Some(want)) => Err(format!("expected error {want}, got {v:?}")),
            (Err(e), None) => Err(format!("expected success, got {e}")),
            (Ok((_, mp, js)), None) => {
                let mut return_failure: Option<String> = None;
                let want_mp = expect["msgpack"].as_str().unwrap();
                let want_js = expect.get("json").and_then(Json::as_str);
                let got_js = js
                    .as_deref()
                    .map(|j| String::from_utf8(j.to_vec()).unwrap());
                // Terraform's state JSON (indented when read from the state
                // file): without its whitespace, it is ctywire's JSON exactly.
                let json_input = line.get("json").and_then(Json::as_str).map(compact);
                if let (Some(input), Some(got)) = (json_input, got_js.as_deref()) {
                    if name.starts_with("terraform/") && input != got {
                        return_failure = Some(format!("JSON differs from Terraform's:\n  terraform {input}\n  ctywire   {got}"));
                    }
                }
                if let Some(f) = return_failure.take() {
                    Err(f)
                } else if hex(mp) != want_mp {
                    Err(format!(
                        "msgpack: want {want_mp}\n                got  {}",
                        hex(mp)
                    ))
                } else if got_js.as_deref() != want_js {
                    Err(format!(
                        "json: want {want_js:?}\n             got  {got_js:?}"
                    ))
                } else {
                    Ok(())
                }
            }
        };
        match verdict {
            Ok(()) => out.passed += 1,
            Err(why) => out.failures.push(format!(
                "{name}:{} {} {}\n  input {}\n  {why}",
                n + 1,
                line.get("note").and_then(Json::as_str).unwrap_or(""),
                ty_json,
                raw.chars().take(300).collect::<String>()
            )),
        }
    }
    out
}

/// JSON text without the whitespace between its tokens (Go's
/// `json.Compact`): strings are kept byte for byte.
pub fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    out
}
