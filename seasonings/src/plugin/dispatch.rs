//! One request in, one answer out: the contract's methods by name, the
//! lifecycle (`init` first, `shutdown`, the end of stdin), and the rule
//! that nothing the host sends and nothing the author's code does (a
//! panic included) leaves a request unanswered or ends the plugin.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use ctywire::{Error as CtyError, Path, Value};
use ctywire_bridge::msgpack_rpc::Raw;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{oneshot, Notify};

use super::logging::LogQueue;
use super::typed::{AnyDataSource, AnyFunction, AnyResource, Failed};
use super::{schemas, Error, Plugin};
use crate::protocol::{
    canonical_method, code, method, write_path, Capability, Diagnostic, ErrorObject, Fields,
    InitParams, InitResult, ProtocolVersion, Severity,
};

/// How long a plugin that answered `shutdown` waits for the host to close
/// its stdin (what the host does on the answer, §2.3) before it exits
/// anyway: the answer is written by then.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// How long a plugin whose input ended still waits for its answers in
/// flight to be written, before it exits without them.
const DRAIN: Duration = Duration::from_secs(5);

pub(super) struct Server {
    name: String,
    version: String,
    functions: BTreeMap<String, Arc<dyn AnyFunction>>,
    resources: BTreeMap<String, Arc<dyn AnyResource>>,
    data_sources: BTreeMap<String, Arc<dyn AnyDataSource>>,
    /// `functions.getSchema`'s and `resources.getSchema`'s answers, made
    /// once: they never change.
    function_schemas: Raw,
    resource_schemas: Raw,
    initialized: AtomicBool,
    shutdown: Notify,
    logs: Option<Arc<LogQueue>>,
    /// Requests being answered, and messages handed to the peer vs.
    /// written out: the plugin ends only once its answers are out.
    in_flight: AtomicUsize,
    pub(super) output: Arc<Output>,
}

/// Messages handed to the peer to write, and messages written (each one
/// is flushed once by the peer's writer).
#[derive(Default)]
pub(super) struct Output {
    pub(super) queued: AtomicU64,
    flushed: AtomicU64,
}

type Answer = Result<Fields, ErrorObject>;

impl Server {
    pub(super) fn new(p: Plugin, logs: Option<Arc<LogQueue>>) -> Server {
        Server {
            function_schemas: schemas::functions(&p.functions),
            resource_schemas: schemas::resources(&p.resources, &p.data_sources),
            name: p.name,
            version: p.version,
            functions: p.functions,
            resources: p.resources,
            data_sources: p.data_sources,
            initialized: AtomicBool::new(false),
            shutdown: Notify::new(),
            logs,
            in_flight: AtomicUsize::new(0),
            output: Arc::default(),
        }
    }

    /// Until `shutdown` was answered (and the host closed stdin, or a
    /// grace passed), or the input ended (stdin closed, or bytes that are
    /// not msgpack-rpc, which end the peer's reading).
    /// Then, until the answers in flight are written (within [`DRAIN`]).
    pub(super) async fn wait(&self, ended: oneshot::Receiver<()>) {
        let mut ended = ended;
        tokio::select! {
            _ = &mut ended => {}
            _ = self.shutdown.notified() => {
                let _ = tokio::time::timeout(SHUTDOWN_GRACE, ended).await;
            }
        }
        let drained = async {
            while self.in_flight.load(Ordering::Acquire) > 0
                || self.output.flushed.load(Ordering::Acquire)
                    < self.output.queued.load(Ordering::Acquire)
            {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        };
        let _ = tokio::time::timeout(DRAIN, drained).await;
    }

    /// The answer to one request: its result, or its error object. The
    /// author's code runs on a task of its own, so a panic there is caught
    /// as an internal error instead of leaving the host waiting.
    pub(super) async fn answer(
        self: Arc<Self>,
        method: String,
        params: Vec<Raw>,
    ) -> Result<Raw, Raw> {
        let method = canonical_method(&method).into_owned();
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        let server = self.clone();
        let task = tokio::spawn({
            let method = method.clone();
            async move { server.dispatch(&method, params).await }
        });
        let answer = match task.await {
            Ok(answer) => answer,
            Err(e) => Err(
                ErrorObject::new(code::INTERNAL_ERROR, "The plugin panicked")
                    .with_detail(format!("{method}: {}", panic_message(e))),
            ),
        };
        // What the call logged reaches the host before its answer.
        if let Some(logs) = &self.logs {
            logs.flush().await;
        }
        // The peer queues the answer as this returns.
        self.output.queued.fetch_add(1, Ordering::AcqRel);
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
        match answer {
            Ok(fields) => Ok(fields.encode()),
            Err(e) => Err(e.encode()),
        }
    }

    async fn dispatch(&self, name: &str, params: Vec<Raw>) -> Answer {
        let params = Fields::from_param_list(&params).map_err(invalid_params)?;
        if name == method::INIT {
            return self.init(&params);
        }
        if !self.initialized.load(Ordering::Acquire) {
            return Err(ErrorObject::new(code::INVALID_REQUEST, "Invalid request")
                .with_detail(format!("{name:?} before init")));
        }
        match name {
            method::PING => {
                let mut f = Fields::new();
                f.insert_str("status", "ok");
                Ok(f)
            }
            method::SHUTDOWN => {
                self.shutdown.notify_one();
                Ok(Fields::new())
            }
            method::FUNCTIONS_GET_SCHEMA => Ok(one("functions", self.function_schemas.clone())),
            method::FUNCTIONS_CALL => self.call_function(&params).await,
            method::RESOURCES_GET_SCHEMA => Fields::read(&self.resource_schemas.0)
                .map_err(|e| internal(format!("the schemas do not read back: {e}"))),
            method::RESOURCES_VALIDATE_CONFIG => {
                let r = self.resource(&params)?;
                let config = value(&params, "config", r.ty())?;
                Ok(diagnostics_only(r.validate(&config)))
            }
            method::DATA_SOURCES_VALIDATE_CONFIG => {
                let d = self.data_source(&params)?;
                let config = value(&params, "config", d.ty())?;
                Ok(diagnostics_only(d.validate(&config)))
            }
            method::RESOURCES_PLAN_CHANGE => self.plan(&params).await,
            method::RESOURCES_APPLY_CHANGE => self.apply(&params).await,
            method::RESOURCES_READ => {
                let r = self.resource(&params)?;
                let state = value(&params, "current_state", r.ty())?;
                let new_state = r.read(state).await.map_err(refused)?;
                let mut f = state_answer("new_state", &new_state, r.ty())?;
                f.insert_raw("private", private(&params, "private"));
                Ok(f)
            }
            method::RESOURCES_IMPORT => {
                let r = self.resource(&params)?;
                let id = params.str("id").map_err(invalid_params)?;
                let state = r.import(id).await.map_err(refused)?;
                let mut imported = Vec::new();
                if !state.is_null() {
                    let mut one = Fields::new();
                    one.insert_str("type", params.str("type").map_err(invalid_params)?);
                    one.insert_value("state", &state, r.ty())
                        .map_err(bad_answer)?;
                    one.insert_raw("private", Raw::nil());
                    imported.push(one.encode());
                }
                let mut f = Fields::new();
                f.insert_raw("imported", array(imported));
                f.insert_raw("diagnostics", array(Vec::new()));
                Ok(f)
            }
            method::RESOURCES_UPGRADE_STATE => {
                let r = self.resource(&params)?;
                // Required: `require` names it when it is missing.
                let version = params
                    .require("version")
                    .and_then(|_| params.opt_uint("version"))
                    .map_err(invalid_params)?
                    .unwrap_or_default();
                let json = params.str("raw_state").map_err(invalid_params)?;
                let state = r
                    .upgrade(version, json.to_string())
                    .await
                    .map_err(refused)?;
                state_answer("upgraded_state", &state, r.ty())
            }
            method::DATA_SOURCES_READ => {
                let d = self.data_source(&params)?;
                let config = value(&params, "config", d.ty())?;
                let state = d.read(config).await.map_err(refused)?;
                state_answer("state", &state, d.ty())
            }
            other => Err(ErrorObject::new(code::METHOD_NOT_FOUND, "Method not found")
                .with_detail(format!("this plugin has no method {other:?}"))),
        }
    }

    /// §2.1: the host's major version must be ours; the answer is the
    /// lower minor.
    fn init(&self, params: &Fields) -> Answer {
        let host = InitParams::read(params).map_err(invalid_params)?;
        let version = ProtocolVersion::CURRENT.negotiate(host.protocol_version, false)?;
        let mut capabilities = Vec::new();
        if !self.functions.is_empty() {
            capabilities.push(Capability::Functions);
        }
        if !self.resources.is_empty() || !self.data_sources.is_empty() {
            capabilities.push(Capability::Resources);
        }
        self.initialized.store(true, Ordering::Release);
        Ok(InitResult {
            protocol_version: version,
            name: self.name.clone(),
            version: self.version.clone(),
            capabilities,
        }
        .encode())
    }

    async fn call_function(&self, params: &Fields) -> Answer {
        let name = params.str("name").map_err(invalid_params)?;
        let f = self.functions.get(name).ok_or_else(|| {
            ErrorObject::new(code::INVALID_PARAMS, "Unknown function")
                .with_detail(format!("this plugin has no function {name:?}"))
        })?;
        let arguments = match params.present("arguments") {
            None => Vec::new(),
            Some(_) => params
                .list("arguments", |b| Ok(Raw(b.to_vec())))
                .map_err(invalid_params)?,
        };
        let (result, ty) = f.call(&arguments).await?;
        let mut out = Fields::new();
        out.insert_value("result", &result, &ty)
            .map_err(bad_answer)?;
        Ok(out)
    }

    async fn plan(&self, params: &Fields) -> Answer {
        let r = self.resource(params)?;
        let ty = r.ty();
        let prior = value(params, "prior_state", ty)?;
        let proposed = value(params, "proposed_new_state", ty)?;
        let config = value(params, "config", ty)?;
        let plan = r.plan(prior, proposed, config).await;
        let mut f = Fields::new();
        match plan {
            Ok(plan) => {
                f.insert_value("planned_state", &plan.state, ty)
                    .map_err(bad_answer)?;
                f.insert_raw(
                    "requires_replace",
                    array(plan.requires_replace.iter().map(write_path).collect()),
                );
                f.insert_raw(
                    "diagnostics",
                    array(
                        plan.warnings
                            .into_iter()
                            .map(|w| diagnostic(Severity::Warning, w))
                            .collect(),
                    ),
                );
            }
            Err(e) => {
                f.insert_raw("planned_state", Raw::nil());
                f.insert_raw("requires_replace", array(Vec::new()));
                f.insert_raw("diagnostics", array(vec![error_diagnostic(e)]));
            }
        }
        f.insert_raw("planned_private", private(params, "prior_private"));
        Ok(f)
    }

    /// §6.3: a failure after the object changed hands back its state with
    /// the error; one before is an `error`, and nothing changed.
    async fn apply(&self, params: &Fields) -> Answer {
        let r = self.resource(params)?;
        let ty = r.ty();
        let prior = value(params, "prior_state", ty)?;
        let planned = value(params, "planned_state", ty)?;
        let config = value(params, "config", ty)?;
        let (state, diagnostics) = match r.apply(prior, planned, config).await {
            Ok(state) => (state, Vec::new()),
            Err(Failed {
                state: Some(state),
                error,
            }) => (state, vec![error_diagnostic(error)]),
            Err(Failed { state: None, error }) => return Err(refused(error)),
        };
        let mut f = state_answer("new_state", &state, ty)?;
        f.insert_raw("private", private(params, "planned_private"));
        f.insert_raw("diagnostics", array(diagnostics));
        Ok(f)
    }

    fn resource(&self, params: &Fields) -> Result<&Arc<dyn AnyResource>, ErrorObject> {
        of_type(&self.resources, params)
    }

    fn data_source(&self, params: &Fields) -> Result<&Arc<dyn AnyDataSource>, ErrorObject> {
        of_type(&self.data_sources, params)
    }
}

fn of_type<'a, T: ?Sized>(
    kinds: &'a BTreeMap<String, Arc<T>>,
    params: &Fields,
) -> Result<&'a Arc<T>, ErrorObject> {
    let name = params.str("type").map_err(invalid_params)?;
    kinds.get(name).ok_or_else(|| {
        ErrorObject::new(code::INVALID_PARAMS, "Unknown type")
            .with_detail(format!("this plugin has no type {name:?}"))
    })
}

/// The value at `key`, decoded at `ty` (null when missing); what does not
/// decode is invalid params at its path (§1.3).
fn value(params: &Fields, key: &str, ty: &ctywire::Type) -> Result<Value, ErrorObject> {
    params.value(key, ty).map_err(invalid_params)
}

/// `{key: state, diagnostics: []}`.
fn state_answer(key: &str, state: &Value, ty: &ctywire::Type) -> Answer {
    let mut f = Fields::new();
    f.insert_value(key, state, ty).map_err(bad_answer)?;
    f.insert_raw("diagnostics", array(Vec::new()));
    Ok(f)
}

fn diagnostics_only(errors: Vec<Error>) -> Fields {
    let mut f = Fields::new();
    f.insert_raw(
        "diagnostics",
        array(errors.into_iter().map(error_diagnostic).collect()),
    );
    f
}

/// Private data as the host handed it (opaque to the SDK, §6).
fn private(params: &Fields, key: &str) -> Raw {
    params.get(key).cloned().unwrap_or_else(Raw::nil)
}

fn one(key: &str, value: Raw) -> Fields {
    let mut f = Fields::new();
    f.insert_raw(key, value);
    f
}

fn array(items: Vec<Raw>) -> Raw {
    let mut out = Vec::new();
    crate::msgpack::write_array_len(&mut out, items.len());
    items.iter().for_each(|i| out.extend_from_slice(&i.0));
    Raw(out)
}

fn error_diagnostic(e: Error) -> Raw {
    diagnostic(Severity::Error, e)
}

fn diagnostic(severity: Severity, e: Error) -> Raw {
    Diagnostic {
        severity,
        summary: e.summary,
        detail: e.detail,
        path: e.path,
    }
    .encode()
}

/// An author's error as the response's error object: code 1, the request
/// refused (§1.3).
pub(super) fn refused(e: Error) -> ErrorObject {
    ErrorObject {
        code: code::REQUEST_FAILED,
        message: e.summary,
        detail: e.detail,
        path: e.path,
        function_argument: e.function_argument,
    }
}

/// A value the host sent that does not fit: -32602 with its path.
pub(super) fn invalid_params(e: CtyError) -> ErrorObject {
    let path = Some(e.path().clone()).filter(|p: &Path| !p.is_root());
    ErrorObject {
        path,
        ..ErrorObject::new(code::INVALID_PARAMS, "Invalid params").with_detail(e.to_string())
    }
}

/// An answer the author's code made that its declared type cannot hold.
fn bad_answer(e: CtyError) -> ErrorObject {
    internal(format!(
        "the plugin's answer does not fit its schema: {e}. This is a bug in the plugin."
    ))
}

fn internal(detail: String) -> ErrorObject {
    ErrorObject::new(code::INTERNAL_ERROR, "Internal error").with_detail(detail)
}

fn panic_message(e: tokio::task::JoinError) -> String {
    if !e.is_panic() {
        return "the call was cancelled".into();
    }
    let payload = e.into_panic();
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// A reader that says when it is done: at its end, on an error, or when
/// the peer drops it (after bytes that are not msgpack-rpc).
pub(super) struct EndOfInput<R> {
    inner: R,
    ended: Option<oneshot::Sender<()>>,
}

impl<R> EndOfInput<R> {
    pub(super) fn new(inner: R) -> (Self, oneshot::Receiver<()>) {
        let (tx, rx) = oneshot::channel();
        (
            EndOfInput {
                inner,
                ended: Some(tx),
            },
            rx,
        )
    }

    fn end(&mut self) {
        if let Some(tx) = self.ended.take() {
            let _ = tx.send(());
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for EndOfInput<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        match &polled {
            Poll::Ready(Ok(())) if buf.filled().len() == before => self.end(),
            Poll::Ready(Err(_)) => self.end(),
            _ => {}
        }
        polled
    }
}

impl<R> Drop for EndOfInput<R> {
    fn drop(&mut self) {
        self.end();
    }
}

/// A writer that counts its flushes: the peer's writer flushes once per
/// message, so this says how many messages are out.
pub(super) struct Counted<W> {
    inner: W,
    output: Arc<Output>,
}

impl<W> Counted<W> {
    pub(super) fn new(inner: W, output: Arc<Output>) -> Self {
        Counted { inner, output }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Counted<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_flush(cx);
        if let Poll::Ready(Ok(())) = polled {
            self.output.flushed.fetch_add(1, Ordering::AcqRel);
        }
        polled
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
