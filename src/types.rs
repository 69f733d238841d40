//! cty types and their JSON form (the "type constraint" JSON that appears in
//! schemas, in dynamic-value wrappers and in `providers schema -json`).
//!
//! | type | JSON |
//! |---|---|
//! | string / number / bool / dynamic | `"string"` / `"number"` / `"bool"` / `"dynamic"` |
//! | list(T) / set(T) / map(T) | `["list",T]` / `["set",T]` / `["map",T]` |
//! | object | `["object",{"a":T}]`, or `["object",{"a":T},["a"]]` with optional attributes |
//! | tuple | `["tuple",[T,U]]` |
//!
//! Output is compact, object keys and optional names sorted bytewise, and
//! strings escaped as Go's `encoding/json` does (`<` → `\u003c`), because the
//! type JSON is embedded in msgpack dynamic wrappers and must match go-cty
//! byte for byte.

use std::fmt;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::gostr;
use crate::json::read::{Peek, Reader};
use crate::path::{Path, PathStep};
use crate::strings::nfc;
use crate::DEFAULT_MAX_DEPTH;

/// A cty type.
///
/// Collection and structural types share their parts through `Arc`, so
/// cloning a type is cheap.
///
/// ```
/// use ctywire::Type;
/// let ty = Type::parse(r#"["object",{"name":"string","tags":["map","string"]},["tags"]]"#)?;
/// assert_eq!(ty.attribute_type("tags"), Some(&Type::map(Type::String)));
/// assert_eq!(ty.to_json(), r#"["object",{"name":"string","tags":["map","string"]},["tags"]]"#);
/// # Ok::<(), ctywire::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// A Unicode string (always NFC-normalized).
    String,
    /// An arbitrary-precision number.
    Number,
    /// `true` or `false`.
    Bool,
    /// The pseudo-type "any type": a value in a dynamic position carries its
    /// own concrete type.
    Dynamic,
    /// An ordered sequence of elements of one type.
    List(Arc<Type>),
    /// An unordered collection of distinct elements of one type.
    Set(Arc<Type>),
    /// String keys to elements of one type.
    Map(Arc<Type>),
    /// Named attributes, each with its own type.
    Object(Arc<ObjectType>),
    /// A fixed sequence of elements, each with its own type.
    Tuple(Arc<Vec<Type>>),
}

/// The attributes of an object type, sorted by name, and which of them are
/// optional.
///
/// Optional attributes only matter for type conversion and for type
/// equality: values of an object type always hold every attribute.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ObjectType {
    attrs: Box<[(Box<str>, Type)]>,
    optional: Box<[bool]>,
    /// Cached [`Type::is_static`] of this object type.
    is_static: bool,
}

impl ObjectType {
    fn new(attrs: Box<[(Box<str>, Type)]>, optional: Box<[bool]>) -> Self {
        let is_static = !optional.iter().any(|&o| o) && attrs.iter().all(|(_, t)| t.is_static());
        ObjectType {
            attrs,
            optional,
            is_static,
        }
    }

    /// Attribute names and types, sorted bytewise by name.
    pub fn attributes(&self) -> impl ExactSizeIterator<Item = (&str, &Type)> {
        self.attrs.iter().map(|(n, t)| (&**n, t))
    }

    /// Number of attributes.
    pub fn len(&self) -> usize {
        self.attrs.len()
    }

    /// Whether the object type has no attributes.
    pub fn is_empty(&self) -> bool {
        self.attrs.is_empty()
    }

    /// Position of `name` in [`attributes`](Self::attributes). Exact bytes:
    /// names are not normalized on lookup, as in go-cty.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.attrs.binary_search_by(|(n, _)| (**n).cmp(name)).ok()
    }

    /// The name of the attribute at `index`.
    pub fn name(&self, index: usize) -> &str {
        &self.attrs[index].0
    }

    /// The type of the attribute at `index` (a position in
    /// [`attributes`](Self::attributes)).
    pub fn attribute_type_at(&self, index: usize) -> &Type {
        &self.attrs[index].1
    }

    /// Whether the attribute at `index` is optional.
    pub fn is_optional(&self, index: usize) -> bool {
        self.optional[index]
    }

    /// Whether any attribute is optional.
    pub fn has_optional(&self) -> bool {
        self.optional.iter().any(|&o| o)
    }

    /// Names of the optional attributes, sorted.
    pub fn optional_names(&self) -> impl Iterator<Item = &str> {
        self.attrs
            .iter()
            .zip(self.optional.iter())
            .filter(|(_, &o)| o)
            .map(|((n, _), _)| &**n)
    }
}

impl Type {
    /// `list(elem)`.
    pub fn list(elem: Type) -> Type {
        Type::List(Arc::new(elem))
    }

    /// `set(elem)`.
    pub fn set(elem: Type) -> Type {
        Type::Set(Arc::new(elem))
    }

    /// `map(elem)`.
    pub fn map(elem: Type) -> Type {
        Type::Map(Arc::new(elem))
    }

    /// `tuple([elems...])`.
    pub fn tuple(elems: impl IntoIterator<Item = Type>) -> Type {
        Type::Tuple(Arc::new(elems.into_iter().collect()))
    }

    /// An object type with no optional attributes. Names are NFC-normalized;
    /// a repeated name keeps the last type given.
    pub fn object<N: AsRef<str>>(attrs: impl IntoIterator<Item = (N, Type)>) -> Type {
        Self::build_object(attrs, std::iter::empty::<&str>())
            .unwrap_or_else(|_| unreachable!("no optional names to check"))
    }

    /// An object type with some optional attributes. Every optional name must
    /// be an attribute (go-cty panics otherwise; this is an error).
    pub fn object_with_optional<N: AsRef<str>, O: AsRef<str>>(
        attrs: impl IntoIterator<Item = (N, Type)>,
        optional: impl IntoIterator<Item = O>,
    ) -> Result<Type> {
        Self::build_object(attrs, optional)
    }

    fn build_object<N: AsRef<str>, O: AsRef<str>>(
        attrs: impl IntoIterator<Item = (N, Type)>,
        optional: impl IntoIterator<Item = O>,
    ) -> Result<Type> {
        let mut list: Vec<(Box<str>, Type)> = attrs
            .into_iter()
            .map(|(n, t)| (Box::from(nfc(n.as_ref()).as_ref()), t))
            .collect();
        // Stable sort, then keep the last of each run of equal names.
        list.sort_by(|a, b| a.0.cmp(&b.0));
        let mut dedup: Vec<(Box<str>, Type)> = Vec::with_capacity(list.len());
        for item in list {
            match dedup.last_mut() {
                Some(last) if last.0 == item.0 => *last = item,
                _ => dedup.push(item),
            }
        }
        let mut opt = vec![false; dedup.len()];
        for name in optional {
            let name = nfc(name.as_ref());
            match dedup.binary_search_by(|(n, _)| (**n).cmp(&*name)) {
                Ok(i) => opt[i] = true,
                Err(_) => {
                    return Err(Error::type_error(format!(
                        "optional attribute {:?} is not an attribute of the object type",
                        &*name
                    )))
                }
            }
        }
        Ok(Type::Object(Arc::new(ObjectType::new(
            dedup.into_boxed_slice(),
            opt.into_boxed_slice(),
        ))))
    }

    /// The empty object type `object({})`.
    pub fn empty_object() -> Type {
        Type::object(std::iter::empty::<(&str, Type)>())
    }

    /// Whether this is string, number or bool.
    pub fn is_primitive(&self) -> bool {
        matches!(self, Type::String | Type::Number | Type::Bool)
    }

    /// Whether this is list, set or map.
    pub fn is_collection(&self) -> bool {
        matches!(self, Type::List(_) | Type::Set(_) | Type::Map(_))
    }

    /// The element type of a list, set or map.
    pub fn element_type(&self) -> Option<&Type> {
        match self {
            Type::List(e) | Type::Set(e) | Type::Map(e) => Some(e),
            _ => None,
        }
    }

    /// The attributes of an object type.
    pub fn as_object(&self) -> Option<&ObjectType> {
        match self {
            Type::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The element types of a tuple type.
    pub fn tuple_elements(&self) -> Option<&[Type]> {
        match self {
            Type::Tuple(t) => Some(t),
            _ => None,
        }
    }

    /// The type of attribute `name` of an object type.
    pub fn attribute_type(&self, name: &str) -> Option<&Type> {
        let o = self.as_object()?;
        o.index_of(name).map(|i| o.attribute_type_at(i))
    }

    /// Whether every value of this type that a decoder builds has exactly
    /// this type: no `dynamic` (whose values carry their own types) and no
    /// optional attributes (which object values never carry) anywhere.
    /// Decoders use it to skip recomputing value types.
    pub(crate) fn is_static(&self) -> bool {
        match self {
            Type::Dynamic => false,
            Type::String | Type::Number | Type::Bool => true,
            Type::List(e) | Type::Set(e) | Type::Map(e) => e.is_static(),
            Type::Object(o) => o.is_static,
            Type::Tuple(t) => t.iter().all(Type::is_static),
        }
    }

    /// Whether `dynamic` appears anywhere in this type.
    pub fn has_dynamic(&self) -> bool {
        match self {
            Type::Dynamic => true,
            Type::String | Type::Number | Type::Bool => false,
            Type::List(e) | Type::Set(e) | Type::Map(e) => e.has_dynamic(),
            Type::Object(o) => o.attrs.iter().any(|(_, t)| t.has_dynamic()),
            Type::Tuple(t) => t.iter().any(Type::has_dynamic),
        }
    }

    /// Whether any object type inside this one has optional attributes.
    pub fn has_optional_attributes(&self) -> bool {
        match self {
            Type::Dynamic | Type::String | Type::Number | Type::Bool => false,
            Type::List(e) | Type::Set(e) | Type::Map(e) => e.has_optional_attributes(),
            Type::Object(o) => {
                o.has_optional() || o.attrs.iter().any(|(_, t)| t.has_optional_attributes())
            }
            Type::Tuple(t) => t.iter().any(Type::has_optional_attributes),
        }
    }

    /// This type with every optional-attribute marker removed, at any depth.
    pub fn without_optional_attributes(&self) -> Type {
        if !self.has_optional_attributes() {
            return self.clone();
        }
        match self {
            Type::List(e) => Type::list(e.without_optional_attributes()),
            Type::Set(e) => Type::set(e.without_optional_attributes()),
            Type::Map(e) => Type::map(e.without_optional_attributes()),
            Type::Tuple(t) => Type::tuple(t.iter().map(Type::without_optional_attributes)),
            Type::Object(o) => Type::Object(Arc::new(ObjectType::new(
                o.attrs
                    .iter()
                    .map(|(n, t)| (n.clone(), t.without_optional_attributes()))
                    .collect(),
                vec![false; o.attrs.len()].into_boxed_slice(),
            ))),
            other => other.clone(),
        }
    }

    /// Whether a value of type `self` may stand where `target` is expected:
    /// equal types, with `dynamic` in `target` accepting anything.
    pub fn conforms_to(&self, target: &Type) -> bool {
        match (self, target) {
            (_, Type::Dynamic) => true,
            (Type::List(a), Type::List(b))
            | (Type::Set(a), Type::Set(b))
            | (Type::Map(a), Type::Map(b)) => a.conforms_to(b),
            (Type::Tuple(a), Type::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.conforms_to(y))
            }
            (Type::Object(a), Type::Object(b)) => {
                Arc::ptr_eq(a, b)
                    || (a.attrs.len() == b.attrs.len()
                        && a.attrs
                            .iter()
                            .zip(b.attrs.iter())
                            .all(|((na, ta), (nb, tb))| na == nb && ta.conforms_to(tb)))
            }
            (a, b) => a == b,
        }
    }

    // ---- type constraint JSON -------------------------------------------

    /// Parses a type constraint from its JSON form.
    ///
    /// Follows go-cty: whitespace between tokens is fine, a trailing `]` or
    /// `}` after the type is tolerated, anything else after it is an error.
    ///
    /// ```
    /// use ctywire::Type;
    /// assert_eq!(Type::parse(r#"["list", "string"]"#)?, Type::list(Type::String));
    /// let err = Type::parse(r#"["object",{"a":"string"},["b"]]"#).unwrap_err();
    /// assert!(err.to_string().contains("\"b\""));
    /// # Ok::<(), ctywire::Error>(())
    /// ```
    pub fn parse(json: &str) -> Result<Type> {
        Self::parse_within(json.as_bytes(), DEFAULT_MAX_DEPTH)
    }

    /// [`Type::parse`] on bytes, within the limits of `opts` (its nesting
    /// depth and input size).
    ///
    /// ```
    /// use ctywire::{DecodeOptions, Type};
    /// let opts = DecodeOptions::new().max_depth(1);
    /// assert!(Type::parse_with(br#"["list","string"]"#, &opts).is_ok());
    /// assert!(Type::parse_with(br#"["list",["list","string"]]"#, &opts).is_err());
    /// ```
    pub fn parse_with(json: &[u8], opts: &crate::DecodeOptions) -> Result<Type> {
        opts.check_input_len(json.len())?;
        Self::parse_within(json, opts.max_depth)
    }

    /// Parses type JSON that may nest `depth_left` more levels: decoders
    /// parse a dynamic value's type with what is left of their own limit.
    pub(crate) fn parse_within(json: &[u8], depth_left: usize) -> Result<Type> {
        let max_depth = depth_left;
        let mut r = Reader::new(json);
        let ty = parse_type(&mut r, max_depth)?;
        match r.peek_byte() {
            None | Some(b']') | Some(b'}') => Ok(ty),
            Some(_) => Err(Error::type_error(
                if matches!(ty, Type::String | Type::Number | Type::Bool | Type::Dynamic) {
                    "extraneous data after type description"
                } else {
                    "unexpected extra data in type description"
                },
            )
            .at_offset(r.offset())),
        }
    }

    /// The JSON form of this type, exactly as go-cty writes it.
    pub fn to_json(&self) -> String {
        let mut out = Vec::new();
        self.write_json(&mut out);
        // Only ASCII punctuation and (escaped) names, which are UTF-8, are
        // written; were that ever broken, the text would show it.
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Appends the JSON form of this type to `out`.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Type::String => out.extend_from_slice(b"\"string\""),
            Type::Number => out.extend_from_slice(b"\"number\""),
            Type::Bool => out.extend_from_slice(b"\"bool\""),
            Type::Dynamic => out.extend_from_slice(b"\"dynamic\""),
            Type::List(e) => {
                out.extend_from_slice(b"[\"list\",");
                e.write_json(out);
                out.push(b']');
            }
            Type::Set(e) => {
                out.extend_from_slice(b"[\"set\",");
                e.write_json(out);
                out.push(b']');
            }
            Type::Map(e) => {
                out.extend_from_slice(b"[\"map\",");
                e.write_json(out);
                out.push(b']');
            }
            Type::Object(o) => {
                out.extend_from_slice(b"[\"object\",{");
                for (i, (name, t)) in o.attrs.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    gostr::json_quote_into(out, name);
                    out.push(b':');
                    t.write_json(out);
                }
                out.push(b'}');
                if o.has_optional() {
                    out.extend_from_slice(b",[");
                    for (i, name) in o.optional_names().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        gostr::json_quote_into(out, name);
                    }
                    out.push(b']');
                }
                out.push(b']');
            }
            Type::Tuple(t) => {
                out.extend_from_slice(b"[\"tuple\",[");
                for (i, e) in t.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    e.write_json(out);
                }
                out.extend_from_slice(b"]]");
            }
        }
    }
}

/// What a type name may be, for messages about one that is not.
const PRIMITIVE_NAMES: &str = r#"the primitive types are "string", "number", "bool" and "dynamic""#;
const KIND_NAMES: &str = r#"the kinds are "list", "set", "map", "object" and "tuple""#;

fn parse_type(r: &mut Reader<'_>, depth_left: usize) -> Result<Type> {
    let at = r.offset();
    match r.peek()? {
        Peek::String => {
            let name = r.read_string()?;
            match &*name {
                "string" => Ok(Type::String),
                "number" => Ok(Type::Number),
                "bool" => Ok(Type::Bool),
                "dynamic" => Ok(Type::Dynamic),
                other => Err(Error::type_error(format!(
                    "invalid primitive type name {other:?}; {PRIMITIVE_NAMES}"
                ))
                .at_offset(at)),
            }
        }
        Peek::Array => {
            if depth_left == 0 {
                return Err(
                    Error::limit("type description exceeds the nesting depth limit").at_offset(at),
                );
            }
            r.begin_array()?;
            if !r.next_element(true)? || r.peek()? != Peek::String {
                return Err(Error::type_error(format!(
                    "invalid complex type description: an array must start with the kind; {KIND_NAMES}"
                ))
                .at_offset(at));
            }
            let kind = r.read_string()?;
            let need_value = |r: &mut Reader<'_>| -> Result<()> {
                if r.next_element(false)? {
                    Ok(())
                } else {
                    Err(
                        Error::type_error("missing element type in type description")
                            .at_offset(r.offset()),
                    )
                }
            };
            let ty = match &*kind {
                "list" | "set" | "map" => {
                    need_value(r)?;
                    let e = parse_type(r, depth_left - 1)?;
                    match &*kind {
                        "list" => Type::list(e),
                        "set" => Type::set(e),
                        _ => Type::map(e),
                    }
                }
                "object" => {
                    need_value(r)?;
                    let attrs = parse_object_attrs(r, depth_left - 1)?;
                    let mut optional: Vec<String> = Vec::new();
                    if r.peek_byte() == Some(b',') {
                        need_value(r)?;
                        optional = parse_string_array(r)?;
                    }
                    Type::object_with_optional(attrs, optional).map_err(|e| e.at_offset(at))?
                }
                "tuple" => {
                    need_value(r)?;
                    let elems = if r.peek()? == Peek::Null {
                        r.read_null()?;
                        Vec::new()
                    } else {
                        if r.peek()? != Peek::Array {
                            return Err(Error::type_error(
                                "tuple element types must be a JSON array",
                            )
                            .at_offset(r.offset()));
                        }
                        r.begin_array()?;
                        let mut elems = Vec::new();
                        let mut first = true;
                        while r.next_element(first)? {
                            first = false;
                            elems.push(parse_type(r, depth_left - 1)?);
                        }
                        elems
                    };
                    Type::tuple(elems)
                }
                other => {
                    return Err(Error::type_error(format!(
                        "invalid complex type kind name {other:?}; {KIND_NAMES}"
                    ))
                    .at_offset(at))
                }
            };
            if r.next_element(false)? {
                return Err(
                    Error::type_error("unexpected extra data in type description")
                        .at_offset(r.offset()),
                );
            }
            Ok(ty)
        }
        Peek::Object => Err(Error::type_error("invalid complex type description").at_offset(at)),
        Peek::Null | Peek::Bool | Peek::Number => {
            Err(Error::type_error("invalid type description").at_offset(at))
        }
    }
}

fn parse_object_attrs(r: &mut Reader<'_>, depth_left: usize) -> Result<Vec<(String, Type)>> {
    match r.peek()? {
        Peek::Null => {
            r.read_null()?;
            Ok(Vec::new())
        }
        Peek::Object => {
            r.begin_object()?;
            let mut attrs = Vec::new();
            let mut first = true;
            while let Some((_, name)) = r.next_key(first)? {
                first = false;
                let name = name.into_owned();
                let t = parse_type(r, depth_left)?;
                attrs.push((name, t));
            }
            Ok(attrs)
        }
        _ => Err(
            Error::type_error("object attribute types must be a JSON object").at_offset(r.offset()),
        ),
    }
}

fn parse_string_array(r: &mut Reader<'_>) -> Result<Vec<String>> {
    match r.peek()? {
        Peek::Null => {
            r.read_null()?;
            Ok(Vec::new())
        }
        Peek::Array => {
            r.begin_array()?;
            let mut names = Vec::new();
            let mut first = true;
            while r.next_element(first)? {
                first = false;
                if r.peek()? != Peek::String {
                    return Err(
                        Error::type_error("optional attribute names must be strings")
                            .at_offset(r.offset()),
                    );
                }
                names.push(r.read_string()?.into_owned());
            }
            Ok(names)
        }
        _ => Err(
            Error::type_error("optional attribute names must be a JSON array")
                .at_offset(r.offset()),
        ),
    }
}

impl Type {
    /// The type found by following `path` into this type, checking that
    /// every step fits: attributes only on objects, keys only on maps,
    /// indexes only on lists, sets and tuples (in range). Below `dynamic`
    /// nothing more is known, and the result is `dynamic`.
    ///
    /// ```
    /// use ctywire::{Path, Type};
    /// let ty = Type::parse(r#"["object",{"tags":["map","string"],"rules":["list",["object",{"port":"number"}]]}]"#)?;
    /// assert_eq!(ty.type_at(&Path::root().attr("rules").index(0).attr("port"))?, Type::Number);
    /// // "tags" is a map: its keys are keys, not attributes.
    /// assert!(ty.type_at(&Path::root().attr("tags").attr("Name")).is_err());
    /// # Ok::<(), ctywire::Error>(())
    /// ```
    pub fn type_at(&self, path: &Path) -> Result<Type> {
        let mut t = self;
        for (n, step) in path.steps().iter().enumerate() {
            let fail =
                |msg: String| Error::data(msg).within(&Path::from(path.steps()[..n].to_vec()));
            t = match (t, step) {
                (Type::Dynamic, _) => return Ok(Type::Dynamic),
                (Type::Object(o), PathStep::Attr(a)) => match o.index_of(a) {
                    Some(i) => o.attribute_type_at(i),
                    None => return Err(fail(format!("there is no attribute {a:?}"))),
                },
                (Type::Map(e), PathStep::Key(_)) => e,
                (Type::List(e) | Type::Set(e), PathStep::Index(_)) => e,
                (Type::Tuple(es), PathStep::Index(i)) => match es.get(*i as usize) {
                    Some(e) => e,
                    None => {
                        return Err(fail(format!(
                            "index {i} is out of range for a tuple of {}",
                            es.len()
                        )))
                    }
                },
                (other, PathStep::Attr(a)) => {
                    return Err(fail(format!(
                        "a {other} has no attributes (looking for {a:?})"
                    )))
                }
                (other, PathStep::Key(k)) => {
                    return Err(fail(format!("a {other} has no keys (looking for {k:?})")))
                }
                (other, PathStep::Index(i)) => {
                    return Err(fail(format!("a {other} has no indexes (looking for {i})")))
                }
            };
        }
        Ok(t.clone())
    }
}

impl Default for Type {
    /// `dynamic`: a type that says nothing.
    fn default() -> Type {
        Type::Dynamic
    }
}

impl fmt::Display for Type {
    /// cty's "friendly name": `string`, `list of number`, `object`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::String => f.write_str("string"),
            Type::Number => f.write_str("number"),
            Type::Bool => f.write_str("bool"),
            Type::Dynamic => f.write_str("dynamic"),
            Type::List(e) => write!(f, "list of {e}"),
            Type::Set(e) => write!(f, "set of {e}"),
            Type::Map(e) => write!(f, "map of {e}"),
            Type::Object(_) => f.write_str("object"),
            Type::Tuple(_) => f.write_str("tuple"),
        }
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

impl std::str::FromStr for Type {
    type Err = Error;
    fn from_str(s: &str) -> Result<Type> {
        Type::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(json: &str) -> String {
        Type::parse(json).unwrap().to_json()
    }

    #[test]
    fn type_json_is_compact_sorted_and_go_escaped() {
        assert_eq!(
            roundtrip(r#"["object",{"é":"bool","b":"number","a":"string","<&>":"dynamic"}]"#),
            r#"["object",{"\u003c\u0026\u003e":"dynamic","a":"string","b":"number","é":"bool"}]"#
        );
        assert_eq!(roundtrip(r#" [ "tuple" , [ ] ] "#), r#"["tuple",[]]"#);
        assert_eq!(
            roundtrip(r#"["object",{"b":"string","a":"number"},["b","b"]]"#),
            r#"["object",{"a":"number","b":"string"},["b"]]"#
        );
        assert_eq!(
            roundtrip(r#"["object",{"a":"string"},[]]"#),
            r#"["object",{"a":"string"}]"#
        );
        assert_eq!(roundtrip(r#"["object",null]"#), r#"["object",{}]"#);
        assert_eq!(roundtrip(r#"["tuple",null]"#), r#"["tuple",[]]"#);
    }

    #[test]
    fn object_attribute_names_are_nfc_and_last_duplicate_wins() {
        let ty =
            Type::parse("[\"object\",{\"e\\u0301\":\"string\",\"a\":\"bool\",\"a\":\"number\"}]")
                .unwrap();
        assert_eq!(ty.attribute_type("é"), Some(&Type::String));
        assert_eq!(ty.attribute_type("a"), Some(&Type::Number));
    }

    #[test]
    fn go_cty_trailing_quirks_are_kept() {
        assert_eq!(Type::parse(r#""string"]"#).unwrap(), Type::String);
        assert_eq!(
            Type::parse(r#"["list","string"]]"#).unwrap(),
            Type::list(Type::String)
        );
        let msg = |s: &str| Type::parse(s).unwrap_err().message().to_string();
        assert_eq!(
            msg(r#""string" "x""#),
            "extraneous data after type description"
        );
        assert_eq!(
            msg(r#"["list","string","x"]"#),
            "unexpected extra data in type description"
        );
        assert_eq!(
            msg(r#"["list","string"]x"#),
            "unexpected extra data in type description"
        );
    }

    #[test]
    fn malformed_type_descriptions_are_errors_not_crashes() {
        let msg = |s: &str| Type::parse(s).unwrap_err().message().to_string();
        let primitives = r#"the primitive types are "string", "number", "bool" and "dynamic""#;
        let kinds = r#"the kinds are "list", "set", "map", "object" and "tuple""#;
        assert_eq!(
            msg(r#""String""#),
            format!(r#"invalid primitive type name "String"; {primitives}"#)
        );
        assert_eq!(
            msg(r#"["list","strin"]"#),
            format!(r#"invalid primitive type name "strin"; {primitives}"#)
        );
        assert_eq!(
            msg(r#"["lst","string"]"#),
            format!(r#"invalid complex type kind name "lst"; {kinds}"#)
        );
        for no_kind in ["[]", "[1]"] {
            assert_eq!(
                msg(no_kind),
                format!(
                    "invalid complex type description: an array must start with the kind; {kinds}"
                )
            );
        }
        assert_eq!(msg("{}"), "invalid complex type description");
        assert_eq!(msg("1"), "invalid type description");
        assert_eq!(msg(r#"["list",null]"#), "invalid type description");
        assert!(msg(r#"["object",{"a":"string"},["b"]]"#).contains(r#""b""#));
        assert!(Type::parse("").is_err());
        assert!(Type::parse(r#"["list""#).is_err());
    }

    #[test]
    fn deep_type_descriptions_hit_the_depth_limit() {
        let deep = "[\"list\",".repeat(100_000) + "\"string\"" + &"]".repeat(100_000);
        let err = Type::parse(&deep).unwrap_err();
        assert_eq!(err.category(), crate::Category::Limit);
        let ok = "[\"list\",".repeat(60) + "\"string\"" + &"]".repeat(60);
        assert!(Type::parse(&ok).is_ok());
    }

    #[test]
    fn optional_markers_can_be_stripped_deeply() {
        let ty = Type::parse(r#"["list",["object",{"a":["object",{"b":"string"},["b"]]},["a"]]]"#)
            .unwrap();
        assert!(ty.has_optional_attributes());
        assert_eq!(
            ty.without_optional_attributes().to_json(),
            r#"["list",["object",{"a":["object",{"b":"string"}]}]]"#
        );
    }
}
