//! msgpack → Value, straight from the bytes, driven by the type.

use std::collections::HashMap;

use compact_str::CompactString;
use rmp::Marker;
use thin_vec::ThinVec;

use super::{key, EXT_REFINED_UNKNOWN, MAX_REFINEMENT_PAYLOAD};
use crate::error::{Error, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::refinements::{Bound, Refinements};
use crate::strings::{compact_nfc, nfc};
use crate::types::{ObjectType, Type};
use crate::value::{self, collapse, Repr, Value};
use crate::DecodeOptions;

pub(super) fn decode(bytes: &[u8], ty: &Type, opts: &DecodeOptions) -> Result<Value> {
    opts.check_input_len(bytes.len())?;
    let mut d = Decoder {
        buf: bytes,
        pos: 0,
        depth: 0,
        opts,
        types: HashMap::new(),
    };
    let v = d.value(ty)?;
    if d.pos != bytes.len() {
        return Err(Error::syntax(format!(
            "{} bytes after the msgpack value",
            bytes.len() - d.pos
        ))
        .at_offset(d.pos));
    }
    Ok(v)
}

struct Decoder<'a, 'o> {
    buf: &'a [u8],
    pos: usize,
    depth: usize,
    opts: &'o DecodeOptions,
    /// Type JSON already parsed in this input: dynamic collections repeat it.
    types: HashMap<&'a [u8], Type>,
}

/// What the next bytes hold, by their leading marker.
enum Head {
    Nil,
    Bool(bool),
    Int(Number),
    Float(f64),
    Str(u32),
    Bin(u32),
    Array(u32),
    Map(u32),
    Ext,
    Reserved,
}

impl<'a> Decoder<'a, '_> {
    fn data_err(&self, at: usize, msg: impl Into<std::borrow::Cow<'static, str>>) -> Error {
        Error::data(msg).at_offset(at)
    }

    fn eof(&self) -> Error {
        Error::eof().at_offset(self.buf.len())
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        match self.buf.get(self.pos..self.pos.saturating_add(n)) {
            Some(s) if self.pos.checked_add(n).is_some() => {
                self.pos += n;
                Ok(s)
            }
            _ => Err(self.eof()),
        }
    }

    fn be<const N: usize>(&mut self) -> Result<[u8; N]> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    fn peek(&self) -> Result<u8> {
        self.buf.get(self.pos).copied().ok_or_else(|| self.eof())
    }

    /// Reads a marker and its length/scalar payload (not str/bin/array/map
    /// contents).
    fn head(&mut self) -> Result<Head> {
        let b = self.peek()?;
        self.pos += 1;
        Ok(match Marker::from_u8(b) {
            Marker::Null => Head::Nil,
            Marker::True => Head::Bool(true),
            Marker::False => Head::Bool(false),
            Marker::FixPos(v) => Head::Int(Number::from_i64(i64::from(v))),
            Marker::FixNeg(v) => Head::Int(Number::from_i64(i64::from(v))),
            Marker::U8 => Head::Int(Number::from(u8::from_be_bytes(self.be()?))),
            Marker::U16 => Head::Int(Number::from(u16::from_be_bytes(self.be()?))),
            Marker::U32 => Head::Int(Number::from(u32::from_be_bytes(self.be()?))),
            Marker::U64 => Head::Int(Number::from_u64(u64::from_be_bytes(self.be()?))),
            Marker::I8 => Head::Int(Number::from(i8::from_be_bytes(self.be()?))),
            Marker::I16 => Head::Int(Number::from(i16::from_be_bytes(self.be()?))),
            Marker::I32 => Head::Int(Number::from(i32::from_be_bytes(self.be()?))),
            Marker::I64 => Head::Int(Number::from_i64(i64::from_be_bytes(self.be()?))),
            // float32 is widened to float64, as Go does.
            Marker::F32 => Head::Float(f64::from(f32::from_be_bytes(self.be()?))),
            Marker::F64 => Head::Float(f64::from_be_bytes(self.be()?)),
            Marker::FixStr(n) => Head::Str(u32::from(n)),
            Marker::Str8 => Head::Str(u32::from(u8::from_be_bytes(self.be()?))),
            Marker::Str16 => Head::Str(u32::from(u16::from_be_bytes(self.be()?))),
            Marker::Str32 => Head::Str(u32::from_be_bytes(self.be()?)),
            Marker::Bin8 => Head::Bin(u32::from(u8::from_be_bytes(self.be()?))),
            Marker::Bin16 => Head::Bin(u32::from(u16::from_be_bytes(self.be()?))),
            Marker::Bin32 => Head::Bin(u32::from_be_bytes(self.be()?)),
            Marker::FixArray(n) => Head::Array(u32::from(n)),
            Marker::Array16 => Head::Array(u32::from(u16::from_be_bytes(self.be()?))),
            Marker::Array32 => Head::Array(u32::from_be_bytes(self.be()?)),
            Marker::FixMap(n) => Head::Map(u32::from(n)),
            Marker::Map16 => Head::Map(u32::from(u16::from_be_bytes(self.be()?))),
            Marker::Map32 => Head::Map(u32::from_be_bytes(self.be()?)),
            Marker::FixExt1
            | Marker::FixExt2
            | Marker::FixExt4
            | Marker::FixExt8
            | Marker::FixExt16
            | Marker::Ext8
            | Marker::Ext16
            | Marker::Ext32 => {
                self.pos -= 1;
                Head::Ext
            }
            Marker::Reserved => Head::Reserved,
        })
    }

    /// The bytes of a str or bin of length `n`.
    fn bytes(&mut self, n: u32) -> Result<&'a [u8]> {
        self.take(n as usize)
    }

    fn text(&mut self, n: u32, at: usize) -> Result<&'a str> {
        self.text_ascii(n, at).map(|(s, _)| s)
    }

    /// Text and whether it is ASCII.
    fn text_ascii(&mut self, n: u32, at: usize) -> Result<(&'a str, bool)> {
        let b = self.bytes(n)?;
        crate::strings::text_from_wire(b).map_err(|e| {
            self.data_err(at, "string is not valid UTF-8")
                .at_offset(self.pos - b.len() + e.valid_up_to())
        })
    }

    /// Consumes a str key equal to `name`, if that is what comes next.
    fn skip_key(&mut self, name: &str) -> bool {
        let name = name.as_bytes();
        let rest = &self.buf[self.pos..];
        let header = match (rest.first(), name.len()) {
            (Some(&b), n) if n < 32 && b == 0xa0 | n as u8 => 1,
            (Some(0xd9), n) if n < 256 && rest.get(1) == Some(&(n as u8)) => 2,
            _ => return false,
        };
        if rest.get(header..header + name.len()) == Some(name) {
            self.pos += header + name.len();
            true
        } else {
            false
        }
    }

    fn enter(&mut self, at: usize) -> Result<()> {
        self.depth += 1;
        self.opts
            .check_depth(self.depth)
            .map_err(|e| e.at_offset(at))
    }

    fn collection_len(&self, n: u32, at: usize) -> Result<usize> {
        self.opts
            .check_collection_len(u64::from(n))
            .map_err(|e| e.at_offset(at))?;
        Ok(n as usize)
    }

    /// Capacity for `n` claimed elements: never more than the bytes left,
    /// since every element takes at least one.
    fn capacity(&self, n: usize) -> usize {
        n.min(self.buf.len() - self.pos)
    }

    fn value(&mut self, ty: &Type) -> Result<Value> {
        let at = self.pos;
        let b = self.peek()?;
        // Ext first, for every type: that is how go-cty dispatches.
        if matches!(b, 0xd4..=0xd8 | 0xc7..=0xc9) {
            return self.unknown(ty);
        }
        if *ty == Type::Dynamic {
            return self.dynamic();
        }
        if b == 0xc0 {
            self.pos += 1;
            return Ok(Value::null(ty.clone()));
        }
        // The most common one-byte forms, without the general dispatch.
        match (ty, b) {
            (Type::String, 0xa0..=0xbf) => {
                self.pos += 1;
                let (s, ascii) = self.text_ascii(u32::from(b & 0x1f), at)?;
                return Ok(Value::from_repr(Repr::String(compact_nfc(s, ascii))));
            }
            (Type::Number, 0x00..=0x7f) => {
                self.pos += 1;
                return Ok(Value::from_repr(Repr::Number(Number::from_i64(i64::from(
                    b,
                )))));
            }
            (Type::Bool, 0xc2 | 0xc3) => {
                self.pos += 1;
                return Ok(Value::from_repr(Repr::Bool(b == 0xc3)));
            }
            _ => {}
        }
        let head = self.head()?;
        match ty {
            Type::String => match head {
                Head::Str(n) | Head::Bin(n) => {
                    let (s, ascii) = self.text_ascii(n, at)?;
                    Ok(Value::from_repr(Repr::String(compact_nfc(s, ascii))))
                }
                _ => Err(self.data_err(at, "string is required")),
            },
            Type::Number => {
                let n = self.number(head, at)?;
                Ok(Value::from_repr(Repr::Number(n)))
            }
            Type::Bool => match head {
                Head::Bool(b) => Ok(Value::from_repr(Repr::Bool(b))),
                _ => Err(self.data_err(at, "bool is required")),
            },
            Type::List(ety) | Type::Set(ety) => self.list_or_set(ty, ety, head, at),
            Type::Map(ety) => self.map(ty, ety, head, at),
            Type::Object(oty) => self.object(ty, oty, head, at),
            Type::Tuple(etys) => self.tuple(ty, etys, head, at),
            Type::Dynamic => unreachable!("handled above"),
        }
    }

    // One function per kind, so that each level of nesting costs only the
    // small frames on its path (debug builds do not merge them).

    fn list_or_set(&mut self, ty: &Type, ety: &Type, head: Head, at: usize) -> Result<Value> {
        let is_set = matches!(ty, Type::Set(_));
        let Head::Array(n) = head else {
            return Err(self.data_err(
                at,
                if is_set {
                    "a set is required"
                } else {
                    "a list is required"
                },
            ));
        };
        let n = self.collection_len(n, at)?;
        self.enter(at)?;
        let mut elems = Vec::with_capacity(self.capacity(n));
        for i in 0..n {
            elems.push(
                self.value(ety)
                    .map_err(|e| e.under(PathStep::Index(i as u64)))?,
            );
        }
        self.depth -= 1;
        let elems =
            value::decoded_list_or_set(ty, ety, elems, is_set).map_err(|e| e.at_offset(at))?;
        Ok(elems)
    }

    fn map(&mut self, ty: &Type, ety: &Type, head: Head, at: usize) -> Result<Value> {
        let Head::Map(n) = head else {
            return Err(self.data_err(at, "a map is required"));
        };
        let n = self.collection_len(n, at)?;
        self.enter(at)?;
        let mut entries: ThinVec<(CompactString, Value)> = ThinVec::with_capacity(self.capacity(n));
        for _ in 0..n {
            let kat = self.pos;
            let (k, ascii) = match self.head()? {
                Head::Str(len) | Head::Bin(len) => self.text_ascii(len, kat)?,
                _ => return Err(self.data_err(kat, "map keys must be strings")),
            };
            let v = self
                .value(ety)
                .map_err(|e| e.under(PathStep::Key(k.to_string())))?;
            entries.push((compact_nfc(k, ascii), v));
        }
        self.depth -= 1;
        value::decoded_map(ty, ety, entries).map_err(|e| e.at_offset(at))
    }

    fn object(&mut self, ty: &Type, oty: &ObjectType, head: Head, at: usize) -> Result<Value> {
        let Head::Map(n) = head else {
            return Err(self.data_err(at, "an object is required"));
        };
        if n as usize != oty.len() {
            return Err(self.data_err(
                at,
                format!(
                    "an object with {} attributes is required ({} given)",
                    oty.len(),
                    n
                ),
            ));
        }
        self.enter(at)?;
        let n = n as usize;
        let mut vals: Vec<Value> = Vec::with_capacity(n);
        // Attribute positions and which were seen, kept only once keys
        // arrive out of order.
        let mut order: Option<(Vec<usize>, Vec<bool>)> = None;
        for i in 0..n {
            let kat = self.pos;
            // go-cty writes attributes sorted, so the key is usually
            // the i-th name, which the bytes can be checked against
            // directly.
            let idx = if self.skip_key(oty.name(i)) {
                i
            } else {
                let k = match self.head()? {
                    Head::Str(len) | Head::Bin(len) => self.text(len, kat)?,
                    _ => return Err(self.data_err(kat, "all keys must be strings")),
                };
                oty.index_of(k)
                    .ok_or_else(|| self.data_err(kat, format!("unsupported attribute {k:?}")))?
            };
            if order.is_none() && idx != i {
                order = Some(((0..i).collect(), (0..n).map(|j| j < i).collect()));
            }
            if let Some((o, seen)) = &mut order {
                if std::mem::replace(&mut seen[idx], true) {
                    let k = oty.name(idx);
                    return Err(self.data_err(kat, format!("duplicate attribute {k:?}")));
                }
                o.push(idx);
            }
            let k = oty.name(idx);
            let v = self
                .value(oty.type_at(idx))
                .map_err(|e| e.under(PathStep::Attr(k.to_string())))?;
            vals.push(v);
        }
        self.depth -= 1;
        if let Some((order, _)) = order {
            let mut slots: Vec<Option<Value>> = (0..n).map(|_| None).collect();
            for (idx, v) in order.into_iter().zip(vals) {
                slots[idx] = Some(v);
            }
            vals = slots.into_iter().flatten().collect();
        }
        Ok(value::decoded_object(ty, oty, vals))
    }

    fn tuple(&mut self, ty: &Type, etys: &[Type], head: Head, at: usize) -> Result<Value> {
        let Head::Array(n) = head else {
            return Err(self.data_err(at, "a tuple is required"));
        };
        if n as usize != etys.len() {
            return Err(self.data_err(at, format!("a tuple of length {} is required", etys.len())));
        }
        self.enter(at)?;
        let mut elems = Vec::with_capacity(etys.len());
        for (i, ety) in etys.iter().enumerate() {
            elems.push(
                self.value(ety)
                    .map_err(|e| e.under(PathStep::Index(i as u64)))?,
            );
        }
        self.depth -= 1;
        Ok(value::decoded_tuple(ty, elems))
    }

    fn number(&mut self, head: Head, at: usize) -> Result<Number> {
        match head {
            Head::Int(n) => Ok(n),
            Head::Float(f) => Number::from_f64(f).map_err(|e| e.at_offset(at)),
            Head::Str(n) | Head::Bin(n) => {
                let b = self.bytes(n)?;
                let s = std::str::from_utf8(b)
                    .map_err(|_| self.data_err(at, "a number is required"))?;
                Number::parse_with_limit(s, self.opts.max_number_exponent)
                    .map_err(|e| e.at_offset(at))
            }
            _ => Err(self.data_err(at, "number is required")),
        }
    }

    /// `[type JSON, value]`, or nil, or an ext (handled by the caller).
    fn dynamic(&mut self) -> Result<Value> {
        let at = self.pos;
        let head = self.head()?;
        match head {
            Head::Nil => return Ok(Value::null(Type::Dynamic)),
            Head::Array(2) => {}
            Head::Array(_) => {
                return Err(self.data_err(at, "dynamic value array must have exactly two elements"))
            }
            _ => return Err(self.data_err(at, "a dynamic value must be a [type, value] array")),
        }
        self.enter(at)?;
        let tat = self.pos;
        let type_json = match self.head()? {
            Head::Bin(n) | Head::Str(n) => self.bytes(n)?,
            _ => return Err(self.data_err(tat, "the type of a dynamic value must be JSON text")),
        };
        let ty = match self.types.get(type_json) {
            Some(t) => t.clone(),
            None => {
                let limit = self.opts.max_depth.saturating_sub(self.depth);
                let t = Type::parse_bytes(type_json, limit).map_err(|e| {
                    Error::new(
                        e.category(),
                        format!("invalid type in dynamic value: {}", e.message()),
                    )
                    .at_offset(tat)
                })?;
                self.types.insert(type_json, t.clone());
                t
            }
        };
        let v = self.value(&ty)?;
        self.depth -= 1;
        Ok(v)
    }

    /// An ext: a plain or refined unknown.
    fn unknown(&mut self, ty: &Type) -> Result<Value> {
        let at = self.pos;
        let marker = self.peek()?;
        self.pos += 1;
        let len = match marker {
            0xd4 => 1,
            0xd5 => 2,
            0xd6 => 4,
            0xd7 => 8,
            0xd8 => 16,
            0xc7 => usize::from(u8::from_be_bytes(self.be()?)),
            0xc8 => usize::from(u16::from_be_bytes(self.be()?)),
            _ => u32::from_be_bytes(self.be()?) as usize,
        };
        let ext_type = i8::from_be_bytes(self.be()?);
        if len <= 1 {
            // Any ext type: an unknown whose payload means nothing.
            self.take(len)?;
            return Ok(Value::unknown(ty.clone()));
        }
        if ext_type != EXT_REFINED_UNKNOWN {
            return Err(self.data_err(
                at,
                format!("unsupported extension type 0x{ext_type:02x} with len {len}"),
            ));
        }
        if len > MAX_REFINEMENT_PAYLOAD {
            return Err(self.data_err(at, "oversize unknown value refinement"));
        }
        let payload = self.take(len)?;
        let mut sub = Decoder {
            buf: payload,
            pos: 0,
            depth: self.depth,
            opts: self.opts,
            types: HashMap::new(),
        };
        let r = sub.refinements(ty).map_err(|e| {
            let offset = at + (len - payload.len()) + e.offset().unwrap_or(0);
            Error::new(
                e.category(),
                format!("invalid unknown value refinements: {}", e.message()),
            )
            .at_offset(offset)
        })?;
        let Some(r) = r else {
            return Ok(Value::null(ty.clone()));
        };
        if *ty == Type::Dynamic {
            return Ok(Value::unknown(Type::Dynamic));
        }
        let r = r.validated(ty).map_err(|e| e.at_offset(at))?;
        if r.not_null && r.length_max == Some(r.length_min) {
            self.opts
                .check_collection_len(r.length_min)
                .map_err(|e| e.at_offset(at))?;
        }
        Ok(collapse(ty.clone(), r))
    }

    /// The refinement map. `None` means "definitely null".
    fn refinements(&mut self, ty: &Type) -> Result<Option<Refinements>> {
        let n = match self.head()? {
            Head::Map(n) => n,
            _ => return Err(Error::data("not a map").at_offset(0)),
        };
        let mut r = Refinements::default();
        if *ty == Type::Dynamic {
            // go-cty does not look at the entries for an unknown of unknown type.
            return Ok(Some(r));
        }
        let mut nullness: Option<bool> = None;
        for _ in 0..n {
            let kat = self.pos;
            let k = match self.head()? {
                Head::Int(k) => k,
                Head::Nil => Number::from_i64(0),
                _ => return Err(Error::data("non-integer key in map").at_offset(kat)),
            };
            let vat = self.pos;
            // An unknown key is ignored, but go-cty does not skip its value:
            // the next key is read from where the value starts.
            let Some(k) = k.to_u64() else { continue };
            match k {
                key::NULLNESS => {
                    let null = match self.head()? {
                        Head::Bool(b) => b,
                        Head::Nil => false,
                        _ => {
                            return Err(Error::data("null refinement is not boolean").at_offset(vat))
                        }
                    };
                    if nullness.is_some_and(|prev| prev != null) {
                        return Err(Error::data("contradictory null refinements").at_offset(vat));
                    }
                    nullness = Some(null);
                }
                key::STRING_PREFIX => {
                    if *ty != Type::String {
                        return Err(Error::data("string prefix refinement for non-string type")
                            .at_offset(vat));
                    }
                    let p = match self.head()? {
                        Head::Str(len) | Head::Bin(len) => {
                            let b = self.bytes(len)?;
                            std::str::from_utf8(b).map_err(|_| {
                                Error::data("string prefix refinement is not valid UTF-8")
                                    .at_offset(vat)
                            })?
                        }
                        Head::Nil => "",
                        _ => {
                            return Err(Error::data("string prefix refinement is not string")
                                .at_offset(vat))
                        }
                    };
                    if !p.is_empty() {
                        r.add_prefix(nfc(p).into_owned())
                            .map_err(|e| e.at_offset(vat))?;
                    }
                }
                key::NUMBER_LOWER | key::NUMBER_UPPER => {
                    if *ty != Type::Number {
                        return Err(Error::data("numeric bound refinement for non-number type")
                            .at_offset(vat));
                    }
                    let bound = self.bound(vat)?;
                    if k == key::NUMBER_LOWER {
                        r.tighten_lower(bound);
                    } else {
                        r.tighten_upper(bound);
                    }
                }
                key::LENGTH_LOWER | key::LENGTH_UPPER => {
                    if !ty.is_collection() {
                        return Err(
                            Error::data("length bound refinement for non-collection type")
                                .at_offset(vat),
                        );
                    }
                    let n = match self.head()? {
                        Head::Int(n) => n.to_u64().ok_or_else(|| {
                            Error::data("length bound refinement must be a non-negative integer")
                                .at_offset(vat)
                        })?,
                        Head::Nil => 0,
                        _ => {
                            return Err(Error::data("length bound refinement must be integer")
                                .at_offset(vat))
                        }
                    };
                    if k == key::LENGTH_LOWER {
                        r.length_min = r.length_min.max(n);
                    } else {
                        r.length_max = Some(r.length_max.map_or(n, |m| m.min(n)));
                    }
                }
                _ => {}
            }
        }
        match nullness {
            Some(true) => Ok(None),
            Some(false) => {
                r.not_null = true;
                Ok(Some(r))
            }
            None => Ok(Some(r)),
        }
    }

    /// A `[number, inclusive]` bound.
    fn bound(&mut self, at: usize) -> Result<Bound> {
        let bad =
            || Error::data("number bound refinement must be a [number, bool] array").at_offset(at);
        match self.head()? {
            Head::Array(2) => {}
            _ => return Err(bad()),
        }
        let nat = self.pos;
        if matches!(self.peek()?, 0xc0 | 0xd4..=0xd8 | 0xc7..=0xc9) {
            return Err(bad());
        }
        let head = self.head()?;
        let value = self.number(head, nat)?;
        let inclusive = match self.head()? {
            Head::Bool(b) => b,
            _ => return Err(bad()),
        };
        Ok(Bound { value, inclusive })
    }
}
