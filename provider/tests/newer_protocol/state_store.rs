//! State stores (protocol 6.11) over the real gRPC connection: a store
//! built on the framework's `StateStore`, driven by the client generated
//! from the same proto as Terraform's pluggable backend drives it
//! (core's `internal/backend/pluggable` and `GRPCProvider`'s state-store
//! methods): configuration and chunk-size negotiation, chunked reads and
//! writes up to 300 MiB, locks, listing and deletion, and writes that
//! break off.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use ctywire_provider::{
    async_trait, LockError, LockInfo, Model, Result, StateStore, StateWriter, StoredState,
    MAX_CHUNK_SIZE,
};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use super::{dv, errors, Ctx};
use super::{pb, Channel, Diagnostic, ProviderClient, Type, Value};
use ctywire_provider_testing::StateStoreClient;

// ---- the store -------------------------------------------------------------

/// Where the states are kept.
#[derive(Serialize, Deserialize, Model)]
pub(super) struct Place {
    /// A name for the place.
    name: String,
    /// Copies kept.
    #[model(range(1, 3))]
    copies: Option<u32>,
}

/// The bytes of a large test state: a byte pattern of period 251 (a
/// prime, so no chunk size lines up with it), which the store recognises
/// and keeps as its length alone, so that the memory measured is the
/// protocol's and the framework's, not the stored state's.
const PERIOD: usize = 251;

fn pattern_byte(at: u64) -> u8 {
    (at % PERIOD as u64) as u8
}

/// `n` bytes of the pattern from `start`.
fn pattern(start: u64, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n);
    let table: Vec<u8> = (0..PERIOD as u64).map(pattern_byte).collect();
    let mut at = (start % PERIOD as u64) as usize;
    while out.len() < n {
        let take = (PERIOD - at).min(n - out.len());
        out.extend_from_slice(&table[at..at + take]);
        at = 0;
    }
    out
}

/// Whether `bytes` is the pattern from `start`.
fn is_pattern(start: u64, bytes: &[u8]) -> bool {
    let table: Vec<u8> = (0..2 * PERIOD as u64).map(pattern_byte).collect();
    let mut at = (start % PERIOD as u64) as usize;
    bytes.chunks(PERIOD).all(|piece| {
        let same = piece == &table[at..at + piece.len()];
        at = (at + piece.len()) % PERIOD;
        same
    })
}

/// A stored state: its bytes, or (a large one) the pattern's length.
#[derive(Clone, Debug, PartialEq)]
enum Held {
    Bytes(Vec<u8>),
    Pattern(u64),
}

/// States kept up to this size keep their bytes.
const SMALL: usize = 1 << 20;

#[derive(Default)]
pub(super) struct Shelf {
    states: Mutex<BTreeMap<String, Held>>,
    locks: Mutex<BTreeMap<String, LockInfo>>,
    /// Writers dropped without being committed.
    abandoned: AtomicUsize,
    /// Bytes writers were given.
    written: AtomicUsize,
}

/// The test's state store: states in memory.
pub(super) struct Memory {
    pub(super) shelf: Arc<Shelf>,
    /// What it makes of Terraform's chunk size.
    pub(super) choose: fn(usize) -> usize,
}

pub(super) struct Upload {
    shelf: Arc<Shelf>,
    id: String,
    /// The bytes so far, while the state is small.
    bytes: Vec<u8>,
    len: u64,
    pattern: bool,
    committed: bool,
}

impl Drop for Upload {
    fn drop(&mut self) {
        if !self.committed {
            self.shelf.abandoned.fetch_add(1, Ordering::SeqCst);
        }
    }
}

#[async_trait]
impl StateWriter for Upload {
    async fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.shelf.written.fetch_add(bytes.len(), Ordering::SeqCst);
        self.pattern &= is_pattern(self.len, bytes);
        if self.bytes.len() + bytes.len() <= SMALL {
            self.bytes.extend_from_slice(bytes);
        } else if !self.pattern {
            return Err(Diagnostics::error(
                "this store keeps large states only as the test pattern",
            ));
        } else {
            self.bytes = Vec::new();
        }
        self.len += bytes.len() as u64;
        Ok(())
    }

    async fn commit(mut self) -> Result<()> {
        let held = if self.len as usize <= SMALL {
            Held::Bytes(std::mem::take(&mut self.bytes))
        } else {
            Held::Pattern(self.len)
        };
        self.shelf
            .states
            .lock()
            .unwrap()
            .insert(self.id.clone(), held);
        self.committed = true;
        Ok(())
    }
}

/// Reads the pattern, `len` bytes of it.
struct PatternReader {
    at: u64,
    len: u64,
}

impl AsyncRead for PatternReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let n = (self.len - self.at).min(buf.remaining() as u64) as usize;
        buf.put_slice(&pattern(self.at, n));
        self.at += n as u64;
        Poll::Ready(Ok(()))
    }
}

use ctywire_provider::Diagnostics;

#[async_trait]
impl StateStore<super::Data> for Memory {
    type Config = Place;
    type Writer = Upload;

    fn chunk_size(&self, proposed: usize) -> usize {
        (self.choose)(proposed)
    }

    async fn read(&self, _: &Ctx, _: &Place, id: &str) -> Result<Option<StoredState>> {
        Ok(match self.shelf.states.lock().unwrap().get(id).cloned() {
            None => None,
            Some(Held::Bytes(b)) => Some(b.into()),
            Some(Held::Pattern(len)) => Some(StoredState::new(len, PatternReader { at: 0, len })),
        })
    }

    async fn write(&self, _: &Ctx, _: &Place, id: &str, _: u64) -> Result<Upload> {
        Ok(Upload {
            shelf: self.shelf.clone(),
            id: id.to_owned(),
            bytes: Vec::new(),
            len: 0,
            pattern: true,
            committed: false,
        })
    }

    async fn lock(&self, _: &Ctx, _: &Place, id: &str, info: &LockInfo) -> Result<(), LockError> {
        let mut locks = self.shelf.locks.lock().unwrap();
        match locks.get(id) {
            Some(held) => Err(LockError::Held(held.clone())),
            None => {
                locks.insert(id.to_owned(), info.clone());
                Ok(())
            }
        }
    }

    async fn unlock(&self, _: &Ctx, _: &Place, id: &str, lock_id: &str) -> Result<(), LockError> {
        let mut locks = self.shelf.locks.lock().unwrap();
        match locks.get(id) {
            Some(held) if held.id != lock_id => Err(LockError::Held(held.clone())),
            _ => {
                locks.remove(id);
                Ok(())
            }
        }
    }

    async fn states(&self, _: &Ctx, _: &Place) -> Result<Vec<String>> {
        Ok(self.shelf.states.lock().unwrap().keys().cloned().collect())
    }

    async fn delete(&self, _: &Ctx, _: &Place, id: &str) -> Result<()> {
        self.shelf.states.lock().unwrap().remove(id);
        Ok(())
    }
}

// ---- the client's side -----------------------------------------------------

const STORE: &str = "demo_store";
const MIB: usize = 1 << 20;

async fn place_type(client: &mut ProviderClient<Channel>) -> Type {
    let schemas = client
        .get_provider_schema(pb::get_provider_schema::Request {})
        .await
        .unwrap()
        .into_inner();
    super::schema_from_proto(&schemas.state_store_schemas[STORE])
        .unwrap()
        .implied_type()
        .unwrap()
}

fn place(name: &str, copies: Option<u32>) -> Value {
    Value::object([
        ("name", Value::string(name)),
        (
            "copies",
            copies.map_or(Value::null(Type::Number), Value::number),
        ),
    ])
}

/// `ConfigureStateStore` of `type_name` proposing `chunk_size`, through
/// the harness crate's state-store client: the store, or the errors.
async fn configure_store(
    client: &ProviderClient<Channel>,
    type_name: &str,
    chunk_size: usize,
) -> std::result::Result<Store, Vec<Diagnostic>> {
    let config = place("here", Some(2));
    StateStoreClient::configure(client.clone(), type_name, &config, chunk_size)
        .await
        .map_err(errors_of)
}

type Store = StateStoreClient<Channel>;

/// The error diagnostics of a failed call.
fn errors_of(ds: ctywire_provider::tfplugin6::Diagnostics) -> Vec<Diagnostic> {
    ds.into_iter().filter(Diagnostic::is_error).collect()
}

/// A provider with the store configured at `chunk_size`.
async fn served_store(chunk_size: usize) -> (Store, Arc<Shelf>) {
    let (mut client, shelf) = super::serve_with_store().await;
    let t = super::types(&mut client).await;
    super::configure(&mut client, &t, 0).await;
    let store = configure_store(&client, STORE, chunk_size).await.unwrap();
    assert_eq!(store.chunk_size(), chunk_size);
    (store, shelf)
}

/// Writes `len` bytes as core's `WriteStateBytes` cuts them, each chunk
/// made by `make(start, n)` only when the last was sent: the errors.
async fn write(
    store: &mut Store,
    id: &str,
    len: usize,
    make: fn(u64, usize) -> Vec<u8>,
) -> Vec<Diagnostic> {
    store
        .write_with(id, len, make)
        .await
        .err()
        .map(errors_of)
        .unwrap_or_default()
}

async fn write_chunks(
    store: &mut Store,
    chunks: impl tokio_stream::Stream<Item = pb::write_state_bytes::RequestChunk> + Send + 'static,
) -> Vec<Diagnostic> {
    store
        .write_chunks(chunks)
        .await
        .err()
        .map(errors_of)
        .unwrap_or_default()
}

/// What a read gave: the chunks' lengths, ranges and total lengths, each
/// chunk checked by `check(start, bytes)` and dropped, and the errors.
struct Read {
    lengths: Vec<usize>,
    ranges_contiguous: bool,
    totals: Vec<i64>,
    bytes: Vec<u8>,
    errors: Vec<Diagnostic>,
}

async fn read(store: &mut Store, id: &str, keep: bool) -> Read {
    let mut r = Read {
        lengths: vec![],
        ranges_contiguous: true,
        totals: vec![],
        bytes: vec![],
        errors: vec![],
    };
    let mut next = 0i64;
    let answer = store
        .read_chunks(id, |chunk| {
            let (start, end) = chunk.range.unwrap();
            r.ranges_contiguous &= start == next && end == next + chunk.bytes.len() as i64 - 1;
            assert!(is_pattern(next as u64, &chunk.bytes) || keep);
            next += chunk.bytes.len() as i64;
            r.lengths.push(chunk.bytes.len());
            r.totals.push(chunk.total_length);
            if keep {
                r.bytes.extend_from_slice(&chunk.bytes);
            }
        })
        .await;
    if let Err(e) = answer {
        r.errors = errors_of(e);
    }
    r
}

/// Bytes `start..start + n` of a small state document, repeated.
fn text(start: u64, n: usize) -> Vec<u8> {
    document(b"{\"version\":4,\"serial\":1}", start, n)
}

/// The same of another document: a later serial.
fn later(start: u64, n: usize) -> Vec<u8> {
    document(b"{\"version\":4,\"serial\":2}", start, n)
}

fn document(doc: &[u8], start: u64, n: usize) -> Vec<u8> {
    let skip = (start % doc.len() as u64) as usize;
    doc.iter().cycle().skip(skip).take(n).copied().collect()
}

// ---- memory ----------------------------------------------------------------

/// The process's resident set, now and at its peak since the last
/// [`reset_peak`], in bytes (Linux's /proc; `None` elsewhere).
fn rss() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

// ---- the tests -------------------------------------------------------------

#[tokio::test]
async fn a_state_store_appears_in_the_metadata_and_the_schema() {
    let (mut client, _) = super::serve_with_store().await;
    let meta = client
        .get_metadata(pb::get_metadata::Request {})
        .await
        .unwrap()
        .into_inner();
    let stores: Vec<_> = meta
        .state_stores
        .iter()
        .map(|s| s.type_name.as_str())
        .collect();
    assert_eq!(stores, ["demo_greedy", STORE]);
    let ty = place_type(&mut client).await;
    assert_eq!(
        ty,
        Type::object([("copies", Type::Number), ("name", Type::String)])
    );
}

#[tokio::test]
async fn a_state_store_config_is_validated_by_its_model() {
    let (mut client, _) = super::serve_with_store().await;
    let ty = place_type(&mut client).await;
    let validate = |config: Value| pb::validate_state_store::Request {
        type_name: STORE.into(),
        config: dv(&config, &ty),
    };
    let ok = client
        .validate_state_store_config(validate(place("here", Some(2))))
        .await
        .unwrap()
        .into_inner();
    assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);
    let bad = client
        .validate_state_store_config(validate(place("here", Some(7))))
        .await
        .unwrap()
        .into_inner();
    let errs = errors(&bad.diagnostics);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(
        errs[0].attribute,
        Some(ctywire_provider::Path::root().attr("copies"))
    );
}

#[tokio::test]
async fn the_chunk_size_is_negotiated_within_terraforms_limits() {
    let (mut client, _) = super::serve_with_store().await;
    let t = super::types(&mut client).await;
    // Before the provider is configured, as before any other call.
    let early = configure_store(&client, STORE, 8 << 20).await.unwrap_err();
    assert_eq!(early[0].summary, "Provider not configured");
    super::configure(&mut client, &t, 0).await;
    let chosen = |proposed| {
        let client = client.clone();
        async move {
            let store = configure_store(&client, STORE, proposed).await;
            store.map(|s| s.chunk_size())
        }
    };
    // Terraform proposes 8 MiB; this store takes what is proposed.
    assert_eq!(chosen(8 << 20).await, Ok(8 << 20));
    assert_eq!(chosen(128 << 20).await, Ok(128 << 20));
    // No proposal (a client without capabilities): Terraform's default.
    assert_eq!(chosen(0).await, Ok(8 << 20));
    // A store that wants more than Terraform accepts is refused here, not
    // by Terraform after the fact.
    let greedy = configure_store(&client, "demo_greedy", 8 << 20)
        .await
        .unwrap_err();
    assert_eq!(greedy[0].summary, "Invalid state store chunk size");
    assert!(
        greedy[0].detail.contains(&MAX_CHUNK_SIZE.to_string()),
        "{}",
        greedy[0].detail
    );
}

#[tokio::test]
async fn a_store_used_before_it_is_configured_says_so() {
    let (mut client, _) = super::serve_with_store().await;
    let t = super::types(&mut client).await;
    super::configure(&mut client, &t, 0).await;
    // No ConfigureStateStore: the raw call, as the client needs one.
    let mut stream = client
        .read_state_bytes(pb::read_state_bytes::Request {
            type_name: STORE.into(),
            state_id: "default".into(),
        })
        .await
        .unwrap()
        .into_inner();
    let chunk = stream.message().await.unwrap().unwrap();
    let errs = errors(&chunk.diagnostics);
    assert_eq!(errs[0].summary, "State store not configured");
}

#[tokio::test]
async fn a_small_state_is_written_and_read_back_in_chunks() {
    // A chunk size of 1 KiB (a store may choose any size up to 128 MiB),
    // and a state of 2.5 chunks.
    let (mut client, shelf) = served_store(1024).await;
    let none = read(&mut client, "default", true).await;
    assert!(
        none.lengths.is_empty() && none.errors.is_empty(),
        "no state yet: no chunks"
    );
    let errs = write(&mut client, "default", 2560, text).await;
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(
        shelf.states.lock().unwrap()["default"],
        Held::Bytes(text(0, 2560))
    );
    let back = read(&mut client, "default", true).await;
    assert!(back.errors.is_empty(), "{:?}", back.errors);
    assert_eq!(back.lengths, [1024, 1024, 512]);
    assert_eq!(back.totals, [2560, 2560, 2560]);
    assert!(back.ranges_contiguous);
    assert!(back.bytes == text(0, 2560), "the bytes written");
}

#[tokio::test]
async fn states_are_listed_and_deleted() {
    let (mut client, _) = served_store(8 << 20).await;
    for id in ["staging", "default"] {
        assert!(write(&mut client, id, 100, text).await.is_empty());
    }
    assert_eq!(client.states().await.unwrap(), ["default", "staging"]);
    client.delete("staging").await.unwrap();
    assert_eq!(client.states().await.unwrap(), ["default"]);
}

#[tokio::test]
async fn a_second_locker_is_refused_with_the_holders_lock_info() {
    let (mut client, shelf) = served_store(8 << 20).await;
    let first = client.lock("default", "OperationTypeApply").await.unwrap();
    let held = shelf.locks.lock().unwrap()["default"].clone();
    assert_eq!(held.id, first);
    assert_eq!(held.operation, "OperationTypeApply");
    assert_eq!(held.version, "1.15.0", "the version ConfigureProvider gave");
    assert!(held.who.contains('@'), "{}", held.who);
    // A UUID, as core's lock ids.
    assert_eq!(held.id.len(), 36);
    assert_eq!(held.id.as_bytes()[14], b'4');

    let second = client.lock("default", "OperationTypePlan").await;
    let errs = errors_of(second.unwrap_err());
    assert_eq!(errs[0].summary, "The state is locked");
    for shown in [
        &held.id,
        "OperationTypeApply",
        held.who.as_str(),
        held.created.as_str(),
    ] {
        assert!(
            errs[0].detail.contains(shown),
            "{shown} in {}",
            errs[0].detail
        );
    }

    // Only the holder's id unlocks.
    let wrong = errors_of(client.unlock("default", "not-the-lock").await.unwrap_err());
    assert_eq!(wrong[0].summary, "The state is locked");
    client.unlock("default", &first).await.unwrap();
    let again = client.lock("default", "OperationTypePlan").await.unwrap();
    assert_ne!(again, first);
}

#[tokio::test]
async fn a_write_that_breaks_off_leaves_the_stored_state() {
    let (mut client, shelf) = served_store(1024).await;
    assert!(write(&mut client, "default", 3000, text).await.is_empty());

    // The stream ends after one of three chunks.
    let first = client
        .request_chunks("default", 3000, later)
        .next()
        .unwrap();
    let errs = write_chunks(&mut client, tokio_stream::iter([first.clone()])).await;
    assert_eq!(errs[0].summary, "The state write was interrupted");
    assert!(
        errs[0].detail.contains("1024 of the 3000"),
        "{}",
        errs[0].detail
    );

    // A chunk out of place: refused, nothing stored.
    let gap = pb::write_state_bytes::RequestChunk {
        meta: None,
        range: Some(pb::StateRange {
            start: 2048,
            end: 2999,
        }),
        bytes: later(2048, 952),
        ..first.clone()
    };
    let errs = write_chunks(&mut client, tokio_stream::iter([first.clone(), gap])).await;
    assert_eq!(errs[0].summary, "Invalid state chunk");
    assert!(
        errs[0]
            .detail
            .contains("starts at byte 2048 where byte 1024"),
        "{}",
        errs[0].detail
    );

    // Terraform goes away mid-write (the call dropped after its first
    // chunk reached the store).
    let before = shelf.written.load(Ordering::SeqCst);
    let (tx, rx) = mpsc::channel(1);
    tx.send(first).await.unwrap();
    let mut dropped = client.clone();
    let call =
        tokio::spawn(async move { write_chunks(&mut dropped, ReceiverStream::new(rx)).await });
    while shelf.written.load(Ordering::SeqCst) < before + 1024 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    call.abort();
    drop(tx);
    let abandoned = 3;
    for _ in 0..400 {
        if shelf.abandoned.load(Ordering::SeqCst) == abandoned {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        shelf.abandoned.load(Ordering::SeqCst),
        abandoned,
        "each broken write's writer was dropped uncommitted"
    );

    let back = read(&mut client, "default", true).await;
    assert!(
        back.bytes == text(0, 3000),
        "the state written first, whole"
    );
}

/// A 300 MiB state written and read back at 8 MiB and at 128 MiB chunks:
/// each chunk is exactly the agreed size but the last, and the process's
/// memory grows by a few chunks, not by the state.
#[tokio::test]
async fn a_300_mib_state_streams_at_8_and_128_mib_chunks_in_bounded_memory() {
    const LEN: usize = 300 * MIB;
    for chunk_size in [8 * MIB, 128 * MIB] {
        let (mut client, shelf) = served_store(chunk_size).await;
        let measured = reset_peak();
        let (base, _) = rss().unwrap_or_default();

        let errs = write(&mut client, "big", LEN, pattern).await;
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(
            shelf.states.lock().unwrap()["big"],
            Held::Pattern(LEN as u64)
        );
        let (_, write_peak) = rss().unwrap_or_default();

        reset_peak();
        let back = read(&mut client, "big", false).await;
        assert!(back.errors.is_empty(), "{:?}", back.errors);
        let (_, read_peak) = rss().unwrap_or_default();

        let chunks = LEN.div_ceil(chunk_size);
        assert_eq!(back.lengths.len(), chunks);
        assert!(back.lengths[..chunks - 1].iter().all(|&n| n == chunk_size));
        assert_eq!(back.lengths.iter().sum::<usize>(), LEN);
        assert!(back.totals.iter().all(|&t| t == LEN as i64));
        assert!(back.ranges_contiguous);

        if measured {
            let mib = |b: u64| b.saturating_sub(base) / MIB as u64;
            println!(
                "300 MiB state at {} MiB chunks: peak RSS above the start {} MiB writing, {} MiB reading",
                chunk_size / MIB,
                mib(write_peak),
                mib(read_peak)
            );
            // Client and server share this process: each holds a chunk or
            // two (the message being built or decoded and the one in
            // flight). Bounded by the chunk size, far below the state.
            // Measured: 52–75 and 61–67 MiB at 8 MiB chunks, 555 and 427 MiB at
            // 128 MiB (about four chunks: two each side).
            let bound = (6 * chunk_size + 64 * MIB) as u64 / MIB as u64;
            assert!(mib(write_peak) < bound, "{} MiB writing", mib(write_peak));
            assert!(mib(read_peak) < bound, "{} MiB reading", mib(read_peak));
        }
    }
}
