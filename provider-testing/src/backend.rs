//! The harness's state kept in a provider's state store, as Terraform
//! keeps it behind a `state_store` block (core's pluggable backend,
//! protocol 6.11): `terraform init` configures the store's provider and
//! the store and reads the workspace's state; each apply takes the
//! state's lock first, writes the state file (format version 4, as
//! `statefile.Write` writes it) and releases the lock last.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use ctywire::{Path, PathStep, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use serde_json::{json, Map, Value as Json};

use crate::client::{block_on, TERRAFORM_VERSION};
use crate::state_store::{InProcess, StateStoreClient};
use crate::{core, show, Harness};

/// The workspace the harness works in (`terraform.workspace`).
const WORKSPACE: &str = "default";

/// A configured store and the lineage of the state kept in it.
pub(crate) struct Backend {
    store: Box<dyn Store>,
    lineage: String,
    serial: u64,
}

/// The store's calls, made to wait for (the harness is synchronous).
trait Store: Send + Sync {
    fn lock(&mut self, operation: &str) -> Result<String, Diagnostics>;
    fn unlock(&mut self, lock_id: &str) -> Result<(), Diagnostics>;
    fn read(&mut self) -> Result<Option<Vec<u8>>, Diagnostics>;
    fn write(&mut self, bytes: &[u8]) -> Result<(), Diagnostics>;
}

/// A store served in-process by its own provider instance (Terraform
/// starts one for the backend, apart from the resources' provider), on
/// its own runtime.
struct Served<P: ctywire_tfplugin6::Provider> {
    runtime: tokio::runtime::Runtime,
    client: StateStoreClient<InProcess<P>>,
}

/// The store's call `f` run to its end on `runtime` (see [`block_on`]).
fn wait<T>(
    runtime: &tokio::runtime::Runtime,
    f: impl std::future::Future<Output = Result<T, Diagnostics>>,
) -> Result<T, Diagnostics> {
    block_on(runtime, f)?
}

impl<P: ctywire_tfplugin6::Provider> Store for Served<P> {
    fn lock(&mut self, operation: &str) -> Result<String, Diagnostics> {
        wait(&self.runtime, self.client.lock(WORKSPACE, operation))
    }
    fn unlock(&mut self, lock_id: &str) -> Result<(), Diagnostics> {
        wait(&self.runtime, self.client.unlock(WORKSPACE, lock_id))
    }
    fn read(&mut self) -> Result<Option<Vec<u8>>, Diagnostics> {
        wait(&self.runtime, self.client.read(WORKSPACE))
    }
    fn write(&mut self, bytes: &[u8]) -> Result<(), Diagnostics> {
        wait(&self.runtime, self.client.write(WORKSPACE, bytes))
    }
}

/// A lineage for a new state: a random version-4 UUID, as core makes one
/// (from the process's hash keys: no dependency for randomness).
fn new_lineage() -> String {
    let random = || RandomState::new().build_hasher().finish();
    let (a, b) = (random(), random());
    let hex = format!("{a:016x}{b:016x}");
    format!(
        "{}-{}-4{}-{:x}{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        8 | (b >> 60) & 3,
        &hex[17..20],
        &hex[20..32]
    )
}

impl Backend {
    /// `terraform init` with `state_store "TYPE" { provider "NAME" {…} … }`:
    /// the store's provider configured with `provider_config`, the store
    /// with `config` (Terraform's proposed chunk size), and the
    /// workspace's state read.
    fn init<P: ctywire_tfplugin6::Provider>(
        provider: P,
        type_name: &str,
        provider_config: &Json,
        config: &Json,
    ) -> Result<Backend, Diagnostics> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Diagnostics::error(format!("cannot start the store's runtime: {e}")))?;
        let client = wait(
            &runtime,
            StateStoreClient::in_process(provider, type_name, provider_config, config),
        )?;
        let mut store = Served { runtime, client };
        let (lineage, serial) = match store.read()? {
            None => (new_lineage(), 0),
            Some(bytes) => adopted(&bytes)?,
        };
        Ok(Backend {
            store: Box::new(store),
            lineage,
            serial,
        })
    }
}

/// The lineage and serial of a stored state the harness may continue: one
/// without resources or outputs (the harness starts from an empty state
/// and does not read objects back from a state file).
fn adopted(bytes: &[u8]) -> Result<(String, u64), Diagnostics> {
    let unreadable =
        |why: String| Diagnostics::from(Diagnostic::error("Failed to load state").with_detail(why));
    let doc: Json = serde_json::from_slice(bytes)
        .map_err(|e| unreadable(format!("The stored state is not JSON: {e}.")))?;
    if doc["version"] != json!(4) {
        return Err(unreadable(format!(
            "The stored state has version {}; the harness reads version 4.",
            doc["version"]
        )));
    }
    let empty = |key: &str| match &doc[key] {
        Json::Null => true,
        Json::Array(a) => a.is_empty(),
        Json::Object(o) => o.is_empty(),
        _ => false,
    };
    if !empty("resources") || !empty("outputs") {
        return Err(unreadable(
            "The stored state has resources or outputs; the harness starts from an empty state, so delete the stored state first.".into(),
        ));
    }
    let lineage = doc["lineage"].as_str().unwrap_or_default().to_owned();
    let serial = doc["serial"].as_u64().unwrap_or(0);
    Ok((lineage, serial))
}

/// A path as the state file writes `sensitive_attributes`: steps of
/// `get_attr` with the name, or `index` with the key as a value of
/// dynamic type in cty's JSON (`{"value": …, "type": …}`).
fn path_json(path: &Path) -> Json {
    let steps = path.steps().iter().map(|step| match step {
        PathStep::Attr(name) => json!({ "type": "get_attr", "value": name }),
        // Tagged as the document's other strings (`show::to_tagged`).
        PathStep::Key(key) => json!({
            "type": "index",
            "value": { "value": show::to_tagged(&Value::string(key.as_str())), "type": "string" },
        }),
        PathStep::Index(i) => json!({
            "type": "index",
            "value": { "value": i, "type": "number" },
        }),
    });
    Json::Array(steps.collect())
}

impl Harness {
    /// `terraform { state_store "TYPE" { provider "NAME" { … } … } }` and
    /// `terraform init`: the harness keeps its state in the state store
    /// `type_name` of `provider` (a provider instance of its own, as
    /// Terraform starts one for the backend), configured with
    /// `provider_config` and the store's `config` (attributes in
    /// Terraform's JSON syntax; left out, null), in the workspace
    /// `default`. From then on each apply (and destroy, refresh, import)
    /// holds the state's lock while it runs (`LockState` before,
    /// `UnlockState` after; a lock held by another is "Error acquiring
    /// the state lock") and writes the state (`WriteStateBytes`) in
    /// Terraform's state file format, version 4. A stored state that
    /// already has resources is refused: the harness starts empty.
    pub fn state_store<P: ctywire_tfplugin6::Provider>(
        &mut self,
        provider: P,
        type_name: &str,
        provider_config: Json,
        config: Json,
    ) -> Result<&mut Self, Diagnostics> {
        self.backend = Some(Backend::init(
            provider,
            type_name,
            &provider_config,
            &config,
        )?);
        Ok(self)
    }

    /// The state as Terraform's state file holds it (format version 4,
    /// `terraform.tfstate` or a backend's copy): what an apply writes to
    /// the state store. Without a state store, lineage and serial are
    /// empty and 0.
    pub fn state_file(&self) -> Result<Json, Diagnostics> {
        let (lineage, serial) = match &self.backend {
            Some(b) => (b.lineage.as_str(), b.serial),
            None => ("", 0),
        };
        Ok(show::plain(self.state_file_tagged(lineage, serial)?))
    }

    /// [`state_file`](Self::state_file), numbers tagged for exact text.
    fn state_file_tagged(&self, lineage: &str, serial: u64) -> Result<Json, Diagnostics> {
        let provider = format!("provider[\"{}\"]", self.provider);
        // Instances of one resource (`count`, `for_each`) are grouped
        // under it, their keys as `index_key` and the kind as `each`.
        let mut resources: Vec<Json> = Vec::new();
        let mut resource = |address: &str, mut instance: Map<String, Json>| {
            let (mode, rest) = match address.strip_prefix(core::DATA) {
                Some(rest) => ("data", rest),
                None => ("managed", address),
            };
            let (type_name, name) = rest.split_once('.').unwrap_or((rest, ""));
            let (name, key) = match name.split_once('[') {
                Some((name, key)) => (name, key.strip_suffix(']')),
                None => (name, None),
            };
            let key: Option<Json> = key.and_then(|k| serde_json::from_str(k).ok());
            let each = match &key {
                Some(Json::String(_)) => Some("map"),
                Some(_) => Some("list"),
                None => None,
            };
            match key {
                // Tagged as the document's other strings (`show::to_tagged`).
                Some(Json::String(k)) => {
                    instance.insert("index_key".into(), show::to_tagged(&Value::string(k)));
                }
                Some(k) => {
                    instance.insert("index_key".into(), k);
                }
                None => {}
            }
            let same = |r: &Json| r["mode"] == mode && r["type"] == type_name && r["name"] == name;
            match resources.iter_mut().find(|r| same(r)) {
                Some(r) => {
                    if let Some(Json::Array(instances)) = r.get_mut("instances") {
                        instances.push(Json::Object(instance));
                    }
                }
                None => {
                    let mut r = json!({ "mode": mode, "type": type_name, "name": name });
                    if let Some(each) = each {
                        r["each"] = json!(each);
                    }
                    r["provider"] = json!(provider);
                    r["instances"] = json!([instance]);
                    resources.push(r);
                }
            }
        };
        for (address, (value, marks)) in &self.data_state {
            let rs = self.core().schema_of(address)?;
            let mut i = Map::new();
            i.insert("schema_version".into(), json!(rs.schema.version));
            i.insert("attributes".into(), show::to_tagged(value));
            i.insert("sensitive_attributes".into(), paths_json(marks));
            resource(address, i);
        }
        for (address, stored) in &self.state {
            let rs = (self.schemas.resources.get(&stored.type_name)).ok_or_else(|| {
                Diagnostics::error(format!(
                    "the provider has no resource type {:?} (of {address} in state)",
                    stored.type_name
                ))
            })?;
            let value = ctywire::json::decode(&stored.attrs_json, &rs.ty)?;
            let mut i = Map::new();
            if stored.tainted {
                i.insert("status".into(), json!("tainted"));
            }
            i.insert("schema_version".into(), json!(stored.schema_version));
            i.insert("attributes".into(), show::to_tagged(&value));
            i.insert("sensitive_attributes".into(), paths_json(&stored.sensitive));
            // Terraform 1.12's: the identity and its version.
            let identity =
                (stored.identity.as_ref()).zip(self.schemas.identities.get(&stored.type_name));
            if let Some(((json, version), it)) = identity {
                let v = ctywire::json::decode(json, &it.ty)?;
                i.insert("identity_schema_version".into(), json!(version));
                i.insert("identity".into(), show::to_tagged(&v));
            }
            if !stored.private.is_empty() {
                use base64::Engine;
                let private = base64::engine::general_purpose::STANDARD.encode(&stored.private);
                i.insert("private".into(), json!(private));
            }
            if !stored.dependencies.is_empty() {
                i.insert("dependencies".into(), json!(stored.dependencies));
            }
            resource(address, i);
        }
        let outputs: Map<String, Json> = (self.output_values.iter())
            .map(|(name, (value, sensitive))| {
                let mut o = Map::new();
                o.insert("value".into(), show::to_tagged(value));
                let ty: Json = serde_json::from_str(&value.ty().to_json()).unwrap_or(Json::Null);
                o.insert("type".into(), ty);
                if *sensitive {
                    o.insert("sensitive".into(), json!(true));
                }
                (name.clone(), Json::Object(o))
            })
            .collect();
        Ok(json!({
            "version": 4,
            "terraform_version": TERRAFORM_VERSION,
            "serial": serial,
            "lineage": lineage,
            "outputs": outputs,
            "resources": resources,
            "check_results": null,
        }))
    }

    /// Runs `operation` holding the state's lock, when the state is kept
    /// in a store, and writes the state after it when it changed — also
    /// after an error, as core persists what was applied.
    pub(crate) fn with_state_lock<T>(
        &mut self,
        operation: &str,
        run: impl FnOnce(&mut Harness) -> Result<T, Diagnostics>,
    ) -> Result<T, Diagnostics> {
        // Out of the harness while the operation runs: what it calls in
        // turn runs under this lock.
        let Some(mut backend) = self.backend.take() else {
            return run(self);
        };
        let lock_id = match backend.store.lock(operation) {
            Ok(id) => id,
            Err(e) => {
                self.backend = Some(backend);
                return Err(Diagnostic::error("Error acquiring the state lock")
                    .with_detail(format!(
                        "{}\n\nThe state is locked while Terraform changes it, so that two runs cannot change it at once; try again once the other run is done.",
                        first_error(&e)
                    ))
                    .into());
            }
        };
        let serial = self.serial;
        let mut result = run(self);
        if self.serial != serial {
            if let Err(e) = self.persist(&mut backend) {
                result = result.and(Err(e));
            }
        }
        if let Err(e) = backend.store.unlock(&lock_id) {
            let e = Diagnostics::from(
                Diagnostic::error("Error releasing the state lock").with_detail(format!(
                    "{}\n\nThe lock {lock_id} may still be held; remove it from the store before the next run.",
                    first_error(&e)
                )),
            );
            result = result.and(Err(e));
        }
        self.backend = Some(backend);
        result
    }

    /// The state written to the store with the next serial.
    fn persist(&self, backend: &mut Backend) -> Result<(), Diagnostics> {
        let failed = |e: Diagnostics| {
            Diagnostics::from(
                Diagnostic::error("Failed to persist state to backend")
                    .with_detail(first_error(&e)),
            )
        };
        backend.serial += 1;
        let doc = self.state_file_tagged(&backend.lineage, backend.serial);
        let text = show::exact_text(&doc.map_err(failed)?);
        backend.store.write(text.as_bytes()).map_err(failed)
    }
}

fn paths_json(paths: &[Path]) -> Json {
    Json::Array(paths.iter().map(path_json).collect())
}

/// The first error's text, for a message of core's that wraps it.
fn first_error(ds: &Diagnostics) -> String {
    match ds.iter().find(|d| d.is_error()) {
        Some(d) if d.detail.is_empty() => d.summary.clone(),
        Some(d) => format!("{}: {}", d.summary, d.detail),
        None => ds.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::new_lineage;

    #[test]
    fn a_lineage_is_a_version_4_uuid_and_new_each_time() {
        let (a, b) = (new_lineage(), new_lineage());
        assert_ne!(a, b);
        let parts: Vec<usize> = a.split('-').map(str::len).collect();
        assert_eq!(parts, [8, 4, 4, 4, 12], "{a}");
        assert_eq!(a.as_bytes()[14], b'4', "{a}");
        assert!(matches!(a.as_bytes()[19], b'8' | b'9' | b'a' | b'b'), "{a}");
    }
}
