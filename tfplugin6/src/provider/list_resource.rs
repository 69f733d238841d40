//! List resources (protocol 6.10).

use ctywire::Value;

/// `ValidateListResourceConfig` (protocol 6.10).
#[derive(Clone, Debug)]
pub struct ValidateListResourceConfigRequest {
    /// The list resource type.
    pub type_name: String,
    /// The `config` block (may hold unknowns).
    pub config: Value,
    /// The list block's `include_resource` (a bool, maybe unknown; null
    /// when not sent).
    pub include_resource_object: Value,
    /// The list block's `limit` (a number, maybe unknown; null when not
    /// sent).
    pub limit: Value,
}

/// `ListResource` (protocol 6.10): the objects a `list` block finds.
#[derive(Clone, Debug)]
pub struct ListResourceRequest {
    /// The list resource type: the managed resource type listed.
    pub type_name: String,
    /// The `config` block.
    pub config: Value,
    /// Whether each result should carry the object's state.
    pub include_resource_object: bool,
    /// How many results Terraform reads (0 or less: no limit was sent);
    /// [`ListResults::send`](crate::ListResults::send) says when it is reached.
    pub limit: i64,
}
