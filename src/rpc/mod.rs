//! Message framing for bridges to child processes: JSON-RPC 2.0 over
//! newline-delimited JSON, msgpack-rpc over a byte stream, and the typed
//! messages of the denobridge protocol.
//!
//! *Needs the `rpc` feature* (which turns on `bridge`).

pub mod denobridge;
pub mod jsonrpc;
pub mod msgpack_rpc;
#[cfg(feature = "runtime")]
pub mod runtime;
