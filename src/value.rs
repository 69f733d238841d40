//! cty values: known, null or unknown, each with its type.

use std::fmt;

use compact_str::CompactString;

use crate::error::{Error, Result};
use crate::number::Number;
use crate::refinements::Refinements;
use crate::set;
use crate::strings::into_nfc;
use crate::types::{ObjectType, Type};

/// A cty value: a type together with a known value, a null, or an unknown
/// (possibly refined).
///
/// A value in a `dynamic` position keeps its own concrete type, so
/// `Value::string("x")` stays a string wherever it is placed; only wholly
/// unknown (`Value::unknown(Type::Dynamic)`) and null-of-unknown-type
/// (`Value::null(Type::Dynamic)`) values have type `dynamic`.
///
/// ```
/// use ctywire::{Type, Value};
/// let v = Value::object([
///     ("name", Value::string("web")),
///     ("ports", Value::set(Type::Number, vec![Value::number(443), Value::number(80)])?),
/// ]);
/// assert_eq!(v.ty().to_json(), r#"["object",{"name":"string","ports":["set","number"]}]"#);
/// // Sets are kept in cty's canonical order.
/// let ports: Vec<String> = v.attr("ports").unwrap().elements().unwrap().iter().map(|p| p.to_string()).collect();
/// assert_eq!(ports, ["80", "443"]);
/// # Ok::<(), ctywire::Error>(())
/// ```
#[derive(Clone)]
pub struct Value {
    ty: Type,
    repr: Repr,
}

#[derive(Clone)]
pub(crate) enum Repr {
    Null,
    Unknown(Option<Box<Refinements>>),
    String(CompactString),
    Number(Number),
    Bool(bool),
    /// Elements of a list, set (canonical order) or tuple, or attribute
    /// values of an object in the order of its type's attributes.
    Seq(Vec<Value>),
    /// Map entries sorted bytewise by key, keys unique.
    Map(Vec<(CompactString, Value)>),
}

impl Value {
    pub(crate) fn from_parts(ty: Type, repr: Repr) -> Value {
        Value { ty, repr }
    }

    pub(crate) fn repr(&self) -> &Repr {
        &self.repr
    }

    /// A null of type `ty`.
    pub fn null(ty: Type) -> Value {
        Value {
            ty,
            repr: Repr::Null,
        }
    }

    /// An unknown of type `ty`, with no refinements.
    /// `Value::unknown(Type::Dynamic)` is cty's `DynamicVal`.
    pub fn unknown(ty: Type) -> Value {
        Value {
            ty,
            repr: Repr::Unknown(None),
        }
    }

    /// A string; normalized to NFC.
    pub fn string(s: impl Into<String>) -> Value {
        Value {
            ty: Type::String,
            repr: Repr::String(CompactString::from(into_nfc(s.into()))),
        }
    }

    /// A number.
    pub fn number(n: impl Into<Number>) -> Value {
        Value {
            ty: Type::Number,
            repr: Repr::Number(n.into()),
        }
    }

    /// A bool.
    pub fn bool(b: bool) -> Value {
        Value {
            ty: Type::Bool,
            repr: Repr::Bool(b),
        }
    }

    /// A list. Elements must all have one type conforming to `elem`; a
    /// `dynamic` element type takes the type of the elements (so a list of
    /// strings declared `list(dynamic)` is a `list(string)`, as in cty).
    pub fn list(elem: Type, elements: Vec<Value>) -> Result<Value> {
        let ety = unify(&elem, &elements, "list")?;
        Ok(Value {
            ty: Type::list(ety.clone()),
            repr: Repr::Seq(retype(ety, elements)),
        })
    }

    /// A set: elements de-duplicated by cty equality and put in go-cty's
    /// canonical order. Unknown elements never merge.
    pub fn set(elem: Type, elements: Vec<Value>) -> Result<Value> {
        let ety = unify(&elem, &elements, "set")?;
        let elements = set::canonicalize(&ety, retype(ety.clone(), elements));
        Ok(Value {
            ty: Type::set(ety),
            repr: Repr::Seq(elements),
        })
    }

    /// A map. Keys are normalized to NFC; for a repeated key the last entry
    /// wins.
    pub fn map<K: Into<String>>(
        elem: Type,
        entries: impl IntoIterator<Item = (K, Value)>,
    ) -> Result<Value> {
        let mut entries: Vec<(CompactString, Value)> = entries
            .into_iter()
            .map(|(k, v)| (CompactString::from(into_nfc(k.into())), v))
            .collect();
        sort_map_entries(&mut entries);
        let (keys, values): (Vec<CompactString>, Vec<Value>) = entries.into_iter().unzip();
        let ety = unify(&elem, &values, "map")?;
        let entries = keys.into_iter().zip(retype(ety.clone(), values)).collect();
        Ok(Value {
            ty: Type::map(ety),
            repr: Repr::Map(entries),
        })
    }

    /// An object whose type is made of its attributes' types. Names are
    /// normalized to NFC; for a repeated name the last wins.
    pub fn object<K: AsRef<str>>(attrs: impl IntoIterator<Item = (K, Value)>) -> Value {
        let mut attrs: Vec<(String, Value)> = attrs
            .into_iter()
            .map(|(k, v)| (crate::strings::nfc(k.as_ref()).into_owned(), v))
            .collect();
        attrs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut dedup: Vec<(String, Value)> = Vec::with_capacity(attrs.len());
        for a in attrs {
            match dedup.last_mut() {
                Some(last) if last.0 == a.0 => *last = a,
                _ => dedup.push(a),
            }
        }
        let ty = Type::object(dedup.iter().map(|(k, v)| (k.as_str(), v.ty.clone())));
        Value {
            ty,
            repr: Repr::Seq(dedup.into_iter().map(|(_, v)| v).collect()),
        }
    }

    /// A tuple of the given elements.
    pub fn tuple(elements: Vec<Value>) -> Value {
        let ty = Type::tuple(elements.iter().map(|e| e.ty.clone()));
        Value {
            ty,
            repr: Repr::Seq(elements),
        }
    }

    /// This unknown value with refinements added, collapsed the way cty does:
    /// not-null with length exactly 0 is an empty collection; a not-null list
    /// of exactly N elements is a known list of N unknowns (a set: only for
    /// N = 1); a not-null number with equal inclusive bounds is that number.
    /// Refining a known value, or any `dynamic` value, is an error.
    pub fn refined(self, refinements: Refinements) -> Result<Value> {
        if !matches!(self.repr, Repr::Unknown(_)) {
            return Err(Error::data("only unknown values can be refined"));
        }
        if self.ty == Type::Dynamic {
            if refinements.is_empty() {
                return Ok(self);
            }
            return Err(Error::data("a value of unknown type cannot be refined"));
        }
        let mut r = match self.repr {
            Repr::Unknown(Some(existing)) => merge(*existing, refinements)?,
            _ => refinements,
        };
        r = r.validated(&self.ty)?;
        Ok(collapse(self.ty, r))
    }

    /// The type.
    pub fn ty(&self) -> &Type {
        &self.ty
    }

    /// Whether this is a null.
    pub fn is_null(&self) -> bool {
        matches!(self.repr, Repr::Null)
    }

    /// Whether the value itself is known (its parts may still be unknown).
    pub fn is_known(&self) -> bool {
        !matches!(self.repr, Repr::Unknown(_))
    }

    /// Whether no unknown appears anywhere in the value.
    pub fn is_wholly_known(&self) -> bool {
        match &self.repr {
            Repr::Unknown(_) => false,
            Repr::Seq(v) => v.iter().all(Value::is_wholly_known),
            Repr::Map(m) => m.iter().all(|(_, v)| v.is_wholly_known()),
            _ => true,
        }
    }

    /// The refinements of an unknown value (`None` for known values and for
    /// unknowns with no refinements).
    pub fn refinements(&self) -> Option<&Refinements> {
        match &self.repr {
            Repr::Unknown(Some(r)) => Some(r),
            _ => None,
        }
    }

    /// The string, if this is a known string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.repr {
            Repr::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is a known number.
    pub fn as_number(&self) -> Option<&Number> {
        match &self.repr {
            Repr::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The bool, if this is a known bool.
    pub fn as_bool(&self) -> Option<bool> {
        match &self.repr {
            Repr::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The elements of a known list, set (in canonical order) or tuple.
    pub fn elements(&self) -> Option<&[Value]> {
        match (&self.ty, &self.repr) {
            (Type::List(_) | Type::Set(_) | Type::Tuple(_), Repr::Seq(v)) => Some(v),
            _ => None,
        }
    }

    /// The entries of a known map, sorted by key.
    pub fn entries(&self) -> Option<impl ExactSizeIterator<Item = (&str, &Value)>> {
        match &self.repr {
            Repr::Map(m) => Some(m.iter().map(|(k, v)| (&**k, v))),
            _ => None,
        }
    }

    /// The value at `key` of a known map.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match &self.repr {
            Repr::Map(m) => m
                .binary_search_by(|(k, _)| (**k).cmp(key))
                .ok()
                .map(|i| &m[i].1),
            _ => None,
        }
    }

    /// The attribute `name` of a known object.
    pub fn attr(&self, name: &str) -> Option<&Value> {
        match (&self.ty, &self.repr) {
            (Type::Object(o), Repr::Seq(v)) => o.index_of(name).map(|i| &v[i]),
            _ => None,
        }
    }

    /// The attributes of a known object, sorted by name.
    pub fn attributes(&self) -> Option<impl ExactSizeIterator<Item = (&str, &Value)>> {
        match (&self.ty, &self.repr) {
            (Type::Object(o), Repr::Seq(v)) => Some(o.attributes().map(|(n, _)| n).zip(v.iter())),
            _ => None,
        }
    }

    /// A copy of this known object with attribute `name` set to `value`
    /// (the object's type follows the new attribute's type). For instance,
    /// to plan a computed attribute as unknown.
    pub fn with_attr(&self, name: &str, value: Value) -> Result<Value> {
        let Some(attrs) = self.attributes() else {
            return Err(Error::data(format!(
                "only a known object has attributes (setting {name:?} on a {})",
                self.ty
            )));
        };
        let mut found = false;
        let attrs: Vec<(&str, Value)> = attrs
            .map(|(n, v)| {
                if n == name {
                    found = true;
                    (n, value.clone())
                } else {
                    (n, v.clone())
                }
            })
            .collect();
        if !found {
            return Err(Error::data(format!("there is no attribute {name:?}")));
        }
        Ok(Value::object(attrs))
    }

    /// Number of elements, entries or attributes of a known collection or
    /// structure.
    pub fn len(&self) -> Option<usize> {
        match &self.repr {
            Repr::Seq(v) => Some(v.len()),
            Repr::Map(m) => Some(m.len()),
            _ => None,
        }
    }

    /// Whether [`len`](Self::len) is zero.
    pub fn is_empty(&self) -> bool {
        self.len() == Some(0)
    }
}

/// Sorts map entries by key; for equal keys the last one stays.
fn sort_map_entries(entries: &mut Vec<(CompactString, Value)>) {
    if entries.windows(2).all(|w| w[0].0 < w[1].0) {
        return;
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Vec<(CompactString, Value)> = Vec::with_capacity(entries.len());
    for e in entries.drain(..) {
        match out.last_mut() {
            Some(last) if last.0 == e.0 => *last = e,
            _ => out.push(e),
        }
    }
    *entries = out;
}

/// cty's `ListVal`/`SetVal`/`MapVal` rule for the element type: the first
/// element type that is not `dynamic`; every other element must have that
/// type or be of type `dynamic` itself. Empty collections keep `declared`.
fn unify(declared: &Type, elements: &[Value], kind: &str) -> Result<Type> {
    let mut ety: Option<&Type> = None;
    for (i, e) in elements.iter().enumerate() {
        if e.ty != Type::Dynamic && !e.ty.conforms_to(declared) {
            return Err(Error::data(format!(
                "{kind} element type must be {declared}, not {}",
                e.ty
            ))
            .under(crate::path::PathStep::Index(i as u64)));
        }
        if e.ty == Type::Dynamic {
            continue;
        }
        match ety {
            None => ety = Some(&e.ty),
            Some(t) if *t == e.ty => {}
            Some(t) => {
                return Err(Error::data(format!(
                    "inconsistent {kind} element types: {} then {}",
                    t.to_json(),
                    e.ty.to_json()
                ))
                .under(crate::path::PathStep::Index(i as u64)))
            }
        }
    }
    // No element says more than the declaration (none at all, or only
    // nulls and unknowns of unknown type): the declaration stands.
    Ok(ety.cloned().unwrap_or_else(|| declared.clone()))
}

/// Gives `dynamic`-typed nulls and unknowns the collection's element type,
/// as cty does when it builds a collection from them.
fn retype(ety: Type, mut elements: Vec<Value>) -> Vec<Value> {
    if ety != Type::Dynamic {
        for e in elements.iter_mut().filter(|e| e.ty == Type::Dynamic) {
            e.ty = ety.clone();
        }
    }
    elements
}

// Values as the decoders build them. When the declared type is static
// (no dynamic, no optional attributes) every part already has exactly the
// declared type, so it is reused; otherwise the parts decide, as in cty.

/// A list or set decoded at `ty`, whose element type is `ety`.
pub(crate) fn decoded_list_or_set(
    ty: &Type,
    ety: &Type,
    elems: Vec<Value>,
    is_set: bool,
) -> Result<Value> {
    if ety.is_static() {
        let elems = if is_set {
            set::canonicalize(ety, elems)
        } else {
            elems
        };
        return Ok(Value::from_parts(ty.clone(), Repr::Seq(elems)));
    }
    let unified = unify(ety, &elems, if is_set { "set" } else { "list" })?;
    let elems = retype(unified.clone(), elems);
    let elems = if is_set {
        set::canonicalize(&unified, elems)
    } else {
        elems
    };
    let ty = if unified == *ety {
        ty.clone()
    } else if is_set {
        Type::set(unified)
    } else {
        Type::list(unified)
    };
    Ok(Value::from_parts(ty, Repr::Seq(elems)))
}

/// A map decoded at `ty`, whose element type is `ety`; `entries` in wire
/// order (a repeated key: the last wins).
pub(crate) fn decoded_map(
    ty: &Type,
    ety: &Type,
    mut entries: Vec<(CompactString, Value)>,
) -> Result<Value> {
    sort_map_entries(&mut entries);
    if ety.is_static() || entries.is_empty() {
        return Ok(Value::from_parts(ty.clone(), Repr::Map(entries)));
    }
    let (keys, values): (Vec<CompactString>, Vec<Value>) = entries.into_iter().unzip();
    let unified = unify(ety, &values, "map")?;
    let entries = keys
        .into_iter()
        .zip(retype(unified.clone(), values))
        .collect();
    Ok(Value::from_parts(Type::map(unified), Repr::Map(entries)))
}

/// An object decoded at `ty`; `values` in the order of `declared`'s
/// attributes. Object values carry their attributes' own types and never
/// optional markers.
pub(crate) fn decoded_object(ty: &Type, declared: &ObjectType, values: Vec<Value>) -> Value {
    let ty = if declared.is_empty() || ty.is_static() {
        ty.clone()
    } else {
        Type::object(
            declared
                .attributes()
                .zip(&values)
                .map(|((n, _), v)| (n, v.ty.clone())),
        )
    };
    Value::from_parts(ty, Repr::Seq(values))
}

/// A tuple decoded at `ty`.
pub(crate) fn decoded_tuple(ty: &Type, elems: Vec<Value>) -> Value {
    let ty = if ty.is_static() {
        ty.clone()
    } else {
        Type::tuple(elems.iter().map(|e| e.ty.clone()))
    };
    Value::from_parts(ty, Repr::Seq(elems))
}

fn merge(mut a: Refinements, b: Refinements) -> Result<Refinements> {
    a.not_null |= b.not_null;
    if let Some(p) = b.string_prefix {
        a.add_prefix(p)?;
    }
    if let Some(l) = b.lower {
        a.tighten_lower(l);
    }
    if let Some(u) = b.upper {
        a.tighten_upper(u);
    }
    a.length_min = a.length_min.max(b.length_min);
    a.length_max = match (a.length_max, b.length_max) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    Ok(a)
}

/// cty's collapse of refinements that pin the value down completely.
pub(crate) fn collapse(ty: Type, r: Refinements) -> Value {
    if r.not_null {
        match &ty {
            Type::Number => {
                if let (Some(lo), Some(hi)) = (&r.lower, &r.upper) {
                    if lo.inclusive && hi.inclusive && lo.value.numeric_cmp(&hi.value).is_eq() {
                        return Value::from_parts(ty, Repr::Number(lo.value.clone()));
                    }
                }
            }
            Type::List(e) | Type::Set(e) | Type::Map(e) if r.length_max == Some(r.length_min) => {
                let n = r.length_min;
                let is_list = matches!(ty, Type::List(_));
                let is_set = matches!(ty, Type::Set(_));
                if n == 0 {
                    let repr = if matches!(ty, Type::Map(_)) {
                        Repr::Map(Vec::new())
                    } else {
                        Repr::Seq(Vec::new())
                    };
                    return Value::from_parts(ty, repr);
                }
                if is_list || (is_set && n == 1) {
                    let elems = (0..n).map(|_| Value::unknown((**e).clone())).collect();
                    return Value::from_parts(ty, Repr::Seq(elems));
                }
            }
            _ => {}
        }
    }
    let refinements = if r.is_empty() {
        None
    } else {
        Some(Box::new(r))
    };
    Value::from_parts(ty, Repr::Unknown(refinements))
}

impl PartialEq for Value {
    /// Same type and same value; numbers compare as cty's `Equals` does,
    /// unknowns compare by their refinements.
    fn eq(&self, other: &Value) -> bool {
        if self.ty != other.ty {
            return false;
        }
        match (&self.repr, &other.repr) {
            (Repr::Null, Repr::Null) => true,
            (Repr::Unknown(a), Repr::Unknown(b)) => a == b,
            (Repr::String(a), Repr::String(b)) => a == b,
            (Repr::Number(a), Repr::Number(b)) => a == b,
            (Repr::Bool(a), Repr::Bool(b)) => a == b,
            (Repr::Seq(a), Repr::Seq(b)) => a == b,
            (Repr::Map(a), Repr::Map(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Value {
    /// A readable, HCL-like rendering for messages and debugging, e.g.
    /// `{"a" = "x", "n" = 1}`, `(known after apply)`, `null`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Null => f.write_str("null"),
            Repr::Unknown(_) => f.write_str("(known after apply)"),
            Repr::String(s) => write!(f, "{s:?}"),
            Repr::Number(n) => write!(f, "{n}"),
            Repr::Bool(b) => write!(f, "{b}"),
            Repr::Seq(v) => {
                if let Type::Object(o) = &self.ty {
                    f.write_str("{")?;
                    for (i, ((name, _), val)) in o.attributes().zip(v).enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{name:?} = {val}")?;
                    }
                    return f.write_str("}");
                }
                f.write_str("[")?;
                for (i, val) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{val}")?;
                }
                f.write_str("]")
            }
            Repr::Map(m) => {
                f.write_str("{")?;
                for (i, (k, val)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k:?} = {val}")?;
                }
                f.write_str("}")
            }
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Value({} : {})", self, self.ty.to_json())?;
        if let Repr::Unknown(Some(r)) = &self.repr {
            write!(f, " {r:?}")?;
        }
        Ok(())
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::string(s)
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::string(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::bool(b)
    }
}

impl From<Number> for Value {
    fn from(n: Number) -> Value {
        Value::number(n)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::number(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_normalized_on_construction() {
        assert_eq!(Value::string("e\u{301}").as_str(), Some("é"));
        let m = Value::map(
            Type::Number,
            [("e\u{301}", Value::number(1)), ("é", Value::number(2))],
        )
        .unwrap();
        assert_eq!(m.len(), Some(1));
    }

    #[test]
    fn dynamic_collections_take_their_elements_type() {
        let l = Value::list(
            Type::Dynamic,
            vec![Value::unknown(Type::Dynamic), Value::string("a")],
        )
        .unwrap();
        assert_eq!(*l.ty(), Type::list(Type::String));
        assert_eq!(*l.elements().unwrap()[0].ty(), Type::String);
        let err =
            Value::list(Type::Dynamic, vec![Value::string("a"), Value::number(1)]).unwrap_err();
        assert!(
            err.message().contains("inconsistent list element types"),
            "{err}"
        );
        assert_eq!(err.path().to_string(), "[1]");
        let empty = Value::list(Type::Dynamic, vec![]).unwrap();
        assert_eq!(*empty.ty(), Type::list(Type::Dynamic));
    }

    #[test]
    fn elements_of_unknown_type_take_the_declared_element_type() {
        let l = Value::list(
            Type::String,
            vec![Value::null(Type::Dynamic), Value::unknown(Type::Dynamic)],
        )
        .unwrap();
        assert_eq!(*l.ty(), Type::list(Type::String));
        assert!(l
            .elements()
            .unwrap()
            .iter()
            .all(|e| *e.ty() == Type::String));
        let d = Value::list(Type::Dynamic, vec![Value::unknown(Type::Dynamic)]).unwrap();
        assert_eq!(*d.ty(), Type::list(Type::Dynamic));
    }

    #[test]
    fn elements_must_conform_to_the_declared_type() {
        assert!(Value::list(Type::String, vec![Value::number(1)]).is_err());
    }

    #[test]
    fn refinements_collapse_as_in_cty() {
        let lengths = |min, max| Refinements {
            not_null: true,
            length_min: min,
            length_max: max,
            ..Default::default()
        };
        let v = Value::unknown(Type::list(Type::String))
            .refined(lengths(0, Some(0)))
            .unwrap();
        assert_eq!(v.elements().map(<[Value]>::len), Some(0));
        let v = Value::unknown(Type::set(Type::String))
            .refined(lengths(2, Some(2)))
            .unwrap();
        assert!(!v.is_known());
        let v = Value::unknown(Type::set(Type::String))
            .refined(lengths(1, Some(1)))
            .unwrap();
        assert_eq!(v.elements().map(<[Value]>::len), Some(1));
        let bound = |n: i64| {
            Some(crate::Bound {
                value: n.into(),
                inclusive: true,
            })
        };
        let r = Refinements {
            not_null: true,
            lower: bound(3),
            upper: bound(3),
            ..Default::default()
        };
        assert_eq!(
            Value::unknown(Type::Number).refined(r).unwrap(),
            Value::number(3)
        );
        let r = Refinements {
            lower: bound(3),
            upper: bound(3),
            ..Default::default()
        };
        assert!(!Value::unknown(Type::Number).refined(r).unwrap().is_known());
        assert!(Value::string("x").refined(Refinements::default()).is_err());
    }
}
#[cfg(test)]
mod size_probe {
    #[test]
    fn print_sizes() {
        eprintln!(
            "Value {} Repr {} Type {} Number {} CompactString {}",
            std::mem::size_of::<super::Value>(),
            std::mem::size_of::<super::Repr>(),
            std::mem::size_of::<crate::Type>(),
            std::mem::size_of::<crate::Number>(),
            std::mem::size_of::<compact_str::CompactString>()
        );
    }
}
