//! Map keys and attribute names as serde reads them, for both
//! deserializers ([`from_value`](super::from_value) and `from_slice`).
//!
//! A cty key is a string. Asked for a number or a bool (a
//! `BTreeMap<u32, _>`, as serde_json's map keys allow), the key converts
//! as go-cty converts a string (`"10"` → 10, `"true"` → true), and the
//! number then goes through the same rules as a number value (exact
//! integers in range, floats within range); writing such a map back writes
//! the key's canonical text. Anything else reads the text itself.

use serde::de::{self, Visitor};

use super::de::ValueDeserializer;
use crate::convert::{bool_from_string, number_from_string};
use crate::error::{Error, Result};
use crate::value::Value;

/// One key; the caller puts its path step on any error.
pub(crate) struct KeyDeserializer<'k, 'de> {
    text: Text<'k, 'de>,
    /// For keys read as numbers: the decimal exponent a number's text may
    /// have (a key's text is bounded only by the input).
    max_exponent: u32,
}

#[derive(Clone, Copy)]
enum Text<'k, 'de> {
    /// Held by the input for as long as the deserializer's lifetime: lent
    /// out (`&str`, `#[serde(borrow)] Cow<str>` keys).
    Lent(&'de str),
    /// Held only for the call.
    Passing(&'k str),
}

impl<'k, 'de> KeyDeserializer<'k, 'de> {
    pub(crate) fn lent(text: &'de str, max_exponent: u32) -> Self {
        KeyDeserializer {
            text: Text::Lent(text),
            max_exponent,
        }
    }

    pub(crate) fn passing(text: &'k str, max_exponent: u32) -> Self {
        KeyDeserializer {
            text: Text::Passing(text),
            max_exponent,
        }
    }

    fn text(&self) -> &str {
        match self.text {
            Text::Lent(s) => s,
            Text::Passing(s) => s,
        }
    }

    fn visit_text<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.text {
            Text::Lent(s) => visitor.visit_borrowed_str(s),
            Text::Passing(s) => visitor.visit_str(s),
        }
    }

    /// The key converted to a number, as a value for
    /// [`ValueDeserializer`]'s number rules.
    fn number(&self) -> Result<Value> {
        number_from_string(self.text(), self.max_exponent)
            .map(Value::number)
            .map_err(key_context)
    }
}

/// A conversion error names what failed: the key, not the value at the
/// key's path.
fn key_context(e: Error) -> Error {
    e.in_context("a map key")
}

/// The number requests: the key as a number, then a number value's rule.
macro_rules! numbers {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            let n = self.number()?;
            de::Deserializer::$method(ValueDeserializer::new(&n), visitor).map_err(key_context)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for KeyDeserializer<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_text(visitor)
    }

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let b = bool_from_string(self.text()).map_err(key_context)?;
        visitor.visit_bool(b)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // A string value's rule: exactly one character.
        let s = Value::string(self.text());
        de::Deserializer::deserialize_char(ValueDeserializer::new(&s), visitor).map_err(key_context)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // A key is never null.
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        // A unit variant named by the key.
        match self.text {
            Text::Lent(s) => {
                visitor.visit_enum(de::value::BorrowedStrDeserializer::<Error>::new(s))
            }
            Text::Passing(s) => visitor.visit_enum(de::value::StrDeserializer::<Error>::new(s)),
        }
    }

    serde::forward_to_deserialize_any! {
        str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}
