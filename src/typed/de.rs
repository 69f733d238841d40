//! Serde deserialization out of a [`Value`]: [`from_value`](super::from_value).
//!
//! The value's own type drives it. A null reaches only `deserialize_option`
//! (and `()`), an unknown only [`Unknowable`](super::Unknowable) and
//! [`Value`]; anywhere else they are errors that say which wrapper takes
//! them. Integers must be exact; `f64`/`f32` take the nearest value, and
//! refuse a finite number beyond their range (an infinity on the wire is
//! one). A Rust tuple or array takes all the elements or none.

use serde::de::value::StrDeserializer;
use serde::de::{self, DeserializeSeed, Visitor};

use super::key::KeyDeserializer;
use super::private::{
    refinements_as_value, visit_number, Handover, NUMBER_TOKEN, UNKNOWABLE_TOKEN, UNKNOWN_TOKEN,
    VALUE_TOKEN,
};
use super::rules::{self, null_error, required_form, trailing_elements, unknown_error};
use crate::error::{Error, Result};
use crate::number::{Number, DEFAULT_MAX_NUMBER_EXPONENT};
use crate::path::PathStep;
use crate::refinements::Refinements;
use crate::types::Type;
use crate::value::{Repr, Value};

/// Reads one value. `fields` is set for an attribute of an object read
/// into a struct: the struct's fields, named when the struct has no field
/// for the attribute.
pub(crate) struct ValueDeserializer<'v> {
    v: &'v Value,
    fields: Option<&'static [&'static str]>,
}

impl<'v> ValueDeserializer<'v> {
    pub(crate) fn new(v: &'v Value) -> Self {
        ValueDeserializer { v, fields: None }
    }

    /// An attribute's deserializer, for a struct with these `fields`.
    pub(crate) fn attribute(v: &'v Value, fields: Option<&'static [&'static str]>) -> Self {
        ValueDeserializer { v, fields }
    }

    /// The known value, or the error a plain field gets for a null or an
    /// unknown.
    fn known(&self) -> Result<&'v Repr> {
        match self.v.repr() {
            Repr::Null(_) => Err(null_error()),
            Repr::Unknown(..) => Err(unknown_error()),
            r => Ok(r),
        }
    }

    fn mismatch(&self, want: &str) -> Error {
        Error::data(format!(
            "{want} is required, not {}",
            required_form(self.v.ty())
        ))
    }

    fn number(&self, want: &str) -> Result<&'v Number> {
        match self.known()? {
            Repr::Number(n) => Ok(n),
            _ => Err(self.mismatch(want)),
        }
    }

    /// An exact integer of type `T`, named `name` in messages.
    fn integer<T: TryFrom<i128> + TryFrom<u128>>(&self, name: &str) -> Result<T> {
        rules::integer(self.number("a number")?, name)
    }

    /// The elements of a known list, set or tuple.
    fn elements(&self, want: &str) -> Result<&'v [Value]> {
        match self.known()? {
            Repr::Seq(ty, elems) if !matches!(ty, Type::Object(_)) => Ok(elems),
            _ => Err(self.mismatch(want)),
        }
    }

    fn entries<'de, V: Visitor<'de>>(
        &self,
        visitor: V,
        fields: Option<&'static [&'static str]>,
        want: &str,
    ) -> Result<V::Value> {
        match self.known()? {
            Repr::Seq(Type::Object(o), values) => visitor.visit_map(EntriesAccess {
                entries: o.attributes().map(|(n, _)| n).zip(values.iter()),
                pending: None,
                attributes: true,
                fields,
            }),
            Repr::Map(_, m) => visitor.visit_map(EntriesAccess {
                entries: m.iter().map(|(k, v)| (k.as_str(), v)),
                pending: None,
                attributes: false,
                fields,
            }),
            _ => Err(self.mismatch(want)),
        }
    }
}

macro_rules! integers {
    ($($method:ident $visit:ident $t:ty;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            visitor.$visit(self.integer::<$t>(stringify!($t))?)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for ValueDeserializer<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.v.repr() {
            Repr::Null(_) => visitor.visit_unit(),
            Repr::Unknown(..) => Err(unknown_error()),
            Repr::String(s) => visitor.visit_str(s),
            Repr::Number(n) => {
                if let Some(i) = n.to_i64() {
                    visitor.visit_i64(i)
                } else if let Some(u) = n.to_u64() {
                    visitor.visit_u64(u)
                } else {
                    visitor.visit_f64(rules::float(n)?)
                }
            }
            Repr::Bool(b) => visitor.visit_bool(*b),
            Repr::Seq(Type::Object(_), _) | Repr::Map(..) => self.entries(visitor, None, ""),
            Repr::Seq(_, elems) => visit_elements(elems, visitor),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.known()? {
            Repr::Bool(b) => visitor.visit_bool(*b),
            _ => Err(self.mismatch("a bool")),
        }
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
        visitor.visit_f32(rules::float32(self.number("a number")?)?)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_f64(rules::float(self.number("a number")?)?)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.known()? {
            Repr::String(s) => visitor.visit_char(rules::one_char(s)?),
            _ => Err(self.mismatch("a string")),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // A number or bool stands for its text, as go-cty converts them.
        match self.known()? {
            Repr::String(s) => visitor.visit_str(s),
            Repr::Number(n) => visitor.visit_string(n.to_string()),
            Repr::Bool(b) => visitor.visit_str(if *b { "true" } else { "false" }),
            _ => Err(self.mismatch("a string")),
        }
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.known()? {
            Repr::String(s) => visitor.visit_bytes(s.as_bytes()),
            _ => Err(self.mismatch("a string")),
        }
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.v.repr() {
            Repr::Null(_) => visitor.visit_none(),
            Repr::Unknown(..) => Err(Error::data(
                "the value is unknown (known after apply); read it into a ctywire::Unknowable<Option<T>> to accept unknowns",
            )),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.v.repr() {
            Repr::Null(_) => visitor.visit_unit(),
            Repr::Unknown(..) => Err(unknown_error()),
            _ => Err(self.mismatch("null")),
        }
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        // ctywire's own types, answered in band (see `private`).
        match name {
            VALUE_TOKEN => visit_value(self.v, visitor),
            NUMBER_TOKEN => match self.known()? {
                // The number itself: its text would lose whether it came
                // as a float64, which decides how it is written back.
                Repr::Number(n) => visit_number(n, visitor),
                // A string holding a number converts.
                Repr::String(s) => visitor.visit_str(s),
                _ => Err(self.mismatch("a number")),
            },
            UNKNOWABLE_TOKEN => match self.v.repr() {
                Repr::Unknown(..) => {
                    let none = Refinements::default();
                    visit_unknown(self.v.refinements().unwrap_or(&none), visitor)
                }
                _ => visitor.visit_newtype_struct(self),
            },
            _ => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let elems = self.elements("a list, set or tuple")?;
        visit_elements(elems, visitor)
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.entries(visitor, None, "a map or object")
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let ty = self.v.ty().clone();
        self.entries(visitor, Some(fields), "an object")
            .map_err(|e| missing_field_named(e, &ty))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.known()? {
            Repr::String(s) => visitor.visit_enum(StrDeserializer::new(s)),
            _ => Err(self.mismatch("a string (a unit variant's name)")),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // Serde's derived struct visitors ignore, through this call, an
        // attribute they have no field for: that is the strictness check.
        if let Some(fields) = self.fields {
            return Err(Error::data(format!(
                "the struct has no field for this attribute (its fields: {}); add one, or a #[serde(flatten)] ctywire::IgnoredAttributes field to ignore such attributes",
                fields.join(", ")
            )));
        }
        visitor.visit_unit()
    }
}

/// Serde's "missing field `x`" for a struct read from an object, reworded
/// to name the object's attributes when the field is not one of them.
pub(super) fn missing_field_named(e: Error, ty: &Type) -> Error {
    let Type::Object(o) = ty else { return e };
    if !e.path().is_root() {
        return e;
    }
    let Some(field) = e
        .message()
        .strip_prefix("missing field `")
        .and_then(|m| m.strip_suffix('`'))
    else {
        return e;
    };
    if o.index_of(field).is_some() {
        return e;
    }
    let names: Vec<&str> = o.attributes().map(|(n, _)| n).collect();
    Error::data(format!(
        "the struct field `{field}` is not an attribute of {} (its attributes: {}); give the field #[serde(default)] to leave it out",
        ty.to_json(),
        names.join(", ")
    ))
}

/// Hands `elems` to `visitor`, which must take them all.
fn visit_elements<'de, V: Visitor<'de>>(elems: &[Value], visitor: V) -> Result<V::Value> {
    let mut access = ElementsAccess { elems, next: 0 };
    let out = visitor.visit_seq(&mut access)?;
    if access.next < elems.len() {
        return Err(trailing_elements(access.next, elems.len()));
    }
    Ok(out)
}

/// The elements of a list, set or tuple, each at its index.
struct ElementsAccess<'v> {
    elems: &'v [Value],
    next: usize,
}

impl<'de> de::SeqAccess<'de> for ElementsAccess<'_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(v) = self.elems.get(self.next) else {
            return Ok(None);
        };
        let i = self.next;
        self.next += 1;
        seed.deserialize(ValueDeserializer::new(v))
            .map(Some)
            .map_err(|e| e.under(PathStep::Index(i as u64)))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.elems.len() - self.next)
    }
}

/// The attributes of an object or the entries of a map.
struct EntriesAccess<'v, I> {
    entries: I,
    pending: Option<(&'v str, &'v Value)>,
    attributes: bool,
    fields: Option<&'static [&'static str]>,
}

impl<'de, 'v, I: Iterator<Item = (&'v str, &'v Value)>> de::MapAccess<'de>
    for EntriesAccess<'v, I>
{
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some((k, v)) = self.entries.next() else {
            return Ok(None);
        };
        self.pending = Some((k, v));
        // Nothing in a value lives as long as 'de (from_value takes only
        // owned types): the key is passing.
        seed.deserialize(KeyDeserializer::passing(k, DEFAULT_MAX_NUMBER_EXPONENT))
            .map(Some)
            .map_err(|e| e.under(self.step(k)))
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value> {
        let Some((k, v)) = self.pending.take() else {
            return Err(Error::data(
                "internal error: a map value asked for before its key",
            ));
        };
        let d = ValueDeserializer {
            v,
            fields: self.fields,
        };
        seed.deserialize(d).map_err(|e| e.under(self.step(k)))
    }
}

impl<I> EntriesAccess<'_, I> {
    /// The path step of an entry's key and value.
    fn step(&self, k: &str) -> PathStep {
        if self.attributes {
            PathStep::Attr(k.to_string())
        } else {
            PathStep::Key(k.to_string())
        }
    }
}

/// ctywire's deserializers' answer to a [`VALUE_TOKEN`] request: `v`
/// handed over whole, its type and then its content as plain data.
pub(super) fn visit_value<'de, V: Visitor<'de>>(v: &Value, visitor: V) -> Result<V::Value> {
    visitor.visit_enum(Handover {
        name: VALUE_TOKEN,
        payload: TypedContent(v),
    })
}

/// ctywire's deserializers' answer to an [`UNKNOWABLE_TOKEN`] request
/// that finds an unknown: its refinements handed over as data.
pub(super) fn visit_unknown<'de, V: Visitor<'de>>(r: &Refinements, visitor: V) -> Result<V::Value> {
    let data = refinements_as_value(r);
    visitor.visit_enum(Handover {
        name: UNKNOWN_TOKEN,
        payload: ValueDeserializer::new(&data),
    })
}

/// A value's type (as its JSON text) and then the value, as a pair.
struct TypedContent<'v>(&'v Value);

impl<'de> de::Deserializer<'de> for TypedContent<'_> {
    type Error = Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(TypedContentAccess { v: self.0, next: 0 })
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct TypedContentAccess<'v> {
    v: &'v Value,
    next: u8,
}

impl<'de> de::SeqAccess<'de> for TypedContentAccess<'_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.next += 1;
        match self.next {
            1 => seed
                .deserialize(de::value::StringDeserializer::<Error>::new(
                    self.v.ty().to_json(),
                ))
                .map(Some),
            2 => seed.deserialize(ValueDeserializer::new(self.v)).map(Some),
            _ => Ok(None),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(2usize.saturating_sub(usize::from(self.next)))
    }
}
