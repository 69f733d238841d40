//! The msgpack encoding of cty values: what `DynamicValue.msgpack` holds.
//!
//! The encoding is driven by the type the value is read or written as (for
//! Terraform, the schema's implied type); the bytes alone do not say which
//! cty type they hold.
//!
//! | type | msgpack |
//! |---|---|
//! | null (any type) | nil `c0` |
//! | unknown, nothing known about it | fixext1, type 0, payload `00`: `d4 00 00` |
//! | unknown with refinements | ext type `0x0c`, payload a map of refinement keys (below) |
//! | string | str, smallest header (`a0`+len, `d9`, `da`, `db`) |
//! | bool | `c3` / `c2` |
//! | number | an integer that fits int64: smallest int form (positive values use the unsigned family); a non-integer float64 holds exactly: `cb` float64; anything else: str of its decimal text (`"0.1"`, `"18446744073709551616"`); ±infinity: `cb` float64 |
//! | list, set | array of the elements; a set in canonical order (see below) |
//! | tuple | array, one element per element type |
//! | map | map, keys sorted bytewise |
//! | object | map with exactly one entry per attribute, names sorted bytewise |
//! | dynamic | `[bin(type JSON), value encoded at that type]`, except that a wholly unknown value (`d4 00 00`) and a null of unknown type (`c0`) are written bare |
//!
//! **Sets** are written in go-cty's order: strings bytewise, numbers
//! numerically, `false` before `true`, other element types by go-cty's
//! "hash string"; unknown elements after known ones, null last (see
//! `src/set/` for the full rule).
//!
//! **Unknowns** and their refinements (ext `0x0c`, keys 1–6) are written
//! and read in one place, `src/msgpack/unknown.rs`, whose documentation has
//! the table. A prefix longer than 256 bytes is shortened to a safe prefix
//! of at most 255.
//!
//! **Decoding** accepts every form go-cty accepts: any int, uint or float
//! width for numbers, strings for numbers (`"1e3"`), bin for strings,
//! non-minimal headers, any ext with a payload of at most one byte as a
//! plain unknown, and a dynamic wrapper's type JSON as str. It refuses
//! trailing bytes, and returns errors where go-cty would crash.
//!
//! ```
//! use ctywire::{msgpack, Type, Value};
//! let ty = Type::set(Type::String);
//! let v = msgpack::decode(&[0x93, 0xa1, b'c', 0xa1, b'a', 0xa1, b'c'], &ty)?;
//! assert_eq!(msgpack::encode(&v, &ty)?, [0x92, 0xa1, b'a', 0xa1, b'c']);
//! let dynamic = msgpack::encode(&Value::string("hi"), &Type::Dynamic)?;
//! assert_eq!(dynamic, b"\x92\xc4\x08\"string\"\xa2hi");
//! # Ok::<(), ctywire::Error>(())
//! ```

mod decode;
mod encode;
mod read;
#[cfg(feature = "serde")]
mod ser;
// The typed layer's: its sets are written in order, and read that way.
#[cfg(feature = "serde")]
mod set_order;
mod unknown;
mod write;

use crate::error::Result;
use crate::types::Type;
use crate::value::Value;
use crate::DecodeOptions;

/// Encodes `value` as the msgpack form of type `ty`.
///
/// A value that does not conform to `ty` is first converted to it, as
/// go-cty's `Marshal` does ([`Value::convert`]: `5` is written as the
/// string `"5"`, a tuple as a list); what does not convert is an error at
/// its path.
pub fn encode(value: &Value, ty: &Type) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(64);
    encode::encode_into(&mut out, value, ty)?;
    Ok(out)
}

/// [`encode`], appending to `out`.
pub fn encode_into(out: &mut Vec<u8>, value: &Value, ty: &Type) -> Result<()> {
    encode::encode_into(out, value, ty)
}

/// Decodes msgpack bytes as type `ty`, with the default [`DecodeOptions`].
pub fn decode(bytes: &[u8], ty: &Type) -> Result<Value> {
    decode::decode(bytes, ty, &DecodeOptions::default())
}

/// Decodes msgpack bytes as type `ty`, with explicit limits.
pub fn decode_with(bytes: &[u8], ty: &Type, opts: &DecodeOptions) -> Result<Value> {
    decode::decode(bytes, ty, opts)
}

/// A serde type written as the msgpack form of type `ty`: exactly what
/// [`encode`] writes for [`to_value`](crate::to_value)`(value, ty)`.
/// *Needs the `serde` feature.*
///
/// ```
/// use ctywire::{msgpack, Type};
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct Rule { port: u16, note: Option<String> }
/// let ty = Type::parse(r#"["list",["object",{"port":"number","note":"string"}]]"#)?;
/// let rules = vec![Rule { port: 443, note: None }];
/// let bytes = msgpack::to_vec(&rules, &ty)?;
/// assert_eq!(bytes, [0x91, 0x82, 0xa4, b'n', b'o', b't', b'e', 0xc0, 0xa4, b'p', b'o', b'r', b't', 0xcd, 0x01, 0xbb]);
/// assert_eq!(msgpack::from_slice::<Vec<Rule>>(&bytes, &ty)?, rules);
/// # Ok::<(), ctywire::Error>(())
/// ```
#[cfg(feature = "serde")]
pub fn to_vec<T: serde::Serialize + ?Sized>(value: &T, ty: &Type) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(64);
    ser::to_msgpack(&mut out, value, ty)?;
    Ok(out)
}

/// [`to_vec`], appending to `out`, which can be reused from one value to
/// the next as [`encode_into`]'s can. On an error `out` is left as it was.
/// *Needs the `serde` feature.*
///
/// ```
/// use ctywire::{msgpack, Type};
/// let ty = Type::parse(r#"["set","string"]"#)?;
/// let mut out = Vec::new();
/// for ids in [vec!["b", "a", "b"], vec!["c"]] {
///     out.clear();
///     msgpack::to_vec_into(&mut out, &ids, &ty)?;
///     assert_eq!(out, msgpack::to_vec(&ids, &ty)?);
/// }
/// assert!(msgpack::to_vec_into(&mut out, &vec![1.5], &Type::list(Type::Bool)).is_err());
/// assert_eq!(out, [0x91, 0xa1, b'c']);
/// # Ok::<(), ctywire::Error>(())
/// ```
#[cfg(feature = "serde")]
pub fn to_vec_into<T: serde::Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
    ty: &Type,
) -> Result<()> {
    ser::to_msgpack(out, value, ty)
}

/// msgpack bytes of type `ty` read into a serde type, with the default
/// [`DecodeOptions`]: the same limits and refusals as [`decode`], and
/// errors at the path of the offending element. *Needs the `serde` feature.*
///
/// Strings can be borrowed from `bytes`, as serde_json lends them: a
/// `&str` or `#[serde(borrow)] Cow<str>` field takes the input's own text.
/// Text that is not in NFC has to be normalized first, so a `Cow` gets a
/// copy of it and a `&str` field refuses it at its path.
///
/// ```
/// use std::borrow::Cow;
/// use std::collections::BTreeMap;
/// use ctywire::{msgpack, Type, Value};
/// #[derive(serde::Deserialize)]
/// struct Tagged<'a> {
///     #[serde(borrow)]
///     name: Cow<'a, str>,
///     tags: BTreeMap<&'a str, &'a str>,
/// }
/// let ty = Type::parse(r#"["object",{"name":"string","tags":["map","string"]}]"#)?;
/// let bytes = msgpack::encode(
///     &Value::object([
///         ("name", Value::string("café")),
///         ("tags", Value::map(Type::String, [("tier", Value::string("web"))])?),
///     ]),
///     &ty,
/// )?;
/// let read: Tagged = msgpack::from_slice(&bytes, &ty)?;
/// assert!(matches!(read.name, Cow::Borrowed("café")));
/// assert_eq!(read.tags["tier"], "web");
/// # Ok::<(), ctywire::Error>(())
/// ```
#[cfg(feature = "serde")]
pub fn from_slice<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8], ty: &Type) -> Result<T> {
    from_slice_with(bytes, ty, &DecodeOptions::default())
}

/// [`from_slice`] with explicit limits. *Needs the `serde` feature.*
#[cfg(feature = "serde")]
pub fn from_slice_with<'a, T: serde::Deserialize<'a>>(
    bytes: &'a [u8],
    ty: &Type,
    opts: &DecodeOptions,
) -> Result<T> {
    crate::typed::from_wire(read::Reader::new(bytes), bytes.len(), ty, opts)
}
