//! Typed values: serde types in and out of cty, driven by a [`Type`].
//!
//! [`to_value`] and [`from_value`] move a `Serialize`/`Deserialize` type
//! to and from a [`Value`]; `msgpack::to_vec`/`from_slice` and
//! `json::to_vec`/`from_slice` do the same with the wire bytes. The type
//! decides the shape on the wire, so one Rust shape can stand for several
//! cty types:
//!
//! | cty | Rust |
//! |---|---|
//! | string | `String`, `&str`, `char`, a unit enum variant (its name) |
//! | number | `i8`…`i128`, `u8`…`u128` (exact only), `f32`/`f64` (nearest), [`Number`](crate::Number) (exact), `String` (decimal text) |
//! | bool | `bool` |
//! | list, set, tuple | `Vec<T>`, `BTreeSet<T>`, `[T; N]`, `(A, B)`; a set is written de-duplicated in canonical order |
//! | map, object | a struct, `BTreeMap<String, T>`, `HashMap<String, T>` |
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
//! (unless it is skipped, or `#[serde(default)]` when reading). A field
//! skipped by `skip_serializing_if` is written as null.
//!
//! *Needs the `serde` feature.*

mod de;
mod impls;
mod ser;
mod unknowable;
mod wire;
pub mod with;

use std::cell::RefCell;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::number::Number;
use crate::refinements::Refinements;
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

/// The newtype-struct names through which ctywire's own types reach
/// ctywire's own serializer and deserializer. Serde's data model has no
/// "cty value", "exact number" or "unknown", so the (de)serializer answers
/// these names, and only these, by handing the thing itself over through
/// [`STASH`]; any other (de)serializer sees an ordinary newtype.
pub(crate) const VALUE_TOKEN: &str = "$ctywire::private::Value";
pub(crate) const NUMBER_TOKEN: &str = "$ctywire::private::Number";
pub(crate) const UNKNOWABLE_TOKEN: &str = "$ctywire::private::Unknowable";

/// What passes between a ctywire type and ctywire's (de)serializer beside
/// serde's calls.
pub(crate) enum Stashed {
    Value(Value),
    Number(Number),
    Unknown(Refinements),
}

thread_local! {
    /// Filled immediately before the one serde call that consumes it and
    /// emptied by that call (or right after it), so it never holds
    /// anything between calls.
    static STASH: RefCell<Option<Stashed>> = const { RefCell::new(None) };
}

pub(crate) fn stash(s: Stashed) {
    STASH.with(|c| *c.borrow_mut() = Some(s));
}

pub(crate) fn take_stash() -> Option<Stashed> {
    STASH.with(|c| c.borrow_mut().take())
}

/// Whether `S` is ctywire's serializer: serde offers no other way to ask
/// a serializer what it is, and ours has one unambiguous name.
pub(crate) fn is_typed_serializer<S>() -> bool {
    std::any::type_name::<S>() == std::any::type_name::<ser::TypedSerializer<'static>>()
}

/// The wrapper hint of a null that reached a plain field.
pub(crate) fn null_error() -> Error {
    Error::data("the value is null; read it into an Option<T> to accept null")
}

/// The wrapper hint of an unknown that reached a plain field.
pub(crate) fn unknown_error() -> Error {
    Error::data(
        "the value is unknown (known after apply); read it into a ctywire::Unknowable<T> to accept unknowns",
    )
}

/// How messages name what a type requires (`a number`, `an object`), in
/// the decoders' words.
pub(crate) fn required_form(ty: &Type) -> &'static str {
    match ty {
        Type::String => "a string",
        Type::Number => "a number",
        Type::Bool => "a bool",
        Type::Dynamic => "a value",
        Type::List(_) => "a list",
        Type::Set(_) => "a set",
        Type::Map(_) => "a map",
        Type::Object(_) => "an object",
        Type::Tuple(_) => "a tuple",
    }
}
