//! The provider's side of the wire, as core's `GRPCProvider`
//! (`internal/plugin6/grpc_provider.go`) calls it: real protobuf
//! requests through the generated tonic trait, values encoded as msgpack
//! `DynamicValue`s at the schema's implied type and answers decoded the
//! same way, with tfplugin6's own conversions (`ctywire_tfplugin6::client`).
//! There is no transport and no handshake.

use std::collections::BTreeMap;
use std::sync::Arc;

use ctywire::schema::Schema;
use ctywire::{Path, Type, Value};
use ctywire_tfplugin6::client::{
    decode_dynamic_value, diagnostic_from_proto, encode_dynamic_value, function_from_proto,
    identity_schema_from_proto, identity_to_proto, path_from_proto, schema_from_proto,
};
use ctywire_tfplugin6::pb::tfplugin6 as pb;
use ctywire_tfplugin6::pb::tfplugin6::provider_server::Provider as Service;
use ctywire_tfplugin6::{Diagnostic, Diagnostics, FunctionError};
use tonic::Request;

/// The Terraform version core sends in `ConfigureProvider`.
pub(crate) const TERRAFORM_VERSION: &str = "1.11.4";

/// A resource type's schema with its implied type, computed once.
#[derive(Clone, Debug)]
pub(crate) struct ResourceSchema {
    pub schema: Schema,
    pub ty: Type,
}

/// A resource type's identity schema (protocol 6.9): its version and
/// implied type.
#[derive(Clone, Debug)]
pub(crate) struct IdentityType {
    pub version: i64,
    pub ty: Type,
}

/// What `GetProviderSchema` and `GetResourceIdentitySchemas` answered.
#[derive(Clone, Debug)]
pub(crate) struct Schemas {
    pub provider: ResourceSchema,
    pub resources: BTreeMap<String, ResourceSchema>,
    pub identities: BTreeMap<String, IdentityType>,
    /// Data sources' schemas.
    pub data_sources: BTreeMap<String, ResourceSchema>,
    /// List resource types' `config` schemas.
    pub lists: BTreeMap<String, ResourceSchema>,
    /// Ephemeral resource types' schemas.
    pub ephemerals: BTreeMap<String, ResourceSchema>,
    /// Action types' schemas (protocol 6.10).
    pub actions: BTreeMap<String, ResourceSchema>,
    /// Provider functions' signatures, by name.
    pub functions: BTreeMap<String, ctywire_tfplugin6::Function>,
}

/// The generated service trait, with tfplugin6's stream types.
pub(crate) type DynService = dyn Service<
    ListResourceStream = ctywire_tfplugin6::ListResourceStream,
    InvokeActionStream = ctywire_tfplugin6::InvokeActionStream,
    ReadStateBytesStream = ctywire_tfplugin6::ReadStateBytesStream,
>;

/// One result of `ListResource`, decoded.
#[derive(Clone, Debug)]
pub(crate) struct Listed {
    pub identity: Value,
    pub display_name: String,
    pub object: Option<Value>,
}

/// What `OpenEphemeralResource` answered.
pub(crate) struct Opened {
    pub result: Value,
    pub private: Option<Vec<u8>>,
    pub renew_at: Option<std::time::SystemTime>,
}

/// What `RenewEphemeralResource` answered.
pub(crate) struct Renewed {
    pub private: Option<Vec<u8>>,
    pub renew_at: Option<std::time::SystemTime>,
}

/// A protobuf timestamp as a time; one out of range is the epoch's
/// bounds, never a panic.
fn time_of(seconds: i64, nanos: i32) -> std::time::SystemTime {
    let epoch = std::time::UNIX_EPOCH;
    let nanos = std::time::Duration::from_nanos(nanos.clamp(0, 999_999_999) as u64);
    let at = match u64::try_from(seconds) {
        Ok(s) => epoch.checked_add(std::time::Duration::from_secs(s)),
        Err(_) => epoch.checked_sub(std::time::Duration::from_secs(seconds.unsigned_abs())),
    };
    at.and_then(|t| t.checked_add(nanos)).unwrap_or(epoch)
}

/// The service, held as core holds a provider client.
pub(crate) struct Client {
    pub(crate) service: Arc<DynService>,
    /// The Terraform version it calls the provider as.
    pub(crate) speaks: Speaks,
    /// Always `Some` until dropped.
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for Client {
    /// Without waiting: a runtime dropped the ordinary way blocks, which
    /// panics inside another runtime.
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

/// `f` run to its end on the harness's `runtime`; refused inside another
/// runtime, where waiting would panic.
pub(crate) fn block_on<F: std::future::Future>(
    runtime: &tokio::runtime::Runtime,
    f: F,
) -> Result<F::Output, Diagnostics> {
    if tokio::runtime::Handle::try_current().is_ok() {
        return Err(Diagnostics::error(IN_RUNTIME));
    }
    Ok(runtime.block_on(f))
}

const IN_RUNTIME: &str = "the harness runs the provider on its own runtime: call it from a plain #[test], not from inside an async runtime (#[tokio::test])";

/// The Terraform version the harness speaks as: what it tells providers
/// it can do, and the protocol 6.11 behaviour that goes with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Speaks {
    /// Terraform 1.11, which the harness is proven equal to.
    #[default]
    Terraform1_11,
    /// Terraform 1.16 (protocol 6.11): computed blocks, and the private
    /// data of the plan handed back on the plan before apply.
    Terraform1_16,
}

impl Speaks {
    /// The version `ConfigureProvider` sends.
    fn version(self) -> &'static str {
        match self {
            Speaks::Terraform1_11 => TERRAFORM_VERSION,
            Speaks::Terraform1_16 => "1.16.0",
        }
    }

    /// Protocol 6.11 (`internal/terraform/eval_context_builtin.go` in
    /// 1.16 sets both flags always; 1.11 knows neither).
    pub(crate) fn protocol_6_11(self) -> bool {
        self == Speaks::Terraform1_16
    }

    /// What this core tells providers it can do: write-only attributes,
    /// no deferrals (an experiment in both versions), and from 1.16
    /// computed blocks and stored planned private data.
    fn capabilities(self) -> Option<pb::ClientCapabilities> {
        Some(pb::ClientCapabilities {
            deferral_allowed: false,
            write_only_attributes_allowed: true,
            store_planned_private: self.protocol_6_11(),
            computed_blocks_allowed: self.protocol_6_11(),
        })
    }
}

/// `deferring.UnexpectedProviderDeferralDiagnostic`: a deferral the
/// harness did not allow (see [`Speaks::capabilities`]) is an error, unless the
/// provider gave one already.
fn refuse_deferral(deferred: bool, diagnostics: &mut Diagnostics) {
    if deferred && !diagnostics.has_errors() {
        diagnostics.push(Diagnostic::error("Provider deferred changes when Terraform did not allow deferrals").with_detail(
            "The provider signaled a deferred action, but in this context deferrals are disabled. This is a bug in the provider, please file an issue with the provider developers.",
        ));
    }
}

pub(crate) fn diags(ds: &[pb::Diagnostic]) -> Diagnostics {
    ds.iter().map(diagnostic_from_proto).collect()
}

pub(crate) fn dv(v: &Value, ty: &Type) -> Result<Option<pb::DynamicValue>, Diagnostics> {
    encode_dynamic_value(v, ty).map(Some).map_err(|e| {
        Diagnostics::from(
            Diagnostic::error("Failed to encode a value for the provider")
                .with_detail(format!("{e} (this is a bug in the test or the harness)")),
        )
    })
}

/// An answer that does not decode at the schema's type: core's
/// `GRPCProvider` fails the call the same way.
pub(crate) fn decoded(
    dv: Option<&pb::DynamicValue>,
    ty: &Type,
    what: &str,
) -> Result<Value, Diagnostics> {
    decode_dynamic_value(dv, ty).map_err(|e| {
        Diagnostics::from(
            Diagnostic::error("Plugin error")
                .with_detail(format!("The provider's {what} cannot be decoded: {e}")),
        )
    })
}

/// An identity for a request (protocol 6.9): sent when the type has an
/// identity schema and the object has an identity, as core sends it.
fn identity_dv(
    v: Option<&Value>,
    ty: Option<&Type>,
) -> Result<Option<pb::ResourceIdentityData>, Diagnostics> {
    match (v, ty) {
        (Some(v), Some(ty)) if !v.is_null() => identity_to_proto(v, ty).map(Some).map_err(|e| {
            Diagnostics::error(format!(
                "Failed to encode an identity for the provider: {e} (this is a bug in the test or the harness)"
            ))
        }),
        _ => Ok(None),
    }
}

/// An answer's identity, decoded at the identity type; one for a type
/// without an identity schema fails the call, as in core.
fn identity_answer(
    d: Option<pb::ResourceIdentityData>,
    ty: Option<&Type>,
    type_name: &str,
) -> Result<Option<Value>, Diagnostics> {
    match (d.and_then(|d| d.identity_data), ty) {
        (None, _) => Ok(None),
        (Some(_), None) => Err(Diagnostics::error(format!(
            "identity type not found for resource type {type_name}"
        ))),
        (Some(dv), Some(ty)) => decoded(Some(&dv), ty, "identity").map(Some),
    }
}

pub(crate) fn status(call: &str, s: tonic::Status) -> Diagnostics {
    Diagnostics::from(Diagnostic::error("Plugin error").with_detail(format!(
        "The plugin returned an unexpected error from plugin6.(*GRPCProvider).{call}: {s}"
    )))
}

/// What `PlanResourceChange` answered.
pub(crate) struct Planned {
    pub planned: Value,
    pub identity: Option<Value>,
    pub requires_replace: Vec<Path>,
    pub private: Vec<u8>,
    pub diagnostics: Diagnostics,
}

/// One object `ImportResourceState` answered.
pub(crate) struct Imported {
    pub type_name: String,
    pub value: Value,
    pub private: Vec<u8>,
    pub identity: Option<Value>,
}

/// What `ApplyResourceChange` and `ReadResource` answered.
pub(crate) struct NewState {
    pub value: Value,
    pub identity: Option<Value>,
    pub private: Vec<u8>,
    pub diagnostics: Diagnostics,
}

/// The private data a `PlanResourceChange` carries: the prior object's,
/// and on the plan before apply what the plan answered (sent from 1.16).
#[derive(Clone, Copy)]
pub(crate) struct Private<'a> {
    pub prior: &'a [u8],
    pub planned: &'a [u8],
}

impl Client {
    pub(crate) fn new(service: Arc<DynService>) -> Result<Client, Diagnostics> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(Diagnostics::error(IN_RUNTIME));
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Diagnostics::error(format!("cannot start the harness's runtime: {e}")))?;
        Ok(Client {
            service,
            speaks: Speaks::default(),
            runtime: Some(runtime),
        })
    }

    pub(crate) fn block_on<F: std::future::Future>(&self, f: F) -> Result<F::Output, Diagnostics> {
        match &self.runtime {
            Some(rt) => block_on(rt, f),
            None => Err(Diagnostics::error(IN_RUNTIME)),
        }
    }

    /// `GetProviderSchema`, with every schema's implied type.
    pub(crate) fn schemas(&self) -> Result<Schemas, Diagnostics> {
        let resp = self
            .block_on(
                self.service
                    .get_provider_schema(Request::new(pb::get_provider_schema::Request {})),
            )?
            .map_err(|s| status("GetProviderSchema", s))?
            .into_inner();
        let d = diags(&resp.diagnostics);
        if d.has_errors() {
            return Err(d);
        }
        let convert = |name: &str, s: Option<&pb::Schema>| -> Result<ResourceSchema, Diagnostics> {
            let schema = match s {
                Some(s) => schema_from_proto(s),
                None => Ok(Schema::default()),
            }
            .and_then(|schema| Ok((schema.implied_type()?, schema)))
            .map_err(|e| Diagnostics::error(format!("the schema of {name} is invalid: {e}")))?;
            Ok(ResourceSchema {
                ty: schema.0,
                schema: schema.1,
            })
        };
        let mut resources = BTreeMap::new();
        for (name, s) in &resp.resource_schemas {
            resources.insert(name.clone(), convert(name, Some(s))?);
        }
        let mut data_sources = BTreeMap::new();
        for (name, s) in &resp.data_source_schemas {
            data_sources.insert(name.clone(), convert(name, Some(s))?);
        }
        let mut lists = BTreeMap::new();
        for (name, s) in &resp.list_resource_schemas {
            lists.insert(name.clone(), convert(name, Some(s))?);
        }
        let mut ephemerals = BTreeMap::new();
        for (name, s) in &resp.ephemeral_resource_schemas {
            ephemerals.insert(name.clone(), convert(name, Some(s))?);
        }
        let mut actions = BTreeMap::new();
        for (name, s) in &resp.action_schemas {
            actions.insert(name.clone(), convert(name, s.schema.as_ref())?);
        }
        let mut functions = BTreeMap::new();
        for (name, f) in &resp.functions {
            let f = function_from_proto(f).map_err(|e| {
                Diagnostics::error(format!("the signature of function {name} is invalid: {e}"))
            })?;
            functions.insert(name.clone(), f);
        }
        Ok(Schemas {
            provider: convert("the provider", resp.provider.as_ref())?,
            resources,
            identities: self.identity_schemas()?,
            data_sources,
            lists,
            ephemerals,
            actions,
            functions,
        })
    }

    /// `GetResourceIdentitySchemas` (protocol 6.9), as Terraform 1.12 asks
    /// right after the schema; "unimplemented" is no identities.
    fn identity_schemas(&self) -> Result<BTreeMap<String, IdentityType>, Diagnostics> {
        let req = Request::new(pb::get_resource_identity_schemas::Request {});
        let resp = match self.block_on(self.service.get_resource_identity_schemas(req))? {
            Ok(r) => r.into_inner(),
            Err(s) if s.code() == tonic::Code::Unimplemented => return Ok(BTreeMap::new()),
            Err(s) => return Err(status("GetResourceIdentitySchemas", s)),
        };
        let d = diags(&resp.diagnostics);
        if d.has_errors() {
            return Err(d);
        }
        let mut out = BTreeMap::new();
        for (name, s) in &resp.identity_schemas {
            let schema =
                identity_schema_from_proto(s).and_then(|s| Ok((s.version, s.implied_type()?)));
            let (version, ty) = schema.map_err(|e| {
                Diagnostics::error(format!("the identity schema of {name} is invalid: {e}"))
            })?;
            out.insert(name.clone(), IdentityType { version, ty });
        }
        Ok(out)
    }

    /// `UpgradeResourceIdentity` with the identity's JSON as core stores it.
    pub(crate) fn upgrade_identity(
        &self,
        type_name: &str,
        version: i64,
        json: &[u8],
        ty: &Type,
    ) -> Result<Value, Diagnostics> {
        let req = pb::upgrade_resource_identity::Request {
            type_name: type_name.into(),
            version,
            raw_identity: Some(pb::RawState {
                json: json.to_vec(),
                flatmap: Default::default(),
            }),
        };
        let resp = self
            .block_on(self.service.upgrade_resource_identity(Request::new(req)))?
            .map_err(|s| status("UpgradeResourceIdentity", s))?
            .into_inner();
        let d = diags(&resp.diagnostics);
        if d.has_errors() {
            return Err(d);
        }
        let data = resp.upgraded_identity.and_then(|i| i.identity_data);
        decoded(data.as_ref(), ty, "upgraded identity")
    }

    /// `ListResource`: every result until the stream ends (or `limit`
    /// results), as core reads it; an error diagnostic stops the list.
    pub(crate) fn list(
        &self,
        type_name: &str,
        config: &Value,
        include_resource: bool,
        limit: i64,
        types: (&Type, &Type, &Type),
    ) -> Result<(Vec<Listed>, Diagnostics), Diagnostics> {
        let (config_ty, resource_ty, identity_ty) = types;
        let req = pb::list_resource::Request {
            type_name: type_name.into(),
            config: dv(config, config_ty)?,
            include_resource_object: include_resource,
            limit,
        };
        let mut rx = self
            .block_on(self.service.list_resource(Request::new(req)))?
            .map_err(|s| status("ListResource", s))?
            .into_inner()
            .into_inner();
        let mut results = Vec::new();
        let mut all = Diagnostics::new();
        while (results.len() as i64) < limit {
            let Some(event) = self.block_on(rx.recv())? else {
                break;
            };
            let event = event.map_err(|s| status("ListResource", s))?;
            all.extend(diags(&event.diagnostic));
            if all.has_errors() {
                break;
            }
            let Some(data) = event.identity.and_then(|i| i.identity_data) else {
                continue;
            };
            let object = match (event.resource_object, include_resource) {
                (Some(o), true) => Some(decoded(Some(&o), resource_ty, "listed object")?),
                _ => None,
            };
            results.push(Listed {
                identity: decoded(Some(&data), identity_ty, "listed identity")?,
                display_name: event.display_name,
                object,
            });
        }
        Ok((results, all))
    }

    /// `CallFunction` with arguments already converted to the
    /// parameters' types; the function's error as it gave it (its text
    /// and the argument at fault).
    pub(crate) fn call_function(
        &self,
        name: &str,
        f: &ctywire_tfplugin6::Function,
        args: &[(Value, Type)],
    ) -> Result<Value, FunctionError> {
        let mut arguments = Vec::with_capacity(args.len());
        for (i, (v, ty)) in args.iter().enumerate() {
            arguments.push(encode_dynamic_value(v, ty).map_err(|e| FunctionError {
                text: e.to_string(),
                function_argument: Some(i64::try_from(i).unwrap_or(i64::MAX)),
            })?);
        }
        let req = pb::call_function::Request {
            name: name.into(),
            arguments,
        };
        let resp = self
            .block_on(self.service.call_function(Request::new(req)))
            .map_err(|d| FunctionError::new(d.to_string()))?
            .map_err(|s| FunctionError::new(status("CallFunction", s).to_string()))?
            .into_inner();
        if let Some(e) = resp.error {
            return Err(FunctionError {
                text: e.text,
                function_argument: e.function_argument,
            });
        }
        let result = (resp.result)
            .ok_or_else(|| FunctionError::new(format!("the function {name} returned no result")))?;
        decode_dynamic_value(Some(&result), &f.return_type)
            .map_err(|e| FunctionError::new(e.to_string()))
    }

    /// `ValidateEphemeralResourceConfig`.
    pub(crate) fn validate_ephemeral(
        &self,
        type_name: &str,
        config: &Value,
        ty: &Type,
    ) -> Result<Diagnostics, Diagnostics> {
        let req = pb::validate_ephemeral_resource_config::Request {
            type_name: type_name.into(),
            config: dv(config, ty)?,
        };
        let resp = self
            .block_on(
                self.service
                    .validate_ephemeral_resource_config(Request::new(req)),
            )?
            .map_err(|s| status("ValidateEphemeralResourceConfig", s))?;
        Ok(diags(&resp.into_inner().diagnostics))
    }

    /// `OpenEphemeralResource`: the result, or the provider's errors.
    pub(crate) fn open_ephemeral(
        &self,
        type_name: &str,
        config: &Value,
        ty: &Type,
    ) -> Result<(Opened, Diagnostics), Diagnostics> {
        let req = pb::open_ephemeral_resource::Request {
            type_name: type_name.into(),
            config: dv(config, ty)?,
            client_capabilities: self.speaks.capabilities(),
        };
        let resp = self
            .block_on(self.service.open_ephemeral_resource(Request::new(req)))?
            .map_err(|s| status("OpenEphemeralResource", s))?
            .into_inner();
        let mut diagnostics = diags(&resp.diagnostics);
        refuse_deferral(resp.deferred.is_some(), &mut diagnostics);
        if diagnostics.has_errors() {
            return Err(diagnostics);
        }
        let opened = Opened {
            result: decoded(resp.result.as_ref(), ty, "ephemeral resource result")?,
            private: resp.private,
            renew_at: resp.renew_at.map(|t| time_of(t.seconds, t.nanos)),
        };
        Ok((opened, diagnostics))
    }

    /// `RenewEphemeralResource`: the next private data and renewal time.
    pub(crate) fn renew_ephemeral(
        &self,
        type_name: &str,
        private: Option<Vec<u8>>,
    ) -> Result<(Renewed, Diagnostics), Diagnostics> {
        let req = pb::renew_ephemeral_resource::Request {
            type_name: type_name.into(),
            private,
        };
        let resp = self
            .block_on(self.service.renew_ephemeral_resource(Request::new(req)))?
            .map_err(|s| status("RenewEphemeralResource", s))?
            .into_inner();
        let renewed = Renewed {
            private: resp.private,
            renew_at: resp.renew_at.map(|t| time_of(t.seconds, t.nanos)),
        };
        Ok((renewed, diags(&resp.diagnostics)))
    }

    /// `CloseEphemeralResource`.
    pub(crate) fn close_ephemeral(
        &self,
        type_name: &str,
        private: Option<Vec<u8>>,
    ) -> Result<Diagnostics, Diagnostics> {
        let req = pb::close_ephemeral_resource::Request {
            type_name: type_name.into(),
            private,
        };
        let resp = self
            .block_on(self.service.close_ephemeral_resource(Request::new(req)))?
            .map_err(|s| status("CloseEphemeralResource", s))?;
        Ok(diags(&resp.into_inner().diagnostics))
    }

    /// `ValidateActionConfig`.
    pub(crate) fn validate_action(
        &self,
        type_name: &str,
        config: &Value,
        ty: &Type,
    ) -> Result<Diagnostics, Diagnostics> {
        let req = pb::validate_action_config::Request {
            type_name: type_name.into(),
            config: dv(config, ty)?,
        };
        let resp = self
            .block_on(self.service.validate_action_config(Request::new(req)))?
            .map_err(|s| status("ValidateActionConfig", s))?;
        Ok(diags(&resp.into_inner().diagnostics))
    }

    /// `PlanAction`: the provider's diagnostics (a deferral is refused).
    pub(crate) fn plan_action(
        &self,
        type_name: &str,
        config: &Value,
        ty: &Type,
    ) -> Result<Diagnostics, Diagnostics> {
        let req = pb::plan_action::Request {
            action_type: type_name.into(),
            config: dv(config, ty)?,
            client_capabilities: self.speaks.capabilities(),
        };
        let resp = self
            .block_on(self.service.plan_action(Request::new(req)))?
            .map_err(|s| status("PlanAction", s))?
            .into_inner();
        let mut diagnostics = diags(&resp.diagnostics);
        refuse_deferral(resp.deferred.is_some(), &mut diagnostics);
        Ok(diagnostics)
    }

    /// `InvokeAction`'s stream read to its end: the progress messages in
    /// order, and the diagnostics of the `Completed` event (none when the
    /// stream ends without one: core's `actionTriggerApplyInstance.Invoke`
    /// reads events until the stream ends).
    pub(crate) fn invoke_action(
        &self,
        type_name: &str,
        config: &Value,
        ty: &Type,
    ) -> Result<(Vec<String>, Diagnostics), Diagnostics> {
        use pb::invoke_action::event::Type as Event;
        let req = pb::invoke_action::Request {
            action_type: type_name.into(),
            config: dv(config, ty)?,
            client_capabilities: self.speaks.capabilities(),
        };
        let mut rx = self
            .block_on(self.service.invoke_action(Request::new(req)))?
            .map_err(|s| status("InvokeAction", s))?
            .into_inner()
            .into_inner();
        let mut progress = Vec::new();
        loop {
            let Some(event) = self.block_on(rx.recv())? else {
                return Ok((progress, Diagnostics::new()));
            };
            match event.map_err(|s| status("InvokeAction", s))?.r#type {
                Some(Event::Progress(p)) => progress.push(p.message),
                Some(Event::Completed(c)) => return Ok((progress, diags(&c.diagnostics))),
                None => {}
            }
        }
    }

    pub(crate) fn validate_provider_config(
        &self,
        config: &Value,
        ty: &Type,
    ) -> Result<Diagnostics, Diagnostics> {
        let req = pb::validate_provider_config::Request {
            config: dv(config, ty)?,
        };
        let resp = self
            .block_on(self.service.validate_provider_config(Request::new(req)))?
            .map_err(|s| status("ValidateProviderConfig", s))?;
        Ok(diags(&resp.into_inner().diagnostics))
    }

    pub(crate) fn configure(&self, config: &Value, ty: &Type) -> Result<Diagnostics, Diagnostics> {
        let req = pb::configure_provider::Request {
            terraform_version: self.speaks.version().into(),
            config: dv(config, ty)?,
            client_capabilities: self.speaks.capabilities(),
        };
        let resp = self
            .block_on(self.service.configure_provider(Request::new(req)))?
            .map_err(|s| status("ConfigureProvider", s))?;
        Ok(diags(&resp.into_inner().diagnostics))
    }

    pub(crate) fn validate_resource(
        &self,
        type_name: &str,
        config: &Value,
        ty: &Type,
    ) -> Result<Diagnostics, Diagnostics> {
        let req = pb::validate_resource_config::Request {
            type_name: type_name.into(),
            config: dv(config, ty)?,
            client_capabilities: self.speaks.capabilities(),
        };
        let resp = self
            .block_on(self.service.validate_resource_config(Request::new(req)))?
            .map_err(|s| status("ValidateResourceConfig", s))?;
        Ok(diags(&resp.into_inner().diagnostics))
    }

    pub(crate) fn validate_data_resource(
        &self,
        type_name: &str,
        config: &Value,
        ty: &Type,
    ) -> Result<Diagnostics, Diagnostics> {
        let req = pb::validate_data_resource_config::Request {
            type_name: type_name.into(),
            config: dv(config, ty)?,
        };
        let resp = self
            .block_on(
                self.service
                    .validate_data_resource_config(Request::new(req)),
            )?
            .map_err(|s| status("ValidateDataResourceConfig", s))?;
        Ok(diags(&resp.into_inner().diagnostics))
    }

    /// `ReadDataSource`: the data source's new state, or the provider's
    /// errors.
    pub(crate) fn read_data_source(
        &self,
        type_name: &str,
        config: &Value,
        ty: &Type,
    ) -> Result<(Value, Diagnostics), Diagnostics> {
        let req = pb::read_data_source::Request {
            type_name: type_name.into(),
            config: dv(config, ty)?,
            provider_meta: None,
            client_capabilities: self.speaks.capabilities(),
        };
        let resp = self
            .block_on(self.service.read_data_source(Request::new(req)))?
            .map_err(|s| status("ReadDataSource", s))?
            .into_inner();
        let mut diagnostics = diags(&resp.diagnostics);
        refuse_deferral(resp.deferred.is_some(), &mut diagnostics);
        if diagnostics.has_errors() {
            return Err(diagnostics);
        }
        let value = decoded(resp.state.as_ref(), ty, "data source state")?;
        Ok((value, diagnostics))
    }

    /// `ValidateListResourceConfig` with the `config` block alone, as core
    /// sends it.
    pub(crate) fn validate_list(
        &self,
        type_name: &str,
        config: &Value,
        ty: &Type,
    ) -> Result<Diagnostics, Diagnostics> {
        let req = pb::validate_list_resource_config::Request {
            type_name: type_name.into(),
            config: dv(config, ty)?,
            include_resource_object: None,
            limit: None,
        };
        let resp = self
            .block_on(
                self.service
                    .validate_list_resource_config(Request::new(req)),
            )?
            .map_err(|s| status("ValidateListResourceConfig", s))?;
        Ok(diags(&resp.into_inner().diagnostics))
    }

    /// `UpgradeResourceState` with the state's JSON as core stores it.
    pub(crate) fn upgrade(
        &self,
        type_name: &str,
        version: i64,
        json: &[u8],
        ty: &Type,
    ) -> Result<(Value, Diagnostics), Diagnostics> {
        let req = pb::upgrade_resource_state::Request {
            type_name: type_name.into(),
            version,
            raw_state: Some(pb::RawState {
                json: json.to_vec(),
                flatmap: Default::default(),
            }),
        };
        let resp = self
            .block_on(self.service.upgrade_resource_state(Request::new(req)))?
            .map_err(|s| status("UpgradeResourceState", s))?
            .into_inner();
        let d = diags(&resp.diagnostics);
        if d.has_errors() {
            return Ok((Value::null(ty.clone()), d));
        }
        Ok((
            decoded(resp.upgraded_state.as_ref(), ty, "upgraded state")?,
            d,
        ))
    }

    pub(crate) fn read(
        &self,
        type_name: &str,
        state: &Value,
        private: &[u8],
        ty: &Type,
        identity: (Option<&Value>, Option<&Type>),
    ) -> Result<NewState, Diagnostics> {
        let req = pb::read_resource::Request {
            current_identity: identity_dv(identity.0, identity.1)?,
            type_name: type_name.into(),
            current_state: dv(state, ty)?,
            private: private.to_vec(),
            provider_meta: None,
            client_capabilities: self.speaks.capabilities(),
        };
        let resp = self
            .block_on(self.service.read_resource(Request::new(req)))?
            .map_err(|s| status("ReadResource", s))?
            .into_inner();
        let diagnostics = diags(&resp.diagnostics);
        if diagnostics.has_errors() {
            return Ok(NewState {
                value: state.clone(),
                identity: identity.0.cloned(),
                private: private.to_vec(),
                diagnostics,
            });
        }
        Ok(NewState {
            identity: identity_answer(resp.new_identity, identity.1, type_name)?,
            value: decoded(resp.new_state.as_ref(), ty, "refreshed state")?,
            private: resp.private,
            diagnostics,
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn plan(
        &self,
        type_name: &str,
        prior: &Value,
        proposed: &Value,
        config: &Value,
        private: Private<'_>,
        ty: &Type,
        identity: (Option<&Value>, Option<&Type>),
    ) -> Result<Planned, Diagnostics> {
        let req = pb::plan_resource_change::Request {
            prior_identity: identity_dv(identity.0, identity.1)?,
            type_name: type_name.into(),
            prior_state: dv(prior, ty)?,
            proposed_new_state: dv(proposed, ty)?,
            config: dv(config, ty)?,
            prior_private: private.prior.to_vec(),
            provider_meta: None,
            client_capabilities: self.speaks.capabilities(),
            // An older core has no such field.
            planned_private: match self.speaks.protocol_6_11() {
                true => private.planned.to_vec(),
                false => Vec::new(),
            },
        };
        let resp = self
            .block_on(self.service.plan_resource_change(Request::new(req)))?
            .map_err(|s| status("PlanResourceChange", s))?
            .into_inner();
        let mut diagnostics = diags(&resp.diagnostics);
        refuse_deferral(resp.deferred.is_some(), &mut diagnostics);
        if diagnostics.has_errors() {
            return Ok(Planned {
                planned: Value::null(ty.clone()),
                identity: None,
                requires_replace: Vec::new(),
                private: Vec::new(),
                diagnostics,
            });
        }
        let mut requires_replace = Vec::with_capacity(resp.requires_replace.len());
        for p in &resp.requires_replace {
            requires_replace.push(path_from_proto(p).map_err(|e| {
                Diagnostics::error(format!(
                    "the provider's requires_replace path is invalid: {e}"
                ))
            })?);
        }
        Ok(Planned {
            identity: identity_answer(resp.planned_identity, identity.1, type_name)?,
            planned: decoded(resp.planned_state.as_ref(), ty, "planned state")?,
            requires_replace,
            private: resp.planned_private,
            diagnostics,
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn apply(
        &self,
        type_name: &str,
        prior: &Value,
        planned: &Value,
        config: &Value,
        planned_private: &[u8],
        ty: &Type,
        identity: (Option<&Value>, Option<&Type>),
    ) -> Result<NewState, Diagnostics> {
        let req = pb::apply_resource_change::Request {
            planned_identity: identity_dv(identity.0, identity.1)?,
            type_name: type_name.into(),
            prior_state: dv(prior, ty)?,
            planned_state: dv(planned, ty)?,
            config: dv(config, ty)?,
            planned_private: planned_private.to_vec(),
            provider_meta: None,
        };
        let resp = self
            .block_on(self.service.apply_resource_change(Request::new(req)))?
            .map_err(|s| status("ApplyResourceChange", s))?
            .into_inner();
        let diagnostics = diags(&resp.diagnostics);
        // A failed apply may still answer a (partial) new state: core
        // keeps it, so it is decoded whatever the diagnostics say.
        let value = match decoded(resp.new_state.as_ref(), ty, "new state") {
            Ok(v) => v,
            Err(mut e) if diagnostics.has_errors() => {
                e.extend(diagnostics);
                return Err(e);
            }
            Err(e) => return Err(e),
        };
        Ok(NewState {
            value,
            identity: identity_answer(resp.new_identity, identity.1, type_name)?,
            private: resp.private,
            diagnostics,
        })
    }

    /// `ImportResourceState` by id or (protocol 6.9) by identity: each
    /// imported object.
    pub(crate) fn import(
        &self,
        type_name: &str,
        id: &str,
        identity: Option<&Value>,
        schemas: &Schemas,
    ) -> Result<(Vec<Imported>, Diagnostics), Diagnostics> {
        let id_ty = schemas.identities.get(type_name).map(|i| &i.ty);
        let req = pb::import_resource_state::Request {
            type_name: type_name.into(),
            id: id.into(),
            client_capabilities: self.speaks.capabilities(),
            identity: identity_dv(identity, id_ty)?,
        };
        let types = &schemas.resources;
        let resp = self
            .block_on(self.service.import_resource_state(Request::new(req)))?
            .map_err(|s| status("ImportResourceState", s))?
            .into_inner();
        let d = diags(&resp.diagnostics);
        if d.has_errors() {
            return Ok((Vec::new(), d));
        }
        let mut out = Vec::new();
        for r in resp.imported_resources {
            let Some(rs) = types.get(&r.type_name) else {
                return Err(Diagnostics::error(format!(
                    "import of {type_name} returned an object of the unknown resource type {:?}",
                    r.type_name
                )));
            };
            let v = decoded(r.state.as_ref(), &rs.ty, "imported state")?;
            let id_ty = schemas.identities.get(&r.type_name).map(|i| &i.ty);
            out.push(Imported {
                identity: identity_answer(r.identity, id_ty, &r.type_name)?,
                type_name: r.type_name,
                value: v,
                private: r.private,
            });
        }
        Ok((out, d))
    }
}
