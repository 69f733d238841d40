//! Serde serialization straight into JSON text: `json::to_vec`.
//!
//! It writes what `json::encode(&to_value(..)?, ..)` writes, byte for
//! byte, without the value tree where that is plain: structs as objects
//! (attributes put in the type's order, those that did not come as
//! null), lists and tuples, maps of a static element type (keys put in
//! order), strings, bools and numbers at their own types, nulls.
//! Everything else (sets, whose order and duplicates are cty's to decide;
//! conversions; dynamic positions; ctywire's own types handed over whole)
//! is built as a [`Value`] by [`TypedSerializer`] and written by the
//! encoder, so both paths agree by construction there.
//!
//! Errors agree too. The plain path meets `to_value`'s errors (a shape
//! that does not fit) in the order the Rust value gives its parts, and
//! only then the encoder's (what JSON cannot hold: an unknown, an
//! infinity) in the order of the output, and only in the parts that are
//! kept (of a repeated key, the last). So here an encoder's error in a
//! part is held back ([`Deferred`]) until the part is known to stay and
//! nothing before it in the output failed too.

use std::io::Write as _;
use std::ops::Range;

use serde::ser::{self, Serialize};

use super::encode::{encode_into, write_key, write_quoted};
use crate::error::{Category, Error, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::strings::nfc;
use crate::typed::ser::{
    handed_over, mismatch, not_an_attribute, HandedOver, MapSerializer, SeqSerializer,
    TypedSerializer,
};
use crate::types::{ObjectType, Type};
use crate::value::Value;

/// `to_value` and `encode`, in one pass where it can, appended to `out`;
/// on an error `out` is left as it was.
pub(super) fn to_json<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
    ty: &Type,
) -> Result<()> {
    let len = out.len();
    let written = value.serialize(JsonSerializer { out, ty });
    if written.is_err() {
        out.truncate(len);
    }
    written
}

/// An encoder's error in a part, held back; any other error is returned
/// at once, as `to_value` would return it.
type Deferred = Option<Error>;

/// `written`, with an encoder's error taken aside into `deferred` (the
/// first such one, by the caller's order).
fn defer(written: Result<()>, deferred: &mut Deferred) -> Result<()> {
    match written {
        Err(e) if e.category() == Category::Unrepresentable => {
            deferred.get_or_insert(e);
            Ok(())
        }
        other => other,
    }
}

/// Writes one Rust value as the JSON form of type `ty`.
struct JsonSerializer<'o, 't> {
    out: &'o mut Vec<u8>,
    ty: &'t Type,
}

impl<'o, 't> JsonSerializer<'o, 't> {
    /// Writes a value built the general way.
    fn write(self, v: Result<Value>) -> Result<()> {
        encode_into(self.out, &v?, self.ty)
    }

    fn typed(&self) -> TypedSerializer<'t> {
        TypedSerializer { ty: self.ty }
    }

    /// A number at a number type, as the encoder writes it.
    fn number(self, n: &Number) -> Result<()> {
        if n.is_infinite() {
            return Err(Error::unrepresentable("cannot serialize infinity as JSON"));
        }
        n.write_text(self.out);
        Ok(())
    }

    /// An integer, at a number type written as its digits, else converted
    /// as `to_value` converts it.
    fn integer<I: std::fmt::Display>(
        self,
        v: I,
        general: impl FnOnce(TypedSerializer<'t>) -> Result<Value>,
    ) -> Result<()> {
        if matches!(self.ty, Type::Number) {
            // An integer's canonical text is its digits (a Vec takes every
            // write).
            let _ = write!(self.out, "{v}");
            return Ok(());
        }
        let v = general(self.typed());
        self.write(v)
    }
}

impl<'o, 't> ser::Serializer for JsonSerializer<'o, 't> {
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
            self.out
                .extend_from_slice(if v { b"true" } else { b"false" });
            return Ok(());
        }
        let v = ser::Serializer::serialize_bool(self.typed(), v);
        self.write(v)
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.integer(v, |s| ser::Serializer::serialize_i8(s, v))
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.integer(v, |s| ser::Serializer::serialize_i16(s, v))
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.integer(v, |s| ser::Serializer::serialize_i32(s, v))
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.integer(v, |s| ser::Serializer::serialize_i64(s, v))
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        self.integer(v, |s| ser::Serializer::serialize_i128(s, v))
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.integer(v, |s| ser::Serializer::serialize_u8(s, v))
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.integer(v, |s| ser::Serializer::serialize_u16(s, v))
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.integer(v, |s| ser::Serializer::serialize_u32(s, v))
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.integer(v, |s| ser::Serializer::serialize_u64(s, v))
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        self.integer(v, |s| ser::Serializer::serialize_u128(s, v))
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        // Widening is exact, as `to_value` widens.
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        if matches!(self.ty, Type::Number) {
            return self.number(&Number::from_f64(v)?);
        }
        let v = ser::Serializer::serialize_f64(self.typed(), v);
        self.write(v)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        if matches!(self.ty, Type::String) {
            write_quoted(self.out, &nfc(v));
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
        // A null is `null` at every type, a dynamic one included.
        self.out.extend_from_slice(b"null");
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
        let Some(h) = handed_over(name, value)? else {
            return value.serialize(self);
        };
        // ctywire's own types hand themselves over (see `typed::private`).
        match h {
            HandedOver::Number(n) if matches!(self.ty, Type::Number) => self.number(&n),
            HandedOver::Value(v) => encode_into(self.out, &v, self.ty),
            HandedOver::Type(t) => self.serialize_str(&t.to_json()),
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

/// A sequence: a list of a static element type or a tuple straight to
/// the output, anything else (sets above all) gathered as a value.
enum SeqWriter<'o, 't> {
    Direct {
        out: &'o mut Vec<u8>,
        /// A list's element type; `None` for a tuple.
        list_of: Option<&'t Type>,
        etys: &'t [Type],
        next: usize,
        failed: Deferred,
    },
    General {
        out: &'o mut Vec<u8>,
        ty: &'t Type,
        seq: SeqSerializer<'t>,
    },
}

impl<'o, 't> SeqWriter<'o, 't> {
    fn new(s: JsonSerializer<'o, 't>, len: Option<usize>) -> Result<Self> {
        let (list_of, etys): (Option<&'t Type>, &'t [Type]) = match (s.ty, len) {
            // Elements with dynamic parts must agree on one type: the
            // general path checks that.
            (Type::List(e), _) if e.is_static() => (Some(e), &[]),
            (Type::Tuple(ts), _) => (None, ts),
            _ => {
                let seq = ser::Serializer::serialize_seq(s.typed(), len)?;
                return Ok(SeqWriter::General {
                    out: s.out,
                    ty: s.ty,
                    seq,
                });
            }
        };
        s.out.push(b'[');
        Ok(SeqWriter::Direct {
            out: s.out,
            list_of,
            etys,
            next: 0,
            failed: None,
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
                failed,
            } => {
                let i = *next;
                let ty = match list_of {
                    Some(e) => *e,
                    None => etys.get(i).ok_or_else(|| {
                        Error::wrong_tuple_length(etys.len(), None).under(PathStep::Index(i as u64))
                    })?,
                };
                *next += 1;
                if i > 0 {
                    out.push(b',');
                }
                let written = value
                    .serialize(JsonSerializer { out, ty })
                    .map_err(|e| e.under(PathStep::Index(i as u64)));
                defer(written, failed)
            }
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            SeqWriter::General { out, ty, seq } => {
                let v = ser::SerializeSeq::end(seq);
                JsonSerializer { out, ty }.write(v)
            }
            // A tuple takes exactly its elements; a list what came.
            SeqWriter::Direct {
                list_of: None,
                etys,
                next,
                ..
            } if next != etys.len() => Err(Error::wrong_tuple_length(etys.len(), Some(next))),
            SeqWriter::Direct {
                failed: Some(e), ..
            } => Err(e),
            SeqWriter::Direct { out, .. } => {
                out.push(b']');
                Ok(())
            }
        }
    }
}

sequence_traits!(SeqWriter<'_, '_>, ());

/// Members written so far (`"name":value`, each without the comma before
/// it) where they are in `out`: put in order at the end unless they came
/// in it. `start` is just after the `{`.
struct Members {
    start: usize,
    /// Each member's sort key, its bytes' place in `out`, and the
    /// encoder's error in it, if any.
    written: Vec<(MemberKey, Range<usize>, Deferred)>,
    /// Whether every member so far came after the one before, once.
    in_order: bool,
}

/// Where a member goes: an attribute's place in its type, or a map key's
/// text (keys are sorted bytewise).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum MemberKey {
    Attribute(usize),
    Key(String),
}

impl Members {
    fn open(out: &mut Vec<u8>, len: Option<usize>) -> Members {
        out.push(b'{');
        Members {
            start: out.len(),
            written: Vec::with_capacity(len.unwrap_or(0).min(1024)),
            in_order: true,
        }
    }

    /// Starts a member: the comma, if members came before.
    fn begin(&self, out: &mut Vec<u8>) -> usize {
        if !self.written.is_empty() {
            out.push(b',');
        }
        out.len()
    }

    /// Records a member written from `at` to the end of `out`, or the
    /// encoder's error in it (to be returned if it stays); returns any
    /// other error.
    fn end(&mut self, out: &[u8], key: MemberKey, at: usize, written: Result<()>) -> Result<()> {
        let mut failed = None;
        defer(written, &mut failed)?;
        if let Some((last, ..)) = self.written.last() {
            self.in_order &= *last < key;
        }
        self.written.push((key, at..out.len(), failed));
        Ok(())
    }

    /// Closes the object. Out of order, the members are put in order
    /// (copied after the end, then moved down over where they came), a
    /// repeated one's last value kept (as `Value::object` and
    /// `Value::map` keep it: the sort is stable). For an object, the
    /// attributes of `oty` that never came are written as null.
    fn close(mut self, out: &mut Vec<u8>, oty: Option<&ObjectType>) -> Result<()> {
        let complete = oty.is_none_or(|o| self.written.len() == o.len());
        if !(self.in_order && complete) {
            self.written.sort_by(|a, b| a.0.cmp(&b.0));
            // Of a repeated member, the last written.
            self.written.reverse();
            self.written.dedup_by(|later, earlier| later.0 == earlier.0);
            self.written.reverse();
        }
        // The first member left, in the output's order, that the encoder
        // could not write.
        if let Some(e) = self.written.iter_mut().find_map(|(.., e)| e.take()) {
            return Err(e);
        }
        if self.in_order && complete {
            out.push(b'}');
            return Ok(());
        }
        let end = out.len();
        let mut came = self.written.iter().peekable();
        let put = |out: &mut Vec<u8>, first: bool, place: &Range<usize>| {
            if !first {
                out.push(b',');
            }
            out.extend_from_within(place.clone());
        };
        match oty {
            Some(o) => {
                for a in 0..o.len() {
                    match came.next_if(|(k, ..)| *k == MemberKey::Attribute(a)) {
                        Some((_, place, _)) => put(out, a == 0, place),
                        None => {
                            if a > 0 {
                                out.push(b',');
                            }
                            write_key(out, o.name(a));
                            out.extend_from_slice(b"null");
                        }
                    }
                }
            }
            None => {
                for (i, (_, place, _)) in came.enumerate() {
                    put(out, i == 0, place);
                }
            }
        }
        out.push(b'}');
        out.drain(self.start..end);
        Ok(())
    }
}

/// A Rust map: as a map of a static element type, its entries written
/// straight to the output and put in key order at the end if they did not
/// come in it; anything else gathered as a value.
enum MapWriter<'o, 't> {
    Direct {
        out: &'o mut Vec<u8>,
        ety: &'t Type,
        members: Members,
        /// The key just written, and where its member starts.
        key: Option<(String, usize)>,
    },
    General {
        out: &'o mut Vec<u8>,
        ty: &'t Type,
        map: MapSerializer<'t>,
    },
}

impl<'o, 't> MapWriter<'o, 't> {
    fn new(s: JsonSerializer<'o, 't>, len: Option<usize>) -> Result<Self> {
        match s.ty {
            Type::Map(e) if e.is_static() => Ok(MapWriter::Direct {
                members: Members::open(s.out, len),
                out: s.out,
                ety: e,
                key: None,
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
            MapWriter::Direct {
                out, members, key, ..
            } => {
                // Keys as `to_value` reads them: through the string type.
                let text = k
                    .serialize(TypedSerializer { ty: &Type::String })
                    .map_err(|e| e.in_context("a map key"))?;
                let Some(text) = text.as_str() else {
                    return Err(Error::data("a map key must be a string, number or bool"));
                };
                let at = members.begin(out);
                write_key(out, text);
                *key = Some((text.to_string(), at));
                Ok(())
            }
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match self {
            MapWriter::General { map, .. } => map.serialize_value(value),
            MapWriter::Direct {
                out,
                ety,
                members,
                key,
            } => {
                let Some((text, at)) = key.take() else {
                    return Err(Error::data("internal error: a map value without its key"));
                };
                let written = value
                    .serialize(JsonSerializer { out, ty: ety })
                    .map_err(|e| e.under(PathStep::Key(text.clone())));
                members.end(out, MemberKey::Key(text), at, written)
            }
        }
    }
    fn end(self) -> Result<()> {
        match self {
            MapWriter::General { out, ty, map } => {
                let v = ser::SerializeMap::end(map);
                JsonSerializer { out, ty }.write(v)
            }
            MapWriter::Direct { out, members, .. } => members.close(out, None),
        }
    }
}

/// A struct: as an object, its fields written straight to the output and
/// put in the type's order at the end if they did not come in it;
/// anything else gathered as a value.
enum StructWriter<'o, 't> {
    Direct {
        out: &'o mut Vec<u8>,
        oty: &'t ObjectType,
        ty: &'t Type,
        name: &'static str,
        members: Members,
    },
    General {
        out: &'o mut Vec<u8>,
        ty: &'t Type,
        map: MapSerializer<'t>,
    },
}

impl<'o, 't> StructWriter<'o, 't> {
    fn new(s: JsonSerializer<'o, 't>, name: &'static str, len: usize) -> Result<Self> {
        match s.ty {
            Type::Object(oty) => Ok(StructWriter::Direct {
                members: Members::open(s.out, Some(len)),
                out: s.out,
                oty,
                ty: s.ty,
                name,
            }),
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
                members,
            } => {
                let Some(i) = oty.index_of(key) else {
                    return Err(not_an_attribute(ty, name, key));
                };
                let at = members.begin(out);
                write_key(out, key);
                let written = value
                    .serialize(JsonSerializer {
                        out,
                        ty: oty.attribute_type_at(i),
                    })
                    .map_err(|e| e.under(PathStep::Attr(key.to_string())));
                members.end(out, MemberKey::Attribute(i), at, written)
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
                JsonSerializer { out, ty }.write(v)
            }
            StructWriter::Direct {
                out, oty, members, ..
            } => members.close(out, Some(oty)),
        }
    }
}
