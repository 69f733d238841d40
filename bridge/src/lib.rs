//! # ctywire-bridge
//!
//! Bridging cty values to plain JSON "props" for a child process (a script
//! in another language behind JSON-RPC) and back, the way
//! terraform-provider-denobridge does, without its losses:
//!
//! | denobridge | ctywire |
//! |---|---|
//! | a set is sent as the *string* `"[\"a\",\"b\"]"` | a set is an array, in canonical order |
//! | an unknown becomes `""`, `false`, `[]` or `"<nil>"` silently | an unknown is refused with its path, or (if the caller asks) written as `null` and reported |
//! | numbers pass through float64 (`2^53 + 1` is rounded) | numbers are exact, at any size |
//! | arrays come back as `list(dynamic)`, so `[1, "a"]` crashes Terraform | arrays in a dynamic position come back as tuples |
//! | every `propPath` segment that is not a number is a map key | a `propPath` is resolved against the value's type |
//!
//! The JSON itself is a [`Json`] document: exact numbers, ordered objects,
//! parsed and written by ctywire (so depending on ctywire leaves your
//! serde_json as it was). [`to_json`] and [`from_json`] move typed serde
//! messages in and out of it, like `serde_json::to_value`/`from_value`.
//!
//! ```
//! use ctywire_bridge::{from_props, to_props, Json, Unknowns};
//! use ctywire::{Type, Value};
//!
//! let ty = Type::parse(r#"["object",{"ports":["set","number"],"id":"string"}]"#)?;
//! let v = Value::object([
//!     ("ports", Value::set(Type::Number, vec![Value::number(443), Value::number(80)])?),
//!     ("id", Value::unknown(Type::String)),
//! ]);
//! assert!(to_props(&v, Unknowns::Refuse).is_err());
//! let props = to_props(&v, Unknowns::NullAndReport)?;
//! assert_eq!(props.json.to_string(), r#"{"id":null,"ports":[80,443]}"#);
//! assert_eq!(props.unknown[0].to_string(), ".id");
//!
//! let back = from_props(&Json::parse(r#"{"id": "i-1", "ports": [80, 443, 80]}"#)?, &ty)?;
//! assert_eq!(back.attr("ports").unwrap().len(), Some(2));
//! # Ok::<(), ctywire::Error>(())
//! ```
//!
//! ## Talking to the child
//! [`jsonrpc`] (JSON-RPC 2.0 over newline-delimited JSON) and
//! [`msgpack_rpc`] (msgpack-rpc over a byte stream) are the messages, with
//! no runtime; `runtime` (feature `runtime`, tokio) runs peers of both over
//! any byte stream, and child processes that speak them.
//!
//! Terraform's own JSON documents are read here too: [`schema_json`] reads
//! what `terraform providers schema -json` prints.
//!
//! | feature | turns on |
//! |---|---|
//! | *(default: none)* | props, [`Json`], [`to_json`]/[`from_json`], prop paths, sensitive split/merge, [`jsonrpc`], [`msgpack_rpc`], [`schema_json`] |
//! | `runtime` | `runtime`: JSON-RPC and msgpack-rpc peers on tokio, and child processes that speak them (pulls in tokio) |

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
