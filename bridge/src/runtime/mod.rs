//! Running peers on tokio: JSON-RPC 2.0 ([`JsonRpcPeer`]) and msgpack-rpc
//! ([`MsgpackRpcPeer`]) over any byte stream, and child processes that
//! speak them ([`Child`]).
//!
//! Both peers call and serve at once: outgoing requests get unique,
//! increasing ids, any number may be in flight, and answers are matched
//! by id in whatever order they come; requests and notifications from the
//! other side go to [`Handlers`]. A call ends in its answer, its timeout,
//! or — the moment the stream closes or the child exits — an error saying
//! why ([`CallError::Closed`], with the exit status and the last lines the
//! child wrote to stderr). Nothing waits forever: every call has a
//! timeout, lines and buffers are bounded, and dropping a call's future
//! forgets it.
//!
//! *Needs the `runtime` feature* (tokio).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use ctywire_bridge::Json;
//! use ctywire_bridge::runtime::{Handlers, JsonRpcPeer, PeerOptions};
//!
//! // Two peers joined by an in-memory pipe: one serves "add", one calls it.
//! let (a, b) = tokio::io::duplex(1 << 16);
//! let (ar, aw) = tokio::io::split(a);
//! let (br, bw) = tokio::io::split(b);
//! let handlers = Handlers::new().request("add", |params| async move {
//!     let p = params.unwrap_or(Json::Null);
//!     let sum = p[0].as_i64().unwrap_or(0) + p[1].as_i64().unwrap_or(0);
//!     Ok(Json::from(sum))
//! });
//! let _server = JsonRpcPeer::new(br, bw, handlers, PeerOptions::default());
//! let client = JsonRpcPeer::new(ar, aw, Handlers::new(), PeerOptions::default());
//! let sum: i64 = client.call_typed("add", &[2, 3]).await?;
//! assert_eq!(sum, 5);
//! # Ok(()) }
//! ```

mod calls;
mod child;
mod handlers;
mod json_peer;
mod lines;
mod link;
mod msgpack_peer;

use std::fmt;
use std::time::Duration;

pub use child::{Child, ChildOptions, MsgpackChild};
pub use handlers::{Handlers, MsgpackHandlers};
pub use json_peer::JsonRpcPeer;
pub use msgpack_peer::MsgpackRpcPeer;

use crate::jsonrpc::ErrorObject;
use crate::msgpack_rpc::Raw;
use ctywire::Type;

/// Limits and timeouts of a peer.
#[derive(Clone, Debug)]
pub struct PeerOptions {
    /// How long a call waits for its answer (default 60 s).
    pub call_timeout: Duration,
    /// The longest line (JSON-RPC) or message (msgpack-rpc) read, in bytes
    /// (default 64 MiB). A longer one is refused and skipped without being
    /// held in memory.
    pub max_message: usize,
    /// How many messages may wait to be written (default 1024); callers
    /// wait for room beyond that.
    pub write_queue: usize,
}

impl Default for PeerOptions {
    fn default() -> Self {
        PeerOptions {
            call_timeout: Duration::from_secs(60),
            max_message: 64 << 20,
            write_queue: 1024,
        }
    }
}

/// Why a call failed.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum CallError {
    /// The other side answered with an error (JSON-RPC).
    Remote(ErrorObject),
    /// The other side answered with an error (msgpack-rpc: any value;
    /// Neovim's is `[type, message]`).
    RemoteValue(Raw),
    /// No answer came within the timeout.
    Timeout {
        /// The method called.
        method: String,
        /// How long the call waited.
        after: Duration,
    },
    /// The stream closed (or the child exited) before the answer came, or
    /// before the call could be sent: why, with the child's exit status and
    /// last stderr lines when there is a child.
    Closed(String),
    /// The parameters could not be written, or the result read, as the
    /// Rust types asked for.
    Data(ctywire::Error),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Remote(e) => {
                write!(f, "the peer answered with error {}: {}", e.code, e.message)?;
                if let Some(data) = &e.data {
                    write!(f, " ({data})")?;
                }
                Ok(())
            }
            CallError::RemoteValue(raw) => {
                write!(f, "the peer answered with error {}", describe(raw))
            }
            CallError::Timeout { method, after } => {
                write!(f, "no answer to {method:?} within {after:?}")
            }
            CallError::Closed(why) => write!(f, "the connection is closed: {why}"),
            CallError::Data(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CallError {}

impl From<ctywire::Error> for CallError {
    fn from(e: ctywire::Error) -> Self {
        CallError::Data(e)
    }
}

/// A msgpack error value, readably: a string as itself, Neovim's
/// `[type, message]` as its message, anything else as hex.
fn describe(raw: &Raw) -> String {
    if let Ok(v) = raw.decode(&Type::String) {
        if let Some(s) = v.as_str() {
            return format!("{s:?}");
        }
    }
    let pair = Type::tuple([Type::Number, Type::String]);
    if let Ok(v) = raw.decode(&pair) {
        if let Some([_, message]) = v.elements() {
            if let Some(s) = message.as_str() {
                return format!("{s:?}");
            }
        }
    }
    raw.0.iter().map(|b| format!("{b:02x}")).collect()
}
