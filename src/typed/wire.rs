//! Serde deserialization straight from msgpack or JSON bytes:
//! `msgpack::from_slice` and `json::from_slice`.
//!
//! It runs over the shared decoder ([`crate::decode`]) and its format
//! readers, so the limits, the order of checks and the refusals are the
//! decoder's. Lists, tuples, maps, objects and sets already in order go
//! straight into the Rust shape, with no [`Value`] tree between.
//! Everything else is read as the decoder reads it, as one small value, and
//! handed to the same rules as [`from_value`](super::from_value)
//! ([`ValueDeserializer`]): primitives (so both paths convert alike),
//! dynamic positions (whose type is on the wire), other sets (canonical
//! order and de-duplication are cty's, not the Rust collection's),
//! collections whose element type has dynamic parts
//! (their elements must agree on one type), unknowns that refinements
//! collapsed into known values, and whatever a `Value` field takes.
//! Strings and map keys the input holds as cty does (NFC, unescaped) are
//! lent to the visitor out of the input itself.

use std::borrow::Cow;

use serde::de::{self, Deserialize, DeserializeSeed, Visitor};

use super::de::{missing_field_named, visit_unknown, visit_value, ValueDeserializer};
use super::key::KeyDeserializer;
use super::private::{visit_number, NUMBER_TOKEN, UNKNOWABLE_TOKEN, VALUE_TOKEN};
use super::rules::{required_form, trailing_elements};
use crate::decode::{count_mismatch, decode_whole, required, Decoder, Key, Wire};
use crate::error::{Error, Result};
use crate::path::PathStep;
use crate::strings::cow_nfc;
use crate::types::{ObjectType, Type};
use crate::value::Value;
use crate::DecodeOptions;

/// Reads one whole input with `wire` into `T`, as type `ty`.
pub(crate) fn from_wire<'a, W: Wire<'a>, T: Deserialize<'a>>(
    wire: W,
    input_len: usize,
    ty: &Type,
    opts: &DecodeOptions,
) -> Result<T> {
    decode_whole(wire, input_len, opts, |d| {
        T::deserialize(WireValue {
            d,
            ty,
            head: None,
            fields: None,
        })
    })
}

/// What starts the value at hand, once looked at. Nothing is kept but
/// where it starts: a `Copy` state is cheap to carry through the
/// `Option` and newtype wrappers every attribute passes, where a cached
/// value (with its drop) was not.
#[derive(Clone, Copy)]
enum Head {
    /// A null, consumed (or an attribute the input left out).
    Null,
    /// An unknown, not yet consumed: read by the decoder's own rules
    /// (refinements may collapse it into a known value).
    Unknown,
    /// A value in a dynamic position, not yet consumed: its wrapper
    /// carries its type, and it may hold a typed null or unknown.
    Wrapped,
    /// Something known, not yet consumed; at its offset.
    Known(usize),
}

/// Deserializes the value at hand, of type `ty`. `fields`: as in
/// [`ValueDeserializer`], the fields of the struct this is an attribute of.
struct WireValue<'x, 'a, 'o, 't, W> {
    d: &'x mut Decoder<'a, 'o, W>,
    ty: &'t Type,
    head: Option<Head>,
    fields: Option<&'static [&'static str]>,
}

impl<'a, W: Wire<'a>> WireValue<'_, 'a, '_, '_, W> {
    /// Looks at the start of the value, in the decoder's order: an
    /// unknown first, then null.
    #[inline]
    fn head(&mut self) -> Result<Head> {
        if let Some(h) = self.head {
            return Ok(h);
        }
        let at = self.d.w.start()?;
        let h = if self.d.w.at_unknown() {
            Head::Unknown
        } else if self.d.w.null()? {
            Head::Null
        } else if matches!(self.ty, Type::Dynamic) {
            Head::Wrapped
        } else {
            Head::Known(at)
        };
        self.head = Some(h);
        Ok(h)
    }

    /// The whole value, as the decoder reads it.
    fn decoded(self) -> Result<Value> {
        match self.head {
            Some(Head::Null) => Ok(Value::null(self.ty.clone())),
            // Nothing consumed yet: the decoder reads it from its start.
            None | Some(Head::Unknown | Head::Wrapped | Head::Known(_)) => self.d.value(self.ty),
        }
    }

    /// Reads the whole value and applies [`from_value`](super::from_value)'s
    /// rules to it.
    fn via_value<T>(self, f: impl FnOnce(ValueDeserializer<'_>) -> Result<T>) -> Result<T> {
        let fields = self.fields;
        let v = self.decoded()?;
        f(ValueDeserializer::attribute(&v, fields))
    }

    /// Where the known value at hand starts, if it can go straight into a
    /// Rust shape: known, and not collapsed from an unknown.
    fn direct(&mut self) -> Result<Option<usize>> {
        Ok(match self.head()? {
            Head::Known(at) => Some(at),
            Head::Null | Head::Unknown | Head::Wrapped => None,
        })
    }

    fn seq<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value> {
        let direct = match self.ty {
            Type::List(e) if e.is_static() => self.direct()?,
            Type::Tuple(_) => self.direct()?,
            // A set whose bytes show it in the set's order, as go-cty
            // writes every set, reads like a list; any other is read as a
            // value, for `set` to order and de-duplicate.
            Type::Set(e) if e.is_static() => match self.direct()? {
                Some(at)
                    if self
                        .d
                        .w
                        .set_known_in_order(e, self.d.opts.max_number_exponent) =>
                {
                    Some(at)
                }
                _ => None,
            },
            _ => None,
        };
        let Some(at) = direct else {
            return self.via_value(|v| de::Deserializer::deserialize_seq(v, visitor));
        };
        let (etys, list_of): (&[Type], Option<&Type>) = match self.ty {
            Type::List(e) | Type::Set(e) => (&[], Some(e)),
            Type::Tuple(ts) => (ts, None),
            _ => return Err(Error::data("internal error: not a list, set or tuple")),
        };
        let Some((seq, len)) = self.d.w.begin_array()? else {
            return Err(required(at, required_form(self.ty)));
        };
        let wrong_length =
            |given: usize| Error::wrong_tuple_length(etys.len(), Some(given)).at_offset(at);
        match len {
            Some(n) if list_of.is_none() && n != etys.len() => return Err(wrong_length(n)),
            Some(n) => self
                .d
                .opts
                .check_collection_len(n as u64)
                .map_err(|e| e.at_offset(at))?,
            None => {}
        }
        self.d.nested(at, |d| {
            let mut access = ElementsWire {
                d,
                seq,
                len,
                list_of,
                etys,
                next: 0,
                at,
                done: false,
            };
            let out = visitor.visit_seq(&mut access)?;
            // A Rust tuple or array reads as many elements as it has. The
            // rest are read, to check them as the decoder would and to
            // count them, and then refused, as `from_value` refuses them.
            let taken = access.next;
            access.drain()?;
            if list_of.is_none() && access.next != etys.len() {
                return Err(wrong_length(access.next));
            }
            if access.next > taken {
                return Err(trailing_elements(taken, access.next).at_offset(at));
            }
            Ok(out)
        })
    }

    fn map<V: Visitor<'a>>(
        mut self,
        visitor: V,
        fields: Option<&'static [&'static str]>,
    ) -> Result<V::Value> {
        let direct = match self.ty {
            // A map whose bytes show its keys in order, each once, as go-cty
            // writes every map; any other is read as a value, whose keys
            // are normalized, ordered and de-duplicated as cty's are.
            Type::Map(e) if e.is_static() => match self.direct()? {
                Some(at) if self.d.w.map_known_in_order(self.d.depth_left()) => Some(at),
                _ => None,
            },
            // An object into a struct; into a Rust map (which may keep the
            // order it is given) only as a value, in the type's order.
            Type::Object(_) if fields.is_some() => self.direct()?,
            _ => None,
        };
        let Some(at) = direct else {
            return self.via_value(|v| match fields {
                Some(f) => de::Deserializer::deserialize_struct(v, "", f, visitor),
                None => de::Deserializer::deserialize_map(v, visitor),
            });
        };
        let ty = self.ty;
        let Some((seq, len)) = self.d.w.begin_map()? else {
            return Err(required(
                at,
                if matches!(ty, Type::Map(_)) {
                    "a map"
                } else {
                    "an object"
                },
            ));
        };
        match ty {
            Type::Object(oty) => {
                if let Some(n) = len.filter(|&n| n != oty.len()) {
                    // Read as a value, which refuses the count naming the
                    // attributes that are extra or missing.
                    self.d.object_entries(ty, oty, seq, len, at)?;
                    return Err(Error::data(count_mismatch(oty, n)).at_offset(at));
                }
                self.d
                    .nested(at, |d| {
                        visitor.visit_map(AttributesWire {
                            d,
                            seq,
                            oty,
                            fields,
                            seen: Seen::default(),
                            wire_done: false,
                            missing_from: 0,
                            pending: None,
                        })
                    })
                    .map_err(|e| missing_field_named(e, ty))
            }
            Type::Map(ety) => {
                if let Some(n) = len {
                    self.d
                        .opts
                        .check_collection_len(n as u64)
                        .map_err(|e| e.at_offset(at))?;
                }
                self.d.nested(at, |d| {
                    visitor.visit_map(EntriesWire {
                        d,
                        seq,
                        ety,
                        fields,
                        counted: len.is_some(),
                        count: 0,
                        at,
                        pending: None,
                    })
                })
            }
            _ => Err(Error::data("internal error: not a map or object")),
        }
    }
}

/// Hands a string to `visitor`, borrowed from the input where the input
/// holds it as it is (serde's `&str` and `#[serde(borrow)] Cow<str>`
/// fields take it without a copy), else as a passing `&str`.
fn visit_text<'a, V: Visitor<'a>>(s: Cow<'a, str>, ascii: bool, visitor: V) -> Result<V::Value> {
    match cow_nfc(s, ascii) {
        Cow::Borrowed(b) => visitor.visit_borrowed_str(b),
        Cow::Owned(o) => visitor.visit_string(o),
    }
}

/// The many requests that read the whole value first.
macro_rules! via_value {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            self.via_value(|v| de::Deserializer::$method(v, visitor))
        }
    )*};
}

impl<'a, W: Wire<'a>> de::Deserializer<'a> for WireValue<'_, 'a, '_, '_, W> {
    type Error = Error;

    via_value! {
        deserialize_any
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char
        deserialize_bytes deserialize_byte_buf deserialize_unit deserialize_identifier
        deserialize_ignored_any
    }

    fn deserialize_str<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value> {
        // The most common request, read without building a value.
        if matches!(self.ty, Type::String) {
            if let Some(at) = self.direct()? {
                return match self.d.w.string()? {
                    Some((s, ascii)) => visit_text(s, ascii, visitor),
                    None => Err(required(at, "a string")),
                };
            }
        }
        self.via_value(|v| de::Deserializer::deserialize_str(v, visitor))
    }
    fn deserialize_string<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bool<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value> {
        if matches!(self.ty, Type::Bool) {
            if let Some(at) = self.direct()? {
                return match self.d.w.bool()? {
                    Some(b) => visitor.visit_bool(b),
                    None => Err(required(at, "a bool")),
                };
            }
        }
        self.via_value(|v| de::Deserializer::deserialize_bool(v, visitor))
    }

    fn deserialize_option<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value> {
        match self.head()? {
            Head::Null => visitor.visit_none(),
            Head::Known(_) => visitor.visit_some(self),
            Head::Unknown | Head::Wrapped => {
                self.via_value(|v| de::Deserializer::deserialize_option(v, visitor))
            }
        }
    }

    fn deserialize_unit_struct<V: Visitor<'a>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.via_value(|v| de::Deserializer::deserialize_unit_struct(v, name, visitor))
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match name {
            // ctywire's own types, answered in band (see `private`).
            VALUE_TOKEN => visit_value(&self.decoded()?, visitor),
            UNKNOWABLE_TOKEN => match self.head()? {
                Head::Unknown => {
                    let v = self.d.w.unknown(self.ty, self.d.opts)?;
                    if v.is_known() {
                        // Collapsed by its refinements: from here on it is
                        // a value like any other read through one.
                        return visitor
                            .visit_newtype_struct(ValueDeserializer::attribute(&v, self.fields));
                    }
                    let none = Default::default();
                    visit_unknown(v.refinements().unwrap_or(&none), visitor)
                }
                Head::Wrapped => self
                    .via_value(|v| de::Deserializer::deserialize_newtype_struct(v, name, visitor)),
                Head::Null | Head::Known(_) => visitor.visit_newtype_struct(self),
            },
            NUMBER_TOKEN => {
                // The common case read without building a value.
                if matches!(self.ty, Type::Number) {
                    if let Some(at) = self.direct()? {
                        let max_exponent = self.d.opts.max_number_exponent;
                        let Some(n) = self.d.w.number(max_exponent)? else {
                            return Err(required(at, "a number"));
                        };
                        return visit_number(&n, visitor);
                    }
                }
                self.via_value(|v| de::Deserializer::deserialize_newtype_struct(v, name, visitor))
            }
            _ => match self.head()? {
                Head::Known(_) => visitor.visit_newtype_struct(self),
                _ => self
                    .via_value(|v| de::Deserializer::deserialize_newtype_struct(v, name, visitor)),
            },
        }
    }

    fn deserialize_seq<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
        self.seq(visitor)
    }
    fn deserialize_tuple<V: Visitor<'a>>(self, _: usize, visitor: V) -> Result<V::Value> {
        self.seq(visitor)
    }
    fn deserialize_tuple_struct<V: Visitor<'a>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.seq(visitor)
    }

    fn deserialize_map<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
        self.map(visitor, None)
    }
    fn deserialize_struct<V: Visitor<'a>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.map(visitor, Some(fields))
    }

    fn deserialize_enum<V: Visitor<'a>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.via_value(|v| de::Deserializer::deserialize_enum(v, name, variants, visitor))
    }
}

/// The elements of a list or tuple, straight from the wire.
struct ElementsWire<'x, 'a, 'o, 't, W: Wire<'a>> {
    d: &'x mut Decoder<'a, 'o, W>,
    seq: W::Seq,
    len: Option<usize>,
    /// A list's element type; `None` for a tuple.
    list_of: Option<&'t Type>,
    etys: &'t [Type],
    next: usize,
    at: usize,
    done: bool,
}

impl<'a, 't, W: Wire<'a>> ElementsWire<'_, 'a, '_, 't, W> {
    /// The type of the next element, after moving to it; `None` after the
    /// last.
    fn advance(&mut self) -> Result<Option<&'t Type>> {
        if self.done || !self.d.w.next_element(&mut self.seq)? {
            self.done = true;
            return Ok(None);
        }
        let i = self.next;
        if self.len.is_none() {
            self.d
                .opts
                .check_collection_len(i as u64 + 1)
                .map_err(|e| e.at_offset(self.at))?;
        }
        let ty = match self.list_of {
            Some(e) => e,
            None => self
                .etys
                .get(i)
                .ok_or_else(|| Error::wrong_tuple_length(i, None).at_offset(self.at))?,
        };
        self.next += 1;
        Ok(Some(ty))
    }

    /// Reads the elements the Rust shape left.
    fn drain(&mut self) -> Result<()> {
        while let Some(ty) = self.advance()? {
            let i = self.next - 1;
            self.d
                .value(ty)
                .map_err(|e| e.under(PathStep::Index(i as u64)))?;
        }
        Ok(())
    }
}

impl<'a, W: Wire<'a>> de::SeqAccess<'a> for &mut ElementsWire<'_, 'a, '_, '_, W> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'a>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(ty) = self.advance()? else {
            return Ok(None);
        };
        let i = self.next - 1;
        seed.deserialize(WireValue {
            d: self.d,
            ty,
            head: None,
            fields: None,
        })
        .map(Some)
        .map_err(|e| e.under(PathStep::Index(i as u64)))
    }
    fn size_hint(&self) -> Option<usize> {
        // Every element takes at least one byte: a length header cannot
        // reserve more than the input holds.
        self.len
            .map(|n| n.saturating_sub(self.next).min(self.d.w.remaining()))
    }
}

/// Which attributes of an object have arrived: while they come in the
/// type's order (go-cty writes them sorted) a count says it; a set of
/// flags is made only once one does not.
#[derive(Default)]
struct Seen {
    in_order: usize,
    flags: Option<Vec<bool>>,
}

impl Seen {
    fn expected<'t>(&self, oty: &'t ObjectType) -> Option<&'t str> {
        (self.flags.is_none() && self.in_order < oty.len()).then(|| oty.name(self.in_order))
    }

    /// Records attribute `idx`. A repeated one is refused even in JSON,
    /// where `decode` lets the last win: a struct field cannot take a
    /// second value once the first is in it.
    #[inline(always)]
    fn place(&mut self, idx: usize, oty: &ObjectType) -> Result<()> {
        if self.flags.is_none() && idx == self.in_order {
            self.in_order += 1;
            return Ok(());
        }
        self.place_out_of_order(idx, oty)
    }

    /// The rest of [`place`](Self::place), out of line so that the
    /// in-order case every go-cty payload takes stays a compare and an
    /// add in the caller (as a call it was 1.8% of fleet-200).
    #[cold]
    fn place_out_of_order(&mut self, idx: usize, oty: &ObjectType) -> Result<()> {
        let in_order = self.in_order;
        let flags = self.flags.get_or_insert_with(|| {
            let mut f = vec![false; oty.len()];
            f[..in_order].fill(true);
            f
        });
        if flags[idx] {
            return Err(Error::data(format!(
                "duplicate attribute {:?}",
                oty.name(idx)
            )));
        }
        flags[idx] = true;
        Ok(())
    }

    fn has(&self, idx: usize) -> bool {
        match &self.flags {
            None => idx < self.in_order,
            Some(f) => f[idx],
        }
    }
}

/// An object's attributes, straight from the wire; then, as nulls, the
/// attributes the input left out (JSON may), as the decoder fills them in.
struct AttributesWire<'x, 'a, 'o, 't, W: Wire<'a>> {
    d: &'x mut Decoder<'a, 'o, W>,
    seq: W::Seq,
    oty: &'t ObjectType,
    fields: Option<&'static [&'static str]>,
    seen: Seen,
    wire_done: bool,
    /// Where to look next for an attribute the input left out.
    missing_from: usize,
    /// The attribute whose value comes next, and whether the input left
    /// it out.
    pending: Option<(usize, bool)>,
}

impl<'a, W: Wire<'a>> de::MapAccess<'a> for AttributesWire<'_, 'a, '_, '_, W> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'a>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let oty = self.oty;
        if !self.wire_done {
            match self.d.w.next_key(&mut self.seq, self.seen.expected(oty))? {
                Some((kat, key)) => {
                    let idx = match key {
                        Key::Expected => self.seen.in_order,
                        Key::Text(k, _) => oty.index_of(&k).ok_or_else(|| {
                            Error::data(format!("unsupported attribute {:?}", &*k)).at_offset(kat)
                        })?,
                    };
                    self.seen.place(idx, oty).map_err(|e| e.at_offset(kat))?;
                    self.pending = Some((idx, false));
                    return self.key(seed, idx).map_err(|e| e.at_offset(kat));
                }
                None => self.wire_done = true,
            }
        }
        while self.missing_from < oty.len() {
            let idx = self.missing_from;
            self.missing_from += 1;
            if !self.seen.has(idx) {
                self.pending = Some((idx, true));
                return self.key(seed, idx);
            }
        }
        Ok(None)
    }

    fn next_value_seed<T: DeserializeSeed<'a>>(&mut self, seed: T) -> Result<T::Value> {
        let Some((idx, missing)) = self.pending.take() else {
            return Err(Error::data(
                "internal error: a value asked for before its key",
            ));
        };
        seed.deserialize(WireValue {
            d: self.d,
            ty: self.oty.attribute_type_at(idx),
            head: missing.then_some(Head::Null),
            fields: self.fields,
        })
        .map_err(|e| e.under(PathStep::Attr(self.oty.name(idx).to_string())))
    }
}

impl<'a, W: Wire<'a>> AttributesWire<'_, 'a, '_, '_, W> {
    /// Hands attribute `idx`'s name to `seed`; an error (a struct with
    /// `deny_unknown_fields` and no field for it) is the attribute's.
    fn key<K: DeserializeSeed<'a>>(&mut self, seed: K, idx: usize) -> Result<Option<K::Value>> {
        let name = self.oty.name(idx);
        seed.deserialize(KeyDeserializer::passing(
            name,
            self.d.opts.max_number_exponent,
        ))
        .map(Some)
        .map_err(|e| e.under(PathStep::Attr(name.to_string())))
    }
}

/// A map's entries, straight from the wire.
struct EntriesWire<'x, 'a, 'o, 't, W: Wire<'a>> {
    d: &'x mut Decoder<'a, 'o, W>,
    seq: W::Seq,
    ety: &'t Type,
    fields: Option<&'static [&'static str]>,
    /// Whether the count came up front (and was checked).
    counted: bool,
    count: usize,
    at: usize,
    /// The key just read, for the path of an error in its value.
    pending: Option<Cow<'a, str>>,
}

impl<'a, W: Wire<'a>> de::MapAccess<'a> for EntriesWire<'_, 'a, '_, '_, W> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'a>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some((kat, key)) = self.d.w.next_key(&mut self.seq, None)? else {
            return Ok(None);
        };
        self.count += 1;
        if !self.counted {
            self.d
                .opts
                .check_collection_len(self.count as u64)
                .map_err(|e| e.at_offset(self.at))?;
        }
        let Key::Text(k, ascii) = key else {
            return Err(Error::data(
                "internal error: a map key taken for an attribute",
            ));
        };
        let k = cow_nfc(k, ascii);
        let max_exponent = self.d.opts.max_number_exponent;
        let out = match &k {
            Cow::Borrowed(b) => seed.deserialize(KeyDeserializer::lent(b, max_exponent)),
            Cow::Owned(o) => seed.deserialize(KeyDeserializer::passing(o, max_exponent)),
        };
        let out = out.map_err(|e| e.under(PathStep::Key(k.to_string())).at_offset(kat));
        self.pending = Some(k);
        out.map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'a>>(&mut self, seed: T) -> Result<T::Value> {
        let Some(k) = self.pending.take() else {
            return Err(Error::data(
                "internal error: a value asked for before its key",
            ));
        };
        seed.deserialize(WireValue {
            d: self.d,
            ty: self.ety,
            head: None,
            fields: self.fields,
        })
        .map_err(|e| e.under(PathStep::Key(k.to_string())))
    }

    fn size_hint(&self) -> Option<usize> {
        None
    }
}
