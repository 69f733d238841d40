//! One function per response message: the provider's answer, taken by
//! value, as the protobuf response. Values are encoded at the schema
//! entry's type (resource states with their write-only attributes nulled
//! first); a value that does not fit, or a deferral Terraform did not
//! allow, is an error.

use std::collections::BTreeMap;

use ctywire::schema::{Block, Schema};
use ctywire::{Error, Type, Value};

use crate::convert::{
    deferred_to_proto, diagnostics_to_proto, encode_dynamic_value, function_error_to_proto,
    function_to_proto, identity_schema_to_proto, identity_to_proto, path_to_proto, schema_to_proto,
    server_capabilities_to_proto, timestamp_to_proto,
};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::pb::tfplugin6 as pb;
use crate::provider::*;
use crate::stream::ListResourceResult;
use crate::tables::{Entry, Identities, Table};

/// Diagnostics as protobuf.
pub(crate) fn diagnostics(d: impl Into<Diagnostics>) -> Vec<pb::Diagnostic> {
    diagnostics_to_proto(&d.into())
}

/// A response that failed: its diagnostics and nothing else.
pub(crate) trait Failed {
    fn failed(d: Diagnostics) -> Self;
}

macro_rules! failed {
    ($($rpc:ident),* $(,)?) => {$(
        impl Failed for pb::$rpc::Response {
            // The validations' responses have no field but the
            // diagnostics.
            #[allow(clippy::needless_update)]
            fn failed(d: Diagnostics) -> Self {
                pb::$rpc::Response {
                    diagnostics: diagnostics(d),
                    ..Default::default()
                }
            }
        }
    )*};
}

failed!(
    validate_provider_config,
    validate_resource_config,
    validate_data_resource_config,
    validate_ephemeral_resource_config,
    upgrade_resource_state,
    configure_provider,
    read_resource,
    plan_resource_change,
    apply_resource_change,
    import_resource_state,
    move_resource_state,
    read_data_source,
    open_ephemeral_resource,
    renew_ephemeral_resource,
    close_ephemeral_resource,
    upgrade_resource_identity,
    generate_resource_config,
    validate_list_resource_config,
    validate_action_config,
    plan_action,
    validate_state_store,
    configure_state_store,
    write_state_bytes,
    lock_state,
    unlock_state,
    get_states,
    delete_state,
);

/// An answer value, encoded at `entry`'s type; resource states get their
/// write-only attributes nulled first.
fn encode(
    rpc: &str,
    field: &str,
    v: Value,
    entry: &Entry,
    is_state: bool,
) -> Result<pb::DynamicValue, Diagnostic> {
    let bad = |e: Error| {
        Diagnostic::error(format!(
            "The provider's {field} in {rpc} does not fit its schema"
        ))
        .with_detail(e.to_string())
        .at(e.path().clone())
    };
    let v = if is_state && entry.write_only {
        entry.schema.block.null_write_only(v).map_err(bad)?
    } else {
        v
    };
    encode_dynamic_value(&v, &entry.ty).map_err(bad)
}

/// An answer's identity (protocol 6.9) at the identity schema's type `ty`.
/// One given for a resource type without an identity schema, or (when
/// `known`: every answer but a plan's) one with unknowns, is an error:
/// Terraform refuses both.
fn identity(
    rpc: &str,
    field: &str,
    v: Option<Value>,
    ty: Option<&Type>,
    known: bool,
) -> Result<Option<pb::ResourceIdentityData>, Diagnostic> {
    let Some(v) = v else { return Ok(None) };
    let problem = |detail: String| {
        Diagnostic::error(format!("The provider's {field} in {rpc} is invalid")).with_detail(detail)
    };
    let Some(ty) = ty else {
        return Err(problem(
            "the resource type has no identity schema, so it has no identity".into(),
        ));
    };
    if known && !v.is_wholly_known() {
        return Err(problem(
            "an identity must be wholly known (only a plan to create or replace may leave parts unknown)".into(),
        ));
    }
    identity_to_proto(&v, ty).map(Some).map_err(|e| {
        problem(format!("it does not fit the identity schema: {e}")).at(e.path().clone())
    })
}

/// A deferral as protobuf, when Terraform said it accepts one; otherwise
/// an error (with the provider's own diagnostics), as
/// terraform-plugin-go's servers answer.
fn deferred(
    rpc: &str,
    d: Option<Deferred>,
    caps: ClientCapabilities,
    diags: &mut Diagnostics,
) -> Result<Option<pb::Deferred>, Diagnostics> {
    match d {
        Some(_) if !caps.deferral_allowed => {
            let mut all = std::mem::take(diags);
            all.push(
                Diagnostic::error("Invalid Deferred Response").with_detail(format!(
                    "The provider answered {rpc} with a deferred response, but the Terraform \
                     request did not indicate support for deferred actions \
                     (client_capabilities.deferral_allowed). This is an issue with the \
                     provider and should be reported to its developers."
                )),
            );
            Err(all)
        }
        d => Ok(d.as_ref().map(deferred_to_proto)),
    }
}

pub(crate) fn get_metadata(s: &Schemas) -> pb::get_metadata::Response {
    use pb::get_metadata as m;
    pb::get_metadata::Response {
        server_capabilities: Some(server_capabilities_to_proto(&s.server_capabilities)),
        diagnostics: vec![],
        data_sources: (s.data_sources.keys())
            .map(|k| m::DataSourceMetadata {
                type_name: k.clone(),
            })
            .collect(),
        resources: (s.resources.keys())
            .map(|k| m::ResourceMetadata {
                type_name: k.clone(),
            })
            .collect(),
        functions: (s.functions.keys())
            .map(|k| m::FunctionMetadata { name: k.clone() })
            .collect(),
        ephemeral_resources: (s.ephemeral_resources.keys())
            .map(|k| m::EphemeralMetadata {
                type_name: k.clone(),
            })
            .collect(),
        list_resources: (s.list_resources.keys())
            .map(|k| m::ListResourceMetadata {
                type_name: k.clone(),
            })
            .collect(),
        actions: (s.actions.keys())
            .map(|k| m::ActionMetadata {
                type_name: k.clone(),
            })
            .collect(),
        state_stores: (s.state_stores.keys())
            .map(|k| m::StateStoreMetadata {
                type_name: k.clone(),
            })
            .collect(),
    }
}

fn functions(s: &Schemas) -> std::collections::HashMap<String, pb::Function> {
    (s.functions.iter())
        .map(|(k, f)| (k.clone(), function_to_proto(f)))
        .collect()
}

/// The schemas, with `errors` (the schemas whose types cannot be
/// computed).
pub(crate) fn get_provider_schema<'a>(
    s: &Schemas,
    errors: impl IntoIterator<Item = &'a Diagnostic>,
) -> pb::get_provider_schema::Response {
    let map = |m: &BTreeMap<String, Schema>| {
        m.iter()
            .map(|(k, v)| (k.clone(), schema_to_proto(v)))
            .collect()
    };
    pb::get_provider_schema::Response {
        provider: Some(schema_to_proto(&s.provider)),
        resource_schemas: map(&s.resources),
        data_source_schemas: map(&s.data_sources),
        functions: functions(s),
        ephemeral_resource_schemas: map(&s.ephemeral_resources),
        list_resource_schemas: map(&s.list_resources),
        state_store_schemas: map(&s.state_stores),
        action_schemas: (s.actions.iter())
            .map(|(k, v)| {
                let schema = Some(schema_to_proto(v));
                (k.clone(), pb::ActionSchema { schema })
            })
            .collect(),
        diagnostics: diagnostics_to_proto(errors),
        provider_meta: s.provider_meta.as_ref().map(schema_to_proto),
        server_capabilities: Some(server_capabilities_to_proto(&s.server_capabilities)),
    }
}

/// The identity schemas, with `errors` (those whose types cannot be
/// computed).
pub(crate) fn get_resource_identity_schemas<'a>(
    s: &Schemas,
    errors: impl IntoIterator<Item = &'a Diagnostic>,
) -> pb::get_resource_identity_schemas::Response {
    pb::get_resource_identity_schemas::Response {
        identity_schemas: (s.identities.iter())
            .map(|(k, v)| (k.clone(), identity_schema_to_proto(v)))
            .collect(),
        diagnostics: diagnostics_to_proto(errors),
    }
}

pub(crate) fn get_functions(s: &Schemas) -> pb::get_functions::Response {
    pb::get_functions::Response {
        functions: functions(s),
        diagnostics: vec![],
    }
}

pub(crate) fn validate_provider_config(d: Diagnostics) -> pb::validate_provider_config::Response {
    pb::validate_provider_config::Response {
        diagnostics: diagnostics(d),
    }
}

pub(crate) fn validate_resource_config(d: Diagnostics) -> pb::validate_resource_config::Response {
    pb::validate_resource_config::Response {
        diagnostics: diagnostics(d),
    }
}

pub(crate) fn validate_data_resource_config(
    d: Diagnostics,
) -> pb::validate_data_resource_config::Response {
    pb::validate_data_resource_config::Response {
        diagnostics: diagnostics(d),
    }
}

pub(crate) fn validate_ephemeral_resource_config(
    d: Diagnostics,
) -> pb::validate_ephemeral_resource_config::Response {
    pb::validate_ephemeral_resource_config::Response {
        diagnostics: diagnostics(d),
    }
}

/// What an `UpgradeResourceState` request held: what its errors are
/// explained with.
pub(crate) struct StoredState {
    type_name: String,
    version: i64,
    form: &'static str,
}

impl StoredState {
    pub(crate) fn of(r: &UpgradeResourceStateRequest) -> Self {
        let form = if !r.raw_state.json.is_empty() {
            "JSON"
        } else if !r.raw_state.flatmap.is_empty() {
            "a flatmap (Terraform 0.11 and before)"
        } else {
            "nothing (an empty state)"
        };
        StoredState {
            type_name: r.type_name.clone(),
            version: r.version,
            form,
        }
    }

    /// `d`, an error, with a detail saying which stored state could not be
    /// upgraded and where in it: a state that does not decode is reported
    /// with only a message (at the root, or at a path into a state there
    /// is no configuration for), which alone says too little.
    fn explain(&self, mut d: Diagnostic) -> Diagnostic {
        if !d.is_error() {
            return d;
        }
        let what = format!(
            "the stored state of a {} (written at schema version {}, stored as {})",
            self.type_name, self.version, self.form
        );
        d.detail = if d.detail.is_empty() {
            let at = match &d.attribute {
                Some(p) => format!(" at {p}"),
                None => String::new(),
            };
            format!(
                "Upgrading {what} to the current schema failed{at}: {}",
                d.summary
            )
        } else {
            format!("{}\n\n(While upgrading {what}.)", d.detail)
        };
        d
    }

    fn explain_all(&self, ds: Diagnostics) -> Diagnostics {
        ds.into_iter().map(|d| self.explain(d)).collect()
    }
}

pub(crate) fn upgrade_resource_state(
    e: &Entry,
    stored: &StoredState,
    r: Result<UpgradeResourceStateResponse, Diagnostics>,
) -> Result<pb::upgrade_resource_state::Response, Diagnostics> {
    let r = r.map_err(|d| stored.explain_all(d))?;
    Ok(pb::upgrade_resource_state::Response {
        upgraded_state: Some(
            encode(
                "UpgradeResourceState",
                "upgraded_state",
                r.upgraded_state,
                e,
                true,
            )
            .map_err(|d| stored.explain(d))?,
        ),
        diagnostics: diagnostics(stored.explain_all(r.diagnostics)),
    })
}

pub(crate) fn configure_provider(d: Diagnostics) -> pb::configure_provider::Response {
    pb::configure_provider::Response {
        diagnostics: diagnostics(d),
    }
}

pub(crate) fn read_resource(
    e: &Entry,
    id: Option<&Type>,
    caps: ClientCapabilities,
    mut r: ReadResourceResponse,
) -> Result<pb::read_resource::Response, Diagnostics> {
    const RPC: &str = "ReadResource";
    let deferred = deferred(RPC, r.deferred, caps, &mut r.diagnostics)?;
    Ok(pb::read_resource::Response {
        new_identity: identity(RPC, "new_identity", r.new_identity, id, true)?,
        new_state: Some(encode(RPC, "new_state", r.new_state, e, true)?),
        diagnostics: diagnostics(r.diagnostics),
        private: r.private,
        deferred,
    })
}

pub(crate) fn plan_resource_change(
    e: &Entry,
    id: Option<&Type>,
    caps: ClientCapabilities,
    mut r: PlanResourceChangeResponse,
) -> Result<pb::plan_resource_change::Response, Diagnostics> {
    const RPC: &str = "PlanResourceChange";
    let deferred = deferred(RPC, r.deferred, caps, &mut r.diagnostics)?;
    Ok(pb::plan_resource_change::Response {
        planned_identity: identity(RPC, "planned_identity", r.planned_identity, id, false)?,
        planned_state: Some(encode(RPC, "planned_state", r.planned_state, e, true)?),
        requires_replace: r.requires_replace.iter().map(path_to_proto).collect(),
        planned_private: r.planned_private,
        diagnostics: diagnostics(r.diagnostics),
        legacy_type_system: false,
        deferred,
    })
}

pub(crate) fn apply_resource_change(
    e: &Entry,
    id: Option<&Type>,
    r: ApplyResourceChangeResponse,
) -> Result<pb::apply_resource_change::Response, Diagnostics> {
    Ok(pb::apply_resource_change::Response {
        new_identity: identity(
            "ApplyResourceChange",
            "new_identity",
            r.new_identity,
            id,
            true,
        )?,
        new_state: Some(encode(
            "ApplyResourceChange",
            "new_state",
            r.new_state,
            e,
            true,
        )?),
        private: r.private,
        diagnostics: diagnostics(r.diagnostics),
        legacy_type_system: false,
    })
}

/// Each imported object at its own type's schema (which need not be the
/// one asked for).
pub(crate) fn import_resource_state(
    resources: &Table,
    identities: &Identities,
    caps: ClientCapabilities,
    mut r: ImportResourceStateResponse,
) -> Result<pb::import_resource_state::Response, Diagnostics> {
    const RPC: &str = "ImportResourceState";
    let deferred = deferred(RPC, r.deferred, caps, &mut r.diagnostics)?;
    if !r.identities.is_empty() && r.identities.len() != r.imported_resources.len() {
        return Err(Diagnostic::error("The provider's identities in ImportResourceState are invalid")
            .with_detail(format!(
                "it gave {} identities for {} imported objects: give one (or None) for each, or none at all",
                r.identities.len(),
                r.imported_resources.len()
            ))
            .into());
    }
    let mut ids = r.identities.into_iter();
    let mut imported = Vec::with_capacity(r.imported_resources.len());
    for i in r.imported_resources {
        let e = resources.get(&i.type_name)?;
        let id_ty = identities.get(&i.type_name)?;
        imported.push(pb::import_resource_state::ImportedResource {
            identity: identity(RPC, "identity", ids.next().flatten(), id_ty, true)?,
            state: Some(encode(RPC, "state", i.state, e, true)?),
            type_name: i.type_name,
            private: i.private,
        });
    }
    Ok(pb::import_resource_state::Response {
        imported_resources: imported,
        diagnostics: diagnostics(r.diagnostics),
        deferred,
    })
}

pub(crate) fn move_resource_state(
    e: &Entry,
    id: Option<&Type>,
    r: MoveResourceStateResponse,
) -> Result<pb::move_resource_state::Response, Diagnostics> {
    Ok(pb::move_resource_state::Response {
        target_identity: identity(
            "MoveResourceState",
            "target_identity",
            r.target_identity,
            id,
            true,
        )?,
        target_state: Some(encode(
            "MoveResourceState",
            "target_state",
            r.target_state,
            e,
            true,
        )?),
        diagnostics: diagnostics(r.diagnostics),
        target_private: r.target_private,
    })
}

pub(crate) fn read_data_source(
    e: &Entry,
    caps: ClientCapabilities,
    mut r: ReadDataSourceResponse,
) -> Result<pb::read_data_source::Response, Diagnostics> {
    const RPC: &str = "ReadDataSource";
    let deferred = deferred(RPC, r.deferred, caps, &mut r.diagnostics)?;
    Ok(pb::read_data_source::Response {
        state: Some(encode(RPC, "state", r.state, e, false)?),
        diagnostics: diagnostics(r.diagnostics),
        deferred,
    })
}

pub(crate) fn open_ephemeral_resource(
    e: &Entry,
    caps: ClientCapabilities,
    mut r: OpenEphemeralResourceResponse,
) -> Result<pb::open_ephemeral_resource::Response, Diagnostics> {
    const RPC: &str = "OpenEphemeralResource";
    let deferred = deferred(RPC, r.deferred, caps, &mut r.diagnostics)?;
    Ok(pb::open_ephemeral_resource::Response {
        result: Some(encode(RPC, "result", r.result, e, false)?),
        renew_at: r.renew_at.map(timestamp_to_proto),
        private: r.private,
        diagnostics: diagnostics(r.diagnostics),
        deferred,
    })
}

pub(crate) fn renew_ephemeral_resource(
    r: RenewEphemeralResourceResponse,
) -> pb::renew_ephemeral_resource::Response {
    pb::renew_ephemeral_resource::Response {
        diagnostics: diagnostics(r.diagnostics),
        renew_at: r.renew_at.map(timestamp_to_proto),
        private: r.private,
    }
}

pub(crate) fn close_ephemeral_resource(d: Diagnostics) -> pb::close_ephemeral_resource::Response {
    pb::close_ephemeral_resource::Response {
        diagnostics: diagnostics(d),
    }
}

/// The result at the function's return type, or its error.
pub(crate) fn call_function(
    f: &Function,
    r: Result<Value, FunctionError>,
) -> pb::call_function::Response {
    let encoded = r.and_then(|v| {
        encode_dynamic_value(&v, &f.return_type).map_err(|e| {
            FunctionError::new(format!("the function's result does not fit its type: {e}"))
        })
    });
    match encoded {
        Ok(v) => pb::call_function::Response {
            result: Some(v),
            error: None,
        },
        Err(e) => function_error(&e),
    }
}

pub(crate) fn function_error(e: &FunctionError) -> pb::call_function::Response {
    pb::call_function::Response {
        result: None,
        error: Some(function_error_to_proto(e)),
    }
}

pub(crate) fn stop_provider(r: Result<(), String>) -> pb::stop_provider::Response {
    pb::stop_provider::Response {
        error: r.err().unwrap_or_default(),
    }
}

pub(crate) fn upgrade_resource_identity(
    ty: &Type,
    r: UpgradeResourceIdentityResponse,
) -> Result<pb::upgrade_resource_identity::Response, Diagnostics> {
    Ok(pb::upgrade_resource_identity::Response {
        upgraded_identity: identity(
            "UpgradeResourceIdentity",
            "upgraded_identity",
            Some(r.upgraded_identity),
            Some(ty),
            true,
        )?,
        diagnostics: diagnostics(r.diagnostics),
    })
}

pub(crate) fn generate_resource_config(
    e: &Entry,
    r: GenerateResourceConfigResponse,
) -> Result<pb::generate_resource_config::Response, Diagnostics> {
    Ok(pb::generate_resource_config::Response {
        config: Some(encode(
            "GenerateResourceConfig",
            "config",
            r.config,
            e,
            true,
        )?),
        diagnostics: diagnostics(r.diagnostics),
    })
}

pub(crate) fn validate_list_resource_config(
    d: Diagnostics,
) -> pb::validate_list_resource_config::Response {
    pb::validate_list_resource_config::Response {
        diagnostics: diagnostics(d),
    }
}

pub(crate) fn validate_action_config(d: Diagnostics) -> pb::validate_action_config::Response {
    pb::validate_action_config::Response {
        diagnostics: diagnostics(d),
    }
}

pub(crate) fn plan_action(
    caps: ClientCapabilities,
    mut r: PlanActionResponse,
) -> Result<pb::plan_action::Response, Diagnostics> {
    let deferred = deferred("PlanAction", r.deferred, caps, &mut r.diagnostics)?;
    Ok(pb::plan_action::Response {
        diagnostics: diagnostics(r.diagnostics),
        deferred,
    })
}

/// One result of `ListResource` as its event: the identity at the identity
/// schema's type, the object (only when asked for) at the resource's, with
/// write-only attributes nulled; what does not fit is an error diagnostic
/// naming the attribute.
pub(crate) fn list_result(
    r: ListResourceResult,
    identity_ty: &Type,
    resource: &Block,
    resource_ty: &Type,
    include_resource_object: bool,
) -> Result<pb::list_resource::Event, Diagnostics> {
    let bad = |field: &str, e: ctywire::Error| -> Diagnostics {
        let mut d = r.diagnostics.clone();
        d.push(
            Diagnostic::error(format!(
                "The provider's {field} in ListResource does not fit its schema"
            ))
            .with_detail(format!("for the result {:?}: {e}", r.display_name))
            .at(e.path().clone()),
        );
        d
    };
    if !r.identity.is_wholly_known() || r.identity.is_null() {
        return Err(bad(
            "identity",
            ctywire::Error::custom("a listed object's identity must be wholly known and not null"),
        ));
    }
    let identity = identity_to_proto(&r.identity, identity_ty).map_err(|e| bad("identity", e))?;
    let resource_object = match r.resource_object {
        Some(v) if include_resource_object => {
            let v = resource
                .null_write_only(v)
                .map_err(|e| bad("resource_object", e))?;
            Some(encode_dynamic_value(&v, resource_ty).map_err(|e| bad("resource_object", e))?)
        }
        _ => None,
    };
    Ok(pb::list_resource::Event {
        identity: Some(identity),
        display_name: r.display_name,
        resource_object,
        diagnostic: diagnostics_to_proto(&r.diagnostics),
    })
}

/// An event with diagnostics only: how a list reports its failure (or its
/// warnings) outside any result.
pub(crate) fn list_diagnostics(d: Diagnostics) -> pb::list_resource::Event {
    pb::list_resource::Event {
        diagnostic: diagnostics_to_proto(&d),
        ..Default::default()
    }
}

/// The final event of an invocation.
pub(crate) fn action_completed(d: &Diagnostics) -> pb::invoke_action::Event {
    use pb::invoke_action::event::{Completed, Type as Ev};
    pb::invoke_action::Event {
        r#type: Some(Ev::Completed(Completed {
            diagnostics: diagnostics_to_proto(d),
        })),
    }
}

pub(crate) fn validate_state_store_config(d: Diagnostics) -> pb::validate_state_store::Response {
    pb::validate_state_store::Response {
        diagnostics: diagnostics(d),
    }
}

pub(crate) fn configure_state_store(
    r: ConfigureStateStoreResponse,
) -> pb::configure_state_store::Response {
    pb::configure_state_store::Response {
        diagnostics: diagnostics(r.diagnostics),
        capabilities: Some(pb::StateStoreServerCapabilities {
            chunk_size: r.capabilities.chunk_size,
        }),
    }
}

/// One chunk of a read, as its stream's message.
pub(crate) fn read_state_bytes(c: StateChunk) -> pb::read_state_bytes::Response {
    pb::read_state_bytes::Response {
        bytes: c.bytes,
        total_length: c.total_length,
        range: c.range.map(|r| pb::StateRange {
            start: r.start,
            end: r.end,
        }),
        diagnostics: vec![],
    }
}

/// The message that ends a read with diagnostics.
pub(crate) fn read_state_diagnostics(d: Diagnostics) -> pb::read_state_bytes::Response {
    pb::read_state_bytes::Response {
        diagnostics: diagnostics(d),
        ..Default::default()
    }
}

pub(crate) fn write_state_bytes(d: Diagnostics) -> pb::write_state_bytes::Response {
    pb::write_state_bytes::Response {
        diagnostics: diagnostics(d),
    }
}

pub(crate) fn lock_state(r: LockStateResponse) -> pb::lock_state::Response {
    pb::lock_state::Response {
        lock_id: r.lock_id,
        diagnostics: diagnostics(r.diagnostics),
    }
}

pub(crate) fn unlock_state(d: Diagnostics) -> pb::unlock_state::Response {
    pb::unlock_state::Response {
        diagnostics: diagnostics(d),
    }
}

pub(crate) fn get_states(r: GetStatesResponse) -> pb::get_states::Response {
    pb::get_states::Response {
        state_id: r.state_ids,
        diagnostics: diagnostics(r.diagnostics),
    }
}

pub(crate) fn delete_state(d: Diagnostics) -> pb::delete_state::Response {
    pb::delete_state::Response {
        diagnostics: diagnostics(d),
    }
}
