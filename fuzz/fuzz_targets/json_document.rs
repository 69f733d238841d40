//! The bridge's JSON document from arbitrary bytes: never a panic; what
//! parses writes out (compact and pretty) and reads back the same; it
//! survives serde both ways; typed denobridge messages and props read from
//! it without panicking.
#![no_main]

use ctywire::bridge::{from_json, from_props, to_json, Json};
use ctywire::rpc::denobridge::CreateResult;
use ctywire::Type;
use libfuzzer_sys::fuzz_target;

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
