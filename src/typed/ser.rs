//! Serde serialization into a [`Value`] of a given type: [`to_value`](super::to_value).
//!
//! The type decides what a Rust shape becomes: a sequence is a list, a set
//! or a tuple, a struct or a map is a map or an object. Primitives pass
//! through the one conversion rule ([`Value::convert`]), so a number
//! written where a string belongs becomes its text, as go-cty's encoders
//! do. Every error carries the path of the element it is about.

use compact_str::CompactString;
use serde::ser::{self, Impossible, Serialize};

use super::{is_private_name, required_form, take_stash, Stashed};
use crate::convert::conformed;
use crate::error::{Error, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::strings::nfc;
use crate::types::{ObjectType, Type};
use crate::value::{self, Value};

/// Serializes one Rust value as a cty value of type `ty`.
pub(crate) struct TypedSerializer<'t> {
    pub(crate) ty: &'t Type,
}

pub(super) fn mismatch(ty: &Type, got: &str) -> Error {
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

    /// What a ctywire type handed over under one of the private names
    /// (`stashed`, taken from the stash), as a value of this type.
    pub(crate) fn handed_over(self, stashed: Option<Stashed>) -> Result<Value> {
        match stashed {
            Some(Stashed::Value(v)) => Ok(conformed(&v, self.ty)?.into_owned()),
            Some(Stashed::Number(n)) => self.number(n),
            Some(Stashed::Unknown(r)) => Value::unknown(self.ty.clone()).refined(r),
            None => Err(Error::data(
                "internal error: a private ctywire name reached the serializer without its value",
            )),
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
        if is_private_name(name) {
            return self.handed_over(take_stash());
        }
        value.serialize(self)
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
pub(super) fn not_an_attribute(ty: &Type, source: &str, key: &str) -> Error {
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
