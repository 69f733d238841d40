//! The schemas: denobridge's resource types and attributes exactly (§6.1 of
//! the spec), so existing configurations and states work unchanged, and its
//! provider attributes plus two of ours (`command`, `timeout`).

use ctywire::schema::{NestingMode, Schema};
use ctywire::Type;
use ctywire_provider::schema::{Attribute, Block, Nested, Presence};
use ctywire_provider::Model;

/// The provider's type name.
pub const PROVIDER: &str = "denobridge";
/// The managed resource.
pub const RESOURCE: &str = "denobridge_resource";
/// The data source.
pub const DATA_SOURCE: &str = "denobridge_datasource";
/// The ephemeral resource.
pub const EPHEMERAL: &str = "denobridge_ephemeral_resource";

fn attribute(name: &str, ty: Type, presence: Presence, text: &str) -> Attribute {
    let mut a = Attribute::new(name, ty);
    a.presence = presence;
    a.description = text.into();
    a
}

/// The provider block (its model, [`Config`](crate::provider::Config)):
/// denobridge's `deno_binary_path` and `deno_version`, and `command` /
/// `timeout`, which denobridge does not have.
pub fn provider() -> Schema {
    Schema::new(crate::provider::Config::block().to_schema_block())
}

fn permissions() -> Attribute {
    let block = Block {
        attributes: vec![
            attribute(
                "all",
                Type::Bool,
                Presence::Optional,
                "Grant all permissions.",
            ),
            attribute(
                "allow",
                Type::list(Type::String),
                Presence::Optional,
                "Permissions to allow (e.g. 'read', 'write', 'net').",
            ),
            attribute(
                "deny",
                Type::list(Type::String),
                Presence::Optional,
                "Permissions to deny.",
            ),
        ],
        ..Block::default()
    };
    // A nested attribute's type is the object its attributes imply.
    let ty = Type::object(
        block
            .attributes
            .iter()
            .map(|a| (a.name.clone(), a.ty.clone())),
    );
    let mut a = attribute(
        "permissions",
        ty,
        Presence::Optional,
        "Deno runtime permissions for the script.",
    );
    a.nested = Some(Nested {
        nesting: NestingMode::Single,
        block,
    });
    a
}

fn common() -> Vec<Attribute> {
    vec![
        attribute(
            "path",
            Type::String,
            Presence::Required,
            "Path to the Deno script to execute.",
        ),
        attribute(
            "props",
            Type::Dynamic,
            Presence::Required,
            "Input properties to pass to the Deno script.",
        ),
        attribute(
            "config_file",
            Type::String,
            Presence::Optional,
            "File path to a deno config file to use with the deno script.",
        ),
        permissions(),
    ]
}

/// `denobridge_resource`'s block.
pub fn resource_block() -> Block {
    let mut write_only = attribute(
        "write_only_props",
        Type::Dynamic,
        Presence::Optional,
        "Input properties to pass to the Deno script that are write-only.",
    );
    write_only.write_only = true;
    let mut sensitive = attribute(
        "sensitive_state",
        Type::Dynamic,
        Presence::Computed,
        "Sensitive computed state of the resource as returned by the Deno script.",
    );
    sensitive.sensitive = true;
    let mut attributes = common();
    attributes.extend([
        attribute(
            "id",
            Type::String,
            Presence::Computed,
            "Unique identifier for the resource.",
        ),
        write_only,
        attribute(
            "write_only_props_version",
            Type::Number,
            Presence::Computed,
            "Version of the write-only properties.",
        ),
        attribute(
            "state",
            Type::Dynamic,
            Presence::Computed,
            "Additional computed state of the resource as returned by the Deno script.",
        ),
        sensitive,
    ]);
    Block {
        attributes,
        ..Block::default()
    }
}

/// The block of the data source and the ephemeral resource: the script,
/// and what it returned.
pub fn results_block() -> Block {
    let mut sensitive = attribute(
        "sensitive_result",
        Type::Dynamic,
        Presence::Computed,
        "What the script returned as sensitive.",
    );
    sensitive.sensitive = true;
    let mut attributes = common();
    attributes.extend([
        attribute(
            "result",
            Type::Dynamic,
            Presence::Computed,
            "What the script returned.",
        ),
        sensitive,
    ]);
    Block {
        attributes,
        ..Block::default()
    }
}

/// `denobridge_resource`.
pub fn resource() -> Schema {
    Schema::new(resource_block().to_schema_block())
}

/// `denobridge_datasource`.
pub fn data_source() -> Schema {
    Schema::new(results_block().to_schema_block())
}

/// `denobridge_ephemeral_resource`.
pub fn ephemeral() -> Schema {
    Schema::new(results_block().to_schema_block())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resource_has_denobridge_s_attributes_exactly() {
        let ty = resource().implied_type().unwrap();
        assert_eq!(
            ty.to_json(),
            r#"["object",{"config_file":"string","id":"string","path":"string","permissions":["object",{"all":"bool","allow":["list","string"],"deny":["list","string"]}],"props":"dynamic","sensitive_state":"dynamic","state":"dynamic","write_only_props":"dynamic","write_only_props_version":"number"}]"#
        );
        let ty = data_source().implied_type().unwrap();
        assert_eq!(
            ty.to_json(),
            r#"["object",{"config_file":"string","path":"string","permissions":["object",{"all":"bool","allow":["list","string"],"deny":["list","string"]}],"props":"dynamic","result":"dynamic","sensitive_result":"dynamic"}]"#
        );
    }
}
