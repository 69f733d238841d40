//! The rules every typed deserializer shares: how a cty number becomes a
//! Rust integer or float, how a string becomes a `char`, and the errors a
//! plain field gets for a null, an unknown or trailing elements. Values
//! ([`from_value`](super::from_value)), map keys (`key`) and the wire
//! (`wire`) all read through these, so each rule is written once.

use crate::error::{Error, Result};
use crate::number::Number;
use crate::types::Type;

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

/// `n` as an exact integer of type `T`, named `name` in messages.
pub(crate) fn integer<T: TryFrom<i128> + TryFrom<u128>>(n: &Number, name: &str) -> Result<T> {
    let out_of_range = || {
        Error::data(format!(
            "an integer in the range of {name} is required (got {n})"
        ))
    };
    if let Some(i) = n.to_i64() {
        return T::try_from(i128::from(i)).map_err(|_| out_of_range());
    }
    if !n.is_integer() {
        return Err(Error::data(format!("an integer is required (got {n})")));
    }
    // Beyond i64: canonical text is plain digits for an integer. Too many
    // digits for 128 bits is out of range for every T.
    let text = n.to_string();
    if let Ok(i) = text.parse::<i128>() {
        return T::try_from(i).map_err(|_| out_of_range());
    }
    match text.parse::<u128>() {
        Ok(u) => T::try_from(u).map_err(|_| out_of_range()),
        Err(_) => Err(out_of_range()),
    }
}

/// The nearest f64 to `n`.
pub(crate) fn float(n: &Number) -> Result<f64> {
    let f = n.to_f64();
    in_float_range(n, f, f.is_infinite(), "f64", f64::MAX)
}

/// The nearest f32 to `n`.
pub(crate) fn float32(n: &Number) -> Result<f32> {
    let f = n.to_f64() as f32;
    in_float_range(n, f, f.is_infinite(), "f32", f32::MAX)
}

/// `f`, the nearest float of type `name` to `n`, unless it is an
/// `infinite` that `n` is not: a finite number beyond the type's range
/// would become an infinity, which writing back would write instead of
/// it. Checked after the (cheap) conversion, so a number in range pays one
/// comparison. The number is left out of the message: it may have
/// hundreds of digits.
fn in_float_range<F: std::fmt::LowerExp>(
    n: &Number,
    f: F,
    infinite: bool,
    name: &str,
    max: F,
) -> Result<F> {
    if infinite && !n.is_infinite() {
        return Err(Error::data(format!(
            "a number in the range of {name} is required (got one beyond ±{max:e})"
        )));
    }
    Ok(f)
}

/// The one character of `s`.
pub(crate) fn one_char(s: &str) -> Result<char> {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(Error::data(format!(
            "a string of one character is required (got {s:?})"
        ))),
    }
}
