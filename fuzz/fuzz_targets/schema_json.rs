//! `providers schema -json` documents: never a panic, and every schema
//! that loads either implies a type or says why not, and its empty value
//! encodes.
#![no_main]

use ctywire_bridge::schema_json::ProviderSchemas;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(doc) = ProviderSchemas::from_json(text) else {
        return;
    };
    for provider in doc.providers.values() {
        for schema in provider
            .resource_schemas
            .values()
            .chain(provider.data_source_schemas.values())
        {
            if let Ok(ty) = schema.implied_type() {
                let empty = schema
                    .block
                    .empty_value()
                    .expect("a schema with a type has an empty value");
                ctywire::msgpack::encode(&empty, &ty).expect("the empty value encodes");
            }
        }
    }
});
