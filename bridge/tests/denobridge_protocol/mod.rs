//! The typed messages of terraform-provider-denobridge's JSON-RPC protocol
//! (`../shared/protocols`), as the runtime tests speak them to a Deno child
//! written from the same document: serde types in and out of JSON-RPC
//! params and results with `to_json`/`from_json`, numbers exact.
//!
//! The provider itself reads its children's answers leniently
//! (`denobridge/src/diag.rs` says why), so these strict types live with
//! the tests that use them.
#![allow(dead_code)] // each test file uses its own part of the protocol

use ctywire_bridge::{Json, PropSegment};
use serde::{Deserialize, Serialize};

/// Method names.
pub mod method {
    /// `health` → [`HealthResult`](super::HealthResult).
    pub const HEALTH: &str = "health";
    /// `shutdown`, a notification.
    pub const SHUTDOWN: &str = "shutdown";
    /// Resources: `create`.
    pub const CREATE: &str = "create";
    /// Resources and data sources: `read`.
    pub const READ: &str = "read";
    /// Resources: `update`.
    pub const UPDATE: &str = "update";
    /// Resources: `delete`.
    pub const DELETE: &str = "delete";
    /// Resources: `modifyPlan` (JSON-RPC -32601 means "nothing to change").
    pub const MODIFY_PLAN: &str = "modifyPlan";
    /// Ephemeral resources: `open`.
    pub const OPEN: &str = "open";
    /// Ephemeral resources: `renew`.
    pub const RENEW: &str = "renew";
    /// Ephemeral resources: `close`.
    pub const CLOSE: &str = "close";
    /// Actions: `invoke`.
    pub const INVOKE: &str = "invoke";
    /// Actions: `invokeProgress`, a notification from the child.
    pub const INVOKE_PROGRESS: &str = "invokeProgress";
}

/// How bad a diagnostic is. Anything else is refused when read (denobridge
/// drops unknown severities silently).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Stops the operation.
    Error,
    /// Shown, and the operation goes on.
    Warning,
}

/// A diagnostic from the child, optionally at a `propPath` (resolve it
/// with [`ctywire_bridge::resolve_prop_path`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// One line.
    pub summary: String,
    /// More.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Where, as names and indexes from the root attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prop_path: Option<Vec<PropSegment>>,
}

/// The answer to `health`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HealthResult {
    /// Whether the child is ready.
    pub ok: bool,
}

/// `create` parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateParams {
    /// The configured props.
    pub props: Json,
    /// Write-only props, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_only_props: Option<Json>,
}

/// The answer to `create`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateResult {
    /// The new resource's id.
    pub id: String,
    /// Its state.
    #[serde(default)]
    pub state: Json,
    /// Its sensitive state.
    #[serde(default)]
    pub sensitive_state: Json,
    /// Problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
}

/// `read` parameters (resources).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReadParams {
    /// The resource id.
    pub id: String,
    /// The props in state.
    pub props: Json,
}

/// The answer to `read`: `{"exists": false}` when the resource is gone,
/// else what replaces props, state and sensitive state (a missing field
/// becomes null).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResult {
    /// `false` when the resource no longer exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
    /// New props.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub props: Option<Json>,
    /// New state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Json>,
    /// New sensitive state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitive_state: Option<Json>,
    /// Problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
}

impl ReadResult {
    /// Whether the child says the resource is gone.
    pub fn is_gone(&self) -> bool {
        self.exists == Some(false)
    }
}

/// `update` parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateParams {
    /// The resource id.
    pub id: String,
    /// The props to apply.
    pub next_props: Json,
    /// Write-only props to apply, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_write_only_props: Option<Json>,
    /// The props in state.
    pub current_props: Json,
    /// The state.
    pub current_state: Json,
    /// The sensitive state.
    pub current_sensitive_state: Json,
}

/// The answer to `update`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateResult {
    /// New state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Json>,
    /// New sensitive state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitive_state: Option<Json>,
    /// Problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
}

/// `delete` parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteParams {
    /// The resource id.
    pub id: String,
    /// The props in state.
    pub props: Json,
    /// The state.
    pub state: Json,
    /// The sensitive state.
    pub sensitive_state: Json,
}

/// The answer to `delete`, `close` and `invoke`: `done` must be true.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DoneResult {
    /// Whether it is done.
    pub done: bool,
    /// Problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
}

/// What a plan does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlanType {
    /// A new resource.
    Create,
    /// A change.
    Update,
    /// Removal.
    Delete,
}

/// `modifyPlan` parameters. `next_props` is null on delete, and may hold
/// values not known yet: see [`ctywire_bridge::Unknowns`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModifyPlanParams {
    /// The resource id (absent on create).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// What is planned.
    pub plan_type: PlanType,
    /// The planned props.
    pub next_props: Json,
    /// The props in state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_props: Option<Json>,
    /// The state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_state: Option<Json>,
    /// The sensitive state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_sensitive_state: Option<Json>,
}

/// The answer to `modifyPlan`; the first field set wins, in this order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModifyPlanResult {
    /// Nothing changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_changes: Option<bool>,
    /// The resource must be replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_replacement: Option<bool>,
    /// Planned props replacing the configured ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_props: Option<Json>,
    /// Problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
}

/// Parameters holding only props: data source `read`, ephemeral `open`,
/// action `invoke`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PropsParams {
    /// The configured props.
    pub props: Json,
}

/// The answer to a data source `read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataSourceResult {
    /// The result.
    #[serde(default)]
    pub result: Json,
    /// The sensitive result.
    #[serde(default)]
    pub sensitive_result: Json,
    /// Problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
}

/// The answer to `open`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenResult {
    /// The result.
    #[serde(default)]
    pub result: Json,
    /// The sensitive result.
    #[serde(default)]
    pub sensitive_result: Json,
    /// When to renew, in Unix seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renew_at: Option<i64>,
    /// Data kept for `renew` and `close`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_data: Option<Json>,
    /// Problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
}

/// `renew` and `close` parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrivateParams {
    /// What `open` kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_data: Option<Json>,
}

/// The answer to `renew`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenewResult {
    /// When to renew next, in Unix seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renew_at: Option<i64>,
    /// Data kept from now on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_data: Option<Json>,
    /// Problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
}

/// The `invokeProgress` notification.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InvokeProgress {
    /// A progress line.
    pub message: String,
}
