//! Serialize and Deserialize for ctywire's own types, and
//! [`IgnoredAttributes`].
//!
//! With ctywire's (de)serializer a [`Value`] or [`Number`] passes through
//! whole (beside serde's calls, see [`super::Stashed`]): a `Value` field
//! takes whatever is at its position, unknowns and dynamic types
//! included, and a `Number` keeps every digit. With any other format they
//! take their plain form: a value as plain data (unknowns are an error),
//! a number as an integer, an exact float, or else its decimal text.
//! A [`Type`] is its type-constraint JSON: a string of that JSON inside
//! cty, the JSON structure elsewhere.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{self, Serialize, SerializeMap, SerializeSeq, Serializer};
use serde::Deserialize;

use super::{is_typed_serializer, stash, take_stash, Stashed, NUMBER_TOKEN, VALUE_TOKEN};
use crate::number::Number;
use crate::types::Type;
use crate::value::{Repr, Value};
use crate::DEFAULT_MAX_DEPTH;

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if is_typed_serializer::<S>() {
            stash(Stashed::Value(self.clone()));
            return s.serialize_newtype_struct(VALUE_TOKEN, &());
        }
        match self.repr() {
            Repr::Null(_) => s.serialize_none(),
            Repr::Unknown(..) => Err(ser::Error::custom(
                "an unknown value has a form only in cty (ctywire's msgpack, to_value)",
            )),
            Repr::String(t) => s.serialize_str(t),
            Repr::Number(n) => n.serialize(s),
            Repr::Bool(b) => s.serialize_bool(*b),
            Repr::Seq(Type::Object(o), values) => {
                let mut m = s.serialize_map(Some(values.len()))?;
                for ((name, _), v) in o.attributes().zip(values.iter()) {
                    m.serialize_entry(name, v)?;
                }
                m.end()
            }
            Repr::Seq(_, elems) => {
                let mut q = s.serialize_seq(Some(elems.len()))?;
                for e in elems.iter() {
                    q.serialize_element(e)?;
                }
                q.end()
            }
            Repr::Map(_, entries) => {
                let mut m = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries.iter() {
                    m.serialize_entry(k.as_str(), v)?;
                }
                m.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_newtype_struct(VALUE_TOKEN, ValueVisitor)
    }
}

/// Builds a value in a dynamic position from plain data: arrays become
/// tuples and maps objects, as the JSON decoder reads them there.
struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
    // ctywire's deserializer answers with a unit beside the stashed value.
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        match take_stash() {
            Some(Stashed::Value(v)) => Ok(v),
            _ => Ok(Value::null(Type::Dynamic)),
        }
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::null(Type::Dynamic))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::number(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::number(Number::from_u64(v)))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        NumberVisitor.visit_i128(v).map(Value::number)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        NumberVisitor.visit_u128(v).map(Value::number)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        NumberVisitor.visit_f64(v).map(Value::number)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::string(v))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::string(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut elems = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(e) = seq.next_element::<Value>()? {
            elems.push(e);
        }
        Ok(Value::tuple(elems))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut attrs: Vec<(String, Value)> = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Value>()? {
            attrs.push((k, v));
        }
        Ok(Value::object(attrs))
    }
}

impl Serialize for Number {
    #[inline]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Most numbers are held as an i64 or a float64: to every
        // serializer that is the same number (ctywire's make it again with
        // `from_i64` / `from_f64`, and msgpack's writes it at once).
        if let Some(i) = self.as_held_i64() {
            return s.serialize_i64(i);
        }
        if let Some(f) = self.as_held_f64() {
            return s.serialize_f64(f);
        }
        serialize_other_number(self, s)
    }
}

/// A number not held as an i64 or float64: -0, ±infinity, decimal text.
#[inline(never)]
fn serialize_other_number<S: Serializer>(n: &Number, s: S) -> Result<S::Ok, S::Error> {
    if is_typed_serializer::<S>() {
        // Whole, through the stash: -0 as 0 would lose its sign, and
        // no serde primitive holds the rest exactly.
        stash(Stashed::Number(n.clone()));
        return s.serialize_newtype_struct(NUMBER_TOKEN, &());
    }
    if let Some(i) = n.to_i64() {
        return s.serialize_i64(i);
    }
    if let Some(u) = n.to_u64() {
        return s.serialize_u64(u);
    }
    if let Some(f) = n.non_integer_as_exact_f64() {
        return s.serialize_f64(f);
    }
    // No serde primitive holds it exactly: its text does.
    s.serialize_str(&n.to_string())
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Number, D::Error> {
        d.deserialize_newtype_struct(NUMBER_TOKEN, NumberVisitor)
    }
}

/// A number from any serde number or from decimal text, or (from
/// ctywire's deserializer) the number itself.
struct NumberVisitor;

impl<'de> Visitor<'de> for NumberVisitor {
    type Value = Number;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number, or its decimal text")
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Number, D::Error> {
        d.deserialize_any(NumberVisitor)
    }
    // ctywire's deserializer answers with a unit beside the stashed number.
    fn visit_unit<E: de::Error>(self) -> Result<Number, E> {
        match take_stash() {
            Some(Stashed::Number(n)) => Ok(n),
            _ => Err(E::invalid_type(de::Unexpected::Unit, &self)),
        }
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
        Ok(Number::from_i64(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
        Ok(Number::from_u64(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Number, E> {
        self.visit_str(&v.to_string())
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Number, E> {
        self.visit_str(&v.to_string())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Number, E> {
        Number::from_f64(v).map_err(E::custom)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Number, E> {
        Number::parse(v).map_err(E::custom)
    }
}

impl Serialize for Type {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Inside cty a type is held as the text of its JSON form (as
        // Terraform holds type constraints in string attributes).
        if is_typed_serializer::<S>() {
            return s.serialize_str(&self.to_json());
        }
        match self {
            Type::String => s.serialize_str("string"),
            Type::Number => s.serialize_str("number"),
            Type::Bool => s.serialize_str("bool"),
            Type::Dynamic => s.serialize_str("dynamic"),
            Type::List(e) => pair(s, "list", &**e),
            Type::Set(e) => pair(s, "set", &**e),
            Type::Map(e) => pair(s, "map", &**e),
            Type::Tuple(ts) => pair(s, "tuple", &**ts),
            Type::Object(o) => {
                let optional: Vec<&str> = o.optional_names().collect();
                let mut q = s.serialize_seq(Some(if optional.is_empty() { 2 } else { 3 }))?;
                q.serialize_element("object")?;
                q.serialize_element(&Attributes(o))?;
                if !optional.is_empty() {
                    q.serialize_element(&optional)?;
                }
                q.end()
            }
        }
    }
}

/// `[kind, inner]`: a collection or tuple type's JSON form.
fn pair<S: Serializer, T: Serialize + ?Sized>(
    s: S,
    kind: &str,
    inner: &T,
) -> Result<S::Ok, S::Error> {
    let mut q = s.serialize_seq(Some(2))?;
    q.serialize_element(kind)?;
    q.serialize_element(inner)?;
    q.end()
}

/// An object type's attributes, as the JSON object of its form.
struct Attributes<'a>(&'a crate::types::ObjectType);

impl Serialize for Attributes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (name, ty) in self.0.attributes() {
            m.serialize_entry(name, ty)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Type {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Type, D::Error> {
        TypeSeed { depth: 0 }.deserialize(d)
    }
}

/// A type from its JSON form (structure or text), nesting bounded as
/// [`Type::parse`] bounds it, so that hostile input cannot exhaust the
/// stack.
#[derive(Clone, Copy)]
struct TypeSeed {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for TypeSeed {
    type Value = Type;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Type, D::Error> {
        if self.depth > DEFAULT_MAX_DEPTH {
            return Err(de::Error::custom(format!(
                "type nests deeper than {DEFAULT_MAX_DEPTH}"
            )));
        }
        d.deserialize_any(self)
    }
}

impl TypeSeed {
    fn inner(self) -> TypeSeed {
        TypeSeed {
            depth: self.depth + 1,
        }
    }
}

impl<'de> Visitor<'de> for TypeSeed {
    type Value = Type;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"a cty type ("string", ["list","number"], ...) or its JSON text"#)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Type, E> {
        match v {
            "string" => Ok(Type::String),
            "number" => Ok(Type::Number),
            "bool" => Ok(Type::Bool),
            "dynamic" => Ok(Type::Dynamic),
            // The whole JSON form as text, as a string attribute holds it.
            _ => Type::parse(v).map_err(E::custom),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Type, A::Error> {
        let missing = || de::Error::custom("a type's kind needs what it is of");
        let kind: String = seq
            .next_element()?
            .ok_or_else(|| de::Error::custom("an empty array is not a type"))?;
        let ty = match kind.as_str() {
            "list" | "set" | "map" => {
                let e = seq.next_element_seed(self.inner())?.ok_or_else(missing)?;
                match kind.as_str() {
                    "list" => Type::list(e),
                    "set" => Type::set(e),
                    _ => Type::map(e),
                }
            }
            "tuple" => seq
                .next_element_seed(TypesSeed(self.inner()))?
                .map(Type::tuple)
                .ok_or_else(missing)?,
            "object" => {
                let attrs = seq
                    .next_element_seed(AttributesSeed(self.inner()))?
                    .ok_or_else(missing)?;
                let optional: Vec<String> = seq.next_element()?.unwrap_or_default();
                Type::object_with_optional(attrs, optional).map_err(de::Error::custom)?
            }
            other => return Err(de::Error::custom(format!("unknown type kind {other:?}"))),
        };
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(format!(
                "too many parts in a {kind} type"
            )));
        }
        Ok(ty)
    }
}

/// A tuple type's element types.
struct TypesSeed(TypeSeed);

impl<'de> DeserializeSeed<'de> for TypesSeed {
    type Value = Vec<Type>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Type>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TypesSeed {
    type Value = Vec<Type>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of types")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Type>, A::Error> {
        let mut out = Vec::new();
        while let Some(t) = seq.next_element_seed(self.0)? {
            out.push(t);
        }
        Ok(out)
    }
}

/// An object type's attributes.
struct AttributesSeed(TypeSeed);

impl<'de> DeserializeSeed<'de> for AttributesSeed {
    type Value = Vec<(String, Type)>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for AttributesSeed {
    type Value = Vec<(String, Type)>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of attribute types")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            out.push((name, map.next_value_seed(self.0)?));
        }
        Ok(out)
    }
}

/// A struct field that takes, and drops, every attribute the struct has
/// no field for: `#[serde(flatten)] _rest: IgnoredAttributes`. Without
/// one, such an attribute is an error naming it. It writes nothing.
///
/// Serde buffers a flattened struct's other attributes as plain data, so
/// an ignored attribute must be known (an unknown one is still an error).
///
/// ```
/// use ctywire::{from_value, IgnoredAttributes, Value};
/// #[derive(serde::Deserialize)]
/// struct Small { name: String }
/// #[derive(serde::Deserialize)]
/// struct Lenient { name: String, #[serde(flatten)] _rest: IgnoredAttributes }
/// let v = Value::object([("name", Value::string("web")), ("size", Value::number(2))]);
/// let err = from_value::<Small>(&v).err().unwrap();
/// assert_eq!(err.path().to_string(), ".size");
/// assert!(err.message().contains("its fields: name"));
/// assert_eq!(from_value::<Lenient>(&v)?.name, "web");
/// # Ok::<(), ctywire::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IgnoredAttributes;

impl Serialize for IgnoredAttributes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_map(Some(0))?.end()
    }
}

impl<'de> Deserialize<'de> for IgnoredAttributes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(IgnoreVisitor)
    }
}

struct IgnoreVisitor;

impl<'de> Visitor<'de> for IgnoreVisitor {
    type Value = IgnoredAttributes;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("attributes to ignore")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<IgnoredAttributes, A::Error> {
        while map
            .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
            .is_some()
        {}
        Ok(IgnoredAttributes)
    }
}
