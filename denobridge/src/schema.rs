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

/// The script's attributes, which every type has, then `more`.
fn script_block(more: impl IntoIterator<Item = Attribute>) -> Block {
    let mut attributes = vec![
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
    ];
    attributes.extend(more);
    Block {
        attributes,
        ..Block::default()
    }
}

/// What the script computes: a dynamic value, `sensitive` or not.
fn from_script(name: &str, sensitive: bool, text: &str) -> Attribute {
    let mut a = attribute(name, Type::Dynamic, Presence::Computed, text);
    a.sensitive = sensitive;
    a
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
    script_block([
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
        from_script(
            "state",
            false,
            "Additional computed state of the resource as returned by the Deno script.",
        ),
        from_script(
            "sensitive_state",
            true,
            "Sensitive computed state of the resource as returned by the Deno script.",
        ),
    ])
}

/// The block of the data source and the ephemeral resource: the script,
/// and what it returned.
pub fn results_block() -> Block {
    script_block([
        from_script("result", false, "What the script returned."),
        from_script(
            "sensitive_result",
            true,
            "What the script returned as sensitive.",
        ),
    ])
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

    /// Each attribute's flags, sorted by name: `name:rocsw` (required,
    /// optional, computed, sensitive, write-only) and a described mark.
    fn flags(schema: &Schema) -> Vec<String> {
        let mut out: Vec<String> = (schema.block.attributes.iter())
            .map(|a| {
                let f = |on: bool, c: char| if on { c } else { '-' };
                let nested = (a.nested_type.iter().flat_map(|o| &o.attributes))
                    .map(|n| format!("{}:{}", n.name, f(n.optional, 'o')))
                    .collect::<Vec<_>>();
                format!(
                    "{}:{}{}{}{}{}{}{}",
                    a.name,
                    f(a.required, 'r'),
                    f(a.optional, 'o'),
                    f(a.computed, 'c'),
                    f(a.sensitive, 's'),
                    f(a.write_only, 'w'),
                    if a.description.is_empty() { "" } else { "+doc" },
                    if nested.is_empty() {
                        String::new()
                    } else {
                        format!("{nested:?}")
                    },
                )
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn the_schemas_mark_what_denobridge_marks() {
        assert_eq!(
            flags(&resource()),
            [
                "config_file:-o---+doc",
                "id:--c--+doc",
                "path:r----+doc",
                r#"permissions:-o---+doc["all:o", "allow:o", "deny:o"]"#,
                "props:r----+doc",
                "sensitive_state:--cs-+doc",
                "state:--c--+doc",
                "write_only_props:-o--w+doc",
                "write_only_props_version:--c--+doc",
            ]
        );
        assert_eq!(
            flags(&data_source())[4..],
            ["result:--c--+doc", "sensitive_result:--cs-+doc"]
        );
        assert_eq!(
            flags(&provider()),
            [
                "command:-o---+doc",
                "deno_binary_path:-o---+doc",
                "deno_version:-o---+doc",
                "timeout:-o---+doc",
            ]
        );
    }
}
