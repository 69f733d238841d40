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

use super::decode::{is_ext, Head, Reader};
use crate::set::hash::{bool_hash, brackets, write_number_hash, write_string_hash, NULL};
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
    let mut cx = Compare {
        sa: String::new(),
        sb: String::new(),
        max_exponent,
    };
    let mut last: Option<&[u8]> = None;
    for e in elements {
        if let Some(a) = last {
            if cx.elements(ety, a, e) != Some(Ordering::Less) {
                return false;
            }
        }
        last = Some(e);
    }
    true
}

/// `set`'s ranks: known and not null, then null (nil). An unknown (an
/// ext) is not ranked here.
const KNOWN_RANK: u8 = 0;
const NULL_RANK: u8 = 2;

fn rank(item: &[u8]) -> Option<u8> {
    match *item.first()? {
        NIL => Some(NULL_RANK),
        b if is_ext(b) => None,
        _ => Some(KNOWN_RANK),
    }
}

const NIL: u8 = 0xc0;

/// Two hash-string buffers, and the bound on numbers' exponents.
struct Compare {
    sa: String,
    sb: String,
    max_exponent: u32,
}

impl Compare {
    /// The set order of two elements, or `None` where the bytes cannot
    /// tell.
    fn elements(&mut self, ety: &Type, a: &[u8], b: &[u8]) -> Option<Ordering> {
        let (ra, rb) = (rank(a)?, rank(b)?);
        if ra != KNOWN_RANK || rb != KNOWN_RANK {
            return Some(ra.cmp(&rb));
        }
        let (mut ra, mut rb) = (Reader::new(a), Reader::new(b));
        match ety {
            Type::String => Some(plain_text(&mut ra)?.cmp(plain_text(&mut rb)?)),
            Type::Bool => Some(boolean(&mut ra)?.cmp(&boolean(&mut rb)?)),
            // Integers compare as numbers; a non-integral number among
            // primitives sends the set to its de-duplication by text.
            Type::Number => Some(integer(&mut ra)?.cmp(&integer(&mut rb)?)),
            // A set's hash string is its canonical form's, so the
            // component by component comparison (which stops at the first
            // difference) would judge sets of sets before seeing whether
            // each stands in order: left to the values.
            Type::Set(_) => None,
            _ => self.hash_strings(ety, &mut ra, &mut rb),
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
            self.sa.clear();
            self.sb.clear();
            write_component(&mut self.sa, ty, i, a, &mut last_a, x)?;
            write_component(&mut self.sb, ty, i, b, &mut last_b, x)?;
            match self.sa.as_bytes().cmp(self.sb.as_bytes()) {
                Ordering::Equal => {}
                other => return Some(other),
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
    let Head::Str(n) = r.head().ok()? else {
        return None;
    };
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
