//! JSON → Value: the JSON reader the shared decoder ([`crate::decode`])
//! runs over, straight from the text.
//!
//! What JSON may send in place of what (go-cty's `json.Unmarshal`): a
//! string may come as a number or bool literal (its text is kept: `1.50`
//! stays `"1.50"`), a number as a string of its decimal text, a bool as a
//! string go-cty's conversion accepts (`"true"`, `"1"`, ...).

use std::borrow::Cow;

use super::read::{Peek, Reader};
use crate::convert::{bool_from_string, number_from_string};
use crate::decode::{self, DynamicStart, Key, Wire};
use crate::error::{Error, Result};
use crate::number::Number;
use crate::types::Type;
use crate::value::Value;
use crate::DecodeOptions;

pub(super) fn decode(text: &[u8], ty: &Type, opts: &DecodeOptions) -> Result<Value> {
    decode::decode(wire(text), text.len(), ty, opts)
}

/// The reader the shared decoder runs over `text`.
pub(super) fn wire(text: &[u8]) -> JsonWire<'_> {
    JsonWire {
        r: Reader::new(text),
        next: Peek::Null,
    }
}

/// The reader, and the kind of the value at hand: [`Wire::start`] looks
/// once, and every question about that value is answered from it.
pub(super) struct JsonWire<'a> {
    r: Reader<'a>,
    next: Peek,
}

impl<'a> Wire<'a> for JsonWire<'a> {
    const NAME: &'static str = "JSON";
    /// Whether the next element or member is the first.
    type Seq = bool;
    /// Where the wrapper ends, to carry on from there after its value.
    type DynamicEnd = usize;

    #[inline]
    fn start(&mut self) -> Result<usize> {
        self.next = self.r.peek()?;
        Ok(self.r.offset())
    }

    #[inline]
    fn remaining(&self) -> usize {
        self.r.len() - self.r.offset()
    }

    #[inline]
    fn trailing(&mut self) -> Option<(usize, usize)> {
        (!self.r.at_end()).then(|| (self.r.offset(), self.r.len() - self.r.offset()))
    }

    #[inline(always)]
    fn at_unknown(&mut self) -> bool {
        // JSON has no form for an unknown.
        false
    }

    fn unknown(&mut self, _: &Type, _: &DecodeOptions) -> Result<Value> {
        Err(Error::unrepresentable(
            "JSON has no form for an unknown value",
        ))
    }

    #[inline]
    fn null(&mut self) -> Result<bool> {
        if self.next == Peek::Null {
            self.r.read_null()?;
            return Ok(true);
        }
        Ok(false)
    }

    #[inline]
    fn string(&mut self) -> Result<Option<(Cow<'a, str>, bool)>> {
        let s: Cow<'a, str> = match self.next {
            Peek::String => self.r.read_string()?,
            // go-cty keeps a number's literal text.
            Peek::Number => self.r.read_number()?.into(),
            Peek::Bool => if self.r.read_bool()? { "true" } else { "false" }.into(),
            _ => return Ok(None),
        };
        let ascii = s.is_ascii();
        Ok(Some((s, ascii)))
    }

    #[inline]
    fn number(&mut self, max_exponent: u32) -> Result<Option<Number>> {
        let at = self.r.offset();
        let text = match self.next {
            Peek::Number => self.r.read_number()?.into(),
            Peek::String => self.r.read_string()?,
            _ => return Ok(None),
        };
        number_from_string(&text, max_exponent)
            .map(Some)
            .map_err(|e| e.at_offset(at))
    }

    #[inline]
    fn bool(&mut self) -> Result<Option<bool>> {
        let at = self.r.offset();
        match self.next {
            Peek::Bool => self.r.read_bool().map(Some),
            Peek::String => bool_from_string(&self.r.read_string()?)
                .map(Some)
                .map_err(|e| e.at_offset(at)),
            _ => Ok(None),
        }
    }

    #[inline]
    fn begin_array(&mut self) -> Result<Option<(bool, Option<usize>)>> {
        if self.next != Peek::Array {
            return Ok(None);
        }
        self.r.begin_array()?;
        Ok(Some((true, None)))
    }

    #[inline]
    fn next_element(&mut self, first: &mut bool) -> Result<bool> {
        let more = self.r.next_element(*first)?;
        *first = false;
        Ok(more)
    }

    #[inline]
    #[cfg(feature = "serde")]
    fn map_known_in_order(&mut self, depth_left: usize) -> bool {
        if self.next != Peek::Object {
            return false;
        }
        // Read ahead, then back to where the map starts.
        let start = self.r.offset();
        let r = &mut self.r;
        let mut scan = || -> Result<bool> {
            r.begin_object()?;
            let mut order = decode::KeyOrder::default();
            let mut first = true;
            while let Some((_, key)) = r.next_key(first)? {
                first = false;
                let ascii = key.is_ascii();
                order.see(&key, ascii);
                if !order.sorted {
                    return Ok(false);
                }
                r.skip_value(depth_left.saturating_sub(1))?;
            }
            Ok(true)
        };
        let in_order = scan().unwrap_or(false);
        self.r.seek(start);
        in_order
    }

    fn begin_map(&mut self) -> Result<Option<(bool, Option<usize>)>> {
        if self.next != Peek::Object {
            return Ok(None);
        }
        self.r.begin_object()?;
        Ok(Some((true, None)))
    }

    #[inline]
    fn next_key(
        &mut self,
        first: &mut bool,
        expected: Option<&str>,
    ) -> Result<Option<(usize, Key<'a>)>> {
        let Some((at, k)) = self.r.next_key(*first)? else {
            return Ok(None);
        };
        *first = false;
        if expected == Some(&*k) {
            return Ok(Some((at, Key::Expected)));
        }
        Ok(Some((at, Key::Text(k, false))))
    }

    /// `{"value": V, "type": T}` in any key order: the value is skipped to
    /// find the type (go-cty writes it second), then read from where it
    /// starts.
    #[inline]
    fn begin_dynamic(&mut self, depth_left: usize) -> Result<Option<DynamicStart<'a, usize>>> {
        let at = self.r.offset();
        if self.next != Peek::Object {
            return Err(Error::data(
                "a dynamic value must be an object with \"value\" and \"type\"",
            )
            .at_offset(at));
        }
        self.r.begin_object()?;
        let mut type_json: Option<(usize, &'a [u8])> = None;
        let mut value_at: Option<usize> = None;
        let mut first = true;
        while let Some((kat, k)) = self.r.next_key(first)? {
            first = false;
            let vat = self.start()?;
            self.r.skip_value(depth_left)?;
            match &*k {
                "type" => {
                    // A repeated "type": the last one counts, but go-cty
                    // parses every one, so an earlier invalid one is
                    // refused. Only this rare case parses here; the
                    // decoder parses (and caches) the one that counts,
                    // inside the wrapper: one level less left.
                    if let Some((pat, prev)) = type_json {
                        decode::dynamic_type(pat, prev, depth_left.saturating_sub(1))?;
                    }
                    type_json = Some((vat, self.r.slice(vat, self.r.offset())));
                }
                "value" => value_at = Some(vat),
                other => {
                    return Err(Error::data(format!(
                        "invalid key {other:?} in a dynamic value: only \"value\" and \"type\" belong there"
                    ))
                    .at_offset(kat))
                }
            }
        }
        let end = self.r.offset();
        let Some((tat, type_json)) = type_json else {
            return Err(Error::data("missing \"type\" in a dynamic value").at_offset(at));
        };
        let Some(vat) = value_at else {
            return Err(Error::data("missing \"value\" in a dynamic value").at_offset(at));
        };
        self.r.seek(vat);
        Ok(Some((tat, type_json, end)))
    }

    #[inline]
    fn end_dynamic(&mut self, end: usize) -> Result<()> {
        self.r.seek(end);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{json, Type, Value};

    #[inline]
    fn abc() -> Type {
        Type::parse(r#"["object",{"a":"number","b":"number","c":"number"}]"#).unwrap()
    }

    /// The attributes `a`, `b`, `c` as numbers, `None` for null.
    #[inline]
    fn attrs(text: &str) -> Vec<Option<i64>> {
        let v = json::decode(text.as_bytes(), &abc()).unwrap();
        v.attributes()
            .unwrap()
            .map(|(_, v)| v.as_number().and_then(|n| n.to_i64()))
            .collect()
    }

    #[test]
    #[inline]
    fn object_keys_may_come_in_any_order_and_be_left_out() {
        assert_eq!(attrs(r#"{"a":1,"b":2,"c":3}"#), [Some(1), Some(2), Some(3)]);
        assert_eq!(attrs(r#"{"c":3,"a":1,"b":2}"#), [Some(1), Some(2), Some(3)]);
        assert_eq!(attrs(r#"{"a":1,"b":2}"#), [Some(1), Some(2), None]);
        assert_eq!(attrs(r#"{"a":1,"c":3}"#), [Some(1), None, Some(3)]);
        assert_eq!(attrs(r#"{"b":2}"#), [None, Some(2), None]);
    }

    #[test]
    #[inline]
    fn a_repeated_attribute_keeps_its_last_value() {
        assert_eq!(attrs(r#"{"a":1,"a":4}"#), [Some(4), None, None]);
        assert_eq!(
            attrs(r#"{"a":1,"b":2,"c":3,"a":4}"#),
            [Some(4), Some(2), Some(3)]
        );
        assert_eq!(
            attrs(r#"{"a":1,"b":2,"b":5,"c":3}"#),
            [Some(1), Some(5), Some(3)]
        );
    }

    #[test]
    #[inline]
    fn an_unknown_attribute_is_refused_wherever_it_comes() {
        for text in [
            r#"{"d":1}"#,
            r#"{"a":1,"b":2,"c":3,"d":4}"#,
            r#"{"b":1,"d":2}"#,
        ] {
            let err = json::decode(text.as_bytes(), &abc()).unwrap_err();
            assert_eq!(err.message(), r#"unsupported attribute "d""#, "{text}");
        }
    }

    #[test]
    #[inline]
    fn broken_utf8_is_reported_inside_the_string_that_holds_it() {
        let ty = Type::list(Type::String);
        let err = json::decode(b"[\"ok\", \"ab\xffc\"]", &ty).unwrap_err();
        assert_eq!(err.message(), "string is not valid UTF-8");
        assert_eq!(err.offset(), Some(10));
        assert_eq!(err.path().to_string(), "[1]");
        let fine = json::decode("[\"ok\", \"ab\u{e9}c\"]".as_bytes(), &ty).unwrap();
        assert_eq!(fine.elements().unwrap()[1], Value::string("ab\u{e9}c"));
    }
}
