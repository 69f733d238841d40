//! One function per request message: the protobuf request, taken by
//! value, as the provider's request. Values are decoded straight from the
//! message's bytes at the schema entry's type (an error at the offending
//! path), and every byte string and name is moved out, not copied.

use ctywire::{Type, Value};

use crate::convert::{client_capabilities_from_proto, decode_dynamic_value, raw_state_from_proto};
use crate::diagnostics::Diagnostic;
use crate::pb::tfplugin6 as pb;
use crate::provider::*;
use crate::server::{Entry, ReceivedValue, ValueObserver};

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
    r: pb::read_resource::Request,
) -> Result<ReadResourceRequest, Diagnostic> {
    const RPC: &str = "ReadResource";
    Ok(ReadResourceRequest {
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
    r: pb::plan_resource_change::Request,
) -> Result<PlanResourceChangeRequest, Diagnostic> {
    const RPC: &str = "PlanResourceChange";
    Ok(PlanResourceChangeRequest {
        prior_state: v.decode(RPC, "prior_state", r.prior_state, &e.ty)?,
        proposed_new_state: v.decode(RPC, "proposed_new_state", r.proposed_new_state, &e.ty)?,
        config: v.decode(RPC, "config", r.config, &e.ty)?,
        provider_meta: v.meta(RPC, r.provider_meta)?,
        type_name: r.type_name,
        prior_private: r.prior_private,
        client_capabilities: capabilities(r.client_capabilities),
    })
}

pub(crate) fn apply_resource_change(
    v: &Values<'_>,
    e: &Entry,
    r: pb::apply_resource_change::Request,
) -> Result<ApplyResourceChangeRequest, Diagnostic> {
    const RPC: &str = "ApplyResourceChange";
    Ok(ApplyResourceChangeRequest {
        prior_state: v.decode(RPC, "prior_state", r.prior_state, &e.ty)?,
        planned_state: v.decode(RPC, "planned_state", r.planned_state, &e.ty)?,
        config: v.decode(RPC, "config", r.config, &e.ty)?,
        provider_meta: v.meta(RPC, r.provider_meta)?,
        type_name: r.type_name,
        planned_private: r.planned_private,
    })
}

pub(crate) fn import_resource_state(
    r: pb::import_resource_state::Request,
) -> ImportResourceStateRequest {
    ImportResourceStateRequest {
        type_name: r.type_name,
        id: r.id,
        client_capabilities: capabilities(r.client_capabilities),
    }
}

pub(crate) fn move_resource_state(r: pb::move_resource_state::Request) -> MoveResourceStateRequest {
    MoveResourceStateRequest {
        source_provider_address: r.source_provider_address,
        source_type_name: r.source_type_name,
        source_schema_version: r.source_schema_version,
        source_state: raw_state_from_proto(r.source_state),
        target_type_name: r.target_type_name,
        source_private: r.source_private,
    }
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
