//! [`ProviderService`]: the generated tonic `Provider` service, implemented
//! for any [`Provider`] by decoding and encoding values at the schemas'
//! implied types.

use std::collections::BTreeMap;
use std::sync::Arc;

use ctywire::schema::Schema;
use ctywire::{Error, Type, Value};
use tonic::{Request, Response, Status};

use crate::convert::{self, diagnostics_to_proto};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::pb::tfplugin6 as pb;
use crate::provider::*;
use crate::write_only;

/// A schema with its implied type, computed once.
#[derive(Debug)]
struct Entry {
    schema: Schema,
    ty: Type,
    write_only: bool,
}

#[derive(Debug, Default)]
struct Table {
    kind: &'static str,
    entries: BTreeMap<String, Result<Entry, Diagnostic>>,
}

impl Table {
    fn new(kind: &'static str, schemas: &BTreeMap<String, Schema>) -> Table {
        Table {
            kind,
            entries: schemas
                .iter()
                .map(|(name, s)| (name.clone(), entry(kind, name, s)))
                .collect(),
        }
    }

    /// The entry of `name`, or an error diagnostic naming what exists.
    fn get(&self, name: &str) -> Result<&Entry, Diagnostic> {
        match self.entries.get(name) {
            Some(Ok(e)) => Ok(e),
            Some(Err(d)) => Err(d.clone()),
            None => Err(
                Diagnostic::error(format!("unknown {} type {name:?}", self.kind)).with_detail(
                    format!(
                        "this provider's {} types are: {}",
                        self.kind,
                        self.entries
                            .keys()
                            .map(|k| format!("{k:?}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ),
            ),
        }
    }

    fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.entries.values().filter_map(|e| e.as_ref().err())
    }
}

fn entry(kind: &str, name: &str, schema: &Schema) -> Result<Entry, Diagnostic> {
    match schema.implied_type() {
        Ok(ty) => Ok(Entry {
            write_only: write_only::has_write_only(&schema.block),
            schema: schema.clone(),
            ty,
        }),
        Err(e) => Err(
            Diagnostic::error(format!("the schema of {kind} {name:?} is invalid"))
                .with_detail(e.to_string()),
        ),
    }
}

/// The generated `tfplugin6.Provider` service over a [`Provider`].
///
/// Every `DynamicValue` in a request is decoded at the implied type of the
/// schema the request names; one that cannot be decoded is answered with
/// an error diagnostic at the offending path, without calling the
/// provider. Every value in an answer is encoded at the same type (a
/// non-conforming value becomes an error diagnostic at its path), with
/// write-only attributes nulled in resource states.
///
/// [`serve`](crate::serve) builds one; use it directly to serve on a
/// transport of your own.
pub struct ProviderService<P> {
    inner: Arc<Inner<P>>,
    observer: Option<ValueObserver>,
}

impl<P> Clone for ProviderService<P> {
    fn clone(&self) -> Self {
        ProviderService {
            inner: self.inner.clone(),
            observer: self.observer.clone(),
        }
    }
}

/// A value Terraform sent, as received and as decoded, for a
/// [`ValueObserver`].
#[derive(Debug)]
pub struct ReceivedValue<'a> {
    /// The RPC, such as `"PlanResourceChange"`.
    pub rpc: &'a str,
    /// The request field, such as `"proposed_new_state"`.
    pub field: &'a str,
    /// The `DynamicValue`'s msgpack bytes (empty when it was sent as JSON
    /// or not at all).
    pub msgpack: &'a [u8],
    /// The `DynamicValue`'s JSON bytes.
    pub json: &'a [u8],
    /// The type it was decoded at.
    pub ty: &'a Type,
    /// The decoded value.
    pub value: &'a Value,
}

/// Sees every request value after it is decoded and before the provider
/// does: for recording what Terraform sends, or checking it. An `Err`
/// fails the call with that diagnostic.
pub type ValueObserver =
    Arc<dyn Fn(&ReceivedValue<'_>) -> Result<(), Diagnostic> + Send + Sync + 'static>;

struct Inner<P> {
    provider: P,
    schemas: Schemas,
    provider_entry: Result<Entry, Diagnostic>,
    meta_entry: Option<Result<Entry, Diagnostic>>,
    resources: Table,
    data_sources: Table,
    ephemeral: Table,
}

impl<P: Provider> ProviderService<P> {
    /// Asks the provider for its schemas and computes their implied types.
    /// A schema whose type cannot be computed is reported by
    /// `GetProviderSchema` and by every call that needs it.
    pub fn new(provider: P) -> Self {
        let schemas = provider.schemas();
        let inner = Inner {
            provider_entry: entry("the provider", "config", &schemas.provider),
            meta_entry: schemas
                .provider_meta
                .as_ref()
                .map(|s| entry("provider_meta", "provider_meta", s)),
            resources: Table::new("resource", &schemas.resources),
            data_sources: Table::new("data source", &schemas.data_sources),
            ephemeral: Table::new("ephemeral resource", &schemas.ephemeral_resources),
            schemas,
            provider,
        };
        ProviderService {
            inner: Arc::new(inner),
            observer: None,
        }
    }

    /// Calls `observer` with every value decoded from a request.
    pub fn with_value_observer(mut self, observer: ValueObserver) -> Self {
        self.observer = Some(observer);
        self
    }

    /// A request value at `ty`; one that cannot be decoded is an error at
    /// its path.
    fn decode(
        &self,
        rpc: &str,
        field: &str,
        dv: Option<&pb::DynamicValue>,
        ty: &Type,
    ) -> Result<Value, Diagnostic> {
        let value = convert::decode_dynamic_value(dv, ty).map_err(|e| {
            Diagnostic::error(format!("Invalid {field} in {rpc}"))
                .with_detail(format!("ctywire could not decode it: {e}"))
                .at(e.path().clone())
        })?;
        if let Some(observe) = &self.observer {
            observe(&ReceivedValue {
                rpc,
                field,
                msgpack: dv.map(|d| d.msgpack.as_slice()).unwrap_or_default(),
                json: dv.map(|d| d.json.as_slice()).unwrap_or_default(),
                ty,
                value: &value,
            })?;
        }
        Ok(value)
    }

    /// The `provider_meta` value, when the provider has a schema for it.
    fn meta(&self, rpc: &str, dv: Option<&pb::DynamicValue>) -> Result<Option<Value>, Diagnostic> {
        match &self.inner.meta_entry {
            None => Ok(None),
            Some(Err(d)) => Err(d.clone()),
            Some(Ok(e)) => self.decode(rpc, "provider_meta", dv, &e.ty).map(Some),
        }
    }

    /// The provider served.
    pub fn provider(&self) -> &P {
        &self.inner.provider
    }

    /// The tonic service, to add to a `tonic::transport::Server`.
    pub fn into_service(self) -> pb::provider_server::ProviderServer<Self> {
        pb::provider_server::ProviderServer::new(self)
            .max_decoding_message_size(256 << 20)
            .max_encoding_message_size(256 << 20)
    }
}

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
        write_only::null_write_only(&entry.schema.block, v).map_err(bad)?
    } else {
        v
    };
    convert::encode_dynamic_value(&v, &entry.ty).map_err(bad)
}

fn diags(d: impl Into<Diagnostics>) -> Vec<pb::Diagnostic> {
    diagnostics_to_proto(&d.into())
}

type Reply<T> = Result<Response<T>, Status>;

fn ok<T>(t: T) -> Reply<T> {
    Ok(Response::new(t))
}

#[tonic::async_trait]
impl<P: Provider> pb::provider_server::Provider for ProviderService<P> {
    async fn get_metadata(
        &self,
        _: Request<pb::get_metadata::Request>,
    ) -> Reply<pb::get_metadata::Response> {
        use pb::get_metadata as m;
        let s = &self.inner.schemas;
        ok(m::Response {
            server_capabilities: Some(convert::server_capabilities_to_proto(
                &s.server_capabilities,
            )),
            diagnostics: vec![],
            data_sources: s
                .data_sources
                .keys()
                .map(|k| m::DataSourceMetadata {
                    type_name: k.clone(),
                })
                .collect(),
            resources: s
                .resources
                .keys()
                .map(|k| m::ResourceMetadata {
                    type_name: k.clone(),
                })
                .collect(),
            functions: s
                .functions
                .keys()
                .map(|k| m::FunctionMetadata { name: k.clone() })
                .collect(),
            ephemeral_resources: s
                .ephemeral_resources
                .keys()
                .map(|k| m::EphemeralMetadata {
                    type_name: k.clone(),
                })
                .collect(),
        })
    }

    async fn get_provider_schema(
        &self,
        _: Request<pb::get_provider_schema::Request>,
    ) -> Reply<pb::get_provider_schema::Response> {
        let i = &self.inner;
        let s = &i.schemas;
        let map = |m: &BTreeMap<String, Schema>| {
            m.iter()
                .map(|(k, v)| (k.clone(), convert::schema_to_proto(v)))
                .collect()
        };
        let errors = i
            .provider_entry
            .as_ref()
            .err()
            .into_iter()
            .chain(i.meta_entry.as_ref().and_then(|e| e.as_ref().err()))
            .chain(i.resources.errors())
            .chain(i.data_sources.errors())
            .chain(i.ephemeral.errors());
        ok(pb::get_provider_schema::Response {
            provider: Some(convert::schema_to_proto(&s.provider)),
            resource_schemas: map(&s.resources),
            data_source_schemas: map(&s.data_sources),
            functions: s
                .functions
                .iter()
                .map(|(k, f)| (k.clone(), convert::function_to_proto(f)))
                .collect(),
            ephemeral_resource_schemas: map(&s.ephemeral_resources),
            diagnostics: diagnostics_to_proto(errors),
            provider_meta: s.provider_meta.as_ref().map(convert::schema_to_proto),
            server_capabilities: Some(convert::server_capabilities_to_proto(
                &s.server_capabilities,
            )),
        })
    }

    async fn validate_provider_config(
        &self,
        req: Request<pb::validate_provider_config::Request>,
    ) -> Reply<pb::validate_provider_config::Response> {
        let r = req.into_inner();
        let result = async {
            let e = self.inner.provider_entry.as_ref().map_err(Clone::clone)?;
            let config =
                self.decode("ValidateProviderConfig", "config", r.config.as_ref(), &e.ty)?;
            self.inner
                .provider
                .validate_provider_config(ValidateProviderConfigRequest { config })
                .await
        };
        ok(pb::validate_provider_config::Response {
            diagnostics: diags(result.await.unwrap_or_else(|d| d)),
        })
    }

    async fn validate_resource_config(
        &self,
        req: Request<pb::validate_resource_config::Request>,
    ) -> Reply<pb::validate_resource_config::Response> {
        let r = req.into_inner();
        let result = async {
            let e = self.inner.resources.get(&r.type_name)?;
            let config =
                self.decode("ValidateResourceConfig", "config", r.config.as_ref(), &e.ty)?;
            self.inner
                .provider
                .validate_resource_config(ValidateResourceConfigRequest {
                    type_name: r.type_name.clone(),
                    config,
                    client_capabilities: convert::client_capabilities_from_proto(
                        r.client_capabilities.as_ref(),
                    ),
                })
                .await
        };
        ok(pb::validate_resource_config::Response {
            diagnostics: diags(result.await.unwrap_or_else(|d| d)),
        })
    }

    async fn validate_data_resource_config(
        &self,
        req: Request<pb::validate_data_resource_config::Request>,
    ) -> Reply<pb::validate_data_resource_config::Response> {
        let r = req.into_inner();
        let result = async {
            let e = self.inner.data_sources.get(&r.type_name)?;
            let config = self.decode(
                "ValidateDataResourceConfig",
                "config",
                r.config.as_ref(),
                &e.ty,
            )?;
            self.inner
                .provider
                .validate_data_resource_config(ValidateDataResourceConfigRequest {
                    type_name: r.type_name.clone(),
                    config,
                })
                .await
        };
        ok(pb::validate_data_resource_config::Response {
            diagnostics: diags(result.await.unwrap_or_else(|d| d)),
        })
    }

    async fn validate_ephemeral_resource_config(
        &self,
        req: Request<pb::validate_ephemeral_resource_config::Request>,
    ) -> Reply<pb::validate_ephemeral_resource_config::Response> {
        let r = req.into_inner();
        let result = async {
            let e = self.inner.ephemeral.get(&r.type_name)?;
            let config = self.decode(
                "ValidateEphemeralResourceConfig",
                "config",
                r.config.as_ref(),
                &e.ty,
            )?;
            self.inner
                .provider
                .validate_ephemeral_resource_config(ValidateEphemeralResourceConfigRequest {
                    type_name: r.type_name.clone(),
                    config,
                })
                .await
        };
        ok(pb::validate_ephemeral_resource_config::Response {
            diagnostics: diags(result.await.unwrap_or_else(|d| d)),
        })
    }

    async fn upgrade_resource_state(
        &self,
        req: Request<pb::upgrade_resource_state::Request>,
    ) -> Reply<pb::upgrade_resource_state::Response> {
        let r = req.into_inner();
        let result: Result<_, Diagnostics> = async {
            let e = self.inner.resources.get(&r.type_name)?;
            let resp = self
                .inner
                .provider
                .upgrade_resource_state(UpgradeResourceStateRequest {
                    type_name: r.type_name.clone(),
                    version: r.version,
                    raw_state: convert::raw_state_from_proto(r.raw_state.as_ref()),
                    current_type: e.ty.clone(),
                })
                .await?;
            let state = encode(
                "UpgradeResourceState",
                "upgraded_state",
                resp.upgraded_state,
                e,
                true,
            )?;
            Ok((state, resp.diagnostics))
        }
        .await;
        ok(match result {
            Ok((state, d)) => pb::upgrade_resource_state::Response {
                upgraded_state: Some(state),
                diagnostics: diags(d),
            },
            Err(d) => pb::upgrade_resource_state::Response {
                upgraded_state: None,
                diagnostics: diags(d),
            },
        })
    }

    async fn configure_provider(
        &self,
        req: Request<pb::configure_provider::Request>,
    ) -> Reply<pb::configure_provider::Response> {
        let r = req.into_inner();
        let result = async {
            let e = self.inner.provider_entry.as_ref().map_err(Clone::clone)?;
            let config = self.decode("ConfigureProvider", "config", r.config.as_ref(), &e.ty)?;
            self.inner
                .provider
                .configure_provider(ConfigureProviderRequest {
                    terraform_version: r.terraform_version.clone(),
                    config,
                    client_capabilities: convert::client_capabilities_from_proto(
                        r.client_capabilities.as_ref(),
                    ),
                })
                .await
        };
        ok(pb::configure_provider::Response {
            diagnostics: diags(result.await.unwrap_or_else(|d| d)),
        })
    }

    async fn read_resource(
        &self,
        req: Request<pb::read_resource::Request>,
    ) -> Reply<pb::read_resource::Response> {
        let r = req.into_inner();
        let rpc = "ReadResource";
        let result: Result<_, Diagnostics> = async {
            let e = self.inner.resources.get(&r.type_name)?;
            let current_state =
                self.decode(rpc, "current_state", r.current_state.as_ref(), &e.ty)?;
            let provider_meta = self.meta(rpc, r.provider_meta.as_ref())?;
            let resp = self
                .inner
                .provider
                .read_resource(ReadResourceRequest {
                    type_name: r.type_name.clone(),
                    current_state,
                    private: r.private.clone(),
                    provider_meta,
                    client_capabilities: convert::client_capabilities_from_proto(
                        r.client_capabilities.as_ref(),
                    ),
                })
                .await?;
            Ok(pb::read_resource::Response {
                new_state: Some(encode(rpc, "new_state", resp.new_state, e, true)?),
                diagnostics: diags(resp.diagnostics),
                private: resp.private,
                deferred: resp.deferred.as_ref().map(convert::deferred_to_proto),
            })
        }
        .await;
        ok(result.unwrap_or_else(|d| pb::read_resource::Response {
            diagnostics: diags(d),
            ..Default::default()
        }))
    }

    async fn plan_resource_change(
        &self,
        req: Request<pb::plan_resource_change::Request>,
    ) -> Reply<pb::plan_resource_change::Response> {
        let r = req.into_inner();
        let rpc = "PlanResourceChange";
        let result: Result<_, Diagnostics> = async {
            let e = self.inner.resources.get(&r.type_name)?;
            let prior_state = self.decode(rpc, "prior_state", r.prior_state.as_ref(), &e.ty)?;
            let proposed_new_state = self.decode(
                rpc,
                "proposed_new_state",
                r.proposed_new_state.as_ref(),
                &e.ty,
            )?;
            let config = self.decode(rpc, "config", r.config.as_ref(), &e.ty)?;
            let provider_meta = self.meta(rpc, r.provider_meta.as_ref())?;
            let resp = self
                .inner
                .provider
                .plan_resource_change(PlanResourceChangeRequest {
                    type_name: r.type_name.clone(),
                    prior_state,
                    proposed_new_state,
                    config,
                    prior_private: r.prior_private.clone(),
                    provider_meta,
                    client_capabilities: convert::client_capabilities_from_proto(
                        r.client_capabilities.as_ref(),
                    ),
                })
                .await?;
            Ok(pb::plan_resource_change::Response {
                planned_state: Some(encode(rpc, "planned_state", resp.planned_state, e, true)?),
                requires_replace: resp
                    .requires_replace
                    .iter()
                    .map(convert::path_to_proto)
                    .collect(),
                planned_private: resp.planned_private,
                diagnostics: diags(resp.diagnostics),
                legacy_type_system: false,
                deferred: resp.deferred.as_ref().map(convert::deferred_to_proto),
            })
        }
        .await;
        ok(
            result.unwrap_or_else(|d| pb::plan_resource_change::Response {
                diagnostics: diags(d),
                ..Default::default()
            }),
        )
    }

    async fn apply_resource_change(
        &self,
        req: Request<pb::apply_resource_change::Request>,
    ) -> Reply<pb::apply_resource_change::Response> {
        let r = req.into_inner();
        let rpc = "ApplyResourceChange";
        let result: Result<_, Diagnostics> = async {
            let e = self.inner.resources.get(&r.type_name)?;
            let prior_state = self.decode(rpc, "prior_state", r.prior_state.as_ref(), &e.ty)?;
            let planned_state =
                self.decode(rpc, "planned_state", r.planned_state.as_ref(), &e.ty)?;
            let config = self.decode(rpc, "config", r.config.as_ref(), &e.ty)?;
            let provider_meta = self.meta(rpc, r.provider_meta.as_ref())?;
            let resp = self
                .inner
                .provider
                .apply_resource_change(ApplyResourceChangeRequest {
                    type_name: r.type_name.clone(),
                    prior_state,
                    planned_state,
                    config,
                    planned_private: r.planned_private.clone(),
                    provider_meta,
                })
                .await?;
            Ok(pb::apply_resource_change::Response {
                new_state: Some(encode(rpc, "new_state", resp.new_state, e, true)?),
                private: resp.private,
                diagnostics: diags(resp.diagnostics),
                legacy_type_system: false,
            })
        }
        .await;
        ok(
            result.unwrap_or_else(|d| pb::apply_resource_change::Response {
                diagnostics: diags(d),
                ..Default::default()
            }),
        )
    }

    async fn import_resource_state(
        &self,
        req: Request<pb::import_resource_state::Request>,
    ) -> Reply<pb::import_resource_state::Response> {
        let r = req.into_inner();
        let rpc = "ImportResourceState";
        let result: Result<_, Diagnostics> = async {
            self.inner.resources.get(&r.type_name)?;
            let resp = self
                .inner
                .provider
                .import_resource_state(ImportResourceStateRequest {
                    type_name: r.type_name.clone(),
                    id: r.id.clone(),
                    client_capabilities: convert::client_capabilities_from_proto(
                        r.client_capabilities.as_ref(),
                    ),
                })
                .await?;
            let mut imported = Vec::with_capacity(resp.imported_resources.len());
            for i in resp.imported_resources {
                let e = self.inner.resources.get(&i.type_name)?;
                imported.push(pb::import_resource_state::ImportedResource {
                    state: Some(encode(rpc, "state", i.state, e, true)?),
                    type_name: i.type_name,
                    private: i.private,
                });
            }
            Ok(pb::import_resource_state::Response {
                imported_resources: imported,
                diagnostics: diags(resp.diagnostics),
                deferred: resp.deferred.as_ref().map(convert::deferred_to_proto),
            })
        }
        .await;
        ok(
            result.unwrap_or_else(|d| pb::import_resource_state::Response {
                diagnostics: diags(d),
                ..Default::default()
            }),
        )
    }

    async fn move_resource_state(
        &self,
        req: Request<pb::move_resource_state::Request>,
    ) -> Reply<pb::move_resource_state::Response> {
        let r = req.into_inner();
        let result: Result<_, Diagnostics> = async {
            let e = self.inner.resources.get(&r.target_type_name)?;
            let resp = self
                .inner
                .provider
                .move_resource_state(MoveResourceStateRequest {
                    source_provider_address: r.source_provider_address.clone(),
                    source_type_name: r.source_type_name.clone(),
                    source_schema_version: r.source_schema_version,
                    source_state: convert::raw_state_from_proto(r.source_state.as_ref()),
                    target_type_name: r.target_type_name.clone(),
                    source_private: r.source_private.clone(),
                })
                .await?;
            Ok(pb::move_resource_state::Response {
                target_state: Some(encode(
                    "MoveResourceState",
                    "target_state",
                    resp.target_state,
                    e,
                    true,
                )?),
                diagnostics: diags(resp.diagnostics),
                target_private: resp.target_private,
            })
        }
        .await;
        ok(
            result.unwrap_or_else(|d| pb::move_resource_state::Response {
                diagnostics: diags(d),
                ..Default::default()
            }),
        )
    }

    async fn read_data_source(
        &self,
        req: Request<pb::read_data_source::Request>,
    ) -> Reply<pb::read_data_source::Response> {
        let r = req.into_inner();
        let rpc = "ReadDataSource";
        let result: Result<_, Diagnostics> = async {
            let e = self.inner.data_sources.get(&r.type_name)?;
            let config = self.decode(rpc, "config", r.config.as_ref(), &e.ty)?;
            let provider_meta = self.meta(rpc, r.provider_meta.as_ref())?;
            let resp = self
                .inner
                .provider
                .read_data_source(ReadDataSourceRequest {
                    type_name: r.type_name.clone(),
                    config,
                    provider_meta,
                    client_capabilities: convert::client_capabilities_from_proto(
                        r.client_capabilities.as_ref(),
                    ),
                })
                .await?;
            Ok(pb::read_data_source::Response {
                state: Some(encode(rpc, "state", resp.state, e, false)?),
                diagnostics: diags(resp.diagnostics),
                deferred: resp.deferred.as_ref().map(convert::deferred_to_proto),
            })
        }
        .await;
        ok(result.unwrap_or_else(|d| pb::read_data_source::Response {
            diagnostics: diags(d),
            ..Default::default()
        }))
    }

    async fn open_ephemeral_resource(
        &self,
        req: Request<pb::open_ephemeral_resource::Request>,
    ) -> Reply<pb::open_ephemeral_resource::Response> {
        let r = req.into_inner();
        let rpc = "OpenEphemeralResource";
        let result: Result<_, Diagnostics> = async {
            let e = self.inner.ephemeral.get(&r.type_name)?;
            let config = self.decode(rpc, "config", r.config.as_ref(), &e.ty)?;
            let resp = self
                .inner
                .provider
                .open_ephemeral_resource(OpenEphemeralResourceRequest {
                    type_name: r.type_name.clone(),
                    config,
                    client_capabilities: convert::client_capabilities_from_proto(
                        r.client_capabilities.as_ref(),
                    ),
                })
                .await?;
            Ok(pb::open_ephemeral_resource::Response {
                diagnostics: diags(resp.diagnostics),
                renew_at: resp.renew_at.map(convert::timestamp_to_proto),
                result: Some(encode(rpc, "result", resp.result, e, false)?),
                private: resp.private,
                deferred: resp.deferred.as_ref().map(convert::deferred_to_proto),
            })
        }
        .await;
        ok(
            result.unwrap_or_else(|d| pb::open_ephemeral_resource::Response {
                diagnostics: diags(d),
                ..Default::default()
            }),
        )
    }

    async fn renew_ephemeral_resource(
        &self,
        req: Request<pb::renew_ephemeral_resource::Request>,
    ) -> Reply<pb::renew_ephemeral_resource::Response> {
        let r = req.into_inner();
        let result: Result<_, Diagnostics> = async {
            self.inner.ephemeral.get(&r.type_name)?;
            self.inner
                .provider
                .renew_ephemeral_resource(RenewEphemeralResourceRequest {
                    type_name: r.type_name.clone(),
                    private: r.private.clone(),
                })
                .await
        }
        .await;
        ok(match result {
            Ok(resp) => pb::renew_ephemeral_resource::Response {
                diagnostics: diags(resp.diagnostics),
                renew_at: resp.renew_at.map(convert::timestamp_to_proto),
                private: resp.private,
            },
            Err(d) => pb::renew_ephemeral_resource::Response {
                diagnostics: diags(d),
                ..Default::default()
            },
        })
    }

    async fn close_ephemeral_resource(
        &self,
        req: Request<pb::close_ephemeral_resource::Request>,
    ) -> Reply<pb::close_ephemeral_resource::Response> {
        let r = req.into_inner();
        let result = async {
            self.inner.ephemeral.get(&r.type_name)?;
            self.inner
                .provider
                .close_ephemeral_resource(CloseEphemeralResourceRequest {
                    type_name: r.type_name.clone(),
                    private: r.private.clone(),
                })
                .await
        };
        ok(pb::close_ephemeral_resource::Response {
            diagnostics: diags(result.await.unwrap_or_else(|d| d)),
        })
    }

    async fn get_functions(
        &self,
        _: Request<pb::get_functions::Request>,
    ) -> Reply<pb::get_functions::Response> {
        ok(pb::get_functions::Response {
            functions: self
                .inner
                .schemas
                .functions
                .iter()
                .map(|(k, f)| (k.clone(), convert::function_to_proto(f)))
                .collect(),
            diagnostics: vec![],
        })
    }

    async fn call_function(
        &self,
        req: Request<pb::call_function::Request>,
    ) -> Reply<pb::call_function::Response> {
        let r = req.into_inner();
        let result =
            async {
                let f =
                    self.inner.schemas.functions.get(&r.name).ok_or_else(|| {
                        FunctionError::new(format!("unknown function {:?}", r.name))
                    })?;
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
                    let v = convert::decode_dynamic_value(Some(dv), &param.ty).map_err(|e| {
                        FunctionError {
                            text: format!("invalid value for {:?}: {e}", param.name),
                            function_argument: at,
                        }
                    })?;
                    arguments.push(v);
                }
                let result = self
                    .inner
                    .provider
                    .call_function(CallFunctionRequest {
                        name: r.name.clone(),
                        arguments,
                    })
                    .await?;
                convert::encode_dynamic_value(&result, &f.return_type).map_err(|e| {
                    FunctionError::new(format!("the function's result does not fit its type: {e}"))
                })
            };
        ok(match result.await {
            Ok(v) => pb::call_function::Response {
                result: Some(v),
                error: None,
            },
            Err(e) => pb::call_function::Response {
                result: None,
                error: Some(convert::function_error_to_proto(&e)),
            },
        })
    }

    async fn stop_provider(
        &self,
        _: Request<pb::stop_provider::Request>,
    ) -> Reply<pb::stop_provider::Response> {
        ok(pb::stop_provider::Response {
            error: self
                .inner
                .provider
                .stop_provider()
                .await
                .err()
                .unwrap_or_default(),
        })
    }
}
