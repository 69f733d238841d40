//! Schemas and values the service tests share: a `test_thing` with one
//! optional `name`, identified by a string `id`.

// Each test binary uses what it needs of this.
#![allow(dead_code)]

use ctywire::schema::{Attribute, Block, IdentityAttribute, IdentitySchema, Schema};
use ctywire::Type;
use ctywire_tfplugin6::pb::tfplugin6 as pb;

/// A block with one optional string, `name`.
pub fn named() -> Schema {
    Schema::new(Block::new().attribute(Attribute::new("name", Type::String).optional()))
}

/// An identity of one string, `id`, required for import (list resources
/// need their resource's identity).
pub fn string_id() -> IdentitySchema {
    IdentitySchema {
        version: 0,
        identity_attributes: vec![IdentityAttribute {
            name: "id".into(),
            ty: Type::String,
            required_for_import: true,
            optional_for_import: false,
            description: String::new(),
        }],
    }
}

/// `{name = "x"}` in msgpack.
pub fn named_value() -> Option<pb::DynamicValue> {
    Some(pb::DynamicValue {
        msgpack: b"\x81\xa4name\xa1x".to_vec(),
        json: vec![],
    })
}
