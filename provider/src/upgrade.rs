//! Typed state upgraders: a stored state read with the schema of the
//! version it was written at, as that version's model, and turned into the
//! current model by the provider's function.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use ctywire::Value;
use ctywire_tfplugin6::{Diagnostic, Diagnostics, RawState};

use crate::model::{type_of, Model};
use crate::values::{read_state, write_model};

type Upgrade = dyn Fn(i64, &RawState) -> Result<Value, Diagnostics> + Send + Sync;

/// A resource's state upgraders, one per prior schema version, each from
/// that version's model to the current one `M`
/// (terraform-plugin-framework's `StateUpgraders` with a `PriorSchema`).
/// Returned by [`Resource::state_upgraders`](crate::Resource::state_upgraders).
///
/// For a state stored at a version with an upgrader, the framework reads
/// the stored JSON (or a Terraform 0.11 flatmap) with the schema the prior
/// model derives, exactly: an attribute that schema lacks is refused at
/// its path as go-cty refuses it ("unsupported attribute"), so a prior
/// model that does not match what was stored is found, not silently
/// trimmed. The upgrader gets the prior model and returns the current one,
/// which must be wholly known.
///
/// Each upgrader goes straight to the current model, as in
/// plugin-framework: when the schema moves on from version 1 to 2, the
/// version 0 upgrader is changed to return version 2's model too (usually
/// by calling the version 1 upgrader and the new one in turn), so a state
/// of any age takes one step. A version with no upgrader is refused
/// naming the version, unless there are none at all: then the stored state
/// is read at the current schema as it is.
///
/// ```
/// use ctywire_provider::{Model, StateUpgraders};
/// use ctywire_provider::tfplugin6::RawState;
/// use serde::{Deserialize, Serialize};
///
/// /// Version 0: one `name` holding "first last".
/// #[derive(Serialize, Deserialize, Model)]
/// struct PersonV0 {
///     name: String,
/// }
///
/// /// Version 1, the current one.
/// #[derive(Serialize, Deserialize, Model)]
/// struct Person {
///     first: String,
///     last: String,
/// }
///
/// fn from_v0(old: PersonV0) -> ctywire_provider::Result<Person> {
///     let (first, last) = old.name.split_once(' ').unwrap_or((&old.name, ""));
///     Ok(Person { first: first.into(), last: last.into() })
/// }
///
/// let upgraders = StateUpgraders::<Person>::new().prior(0, from_v0);
/// let stored = RawState { json: br#"{"name":"Ada Lovelace"}"#.to_vec(), ..Default::default() };
/// let upgraded = upgraders.upgrade(0, &stored)?;
/// assert_eq!(upgraded, Person { first: "Ada".into(), last: "Lovelace".into() }.to_value()?);
///
/// // What version 0's schema does not have was not written by it.
/// let odd = RawState { json: br#"{"name":"Ada","age":36}"#.to_vec(), ..Default::default() };
/// let refused = upgraders.upgrade(0, &odd).unwrap_err();
/// assert!(refused.iter().any(|d| d.detail.contains(r#"unsupported attribute "age""#)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct StateUpgraders<M> {
    by_version: BTreeMap<i64, Box<Upgrade>>,
    /// What building them found wrong (a version given twice, a prior
    /// model whose schema is refused), reported when the provider is built.
    defects: Vec<String>,
    current: PhantomData<fn() -> M>,
}

impl<M: Model> Default for StateUpgraders<M> {
    fn default() -> Self {
        StateUpgraders {
            by_version: BTreeMap::new(),
            defects: Vec::new(),
            current: PhantomData,
        }
    }
}

impl<M> fmt::Debug for StateUpgraders<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateUpgraders")
            .field("versions", &self.by_version.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl<M: Model> StateUpgraders<M> {
    /// No upgraders: a stored state of any version is read at the current
    /// schema as it is.
    pub fn new() -> Self {
        Self::default()
    }

    /// Upgrades states stored at schema `version` (older than the
    /// resource's [`VERSION`](crate::Resource::VERSION)): read as the prior
    /// model `P`, whose schema is derived like any model's, and given to
    /// `upgrade`.
    pub fn prior<P: Model>(
        mut self,
        version: i64,
        upgrade: impl Fn(P) -> Result<M, Diagnostics> + Send + Sync + 'static,
    ) -> Self {
        let step = move |version: i64, stored: &RawState| {
            let prior = read_prior::<P>(version, stored)?;
            write_model(&upgrade(prior)?, &type_of::<M>()?)
        };
        if self.by_version.insert(version, Box::new(step)).is_some() {
            self.defects
                .push(format!("two state upgraders from schema version {version}"));
        }
        if let Err(e) = P::block().check() {
            self.defects
                .push(format!("the prior model for schema version {version}: {e}"));
        }
        self
    }

    /// The versions that have an upgrader.
    fn versions(&self) -> impl Iterator<Item = i64> + '_ {
        self.by_version.keys().copied()
    }

    /// What is wrong with them for a resource at schema version
    /// `current`: found when the provider is built, not at the first
    /// upgrade.
    pub(crate) fn problems(&self, current: i64) -> Vec<String> {
        let mut found = self.defects.clone();
        for v in self.versions().filter(|v| !(0..current).contains(v)) {
            found.push(format!(
                "a state upgrader from schema version {v}, which is not a version before the current one ({current})"
            ));
        }
        found
    }

    /// The state stored at `version`, at the current model's type: through
    /// its upgrader, or read as it is when there are no upgraders. A
    /// resource overriding [`Resource::upgrade_state`](crate::Resource::upgrade_state)
    /// for some versions hands the rest here.
    pub fn upgrade(&self, version: i64, stored: &RawState) -> Result<Value, Diagnostics> {
        if let Some(step) = self.by_version.get(&version) {
            return step(version, stored);
        }
        if self.by_version.is_empty() {
            return Ok(stored.decode(&type_of::<M>()?)?);
        }
        let have: Vec<String> = self.versions().map(|v| v.to_string()).collect();
        Err(Diagnostic::error("Unable to Upgrade Resource State")
            .with_detail(format!(
                "The state was stored at schema version {version}, and the provider has state upgraders only from version {}. This is a bug in the provider: each prior version needs an upgrader to the current one.",
                have.join(", ")
            ))
            .into())
    }
}

/// The state stored at `version` read as its model `P`.
fn read_prior<P: Model>(version: i64, stored: &RawState) -> Result<P, Diagnostics> {
    let value = stored.decode(&type_of::<P>()?).map_err(|e| {
        Diagnostics::from(
            Diagnostic::error("Unable to Read Previously Saved State for UpgradeResourceState")
                .with_detail(format!(
                    "The state stored at schema version {version} does not fit the prior schema the provider declares for that version: {}. This is a bug in the provider: its model for version {version} must be the schema that version had.",
                    e.message()
                ))
                .at(e.path().clone()),
        )
    })?;
    read_state(value, "stored")
}
