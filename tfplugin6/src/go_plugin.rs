//! Serving a provider the way hashicorp/go-plugin serves plugins, so that
//! Terraform can start the binary itself.
//!
//! What go-plugin's `Serve` does, and so this does:
//!
//! 1. Refuse to run unless `TF_PLUGIN_MAGIC_COOKIE` holds Terraform's
//!    cookie (printing go-plugin's explanation to stderr, exit status 1).
//! 2. Pick the protocol version from `PLUGIN_PROTOCOL_VERSIONS`: this
//!    crate speaks only 6. (go-plugin falls back to its own newest version
//!    when the client offers none it has; Terraform would then refuse the
//!    plugin, so this says what was offered instead. Unset counts as 6.)
//! 3. Listen on a unix socket in a fresh temporary directory, under
//!    `PLUGIN_UNIX_SOCKET_DIR` when set (else the system temp dir).
//! 4. With `PLUGIN_CLIENT_CERT` (Terraform sets it: AutoMTLS), generate a
//!    server certificate and accept only TLS clients presenting that exact
//!    client certificate (see [`crate::tls`]).
//! 5. Print `1|6|unix|<socket>|grpc|<server cert>` on stdout and flush.
//! 6. Serve the provider next to go-plugin's own services: gRPC health
//!    (service `plugin` SERVING), `GRPCController.Shutdown` (stops the
//!    server gracefully), `GRPCStdio.StreamStdio` (kept open, sends
//!    nothing: this process's stdout and stderr are not redirected, and
//!    Terraform reads them directly and logs them), and
//!    `GRPCBroker.StartStream` (kept open, nothing is brokered).
//! 7. Ignore SIGINT while serving (Terraform gets the user's Ctrl-C and
//!    calls `StopProvider`, then `Shutdown`); exit when `Shutdown` comes,
//!    waiting at most [`ServeOptions::graceful_stop_timeout`] for calls in
//!    flight.
//!
//! Not done: `PLUGIN_UNIX_SOCKET_GROUP` (Terraform does not set it), TCP
//! listeners (go-plugin uses them only on Windows), gRPC multiplexing of
//! the broker (`PLUGIN_MULTIPLEX_GRPC`; Terraform does not set it).

use std::ffi::OsString;
use std::fmt;
use std::io::Write;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use rustls::pki_types::CertificateDer;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{UnixListener, UnixStream};
use tokio::runtime::Handle;
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::server::Connected;
use tonic::{Request, Response, Status, Streaming};

use crate::authority::AuthorityConn;
use crate::pb::health;
use crate::pb::plugin;
use crate::provider::Provider;
use crate::service::{ProviderService, ValueObserver};
use crate::tls;

/// The environment variable Terraform sets to its magic cookie.
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
/// Terraform's magic cookie.
pub const MAGIC_COOKIE_VALUE: &str =
    "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";
/// The plugin protocol version this crate speaks.
pub const PROTOCOL_VERSION: u32 = 6;
/// go-plugin's core protocol version (the handshake line's first field).
pub const CORE_PROTOCOL_VERSION: u32 = 1;

/// How many calls one connection carries at once; a client opening more
/// queues them (grpc-go's client, Terraform's, waits for a free stream,
/// as do tonic's and grpcio's). Unlimited, h2 takes every stream a client
/// opens at once, and each one's first DATA frame, unread until its
/// handler runs, counts against h2's flood guard (small DATA frames
/// buffered on the connection, at most half its window): 10,000
/// concurrent calls tripped it (GOAWAY `ENHANCE_YOUR_CALM`,
/// "too_many_data_frames") and ended the connection for all of them.
const MAX_CONCURRENT_STREAMS: u32 = 1000;

/// The connection's flow-control window: also what sizes h2's guard
/// above (half of it), so 2 MiB of it covers the small frames of all
/// [`MAX_CONCURRENT_STREAMS`] calls several times over.
const CONNECTION_WINDOW: u32 = 4 << 20;

/// What go-plugin prints when a plugin is run by hand.
const NOT_A_PLUGIN: &str =
    "This binary is a plugin. These are not meant to be executed directly.\n\
Please execute the program that consumes these plugins, which will\n\
load any plugins automatically\n";

/// How [`serve_with`] serves.
#[derive(Clone)]
#[non_exhaustive]
pub struct ServeOptions {
    /// After `Shutdown`, how long calls in flight may take before the
    /// server stops anyway (default 1.5 s: go-plugin kills the process 2 s
    /// after asking, and a process killed skips its own clean-up, such as
    /// stopping the child processes it started).
    pub graceful_stop_timeout: Duration,
    /// How long a client may take over the TLS handshake (default 10 s).
    pub tls_handshake_timeout: Duration,
    /// Sees every value decoded from a request (see
    /// [`ProviderService::with_value_observer`]).
    pub value_observer: Option<ValueObserver>,
    /// Whether serving installs a `log` logger writing go-hclog's JSON
    /// lines to stderr at the level `TF_LOG_PROVIDER` (else `TF_LOG`)
    /// asks, so the provider's `log::debug!` and its libraries' reach
    /// Terraform's log (default true; a program that installed its own
    /// logger keeps it either way).
    pub log_to_terraform: bool,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            graceful_stop_timeout: Duration::from_millis(1500),
            tls_handshake_timeout: Duration::from_secs(10),
            value_observer: None,
            log_to_terraform: true,
        }
    }
}

impl fmt::Debug for ServeOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServeOptions")
            .field("graceful_stop_timeout", &self.graceful_stop_timeout)
            .field("tls_handshake_timeout", &self.tls_handshake_timeout)
            .field(
                "value_observer",
                &self.value_observer.as_ref().map(|_| ".."),
            )
            .field("log_to_terraform", &self.log_to_terraform)
            .finish()
    }
}

impl ServeOptions {
    /// Sets [`graceful_stop_timeout`](Self::graceful_stop_timeout).
    pub fn graceful_stop_timeout(mut self, d: Duration) -> Self {
        self.graceful_stop_timeout = d;
        self
    }

    /// Sets [`value_observer`](Self::value_observer).
    pub fn observe_values(mut self, observer: ValueObserver) -> Self {
        self.value_observer = Some(observer);
        self
    }

    /// Sets [`tls_handshake_timeout`](Self::tls_handshake_timeout).
    pub fn tls_handshake_timeout(mut self, d: Duration) -> Self {
        self.tls_handshake_timeout = d;
        self
    }

    /// Sets [`log_to_terraform`](Self::log_to_terraform).
    pub fn log_to_terraform(mut self, on: bool) -> Self {
        self.log_to_terraform = on;
        self
    }
}

/// Why serving failed or did not start.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// The magic cookie is missing or wrong: not started by Terraform.
    NotAPlugin,
    /// `PLUGIN_PROTOCOL_VERSIONS` does not offer version 6; holds what it
    /// offered.
    UnsupportedProtocolVersions(String),
    /// `PLUGIN_CLIENT_CERT` could not be used.
    ClientCert(String),
    /// The server certificate or TLS configuration could not be made.
    Tls(String),
    /// The socket could not be set up, or the handshake line written.
    Io(std::io::Error),
    /// The gRPC server failed.
    Transport(tonic::transport::Error),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::NotAPlugin => f.write_str(NOT_A_PLUGIN.trim_end()),
            ServeError::UnsupportedProtocolVersions(offered) => write!(
                f,
                "this provider speaks plugin protocol version {PROTOCOL_VERSION}, \
                 but the client offered only {offered:?} (PLUGIN_PROTOCOL_VERSIONS)"
            ),
            ServeError::ClientCert(e) => write!(f, "cannot use PLUGIN_CLIENT_CERT: {e}"),
            ServeError::Tls(e) => write!(f, "cannot set up TLS: {e}"),
            ServeError::Io(e) => write!(f, "cannot serve: {e}"),
            ServeError::Transport(e) => write!(f, "the gRPC server failed: {e}"),
        }
    }
}

impl std::error::Error for ServeError {}

impl From<std::io::Error> for ServeError {
    fn from(e: std::io::Error) -> Self {
        ServeError::Io(e)
    }
}

/// Serves `provider` as Terraform expects a provider binary to, until
/// Terraform asks it to shut down. Call it from `main`:
///
/// ```no_run
/// # struct MyProvider;
/// # impl ctywire_tfplugin6::Provider for MyProvider {
/// #     fn schemas(&self) -> ctywire_tfplugin6::Schemas { Default::default() }
/// # }
/// #[tokio::main]
/// async fn main() {
///     ctywire_tfplugin6::serve(MyProvider).await;
/// }
/// ```
///
/// On any failure (run by hand without the magic cookie, a protocol
/// version other than 6 asked for, a `PLUGIN_CLIENT_CERT` that is not an
/// X.509 certificate, a socket that cannot be made) it says why on stderr
/// and exits the process with status 1 before printing the handshake
/// line, as go-plugin does. [`try_serve`] returns the error instead.
///
/// gRPC is served on a runtime of its own (two threads, made here), and
/// provider code runs on the runtime that called `serve`: provider code
/// blocking every thread it has (a synchronous client, a
/// `std::thread::sleep`) cannot hold up `GetMetadata`,
/// `GetProviderSchema`, the health check or `StopProvider`, which answers
/// the calls it cancels at once even while their threads stay blocked.
/// A panic in provider code becomes an error on the call that panicked
/// (see [`ProviderService`]); the process goes on serving.
///
/// One connection carries up to 1,000 calls at once; a client opening
/// more queues them (Terraform's grpc-go client does).
pub async fn serve<P: Provider>(provider: P) {
    serve_with(ServeOptions::default(), provider).await
}

/// [`serve`] with options.
pub async fn serve_with<P: Provider>(options: ServeOptions, provider: P) {
    if let Err(e) = try_serve(options, provider).await {
        match e {
            ServeError::NotAPlugin => eprint!("{NOT_A_PLUGIN}"),
            e => eprintln!("{e}"),
        }
        std::process::exit(1);
    }
}

/// What go-plugin's client tells a plugin in its environment, read and
/// checked before anything is bound or printed: [`try_serve`] reads it
/// with [`HandshakeEnv::from_env`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HandshakeEnv {
    /// The protocol version to speak (always [`PROTOCOL_VERSION`]).
    pub protocol_version: u32,
    /// Terraform's client certificate (DER) from `PLUGIN_CLIENT_CERT`, a
    /// well-formed X.509 certificate; `None` when unset or empty (no TLS).
    pub client_cert: Option<CertificateDer<'static>>,
    /// Where to make the socket's directory: `PLUGIN_UNIX_SOCKET_DIR`,
    /// else `None` (the system's temporary directory).
    pub socket_dir: Option<PathBuf>,
}

impl HandshakeEnv {
    /// Reads this process's environment.
    pub fn from_env() -> Result<HandshakeEnv, ServeError> {
        HandshakeEnv::read(|key| std::env::var_os(key))
    }

    /// Reads the environment `var` gives (a pure function of it): the
    /// magic cookie must be Terraform's, `PLUGIN_PROTOCOL_VERSIONS` must
    /// offer 6 (unset counts as 6; entries that are not numbers are
    /// skipped, as go-plugin skips them), and `PLUGIN_CLIENT_CERT`, when
    /// set, must hold a PEM certificate that parses as X.509.
    /// (`PLUGIN_MIN_PORT`/`PLUGIN_MAX_PORT` concern TCP listeners, which
    /// go-plugin uses only on Windows; they are not read.)
    pub fn read(var: impl Fn(&str) -> Option<OsString>) -> Result<HandshakeEnv, ServeError> {
        let text = |key: &str| var(key).map(|v| v.into_string());
        match text(MAGIC_COOKIE_KEY) {
            Some(Ok(v)) if v == MAGIC_COOKIE_VALUE => {}
            _ => return Err(ServeError::NotAPlugin),
        }
        let protocol_version = match text("PLUGIN_PROTOCOL_VERSIONS") {
            None => PROTOCOL_VERSION,
            Some(Ok(offered)) => negotiate_version(&offered)?,
            Some(Err(offered)) => {
                return Err(ServeError::UnsupportedProtocolVersions(
                    offered.to_string_lossy().into_owned(),
                ))
            }
        };
        let client_cert = match text("PLUGIN_CLIENT_CERT") {
            None => None,
            Some(Ok(pem)) if pem.is_empty() => None,
            Some(Ok(pem)) => Some(tls::parse_client_cert(&pem).map_err(ServeError::ClientCert)?),
            Some(Err(_)) => {
                return Err(ServeError::ClientCert(
                    "PLUGIN_CLIENT_CERT is not UTF-8 text, so not PEM".to_string(),
                ))
            }
        };
        let socket_dir = var("PLUGIN_UNIX_SOCKET_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from);
        Ok(HandshakeEnv {
            protocol_version,
            client_cert,
            socket_dir,
        })
    }
}

/// The version to speak, given a non-empty `PLUGIN_PROTOCOL_VERSIONS`.
fn negotiate_version(offered: &str) -> Result<u32, ServeError> {
    if offered.is_empty()
        || offered
            .split(',')
            .filter_map(|s| s.trim().parse::<u32>().ok())
            .any(|v| v == PROTOCOL_VERSION)
    {
        Ok(PROTOCOL_VERSION)
    } else {
        Err(ServeError::UnsupportedProtocolVersions(offered.to_string()))
    }
}

/// [`serve`], returning errors instead of exiting. Returns `Ok` once the
/// server has stopped after `Shutdown`.
pub async fn try_serve<P: Provider>(options: ServeOptions, provider: P) -> Result<(), ServeError> {
    let env = HandshakeEnv::from_env()?;
    if options.log_to_terraform {
        crate::hclog::init();
    }
    let service = ProviderService::new(provider).with_runtime(Handle::current());
    let server = ServerRuntime(Some(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("tfplugin6-server")
            .enable_all()
            .build()?,
    ));
    let handle = server
        .0
        .as_ref()
        .map(|rt| rt.spawn(serve_env(env, options, service)));
    match handle {
        Some(task) => task
            .await
            .unwrap_or_else(|e| Err(ServeError::Io(std::io::Error::other(e)))),
        None => Ok(()),
    }
}

/// The server's own runtime, shut down in the background however
/// [`try_serve`] ends — finished, or its future dropped early (in a
/// `select!`, a timeout, a runtime shutting down): dropping a runtime in
/// place blocks, which an async context must not (tokio panics).
struct ServerRuntime(Option<tokio::runtime::Runtime>);

impl Drop for ServerRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// The rest of [`try_serve`], on the server's runtime.
async fn serve_env<P: Provider>(
    env: HandshakeEnv,
    options: ServeOptions,
    mut provider: ProviderService<P>,
) -> Result<(), ServeError> {
    let version = env.protocol_version;
    // TLS first: nothing is bound if the server certificate cannot be made.
    let (acceptor, cert_field) = match env.client_cert {
        Some(client) => {
            let server = tls::ServerCert::generate().map_err(|e| ServeError::Tls(e.to_string()))?;
            let config =
                tls::server_config(&server, client).map_err(|e| ServeError::Tls(e.to_string()))?;
            (
                Some(tokio_rustls::TlsAcceptor::from(Arc::new(config))),
                server.handshake_field(),
            )
        }
        None => (None, String::new()),
    };

    let socket_parent = env.socket_dir.unwrap_or_else(std::env::temp_dir);
    let dir = socket_dir(&socket_parent)?;
    let socket = dir.path().join("provider.sock");
    let listener = UnixListener::bind(&socket)?;

    let (stop_tx, stop_rx) = watch::channel(false);
    let stop = Stop(stop_rx);
    let incoming = accept_loop(
        listener,
        acceptor,
        options.tls_handshake_timeout,
        stop.clone(),
    );

    if let Some(observer) = options.value_observer {
        provider = provider.with_value_observer(observer);
    }
    let router = tonic::transport::Server::builder()
        .max_concurrent_streams(MAX_CONCURRENT_STREAMS)
        .initial_connection_window_size(CONNECTION_WINDOW)
        .add_service(provider.into_service())
        .add_service(health::health_server::HealthServer::new(Health(
            stop.clone(),
        )))
        .add_service(plugin::grpc_controller_server::GrpcControllerServer::new(
            Controller(Arc::new(stop_tx)),
        ))
        .add_service(plugin::grpc_stdio_server::GrpcStdioServer::new(Idle(
            stop.clone(),
        )))
        .add_service(plugin::grpc_broker_server::GrpcBrokerServer::new(Idle(
            stop.clone(),
        )));

    ignore_interrupts();

    let line = format!(
        "{CORE_PROTOCOL_VERSION}|{version}|unix|{}|grpc|{cert_field}\n",
        socket.display()
    );
    {
        let mut out = std::io::stdout().lock();
        out.write_all(line.as_bytes())?;
        out.flush()?;
    }
    log::debug!("serving plugin protocol {version} on {}", socket.display());

    let serving = router.serve_with_incoming_shutdown(incoming, stop.clone().stopped());
    let grace = options.graceful_stop_timeout;
    let result = tokio::select! {
        r = serving => r.map_err(ServeError::Transport),
        _ = async { stop.stopped().await; tokio::time::sleep(grace).await } => {
            log::warn!("calls still in flight {grace:?} after Shutdown; stopping anyway");
            Ok(())
        }
    };
    drop(dir);
    result
}

/// The socket's directory, fresh under `parent`: 0700 whatever the
/// umask, as go-plugin's (only this user may reach the socket; with
/// AutoMTLS off, reaching it is all a client needs).
fn socket_dir(parent: &std::path::Path) -> std::io::Result<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    let owner_only = std::fs::Permissions::from_mode(0o700);
    let dir = tempfile::Builder::new()
        .prefix("plugin")
        .permissions(owner_only.clone())
        .tempdir_in(parent)?;
    // The mode given at creation is masked by the umask (0700 under
    // umask 077 stays, but umask 0200 would leave it unwritable): set it
    // again, outright.
    std::fs::set_permissions(dir.path(), owner_only)?;
    Ok(dir)
}

/// Until `Shutdown`: resolves once it has been asked for.
#[derive(Clone)]
struct Stop(watch::Receiver<bool>);

impl Stop {
    async fn stopped(mut self) {
        // An error means the sender is gone, which is a stop too.
        let _ = self.0.wait_for(|s| *s).await;
    }
}

/// go-plugin ignores SIGINT while serving: Ctrl-C in a terminal reaches
/// every process of the group, and Terraform handles it for its plugins.
fn ignore_interrupts() {
    tokio::spawn(async {
        let mut count = 0u64;
        while tokio::signal::ctrl_c().await.is_ok() {
            count += 1;
            log::trace!("plugin received interrupt signal, ignoring (count {count})");
        }
    });
}

/// Accepts connections, doing each TLS handshake on its own task (a slow
/// or wrong client must not hold up the next), and hands the established
/// ones to the server. A refused client is logged, never fatal.
fn accept_loop(
    listener: UnixListener,
    acceptor: Option<tokio_rustls::TlsAcceptor>,
    handshake_timeout: Duration,
    stop: Stop,
) -> ReceiverStream<Result<AuthorityConn<Conn>, std::io::Error>> {
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        let stopped = stop.stopped();
        tokio::pin!(stopped);
        loop {
            let stream = tokio::select! {
                _ = &mut stopped => break,
                r = listener.accept() => match r {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        log::error!("accepting a connection failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            let Some(acceptor) = acceptor.clone() else {
                if tx
                    .send(Ok(AuthorityConn::new(Conn::Plain(stream))))
                    .await
                    .is_err()
                {
                    break;
                }
                continue;
            };
            let tx = tx.clone();
            tokio::spawn(async move {
                match tokio::time::timeout(handshake_timeout, acceptor.accept(stream)).await {
                    Ok(Ok(tls)) => {
                        let conn = AuthorityConn::new(Conn::Tls(Box::new(tls)));
                        let _ = tx.send(Ok(conn)).await;
                    }
                    Ok(Err(e)) => log::warn!("refused a connection: TLS handshake failed: {e}"),
                    Err(_) => log::warn!(
                        "refused a connection: no TLS handshake within {handshake_timeout:?}"
                    ),
                }
            });
        }
    });
    ReceiverStream::new(rx)
}

/// A served connection, plain or TLS. h2 reads it through an
/// [`AuthorityConn`], which makes any `:authority` acceptable to h2.
enum Conn {
    Plain(UnixStream),
    Tls(Box<tokio_rustls::server::TlsStream<UnixStream>>),
}

impl Connected for AuthorityConn<Conn> {
    type ConnectInfo = ();
    fn connect_info(&self) -> Self::ConnectInfo {}
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_flush(cx),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Conn::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Conn::Plain(s) => s.is_write_vectored(),
            Conn::Tls(s) => s.is_write_vectored(),
        }
    }
}

/// The name go-plugin registers as SERVING (`GRPCServiceName`).
const HEALTH_SERVICE: &str = "plugin";

struct Health(Stop);

fn health_status(service: &str) -> Result<health::HealthCheckResponse, Status> {
    use health::health_check_response::ServingStatus;
    // "" is the server as a whole, which grpc-go's health server also
    // reports as SERVING.
    if service.is_empty() || service == HEALTH_SERVICE {
        Ok(health::HealthCheckResponse {
            status: ServingStatus::Serving as i32,
        })
    } else {
        Err(Status::not_found(format!("unknown service {service:?}")))
    }
}

type BoxStream<T> = ReceiverStream<Result<T, Status>>;

/// A stream that sends `first` (if any) and then stays open until
/// `Shutdown` or until the client goes away.
fn open_until_stop<T: Send + 'static>(first: Option<T>, stop: Stop) -> BoxStream<T> {
    let (tx, rx) = mpsc::channel(1);
    tokio::spawn(async move {
        if let Some(first) = first {
            if tx.send(Ok(first)).await.is_err() {
                return;
            }
        }
        tokio::select! {
            _ = stop.stopped() => {}
            _ = tx.closed() => {}
        }
    });
    ReceiverStream::new(rx)
}

#[tonic::async_trait]
impl health::health_server::Health for Health {
    async fn check(
        &self,
        req: Request<health::HealthCheckRequest>,
    ) -> Result<Response<health::HealthCheckResponse>, Status> {
        health_status(&req.get_ref().service).map(Response::new)
    }

    type WatchStream = BoxStream<health::HealthCheckResponse>;

    async fn watch(
        &self,
        req: Request<health::HealthCheckRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        let status = health_status(&req.get_ref().service)?;
        Ok(Response::new(open_until_stop(Some(status), self.0.clone())))
    }
}

struct Controller(Arc<watch::Sender<bool>>);

#[tonic::async_trait]
impl plugin::grpc_controller_server::GrpcController for Controller {
    async fn shutdown(&self, _: Request<plugin::Empty>) -> Result<Response<plugin::Empty>, Status> {
        log::debug!("Shutdown requested: stopping gracefully");
        // The server stops taking new calls and lets this one (and any
        // other in flight) answer first.
        self.0.send_replace(true);
        Ok(Response::new(plugin::Empty {}))
    }
}

/// Stdio and broker: streams held open and silent until `Shutdown`.
struct Idle(Stop);

#[tonic::async_trait]
impl plugin::grpc_stdio_server::GrpcStdio for Idle {
    type StreamStdioStream = BoxStream<plugin::StdioData>;

    async fn stream_stdio(
        &self,
        _: Request<()>,
    ) -> Result<Response<Self::StreamStdioStream>, Status> {
        Ok(Response::new(open_until_stop(None, self.0.clone())))
    }
}

#[tonic::async_trait]
impl plugin::grpc_broker_server::GrpcBroker for Idle {
    type StartStreamStream = BoxStream<plugin::ConnInfo>;

    async fn start_stream(
        &self,
        req: Request<Streaming<plugin::ConnInfo>>,
    ) -> Result<Response<Self::StartStreamStream>, Status> {
        // Nothing is brokered: what the client announces is read and
        // dropped, so its sends never block.
        let mut incoming = req.into_inner();
        tokio::spawn(async move {
            while let Ok(Some(info)) = incoming.message().await {
                log::debug!(
                    "broker: ignoring connection info for service {}",
                    info.service_id
                );
            }
        });
        Ok(Response::new(open_until_stop(None, self.0.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The environment of `vars`, as [`HandshakeEnv::read`] sees it.
    fn read(vars: &[(&str, &str)]) -> Result<HandshakeEnv, ServeError> {
        HandshakeEnv::read(|k| {
            (vars.iter())
                .find(|(key, _)| *key == k)
                .map(|(_, v)| OsString::from(v))
        })
    }

    fn with_cookie(more: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
        let mut vars = vec![(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)];
        vars.extend_from_slice(more);
        vars
    }

    #[test]
    fn only_terraforms_cookie_lets_the_plugin_run() {
        assert!(read(&with_cookie(&[])).is_ok());
        assert!(matches!(read(&[]), Err(ServeError::NotAPlugin)));
        assert!(matches!(
            read(&[(MAGIC_COOKIE_KEY, "x")]),
            Err(ServeError::NotAPlugin)
        ));
    }

    #[test]
    fn version_6_is_picked_from_what_terraform_offers() {
        for offer in ["5,6", "6", "x,6", ""] {
            let env = read(&with_cookie(&[("PLUGIN_PROTOCOL_VERSIONS", offer)])).unwrap();
            assert_eq!(env.protocol_version, 6, "{offer}");
        }
        assert_eq!(read(&with_cookie(&[])).unwrap().protocol_version, 6);
    }

    #[test]
    fn an_offer_without_6_is_refused_naming_the_offer() {
        let e = read(&with_cookie(&[("PLUGIN_PROTOCOL_VERSIONS", "4,5")])).unwrap_err();
        assert!(e.to_string().contains("\"4,5\""), "{e}");
    }

    #[test]
    fn a_client_cert_that_is_a_pem_block_of_garbage_is_refused() {
        let garbage = "-----BEGIN CERTIFICATE-----\naGVsbG8gd29ybGQ=\n-----END CERTIFICATE-----\n";
        let e = read(&with_cookie(&[("PLUGIN_CLIENT_CERT", garbage)])).unwrap_err();
        assert!(matches!(e, ServeError::ClientCert(_)), "{e}");
        assert!(e.to_string().contains("X.509"), "{e}");
    }

    #[test]
    fn health_reports_the_plugin_service_serving() {
        assert_eq!(health_status("plugin").unwrap().status, 1);
        assert_eq!(health_status("").unwrap().status, 1);
        assert_eq!(
            health_status("other").unwrap_err().code(),
            tonic::Code::NotFound
        );
    }
}
