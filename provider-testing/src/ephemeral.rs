//! Ephemeral resources (`ephemeral "TYPE" "NAME" {}`), as Terraform 1.11's
//! core treats them (hashicorp/terraform v1.11.4):
//!
//! * validated with the rest of the configuration
//!   (`NodeValidatableResource.validateResource`, `EphemeralResourceMode`:
//!   `ValidateEphemeralResourceConfig`);
//! * opened in dependency order during plan and again during apply
//!   (`node_resource_ephemeral.go`, `ephemeralResourceOpen`): a
//!   configuration not wholly known is not opened and its value is
//!   `objchange.PlannedDataResourceObject`'s (computed attributes
//!   unknown); otherwise `ValidateEphemeralResourceConfig` and
//!   `OpenEphemeralResource`, the result checked with `AssertPlanValid`
//!   against the configuration;
//! * renewed (`RenewEphemeralResource`) once its `renew_at` has passed
//!   (`resources/ephemeral`, `handleRenewal`), and closed
//!   (`CloseEphemeralResource`) when the operation ends (`Resources.Close`),
//!   the last opened first;
//! * never in the plan or the state; a value derived from one may go
//!   only where core allows an ephemeral value: write-only attributes,
//!   provider configuration, other ephemeral resources and locals
//!   (`validateResourceForbiddenEphemeralValues`; an output is refused
//!   as `NodeApplyableOutput` refuses it).
//!
//! Whether a value is derived from an ephemeral resource is read from the
//! configuration's references (locals followed), where core follows cty's
//! ephemeral mark through evaluation: the harness flags an attribute
//! whose expression refers to an ephemeral resource at all (core would
//! not, for the branch a conditional does not take).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::SystemTime;

use ctywire::schema::Block;
use ctywire::{Path, Value};
use ctywire_objchange::{assert_plan_valid, proposed_new};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use serde_json::Value as Json;

use crate::client::{ResourceSchema, Schemas};
use crate::config::{references, Scope};
use crate::core::type_of;
use crate::eval::expression_references;
use crate::instances::{by_resource, instance_address, instances_in, Repeated};
use crate::{split, Body, Harness};

/// What an ephemeral resource's address starts with
/// (`ephemeral.TYPE.NAME`).
pub(crate) const EPHEMERAL: &str = "ephemeral.";

/// Whether `address` is an ephemeral resource's
/// (`addrs.EphemeralResourceMode`).
pub(crate) fn is_ephemeral(address: &str) -> bool {
    address.starts_with(EPHEMERAL)
}

/// The schema of the ephemeral resource type `type_name`.
pub(crate) fn schema<'a>(
    schemas: &'a Schemas,
    provider: &str,
    type_name: &str,
) -> Result<&'a ResourceSchema, Diagnostics> {
    schemas.ephemerals.get(type_name).ok_or_else(|| {
        Diagnostics::from(
            Diagnostic::error("Invalid ephemeral resource type").with_detail(format!(
                "The provider {provider} does not support ephemeral resource type {type_name:?}."
            )),
        )
    })
}

/// The ephemeral resources of one operation: their values, and the
/// opened ones' private data and renewal times.
#[derive(Default)]
pub(crate) struct Session {
    values: BTreeMap<String, (Value, Vec<Path>)>,
    /// Opened instances in the order they were opened.
    opened: Vec<Instance>,
}

struct Instance {
    address: String,
    private: Option<Vec<u8>>,
    renew_at: Option<SystemTime>,
}

/// The harness's session, behind a `RefCell`: instances are opened while
/// the walk holds the harness shared.
pub(crate) type Sessions = RefCell<Session>;

impl Harness {
    /// Each instance of the ephemeral resource `resource` opened
    /// (`count` and `for_each` expanded in `scope`, as core expands an
    /// ephemeral resource like any other).
    pub(crate) fn open_ephemerals(
        &self,
        resource: &str,
        scope: &dyn Scope,
        warnings: &mut Diagnostics,
    ) -> Result<(), Diagnostics> {
        for (key, rep) in self.expand(resource, scope)?.instances() {
            let instance = instance_address(resource, key.as_ref());
            let scope = Repeated {
                inner: scope,
                rep: &rep,
            };
            self.open_ephemeral(&instance, &scope, warnings)?;
        }
        Ok(())
    }

    /// `ephemeralResourceOpen` for the ephemeral resource instance at
    /// `address`, its configuration evaluated in `scope`.
    fn open_ephemeral(
        &self,
        address: &str,
        scope: &dyn Scope,
        warnings: &mut Diagnostics,
    ) -> Result<(), Diagnostics> {
        let type_name = type_of(address);
        let rs = schema(&self.schemas, &self.provider, type_name)?;
        let decoded = self.decode(address, scope)?;
        if !decoded.value.is_wholly_known() {
            // PlannedDataResourceObject: what the configuration leaves
            // null is unknown.
            let unknown = proposed_new(
                &rs.schema.block,
                &Value::unknown(rs.ty.clone()),
                &decoded.value,
            );
            self.ephemerals
                .borrow_mut()
                .values
                .insert(address.to_owned(), (unknown, decoded.marks));
            return Ok(());
        }
        let client = self.client_for(address)?;
        let d = client.validate_ephemeral(type_name, &decoded.value, &rs.ty)?;
        split(d, warnings)?;
        let (opened, d) = client.open_ephemeral(type_name, &decoded.value, &rs.ty)?;
        warnings.extend(d);
        let problems = assert_plan_valid(
            &rs.schema.block,
            &Value::null(rs.ty.clone()),
            &decoded.value,
            &opened.result,
        );
        let mut session = self.ephemerals.borrow_mut();
        // Opened, so closed at the end even when its result is refused.
        session.opened.push(Instance {
            address: address.to_owned(),
            private: opened.private,
            renew_at: opened.renew_at,
        });
        if !problems.is_empty() {
            return Err(problems
                .iter()
                .map(|p| {
                    Diagnostic::error("Provider produced invalid ephemeral resource instance")
                        .with_detail(format!(
                            "The provider for {type_name} produced an inconsistent result: {p}."
                        ))
                })
                .collect());
        }
        session
            .values
            .insert(address.to_owned(), (opened.result, decoded.marks));
        Ok(())
    }

    /// An ephemeral resource's value in this operation, renewed first if
    /// its time has come (a repeated one's instances as one value).
    pub(crate) fn ephemeral_value(&self, address: &str) -> Result<(Value, Vec<Path>), String> {
        self.renew_due().map_err(|d| d.to_string())?;
        let session = self.ephemerals.borrow();
        if self.repetition_of(address).is_some() {
            let opened = instances_in(&session.values, address)
                .map(|(a, v)| (a.clone(), v.clone()))
                .collect();
            return (by_resource(self, &opened).remove(address))
                .ok_or_else(|| format!("{address} has not been opened"));
        }
        session
            .values
            .get(address)
            .cloned()
            .ok_or_else(|| format!("{address} has not been opened"))
    }

    /// `handleRenewal`: each opened instance whose `renew_at` has passed
    /// is renewed once, taking the next private data and time.
    fn renew_due(&self) -> Result<Diagnostics, Diagnostics> {
        let now = SystemTime::now();
        let mut warnings = Diagnostics::new();
        let mut session = self.ephemerals.borrow_mut();
        for inst in session.opened.iter_mut() {
            if inst.renew_at.is_some_and(|t| t <= now) {
                let client = self.client_for(&inst.address)?;
                let (renewed, d) =
                    client.renew_ephemeral(type_of(&inst.address), inst.private.take())?;
                split(d, &mut warnings)?;
                inst.private = renewed.private;
                inst.renew_at = renewed.renew_at;
            }
        }
        Ok(warnings)
    }

    /// `Resources.Close` at the end of an operation: renewals that came
    /// due, then every opened instance closed, the last opened first.
    /// Every instance is closed even when one fails; the errors are all
    /// returned.
    pub(crate) fn close_ephemerals(&self) -> Result<Diagnostics, Diagnostics> {
        let renewed = self.renew_due();
        let session = std::mem::take(&mut *self.ephemerals.borrow_mut());
        let mut all = match renewed {
            Ok(w) => w,
            Err(e) => e,
        };
        for inst in session.opened.into_iter().rev() {
            let closed = (self.client_for(&inst.address))
                .and_then(|c| c.close_ephemeral(type_of(&inst.address), inst.private));
            match closed {
                Ok(d) | Err(d) => all.extend(d),
            }
        }
        match all.has_errors() {
            true => Err(all),
            false => Ok(all),
        }
    }

    /// `validateResourceForbiddenEphemeralValues` for a managed or data
    /// resource's body: an attribute derived from an ephemeral resource
    /// must be write-only.
    pub(crate) fn forbid_ephemeral_values(
        &self,
        address: &str,
        block: &Block,
    ) -> Result<(), Diagnostics> {
        let Some(Json::Object(body)) = self.resources.get(address).and_then(Body::json) else {
            return Ok(());
        };
        let mut diags = Diagnostics::new();
        for (key, v) in body {
            if !self.refers_to_ephemeral(v) {
                continue;
            }
            let why = match block.attributes.iter().find(|a| a.name == *key) {
                Some(a) if a.write_only => continue,
                Some(_) => "it is not a write-only attribute and must be persisted to state",
                // A nested block: core walks up from the attribute inside
                // to the block, which is no attribute at all.
                None if block.block_types.iter().any(|b| b.type_name == *key) => {
                    "it is not an assignable attribute"
                }
                None => continue,
            };
            diags.push(
                Diagnostic::error("Invalid use of ephemeral value").with_detail(format!(
                    "Ephemeral values are not valid for {key:?}, because {why}."
                )),
            );
        }
        match diags.has_errors() {
            true => Err(diags),
            false => Ok(()),
        }
    }

    /// `NodeApplyableOutput`: a root module output derived from an
    /// ephemeral value is refused.
    pub(crate) fn forbid_ephemeral_outputs(&self) -> Result<(), Diagnostics> {
        let mut diags = Diagnostics::new();
        for output in self.outputs.values() {
            let mut found = std::collections::BTreeSet::new();
            expression_references(&output.value, &self.locals, &mut found, 0)
                .map_err(Diagnostics::error)?;
            if found.iter().any(|a| is_ephemeral(a)) {
                diags.push(Diagnostic::error("Ephemeral value not allowed").with_detail(
                    "This output value is not declared as returning an ephemeral value, so it cannot be set to a result derived from an ephemeral value.",
                ));
            }
        }
        match diags.has_errors() {
            true => Err(diags),
            false => Ok(()),
        }
    }

    fn refers_to_ephemeral(&self, v: &Json) -> bool {
        references(v, &self.locals).is_ok_and(|r| r.iter().any(|a| is_ephemeral(a)))
    }
}
