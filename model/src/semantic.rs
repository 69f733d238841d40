//! Semantic equality: when two different values of an attribute mean the
//! same (two spellings of one JSON document, a name in another case), so
//! that the plan keeps the prior value instead of reporting a change
//! (terraform-plugin-framework's semantic equality, core's "functionally
//! equivalent" planned value).
//!
//! A rule is a *canonical form*: two values mean the same when their
//! canonical forms are equal. Comparing canonical forms rather than pairs
//! of values is what keeps the plan linear: each element of a set is put
//! in canonical form once and matched by hash, never compared with every
//! other element (the quadratic walk behind plugin-framework #775/#1314).

use std::borrow::Borrow;
use std::fmt;
use std::sync::Arc;

use ctywire::{Type, Value};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A canonical form in code: `None` when the value has none (the rule
/// does not apply, and the value is compared as it is).
pub type Canonical = dyn Fn(&Value) -> Option<Value> + Send + Sync;

/// When two values of an attribute mean the same: declared on a type (its
/// [`AttributeType::semantic_equality`](crate::AttributeType::semantic_equality))
/// or on a field (`#[model(semantic_equality = f)]`).
///
/// ```
/// use ctywire_model::schema::SemanticEquality;
/// use ctywire_model::ctywire::{Type, Value};
///
/// let names = SemanticEquality::of::<String, str, _>(|s| s.to_lowercase());
/// assert!(names.same(&Value::string("Web"), &Value::string("WEB")));
/// assert!(!names.same(&Value::string("web"), &Value::string("db")));
/// // A null or unknown value means only itself.
/// assert!(!names.same(&Value::string("web"), &Value::null(Type::String)));
///
/// // On each element of a collection.
/// let each = names.each();
/// let set = |xs: &[&str]| Value::set(Type::String, xs.iter().map(|x| Value::string(*x)).collect()).unwrap();
/// assert!(each.same(&set(&["A", "b"]), &set(&["B", "a"])));
/// ```
#[derive(Clone)]
pub struct SemanticEquality(Rule);

#[derive(Clone)]
enum Rule {
    /// The value's own canonical form.
    Canonical(Arc<Canonical>),
    /// A list's, set's or map's elements, each by the inner rule.
    Each(Box<SemanticEquality>),
}

impl SemanticEquality {
    /// A rule on cty values: `canonical` gives a known, non-null value's
    /// canonical form, of the value's type.
    pub fn new(canonical: impl Fn(&Value) -> Option<Value> + Send + Sync + 'static) -> Self {
        SemanticEquality(Rule::Canonical(Arc::new(canonical)))
    }

    /// A rule on a Rust type: `canonical` receives the value read as a `T`
    /// (or anything `T` borrows as: `&str` for a `String`) and returns its
    /// canonical form. A value that cannot be read as a `T` has none.
    pub fn of<T, U, F>(canonical: F) -> Self
    where
        T: Serialize + DeserializeOwned + Borrow<U> + 'static,
        U: ?Sized,
        F: Fn(&U) -> T + Send + Sync + 'static,
    {
        SemanticEquality::new(move |value: &Value| {
            let t = ctywire::from_value::<T>(value).ok()?;
            ctywire::to_value(&canonical(t.borrow()), value.ty()).ok()
        })
    }

    /// This rule on each element of a list, set or map (what a collection
    /// of a type with semantic equality has).
    pub fn each(self) -> Self {
        SemanticEquality(Rule::Each(Box::new(self)))
    }

    /// The rule each element follows, when the rule is element-wise.
    pub fn elements(&self) -> Option<&SemanticEquality> {
        match &self.0 {
            Rule::Each(inner) => Some(inner),
            Rule::Canonical(_) => None,
        }
    }

    /// The canonical form of `value`: the value itself when it is null,
    /// not wholly known or has none.
    pub fn canonical(&self, value: &Value) -> Value {
        if value.is_null() || !value.is_wholly_known() {
            return value.clone();
        }
        match &self.0 {
            Rule::Canonical(f) => f(value).unwrap_or_else(|| value.clone()),
            Rule::Each(inner) => inner.each_canonical(value),
        }
    }

    /// Whether `a` and `b` mean the same: equal, or both known, non-null
    /// and of one canonical form.
    pub fn same(&self, a: &Value, b: &Value) -> bool {
        if a == b {
            return true;
        }
        let comparable = |v: &Value| !v.is_null() && v.is_wholly_known();
        comparable(a) && comparable(b) && self.canonical(a) == self.canonical(b)
    }

    /// A collection with each element in canonical form.
    fn each_canonical(&self, value: &Value) -> Value {
        let rebuilt = match value.ty() {
            Type::List(e) | Type::Set(e) => value.elements().and_then(|es| {
                let es = es.iter().map(|v| self.canonical(v)).collect();
                match value.ty() {
                    Type::Set(_) => Value::set(e.as_ref().clone(), es).ok(),
                    _ => Value::list(e.as_ref().clone(), es).ok(),
                }
            }),
            Type::Map(e) => value.entries().and_then(|es| {
                let es: Vec<(String, Value)> = es
                    .map(|(k, v)| (k.to_string(), self.canonical(v)))
                    .collect();
                Value::map(e.as_ref().clone(), es).ok()
            }),
            _ => None,
        };
        rebuilt.unwrap_or_else(|| value.clone())
    }
}

impl fmt::Debug for SemanticEquality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Rule::Canonical(_) => f.write_str("SemanticEquality(..)"),
            Rule::Each(inner) => f.debug_tuple("Each").field(inner).finish(),
        }
    }
}
