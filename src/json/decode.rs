//! JSON → Value, straight from the text, driven by the type.

use compact_str::CompactString;
use thin_vec::ThinVec;

use super::read::{Peek, Reader};
use crate::error::{Error, Result};
use crate::number::Number;
use crate::path::PathStep;
use crate::strings::nfc;
use crate::types::{ObjectType, Type};
use crate::value::{self, Repr, Value};
use crate::DecodeOptions;

pub(super) fn decode(text: &[u8], ty: &Type, opts: &DecodeOptions) -> Result<Value> {
    opts.check_input_len(text.len())?;
    let mut d = Decoder {
        r: Reader::new(text),
        src: text,
        depth: 0,
        opts,
        elements: Vec::new(),
        entries: Vec::new(),
    };
    let v = d.value(ty)?;
    if !d.r.at_end() {
        return Err(Error::syntax("trailing data after the JSON value").at_offset(d.r.offset()));
    }
    Ok(v)
}

struct Decoder<'a, 'o> {
    r: Reader<'a>,
    src: &'a [u8],
    depth: usize,
    opts: &'o DecodeOptions,
    /// Elements and map entries read so far, for every list and map being
    /// read, innermost last. JSON gives no count up front: gathering here
    /// and then moving them out at once gives each collection one
    /// allocation of its exact size instead of a growing one.
    elements: Vec<Value>,
    entries: Vec<(CompactString, Value)>,
}

impl Decoder<'_, '_> {
    fn err(&self, at: usize, msg: impl Into<std::borrow::Cow<'static, str>>) -> Error {
        Error::data(msg).at_offset(at)
    }

    fn enter(&mut self, at: usize) -> Result<()> {
        self.depth += 1;
        self.opts
            .check_depth(self.depth)
            .map_err(|e| e.at_offset(at))
    }

    fn value(&mut self, ty: &Type) -> Result<Value> {
        let kind = self.r.peek()?;
        let at = self.r.offset();
        if kind == Peek::Null {
            self.r.read_null()?;
            return Ok(Value::null(ty.clone()));
        }
        match ty {
            Type::String => {
                let s = match kind {
                    Peek::String => self.r.read_string()?,
                    // go-cty keeps a number's literal text.
                    Peek::Number => self.r.read_number()?.into(),
                    Peek::Bool => if self.r.read_bool()? { "true" } else { "false" }.into(),
                    _ => return Err(self.err(at, "string is required")),
                };
                Ok(Value::from_repr(Repr::String(CompactString::from(nfc(&s)))))
            }
            Type::Number => {
                let text = match kind {
                    Peek::Number => self.r.read_number()?.into(),
                    Peek::String => self.r.read_string()?,
                    _ => return Err(self.err(at, "number is required")),
                };
                let n = Number::parse_with_limit(&text, self.opts.max_number_exponent)
                    .map_err(|e| e.at_offset(at))?;
                Ok(Value::from_repr(Repr::Number(n)))
            }
            Type::Bool => {
                let b = match kind {
                    Peek::Bool => self.r.read_bool()?,
                    Peek::String => match &*self.r.read_string()? {
                        "true" | "1" => true,
                        "false" | "0" => false,
                        other if other.eq_ignore_ascii_case("true") || other.eq_ignore_ascii_case("false") => {
                            return Err(self.err(
                                at,
                                format!(
                                    "a bool is required; to convert from string, use lowercase \"{}\"",
                                    other.to_ascii_lowercase()
                                ),
                            ))
                        }
                        _ => return Err(self.err(at, "a bool is required")),
                    },
                    _ => return Err(self.err(at, "bool is required")),
                };
                Ok(Value::from_repr(Repr::Bool(b)))
            }
            Type::List(ety) | Type::Set(ety) => self.list_or_set(ty, ety, kind, at),
            Type::Map(ety) => self.map(ty, ety, kind, at),
            Type::Object(oty) => self.object(ty, oty, kind, at),
            Type::Tuple(etys) => self.tuple(ty, etys, kind, at),
            Type::Dynamic => self.dynamic(kind, at),
        }
    }

    // One function per kind, so that each level of nesting costs only the
    // small frames on its path (debug builds do not merge them).

    fn list_or_set(&mut self, ty: &Type, ety: &Type, kind: Peek, at: usize) -> Result<Value> {
        let is_set = matches!(ty, Type::Set(_));
        if kind != Peek::Array {
            return Err(self.err(at, "missing expected ["));
        }
        self.enter(at)?;
        self.r.begin_array()?;
        let base = self.elements.len();
        let mut first = true;
        while self.r.next_element(first)? {
            first = false;
            let i = self.elements.len() - base;
            self.opts
                .check_collection_len(i as u64 + 1)
                .map_err(|e| e.at_offset(at))?;
            let v = self
                .value(ety)
                .map_err(|e| e.under(PathStep::Index(i as u64)))?;
            self.elements.push(v);
        }
        self.depth -= 1;
        let elems: Vec<Value> = self.elements.drain(base..).collect();
        value::decoded_list_or_set(ty, ety, elems, is_set).map_err(|e| e.at_offset(at))
    }

    fn map(&mut self, ty: &Type, ety: &Type, kind: Peek, at: usize) -> Result<Value> {
        if kind != Peek::Object {
            return Err(self.err(at, "missing expected {"));
        }
        self.enter(at)?;
        self.r.begin_object()?;
        let base = self.entries.len();
        let mut first = true;
        while let Some(k) = self.r.next_key(first)? {
            first = false;
            self.opts
                .check_collection_len((self.entries.len() - base) as u64 + 1)
                .map_err(|e| e.at_offset(at))?;
            let v = self
                .value(ety)
                .map_err(|e| e.under(PathStep::Key(k.to_string())))?;
            self.entries.push((CompactString::from(nfc(&k)), v));
        }
        self.depth -= 1;
        let mut entries = ThinVec::with_capacity(self.entries.len() - base);
        entries.extend(self.entries.drain(base..));
        value::decoded_map(ty, ety, entries).map_err(|e| e.at_offset(at))
    }

    fn object(&mut self, ty: &Type, oty: &ObjectType, kind: Peek, at: usize) -> Result<Value> {
        if kind != Peek::Object {
            return Err(self.err(at, "missing expected {"));
        }
        self.enter(at)?;
        self.r.begin_object()?;
        let n = oty.len();
        let mut vals: Vec<Value> = Vec::with_capacity(n);
        // go-cty writes attributes in the type's (sorted) order, so while
        // the keys keep to it each value goes straight into place; slots
        // are only needed once they do not.
        let mut slots: Option<Vec<Option<Value>>> = None;
        let mut first = true;
        while let Some(k) = self.r.next_key(first)? {
            first = false;
            let next = vals.len();
            let idx = if slots.is_none() && next < n && oty.name(next) == &*k {
                next
            } else {
                oty.index_of(&k)
                    .ok_or_else(|| self.err(at, format!("unsupported attribute {:?}", &*k)))?
            };
            let v = self
                .value(oty.type_at(idx))
                .map_err(|e| e.under(PathStep::Attr(k.to_string())))?;
            match &mut slots {
                None if idx == next => vals.push(v),
                // A repeated attribute: the last one wins, as in go-cty.
                Some(slots) => slots[idx] = Some(v),
                None => {
                    let mut s: Vec<Option<Value>> = vals.drain(..).map(Some).collect();
                    s.resize_with(n, || None);
                    s[idx] = Some(v);
                    slots = Some(s);
                }
            }
        }
        self.depth -= 1;
        // Attributes left out are null.
        let null_at = |i: usize| Value::null(oty.type_at(i).clone());
        let vals: Vec<Value> = match slots {
            None => {
                let given = vals.len();
                vals.extend((given..n).map(null_at));
                vals
            }
            Some(slots) => slots
                .into_iter()
                .enumerate()
                .map(|(i, v)| v.unwrap_or_else(|| null_at(i)))
                .collect(),
        };
        Ok(value::decoded_object(ty, oty, vals))
    }

    fn tuple(&mut self, ty: &Type, etys: &[Type], kind: Peek, at: usize) -> Result<Value> {
        if kind != Peek::Array {
            return Err(self.err(at, "missing expected ["));
        }
        self.enter(at)?;
        self.r.begin_array()?;
        let mut elems = Vec::with_capacity(etys.len());
        let mut first = true;
        while self.r.next_element(first)? {
            first = false;
            let i = elems.len();
            let Some(ety) = etys.get(i) else {
                return Err(self.err(at, format!("too many tuple elements (need {})", etys.len())));
            };
            elems.push(
                self.value(ety)
                    .map_err(|e| e.under(PathStep::Index(i as u64)))?,
            );
        }
        if elems.len() != etys.len() {
            return Err(self.err(
                at,
                format!("not enough tuple elements (need {})", etys.len()),
            ));
        }
        self.depth -= 1;
        Ok(value::decoded_tuple(ty, elems))
    }

    /// `{"value": V, "type": T}` in any key order.
    fn dynamic(&mut self, kind: Peek, at: usize) -> Result<Value> {
        if kind != Peek::Object {
            return Err(self.err(at, "missing expected {"));
        }
        self.enter(at)?;
        self.r.begin_object()?;
        let mut ty: Option<Type> = None;
        let mut value_at: Option<usize> = None;
        let mut first = true;
        while let Some(k) = self.r.next_key(first)? {
            first = false;
            match &*k {
                "type" => {
                    let tat = self.r.offset();
                    self.r
                        .skip_value(self.opts.max_depth.saturating_sub(self.depth))?;
                    let raw = &self.src[tat..self.r.offset()];
                    let limit = self.opts.max_depth.saturating_sub(self.depth);
                    let t = Type::parse_bytes(raw, limit).map_err(|e| {
                        Error::new(
                            e.category(),
                            format!("failed to decode type for dynamic value: {}", e.message()),
                        )
                        .at_offset(tat)
                    })?;
                    ty = Some(t);
                }
                "value" => {
                    let vat = self.r.offset();
                    self.r
                        .skip_value(self.opts.max_depth.saturating_sub(self.depth))?;
                    value_at = Some(vat);
                }
                other => {
                    return Err(self.err(
                        at,
                        format!("invalid key {other:?} in dynamically-typed value"),
                    ));
                }
            }
        }
        let end = self.r.offset();
        let Some(ty) = ty else {
            return Err(self.err(at, "missing type in dynamically-typed value"));
        };
        let Some(vat) = value_at else {
            return Err(self.err(at, "missing value in dynamically-typed value"));
        };
        // Decode the value now that its type is known, then carry on after
        // the wrapper.
        self.r.seek(vat);
        let v = self.value(&ty);
        self.r.seek(end);
        self.depth -= 1;
        v
    }
}

#[cfg(test)]
mod tests {
    use crate::{json, Type, Value};

    fn abc() -> Type {
        Type::parse(r#"["object",{"a":"number","b":"number","c":"number"}]"#).unwrap()
    }

    /// The attributes `a`, `b`, `c` as numbers, `None` for null.
    fn attrs(text: &str) -> Vec<Option<i64>> {
        let v = json::decode(text.as_bytes(), &abc()).unwrap();
        v.attributes()
            .unwrap()
            .map(|(_, v)| v.as_number().and_then(|n| n.to_i64()))
            .collect()
    }

    #[test]
    fn object_keys_may_come_in_any_order_and_be_left_out() {
        assert_eq!(attrs(r#"{"a":1,"b":2,"c":3}"#), [Some(1), Some(2), Some(3)]);
        assert_eq!(attrs(r#"{"c":3,"a":1,"b":2}"#), [Some(1), Some(2), Some(3)]);
        assert_eq!(attrs(r#"{"a":1,"b":2}"#), [Some(1), Some(2), None]);
        assert_eq!(attrs(r#"{"a":1,"c":3}"#), [Some(1), None, Some(3)]);
        assert_eq!(attrs(r#"{"b":2}"#), [None, Some(2), None]);
    }

    #[test]
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
