//! The decoder both wire formats share: one skeleton, driven by the type,
//! over a format's reader ([`Wire`]).
//!
//! What is decided here, once for msgpack and JSON alike:
//! * the order of checks for every value: an unknown (msgpack's ext) first,
//!   as go-cty dispatches, then null, then the form the type asks for;
//! * nesting depth (one guard, [`Decoder::nested`]) and collection limits;
//! * how object attributes are placed: in the type's order without a
//!   lookup while they arrive in it (go-cty writes them sorted), by name
//!   otherwise; a map with a count up front (msgpack) must hold each
//!   attribute exactly once, one without (JSON) may leave attributes out
//!   (null) or repeat them (the last wins), as go-cty's decoders do;
//! * the type of a dynamic value: parsed from its type JSON once per input
//!   and per distinct text, with one error wording;
//! * what errors say and where they point. An error's offset is where the
//!   offending element starts: the first byte of a value, the first byte
//!   of a key for key errors, and the offending byte itself for malformed
//!   text inside a string. Its path is the element's.
//!
//! What a format decides (its [`Wire`] implementation): how each form is
//! recognized and read, what a string, number or bool may also be sent as,
//! and how arrays, maps and dynamic wrappers are delimited.

use std::borrow::Cow;
use std::collections::HashMap;

use compact_str::CompactString;
use thin_vec::ThinVec;

use crate::error::{Error, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::strings::compact_nfc;
use crate::types::{ObjectType, Type};
use crate::value::{self, Repr, Value};
use crate::DecodeOptions;

/// An object key as a reader found it.
pub(crate) enum Key<'a> {
    /// The name the decoder expected next, already consumed.
    Expected,
    /// Any other key: its text, and whether it is known to be ASCII.
    Text(Cow<'a, str>, bool),
}

/// Where a dynamic wrapper's type JSON is, the text itself, and what the
/// reader needs to finish the wrapper.
pub(crate) type DynamicStart<'a, E> = (usize, &'a [u8], E);

/// What a wire format's reader offers the shared decoder. Each `Option`
/// result is `None`, with nothing consumed, when the next value is not of
/// the form asked for (the
/// decoder then reports what was required); errors are malformed input.
pub(crate) trait Wire<'a> {
    /// The format's name in messages.
    const NAME: &'static str;
    /// Where one array or map is in its iteration.
    type Seq;
    /// What [`begin_dynamic`](Wire::begin_dynamic) leaves for
    /// [`end_dynamic`](Wire::end_dynamic).
    type DynamicEnd;

    /// The offset of the next value (after any insignificant bytes); an
    /// EOF error at the end of the input.
    fn start(&mut self) -> Result<usize>;
    /// Bytes left: every element takes at least one, which bounds what a
    /// length header may reserve.
    fn remaining(&self) -> usize;
    /// Where the first byte after the value is, and how many there are.
    fn trailing(&mut self) -> Option<(usize, usize)>;

    /// Whether an unknown comes next (only msgpack has them).
    fn at_unknown(&mut self) -> bool;
    /// The unknown that comes next, at type `ty`.
    fn unknown(&mut self, ty: &Type, opts: &DecodeOptions) -> Result<Value>;
    /// Consumes a null, if that is what comes next.
    fn null(&mut self) -> Result<bool>;
    /// A string value's text as sent, and whether it is known to be
    /// ASCII (and so already NFC). The text, not a finished string: the
    /// caller builds its own in place (a `CompactString` returned through
    /// `Result<Option<_>>` is copied around its niche byte in pieces, which
    /// stalls store forwarding on every string).
    fn string(&mut self) -> Result<Option<(Cow<'a, str>, bool)>>;
    /// A number value.
    fn number(&mut self, max_exponent: u32) -> Result<Option<Number>>;
    /// A bool value.
    fn bool(&mut self) -> Result<Option<bool>>;

    /// Starts an array: its iteration state and, when the format says it
    /// up front, its length.
    fn begin_array(&mut self) -> Result<Option<(Self::Seq, Option<usize>)>>;
    /// Moves to the next element; `false` after the last.
    fn next_element(&mut self, seq: &mut Self::Seq) -> Result<bool>;
    /// Starts a map (or object): as [`begin_array`](Wire::begin_array).
    fn begin_map(&mut self) -> Result<Option<(Self::Seq, Option<usize>)>>;
    /// Reads the next key and the separator after it, with its offset;
    /// `None` after the last. A key equal to `expected` may be reported as
    /// [`Key::Expected`] without decoding it.
    fn next_key(
        &mut self,
        seq: &mut Self::Seq,
        expected: Option<&str>,
    ) -> Result<Option<(usize, Key<'a>)>>;

    /// Reads a dynamic wrapper up to its value: `None` for a null of
    /// unknown type, else the type JSON with its offset, with the reader at
    /// the value. `depth_left` bounds what may be skipped to find them.
    fn begin_dynamic(
        &mut self,
        depth_left: usize,
    ) -> Result<Option<DynamicStart<'a, Self::DynamicEnd>>>;
    /// Finishes a dynamic wrapper after its value.
    fn end_dynamic(&mut self, end: Self::DynamicEnd) -> Result<()>;

    /// Whether the set that comes next, of element type `ety`, is known
    /// from its bytes alone to stand in the set's order with no
    /// duplicates, reading nothing (numbers as text are read with decimal
    /// exponents up to `max_exponent`). `false` where a format cannot tell
    /// cheaply; the set is then read as a value, for `set` to order.
    #[cfg(feature = "serde")]
    fn set_known_in_order(&mut self, _ety: &Type, _max_exponent: u32) -> bool {
        false
    }

    /// Whether the map about to be read has its keys in cty's order, each
    /// once, as cty holds them (bytewise ascending, already NFC), without
    /// consuming anything: then its entries can go straight into a Rust
    /// map. `false` where a format cannot tell cheaply; the map is then
    /// read as a value, whose keys are normalized, ordered and made unique
    /// (a repeated key's last value wins). `depth_left` bounds the nesting
    /// a format must descend to step over the values.
    #[cfg(feature = "serde")]
    fn map_known_in_order(&mut self, _depth_left: usize) -> bool {
        false
    }
}

/// Decodes one whole input with `wire`, as type `ty`.
pub(crate) fn decode<'a, W: Wire<'a>>(
    wire: W,
    input_len: usize,
    ty: &Type,
    opts: &DecodeOptions,
) -> Result<Value> {
    decode_whole(wire, input_len, opts, |d| d.value(ty))
}

/// Runs `read` over one whole input with `wire`: the input limit before,
/// the refusal of trailing bytes after. What [`decode`] and the typed
/// deserializer (`crate::typed`) share.
pub(crate) fn decode_whole<'a, 'o, W: Wire<'a>, T>(
    wire: W,
    input_len: usize,
    opts: &'o DecodeOptions,
    read: impl FnOnce(&mut Decoder<'a, 'o, W>) -> Result<T>,
) -> Result<T> {
    opts.check_input_len(input_len)?;
    let mut d = Decoder {
        w: wire,
        depth: 0,
        opts,
        types: HashMap::new(),
        elements: Vec::new(),
        entries: Vec::new(),
    };
    let v = read(&mut d)?;
    if let Some((at, n)) = d.w.trailing() {
        let plural = if n == 1 { "" } else { "s" };
        return Err(
            Error::syntax(format!("{n} byte{plural} after the {} value", W::NAME)).at_offset(at),
        );
    }
    Ok(v)
}

pub(crate) struct Decoder<'a, 'o, W> {
    pub(crate) w: W,
    depth: usize,
    pub(crate) opts: &'o DecodeOptions,
    /// Types already parsed from type JSON in this input: dynamic
    /// collections repeat the same text for every element.
    types: HashMap<&'a [u8], Type>,
    /// Elements and map entries read so far for every collection whose
    /// length was not given up front, innermost last: gathering here and
    /// moving them out at once gives each collection one allocation of
    /// its exact size instead of a growing one.
    elements: Vec<Value>,
    entries: Vec<(CompactString, Value)>,
}

/// A string value from its text as sent. A call of its own in debug
/// builds, so that its locals stay out of the frame every level of nesting
/// pays there.
#[inline]
fn string_value(s: &str, ascii: bool) -> Value {
    Value::from_repr(Repr::String(compact_nfc(s, ascii)))
}

/// Whether a map's keys came in the order the map keeps them (bytewise,
/// each after the one before), seen on the wire text as it is read, so
/// that the map needs no second pass to find out. Only plain ASCII text
/// borrowed from the input counts: it is the key exactly as stored. Any
/// other key (escaped, or to be normalized) leaves the question to the
/// map's own check.
/// (The typed layer's look-ahead at a map, `Wire::map_known_in_order`,
/// applies the same rule.)
pub(crate) struct KeyOrder<'a> {
    last: Option<&'a str>,
    /// No key so far came out of order or went unchecked.
    pub(crate) sorted: bool,
}

impl Default for KeyOrder<'_> {
    fn default() -> Self {
        KeyOrder {
            last: None,
            sorted: true,
        }
    }
}

impl<'a> KeyOrder<'a> {
    // The `Cow` itself: only its borrowed case is the input's own text.
    #[allow(clippy::ptr_arg)]
    #[inline]
    pub(crate) fn see(&mut self, key: &Cow<'a, str>, ascii: bool) {
        if !self.sorted {
            return;
        }
        let in_order = match (key, self.last) {
            (Cow::Borrowed(k), last) if ascii => {
                let after = last.is_none_or(|l| value::key_lt(l.as_bytes(), k.as_bytes()));
                self.last = Some(k);
                after
            }
            _ => false,
        };
        self.sorted &= in_order;
    }
}

pub(crate) fn required(at: usize, what: &str) -> Error {
    Error::data(format!("{what} is required")).at_offset(at)
}

impl<'a, W: Wire<'a>> Decoder<'a, '_, W> {
    /// How many levels of nesting the value at hand may still hold.
    #[cfg(feature = "serde")]
    pub(crate) fn depth_left(&self) -> usize {
        self.opts.max_depth.saturating_sub(self.depth)
    }

    /// Runs `f` one level deeper: the one place nesting is counted.
    #[inline]
    pub(crate) fn nested<T>(
        &mut self,
        at: usize,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.depth += 1;
        self.opts
            .check_depth(self.depth)
            .map_err(|e| e.at_offset(at))?;
        let r = f(self);
        self.depth -= 1;
        r
    }

    pub(crate) fn value(&mut self, ty: &Type) -> Result<Value> {
        let at = self.w.start()?;
        // An unknown first, for every type: that is how go-cty dispatches.
        if self.w.at_unknown() {
            return self.w.unknown(ty, self.opts);
        }
        // Strings, numbers and bools are most of every payload: a few
        // compares find their usual forms before the null check and the
        // jump table over the kinds, which predicts poorly when kinds
        // alternate (as an object's attributes do). What they miss falls
        // through to the general order below. Each value is built right
        // where it is returned: passed back through an `Option` first, it
        // is copied in pieces that stall store forwarding.
        if let Type::String = ty {
            if let Some((s, ascii)) = self.w.string()? {
                return Ok(string_value(&s, ascii));
            }
        } else if let Type::Number = ty {
            if let Some(n) = self.w.number(self.opts.max_number_exponent)? {
                return Ok(Value::from_repr(Repr::Number(n)));
            }
        } else if let Type::Bool = ty {
            if let Some(b) = self.w.bool()? {
                return Ok(Value::from_repr(Repr::Bool(b)));
            }
        }
        if self.w.null()? {
            return Ok(Value::null(ty.clone()));
        }
        match ty {
            // Not in any form these types take.
            Type::String => Err(required(at, "a string")),
            Type::Number => Err(required(at, "a number")),
            Type::Bool => Err(required(at, "a bool")),
            Type::List(ety) | Type::Set(ety) => self.list_or_set(ty, ety, at),
            Type::Map(ety) => self.map(ty, ety, at),
            Type::Object(oty) => self.object(ty, oty, at),
            Type::Tuple(etys) => self.tuple(ty, etys, at),
            Type::Dynamic => self.dynamic(at),
        }
    }

    // One function per kind, so that each level of nesting costs only the
    // small frames on its path (debug builds do not merge them).

    fn list_or_set(&mut self, ty: &Type, ety: &Type, at: usize) -> Result<Value> {
        let is_set = matches!(ty, Type::Set(_));
        let Some((seq, len)) = self.w.begin_array()? else {
            return Err(required(at, if is_set { "a set" } else { "a list" }));
        };
        let elems = self.nested(at, |d| d.elements(seq, len, at, |_| Some(ety)))?;
        if is_set {
            crate::set::decoded_set(ty, ety, elems)
        } else {
            value::decoded_list(ty, ety, elems)
        }
        .map_err(|e| e.at_offset(at))
    }

    fn tuple(&mut self, ty: &Type, etys: &[Type], at: usize) -> Result<Value> {
        let Some((seq, len)) = self.w.begin_array()? else {
            return Err(required(at, "a tuple"));
        };
        let wrong_length =
            |given: usize| Error::wrong_tuple_length(etys.len(), Some(given)).at_offset(at);
        if let Some(n) = len.filter(|&n| n != etys.len()) {
            return Err(wrong_length(n));
        }
        let elems = self.nested(at, |d| d.elements(seq, len, at, |i| etys.get(i)))?;
        if elems.len() != etys.len() {
            return Err(wrong_length(elems.len()));
        }
        Ok(value::decoded_tuple(ty, elems))
    }

    /// The elements of an array; `ety(i)` is the type of element `i`, or
    /// `None` past the last one the type allows.
    fn elements<'t>(
        &mut self,
        mut seq: W::Seq,
        len: Option<usize>,
        at: usize,
        ety: impl Fn(usize) -> Option<&'t Type>,
    ) -> Result<Vec<Value>> {
        let element = |d: &mut Self, i: usize| -> Result<Value> {
            let Some(t) = ety(i) else {
                // Only a tuple type runs out of element types.
                return Err(Error::wrong_tuple_length(i, None).at_offset(at));
            };
            d.value(t).map_err(|e| e.under(PathStep::Index(i as u64)))
        };
        if let Some(n) = len {
            self.opts
                .check_collection_len(n as u64)
                .map_err(|e| e.at_offset(at))?;
            let mut elems = Vec::with_capacity(n.min(self.w.remaining()));
            while self.w.next_element(&mut seq)? {
                let v = element(self, elems.len())?;
                elems.push(v);
            }
            return Ok(elems);
        }
        let base = self.elements.len();
        while self.w.next_element(&mut seq)? {
            let i = self.elements.len() - base;
            self.opts
                .check_collection_len(i as u64 + 1)
                .map_err(|e| e.at_offset(at))?;
            let v = element(self, i)?;
            self.elements.push(v);
        }
        Ok(self.elements.drain(base..).collect())
    }

    fn map(&mut self, ty: &Type, ety: &Type, at: usize) -> Result<Value> {
        let Some((mut seq, len)) = self.w.begin_map()? else {
            return Err(required(at, "a map"));
        };
        if let Some(n) = len {
            self.opts
                .check_collection_len(n as u64)
                .map_err(|e| e.at_offset(at))?;
        }
        let (entries, keys) = self.nested(at, |d| {
            let mut keys = KeyOrder::default();
            if let Some(n) = len {
                let mut entries = ThinVec::with_capacity(n.min(d.w.remaining()));
                while let Some((_, key)) = d.w.next_key(&mut seq, None)? {
                    let e = d.map_entry(ety, key, &mut keys)?;
                    entries.push(e);
                }
                return Ok((entries, keys));
            }
            let base = d.entries.len();
            while let Some((_, key)) = d.w.next_key(&mut seq, None)? {
                let count = d.entries.len() - base + 1;
                d.opts
                    .check_collection_len(count as u64)
                    .map_err(|e| e.at_offset(at))?;
                let e = d.map_entry(ety, key, &mut keys)?;
                d.entries.push(e);
            }
            let mut entries = ThinVec::with_capacity(d.entries.len() - base);
            entries.extend(d.entries.drain(base..));
            Ok((entries, keys))
        })?;
        value::decoded_map(ty, ety, entries, keys.sorted).map_err(|e| e.at_offset(at))
    }

    #[inline]
    fn map_entry(
        &mut self,
        ety: &Type,
        key: Key<'a>,
        keys: &mut KeyOrder<'a>,
    ) -> Result<(CompactString, Value)> {
        // A reader reports only object attributes as expected.
        let Key::Text(k, ascii) = key else {
            return Err(Error::data(
                "internal error: a map key taken for an attribute",
            ));
        };
        keys.see(&k, ascii);
        let v = self
            .value(ety)
            .map_err(|e| e.under(PathStep::Key(k.to_string())))?;
        Ok((compact_nfc(&k, ascii), v))
    }

    fn object(&mut self, ty: &Type, oty: &ObjectType, at: usize) -> Result<Value> {
        let Some((seq, len)) = self.w.begin_map()? else {
            return Err(required(at, "an object"));
        };
        self.object_entries(ty, oty, seq, len, at)
    }

    /// An object's entries, once its map has begun (`len` entries, when
    /// the wire says). A count that is not the type's is refused, but only
    /// once the entries have been read, so that the error can name the
    /// attributes that are extra or missing.
    pub(crate) fn object_entries(
        &mut self,
        ty: &Type,
        oty: &ObjectType,
        mut seq: W::Seq,
        len: Option<usize>,
        at: usize,
    ) -> Result<Value> {
        let miscount = len.filter(|&n| n != oty.len());
        let counted = |e: Error| match miscount {
            Some(n) => e.in_context(&count_mismatch(oty, n)),
            None => e,
        };
        // With a count up front each attribute must come once; without
        // one, a repeated attribute replaces the earlier one.
        let repeat_wins = len.is_none();
        let values = self.nested(at, |d| {
            let mut attrs = Attributes::new(oty);
            while let Some((kat, key)) = d.w.next_key(&mut seq, attrs.expected())? {
                let idx = match key {
                    Key::Expected => attrs.next_in_order(),
                    Key::Text(k, _) => oty.index_of(&k).ok_or_else(|| {
                        counted(Error::data(format!("unsupported attribute {:?}", &*k)))
                            .at_offset(kat)
                    })?,
                };
                let v = d
                    .value(oty.attribute_type_at(idx))
                    .map_err(|e| e.under(PathStep::Attr(oty.name(idx).to_string())))?;
                attrs
                    .place(idx, v, repeat_wins)
                    .map_err(|e| counted(e).at_offset(kat))?;
            }
            if let Some(n) = miscount {
                // Fewer entries than attributes, each one known and once:
                // some are missing.
                let missing: Vec<String> = (0..oty.len())
                    .filter(|&i| !attrs.has(i))
                    .map(|i| format!("{:?}", oty.name(i)))
                    .collect();
                let what = if missing.len() == 1 {
                    "attribute"
                } else {
                    "attributes"
                };
                return Err(Error::data(format!(
                    "{}: missing {what} {}",
                    count_mismatch(oty, n),
                    missing.join(", ")
                ))
                .at_offset(at));
            }
            Ok(attrs.finish())
        })?;
        Ok(value::decoded_object(ty, oty, values))
    }

    fn dynamic(&mut self, at: usize) -> Result<Value> {
        let depth_left = self.opts.max_depth.saturating_sub(self.depth);
        let Some((tat, type_json, end)) = self.w.begin_dynamic(depth_left)? else {
            return Ok(Value::null(Type::Dynamic));
        };
        self.nested(at, |d| {
            let ty = d.dynamic_type(tat, type_json)?;
            let v = d.value(&ty)?;
            d.w.end_dynamic(end)?;
            Ok(v)
        })
    }

    fn dynamic_type(&mut self, at: usize, type_json: &'a [u8]) -> Result<Type> {
        if let Some(t) = self.types.get(type_json) {
            return Ok(t.clone());
        }
        let limit = self.opts.max_depth.saturating_sub(self.depth);
        let t = dynamic_type(at, type_json, limit)?;
        self.types.insert(type_json, t.clone());
        Ok(t)
    }
}

/// The type a dynamic wrapper's type JSON (at offset `at`) names, parsed
/// at most `depth_left` deep. Also for a reader that meets a wrapper's
/// type more than once: go-cty parses each as it meets it, so an invalid
/// one is refused even when a valid one follows.
pub(crate) fn dynamic_type(at: usize, type_json: &[u8], depth_left: usize) -> Result<Type> {
    Type::parse_within(type_json, depth_left)
        // The parser's offsets count from the type's own first byte: the
        // error is reported where the type starts in the input.
        .map_err(|e| e.in_context("invalid type in dynamic value").relocated(at))
}

/// go-cty's words for an object whose entry count is not its type's.
pub(crate) fn count_mismatch(oty: &ObjectType, given: usize) -> String {
    format!(
        "an object with {} attributes is required ({given} given)",
        oty.len()
    )
}

/// An object's attribute values as they arrive, put in the type's order.
/// While keys come in that order (go-cty writes them sorted) each value is
/// pushed straight into place; slots are made only once one does not.
struct Attributes<'t> {
    oty: &'t ObjectType,
    in_order: Vec<Value>,
    slots: Option<Vec<Option<Value>>>,
}

impl<'t> Attributes<'t> {
    fn new(oty: &'t ObjectType) -> Self {
        Attributes {
            oty,
            in_order: Vec::with_capacity(oty.len()),
            slots: None,
        }
    }

    /// The name that would continue the type's order, if still in it.
    #[inline]
    fn expected(&self) -> Option<&'t str> {
        let next = self.in_order.len();
        (self.slots.is_none() && next < self.oty.len()).then(|| self.oty.name(next))
    }

    #[inline]
    fn next_in_order(&self) -> usize {
        self.in_order.len()
    }

    #[inline(always)]
    fn place(&mut self, idx: usize, v: Value, repeat_wins: bool) -> Result<()> {
        if self.slots.is_none() && idx == self.in_order.len() {
            self.in_order.push(v);
            return Ok(());
        }
        self.place_out_of_order(idx, v, repeat_wins)
    }

    #[cold]
    fn place_out_of_order(&mut self, idx: usize, v: Value, repeat_wins: bool) -> Result<()> {
        let slots = self.slots.get_or_insert_with(|| {
            let mut s: Vec<Option<Value>> = self.in_order.drain(..).map(Some).collect();
            s.resize_with(self.oty.len(), || None);
            s
        });
        let slot = &mut slots[idx];
        if slot.is_some() && !repeat_wins {
            return Err(Error::data(format!(
                "duplicate attribute {:?}",
                self.oty.name(idx)
            )));
        }
        *slot = Some(v);
        Ok(())
    }

    /// Whether attribute `idx` has been given.
    fn has(&self, idx: usize) -> bool {
        match &self.slots {
            None => idx < self.in_order.len(),
            Some(slots) => slots[idx].is_some(),
        }
    }

    /// The values in the type's order; attributes left out are null.
    fn finish(self) -> Vec<Value> {
        let oty = self.oty;
        let null_at = |i: usize| Value::null(oty.attribute_type_at(i).clone());
        match self.slots {
            None => {
                let mut vals = self.in_order;
                let given = vals.len();
                vals.extend((given..oty.len()).map(null_at));
                vals
            }
            Some(slots) => slots
                .into_iter()
                .enumerate()
                .map(|(i, v)| v.unwrap_or_else(|| null_at(i)))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{msgpack, Type};

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn an_object_count_error_names_the_missing_or_extra_attributes_and_keeps_its_path() {
        let ty =
            Type::parse(r#"["object",{"o":["object",{"a":"string","b":"number","c":"bool"}]}]"#)
                .unwrap();
        // {"o": {"a": "x"}}: b and c missing.
        let err = msgpack::decode(&unhex("81a16f81a161a178"), &ty).unwrap_err();
        assert_eq!(
            err.message(),
            r#"an object with 3 attributes is required (1 given): missing attributes "b", "c""#
        );
        assert_eq!(err.path().to_string(), ".o");
        // {"o": {"a": "x", "b": 5, "c": true, "d": true}}: d is extra.
        let err = msgpack::decode(&unhex("81a16f84a161a178a16205a163c3a164c3"), &ty).unwrap_err();
        assert_eq!(
            err.message(),
            r#"an object with 3 attributes is required (4 given): unsupported attribute "d""#
        );
        assert_eq!(err.path().to_string(), ".o");
        // {"o": {"a": "x", "b": 5, "b": 6}}: b twice, c missing.
        let err = msgpack::decode(&unhex("81a16f83a161a178a16205a16206"), &ty).unwrap_err();
        assert!(
            err.message().contains(r#"duplicate attribute "b""#),
            "{err}"
        );
    }

    #[cfg(feature = "serde")]
    #[test]
    fn a_typed_object_count_error_names_the_missing_attribute() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Ab {
            a: String,
            b: f64,
        }
        let ty = Type::parse(r#"["object",{"a":"string","b":"number"}]"#).unwrap();
        let err = msgpack::from_slice::<Ab>(&unhex("81a161a178"), &ty).unwrap_err();
        assert_eq!(
            err.message(),
            r#"an object with 2 attributes is required (1 given): missing attribute "b""#
        );
    }
}
