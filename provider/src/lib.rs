//! Write Terraform and OpenTofu providers in Rust: each resource, data
//! source, ephemeral resource and function is a type with a model, and the
//! model is the schema.
//!
//! * **One source of truth.** `#[derive(Model)]` on a serde struct gives
//!   the block Terraform sees: attribute names (serde's), cty types (the
//!   Rust types'; [`Value`] for dynamic), required/optional/computed,
//!   sensitive, write-only, descriptions (doc comments), deprecation,
//!   nested blocks and nested attributes of every nesting mode. A struct
//!   and its schema cannot drift: only one exists. See [`Model`].
//! * **One trait per kind:** [`Provider`] (configure → typed
//!   [`Provider::Data`] every call receives through [`Context::data`]),
//!   [`Resource`] (create, read, update, delete, import, upgrade, move),
//!   [`DataSource`], [`EphemeralResource`], [`Function`]. [`Builder`]
//!   registers each under its type name and serves them.
//! * **Terraform 1.12–1.15's additions (protocol 6.9–6.10)**, answered
//!   for every provider and ignored by older Terraform: a resource's
//!   *identity* is its model's `#[model(identity)]` attributes (schema,
//!   values through read/plan/apply/import/move, upgrades by
//!   [`Resource::IDENTITY_VERSION`], import by identity); a
//!   [`ListResource`] streams the objects a `list` block finds, typed and
//!   bounded; an [`Action`] takes a typed configuration and reports
//!   [`Progress`]; `GenerateResourceConfig` is derived from the schema; a
//!   model's deprecation messages reach the schema's 6.10 fields. Simple
//!   providers need no trait for configuring ([`Builder::from_fn`]) or for
//!   pure functions ([`Builder::pure_function`]).
//! * **Terraform's plan semantics by default.** No plan code: a computed
//!   attribute left out of the configuration is unknown when the object
//!   changes and kept when it does not (so a re-plan is empty);
//!   `keep_state`, `same_as`, `default` and `requires_replace` are declared
//!   on fields, also inside list, set and map blocks, whose elements are
//!   matched to their prior elements as Terraform matches them (sets by
//!   value). [`Resource::modify_plan`] may still adjust a plan.
//! * **Validators are declarations** (`range`, `length`, `pattern`,
//!   `one_of`, `each`, `validate = fn`), and an integer field refuses what
//!   its Rust type cannot hold at validation, in Terraform's words ("must
//!   be a whole number from 0 to 65535"), at the attribute's path.
//! * **Answers are checked before Terraform sees them** as Terraform
//!   checks them (its `AssertPlanValid` and `AssertObjectCompatible`): a
//!   provider bug is an error naming the attribute and saying whose bug it
//!   is.
//! * **Logging** through the [`log`] crate reaches Terraform's log
//!   (`TF_LOG`) as go-hclog JSON lines, with no setup; **StopProvider**
//!   cancels calls in flight and reaches handed-off work through
//!   [`Context::stopped`].
//! * **Testing in milliseconds:** [`testing::Harness`] is Terraform's core
//!   in-process, proven equal to Terraform 1.11 by this crate's
//!   `harness_matches_terraform` test.
//!
//! A resource `demo_note` whose `id` is its `name` (known at plan) and whose
//! `version` counts updates, planned, applied and re-planned through the
//! harness:
//!
//! ```
//! use std::collections::BTreeMap;
//! use std::sync::Mutex;
//!
//! use ctywire_provider::testing::Harness;
//! use ctywire_provider::{async_trait, Builder, Context, Model, Provider, Resource, Result};
//! use serde::{Deserialize, Serialize};
//! use serde_json::json;
//!
//! #[derive(Serialize, Deserialize, Model)]
//! struct Config {}
//!
//! /// Notes kept in memory.
//! struct Demo;
//! type Store = Mutex<BTreeMap<String, String>>;
//!
//! #[async_trait]
//! impl Provider for Demo {
//!     type Config = Config;
//!     type Data = Store;
//!     async fn configure(&self, _: Config) -> Result<Store> {
//!         Ok(Mutex::default())
//!     }
//! }
//!
//! /// A note.
//! #[derive(Serialize, Deserialize, Model)]
//! struct Note {
//!     /// Its name; a new name is a new note.
//!     #[model(requires_replace, length(min = 1))]
//!     name: String,
//!     /// Its text.
//!     text: String,
//!     /// The note's id: its name.
//!     #[model(computed, same_as = "name")]
//!     id: Option<String>,
//!     /// 1, and one more on every update.
//!     #[model(computed)]
//!     version: Option<u64>,
//! }
//!
//! struct Notes;
//!
//! #[async_trait]
//! impl Resource<Store> for Notes {
//!     type Model = Note;
//!
//!     async fn create(&self, ctx: &Context<Store>, plan: Note) -> Result<Note> {
//!         ctx.data().lock().unwrap().insert(plan.name.clone(), plan.text.clone());
//!         Ok(Note { version: Some(1), ..plan })
//!     }
//!     async fn read(&self, ctx: &Context<Store>, state: Note) -> Result<Option<Note>> {
//!         let exists = ctx.data().lock().unwrap().contains_key(&state.name);
//!         Ok(exists.then_some(state))
//!     }
//!     async fn update(&self, ctx: &Context<Store>, prior: Note, plan: Note) -> Result<Note> {
//!         ctx.data().lock().unwrap().insert(plan.name.clone(), plan.text.clone());
//!         Ok(Note { version: prior.version.map(|v| v + 1), ..plan })
//!     }
//!     async fn delete(&self, ctx: &Context<Store>, state: Note) -> Result<()> {
//!         ctx.data().lock().unwrap().remove(&state.name);
//!         Ok(())
//!     }
//! }
//!
//! # fn main() -> Result<()> {
//! let provider = Builder::new(Demo).resource("demo_note", Notes).build().unwrap();
//! let mut tf = Harness::new(provider)?;
//! tf.resource("demo_note.a", json!({ "name": "a", "text": "hello" }))?;
//!
//! let plan = tf.plan()?;
//! assert_eq!(plan.actions("demo_note.a"), ["create"]);
//! assert_eq!(plan.change("demo_note.a")["after"]["id"], "a"); // known at plan
//! assert_eq!(plan.change("demo_note.a")["after_unknown"]["version"], true);
//! tf.apply()?;
//! assert!(tf.plan()?.is_empty(), "nothing changed: nothing to do");
//!
//! tf.resource("demo_note.a", json!({ "name": "a", "text": "changed" }))?;
//! tf.apply()?;
//! assert_eq!(tf.state().values("demo_note.a")["version"], 2);
//! # Ok(())
//! # }
//! ```
//!
//! `main` of a provider binary (`terraform-provider-demo`) is then
//! `Builder::new(Demo).resource("demo_note", Notes).run()`: it serves the
//! way Terraform launches providers. The repository's `examples/kv` is a
//! whole provider in 200 lines.

#![warn(missing_docs)]

mod action;
mod checks;
mod context;
mod data_source;
mod ephemeral;
mod erased;
mod function;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod hclog;
mod identity;
mod list;
pub mod model;
mod objchange;
mod plan;
mod plan_hook;
mod provider;
mod resource;
pub mod schema;
mod server;
pub mod testing;
mod validate;
mod values;

pub use action::{Action, Progress};
pub use context::Context;
pub use ctywire;
pub use ctywire::{Path, Type, Unknowable, Value};
/// `#[derive(Model)]`: see [`Model`](trait@Model).
pub use ctywire_provider_derive::Model;
pub use ctywire_tfplugin6 as tfplugin6;
pub use ctywire_tfplugin6::{async_trait, Diagnostic, Diagnostics, FunctionError, RawState};
pub use data_source::DataSource;
pub use ephemeral::{EphemeralResource, Opened, Renewed};
pub use function::Function;
pub use identity::Identity;
pub use list::{ListResource, Listing};
/// The `log` crate: its macros' events reach Terraform's log (`TF_LOG`)
/// once the provider serves, with no setup.
pub use log;
pub use model::{AttributeType, Model};
pub use plan_hook::PlanChange;
pub use provider::{FnProvider, Provider};
pub use resource::Resource;
pub use server::{Builder, Framework, SchemaError};

/// What a provider's methods return: a value, or diagnostics saying why not.
pub type Result<T, E = Diagnostics> = std::result::Result<T, E>;

// The derive's code names `::ctywire_provider`, in this crate too.
extern crate self as ctywire_provider;
