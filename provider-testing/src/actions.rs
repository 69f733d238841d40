//! Actions (protocol 6.10, Terraform 1.14): `action "TYPE" "NAME" {
//! config { ... } }` blocks, invoked as `terraform apply
//! -invoke=action.TYPE.NAME` invokes one (hashicorp/terraform,
//! `internal/terraform`): the configuration validated with its references
//! unknown (`node_action_validate.go`, `ValidateActionConfig`), planned
//! with what state holds (`node_action_invoke.go`,
//! `nodeActionPlanInvoke.planAction`: an unknown configuration is
//! refused, then `PlanAction`), then invoked
//! (`action_trigger_instance_apply.go`, `actionTriggerApplyInstance.Invoke`:
//! `InvokeAction`'s events read to the end, each progress message in
//! order, the completed event's diagnostics the result). The lookup,
//! validation and evaluation of an `action` block here serve the actions
//! a resource's lifecycle triggers too (`triggers.rs`). See
//! `SPEC-list-and-actions.md`.

use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use serde_json::{json, Value as Json};

use ctywire::{Path, Value};

use crate::client::ResourceSchema;
use crate::config::{decode_body, ApplyScope, Decoded, Reference, Scope, UnknownScope};
use crate::split;
use crate::Harness;
use crate::Invoked;

/// What an action's configuration refers to while it is planned: the
/// objects in state, and what is configured but not yet applied unknown
/// (as core's plan would have it).
struct InvokeScope<'a>(&'a Harness);

impl Scope for InvokeScope<'_> {
    fn harness(&self) -> Option<&Harness> {
        Some(self.0)
    }

    fn resolve(&self, r: &Reference) -> Result<(Value, Vec<Path>), String> {
        let h = self.0;
        let in_state = ApplyScope {
            harness: h,
            working: &h.state,
            data: &h.data_state,
        };
        match (in_state.resolve(r), r) {
            (Err(_), Reference::Resource { address, .. }) if h.resources.contains_key(address) => {
                Ok((Value::unknown(ctywire::Type::Dynamic), Vec::new()))
            }
            (answer, _) => answer,
        }
    }
}

impl Harness {
    /// `terraform apply -invoke=ADDRESS` for the configuration's `action`
    /// block at `address` (`action.TYPE.NAME`): `ValidateActionConfig`,
    /// `PlanAction` with the configuration evaluated against the state,
    /// then `InvokeAction`, its progress messages returned in order. An
    /// error the provider gives (in `PlanAction` or the completed event)
    /// is the result; warnings go to [`warnings`](Self::warnings).
    pub fn invoke(&mut self, address: &str) -> Result<Invoked, Diagnostics> {
        self.action_block(address)?;
        self.prepare()?;
        // The validate walk: references unknown.
        let mut warnings = Diagnostics::new();
        let validated = self.validate_action_block(address, &mut warnings);
        self.warnings.extend(warnings);
        validated?;
        let (type_name, planned, ty) = self.action_config(address, &InvokeScope(self))?;
        let planned = planned.value;
        if !planned.is_wholly_known() {
            return Err(Diagnostic::error("Partially applied configuration")
                .with_detail(format!("The action {address} contains unknown values while planning. This means it is referencing resources that have not yet been created, please run a complete plan/apply cycle to ensure the state matches the configuration before using the -invoke argument."))
                .into());
        }
        let d = (self.client).plan_action(&type_name, &planned, &ty)?;
        self.take(d)?;
        let (progress, d) = (self.client).invoke_action(&type_name, &planned, &ty)?;
        self.take(d)?;
        Ok(Invoked {
            progress,
            diagnostics: Diagnostics::new(),
        })
    }

    /// The `action` block at `address` and its type's schema, or core's
    /// errors for an undeclared action and an unknown type.
    pub(crate) fn action_block(
        &self,
        address: &str,
    ) -> Result<(String, Json, &ResourceSchema), Diagnostics> {
        let type_name = address
            .strip_prefix("action.")
            .and_then(|r| r.split_once('.'))
            .map(|(t, _)| t.to_owned())
            .ok_or_else(|| {
                Diagnostics::error(format!(
                    "{address:?} is not an action address: write action.TYPE.NAME"
                ))
            })?;
        let Some(body) = self.actions.get(address).cloned() else {
            return Err(Diagnostic::error("Reference to undeclared action")
                .with_detail(format!(
                    "The configuration declares no action {address}: add an action block for it first."
                ))
                .into());
        };
        let Some(schema) = self.schemas.actions.get(&type_name) else {
            return Err(Diagnostic::error("Invalid action type")
                .with_detail(format!(
                    "The provider {} does not support action type {type_name:?}.",
                    self.provider
                ))
                .into());
        };
        for key in ["count", "for_each", "provider"] {
            if body.get(key).is_some() {
                return Err(Diagnostics::error(format!(
                    "{address}: the harness does not support {key:?}"
                )));
            }
        }
        Ok((type_name, body, schema))
    }

    /// `ValidateActionConfig` for the action at `address`, its
    /// configuration evaluated with every reference unknown
    /// (`NodeValidatableAction.Execute`); errors stop, warnings are kept.
    pub(crate) fn validate_action_block(
        &self,
        address: &str,
        warnings: &mut Diagnostics,
    ) -> Result<(), Diagnostics> {
        let (type_name, body, schema) = self.action_block(address)?;
        let config = body.get("config").cloned().unwrap_or_else(|| json!({}));
        let validated = decode_body(&schema.schema.block, &config, &UnknownScope, &[])?;
        let d = (self.client).validate_action(&type_name, &validated.value, &schema.ty)?;
        split(d, warnings)
    }

    /// The action's `config` block evaluated in `scope`.
    pub(crate) fn action_config(
        &self,
        address: &str,
        scope: &dyn Scope,
    ) -> Result<(String, Decoded, ctywire::Type), Diagnostics> {
        let (type_name, body, schema) = self.action_block(address)?;
        let config = body.get("config").cloned().unwrap_or_else(|| json!({}));
        let decoded = decode_body(&schema.schema.block, &config, scope, &[])?;
        Ok((type_name, decoded, schema.ty.clone()))
    }
}
