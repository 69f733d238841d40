//! cty values: known, null or unknown, each with its type.

use std::fmt;

use compact_str::CompactString;
use thin_vec::ThinVec;

use crate::error::{Error, Result};
use crate::mismatch::type_difference;
use crate::number::Number;
use crate::refinements::Refinements;
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
pub struct Value(Repr);

/// How a value is held. A known string, number or bool has only one
/// possible type, so only the other forms carry a [`Type`]; with that, and
/// collections behind single slim pointers, a `Value` takes 32 bytes — and
/// values are most of a decoded tree's memory.
#[derive(Clone)]
pub(crate) enum Repr {
    Null(Type),
    Unknown(Type, Option<Box<Refinements>>),
    String(CompactString),
    Number(Number),
    Bool(bool),
    /// Elements of a list, set (canonical order) or tuple, or attribute
    /// values of an object in the order of its type's attributes.
    Seq(Type, Box<[Value]>),
    /// Map entries sorted bytewise by key, keys unique. A thin vector (one
    /// pointer, length on the heap): a fat one would not leave room for the
    /// enum's tag within 32 bytes.
    Map(Type, ThinVec<(CompactString, Value)>),
}

// The types of the forms that do not carry one.
static STRING: Type = Type::String;
static NUMBER: Type = Type::Number;
static BOOL: Type = Type::Bool;

impl Value {
    pub(crate) fn from_repr(repr: Repr) -> Value {
        Value(repr)
    }

    pub(crate) fn repr(&self) -> &Repr {
        &self.0
    }

    /// A null of type `ty`.
    pub fn null(ty: Type) -> Value {
        Value(Repr::Null(ty))
    }

    /// An unknown of type `ty`, with no refinements.
    /// `Value::unknown(Type::Dynamic)` is cty's `DynamicVal`.
    pub fn unknown(ty: Type) -> Value {
        Value(Repr::Unknown(ty, None))
    }

    /// A string; normalized to NFC.
    pub fn string(s: impl Into<String>) -> Value {
        Value(Repr::String(CompactString::from(into_nfc(s.into()))))
    }

    /// A number.
    pub fn number(n: impl Into<Number>) -> Value {
        Value(Repr::Number(n.into()))
    }

    /// A bool.
    pub fn bool(b: bool) -> Value {
        Value(Repr::Bool(b))
    }

    /// A list. Elements must all have one type conforming to `elem`; a
    /// `dynamic` element type takes the type of the elements (so a list of
    /// strings declared `list(dynamic)` is a `list(string)`, as in cty).
    pub fn list(elem: Type, mut elements: Vec<Value>) -> Result<Value> {
        let ety = unify(&elem, &elements, "list")?;
        retype(&ety, &mut elements);
        Ok(Value(Repr::Seq(Type::list(ety), elements.into())))
    }

    /// A map. Keys are normalized to NFC; for a repeated key the last entry
    /// wins.
    pub fn map<K: Into<String>>(
        elem: Type,
        entries: impl IntoIterator<Item = (K, Value)>,
    ) -> Result<Value> {
        let entries: ThinVec<(CompactString, Value)> = entries
            .into_iter()
            .map(|(k, v)| (CompactString::from(into_nfc(k.into())), v))
            .collect();
        let mut entries = sorted_map_entries(entries);
        let ety = unify(&elem, entries.iter().map(|(_, v)| v), "map")?;
        retype(&ety, entries.iter_mut().map(|(_, v)| v));
        Ok(Value(Repr::Map(Type::map(ety), entries)))
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
        let ty = Type::object(dedup.iter().map(|(k, v)| (k.as_str(), v.ty().clone())));
        Value(Repr::Seq(ty, dedup.into_iter().map(|(_, v)| v).collect()))
    }

    /// A tuple of the given elements.
    pub fn tuple(elements: Vec<Value>) -> Value {
        let ty = Type::tuple(elements.iter().map(|e| e.ty().clone()));
        Value(Repr::Seq(ty, elements.into()))
    }

    /// This unknown value with refinements added, collapsed the way cty does:
    /// not-null with length exactly 0 is an empty collection; a not-null list
    /// of exactly N elements is a known list of N unknowns (a set: only for
    /// N = 1); a not-null number with equal inclusive bounds is that number.
    /// Refining a known value, or any `dynamic` value, is an error.
    pub fn refined(self, refinements: Refinements) -> Result<Value> {
        let Repr::Unknown(ty, existing) = self.0 else {
            return Err(Error::data("only unknown values can be refined"));
        };
        if ty == Type::Dynamic {
            if refinements.is_empty() {
                return Ok(Value(Repr::Unknown(ty, existing)));
            }
            return Err(Error::data("a value of unknown type cannot be refined"));
        }
        let mut r = match existing {
            Some(existing) => existing.merge(refinements)?,
            None => refinements,
        };
        r = r.validated(&ty)?;
        Ok(collapse(ty, r))
    }

    /// The type.
    pub fn ty(&self) -> &Type {
        match &self.0 {
            Repr::Null(t) | Repr::Unknown(t, _) | Repr::Seq(t, _) | Repr::Map(t, _) => t,
            Repr::String(_) => &STRING,
            Repr::Number(_) => &NUMBER,
            Repr::Bool(_) => &BOOL,
        }
    }

    /// cty gives a collection's nulls and unknowns of unknown type the
    /// collection's element type.
    fn take_element_type(&mut self, ety: &Type) {
        if let Repr::Null(t) | Repr::Unknown(t, _) = &mut self.0 {
            if *t == Type::Dynamic {
                *t = ety.clone();
            }
        }
    }

    /// Whether this is a null.
    pub fn is_null(&self) -> bool {
        matches!(self.0, Repr::Null(_))
    }

    /// Whether the value itself is known (its parts may still be unknown).
    pub fn is_known(&self) -> bool {
        !matches!(self.0, Repr::Unknown(..))
    }

    /// Whether no unknown appears anywhere in the value.
    pub fn is_wholly_known(&self) -> bool {
        match &self.0 {
            Repr::Unknown(..) => false,
            Repr::Seq(_, v) => v.iter().all(Value::is_wholly_known),
            Repr::Map(_, m) => m.iter().all(|(_, v)| v.is_wholly_known()),
            _ => true,
        }
    }

    /// The refinements of an unknown value (`None` for known values and for
    /// unknowns with no refinements).
    pub fn refinements(&self) -> Option<&Refinements> {
        match &self.0 {
            Repr::Unknown(_, Some(r)) => Some(r),
            _ => None,
        }
    }

    /// The string, if this is a known string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is a known number.
    pub fn as_number(&self) -> Option<&Number> {
        match &self.0 {
            Repr::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The bool, if this is a known bool.
    pub fn as_bool(&self) -> Option<bool> {
        match &self.0 {
            Repr::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The elements of a known list, set (in canonical order) or tuple.
    pub fn elements(&self) -> Option<&[Value]> {
        match &self.0 {
            Repr::Seq(Type::List(_) | Type::Set(_) | Type::Tuple(_), v) => Some(v),
            _ => None,
        }
    }

    /// The entries of a known map, sorted by key.
    pub fn entries(&self) -> Option<impl ExactSizeIterator<Item = (&str, &Value)>> {
        match &self.0 {
            Repr::Map(_, m) => Some(m.iter().map(|(k, v)| (&**k, v))),
            _ => None,
        }
    }

    /// The value at `key` of a known map.
    pub fn entry(&self, key: &str) -> Option<&Value> {
        match &self.0 {
            Repr::Map(_, m) => m
                .binary_search_by(|(k, _)| (**k).cmp(key))
                .ok()
                .map(|i| &m[i].1),
            _ => None,
        }
    }

    /// The attribute `name` of a known object.
    pub fn attr(&self, name: &str) -> Option<&Value> {
        match &self.0 {
            Repr::Seq(Type::Object(o), v) => o.index_of(name).map(|i| &v[i]),
            _ => None,
        }
    }

    /// The attributes of a known object, sorted by name.
    pub fn attributes(&self) -> Option<impl ExactSizeIterator<Item = (&str, &Value)>> {
        match &self.0 {
            Repr::Seq(Type::Object(o), v) => Some(o.attributes().map(|(n, _)| n).zip(v.iter())),
            _ => None,
        }
    }

    /// A copy of this known object with attribute `name` set to `value`
    /// (the object's type follows the new attribute's type). For instance,
    /// to plan a computed attribute as unknown. To change an object you own,
    /// [`set_attr`](Self::set_attr) does it without copying the rest.
    pub fn with_attr(&self, name: &str, value: Value) -> Result<Value> {
        let mut copy = self.clone();
        copy.set_attr(name, value)?;
        Ok(copy)
    }

    /// Sets attribute `name` of this known object to `value`, in place: the
    /// other attributes are neither copied nor rebuilt, and only when the
    /// new value's type differs from the old one's is the object's type
    /// rebuilt to follow it.
    ///
    /// ```
    /// use ctywire::{Type, Value};
    /// let mut planned = Value::object([("id", Value::null(Type::String)), ("name", Value::string("web"))]);
    /// planned.set_attr("id", Value::unknown(Type::String))?;
    /// assert!(!planned.attr("id").unwrap().is_known());
    /// assert!(planned.set_attr("nope", Value::string("x")).is_err());
    /// # Ok::<(), ctywire::Error>(())
    /// ```
    pub fn set_attr(&mut self, name: &str, value: Value) -> Result<()> {
        let not_an_object = |ty: &Type| {
            Error::data(format!(
                "only a known object has attributes (setting {name:?} on a {ty})"
            ))
        };
        let Repr::Seq(ty, values) = &mut self.0 else {
            return Err(not_an_object(self.ty()));
        };
        let Type::Object(o) = &*ty else {
            return Err(not_an_object(ty));
        };
        let Some(i) = o.attributes().position(|(n, _)| n == name) else {
            return Err(Error::data(format!("there is no attribute {name:?}")));
        };
        if values[i].ty() != value.ty() {
            let follows = Type::object(o.attributes().enumerate().map(|(j, (n, t))| {
                (
                    n,
                    if j == i {
                        value.ty().clone()
                    } else {
                        t.clone()
                    },
                )
            }));
            *ty = follows;
        }
        values[i] = value;
        Ok(())
    }

    /// Number of elements, entries or attributes of a known collection or
    /// structure.
    pub fn len(&self) -> Option<usize> {
        match &self.0 {
            Repr::Seq(_, v) => Some(v.len()),
            Repr::Map(_, m) => Some(m.len()),
            _ => None,
        }
    }

    /// Whether [`len`](Self::len) is zero.
    pub fn is_empty(&self) -> bool {
        self.len() == Some(0)
    }
}

/// Whether each key comes after the one before (so all are unique).
fn keys_ascend(entries: &[(CompactString, Value)]) -> bool {
    entries
        .windows(2)
        .all(|w| key_lt(w[0].0.as_bytes(), w[1].0.as_bytes()))
}

/// Map entries sorted by key; for equal keys the last one stays.
fn sorted_map_entries(
    mut entries: ThinVec<(CompactString, Value)>,
) -> ThinVec<(CompactString, Value)> {
    if keys_ascend(&entries) {
        return entries;
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: ThinVec<(CompactString, Value)> = ThinVec::with_capacity(entries.len());
    for e in entries {
        match out.last_mut() {
            Some(last) if last.0 == e.0 => *last = e,
            _ => out.push(e),
        }
    }
    out
}

/// Whether `a` sorts before `b`, bytewise (as `a < b` on strings). Map
/// keys are short and mostly differ within their first few bytes, where
/// this loop ends at once; `CompactString`'s `<` goes through a call to
/// `memcmp` for every pair, which cost ~54 instructions a pair (10% of
/// decoding the dynamic payload, whose 56,000 keys are checked in order).
/// (Comparing the first eight bytes as one word first was tried twice:
/// 4–9% faster on the 100,000-string map, 6% slower on the dynamic
/// payload, in paired runs.)
#[inline]
pub(crate) fn key_lt(a: &[u8], b: &[u8]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x < y;
        }
    }
    a.len() < b.len()
}

/// cty's `ListVal`/`SetVal`/`MapVal` rule for the element type: the first
/// element type that is not `dynamic`; every other element must have that
/// type or be of type `dynamic` itself. Empty collections keep `declared`.
pub(crate) fn unify<'a>(
    declared: &Type,
    elements: impl IntoIterator<Item = &'a Value>,
    kind: &str,
) -> Result<Type> {
    let mut ety: Option<&Type> = None;
    for (i, e) in elements.into_iter().enumerate() {
        let t = e.ty();
        if *t == Type::Dynamic {
            continue;
        }
        let at = crate::path::PathStep::Index(i as u64);
        if let Some(e) = type_difference(t, declared) {
            return Err(e.under(at));
        }
        match ety {
            None => ety = Some(t),
            Some(u) if u == t => {}
            // Two object types: say which attribute differs.
            Some(u @ Type::Object(_)) if matches!(t, Type::Object(_)) => {
                let e = type_difference(t, u).unwrap_or_else(|| Error::data("types differ"));
                let e = e.in_context(&format!(
                    "inconsistent {kind} element types (compared with the first element)"
                ));
                return Err(e.under(at));
            }
            Some(u) => {
                return Err(Error::data(format!(
                    "inconsistent {kind} element types: {} then {}",
                    u.to_json(),
                    t.to_json()
                ))
                .under(at))
            }
        }
    }
    // No element says more than the declaration (none at all, or only
    // nulls and unknowns of unknown type): the declaration stands.
    Ok(ety.cloned().unwrap_or_else(|| declared.clone()))
}

/// Gives `dynamic`-typed nulls and unknowns the collection's element type,
/// as cty does when it builds a collection from them.
pub(crate) fn retype<'a>(ety: &Type, elements: impl IntoIterator<Item = &'a mut Value>) {
    if *ety != Type::Dynamic {
        for e in elements {
            e.take_element_type(ety);
        }
    }
}

// Values as the decoders build them. When the declared type is static
// (no dynamic, no optional attributes) every part already has exactly the
// declared type, so it is reused; otherwise the parts decide, as in cty.

/// A list decoded at `ty`, whose element type is `ety`.
pub(crate) fn decoded_list(ty: &Type, ety: &Type, elems: Vec<Value>) -> Result<Value> {
    decoded_seq(ty, ety, elems, "list", |_, elems| elems, Type::list)
}

/// A list or set (`kind`) decoded at `ty`, whose element type is `ety`:
/// `arrange` puts the elements in their order once their type is settled,
/// `collection` makes the type of a collection of the settled element type.
pub(crate) fn decoded_seq(
    ty: &Type,
    ety: &Type,
    mut elems: Vec<Value>,
    kind: &str,
    arrange: impl FnOnce(&Type, Vec<Value>) -> Vec<Value>,
    collection: fn(Type) -> Type,
) -> Result<Value> {
    if ety.is_static() {
        let elems = arrange(ety, elems);
        return Ok(Value(Repr::Seq(ty.clone(), elems.into())));
    }
    let unified = unify(ety, &elems, kind)?;
    retype(&unified, &mut elems);
    let elems = arrange(&unified, elems);
    let ty = if unified == *ety {
        ty.clone()
    } else {
        collection(unified)
    };
    Ok(Value(Repr::Seq(ty, elems.into())))
}

/// A map decoded at `ty`, whose element type is `ety`; `entries` in wire
/// order (a repeated key: the last wins). `sorted`: the caller already saw
/// every key come after the one before.
pub(crate) fn decoded_map(
    ty: &Type,
    ety: &Type,
    entries: ThinVec<(CompactString, Value)>,
    sorted: bool,
) -> Result<Value> {
    debug_assert!(
        !sorted || keys_ascend(&entries),
        "keys said to be in order are not"
    );
    let mut entries = if sorted {
        entries
    } else {
        sorted_map_entries(entries)
    };
    if ety.is_static() || entries.is_empty() {
        return Ok(Value(Repr::Map(ty.clone(), entries)));
    }
    let unified = unify(ety, entries.iter().map(|(_, v)| v), "map")?;
    retype(&unified, entries.iter_mut().map(|(_, v)| v));
    Ok(Value(Repr::Map(Type::map(unified), entries)))
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
                .map(|((n, _), v)| (n, v.ty().clone())),
        )
    };
    Value(Repr::Seq(ty, values.into()))
}

/// A tuple decoded at `ty`.
pub(crate) fn decoded_tuple(ty: &Type, elems: Vec<Value>) -> Value {
    let ty = if ty.is_static() {
        ty.clone()
    } else {
        Type::tuple(elems.iter().map(|e| e.ty().clone()))
    };
    Value(Repr::Seq(ty, elems.into()))
}

/// cty's collapse of refinements that pin the value down completely.
pub(crate) fn collapse(ty: Type, r: Refinements) -> Value {
    if r.not_null {
        match &ty {
            Type::Number => {
                if let (Some(lo), Some(hi)) = (&r.lower, &r.upper) {
                    if lo.inclusive && hi.inclusive && lo.value.numeric_cmp(&hi.value).is_eq() {
                        return Value(Repr::Number(lo.value.clone()));
                    }
                }
            }
            Type::List(e) | Type::Set(e) | Type::Map(e) if r.length_max == Some(r.length_min) => {
                let n = r.length_min;
                let is_list = matches!(ty, Type::List(_));
                let is_set = matches!(ty, Type::Set(_));
                if n == 0 {
                    return Value(if matches!(ty, Type::Map(_)) {
                        Repr::Map(ty, ThinVec::new())
                    } else {
                        Repr::Seq(ty, Box::default())
                    });
                }
                if is_list || (is_set && n == 1) {
                    let elems = (0..n).map(|_| Value::unknown((**e).clone())).collect();
                    return Value(Repr::Seq(ty, elems));
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
    Value(Repr::Unknown(ty, refinements))
}

impl PartialEq for Value {
    /// Same type and same value; numbers compare as cty's `Equals` does,
    /// unknowns compare by their refinements.
    fn eq(&self, other: &Value) -> bool {
        match (&self.0, &other.0) {
            (Repr::Null(s), Repr::Null(t)) => s == t,
            (Repr::Unknown(s, a), Repr::Unknown(t, b)) => s == t && a == b,
            (Repr::String(a), Repr::String(b)) => a == b,
            (Repr::Number(a), Repr::Number(b)) => a == b,
            (Repr::Bool(a), Repr::Bool(b)) => a == b,
            (Repr::Seq(s, a), Repr::Seq(t, b)) => s == t && a == b,
            (Repr::Map(s, a), Repr::Map(t, b)) => s == t && a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Value {
    /// A readable, HCL-like rendering for messages and debugging, e.g.
    /// `{"a" = "x", "n" = 1}`, `(known after apply)`, `null`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Null(_) => f.write_str("null"),
            Repr::Unknown(..) => f.write_str("(known after apply)"),
            Repr::String(s) => write!(f, "{s:?}"),
            Repr::Number(n) => write!(f, "{n}"),
            Repr::Bool(b) => write!(f, "{b}"),
            Repr::Seq(ty, v) => {
                if let Type::Object(o) = ty {
                    f.write_str("{")?;
                    for (i, ((name, _), val)) in o.attributes().zip(v.iter()).enumerate() {
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
            Repr::Map(_, m) => {
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
        write!(f, "Value({} : {})", self, self.ty().to_json())?;
        if let Repr::Unknown(_, Some(r)) = &self.0 {
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

macro_rules! from_integer {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(n: $t) -> Value {
                Value::number(n)
            }
        }
    )*};
}
from_integer!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// A value taken apart by [`Value::into_parts`].
pub(crate) enum Parts {
    Attributes(Vec<(String, Value)>),
    Entries(Type, Vec<(String, Value)>),
    Elements(Type, Vec<Value>),
    Leaf(Value),
}

// Owned access and other conveniences.
impl Value {
    /// `Some(v)` as a value, `None` as a null of type `ty`: an optional
    /// attribute in one line.
    ///
    /// ```
    /// use ctywire::{Type, Value};
    /// assert_eq!(Value::from_option(Some(3), Type::Number), Value::number(3));
    /// assert_eq!(Value::from_option(None::<i64>, Type::Number), Value::null(Type::Number));
    /// ```
    pub fn from_option<T: Into<Value>>(v: Option<T>, ty: Type) -> Value {
        v.map_or_else(|| Value::null(ty), Into::into)
    }

    /// A number from an `f64`, as go-cty makes a number from a float64;
    /// NaN, which cty has no value for, is an error.
    pub fn from_f64(f: f64) -> Result<Value> {
        Number::from_f64(f).map(Value::number)
    }

    /// The integer, if this is a known number that is one and fits `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::to_i64)
    }

    /// The integer, if this is a known number that is one and fits `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::to_u64)
    }

    /// The nearest `f64`, if this is a known number.
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().map(Number::to_f64)
    }

    /// The attributes of a known object, by name in sorted order, without
    /// cloning them.
    pub fn into_attributes(self) -> Option<Vec<(String, Value)>> {
        match self.into_parts() {
            Parts::Attributes(attrs) => Some(attrs),
            _ => None,
        }
    }

    /// The elements of a known list, set (in canonical order) or tuple,
    /// without cloning them.
    pub fn into_elements(self) -> Option<Vec<Value>> {
        match self.into_parts() {
            Parts::Elements(_, elems) => Some(elems),
            _ => None,
        }
    }

    /// This value taken apart, for rebuilding: the attributes of a known
    /// object, the entries of a known map, the elements of a known list,
    /// set or tuple (each with the value's type), or the value itself.
    pub(crate) fn into_parts(self) -> Parts {
        match self.0 {
            Repr::Seq(Type::Object(o), v) => Parts::Attributes(
                o.attributes()
                    .map(|(n, _)| n.to_string())
                    .zip(v.into_vec())
                    .collect(),
            ),
            Repr::Seq(ty, v) => Parts::Elements(ty, v.into_vec()),
            Repr::Map(ty, m) => {
                Parts::Entries(ty, m.into_iter().map(|(k, v)| (k.into(), v)).collect())
            }
            repr => Parts::Leaf(Value(repr)),
        }
    }

    /// The entries of a known map, sorted by key, without cloning them.
    pub fn into_entries(self) -> Option<Vec<(String, Value)>> {
        match self.into_parts() {
            Parts::Entries(_, entries) => Some(entries),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_check_agrees_with_string_order() {
        let keys = [
            "",
            "a",
            "b",
            "ab",
            "aa",
            "a\u{0}",
            "abc",
            "abd",
            "abcd",
            "é",
            "e",
            "z",
            "zz",
            "tag-1",
            "tag-10",
            "tag-2",
            "\u{7f}",
            "\u{80}",
            "日本",
            // Around the eighth byte, and one a prefix of another.
            "abcdefgh",
            "abcdefgi",
            "abcdefg",
            "abcdefgh\u{0}",
            "abcdefgh1",
            "abcdefgh2",
            "abcdefgha",
            "abcdefghijklmnop",
            "abcdefghijklmnoq",
            "abcdefghijklmno",
            "abcdefghijklmnopq",
            "abcdefgé",
            "abcdefghé",
            "zbcdefgh",
            "Abcdefgh",
        ];
        for a in keys {
            for b in keys {
                assert_eq!(key_lt(a.as_bytes(), b.as_bytes()), a < b, "{a:?} < {b:?}");
            }
        }
    }

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
mod layout {
    /// Values are most of a decoded tree's memory: with 48-byte values the
    /// benchmark fleet decoded ~8% slower.
    #[test]
    fn a_value_takes_32_bytes() {
        assert_eq!(std::mem::size_of::<super::Value>(), 32);
    }
}
