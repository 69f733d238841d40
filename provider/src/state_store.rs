//! State stores (protocol 6.11, experimental in Terraform): a provider
//! that keeps Terraform's state files, configured by a `state_store` block.
//! The author reads and writes whole states as byte streams and keeps
//! locks; the framework does the protocol's part: the chunk size agreed
//! with Terraform, the chunks' ranges and total length, and a write that
//! reaches the store only once every byte arrived.

use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use ctywire::Value;
use ctywire_tfplugin6::{
    Diagnostic, Diagnostics, StateChunk, StateChunkStream, StateChunks, StateRange,
};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::context::Context;
use crate::model::Model;
use crate::values::read_model;

/// The chunk size Terraform proposes (core's
/// `chunks.DefaultStateStoreChunkSize`), and the one the framework takes
/// when a client proposes none.
pub const DEFAULT_CHUNK_SIZE: usize = 8 << 20;

/// The largest chunk size Terraform accepts (core's
/// `chunks.MaxStateStoreChunkSize`).
pub const MAX_CHUNK_SIZE: usize = 128 << 20;

/// A state store type: where Terraform keeps its state files (one per
/// workspace, each named by a state id), configured by a typed
/// `state_store` block.
///
/// The framework calls [`read`](Self::read) and [`write`](Self::write)
/// with whole states and splits or joins Terraform's chunks itself: a
/// read hands the framework a reader of known length, a write gets a
/// [`StateWriter`] to which the framework passes the chunks as they come
/// and which it [commits](StateWriter::commit) only once every byte has
/// arrived in order. A write that breaks off (Terraform went away, was
/// stopped, or sent a chunk out of place) drops the writer uncommitted:
/// write to somewhere new and move it into place in `commit`, and the
/// stored state is never half replaced. Memory stays a few chunks,
/// however large the state.
///
/// ```no_run
/// # use ctywire_provider::{async_trait, Context, LockError, LockInfo, Model, Result, StateStore, StateWriter, StoredState};
/// # use serde::{Deserialize, Serialize};
/// /// Where the states live.
/// #[derive(Serialize, Deserialize, Model)]
/// struct Dir {
///     path: String,
/// }
///
/// struct Files;
///
/// struct Upload(tokio::fs::File, std::path::PathBuf, std::path::PathBuf);
///
/// #[async_trait]
/// impl StateWriter for Upload {
///     async fn write(&mut self, bytes: &[u8]) -> Result<()> {
///         use tokio::io::AsyncWriteExt;
///         self.0.write_all(bytes).await.map_err(|e| e.to_string().into())
///     }
///     async fn commit(self) -> Result<()> {
///         tokio::fs::rename(&self.1, &self.2).await.map_err(|e| e.to_string().into())
///     }
/// }
///
/// #[async_trait]
/// impl StateStore<()> for Files {
///     type Config = Dir;
///     type Writer = Upload;
///
///     async fn read(&self, _: &Context<()>, dir: &Dir, id: &str) -> Result<Option<StoredState>> {
///         match tokio::fs::File::open(format!("{}/{id}", dir.path)).await {
///             Ok(f) => {
///                 let len = f.metadata().await.map_err(|e| e.to_string())?.len();
///                 Ok(Some(StoredState::new(len, f)))
///             }
///             Err(_) => Ok(None),
///         }
///     }
///     async fn write(&self, _: &Context<()>, dir: &Dir, id: &str, _len: u64) -> Result<Upload> {
///         let (tmp, path) = (format!("{}/{id}.tmp", dir.path), format!("{}/{id}", dir.path));
///         let f = tokio::fs::File::create(&tmp).await.map_err(|e| e.to_string())?;
///         Ok(Upload(f, tmp.into(), path.into()))
///     }
///     async fn lock(&self, _: &Context<()>, _: &Dir, _: &str, _: &LockInfo) -> Result<(), LockError> {
///         Ok(())
///     }
///     async fn unlock(&self, _: &Context<()>, _: &Dir, _: &str, _: &str) -> Result<(), LockError> {
///         Ok(())
///     }
///     async fn states(&self, _: &Context<()>, _: &Dir) -> Result<Vec<String>> {
///         Ok(vec!["default".into()])
///     }
///     async fn delete(&self, _: &Context<()>, dir: &Dir, id: &str) -> Result<()> {
///         let _ = tokio::fs::remove_file(format!("{}/{id}", dir.path)).await;
///         Ok(())
///     }
/// }
/// ```
#[async_trait::async_trait]
pub trait StateStore<D: Send + Sync + 'static>: Send + Sync + 'static {
    /// The `state_store` block.
    type Config: Model;
    /// What a write goes to until it is committed.
    type Writer: StateWriter;

    /// The chunk size to use, given the one Terraform proposes (8 MiB):
    /// at most [`MAX_CHUNK_SIZE`]. Default: Terraform's.
    fn chunk_size(&self, proposed: usize) -> usize {
        proposed
    }

    /// Cross-attribute checks beyond the model's validators. Default: none.
    fn validate(&self, config: &Value) -> Diagnostics {
        let _ = config;
        Diagnostics::new()
    }

    /// Checks the configuration Terraform will use from now on (the store
    /// reachable, say). Default: nothing to check.
    async fn configure(&self, ctx: &Context<D>, config: &Self::Config) -> Result<(), Diagnostics> {
        let _ = (ctx, config);
        Ok(())
    }

    /// The state `state_id`, or `None` when there is none yet.
    async fn read(
        &self,
        ctx: &Context<D>,
        config: &Self::Config,
        state_id: &str,
    ) -> Result<Option<StoredState>, Diagnostics>;

    /// Starts writing the state `state_id`, `len` bytes long; nothing
    /// replaces the stored state until [`StateWriter::commit`].
    async fn write(
        &self,
        ctx: &Context<D>,
        config: &Self::Config,
        state_id: &str,
        len: u64,
    ) -> Result<Self::Writer, Diagnostics>;

    /// Locks `state_id` for `info.operation`, or says who holds it
    /// ([`LockError::Held`]). Keep `info` with the lock: Terraform shows it
    /// to whoever finds the state locked, and unlocks with `info.id`.
    async fn lock(
        &self,
        ctx: &Context<D>,
        config: &Self::Config,
        state_id: &str,
        info: &LockInfo,
    ) -> Result<(), LockError>;

    /// Unlocks `state_id`, if `lock_id` is the id of the lock held
    /// (otherwise [`LockError::Held`], with the lock that is).
    async fn unlock(
        &self,
        ctx: &Context<D>,
        config: &Self::Config,
        state_id: &str,
        lock_id: &str,
    ) -> Result<(), LockError>;

    /// The ids of the states the store holds (Terraform's workspaces).
    async fn states(
        &self,
        ctx: &Context<D>,
        config: &Self::Config,
    ) -> Result<Vec<String>, Diagnostics>;

    /// Deletes the state `state_id`.
    async fn delete(
        &self,
        ctx: &Context<D>,
        config: &Self::Config,
        state_id: &str,
    ) -> Result<(), Diagnostics>;
}

/// Where a [`StateStore::write`] puts the state until it is complete.
#[async_trait::async_trait]
pub trait StateWriter: Send + Sized + 'static {
    /// The next bytes of the state, in order (a chunk at a time).
    async fn write(&mut self, bytes: &[u8]) -> Result<(), Diagnostics>;

    /// Every byte has arrived: make this the stored state. A writer
    /// dropped without this is an interrupted write, to be forgotten.
    async fn commit(self) -> Result<(), Diagnostics>;
}

/// A stored state as [`StateStore::read`] gives it: its length and a
/// reader of exactly that many bytes (the framework checks that it is).
pub struct StoredState {
    len: u64,
    reader: Pin<Box<dyn AsyncRead + Send>>,
}

impl StoredState {
    /// `len` bytes, read from `reader`.
    pub fn new(len: u64, reader: impl AsyncRead + Send + 'static) -> Self {
        StoredState {
            len,
            reader: Box::pin(reader),
        }
    }
}

impl From<Vec<u8>> for StoredState {
    fn from(bytes: Vec<u8>) -> Self {
        StoredState::new(bytes.len() as u64, std::io::Cursor::new(bytes))
    }
}

/// Terraform's lock information (core's `statemgr.LockInfo`), with its
/// JSON field names: what a lock file holds, and what Terraform shows
/// when a state is locked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockInfo {
    /// The lock's unique id (a UUID).
    #[serde(rename = "ID")]
    pub id: String,
    /// What Terraform is doing (`OperationTypeApply`, say).
    #[serde(rename = "Operation")]
    pub operation: String,
    /// Anything more.
    #[serde(rename = "Info")]
    pub info: String,
    /// `user@host` of the locker.
    #[serde(rename = "Who")]
    pub who: String,
    /// The locking Terraform's version.
    #[serde(rename = "Version")]
    pub version: String,
    /// When it was locked (RFC 3339, UTC).
    #[serde(rename = "Created")]
    pub created: String,
    /// The state locked.
    #[serde(rename = "Path")]
    pub path: String,
}

impl LockInfo {
    /// A new lock of `state_id` for `operation`, by this user on this
    /// host, now.
    pub(crate) fn new(state_id: &str, operation: String, terraform_version: String) -> Self {
        LockInfo {
            id: lock_id(),
            operation,
            info: String::new(),
            who: who(),
            version: terraform_version,
            created: ctywire_tfplugin6::timestamp(SystemTime::now()),
            path: state_id.to_owned(),
        }
    }

    /// As core's `LockInfo.String()` lists it.
    fn describe(&self) -> String {
        format!(
            "Lock Info:\n  ID:        {}\n  Path:      {}\n  Operation: {}\n  Who:       {}\n  Version:   {}\n  Created:   {}\n  Info:      {}",
            self.id, self.path, self.operation, self.who, self.version, self.created, self.info
        )
    }
}

/// Why a lock or an unlock failed.
#[derive(Clone, Debug)]
pub enum LockError {
    /// The state is locked by someone else (or, unlocking, by another
    /// lock): the lock held.
    Held(LockInfo),
    /// Anything else.
    Failed(Diagnostics),
}

impl From<Diagnostics> for LockError {
    fn from(d: Diagnostics) -> Self {
        LockError::Failed(d)
    }
}

impl LockError {
    fn into_diagnostics(self, state_id: &str) -> Diagnostics {
        match self {
            LockError::Held(held) => Diagnostic::error("The state is locked")
                .with_detail(format!(
                    "The state {state_id:?} is locked by another operation.\n\n{}",
                    held.describe()
                ))
                .into(),
            LockError::Failed(d) => d,
        }
    }
}

/// A random UUID (version 4), as core's lock ids are.
fn lock_id() -> String {
    let mut b = [0u8; 16];
    if getrandom::getrandom(&mut b).is_err() {
        // No randomness: the time still tells locks apart.
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        b = now.as_nanos().to_le_bytes();
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

/// `user@host`, as core's lock info names the locker.
fn who() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "unknown".into());
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "localhost".into());
    format!("{user}@{host}")
}

/// A state store with its config erased: what the framework holds per
/// type name, with the configuration and chunk size Terraform agreed.
#[async_trait::async_trait]
pub(crate) trait AnyStateStore<D>: Send + Sync {
    fn validate(&self, config: &Value) -> Diagnostics;
    /// Configures the store; the chunk size chosen.
    async fn configure(
        &self,
        ctx: &Context<D>,
        config: Value,
        proposed: i64,
    ) -> Result<i64, Diagnostics>;
    async fn read(
        &self,
        ctx: &Context<D>,
        state_id: &str,
        out: &StateChunks,
    ) -> Result<(), Diagnostics>;
    async fn write(
        &self,
        ctx: &Context<D>,
        state_id: &str,
        chunks: &mut StateChunkStream,
    ) -> Result<(), Diagnostics>;
    async fn lock(
        &self,
        ctx: &Context<D>,
        state_id: &str,
        info: &LockInfo,
    ) -> Result<(), Diagnostics>;
    async fn unlock(
        &self,
        ctx: &Context<D>,
        state_id: &str,
        lock_id: &str,
    ) -> Result<(), Diagnostics>;
    async fn states(&self, ctx: &Context<D>) -> Result<Vec<String>, Diagnostics>;
    async fn delete(&self, ctx: &Context<D>, state_id: &str) -> Result<(), Diagnostics>;
}

/// A typed state store and what `ConfigureStateStore` agreed.
pub(crate) struct Store<S: StateStore<D>, D: Send + Sync + 'static> {
    store: S,
    configured: RwLock<Option<Arc<Configured<S::Config>>>>,
    _data: std::marker::PhantomData<fn(D)>,
}

struct Configured<C> {
    config: C,
    chunk_size: usize,
}

impl<S: StateStore<D>, D: Send + Sync + 'static> Store<S, D> {
    pub(crate) fn new(store: S) -> Self {
        Store {
            store,
            configured: RwLock::new(None),
            _data: std::marker::PhantomData,
        }
    }

    fn configured(&self, ctx: &Context<D>) -> Result<Arc<Configured<S::Config>>, Diagnostics> {
        let slot = self
            .configured
            .read()
            .map_err(|_| Diagnostics::error("the state store's configuration is unavailable"))?;
        slot.clone().ok_or_else(|| {
            Diagnostic::error("State store not configured")
                .with_detail(format!(
                    "the state store {:?} was used before Terraform configured it (ConfigureStateStore)",
                    ctx.type_name()
                ))
                .into()
        })
    }
}

/// The chunk size the store chose from Terraform's proposal (none, or
/// not a size: the default), or why it cannot be used.
fn negotiate(proposed: i64, choose: impl Fn(usize) -> usize) -> Result<usize, Diagnostics> {
    let proposed = usize::try_from(proposed)
        .ok()
        .filter(|&p| p > 0)
        .unwrap_or(DEFAULT_CHUNK_SIZE);
    let chosen = choose(proposed);
    if chosen == 0 || chosen > MAX_CHUNK_SIZE {
        return Err(Diagnostic::error("Invalid state store chunk size")
            .with_detail(format!(
                "the state store chose chunks of {chosen} bytes; Terraform accepts more than 0 and at most {MAX_CHUNK_SIZE} bytes"
            ))
            .into());
    }
    Ok(chosen)
}

#[async_trait::async_trait]
impl<S: StateStore<D>, D: Send + Sync + 'static> AnyStateStore<D> for Store<S, D> {
    fn validate(&self, config: &Value) -> Diagnostics {
        self.store.validate(config)
    }

    async fn configure(
        &self,
        ctx: &Context<D>,
        config: Value,
        proposed: i64,
    ) -> Result<i64, Diagnostics> {
        let config = read_model::<S::Config>(config)?;
        let chunk_size = negotiate(proposed, |p| self.store.chunk_size(p))?;
        self.store.configure(ctx, &config).await?;
        let configured = Arc::new(Configured { config, chunk_size });
        *self
            .configured
            .write()
            .map_err(|_| Diagnostics::error("the state store's configuration is unavailable"))? =
            Some(configured);
        Ok(chunk_size as i64)
    }

    async fn read(
        &self,
        ctx: &Context<D>,
        state_id: &str,
        out: &StateChunks,
    ) -> Result<(), Diagnostics> {
        let c = self.configured(ctx)?;
        match self.store.read(ctx, &c.config, state_id).await? {
            // No state: no chunks, as Terraform reads "none yet".
            None => Ok(()),
            Some(stored) => send_chunks(stored, c.chunk_size, out).await,
        }
    }

    async fn write(
        &self,
        ctx: &Context<D>,
        state_id: &str,
        chunks: &mut StateChunkStream,
    ) -> Result<(), Diagnostics> {
        let c = self.configured(ctx)?;
        let mut rule = ChunkRule::new(c.chunk_size);
        // The stream always starts with the chunk that named the state.
        let Some(first) = chunks.next().await? else {
            return Err(Diagnostics::error("No state to write"));
        };
        let total = rule.first(&first)?;
        let mut writer = self.store.write(ctx, &c.config, state_id, total).await?;
        let mut chunk = Some(first);
        while let Some(c) = chunk {
            rule.next(&c)?;
            writer.write(&c.bytes).await?;
            // Only the chunk in hand is held: the next is read after.
            drop(c);
            chunk = chunks.next().await?;
        }
        rule.complete()?;
        writer.commit().await
    }

    async fn lock(
        &self,
        ctx: &Context<D>,
        state_id: &str,
        info: &LockInfo,
    ) -> Result<(), Diagnostics> {
        let c = self.configured(ctx)?;
        (self.store.lock(ctx, &c.config, state_id, info).await)
            .map_err(|e| e.into_diagnostics(state_id))
    }

    async fn unlock(
        &self,
        ctx: &Context<D>,
        state_id: &str,
        lock_id: &str,
    ) -> Result<(), Diagnostics> {
        let c = self.configured(ctx)?;
        (self.store.unlock(ctx, &c.config, state_id, lock_id).await)
            .map_err(|e| e.into_diagnostics(state_id))
    }

    async fn states(&self, ctx: &Context<D>) -> Result<Vec<String>, Diagnostics> {
        let c = self.configured(ctx)?;
        self.store.states(ctx, &c.config).await
    }

    async fn delete(&self, ctx: &Context<D>, state_id: &str) -> Result<(), Diagnostics> {
        let c = self.configured(ctx)?;
        self.store.delete(ctx, &c.config, state_id).await
    }
}

/// Reads `stored` a chunk at a time into `out`, each with its range and
/// the total length; a reader that gives fewer or more bytes than its
/// announced length is an error (Terraform would take a short state for
/// a whole one).
async fn send_chunks(
    mut stored: StoredState,
    chunk_size: usize,
    out: &StateChunks,
) -> Result<(), Diagnostics> {
    let total = i64::try_from(stored.len)
        .map_err(|_| Diagnostics::error("The stored state is too large to send"))?;
    let mut start: u64 = 0;
    while start < stored.len {
        let n = (stored.len - start).min(chunk_size as u64) as usize;
        let mut bytes = vec![0; n];
        if let Err(e) = stored.reader.read_exact(&mut bytes).await {
            return Err(Diagnostic::error("The stored state could not be read")
                .with_detail(format!(
                    "reading bytes {start} to {} of the {} the store announced: {e}",
                    start + n as u64 - 1,
                    stored.len
                ))
                .into());
        }
        let range = StateRange {
            start: start as i64,
            end: (start + n as u64 - 1) as i64,
        };
        let chunk = StateChunk {
            bytes,
            total_length: total,
            range: Some(range),
        };
        if out.send(chunk).await.is_err() {
            // Terraform went away: nobody to tell.
            return Ok(());
        }
        start += n as u64;
    }
    let mut more = [0u8; 1];
    match stored.reader.read(&mut more).await {
        Ok(0) => Ok(()),
        Ok(_) => Err(
            Diagnostic::error("The stored state is longer than announced")
                .with_detail(format!(
                    "the store said the state has {} bytes, and its reader gives more",
                    stored.len
                ))
                .into(),
        ),
        Err(e) => Err(Diagnostics::error(format!(
            "The stored state could not be read to its end: {e}"
        ))),
    }
}

/// What Terraform's chunks of a write must be: each where the last one
/// ended, as long as the agreed size (the last one at most), all saying
/// the same total length, which they add up to. Core's writer sends them
/// so (`GRPCProvider.WriteStateBytes`); anything else is a broken or
/// foreign client, and its state is refused rather than stored wrong.
struct ChunkRule {
    chunk_size: usize,
    total: i64,
    received: i64,
}

impl ChunkRule {
    fn new(chunk_size: usize) -> Self {
        ChunkRule {
            chunk_size,
            total: 0,
            received: 0,
        }
    }

    /// The total length the first chunk announces.
    fn first(&mut self, c: &StateChunk) -> Result<u64, Diagnostics> {
        if c.total_length <= 0 {
            return Err(invalid(format!(
                "the first chunk announces a state of {} bytes; Terraform never writes an empty state",
                c.total_length
            )));
        }
        self.total = c.total_length;
        Ok(c.total_length as u64)
    }

    fn next(&mut self, c: &StateChunk) -> Result<(), Diagnostics> {
        let n = c.bytes.len() as i64;
        let Some(range) = c.range else {
            return Err(invalid(format!(
                "the chunk at byte {} has no range",
                self.received
            )));
        };
        if c.total_length != self.total {
            return Err(invalid(format!(
                "a chunk announces {} bytes in all where the first announced {}",
                c.total_length, self.total
            )));
        }
        if range.start != self.received {
            return Err(invalid(format!(
                "a chunk starts at byte {} where byte {} was next",
                range.start, self.received
            )));
        }
        if n == 0 || range.end != range.start + n - 1 {
            return Err(invalid(format!(
                "the chunk at byte {} has {n} bytes but its range ends at {}",
                range.start, range.end
            )));
        }
        if range.end >= self.total {
            return Err(invalid(format!(
                "the chunk at byte {} ends at byte {}, past the {} bytes announced",
                range.start, range.end, self.total
            )));
        }
        let last = range.end == self.total - 1;
        if n as usize > self.chunk_size || (!last && n as usize != self.chunk_size) {
            return Err(invalid(format!(
                "the chunk at byte {} has {n} bytes; every chunk but the last has the agreed {} bytes",
                range.start, self.chunk_size
            )));
        }
        self.received += n;
        Ok(())
    }

    /// Every byte arrived; otherwise the write broke off.
    fn complete(&self) -> Result<(), Diagnostics> {
        if self.received == self.total {
            return Ok(());
        }
        Err(Diagnostic::error("The state write was interrupted")
            .with_detail(format!(
                "Terraform's stream ended after {} of the {} bytes it announced; the stored state is unchanged",
                self.received, self.total
            ))
            .into())
    }
}

fn invalid(detail: String) -> Diagnostics {
    Diagnostic::error("Invalid state chunk")
        .with_detail(format!("{detail}; the stored state is unchanged"))
        .into()
}
