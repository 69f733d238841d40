//! The bridge's JSON document from arbitrary bytes: never a panic; what
//! parses writes out (compact and pretty) and reads back the same; it
//! survives serde both ways; typed denobridge messages and props read from
//! it without panicking.
#![no_main]

use ctywire::Type;
use ctywire_bridge::{from_json, from_props, to_json, Json};
use libfuzzer_sys::fuzz_target;

/// A typed message shaped like denobridge's `create` result: required and
/// optional fields, a nested list, an enum, a document inside.
#[derive(serde::Deserialize)]
#[allow(dead_code)] // only reading it is fuzzed
#[serde(rename_all = "camelCase")]
struct CreateResult {
    id: String,
    state: Option<Json>,
    sensitive_state: Option<Json>,
    diagnostics: Option<Vec<Diagnostic>>,
}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
struct Diagnostic {
    severity: Severity,
    summary: String,
    detail: Option<String>,
    prop_path: Option<Vec<Json>>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Severity {
    Error,
    Warning,
}

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = Json::parse_with(data, &ctywire::DecodeOptions::new()) else {
        return;
    };
    let text = doc.to_string();
    assert_eq!(Json::parse(&text).expect("written JSON reads back"), doc);
    let pretty = Json::parse(&doc.to_string_pretty()).expect("pretty JSON reads back");
    assert_eq!(pretty, doc);
    assert_eq!(to_json(&doc).expect("a document serializes"), doc);
    assert_eq!(
        from_json::<Json>(&doc).expect("a document deserializes"),
        doc
    );
    let _ = from_json::<CreateResult>(&doc);
    let _ = from_props(&doc, &Type::Dynamic);
});
