//! Unit tests of one provider type at a time: a function, an action, an
//! ephemeral resource called directly, as Terraform calls each over the
//! protocol, with no configuration to write.

use std::sync::Arc;
use std::time::SystemTime;

use ctywire::Value;
use ctywire_tfplugin6::{Diagnostics, FunctionError, ProviderService};

use crate::client::{Client, ResourceSchema, Schemas};

/// A provider's service called kind by kind, as Terraform calls it: each
/// value encoded at the schema's type and each answer decoded, so what a
/// test sees is what Terraform would. Build it with [`new`](Self::new)
/// from the provider (a `ctywire_provider::Framework` from
/// `Builder::build`, or anything serving the protocol), then
/// [`configure`](Self::configure) it; values are [`Value`]s (a model's
/// `to_value()` writes one).
///
/// Each call validates the configuration first, as Terraform does, and
/// fails with its errors. Like [`Harness`](crate::Harness), it runs the
/// provider on a runtime of its own: call it from a plain `#[test]`.
///
/// ```
/// use ctywire_provider::{
///     async_trait, Action, Builder, Context, FunctionError, Model, Progress, Provider, Result,
///     Value,
/// };
/// use ctywire_provider_testing::UnitClient;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Model)]
/// struct NoConfig {}
///
/// struct Demo;
///
/// #[async_trait]
/// impl Provider for Demo {
///     type Config = NoConfig;
///     type Data = ();
///     async fn configure(&self, _: NoConfig) -> Result<()> {
///         Ok(())
///     }
/// }
///
/// /// Counts to `to`.
/// #[derive(Serialize, Deserialize, Model)]
/// struct Count {
///     #[model(range(1, 10))]
///     to: u32,
/// }
///
/// struct Counter;
///
/// #[async_trait]
/// impl Action<()> for Counter {
///     type Config = Count;
///     async fn invoke(&self, _: &Context<()>, count: Count, progress: &Progress) -> Result<()> {
///         for i in 1..=count.to {
///             progress.send(format!("{i} of {}", count.to)).await?;
///         }
///         Ok(())
///     }
/// }
///
/// /// Doubles a number.
/// #[derive(Serialize, Deserialize, Model)]
/// struct Half {
///     n: i64,
/// }
///
/// fn double(args: Half) -> std::result::Result<i64, FunctionError> {
///     args.n.checked_mul(2).ok_or(FunctionError {
///         text: "too large to double".into(),
///         function_argument: Some(0),
///     })
/// }
///
/// let provider = Builder::new(Demo)
///     .action("demo_count", Counter)
///     .pure_function("double", double)
///     .build()?;
/// let client = UnitClient::new(provider)?;
/// client.configure(&NoConfig {}.to_value()?)?;
///
/// let invoked = client.invoke_action("demo_count", &Count { to: 2 }.to_value()?)?;
/// assert_eq!(invoked.progress, ["1 of 2", "2 of 2"]);
/// assert!(invoked.diagnostics.is_empty());
///
/// // Validation comes first, at the attribute's path.
/// let refused = client.invoke_action("demo_count", &Count { to: 11 }.to_value()?).unwrap_err();
/// assert_eq!(refused.iter().next().unwrap().attribute.as_ref().unwrap().to_string(), ".to");
///
/// let doubled = client.call_function("double", &[Value::number(21)]).map_err(|e| e.text)?;
/// assert_eq!(doubled, Value::number(42));
/// let error = client.call_function("double", &[Value::number(i64::MAX)]).unwrap_err();
/// assert_eq!(error.function_argument, Some(0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct UnitClient {
    client: Client,
    schemas: Schemas,
}

/// What invoking an action gave.
#[derive(Clone, Debug)]
pub struct Invoked {
    /// Its progress messages, in order.
    pub progress: Vec<String>,
    /// What it ended with: errors when it failed, warnings.
    pub diagnostics: Diagnostics,
}

/// An ephemeral resource opened.
#[derive(Clone, Debug)]
pub struct Opened {
    /// Its value.
    pub result: Value,
    /// The private data Terraform hands to renew and close.
    pub private: Option<Vec<u8>>,
    /// When Terraform would renew it.
    pub renew_at: Option<SystemTime>,
    /// Warnings.
    pub diagnostics: Diagnostics,
}

/// An ephemeral resource renewed.
#[derive(Clone, Debug)]
pub struct Renewed {
    /// The private data for the next renewal and the close.
    pub private: Option<Vec<u8>>,
    /// When Terraform would renew it next.
    pub renew_at: Option<SystemTime>,
    /// Warnings.
    pub diagnostics: Diagnostics,
}

/// Errors fail the call; warnings come with its answer.
fn failed(d: Diagnostics) -> Result<Diagnostics, Diagnostics> {
    if d.has_errors() {
        return Err(d);
    }
    Ok(d)
}

impl UnitClient {
    /// A client for `provider`, served in-process by tfplugin6's
    /// [`ProviderService`]; its schemas are read at once.
    pub fn new<P: ctywire_tfplugin6::Provider>(provider: P) -> Result<UnitClient, Diagnostics> {
        let client = Client::new(Arc::new(ProviderService::new(provider)))?;
        let schemas = client.schemas()?;
        Ok(UnitClient { client, schemas })
    }

    /// Validates and configures the provider with `config` (its
    /// configuration block's value); warnings come back.
    pub fn configure(&self, config: &Value) -> Result<Diagnostics, Diagnostics> {
        let ty = &self.schemas.provider.ty;
        let mut warnings = failed(self.client.validate_provider_config(config, ty)?)?;
        warnings.extend(failed(self.client.configure(config, ty)?)?);
        Ok(warnings)
    }

    fn schema<'a>(
        kinds: &'a std::collections::BTreeMap<String, ResourceSchema>,
        what: &str,
        name: &str,
    ) -> Result<&'a ResourceSchema, Diagnostics> {
        kinds
            .get(name)
            .ok_or_else(|| Diagnostics::error(format!("the provider has no {what} named {name:?}")))
    }

    /// Invokes the action `name` with `config` as `terraform apply
    /// -invoke` does: validated, planned, then run, its progress messages
    /// gathered. Validation's and the plan's errors fail the call; the
    /// action's own outcome is in [`Invoked::diagnostics`].
    pub fn invoke_action(&self, name: &str, config: &Value) -> Result<Invoked, Diagnostics> {
        let ty = &Self::schema(&self.schemas.actions, "action", name)?.ty;
        let mut warnings = failed(self.client.validate_action(name, config, ty)?)?;
        warnings.extend(failed(self.client.plan_action(name, config, ty)?)?);
        let (progress, outcome) = self.client.invoke_action(name, config, ty)?;
        warnings.extend(outcome);
        Ok(Invoked {
            progress,
            diagnostics: warnings,
        })
    }

    /// Calls the function `name` with `args` (one a parameter, then the
    /// variadic parameter's), each sent at its parameter's type. The
    /// function's error names the argument at fault, if it does.
    pub fn call_function(&self, name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        let f = (self.schemas.functions.get(name))
            .ok_or_else(|| FunctionError::new(format!("the provider has no function {name:?}")))?;
        let mut typed = Vec::with_capacity(args.len());
        for (i, arg) in args.iter().enumerate() {
            let param = f.parameters.get(i).or(f.variadic_parameter.as_ref());
            let Some(param) = param else {
                let text = format!("{name} takes {} arguments", f.parameters.len());
                return Err(FunctionError::new(text));
            };
            typed.push((arg.clone(), param.ty.clone()));
        }
        self.client.call_function(name, f, &typed)
    }

    /// Validates and opens the ephemeral resource `name` with `config`.
    pub fn open_ephemeral(&self, name: &str, config: &Value) -> Result<Opened, Diagnostics> {
        let ty = &Self::schema(&self.schemas.ephemerals, "ephemeral resource", name)?.ty;
        let mut warnings = failed(self.client.validate_ephemeral(name, config, ty)?)?;
        let (opened, d) = self.client.open_ephemeral(name, config, ty)?;
        warnings.extend(d);
        Ok(Opened {
            result: opened.result,
            private: opened.private,
            renew_at: opened.renew_at,
            diagnostics: warnings,
        })
    }

    /// Renews the ephemeral resource `name` opened with `private` (what
    /// opening or the last renewal gave).
    pub fn renew_ephemeral(
        &self,
        name: &str,
        private: Option<&[u8]>,
    ) -> Result<Renewed, Diagnostics> {
        Self::schema(&self.schemas.ephemerals, "ephemeral resource", name)?;
        let (renewed, d) = (self.client).renew_ephemeral(name, private.map(<[u8]>::to_vec))?;
        Ok(Renewed {
            diagnostics: failed(d)?,
            private: renewed.private,
            renew_at: renewed.renew_at,
        })
    }

    /// Closes the ephemeral resource `name` opened with `private`.
    pub fn close_ephemeral(
        &self,
        name: &str,
        private: Option<&[u8]>,
    ) -> Result<Diagnostics, Diagnostics> {
        Self::schema(&self.schemas.ephemerals, "ephemeral resource", name)?;
        failed((self.client).close_ephemeral(name, private.map(<[u8]>::to_vec))?)
    }
}
