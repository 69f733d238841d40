//! Serde serialization straight into msgpack bytes: `msgpack::to_vec`.
//! (Reading is `typed::wire`'s, shared with JSON.)
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

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::{Arc, Weak};

use rmp::encode as mp;
use serde::ser::{self, Serialize};

use super::decode::decode;
use super::encode::encode_into;
use super::read::item_ends;
use super::set_order::known_in_order;
use super::write::{
    bool_marker, write_array_header, write_map_header, write_number, write_str, write_str_ascii,
    NIL,
};
use crate::error::{Error, Result};
use crate::path::PathStep;
use crate::strings::nfc;
use crate::typed::private::NUMBER_TOKEN;
use crate::typed::ser::{
    handed_over, mismatch, not_an_attribute, HandedOver, MapSerializer, SeqSerializer,
    TypedSerializer,
};
use crate::types::{ObjectType, Type};
use crate::value::{Repr, Value};

// Writes to a Vec<u8> cannot fail, so rmp's io results are dropped.

/// `to_value` and `encode`, in one pass where it can, appended to `out`;
/// on an error `out` is left as it was.
pub(super) fn to_msgpack<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
    ty: &Type,
) -> Result<()> {
    let len = out.len();
    let mut o = Out {
        bytes: std::mem::take(out),
        negative_zero: None,
    };
    let written = value.serialize(MsgpackSerializer { out: &mut o, ty });
    *out = o.bytes;
    if written.is_err() {
        out.truncate(len);
    }
    written
}

/// Writes one Rust value as the msgpack form of type `ty`. Two words, as
/// it was before the output learned to watch for -0: it is passed (and
/// made anew) for every part written, and a third word had it go through
/// memory instead of registers (+2% instructions encoding structs).
pub(crate) struct MsgpackSerializer<'o, 't> {
    pub(crate) out: &'o mut Out,
    pub(crate) ty: &'t Type,
}

/// The output, and whether a -0 went into the set element being written.
/// msgpack writes -0 as 0, so the element read back from its bytes would
/// lose it, and the set rules keep -0 and 0 apart (they order and
/// de-duplicate by go-cty's hash strings, `-0` and `0`): such an element
/// is built as a value instead.
pub(crate) struct Out {
    bytes: Vec<u8>,
    /// `Some` while a set element is written: whether a -0 went into it.
    negative_zero: Option<bool>,
}

impl std::ops::Deref for Out {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.bytes
    }
}

impl std::ops::DerefMut for Out {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }
}

impl Out {
    /// Notes a -0 for the set element being written, if one is being
    /// written (only then is `found` asked) and `found` says so.
    fn note_negative_zero(&mut self, found: impl FnOnce() -> bool) {
        if self.negative_zero == Some(false) && found() {
            self.negative_zero = Some(true);
        }
    }

    /// Runs `write` for a set element, answering whether a -0 went into
    /// it; a set element around this one learns of it too.
    fn watching_negative_zero<R>(&mut self, write: impl FnOnce(&mut Out) -> R) -> (R, bool) {
        let outer = self.negative_zero.replace(false);
        let r = write(self);
        let found = self.negative_zero == Some(true);
        self.negative_zero = outer.map(|seen| seen || found);
        (r, found)
    }
}

impl<'o, 't> MsgpackSerializer<'o, 't> {
    /// Writes a value built the general way.
    fn write(self, v: Result<Value>) -> Result<()> {
        let v = v?;
        self.out.note_negative_zero(|| has_negative_zero(&v));
        encode_into(self.out, &v, self.ty)
    }

    fn typed(&self) -> TypedSerializer<'t> {
        TypedSerializer { ty: self.ty }
    }

    /// Text at a type other than string: converted as `to_value` does.
    #[cold]
    #[inline(never)]
    fn str_general(self, v: &str) -> Result<()> {
        let v = ser::Serializer::serialize_str(self.typed(), v);
        self.write(v)
    }

    fn int(self, v: i64) -> Result<()> {
        if matches!(self.ty, Type::Number) {
            let _ = mp::write_sint(&mut **self.out, v);
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
            self.out.push(bool_marker(v));
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
        // A finite fraction is the number `Number::from_f64` makes, which
        // msgpack writes as that float64; the rest (integers, -0, NaN,
        // infinities, other types) is built the general way.
        if matches!(self.ty, Type::Number) && v.is_finite() && v.fract() != 0.0 {
            let _ = mp::write_f64(&mut **self.out, v);
            return Ok(());
        }
        let v = ser::Serializer::serialize_f64(self.typed(), v);
        self.write(v)
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        if matches!(self.ty, Type::String) {
            // Written as it is, and seen to be ASCII (so NFC) as it is
            // copied, as nearly all text is.
            let at = self.out.len();
            if !write_str_ascii(self.out, v) {
                rewrite_nfc(self.out, at, v);
            }
            return Ok(());
        }
        self.str_general(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        let v = ser::Serializer::serialize_bytes(self.typed(), v);
        self.write(v)
    }
    fn serialize_none(self) -> Result<()> {
        // A null is nil at every type, a dynamic one included.
        self.out.push(NIL);
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
        // A number at a number type (the one private content common in
        // structs: `Option<Number>` fields) is written from its content
        // as it comes, without making the number again.
        if name == NUMBER_TOKEN && matches!(self.ty, Type::Number) {
            return value.serialize(NumberWriter { out: self.out });
        }
        // Any other newtype is its inner value, as to `to_value`.
        let Some(h) = handed_over(name, value)? else {
            return value.serialize(self);
        };
        // ctywire's own types hand themselves over (see `typed::private`).
        // A number at a number type and a value are written as the encoder
        // writes them; a type is its JSON text; the rest (conversions,
        // unknowns) is built the general way.
        match h {
            HandedOver::Number(n) if matches!(self.ty, Type::Number) => {
                self.out.note_negative_zero(|| is_negative_zero(&n));
                write_number(self.out, &n);
                Ok(())
            }
            HandedOver::Value(v) => {
                // Looked at as converted to the slot's type, as the
                // encoder will write it: the string "-0" at a number type
                // is -0.
                let v = crate::convert::conformed(&v, self.ty)?;
                self.out.note_negative_zero(|| has_negative_zero(&v));
                encode_into(self.out, &v, self.ty)
            }
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

/// Writes a [`NumberContent`](crate::typed::private::NumberContent) as
/// `write_number` writes the number it stands for: an exact float64 (a
/// binary fraction, ±infinity) as a float64, -0 as the integer 0, an
/// integer beyond i64 and any other decimal as its text.
struct NumberWriter<'o> {
    out: &'o mut Out,
}

impl ser::Serializer for NumberWriter<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_i64(self, v: i64) -> Result<()> {
        let _ = mp::write_sint(&mut **self.out, v);
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        // Beyond i64 (a smaller one is held as an i64 and never comes here).
        write_number(self.out, &crate::Number::from_u64(v));
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        if v == 0.0 {
            // -0 (a zero held as an i64 never comes here): the integer 0,
            // noted for a set element that holds it.
            self.out.note_negative_zero(|| true);
            let _ = mp::write_sint(&mut **self.out, 0);
        } else {
            let _ = mp::write_f64(&mut **self.out, v);
        }
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        write_str(self.out, v);
        Ok(())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(Error::data(
            "internal error: private content written as a struct",
        ))
    }
    refuse_compound!();
}

/// Text written at `at` that was not all ASCII: rewritten in NFC if it is
/// not that already. Kept out of line so that the common path stays small.
#[cold]
#[inline(never)]
fn rewrite_nfc(out: &mut Vec<u8>, at: usize, v: &str) {
    if let Cow::Owned(composed) = nfc(v) {
        out.truncate(at);
        write_str(out, &composed);
    }
}

/// A sequence: a list or tuple of a known length straight to the output,
/// a set's elements written and then put in the set's order, anything else
/// gathered as values.
pub(crate) enum SeqWriter<'o, 't> {
    Direct {
        out: &'o mut Out,
        /// A list's element type; `None` for a tuple.
        list_of: Option<&'t Type>,
        etys: &'t [Type],
        next: usize,
        /// Where the header for the length serde announced is, and that
        /// length: a hand-written `Serialize` may not keep to it.
        header: std::ops::Range<usize>,
        announced: usize,
    },
    Set {
        out: &'o mut Out,
        ety: &'t Type,
        /// Where a header for the length serde announced is, to be settled
        /// once the set's own length is known.
        header: std::ops::Range<usize>,
        /// Where each element's bytes are in `out` (all after `header`),
        /// and the element as a value where the bytes cannot give it.
        elements: Vec<(std::ops::Range<usize>, Option<Value>)>,
    },
    General {
        out: &'o mut Out,
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
            (Type::Set(e), _) if e.is_static() => {
                let at = s.out.len();
                write_array_header(s.out, len.unwrap_or(0) as u32);
                return Ok(SeqWriter::Set {
                    header: at..s.out.len(),
                    out: s.out,
                    ety: e,
                    elements: Vec::with_capacity(len.unwrap_or(0).min(1024)),
                });
            }
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
        let at = s.out.len();
        write_array_header(s.out, n as u32);
        Ok(SeqWriter::Direct {
            header: at..s.out.len(),
            out: s.out,
            list_of,
            etys,
            next: 0,
            announced: n,
        })
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match self {
            SeqWriter::General { seq, .. } => ser::SerializeSeq::serialize_element(seq, value),
            SeqWriter::Set {
                out, ety, elements, ..
            } => {
                let under = |e: Error| e.under(PathStep::Index(elements.len() as u64));
                let start = out.len();
                let (written, negative_zero) = out.watching_negative_zero(|out| {
                    value.serialize(MsgpackSerializer { out, ty: ety })
                });
                written.map_err(under)?;
                // The set's rules see the elements as values: read back
                // from their bytes at the end (see `write_set`), except
                // where the bytes cannot tell. msgpack writes -0 as 0, and
                // the set rules keep -0 and 0 apart, so an element with a
                // -0 in it is built the way `to_value` builds it.
                let read = if negative_zero {
                    Some(
                        value
                            .serialize(TypedSerializer { ty: ety })
                            .map_err(under)?,
                    )
                } else {
                    None
                };
                elements.push((start..out.len(), read));
                Ok(())
            }
            SeqWriter::Direct {
                out,
                list_of,
                etys,
                next,
                ..
            } => {
                let i = *next;
                let ty = match list_of {
                    Some(e) => *e,
                    None => etys.get(i).ok_or_else(|| {
                        Error::wrong_tuple_length(etys.len(), None).under(PathStep::Index(i as u64))
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
            SeqWriter::Set {
                out,
                ety,
                header,
                elements,
                ..
            } => write_set(out, header, elements, ety),
            SeqWriter::Direct {
                next, announced, ..
            } if next == announced => Ok(()),
            // A sequence that wrote another count than it announced: a
            // list takes what came (as `to_value` does), a tuple is short.
            SeqWriter::Direct {
                out,
                list_of: Some(_),
                next,
                header,
                ..
            } => {
                settle_header(out, header, next as u32, write_array_header);
                Ok(())
            }
            SeqWriter::Direct { etys, next, .. } => {
                Err(Error::wrong_tuple_length(etys.len(), Some(next)))
            }
        }
    }
}

sequence_traits!(SeqWriter<'_, '_>, ());

/// Puts a set's elements, written at the end of `out`, in the set's order
/// behind its header. A set of one is in order as it is, and so is one
/// whose bytes show it (`known_in_order`: written in order, as sets held in
/// order are). Otherwise `set::canonical_order` decides, from the elements
/// read back as values from what was just written, which costs a fraction
/// of building them the way `to_value` does.
fn write_set(
    out: &mut Vec<u8>,
    header: std::ops::Range<usize>,
    elements: Vec<(std::ops::Range<usize>, Option<Value>)>,
    ety: &Type,
) -> Result<()> {
    let written_in_order = || {
        elements.iter().all(|(_, v)| v.is_none())
            && known_in_order(ety, elements.iter().map(|(r, _)| &out[r.clone()]), u32::MAX)
    };
    let order = if elements.len() < 2 || written_in_order() {
        None
    } else {
        // Bytes ctywire itself just wrote, from values in memory: the
        // limits meant for untrusted input would refuse values `to_value`
        // accepts.
        let opts = crate::DecodeOptions::unlimited();
        let values = elements
            .iter()
            .map(|(r, v)| match v {
                Some(v) => Ok(v.clone()),
                None => decode(&out[r.clone()], ety, &opts),
            })
            .collect::<Result<Vec<Value>>>()?;
        crate::set::canonical_order(ety, &values)
    };
    let Some(order) = order else {
        // Already in order: only the header is settled.
        settle_header(out, header, elements.len() as u32, write_array_header);
        return Ok(());
    };
    let n = order.len() as u32;
    let items = order.into_iter().map(|i| elements[i].0.clone());
    rewrite_in_order(out, header, n, write_array_header, items);
    Ok(())
}

fn is_negative_zero(n: &crate::Number) -> bool {
    n.to_i64() == Some(0) && n.is_negative()
}

fn has_negative_zero(v: &Value) -> bool {
    match v.repr() {
        Repr::Number(n) => is_negative_zero(n),
        Repr::Seq(_, items) => items.iter().any(has_negative_zero),
        Repr::Map(_, entries) => entries.iter().any(|(_, e)| has_negative_zero(e)),
        _ => false,
    }
}

/// A Rust map: as a map of a static element type, its entries written
/// straight to the output and put in key order at the end if they did not
/// come in it (a `BTreeMap`'s do); anything else gathered as a value.
pub(crate) enum MapWriter<'o, 't> {
    Direct {
        out: &'o mut Out,
        ety: &'t Type,
        /// Where a header for the length serde announced is, to be settled
        /// once the map's own length is known.
        header: std::ops::Range<usize>,
        /// Each entry's key text and whole entry (key, then value), as
        /// places in `out`.
        entries: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>,
        /// Whether every key so far came after the one before.
        in_order: bool,
    },
    General {
        out: &'o mut Out,
        ty: &'t Type,
        map: MapSerializer<'t>,
    },
}

impl<'o, 't> MapWriter<'o, 't> {
    fn new(s: MsgpackSerializer<'o, 't>, len: Option<usize>) -> Result<Self> {
        match s.ty {
            Type::Map(e) if e.is_static() => Ok(MapWriter::Direct {
                header: {
                    let at = s.out.len();
                    write_map_header(s.out, len.unwrap_or(0) as u32);
                    at..s.out.len()
                },
                out: s.out,
                ety: e,
                entries: Vec::with_capacity(len.unwrap_or(0).min(1024)),
                in_order: true,
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
                out,
                entries,
                in_order,
                ..
            } => {
                // Keys as `to_value` reads them: through the string type,
                // here written as a msgpack str, whose text is then the key.
                let entry = out.len();
                // (A key is text: a -0 in it is the text "-0".)
                k.serialize(MsgpackSerializer {
                    out,
                    ty: &Type::String,
                })
                .map_err(|e| e.in_context("a map key"))?;
                let Some(text) = str_text(&out[entry..]) else {
                    out.truncate(entry);
                    return Err(Error::data("a map key must be a string, number or bool"));
                };
                let text = entry + text.start..entry + text.end;
                if let Some((last, _)) = entries.last() {
                    *in_order &= out[last.clone()] < out[text.clone()];
                }
                // The entry's end is set once its value is written.
                entries.push((text, entry..entry));
                Ok(())
            }
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match self {
            MapWriter::General { map, .. } => map.serialize_value(value),
            MapWriter::Direct {
                out, ety, entries, ..
            } => {
                let Some((text, entry)) = entries.last_mut() else {
                    return Err(Error::data("internal error: a map value without its key"));
                };
                if entry.end != entry.start {
                    return Err(Error::data("internal error: a map value without its key"));
                }
                let written = value.serialize(MsgpackSerializer { out, ty: ety });
                if let Err(e) = written {
                    let key = String::from_utf8_lossy(&out[text.clone()]).into_owned();
                    return Err(e.under(PathStep::Key(key)));
                }
                entry.end = out.len();
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
                header,
                mut entries,
                in_order,
                ..
            } => {
                if in_order {
                    settle_header(out, header, entries.len() as u32, write_map_header);
                    return Ok(());
                }
                // Keys sorted bytewise, a repeated key's last value kept,
                // as `Value::map` does (the sort is stable).
                entries.sort_by(|a, b| out[a.0.clone()].cmp(&out[b.0.clone()]));
                let mut kept: Vec<std::ops::Range<usize>> = Vec::with_capacity(entries.len());
                for (i, (text, entry)) in entries.iter().enumerate() {
                    let repeated = i > 0 && out[entries[i - 1].0.clone()] == out[text.clone()];
                    match kept.last_mut() {
                        Some(last) if repeated => *last = entry.clone(),
                        _ => kept.push(entry.clone()),
                    }
                }
                let n = kept.len() as u32;
                rewrite_in_order(out, header, n, write_map_header, kept);
                Ok(())
            }
        }
    }
}

/// Puts the header for `n` items, written by `write`, in place of the
/// provisional one at `provisional` (written for the length serde
/// announced before the items followed it): over it when both are the
/// same size, as they nearly always are, else by moving the items.
fn settle_header(
    out: &mut Vec<u8>,
    provisional: std::ops::Range<usize>,
    n: u32,
    write: fn(&mut Vec<u8>, u32),
) {
    let end = out.len();
    write(out, n);
    let len = out.len() - end;
    if len == provisional.len() {
        out.copy_within(end.., provisional.start);
        out.truncate(end);
    } else {
        // [provisional][items][header] becomes [header][items].
        out[provisional.start..].rotate_right(len);
        let old = provisional.start + len;
        out.drain(old..old + provisional.len());
    }
}

/// Writes, in place of a provisional header and the items after it, the
/// header for `n` items (by `write`) and then the items at `items`
/// (places in `out` after the header) in the order given: copied after
/// the end, then moved down, so no second buffer is needed.
fn rewrite_in_order(
    out: &mut Vec<u8>,
    provisional: std::ops::Range<usize>,
    n: u32,
    write: fn(&mut Vec<u8>, u32),
    items: impl IntoIterator<Item = std::ops::Range<usize>>,
) {
    let end = out.len();
    write(out, n);
    for r in items {
        out.extend_from_within(r);
    }
    out.drain(provisional.start..end);
}

/// Where the text of the one msgpack str that `bytes` hold is; `None`
/// when they hold anything else.
fn str_text(bytes: &[u8]) -> Option<std::ops::Range<usize>> {
    let header = match rmp::Marker::from_u8(*bytes.first()?) {
        rmp::Marker::FixStr(_) => 1,
        rmp::Marker::Str8 => 2,
        rmp::Marker::Str16 => 3,
        rmp::Marker::Str32 => 5,
        _ => return None,
    };
    (header <= bytes.len()).then_some(header..bytes.len())
}

/// A struct: as an object, its fields written straight to the output in
/// the order they come, and put in the type's order at the end if that was
/// not it; anything else gathered as a value.
pub(crate) enum StructWriter<'o, 't> {
    Direct {
        out: &'o mut Out,
        oty: &'t Arc<ObjectType>,
        ty: &'t Type,
        name: &'static str,
        /// Where the first field starts in `out`, after the header.
        fields_start: usize,
        /// The attributes before `next` are written, in order, up to
        /// `in_order_end` in `out`.
        next: usize,
        in_order_end: usize,
        /// Attributes that came out of order, and everything after them:
        /// position and where its name and value are in `out`.
        late: Vec<(usize, std::ops::Range<usize>)>,
        /// Where this struct's fields were found the last time, and the
        /// next place in that plan; or the plan being learned.
        plan: Plan,
    },
    General {
        out: &'o mut Out,
        ty: &'t Type,
        map: MapSerializer<'t>,
    },
}

impl<'o, 't> StructWriter<'o, 't> {
    fn new(s: MsgpackSerializer<'o, 't>, name: &'static str, len: usize) -> Result<Self> {
        match s.ty {
            Type::Object(oty) => {
                write_map_header(s.out, oty.len() as u32);
                Ok(StructWriter::Direct {
                    fields_start: s.out.len(),
                    in_order_end: s.out.len(),
                    out: s.out,
                    plan: Plan::for_struct(oty, name, len),
                    oty,
                    ty: s.ty,
                    name,
                    next: 0,
                    late: Vec::new(),
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
                fields_start,
                next,
                in_order_end,
                late,
                plan,
            } => {
                let i = match plan.known(key) {
                    Some(i) => i,
                    None => {
                        // Fields usually come in the type's order: the
                        // name due next is compared before any search.
                        // Out of order, the one after the last to come is
                        // the next best guess.
                        let guess = late.last().map_or(*next, |(j, _)| j + 1);
                        let due = guess < oty.len() && oty.name(guess) == key;
                        let Some(i) = (if due { Some(guess) } else { oty.index_of(key) }) else {
                            return Err(not_an_attribute(ty, name, key));
                        };
                        plan.learn(key, i);
                        i
                    }
                };
                if i < *next {
                    // A field again, after its place was written: the last
                    // wins, as in `to_value`. The fields from its place on
                    // are taken back as late ones (rare: found by reading
                    // the output again).
                    let ends = item_ends(out, *fields_start, 2 * *next).ok_or_else(|| {
                        Error::data("internal error: written fields not found again")
                    })?;
                    let start_of = |j: usize| {
                        if j == 0 {
                            *fields_start
                        } else {
                            ends[2 * j - 1]
                        }
                    };
                    let taken_back = (i..*next).map(|j| (j, start_of(j)..ends[2 * j + 1]));
                    late.splice(0..0, taken_back);
                    *in_order_end = start_of(i);
                    *next = i;
                }
                let start = out.len();
                write_str(out, key);
                value
                    .serialize(MsgpackSerializer {
                        out,
                        ty: oty.attribute_type_at(i),
                    })
                    .map_err(|e| e.under(PathStep::Attr(key.to_string())))?;
                if i == *next && late.is_empty() {
                    *next += 1;
                    *in_order_end = out.len();
                } else {
                    // A repeated field: the last wins, as in `Value::object`.
                    if late.is_empty() {
                        // Usually all the rest comes late: one allocation.
                        late.reserve(oty.len() - *next);
                    }
                    late.push((i, start..out.len()));
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
                name,
                next,
                in_order_end,
                mut late,
                mut plan,
                ..
            } => {
                plan.keep(oty, name);
                // What came late is copied after everything, in the
                // type's order, and then moved down over where it came;
                // what never came (skipped fields) is null. The sort is
                // stable, so of a repeated field the last written wins.
                let end = out.len();
                // Fields late only because one came before its place are
                // already in order among themselves.
                if !late.is_sorted_by_key(|(i, _)| *i) {
                    late.sort_by_key(|(i, _)| *i);
                }
                let mut k = 0;
                for i in next..oty.len() {
                    let mut came = None;
                    while k < late.len() && late[k].0 == i {
                        came = Some(late[k].1.clone());
                        k += 1;
                    }
                    match came {
                        Some(r) => out.extend_from_within(r),
                        None => {
                            write_str(out, oty.name(i));
                            out.push(NIL);
                        }
                    }
                }
                out.drain(in_order_end..end);
                Ok(())
            }
        }
    }
}

/// Where one Rust struct's fields are in one object type, in the order
/// serde hands them over: learned from the first such struct written and
/// then followed, so that each field is found by comparing two pointers
/// instead of its name (name matching was a tenth of encoding the fleet
/// from structs; callgrind).
///
/// A field's name is a `&'static str`, so the same address and length is
/// the same name. A field the plan does not expect there (one skipped by
/// `skip_serializing_if`, or another struct of the same name) is looked
/// up by its name, as without a plan.
pub(crate) enum Plan {
    Following {
        fields: Rc<[(&'static str, usize)]>,
        at: usize,
    },
    Learning(Vec<(&'static str, usize)>),
}

/// A learned plan, for the struct (by its name's address) and the object
/// type it was learned for. The type is held weakly: that keeps its
/// allocation, so no other type can come to have its address, without
/// keeping the type itself.
struct KeptPlan {
    oty: Weak<ObjectType>,
    name: &'static str,
    fields: Rc<[(&'static str, usize)]>,
}

/// How many plans a thread keeps (a program writes a handful of struct
/// types; this bounds what a long-running one holds).
const PLANS_KEPT: usize = 64;

std::thread_local! {
    static PLANS: std::cell::RefCell<Vec<KeptPlan>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Plan {
    fn for_struct(oty: &Arc<ObjectType>, name: &'static str, len: usize) -> Plan {
        let found = PLANS.with(|plans| {
            plans
                .borrow()
                .iter()
                .find(|p| std::ptr::eq(p.name, name) && Weak::as_ptr(&p.oty) == Arc::as_ptr(oty))
                .map(|p| p.fields.clone())
        });
        match found {
            Some(fields) => Plan::Following { fields, at: 0 },
            None => Plan::Learning(Vec::with_capacity(len.min(oty.len()))),
        }
    }

    /// The position of `key` if the plan expects it next (or after fields
    /// that were skipped this time).
    #[inline]
    fn known(&mut self, key: &'static str) -> Option<usize> {
        let Plan::Following { fields, at } = self else {
            return None;
        };
        let j = (*at..fields.len()).find(|&j| std::ptr::eq(fields[j].0, key))?;
        *at = j + 1;
        Some(fields[j].1)
    }

    fn learn(&mut self, key: &'static str, i: usize) {
        if let Plan::Learning(fields) = self {
            fields.push((key, i));
        }
    }

    /// Keeps a plan learned from a struct written whole.
    fn keep(&mut self, oty: &Arc<ObjectType>, name: &'static str) {
        let Plan::Learning(fields) = self else {
            return;
        };
        let fields: Rc<[(&'static str, usize)]> = std::mem::take(fields).into();
        PLANS.with(|plans| {
            let mut plans = plans.borrow_mut();
            if plans.len() >= PLANS_KEPT {
                plans.retain(|p| p.oty.strong_count() > 0);
            }
            if plans.len() >= PLANS_KEPT {
                plans.remove(0);
            }
            plans.push(KeptPlan {
                oty: Arc::downgrade(oty),
                name,
                fields,
            });
        });
    }
}
