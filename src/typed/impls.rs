//! Serialize and Deserialize for ctywire's own types, and
//! [`IgnoredAttributes`].
//!
//! Each passes through ctywire's (de)serializers whole, in band under a
//! private name (see `private`): a `Value` field takes whatever is at its
//! position, unknowns and dynamic types included, and a `Number` keeps
//! every digit. With any other format they take a plain form: a value as
//! `{"type": T, "value": V}` (its type and its content as plain data;
//! unknowns are an error), a number as an integer, an exact float, or
//! else its decimal text. A [`Type`] is its type-constraint JSON: a string
//! of that JSON inside cty, the JSON structure elsewhere.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde::Deserialize;

use super::private::{
    take_handover, NumberContent, NumberText, RefinementsData, ValueContent, NUMBER_TOKEN,
    TYPE_TOKEN, UNKNOWABLE_TOKEN, UNKNOWN_TOKEN, VALUE_TOKEN,
};
use crate::number::Number;
use crate::types::{ObjectType, Type};
use crate::value::{self, Value};
use crate::DEFAULT_MAX_DEPTH;

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(VALUE_TOKEN, &ValueContent(self))
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
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::null(Type::Dynamic))
    }
    // ctywire's deserializers hand a value over whole: its type, then its
    // content at that type.
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        de::VariantAccess::newtype_variant_seed(take_handover(data, VALUE_TOKEN)?, TypedValue)
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

/// A value handed over by ctywire's deserializers: its type, then its
/// content as plain data ([`PlainContent`](super::private::PlainContent)'s
/// layout), read back at that type.
struct TypedValue;

impl<'de> DeserializeSeed<'de> for TypedValue {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_tuple(2, self)
    }
}

impl<'de> Visitor<'de> for TypedValue {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value's type and content")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let missing = || de::Error::custom("internal error: a value handed over in part");
        let ty: Type = seq.next_element()?.ok_or_else(missing)?;
        seq.next_element_seed(AtType(&ty))?.ok_or_else(missing)
    }
}

/// A value of type `ty` from plain data, as
/// [`PlainContent`](super::private::PlainContent) lays it out: the type
/// says which cty kind each part is, and the parts the data leaves open
/// (an unknown's refinements, a dynamic part's own type) come under their
/// private names.
struct AtType<'t>(&'t Type);

impl<'de> DeserializeSeed<'de> for AtType<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_newtype_struct(UNKNOWABLE_TOKEN, self)
    }
}

impl<'de> Visitor<'de> for AtType<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a value of type {}", self.0.to_json())
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let r: RefinementsData =
            de::VariantAccess::newtype_variant(take_handover(data, UNKNOWN_TOKEN)?)?;
        Value::unknown(self.0.clone())
            .refined(r.into())
            .map_err(de::Error::custom)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_option(self)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::null(self.0.clone()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.visit_none()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match self.0 {
            Type::String => String::deserialize(d).map(Value::string),
            Type::Number => Number::deserialize(d).map(Value::number),
            Type::Bool => bool::deserialize(d).map(Value::bool),
            // A known part where the type is dynamic has a type of its own.
            Type::Dynamic => Value::deserialize(d),
            Type::List(_) | Type::Set(_) | Type::Tuple(_) => d.deserialize_seq(Parts(self.0)),
            Type::Map(_) | Type::Object(_) => d.deserialize_map(Parts(self.0)),
        }
    }
}

/// The elements, entries or attributes of a value of this type.
struct Parts<'t>(&'t Type);

impl<'de> Visitor<'de> for Parts<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the parts of a value of type {}", self.0.to_json())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let ty = self.0;
        let mut elems = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        let built = match ty {
            Type::List(e) | Type::Set(e) => {
                while let Some(v) = seq.next_element_seed(AtType(e))? {
                    elems.push(v);
                }
                if matches!(ty, Type::List(_)) {
                    value::decoded_list(ty, e, elems)
                } else {
                    crate::set::decoded_set(ty, e, elems)
                }
            }
            Type::Tuple(ts) => {
                for t in ts.iter() {
                    match seq.next_element_seed(AtType(t))? {
                        Some(v) => elems.push(v),
                        None => return Err(de::Error::invalid_length(elems.len(), &self)),
                    }
                }
                Ok(value::decoded_tuple(ty, elems))
            }
            _ => return Err(de::Error::invalid_type(de::Unexpected::Seq, &self)),
        };
        built.map_err(de::Error::custom)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        match self.0 {
            Type::Map(e) => {
                let mut entries = thin_vec::ThinVec::new();
                while let Some(k) = map.next_key::<String>()? {
                    entries.push((k.into(), map.next_value_seed(AtType(e))?));
                }
                value::decoded_map(self.0, e, entries, false).map_err(de::Error::custom)
            }
            Type::Object(o) => {
                let mut values: Vec<Option<Value>> = vec![None; o.len()];
                while let Some(k) = map.next_key::<String>()? {
                    let Some(i) = o.index_of(&k) else {
                        return Err(de::Error::unknown_field(&k, &[]));
                    };
                    values[i] = Some(map.next_value_seed(AtType(o.attribute_type_at(i)))?);
                }
                Ok(value::decoded_object(
                    self.0,
                    o,
                    nulls_for_missing(o, values),
                ))
            }
            _ => Err(de::Error::invalid_type(de::Unexpected::Map, &self)),
        }
    }
}

/// The attribute values, a null for each that did not come.
fn nulls_for_missing(o: &ObjectType, values: Vec<Option<Value>>) -> Vec<Value> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| v.unwrap_or_else(|| Value::null(o.attribute_type_at(i).clone())))
        .collect()
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

/// A number not held as an i64 or float64 (-0, ±infinity, decimal text),
/// under its private name: exact to ctywire's serializers, and to any
/// other the nearest plain form that is exact.
#[inline(never)]
fn serialize_other_number<S: Serializer>(n: &Number, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_newtype_struct(NUMBER_TOKEN, &NumberContent(n))
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Number, D::Error> {
        d.deserialize_newtype_struct(NUMBER_TOKEN, NumberVisitor)
    }
}

/// A number from any serde number or from decimal text, or (from
/// ctywire's deserializers) the number itself.
struct NumberVisitor;

impl<'de> Visitor<'de> for NumberVisitor {
    type Value = Number;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number, or its decimal text")
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Number, D::Error> {
        d.deserialize_any(NumberVisitor)
    }
    // ctywire's deserializers hand a number that is neither an i64 nor
    // a float64 over as its exact text.
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Number, A::Error> {
        de::VariantAccess::newtype_variant_seed(take_handover(data, NUMBER_TOKEN)?, NumberText)
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
        // Terraform holds type constraints in string attributes): ctywire's
        // serializers make it that from the structure.
        s.serialize_newtype_struct(TYPE_TOKEN, &TypeContent(self))
    }
}

/// A type's JSON structure.
struct TypeContent<'a>(&'a Type);

impl Serialize for TypeContent<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Type::String => s.serialize_str("string"),
            Type::Number => s.serialize_str("number"),
            Type::Bool => s.serialize_str("bool"),
            Type::Dynamic => s.serialize_str("dynamic"),
            Type::List(e) => pair(s, "list", &TypeContent(e)),
            Type::Set(e) => pair(s, "set", &TypeContent(e)),
            Type::Map(e) => pair(s, "map", &TypeContent(e)),
            Type::Tuple(ts) => {
                let types: Vec<TypeContent<'_>> = ts.iter().map(TypeContent).collect();
                pair(s, "tuple", &types)
            }
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
            m.serialize_entry(name, &TypeContent(ty))?;
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
