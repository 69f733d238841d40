//! Level 2, storage (§8): a plugin's `storage.*` served to Terraform as
//! the state store `NAME_storage` (protocol 6.11). The framework's
//! `StateStore` does the protocol's part (chunk sizes, ranges, a write
//! committed only once every byte arrived, lock ids and lock info); this
//! module turns each of its calls into one call of the plugin, with the
//! whole state as msgpack `bin`.

use std::sync::Arc;

use ctywire::{PathStep, Type, Value};
use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_provider::{
    Context, Diagnostic, Diagnostics, LockError, LockInfo, Model, StateStore, StateWriter,
    StoredState,
};
use serde::{Deserialize, Serialize};

use super::schema::read_type_schema;
use super::{diagnostics, read_bin, write_bin, HostBuilder};
use crate::host::{ErrorKind, Plugin, PluginError};
use crate::protocol::{method, read_diagnostics, Fields};

/// The suffix of the store's type name: a plugin `files` serves the state
/// store `files_storage`. One store per plugin, since the contract's
/// `storage.*` methods name no store type.
pub const STORE_SUFFIX: &str = "storage";

/// The largest state the host stores: it travels whole in one message
/// each way, and an answer is at most the message limit (64 MiB, §1), so
/// a larger state could be written but never read back. 64 KiB are left
/// for the envelope around it.
pub const MAX_STATE: u64 = (64 << 20) - (64 << 10);

/// Asks the plugin for its store's schema (`storage.getSchema`) and
/// registers the store under Terraform's name for it.
pub(super) async fn register(
    builder: HostBuilder,
    plugin: &Arc<Plugin>,
) -> Result<HostBuilder, PluginError> {
    let m = method::STORAGE_GET_SCHEMA;
    let result = plugin.call(m, Fields::new()).await?;
    let bad = |e: ctywire::Error| plugin.failure(m, ErrorKind::BadAnswer(e));
    let schema = result
        .fields("schema")
        .and_then(|f| read_type_schema(&f).map_err(|e| e.under(PathStep::Attr("schema".into()))))
        .map_err(bad)?;
    let ty = schema.block.implied_type().map_err(bad)?;
    let name = format!("{}_{STORE_SUFFIX}", plugin.info().name);
    let store = PluginStore {
        plugin: plugin.clone(),
        ty,
    };
    Ok(builder.state_store_with_schema(&name, schema.block, store))
}

/// The `state_store` block as Terraform sends it, at the plugin's schema
/// (known only at runtime, so the model is the value itself).
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct StoreConfig(Value);

impl Model for StoreConfig {
    /// Unused: the store is registered with the plugin's block.
    fn block() -> ctywire_provider::schema::Block {
        ctywire_provider::schema::Block::default()
    }
}

struct PluginStore {
    plugin: Arc<Plugin>,
    /// The config's type (the schema's implied type).
    ty: Type,
}

/// One storage call: the plugin, the method and the state it concerns,
/// which every error names.
struct Call<'a> {
    plugin: &'a Plugin,
    method: &'static str,
    state_id: Option<&'a str>,
}

impl Call<'_> {
    async fn send(&self, params: Fields) -> Result<Fields, Diagnostics> {
        self.plugin
            .call(self.method, params)
            .await
            .map_err(|e| self.failed(e))
    }

    /// `params` with the state id.
    async fn on_state(&self, mut params: Fields) -> Result<Fields, Diagnostics> {
        if let Some(id) = self.state_id {
            params.insert_str("state_id", id);
        }
        self.send(params).await
    }

    /// Where the call was: `plugin "files", storage.write, state "default"`.
    fn place(&self) -> String {
        let mut out = format!("plugin {:?}, {}", self.plugin.info().name, self.method);
        if let Some(id) = self.state_id {
            out.push_str(&format!(", state {id:?}"));
        }
        out
    }

    /// A failed call as Terraform's error: the plugin's own summary and
    /// detail when it answered an error, else what went wrong; the place
    /// always.
    fn failed(&self, e: PluginError) -> Diagnostics {
        match e.remote() {
            Some(r) => {
                let detail = match &r.detail {
                    Some(d) => format!("{d}\n\n({})", self.place()),
                    None => format!("({})", self.place()),
                };
                Diagnostic::error(r.message.clone())
                    .with_detail(detail)
                    .into()
            }
            None => self.error(e.to_string()),
        }
    }

    /// A broken answer: the path in it says where.
    fn bad(&self, e: ctywire::Error) -> Diagnostics {
        self.failed(self.plugin.failure(self.method, ErrorKind::BadAnswer(e)))
    }

    fn error(&self, detail: String) -> Diagnostics {
        let detail = match self.state_id {
            Some(id) => format!("{detail} (state {id:?})"),
            None => detail,
        };
        Diagnostic::error("State storage failed")
            .with_detail(detail)
            .into()
    }

    /// An answer's diagnostics: errors stop, warnings have no way out of
    /// a state store call and are dropped.
    fn checked(&self, answer: &Fields) -> Result<(), Diagnostics> {
        if answer.present("diagnostics").is_none() {
            return Ok(());
        }
        let ds = diagnostics(read_diagnostics(answer).map_err(|e| self.bad(e))?);
        if ds.has_errors() {
            return Err(ds);
        }
        Ok(())
    }

    /// A lock or unlock answer: `{}`, or `{held: info}` when another
    /// lock holds the state.
    fn lock_answer(&self, answer: &Fields) -> Result<(), LockError> {
        self.checked(answer)?;
        match answer.present("held") {
            None => Ok(()),
            Some(_) => {
                let held = answer
                    .fields("held")
                    .and_then(|f| {
                        read_lock_info(&f).map_err(|e| e.under(PathStep::Attr("held".into())))
                    })
                    .map_err(|e| self.bad(e))?;
                Err(LockError::Held(held))
            }
        }
    }
}

impl PluginStore {
    fn call<'a>(&'a self, method: &'static str, state_id: Option<&'a str>) -> Call<'a> {
        Call {
            plugin: &self.plugin,
            method,
            state_id,
        }
    }
}

#[async_trait::async_trait]
impl StateStore<()> for PluginStore {
    type Config = StoreConfig;
    type Writer = PluginWriter;

    async fn configure(&self, _: &Context<()>, config: &StoreConfig) -> Result<(), Diagnostics> {
        let call = self.call(method::STORAGE_CONFIGURE, None);
        let mut params = Fields::new();
        params
            .insert_value("config", &config.0, &self.ty)
            .map_err(|e| call.error(format!("the configuration cannot be sent: {e}")))?;
        let answer = call.send(params).await?;
        call.checked(&answer)
    }

    async fn read(
        &self,
        _: &Context<()>,
        _: &StoreConfig,
        state_id: &str,
    ) -> Result<Option<StoredState>, Diagnostics> {
        let call = self.call(method::STORAGE_READ, Some(state_id));
        let answer = call.on_state(Fields::new()).await?;
        match answer.present("state") {
            None => Ok(None),
            Some(raw) => {
                let bytes = read_bin(&raw.0)
                    .map_err(|e| call.bad(e.under(PathStep::Attr("state".into()))))?;
                Ok(Some(StoredState::from(bytes)))
            }
        }
    }

    async fn write(
        &self,
        _: &Context<()>,
        _: &StoreConfig,
        state_id: &str,
        len: u64,
    ) -> Result<PluginWriter, Diagnostics> {
        if len > MAX_STATE {
            return Err(self.call(method::STORAGE_WRITE, Some(state_id)).error(format!(
                "the state has {len} bytes; a plugin stores at most {MAX_STATE} (it travels in one message, §8)"
            )));
        }
        Ok(PluginWriter {
            plugin: self.plugin.clone(),
            state_id: state_id.to_owned(),
            // Grown as bytes arrive, not reserved from the announced length.
            bytes: Vec::new(),
        })
    }

    async fn lock(
        &self,
        _: &Context<()>,
        _: &StoreConfig,
        state_id: &str,
        info: &LockInfo,
    ) -> Result<(), LockError> {
        let call = self.call(method::STORAGE_LOCK, Some(state_id));
        let mut params = Fields::new();
        params.insert_raw("info", write_lock_info(info));
        let answer = call.on_state(params).await?;
        call.lock_answer(&answer)
    }

    async fn unlock(
        &self,
        _: &Context<()>,
        _: &StoreConfig,
        state_id: &str,
        lock_id: &str,
    ) -> Result<(), LockError> {
        let call = self.call(method::STORAGE_UNLOCK, Some(state_id));
        let mut params = Fields::new();
        params.insert_str("lock_id", lock_id);
        let answer = call.on_state(params).await?;
        call.lock_answer(&answer)
    }

    async fn states(&self, _: &Context<()>, _: &StoreConfig) -> Result<Vec<String>, Diagnostics> {
        let call = self.call(method::STORAGE_LIST, None);
        let answer = call.send(Fields::new()).await?;
        call.checked(&answer)?;
        answer
            .list("state_ids", |b| {
                crate::msgpack::as_str(b).map(str::to_owned).ok_or_else(|| {
                    ctywire::Error::type_error(format!(
                        "a state id is a string, not {}",
                        crate::msgpack::kind(b)
                    ))
                })
            })
            .map_err(|e| call.bad(e))
    }

    async fn delete(
        &self,
        _: &Context<()>,
        _: &StoreConfig,
        state_id: &str,
    ) -> Result<(), Diagnostics> {
        let call = self.call(method::STORAGE_DELETE, Some(state_id));
        let answer = call.on_state(Fields::new()).await?;
        call.checked(&answer)
    }
}

/// A state being written: its bytes gather here, and reach the plugin in
/// one `storage.write` at commit, so an interrupted write never reaches
/// it at all.
pub struct PluginWriter {
    plugin: Arc<Plugin>,
    state_id: String,
    bytes: Vec<u8>,
}

#[async_trait::async_trait]
impl StateWriter for PluginWriter {
    async fn write(&mut self, bytes: &[u8]) -> Result<(), Diagnostics> {
        self.bytes.extend_from_slice(bytes);
        Ok(())
    }

    async fn commit(self) -> Result<(), Diagnostics> {
        let call = Call {
            plugin: &self.plugin,
            method: method::STORAGE_WRITE,
            state_id: Some(&self.state_id),
        };
        let mut params = Fields::new();
        params.insert_raw("state", write_bin(&self.bytes));
        let answer = call.on_state(params).await?;
        call.checked(&answer)
    }
}

/// Core's lock info as the contract's map (its JSON field names).
fn write_lock_info(info: &LockInfo) -> Raw {
    let mut f = Fields::new();
    for (key, v) in lock_fields(info) {
        f.insert_str(key, v);
    }
    f.encode()
}

fn lock_fields(info: &LockInfo) -> [(&'static str, &str); 7] {
    [
        ("ID", &info.id),
        ("Operation", &info.operation),
        ("Info", &info.info),
        ("Who", &info.who),
        ("Version", &info.version),
        ("Created", &info.created),
        ("Path", &info.path),
    ]
}

/// The holder's lock info; `ID` is required, the rest may be missing.
fn read_lock_info(f: &Fields) -> Result<LockInfo, ctywire::Error> {
    let opt = |key: &str| -> Result<String, ctywire::Error> {
        Ok(f.opt_str(key)?.unwrap_or_default().to_owned())
    };
    Ok(LockInfo {
        id: f.str("ID")?.to_owned(),
        operation: opt("Operation")?,
        info: opt("Info")?,
        who: opt("Who")?,
        version: opt("Version")?,
        created: opt("Created")?,
        path: opt("Path")?,
    })
}
