//! What a resource's own plan hook sees and may change.

use ctywire::{Path, Value};
use ctywire_tfplugin6::Diagnostics;

/// The framework's plan for one resource, before its consistency checks:
/// [`Resource::modify_plan`](crate::Resource::modify_plan) may change
/// `planned` and `requires_replace`, and add warnings to `diagnostics`.
#[derive(Clone, Debug)]
pub struct PlanChange {
    /// The state before the change; null when creating.
    pub prior: Value,
    /// The configuration (may hold unknowns).
    pub config: Value,
    /// The planned state: unknown where the provider decides at apply.
    pub planned: Value,
    /// Attributes whose change replaces the object.
    pub requires_replace: Vec<Path>,
    /// What the hook reports beside its plan: warnings reach Terraform
    /// with the plan (a hook's `Err` can only stop it). An error here
    /// stops the plan as an `Err` would.
    pub diagnostics: Diagnostics,
}

impl PlanChange {
    /// Whether the object is being created (there is no prior state).
    pub fn is_create(&self) -> bool {
        self.prior.is_null()
    }
}
