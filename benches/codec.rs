//! Criterion benchmarks: msgpack and JSON, decode and encode, of
//! (a) one realistic instance state, (b) a fleet of 2,000 (and 200, to see
//! how decoding scales), (c) a dynamic attribute holding a large document,
//! (d) sets of 10,000 strings and of 10,000 objects (and 1,000 of each,
//! and 100,000 objects), (e) a map of 100,000 short strings (and 10,000),
//! (f) a Kubernetes-style List of 1,000 Deployments nested ten deep under
//! a dynamic attribute (and 100).
//! An untyped rmpv parse of the same bytes is the baseline typed decoding
//! must beat.
//!
//! `cargo bench --bench codec` (add `-- fleet` to run one payload).

#[path = "../cli/src/bench/alloc.rs"]
mod alloc;
#[cfg(feature = "serde")]
#[path = "../cli/src/bench/instance.rs"]
mod instance;
#[path = "../cli/src/bench/payloads.rs"]
mod payloads;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use ctywire::{json, msgpack};
use payloads::Case;

// Like the CLI, the benchmarks run on mimalloc (see README, Performance).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn cases() -> Vec<Case> {
    vec![
        payloads::instance(),
        payloads::fleet(200),
        payloads::fleet(2000),
        payloads::dynamic_document(),
        payloads::string_set(1_000),
        payloads::string_set(10_000),
        payloads::object_set(1_000),
        payloads::object_set(10_000),
        payloads::object_set(100_000),
        payloads::string_map(10_000),
        payloads::string_map(100_000),
        payloads::manifest(100),
        payloads::manifest(1_000),
    ]
}

fn label(case: &Case) -> String {
    match case.name {
        "instance" | "dynamic" => case.name.to_string(),
        _ => format!("{}-{}", case.name, payloads::elements(case)),
    }
}

fn codec(c: &mut Criterion) {
    alloc::hold_freed_memory();
    for case in cases() {
        let name = label(&case);
        let bytes = msgpack::encode(&case.value, &case.ty).expect("encode");
        let text = json::encode(&case.value, &case.ty).expect("json");
        // Encoded as decoded from the bytes, as `ctywire bench` does and
        // as the structs rows are: a tree the generator built lies
        // scattered among its scratch allocations, and walking it took
        // twice as long (fleet of 2,000: 10.3 ms against 4.5 ms).
        let value = msgpack::decode(&bytes, &case.ty).expect("decode");
        let mut group = c.benchmark_group(name.clone());
        if bytes.len() > 1_000_000 {
            group.sample_size(20);
        }
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(BenchmarkId::new("msgpack", "decode"), |b| {
            b.iter_with_large_drop(|| msgpack::decode(&bytes, &case.ty).expect("decode"))
        });
        group.bench_function(BenchmarkId::new("rmpv", "untyped-parse"), |b| {
            b.iter_with_large_drop(|| rmpv::decode::read_value(&mut &bytes[..]).expect("rmpv"))
        });
        let mut out = Vec::with_capacity(bytes.len());
        group.bench_function(BenchmarkId::new("msgpack", "encode"), |b| {
            b.iter(|| {
                out.clear();
                msgpack::encode_into(&mut out, &value, &case.ty).expect("encode")
            })
        });
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(BenchmarkId::new("json", "decode"), |b| {
            b.iter_with_large_drop(|| json::decode(&text, &case.ty).expect("decode"))
        });
        let mut out = Vec::with_capacity(text.len());
        group.bench_function(BenchmarkId::new("json", "encode"), |b| {
            b.iter(|| {
                out.clear();
                json::encode_into(&mut out, &value, &case.ty).expect("encode")
            })
        });
        #[cfg(feature = "serde")]
        typed(&mut group, &case, &bytes);
        // Decoding into a fresh tree and dropping it, for the cost of both.
        group.bench_function(BenchmarkId::new("msgpack", "decode-and-drop"), |b| {
            b.iter_batched(
                || (),
                |()| drop(msgpack::decode(&bytes, &case.ty)),
                BatchSize::PerIteration,
            )
        });
        group.finish();
    }
}

/// The fleet and the instance straight into Rust structs and back
/// (`--features serde`), beside the `Value` rows above.
#[cfg(feature = "serde")]
fn typed(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    case: &Case,
    bytes: &[u8],
) {
    use instance::Instance;
    use serde::{Deserialize, Serialize};
    /// Rows for `Owned` (decode, encode, and rmp_serde's for reference),
    /// and the decode into `Lent`, the same structs holding `&str`s lent
    /// by the input, as serde_json users write them where the input
    /// outlives the structs.
    fn rows<
        'a,
        Owned: Serialize + serde::de::DeserializeOwned,
        Lent: Serialize + Deserialize<'a>,
    >(
        group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        case: &Case,
        bytes: &'a [u8],
    ) {
        let structs: Owned = msgpack::from_slice(bytes, &case.ty).expect("typed decode");
        assert_eq!(
            msgpack::to_vec(&structs, &case.ty).expect("typed encode"),
            bytes
        );
        group.bench_function(BenchmarkId::new("msgpack", "decode-into-structs"), |b| {
            b.iter_with_large_drop(|| {
                msgpack::from_slice::<Owned>(bytes, &case.ty).expect("decode")
            })
        });
        // Into a reused buffer, as the encode from a `Value` is timed.
        let mut out = Vec::new();
        group.bench_function(BenchmarkId::new("msgpack", "encode-from-structs"), |b| {
            b.iter(|| {
                out.clear();
                msgpack::to_vec_into(&mut out, &structs, &case.ty).expect("encode")
            })
        });
        // The way round that the direct paths save: through a `Value`.
        group.bench_function(
            BenchmarkId::new("msgpack", "decode-via-value-into-structs"),
            |b| {
                b.iter_with_large_drop(|| {
                    let v = msgpack::decode(bytes, &case.ty).expect("decode");
                    ctywire::from_value::<Owned>(&v).expect("from_value")
                })
            },
        );
        group.bench_function(
            BenchmarkId::new("msgpack", "encode-from-structs-via-value"),
            |b| {
                b.iter(|| {
                    out.clear();
                    let v = ctywire::to_value(&structs, &case.ty).expect("to_value");
                    msgpack::encode_into(&mut out, &v, &case.ty).expect("encode")
                })
            },
        );
        // A reference: rmp_serde, the common msgpack serde library, on the
        // same bytes and structs. It applies none of cty's rules (no type,
        // NFC, set order or attribute placement; its bytes are not
        // go-cty's), so it shows what serde's data model and these Rust
        // shapes cost by themselves.
        group.bench_function(BenchmarkId::new("rmp_serde", "decode-into-structs"), |b| {
            b.iter_with_large_drop(|| rmp_serde::from_slice::<Owned>(bytes).expect("rmp_serde"))
        });
        group.bench_function(BenchmarkId::new("rmp_serde", "encode-from-structs"), |b| {
            b.iter(|| {
                out.clear();
                rmp_serde::encode::write_named(&mut out, &structs).expect("rmp_serde")
            })
        });
        let lent: Lent = msgpack::from_slice(bytes, &case.ty).expect("borrowing decode");
        assert_eq!(
            msgpack::to_vec(&lent, &case.ty).expect("borrowing encode"),
            bytes
        );
        group.bench_function(
            BenchmarkId::new("msgpack", "decode-into-borrowing-structs"),
            |b| {
                b.iter_with_large_drop(|| {
                    msgpack::from_slice::<Lent>(bytes, &case.ty).expect("decode")
                })
            },
        );
        group.bench_function(
            BenchmarkId::new("rmp_serde", "decode-into-borrowing-structs"),
            |b| b.iter_with_large_drop(|| rmp_serde::from_slice::<Lent>(bytes).expect("rmp_serde")),
        );
    }
    match case.name {
        "fleet" => rows::<Vec<Instance>, Vec<Instance<&str>>>(group, case, bytes),
        "instance" => rows::<Instance, Instance<&str>>(group, case, bytes),
        _ => {}
    }
}

criterion_group!(benches, codec);
criterion_main!(benches);
