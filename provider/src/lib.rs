//! Write Terraform providers in Rust.
//!
//! (Crate documentation: written with the kv example.)

#![warn(missing_docs)]

pub mod model;
pub(crate) mod objchange;
#[allow(dead_code)] // until the dispatch layer plans with it
mod plan;
pub mod schema;
#[allow(dead_code)] // until the dispatch layer validates with it
mod validate;

pub use ctywire;
pub use ctywire_tfplugin6 as tfplugin6;
pub use model::{AttributeType, Model};
