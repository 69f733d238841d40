//! Values by path: reading and replacing at a [`Path`], and walking or
//! transforming a whole value with the path of each part (go-cty's
//! `cty.Walk` and `cty.Transform`).

use crate::error::{Error, Result};
use crate::path::{Path, PathStep};
use crate::types::Type;
use crate::value::{Parts, Value};

impl Value {
    /// The value at `path`: attributes of objects, keys of maps, indexes
    /// of lists, tuples and sets (a set's index is the position in its
    /// canonical order). A step that does not exist is an error naming it,
    /// at the path of the value it was taken from.
    ///
    /// ```
    /// use ctywire::{Path, Type, Value};
    /// let v = Value::object([(
    ///     "listener",
    ///     Value::map(Type::Dynamic, [("http", Value::object([("port", Value::number(80))]))])?,
    /// )]);
    /// let port = v.get(&Path::root().attr("listener").key("http").attr("port"))?;
    /// assert_eq!(port.as_i64(), Some(80));
    /// let err = v.get(&Path::root().attr("listener").key("https")).unwrap_err();
    /// assert_eq!(err.to_string(), r#".listener: there is no key "https""#);
    /// # Ok::<(), ctywire::Error>(())
    /// ```
    pub fn get(&self, path: &Path) -> Result<&Value> {
        let mut v = self;
        for (n, step) in path.steps().iter().enumerate() {
            v = child(v, step).map_err(|e| e.within(&Path::from(path.steps()[..n].to_vec())))?;
        }
        Ok(v)
    }

    /// A copy of this value with the value at `path` replaced by `new`.
    /// Every value on the way is rebuilt, so types follow (an object's
    /// type takes the new attribute's type) and sets keep their canonical
    /// order; a collection refuses an element of another type.
    ///
    /// ```
    /// use ctywire::{Path, Value};
    /// let v = Value::object([("rule", Value::tuple(vec![Value::object([("note", Value::string("a"))])]))]);
    /// let path = Path::root().attr("rule").index(0).attr("note");
    /// let changed = v.with(&path, Value::string("b"))?;
    /// assert_eq!(changed.get(&path)?.as_str(), Some("b"));
    /// # Ok::<(), ctywire::Error>(())
    /// ```
    pub fn with(&self, path: &Path, new: Value) -> Result<Value> {
        replaced(self, path.steps(), new, &mut Path::root())
    }

    /// [`with`](Self::with), in place.
    pub fn set_at(&mut self, path: &Path, new: Value) -> Result<()> {
        *self = self.with(path, new)?;
        Ok(())
    }

    /// Calls `f` with the path and value of this value and of every part
    /// of it, parents before their parts. Returning `false` skips the
    /// parts of that value; an error stops the walk and is returned.
    ///
    /// ```
    /// use ctywire::{Path, Type, Value};
    /// let v = Value::object([("a", Value::unknown(Type::String)), ("b", Value::string("x"))]);
    /// let mut unknown = Vec::new();
    /// v.walk(|path, v| {
    ///     if !v.is_known() {
    ///         unknown.push(path.to_string());
    ///     }
    ///     Ok(true)
    /// })?;
    /// assert_eq!(unknown, [".a"]);
    /// # Ok::<(), ctywire::Error>(())
    /// ```
    pub fn walk(&self, mut f: impl FnMut(&Path, &Value) -> Result<bool>) -> Result<()> {
        walk(self, &mut Path::root(), &mut f)
    }

    /// This value with `f` applied to every part of it, parts before
    /// their parents (so `f` sees a parent with its parts already
    /// transformed), each with its path. Collections and objects are
    /// rebuilt from the transformed parts, so types follow them.
    ///
    /// Planning every null computed attribute as unknown:
    ///
    /// ```
    /// use ctywire::{Path, Type, Value};
    /// let proposed = Value::object([("id", Value::null(Type::String)), ("name", Value::string("web"))]);
    /// let computed = [Path::root().attr("id")];
    /// let planned = proposed.transform(|path, v| {
    ///     Ok(if v.is_null() && computed.contains(path) { Value::unknown(v.ty().clone()) } else { v })
    /// })?;
    /// assert!(!planned.attr("id").unwrap().is_known());
    /// assert_eq!(planned.attr("name").unwrap().as_str(), Some("web"));
    /// # Ok::<(), ctywire::Error>(())
    /// ```
    pub fn transform(self, mut f: impl FnMut(&Path, Value) -> Result<Value>) -> Result<Value> {
        transform(self, &mut Path::root(), &mut f)
    }
}

/// The part of `v` that `step` names.
fn child<'v>(v: &'v Value, step: &PathStep) -> Result<&'v Value> {
    if v.is_null() {
        return Err(Error::data(format!(
            "the value is null (looking for {})",
            describe(step)
        )));
    }
    if !v.is_known() {
        return Err(Error::data(format!(
            "the value is not known yet (looking for {})",
            describe(step)
        )));
    }
    match (v.ty(), step) {
        (Type::Object(_), PathStep::Attr(name)) => v
            .attr(name)
            .ok_or_else(|| Error::data(format!("there is no attribute {name:?}"))),
        (Type::Map(_), PathStep::Key(key)) => v
            .entry(key)
            .ok_or_else(|| Error::data(format!("there is no key {key:?}"))),
        (Type::List(_) | Type::Set(_) | Type::Tuple(_), PathStep::Index(i)) => {
            let elems = v.elements().unwrap_or(&[]);
            usize::try_from(*i)
                .ok()
                .and_then(|i| elems.get(i))
                .ok_or_else(|| {
                    Error::data(format!(
                        "index {i} is out of range ({} elements)",
                        elems.len()
                    ))
                })
        }
        (ty, step) => Err(Error::data(format!("a {ty} has no {}", describe(step)))),
    }
}

/// `v` with the value at `steps` replaced; `at` is `v`'s own path, for
/// errors.
fn replaced(v: &Value, steps: &[PathStep], new: Value, at: &mut Path) -> Result<Value> {
    let Some((step, rest)) = steps.split_first() else {
        return Ok(new);
    };
    // Checks the step exists, with the same errors as `get`.
    let old = child(v, step).map_err(|e| e.within(at))?;
    at.push(step.clone());
    let new_child = replaced(old, rest, new, at)?;
    at.pop();
    let rebuilt = match step {
        PathStep::Attr(name) => {
            Value::object(v.attributes().into_iter().flatten().map(|(n, a)| {
                (
                    n,
                    if n == name {
                        new_child.clone()
                    } else {
                        a.clone()
                    },
                )
            }))
        }
        PathStep::Key(key) => {
            let ety = v.ty().element_type().cloned().unwrap_or(Type::Dynamic);
            Value::map(
                ety,
                v.entries().into_iter().flatten().map(|(k, e)| {
                    (
                        k,
                        if k == key {
                            new_child.clone()
                        } else {
                            e.clone()
                        },
                    )
                }),
            )
            .map_err(|e| e.within(at))?
        }
        PathStep::Index(i) => {
            let mut elems = v.elements().unwrap_or(&[]).to_vec();
            if let Some(slot) = usize::try_from(*i).ok().and_then(|i| elems.get_mut(i)) {
                *slot = new_child;
            }
            rebuild_sequence(v.ty(), elems).map_err(|e| e.within(at))?
        }
    };
    Ok(rebuilt)
}

/// A list, set or tuple of type like `ty`, from new elements.
fn rebuild_sequence(ty: &Type, elems: Vec<Value>) -> Result<Value> {
    match ty {
        Type::List(e) => Value::list((**e).clone(), elems),
        Type::Set(e) => Value::set((**e).clone(), elems),
        _ => Ok(Value::tuple(elems)),
    }
}

fn walk(v: &Value, at: &mut Path, f: &mut impl FnMut(&Path, &Value) -> Result<bool>) -> Result<()> {
    if !f(at, v)? {
        return Ok(());
    }
    let mut part = |step: PathStep, v: &Value, at: &mut Path| {
        at.push(step);
        let r = walk(v, at, f);
        at.pop();
        r
    };
    if let Some(attrs) = v.attributes() {
        for (n, a) in attrs {
            part(PathStep::Attr(n.to_string()), a, at)?;
        }
    } else if let Some(entries) = v.entries() {
        for (k, e) in entries {
            part(PathStep::Key(k.to_string()), e, at)?;
        }
    } else if let Some(elems) = v.elements() {
        for (i, e) in elems.iter().enumerate() {
            part(PathStep::Index(i as u64), e, at)?;
        }
    }
    Ok(())
}

fn transform(
    v: Value,
    at: &mut Path,
    f: &mut impl FnMut(&Path, Value) -> Result<Value>,
) -> Result<Value> {
    let mut part = |step: PathStep, v: Value, at: &mut Path| {
        at.push(step);
        let r = transform(v, at, f);
        at.pop();
        r
    };
    let rebuilt = match v.into_parts() {
        Parts::Attributes(attrs) => {
            let mut out = Vec::with_capacity(attrs.len());
            for (n, a) in attrs {
                let a = part(PathStep::Attr(n.clone()), a, at)?;
                out.push((n, a));
            }
            Value::object(out)
        }
        Parts::Entries(ty, entries) => {
            let mut out = Vec::with_capacity(entries.len());
            for (k, e) in entries {
                let e = part(PathStep::Key(k.clone()), e, at)?;
                out.push((k, e));
            }
            let ety = ty.element_type().cloned().unwrap_or(Type::Dynamic);
            Value::map(ety, out).map_err(|e| e.within(at))?
        }
        Parts::Elements(ty, elems) => {
            let mut out = Vec::with_capacity(elems.len());
            for (i, e) in elems.into_iter().enumerate() {
                out.push(part(PathStep::Index(i as u64), e, at)?);
            }
            rebuild_sequence(&ty, out).map_err(|e| e.within(at))?
        }
        Parts::Leaf(v) => v,
    };
    f(at, rebuilt)
}

/// A step as a message names it: `attribute "a"`, `key "k"`, `index 3`.
fn describe(step: &PathStep) -> String {
    match step {
        PathStep::Attr(a) => format!("attribute {a:?}"),
        PathStep::Key(k) => format!("key {k:?}"),
        PathStep::Index(i) => format!("index {i}"),
    }
}
