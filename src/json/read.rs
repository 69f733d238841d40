//! A pull reader over JSON text, for the type-driven decoders.
//!
//! Why not `serde_json`'s deserializer: go-cty decodes with Go's
//! `json.Decoder` and `UseNumber`, so a number keeps its literal text (a
//! number read as a string must come out as `"1.50"`, and a number is
//! parsed at arbitrary precision), and it decides what to do per token
//! against the cty type. A serde visitor only ever sees numbers already
//! converted to `u64`/`i64`/`f64`. This reader hands out borrowed tokens
//! straight from the input instead: no tree, no copies of unescaped strings.

use std::borrow::Cow;

use crate::error::{Error, Result};

/// The kind of the next value, from its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peek {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

pub struct Reader<'a> {
    src: &'a [u8],
    /// The whole input as text, when it is valid UTF-8 (it almost always
    /// is): one check up front instead of one per string, and strings are
    /// then slices of it. Otherwise each string is checked as it is read,
    /// so that the error points into the string that is broken.
    text: Option<&'a str>,
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(src: &'a [u8]) -> Self {
        let text = std::str::from_utf8(src).ok();
        Reader { src, text, pos: 0 }
    }

    pub fn offset(&self) -> usize {
        self.pos
    }

    /// Moves to `pos`, to read again from there.
    /// The length of the whole input.
    pub(crate) fn len(&self) -> usize {
        self.src.len()
    }

    /// The input from `start` to `end`, which the reader has passed.
    pub(crate) fn slice(&self, start: usize, end: usize) -> &'a [u8] {
        &self.src[start..end]
    }

    pub(crate) fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.src.len());
    }

    fn skip_ws(&mut self) {
        while let Some(&b) = self.src.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn err(&self, msg: impl Into<Cow<'static, str>>) -> Error {
        Error::syntax(msg).at_offset(self.pos)
    }

    fn unexpected(&self) -> Error {
        match self.src.get(self.pos) {
            None => Error::eof().at_offset(self.pos),
            Some(&b) => self.err(format!(
                "invalid character {} looking for beginning of value",
                describe_byte(b)
            )),
        }
    }

    /// What is wrong at the current byte of a number (`where` says which
    /// part), naming the byte, or the end of the input.
    fn bad_in_number(&self, place: &str) -> Error {
        match self.src.get(self.pos) {
            None => Error::eof().at_offset(self.pos),
            Some(&b) => self.err(format!(
                "invalid character {} {place} in numeric literal",
                describe_byte(b)
            )),
        }
    }

    /// The next non-space byte, or `None` at the end of the input.
    pub(crate) fn peek_byte(&mut self) -> Option<u8> {
        self.skip_ws();
        self.src.get(self.pos).copied()
    }

    /// The kind of the next value. End of input is an EOF error.
    pub fn peek(&mut self) -> Result<Peek> {
        self.skip_ws();
        match self.src.get(self.pos) {
            None => Err(Error::eof().at_offset(self.pos)),
            Some(b'n') => Ok(Peek::Null),
            Some(b't' | b'f') => Ok(Peek::Bool),
            Some(b'-' | b'0'..=b'9') => Ok(Peek::Number),
            Some(b'"') => Ok(Peek::String),
            Some(b'[') => Ok(Peek::Array),
            Some(b'{') => Ok(Peek::Object),
            Some(_) => Err(self.unexpected()),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<()> {
        if self.src[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else if word.starts_with(&self.src[self.pos..]) {
            Err(Error::eof().at_offset(self.src.len()))
        } else {
            // Name the first byte that departs from the word.
            let off = word
                .iter()
                .zip(&self.src[self.pos..])
                .take_while(|(a, b)| a == b)
                .count();
            let bad = self.src[self.pos + off];
            let expected = String::from_utf8_lossy(word);
            self.pos += off;
            Err(self.err(format!(
                "invalid character {} in literal {expected} (expecting '{}')",
                describe_byte(bad),
                word[off] as char
            )))
        }
    }

    pub fn read_null(&mut self) -> Result<()> {
        self.skip_ws();
        self.literal(b"null")
    }

    pub fn read_bool(&mut self) -> Result<bool> {
        self.skip_ws();
        if self.src.get(self.pos) == Some(&b't') {
            self.literal(b"true").map(|_| true)
        } else {
            self.literal(b"false").map(|_| false)
        }
    }

    /// A number token's text, checked against the JSON number grammar.
    pub fn read_number(&mut self) -> Result<&'a str> {
        self.skip_ws();
        let start = self.pos;
        let s = self.src;
        let mut i = self.pos;
        if s.get(i) == Some(&b'-') {
            i += 1;
        }
        match s.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while matches!(s.get(i), Some(b'0'..=b'9')) {
                    i += 1;
                }
            }
            None => return Err(Error::eof().at_offset(i)),
            Some(&b) => {
                self.pos = i;
                return Err(self.err(format!(
                    "invalid character {} in numeric literal",
                    describe_byte(b)
                )));
            }
        }
        if s.get(i) == Some(&b'.') {
            i += 1;
            if !matches!(s.get(i), Some(b'0'..=b'9')) {
                self.pos = i;
                return Err(self.bad_in_number("after decimal point"));
            }
            while matches!(s.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        if matches!(s.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(s.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !matches!(s.get(i), Some(b'0'..=b'9')) {
                self.pos = i;
                return Err(self.bad_in_number("in exponent"));
            }
            while matches!(s.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        self.pos = i;
        // The grammar above admits ASCII only.
        std::str::from_utf8(&s[start..i])
            .map_err(|_| Error::syntax("internal error: number text is not ASCII").at_offset(start))
    }

    /// A string token, unescaped. Borrowed when it holds no escapes.
    /// Invalid UTF-8 is refused; a lone surrogate escape becomes U+FFFD, as
    /// Go's decoder does.
    pub fn read_string(&mut self) -> Result<Cow<'a, str>> {
        self.skip_ws();
        if self.src.get(self.pos) != Some(&b'"') {
            return Err(self.unexpected());
        }
        self.pos += 1;
        let start = self.pos;
        let s = self.src;
        let mut i = start;
        // Fast scan for the common case: no escapes, no control bytes.
        while let Some(&b) = s.get(i) {
            match b {
                b'"' => {
                    // Both ends are next to an ASCII quote, so on char
                    // boundaries: the slice cannot fail.
                    let text = match self.text.and_then(|t| t.get(start..i)) {
                        Some(text) => text,
                        None => std::str::from_utf8(&s[start..i]).map_err(|e| {
                            Error::data("string is not valid UTF-8")
                                .at_offset(start + e.valid_up_to())
                        })?,
                    };
                    self.pos = i + 1;
                    return Ok(Cow::Borrowed(text));
                }
                b'\\' => break,
                0..=0x1f => {
                    self.pos = i;
                    return Err(self.err("invalid control character in string literal"));
                }
                _ => i += 1,
            }
        }
        if i >= s.len() {
            return Err(Error::eof().at_offset(s.len()));
        }
        let mut buf: Vec<u8> = Vec::with_capacity(i - start + 16);
        buf.extend_from_slice(&s[start..i]);
        loop {
            let Some(&b) = s.get(i) else {
                return Err(Error::eof().at_offset(s.len()));
            };
            match b {
                b'"' => {
                    self.pos = i + 1;
                    return String::from_utf8(buf).map(Cow::Owned).map_err(|e| {
                        Error::data("string is not valid UTF-8")
                            .at_offset(start + e.utf8_error().valid_up_to())
                    });
                }
                b'\\' => {
                    i += 1;
                    let Some(&e) = s.get(i) else {
                        return Err(Error::eof().at_offset(s.len()));
                    };
                    i += 1;
                    match e {
                        b'"' => buf.push(b'"'),
                        b'\\' => buf.push(b'\\'),
                        b'/' => buf.push(b'/'),
                        b'b' => buf.push(0x08),
                        b'f' => buf.push(0x0c),
                        b'n' => buf.push(b'\n'),
                        b'r' => buf.push(b'\r'),
                        b't' => buf.push(b'\t'),
                        b'u' => {
                            let hi = self.hex4(i)?;
                            i += 4;
                            let c = if (0xd800..0xdc00).contains(&hi)
                                && s.get(i) == Some(&b'\\')
                                && s.get(i + 1) == Some(&b'u')
                            {
                                let lo = self.hex4(i + 2)?;
                                if (0xdc00..0xe000).contains(&lo) {
                                    i += 6;
                                    char::from_u32(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00))
                                } else {
                                    None
                                }
                            } else {
                                char::from_u32(hi)
                            };
                            let c = c.unwrap_or('\u{fffd}');
                            let mut tmp = [0u8; 4];
                            buf.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
                        }
                        _ => {
                            self.pos = i - 1;
                            return Err(self.err("invalid character in string escape code"));
                        }
                    }
                }
                0..=0x1f => {
                    self.pos = i;
                    return Err(self.err("invalid control character in string literal"));
                }
                _ => {
                    buf.push(b);
                    i += 1;
                }
            }
        }
    }

    fn hex4(&self, at: usize) -> Result<u32> {
        let Some(digits) = self.src.get(at..at + 4) else {
            return Err(Error::eof().at_offset(self.src.len()));
        };
        let mut v = 0u32;
        for &d in digits {
            let n = (d as char).to_digit(16).ok_or_else(|| {
                Error::syntax("invalid character in \\u hexadecimal character escape").at_offset(at)
            })?;
            v = v * 16 + n;
        }
        Ok(v)
    }

    /// Consumes `[`.
    pub fn begin_array(&mut self) -> Result<()> {
        self.skip_ws();
        match self.src.get(self.pos) {
            Some(b'[') => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(self.unexpected()),
        }
    }

    /// Moves to the next array element: `Ok(true)` if there is one, `Ok(false)`
    /// after consuming the closing `]`. `first` is true before the first element.
    pub fn next_element(&mut self, first: bool) -> Result<bool> {
        self.skip_ws();
        match self.src.get(self.pos) {
            Some(b']') => {
                self.pos += 1;
                Ok(false)
            }
            Some(b',') if !first => {
                self.pos += 1;
                self.skip_ws();
                if self.src.get(self.pos) == Some(&b']') {
                    return Err(self.unexpected());
                }
                Ok(true)
            }
            None => Err(Error::eof().at_offset(self.pos)),
            Some(_) if first => Ok(true),
            Some(&b) => Err(self.err(format!(
                "invalid character {} after array element",
                describe_byte(b)
            ))),
        }
    }

    /// Consumes `{`.
    pub fn begin_object(&mut self) -> Result<()> {
        self.skip_ws();
        match self.src.get(self.pos) {
            Some(b'{') => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(self.unexpected()),
        }
    }

    /// Reads the next object key and its colon, or consumes `}` and returns
    /// `None`.
    /// Returns the key's offset with it.
    pub fn next_key(&mut self, first: bool) -> Result<Option<(usize, Cow<'a, str>)>> {
        self.skip_ws();
        match self.src.get(self.pos) {
            Some(b'}') => {
                self.pos += 1;
                return Ok(None);
            }
            Some(b',') if !first => {
                self.pos += 1;
                self.skip_ws();
            }
            None => return Err(Error::eof().at_offset(self.pos)),
            Some(_) if first => {}
            Some(&b) => {
                return Err(self.err(format!(
                    "invalid character {} after object key:value pair",
                    describe_byte(b)
                )))
            }
        }
        if self.src.get(self.pos) != Some(&b'"') {
            return Err(match self.src.get(self.pos) {
                None => Error::eof().at_offset(self.pos),
                Some(&b) => self.err(format!(
                    "invalid character {} looking for beginning of object key string",
                    describe_byte(b)
                )),
            });
        }
        let at = self.pos;
        // A key that cannot be read says it was a key.
        let key = self
            .read_string()
            .map_err(|e| e.in_context("invalid object key"))?;
        self.skip_ws();
        match self.src.get(self.pos) {
            Some(b':') => {
                self.pos += 1;
                Ok(Some((at, key)))
            }
            None => Err(Error::eof().at_offset(self.pos)),
            Some(&b) => Err(self.err(format!(
                "invalid character {} after object key",
                describe_byte(b)
            ))),
        }
    }

    /// Skips one whole value, checking its syntax. `depth_left` bounds nesting.
    pub(crate) fn skip_value(&mut self, depth_left: usize) -> Result<()> {
        match self.peek()? {
            Peek::Null => self.read_null(),
            Peek::Bool => self.read_bool().map(|_| ()),
            Peek::Number => self.read_number().map(|_| ()),
            Peek::String => self.read_string().map(|_| ()),
            Peek::Array | Peek::Object if depth_left == 0 => {
                Err(Error::limit("JSON nesting exceeds the depth limit").at_offset(self.pos))
            }
            Peek::Array => {
                self.begin_array()?;
                let mut first = true;
                while self.next_element(first)? {
                    first = false;
                    self.skip_value(depth_left - 1)?;
                }
                Ok(())
            }
            Peek::Object => {
                self.begin_object()?;
                let mut first = true;
                while self.next_key(first)?.is_some() {
                    first = false;
                    self.skip_value(depth_left - 1)?;
                }
                Ok(())
            }
        }
    }

    /// Whether only whitespace remains.
    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.src.len()
    }
}

fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() || b == b' ' {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_borrowed_unless_escaped() {
        let mut r = Reader::new(br#" "plain" "e\u0301\n" "\ud83e\udd80" "\ud800x""#);
        assert!(matches!(r.read_string().unwrap(), Cow::Borrowed("plain")));
        assert_eq!(r.read_string().unwrap(), "e\u{301}\n");
        assert_eq!(r.read_string().unwrap(), "🦀");
        assert_eq!(r.read_string().unwrap(), "\u{fffd}x");
        assert!(r.at_end());
    }

    #[test]
    fn numbers_keep_their_text_and_follow_the_json_grammar() {
        let mut r = Reader::new(b"1.50 -0 1E+3");
        assert_eq!(r.read_number().unwrap(), "1.50");
        assert_eq!(r.read_number().unwrap(), "-0");
        assert_eq!(r.read_number().unwrap(), "1E+3");
        for bad in ["1.", "-", ".5", "1e"] {
            assert!(Reader::new(bad.as_bytes()).read_number().is_err(), "{bad}");
        }
    }

    #[test]
    fn trailing_commas_and_truncation_are_errors() {
        let mut r = Reader::new(b"[1,]");
        r.begin_array().unwrap();
        assert!(r.next_element(true).unwrap());
        r.read_number().unwrap();
        assert!(r.next_element(false).is_err());
        assert!(Reader::new(b"[1,2").skip_value(8).is_err());
        assert!(Reader::new(b"\"abc").read_string().is_err());
    }

    #[test]
    fn invalid_utf8_in_strings_is_refused() {
        assert!(Reader::new(b"\"a\xffb\"").read_string().is_err());
    }
}
