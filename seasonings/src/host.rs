//! The host: spawns a plugin, runs `init`, and calls it (§2, §5, §9).
//!
//! Every call has a timeout, at most [`PluginOptions::max_in_flight`]
//! calls are sent at once (the rest wait their turn), and every error
//! names the plugin, the method and, where a value was at fault, its path;
//! when the plugin died, its last stderr lines come with it. Dropping a
//! [`Plugin`] kills the process; [`Plugin::shutdown`] ends it politely.
//!
//! *Needs the `host` feature* (tokio).
//!
//! ```no_run
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use ctywire::Value;
//! use ctywire_seasonings::host::{Plugin, PluginOptions};
//!
//! let plugin = Plugin::spawn("python3", ["slugs.py"], PluginOptions::default()).await?;
//! let slug = plugin
//!     .call_function("slug", vec![Value::string("Hello World"), Value::string("-")])
//!     .await?;
//! assert_eq!(slug.as_str(), Some("hello-world"));
//! plugin.shutdown().await;
//! # Ok(()) }
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ctywire::{PathStep, Value};
use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_bridge::runtime::{
    CallError, ChildOptions, MsgpackChild, MsgpackHandlers, MsgpackRpcPeer, PeerOptions,
};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{OnceCell, Semaphore};

use crate::msgpack as mp;
use crate::protocol::{
    method, read_function_schemas, Capability, ErrorObject, Fields, FunctionSignature, InitParams,
    InitResult, ProtocolVersion,
};

/// How to run a plugin.
#[derive(Clone, Debug)]
pub struct PluginOptions {
    /// Variables added to the environment it inherits.
    pub env: Vec<(String, String)>,
    /// Its working directory (default: this process's).
    pub cwd: Option<PathBuf>,
    /// How long a call (`init` included) waits for its answer (default 60 s).
    pub call_timeout: Duration,
    /// How many calls are sent before answers come back (default 64); the
    /// rest wait.
    pub max_in_flight: usize,
    /// How long [`Plugin::shutdown`] waits for it to exit before killing
    /// it (default 2 s, go-plugin's).
    pub grace: Duration,
    /// How many of its last stderr lines errors show (default 20).
    pub stderr_lines: usize,
    /// The largest message read, in bytes (default 64 MiB).
    pub max_message: usize,
}

impl Default for PluginOptions {
    fn default() -> Self {
        PluginOptions {
            env: Vec::new(),
            cwd: None,
            call_timeout: Duration::from_secs(60),
            max_in_flight: 64,
            grace: Duration::from_secs(2),
            stderr_lines: 20,
            max_message: 64 << 20,
        }
    }
}

/// What the host tells a plugin about itself in `init`.
const HOST_NAME: &str = "ctywire-seasonings";
const HOST_VERSION: &str = env!("CARGO_PKG_VERSION");
const HOST_CAPABILITIES: [Capability; 5] = [
    Capability::Hooks,
    Capability::Functions,
    Capability::Resources,
    Capability::Storage,
    Capability::Log,
];

/// Why a call to a plugin failed.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The program could not be started.
    Start(String),
    /// The plugin answered with an error.
    Remote(ErrorObject),
    /// The plugin speaks a protocol version the host does not (`-32001`,
    /// naming both versions).
    Incompatible(ErrorObject),
    /// No answer within the timeout.
    Timeout(Duration),
    /// The plugin exited, closed its stdout or wrote what is not
    /// msgpack-rpc: how, with its last stderr lines.
    Closed(String),
    /// The plugin's answer does not fit the method's result (the error's
    /// path says where).
    BadAnswer(ctywire::Error),
    /// The call could not be made as asked (an argument of the wrong type
    /// or null where the parameter does not allow it, a function the
    /// plugin does not have): nothing was sent.
    Refused {
        /// What was wrong, with the path inside the argument.
        error: ctywire::Error,
        /// The 0-based argument at fault, for a function call.
        function_argument: Option<u64>,
    },
}

/// A failed call: the plugin, the method, and why.
#[derive(Clone, Debug)]
pub struct PluginError(Box<Failure>);

#[derive(Clone, Debug)]
struct Failure {
    plugin: String,
    method: String,
    kind: ErrorKind,
}

impl PluginError {
    /// The plugin's name (its command until `init` said its name).
    pub fn plugin(&self) -> &str {
        &self.0.plugin
    }

    /// The method called.
    pub fn method(&self) -> &str {
        &self.0.method
    }

    /// Why it failed.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// For a function call: the argument at fault, if one was.
    pub fn function_argument(&self) -> Option<u64> {
        match self.kind() {
            ErrorKind::Remote(e) => e.function_argument,
            ErrorKind::Refused {
                function_argument, ..
            } => *function_argument,
            _ => None,
        }
    }

    /// The plugin's error object, when it answered with one.
    pub fn remote(&self) -> Option<&ErrorObject> {
        match self.kind() {
            ErrorKind::Remote(e) | ErrorKind::Incompatible(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for PluginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "plugin {:?}, {}: ", self.plugin(), self.method())?;
        match self.kind() {
            ErrorKind::Start(why) => write!(f, "cannot start: {why}"),
            ErrorKind::Remote(e) => write!(f, "{e}"),
            ErrorKind::Incompatible(e) => write!(f, "{e}"),
            ErrorKind::Timeout(after) => write!(f, "no answer within {after:?}"),
            ErrorKind::Closed(why) => write!(f, "{why}"),
            ErrorKind::BadAnswer(e) => write!(f, "the answer does not fit: {e}"),
            ErrorKind::Refused {
                error,
                function_argument,
            } => {
                if let Some(n) = function_argument {
                    write!(f, "argument {n}: ")?;
                }
                write!(f, "{error}")
            }
        }
    }
}

impl std::error::Error for PluginError {}

/// A running plugin that has answered `init`.
pub struct Plugin {
    label: Arc<OnceLock<String>>,
    command: String,
    child: Connection,
    info: InitResult,
    version: ProtocolVersion,
    slots: Semaphore,
    call_timeout: Duration,
    grace: Duration,
    functions: OnceCell<Arc<BTreeMap<String, FunctionSignature>>>,
}

impl Plugin {
    /// Starts `command` with `args` (within a tokio runtime) and runs
    /// `init`. A plugin that answers another major version, or none, is
    /// stopped and refused.
    pub async fn spawn(
        command: impl Into<PathBuf>,
        args: impl IntoIterator<Item = impl Into<String>>,
        options: PluginOptions,
    ) -> Result<Plugin, PluginError> {
        let mut child_opts = ChildOptions::new(command, args);
        let command = child_opts.program.display().to_string();
        child_opts.env = options.env.clone();
        child_opts.cwd = options.cwd.clone();
        child_opts.stderr_lines = options.stderr_lines;
        child_opts.grace = options.grace;
        child_opts.peer = peer_options(&options);
        let label = Arc::new(OnceLock::new());
        let handlers = log_handlers(&label, &command);
        let child = MsgpackChild::spawn(child_opts, handlers).map_err(|e| {
            PluginError(Box::new(Failure {
                plugin: command.clone(),
                method: method::INIT.into(),
                kind: ErrorKind::Start(e.to_string()),
            }))
        })?;
        Self::start(label, command, Connection::Child(child), options).await
    }

    /// A plugin whose messages come from `reader` and go to `writer` (no
    /// process: `name` stands for it until `init`), then `init`. For the
    /// fuzz targets, which feed the host arbitrary bytes as a plugin's
    /// stdout.
    #[doc(hidden)]
    pub async fn over_streams<R, W>(
        name: &str,
        reader: R,
        writer: W,
        options: PluginOptions,
    ) -> Result<Plugin, PluginError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let label = Arc::new(OnceLock::new());
        let handlers = log_handlers(&label, name);
        let peer = MsgpackRpcPeer::new(reader, writer, handlers, peer_options(&options));
        Self::start(label, name.into(), Connection::Streams(Some(peer)), options).await
    }

    async fn start(
        label: Arc<OnceLock<String>>,
        command: String,
        child: Connection,
        options: PluginOptions,
    ) -> Result<Plugin, PluginError> {
        let mut plugin = Plugin {
            label,
            command,
            child,
            info: InitResult {
                protocol_version: ProtocolVersion::CURRENT,
                name: String::new(),
                version: String::new(),
                capabilities: Vec::new(),
            },
            version: ProtocolVersion::CURRENT,
            slots: Semaphore::new(options.max_in_flight.max(1)),
            call_timeout: options.call_timeout,
            grace: options.grace,
            functions: OnceCell::new(),
        };
        match plugin.init().await {
            Ok(()) => Ok(plugin),
            Err(e) => {
                plugin.child.kill().await;
                Err(e)
            }
        }
    }

    async fn init(&mut self) -> Result<(), PluginError> {
        let params = InitParams {
            protocol_version: ProtocolVersion::CURRENT,
            host_name: HOST_NAME.into(),
            host_version: HOST_VERSION.into(),
            capabilities: HOST_CAPABILITIES.to_vec(),
        };
        let result = self.call(method::INIT, params.encode()).await?;
        let info = InitResult::read(&result)
            .map_err(|e| self.error(method::INIT, ErrorKind::BadAnswer(e)))?;
        self.version = ProtocolVersion::CURRENT
            .negotiate(info.protocol_version, true)
            .map_err(|e| self.error(method::INIT, ErrorKind::Incompatible(e)))?;
        let _ = self.label.set(info.name.clone());
        self.info = info;
        Ok(())
    }

    fn name(&self) -> &str {
        self.label.get().unwrap_or(&self.command)
    }

    fn error(&self, method: &str, kind: ErrorKind) -> PluginError {
        PluginError(Box::new(Failure {
            plugin: self.name().to_string(),
            method: method.to_string(),
            kind,
        }))
    }

    /// A failure of `method` on this plugin, for callers of [`call`](Self::call)
    /// that read its answer further (the host provider).
    #[cfg(feature = "provider")]
    pub(crate) fn failure(&self, method: &str, kind: ErrorKind) -> PluginError {
        self.error(method, kind)
    }

    fn peer(&self, method: &str) -> Result<&MsgpackRpcPeer, PluginError> {
        self.child.peer().ok_or_else(|| {
            self.error(
                method,
                ErrorKind::Closed("the plugin is shutting down".into()),
            )
        })
    }

    /// What the plugin said about itself in `init`.
    pub fn info(&self) -> &InitResult {
        &self.info
    }

    /// The version both sides speak.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// The plugin's last stderr lines, oldest first.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.child.stderr_tail()
    }

    /// How many calls have been sent and wait for their answers (at most
    /// [`PluginOptions::max_in_flight`]).
    pub fn in_flight(&self) -> usize {
        self.child.peer().map_or(0, MsgpackRpcPeer::in_flight)
    }

    /// The plugin's process id, while it runs.
    pub async fn id(&self) -> Option<u32> {
        self.child.id().await
    }

    /// Calls `method` with `params`, within the call timeout.
    pub async fn call(&self, method: &str, params: Fields) -> Result<Fields, PluginError> {
        self.call_with_timeout(method, params, self.call_timeout)
            .await
    }

    /// [`call`](Self::call) with a timeout of its own (counted from when
    /// the call is sent, after waiting for a free slot).
    pub async fn call_with_timeout(
        &self,
        method: &str,
        params: Fields,
        timeout: Duration,
    ) -> Result<Fields, PluginError> {
        let peer = self.peer(method)?;
        // Never closed, so acquiring only waits.
        let _slot = self.slots.acquire().await;
        let outcome = peer
            .call_with_timeout(method, params.into_params(), timeout)
            .await;
        let result = match outcome {
            Ok(raw) => raw,
            Err(e) => {
                let kind = match e {
                    CallError::RemoteValue(raw) => ErrorKind::Remote(ErrorObject::read(&raw.0)),
                    CallError::Timeout { after, .. } => ErrorKind::Timeout(after),
                    CallError::Closed(why) => {
                        // It may still run after writing garbage: a
                        // stream that cannot be read is the end of it.
                        self.child.kill().await;
                        ErrorKind::Closed(why)
                    }
                    CallError::Data(e) => ErrorKind::BadAnswer(e),
                    other => ErrorKind::BadAnswer(ctywire::Error::data(other.to_string())),
                };
                return Err(self.error(method, kind));
            }
        };
        Fields::read(&result.0).map_err(|e| self.error(method, ErrorKind::BadAnswer(e)))
    }

    /// `ping`: the plugin answers `{status: "ok"}`.
    pub async fn ping(&self) -> Result<(), PluginError> {
        let result = self.call(method::PING, Fields::new()).await?;
        match result.opt_str("status") {
            Ok(None | Some("ok")) => Ok(()),
            Ok(Some(other)) => Err(self.error(
                method::PING,
                ErrorKind::BadAnswer(
                    ctywire::Error::data(format!("status {other:?}, not \"ok\""))
                        .under(PathStep::Attr("status".into())),
                ),
            )),
            Err(e) => Err(self.error(method::PING, ErrorKind::BadAnswer(e))),
        }
    }

    /// Ends the plugin: `shutdown` (waiting at most the grace period for
    /// its answer), then its stdin closed, then the grace period to exit,
    /// then a kill. Its exit status, when there is one. A plugin that
    /// exits without answering is fine.
    pub async fn shutdown(mut self) -> Option<ExitStatus> {
        let grace = self.grace;
        if let Err(e) = self
            .call_with_timeout(method::SHUTDOWN, Fields::new(), grace)
            .await
        {
            log::debug!(target: "ctywire_seasonings::host", "{e}");
        }
        self.child.close_stdin();
        self.child.stop().await
    }

    /// The plugin's functions (empty when it has no `functions`
    /// capability), asked once and kept.
    pub async fn functions(&self) -> Result<Arc<BTreeMap<String, FunctionSignature>>, PluginError> {
        self.functions
            .get_or_try_init(|| async {
                if !self.info.capabilities.contains(&Capability::Functions) {
                    return Ok(Arc::new(BTreeMap::new()));
                }
                let m = method::FUNCTIONS_GET_SCHEMA;
                let result = self.call(m, Fields::new()).await?;
                read_function_schemas(&result)
                    .map(Arc::new)
                    .map_err(|e| self.error(m, ErrorKind::BadAnswer(e)))
            })
            .await
            .cloned()
    }

    /// Calls function `name` with `arguments`, each encoded at its
    /// parameter's type, and decodes the result at the return type. As
    /// Terraform does, a null argument where the parameter is not nullable
    /// is refused, and an argument that is not wholly known where the
    /// parameter does not allow unknowns makes the result unknown without
    /// calling the plugin.
    pub async fn call_function(
        &self,
        name: &str,
        arguments: Vec<Value>,
    ) -> Result<Value, PluginError> {
        let m = method::FUNCTIONS_CALL;
        let functions = self.functions().await?;
        let refuse = |error: ctywire::Error, function_argument: Option<u64>| {
            self.error(
                m,
                ErrorKind::Refused {
                    error,
                    function_argument,
                },
            )
        };
        let Some(sig) = functions.get(name) else {
            return Err(refuse(
                ctywire::Error::data(format!("the plugin has no function {name:?}")),
                None,
            ));
        };
        let (given, declared) = (arguments.len(), sig.parameters.len());
        if given < declared || (given > declared && sig.variadic_parameter.is_none()) {
            return Err(refuse(
                ctywire::Error::data(format!(
                    "function {name:?} takes {declared}{} arguments, {given} given",
                    if sig.variadic_parameter.is_some() {
                        " or more"
                    } else {
                        ""
                    }
                )),
                None,
            ));
        }
        let mut encoded = Vec::new();
        mp::write_array_len(&mut encoded, given);
        let mut unknown = false;
        for (i, arg) in arguments.iter().enumerate() {
            let Some(param) = sig.parameter_of(i) else {
                continue;
            };
            let at = Some(i as u64);
            if arg.is_null() && !param.is_nullable {
                return Err(refuse(
                    ctywire::Error::data(format!("argument {:?} must not be null", param.name)),
                    at,
                ));
            }
            unknown |= !param.allow_unknown_values && !arg.is_wholly_known();
            let raw = Raw::encode(arg, &param.ty).map_err(|e| refuse(e, at))?;
            encoded.extend_from_slice(&raw.0);
        }
        if unknown {
            return Ok(Value::unknown(sig.return_type.clone()));
        }
        let mut params = Fields::new();
        params.insert_str("name", name);
        params.insert_raw("arguments", Raw(encoded));
        let result = self.call(m, params).await?;
        // A null result is nil, present; a missing one is a broken answer.
        let found = match result.get("result") {
            Some(_) => result.value("result", &sig.return_type),
            None => Err(ctywire::Error::data("required, but missing")
                .under(PathStep::Attr("result".into()))),
        };
        found.map_err(|e| self.error(m, ErrorKind::BadAnswer(e)))
    }
}

/// Writes a `log` notification to the `log` crate, under the plugin's
/// name (target `ctywire_seasonings::plugin`); one that does not fit the
/// shape is logged as a warning saying why.
fn forward_log(plugin: &str, params: &[Raw]) {
    const TARGET: &str = "ctywire_seasonings::plugin";
    let read = Fields::from_param_list(params).and_then(|f| {
        let level = match f.str("level")? {
            "trace" => log::Level::Trace,
            "debug" => log::Level::Debug,
            "info" => log::Level::Info,
            "warn" | "warning" => log::Level::Warn,
            "error" => log::Level::Error,
            other => {
                return Err(ctywire::Error::data(format!("unknown level {other:?}"))
                    .under(PathStep::Attr("level".into())))
            }
        };
        let message = f.str("message")?.to_string();
        let fields = match f.present("fields") {
            Some(_) => f.fields("fields")?,
            None => Fields::new(),
        };
        Ok((level, message, fields))
    });
    match read {
        Ok((level, message, fields)) => {
            let mut line = format!("{plugin}: {message}");
            for (key, v) in fields.iter() {
                line.push_str(&format!(" {key}={}", show(&v.0)));
            }
            log::log!(target: TARGET, level, "{line}");
        }
        Err(e) => log::warn!(target: TARGET, "{plugin}: a log notification that does not fit: {e}"),
    }
}

/// A log field's value, readably: strings, integers and bools as
/// themselves, anything else as hex.
fn show(v: &[u8]) -> String {
    if let Some(s) = mp::as_str(v) {
        format!("{s:?}")
    } else if let Some(n) = mp::as_int(v) {
        n.to_string()
    } else if let Some(b) = mp::as_bool(v) {
        b.to_string()
    } else {
        crate::protocol::hex(v, 32)
    }
}

/// The msgpack-rpc peer's share of a plugin's options.
fn peer_options(options: &PluginOptions) -> PeerOptions {
    PeerOptions {
        call_timeout: options.call_timeout,
        max_message: options.max_message,
        ..PeerOptions::default()
    }
}

/// What the host serves a plugin: its `log` notifications, under its name
/// once `init` has said it (`command` until then).
fn log_handlers(label: &Arc<OnceLock<String>>, command: &str) -> MsgpackHandlers {
    let (label, command) = (label.clone(), command.to_string());
    MsgpackHandlers::new().notification(method::LOG, move |params| {
        let name = label.get().unwrap_or(&command);
        forward_log(name, &params);
    })
}

/// Where a plugin's messages travel: a child process's stdio, or (for the
/// fuzz targets) any pair of streams.
enum Connection {
    Child(MsgpackChild),
    Streams(Option<MsgpackRpcPeer>),
}

impl Connection {
    fn peer(&self) -> Option<&MsgpackRpcPeer> {
        match self {
            Connection::Child(c) => c.peer(),
            Connection::Streams(p) => p.as_ref(),
        }
    }

    fn close_stdin(&mut self) {
        match self {
            Connection::Child(c) => c.close_stdin(),
            Connection::Streams(p) => *p = None,
        }
    }

    fn stderr_tail(&self) -> Vec<String> {
        match self {
            Connection::Child(c) => c.stderr_tail(),
            Connection::Streams(_) => Vec::new(),
        }
    }

    async fn kill(&self) {
        if let Connection::Child(c) = self {
            let _ = c.kill().await;
        }
    }

    async fn stop(&self) -> Option<ExitStatus> {
        match self {
            Connection::Child(c) => c.stop().await,
            Connection::Streams(_) => None,
        }
    }

    async fn id(&self) -> Option<u32> {
        match self {
            Connection::Child(c) => c.id().await,
            Connection::Streams(_) => None,
        }
    }
}
