//! # ctywire
//!
//! The value wire format of the Terraform / OpenTofu provider protocol: cty
//! types and values, encoded as msgpack or JSON exactly as go-cty (the
//! reference implementation inside Terraform) encodes them.
//!
//! Terraform sends configuration, state and plans to providers as
//! `DynamicValue`s: a cty value encoded as msgpack (or JSON) according to
//! the type the provider's schema implies. This crate decodes those bytes
//! into your own structs (feature `serde`) or into a [`Value`], and writes
//! them back, byte-identical with go-cty 1.16.
//!
//! ```
//! # #[cfg(feature = "serde")]
//! # fn main() -> ctywire::Result<()> {
//! use std::collections::{BTreeMap, BTreeSet};
//! use ctywire::{json, msgpack, Refinements, Type, Unknowable, Value};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Rule { port: u16, note: Option<String> }
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Thing {
//!     name: String,
//!     size: Option<i64>,                // null <-> None
//!     tags: BTreeMap<String, String>,
//!     ports: BTreeSet<u16>,             // a set, in canonical order on the wire
//!     id: Unknowable<String>,           // may be unknown during plan, refinements kept
//!     rule: Vec<Rule>,                  // a LIST nested block
//!     extra: Value,                     // a dynamic attribute, as it is
//! }
//!
//! // The type the resource schema implies (`schema::Block::implied_type`).
//! let ty = Type::parse(r#"["object",{"name":"string","size":"number",
//!     "tags":["map","string"],"ports":["set","number"],"id":"string",
//!     "rule":["list",["object",{"port":"number","note":"string"}]],"extra":"dynamic"}]"#)?;
//! let thing = Thing {
//!     name: "web".into(),
//!     size: None,
//!     tags: [("env".to_string(), "prod".to_string())].into(),
//!     ports: [443, 80].into(),
//!     id: Unknowable::Unknown(Refinements { not_null: true, ..Default::default() }),
//!     rule: vec![Rule { port: 22, note: None }],
//!     extra: Value::string("anything"),
//! };
//!
//! let bytes = msgpack::to_vec(&thing, &ty)?;                 // go-cty's bytes
//! let back: Thing = msgpack::from_slice(&bytes, &ty)?;       // straight from the bytes
//! assert_eq!(back, thing);
//!
//! let value = ctywire::to_value(&thing, &ty)?;               // a cty Value
//! assert_eq!(msgpack::encode(&value, &ty)?, bytes);
//! let again: Thing = ctywire::from_value(&value)?;
//! assert_eq!(again, thing);
//!
//! // JSON has no unknowns: plan the id, then write it.
//! let planned = Thing { id: Unknowable::Known("i-123".into()), ..again };
//! let text = json::to_vec(&planned, &ty)?;
//! assert!(text.starts_with(br#"{"extra":{"value":"anything","type":"string"},"id":"i-123""#));
//! assert_eq!(json::from_slice::<Thing>(&text, &ty)?, planned);
//!
//! // Every error says where: a plain field cannot take an unknown.
//! #[derive(Deserialize, Debug)]
//! struct Plain { id: String, #[serde(flatten)] _rest: ctywire::IgnoredAttributes }
//! let err = ctywire::from_value::<Plain>(&value).unwrap_err();
//! assert!(err.to_string().starts_with(".id: the value is unknown"));
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "serde"))]
//! # fn main() {}
//! ```
//!
//! How Rust shapes map to cty types, nested blocks of every nesting mode,
//! nulls, unknowns and numbers: "Typed values" below. The [`Value`] layer
//! works without serde:
//!
//! ```
//! use ctywire::{msgpack, json, Type, Value};
//!
//! let ty = Type::parse(r#"["object",{"id":"string","size":"number","tags":["map","string"]}]"#)?;
//! // What Terraform sends for {id = unknown, size = 20, tags = {env = "prod"}}:
//! let bytes = [0x83, 0xa2, b'i', b'd', 0xd4, 0x00, 0x00, 0xa4, b's', b'i', b'z', b'e', 0x14,
//!              0xa4, b't', b'a', b'g', b's', 0x81, 0xa3, b'e', b'n', b'v', 0xa4, b'p', b'r', b'o', b'd'];
//! let value = msgpack::decode(&bytes, &ty)?;
//! assert!(!value.attr("id").unwrap().is_known());
//! assert_eq!(value.attr("size").unwrap().as_number().unwrap().to_i64(), Some(20));
//!
//! // Plan: fill in the id, write it back.
//! let planned = Value::object([
//!     ("id", Value::string("i-123")),
//!     ("size", value.attr("size").unwrap().clone()),
//!     ("tags", value.attr("tags").unwrap().clone()),
//! ]);
//! let out = msgpack::encode(&planned, &ty)?;
//! assert_eq!(msgpack::decode(&out, &ty)?, planned);
//! assert_eq!(json::encode(&planned, &ty)?, br#"{"id":"i-123","size":20,"tags":{"env":"prod"}}"#);
//! # Ok::<(), ctywire::Error>(())
//! ```
//!
//! ## Where things are
//! * [`Type`]: cty types and their JSON form (`["list","string"]`).
//! * [`Value`], [`Number`], [`Refinements`]: the value model.
//! * [`Value::convert`]: go-cty's conversion rules, in one place; both
//!   encoders convert a value to the type it is written as first.
//! * [`msgpack`] and [`json`]: one module per wire format, each with its
//!   encoder and decoder side by side and its rules documented at the top.
//! * [`to_value`], [`from_value`], `msgpack::{to_vec, from_slice}`,
//!   `json::{to_vec, from_slice}`, [`Unknowable`] (feature `serde`): your
//!   own serde types in and out of cty, driven by the [`Type`].
//! * [`Error`] and [`Path`]: every failure says where (`.tags["k"][0]`).
//! * [`DecodeOptions`]: the limits that keep hostile input harmless.
//! * [`schema`] and [`protocol`]: provider schemas and the plugin
//!   protocol's `DynamicValue`.
//!
//! Beside this crate, each for one job: `ctywire-bridge` (plain JSON props
//! for child processes, JSON-RPC 2.0 and msgpack-rpc, and their peers on
//! tokio), `ctywire-tfplugin6` (the plugin protocol, served as go-plugin
//! serves it).
//!
//! ## Typed values
//! *Feature `serde`.* [`to_value`] and [`from_value`] move a
//! `Serialize`/`Deserialize` type to and from a [`Value`];
//! `msgpack::to_vec`/`from_slice` and `json::to_vec`/`from_slice` do the
//! same with the wire bytes (`from_slice` straight from them, with the
//! decoder's [`DecodeOptions`] limits and refusals; `to_vec` writes exactly
//! what `encode(&to_value(..)?, ..)` writes, and `msgpack::to_vec_into`
//! appends it to a buffer you reuse). The type decides the shape on
//! the wire, so one Rust shape can stand for several cty types:
//!
//! | cty | Rust |
//! |---|---|
//! | string | `String`, `&str` and `Cow<str>` (borrowed from the input by `from_slice`, below), `char`, a unit enum variant (its name) |
//! | number | `i8`…`i128`, `u8`…`u128` (exact only), `f32`/`f64` (nearest), [`Number`] (exact), `String` (decimal text) |
//! | bool | `bool` |
//! | list, set, tuple | `Vec<T>`, `BTreeSet<T>`, `[T; N]`, `(A, B)` (taking every element: a shorter one is an error); a set is written de-duplicated in canonical order |
//! | map, object | a struct, `BTreeMap<K, T>`, `HashMap<K, T>` with `String` keys, or keys read from the key's text as a string converts (integers, `bool`, `char`) |
//! | dynamic | anything: it keeps the type it is written with; [`Value`] takes whatever is there |
//! | null | `Option<T>` (`None`) |
//! | unknown | [`Unknowable<T>`] (`Unknown(refinements)`) |
//!
//! Nested blocks map the same way, by the type their nesting mode gives
//! them:
//!
//! | nesting mode | cty type | Rust |
//! |---|---|---|
//! | SINGLE | object | a struct (null when absent: `Option<S>`) |
//! | GROUP | object (never null) | a struct |
//! | LIST | list(object) | `Vec<S>` |
//! | SET | set(object) | `BTreeSet<S>` or `Vec<S>` |
//! | MAP | map(object) | `BTreeMap<String, S>` |
//! | nested attribute (any mode) | as above | as above |
//!
//! Three states: a known value goes into the plain type; a null only into
//! an `Option`; an unknown only into an [`Unknowable`] (or a [`Value`]).
//! A plain field that receives a null or an unknown is an error at its
//! path that names the wrapper to use.
//!
//! Structs are strict in both directions: an attribute the struct has no
//! field for is an error naming it and the struct's fields (opt out with a
//! `#[serde(flatten)]` field of type [`IgnoredAttributes`]); a struct field
//! the object type lacks is an error naming it and the type's attributes
//! (unless it is `#[serde(skip)]`, or `#[serde(default)]` when reading). A
//! field skipped by `skip_serializing_if` is written as null.
//!
//! Numbers: an integer type takes a number only when it holds it exactly
//! (2^64 into `u64`, or 1.5 into `i64`, is an error at its path); `f64` and
//! `f32` take the nearest value (so they may round; a finite number beyond
//! their range, which would become an infinity, is an error), and an `f64` is
//! written as go-cty writes a number that came from a float64. [`Number`],
//! `String`, and with features `with::bigint` / `with::bigdecimal`, carry
//! any number exactly.
//!
//! Straight from JSON bytes, an attribute repeated in one object is
//! refused (`decode` lets the last one win, as go-cty does): a struct field
//! cannot take a second value.
//!
//! ## Cargo features
//! The core needs none and depends on neither serde nor serde_json; the
//! rest is opt-in:
//!
//! | feature | turns on |
//! |---|---|
//! | *(default: none)* | [`Type`], [`Value`], [`Number`], [`msgpack`], [`json`], [`schema`], [`protocol`] |
//! | `serde` | typed values: [`to_value`]/[`from_value`], `msgpack::to_vec`/`from_slice`, `json::to_vec`/`from_slice`, [`Unknowable`], [`IgnoredAttributes`], `Serialize`/`Deserialize` for [`Value`], [`Number`], [`Type`] (its JSON form) and [`Path`] |
//! | `bigint` | `with::bigint`: exact `num_bigint::BigInt` fields (implies `serde`) |
//! | `bigdecimal` | `with::bigdecimal`: exact `bigdecimal::BigDecimal` fields (implies `serde`) |
//! | `indexmap` | `indexmap::IndexMap` fields as maps or objects (implies `serde`) |
//!
//! No feature pulls in a runtime (tokio, gRPC, TLS) or changes how
//! serde_json behaves in the program that depends on ctywire: exact
//! numbers in props and messages come from `ctywire_bridge::Json`, not
//! from serde_json's `arbitrary_precision` (which Cargo would turn on for
//! every crate in the program).
//!
//! ## Deliberate differences from go-cty
//! ctywire refuses what go-cty crashes on (NaN, contradictory refinements,
//! mixed element types under `list(dynamic)`, huge length headers), refuses
//! bytes after the value, refuses values of the wrong type that go-cty
//! would build (an empty msgpack map for a non-empty object type), and
//! never rounds a number (go-cty prints the float64 2^63 as
//! `9223372036854776000`).

// One audited block (ASCII text in strings.rs) and nothing else.
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "serde")]
/// serde's three sequence traits for a type whose `element` and `finish`
/// do the work: the typed serializers (`to_value`'s and each format's)
/// take sequences, tuples and tuple structs alike.
macro_rules! sequence_traits {
    ($ty:ty, $ok:ty) => {
        sequence_traits!($ty, $ok, SerializeSeq serialize_element, SerializeTuple
            serialize_element, SerializeTupleStruct serialize_field);
    };
    ($ty:ty, $ok:ty, $($tr:ident $method:ident),*) => {$(
        impl serde::ser::$tr for $ty {
            type Ok = $ok;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.element(value)
            }
            fn end(self) -> Result<$ok> {
                self.finish()
            }
        }
    )*};
}

#[cfg(feature = "serde")]
/// The serializer methods a capture of private content (see
/// `typed::private`) does not take: each an error, as only ctywire's own
/// content comes to a capture.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*);)*) => {$(
        fn $method(self, $(_: $arg),*) -> Result<Self::Ok> {
            Err(Error::data(concat!("internal error: private content written with ", stringify!($method))))
        }
    )*};
}

/// The rest of a capture's serializer methods, refused.
#[cfg(feature = "serde")]
macro_rules! refuse_compound {
    () => {
        refuse! {
            serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
            serialize_i128(i128); serialize_u8(u8); serialize_u16(u16); serialize_u32(u32);
            serialize_u128(u128); serialize_f32(f32); serialize_char(char);
            serialize_bytes(&[u8]); serialize_none(); serialize_unit();
            serialize_unit_struct(&'static str);
            serialize_unit_variant(&'static str, u32, &'static str);
        }
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Self::Ok> {
            Err(Error::data(
                "internal error: private content written as an option",
            ))
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok> {
            Err(Error::data(
                "internal error: private content written as a newtype",
            ))
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok> {
            Err(Error::data(
                "internal error: private content written as a variant",
            ))
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
            Err(Error::data(
                "internal error: private content written as a sequence",
            ))
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
            Err(Error::data(
                "internal error: private content written as a tuple",
            ))
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct> {
            Err(Error::data(
                "internal error: private content written as a tuple",
            ))
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant> {
            Err(Error::data(
                "internal error: private content written as a variant",
            ))
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
            Err(Error::data(
                "internal error: private content written as a map",
            ))
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant> {
            Err(Error::data(
                "internal error: private content written as a variant",
            ))
        }
    };
}

mod convert;
mod decode;
mod error;
mod gostr;
pub mod json;
mod mismatch;
pub mod msgpack;
mod number;
mod path;
pub mod protocol;
mod refinements;
pub mod schema;
mod set;
mod strings;
#[cfg(feature = "serde")]
mod typed;
mod types;
mod value;
mod walk;

pub use error::{Category, Error, Result};
pub use number::{Number, DEFAULT_MAX_NUMBER_EXPONENT};
pub use path::{Path, PathStep};
pub use refinements::{Bound, Refinements};
#[cfg(feature = "serde")]
pub use typed::{from_value, to_value, with, IgnoredAttributes, Unknowable};
pub use types::{ObjectType, Type};
pub use value::Value;

/// Not part of the API, and may change in any release: ctywire-bridge's
/// JSON document reads with the codec's own tokenizer, so that JSON has one
/// grammar (escapes, number syntax, UTF-8 checks) in every ctywire crate.
#[doc(hidden)]
pub mod __private {
    pub use crate::json::read::{Peek, Reader};
}

/// The default nesting limit, in collections and dynamic wrappers.
pub const DEFAULT_MAX_DEPTH: usize = 256;

/// Limits a decoder enforces, so that bytes from outside cannot exhaust
/// memory or the stack. Exceeding one is an error of category
/// [`Category::Limit`] naming the limit.
///
/// ```
/// use ctywire::{msgpack, DecodeOptions, Type};
/// let opts = DecodeOptions::new().max_collection_len(2);
/// let err = msgpack::decode_with(&[0x93, 1, 2, 3], &Type::list(Type::Number), &opts).unwrap_err();
/// assert!(err.to_string().contains("max_collection_len"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeOptions {
    max_depth: usize,
    max_collection_len: usize,
    max_input_len: usize,
    max_number_exponent: u32,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            max_depth: DEFAULT_MAX_DEPTH,
            max_collection_len: 1 << 20,
            max_input_len: 256 << 20,
            max_number_exponent: DEFAULT_MAX_NUMBER_EXPONENT,
        }
    }
}

impl DecodeOptions {
    /// The defaults: depth 256, 1,048,576 elements per collection, 256 MiB
    /// of input (Terraform's own message limit), decimal exponents up to
    /// ±10,000.
    pub fn new() -> Self {
        Self::default()
    }

    /// How deeply collections, structures and dynamic wrappers may nest.
    pub fn max_depth(mut self, n: usize) -> Self {
        self.max_depth = n;
        self
    }

    /// How many elements one list, set, map or tuple may have. This also
    /// bounds the known lists that a length refinement collapses into.
    pub fn max_collection_len(mut self, n: usize) -> Self {
        self.max_collection_len = n;
        self
    }

    /// How many bytes of input a decoder accepts.
    pub fn max_input_len(mut self, n: usize) -> Self {
        self.max_input_len = n;
        self
    }

    /// How large a decimal exponent a number written as text may have
    /// (`1e400` has 400). Bounds the digits one short number can expand to.
    pub fn max_number_exponent(mut self, n: u32) -> Self {
        self.max_number_exponent = n;
        self
    }

    /// No limits: for reading back bytes ctywire itself just wrote from
    /// values already in memory.
    #[cfg(feature = "serde")]
    pub(crate) fn unlimited() -> Self {
        DecodeOptions {
            max_depth: usize::MAX,
            max_collection_len: usize::MAX,
            max_input_len: usize::MAX,
            max_number_exponent: u32::MAX,
        }
    }

    /// An error unless `len` bytes of input are within `max_input_len`.
    pub fn check_input_len(&self, len: usize) -> Result<()> {
        if len > self.max_input_len {
            return Err(Error::limit(format!(
                "input of {len} bytes exceeds max_input_len ({})",
                self.max_input_len
            )));
        }
        Ok(())
    }

    /// An error unless a collection of `len` elements is within
    /// `max_collection_len`.
    pub fn check_collection_len(&self, len: u64) -> Result<()> {
        if len > self.max_collection_len as u64 {
            return Err(Error::limit(format!(
                "collection of {len} elements exceeds max_collection_len ({})",
                self.max_collection_len
            )));
        }
        Ok(())
    }

    /// An error unless nesting `depth` levels deep is within `max_depth`.
    pub fn check_depth(&self, depth: usize) -> Result<()> {
        if depth > self.max_depth {
            return Err(Error::limit(format!(
                "value nests deeper than max_depth ({})",
                self.max_depth
            )));
        }
        Ok(())
    }
}
