//! `terraform-provider-kv`: a key-value store kept as files, on ctywire-provider. The
//! framework plans and validates what the models declare (no plan or validation code here)
//! and checks every answer. I/O is `tokio::fs`, which holds up no async runtime worker.

use std::collections::{BTreeMap, BTreeSet};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use ctywire_provider::{
    async_trait, log::info, Builder, Context, DataSource, Diagnostics, FunctionError, ListResource,
    Listing, Model, Provider, Resource, Result,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::fs;

mod state;

/// A key-value store kept as one JSON file per entry.
#[derive(Serialize, Deserialize, Model)]
struct Config {
    /// The directory the entries are kept in; created if missing.
    root: String,
}

type Ctx = Context<PathBuf>;
struct Kv;

#[async_trait]
impl Provider for Kv {
    type Config = Config;
    type Data = PathBuf;
    async fn configure(&self, Config { root }: Config) -> Result<PathBuf> {
        fs::create_dir_all(&root)
            .await
            .map_err(|e| failed(&format!("cannot create {root}"), e))?;
        Ok(root.into())
    }
}

/// An entry, kept as the file `<root>/<key>.json`.
#[derive(Serialize, Deserialize, Model)]
struct Entry {
    /// The entry's key: a file name without `/`, not starting with `.`.
    #[model(identity, requires_replace, pattern(r"^[^/.][^/]*$", "a file name"))]
    key: String,
    /// The entry's value.
    #[model(sensitive)]
    value: String,
    /// Labels for the entry.
    tags: Option<BTreeMap<String, String>>,
    /// Ports the entry is about.
    #[model(each(range(1, 65535)))]
    ports: Option<BTreeSet<u32>>,
    /// Rules, one block each.
    #[model(block)]
    rule: Vec<Rule>,
    /// The entry's id: its key.
    #[model(computed, same_as = "key")]
    id: Option<String>,
    /// 1 when created, one more on every update.
    #[model(computed)]
    revision: Option<u64>,
}

/// A rule of an entry.
#[derive(Serialize, Deserialize, Model)]
struct Rule {
    /// The port the rule is for.
    #[model(range(1, 65535))]
    port: u32,
    /// A note.
    note: Option<String>,
}

fn file(root: &Path, key: &str) -> PathBuf {
    root.join(format!("{key}.json"))
}

fn failed(what: &str, e: impl std::fmt::Display) -> Diagnostics {
    Diagnostics::error(format!("{what}: {e}"))
}

async fn load(root: &Path, key: &str) -> Result<Option<Entry>> {
    match fs::read(file(root, key)).await {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| failed(&format!("entry {key:?} is damaged"), e)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(failed(&format!("cannot read entry {key:?}"), e)),
    }
}

/// The keys starting with `prefix`, sorted.
async fn keys(root: &Path, prefix: &str) -> Result<Vec<String>> {
    let listing = |e| failed("cannot list the entries", e);
    let mut dir = fs::read_dir(root).await.map_err(listing)?;
    let mut keys = BTreeSet::new();
    while let Some(f) = dir.next_entry().await.map_err(listing)? {
        let name = f.file_name().into_string().unwrap_or_default();
        if let Some(key) = name.strip_suffix(".json").filter(|k| k.starts_with(prefix)) {
            keys.insert(key.to_owned());
        }
    }
    Ok(keys.into_iter().collect())
}

async fn save(root: &Path, entry: Entry) -> Result<Entry> {
    let json = serde_json::to_vec(&entry).map_err(|e| failed("cannot encode the entry", e))?;
    fs::write(file(root, &entry.key), json)
        .await
        .map_err(|e| failed(&format!("cannot write entry {:?}", entry.key), e))?;
    info!("saved {} at revision {:?}", entry.key, entry.revision);
    Ok(entry)
}

struct Entries;

#[async_trait]
impl Resource<PathBuf> for Entries {
    type Model = Entry;
    async fn create(&self, ctx: &Ctx, mut plan: Entry) -> Result<Entry> {
        plan.revision = Some(1);
        save(ctx.data(), plan).await
    }
    async fn read(&self, ctx: &Ctx, state: Entry) -> Result<Option<Entry>> {
        load(ctx.data(), &state.key).await
    }
    async fn update(&self, ctx: &Ctx, prior: Entry, plan: Entry) -> Result<Entry> {
        let revision = Some(prior.revision.unwrap_or(0) + 1);
        save(ctx.data(), Entry { revision, ..plan }).await
    }
    async fn delete(&self, ctx: &Ctx, state: Entry) -> Result<()> {
        match fs::remove_file(file(ctx.data(), &state.key)).await {
            Err(e) if e.kind() != ErrorKind::NotFound => Err(failed("cannot delete the entry", e)),
            _ => Ok(()),
        }
    }
    async fn import(&self, ctx: &Ctx, key: String) -> Result<Option<Entry>> {
        load(ctx.data(), &key).await
    }
}

#[async_trait]
impl ListResource<PathBuf> for Entries {
    type Config = Keys;
    async fn list(&self, ctx: &Ctx, query: Keys, out: &Listing<Entry>) -> Result<()> {
        for key in keys(ctx.data(), query.prefix.as_deref().unwrap_or_default()).await? {
            if let Some(entry) = load(ctx.data(), &key).await? {
                out.push(key, entry).await?;
            }
        }
        Ok(())
    }
}

/// The keys of the store's entries; also the `config` of `list "kv_entry"` blocks.
#[derive(Serialize, Deserialize, Model)]
struct Keys {
    /// Only keys starting with this.
    prefix: Option<String>,
    /// The keys, sorted.
    #[model(computed)]
    keys: Option<Vec<String>>,
}

#[async_trait]
impl DataSource<PathBuf> for Entries {
    type Model = Keys;
    async fn read(&self, ctx: &Ctx, query: Keys) -> Result<Keys> {
        let keys = Some(keys(ctx.data(), query.prefix.as_deref().unwrap_or_default()).await?);
        Ok(Keys { keys, ..query })
    }
}

/// The lowercase hex SHA-256 of a string.
#[derive(Serialize, Deserialize, Model)]
struct HashArgs {
    /// The text, hashed as UTF-8.
    input: String,
}

fn hash(args: HashArgs) -> Result<String, FunctionError> {
    Ok(format!("{:x}", Sha256::digest(args.input.as_bytes())))
}

/// The provider: what `main` serves, and what a test drives in-process
/// (ctywire-provider-testing's harness_matches_terraform includes this file).
pub(crate) fn provider() -> Builder<impl Provider<Data = PathBuf>> {
    Builder::new(Kv)
        .resource("kv_entry", Entries)
        .list_resource("kv_entry", Entries)
        .data_source("kv_entries", Entries)
        .pure_function("hash", hash)
        .state_store("kv_fs", state::States)
}

fn main() {
    provider().run();
}
