//! [`ProviderService`]: the generated tonic `Provider` service, implemented
//! for any [`Provider`] by decoding and encoding values at the schemas'
//! implied types.

use std::future::Future;
use std::sync::Arc;

use tokio::runtime::Handle;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::fromproto::{self, Values};
use crate::panic::{self, Panic};
use crate::pb::tfplugin6 as pb;
use crate::provider::*;
use crate::stop::{StopSignal, Stopper};
use crate::stream::{
    self, ActionProgress, ListResults, StateChunkStream, StateChunks, STATE_CHUNK_BUFFER,
    STREAM_BUFFER,
};
use crate::tables::{entry, list_errors, Entry, Identities, Table};
use crate::toproto::{self, Failed};

pub use crate::tables::{ReceivedValue, ValueObserver};

/// The generated `tfplugin6.Provider` service over a [`Provider`].
///
/// Every `DynamicValue` in a request is decoded at the implied type of the
/// schema the request names; one that cannot be decoded is answered with
/// an error diagnostic at the offending path, without calling the
/// provider. Every value in an answer is encoded at the same type (a
/// non-conforming value becomes an error diagnostic at its path), with
/// write-only attributes nulled in resource states. A [`Deferred`] answer
/// to a request whose client capabilities do not allow deferral is an
/// error diagnostic.
///
/// `StopProvider` cancels every provider call in flight (each is dropped
/// and answered with an error diagnostic saying the provider was
/// stopped), then calls [`Provider::stop_provider`]; see [`StopSignal`].
///
/// A panic in provider code is caught where it happens and becomes that
/// call's answer: an error diagnostic "The provider panicked" whose detail
/// holds the panic's message and its `file:line:column`, on the resource,
/// data source or action called; a `FunctionError` for `CallFunction`; the
/// `error` of `StopProvider`; and for `ListResource` and `InvokeAction`,
/// an error event that ends the stream (after whatever the provider sent
/// before panicking). The panic is also logged (`log::error!`, with its
/// location); the process and every other call go on. (To know the
/// location, the service adds a step to the process's panic hook that
/// notes it; the hook there before still runs.)
///
/// Each provider call runs as a task of its own, on the runtime given to
/// it by [`serve`](crate::serve) (the one `serve` was called from), while
/// the service answers on the server's own: provider code that blocks
/// every thread it has cannot starve the server. `GetMetadata`,
/// `GetProviderSchema`, `GetFunctions`, the health check and
/// `StopProvider` answer at once, and a call `StopProvider` cancels is
/// answered even while its thread stays blocked. Used directly (without
/// `serve`), provider calls are tasks of the runtime calling the service.
/// A client that goes away cancels its call.
///
/// At most [`MAX_DIAGNOSTICS`](crate::MAX_DIAGNOSTICS) diagnostics go in
/// one answer; one more says how many were left out.
///
/// [`serve`](crate::serve) builds one; use it directly to serve on a
/// transport of your own.
pub struct ProviderService<P> {
    inner: Arc<Inner<P>>,
    observer: Option<ValueObserver>,
    runtime: Option<Handle>,
}

impl<P> Clone for ProviderService<P> {
    fn clone(&self) -> Self {
        ProviderService {
            inner: self.inner.clone(),
            observer: self.observer.clone(),
            runtime: self.runtime.clone(),
        }
    }
}

struct Inner<P> {
    provider: P,
    schemas: Schemas,
    provider_entry: Result<Entry, Diagnostic>,
    meta_entry: Option<Result<Entry, Diagnostic>>,
    resources: Table,
    data_sources: Table,
    ephemeral: Table,
    identities: Identities,
    lists: Table,
    list_errors: Vec<Diagnostic>,
    actions: Table,
    state_stores: Table,
    stopper: Stopper,
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
            identities: Identities::new(&schemas),
            lists: Table::new("list resource", &schemas.list_resources),
            list_errors: list_errors(&schemas),
            actions: Table::new("action", &schemas.actions),
            state_stores: Table::new("state store", &schemas.state_stores),
            schemas,
            provider,
            stopper: Stopper::new(),
        };
        ProviderService {
            inner: Arc::new(inner),
            observer: None,
            runtime: None,
        }
    }

    /// Runs provider code on `runtime` rather than on the runtime calling
    /// the service: [`serve`](crate::serve) serves gRPC on a runtime of
    /// its own and gives the caller's here, so provider code blocking its
    /// threads cannot hold up the server.
    pub(crate) fn with_runtime(mut self, runtime: Handle) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// Calls `observer` with every value decoded from a request.
    pub fn with_value_observer(mut self, observer: ValueObserver) -> Self {
        self.observer = Some(observer);
        self
    }

    /// The provider served.
    pub fn provider(&self) -> &P {
        &self.inner.provider
    }

    /// The stop signal of calls starting now: it fires at the next
    /// `StopProvider`.
    pub fn stop_signal(&self) -> StopSignal {
        self.inner.stopper.signal()
    }

    /// The tonic service, to add to a `tonic::transport::Server`.
    pub fn into_service(self) -> pb::provider_server::ProviderServer<Self> {
        pb::provider_server::ProviderServer::new(self)
            .max_decoding_message_size(256 << 20)
            .max_encoding_message_size(256 << 20)
    }

    fn values(&self) -> Values<'_> {
        Values {
            observer: self.observer.as_ref(),
            meta: self.inner.meta_entry.as_ref(),
        }
    }

    fn provider_entry(&self) -> Result<&Entry, Diagnostic> {
        self.inner.provider_entry.as_ref().map_err(Clone::clone)
    }

    /// The runtime provider code runs on: the one given to
    /// [`with_runtime`](Self::with_runtime), else the caller's.
    fn runtime(&self) -> Handle {
        self.runtime.clone().unwrap_or_else(Handle::current)
    }

    /// Runs provider code on its runtime with its panics caught, until it
    /// ends or `StopProvider` comes. Every provider call goes through
    /// here: a stopped call is aborted and a panic logged, each becoming
    /// the call's error diagnostic.
    async fn call<T: Send + 'static>(
        &self,
        rpc: &'static str,
        call: impl for<'a> FnOnce(&'a P) -> BoxFuture<'a, T> + Send + 'static,
    ) -> Result<T, Diagnostic> {
        let inner = self.inner.clone();
        let run = panic::catch(async move { call(&inner.provider).await });
        match self.inner.stopper.run(&self.runtime(), run).await {
            Some(Ok(out)) => Ok(out),
            Some(Err(p)) => Err(panicked(rpc, &p)),
            None => Err(stopped(rpc)),
        }
    }

    /// The provider's own [`Provider::stop_provider`], run on a thread of
    /// the runtime's blocking pool rather than on its workers: those may
    /// all be blocked in the very calls Terraform wants stopped.
    async fn call_apart(&self) -> Result<(), String> {
        let (inner, runtime) = (self.inner.clone(), self.runtime());
        let on = runtime.clone();
        let run = move || {
            on.block_on(panic::catch(
                async move { inner.provider.stop_provider().await },
            ))
        };
        match runtime.spawn_blocking(run).await {
            Ok(Ok(r)) => r,
            Ok(Err(p)) => Err(panicked("StopProvider", &p).detail),
            Err(e) => Err(format!("the provider's stop did not run: {e}")),
        }
    }
}

type BoxFuture<'a, T> = std::pin::Pin<Box<dyn Future<Output = T> + Send + 'a>>;

// The two server streams: each runs in a task of its own, feeding a
// bounded channel the response reads; the provider's call is dropped
// (cancelled) when Terraform stops reading or `StopProvider` comes.
impl<P: Provider> ProviderService<P> {
    async fn list(
        &self,
        r: pb::list_resource::Request,
        tx: stream::Sender<pb::list_resource::Event>,
    ) {
        const RPC: &str = "ListResource";
        let run = async {
            let i = &self.inner;
            let e = i.lists.get(&r.type_name)?;
            let resource = i.resources.get(&r.type_name)?;
            let id = i.identities.required(RPC, &r.type_name)?.clone();
            let req = fromproto::list_resource(&self.values(), e, r)?;
            let (block, ty) = (resource.schema.block.clone(), resource.ty.clone());
            let include = req.include_resource_object;
            let encode = Box::new(move |r| toproto::list_result(r, &id, &block, &ty, include));
            let results = ListResults::new(
                tx.clone(),
                encode,
                toproto::list_diagnostics,
                include,
                req.limit,
            );
            tokio::select! {
                d = self.call(RPC, move |p| Box::pin(async move { p.list_resource(req, &results).await })) => d,
                // Terraform stopped reading: nothing more to say.
                () = tx.closed() => Ok(Diagnostics::new()),
            }
        };
        let d: Diagnostics = run.await.unwrap_or_else(|d: Diagnostic| d.into());
        if !d.is_empty() {
            let _ = tx.send(Ok(toproto::list_diagnostics(d))).await;
        }
    }

    async fn invoke(
        &self,
        r: pb::invoke_action::Request,
        tx: stream::Sender<pb::invoke_action::Event>,
    ) {
        const RPC: &str = "InvokeAction";
        let run = async {
            let e = self.inner.actions.get(&r.action_type)?;
            let req = fromproto::invoke_action(&self.values(), e, r)?;
            let progress = ActionProgress::new(tx.clone());
            tokio::select! {
                d = self.call(RPC, move |p| Box::pin(async move { p.invoke_action(req, &progress).await })) => d,
                () = tx.closed() => Ok(Diagnostics::new()),
            }
        };
        let d: Diagnostics = run.await.unwrap_or_else(|d: Diagnostic| d.into());
        let _ = tx.send(Ok(toproto::action_completed(&d))).await;
    }
}

impl<P: Provider> ProviderService<P> {
    async fn read_state(
        &self,
        r: pb::read_state_bytes::Request,
        tx: stream::Sender<pb::read_state_bytes::Response>,
    ) {
        const RPC: &str = "ReadStateBytes";
        let run = async {
            self.inner.state_stores.get(&r.type_name)?;
            let req = fromproto::read_state_bytes(r);
            let chunks = StateChunks::new(tx.clone(), toproto::read_state_bytes);
            tokio::select! {
                d = self.call(RPC, move |p| Box::pin(async move { p.read_state_bytes(req, &chunks).await })) => d,
                () = tx.closed() => Ok(Diagnostics::new()),
            }
        };
        let d: Diagnostics = run.await.unwrap_or_else(|d: Diagnostic| d.into());
        if !d.is_empty() {
            let _ = tx.send(Ok(toproto::read_state_diagnostics(d))).await;
        }
    }
}

/// The answer to a call `StopProvider` cancelled.
fn stopped(rpc: &str) -> Diagnostic {
    Diagnostic::error("The provider was stopped").with_detail(format!(
        "Terraform asked the provider to stop (StopProvider) while {rpc} was running; \
         the call was cancelled."
    ))
}

/// The answer to a call whose provider code panicked (logged here, with
/// where: the panic hook's own print to stderr may be filtered out).
fn panicked(rpc: &str, p: &Panic) -> Diagnostic {
    let what = p.describe();
    log::error!("the provider panicked in {rpc}: {what}");
    Diagnostic::error("The provider panicked").with_detail(format!(
        "The provider panicked while answering {rpc}: {what}\n\n\
         This is a bug in the provider, which should be reported to its developers. \
         The provider goes on serving other calls."
    ))
}

type Reply<T> = Result<Response<T>, Status>;

/// The response stream of `ListResource` (what [`ProviderService`]
/// answers it with; `into_inner()` gives the channel's receiver).
pub type ListResourceStream = ReceiverStream<Result<pb::list_resource::Event, Status>>;

/// The response stream of `InvokeAction`.
pub type InvokeActionStream = ReceiverStream<Result<pb::invoke_action::Event, Status>>;

/// The response stream of `ReadStateBytes`.
pub type ReadStateBytesStream = ReceiverStream<Result<pb::read_state_bytes::Response, Status>>;

fn ok<T>(t: T) -> Reply<T> {
    Ok(Response::new(t))
}

/// The response, or one carrying only the diagnostics of the failure.
fn answer<T: Failed>(r: Result<T, Diagnostics>) -> Reply<T> {
    ok(r.unwrap_or_else(T::failed))
}

// Every handler: look up the schema entry, convert the request, call the
// provider (under the stop signal), convert the answer; a failure at any
// step is the response's diagnostics.
#[tonic::async_trait]
impl<P: Provider> pb::provider_server::Provider for ProviderService<P> {
    async fn get_metadata(
        &self,
        _: Request<pb::get_metadata::Request>,
    ) -> Reply<pb::get_metadata::Response> {
        ok(toproto::get_metadata(&self.inner.schemas))
    }

    async fn get_provider_schema(
        &self,
        _: Request<pb::get_provider_schema::Request>,
    ) -> Reply<pb::get_provider_schema::Response> {
        let i = &self.inner;
        let errors = (i.provider_entry.as_ref().err().into_iter())
            .chain(i.meta_entry.as_ref().and_then(|e| e.as_ref().err()))
            .chain(i.resources.errors())
            .chain(i.data_sources.errors())
            .chain(i.ephemeral.errors())
            .chain(i.lists.errors())
            .chain(&i.list_errors)
            .chain(i.actions.errors())
            .chain(i.state_stores.errors());
        ok(toproto::get_provider_schema(&i.schemas, errors))
    }

    async fn validate_provider_config(
        &self,
        req: Request<pb::validate_provider_config::Request>,
    ) -> Reply<pb::validate_provider_config::Response> {
        answer(
            async {
                let e = self.provider_entry()?;
                let req = fromproto::validate_provider_config(&self.values(), e, req.into_inner())?;
                Ok(toproto::validate_provider_config(
                    self.call("ValidateProviderConfig", move |p| {
                        p.validate_provider_config(req)
                    })
                    .await?,
                ))
            }
            .await,
        )
    }

    async fn validate_resource_config(
        &self,
        req: Request<pb::validate_resource_config::Request>,
    ) -> Reply<pb::validate_resource_config::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.resources.get(&r.type_name)?;
                let req = fromproto::validate_resource_config(&self.values(), e, r)?;
                Ok(toproto::validate_resource_config(
                    self.call("ValidateResourceConfig", move |p| {
                        p.validate_resource_config(req)
                    })
                    .await?,
                ))
            }
            .await,
        )
    }

    async fn validate_data_resource_config(
        &self,
        req: Request<pb::validate_data_resource_config::Request>,
    ) -> Reply<pb::validate_data_resource_config::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.data_sources.get(&r.type_name)?;
                let req = fromproto::validate_data_resource_config(&self.values(), e, r)?;
                Ok(toproto::validate_data_resource_config(
                    self.call("ValidateDataResourceConfig", move |p| {
                        p.validate_data_resource_config(req)
                    })
                    .await?,
                ))
            }
            .await,
        )
    }

    async fn validate_ephemeral_resource_config(
        &self,
        req: Request<pb::validate_ephemeral_resource_config::Request>,
    ) -> Reply<pb::validate_ephemeral_resource_config::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.ephemeral.get(&r.type_name)?;
                let req = fromproto::validate_ephemeral_resource_config(&self.values(), e, r)?;
                Ok(toproto::validate_ephemeral_resource_config(
                    self.call("ValidateEphemeralResourceConfig", move |p| {
                        p.validate_ephemeral_resource_config(req)
                    })
                    .await?,
                ))
            }
            .await,
        )
    }

    async fn upgrade_resource_state(
        &self,
        req: Request<pb::upgrade_resource_state::Request>,
    ) -> Reply<pb::upgrade_resource_state::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.resources.get(&r.type_name)?;
                let req = fromproto::upgrade_resource_state(e, r);
                let stored = toproto::StoredState::of(&req);
                let answer = self.call("UpgradeResourceState", move |p| {
                    p.upgrade_resource_state(req)
                });
                toproto::upgrade_resource_state(e, &stored, answer.await?)
            }
            .await,
        )
    }

    async fn configure_provider(
        &self,
        req: Request<pb::configure_provider::Request>,
    ) -> Reply<pb::configure_provider::Response> {
        answer(
            async {
                let e = self.provider_entry()?;
                let req = fromproto::configure_provider(&self.values(), e, req.into_inner())?;
                Ok(toproto::configure_provider(
                    self.call("ConfigureProvider", move |p| p.configure_provider(req))
                        .await?,
                ))
            }
            .await,
        )
    }

    async fn read_resource(
        &self,
        req: Request<pb::read_resource::Request>,
    ) -> Reply<pb::read_resource::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.resources.get(&r.type_name)?;
                let id = self.inner.identities.get(&r.type_name)?;
                let req = fromproto::read_resource(&self.values(), e, id, r)?;
                let caps = req.client_capabilities;
                toproto::read_resource(
                    e,
                    id,
                    caps,
                    self.call("ReadResource", move |p| p.read_resource(req))
                        .await??,
                )
            }
            .await,
        )
    }

    async fn plan_resource_change(
        &self,
        req: Request<pb::plan_resource_change::Request>,
    ) -> Reply<pb::plan_resource_change::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.resources.get(&r.type_name)?;
                let id = self.inner.identities.get(&r.type_name)?;
                let req = fromproto::plan_resource_change(&self.values(), e, id, r)?;
                let caps = req.client_capabilities;
                let answer = self
                    .call("PlanResourceChange", move |p| p.plan_resource_change(req))
                    .await??;
                toproto::plan_resource_change(e, id, caps, answer)
            }
            .await,
        )
    }

    async fn apply_resource_change(
        &self,
        req: Request<pb::apply_resource_change::Request>,
    ) -> Reply<pb::apply_resource_change::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.resources.get(&r.type_name)?;
                let id = self.inner.identities.get(&r.type_name)?;
                let req = fromproto::apply_resource_change(&self.values(), e, id, r)?;
                let answer = self
                    .call("ApplyResourceChange", move |p| p.apply_resource_change(req))
                    .await??;
                toproto::apply_resource_change(e, id, answer)
            }
            .await,
        )
    }

    async fn import_resource_state(
        &self,
        req: Request<pb::import_resource_state::Request>,
    ) -> Reply<pb::import_resource_state::Response> {
        let r = req.into_inner();
        answer(
            async {
                let (resources, ids) = (&self.inner.resources, &self.inner.identities);
                resources.get(&r.type_name)?;
                let id = ids.get(&r.type_name)?;
                let req = fromproto::import_resource_state(&self.values(), id, r)?;
                let caps = req.client_capabilities;
                let answer = self
                    .call("ImportResourceState", move |p| p.import_resource_state(req))
                    .await??;
                toproto::import_resource_state(resources, ids, caps, answer)
            }
            .await,
        )
    }

    async fn move_resource_state(
        &self,
        req: Request<pb::move_resource_state::Request>,
    ) -> Reply<pb::move_resource_state::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.resources.get(&r.target_type_name)?;
                let id = self.inner.identities.get(&r.target_type_name)?;
                let req = fromproto::move_resource_state(r);
                toproto::move_resource_state(
                    e,
                    id,
                    self.call("MoveResourceState", move |p| p.move_resource_state(req))
                        .await??,
                )
            }
            .await,
        )
    }

    async fn read_data_source(
        &self,
        req: Request<pb::read_data_source::Request>,
    ) -> Reply<pb::read_data_source::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.data_sources.get(&r.type_name)?;
                let req = fromproto::read_data_source(&self.values(), e, r)?;
                let caps = req.client_capabilities;
                toproto::read_data_source(
                    e,
                    caps,
                    self.call("ReadDataSource", move |p| p.read_data_source(req))
                        .await??,
                )
            }
            .await,
        )
    }

    async fn open_ephemeral_resource(
        &self,
        req: Request<pb::open_ephemeral_resource::Request>,
    ) -> Reply<pb::open_ephemeral_resource::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.ephemeral.get(&r.type_name)?;
                let req = fromproto::open_ephemeral_resource(&self.values(), e, r)?;
                let caps = req.client_capabilities;
                toproto::open_ephemeral_resource(
                    e,
                    caps,
                    self.call("OpenEphemeralResource", move |p| {
                        p.open_ephemeral_resource(req)
                    })
                    .await??,
                )
            }
            .await,
        )
    }

    async fn renew_ephemeral_resource(
        &self,
        req: Request<pb::renew_ephemeral_resource::Request>,
    ) -> Reply<pb::renew_ephemeral_resource::Response> {
        let r = req.into_inner();
        answer(
            async {
                self.inner.ephemeral.get(&r.type_name)?;
                let req = fromproto::renew_ephemeral_resource(r);
                Ok(toproto::renew_ephemeral_resource(
                    self.call("RenewEphemeralResource", move |p| {
                        p.renew_ephemeral_resource(req)
                    })
                    .await??,
                ))
            }
            .await,
        )
    }

    async fn close_ephemeral_resource(
        &self,
        req: Request<pb::close_ephemeral_resource::Request>,
    ) -> Reply<pb::close_ephemeral_resource::Response> {
        let r = req.into_inner();
        answer(
            async {
                self.inner.ephemeral.get(&r.type_name)?;
                let req = fromproto::close_ephemeral_resource(r);
                Ok(toproto::close_ephemeral_resource(
                    self.call("CloseEphemeralResource", move |p| {
                        p.close_ephemeral_resource(req)
                    })
                    .await?,
                ))
            }
            .await,
        )
    }

    async fn get_functions(
        &self,
        _: Request<pb::get_functions::Request>,
    ) -> Reply<pb::get_functions::Response> {
        ok(toproto::get_functions(&self.inner.schemas))
    }

    async fn call_function(
        &self,
        req: Request<pb::call_function::Request>,
    ) -> Reply<pb::call_function::Response> {
        let r = req.into_inner();
        let result = async {
            let f = (self.inner.schemas.functions.get(&r.name))
                .ok_or_else(|| FunctionError::new(format!("unknown function {:?}", r.name)))?;
            let req = fromproto::call_function(f, r)?;
            let result = (self
                .call("CallFunction", move |p| p.call_function(req))
                .await)
                .map_err(|d| FunctionError::new(format!("{}: {}", d.summary, d.detail)))?;
            Ok(toproto::call_function(f, result))
        };
        ok(result.await.unwrap_or_else(|e| toproto::function_error(&e)))
    }

    async fn get_resource_identity_schemas(
        &self,
        _: Request<pb::get_resource_identity_schemas::Request>,
    ) -> Reply<pb::get_resource_identity_schemas::Response> {
        let i = &self.inner;
        ok(toproto::get_resource_identity_schemas(
            &i.schemas,
            i.identities.errors(),
        ))
    }

    async fn upgrade_resource_identity(
        &self,
        req: Request<pb::upgrade_resource_identity::Request>,
    ) -> Reply<pb::upgrade_resource_identity::Response> {
        const RPC: &str = "UpgradeResourceIdentity";
        let r = req.into_inner();
        answer(
            async {
                self.inner.resources.get(&r.type_name)?;
                let ty = self.inner.identities.required(RPC, &r.type_name)?;
                let req = fromproto::upgrade_resource_identity(ty, r);
                toproto::upgrade_resource_identity(
                    ty,
                    self.call(RPC, move |p| p.upgrade_resource_identity(req))
                        .await??,
                )
            }
            .await,
        )
    }

    async fn generate_resource_config(
        &self,
        req: Request<pb::generate_resource_config::Request>,
    ) -> Reply<pb::generate_resource_config::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.resources.get(&r.type_name)?;
                let req = fromproto::generate_resource_config(&self.values(), e, r)?;
                toproto::generate_resource_config(
                    e,
                    self.call("GenerateResourceConfig", move |p| {
                        p.generate_resource_config(req)
                    })
                    .await??,
                )
            }
            .await,
        )
    }

    async fn validate_list_resource_config(
        &self,
        req: Request<pb::validate_list_resource_config::Request>,
    ) -> Reply<pb::validate_list_resource_config::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.lists.get(&r.type_name)?;
                let req = fromproto::validate_list_resource_config(&self.values(), e, r)?;
                Ok(toproto::validate_list_resource_config(
                    self.call("ValidateListResourceConfig", move |p| {
                        p.validate_list_resource_config(req)
                    })
                    .await?,
                ))
            }
            .await,
        )
    }

    type ListResourceStream = ListResourceStream;

    async fn list_resource(
        &self,
        req: Request<pb::list_resource::Request>,
    ) -> Reply<Self::ListResourceStream> {
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        let this = self.clone();
        tokio::spawn(async move { this.list(req.into_inner(), tx).await });
        ok(ReceiverStream::new(rx))
    }

    async fn validate_action_config(
        &self,
        req: Request<pb::validate_action_config::Request>,
    ) -> Reply<pb::validate_action_config::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.actions.get(&r.type_name)?;
                let req = fromproto::validate_action_config(&self.values(), e, r)?;
                Ok(toproto::validate_action_config(
                    self.call("ValidateActionConfig", move |p| {
                        p.validate_action_config(req)
                    })
                    .await?,
                ))
            }
            .await,
        )
    }

    async fn plan_action(
        &self,
        req: Request<pb::plan_action::Request>,
    ) -> Reply<pb::plan_action::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.actions.get(&r.action_type)?;
                let req = fromproto::plan_action(&self.values(), e, r)?;
                let caps = req.client_capabilities;
                toproto::plan_action(
                    caps,
                    self.call("PlanAction", move |p| p.plan_action(req))
                        .await??,
                )
            }
            .await,
        )
    }

    type InvokeActionStream = InvokeActionStream;

    async fn invoke_action(
        &self,
        req: Request<pb::invoke_action::Request>,
    ) -> Reply<Self::InvokeActionStream> {
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        let this = self.clone();
        tokio::spawn(async move { this.invoke(req.into_inner(), tx).await });
        ok(ReceiverStream::new(rx))
    }

    async fn validate_state_store_config(
        &self,
        req: Request<pb::validate_state_store::Request>,
    ) -> Reply<pb::validate_state_store::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.state_stores.get(&r.type_name)?;
                let req = fromproto::validate_state_store_config(&self.values(), e, r)?;
                Ok(toproto::validate_state_store_config(
                    self.call("ValidateStateStoreConfig", move |p| {
                        p.validate_state_store_config(req)
                    })
                    .await?,
                ))
            }
            .await,
        )
    }

    async fn configure_state_store(
        &self,
        req: Request<pb::configure_state_store::Request>,
    ) -> Reply<pb::configure_state_store::Response> {
        let r = req.into_inner();
        answer(
            async {
                let e = self.inner.state_stores.get(&r.type_name)?;
                let req = fromproto::configure_state_store(&self.values(), e, r)?;
                Ok(toproto::configure_state_store(
                    self.call("ConfigureStateStore", move |p| p.configure_state_store(req))
                        .await??,
                ))
            }
            .await,
        )
    }

    type ReadStateBytesStream = ReadStateBytesStream;

    async fn read_state_bytes(
        &self,
        req: Request<pb::read_state_bytes::Request>,
    ) -> Reply<Self::ReadStateBytesStream> {
        let (tx, rx) = mpsc::channel(STATE_CHUNK_BUFFER);
        let this = self.clone();
        tokio::spawn(async move { this.read_state(req.into_inner(), tx).await });
        ok(ReceiverStream::new(rx))
    }

    async fn write_state_bytes(
        &self,
        req: Request<Streaming<pb::write_state_bytes::RequestChunk>>,
    ) -> Reply<pb::write_state_bytes::Response> {
        let written = async {
            let start = StateChunkStream::start(req.into_inner(), fromproto::write_state_bytes);
            let (req, mut chunks) = start.await?;
            self.inner.state_stores.get(&req.type_name)?;
            self.call("WriteStateBytes", move |p| {
                Box::pin(async move { p.write_state_bytes(req, &mut chunks).await })
            })
            .await
        };
        let d = written.await.unwrap_or_else(|d: Diagnostic| d.into());
        ok(toproto::write_state_bytes(d))
    }

    async fn lock_state(
        &self,
        req: Request<pb::lock_state::Request>,
    ) -> Reply<pb::lock_state::Response> {
        let r = req.into_inner();
        answer(
            async {
                self.inner.state_stores.get(&r.type_name)?;
                let req = fromproto::lock_state(r);
                Ok(toproto::lock_state(
                    self.call("LockState", move |p| p.lock_state(req)).await??,
                ))
            }
            .await,
        )
    }

    async fn unlock_state(
        &self,
        req: Request<pb::unlock_state::Request>,
    ) -> Reply<pb::unlock_state::Response> {
        let r = req.into_inner();
        answer(
            async {
                self.inner.state_stores.get(&r.type_name)?;
                let req = fromproto::unlock_state(r);
                Ok(toproto::unlock_state(
                    self.call("UnlockState", move |p| p.unlock_state(req))
                        .await?,
                ))
            }
            .await,
        )
    }

    async fn get_states(
        &self,
        req: Request<pb::get_states::Request>,
    ) -> Reply<pb::get_states::Response> {
        let r = req.into_inner();
        answer(
            async {
                self.inner.state_stores.get(&r.type_name)?;
                let req = fromproto::get_states(r);
                Ok(toproto::get_states(
                    self.call("GetStates", move |p| p.get_states(req)).await??,
                ))
            }
            .await,
        )
    }

    async fn delete_state(
        &self,
        req: Request<pb::delete_state::Request>,
    ) -> Reply<pb::delete_state::Response> {
        let r = req.into_inner();
        answer(
            async {
                self.inner.state_stores.get(&r.type_name)?;
                let req = fromproto::delete_state(r);
                Ok(toproto::delete_state(
                    self.call("DeleteState", move |p| p.delete_state(req))
                        .await?,
                ))
            }
            .await,
        )
    }

    async fn stop_provider(
        &self,
        _: Request<pb::stop_provider::Request>,
    ) -> Reply<pb::stop_provider::Response> {
        // Cancel what runs, then let the provider clean up.
        self.inner.stopper.stop();
        ok(toproto::stop_provider(self.call_apart().await))
    }
}
