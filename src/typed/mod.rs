//! Typed values: serde types in and out of cty, driven by a [`Type`].
//! The rules and tables are in the crate documentation ("Typed values").
//!
//! `ser` writes a Rust value as a [`Value`] of a given type, `de` reads one
//! out of a [`Value`], `wire` reads one straight from the bytes over the
//! shared decoder, `impls` has serde for ctywire's own types, `unknowable`
//! the wrapper for unknowns, `with` adapters for other crates' numbers.

/// serde's three sequence traits for a type whose `element` and `finish`
/// do the work: both serializers take sequences, tuples and tuple structs
/// alike.
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

mod de;
mod impls;
mod key;
mod msgpack_ser;
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

/// Whether `name` is one of the private names above.
pub(crate) fn is_private_name(name: &str) -> bool {
    name == VALUE_TOKEN || name == NUMBER_TOKEN || name == UNKNOWABLE_TOKEN
}

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
    let name = std::any::type_name::<S>();
    name == std::any::type_name::<ser::TypedSerializer<'static>>()
        || name == std::any::type_name::<msgpack_ser::MsgpackSerializer<'static, 'static>>()
}

/// [`to_value`] and `msgpack::encode`, in one pass where it can, appended
/// to `out`; on an error `out` is left as it was.
pub(crate) fn to_msgpack<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
    ty: &Type,
) -> Result<()> {
    let len = out.len();
    let written = value.serialize(msgpack_ser::MsgpackSerializer { out, ty });
    if written.is_err() {
        out.truncate(len);
    }
    written
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

/// A Rust tuple or array that took fewer elements than the list, set or
/// tuple holds: refused rather than dropping the rest, as serde_json
/// refuses trailing elements. For both deserializers.
pub(crate) fn trailing_elements(taken: usize, given: usize) -> Error {
    Error::data(format!(
        "trailing elements: {given} given, the Rust type takes {taken}"
    ))
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
