//! What the framework's integration tests share: a provider with no
//! configuration, configured as Terraform configures it, and diagnostics
//! as (summary, path, detail) to assert on.

// Each test crate uses what it needs of this.
#![allow(dead_code)]

use ctywire_provider::tfplugin6 as tf;
use ctywire_provider::{Diagnostics, Model, Result, Value};
use serde::{Deserialize, Serialize};

/// A provider configuration with nothing in it.
#[derive(Serialize, Deserialize, Model)]
pub struct Empty {}

/// `Builder::from_fn`'s function for [`Empty`].
pub fn configure(_: Empty) -> Result<()> {
    Ok(())
}

/// `provider` after `ConfigureProvider` with an empty configuration,
/// which must raise nothing.
pub async fn configured<P: tf::Provider>(provider: P) -> P {
    let diags = provider
        .configure_provider(tf::ConfigureProviderRequest {
            terraform_version: "1.11.4".into(),
            config: Value::object(Vec::<(&str, Value)>::new()),
            client_capabilities: Default::default(),
        })
        .await;
    assert!(diags.is_empty(), "{diags:?}");
    provider
}

/// Each diagnostic as (summary, path, detail).
pub fn described(diags: &Diagnostics) -> Vec<(String, String, String)> {
    diags
        .iter()
        .map(|d| {
            let path = d.attribute.as_ref().map(|p| p.to_string());
            (
                d.summary.clone(),
                path.unwrap_or_default(),
                d.detail.clone(),
            )
        })
        .collect()
}
