//! Serde serialization straight into msgpack bytes: `msgpack::to_vec`.
//!
//! It writes what `msgpack::encode(&to_value(..)?, ..)` writes, byte for
//! byte, without the value tree where that is plain: structs as objects
//! (attributes put in the type's order), lists and tuples of a known
//! length, maps (keys put in order), strings, bools and integers at their
//! own types, nulls. Everything else (sets, whose order and duplicates are
//! cty's to decide; conversions; dynamic positions; unknowns, numbers and
//! values handed over whole) is built as a [`Value`] by
//! [`TypedSerializer`] and written by the encoder, so both paths agree by
//! construction there.

use rmp::encode as mp;
use serde::ser::{self, Serialize};

use super::ser::{mismatch, not_an_attribute, MapSerializer, SeqSerializer, TypedSerializer};
use super::{is_private_name, take_stash, Stashed};
use crate::error::{Error, Result};
use crate::msgpack::encode::write_number;
use crate::path::PathStep;
use crate::strings::nfc;
use crate::types::{ObjectType, Type};
use crate::value::Value;

// Writes to a Vec<u8> cannot fail, so rmp's io results are dropped.

/// Writes one Rust value as the msgpack form of type `ty`.
pub(crate) struct MsgpackSerializer<'o, 't> {
    pub(crate) out: &'o mut Vec<u8>,
    pub(crate) ty: &'t Type,
}

impl<'o, 't> MsgpackSerializer<'o, 't> {
    /// Writes a value built the general way.
    fn write(self, v: Result<Value>) -> Result<()> {
        crate::msgpack::encode_into(self.out, &v?, self.ty)
    }

    fn typed(&self) -> TypedSerializer<'t> {
        TypedSerializer { ty: self.ty }
    }

    fn int(self, v: i64) -> Result<()> {
        if matches!(self.ty, Type::Number) {
            let _ = mp::write_sint(self.out, v);
            return Ok(());
        }
        let v = ser::Serializer::serialize_i64(self.typed(), v);
        self.write(v)
    }
}

impl<'o, 't> ser::Serializer for MsgpackSerializer<'o, 't> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqWriter<'o, 't>;
    type SerializeTuple = SeqWriter<'o, 't>;
    type SerializeTupleStruct = SeqWriter<'o, 't>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = MapWriter<'o, 't>;
    type SerializeStruct = StructWriter<'o, 't>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_bool(self, v: bool) -> Result<()> {
        if matches!(self.ty, Type::Bool) {
            let _ = mp::write_bool(self.out, v);
            return Ok(());
        }
        let v = ser::Serializer::serialize_bool(self.typed(), v);
        self.write(v)
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.int(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.int(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.int(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.int(v)
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.int(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.int(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.int(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        match i64::try_from(v) {
            Ok(i) => self.int(i),
            Err(_) => {
                let v = ser::Serializer::serialize_u64(self.typed(), v);
                self.write(v)
            }
        }
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        let v = ser::Serializer::serialize_i128(self.typed(), v);
        self.write(v)
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        let v = ser::Serializer::serialize_u128(self.typed(), v);
        self.write(v)
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        let v = ser::Serializer::serialize_f32(self.typed(), v);
        self.write(v)
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        let v = ser::Serializer::serialize_f64(self.typed(), v);
        self.write(v)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        if matches!(self.ty, Type::String) {
            let _ = mp::write_str(self.out, &nfc(v));
            return Ok(());
        }
        let v = ser::Serializer::serialize_str(self.typed(), v);
        self.write(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        let v = ser::Serializer::serialize_bytes(self.typed(), v);
        self.write(v)
    }
    fn serialize_none(self) -> Result<()> {
        // A null is nil at every type, a dynamic one included.
        let _ = mp::write_nil(self.out);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        // Any other newtype is its inner value, as to `to_value`.
        if !is_private_name(name) {
            return value.serialize(self);
        }
        // ctywire's own types (Value, Number, Unknowable) hand themselves
        // over whole. A number at a number type and a value are written as
        // the encoder writes them, without a copy; the rest (conversions,
        // unknowns) is built the general way.
        match take_stash() {
            Some(Stashed::Number(n)) if matches!(self.ty, Type::Number) => {
                write_number(self.out, &n);
                Ok(())
            }
            Some(Stashed::Value(v)) => crate::msgpack::encode_into(self.out, &v, self.ty),
            other => {
                let v = self.typed().handed_over(other);
                self.write(v)
            }
        }
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let v =
            ser::Serializer::serialize_newtype_variant(self.typed(), name, index, variant, value);
        self.write(v)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqWriter<'o, 't>> {
        SeqWriter::new(self, len)
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqWriter<'o, 't>> {
        SeqWriter::new(self, Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<SeqWriter<'o, 't>> {
        SeqWriter::new(self, Some(len))
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
    fn serialize_map(self, len: Option<usize>) -> Result<MapWriter<'o, 't>> {
        MapWriter::new(self, len)
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<StructWriter<'o, 't>> {
        StructWriter::new(self, name, len)
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

/// A sequence: a list or tuple of a known length straight to the output,
/// anything else gathered as values.
pub(crate) enum SeqWriter<'o, 't> {
    Direct {
        out: &'o mut Vec<u8>,
        /// A list's element type; `None` for a tuple.
        list_of: Option<&'t Type>,
        etys: &'t [Type],
        next: usize,
    },
    General {
        out: &'o mut Vec<u8>,
        ty: &'t Type,
        seq: SeqSerializer<'t>,
    },
}

impl<'o, 't> SeqWriter<'o, 't> {
    fn new(s: MsgpackSerializer<'o, 't>, len: Option<usize>) -> Result<Self> {
        let (list_of, etys): (Option<&'t Type>, &'t [Type]) = match (s.ty, len) {
            // Elements with dynamic parts must agree on one type: the
            // general path checks that.
            (Type::List(e), Some(_)) if e.is_static() => (Some(e), &[]),
            (Type::Tuple(ts), Some(n)) if n == ts.len() => (None, ts),
            _ => {
                let seq = ser::Serializer::serialize_seq(s.typed(), len)?;
                return Ok(SeqWriter::General {
                    out: s.out,
                    ty: s.ty,
                    seq,
                });
            }
        };
        let n = len.unwrap_or(0);
        let _ = mp::write_array_len(s.out, n as u32);
        Ok(SeqWriter::Direct {
            out: s.out,
            list_of,
            etys,
            next: 0,
        })
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match self {
            SeqWriter::General { seq, .. } => ser::SerializeSeq::serialize_element(seq, value),
            SeqWriter::Direct {
                out,
                list_of,
                etys,
                next,
            } => {
                let i = *next;
                let ty = match list_of {
                    Some(e) => *e,
                    None => etys.get(i).ok_or_else(|| {
                        Error::data(format!(
                            "a tuple of {} elements is required (more given)",
                            etys.len()
                        ))
                        .under(PathStep::Index(i as u64))
                    })?,
                };
                *next += 1;
                value
                    .serialize(MsgpackSerializer { out, ty })
                    .map_err(|e| e.under(PathStep::Index(i as u64)))
            }
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            SeqWriter::General { out, ty, seq } => {
                let v = ser::SerializeSeq::end(seq);
                MsgpackSerializer { out, ty }.write(v)
            }
            // The header promised the length serde gave; a sequence that
            // then wrote another count broke its own promise.
            SeqWriter::Direct { .. } => Ok(()),
        }
    }
}

sequence_traits!(SeqWriter<'_, '_>, ());

/// A Rust map: as a map of a static element type, its entries written
/// aside and put in key order; anything else gathered as a value.
pub(crate) enum MapWriter<'o, 't> {
    Direct {
        out: &'o mut Vec<u8>,
        ety: &'t Type,
        key: Option<String>,
        /// Each entry's key and where its value's bytes are in `scratch`.
        entries: Vec<(String, std::ops::Range<usize>)>,
        scratch: Vec<u8>,
    },
    General {
        out: &'o mut Vec<u8>,
        ty: &'t Type,
        map: MapSerializer<'t>,
    },
}

impl<'o, 't> MapWriter<'o, 't> {
    fn new(s: MsgpackSerializer<'o, 't>, len: Option<usize>) -> Result<Self> {
        match s.ty {
            Type::Map(e) if e.is_static() => Ok(MapWriter::Direct {
                out: s.out,
                ety: e,
                key: None,
                entries: Vec::with_capacity(len.unwrap_or(0).min(1024)),
                scratch: Vec::new(),
            }),
            _ => {
                let map = ser::Serializer::serialize_map(s.typed(), len)?;
                Ok(MapWriter::General {
                    out: s.out,
                    ty: s.ty,
                    map,
                })
            }
        }
    }
}

impl ser::SerializeMap for MapWriter<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<()> {
        match self {
            MapWriter::General { map, .. } => map.serialize_key(k),
            MapWriter::Direct { key, .. } => {
                // Keys as `to_value` reads them: through the string type.
                let v = k
                    .serialize(TypedSerializer { ty: &Type::String })
                    .map_err(|e| e.in_context("a map key"))?;
                match v.as_str() {
                    Some(s) => *key = Some(s.to_string()),
                    None => return Err(Error::data("a map key must be a string, number or bool")),
                }
                Ok(())
            }
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match self {
            MapWriter::General { map, .. } => map.serialize_value(value),
            MapWriter::Direct {
                ety,
                key,
                entries,
                scratch,
                ..
            } => {
                let Some(k) = key.take() else {
                    return Err(Error::data("internal error: a map value without its key"));
                };
                let start = scratch.len();
                value
                    .serialize(MsgpackSerializer {
                        out: scratch,
                        ty: ety,
                    })
                    .map_err(|e| e.under(PathStep::Key(k.clone())))?;
                entries.push((k, start..scratch.len()));
                Ok(())
            }
        }
    }
    fn end(self) -> Result<()> {
        match self {
            MapWriter::General { out, ty, map } => {
                let v = ser::SerializeMap::end(map);
                MsgpackSerializer { out, ty }.write(v)
            }
            MapWriter::Direct {
                out,
                mut entries,
                scratch,
                ..
            } => {
                // Keys sorted bytewise, a repeated key's last value kept,
                // as `Value::map` does.
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                let mut kept: Vec<&(String, std::ops::Range<usize>)> =
                    Vec::with_capacity(entries.len());
                for e in &entries {
                    match kept.last_mut() {
                        Some(last) if last.0 == e.0 => *last = e,
                        _ => kept.push(e),
                    }
                }
                let _ = mp::write_map_len(out, kept.len() as u32);
                for (k, range) in kept {
                    let _ = mp::write_str(out, k);
                    out.extend_from_slice(&scratch[range.clone()]);
                }
                Ok(())
            }
        }
    }
}

/// A struct: as an object, its fields written straight to the output while
/// they come in the type's order, aside otherwise, and put in order at the
/// end; anything else gathered as a value.
pub(crate) enum StructWriter<'o, 't> {
    Direct {
        out: &'o mut Vec<u8>,
        oty: &'t ObjectType,
        ty: &'t Type,
        name: &'static str,
        /// The next attribute (by position) the output is waiting for.
        next: usize,
        /// Attributes that came early: position and where their bytes
        /// are in `scratch` (one buffer for all of them).
        aside: Vec<(usize, std::ops::Range<usize>)>,
        scratch: Vec<u8>,
    },
    General {
        out: &'o mut Vec<u8>,
        ty: &'t Type,
        map: MapSerializer<'t>,
    },
}

impl<'o, 't> StructWriter<'o, 't> {
    fn new(s: MsgpackSerializer<'o, 't>, name: &'static str, len: usize) -> Result<Self> {
        match s.ty {
            Type::Object(oty) => {
                let _ = mp::write_map_len(s.out, oty.len() as u32);
                Ok(StructWriter::Direct {
                    out: s.out,
                    oty,
                    ty: s.ty,
                    name,
                    next: 0,
                    aside: Vec::new(),
                    scratch: Vec::new(),
                })
            }
            _ => {
                let map = ser::Serializer::serialize_struct(s.typed(), name, len)?;
                Ok(StructWriter::General {
                    out: s.out,
                    ty: s.ty,
                    map,
                })
            }
        }
    }
}

/// Writes attribute `i`'s name and then its bytes (or nil when none came).
fn attribute(out: &mut Vec<u8>, oty: &ObjectType, i: usize, bytes: Option<&[u8]>) {
    let _ = mp::write_str(out, oty.name(i));
    match bytes {
        Some(b) => out.extend_from_slice(b),
        None => {
            let _ = mp::write_nil(out);
        }
    }
}

impl ser::SerializeStruct for StructWriter<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        match self {
            StructWriter::General { map, .. } => {
                ser::SerializeStruct::serialize_field(map, key, value)
            }
            StructWriter::Direct {
                out,
                oty,
                ty,
                name,
                next,
                aside,
                scratch,
            } => {
                // Fields usually come in the type's order: the name due
                // next is compared before any search.
                let due = *next < oty.len() && oty.name(*next) == key;
                let Some(i) = (if due { Some(*next) } else { oty.index_of(key) }) else {
                    return Err(not_an_attribute(ty, name, key));
                };
                let aty = oty.attribute_type_at(i);
                let under = |e: Error| e.under(PathStep::Attr(key.to_string()));
                if i == *next {
                    let _ = mp::write_str(out, key);
                    value
                        .serialize(MsgpackSerializer { out, ty: aty })
                        .map_err(under)?;
                    *next += 1;
                    // Attributes that came early and are now due.
                    while let Some(p) = aside.iter().position(|(j, _)| j == next) {
                        let (j, range) = aside.swap_remove(p);
                        attribute(out, oty, j, scratch.get(range));
                        *next += 1;
                    }
                    return Ok(());
                }
                if i < *next {
                    return Err(Error::data(format!(
                        "the field `{key}` of {name} is written twice"
                    )));
                }
                let start = scratch.len();
                value
                    .serialize(MsgpackSerializer {
                        out: scratch,
                        ty: aty,
                    })
                    .map_err(under)?;
                let range = start..scratch.len();
                match aside.iter_mut().find(|(j, _)| *j == i) {
                    Some(slot) => slot.1 = range,
                    None => aside.push((i, range)),
                }
                Ok(())
            }
        }
    }
    fn skip_field(&mut self, key: &'static str) -> Result<()> {
        match self {
            StructWriter::General { map, .. } => ser::SerializeStruct::skip_field(map, key),
            StructWriter::Direct { oty, ty, name, .. } => match oty.index_of(key) {
                Some(_) => Ok(()),
                None => Err(not_an_attribute(ty, name, key)),
            },
        }
    }
    fn end(self) -> Result<()> {
        match self {
            StructWriter::General { out, ty, map } => {
                let v = ser::SerializeStruct::end(map);
                MsgpackSerializer { out, ty }.write(v)
            }
            StructWriter::Direct {
                out,
                oty,
                next,
                aside,
                scratch,
                ..
            } => {
                // What never came (skipped fields) is null.
                for i in next..oty.len() {
                    let bytes = aside
                        .iter()
                        .find(|(j, _)| *j == i)
                        .and_then(|(_, r)| scratch.get(r.clone()));
                    attribute(out, oty, i, bytes);
                }
                Ok(())
            }
        }
    }
}
