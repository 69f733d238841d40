//! Conditional plan rules: when a change to a `requires_replace`
//! attribute replaces the object ([`ReplaceIf`]). The plan engine asks
//! [`ReplaceIf::replaces`] only where the planned value differs from the
//! prior one, as plugin-framework's `RequiresReplaceIf` modifiers are
//! only asked then.

use std::fmt;
use std::sync::Arc;

use ctywire::Value;

/// A condition in code: `f(prior, planned)` for the attribute, `true` to
/// replace. `planned` may be unknown (decided at apply) and either may be
/// null.
pub type ReplaceCondition = dyn Fn(&Value, &Value) -> bool + Send + Sync;

/// When a changed `requires_replace` attribute replaces the object
/// (`#[model(requires_replace(..))]`). Without one, any change does.
#[derive(Clone)]
pub enum ReplaceIf {
    /// Only when a value that is not null changes: for a map, a key whose
    /// value is not null is added, removed or changed (a key with a null
    /// value counts as absent); for anything else, a change to or from a
    /// null does not replace. plugin-framework's
    /// `RequiresReplaceIfValuesNotNull` (terraform-provider-random's
    /// `keepers`).
    ValuesNotNull,
    /// An empty value (`""`, or a collection with no elements) and null
    /// are alike: going from one to the other does not replace
    /// (terraform-provider-random's `override_special`).
    EmptyAsNull,
    /// The provider's own condition (`requires_replace(if = f)`).
    Custom(Arc<ReplaceCondition>),
}

impl fmt::Debug for ReplaceIf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplaceIf::ValuesNotNull => f.write_str("ValuesNotNull"),
            ReplaceIf::EmptyAsNull => f.write_str("EmptyAsNull"),
            ReplaceIf::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

impl ReplaceIf {
    /// A condition in code, from a function of (prior, planned).
    pub fn custom(f: impl Fn(&Value, &Value) -> bool + Send + Sync + 'static) -> Self {
        ReplaceIf::Custom(Arc::new(f))
    }

    /// Whether going from `prior` to `planned` (which differ) replaces
    /// the object. An unknown is a change to a value not yet known, so it
    /// replaces unless the rule can tell it does not matter.
    pub fn replaces(&self, prior: &Value, planned: &Value) -> bool {
        match self {
            ReplaceIf::ValuesNotNull => values_not_null_change(prior, planned),
            ReplaceIf::EmptyAsNull => !(empty_or_null(prior) && empty_or_null(planned)),
            ReplaceIf::Custom(f) => f(prior, planned),
        }
    }

    /// Its declaration's name, as `#[model(requires_replace(..))]` spells it.
    pub(crate) fn key(&self) -> &'static str {
        match self {
            ReplaceIf::ValuesNotNull => "if_values_not_null",
            ReplaceIf::EmptyAsNull => "empty_as_null",
            ReplaceIf::Custom(_) => "if",
        }
    }
}

/// Whether a value is known and null, `""`, or a collection without
/// elements.
fn empty_or_null(v: &Value) -> bool {
    v.is_null() || (v.is_known() && (v.as_str() == Some("") || v.len() == Some(0)))
}

/// `ValuesNotNull`'s rule: for two known maps, whether a key whose value
/// is not null (on either side) changes, a missing key read as null;
/// otherwise whether a non-null value changes.
fn values_not_null_change(prior: &Value, planned: &Value) -> bool {
    if prior.is_null() || planned.is_null() {
        // To or from null: a map's keys all come or go, so only non-null
        // values among them count; anything else is a null involved.
        let other = if prior.is_null() { planned } else { prior };
        return match other.entries() {
            Some(mut es) => es.any(|(_, v)| !v.is_null()),
            None => !other.is_known(),
        };
    }
    let (Some(mut p), Some(mut n)) = (prior.entries(), planned.entries()) else {
        // Not maps, or an unknown: a change between non-null values.
        return true;
    };
    // A key on one side only changes when its value is not null; on both,
    // when the values differ and either is not null.
    let changed = |v: &Value, other: Option<&Value>| match other {
        None => !v.is_null(),
        Some(o) => v != o && !(v.is_null() && o.is_null()),
    };
    p.any(|(k, v)| changed(v, planned.entry(k)))
        || n.any(|(k, v)| prior.entry(k).is_none() && changed(v, None))
}
