//! OpenTofu's Seasonings plugin protocol, as pinned in ctywire's
//! `docs/seasonings.md`: msgpack-rpc over a plugin's stdin and stdout,
//! with cty values inline in msgpack so unknowns, exact numbers and
//! dynamic values survive.
//!
//! * [`protocol`]: the messages, with no runtime: params and results,
//!   errors, paths, diagnostics, capabilities, versions, `init`, function
//!   signatures.
//! * [`host`] (feature `host`, tokio): spawn a plugin, `init` it, and call
//!   it: its functions by signature, or any method.
//! * [`plugin`] (feature `plugin`): the SDK a Rust plugin is written
//!   with: functions, resources and data sources over `#[derive(Model)]`
//!   types, served on stdin and stdout (tokio, no gRPC).
//! * [`provider`] (feature `provider`): one plugin served to Terraform as a
//!   tfplugin6 provider with the plugin's own schemas, on `ctywire-provider`;
//!   the `ctywire-seasonings` binary's `serve` and `install`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod msgpack;
pub mod protocol;

#[cfg(feature = "host")]
pub mod host;

#[cfg(feature = "plugin")]
pub mod plugin;

#[cfg(feature = "provider")]
pub mod provider;

// docs/seasonings.md's Rust SDK example (§11) runs as a doctest: the
// contract and the SDK cannot drift apart.
#[cfg(all(doctest, feature = "plugin"))]
#[doc = include_str!("../../docs/seasonings.md")]
struct ContractDoctests;

// The README's Rust example compiles with the host (it runs a Python plugin, so it is
// `no_run`; tests/host.rs runs the same calls).
#[cfg(all(doctest, feature = "host"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
