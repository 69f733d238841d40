// The crate documentation is its README, the page crates.io shows: one text,
// and its examples run as doctests.
#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod de;
mod json;
pub mod jsonrpc;
pub mod msgpack_rpc;
mod paths;
mod props;
#[cfg(feature = "runtime")]
pub mod runtime;
pub mod schema_json;
mod sensitive;
mod ser;

pub use de::from_json;
pub use json::{Json, JsonNumber, Object};
pub use paths::{resolve_prop_path, PropSegment};
pub use props::{from_props, to_props, Props, Unknowns};
pub use sensitive::{merge_sensitive, split_sensitive};
pub use ser::to_json;
