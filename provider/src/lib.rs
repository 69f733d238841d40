//! Write Terraform providers in Rust.
//!
//! (Crate documentation: written with the kv example.)

#![warn(missing_docs)]

pub mod model;
pub mod schema;

pub use ctywire;
/// `#[derive(Model)]`: see [`Model`](trait@Model).
pub use ctywire_provider_derive::Model;
pub use ctywire_tfplugin6 as tfplugin6;
pub use model::{AttributeType, Model};

// The derive's code names `::ctywire_provider`, in this crate too.
extern crate self as ctywire_provider;
