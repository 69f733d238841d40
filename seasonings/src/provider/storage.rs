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

    /// Where the call was: `state "default": plugin "files", storage.write`.
    fn place(&self) -> String {
        let call = format!("plugin {:?}, {}", self.plugin.info().name, self.method);
        match self.state_id {
            Some(id) => format!("state {id:?}: {call}"),
            None => call,
        }
    }

    /// A failed call as Terraform's error: the plugin's own summary and
    /// detail when it answered an error, else what went wrong; the place
    /// always.
    fn failed(&self, e: PluginError) -> Diagnostics {
        match e.remote() {
            Some(r) => Diagnostic::error(r.message.clone())
                .with_detail(self.placed(r.detail.as_deref()))
                .into(),
            // The error names the plugin and the method; the state leads.
            None => Self::storage_failed(match self.state_id {
                Some(id) => format!("state {id:?}: {e}"),
                None => e.to_string(),
            }),
        }
    }

    /// The plugin's own detail, then where it was said.
    fn placed(&self, detail: Option<&str>) -> String {
        match detail {
            Some(d) => format!("{d}\n\n({})", self.place()),
            None => format!("({})", self.place()),
        }
    }

    /// An error of the host's own about this call.
    fn error(&self, why: &str) -> Diagnostics {
        Self::storage_failed(format!("{}: {why}", self.place()))
    }

    fn storage_failed(detail: String) -> Diagnostics {
        Diagnostic::error("State storage failed")
            .with_detail(detail)
            .into()
    }

    /// A broken answer: the path in it says where.
    fn bad(&self, e: ctywire::Error) -> Diagnostics {
        self.failed(self.plugin.failure(self.method, ErrorKind::BadAnswer(e)))
    }

    /// An answer's diagnostics: errors stop, warnings have no way out of
    /// a state store call and are dropped.
    fn checked(&self, answer: &Fields) -> Result<(), Diagnostics> {
        if answer.present("diagnostics").is_none() {
            return Ok(());
        }
        let mut ds = read_diagnostics(answer).map_err(|e| self.bad(e))?;
        for d in &mut ds {
            d.detail = Some(self.placed(d.detail.as_deref()));
        }
        let ds = diagnostics(ds);
        if ds.has_errors() {
            return Err(ds);
        }
        Ok(())
    }

    /// A lock or unlock answer: `{}`, or `{held: info}` when another
    /// lock holds the state.
    // The framework's LockError, as its StateStore's lock returns it.
    #[allow(clippy::result_large_err)]
    fn lock_answer(&self, answer: &Fields) -> Result<(), LockError> {
        self.checked(answer)?;
        match read_held(answer).map_err(|e| self.bad(e))? {
            None => Ok(()),
            Some(held) => Err(LockError::Held(held)),
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
            .map_err(|e| call.error(&format!("the configuration cannot be sent: {e}")))?;
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
        let state = read_state(&answer).map_err(|e| call.bad(e))?;
        Ok(state.map(StoredState::from))
    }

    async fn write(
        &self,
        _: &Context<()>,
        _: &StoreConfig,
        state_id: &str,
        len: u64,
    ) -> Result<PluginWriter, Diagnostics> {
        if len > MAX_STATE {
            let call = self.call(method::STORAGE_WRITE, Some(state_id));
            return Err(call.error(&format!(
                "the state has {len} bytes; a plugin stores at most {MAX_STATE} (a state travels in one message, §8)"
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
        read_state_ids(&answer).map_err(|e| call.bad(e))
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

// The answers' readers: plugin output, so each takes any bytes (the
// tests below feed them arbitrary ones) and says where an answer is wrong.

/// `storage.read`'s `state`: bin, or nil for none yet.
fn read_state(answer: &Fields) -> Result<Option<Vec<u8>>, ctywire::Error> {
    match answer.present("state") {
        None => Ok(None),
        Some(raw) => read_bin(&raw.0)
            .map(Some)
            .map_err(|e| e.under(PathStep::Attr("state".into()))),
    }
}

/// `storage.list`'s `state_ids`.
fn read_state_ids(answer: &Fields) -> Result<Vec<String>, ctywire::Error> {
    answer.list("state_ids", |b| {
        crate::msgpack::as_str(b).map(str::to_owned).ok_or_else(|| {
            ctywire::Error::type_error(format!(
                "a state id is a string, not {}",
                crate::msgpack::kind(b)
            ))
        })
    })
}

/// A lock or unlock answer's `held`: the holder, when another lock holds
/// the state.
fn read_held(answer: &Fields) -> Result<Option<LockInfo>, ctywire::Error> {
    if answer.present("held").is_none() {
        return Ok(None);
    }
    let held = answer.fields("held")?;
    read_lock_info(&held)
        .map(Some)
        .map_err(|e| e.under(PathStep::Attr("held".into())))
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{read_held, read_lock_info, read_state, read_state_ids, write_lock_info};
    use crate::protocol::Fields;

    fn info(id: String, who: String) -> ctywire_provider::LockInfo {
        ctywire_provider::LockInfo {
            id,
            operation: "OperationTypeApply".into(),
            info: String::new(),
            who,
            version: "1.16.0".into(),
            created: "2026-11-26T20:00:00Z".into(),
            path: "default".into(),
        }
    }

    proptest! {
        #[test]
        fn lock_info_round_trips_as_the_contracts_map(id in ".*", who in ".*") {
            let info = info(id, who);
            let map = Fields::read(&write_lock_info(&info).0).unwrap();
            prop_assert_eq!(read_lock_info(&map).unwrap(), info);
        }

        #[test]
        fn storage_answers_of_any_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..96)) {
            // As a whole answer, and as each field's value.
            let mut answers: Vec<Fields> = Fields::read(&bytes).into_iter().collect();
            for key in ["state", "state_ids", "held"] {
                let mut f = Fields::new();
                f.insert_raw(key, ctywire_bridge::msgpack_rpc::Raw(bytes.clone()));
                answers.push(f);
            }
            for a in &answers {
                let _ = (read_state(a), read_state_ids(a), read_held(a));
            }
        }
    }
}
