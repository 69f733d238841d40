// The crate documentation is its README, the page crates.io shows: one text,
// and its examples run as doctests.
#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

// The repository's front README: its examples (a provider among them) need
// this crate's dependencies, so its doctests run here. cfg(doctest): the
// file is outside this package, so only doctest collection may read it.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct FrontReadme;

mod action;
mod builder;
mod checks;
mod context;
mod data_source;
pub mod dynamic;
mod ephemeral;
mod erased;
mod function;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod hooks;
mod identity;
mod list;
// The schema half lives in ctywire-model (no gRPC there, for Seasonings
// plugins); it stays reachable here under the same names.
pub use ctywire_model::{model, schema};
mod plan;
mod plan_hook;
mod private;
mod provider;
mod resource;
mod server;
mod state_store;
pub mod timeouts;
mod upgrade;
mod validate;
mod values;

pub use action::{Action, Progress};
pub use builder::{Builder, SchemaError};
pub use context::Context;
pub use ctywire;
pub use ctywire::{Path, Type, Unknowable, Value};
/// `#[derive(Model)]`: see [`Model`](trait@Model).
pub use ctywire_provider_derive::Model;
pub use ctywire_tfplugin6 as tfplugin6;
pub use ctywire_tfplugin6::{async_trait, Diagnostic, Diagnostics, FunctionError, RawState};
pub use data_source::DataSource;
pub use dynamic::{DynDataSource, DynEphemeral, DynFunction, DynResource};
pub use ephemeral::{EphemeralResource, Opened, Renewed};
pub use function::Function;
pub use hooks::ModelPlan;
pub use identity::Identity;
pub use list::{ListResource, Listing};
/// The `log` crate: its macros' events reach Terraform's log (`TF_LOG`)
/// once the provider serves, with no setup.
pub use log;
pub use model::{AttributeType, Model};
pub use plan_hook::PlanChange;
pub use provider::{FnProvider, Provider};
pub use resource::Resource;
pub use server::Framework;
pub use state_store::{
    LockError, LockInfo, StateStore, StateWriter, StoredState, DEFAULT_CHUNK_SIZE, MAX_CHUNK_SIZE,
};
pub use upgrade::StateUpgraders;

/// What a provider's methods return: a value, or diagnostics saying why not.
pub type Result<T, E = Diagnostics> = std::result::Result<T, E>;

// The derive's code names `::ctywire_provider`, in this crate too.
extern crate self as ctywire_provider;
