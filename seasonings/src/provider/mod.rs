//! The host provider (feature `provider`): one Seasonings plugin served to
//! Terraform as a tfplugin6 provider named after it, with the plugin's own
//! schemas. Its function `slug` is `provider::NAME::slug`, its resource
//! `thing` is `NAME_thing`, its data source `items` is `data.NAME_items`.
//!
//! Planning is the framework's (`ctywire-provider`: unknown computed
//! attributes on create and change, the prior state kept when nothing
//! changed, core's element matching, validation and consistency checks)
//! unless a resource type's schema says `plan_change: true`: then the
//! plugin's `resources.planChange` answers the plan and its
//! `requires_replace`, and the framework still checks it. Values reach the
//! plugin as Terraform sends them, unknowns as unknowns (§6.2). An apply
//! that answers a state with errors keeps that object (§6.3); an apply
//! whose call failed as a whole answers the prior state, so nothing is
//! lost either way.

pub mod middleware;
mod schema;
mod storage;

use std::sync::Arc;
use std::time::Duration;

use ctywire::{PathStep, Type, Value};
use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_provider::dynamic::{DynDataSource, DynFunction, DynResource};
use ctywire_provider::tfplugin6 as tf;
use ctywire_provider::{Builder, Context, Diagnostic, Diagnostics, FunctionError, PlanChange};
use ctywire_provider::{FnProvider, Model};
use serde::{Deserialize, Serialize};

pub use schema::{read_schemas, Schemas, TypeSchema};

use crate::host::{ErrorKind, Plugin, PluginError};
use crate::protocol::{method, read_diagnostics, read_path, Capability, Fields, Severity};

/// The provider block: empty. The plugin command is fixed where the
/// provider is installed; a plugin takes no configuration from Terraform.
#[derive(Serialize, Deserialize, Model)]
pub struct NoConfig {}

fn configure(_: NoConfig) -> Result<(), Diagnostics> {
    Ok(())
}

/// A provider that serves nothing yet: what [`builder`] adds the plugin's
/// types to.
pub type HostBuilder = Builder<FnProvider<NoConfig, ()>>;

/// Asks `plugin` for its schemas (`functions.getSchema`,
/// `resources.getSchema`) and registers each function, resource and data
/// source type under Terraform's name for it.
pub async fn builder(plugin: Arc<Plugin>) -> Result<HostBuilder, PluginError> {
    let name = plugin.info().name.clone();
    let mut builder = Builder::from_fn(configure);
    for (fname, sig) in plugin.functions().await?.iter() {
        let signature = tf::Function {
            parameters: sig.parameters.iter().map(parameter).collect(),
            variadic_parameter: sig.variadic_parameter.as_ref().map(parameter),
            return_type: sig.return_type.clone(),
            summary: sig.summary.clone().unwrap_or_default(),
            description: sig.description.clone().unwrap_or_default(),
            description_kind: Default::default(),
            deprecation_message: sig.deprecation_message.clone().unwrap_or_default(),
        };
        let f = PluginFunction {
            plugin: plugin.clone(),
            name: fname.clone(),
        };
        builder = builder.function_with_signature(fname, signature, f);
    }
    if plugin.info().capabilities.contains(&Capability::Storage) {
        builder = storage::register(builder, &plugin).await?;
    }
    if !plugin.info().capabilities.contains(&Capability::Resources) {
        return Ok(builder);
    }
    let m = method::RESOURCES_GET_SCHEMA;
    let result = plugin.call(m, Fields::new()).await?;
    let schemas = read_schemas(&result).map_err(|e| plugin.failure(m, ErrorKind::BadAnswer(e)))?;
    for (tname, s) in schemas.resources {
        let ty = s
            .block
            .implied_type()
            .map_err(|e| plugin.failure(m, ErrorKind::BadAnswer(e)))?;
        let r = PluginType {
            plugin: plugin.clone(),
            name: tname.clone(),
            ty,
            plan_change: s.plan_change,
        };
        builder = builder.resource_with_schema(&format!("{name}_{tname}"), s.version, s.block, r);
    }
    for (tname, s) in schemas.data_sources {
        let ty = s
            .block
            .implied_type()
            .map_err(|e| plugin.failure(m, ErrorKind::BadAnswer(e)))?;
        let d = PluginType {
            plugin: plugin.clone(),
            name: tname.clone(),
            ty,
            plan_change: false,
        };
        builder = builder.data_source_with_schema(&format!("{name}_{tname}"), s.block, d);
    }
    Ok(builder)
}

fn parameter(p: &crate::protocol::Parameter) -> tf::Parameter {
    tf::Parameter {
        allow_null_value: p.is_nullable,
        allow_unknown_values: p.allow_unknown_values,
        description: p.description.clone().unwrap_or_default(),
        ..tf::Parameter::new(&p.name, p.ty.clone())
    }
}

struct PluginFunction {
    plugin: Arc<Plugin>,
    name: String,
}

#[async_trait::async_trait]
impl DynFunction for PluginFunction {
    async fn call(&self, arguments: Vec<Value>) -> Result<Value, FunctionError> {
        self.plugin
            .call_function(&self.name, arguments)
            .await
            .map_err(|e| FunctionError {
                function_argument: e.function_argument().and_then(|n| i64::try_from(n).ok()),
                text: match e.remote() {
                    // The plugin's own words, as Terraform shows a function's error.
                    Some(r) => match &r.detail {
                        Some(d) => format!("{}: {d}", r.message),
                        None => r.message.clone(),
                    },
                    None => e.to_string(),
                },
            })
    }
}

/// How long an apply may take: creating a real object can take minutes
/// (terraform-plugin-sdk's default timeout for each operation is 20
/// minutes); every other call has the plugin's call timeout.
const APPLY_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// A resource or data source type of the plugin: its name there and the
/// type its values have.
struct PluginType {
    plugin: Arc<Plugin>,
    name: String,
    ty: Type,
    plan_change: bool,
}

/// A call's answer: its fields and its diagnostics (already Terraform's).
struct Answer {
    fields: Fields,
    diagnostics: Diagnostics,
}

impl PluginType {
    /// `method` with `type` and `values` (each encoded at the type's
    /// implied type) and `private`s (bin or nil).
    async fn call(
        &self,
        method: &str,
        values: &[(&str, &Value)],
        private: &[(&str, &[u8])],
    ) -> Result<Answer, PluginError> {
        let mut params = Fields::new();
        params.insert_str("type", &self.name);
        for (key, v) in values {
            params
                .insert_value(key, v, &self.ty)
                .map_err(|e| self.refused(method, e))?;
        }
        for (key, bytes) in private {
            params.insert_raw(key, write_bin(bytes));
        }
        let fields = if method == method::RESOURCES_APPLY_CHANGE {
            self.plugin
                .call_with_timeout(method, params, APPLY_TIMEOUT)
                .await?
        } else {
            self.plugin.call(method, params).await?
        };
        let diagnostics = read_diagnostics(&fields)
            .map(diagnostics)
            .map_err(|e| self.bad(method, e))?;
        Ok(Answer {
            fields,
            diagnostics,
        })
    }

    /// The optional `validateConfig` of this type's kind: its diagnostics,
    /// none when the plugin has no such method.
    async fn validate(&self, method: &str, config: &Value) -> Diagnostics {
        match self.call(method, &[("config", config)], &[]).await {
            Ok(answer) => answer.diagnostics,
            Err(e) if e.remote().is_some_and(|r| r.is_method_not_found()) => Diagnostics::new(),
            Err(e) => failed(e),
        }
    }

    fn refused(&self, method: &str, error: ctywire::Error) -> PluginError {
        self.plugin.failure(
            method,
            ErrorKind::Refused {
                error,
                function_argument: None,
            },
        )
    }

    fn bad(&self, method: &str, e: ctywire::Error) -> PluginError {
        self.plugin.failure(method, ErrorKind::BadAnswer(e))
    }

    /// The answer's `key` at the type.
    fn value(&self, method: &str, a: &Answer, key: &str) -> Result<Value, PluginError> {
        a.fields
            .value(key, &self.ty)
            .map_err(|e| self.bad(method, e))
    }

    /// The answer's `key` as private data (bin; nil or missing is empty).
    fn private(&self, method: &str, a: &Answer, key: &str) -> Result<Vec<u8>, PluginError> {
        match a.fields.present(key) {
            None => Ok(Vec::new()),
            Some(raw) => read_bin(&raw.0)
                .map_err(|e| self.bad(method, e.under(PathStep::Attr(key.to_string())))),
        }
    }
}

/// A failed call as Terraform's error: the plugin's own summary, detail
/// and attribute path when it answered one, else what went wrong (which
/// names the plugin, the method and the path).
fn failed(e: PluginError) -> Diagnostics {
    match e.remote() {
        Some(r) => {
            let mut d = Diagnostic::error(r.message.clone());
            if let Some(detail) = &r.detail {
                d = d.with_detail(detail.clone());
            }
            if let Some(p) = &r.path {
                d = d.at(p.clone());
            }
            d.into()
        }
        None => Diagnostic::error(format!("The plugin {:?} failed", e.plugin()))
            .with_detail(e.to_string())
            .into(),
    }
}

/// Whether a call ended without the plugin's answer (it exited, or the
/// call timed out), so what it did is not known.
fn unanswered(e: &PluginError) -> bool {
    matches!(e.kind(), ErrorKind::Closed(_) | ErrorKind::Timeout(_))
}

/// Errors first: `Err` when `diagnostics` hold one, else the value.
fn checked<T>(value: T, diagnostics: Diagnostics) -> Result<(T, Diagnostics), Diagnostics> {
    if diagnostics.has_errors() {
        Err(diagnostics)
    } else {
        Ok((value, diagnostics))
    }
}

fn diagnostics(ds: Vec<crate::protocol::Diagnostic>) -> Diagnostics {
    Diagnostics::from(ds.into_iter().map(diagnostic).collect::<Vec<_>>())
}

fn diagnostic(d: crate::protocol::Diagnostic) -> Diagnostic {
    let mut out = match d.severity {
        Severity::Error => Diagnostic::error(d.summary),
        Severity::Warning => Diagnostic::warning(d.summary),
    };
    if let Some(detail) = d.detail {
        out = out.with_detail(detail);
    }
    if let Some(path) = d.path {
        out = out.at(path);
    }
    out
}

#[async_trait::async_trait]
impl DynResource<()> for PluginType {
    async fn validate(&self, config: &Value) -> Diagnostics {
        PluginType::validate(self, method::RESOURCES_VALIDATE_CONFIG, config).await
    }

    async fn modify_plan(
        &self,
        _ctx: &Context<()>,
        req: &tf::PlanResourceChangeRequest,
        plan: &mut PlanChange,
    ) -> Result<Option<Vec<u8>>, Diagnostics> {
        if !self.plan_change {
            return Ok(None);
        }
        let m = method::RESOURCES_PLAN_CHANGE;
        let answer = self
            .call(
                m,
                &[
                    ("prior_state", &req.prior_state),
                    ("proposed_new_state", &req.proposed_new_state),
                    ("config", &req.config),
                ],
                &[("prior_private", &req.prior_private)],
            )
            .await
            .map_err(failed)?;
        let read = || -> Result<_, PluginError> {
            let planned = self.value(m, &answer, "planned_state")?;
            let replace = match answer.fields.present("requires_replace") {
                None => Vec::new(),
                Some(_) => answer
                    .fields
                    .list("requires_replace", read_path)
                    .map_err(|e| self.bad(m, e))?,
            };
            Ok((
                planned,
                replace,
                self.private(m, &answer, "planned_private")?,
            ))
        };
        let (planned, replace, private) = read().map_err(failed)?;
        // Errors stop the plan; warnings come with it.
        let ((), warnings) = checked((), answer.diagnostics)?;
        plan.planned = planned;
        plan.requires_replace = replace;
        plan.diagnostics = warnings;
        Ok(Some(private))
    }

    async fn upgrade_state(
        &self,
        _ctx: &Context<()>,
        version: i64,
        state: tf::RawState,
    ) -> Result<Value, Diagnostics> {
        let m = method::RESOURCES_UPGRADE_STATE;
        // Terraform 0.12 and later store JSON; a flatmap state (0.11) has
        // no JSON for the plugin to read.
        let raw_state = String::from_utf8(state.json).map_err(|_| {
            Diagnostics::error(format!("the stored {} state is not UTF-8 JSON", self.name))
        })?;
        if raw_state.is_empty() {
            return Err(Diagnostics::error(format!(
                "the stored {} state at schema version {version} is a flatmap (Terraform 0.11); the plugin upgrades JSON states only",
                self.name
            )));
        }
        let mut params = Fields::new();
        params.insert_str("type", &self.name);
        let mut v = Vec::new();
        crate::msgpack::write_int(&mut v, version);
        params.insert_raw("version", Raw(v));
        params.insert_str("raw_state", &raw_state);
        let fields = self.plugin.call(m, params).await.map_err(|e| match e.remote() {
            // No upgrades of its own: the state cannot be read.
            Some(r) if r.is_method_not_found() => Diagnostics::error(format!(
                "{} cannot upgrade a state stored at schema version {version}: the plugin has no {m}",
                self.name
            )),
            _ => failed(e),
        })?;
        let answer = Answer {
            diagnostics: read_diagnostics(&fields)
                .map(diagnostics)
                .map_err(|e| failed(self.bad(m, e)))?,
            fields,
        };
        let state = self.value(m, &answer, "upgraded_state").map_err(failed)?;
        Ok(checked(state, answer.diagnostics)?.0)
    }

    async fn apply(
        &self,
        _ctx: &Context<()>,
        req: tf::ApplyResourceChangeRequest,
    ) -> Result<tf::ApplyResourceChangeResponse, Diagnostics> {
        let m = method::RESOURCES_APPLY_CHANGE;
        let called = self
            .call(
                m,
                &[
                    ("prior_state", &req.prior_state),
                    ("planned_state", &req.planned_state),
                    ("config", &req.config),
                ],
                &[("planned_private", &req.planned_private)],
            )
            .await;
        let read = |answer: Answer| -> Result<_, PluginError> {
            let new_state = self.value(m, &answer, "new_state")?;
            let private = self.private(m, &answer, "private")?;
            Ok((new_state, private, answer.diagnostics))
        };
        match called.and_then(read) {
            Ok((new_state, private, diagnostics)) => Ok(tf::ApplyResourceChangeResponse {
                private,
                diagnostics,
                ..tf::ApplyResourceChangeResponse::new(new_state)
            }),
            // A create the plugin never answered (it exited, or is still
            // at it past the timeout) may have made the object: kept as
            // planned, what is not known yet null, so Terraform holds it
            // tainted and the next plan reads and replaces it (§6.3).
            Err(e)
                if req.prior_state.is_null() && !req.planned_state.is_null() && unanswered(&e) =>
            {
                let kept = req
                    .planned_state
                    .transform(|_, v| {
                        Ok(match v.is_known() {
                            true => v,
                            false => Value::null(v.ty().clone()),
                        })
                    })
                    .map_err(Diagnostics::from)?;
                let mut diagnostics = failed(e);
                diagnostics.push(Diagnostic::error("The object may exist").with_detail(
                    "the plugin gave no answer to the create, which may have made the object: Terraform keeps it, tainted, so the next plan reads it and replaces it",
                ));
                Ok(tf::ApplyResourceChangeResponse {
                    private: req.planned_private,
                    diagnostics,
                    ..tf::ApplyResourceChangeResponse::new(kept)
                })
            }
            // The call failed as a whole, so nothing changed (§6.3): the
            // prior state, kept, with the error.
            Err(e) => Ok(tf::ApplyResourceChangeResponse {
                private: req.planned_private,
                diagnostics: failed(e),
                ..tf::ApplyResourceChangeResponse::new(req.prior_state)
            }),
        }
    }

    async fn read(
        &self,
        _ctx: &Context<()>,
        req: tf::ReadResourceRequest,
    ) -> Result<tf::ReadResourceResponse, Diagnostics> {
        let m = method::RESOURCES_READ;
        let answer = self
            .call(
                m,
                &[("current_state", &req.current_state)],
                &[("private", &req.private)],
            )
            .await
            .map_err(failed)?;
        let read = || -> Result<_, PluginError> {
            Ok((
                self.value(m, &answer, "new_state")?,
                self.private(m, &answer, "private")?,
            ))
        };
        let ((new_state, private), diagnostics) =
            checked(read().map_err(failed)?, answer.diagnostics)?;
        Ok(tf::ReadResourceResponse {
            private,
            diagnostics,
            ..tf::ReadResourceResponse::new(new_state)
        })
    }

    async fn import(&self, _ctx: &Context<()>, id: String) -> Result<Option<Value>, Diagnostics> {
        let m = method::RESOURCES_IMPORT;
        let mut params = Fields::new();
        params.insert_str("type", &self.name);
        params.insert_str("id", &id);
        let fields = self.plugin.call(m, params).await.map_err(failed)?;
        let read = || -> Result<_, ctywire::Error> {
            let diagnostics = diagnostics(read_diagnostics(&fields)?);
            let states = fields.list("imported", |b| Fields::read(b)?.value("state", &self.ty))?;
            Ok((states, diagnostics))
        };
        let (states, diagnostics) = read().map_err(|e| failed(self.bad(m, e)))?;
        let (states, _) = checked(states, diagnostics)?;
        match <[Value; 1]>::try_from(states) {
            Ok([state]) => Ok((!state.is_null()).then_some(state)),
            Err(states) if states.is_empty() => Ok(None),
            Err(states) => Err(Diagnostics::error(format!(
                "the plugin imported {} objects for one id; this host imports one",
                states.len()
            ))),
        }
    }
}

#[async_trait::async_trait]
impl DynDataSource<()> for PluginType {
    async fn validate(&self, config: &Value) -> Diagnostics {
        PluginType::validate(self, method::DATA_SOURCES_VALIDATE_CONFIG, config).await
    }

    async fn read(
        &self,
        _ctx: &Context<()>,
        config: Value,
    ) -> Result<(Value, Diagnostics), Diagnostics> {
        let m = method::DATA_SOURCES_READ;
        let answer = self
            .call(m, &[("config", &config)], &[])
            .await
            .map_err(failed)?;
        let state = self.value(m, &answer, "state").map_err(failed)?;
        checked(state, answer.diagnostics)
    }
}

/// Private data as msgpack `bin`; none is nil.
fn write_bin(bytes: &[u8]) -> Raw {
    let mut out = Vec::new();
    if bytes.is_empty() {
        out.push(0xc0);
    } else {
        let _ = rmp::encode::write_bin(&mut out, bytes);
    }
    Raw(out)
}

/// A `bin` value's bytes (the whole of `b`).
fn read_bin(b: &[u8]) -> Result<Vec<u8>, ctywire::Error> {
    let (len, at): (Option<usize>, usize) = match b.first() {
        Some(0xc4) => (b.get(1).map(|&n| usize::from(n)), 2),
        Some(0xc5) => (
            b.get(1..3)
                .map(|s| usize::from(u16::from_be_bytes([s[0], s[1]]))),
            3,
        ),
        Some(0xc6) => (
            b.get(1..5)
                .and_then(|s| usize::try_from(u32::from_be_bytes([s[0], s[1], s[2], s[3]])).ok()),
            5,
        ),
        _ => {
            return Err(ctywire::Error::type_error(format!(
                "private data is bin or nil, not {}",
                crate::msgpack::kind(b)
            )))
        }
    };
    match len.and_then(|n| b.get(at..at.checked_add(n)?)) {
        Some(bytes) if b.len() == at + bytes.len() => Ok(bytes.to_vec()),
        _ => Err(ctywire::Error::syntax(
            "a bin value cut short or followed by bytes",
        )),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{read_bin, write_bin};

    proptest! {
        #[test]
        fn private_data_round_trips_as_bin(bytes in proptest::collection::vec(any::<u8>(), 1..70000)) {
            prop_assert_eq!(read_bin(&write_bin(&bytes).0).unwrap(), bytes);
        }

        #[test]
        fn reading_any_bytes_as_bin_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = read_bin(&bytes);
        }
    }
}
