//! The JSON encoding of cty values: what `DynamicValue.json`, `RawState.json`
//! and state files hold.
//!
//! | type | JSON |
//! |---|---|
//! | null (any type) | `null` |
//! | unknown | cannot be written: an error (`value is not known`) |
//! | string | a JSON string, escaped as Go's `encoding/json` does (`<` → `\u003c`) |
//! | number | its exact decimal text, never an exponent (`100000000000000000000`); infinity is an error |
//! | bool | `true` / `false` |
//! | list, set, tuple | an array; a set in canonical order (as in msgpack) |
//! | map | an object, keys sorted bytewise |
//! | object | an object with every attribute, names sorted bytewise |
//! | dynamic | `{"value":V,"type":T}` (in that order), or `null` for a null of unknown type |
//!
//! Output is compact. **Decoding** is as lenient as go-cty's: a number may
//! come as a JSON string (`"12"`), a string as a number or bool (the
//! literal text is kept: `1.50` → `"1.50"`), a bool as `"true"`/`"1"`/
//! `"false"`/`"0"`; a missing object attribute becomes null; a dynamic
//! wrapper's keys may come in any order. It refuses unknown attributes,
//! trailing data, and what go-cty would crash on.
//!
//! ```
//! use ctywire::{json, Type};
//! let ty = Type::parse(r#"["object",{"a":"string","b":"number","c":"bool"}]"#)?;
//! let v = json::decode(br#"{"b":"12","a":1.50}"#, &ty)?;
//! assert_eq!(json::encode(&v, &ty)?, br#"{"a":"1.50","b":12,"c":null}"#);
//! # Ok::<(), ctywire::Error>(())
//! ```

mod decode;
mod encode;
// Public items, reached from outside only through the hidden
// `crate::__private` (for ctywire-bridge and ctywire-provider's harness),
// so not documented as API.
#[allow(missing_docs)]
pub(crate) mod read;
#[cfg(feature = "serde")]
mod ser;

use crate::error::{Error, Result};
use crate::types::Type;
use crate::value::Value;
use crate::DecodeOptions;

/// Encodes `value` as the JSON form of type `ty`.
pub fn encode(value: &Value, ty: &Type) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(64);
    encode::encode_into(&mut out, value, ty)?;
    Ok(out)
}

/// [`encode`], as a `String`.
pub fn encode_string(value: &Value, ty: &Type) -> Result<String> {
    // The encoder writes valid UTF-8 only; were that ever broken, this
    // says so instead of returning something else.
    String::from_utf8(encode(value, ty)?)
        .map_err(|_| Error::unrepresentable("internal error: the JSON encoder wrote invalid UTF-8"))
}

/// [`encode`], appending to `out`.
pub fn encode_into(out: &mut Vec<u8>, value: &Value, ty: &Type) -> Result<()> {
    encode::encode_into(out, value, ty)
}

/// Decodes JSON text as type `ty`, with the default [`DecodeOptions`].
pub fn decode(text: &[u8], ty: &Type) -> Result<Value> {
    decode::decode(text, ty, &DecodeOptions::default())
}

/// Decodes JSON text as type `ty`, with explicit limits.
pub fn decode_with(text: &[u8], ty: &Type, opts: &DecodeOptions) -> Result<Value> {
    decode::decode(text, ty, opts)
}

/// A serde type written as the JSON form of type `ty`: exactly what
/// [`encode`] writes for [`to_value`](crate::to_value)`(value, ty)`.
/// *Needs the `serde` feature.*
///
/// ```
/// use std::collections::BTreeSet;
/// use ctywire::{json, Type};
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct Fw { ports: BTreeSet<u16>, size: Option<i64> }
/// let ty = Type::parse(r#"["object",{"ports":["set","number"],"size":"number"}]"#)?;
/// let text = json::to_vec(&Fw { ports: [443, 80].into(), size: None }, &ty)?;
/// assert_eq!(text, br#"{"ports":[80,443],"size":null}"#);
/// let back: Fw = json::from_slice(br#"{"ports":[443,80,80]}"#, &ty)?;
/// assert_eq!(back, Fw { ports: [80, 443].into(), size: None });
/// # Ok::<(), ctywire::Error>(())
/// ```
#[cfg(feature = "serde")]
pub fn to_vec<T: serde::Serialize + ?Sized>(value: &T, ty: &Type) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(64);
    ser::to_json(&mut out, value, ty)?;
    Ok(out)
}

/// [`to_vec`], appending to `out`, which can be reused from one value to
/// the next as [`encode_into`]'s can. On an error `out` is left as it was.
/// *Needs the `serde` feature.*
///
/// ```
/// use ctywire::{json, Type};
/// let ty = Type::parse(r#"["map","number"]"#)?;
/// let mut out = Vec::new();
/// for ports in [[("https", 443), ("http", 80)], [("ssh", 22), ("dns", 53)]] {
///     out.clear();
///     json::to_vec_into(&mut out, &std::collections::HashMap::from(ports), &ty)?;
///     assert_eq!(out, json::to_vec(&std::collections::BTreeMap::from(ports), &ty)?);
/// }
/// assert_eq!(out, br#"{"dns":53,"ssh":22}"#);
/// assert!(json::to_vec_into(&mut out, &vec![1.5], &Type::list(Type::Bool)).is_err());
/// assert_eq!(out, br#"{"dns":53,"ssh":22}"#);
/// # Ok::<(), ctywire::Error>(())
/// ```
#[cfg(feature = "serde")]
pub fn to_vec_into<T: serde::Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
    ty: &Type,
) -> Result<()> {
    ser::to_json(out, value, ty)
}

/// JSON text of type `ty` read into a serde type, with the default
/// [`DecodeOptions`]: the same limits, leniencies and refusals as
/// [`decode`], and errors at the path of the offending element.
/// Strings are lent out of `text` as [`msgpack::from_slice`] lends them,
/// except those written with escapes (their text is not in the input as
/// it is). *Needs the `serde` feature.*
///
/// [`msgpack::from_slice`]: crate::msgpack::from_slice
#[cfg(feature = "serde")]
pub fn from_slice<'a, T: serde::Deserialize<'a>>(text: &'a [u8], ty: &Type) -> Result<T> {
    from_slice_with(text, ty, &DecodeOptions::default())
}

/// [`from_slice`] with explicit limits. *Needs the `serde` feature.*
#[cfg(feature = "serde")]
pub fn from_slice_with<'a, T: serde::Deserialize<'a>>(
    text: &'a [u8],
    ty: &Type,
    opts: &DecodeOptions,
) -> Result<T> {
    crate::typed::from_wire(decode::wire(text), text.len(), ty, opts)
}
