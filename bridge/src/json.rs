//! A plain JSON document whose numbers keep their exact text.
//!
//! Why not `serde_json::Value`: keeping numbers exact there takes its
//! `arbitrary_precision` feature, and Cargo turns a feature on for the whole
//! program. That feature (and `preserve_order`) changes how every other
//! crate's serde_json behaves: internally tagged and untagged enums stop
//! reading floats, `json!` output changes order. [`Json`] gets the same
//! exactness without touching anyone's serde_json: it is parsed by
//! ctywire's own reader (bounded depth and size, no recursion limit of 128)
//! and written by a compact writer of its own.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use ctywire::__private::{Peek, Reader};
use ctywire::DecodeOptions;
use ctywire::Number;
use ctywire::PathStep;
use ctywire::{Error, Result};

/// A JSON number, kept as the decimal text it was written as (validated
/// against the JSON grammar): `1.50` stays `1.50`, `9007199254740993` is
/// not rounded through `f64`.
///
/// Two numbers are equal when their texts are (`1.0` and `1` differ); use
/// [`to_number`](Self::to_number) to compare values.
///
/// ```
/// use ctywire_bridge::JsonNumber;
/// let n: JsonNumber = "9007199254740993".parse()?;
/// assert_eq!(n.as_u64(), Some(9007199254740993));
/// assert_eq!(n.as_f64(), Some(9007199254740992.0)); // the nearest f64
/// assert_eq!(JsonNumber::from(-3i32).as_str(), "-3");
/// assert!("1.".parse::<JsonNumber>().is_err());
/// # Ok::<(), ctywire::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct JsonNumber(Box<str>);

impl JsonNumber {
    /// The number's text, exactly as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the text is an integer (no fraction or exponent part).
    fn is_integer_text(&self) -> bool {
        !self.0.contains(['.', 'e', 'E'])
    }

    /// The number as an `i64`, if it is written as an integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        self.is_integer_text()
            .then(|| self.0.parse().ok())
            .flatten()
    }

    /// The number as a `u64`, if it is written as a non-negative integer in
    /// range.
    pub fn as_u64(&self) -> Option<u64> {
        // "-0" is an integer but not a u64 text; it is zero all the same.
        if &*self.0 == "-0" {
            return Some(0);
        }
        self.is_integer_text()
            .then(|| self.0.parse().ok())
            .flatten()
    }

    /// The nearest `f64`, or `None` when the number is beyond `f64`'s range
    /// (`1e400`).
    pub fn as_f64(&self) -> Option<f64> {
        self.0.parse::<f64>().ok().filter(|f| f.is_finite())
    }

    /// The number as the serde primitive that holds it best, for formats
    /// without exact numbers: an integer when it is one in range, else the
    /// nearest `f64`, else (beyond `f64`'s range) nothing. `-0` is the
    /// float `-0.0`, as serde_json reads it.
    pub(crate) fn to_primitive(&self) -> Option<Primitive> {
        if &*self.0 != "-0" {
            if let Some(u) = self.as_u64() {
                return Some(Primitive::U64(u));
            }
            if let Some(i) = self.as_i64() {
                return Some(Primitive::I64(i));
            }
        }
        self.as_f64().map(Primitive::F64)
    }

    /// A finite `f64` as JSON, in its shortest round-tripping form; NaN and
    /// the infinities have none.
    pub fn from_f64(f: f64) -> Option<JsonNumber> {
        if !f.is_finite() {
            return None;
        }
        // Debug is Rust's shortest round-trip form, and always JSON number
        // syntax for finite values ("1.0", "1e300", "-0.0", "5e-324").
        Some(JsonNumber(format!("{f:?}").into()))
    }

    /// The exact cty number.
    pub fn to_number(&self) -> Result<Number> {
        Number::parse(&self.0)
    }

    /// Checks `text` against the JSON number grammar.
    pub fn parse(text: &str) -> Result<JsonNumber> {
        let mut r = Reader::new(text.as_bytes());
        let n = r.read_number()?;
        if n.len() != text.len() {
            return Err(Error::syntax(format!("{text:?} is not a JSON number")).at_offset(n.len()));
        }
        Ok(JsonNumber(text.into()))
    }

    /// Text the reader has already checked.
    pub(crate) fn from_checked(text: &str) -> JsonNumber {
        JsonNumber(text.into())
    }
}

/// See [`JsonNumber::to_primitive`].
pub(crate) enum Primitive {
    U64(u64),
    I64(i64),
    F64(f64),
}

impl FromStr for JsonNumber {
    type Err = Error;
    fn from_str(s: &str) -> Result<JsonNumber> {
        JsonNumber::parse(s)
    }
}

impl fmt::Display for JsonNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for JsonNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JsonNumber({})", self.0)
    }
}

macro_rules! number_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for JsonNumber {
            fn from(v: $t) -> JsonNumber { JsonNumber(v.to_string().into()) }
        }
        impl From<$t> for Json {
            fn from(v: $t) -> Json { Json::Number(v.into()) }
        }
    )*};
}
number_from_int!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl TryFrom<&Number> for JsonNumber {
    type Error = Error;
    /// A cty number's exact decimal text. Infinity has no JSON form.
    fn try_from(n: &Number) -> Result<JsonNumber> {
        if n.is_infinite() {
            return Err(Error::unrepresentable("infinity has no JSON form"));
        }
        // Number's text is plain decimal ("-12.5", never an exponent),
        // which is JSON number syntax.
        JsonNumber::parse(&n.to_string())
    }
}

impl TryFrom<&JsonNumber> for Number {
    type Error = Error;
    fn try_from(n: &JsonNumber) -> Result<Number> {
        n.to_number()
    }
}

/// The members of a JSON object, in the order they were written or
/// inserted, with lookup by key. A key written twice keeps its first
/// position and its last value (as Go's and serde_json's decoders do).
///
/// Equality ignores order: `{"a":1,"b":2}` equals `{"b":2,"a":1}`.
#[derive(Clone, Default)]
pub struct Object {
    entries: Vec<(String, Json)>,
    /// Positions by key, once the object is large enough that a linear
    /// scan per lookup would make reading it quadratic.
    index: Option<HashMap<String, usize>>,
}

/// Objects up to this size are searched linearly: cheaper than hashing.
const INDEX_FROM: usize = 16;

impl Object {
    /// An empty object.
    pub fn new() -> Object {
        Object::default()
    }

    /// How many members.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(ix) => ix.get(key).copied(),
            None => self.entries.iter().position(|(k, _)| k == key),
        }
    }

    /// The value of member `key`.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.position(key).map(|i| &self.entries[i].1)
    }

    /// The value of member `key`, to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        self.position(key).map(|i| &mut self.entries[i].1)
    }

    /// Whether there is a member `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets member `key`: a new key goes last, an existing one keeps its
    /// place. Returns the value it replaces.
    pub fn insert(&mut self, key: impl Into<String>, value: Json) -> Option<Json> {
        let key = key.into();
        if let Some(i) = self.position(&key) {
            return Some(std::mem::replace(&mut self.entries[i].1, value));
        }
        if let Some(ix) = &mut self.index {
            ix.insert(key.clone(), self.entries.len());
        } else if self.entries.len() + 1 > INDEX_FROM {
            let mut ix: HashMap<String, usize> = self
                .entries
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.clone(), i))
                .collect();
            ix.insert(key.clone(), self.entries.len());
            self.index = Some(ix);
        }
        self.entries.push((key, value));
        None
    }

    /// The members in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Json)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }
}

impl PartialEq for Object {
    fn eq(&self, other: &Object) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl fmt::Debug for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Into<String>> FromIterator<(K, Json)> for Object {
    fn from_iter<I: IntoIterator<Item = (K, Json)>>(iter: I) -> Object {
        let mut o = Object::new();
        for (k, v) in iter {
            o.insert(k, v);
        }
        o
    }
}

impl IntoIterator for Object {
    type Item = (String, Json);
    type IntoIter = std::vec::IntoIter<(String, Json)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a> IntoIterator for &'a Object {
    type Item = (&'a str, &'a Json);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, Json)>,
        fn(&'a (String, Json)) -> (&'a str, &'a Json),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }
}

/// A JSON document with exact numbers and ordered objects: what props,
/// states and JSON-RPC messages are made of.
///
/// Parse it with [`Json::parse`] (or `str::parse`); its `Display` form is
/// compact JSON. Indexing with a missing key or position yields `Null`,
/// as in serde_json.
///
/// **With serde**, `Json` and [`JsonNumber`] keep numbers exact through
/// ctywire's own [`to_json`](crate::to_json) and
/// [`from_json`](crate::from_json), so a `Json` field of a message type
/// passes through untouched. Through any other format (serde_json without
/// `arbitrary_precision`, YAML, ...) a number becomes the serde primitive
/// nearest to it: `u64` or `i64` when it is an integer in range, else the
/// nearest `f64` (`-0` is `-0.0`), else, beyond `f64`'s range (`1e400`),
/// its text as a string. Reading `Json` from another format takes that
/// format's numbers as they come. Inside an internally tagged or untagged
/// enum, serde buffers the input, so a `Json` there gets `f64`s as well.
///
/// ```
/// use ctywire_bridge::Json;
/// let doc: Json = r#"{"b": [1.50, 9007199254740993], "a": "x\n"}"#.parse()?;
/// assert_eq!(doc["b"][1].as_u64(), Some(9007199254740993));
/// assert_eq!(doc["a"], "x\n");
/// assert!(doc["missing"].is_null());
/// assert_eq!(doc.to_string(), r#"{"b":[1.50,9007199254740993],"a":"x\n"}"#);
/// # Ok::<(), ctywire::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Json {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, exactly as written.
    Number(JsonNumber),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, in order.
    Object(Object),
}

static NULL: Json = Json::Null;

impl Json {
    /// Parses JSON text with the default limits ([`DecodeOptions::new`]:
    /// nesting up to 256, 256 MiB of input).
    pub fn parse(text: &str) -> Result<Json> {
        Json::parse_with(text.as_bytes(), &DecodeOptions::default())
    }

    /// Parses JSON text with explicit limits: depth, input length and
    /// collection length. Errors carry the path and byte offset.
    ///
    /// ```
    /// use ctywire::{Category, DecodeOptions};
    /// use ctywire_bridge::Json;
    /// let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    /// assert_eq!(Json::parse(&deep).unwrap_err().category(), Category::Limit);
    /// assert!(Json::parse_with(deep.as_bytes(), &DecodeOptions::new().max_depth(300)).is_ok());
    /// let err = Json::parse(r#"{"a":[1,tru]}"#).unwrap_err();
    /// // The offset is the character that breaks the literal.
    /// assert_eq!((err.path().to_string().as_str(), err.offset()), (r#"["a"][1]"#, Some(11)));
    /// ```
    pub fn parse_with(text: &[u8], opts: &DecodeOptions) -> Result<Json> {
        opts.check_input_len(text.len())?;
        let mut r = Reader::new(text);
        let doc = read_value(&mut r, opts, 0)?;
        if !r.at_end() {
            return Err(
                Error::syntax("invalid character after top-level value").at_offset(r.offset())
            );
        }
        Ok(doc)
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    /// The bool, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<&JsonNumber> {
        match self {
            Json::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The number as an `i64` ([`JsonNumber::as_i64`]).
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(JsonNumber::as_i64)
    }

    /// The number as a `u64` ([`JsonNumber::as_u64`]).
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(JsonNumber::as_u64)
    }

    /// The number as the nearest `f64` ([`JsonNumber::as_f64`]).
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(JsonNumber::as_f64)
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&Vec<Json>> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    /// Member `key`, if this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.as_object().and_then(|o| o.get(key))
    }

    /// A short description of the kind of value (`"an array"`), for
    /// error messages that must not quote the value.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a bool",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }

    /// The JSON text indented by two spaces per level, one member or
    /// element per line (as `serde_json::to_string_pretty` lays it out),
    /// for people to read.
    ///
    /// ```
    /// let doc = ctywire_bridge::Json::parse(r#"{"a":[1,{}],"b":[]}"#)?;
    /// assert_eq!(doc.to_string_pretty(), "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": []\n}");
    /// # Ok::<(), ctywire::Error>(())
    /// ```
    pub fn to_string_pretty(&self) -> String {
        let mut out = Vec::with_capacity(64);
        self.write(&mut out, Some(0));
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Appends the compact JSON text to `out`.
    pub fn write_into(&self, out: &mut Vec<u8>) {
        self.write(out, None);
    }

    /// Writes compactly (`level` is `None`) or indented, at nesting `level`.
    fn write(&self, out: &mut Vec<u8>, level: Option<usize>) {
        let (open, close, len) = match self {
            Json::Null => return out.extend_from_slice(b"null"),
            Json::Bool(true) => return out.extend_from_slice(b"true"),
            Json::Bool(false) => return out.extend_from_slice(b"false"),
            Json::Number(n) => return out.extend_from_slice(n.as_str().as_bytes()),
            Json::String(s) => return quote_into(out, s),
            Json::Array(items) => (b'[', b']', items.len()),
            Json::Object(o) => (b'{', b'}', o.len()),
        };
        let newline = |out: &mut Vec<u8>, level: Option<usize>| {
            if let Some(level) = level {
                out.push(b'\n');
                out.resize(out.len() + 2 * level, b' ');
            }
        };
        let inner = level.map(|l| l + 1);
        out.push(open);
        for i in 0..len {
            if i > 0 {
                out.push(b',');
            }
            newline(out, inner);
            match self {
                Json::Array(items) => items[i].write(out, inner),
                Json::Object(o) => {
                    let (k, v) = &o.entries[i];
                    quote_into(out, k);
                    out.extend_from_slice(if level.is_some() { b": " } else { b":" });
                    v.write(out, inner);
                }
                _ => {}
            }
        }
        if len > 0 {
            newline(out, level);
        }
        out.push(close);
    }

    /// The compact JSON text as bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64);
        self.write_into(&mut out);
        out
    }
}

/// Appends `s` as a JSON string, escaping only what JSON requires (quote,
/// backslash, control characters): the same text serde_json writes, so
/// output does not change for anyone moving from it. (Go's HTML-safe
/// escaping of `<`, `>`, `&` is for the cty JSON encoding, not here.)
pub(crate) fn quote_into(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if short.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(short);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

fn read_value(r: &mut Reader<'_>, opts: &DecodeOptions, depth: usize) -> Result<Json> {
    let at = r.offset();
    match r.peek()? {
        Peek::Null => r.read_null().map(|_| Json::Null),
        Peek::Bool => r.read_bool().map(Json::Bool),
        Peek::Number => r
            .read_number()
            .map(|t| Json::Number(JsonNumber::from_checked(t))),
        Peek::String => r.read_string().map(|s| Json::String(s.into_owned())),
        Peek::Array => {
            opts.check_depth(depth + 1).map_err(|e| e.at_offset(at))?;
            r.begin_array()?;
            let mut items = Vec::new();
            while r.next_element(items.is_empty())? {
                opts.check_collection_len(items.len() as u64 + 1)
                    .map_err(|e| e.at_offset(r.offset()))?;
                let step = PathStep::Index(items.len() as u64);
                items.push(read_value(r, opts, depth + 1).map_err(|e| e.under(step))?);
            }
            Ok(Json::Array(items))
        }
        Peek::Object => {
            opts.check_depth(depth + 1).map_err(|e| e.at_offset(at))?;
            r.begin_object()?;
            let mut o = Object::new();
            let mut first = true;
            while let Some((_, key)) = r.next_key(first)? {
                first = false;
                opts.check_collection_len(o.len() as u64 + 1)
                    .map_err(|e| e.at_offset(r.offset()))?;
                let v = read_value(r, opts, depth + 1)
                    .map_err(|e| e.under(PathStep::Key(key.to_string())))?;
                o.insert(key.into_owned(), v);
            }
            Ok(Json::Object(o))
        }
    }
}

impl FromStr for Json {
    type Err = Error;
    fn from_str(s: &str) -> Result<Json> {
        Json::parse(s)
    }
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The writer emits valid UTF-8 only: it copies whole strings and
        // ASCII escapes.
        f.write_str(&String::from_utf8_lossy(&self.to_vec()))
    }
}

impl std::ops::Index<&str> for Json {
    type Output = Json;
    fn index(&self, key: &str) -> &Json {
        self.get(key).unwrap_or(&NULL)
    }
}

impl std::ops::Index<usize> for Json {
    type Output = Json;
    fn index(&self, i: usize) -> &Json {
        self.as_array().and_then(|a| a.get(i)).unwrap_or(&NULL)
    }
}

impl PartialEq<str> for Json {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Json {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<bool> for Json {
    fn eq(&self, other: &bool) -> bool {
        self.as_bool() == Some(*other)
    }
}

impl From<bool> for Json {
    fn from(b: bool) -> Json {
        Json::Bool(b)
    }
}

impl From<&str> for Json {
    fn from(s: &str) -> Json {
        Json::String(s.to_string())
    }
}

impl From<String> for Json {
    fn from(s: String) -> Json {
        Json::String(s)
    }
}

impl From<JsonNumber> for Json {
    fn from(n: JsonNumber) -> Json {
        Json::Number(n)
    }
}

impl From<Vec<Json>> for Json {
    fn from(items: Vec<Json>) -> Json {
        Json::Array(items)
    }
}

impl From<Object> for Json {
    fn from(o: Object) -> Json {
        Json::Object(o)
    }
}

impl<T: Into<Json>> From<Option<T>> for Json {
    fn from(o: Option<T>) -> Json {
        o.map_or(Json::Null, Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_their_text_through_parse_and_write() {
        let text = r#"[1.50,-0,1E+3,123456789012345678901234567890,1e400]"#;
        assert_eq!(Json::parse(text).unwrap().to_string(), text);
    }

    #[test]
    fn strings_escape_only_what_json_requires() {
        let j = Json::from("<a&b>\"\\\n\t\x01\x7fé🦀");
        assert_eq!(j.to_string(), "\"<a&b>\\\"\\\\\\n\\t\\u0001\x7fé🦀\"");
        assert_eq!(Json::parse(&j.to_string()).unwrap(), j);
    }

    #[test]
    fn objects_keep_order_and_the_last_of_a_repeated_key() {
        let j = Json::parse(r#"{"b":1,"a":2,"b":3}"#).unwrap();
        assert_eq!(j.to_string(), r#"{"b":3,"a":2}"#);
        assert_eq!(j, Json::parse(r#"{"a":2,"b":3}"#).unwrap());
    }

    #[test]
    fn large_objects_are_indexed_and_still_ordered() {
        let mut o = Object::new();
        for i in (0..100).rev() {
            o.insert(format!("k{i}"), Json::from(i));
        }
        assert_eq!(o.insert("k5", Json::Null), Some(Json::from(5)));
        assert_eq!(o.get("k7"), Some(&Json::from(7)));
        assert_eq!(o.keys().next(), Some("k99"));
        assert_eq!(o.len(), 100);
        assert!(o.get("k100").is_none());
    }

    #[test]
    fn bad_input_is_an_error_with_an_offset_never_a_panic() {
        for bad in [
            "", "[", "{\"a\"", "{\"a\":}", "[1,]", "01", "1 2", "nul", "\"\\x\"", "{1:2}",
        ] {
            let err = Json::parse(bad).unwrap_err();
            assert!(err.offset().is_some(), "{bad:?}: {err:?}");
        }
        assert!(Json::parse_with(b"\"a\xffb\"", &DecodeOptions::new()).is_err());
    }

    #[test]
    fn limits_bound_depth_length_and_size() {
        let opts = DecodeOptions::new().max_collection_len(2);
        assert!(Json::parse_with(b"[1,2]", &opts).is_ok());
        assert!(Json::parse_with(b"[1,2,3]", &opts).is_err());
        assert!(Json::parse_with(br#"{"a":1,"b":2,"c":3}"#, &opts).is_err());
        let opts = DecodeOptions::new().max_input_len(3);
        assert!(Json::parse_with(b"[1,2]", &opts).is_err());
        let deep = format!("{}{}", "[".repeat(256), "]".repeat(256));
        assert!(Json::parse(&deep).is_ok());
        let deeper = format!("{}{}", "[".repeat(257), "]".repeat(257));
        assert!(Json::parse(&deeper).is_err());
    }

    #[test]
    fn number_conversions_are_exact_or_refused() {
        let n = JsonNumber::parse("18446744073709551616").unwrap();
        assert_eq!((n.as_u64(), n.as_i64()), (None, None));
        assert_eq!(n.to_number().unwrap().to_string(), "18446744073709551616");
        assert_eq!(JsonNumber::parse("1.0").unwrap().as_i64(), None);
        assert_eq!(JsonNumber::parse("-0").unwrap().as_u64(), Some(0));
        assert_eq!(JsonNumber::parse("1e400").unwrap().as_f64(), None);
        assert_eq!(JsonNumber::from_f64(2.5).unwrap().as_str(), "2.5");
        assert!(JsonNumber::from_f64(f64::NAN).is_none());
        let big: Number = "1e30".parse().unwrap();
        let j = JsonNumber::try_from(&big).unwrap();
        assert_eq!(j.as_str(), "1000000000000000000000000000000");
        assert!(JsonNumber::try_from(&Number::infinity(true)).is_err());
        for bad in ["", "+1", "1.", ".5", "0x1", "1 "] {
            assert!(JsonNumber::parse(bad).is_err(), "{bad:?}");
        }
    }
}
