//! One resource instance's steps as Terraform core runs them, each
//! mirroring the core function named in its comment (hashicorp/terraform
//! v1.11, `internal/terraform/node_resource_abstract_instance.go` unless
//! said otherwise), with core's checks and core's messages.

use ctywire::schema::{Attribute, Block, NestingMode, Object as NestedObject};
use ctywire::{Path, Type, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};

use super::client::{Client, IdentityType, Private, ResourceSchema, Schemas};
use super::config::Decoded;
use super::lifecycle::{ignore_changes, Lifecycle};
use super::show::{child, hoist_set_marks, same_path};
use ctywire_objchange::{
    assert_object_compatible, assert_plan_valid, prepare_computed_blocks, proposed_new,
    unknown_paths, unknowns_as_null,
};

/// The tail core appends to every provider bug it reports.
const PROVIDER_BUG: &str =
    "This is a bug in the provider, which should be reported in the provider's own issue tracker.";

/// What a plan does to a resource instance: core's `plans.Action` (named
/// for the change it is part of, as `change.actions` in `terraform show
/// -json`, and not to be confused with the framework's `Action` trait).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeAction {
    /// Nothing to do.
    NoOp,
    /// A new object.
    Create,
    /// The object changes in place.
    Update,
    /// The object goes away.
    Delete,
    /// Replaced: the old object is deleted first.
    DeleteThenCreate,
    /// Replaced: the new object is created first (`create_before_destroy`).
    CreateThenDelete,
    /// A data source read at apply, its configuration or a dependency
    /// not known at plan.
    Read,
}

impl ChangeAction {
    /// Core's name for it (`plans.Action.String()`), as its messages print it.
    pub fn name(self) -> &'static str {
        match self {
            ChangeAction::NoOp => "NoOp",
            ChangeAction::Create => "Create",
            ChangeAction::Update => "Update",
            ChangeAction::Delete => "Delete",
            ChangeAction::DeleteThenCreate => "DeleteThenCreate",
            ChangeAction::CreateThenDelete => "CreateThenDelete",
            ChangeAction::Read => "Read",
        }
    }

    /// `change.actions` in `terraform show -json` (jsonplan's `actionString`).
    pub fn actions(self) -> &'static [&'static str] {
        match self {
            ChangeAction::NoOp => &["no-op"],
            ChangeAction::Create => &["create"],
            ChangeAction::Update => &["update"],
            ChangeAction::Delete => &["delete"],
            ChangeAction::DeleteThenCreate => &["delete", "create"],
            ChangeAction::CreateThenDelete => &["create", "delete"],
            ChangeAction::Read => &["read"],
        }
    }

    /// Whether it replaces the object (`Action.IsReplace`).
    pub fn is_replace(self) -> bool {
        matches!(
            self,
            ChangeAction::DeleteThenCreate | ChangeAction::CreateThenDelete
        )
    }
}

/// A resource instance object as core keeps it between commands
/// (`states.ResourceInstanceObjectSrc`): the value as JSON, the schema
/// version it was written with, private data and sensitive paths.
#[derive(Clone, Debug)]
pub(crate) struct Stored {
    pub type_name: String,
    pub attrs_json: Vec<u8>,
    pub schema_version: i64,
    pub private: Vec<u8>,
    pub sensitive: Vec<Path>,
    pub tainted: bool,
    pub dependencies: Vec<String>,
    /// The identity as JSON and its identity schema version (protocol
    /// 6.9; `states.ResourceInstanceObjectSrc.IdentityJSON`).
    pub identity: Option<(Vec<u8>, i64)>,
    /// The alias of the provider configuration that made it (none: the
    /// default configuration).
    pub provider_alias: Option<String>,
}

/// A decoded object (`states.ResourceInstanceObject`), its marks as
/// paths.
#[derive(Clone, Debug)]
pub(crate) struct Object {
    pub value: Value,
    pub private: Vec<u8>,
    pub marks: Vec<Path>,
    pub tainted: bool,
    pub dependencies: Vec<String>,
    /// Its identity (protocol 6.9), when the type has one.
    pub identity: Option<Value>,
}

/// A planned change (`plans.ResourceInstanceChange`).
#[derive(Clone, Debug)]
pub(crate) struct Change {
    pub address: String,
    pub type_name: String,
    pub action: ChangeAction,
    pub before: Value,
    pub after: Value,
    pub before_marks: Vec<Path>,
    pub after_marks: Vec<Path>,
    pub private: Vec<u8>,
    pub required_replace: Vec<Path>,
    pub action_reason: Option<&'static str>,
    /// The planned identity (protocol 6.9), sent again at apply.
    pub identity: Option<Value>,
}

/// The harness's core: the provider client, its schemas and its address.
pub(crate) struct Core<'a> {
    pub client: &'a Client,
    pub schemas: &'a Schemas,
    /// `registry.terraform.io/NAMESPACE/TYPE`.
    pub provider: &'a str,
    /// The provider's local type (`kv`), as upgrade messages name it.
    pub provider_type: &'a str,
}

/// `type.name` → `type`; `data.type.name` → `type`.
pub(crate) fn type_of(address: &str) -> &str {
    let address = (address.strip_prefix(DATA))
        .or_else(|| address.strip_prefix(crate::ephemeral::EPHEMERAL))
        .unwrap_or(address);
    address.split('.').next().unwrap_or(address)
}

/// What a data resource's address starts with (`data.TYPE.NAME`).
pub(crate) const DATA: &str = "data.";

/// The order core sorts resources in (`addrs.Resource.Less`): data
/// resources first.
pub(crate) fn address_order(address: &str) -> (bool, &str) {
    (!is_data(address), address)
}

/// Whether `address` is a data resource's (`addrs.DataResourceMode`).
pub(crate) fn is_data(address: &str) -> bool {
    address.starts_with(DATA)
}

fn error(summary: &str, detail: String) -> Diagnostic {
    Diagnostic::error(summary).with_detail(detail)
}

impl<'a> Core<'a> {
    /// The schema of the resource or data resource at `address`.
    pub(crate) fn schema_of(&self, address: &str) -> Result<&'a ResourceSchema, Diagnostics> {
        if crate::ephemeral::is_ephemeral(address) {
            return crate::ephemeral::schema(self.schemas, self.provider, type_of(address));
        }
        match is_data(address) {
            true => self.data_schema(type_of(address)),
            false => self.schema(type_of(address)),
        }
    }

    pub(crate) fn data_schema(&self, type_name: &str) -> Result<&'a ResourceSchema, Diagnostics> {
        self.schemas.data_sources.get(type_name).ok_or_else(|| {
            Diagnostics::from(error(
                "Invalid data source",
                format!(
                    "The provider {} does not support data source {type_name:?}.",
                    self.provider
                ),
            ))
        })
    }

    pub(crate) fn schema(&self, type_name: &str) -> Result<&'a ResourceSchema, Diagnostics> {
        self.schemas.resources.get(type_name).ok_or_else(|| {
            Diagnostics::from(error(
                "Invalid resource type",
                format!(
                    "The provider {} does not support resource type {type_name:?}.",
                    self.provider
                ),
            ))
        })
    }

    /// The identity schema of `type_name`, when it has one.
    fn identity_type(&self, type_name: &str) -> Option<&'a IdentityType> {
        self.schemas.identities.get(type_name)
    }

    /// `validateIdentityKnown` and `validateIdentity`: an identity from
    /// the provider is wholly known (unless `unknown_ok`: a plan to create
    /// or replace).
    fn check_identity(&self, address: &str, id: &Option<Value>, unknown_ok: bool) -> Diagnostics {
        match id {
            Some(v) if !unknown_ok && !v.is_wholly_known() => error(
                "Provider produced invalid identity",
                format!(
                    "Provider {:?} returned an identity with unknown values for {address}. \n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker.",
                    self.provider
                ),
            )
            .into(),
            _ => Diagnostics::new(),
        }
    }

    /// `n.ResolvedProvider` as core prints it with `%q`:
    /// `"provider[\"registry.terraform.io/…\"]"`.
    pub(crate) fn resolved_provider(&self) -> String {
        format!("{:?}", format!("provider[{:?}]", self.provider))
    }

    /// An object written to state (`ResourceInstanceObject.Encode`): its
    /// value as go-cty JSON, at the schema's current version.
    pub(crate) fn store(&self, type_name: &str, obj: &Object) -> Result<Stored, Diagnostics> {
        let rs = self.schema(type_name)?;
        let attrs_json = ctywire::json::encode(&obj.value, &rs.ty).map_err(|e| {
            Diagnostics::from(error(
                "Failed to encode the new state",
                format!("the object cannot be written to state: {e}"),
            ))
        })?;
        let identity = match (&obj.identity, self.identity_type(type_name)) {
            (Some(v), Some(it)) if !v.is_null() => {
                let json = ctywire::json::encode(v, &it.ty).map_err(|e| {
                    Diagnostics::from(error(
                        "Failed to encode the new state",
                        format!("the object's identity cannot be written to state: {e}"),
                    ))
                })?;
                Some((json, it.version))
            }
            _ => None,
        };
        Ok(Stored {
            identity,
            type_name: type_name.to_owned(),
            attrs_json,
            schema_version: rs.schema.version,
            private: obj.private.clone(),
            sensitive: obj.marks.clone(),
            tainted: obj.tainted,
            dependencies: obj.dependencies.clone(),
            // The harness sets it where it knows the configuration.
            provider_alias: None,
        })
    }

    /// `upgradeResourceState` (upgrade_resource_state.go), which core runs
    /// on every read of an object from state: the provider always gets
    /// the stored JSON and its version, and must answer a known value of
    /// the current type with no write-only values.
    pub(crate) fn read_state(&self, address: &str, stored: &Stored) -> Result<Object, Diagnostics> {
        let rs = self.schema(&stored.type_name)?;
        let current = rs.schema.version;
        if stored.schema_version > current {
            return Err(error(
                "Resource instance managed by newer provider version",
                format!(
                    "The current state of {address} was created by a newer provider version than is currently selected. Upgrade the {} provider to work with this state.",
                    self.provider_type
                ),
            )
            .into());
        }
        let (value, mut diags) = self.client.upgrade(
            &stored.type_name,
            stored.schema_version,
            &stored.attrs_json,
            &rs.ty,
        )?;
        if diags.has_errors() {
            return Err(diags);
        }
        let invalid = |why: String| {
            error(
                "Invalid resource state upgrade",
                format!(
                    "The {} provider upgraded the state for {address} from a previous version, but produced an invalid result: {why}.",
                    self.provider_type
                ),
            )
        };
        if !value.is_wholly_known() {
            diags.push(invalid("The returned state contains unknown values".into()));
        }
        for p in write_only_violations(&rs.schema.block, &value) {
            diags.push(error(
                "Invalid resource state upgrade",
                format!(
                    "While attempting to upgrade state of resource {address}, the provider {:?} returned a value for the write-only attribute \"{address}{p}\". Write-only attributes cannot be read back from the provider. {PROVIDER_BUG}",
                    self.provider_type
                ),
            ));
        }
        if diags.has_errors() {
            return Err(diags);
        }
        // The stored identity, upgraded when its schema version is not
        // the current one (`upgradeResourceIdentity`).
        let identity = match (&stored.identity, self.identity_type(&stored.type_name)) {
            (Some((json, version)), Some(it)) if *version != it.version => Some(
                self.client
                    .upgrade_identity(&stored.type_name, *version, json, &it.ty)?,
            ),
            (Some((json, _)), Some(it)) => {
                Some(ctywire::json::decode(json, &it.ty).map_err(|e| {
                    Diagnostics::from(error(
                        "Invalid resource identity in state",
                        format!("the stored identity of {address} cannot be read: {e}"),
                    ))
                })?)
            }
            _ => None,
        };
        Ok(Object {
            identity,
            marks: normalize_marks(&value, &stored.sensitive),
            value,
            private: stored.private.clone(),
            tainted: stored.tainted,
            dependencies: stored.dependencies.clone(),
        })
    }

    /// `refresh`: `ReadResource` with the prior value and private data.
    /// `Ok(None)`: the object is gone. No comparison with the prior
    /// value: drift is allowed.
    pub(crate) fn refresh(
        &self,
        address: &str,
        type_name: &str,
        obj: &Object,
        warnings: &mut Diagnostics,
    ) -> Result<Option<Object>, Diagnostics> {
        let rs = self.schema(type_name)?;
        let id_ty = self.identity_type(type_name).map(|i| &i.ty);
        let resp = self.client.read(
            type_name,
            &obj.value,
            &obj.private,
            &rs.ty,
            (obj.identity.as_ref(), id_ty),
        )?;
        let mut diags = resp.diagnostics;
        diags.extend(self.check_identity(address, &resp.identity, false));
        if diags.has_errors() {
            return Err(diags);
        }
        if !resp.value.is_wholly_known() {
            diags.push(error(
                "Provider produced invalid object",
                format!(
                    "Provider {:?} planned an invalid value for {address} during refresh: The returned state contains unknown values.\n\n{PROVIDER_BUG}",
                    self.provider
                ),
            ));
        }
        for p in write_only_violations(&rs.schema.block, &resp.value) {
            diags.push(error(
                "Provider produced invalid object",
                format!(
                    "Provider {} returned a value for the write-only attribute \"{address}{p}\" during refresh. Write-only attributes cannot be read back from the provider. {PROVIDER_BUG}",
                    self.resolved_provider()
                ),
            ));
        }
        if diags.has_errors() {
            return Err(diags);
        }
        warnings.extend(diags);
        if resp.value.is_null() {
            return Ok(None);
        }
        let value = normalize_from_legacy_sdk(&rs.schema.block, resp.value);
        let mut marks = obj.marks.clone();
        marks.extend(sensitive_paths(&rs.schema.block, &value));
        Ok(Some(Object {
            identity: resp.identity,
            marks: normalize_marks(&value, &marks),
            value,
            private: resp.private,
            tainted: obj.tainted,
            dependencies: obj.dependencies.clone(),
        }))
    }

    /// `plan`: the proposed new state, `PlanResourceChange`, core's checks
    /// of the answer, the required replacements, the action, and on a
    /// replace the second plan from a null prior. `planned` is the change
    /// planned earlier, when this is the re-plan at apply.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn plan(
        &self,
        address: &str,
        type_name: &str,
        config: &Decoded,
        current: Option<&Object>,
        planned: Option<&Change>,
        lifecycle: &Lifecycle,
        warnings: &mut Diagnostics,
    ) -> Result<Change, Diagnostics> {
        let rs = self.schema(type_name)?;
        let block = &rs.schema.block;
        let cbd = match planned {
            // If we already planned the action, we stick to that plan.
            Some(p) => p.action == ChangeAction::CreateThenDelete,
            None => lifecycle.create_before_destroy,
        };
        if let Some(p) = planned {
            if p.action == ChangeAction::NoOp {
                return Ok(p.clone());
            }
        }
        let null = Value::null(rs.ty.clone());
        // A tainted prior is planned as a create, then made a replace.
        let (prior, prior_private, prior_marks, tainted) = match current {
            Some(o) if !o.tainted => (o.value.clone(), o.private.clone(), o.marks.clone(), None),
            Some(o) => (null.clone(), Vec::new(), Vec::new(), Some(o)),
            None => (null.clone(), Vec::new(), Vec::new(), None),
        };
        let id_ty = self.identity_type(type_name).map(|i| &i.ty);
        let prior_identity = current
            .filter(|o| !o.tainted)
            .and_then(|o| o.identity.as_ref());

        // The config is validated again with its final values.
        let d = self
            .client
            .validate_resource(type_name, &config.value, &rs.ty)?;
        if d.has_errors() {
            return Err(in_config(d, address));
        }
        warnings.extend(d);

        // processIgnoreChanges: what the provider is asked to plan.
        let ignored = ignore_changes(lifecycle, block, &prior, &config.value);
        // Terraform 1.16 plans with "not written" computed blocks null.
        let ignored = match self.client.speaks.protocol_6_11() {
            true => prepare_computed_blocks(block, ignored),
            false => ignored,
        };
        let config = &Decoded {
            value: ignored,
            marks: config.marks.clone(),
        };
        let proposed = proposed_new(block, &prior, &config.value);
        let resp = self.client.plan(
            type_name,
            &prior,
            &proposed,
            &config.value,
            Private {
                prior: &prior_private,
                // What the plan chose, on the plan before apply.
                planned: planned.map_or(&[], |p| &p.private),
            },
            &rs.ty,
            (prior_identity, id_ty),
        )?;
        if resp.diagnostics.has_errors() {
            return Err(in_config(resp.diagnostics, address));
        }
        warnings.extend(resp.diagnostics);
        let mut after = resp.planned;
        let mut private = resp.private;
        let mut identity = resp.identity;

        // The answer decoded at the schema's type, so it conforms
        // (core's TestConformance); write-only values and AssertPlanValid.
        self.check_planned_write_only(address, block, &after)?;
        let problems = assert_plan_valid(block, &prior, &config.value, &after);
        if !problems.is_empty() {
            return Err(problems
                .iter()
                .map(|p| {
                    error(
                        "Provider produced invalid plan",
                        format!(
                            "Provider {:?} planned an invalid value for {address}{}.\n\n{PROVIDER_BUG}",
                            self.provider,
                            p.after_address()
                        ),
                    )
                })
                .collect());
        }

        // The config's marks and the schema's sensitive paths.
        let mut marks = config.marks.clone();
        marks.extend(sensitive_paths(block, &after));
        let mut after_marks = normalize_marks(&after, &marks);

        let write_only = write_only_paths(block, &after);
        let required_replace =
            self.required_replaces(address, &prior, &after, &write_only, &resp.requires_replace)?;
        let (mut action, mut reason) = action_of(&prior, &after, cbd, &required_replace);
        // replace_triggered_by: getAction's forced replace, with the
        // reason replaceTriggered gives it.
        if lifecycle.force_replace {
            if !prior.is_null() && !action.is_replace() {
                action = match cbd {
                    true => ChangeAction::CreateThenDelete,
                    false => ChangeAction::DeleteThenCreate,
                };
            }
            reason = Some("replace_by_triggers");
        }

        if action.is_replace() {
            // The new object is planned again from a null prior, so the
            // change shows the computed values the new object will get.
            let proposed = proposed_new(block, &null, &config.value);
            let resp = self.client.plan(
                type_name,
                &null,
                &proposed,
                &config.value,
                Private {
                    prior: &private,
                    planned: &[],
                },
                &rs.ty,
                (None, id_ty),
            )?;
            // Warnings were reported by the first plan already.
            if resp.diagnostics.has_errors() {
                return Err(in_config(resp.diagnostics, address));
            }
            after = resp.planned;
            private = resp.private;
            identity = resp.identity;
            after_marks = normalize_marks(&after, &config.marks);
            self.check_planned_write_only(address, block, &after)?;
        }

        let mut before = prior;
        let mut before_marks = prior_marks;
        if let Some(t) = tainted {
            if action == ChangeAction::Create {
                action = if cbd {
                    ChangeAction::CreateThenDelete
                } else {
                    ChangeAction::DeleteThenCreate
                };
                before = t.value.clone();
                before_marks = t.marks.clone();
                reason = Some("replace_because_tainted");
            }
        }
        // A change of sensitivity alone is an update.
        if action == ChangeAction::NoOp
            && !marks_equal(&after, &after_marks, &before, &before_marks)
        {
            action = ChangeAction::Update;
        }
        // At apply, a replace's create finds its prior deleted already: it
        // is mapped back to the planned replace.
        if let Some(p) = planned {
            if p.action.is_replace() && action == ChangeAction::Create {
                action = p.action;
                before = p.before.clone();
                before_marks = p.before_marks.clone();
            }
        }
        // An update's identity is known; a create's or replace's may not be.
        let id_diags = self.check_identity(
            address,
            &identity,
            action.is_replace() || action == ChangeAction::Create,
        );
        if id_diags.has_errors() {
            return Err(id_diags);
        }
        Ok(Change {
            address: address.to_owned(),
            type_name: type_name.to_owned(),
            action,
            before,
            after,
            before_marks,
            after_marks,
            private,
            required_replace,
            action_reason: reason,
            identity,
        })
    }

    fn check_planned_write_only(
        &self,
        address: &str,
        block: &Block,
        after: &Value,
    ) -> Result<(), Diagnostics> {
        let bad: Diagnostics = write_only_violations(block, after)
            .into_iter()
            .map(|p| {
                error(
                    "Provider produced invalid plan",
                    format!(
                        "Provider {} returned a value for the write-only attribute \"{address}{p}\" during planning. Write-only attributes cannot be read back from the provider. {PROVIDER_BUG}",
                        self.resolved_provider()
                    ),
                )
            })
            .collect();
        if bad.has_errors() {
            Err(bad)
        } else {
            Ok(())
        }
    }

    /// `getRequiredReplaces`: each path the provider said requires
    /// replacement, kept only where prior and planned differ (or may
    /// differ: an unknown), or where it is write-only. A path neither side
    /// has is the provider's bug.
    fn required_replaces(
        &self,
        address: &str,
        prior: &Value,
        planned: &Value,
        write_only: &[Path],
        paths: &[Path],
    ) -> Result<Vec<Path>, Diagnostics> {
        let mut out: Vec<Path> = Vec::new();
        let mut diags = Diagnostics::new();
        for path in paths {
            if prior.is_null() {
                continue;
            }
            let (p, l) = (prior.get(path).ok(), planned.get(path).ok());
            if p.is_none() && l.is_none() {
                diags.push(error(
                    "Provider produced invalid plan",
                    format!(
                        "Provider {:?} has indicated \"requires replacement\" on {address} for a non-existent attribute path {path}.\n\n{PROVIDER_BUG}",
                        self.provider
                    ),
                ));
                continue;
            }
            // A side the path does not reach counts as null.
            let equal = match (p, l) {
                (Some(p), Some(l)) => known_equal(p, l),
                (Some(v), None) | (None, Some(v)) => known_equal(v, &Value::null(v.ty().clone())),
                (None, None) => false,
            };
            let is_write_only = write_only.iter().any(|w| w == path);
            if (!equal || is_write_only) && !out.contains(path) {
                out.push(path.clone());
            }
        }
        if diags.has_errors() {
            return Err(diags);
        }
        Ok(out)
    }

    /// `planDestroy`: `PlanResourceChange` with a null config and proposed
    /// state; the provider must plan null. An object already gone is a
    /// no-op, without a call.
    pub(crate) fn plan_destroy(
        &self,
        address: &str,
        type_name: &str,
        current: Option<&Object>,
        warnings: &mut Diagnostics,
    ) -> Result<Change, Diagnostics> {
        let Some(obj) = current.filter(|o| !o.value.is_null()) else {
            return Ok(Change {
                address: address.to_owned(),
                type_name: type_name.to_owned(),
                action: ChangeAction::NoOp,
                before: Value::null(Type::Dynamic),
                after: Value::null(Type::Dynamic),
                before_marks: Vec::new(),
                after_marks: Vec::new(),
                private: Vec::new(),
                required_replace: Vec::new(),
                action_reason: None,
                identity: None,
            });
        };
        let rs = self.schema(type_name)?;
        let null = Value::null(rs.ty.clone());
        let id_ty = self.identity_type(type_name).map(|i| &i.ty);
        let resp = self.client.plan(
            type_name,
            &obj.value,
            &null,
            &null,
            Private {
                prior: &obj.private,
                planned: &[],
            },
            &rs.ty,
            (obj.identity.as_ref(), id_ty),
        )?;
        if resp.diagnostics.has_errors() {
            return Err(in_config(resp.diagnostics, address));
        }
        warnings.extend(resp.diagnostics);
        if !resp.planned.is_null() {
            return Err(error(
                "Provider produced invalid plan",
                format!(
                    "Provider {:?} planned a non-null destroy value for {address}.\n\n{PROVIDER_BUG}",
                    self.provider
                ),
            )
            .into());
        }
        Ok(Change {
            address: address.to_owned(),
            type_name: type_name.to_owned(),
            action: ChangeAction::Delete,
            before: obj.value.clone(),
            after: null,
            before_marks: obj.marks.clone(),
            after_marks: Vec::new(),
            private: resp.private,
            required_replace: Vec::new(),
            action_reason: None,
            identity: resp.identity,
        })
    }

    /// `NodeApplyableResourceInstance.checkPlannedChange`
    /// (node_resource_apply_instance.go): the re-plan at apply must keep
    /// the action (an update may become a no-op) and stay compatible with
    /// the planned value.
    pub(crate) fn check_planned_change(&self, planned: &Change, actual: &Change) -> Diagnostics {
        let mut diags = Diagnostics::new();
        let address = &planned.address;
        if planned.action != actual.action {
            match (planned.action, actual.action) {
                (ChangeAction::Update, ChangeAction::NoOp) => {}
                (a, b) if a.is_replace() && b.is_replace() => diags.push(error(
                    "Terraform produced inconsistent final plan",
                    format!(
                        "When expanding the plan for {address} to include new values learned so far during apply, the planned action changed from {} to {}.\n\nThis is a bug in Terraform and should be reported.",
                        a.name(),
                        b.name()
                    ),
                )),
                (a, b) => diags.push(error(
                    "Provider produced inconsistent final plan",
                    format!(
                        "When expanding the plan for {address} to include new values learned so far during apply, provider {:?} changed the planned action from {} to {}.\n\n{PROVIDER_BUG}",
                        self.provider,
                        a.name(),
                        b.name()
                    ),
                )),
            }
        }
        let block = match self.schema(&planned.type_name) {
            Ok(rs) => &rs.schema.block,
            Err(d) => return d,
        };
        for p in assert_object_compatible(block, &planned.after, &actual.after) {
            diags.push(error(
                "Provider produced inconsistent final plan",
                format!(
                    "When expanding the plan for {address} to include new values learned so far during apply, provider {:?} produced an invalid new value for {p}.\n\n{PROVIDER_BUG}",
                    self.provider
                ),
            ));
        }
        diags
    }

    /// `apply`: `ApplyResourceChange` and core's checks of the new object.
    /// Returns the object to save (`None`: none) and the diagnostics; the
    /// object is saved even when there are errors, as core saves it.
    pub(crate) fn apply(
        &self,
        state: Option<&Object>,
        change: &Change,
        config: Option<&Decoded>,
    ) -> (Option<Object>, Diagnostics) {
        let mut diags = Diagnostics::new();
        if change.action == ChangeAction::NoOp {
            return (state.cloned(), diags);
        }
        let address = &change.address;
        let rs = match self.schema(&change.type_name) {
            Ok(rs) => rs,
            Err(d) => return (state.cloned(), d),
        };
        let block = &rs.schema.block;
        let config_value = match config {
            Some(c) => c.value.clone(),
            None => Value::null(rs.ty.clone()),
        };
        if !config_value.is_wholly_known() {
            let unknown: Vec<String> = unknown_paths(&config_value)
                .iter()
                .map(|p| p.to_string())
                .collect();
            diags.push(error(
                "Configuration contains unknown value",
                format!(
                    "configuration for {address} still contains unknown values during apply (this is a bug in Terraform; please report it!)\nThe following paths in the resource configuration are unknown:\n{}",
                    unknown.join("\n")
                ),
            ));
            return (None, diags);
        }
        // An update of sensitivity alone: the provider is not called.
        if change.action == ChangeAction::Update
            && known_equal(&change.before, &change.after)
            && !marks_equal(
                &change.before,
                &change.before_marks,
                &change.after,
                &change.after_marks,
            )
        {
            let s = state.cloned().map(|s| Object {
                value: change.after.clone(),
                marks: change.after_marks.clone(),
                ..s
            });
            return (s, diags);
        }
        let id_ty = self.identity_type(&change.type_name).map(|i| &i.ty);
        let resp = match self.client.apply(
            &change.type_name,
            &change.before,
            &change.after,
            &config_value,
            &change.private,
            &rs.ty,
            (change.identity.as_ref(), id_ty),
        ) {
            Ok(r) => r,
            Err(d) => return (state.cloned(), d),
        };
        diags.extend(resp.diagnostics);
        diags.extend(self.check_identity(address, &resp.identity, false));
        let mut new = resp.value;

        let wo: Diagnostics = write_only_violations(block, &new)
            .into_iter()
            .map(|p| {
                error(
                    "Provider produced invalid object",
                    format!(
                        "Provider {} returned a value for the write-only attribute \"{address}{p}\" after apply. Write-only attributes cannot be read back from the provider. {PROVIDER_BUG}",
                        self.resolved_provider()
                    ),
                )
            })
            .collect();
        if wo.has_errors() {
            diags.extend(wo);
            return (None, diags);
        }
        if !new.is_wholly_known() {
            for p in unknown_paths(&new) {
                diags.push(error(
                    "Provider returned invalid result object after apply",
                    format!(
                        "After the apply operation, the provider still indicated an unknown value for {address}{p}. All values must be known after apply, so this is always a bug in the provider and should be reported in the provider's own repository. Terraform will still save the other known object values in the state."
                    ),
                ));
            }
            new = match unknowns_as_null(new) {
                Ok(v) => v,
                Err(e) => {
                    diags.extend(Diagnostics::from(e));
                    return (state.cloned(), diags);
                }
            };
        }
        let mut marks = change.after_marks.clone();
        marks.extend(sensitive_paths(block, &new));
        let marks = normalize_marks(&new, &marks);

        if change.action != ChangeAction::Delete && !diags.has_errors() {
            for p in assert_object_compatible(block, &change.after, &new) {
                diags.push(error(
                    "Provider produced inconsistent result after apply",
                    format!(
                        "When applying changes to {address}, provider {} produced an unexpected new value: {p}.\n\n{PROVIDER_BUG}",
                        self.resolved_provider()
                    ),
                ));
            }
        }
        if !diags.has_errors() {
            if change.action == ChangeAction::Delete && !new.is_null() {
                diags.push(error(
                    "Provider returned invalid result object after apply",
                    format!(
                        "After applying a {} plan, the provider returned a non-null object for {address}. Destroying should always produce a null value, so this is always a bug in the provider and should be reported in the provider's own repository. Terraform will still save this errant object in the state for debugging and recovery.",
                        change.action.name()
                    ),
                ));
            }
            if change.action != ChangeAction::Delete && new.is_null() {
                diags.push(error(
                    "Provider returned invalid result object after apply",
                    format!(
                        "After applying a {} plan, the provider returned a null object for {address}. Only destroying should always produce a null value, so this is always a bug in the provider and should be reported in the provider's own repository.",
                        change.action.name()
                    ),
                ));
            }
        }
        let saved = match (diags.has_errors(), new.is_null()) {
            // A failed call that answered null keeps the prior object.
            (true, true) => state.cloned(),
            (_, true) => None,
            (errors, false) => Some(Object {
                identity: resp.identity,
                value: new,
                private: resp.private,
                marks,
                tainted: errors && state.is_some_and(|s| s.tainted),
                dependencies: Vec::new(),
            }),
        };
        (saved, diags)
    }

    /// `graphNodeImportState.Execute` then `graphNodeImportStateSub.Execute`
    /// (node_resource_import.go): `ImportResourceState`, then a refresh of
    /// what it returned; a null result means there is nothing to import.
    pub(crate) fn import(
        &self,
        address: &str,
        id: &str,
        identity: Option<&Value>,
        warnings: &mut Diagnostics,
    ) -> Result<Object, Diagnostics> {
        let type_name = type_of(address);
        let rs = self.schema(type_name)?;
        let (imported, d) = self.client.import(type_name, id, identity, self.schemas)?;
        if d.has_errors() {
            return Err(d);
        }
        warnings.extend(d);
        let mut diags = Diagnostics::new();
        for i in &imported {
            diags.extend(self.check_identity(address, &i.identity, false));
            for p in write_only_violations(&rs.schema.block, &i.value) {
                diags.push(error(
                    "Import returned a non-null value for a write-only attribute",
                    format!(
                        "Provider {} returned a value for the write-only attribute \"{address}{p}\" during import. Write-only attributes cannot be read back from the provider. {PROVIDER_BUG}",
                        self.resolved_provider()
                    ),
                ));
            }
        }
        if diags.has_errors() {
            return Err(diags);
        }
        // The CLI import of one address takes one object: core names any
        // further ones `NAME-1`, ..., which a test has no config for.
        let mut objects = imported.into_iter();
        let Some(first) = objects.next() else {
            return Err(error(
                "Import returned no resources",
                format!("While attempting to import with ID {id}, the provider returned no instance states."),
            )
            .into());
        };
        if objects.next().is_some() {
            return Err(error(
                "Multiple import states not supported",
                format!("While attempting to import with ID {id}, the provider returned multiple resource instance states. This is not currently supported."),
            )
            .into());
        }
        if first.type_name != type_name {
            return Err(error(
                "Import returned a different resource type",
                format!("While attempting to import {address}, the provider returned an object of type {:?}; the harness imports into the address's own type.", first.type_name),
            )
            .into());
        }
        let obj = Object {
            identity: first.identity,
            value: first.value,
            private: first.private,
            marks: Vec::new(),
            tainted: false,
            dependencies: Vec::new(),
        };
        match self.refresh(address, type_name, &obj, warnings)? {
            Some(o) => Ok(o),
            None => Err(error(
                "Cannot import non-existent remote object",
                format!(
                    "While attempting to import an existing object to {address:?}, the provider detected that no object exists with the given id. Only pre-existing objects can be imported; check that the id is correct and that it is associated with the provider's configured region or endpoint, or use \"terraform apply\" to create a new remote object for this resource."
                ),
            )
            .into()),
        }
    }
}

/// Provider diagnostics about a resource's configuration
/// (`InConfigBody`): core attaches the configuration's source range, which
/// a JSON body here has none of, and leaves the text as it is.
fn in_config(d: Diagnostics, _address: &str) -> Diagnostics {
    d
}

/// cty's `Equals` is known and true: both values wholly known and equal.
pub(crate) fn known_equal(a: &Value, b: &Value) -> bool {
    a.is_wholly_known() && b.is_wholly_known() && a == b
}

/// `getAction`: create from nothing, replace when a required replacement
/// remains, no-op when the values are equal, else update.
fn action_of(
    prior: &Value,
    planned: &Value,
    cbd: bool,
    required_replace: &[Path],
) -> (ChangeAction, Option<&'static str>) {
    if prior.is_null() {
        (ChangeAction::Create, None)
    } else if !required_replace.is_empty() {
        let a = if cbd {
            ChangeAction::CreateThenDelete
        } else {
            ChangeAction::DeleteThenCreate
        };
        (a, Some("replace_because_cannot_update"))
    } else if known_equal(planned, prior) {
        (ChangeAction::NoOp, None)
    } else {
        (ChangeAction::Update, None)
    }
}

/// `valueMarksEqual`: the same places are sensitive in both.
fn marks_equal(a: &Value, a_marks: &[Path], b: &Value, b_marks: &[Path]) -> bool {
    let a = normalize_marks(a, a_marks);
    let b = normalize_marks(b, b_marks);
    a.len() == b.len() && a.iter().all(|m| b.iter().any(|n| same_path(m, n)))
}

/// Marks as cty holds them on a value: cut at the first set
/// (`hoist_set_marks`), and only where the value has something to mark
/// (`MarkPaths` visits existing parts only).
pub(crate) fn normalize_marks(v: &Value, marks: &[Path]) -> Vec<Path> {
    hoist_set_marks(v, marks)
        .into_iter()
        .filter(|m| {
            let mut cur = v;
            for step in m.steps() {
                match child(cur, step) {
                    Some(c) => cur = c,
                    None => return false,
                }
            }
            true
        })
        .collect()
}

/// configschema's `Block.SensitivePaths`: every sensitive attribute of
/// the value, in nested attributes and nested blocks too.
pub(crate) fn sensitive_paths(block: &Block, v: &Value) -> Vec<Path> {
    let mut out = Vec::new();
    flagged_in_block(block, v, &Path::root(), &|a| a.sensitive, &mut out, 0);
    out
}

/// configschema's `Block.WriteOnlyPaths`, which mirrors `SensitivePaths`.
pub(crate) fn write_only_paths(block: &Block, v: &Value) -> Vec<Path> {
    let mut out = Vec::new();
    flagged_in_block(block, v, &Path::root(), &|a| a.write_only, &mut out, 0);
    out
}

/// `ephemeral.ValidateWriteOnlyAttributes`: the write-only attributes
/// that are not null.
pub(crate) fn write_only_violations(block: &Block, v: &Value) -> Vec<Path> {
    write_only_paths(block, v)
        .into_iter()
        .filter(|p| v.get(p).is_ok_and(|x| !x.is_null()))
        .collect()
}

fn flagged_in_block(
    block: &Block,
    v: &Value,
    at: &Path,
    flag: &dyn Fn(&Attribute) -> bool,
    out: &mut Vec<Path>,
    depth: usize,
) {
    if v.is_null() || !v.is_known() || depth > ctywire::DEFAULT_MAX_DEPTH {
        return;
    }
    for a in &block.attributes {
        let p = at.clone().attr(a.name.clone());
        if flag(a) {
            out.push(p);
        } else if let (Some(o), Some(av)) = (&a.nested_type, v.attr(&a.name)) {
            flagged_in_object(o, av, &p, flag, out, depth + 1);
        }
    }
    for b in &block.block_types {
        let Some(bv) = v.attr(&b.type_name) else {
            continue;
        };
        if bv.is_null() || !bv.is_known() {
            continue;
        }
        let p = at.clone().attr(b.type_name.clone());
        match b.nesting {
            NestingMode::Single | NestingMode::Group => {
                flagged_in_block(&b.block, bv, &p, flag, out, depth + 1)
            }
            _ => each_element(bv, &p, &mut |ep, ev| {
                flagged_in_block(&b.block, ev, &ep, flag, out, depth + 1)
            }),
        }
    }
}

fn flagged_in_object(
    o: &NestedObject,
    v: &Value,
    at: &Path,
    flag: &dyn Fn(&Attribute) -> bool,
    out: &mut Vec<Path>,
    depth: usize,
) {
    if v.is_null() || !v.is_known() || depth > ctywire::DEFAULT_MAX_DEPTH {
        return;
    }
    let mut visit = |ep: Path, ev: &Value| {
        if ev.is_null() || !ev.is_known() {
            return;
        }
        for a in &o.attributes {
            let p = ep.clone().attr(a.name.clone());
            if flag(a) {
                out.push(p);
            } else if let (Some(n), Some(av)) = (&a.nested_type, ev.attr(&a.name)) {
                flagged_in_object(n, av, &p, flag, out, depth + 1);
            }
        }
    };
    match o.nesting {
        NestingMode::List | NestingMode::Set | NestingMode::Map => {
            each_element(v, at, &mut |ep, ev| visit(ep, ev))
        }
        _ => visit(at.clone(), v),
    }
}

/// Each element of a collection (or tuple/object standing for one) with
/// its path.
fn each_element(v: &Value, at: &Path, f: &mut dyn FnMut(Path, &Value)) {
    if let Some(es) = v.elements() {
        for (i, e) in es.iter().enumerate() {
            f(at.clone().index(i as u64), e);
        }
    } else if let Some(es) = v.entries() {
        for (k, e) in es {
            f(at.clone().key(k), e);
        }
    } else if let Some(es) = v.attributes() {
        for (k, e) in es {
            f(at.clone().key(k), e);
        }
    }
}

/// objchange's `NormalizeObjectFromLegacySDK`, which core runs on every
/// refreshed object: null LIST and SET blocks become empty, a null GROUP
/// block its empty value. (Unknown blocks, which it turns into stubs,
/// were refused before this runs.)
pub(crate) fn normalize_from_legacy_sdk(block: &Block, v: Value) -> Value {
    normalize_block(block, v, 0)
}

fn normalize_block(block: &Block, v: Value, depth: usize) -> Value {
    if v.is_null()
        || !v.is_known()
        || depth > ctywire::DEFAULT_MAX_DEPTH
        || block.block_types.is_empty()
    {
        return v;
    }
    let mut v = v;
    for b in &block.block_types {
        let Ok(Some(ty)) = b.implied_type() else {
            continue;
        };
        if ty == Type::Dynamic || b.block.implied_type().is_ok_and(|t| t.has_dynamic()) {
            continue;
        }
        let Some(bv) = v.attr(&b.type_name).cloned() else {
            continue;
        };
        if !bv.is_known() {
            continue;
        }
        let new = match b.nesting {
            NestingMode::Group if bv.is_null() => b.block.empty_value().unwrap_or(bv),
            NestingMode::Single | NestingMode::Group => normalize_block(&b.block, bv, depth + 1),
            NestingMode::List | NestingMode::Set => {
                let elems: Vec<Value> = if bv.is_null() {
                    Vec::new()
                } else {
                    bv.elements()
                        .unwrap_or(&[])
                        .iter()
                        .map(|e| normalize_block(&b.block, e.clone(), depth + 1))
                        .collect()
                };
                let et = ty.element_type().cloned().unwrap_or(Type::Dynamic);
                let built = if b.nesting == NestingMode::List {
                    Value::list(et, elems)
                } else {
                    Value::set(et, elems)
                };
                built.unwrap_or(bv)
            }
            _ => bv,
        };
        // The value conforms to the block, so the attribute is there.
        let _ = v.set_attr(&b.type_name, new);
    }
    v
}
