//! go-cty's set hash strings, which order set elements of structured
//! types: `<…;…;>` for objects and tuples, `[…;…;]` for lists and sets,
//! `{"key":…;}` for maps, `"…"` (Go-quoted) for strings, Go's `%g` with ten
//! digits for numbers, `T`/`F`, `~` for null and `?` for unknown.

use std::cmp::Ordering;

use crate::gostr;
use crate::types::Type;
use crate::value::{Repr, Value};

/// The hash string of an unknown, of a null and of the two bools.
pub(crate) const UNKNOWN: char = '?';
pub(crate) const NULL: char = '~';
pub(crate) fn bool_hash(b: bool) -> char {
    if b {
        'T'
    } else {
        'F'
    }
}

/// The brackets around a structured value's components; each component
/// is followed by `;`, and a map's is its quoted key, `:`, its value.
pub(crate) fn brackets(ty: &Type) -> (char, char) {
    match ty {
        Type::Object(_) | Type::Tuple(_) => ('<', '>'),
        Type::Map(_) => ('{', '}'),
        _ => ('[', ']'),
    }
}

/// A string's hash string: Go-quoted.
pub(crate) fn write_string_hash(out: &mut String, s: &str) {
    gostr::quote_into(out, s)
}

/// A number's hash string: big.Float.String(), as go-cty writes it.
pub(crate) fn write_number_hash(out: &mut String, n: &crate::Number) {
    n.write_g10(out)
}

/// Appends go-cty's set hash string of `v`.
pub(super) fn write_hash(out: &mut String, v: &Value) {
    match v.repr() {
        Repr::Unknown(..) => out.push(UNKNOWN),
        Repr::Null(_) => out.push(NULL),
        Repr::Bool(b) => out.push(bool_hash(*b)),
        Repr::String(s) => write_string_hash(out, s),
        Repr::Number(n) => write_number_hash(out, n),
        Repr::Seq(_, items) => {
            let (open, close) = brackets(v.ty());
            out.push(open);
            for i in items {
                write_hash(out, i);
                out.push(';');
            }
            out.push(close);
        }
        Repr::Map(_, m) => {
            let (open, close) = brackets(v.ty());
            out.push(open);
            for (k, i) in m {
                write_string_hash(out, k);
                out.push(':');
                write_hash(out, i);
                out.push(';');
            }
            out.push(close);
        }
    }
}

/// Compares the hash strings of two known, non-null structured values
/// without building them whole. A hash string is an opening bracket, then
/// components that each end in `;`, then a closing bracket; no component
/// is a proper prefix of another, so comparing component by component
/// orders the whole strings.
pub(super) fn compare_hash_strings(
    a: &Value,
    b: &Value,
    sa: &mut String,
    sb: &mut String,
) -> Ordering {
    let (open_a, close_a, na) = shape(a);
    let (open_b, _, nb) = shape(b);
    if open_a != open_b {
        return open_a.cmp(&open_b);
    }
    for i in 0..na.min(nb) {
        let ord = match (a.repr(), b.repr()) {
            (Repr::Seq(_, x), Repr::Seq(_, y)) => compare_leaf_hashes(&x[i], &y[i]),
            _ => None,
        };
        let ord = ord.unwrap_or_else(|| {
            sa.clear();
            sb.clear();
            write_component(sa, a, i);
            write_component(sb, b, i);
            sa.as_bytes().cmp(sb.as_bytes())
        });
        if ord != Ordering::Equal {
            return ord;
        }
    }
    if na == nb {
        return Ordering::Equal;
    }
    // One ran out: its closing bracket meets the other's next component.
    let (longer, n, flip) = if na > nb {
        (a, nb, false)
    } else {
        (b, na, true)
    };
    sa.clear();
    write_component(sa, longer, n);
    let o = [close_a as u8].as_slice().cmp(sa.as_bytes()).reverse();
    if flip {
        o.reverse()
    } else {
        o
    }
}

/// A leaf whose hash string is seen without building it: a
/// one-character one (`T`, `F`, `~`, `?`), or a string's, `"` + its text
/// quoted + `"`. Both set orders compare these in place: on values
/// ([`compare_leaf_hashes`]) and on msgpack bytes (`msgpack::set_order`).
#[derive(Clone, Copy)]
pub(crate) enum Leaf<'a> {
    Char(u8),
    Text(&'a [u8]),
}

/// The first byte of a character's quoted form, for a character that
/// starts with byte `c`: printable ASCII other than `"` and `\` stands for
/// itself, other ASCII is escaped (`\`); for the first byte of anything
/// else, `None` (printed as it is or escaped, both sorting after `"`).
fn quoted_first(c: u8) -> Option<u8> {
    match c {
        b'"' | b'\\' => Some(b'\\'),
        b' '..=b'~' => Some(c),
        0..=0x7f => Some(b'\\'),
        _ => None,
    }
}

/// Compares the hash strings of two leaves, each followed by `;`, as
/// their bytes would; `None` where the first difference lies in text
/// that is escaped or not ASCII, which only the built strings settle.
pub(crate) fn compare_leaves(a: Leaf<'_>, b: Leaf<'_>) -> Option<Ordering> {
    let (x, y) = match (a, b) {
        (Leaf::Char(x), Leaf::Char(y)) => return Some(x.cmp(&y)),
        (Leaf::Char(x), Leaf::Text(_)) => return Some(x.cmp(&b'"')),
        (Leaf::Text(_), Leaf::Char(y)) => return Some(b'"'.cmp(&y)),
        (Leaf::Text(x), Leaf::Text(y)) => (x, y),
    };
    // Up to the first byte that differs the texts are the same, and so
    // are their quoted forms as long as that byte starts a character in
    // both: it does where it is ASCII (or where one text ends, since both
    // are whole UTF-8). There the closing quote or the next character's
    // first quoted byte decides, unless both are escapes.
    let i = x.iter().zip(y).take_while(|(p, q)| p == q).count();
    let (p, q) = match (x.get(i), y.get(i)) {
        (None, None) => return Some(Ordering::Equal),
        (None, Some(&q)) => return Some(quoted_first(q).map_or(Ordering::Less, |q| b'"'.cmp(&q))),
        (Some(&p), None) => {
            return Some(quoted_first(p).map_or(Ordering::Greater, |p| p.cmp(&b'"')))
        }
        (Some(&p), Some(&q)) => (quoted_first(p)?, quoted_first(q)?),
    };
    (p != q).then(|| p.cmp(&q))
}

/// Compares `H(a);` with `H(b);` in place when both are leaves whose hash
/// string is cheap to see in pieces: strings, bools, nulls and unknowns as
/// [`Leaf`]s ([`compare_leaves`], shared with the order read off msgpack
/// bytes), an integer of at most 10 digits by its digits. `None` for
/// anything else, and where `compare_leaves` cannot tell.
fn compare_leaf_hashes(a: &Value, b: &Value) -> Option<Ordering> {
    if let (Some(x), Some(y)) = (leaf(a), leaf(b)) {
        return compare_leaves(x, y);
    }
    let (mut ba, mut bb) = ([0u8; 24], [0u8; 24]);
    let pa = leaf_hash_parts(a, &mut ba)?;
    let pb = leaf_hash_parts(b, &mut bb)?;
    Some(hash_bytes(pa).cmp(hash_bytes(pb)))
}

/// A value as a [`Leaf`], where it is one.
fn leaf(v: &Value) -> Option<Leaf<'_>> {
    Some(match v.repr() {
        Repr::String(s) => Leaf::Text(s.as_bytes()),
        Repr::Bool(b) => Leaf::Char(bool_hash(*b) as u8),
        Repr::Null(_) => Leaf::Char(NULL as u8),
        Repr::Unknown(..) => Leaf::Char(UNKNOWN as u8),
        _ => return None,
    })
}

/// The bytes of a leaf's hash string and its `;`.
fn hash_bytes<'v>(p: (&'static [u8], &'v [u8], &'static [u8])) -> impl Iterator<Item = u8> + 'v {
    p.0.iter().chain(p.1).chain(p.2).chain(b";").copied()
}

/// A leaf's hash string as (prefix, body, suffix), or `None`.
fn leaf_hash_parts<'v>(
    v: &'v Value,
    buf: &'v mut [u8; 24],
) -> Option<(&'static [u8], &'v [u8], &'static [u8])> {
    Some(match v.repr() {
        Repr::String(s) => {
            let plain = s
                .bytes()
                .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\');
            if !plain {
                return None;
            }
            (b"\"", s.as_bytes(), b"\"")
        }
        Repr::Bool(true) => (b"", b"T", b""),
        Repr::Bool(false) => (b"", b"F", b""),
        Repr::Null(_) => (b"", b"~", b""),
        Repr::Unknown(..) => (b"", b"?", b""),
        Repr::Number(n) => {
            // Up to 10 digits %g prints the integer itself; -0 is "-0".
            let i = n.to_i64()?;
            if i.unsigned_abs() >= 10_000_000_000 || (i == 0 && n.is_negative()) {
                return None;
            }
            use std::io::Write;
            let mut cursor = std::io::Cursor::new(&mut buf[..]);
            write!(cursor, "{i}").ok()?;
            let len = cursor.position() as usize;
            (b"", &buf[..len], b"")
        }
        _ => return None,
    })
}

/// Opening and closing bracket and number of components of a hash string.
fn shape(v: &Value) -> (char, char, usize) {
    let n = match v.repr() {
        Repr::Seq(_, items) => items.len(),
        Repr::Map(_, m) => m.len(),
        _ => return (' ', ' ', 0),
    };
    let (open, close) = brackets(v.ty());
    (open, close, n)
}

fn write_component(out: &mut String, v: &Value, i: usize) {
    match v.repr() {
        Repr::Seq(_, items) => write_hash(out, &items[i]),
        Repr::Map(_, m) => {
            write_string_hash(out, &m[i].0);
            out.push(':');
            write_hash(out, &m[i].1);
        }
        _ => {}
    }
    out.push(';');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_strings_match_go_cty() {
        let v = Value::object([
            ("a", Value::string("x\"y")),
            ("b", Value::null(Type::Number)),
            ("c", Value::unknown(Type::Bool)),
        ]);
        let mut h = String::new();
        write_hash(&mut h, &v);
        assert_eq!(h, r#"<"x\"y";~;?;>"#);
        let m = Value::map(Type::Bool, [("k", Value::bool(true))]).unwrap();
        let mut h = String::new();
        write_hash(&mut h, &m);
        assert_eq!(h, r#"{"k":T;}"#);
    }

    #[test]
    fn leaf_hashes_compare_as_their_hash_strings_do() {
        let leaves = [
            Value::string("abc"),
            Value::string("abc!"),
            Value::string("ab"),
            Value::string("ab c"),
            Value::string(""),
            Value::number(12),
            Value::number(123),
            Value::number(-5),
            Value::number(9_999_999_999i64),
            Value::bool(true),
            Value::bool(false),
            Value::null(Type::String),
            Value::unknown(Type::String),
        ];
        for a in &leaves {
            for b in &leaves {
                let (mut ha, mut hb) = (String::new(), String::new());
                write_hash(&mut ha, a);
                write_hash(&mut hb, b);
                ha.push(';');
                hb.push(';');
                assert_eq!(
                    compare_leaf_hashes(a, b),
                    Some(ha.cmp(&hb)),
                    "{a:?} vs {b:?}"
                );
            }
        }
        // Text escaped where it first differs is compared in place too;
        // a difference in text that is not ASCII is left to the strings.
        assert_eq!(
            compare_leaf_hashes(&Value::string("a\"b"), &Value::string("a")),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare_leaf_hashes(&Value::string("aé"), &Value::string("ab")),
            None
        );
        assert_eq!(
            compare_leaf_hashes(
                &Value::number("0.5".parse::<crate::Number>().unwrap()),
                &Value::number(1)
            ),
            None
        );
    }
}
