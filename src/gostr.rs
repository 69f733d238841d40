//! Go's two string escapers, which leak into cty's output: `strconv.Quote`
//! (set hash strings, path rendering) and `encoding/json` (JSON values and
//! type constraints).

use unicode_general_category::{get_general_category, GeneralCategory as G};

/// Appends `s` in Go `strconv.Quote` form.
pub(crate) fn quote_into(out: &mut String, s: &str) {
    out.push('"');
    // Most text is printable ASCII with nothing to escape: copy it at once.
    let plain = s
        .bytes()
        .take_while(|&b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
        .count();
    out.push_str(&s[..plain]);
    for c in s[plain..].chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if (c as u32) < 0x80 => push_hex(out, "\\x", c as u32, 2),
            c if go_is_print(c) => out.push(c),
            c if (c as u32) < 0x10000 => push_hex(out, "\\u", c as u32, 4),
            c => push_hex(out, "\\U", c as u32, 8),
        }
    }
    out.push('"');
}

/// Go's `unicode.IsPrint` for non-ASCII: letters, marks, numbers,
/// punctuation and symbols; no spaces other than U+0020.
fn go_is_print(c: char) -> bool {
    !matches!(
        get_general_category(c),
        G::SpaceSeparator
            | G::LineSeparator
            | G::ParagraphSeparator
            | G::Control
            | G::Format
            | G::Surrogate
            | G::PrivateUse
            | G::Unassigned
    )
}

/// Lower-case hex digits, as both of Go's escapers write them.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `prefix` and the low `width` hex digits of `v` (each caller's
/// range fits its width).
fn push_hex(out: &mut String, prefix: &str, v: u32, width: u32) {
    out.push_str(prefix);
    for place in (0..width).rev() {
        out.push(char::from(HEX[((v >> (4 * place)) & 0xf) as usize]));
    }
}

/// The bytes `json_quote_into` has to look at: the ones it escapes, and
/// 0xE2, which starts U+2028 and U+2029. One lookup lets every other byte
/// through.
const MAY_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t[b'<' as usize] = true;
    t[b'>' as usize] = true;
    t[b'&' as usize] = true;
    t[0xe2] = true;
    t
};

/// Appends `s` as a JSON string the way Go's `encoding/json` writes it
/// (Go ≥ 1.22): `<`, `>`, `&`, U+2028 and U+2029 escaped so the output is
/// safe inside HTML; `\b`, `\f`, `\n`, `\r`, `\t` short forms; other
/// control bytes as `\u00XX`.
pub(crate) fn json_quote_into(out: &mut Vec<u8>, s: &str) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !MAY_ESCAPE[usize::from(b)] {
            i += 1;
            continue;
        }
        let escape: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            0x08 => Some(b"\\b"),
            0x0c => Some(b"\\f"),
            b'<' => Some(b"\\u003c"),
            b'>' => Some(b"\\u003e"),
            b'&' => Some(b"\\u0026"),
            // U+2028 / U+2029 are E2 80 A8 / E2 80 A9 in UTF-8.
            0xe2 if bytes.get(i + 1) == Some(&0x80)
                && matches!(bytes.get(i + 2), Some(0xa8) | Some(0xa9)) =>
            {
                if bytes[i + 2] == 0xa8 {
                    Some(b"\\u2028")
                } else {
                    Some(b"\\u2029")
                }
            }
            _ => None,
        };
        if let Some(esc) = escape {
            out.extend_from_slice(&bytes[start..i]);
            out.extend_from_slice(esc);
            i += if b == 0xe2 { 3 } else { 1 };
            start = i;
        } else if b < 0x20 {
            out.extend_from_slice(&bytes[start..i]);
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 0xf) as usize]);
            i += 1;
            start = i;
        } else {
            i += 1;
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quote(s: &str) -> String {
        let mut out = String::new();
        quote_into(&mut out, s);
        out
    }

    fn json(s: &str) -> String {
        let mut out = Vec::new();
        json_quote_into(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn go_quote_escapes_controls_and_keeps_printable_unicode() {
        assert_eq!(
            quote("tab\tquote\"back\\slash"),
            r#""tab\tquote\"back\\slash""#
        );
        assert_eq!(quote("\x00nul\x7f"), r#""\x00nul\x7f""#);
        assert_eq!(quote("日本語 🦀 é"), "\"日本語 🦀 é\"");
        assert_eq!(quote("a\u{a0}b\u{200b}"), r#""a\u00a0b\u200b""#);
        assert_eq!(quote("\u{e0001}"), r#""\U000e0001""#);
    }

    #[test]
    fn json_quote_matches_go_encoding_json() {
        assert_eq!(json("\x08\x0c\x01<"), r#""\b\f\u0001\u003c""#);
        assert_eq!(json("a&b>c"), r#""a\u0026b\u003ec""#);
        assert_eq!(json("\u{2028}x\u{2029}"), r#""\u2028x\u2029""#);
        assert_eq!(json("\x7fé\n"), "\"\x7fé\\n\"");
    }
}
