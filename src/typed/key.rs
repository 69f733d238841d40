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

use super::rules;
use crate::convert::{bool_from_string, number_from_string};
use crate::error::{Error, Result};
use crate::number::Number;

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

    /// The key converted to a number, for a number value's rules.
    fn number(&self) -> Result<Number> {
        number_from_string(self.text(), self.max_exponent).map_err(key_context)
    }
}

/// A conversion error names what failed: the key, not the value at the
/// key's path.
fn key_context(e: Error) -> Error {
    e.in_context("a map key")
}

/// The integer requests: the key as a number, then a number value's rule.
macro_rules! integers {
    ($($method:ident $visit:ident $t:ty;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            let n = self.number()?;
            rules::integer::<$t>(&n, stringify!($t))
                .and_then(|i| visitor.$visit(i))
                .map_err(key_context)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for KeyDeserializer<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_text(visitor)
    }

    integers! {
        deserialize_i8 visit_i8 i8;
        deserialize_i16 visit_i16 i16;
        deserialize_i32 visit_i32 i32;
        deserialize_i64 visit_i64 i64;
        deserialize_i128 visit_i128 i128;
        deserialize_u8 visit_u8 u8;
        deserialize_u16 visit_u16 u16;
        deserialize_u32 visit_u32 u32;
        deserialize_u64 visit_u64 u64;
        deserialize_u128 visit_u128 u128;
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let n = self.number()?;
        rules::float32(&n)
            .and_then(|f| visitor.visit_f32(f))
            .map_err(key_context)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let n = self.number()?;
        rules::float(&n)
            .and_then(|f| visitor.visit_f64(f))
            .map_err(key_context)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let b = bool_from_string(self.text()).map_err(key_context)?;
        visitor.visit_bool(b)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // A string value's rule: exactly one character.
        rules::one_char(self.text())
            .and_then(|c| visitor.visit_char(c))
            .map_err(key_context)
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
