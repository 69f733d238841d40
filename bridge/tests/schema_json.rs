//! Schemas from the document `terraform providers schema -json` prints.

use ctywire::Type;
use ctywire_bridge::schema_json::ProviderSchemas;

#[test]
fn the_real_terraform_schema_document_loads() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/terraform/providers-schema-builtin.json"
    ))
    .unwrap();
    let schemas = ProviderSchemas::from_json(&text).unwrap();
    let data = schemas.resource("terraform_data").unwrap();
    assert_eq!(
        data.implied_type().unwrap().to_json(),
        r#"["object",{"id":"string","input":"dynamic","output":"dynamic","triggers_replace":"dynamic"}]"#
    );
    let remote = schemas.data_source("terraform_remote_state").unwrap();
    assert!(remote.block.find_attribute("backend").unwrap().required);
    assert_eq!(
        remote.implied_type().unwrap().attribute_type("config"),
        Some(&Type::Dynamic)
    );
}

#[test]
fn schema_documents_with_blocks_and_nested_types_load_and_errors_say_where() {
    let doc = r#"{"format_version":"1.0","provider_schemas":{"example.com/x/y":{
        "provider":{"version":0,"block":{"attributes":{"region":{"type":"string","optional":true}}}},
        "resource_schemas":{"y_server":{"version":2,"block":{
            "attributes":{
                "id":{"type":"string","computed":true},
                "disks":{"nested_type":{"nesting_mode":"list","attributes":{"size":{"type":"number","required":true}}},"optional":true}
            },
            "block_types":{
                "network":{"nesting_mode":"set","block":{"attributes":{"ip":{"type":"string","optional":true}}},"min_items":1},
                "meta":{"nesting_mode":"map","block":{"attributes":{"v":{"type":"dynamic","optional":true}}}}
            }}}}}}}"#;
    let schemas = ProviderSchemas::from_json(doc).unwrap();
    let server = schemas.resource("y_server").unwrap();
    assert_eq!(server.version, 2);
    assert_eq!(
        server.implied_type().unwrap().to_json(),
        r#"["object",{"disks":["list",["object",{"size":"number"}]],"id":"string","meta":"dynamic","network":["set",["object",{"ip":"string"}]]}]"#
    );
    assert_eq!(
        server.block.find_block_type("network").unwrap().min_items,
        1
    );
    let bad = doc.replace(r#""type":"number""#, r#""type":"numbr""#);
    let err = ProviderSchemas::from_json(&bad).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#".provider_schemas["example.com/x/y"].resource_schemas["y_server"].block.attributes["disks"].nested_type.attributes["size"].type: invalid primitive type name "numbr"; the primitive types are "string", "number", "bool" and "dynamic""#
    );
}

#[test]
fn schema_documents_nest_as_deep_as_values_may_and_errors_carry_offsets() {
    // 150 levels of nested blocks: past serde_json's recursion limit of
    // 128, within ctywire's 256.
    let mut block = r#"{"attributes":{"x":{"type":"string","optional":true}}}"#.to_string();
    for _ in 0..75 {
        block = format!(r#"{{"block_types":{{"b":{{"nesting_mode":"list","block":{block}}}}}}}"#);
    }
    let doc = format!(
        r#"{{"format_version":"1.0","provider_schemas":{{"p":{{"resource_schemas":{{"r":{{"version":0,"block":{block}}}}}}}}}}}"#
    );
    let schemas = ProviderSchemas::from_json(&doc).unwrap();
    assert!(schemas.resource("r").unwrap().implied_type().is_ok());
    let err = ProviderSchemas::from_json(r#"{"format_version":1.0.0}"#).unwrap_err();
    assert_eq!(err.offset(), Some(21));
}
