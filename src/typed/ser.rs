//! Serde serialization into a [`Value`] of a given type: [`to_value`](super::to_value).
//!
//! The type decides what a Rust shape becomes: a sequence is a list, a set
//! or a tuple, a struct or a map is a map or an object. Primitives pass
//! through the one conversion rule ([`Value::convert`]), so a number
//! written where a string belongs becomes its text, as go-cty's encoders
//! do. Every error carries the path of the element it is about.

use compact_str::CompactString;
use serde::de::Deserialize;
use serde::ser::{self, Impossible, Serialize};

use super::de::ValueDeserializer;
use super::private::{
    is_private_name, RefinementsData, NUMBER_TOKEN, ONLY_IN_CTY, TYPE_TOKEN, UNKNOWN_TOKEN,
    VALUE_TOKEN,
};
use super::rules::required_form;
use crate::convert::conformed;
use crate::error::{Error, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::refinements::Refinements;
use crate::strings::nfc;
use crate::types::{ObjectType, Type};
use crate::value::{self, Value};

/// Serializes one Rust value as a cty value of type `ty`.
pub(crate) struct TypedSerializer<'t> {
    pub(crate) ty: &'t Type,
}

pub(crate) fn mismatch(ty: &Type, got: &str) -> Error {
    Error::data(format!("{} is required, not {got}", required_form(ty)))
}

impl<'t> TypedSerializer<'t> {
    /// A known primitive, converted to the type if it differs.
    fn primitive(self, v: Value) -> Result<Value> {
        if matches!(self.ty, Type::Dynamic) || v.ty() == self.ty {
            return Ok(v);
        }
        v.convert(self.ty)
    }

    fn number(self, n: Number) -> Result<Value> {
        self.primitive(Value::number(n))
    }

    /// What a ctywire type handed over under one of the private names, as
    /// a value of this type.
    pub(crate) fn handed_over(self, h: HandedOver) -> Result<Value> {
        match h {
            HandedOver::Value(v) => Ok(conformed(&v, self.ty)?.into_owned()),
            HandedOver::Number(n) => self.number(n),
            HandedOver::Unknown(r) => Value::unknown(self.ty.clone()).refined(r),
            // Inside cty a type is the text of its JSON form.
            HandedOver::Type(t) => self.primitive(Value::string(t.to_json())),
        }
    }
}

impl<'t> ser::Serializer for TypedSerializer<'t> {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = SeqSerializer<'t>;
    type SerializeTuple = SeqSerializer<'t>;
    type SerializeTupleStruct = SeqSerializer<'t>;
    type SerializeTupleVariant = Impossible<Value, Error>;
    type SerializeMap = MapSerializer<'t>;
    type SerializeStruct = MapSerializer<'t>;
    type SerializeStructVariant = Impossible<Value, Error>;

    fn serialize_bool(self, v: bool) -> Result<Value> {
        self.primitive(Value::bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value> {
        self.number(Number::from_i64(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Value> {
        self.number(Number::from_i64(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Value> {
        self.number(Number::from_i64(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Value> {
        self.number(Number::from_i64(v))
    }
    fn serialize_i128(self, v: i128) -> Result<Value> {
        self.number(v.to_string().parse()?)
    }
    fn serialize_u8(self, v: u8) -> Result<Value> {
        self.number(Number::from_u64(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Value> {
        self.number(Number::from_u64(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Value> {
        self.number(Number::from_u64(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Value> {
        self.number(Number::from_u64(v))
    }
    fn serialize_u128(self, v: u128) -> Result<Value> {
        self.number(v.to_string().parse()?)
    }
    fn serialize_f32(self, v: f32) -> Result<Value> {
        // Widening is exact: the f32's own value, as go-cty would hold it.
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Value> {
        self.number(Number::from_f64(v)?)
    }
    fn serialize_char(self, v: char) -> Result<Value> {
        self.primitive(Value::string(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Value> {
        self.primitive(Value::string(v))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Value> {
        Err(mismatch(self.ty, "bytes (cty has no byte strings)"))
    }
    fn serialize_none(self) -> Result<Value> {
        Ok(Value::null(self.ty.clone()))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value> {
        Ok(Value::null(self.ty.clone()))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value> {
        Ok(Value::null(self.ty.clone()))
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Value> {
        self.primitive(Value::string(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Value> {
        match handed_over(name, value)? {
            Some(h) => self.handed_over(h),
            None => value.serialize(self),
        }
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value> {
        // As serde's JSON form: an object with the variant's one attribute.
        let mut m = ser::Serializer::serialize_map(self, Some(1))?;
        ser::SerializeMap::serialize_entry(&mut m, variant, value)?;
        ser::SerializeMap::end(m)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSerializer<'t>> {
        SeqSerializer::new(self.ty, len)
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqSerializer<'t>> {
        SeqSerializer::new(self.ty, Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<SeqSerializer<'t>> {
        SeqSerializer::new(self.ty, Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(mismatch(self.ty, &format!("the tuple variant {variant}")))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<MapSerializer<'t>> {
        MapSerializer::new(self.ty, "a map")
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<MapSerializer<'t>> {
        MapSerializer::new(self.ty, name)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(mismatch(self.ty, &format!("the struct variant {variant}")))
    }
}

/// What a sequence becomes.
enum SeqKind<'t> {
    List(&'t Type),
    Set(&'t Type),
    Tuple(&'t [Type]),
    /// A sequence in a dynamic position: a tuple of whatever the elements
    /// are, as the JSON decoder reads an array there.
    Dynamic,
}

pub(crate) struct SeqSerializer<'t> {
    ty: &'t Type,
    kind: SeqKind<'t>,
    elems: Vec<Value>,
}

impl<'t> SeqSerializer<'t> {
    fn new(ty: &'t Type, len: Option<usize>) -> Result<Self> {
        let kind = match ty {
            Type::List(e) => SeqKind::List(e),
            Type::Set(e) => SeqKind::Set(e),
            Type::Tuple(ts) => SeqKind::Tuple(ts),
            Type::Dynamic => SeqKind::Dynamic,
            _ => return Err(mismatch(ty, "a sequence")),
        };
        // The hint comes from data already in memory, but is still only a
        // hint: bounded.
        let elems = Vec::with_capacity(len.unwrap_or(0).min(1024));
        Ok(SeqSerializer { ty, kind, elems })
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let i = self.elems.len();
        let ty = match &self.kind {
            SeqKind::List(e) | SeqKind::Set(e) => e,
            SeqKind::Tuple(ts) => ts.get(i).ok_or_else(|| {
                Error::wrong_tuple_length(ts.len(), None).under(PathStep::Index(i as u64))
            })?,
            SeqKind::Dynamic => &Type::Dynamic,
        };
        let v = value
            .serialize(TypedSerializer { ty })
            .map_err(|e| e.under(PathStep::Index(i as u64)))?;
        self.elems.push(v);
        Ok(())
    }

    fn finish(self) -> Result<Value> {
        // Every element was written at its declared type, so the values
        // are built as the decoders build them: a static type is shared,
        // not compared element by element.
        match self.kind {
            SeqKind::List(e) => value::decoded_list(self.ty, e, self.elems),
            SeqKind::Set(e) => crate::set::decoded_set(self.ty, e, self.elems),
            SeqKind::Tuple(ts) if ts.len() != self.elems.len() => {
                Err(Error::wrong_tuple_length(ts.len(), Some(self.elems.len())))
            }
            SeqKind::Tuple(_) => Ok(value::decoded_tuple(self.ty, self.elems)),
            SeqKind::Dynamic => Ok(Value::tuple(self.elems)),
        }
    }
}

sequence_traits!(SeqSerializer<'_>, Value);

/// What a map or struct becomes.
enum MapKind<'t> {
    Map(&'t Type),
    Object(&'t ObjectType),
    /// A map or struct in a dynamic position: an object of whatever the
    /// entries are.
    Dynamic,
}

/// Serializes a Rust map or struct as a cty map or object.
pub(crate) struct MapSerializer<'t> {
    kind: MapKind<'t>,
    ty: &'t Type,
    /// The struct's name, or "a map", for messages.
    source: &'static str,
    key: Option<String>,
    /// A map's or a dynamic object's entries, as written.
    entries: Vec<(String, Value)>,
    /// An object's attribute values, by position in its type.
    slots: Vec<Option<Value>>,
}

impl<'t> MapSerializer<'t> {
    fn new(ty: &'t Type, source: &'static str) -> Result<Self> {
        let kind = match ty {
            Type::Map(e) => MapKind::Map(e),
            Type::Object(o) => MapKind::Object(o),
            Type::Dynamic => MapKind::Dynamic,
            _ => {
                let got = if source == "a map" {
                    "a map".to_string()
                } else {
                    format!("the struct {source}")
                };
                return Err(mismatch(ty, &got));
            }
        };
        let slots = match &kind {
            MapKind::Object(o) => vec![None; o.len()],
            _ => Vec::new(),
        };
        Ok(MapSerializer {
            kind,
            ty,
            source,
            key: None,
            entries: Vec::new(),
            slots,
        })
    }

    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<()> {
        if let MapKind::Object(o) = &self.kind {
            let Some(i) = o.index_of(key) else {
                return Err(self.not_an_attribute(o, key));
            };
            let v = value
                .serialize(TypedSerializer {
                    ty: o.attribute_type_at(i),
                })
                .map_err(|e| e.under(PathStep::Attr(key.to_string())))?;
            // A repeated key: the last wins, as in `Value::object`.
            self.slots[i] = Some(v);
            return Ok(());
        }
        let (ty, step) = match &self.kind {
            MapKind::Map(e) => (*e, PathStep::Key(key.to_string())),
            _ => (&Type::Dynamic, PathStep::Attr(key.to_string())),
        };
        let v = value
            .serialize(TypedSerializer { ty })
            .map_err(|e| e.under(step))?;
        self.entries.push((key.to_string(), v));
        Ok(())
    }

    fn not_an_attribute(&self, _: &ObjectType, key: &str) -> Error {
        not_an_attribute(self.ty, self.source, key)
    }

    fn finish(self) -> Result<Value> {
        match self.kind {
            MapKind::Map(e) => {
                let entries = self
                    .entries
                    .into_iter()
                    .map(|(k, v)| (CompactString::from(nfc(&k)), v))
                    .collect();
                value::decoded_map(self.ty, e, entries, false)
            }
            MapKind::Dynamic => Ok(Value::object(self.entries)),
            MapKind::Object(o) => {
                // An attribute nothing was written for (a field skipped by
                // `skip_serializing_if`, a key the map lacks) is null, as
                // the JSON decoder reads a missing attribute.
                let values = self
                    .slots
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| v.unwrap_or_else(|| Value::null(o.attribute_type_at(i).clone())))
                    .collect();
                Ok(value::decoded_object(self.ty, o, values))
            }
        }
    }
}

impl ser::SerializeMap for MapSerializer<'_> {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        let k = key
            .serialize(TypedSerializer { ty: &Type::String })
            .map_err(|e| e.in_context("a map key"))?;
        match k.as_str() {
            Some(s) => self.key = Some(s.to_string()),
            None => return Err(Error::data("a map key must be a string, number or bool")),
        }
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let Some(key) = self.key.take() else {
            return Err(Error::data("internal error: a map value without its key"));
        };
        self.entry(&key, value)
    }
    fn end(self) -> Result<Value> {
        self.finish()
    }
}

impl ser::SerializeStruct for MapSerializer<'_> {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.entry(key, value)
    }
    fn skip_field(&mut self, key: &'static str) -> Result<()> {
        // A skipped field must still be one the type has: a typo'd field
        // name should not pass only because its value was empty.
        if let MapKind::Object(o) = &self.kind {
            if o.index_of(key).is_none() {
                return Err(self.not_an_attribute(o, key));
            }
        }
        Ok(())
    }
    fn end(self) -> Result<Value> {
        self.finish()
    }
}

/// A struct field (or map key, `source` "a map") that object type `ty`
/// has no attribute for, naming both.
pub(crate) fn not_an_attribute(ty: &Type, source: &str, key: &str) -> Error {
    let what = if source == "a map" {
        format!("the map key {key:?}")
    } else {
        format!("the field `{key}` of {source}")
    };
    let names: Vec<&str> = match ty {
        Type::Object(o) => o.attributes().map(|(n, _)| n).collect(),
        _ => Vec::new(),
    };
    Error::data(format!(
        "{what} is not an attribute of {} (its attributes: {})",
        ty.to_json(),
        names.join(", ")
    ))
}

// ---- ctywire's own types, read back from their private names ----------

/// What a ctywire type hands over under a private name (see `private`).
pub(crate) enum HandedOver {
    Value(Value),
    Number(Number),
    Unknown(Refinements),
    Type(Type),
}

/// What a newtype struct named `name` with content `content` hands over,
/// if `name` is one of ctywire's private names: read back from the
/// content, in the layouts `private` writes. For ctywire's serializers
/// (this one and each format's).
#[inline]
pub(crate) fn handed_over<T: Serialize + ?Sized>(
    name: &'static str,
    content: &T,
) -> Result<Option<HandedOver>> {
    if !is_private_name(name) {
        return Ok(None);
    }
    handed_over_private(name, content).map(Some)
}

#[inline(never)]
fn handed_over_private<T: Serialize + ?Sized>(name: &str, content: &T) -> Result<HandedOver> {
    Ok(match name {
        NUMBER_TOKEN => HandedOver::Number(content.serialize(NumberCapture)?),
        UNKNOWN_TOKEN => {
            let fields = content.serialize(StructCapture(UnknownFields(None)))?;
            HandedOver::Unknown(fields.0.ok_or_else(|| handed_over_in_part(name))?)
        }
        VALUE_TOKEN => {
            let fields = content.serialize(StructCapture(ValueFields {
                ty: None,
                value: None,
            }))?;
            HandedOver::Value(fields.value.ok_or_else(|| handed_over_in_part(name))?)
        }
        TYPE_TOKEN => {
            // The JSON structure, read as any data is, then as a type.
            let form = content.serialize(TypedSerializer { ty: &Type::Dynamic })?;
            HandedOver::Type(Type::deserialize(ValueDeserializer::new(&form))?)
        }
        _ => return Err(handed_over_in_part(name)),
    })
}

fn handed_over_in_part(name: &str) -> Error {
    Error::data(format!(
        "internal error: {name} is private to ctywire, and came without its content"
    ))
}

/// Reads back a [`NumberContent`](super::private::NumberContent).
struct NumberCapture;

impl ser::Serializer for NumberCapture {
    type Ok = Number;
    type Error = Error;
    type SerializeSeq = Impossible<Number, Error>;
    type SerializeTuple = Impossible<Number, Error>;
    type SerializeTupleStruct = Impossible<Number, Error>;
    type SerializeTupleVariant = Impossible<Number, Error>;
    type SerializeMap = Impossible<Number, Error>;
    type SerializeStruct = Impossible<Number, Error>;
    type SerializeStructVariant = Impossible<Number, Error>;

    fn serialize_i64(self, v: i64) -> Result<Number> {
        Ok(Number::from_i64(v))
    }
    fn serialize_u64(self, v: u64) -> Result<Number> {
        Ok(Number::from_u64(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Number> {
        // The exact value of the float64: a decimal, not the float64 it
        // happens to equal (that would write as a float64).
        if v == 0.0 || v.is_infinite() {
            return Number::from_f64(v);
        }
        Ok(Number::decimal_of_f64(v))
    }
    fn serialize_str(self, v: &str) -> Result<Number> {
        // A number ctywire already holds: no limit applies again.
        Number::parse_with_limit(v, u32::MAX)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(Error::data(
            "internal error: private content written as a struct",
        ))
    }
    refuse_compound!();
}

/// The fields of one of the private structs, taken one by one.
trait Fields {
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()>;
}

/// Reads back one of the private structs ([`UnknownContent`],
/// [`ValueContent`]), leaving out the field that refuses to be written.
///
/// [`UnknownContent`]: super::private::UnknownContent
/// [`ValueContent`]: super::private::ValueContent
struct StructCapture<F>(F);

impl<F: Fields> ser::Serializer for StructCapture<F> {
    type Ok = F;
    type Error = Error;
    type SerializeSeq = Impossible<F, Error>;
    type SerializeTuple = Impossible<F, Error>;
    type SerializeTupleStruct = Impossible<F, Error>;
    type SerializeTupleVariant = Impossible<F, Error>;
    type SerializeMap = Impossible<F, Error>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<F, Error>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self> {
        Ok(self)
    }
    refuse! {
        serialize_i64(i64); serialize_u64(u64); serialize_f64(f64); serialize_str(&str);
    }
    refuse_compound!();
}

impl<F: Fields> ser::SerializeStruct for StructCapture<F> {
    type Ok = F;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        if key == ONLY_IN_CTY {
            return Ok(());
        }
        self.0.field(key, value)
    }
    fn end(self) -> Result<F> {
        Ok(self.0)
    }
}

/// An unknown's refinements.
struct UnknownFields(Option<Refinements>);

impl Fields for UnknownFields {
    fn field<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Result<()> {
        let data = value.serialize(TypedSerializer { ty: &Type::Dynamic })?;
        self.0 = Some(RefinementsData::deserialize(ValueDeserializer::new(&data))?.into());
        Ok(())
    }
}

/// A value's type, then its content at that type.
struct ValueFields {
    ty: Option<Type>,
    value: Option<Value>,
}

impl Fields for ValueFields {
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        match (key, &self.ty) {
            ("type", _) => {
                // A type inside cty: the text of its JSON form.
                let text = value.serialize(TypedSerializer { ty: &Type::String })?;
                let text = text
                    .as_str()
                    .ok_or_else(|| handed_over_in_part(VALUE_TOKEN))?;
                self.ty = Some(Type::parse(text)?);
            }
            ("value", Some(ty)) => self.value = Some(value.serialize(TypedSerializer { ty })?),
            _ => return Err(handed_over_in_part(VALUE_TOKEN)),
        }
        Ok(())
    }
}
