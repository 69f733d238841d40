//! Several configurations of the provider: `provider "kv" { alias = "b" }`
//! blocks, and `provider = kv.b` on resources, data sources and ephemeral
//! resources. Terraform starts a provider instance for each
//! configuration and configures each with its block
//! (`ProviderTransformer`, `NodeApplyableProvider`); an object keeps the
//! configuration it was made with, which refreshes and destroys it once
//! its resource is gone from the configuration ("Provider configuration
//! not present" when that block is gone too).

use std::collections::BTreeMap;
use std::sync::Arc;

use ctywire::Value;
use ctywire_tfplugin6::{Diagnostic, Diagnostics, ProviderService};
use serde_json::Value as Json;

use crate::client::Client;
use crate::config::{decode_body, VariablesScope};
use crate::core::Core;
use crate::instances::resource_of;
use crate::{Body, Harness};

/// Starts another instance of the provider, served in-process.
pub(crate) type Start = Box<dyn Fn() -> Result<Client, Diagnostics> + Send + Sync>;

/// An aliased configuration's provider instance.
pub(crate) struct Instance {
    client: Client,
    /// Its configuration's value last sent in `ConfigureProvider`.
    configured: Option<Value>,
}

impl Harness {
    /// A harness whose provider can be started once more for each
    /// `provider` block with an `alias`, as Terraform starts a provider
    /// process per configuration: `start` makes an instance (the first
    /// serves the default configuration). Without it, a configuration
    /// with aliases is refused.
    pub fn with_aliases<P, F>(start: F) -> Result<Harness, Diagnostics>
    where
        P: ctywire_tfplugin6::Provider,
        F: Fn() -> P + Send + Sync + 'static,
    {
        let mut h = Harness::new(start())?;
        h.start = Some(Box::new(move || {
            Client::new(Arc::new(ProviderService::new(start())))
        }));
        Ok(h)
    }

    /// The alias a resource's `provider` argument names (`kv.b`; `"kv.b"`
    /// in JSON syntax), if any; `address` may be one of its instances'
    /// (every instance of a resource has its resource's provider).
    pub(crate) fn configured_alias(&self, address: &str) -> Result<Option<String>, Diagnostics> {
        let resource = resource_of(address);
        let Some(p) =
            (self.resources.get(resource).and_then(Body::json)).and_then(|b| b.get("provider"))
        else {
            return Ok(None);
        };
        // JSON syntax writes the configuration's address as a string.
        let text = p.as_str().unwrap_or_default();
        match text.split_once('.') {
            None if text == self.provider_type => Ok(None),
            Some((local, alias)) if local == self.provider_type && !alias.contains('.') => {
                Ok(Some(alias.to_owned()))
            }
            _ => Err(Diagnostic::error("Invalid provider reference")
                .with_detail(format!(
                    "{address}: the provider argument names a configuration of the {:?} provider, as {0}.ALIAS; got {p}.",
                    self.provider_type
                ))
                .into()),
        }
    }

    /// The configuration the resource at `address` is planned with: its
    /// configured alias, or for an object no longer configured the one it
    /// was made with.
    pub(crate) fn alias_of(&self, address: &str) -> Result<Option<String>, Diagnostics> {
        if self.resources.contains_key(resource_of(address)) {
            return self.configured_alias(address);
        }
        Ok(self
            .state
            .get(address)
            .and_then(|s| s.provider_alias.clone()))
    }

    /// The provider instance for the resource at `address`.
    pub(crate) fn client_for(&self, address: &str) -> Result<&Client, Diagnostics> {
        match self.alias_of(address)? {
            None => Ok(&self.client),
            Some(alias) => match self.instances.get(&alias) {
                Some(i) => Ok(&i.client),
                None => Err(Diagnostic::error("Provider configuration not present")
                    .with_detail(format!(
                        "To work with {address} its provider configuration {}.{alias} is required, but the configuration has no provider block with that alias.",
                        self.provider_type
                    ))
                    .into()),
            },
        }
    }

    /// The harness's core, calling the provider instance of `address`.
    pub(crate) fn core_for(&self, address: &str) -> Result<Core<'_>, Diagnostics> {
        Ok(Core {
            client: self.client_for(address)?,
            ..self.core()
        })
    }

    /// Each aliased configuration's instance started (once) and validated
    /// and configured whenever its block's value changes; instances of
    /// aliases no longer configured are stopped.
    pub(crate) fn configure_aliases(&mut self) -> Result<(), Diagnostics> {
        self.instances
            .retain(|alias, _| self.provider_aliases.contains_key(alias));
        let aliases: Vec<(String, Json)> = (self.provider_aliases.iter())
            .map(|(a, b)| (a.clone(), b.clone()))
            .collect();
        for (alias, body) in aliases {
            let p = &self.schemas.provider;
            let value = decode_body(
                &p.schema.block,
                &body,
                &VariablesScope { harness: self },
                &["alias", "version"],
            )?
            .value;
            let ty = p.ty.clone();
            if !self.instances.contains_key(&alias) {
                let Some(start) = &self.start else {
                    return Err(Diagnostics::error(format!(
                        "the configuration has a provider block with alias {alias:?}: make the harness with Harness::with_aliases, which can start an instance of the provider per configuration"
                    )));
                };
                let mut client = start()?;
                // Every instance is called by the same core.
                client.speaks = self.client.speaks;
                self.instances.insert(
                    alias.clone(),
                    Instance {
                        client,
                        configured: None,
                    },
                );
            }
            let Some(instance) = self.instances.get_mut(&alias) else {
                continue;
            };
            if instance.configured.as_ref() == Some(&value) {
                continue;
            }
            let mut d = instance.client.validate_provider_config(&value, &ty)?;
            if !d.has_errors() {
                d.extend(instance.client.configure(&value, &ty)?);
            }
            if d.has_errors() {
                return Err(d);
            }
            instance.configured = Some(value);
            self.warnings.extend(d);
        }
        Ok(())
    }
}

/// The provider blocks of a configuration: the default one's body and
/// the aliased ones' by alias.
pub(crate) type Aliases = BTreeMap<String, Json>;

/// Splits provider blocks (JSON syntax bodies) into the default one and
/// those with an `alias`; two blocks for one configuration are refused
/// as core refuses them.
pub(crate) fn split_providers(
    local: &str,
    bodies: Vec<Json>,
) -> Result<(Option<Json>, Aliases), Diagnostics> {
    let mut default = None;
    let mut aliases = Aliases::new();
    for body in bodies {
        let duplicate = match body.get("alias") {
            Some(Json::String(a)) => aliases.insert(a.clone(), body.clone()).is_some(),
            Some(_) => {
                return Err(Diagnostics::error(format!(
                    "provider {local:?}: an alias is a name"
                )))
            }
            None => default.replace(body).is_some(),
        };
        if duplicate {
            return Err(Diagnostic::error("Duplicate provider configuration")
                .with_detail(format!(
                    "A provider configuration for {local:?} was already given. Each configuration for the same provider must have a distinct alias."
                ))
                .into());
        }
    }
    Ok((default, aliases))
}
