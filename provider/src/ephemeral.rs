//! Ephemeral resources: values that exist for one Terraform run and are
//! never stored.

use std::time::SystemTime;

use ctywire::Value;
use ctywire_tfplugin6::Diagnostics;

use crate::context::Context;
use crate::model::Model;

/// What opening an ephemeral resource gives.
#[derive(Clone, Debug)]
pub struct Opened<M> {
    /// The value, configured and computed attributes alike.
    pub result: M,
    /// Data handed to renew and close.
    pub private: Option<Vec<u8>>,
    /// When Terraform should call renew.
    pub renew_at: Option<SystemTime>,
}

impl<M> Opened<M> {
    /// The value, with nothing to renew or close.
    pub fn new(result: M) -> Self {
        Opened {
            result,
            private: None,
            renew_at: None,
        }
    }
}

/// What renewing gives: new private data and the next renewal.
#[derive(Clone, Debug, Default)]
pub struct Renewed {
    /// Data handed to the next renew and to close.
    pub private: Option<Vec<u8>>,
    /// When Terraform should call renew again.
    pub renew_at: Option<SystemTime>,
}

/// An ephemeral resource type (a short-lived credential, a tunnel).
#[async_trait::async_trait]
pub trait EphemeralResource<D: Send + Sync + 'static>: Send + Sync + 'static {
    /// Its attributes and blocks.
    type Model: Model;

    /// Opens it.
    async fn open(
        &self,
        ctx: &Context<D>,
        config: Self::Model,
    ) -> Result<Opened<Self::Model>, Diagnostics>;

    /// Renews it. Default: nothing to renew.
    async fn renew(
        &self,
        ctx: &Context<D>,
        private: Option<Vec<u8>>,
    ) -> Result<Renewed, Diagnostics> {
        let _ = ctx;
        Ok(Renewed {
            private,
            renew_at: None,
        })
    }

    /// Closes it. Default: nothing to close.
    async fn close(&self, ctx: &Context<D>, private: Option<Vec<u8>>) -> Result<(), Diagnostics> {
        let _ = (ctx, private);
        Ok(())
    }

    /// Cross-attribute checks beyond the model's validators. Default: none.
    fn validate(&self, config: &Value) -> Diagnostics {
        let _ = config;
        Diagnostics::new()
    }
}
