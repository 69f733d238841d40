//! The schemas: denobridge's resource types and attributes exactly (§6.1 of
//! the spec), so existing configurations and states work unchanged, and its
//! provider attributes plus two of ours (`command`, `timeout`).

use ctywire::schema::{Attribute, Block, NestingMode, Object, Schema};
use ctywire::Type;

/// The provider's type name.
pub const PROVIDER: &str = "denobridge";
/// The managed resource.
pub const RESOURCE: &str = "denobridge_resource";
/// The data source.
pub const DATA_SOURCE: &str = "denobridge_datasource";
/// The ephemeral resource.
pub const EPHEMERAL: &str = "denobridge_ephemeral_resource";

fn described(mut a: Attribute, text: &str) -> Attribute {
    a.description = text.into();
    a
}

/// The provider block: denobridge's `deno_binary_path` and `deno_version`,
/// and `command` / `timeout`, which denobridge does not have.
pub fn provider() -> Schema {
    Schema::new(
        Block::new()
            .attribute(described(
                Attribute::new("deno_binary_path", Type::String).optional(),
                "Path to the deno binary. Default: $DENO_BINARY, else `deno` on PATH.",
            ))
            .attribute(described(
                Attribute::new("deno_version", Type::String).optional(),
                "Accepted for compatibility with denobridge; this provider never downloads Deno (set deno_binary_path or DENO_BINARY instead).",
            ))
            .attribute(described(
                Attribute::new("command", Type::list(Type::String)).optional(),
                "Runs every script with this command instead of Deno: the program and its leading arguments; the script's path is appended (e.g. [\"python3\"] or [\"node\", \"--no-warnings\"]). `permissions` and `config_file` are Deno's and are not used then.",
            ))
            .attribute(described(
                Attribute::new("timeout", Type::Number).optional(),
                "Seconds each call to a script may take, health check included (default 600).",
            )),
    )
}

fn permissions() -> Attribute {
    described(
        Attribute::nested(
            "permissions",
            Object::new(
                NestingMode::Single,
                vec![
                    described(
                        Attribute::new("all", Type::Bool).optional(),
                        "Grant all permissions.",
                    ),
                    described(
                        Attribute::new("allow", Type::list(Type::String)).optional(),
                        "Permissions to allow (e.g. 'read', 'write', 'net').",
                    ),
                    described(
                        Attribute::new("deny", Type::list(Type::String)).optional(),
                        "Permissions to deny.",
                    ),
                ],
            ),
        )
        .optional(),
        "Deno runtime permissions for the script.",
    )
}

fn common(block: Block) -> Block {
    block
        .attribute(described(
            Attribute::new("path", Type::String).required(),
            "Path to the Deno script to execute.",
        ))
        .attribute(described(
            Attribute::new("props", Type::Dynamic).required(),
            "Input properties to pass to the Deno script.",
        ))
        .attribute(described(
            Attribute::new("config_file", Type::String).optional(),
            "File path to a deno config file to use with the deno script.",
        ))
        .attribute(permissions())
}

/// `denobridge_resource`.
pub fn resource() -> Schema {
    Schema::new(
        common(Block::new())
            .attribute(described(
                Attribute::new("id", Type::String).computed(),
                "Unique identifier for the resource.",
            ))
            .attribute(described(
                Attribute::new("write_only_props", Type::Dynamic)
                    .optional()
                    .write_only(),
                "Input properties to pass to the Deno script that are write-only.",
            ))
            .attribute(described(
                Attribute::new("write_only_props_version", Type::Number).computed(),
                "Version of the write-only properties.",
            ))
            .attribute(described(
                Attribute::new("state", Type::Dynamic).computed(),
                "Additional computed state of the resource as returned by the Deno script.",
            ))
            .attribute(described(
                Attribute::new("sensitive_state", Type::Dynamic)
                    .computed()
                    .sensitive(),
                "Sensitive computed state of the resource as returned by the Deno script.",
            )),
    )
}

fn results(block: Block) -> Block {
    block
        .attribute(described(
            Attribute::new("result", Type::Dynamic).computed(),
            "What the script returned.",
        ))
        .attribute(described(
            Attribute::new("sensitive_result", Type::Dynamic)
                .computed()
                .sensitive(),
            "What the script returned as sensitive.",
        ))
}

/// `denobridge_datasource`.
pub fn data_source() -> Schema {
    Schema::new(results(common(Block::new())))
}

/// `denobridge_ephemeral_resource`.
pub fn ephemeral() -> Schema {
    Schema::new(results(common(Block::new())))
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
