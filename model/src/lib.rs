// The crate documentation is its README, the page crates.io shows.
#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod model;
mod plan_rules;
pub mod schema;
mod semantic;
pub mod timeouts;

pub use ctywire;
pub use ctywire::{Path, Type, Unknowable, Value};
/// `#[derive(Model)]`: see [`Model`](trait@Model).
pub use ctywire_provider_derive::Model;
pub use model::{AttributeType, Model};

// The derive's code names `::ctywire_model` when it is used here (the
// crate's own tests and doctests).
extern crate self as ctywire_model;
