//! The typed forms of the hooks a type's author writes: configuration
//! and plans read as the type's model, where the raw forms see `Value`s
//! ([`PlanChange`]). The raw hooks' defaults call these, so an author
//! writes one or the other.
//!
//! A model field that may be unknown holds one only as an
//! [`Unknowable`](ctywire::Unknowable): a hook that checks (`validate`,
//! an action's `plan`) is not called while the configuration holds an
//! unknown its model cannot (an unknown defers a check, as the model's own
//! validators do); the plan hook, which must answer, gets an error from
//! the read naming the attribute and the fix.

use std::marker::PhantomData;

use ctywire::{Path, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};

use crate::model::{type_of, Model};
use crate::plan_hook::PlanChange;
use crate::values::{read_state, write_model};

/// A checking hook's call on `config` read as `M`, unknowns kept: `check`
/// runs when the configuration fits the model, else it is deferred (see
/// [`checkable`]).
pub(crate) fn check_model<M: Model>(
    config: &Value,
    check: impl FnOnce(M) -> Diagnostics,
) -> Diagnostics {
    checkable(config).map_or_else(Diagnostics::new, check)
}

/// `config` read as `M`, unknowns kept, for a hook that checks it; `None`
/// when it does not fit the model (an unknown where the model has no
/// [`Unknowable`](ctywire::Unknowable), or a value the model cannot hold,
/// which the framework's validation reports): the check is deferred and
/// nothing is said.
pub(crate) fn checkable<M: Model>(config: &Value) -> Option<M> {
    ctywire::from_value::<M>(config).ok()
}

/// The framework's plan for one resource seen through its model `M`
/// ([`Resource::modify_plan_model`](crate::Resource::modify_plan_model)):
/// each value is read when asked for, so a hook pays only for what it
/// reads; [`set_planned`](Self::set_planned) changes the plan and
/// [`require_replace`](Self::require_replace) marks a field.
///
/// Unknowns (in the configuration, and in the plan where the provider
/// decides at apply) are read into the model's
/// [`Unknowable`](ctywire::Unknowable) fields; reading one into any other
/// field is an error at its path that says so.
pub struct ModelPlan<'a, M> {
    change: &'a mut PlanChange,
    model: PhantomData<fn() -> M>,
}

impl<'a, M: Model> ModelPlan<'a, M> {
    pub(crate) fn new(change: &'a mut PlanChange) -> Self {
        ModelPlan {
            change,
            model: PhantomData,
        }
    }

    /// Whether the object is being created (there is no prior state).
    pub fn is_create(&self) -> bool {
        self.change.is_create()
    }

    /// The configuration.
    pub fn config(&self) -> Result<M, Diagnostics> {
        read_plan_value(&self.change.config, "configuration")
    }

    /// The state before the change; `None` when creating.
    pub fn prior(&self) -> Result<Option<M>, Diagnostics> {
        if self.change.prior.is_null() {
            return Ok(None);
        }
        read_state(self.change.prior.clone(), "prior").map(Some)
    }

    /// The planned state as the framework's rules left it (and as
    /// [`set_planned`](Self::set_planned) changed it since).
    pub fn planned(&self) -> Result<M, Diagnostics> {
        read_plan_value(&self.change.planned, "planned state")
    }

    /// Replaces the planned state. The framework's checks that follow
    /// (core's: a configured value kept, a computed one only where the
    /// schema allows) hold for it as for the framework's own plan.
    pub fn set_planned(&mut self, planned: &M) -> Result<(), Diagnostics> {
        let ty = type_of::<M>()?;
        self.change.planned = write_model(planned, &ty)?;
        Ok(())
    }

    /// Marks the attribute at `path` as replacing the object, typically a
    /// field's path from the model's `field_paths()`
    /// (`Entry::field_paths().key`). Each path is reported once.
    pub fn require_replace(&mut self, path: Path) {
        if !self.change.requires_replace.contains(&path) {
            self.change.requires_replace.push(path);
        }
    }

    /// The attributes whose change replaces the object: the framework's
    /// rules' and the hook's.
    pub fn requires_replace(&self) -> &[Path] {
        &self.change.requires_replace
    }

    /// What the hook reports beside its plan ([`PlanChange::diagnostics`]).
    pub fn diagnostics(&mut self) -> &mut Diagnostics {
        &mut self.change.diagnostics
    }

    /// The same plan as raw values, for what the model cannot say.
    pub fn raw(&mut self) -> &mut PlanChange {
        self.change
    }
}

/// A configuration or planned state (`which`) read as `M`, unknowns
/// kept: a field that cannot hold one is the provider's to fix.
fn read_plan_value<M: Model>(value: &Value, which: &str) -> Result<M, Diagnostics> {
    ctywire::from_value(value).map_err(|e| {
        Diagnostics::from(
            Diagnostic::error("Plan hook cannot read the plan as its model")
                .with_detail(format!(
                    "The {which} does not fit the resource's model: {}. A field that may be unknown while planning must be a ctywire::Unknowable (or the hook can read the raw values). This is a bug in the provider.",
                    e.message()
                ))
                .at(e.path().clone()),
        )
    })
}
