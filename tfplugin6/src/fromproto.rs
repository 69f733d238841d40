//! One function per request message: the protobuf request, taken by
//! value, as the provider's request. Values are decoded straight from the
//! message's bytes at the schema entry's type (an error at the offending
//! path), and every byte string and name is moved out, not copied.

use ctywire::{Type, Value};

use crate::convert::{client_capabilities_from_proto, decode_dynamic_value, raw_state_from_proto};
use crate::diagnostics::Diagnostic;
use crate::pb::tfplugin6 as pb;
use crate::provider::*;
use crate::tables::{Entry, ReceivedValue, ValueObserver};

/// How request values are decoded: where `provider_meta` is, and who
/// watches.
pub(crate) struct Values<'a> {
    pub observer: Option<&'a ValueObserver>,
    pub meta: Option<&'a Result<Entry, Diagnostic>>,
}

impl Values<'_> {
    /// A request value at `ty`; one that cannot be decoded is an error at
    /// its path.
    fn decode(
        &self,
        rpc: &str,
        field: &str,
        dv: Option<pb::DynamicValue>,
        ty: &Type,
    ) -> Result<Value, Diagnostic> {
        let value = decode_dynamic_value(dv.as_ref(), ty).map_err(|e| {
            Diagnostic::error(format!("Invalid {field} in {rpc}"))
                .with_detail(format!("ctywire could not decode it: {e}"))
                .at(e.path().clone())
        })?;
        if let Some(observe) = self.observer {
            observe(&ReceivedValue {
                rpc,
                field,
                msgpack: dv
                    .as_ref()
                    .map(|d| d.msgpack.as_slice())
                    .unwrap_or_default(),
                json: dv.as_ref().map(|d| d.json.as_slice()).unwrap_or_default(),
                ty,
                value: &value,
            })?;
        }
        Ok(value)
    }

    /// A request's identity (protocol 6.9) at the identity schema's type
    /// `ty`: `None` when none was sent; one sent for a resource type
    /// without an identity schema is an error.
    fn identity(
        &self,
        rpc: &str,
        field: &str,
        d: Option<pb::ResourceIdentityData>,
        ty: Option<&Type>,
    ) -> Result<Option<Value>, Diagnostic> {
        let Some(dv) = d.and_then(|d| d.identity_data) else {
            return Ok(None);
        };
        let Some(ty) = ty else {
            return Err(
                Diagnostic::error(format!("Unexpected {field} in {rpc}")).with_detail(
                    "Terraform sent an identity for a resource type that has no identity schema",
                ),
            );
        };
        self.decode(rpc, field, Some(dv), ty).map(Some)
    }

    /// The `provider_meta` value, when the provider has a schema for it.
    fn meta(&self, rpc: &str, dv: Option<pb::DynamicValue>) -> Result<Option<Value>, Diagnostic> {
        match self.meta {
            None => Ok(None),
            Some(Err(d)) => Err(d.clone()),
            Some(Ok(e)) => self.decode(rpc, "provider_meta", dv, &e.ty).map(Some),
        }
    }
}

fn capabilities(c: Option<pb::ClientCapabilities>) -> ClientCapabilities {
    client_capabilities_from_proto(c.as_ref())
}

pub(crate) fn validate_provider_config(
    v: &Values<'_>,
    e: &Entry,
    r: pb::validate_provider_config::Request,
) -> Result<ValidateProviderConfigRequest, Diagnostic> {
    Ok(ValidateProviderConfigRequest {
        config: v.decode("ValidateProviderConfig", "config", r.config, &e.ty)?,
    })
}

pub(crate) fn validate_resource_config(
    v: &Values<'_>,
    e: &Entry,
    r: pb::validate_resource_config::Request,
) -> Result<ValidateResourceConfigRequest, Diagnostic> {
    Ok(ValidateResourceConfigRequest {
        config: v.decode("ValidateResourceConfig", "config", r.config, &e.ty)?,
        type_name: r.type_name,
        client_capabilities: capabilities(r.client_capabilities),
    })
}

pub(crate) fn validate_data_resource_config(
    v: &Values<'_>,
    e: &Entry,
    r: pb::validate_data_resource_config::Request,
) -> Result<ValidateDataResourceConfigRequest, Diagnostic> {
    Ok(ValidateDataResourceConfigRequest {
        config: v.decode("ValidateDataResourceConfig", "config", r.config, &e.ty)?,
        type_name: r.type_name,
    })
}

pub(crate) fn validate_ephemeral_resource_config(
    v: &Values<'_>,
    e: &Entry,
    r: pb::validate_ephemeral_resource_config::Request,
) -> Result<ValidateEphemeralResourceConfigRequest, Diagnostic> {
    Ok(ValidateEphemeralResourceConfigRequest {
        config: v.decode("ValidateEphemeralResourceConfig", "config", r.config, &e.ty)?,
        type_name: r.type_name,
    })
}

pub(crate) fn upgrade_resource_state(
    e: &Entry,
    r: pb::upgrade_resource_state::Request,
) -> UpgradeResourceStateRequest {
    UpgradeResourceStateRequest {
        type_name: r.type_name,
        version: r.version,
        raw_state: raw_state_from_proto(r.raw_state),
        current_type: e.ty.clone(),
    }
}

pub(crate) fn configure_provider(
    v: &Values<'_>,
    e: &Entry,
    r: pb::configure_provider::Request,
) -> Result<ConfigureProviderRequest, Diagnostic> {
    Ok(ConfigureProviderRequest {
        config: v.decode("ConfigureProvider", "config", r.config, &e.ty)?,
        terraform_version: r.terraform_version,
        client_capabilities: capabilities(r.client_capabilities),
    })
}

pub(crate) fn read_resource(
    v: &Values<'_>,
    e: &Entry,
    id: Option<&Type>,
    r: pb::read_resource::Request,
) -> Result<ReadResourceRequest, Diagnostic> {
    const RPC: &str = "ReadResource";
    Ok(ReadResourceRequest {
        current_identity: v.identity(RPC, "current_identity", r.current_identity, id)?,
        current_state: v.decode(RPC, "current_state", r.current_state, &e.ty)?,
        provider_meta: v.meta(RPC, r.provider_meta)?,
        type_name: r.type_name,
        private: r.private,
        client_capabilities: capabilities(r.client_capabilities),
    })
}

pub(crate) fn plan_resource_change(
    v: &Values<'_>,
    e: &Entry,
    id: Option<&Type>,
    r: pb::plan_resource_change::Request,
) -> Result<PlanResourceChangeRequest, Diagnostic> {
    const RPC: &str = "PlanResourceChange";
    Ok(PlanResourceChangeRequest {
        prior_identity: v.identity(RPC, "prior_identity", r.prior_identity, id)?,
        prior_state: v.decode(RPC, "prior_state", r.prior_state, &e.ty)?,
        proposed_new_state: v.decode(RPC, "proposed_new_state", r.proposed_new_state, &e.ty)?,
        config: v.decode(RPC, "config", r.config, &e.ty)?,
        provider_meta: v.meta(RPC, r.provider_meta)?,
        type_name: r.type_name,
        prior_private: r.prior_private,
        planned_private: r.planned_private,
        client_capabilities: capabilities(r.client_capabilities),
    })
}

pub(crate) fn apply_resource_change(
    v: &Values<'_>,
    e: &Entry,
    id: Option<&Type>,
    r: pb::apply_resource_change::Request,
) -> Result<ApplyResourceChangeRequest, Diagnostic> {
    const RPC: &str = "ApplyResourceChange";
    Ok(ApplyResourceChangeRequest {
        planned_identity: v.identity(RPC, "planned_identity", r.planned_identity, id)?,
        prior_state: v.decode(RPC, "prior_state", r.prior_state, &e.ty)?,
        planned_state: v.decode(RPC, "planned_state", r.planned_state, &e.ty)?,
        config: v.decode(RPC, "config", r.config, &e.ty)?,
        provider_meta: v.meta(RPC, r.provider_meta)?,
        type_name: r.type_name,
        planned_private: r.planned_private,
    })
}

pub(crate) fn import_resource_state(
    v: &Values<'_>,
    id: Option<&Type>,
    r: pb::import_resource_state::Request,
) -> Result<ImportResourceStateRequest, Diagnostic> {
    Ok(ImportResourceStateRequest {
        identity: v.identity("ImportResourceState", "identity", r.identity, id)?,
        type_name: r.type_name,
        id: r.id,
        client_capabilities: capabilities(r.client_capabilities),
    })
}

pub(crate) fn move_resource_state(r: pb::move_resource_state::Request) -> MoveResourceStateRequest {
    MoveResourceStateRequest {
        source_provider_address: r.source_provider_address,
        source_type_name: r.source_type_name,
        source_schema_version: r.source_schema_version,
        source_state: raw_state_from_proto(r.source_state),
        target_type_name: r.target_type_name,
        source_private: r.source_private,
        source_identity: r.source_identity.map(|r| raw_state_from_proto(Some(r))),
        source_identity_schema_version: r.source_identity_schema_version,
    }
}

pub(crate) fn upgrade_resource_identity(
    ty: &Type,
    r: pb::upgrade_resource_identity::Request,
) -> UpgradeResourceIdentityRequest {
    UpgradeResourceIdentityRequest {
        type_name: r.type_name,
        version: r.version,
        raw_identity: raw_state_from_proto(r.raw_identity),
        current_type: ty.clone(),
    }
}

pub(crate) fn generate_resource_config(
    v: &Values<'_>,
    e: &Entry,
    r: pb::generate_resource_config::Request,
) -> Result<GenerateResourceConfigRequest, Diagnostic> {
    Ok(GenerateResourceConfigRequest {
        state: v.decode("GenerateResourceConfig", "state", r.state, &e.ty)?,
        type_name: r.type_name,
        schema: e.schema.clone(),
    })
}

pub(crate) fn validate_list_resource_config(
    v: &Values<'_>,
    e: &Entry,
    r: pb::validate_list_resource_config::Request,
) -> Result<ValidateListResourceConfigRequest, Diagnostic> {
    const RPC: &str = "ValidateListResourceConfig";
    Ok(ValidateListResourceConfigRequest {
        config: v.decode(RPC, "config", r.config, &e.ty)?,
        include_resource_object: v.decode(
            RPC,
            "include_resource_object",
            r.include_resource_object,
            &Type::Bool,
        )?,
        limit: v.decode(RPC, "limit", r.limit, &Type::Number)?,
        type_name: r.type_name,
    })
}

pub(crate) fn list_resource(
    v: &Values<'_>,
    e: &Entry,
    r: pb::list_resource::Request,
) -> Result<ListResourceRequest, Diagnostic> {
    Ok(ListResourceRequest {
        config: v.decode("ListResource", "config", r.config, &e.ty)?,
        type_name: r.type_name,
        include_resource_object: r.include_resource_object,
        limit: r.limit,
    })
}

pub(crate) fn validate_action_config(
    v: &Values<'_>,
    e: &Entry,
    r: pb::validate_action_config::Request,
) -> Result<ValidateActionConfigRequest, Diagnostic> {
    Ok(ValidateActionConfigRequest {
        config: v.decode("ValidateActionConfig", "config", r.config, &e.ty)?,
        type_name: r.type_name,
    })
}

pub(crate) fn plan_action(
    v: &Values<'_>,
    e: &Entry,
    r: pb::plan_action::Request,
) -> Result<PlanActionRequest, Diagnostic> {
    Ok(PlanActionRequest {
        config: v.decode("PlanAction", "config", r.config, &e.ty)?,
        action_type: r.action_type,
        client_capabilities: capabilities(r.client_capabilities),
    })
}

pub(crate) fn invoke_action(
    v: &Values<'_>,
    e: &Entry,
    r: pb::invoke_action::Request,
) -> Result<InvokeActionRequest, Diagnostic> {
    Ok(InvokeActionRequest {
        config: v.decode("InvokeAction", "config", r.config, &e.ty)?,
        action_type: r.action_type,
        client_capabilities: capabilities(r.client_capabilities),
    })
}

pub(crate) fn read_data_source(
    v: &Values<'_>,
    e: &Entry,
    r: pb::read_data_source::Request,
) -> Result<ReadDataSourceRequest, Diagnostic> {
    const RPC: &str = "ReadDataSource";
    Ok(ReadDataSourceRequest {
        config: v.decode(RPC, "config", r.config, &e.ty)?,
        provider_meta: v.meta(RPC, r.provider_meta)?,
        type_name: r.type_name,
        client_capabilities: capabilities(r.client_capabilities),
    })
}

pub(crate) fn open_ephemeral_resource(
    v: &Values<'_>,
    e: &Entry,
    r: pb::open_ephemeral_resource::Request,
) -> Result<OpenEphemeralResourceRequest, Diagnostic> {
    Ok(OpenEphemeralResourceRequest {
        config: v.decode("OpenEphemeralResource", "config", r.config, &e.ty)?,
        type_name: r.type_name,
        client_capabilities: capabilities(r.client_capabilities),
    })
}

pub(crate) fn renew_ephemeral_resource(
    r: pb::renew_ephemeral_resource::Request,
) -> RenewEphemeralResourceRequest {
    RenewEphemeralResourceRequest {
        type_name: r.type_name,
        private: r.private,
    }
}

pub(crate) fn close_ephemeral_resource(
    r: pb::close_ephemeral_resource::Request,
) -> CloseEphemeralResourceRequest {
    CloseEphemeralResourceRequest {
        type_name: r.type_name,
        private: r.private,
    }
}

/// Each argument at its parameter's type (the variadic parameter's past
/// the positional ones); a failure names the argument.
pub(crate) fn call_function(
    f: &Function,
    r: pb::call_function::Request,
) -> Result<CallFunctionRequest, FunctionError> {
    let mut arguments = Vec::with_capacity(r.arguments.len());
    for (i, dv) in r.arguments.iter().enumerate() {
        let at = Some(i as i64);
        let param = f
            .parameters
            .get(i)
            .or(f.variadic_parameter.as_ref())
            .ok_or_else(|| FunctionError {
                text: format!(
                    "too many arguments: the function takes {}",
                    f.parameters.len()
                ),
                function_argument: at,
            })?;
        let v = decode_dynamic_value(Some(dv), &param.ty).map_err(|e| FunctionError {
            text: format!("invalid value for {:?}: {e}", param.name),
            function_argument: at,
        })?;
        arguments.push(v);
    }
    Ok(CallFunctionRequest {
        name: r.name,
        arguments,
    })
}

pub(crate) fn validate_state_store_config(
    v: &Values<'_>,
    e: &Entry,
    r: pb::validate_state_store::Request,
) -> Result<ValidateStateStoreConfigRequest, Diagnostic> {
    Ok(ValidateStateStoreConfigRequest {
        config: v.decode("ValidateStateStoreConfig", "config", r.config, &e.ty)?,
        type_name: r.type_name,
    })
}

pub(crate) fn configure_state_store(
    v: &Values<'_>,
    e: &Entry,
    r: pb::configure_state_store::Request,
) -> Result<ConfigureStateStoreRequest, Diagnostic> {
    Ok(ConfigureStateStoreRequest {
        config: v.decode("ConfigureStateStore", "config", r.config, &e.ty)?,
        type_name: r.type_name,
        capabilities: StateStoreClientCapabilities {
            chunk_size: r.capabilities.map_or(0, |c| c.chunk_size),
        },
    })
}

pub(crate) fn read_state_bytes(r: pb::read_state_bytes::Request) -> ReadStateBytesRequest {
    ReadStateBytesRequest {
        type_name: r.type_name,
        state_id: r.state_id,
    }
}

/// A chunk of a write, and the state its `meta` names (the first chunk's).
pub(crate) fn write_state_bytes(
    r: pb::write_state_bytes::RequestChunk,
) -> (Option<WriteStateBytesRequest>, StateChunk) {
    let meta = r.meta.map(|m| WriteStateBytesRequest {
        type_name: m.type_name,
        state_id: m.state_id,
    });
    let chunk = StateChunk {
        bytes: r.bytes,
        total_length: r.total_length,
        range: r.range.map(|r| StateRange {
            start: r.start,
            end: r.end,
        }),
    };
    (meta, chunk)
}

pub(crate) fn lock_state(r: pb::lock_state::Request) -> LockStateRequest {
    LockStateRequest {
        type_name: r.type_name,
        state_id: r.state_id,
        operation: r.operation,
    }
}

pub(crate) fn unlock_state(r: pb::unlock_state::Request) -> UnlockStateRequest {
    UnlockStateRequest {
        type_name: r.type_name,
        state_id: r.state_id,
        lock_id: r.lock_id,
    }
}

pub(crate) fn get_states(r: pb::get_states::Request) -> GetStatesRequest {
    GetStatesRequest {
        type_name: r.type_name,
    }
}

pub(crate) fn delete_state(r: pb::delete_state::Request) -> DeleteStateRequest {
    DeleteStateRequest {
        type_name: r.type_name,
        state_id: r.state_id,
    }
}
