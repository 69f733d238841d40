//! Write Terraform providers in Rust.
//!
//! (Crate documentation: written with the kv example.)

#![warn(missing_docs)]

pub mod model;
pub(crate) mod objchange;
pub mod schema;

pub use ctywire;
pub use ctywire_tfplugin6 as tfplugin6;
pub use model::{AttributeType, Model};
