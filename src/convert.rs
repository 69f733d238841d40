//! Converting a value to another type: the one place that says what may
//! stand for what.
//!
//! go-cty converts once, before it writes (`Marshal` calls
//! `convert.Convert` when the value does not conform to the type), and its
//! encoders then only write. ctywire does the same: [`Value::convert`] is
//! go-cty's (unsafe) `Convert`, both encoders call [`conformed`] first, and
//! the decoders take their string → number and string → bool rules from
//! here.
//!
//! | from | to | rule |
//! |---|---|---|
//! | any | `dynamic` | unchanged |
//! | number, bool | string | the number's decimal text; `"true"` / `"false"` |
//! | string | number | the decimal text it holds (`"1e3"`), else an error |
//! | string | bool | `"true"`/`"1"` and `"false"`/`"0"`, else an error |
//! | list, set | list, set | element by element (a set is de-duplicated) |
//! | tuple | list, set | element by element; under `dynamic` the elements must agree on a type |
//! | tuple | tuple | element by element, same length |
//! | map | map | entry by entry |
//! | map | object | a key per attribute (optional ones may be absent); no other keys |
//! | object | map | attribute by attribute |
//! | object | object | every attribute of the target (optional ones may be absent, and become null); attributes the target lacks are dropped, as go-cty drops them |
//!
//! Nulls and unknowns keep their place, at the target type; an unknown
//! keeps what still holds of its refinements (not null; length bounds
//! between collections of the same kind). A null or unknown, and an empty
//! collection, still needs a conversion between the types to exist.

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::mismatch::{mismatch, missing_attributes};
use crate::number::Number;
use crate::path::PathStep;
use crate::refinements::Refinements;
use crate::types::{ObjectType, Type};
use crate::value::{Repr, Value};

impl Value {
    /// This value as a value of type `ty`, by go-cty's conversion rules
    /// (the table in this module's source; in short: primitives convert
    /// through their text, tuples to lists and sets, objects to maps and
    /// to objects with fewer attributes).
    ///
    /// ```
    /// use ctywire::{Type, Value};
    /// let v = Value::tuple(vec![Value::string("1"), Value::number(2)]);
    /// let l = v.convert(&Type::list(Type::Number))?;
    /// assert_eq!(l, Value::list(Type::Number, vec![Value::number(1), Value::number(2)])?);
    ///
    /// let rule = Value::object([("port", Value::number(80))]);
    /// let want = Type::parse(r#"["object",{"port":"number","note":"string"}]"#)?;
    /// let err = Value::list(rule.ty().clone(), vec![rule])?
    ///     .convert(&Type::list(want))
    ///     .unwrap_err();
    /// assert_eq!(err.to_string(), r#"[0]: attribute "note" is missing"#);
    /// # Ok::<(), ctywire::Error>(())
    /// ```
    pub fn convert(&self, ty: &Type) -> Result<Value> {
        Converter::GO_CTY.value(self, ty)
    }

    /// [`convert`](Self::convert) for values that arrive as plain data
    /// (JSON props from a child process): an object attribute the target
    /// type lacks is an error instead of being dropped (a mistake to
    /// report, not data to lose), and one it leaves out is null, as
    /// go-cty's JSON decoder reads a missing attribute.
    ///
    /// ```
    /// use ctywire::{Type, Value};
    /// let want = Type::parse(r#"["object",{"port":"number","note":"string"}]"#)?;
    /// let v = Value::object([("port", Value::string("80"))]).convert_strict(&want)?;
    /// assert_eq!(v.attr("note"), Some(&Value::null(Type::String)));
    /// let extra = Value::object([("port", Value::number(80)), ("prot", Value::number(6))]);
    /// assert!(extra.convert_strict(&want).is_err());
    /// assert!(extra.convert(&want).is_err()); // "note" is missing for convert
    /// # Ok::<(), ctywire::Error>(())
    /// ```
    pub fn convert_strict(&self, ty: &Type) -> Result<Value> {
        Converter {
            drop_extra: false,
            missing_is_null: true,
        }
        .value(self, ty)
    }
}

/// `v` as a value of type `ty`, borrowed when it already conforms: what
/// both encoders write.
pub(crate) fn conformed<'v>(v: &'v Value, ty: &Type) -> Result<Cow<'v, Value>> {
    if v.ty().conforms_to(ty) {
        Ok(Cow::Borrowed(v))
    } else {
        v.convert(ty).map(Cow::Owned)
    }
}

// ---- primitive rules, shared with the decoders ----------------------------

/// A number from its decimal text (`"12"`, `"-1.5e3"`): go-cty's
/// string → number conversion, also how both decoders read a number sent
/// as a string.
pub(crate) fn number_from_string(s: &str, max_exponent: u32) -> Result<Number> {
    Number::parse_with_limit(s, max_exponent).map_err(|e| match e.category() {
        // A number too large to hold is a limit, and says so.
        crate::Category::Limit => e,
        // go-cty's message; the string itself may be long, so it is left out.
        _ => Error::data("a number is required"),
    })
}

/// A bool from a string: go-cty accepts exactly `"true"`, `"1"`, `"false"`
/// and `"0"`, and hints at the lowercase spelling for `"True"`.
pub(crate) fn bool_from_string(s: &str) -> Result<bool> {
    match s {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ if s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false") => {
            Err(Error::data(format!(
                "a bool is required; to convert from string, use lowercase \"{}\"",
                s.to_ascii_lowercase()
            )))
        }
        _ => Err(Error::data("a bool is required")),
    }
}

/// A number's text as a string value: go-cty's `Text('f', -1)`, which
/// never uses an exponent.
fn string_from_number(n: &Number) -> Value {
    Value::string(n.to_string())
}

// ---- the conversion -------------------------------------------------------

#[derive(Clone, Copy)]
struct Converter {
    /// Whether attributes the target object type lacks are dropped.
    drop_extra: bool,
    /// Whether attributes of the target left out are null (else only
    /// optional ones may be left out).
    missing_is_null: bool,
}

impl Converter {
    const GO_CTY: Converter = Converter {
        drop_extra: true,
        missing_is_null: false,
    };

    fn value(self, v: &Value, to: &Type) -> Result<Value> {
        // A conforming value needs nothing (and, being of the same object
        // types, has no extra attribute to drop or refuse).
        if v.ty().conforms_to(to) {
            return Ok(v.clone());
        }
        match v.repr() {
            Repr::Null(from) => {
                convertible(from, to)?;
                Ok(Value::null(dynamic_replaced(from, to)))
            }
            Repr::Unknown(from, r) => {
                convertible(from, to)?;
                let ty = dynamic_replaced(from, to);
                let kept = r.as_deref().map(|r| kept_refinements(r, from, &ty));
                match kept {
                    Some(r) if !r.is_empty() => Value::unknown(ty).refined(r),
                    _ => Ok(Value::unknown(ty)),
                }
            }
            Repr::String(s) => match to {
                Type::Number => Ok(Value::number(number_from_string(
                    s,
                    crate::DEFAULT_MAX_NUMBER_EXPONENT,
                )?)),
                Type::Bool => Ok(Value::bool(bool_from_string(s)?)),
                _ => Err(mismatch(v.ty(), to)),
            },
            Repr::Number(n) => match to {
                Type::String => Ok(string_from_number(n)),
                _ => Err(mismatch(v.ty(), to)),
            },
            Repr::Bool(b) => match to {
                Type::String => Ok(Value::string(if *b { "true" } else { "false" })),
                _ => Err(mismatch(v.ty(), to)),
            },
            Repr::Seq(from, items) => self.sequence(from, items, to),
            Repr::Map(_, entries) => {
                let entries = entries.iter().map(|(k, v)| (&**k, v));
                match to {
                    Type::Map(ety) => self.into_map(entries, ety),
                    Type::Object(oty) => self.map_into_object(entries, oty),
                    _ => Err(mismatch(v.ty(), to)),
                }
            }
        }
    }

    /// A list, set, tuple or object value to `to`.
    fn sequence(self, from: &Type, items: &[Value], to: &Type) -> Result<Value> {
        match (from, to) {
            (Type::List(_) | Type::Set(_) | Type::Tuple(_), Type::List(ety) | Type::Set(ety)) => {
                // With no element to try, the element types must convert.
                if let (true, Some(from_ety)) = (items.is_empty(), from.element_type()) {
                    convertible(from_ety, ety)?;
                }
                let is_set = matches!(to, Type::Set(_));
                let steps = (0..).map(|i| PathStep::Index(i as u64));
                let kind = if is_set { "set" } else { "list" };
                let elems = self.elements(steps.zip(items.iter()), ety, kind)?;
                if is_set {
                    Value::set((**ety).clone(), elems)
                } else {
                    Value::list((**ety).clone(), elems)
                }
            }
            (Type::Tuple(_), Type::Tuple(etys)) => {
                if items.len() != etys.len() {
                    return Err(Error::data(format!(
                        "a tuple of {} elements is required, not {}",
                        etys.len(),
                        items.len()
                    )));
                }
                let elems = items
                    .iter()
                    .zip(etys.iter())
                    .enumerate()
                    .map(|(i, (e, ety))| {
                        self.value(e, ety)
                            .map_err(|err| err.under(PathStep::Index(i as u64)))
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok(Value::tuple(elems))
            }
            (Type::Object(from_o), Type::Object(to_o)) => self.object(from_o, items, to_o),
            (Type::Object(from_o), Type::Map(ety)) => {
                let entries = from_o.attributes().map(|(n, _)| n).zip(items.iter());
                self.into_map(entries, ety)
            }
            _ => Err(mismatch(from, to)),
        }
    }

    /// Entries (of a map, or attributes of an object) as a map of `ety`.
    fn into_map<'a>(
        self,
        entries: impl Iterator<Item = (&'a str, &'a Value)>,
        ety: &Type,
    ) -> Result<Value> {
        let (keys, values): (Vec<&str>, Vec<&Value>) = entries.unzip();
        let steps = keys.iter().map(|k| PathStep::Key(k.to_string()));
        let values = self.elements(steps.zip(values), ety, "map")?;
        Value::map(ety.clone(), keys.into_iter().zip(values))
    }

    fn object(self, from: &ObjectType, items: &[Value], to: &ObjectType) -> Result<Value> {
        let members = from.attributes().map(|(n, _)| n).zip(items.iter());
        self.members_into_object(members, to, |n| PathStep::Attr(n.to_string()))
    }

    fn map_into_object<'a>(
        self,
        entries: impl Iterator<Item = (&'a str, &'a Value)>,
        to: &ObjectType,
    ) -> Result<Value> {
        self.members_into_object(entries, to, |k| PathStep::Key(k.to_string()))
    }

    /// An object's attributes or a map's entries as an object of type
    /// `to`; `step` names a member in the source's own terms, for errors.
    fn members_into_object<'a>(
        self,
        members: impl Iterator<Item = (&'a str, &'a Value)>,
        to: &ObjectType,
        step: impl Fn(&str) -> PathStep,
    ) -> Result<Value> {
        let mut found: Vec<Option<&Value>> = vec![None; to.len()];
        for (name, v) in members {
            match to.index_of(name) {
                Some(i) => found[i] = Some(v),
                // go-cty drops what the target type lacks.
                None if self.drop_extra => {}
                None => return Err(unexpected_attribute(name, to)),
            }
        }
        if !self.missing_is_null {
            missing_attributes(to, |i, _| found[i].is_none() && !to.is_optional(i))?;
        }
        let mut attrs = Vec::with_capacity(to.len());
        for ((name, aty), v) in to.attributes().zip(found) {
            let v = match v {
                Some(v) => self.value(v, aty).map_err(|e| e.under(step(name)))?,
                // An optional attribute left out is null.
                None => Value::null(aty.without_optional_attributes()),
            };
            attrs.push((name, v));
        }
        Ok(Value::object(attrs))
    }

    /// Elements (or entries) converted to `ety`. Under `dynamic` they
    /// keep their types, which must then agree, or unify as go-cty's
    /// `convert.Unify` does for the common cases (see [`unify`]).
    fn elements<'a>(
        self,
        items: impl Iterator<Item = (PathStep, &'a Value)>,
        ety: &Type,
        kind: &str,
    ) -> Result<Vec<Value>> {
        let items: Vec<(PathStep, &Value)> = items.collect();
        let target = if *ety == Type::Dynamic {
            let types: Vec<&Type> = items
                .iter()
                .map(|(_, v)| v.ty())
                .filter(|t| **t != Type::Dynamic)
                .collect();
            match unify(&types) {
                Some(t) => t,
                // go-cty's message.
                None => {
                    return Err(Error::data(format!(
                        "all {kind} elements must have the same type"
                    )))
                }
            }
        } else {
            ety.clone()
        };
        items
            .into_iter()
            .map(|(step, v)| self.value(v, &target).map_err(|e| e.under(step)))
            .collect()
    }
}

/// The one type all of `types` convert to, if there is one: go-cty's
/// `Unify` for the cases values meet in practice. Equal types unify to
/// themselves; primitives with a string among them to string (a number
/// and a bool have none); lists, sets and maps by their element types;
/// objects with the same attribute names and tuples of the same length
/// attribute by attribute. No types at all: `dynamic`.
fn unify(types: &[&Type]) -> Option<Type> {
    let Some(first) = types.first() else {
        return Some(Type::Dynamic);
    };
    if types.iter().all(|t| t == first) {
        return Some((*first).clone());
    }
    if types.iter().all(|t| t.is_primitive()) {
        return types.contains(&&Type::String).then_some(Type::String);
    }
    let parts = |f: &dyn Fn(&Type) -> Option<&Type>| -> Option<Type> {
        let inner: Option<Vec<&Type>> = types.iter().map(|t| f(t)).collect();
        unify(&inner?)
    };
    match first {
        Type::List(_) => parts(&|t| match t {
            Type::List(e) => Some(e),
            _ => None,
        })
        .map(Type::list),
        Type::Set(_) => parts(&|t| match t {
            Type::Set(e) => Some(e),
            _ => None,
        })
        .map(Type::set),
        Type::Map(_) => parts(&|t| match t {
            Type::Map(e) => Some(e),
            _ => None,
        })
        .map(Type::map),
        Type::Object(o) => {
            let mut attrs = Vec::with_capacity(o.len());
            for (i, (name, _)) in o.attributes().enumerate() {
                let t = parts(&|t| match t {
                    Type::Object(x) if x.len() == o.len() && x.name(i) == name => {
                        Some(x.attribute_type_at(i))
                    }
                    _ => None,
                })?;
                attrs.push((name, t));
            }
            Some(Type::object(attrs))
        }
        Type::Tuple(es) => {
            let mut elems = Vec::with_capacity(es.len());
            for i in 0..es.len() {
                elems.push(parts(&|t| match t {
                    Type::Tuple(x) if x.len() == es.len() => Some(&x[i]),
                    _ => None,
                })?);
            }
            Some(Type::tuple(elems))
        }
        _ => None,
    }
}

/// Whether go-cty has a conversion from type `from` to type `to` at all:
/// what a null, an unknown or an empty collection must satisfy, since
/// there is no element to try.
fn convertible(from: &Type, to: &Type) -> Result<()> {
    let ok = match (from, to) {
        (_, Type::Dynamic) | (Type::Dynamic, _) => true,
        (a, b) if a.is_primitive() && b.is_primitive() => {
            a == b || *b == Type::String || *a == Type::String
        }
        (Type::List(a) | Type::Set(a), Type::List(b) | Type::Set(b))
        | (Type::Map(a), Type::Map(b)) => return convertible(a, b),
        (Type::Tuple(a), Type::List(b) | Type::Set(b)) => {
            for (i, e) in a.iter().enumerate() {
                convertible(e, b).map_err(|err| err.under(PathStep::Index(i as u64)))?;
            }
            true
        }
        (Type::Tuple(a), Type::Tuple(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                convertible(x, y).map_err(|err| err.under(PathStep::Index(i as u64)))?;
            }
            true
        }
        (Type::Object(a), Type::Map(b)) => {
            for (n, t) in a.attributes() {
                convertible(t, b).map_err(|err| err.under(PathStep::Key(n.to_string())))?;
            }
            true
        }
        (Type::Map(a), Type::Object(b)) => {
            for (n, t) in b.attributes() {
                convertible(a, t).map_err(|err| err.under(PathStep::Key(n.to_string())))?;
            }
            true
        }
        (Type::Object(a), Type::Object(b)) => {
            missing_attributes(b, |i, n| !b.is_optional(i) && a.index_of(n).is_none())?;
            for (n, t) in b.attributes() {
                if let Some(i) = a.index_of(n) {
                    convertible(a.attribute_type_at(i), t)
                        .map_err(|err| err.under(PathStep::Attr(n.to_string())))?;
                }
            }
            true
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(mismatch(from, to))
    }
}

/// `to` with its `dynamic` parts replaced by what `from` knows there, and
/// without optional-attribute markers: the type of a converted null or
/// unknown (go-cty's `dynamicReplace`).
fn dynamic_replaced(from: &Type, to: &Type) -> Type {
    match (from, to) {
        (_, Type::Dynamic) => from.clone(),
        (Type::List(a), Type::List(b)) => Type::list(dynamic_replaced(a, b)),
        (Type::Set(a), Type::Set(b)) => Type::set(dynamic_replaced(a, b)),
        (Type::Map(a), Type::Map(b)) => Type::map(dynamic_replaced(a, b)),
        (Type::Tuple(a), Type::Tuple(b)) if a.len() == b.len() => {
            Type::tuple(a.iter().zip(b.iter()).map(|(x, y)| dynamic_replaced(x, y)))
        }
        (Type::Object(a), Type::Object(b)) => Type::object(b.attributes().map(|(n, t)| {
            let t = match a.index_of(n) {
                Some(i) => dynamic_replaced(a.attribute_type_at(i), t),
                None => t.without_optional_attributes(),
            };
            (n, t)
        })),
        _ => to.without_optional_attributes(),
    }
}

/// What an unknown's refinements still say once converted from `from` to
/// `to`: that it is not null, and length bounds between collections of the
/// same kind (a list becoming a set may lose elements, so only its upper
/// bound holds, and a lower bound of one).
fn kept_refinements(r: &Refinements, from: &Type, to: &Type) -> Refinements {
    let mut kept = Refinements {
        not_null: r.not_null,
        ..Default::default()
    };
    let same_kind = matches!(
        (from, to),
        (Type::List(_), Type::List(_))
            | (Type::Set(_), Type::Set(_) | Type::List(_))
            | (Type::Map(_), Type::Map(_))
    );
    if same_kind {
        kept.length_min = r.length_min;
        kept.length_max = r.length_max;
    } else if matches!((from, to), (Type::List(_), Type::Set(_))) {
        kept.length_min = r.length_min.min(1);
        kept.length_max = r.length_max;
    }
    if *from == *to {
        kept.string_prefix = r.string_prefix.clone();
        kept.lower = r.lower.clone();
        kept.upper = r.upper.clone();
    }
    kept
}

fn unexpected_attribute(name: &str, to: &ObjectType) -> Error {
    let valid: Vec<&str> = to.attributes().map(|(n, _)| n).collect();
    Error::data(format!(
        "unexpected attribute {name:?}; the attributes are {}",
        if valid.is_empty() {
            "none".to_string()
        } else {
            format!("{valid:?}")
        }
    ))
}
