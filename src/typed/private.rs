//! How ctywire's own types reach ctywire's own serializers and
//! deserializers: in band, under private names, as serde_json passes its
//! `RawValue` and exact numbers.
//!
//! Serde's data model has no cty value, no exact number and no unknown.
//! So [`Value`], [`Number`], [`Unknowable`](super::Unknowable) and
//! [`Type`] say what they are with a newtype struct of a private name
//! (below) whose content is the thing as plain data. ctywire's
//! serializers recognise the names and read the content back exactly
//! (`ser::handed_over`); any other serializer sees an ordinary newtype and
//! writes the content, which is chosen to be what that serializer should
//! get:
//!
//! | name | content | elsewhere |
//! |---|---|---|
//! | [`NUMBER_TOKEN`] | a number not held as an i64 or a float64 fraction: `u64`, an exact `f64` (a binary fraction, -0, ±infinity) or else its decimal text | that number |
//! | [`UNKNOWN_TOKEN`] | a struct: a field only ctywire's serializers know to leave alone, then the refinements | an error: an unknown has no form outside cty |
//! | [`VALUE_TOKEN`] | a struct: the value's type, then the value as plain data at that type | `{"type": T, "value": V}` |
//! | [`TYPE_TOKEN`] | the type's JSON structure | that structure (inside cty: its JSON text) |
//!
//! The other way, the deserialize requests name what they accept
//! ([`VALUE_TOKEN`], [`NUMBER_TOKEN`], [`UNKNOWABLE_TOKEN`]) and ctywire's
//! deserializers answer with an enum variant of a private name carrying
//! the thing as data ([`Handover`]): cty and JSON have no enums, so no
//! input can be mistaken for one; any other deserializer hands over
//! plain data, which the visitors take as before.
//!
//! Nothing here is kept beside the calls: no thread-local, no look at a
//! serializer's type.

use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::ser::{self, Serialize, SerializeMap, SerializeSeq, SerializeStruct, Serializer};
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::number::Number;
use crate::refinements::{Bound, Refinements};
use crate::types::Type;
use crate::value::{Repr, Value};

/// A [`Value`], whole: its type and its content.
pub(crate) const VALUE_TOKEN: &str = "$ctywire::private::Value";
/// A [`Number`] that no serde primitive holds as it is held.
pub(crate) const NUMBER_TOKEN: &str = "$ctywire::private::Number";
/// An unknown, with its refinements.
pub(crate) const UNKNOWN_TOKEN: &str = "$ctywire::private::Unknown";
/// A [`Type`], which inside cty is the text of its JSON form.
pub(crate) const TYPE_TOKEN: &str = "$ctywire::private::Type";
/// The request of an [`Unknowable`](super::Unknowable): it takes unknowns.
pub(crate) const UNKNOWABLE_TOKEN: &str = "$ctywire::private::Unknowable";
/// The field an unknown's content starts with: serializing it is an
/// error, and only ctywire's serializers know not to.
pub(crate) const ONLY_IN_CTY: &str = "$ctywire::private::OnlyInCty";

/// Whether `name` is one of the names ctywire's types serialize under.
#[inline]
pub(crate) fn is_private_name(name: &str) -> bool {
    // One comparison for every ordinary newtype: all four share the prefix.
    name.starts_with("$ctywire::private::")
        && matches!(
            name,
            VALUE_TOKEN | NUMBER_TOKEN | UNKNOWN_TOKEN | TYPE_TOKEN
        )
}

/// What an unknown is to any serializer but ctywire's.
fn only_in_cty() -> &'static str {
    "an unknown value has a form only in cty (ctywire's msgpack, to_value)"
}

// ---- Serialize: the contents -------------------------------------------

/// The content under [`NUMBER_TOKEN`] of a number held neither as an i64
/// nor as a float64 fraction (those go as serde's `i64` and `f64`, which
/// make the same number again): the plain form that is exact. ctywire's
/// serializers read each back as the number it is (`ser::NumberCapture`):
/// a `u64` is an integer beyond i64, an `f64` the exact decimal value of
/// that float64 (or -0 or ±infinity), text the number's canonical text.
pub(crate) struct NumberContent<'a>(pub(crate) &'a Number);

impl Serialize for NumberContent<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.0;
        if n.to_i64() == Some(0) {
            // Only -0 comes here: a zero held as an i64 goes bare.
            return s.serialize_f64(-0.0);
        }
        if let Some(u) = n.to_u64() {
            return s.serialize_u64(u);
        }
        if let Some(f) = n.non_integer_as_exact_f64() {
            return s.serialize_f64(f);
        }
        // No serde primitive holds it exactly: its text does.
        s.serialize_str(&n.text())
    }
}

/// The content under [`UNKNOWN_TOKEN`]: a struct whose first field,
/// [`ONLY_IN_CTY`], fails to serialize (so every other serializer refuses
/// the unknown, before it writes its refinements), then the refinements as
/// [`refinements_as_value`] lays them out.
pub(crate) struct UnknownContent<'a>(pub(crate) &'a Refinements);

impl Serialize for UnknownContent<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct(UNKNOWN_TOKEN, 2)?;
        st.serialize_field(ONLY_IN_CTY, &OnlyInCty)?;
        st.serialize_field("refinements", &PlainContent(&refinements_as_value(self.0)))?;
        st.end()
    }
}

/// The field that refuses to be written.
struct OnlyInCty;

impl Serialize for OnlyInCty {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(ser::Error::custom(only_in_cty()))
    }
}

/// The content under [`VALUE_TOKEN`]: the value's type, then the value as
/// plain data ([`PlainContent`]), which at that type is the value again.
pub(crate) struct ValueContent<'a>(pub(crate) &'a Value);

impl Serialize for ValueContent<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct(VALUE_TOKEN, 2)?;
        st.serialize_field("type", self.0.ty())?;
        st.serialize_field("value", &PlainContent(self.0))?;
        st.end()
    }
}

/// A value as plain data: strings, numbers, bools, null, sequences for
/// lists, sets and tuples (sets in their order), maps for maps and
/// objects; an unknown under [`UNKNOWN_TOKEN`]. Its type says which of
/// the cty kinds each part is.
pub(crate) struct PlainContent<'a>(pub(crate) &'a Value);

impl Serialize for PlainContent<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.repr() {
            Repr::Null(_) => s.serialize_none(),
            Repr::Unknown(_, r) => {
                let none = Refinements::default();
                let r = r.as_deref().unwrap_or(&none);
                s.serialize_newtype_struct(UNKNOWN_TOKEN, &UnknownContent(r))
            }
            Repr::String(t) => s.serialize_str(t),
            Repr::Number(n) => n.serialize(s),
            Repr::Bool(b) => s.serialize_bool(*b),
            Repr::Seq(Type::Object(o), values) => {
                let mut m = s.serialize_map(Some(values.len()))?;
                for ((name, _), v) in o.attributes().zip(values.iter()) {
                    m.serialize_entry(name, &PlainContent(v))?;
                }
                m.end()
            }
            Repr::Seq(_, elems) => {
                let mut q = s.serialize_seq(Some(elems.len()))?;
                for e in elems.iter() {
                    q.serialize_element(&PlainContent(e))?;
                }
                q.end()
            }
            Repr::Map(_, entries) => {
                let mut m = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries.iter() {
                    m.serialize_entry(k.as_str(), &PlainContent(v))?;
                }
                m.end()
            }
        }
    }
}

// ---- Refinements as data -----------------------------------------------

/// Refinements as data, both ways: a tuple of not-null, the string
/// prefix, the lower and upper bounds (each `[number, inclusive]`), the
/// least and the most length; null for a fact not known. Read back by
/// [`RefinementsData`].
pub(crate) fn refinements_as_value(r: &Refinements) -> Value {
    let or_null = |v: Option<Value>| v.unwrap_or_else(|| Value::null(Type::Dynamic));
    let bound = |b: &Option<Bound>| {
        or_null(b.as_ref().map(|b| {
            Value::tuple(vec![
                Value::number(b.value.clone()),
                Value::bool(b.inclusive),
            ])
        }))
    };
    Value::tuple(vec![
        Value::bool(r.not_null),
        or_null(r.string_prefix.as_deref().map(Value::string)),
        bound(&r.lower),
        bound(&r.upper),
        Value::number(Number::from_u64(r.length_min)),
        or_null(r.length_max.map(|n| Value::number(Number::from_u64(n)))),
    ])
}

/// [`refinements_as_value`]'s tuple, read.
#[derive(Deserialize)]
pub(crate) struct RefinementsData(
    bool,
    Option<String>,
    Option<(Number, bool)>,
    Option<(Number, bool)>,
    u64,
    Option<u64>,
);

impl From<RefinementsData> for Refinements {
    fn from(d: RefinementsData) -> Refinements {
        let bound =
            |b: Option<(Number, bool)>| b.map(|(value, inclusive)| Bound { value, inclusive });
        Refinements {
            not_null: d.0,
            string_prefix: d.1,
            lower: bound(d.2),
            upper: bound(d.3),
            length_min: d.4,
            length_max: d.5,
        }
    }
}

// ---- Deserialize: the answers ------------------------------------------

/// ctywire's deserializers' answer to a request under a private name: an
/// enum variant named `name` whose content `payload` deserializes.
pub(crate) struct Handover<D> {
    pub(crate) name: &'static str,
    pub(crate) payload: D,
}

impl<'de, D: de::Deserializer<'de, Error = Error>> de::EnumAccess<'de> for Handover<D> {
    type Error = Error;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let name = seed.deserialize(self.name.into_deserializer())?;
        Ok((name, self))
    }
}

impl<'de, D: de::Deserializer<'de, Error = Error>> de::VariantAccess<'de> for Handover<D> {
    type Error = Error;
    fn unit_variant(self) -> Result<()> {
        Err(self.misread())
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self.payload)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value> {
        Err(self.misread())
    }
    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], _: V) -> Result<V::Value> {
        Err(self.misread())
    }
}

impl<D> Handover<D> {
    fn misread(&self) -> Error {
        Error::data(format!(
            "internal error: {} read other than as its content",
            self.name
        ))
    }
}

/// A visitor's side of a [`Handover`]: the variant's content, if the enum
/// `data` is the variant `name`; an error for any other enum (a format
/// with enums of its own handing one to a cty type).
pub(crate) fn take_handover<'de, A: de::EnumAccess<'de>>(
    data: A,
    name: &'static str,
) -> Result<A::Variant, A::Error> {
    let ((), variant) = data.variant_seed(Expect(name))?;
    Ok(variant)
}

/// The variant name of a [`Handover`], checked.
struct Expect(&'static str);

impl<'de> DeserializeSeed<'de> for Expect {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for Expect {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        if v == self.0 {
            Ok(())
        } else {
            Err(E::invalid_value(de::Unexpected::Str(v), &self))
        }
    }
}

/// ctywire's deserializers' answer to a [`NUMBER_TOKEN`] request: a
/// number held as an i64 or a float64 as serde's `i64` or `f64` (the
/// visitor makes the same number again), any other as its canonical text
/// in a [`Handover`] (its text as a plain string would be read with the
/// limits meant for input, and would not say it is exact).
pub(crate) fn visit_number<'de, V: Visitor<'de>>(n: &Number, visitor: V) -> Result<V::Value> {
    if let Some(i) = n.as_held_i64() {
        return visitor.visit_i64(i);
    }
    if let Some(f) = n.as_held_f64() {
        return visitor.visit_f64(f);
    }
    let text = n.text();
    visitor.visit_enum(Handover {
        name: NUMBER_TOKEN,
        payload: de::value::StrDeserializer::<Error>::new(&text),
    })
}

/// The visitor's side of [`visit_number`]'s text.
pub(crate) struct NumberText;

impl<'de> DeserializeSeed<'de> for NumberText {
    type Value = Number;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Number, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for NumberText {
    type Value = Number;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number's canonical text")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Number, E> {
        // A number ctywire already holds: no limit applies again.
        Number::parse_with_limit(v, u32::MAX).map_err(E::custom)
    }
}
