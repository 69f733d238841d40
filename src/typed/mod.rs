//! Typed values: serde types in and out of cty, driven by a [`Type`].
//! The rules and tables are in the crate documentation ("Typed values").
//!
//! This is the bridge between serde and [`Value`]; each format's own
//! serializer (`msgpack::to_vec`, `json::to_vec`) lives with the format
//! and builds on it. `ser` writes a Rust value as a [`Value`] of a given
//! type, `de` reads one out of a [`Value`], `wire` reads one straight
//! from a format's bytes over the shared decoder, `key` reads map keys,
//! `rules` holds what the readers share, `private` how ctywire's own
//! types pass through in band, `impls` serde for those types,
//! `unknowable` the wrapper for unknowns, `with` adapters for other
//! crates' numbers.

mod de;
mod impls;
mod key;
pub(crate) mod private;
mod rules;
pub(crate) mod ser;
mod unknowable;
mod wire;
pub mod with;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::types::Type;
use crate::value::Value;

pub use impls::IgnoredAttributes;
pub use unknowable::Unknowable;
pub(crate) use wire::from_wire;

/// A `Serialize` type as a [`Value`] of type `ty`.
///
/// ```
/// use ctywire::{to_value, Type};
/// #[derive(serde::Serialize)]
/// struct Rule { ports: Vec<u16>, note: Option<String> }
/// let ty = Type::parse(r#"["object",{"ports":["set","number"],"note":"string"}]"#)?;
/// let v = to_value(&Rule { ports: vec![443, 80, 443], note: None }, &ty)?;
/// // A set: canonical order and de-duplicated, whatever the Vec held.
/// assert_eq!(v.to_string(), r#"{"note" = null, "ports" = [80, 443]}"#);
/// assert_eq!(v.ty(), &ty);
/// # Ok::<(), ctywire::Error>(())
/// ```
pub fn to_value<T: Serialize + ?Sized>(value: &T, ty: &Type) -> Result<Value> {
    value.serialize(ser::TypedSerializer { ty })
}

/// A `Deserialize` type read out of a [`Value`]; the value's own type
/// drives it.
///
/// ```
/// use ctywire::{from_value, Type, Value};
/// #[derive(serde::Deserialize, Debug)]
/// struct Rule { port: u16 }
/// let v = Value::list(Type::Dynamic, vec![
///     Value::object([("port", Value::number(80))]),
///     Value::object([("port", Value::number(70000))]),
/// ])?;
/// let err = from_value::<Vec<Rule>>(&v).unwrap_err();
/// assert_eq!(err.to_string(), "[1].port: an integer in the range of u16 is required (got 70000)");
/// # Ok::<(), ctywire::Error>(())
/// ```
pub fn from_value<T: DeserializeOwned>(value: &Value) -> Result<T> {
    T::deserialize(de::ValueDeserializer::new(value))
}

impl serde::ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::data(msg.to_string())
    }
}

impl serde::de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::data(msg.to_string())
    }
}
