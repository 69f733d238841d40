//! The plugin side, for Rust authors (feature `plugin`): a Seasonings
//! server on stdin and stdout whose functions, resources and data sources
//! are declared over serde types with `#[derive(Model)]`, as a provider's
//! are in ctywire-provider, without its gRPC stack.
//!
//! The SDK answers `init` (refusing another major version with both
//! versions named), `ping` and `shutdown`; derives every schema from the
//! types and sends it in the contract's `providers schema -json` shapes;
//! decodes each argument and state at its declared type (unknowns stay
//! unknown: take them with [`Unknowable`]); upgrades a state stored at an
//! older schema version through the resource's
//! [`upgrade`](Resource::upgrade); serves calls concurrently;
//! answers a failure as the contract's error object or diagnostic with its
//! attribute path; sends what the `log` crate logs to the host as `log`
//! notifications; and turns a panic in the author's code into an error
//! answer, the plugin still serving.
//!
//! ```no_run
//! use ctywire_seasonings::plugin::{Error, Function, Model, Plugin};
//! use serde::{Deserialize, Serialize};
//!
//! /// Lower-case words joined by dashes.
//! #[derive(Model, Serialize, Deserialize)]
//! struct SlugArgs {
//!     /// The text to slug.
//!     text: String,
//! }
//!
//! struct Slug;
//!
//! #[ctywire_seasonings::plugin::async_trait]
//! impl Function for Slug {
//!     type Args = SlugArgs;
//!     type Output = String;
//!     async fn call(&self, args: SlugArgs) -> Result<String, Error> {
//!         let words: Vec<String> = args.text.split_whitespace().map(str::to_lowercase).collect();
//!         Ok(words.join("-"))
//!     }
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     Plugin::new("slugs", "1.0.0").function("slug", Slug).serve()
//! }
//! ```
//!
//! `docs/seasonings.md` ("The Rust SDK") shows a resource and a data
//! source; `examples/seasonings/rust` holds whole plugins.

mod dispatch;
mod logging;
mod schemas;
mod typed;

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;

use ctywire_bridge::runtime::{MsgpackHandlers, MsgpackRpcPeer, PeerOptions};
use tokio::io::{AsyncRead, AsyncWrite};

pub use async_trait::async_trait;
pub use ctywire::{Number, Path, Type, Unknowable, Value};
/// The crate the derive's code names (`#[derive(Model)]` finds it here
/// when `ctywire-seasonings` is the crate's only ctywire dependency).
pub use ctywire_model as model;
pub use ctywire_model::{schema, AttributeType, Model};
/// The `log` crate: what its macros log reaches the host (and Terraform's
/// `TF_LOG`) as `log` notifications once the plugin serves.
pub use log;

pub use typed::{DataSource, Failed, Function, Plan, Resource, StoredState};

use dispatch::Server;
use typed::{AnyDataSource, AnyFunction, AnyResource};

/// Why a call failed, where, and what to do: the contract's error object
/// (`functions.call`, a whole call that failed) or an error diagnostic (a
/// resource method's), with its attribute path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// One line.
    pub summary: String,
    /// What happened and what to do.
    pub detail: Option<String>,
    /// Where in the call's value (an attribute of the configuration).
    pub path: Option<Path>,
    /// `functions.call` only: the 0-based argument at fault.
    pub function_argument: Option<u64>,
}

impl Error {
    /// An error with its summary.
    pub fn new(summary: impl Into<String>) -> Self {
        Error {
            summary: summary.into(),
            detail: None,
            path: None,
            function_argument: None,
        }
    }

    /// With what happened and what to do.
    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// At an attribute path (`Path::root().attr("name")`).
    pub fn at(mut self, path: Path) -> Self {
        self.path = Some(path);
        self
    }

    /// About a function's argument (0-based).
    pub fn argument(mut self, index: u64) -> Self {
        self.function_argument = Some(index);
        self
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.summary)?;
        if let Some(d) = &self.detail {
            write!(f, ": {d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// A value that does not fit where the plugin put it (`set_attr` on a
/// plan, say): the error at its path.
impl From<ctywire::Error> for Error {
    fn from(e: ctywire::Error) -> Self {
        Error::new("Invalid value")
            .detail(e.message().to_string())
            .at(e.path().clone())
    }
}

/// A plugin: its name and version (what `init` answers), and what it
/// serves. Build it, then [`serve`](Self::serve) it on stdin and stdout.
pub struct Plugin {
    name: String,
    version: String,
    functions: BTreeMap<String, Arc<dyn AnyFunction>>,
    resources: BTreeMap<String, Arc<dyn AnyResource>>,
    data_sources: BTreeMap<String, Arc<dyn AnyDataSource>>,
    /// What is wrong with a declaration (a schema Terraform would refuse):
    /// the plugin refuses to serve, naming each.
    problems: Vec<String>,
}

impl Plugin {
    /// A plugin named `name` (the host serves it as the provider `name`).
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Plugin {
            name: name.into(),
            version: version.into(),
            functions: BTreeMap::new(),
            resources: BTreeMap::new(),
            data_sources: BTreeMap::new(),
            problems: Vec::new(),
        }
    }

    /// Serves `function` as `name` (`provider::PLUGIN::name`).
    pub fn function<F: Function>(mut self, name: &str, function: F) -> Self {
        match typed::function(name, function) {
            Ok(f) => {
                self.functions.insert(name.to_string(), f);
            }
            Err(e) => self.problems.push(format!("function {name}: {e}")),
        }
        self
    }

    /// Serves `resource` as the resource type `name` (`PLUGIN_name`).
    pub fn resource<R: Resource>(mut self, name: &str, resource: R) -> Self {
        match typed::resource(name, resource) {
            Ok(r) => {
                self.resources.insert(name.to_string(), r);
            }
            Err(e) => self.problems.push(format!("resource {name}: {e}")),
        }
        self
    }

    /// Serves `data_source` as the data source type `name`
    /// (`data.PLUGIN_name`).
    pub fn data_source<D: DataSource>(mut self, name: &str, data_source: D) -> Self {
        match typed::data_source(name, data_source) {
            Ok(d) => {
                self.data_sources.insert(name.to_string(), d);
            }
            Err(e) => self.problems.push(format!("data source {name}: {e}")),
        }
        self
    }

    /// Serves on stdin and stdout until the host sends `shutdown` or
    /// closes stdin, with the `log` crate routed to the host; what is
    /// wrong goes to stderr (free text, which the host shows). For `main`:
    /// it runs its own tokio runtime. Failure when a declaration is
    /// refused or the runtime cannot start.
    pub fn serve(self) -> ExitCode {
        let runtime = match tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => rt,
            Err(e) => {
                eprintln!("{}: cannot start the async runtime: {e}", self.name);
                return ExitCode::FAILURE;
            }
        };
        let name = self.name.clone();
        let served = runtime.block_on(async move {
            let logs = logging::install();
            let (reader, writer) = stdio();
            self.run(reader, writer, Some(logs)).await
        });
        // A blocking read of stdin may still be waiting: do not wait for it.
        runtime.shutdown_timeout(std::time::Duration::from_millis(100));
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{name}: {e}");
                ExitCode::FAILURE
            }
        }
    }

    /// Serves on any reader and writer (a pipe, a socket, an in-memory
    /// duplex in tests) until `shutdown` or the end of `reader`. The `log`
    /// crate is not routed here (it is global: [`serve`](Self::serve) does
    /// that for the process). Must run within a tokio runtime.
    pub async fn serve_on<R, W>(self, reader: R, writer: W) -> Result<(), String>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.run(reader, writer, None).await
    }

    async fn run<R, W>(
        self,
        reader: R,
        writer: W,
        logs: Option<Arc<logging::LogQueue>>,
    ) -> Result<(), String>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        if !self.problems.is_empty() {
            return Err(format!(
                "the plugin's declarations are refused:\n  {}",
                self.problems.join("\n  ")
            ));
        }
        let server = Arc::new(Server::new(self, logs.clone()));
        let (reader, ended) = dispatch::EndOfInput::new(reader);
        let writer = dispatch::Counted::new(writer, server.output.clone());
        let handlers = MsgpackHandlers::new().fallback({
            let server = server.clone();
            move |method, params| {
                let server = server.clone();
                async move { server.answer(method, params).await }
            }
        });
        let peer = MsgpackRpcPeer::new(reader, writer, handlers, PeerOptions::default());
        if let Some(logs) = &logs {
            logs.attach(peer.clone(), server.output.clone());
        }
        server.wait(ended).await;
        if let Some(logs) = &logs {
            logs.flush().await;
            logs.detach();
        }
        Ok(())
    }
}

type Reader = Box<dyn AsyncRead + Send + Unpin>;
type Writer = Box<dyn AsyncWrite + Send + Unpin>;

/// stdin and stdout. *Why not `tokio::io::stdin()`/`stdout()`:* those hand
/// every read and write to a blocking thread, a round trip per message
/// that caps a plugin near 10,000 calls/s; the pipes a host starts a
/// plugin with are read and written on the runtime itself (non-blocking
/// FIFOs). Anything else (a file, a terminal) takes tokio's own.
fn stdio() -> (Reader, Writer) {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use tokio::net::unix::pipe;
        let fifo =
            |fd: std::os::fd::BorrowedFd<'_>| fd.try_clone_to_owned().ok().map(std::fs::File::from);
        let reader = fifo(std::io::stdin().as_fd()).and_then(|f| pipe::Receiver::from_file(f).ok());
        let writer = fifo(std::io::stdout().as_fd()).and_then(|f| pipe::Sender::from_file(f).ok());
        if let (Some(r), Some(w)) = (reader, writer) {
            return (Box::new(r), Box::new(w));
        }
    }
    (Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout()))
}
