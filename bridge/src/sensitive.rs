//! Splitting a value into its ordinary and its sensitive parts, and back.

use ctywire::Value;
use ctywire::{Error, Result};
use ctywire::{Path, PathStep};

/// Splits `v` into `(state, sensitive)` by `paths`: `state` is `v` with
/// every sensitive part null, `sensitive` has the same shape with only the
/// sensitive parts set (and null everywhere else). [`merge_sensitive`]
/// puts them back together exactly.
///
/// A path into a set makes the whole set sensitive: set elements have no
/// position, and nulling part of one could merge it with another.
///
/// ```
/// use ctywire_bridge::{merge_sensitive, split_sensitive};
/// use ctywire::{Path, Value};
/// let v = Value::object([("user", Value::string("admin")), ("password", Value::string("hunter2"))]);
/// let (state, secret) = split_sensitive(&v, &[Path::root().attr("password")])?;
/// assert_eq!(state.to_string(), r#"{"password" = null, "user" = "admin"}"#);
/// assert_eq!(secret.to_string(), r#"{"password" = "hunter2", "user" = null}"#);
/// assert_eq!(merge_sensitive(&state, &secret)?, v);
/// # Ok::<(), ctywire::Error>(())
/// ```
pub fn split_sensitive(v: &Value, paths: &[Path]) -> Result<(Value, Value)> {
    let suffixes: Vec<&[PathStep]> = paths.iter().map(|p| p.steps()).collect();
    split(v, &suffixes, &mut Path::root())
}

fn fail(path: &Path, msg: String) -> Error {
    Error::data(msg).within(path)
}

fn split(v: &Value, suffixes: &[&[PathStep]], path: &mut Path) -> Result<(Value, Value)> {
    let null = || Value::null(v.ty().clone());
    if suffixes.is_empty() {
        return Ok((v.clone(), null()));
    }
    // The whole value is sensitive: a path ends here, or leads into
    // something without parts to split (a set, an unknown).
    if suffixes.iter().any(|s| s.is_empty())
        || matches!(v.ty(), ctywire::Type::Set(_))
        || !v.is_known()
    {
        return Ok((null(), v.clone()));
    }
    if v.is_null() {
        return Ok((v.clone(), null()));
    }
    let below = |step: &PathStep| -> Vec<&[PathStep]> {
        suffixes
            .iter()
            .filter(|s| s.first() == Some(step))
            .map(|s| &s[1..])
            .collect()
    };
    if let Some(attrs) = v.attributes() {
        check_steps(
            suffixes,
            path,
            |s| matches!(s, PathStep::Attr(n) if v.attr(n).is_some()),
        )?;
        let (mut state, mut secret) = (Vec::new(), Vec::new());
        for (name, e) in attrs {
            let step = PathStep::Attr(name.to_string());
            let sub = below(&step);
            path.push(step);
            let (a, b) = split(e, &sub, path)?;
            path.pop();
            state.push((name, a));
            secret.push((name, b));
        }
        return Ok((Value::object(state), Value::object(secret)));
    }
    if let Some(entries) = v.entries() {
        check_steps(
            suffixes,
            path,
            |s| matches!(s, PathStep::Key(k) if v.entry(k).is_some()),
        )?;
        let ety = v.ty().element_type().cloned().unwrap_or_default();
        let (mut state, mut secret) = (Vec::new(), Vec::new());
        for (key, e) in entries {
            let step = PathStep::Key(key.to_string());
            let sub = below(&step);
            path.push(step);
            let (a, b) = split(e, &sub, path)?;
            path.pop();
            state.push((key.to_string(), a));
            secret.push((key.to_string(), b));
        }
        return Ok((Value::map(ety.clone(), state)?, Value::map(ety, secret)?));
    }
    if let Some(items) = v.elements() {
        let n = items.len() as u64;
        check_steps(
            suffixes,
            path,
            |s| matches!(s, PathStep::Index(i) if *i < n),
        )?;
        let (mut state, mut secret) = (Vec::new(), Vec::new());
        for (i, e) in items.iter().enumerate() {
            let step = PathStep::Index(i as u64);
            let sub = below(&step);
            path.push(step);
            let (a, b) = split(e, &sub, path)?;
            path.pop();
            state.push(a);
            secret.push(b);
        }
        return Ok(match v.ty() {
            ctywire::Type::List(e) => (
                Value::list((**e).clone(), state)?,
                Value::list((**e).clone(), secret)?,
            ),
            _ => (Value::tuple(state), Value::tuple(secret)),
        });
    }
    Err(fail(
        path,
        format!(
            "a {} has no parts for a sensitive path to lead into",
            v.ty()
        ),
    ))
}

fn check_steps(
    suffixes: &[&[PathStep]],
    path: &Path,
    fits: impl Fn(&PathStep) -> bool,
) -> Result<()> {
    for s in suffixes {
        if let Some(step) = s.first() {
            if !fits(step) {
                let mut p = path.clone();
                p.push(step.clone());
                return Err(fail(
                    path,
                    format!("the sensitive path leads to {p}, which is not in the value"),
                ));
            }
        }
    }
    Ok(())
}

/// Puts together what [`split_sensitive`] took apart: wherever one side is
/// null the other is taken. Both sides setting the same part is an error.
pub fn merge_sensitive(state: &Value, sensitive: &Value) -> Result<Value> {
    merge(state, sensitive, &mut Path::root())
}

fn merge(a: &Value, b: &Value, path: &mut Path) -> Result<Value> {
    if b.is_null() {
        return Ok(a.clone());
    }
    if a.is_null() {
        return Ok(b.clone());
    }
    let mismatch = |path: &Path| {
        fail(
            path,
            "the state and the sensitive state differ in shape here".into(),
        )
    };
    if let (Some(x), Some(y)) = (a.attributes(), b.attributes()) {
        if x.len() != y.len() {
            return Err(mismatch(path));
        }
        let mut attrs = Vec::new();
        for ((n, p), (m, q)) in x.zip(y) {
            if n != m {
                return Err(mismatch(path));
            }
            path.push(PathStep::Attr(n.to_string()));
            attrs.push((n, merge(p, q, path)?));
            path.pop();
        }
        return Ok(Value::object(attrs));
    }
    if let (Some(x), Some(y)) = (a.entries(), b.entries()) {
        if x.len() != y.len() {
            return Err(mismatch(path));
        }
        let mut entries = Vec::new();
        for ((k, p), (l, q)) in x.zip(y) {
            if k != l {
                return Err(mismatch(path));
            }
            path.push(PathStep::Key(k.to_string()));
            entries.push((k.to_string(), merge(p, q, path)?));
            path.pop();
        }
        return Value::map(a.ty().element_type().cloned().unwrap_or_default(), entries);
    }
    if let (Some(x), Some(y), false) = (
        a.elements(),
        b.elements(),
        matches!(a.ty(), ctywire::Type::Set(_)),
    ) {
        if x.len() != y.len() {
            return Err(mismatch(path));
        }
        let mut items = Vec::new();
        for (i, (p, q)) in x.iter().zip(y).enumerate() {
            path.push(PathStep::Index(i as u64));
            items.push(merge(p, q, path)?);
            path.pop();
        }
        return match a.ty() {
            ctywire::Type::List(e) => Value::list((**e).clone(), items),
            _ => Ok(Value::tuple(items)),
        };
    }
    Err(fail(
        path,
        "both the state and the sensitive state hold a value here".into(),
    ))
}
