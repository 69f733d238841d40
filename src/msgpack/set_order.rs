//! Whether set elements, as msgpack bytes, already stand in go-cty's set
//! order with no duplicates: the question `set::canonical_order` answers
//! on values, answered on the bytes for the case that needs no work, so
//! that a set written in order (as go-cty and ctywire write every set) is
//! not built as values only to learn that.
//!
//! The order itself is `set`'s (known elements, then null; strings
//! bytewise, numbers numerically, `false` before `true`, anything else by
//! its hash string, built here from the bytes with `set::hash`'s pieces).
//! Only a sure "in order" counts: whatever the bytes alone cannot settle
//! (text that may need normalizing, a non-integral number among
//! primitives, an object's attributes out of place, a dynamic part, an
//! unknown anywhere, since refinements may make it known, a malformed
//! item) answers "not known", and the values decide.

use std::cmp::Ordering;

use super::read::{is_ext, Head, Reader};
use super::write::NIL;
use crate::set::hash::{
    bool_hash, brackets, compare_leaves, write_number_hash, write_string_hash, Leaf, NULL,
};
use crate::strings::is_nfc_fast;
use crate::types::Type;

/// Whether `elements` (each one whole msgpack item of type `ety`) are
/// known to be in the set's order, each after the one before. Numbers
/// written as text are read with decimal exponents up to `max_exponent`.
pub(crate) fn known_in_order<'e>(
    ety: &Type,
    elements: impl Iterator<Item = &'e [u8]>,
    max_exponent: u32,
) -> bool {
    let mut cx = Compare::new(max_exponent);
    let mut elements = elements.peekable();
    let mut last = None;
    while let Some(bytes) = elements.next() {
        let Some(e) = element(ety, &mut Reader::new(bytes)) else {
            // A single element is in order whatever it is.
            return last.is_none() && elements.peek().is_none();
        };
        if !cx.after(ety, last.as_ref(), &e) {
            return false;
        }
        last = Some(e);
    }
    true
}

/// Whether the `n` elements of type `ety` that `r` is at are known to be in
/// the set's order, as [`known_in_order`] answers for their bytes; in one
/// pass, each element read once (a primitive is its own key, so sets of
/// strings, numbers or bools are never stepped over first). A single
/// element is in order whatever it is, as long as it is whole.
pub(super) fn array_known_in_order(
    ety: &Type,
    r: &mut Reader<'_>,
    n: u32,
    max_exponent: u32,
) -> bool {
    let mut cx = Compare::new(max_exponent);
    let mut last = None;
    for _ in 0..n {
        let start = r.pos();
        let Some(e) = element(ety, r) else {
            return n == 1 && {
                r.unread(start);
                r.skip_item().is_ok()
            };
        };
        if !cx.after(ety, last.as_ref(), &e) {
            return false;
        }
        last = Some(e);
    }
    true
}

/// One set element, as far as its place in the set's order goes.
enum Element<'a> {
    /// Null: after every known element.
    Null,
    /// A primitive the bytes settle: the text of a string (sure to be
    /// NFC), an integer, a bool. Elements of one type have one kind, and
    /// order as their values (bytewise, numerically, `false` first).
    Text(&'a str),
    Integer(i128),
    Bool(bool),
    /// A known structured item, whole: ordered by its hash string.
    Structured(&'a [u8]),
}

/// Reads one whole element of type `ety`; `None` where the bytes cannot
/// settle its place: an unknown (refinements may make it known), text
/// that may need normalizing, a non-integral number, a malformed item.
fn element<'a>(ety: &Type, r: &mut Reader<'a>) -> Option<Element<'a>> {
    let b = r.peek().ok()?;
    if b == NIL {
        r.head().ok()?;
        return Some(Element::Null);
    }
    if is_ext(b) {
        return None;
    }
    Some(match ety {
        Type::String => Element::Text(plain_text(r)?),
        // Integers compare as numbers; a non-integral number among
        // primitives sends the set to its de-duplication by text.
        Type::Number => Element::Integer(integer(r)?),
        Type::Bool => Element::Bool(boolean(r)?),
        _ => {
            let start = r.pos();
            r.skip_item().ok()?;
            Element::Structured(r.since(start))
        }
    })
}

/// Two hash-string buffers, and the bound on numbers' exponents.
struct Compare {
    sa: String,
    sb: String,
    max_exponent: u32,
}

impl Compare {
    fn new(max_exponent: u32) -> Self {
        Compare {
            sa: String::new(),
            sb: String::new(),
            max_exponent,
        }
    }

    /// Whether `b` is known to come after `last` (if any) in the set's
    /// order.
    fn after(&mut self, ety: &Type, last: Option<&Element<'_>>, b: &Element<'_>) -> bool {
        last.is_none_or(|a| self.elements(ety, a, b) == Some(Ordering::Less))
    }

    /// The set order of two elements (known ones first, then null), or
    /// `None` where the bytes cannot tell.
    fn elements(&mut self, ety: &Type, a: &Element<'_>, b: &Element<'_>) -> Option<Ordering> {
        use Element::*;
        match (a, b) {
            (Null, Null) => Some(Ordering::Equal),
            (Null, _) => Some(Ordering::Greater),
            (_, Null) => Some(Ordering::Less),
            (Text(x), Text(y)) => Some(x.cmp(y)),
            (Integer(x), Integer(y)) => Some(x.cmp(y)),
            (Bool(x), Bool(y)) => Some(x.cmp(y)),
            // A set's hash string is its canonical form's, so the
            // component by component comparison (which stops at the first
            // difference) would judge sets of sets before seeing whether
            // each stands in order: left to the values.
            (Structured(_), Structured(_)) if matches!(ety, Type::Set(_)) => None,
            (Structured(x), Structured(y)) => {
                self.hash_strings(ety, &mut Reader::new(x), &mut Reader::new(y))
            }
            _ => None,
        }
    }

    /// Compares the hash strings of two known structured items component
    /// by component, as `set::hash::compare_hash_strings` does on values:
    /// no component is a proper prefix of another, so the first that
    /// differs decides, and where one runs out its closing bracket meets
    /// the other's next component.
    fn hash_strings<'a>(
        &mut self,
        ty: &Type,
        a: &mut Reader<'a>,
        b: &mut Reader<'a>,
    ) -> Option<Ordering> {
        let na = components(ty, a)?;
        let nb = components(ty, b)?;
        let (_, close) = brackets(ty);
        let (mut last_a, mut last_b) = (None, None);
        let x = self.max_exponent;
        for i in 0..na.min(nb) {
            let (at_a, at_b) = (a.pos(), b.pos());
            let ord = match (leaf_component(ty, i, a), leaf_component(ty, i, b)) {
                (Some(x), Some(y)) => compare_leaves(x, y),
                _ => None,
            };
            let ord = match ord {
                Some(o) => o,
                None => {
                    // Built in full, from where the component starts.
                    a.unread(at_a);
                    b.unread(at_b);
                    self.sa.clear();
                    self.sb.clear();
                    write_component(&mut self.sa, ty, i, a, &mut last_a, x)?;
                    write_component(&mut self.sb, ty, i, b, &mut last_b, x)?;
                    self.sa.as_bytes().cmp(self.sb.as_bytes())
                }
            };
            if ord != Ordering::Equal {
                return Some(ord);
            }
        }
        if na == nb {
            return Some(Ordering::Equal);
        }
        let (longer, n, last, flip) = if na > nb {
            (a, nb, &mut last_a, false)
        } else {
            (b, na, &mut last_b, true)
        };
        let sa = &mut self.sa;
        sa.clear();
        write_component(sa, ty, n, longer, last, x)?;
        // The longer one against the shorter one.
        let o = sa.as_bytes().cmp([close as u8].as_slice());
        Some(if flip { o.reverse() } else { o })
    }
}

/// Reads component `i` of a list, tuple or object if its value is a leaf
/// ([`Leaf`]), an object's attribute name checked as `write_component`
/// checks it; `None` for anything else, with the reader left wherever it
/// got to (the caller starts the component again to build it).
fn leaf_component<'a>(ty: &Type, i: usize, r: &mut Reader<'a>) -> Option<Leaf<'a>> {
    let ety = match ty {
        Type::List(e) => e,
        Type::Tuple(ts) => ts.get(i)?,
        Type::Object(o) => {
            // The name as go-cty writes it, checked on the bytes; any other
            // spelling of it is left to `write_component`.
            if !r.skip_key(o.name(i)) {
                return None;
            }
            o.attribute_type_at(i)
        }
        _ => return None,
    };
    match r.peek().ok()? {
        NIL => {
            r.head().ok()?;
            Some(Leaf::Char(NULL as u8))
        }
        0xc2 | 0xc3 if matches!(ety, Type::Bool) => Some(Leaf::Char(bool_hash(boolean(r)?) as u8)),
        _ if matches!(ety, Type::String) => Some(Leaf::Text(plain_text(r)?.as_bytes())),
        _ => None,
    }
}

/// Reads a structured item's header: how many components follow.
fn components(ty: &Type, r: &mut Reader<'_>) -> Option<usize> {
    let n = match (ty, r.head().ok()?) {
        (Type::List(_) | Type::Set(_) | Type::Tuple(_), Head::Array(n)) => n as usize,
        (Type::Object(_) | Type::Map(_), Head::Map(n)) => n as usize,
        _ => return None,
    };
    match ty {
        Type::Tuple(ts) if ts.len() != n => None,
        Type::Object(o) if o.len() != n => None,
        _ => Some(n),
    }
}

/// Appends component `i` of a structured item and its `;`. `last_key`:
/// the map key before it, which it must come after.
fn write_component<'a>(
    out: &mut String,
    ty: &Type,
    i: usize,
    r: &mut Reader<'a>,
    last_key: &mut Option<&'a str>,
    max_exponent: u32,
) -> Option<()> {
    match ty {
        Type::List(e) | Type::Set(e) => write_hash(out, e, r, max_exponent)?,
        Type::Tuple(ts) => write_hash(out, ts.get(i)?, r, max_exponent)?,
        // ctywire and go-cty write attributes in the type's order; any
        // other order is left to the values.
        Type::Object(o) => {
            if plain_text(r)? != o.name(i) {
                return None;
            }
            write_hash(out, o.attribute_type_at(i), r, max_exponent)?;
        }
        Type::Map(e) => {
            let key = plain_text(r)?;
            if last_key.is_some_and(|k| k >= key) {
                return None;
            }
            *last_key = Some(key);
            write_string_hash(out, key);
            out.push(':');
            write_hash(out, e, r, max_exponent)?;
        }
        _ => return None,
    }
    out.push(';');
    Some(())
}

/// Appends the hash string of the item at `r`, of type `ty`, as
/// `set::hash::write_hash` writes it for the value.
fn write_hash(out: &mut String, ty: &Type, r: &mut Reader<'_>, max_exponent: u32) -> Option<()> {
    let b = r.peek().ok()?;
    if b == NIL {
        r.head().ok()?;
        out.push(NULL);
        return Some(());
    }
    if is_ext(b) {
        return None;
    }
    match ty {
        Type::String => write_string_hash(out, plain_text(r)?),
        Type::Bool => out.push(bool_hash(boolean(r)?)),
        Type::Number => {
            let at = r.pos();
            let head = r.head().ok()?;
            let n = r.number_from(head, at, max_exponent).ok()??;
            write_number_hash(out, &n);
        }
        Type::List(_) | Type::Set(_) | Type::Tuple(_) | Type::Object(_) | Type::Map(_) => {
            let (open, close) = brackets(ty);
            let n = components(ty, r)?;
            out.push(open);
            let mut last_key = None;
            let mut last_element: Option<&[u8]> = None;
            for i in 0..n {
                let start = r.pos();
                write_component(out, ty, i, r, &mut last_key, max_exponent)?;
                // A set hashes as its canonical form, which its bytes are
                // only known to be when they stand in order.
                if let Type::Set(e) = ty {
                    let element = r.since(start);
                    let pair = last_element.into_iter().chain([element]);
                    if !known_in_order(e, pair, max_exponent) {
                        return None;
                    }
                    last_element = Some(element);
                }
            }
            out.push(close);
        }
        Type::Dynamic => return None,
    }
    Some(())
}

/// A str's text, if it is sure to be stored as it is (already NFC).
fn plain_text<'a>(r: &mut Reader<'a>) -> Option<&'a str> {
    let n = r.str_head().ok()??;
    let (s, ascii) = r.text(n).ok()?;
    (ascii || is_nfc_fast(s)).then_some(s)
}

fn boolean(r: &mut Reader<'_>) -> Option<bool> {
    match r.head().ok()? {
        Head::Bool(b) => Some(b),
        _ => None,
    }
}

fn integer(r: &mut Reader<'_>) -> Option<i128> {
    match r.head().ok()? {
        Head::Int(n) => Some(i128::from(n)),
        Head::Uint(n) => Some(i128::from(n)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    /// Texts whose quoted forms order unlike the texts themselves at the
    /// first difference: escapes (`"`, `\`, control characters), the two
    /// printable bytes below `"`, and text that is not ASCII (printed as
    /// it is, or escaped when Go does not count it printable).
    const TEXTS: &[&str] = &[
        "",
        "a",
        "ab",
        "abc",
        "ab c",
        "ab!",
        "ab\"",
        "ab\\",
        "ab\n",
        "ab\x7f",
        "ab~",
        "abé",
        "ab\u{a0}",
        "ab\u{2028}",
        "a\"",
        "a\\b",
        " ",
        "!",
        "\"",
        "é",
        "\u{a0}",
    ];

    fn leaves<'a>(texts: &[&'a str]) -> Vec<Leaf<'a>> {
        let chars = [NULL as u8, bool_hash(true) as u8, bool_hash(false) as u8];
        let texts = texts.iter().map(|t| Leaf::Text(t.as_bytes()));
        chars.into_iter().map(Leaf::Char).chain(texts).collect()
    }

    fn hash_of(l: Leaf<'_>) -> String {
        let mut h = String::new();
        match l {
            Leaf::Char(c) => h.push(c as char),
            Leaf::Text(t) => write_string_hash(&mut h, std::str::from_utf8(t).unwrap()),
        }
        h.push(';');
        h
    }

    #[test]
    fn leaves_compare_as_their_hash_strings_do() {
        let all = leaves(TEXTS);
        let mut settled = 0;
        for &a in &all {
            for &b in &all {
                let Some(o) = compare_leaves(a, b) else {
                    continue;
                };
                settled += 1;
                assert_eq!(
                    o,
                    hash_of(a).cmp(&hash_of(b)),
                    "{:?} vs {:?}",
                    hash_of(a),
                    hash_of(b)
                );
            }
        }
        // Most pairs are settled without building: the fast path is
        // what is checked here, not the fallback.
        assert!(settled > all.len() * all.len() * 3 / 4, "{settled}");
        // Only a difference in escapes or non-ASCII text is left over.
        assert!(compare_leaves(Leaf::Text(b"a\"x"), Leaf::Text(b"a\\x")).is_none());
        assert!(compare_leaves(Leaf::Text("aé".as_bytes()), Leaf::Text(b"ab")).is_none());
    }

    /// The set's own answer for two elements: in order with no duplicate.
    fn in_set_order(ety: &Type, a: &Value, b: &Value) -> bool {
        crate::set::canonical_order(ety, &[a.clone(), b.clone()]).is_none()
    }

    /// A string's msgpack bytes with its text decomposed (NFD).
    fn nfd_text(v: &Value) -> Vec<u8> {
        use unicode_normalization::UnicodeNormalization;
        let text: String = v.as_str().unwrap().nfd().collect();
        let mut out = Vec::new();
        rmp::encode::write_str(&mut out, &text).unwrap();
        out
    }

    fn encoded(v: &Value, ty: &Type) -> Vec<u8> {
        crate::msgpack::encode(v, ty).unwrap()
    }

    /// Every pair the bytes call in order is in order, for element types
    /// with a fast path of their own (strings read once, objects compared
    /// leaf by leaf), and the bytes of a whole set, read in one pass, say
    /// what the pairs say.
    #[test]
    fn bytes_called_in_order_are_in_order() {
        let obj = Type::object([("b", Type::Bool), ("n", Type::Number), ("s", Type::String)]);
        let mut objects = vec![Value::null(obj.clone())];
        for b in [
            Value::null(Type::Bool),
            Value::bool(false),
            Value::bool(true),
        ] {
            for s in TEXTS
                .iter()
                .map(|t| Value::string(*t))
                .chain([Value::null(Type::String)])
            {
                for n in [Value::number(3), Value::number(12)] {
                    objects.push(Value::object([
                        ("b", b.clone()),
                        ("n", n),
                        ("s", s.clone()),
                    ]));
                }
            }
        }
        // Elements the bytes cannot place are among them: text that is
        // not NFC as sent, a fraction.
        let mut strings: Vec<Value> = TEXTS.iter().map(|t| Value::string(*t)).collect();
        strings.push(Value::null(Type::String));
        let ints = [-3i64, 0, 5, 1000, 1 << 40].map(Value::number);
        let half = Value::number("0.5".parse::<crate::Number>().unwrap());
        let numbers: Vec<Value> = ints
            .into_iter()
            .chain([half, Value::null(Type::Number)])
            .collect();
        for (ety, elems) in [
            (obj, objects),
            (Type::String, strings),
            (Type::Number, numbers),
        ] {
            let mut called = 0;
            for a in &elems {
                for b in &elems {
                    let (mut ba, bb) = (encoded(a, &ety), encoded(b, &ety));
                    if ety == Type::String && a == b && !a.is_null() {
                        // The first one as NFD text (`é` decomposed): the
                        // same string once normalized, which only the
                        // values can see.
                        ba = nfd_text(a);
                    }
                    let pair = [ba.as_slice(), bb.as_slice()];
                    let known = known_in_order(&ety, pair.into_iter(), u32::MAX);
                    if known {
                        called += 1;
                        assert!(in_set_order(&ety, a, b), "{a:?} before {b:?}");
                    }
                    // The same two as one array, read in one pass.
                    let mut bytes = Vec::new();
                    rmp::encode::write_array_len(&mut bytes, 2).unwrap();
                    bytes.extend([ba, bb].concat());
                    let mut r = Reader::new(&bytes);
                    let Ok(Head::Array(n)) = r.head() else {
                        panic!("an array")
                    };
                    assert_eq!(array_known_in_order(&ety, &mut r, n, u32::MAX), known);
                }
            }
            // And the fast paths answer "in order" often enough to matter.
            assert!(
                called > elems.len() * (elems.len() - 1) / 4,
                "{ety}: {called}"
            );
        }
    }
}
