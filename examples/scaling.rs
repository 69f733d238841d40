//! How time grows with the number of elements: msgpack and JSON decode and
//! encode for 10× steps of the benchmark payloads, and an untyped rmpv
//! parse of the msgpack bytes for reference. Last, for the steps well above
//! 10×, the big payload against ten small trees at once (the same memory to
//! move): near 1× says the step is the memory hierarchy's, not the code's.
//!
//! ```sh
//! cargo run --release --example scaling                # fleet 200 → 2,000, sets 1k → 10k,
//!                                                      # sets of objects and maps of strings
//!                                                      # 10k → 100k, manifest 100 → 1,000
//! cargo run --release --example scaling -- --all       # also fleet 20 and 20,000
//! cargo run --release --example scaling -- --only map  # the steps whose label has "map"
//! ```
//!
//! The sizes are measured in turns, round after round, and each reported
//! time is the median over rounds of per-round medians: a shared machine
//! slows down for seconds at a time, and taking turns makes both sizes of
//! a step see the same slow spells, so their ratio holds still even when
//! the absolute times do not.

#[path = "../cli/src/bench/alloc.rs"]
mod alloc;
#[path = "../cli/src/bench/payloads.rs"]
mod payloads;
#[path = "../cli/src/bench/timing.rs"]
mod timing;

use std::time::Duration;

use ctywire::{json, msgpack, Type, Value};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const ROUNDS: usize = 11;
const TURN: Duration = Duration::from_millis(250);

struct Payload {
    label: String,
    elements: usize,
    ty: Type,
    value: Value,
    bytes: Vec<u8>,
    json: Vec<u8>,
}

fn payload(case: payloads::Case) -> Payload {
    let bytes = msgpack::encode(&case.value, &case.ty).expect("benchmark payloads encode");
    let json = json::encode(&case.value, &case.ty).expect("benchmark payloads encode");
    let elements = payloads::elements(&case);
    // Encoded as decoded from the bytes, as criterion and `ctywire bench`
    // do: the generator's tree lies scattered among its scratch
    // allocations, the more so the larger it is, and walking it made the
    // encoding steps look superlinear (45× for the manifest's 10×).
    let value = msgpack::decode(&bytes, &case.ty).expect("benchmark payloads decode");
    drop(case.value);
    Payload {
        label: format!("{}-{elements}", case.name),
        elements,
        ty: case.ty,
        value,
        bytes,
        json,
    }
}

/// The median time of one call of `f` over a turn.
fn median_ns<T>(f: impl FnMut() -> T) -> f64 {
    timing::median_ns(TURN, 3, f) as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn decode(p: &Payload) -> f64 {
    median_ns(|| msgpack::decode(&p.bytes, &p.ty).expect("decode"))
}

fn decode_json(p: &Payload) -> f64 {
    median_ns(|| json::decode(&p.json, &p.ty).expect("decode"))
}

fn encode(p: &Payload) -> f64 {
    let mut out = Vec::with_capacity(p.bytes.len());
    median_ns(|| {
        out.clear();
        msgpack::encode_into(&mut out, &p.value, &p.ty).expect("encode")
    })
}

fn encode_json(p: &Payload) -> f64 {
    let mut out = Vec::with_capacity(p.json.len());
    median_ns(|| {
        out.clear();
        json::encode_into(&mut out, &p.value, &p.ty).expect("encode")
    })
}

/// Ten decodes of `p` in a row, all ten trees kept until the clock stops:
/// the same elements, and the same memory to write, as one payload ten
/// times the size.
fn decode_ten_alive(p: &Payload) -> f64 {
    median_ns(|| {
        (0..10)
            .map(|_| msgpack::decode(&p.bytes, &p.ty).expect("decode"))
            .collect::<Vec<_>>()
    })
}

/// Ten trees of `p`, each decoded on its own, encoded one after another
/// into one buffer: the same elements, and the same memory to read and
/// write, as encoding one payload ten times the size.
fn encode_ten(p: &Payload) -> f64 {
    let trees: Vec<Value> = (0..10)
        .map(|_| msgpack::decode(&p.bytes, &p.ty).expect("decode"))
        .collect();
    let mut out = Vec::with_capacity(10 * p.bytes.len());
    median_ns(|| {
        out.clear();
        for tree in &trees {
            msgpack::encode_into(&mut out, tree, &p.ty).expect("encode");
        }
    })
}

fn untyped(p: &Payload) -> f64 {
    median_ns(|| rmpv::decode::read_value(&mut &p.bytes[..]).expect("rmpv"))
}

/// Times one operation on a payload.
type Timer = fn(&Payload) -> f64;

/// How many times longer `big` takes than `small`: the median over rounds
/// of the ratio of back-to-back turns, and each one's median time.
fn step(small: &Payload, big: &Payload, time: Timer) -> (f64, f64, f64) {
    step_between((small, time), (big, time))
}

fn step_between(
    (small, time_small): (&Payload, Timer),
    (big, time_big): (&Payload, Timer),
) -> (f64, f64, f64) {
    let (mut ratios, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let (x, y) = (time_small(small), time_big(big));
        ratios.push(y / x);
        a.push(x);
        b.push(y);
    }
    (median(&mut ratios), median(&mut a), median(&mut b))
}

fn main() {
    alloc::hold_freed_memory();
    let args: Vec<String> = std::env::args().collect();
    let all = args.iter().any(|a| a == "--all");
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1));
    let mut fleets: Vec<usize> = vec![200, 2000];
    if all {
        fleets.insert(0, 20);
        fleets.push(20_000);
    }
    let fleets: Vec<Payload> = fleets
        .into_iter()
        .map(|n| payload(payloads::fleet(n)))
        .collect();
    let objects = [1_000, 10_000].map(|n| payload(payloads::object_set(n)));
    let strings = [1_000, 10_000].map(|n| payload(payloads::string_set(n)));
    let big_objects = [10_000, 100_000].map(|n| payload(payloads::object_set(n)));
    let maps = [10_000, 100_000].map(|n| payload(payloads::string_map(n)));
    let manifests = [100, 1_000].map(|n| payload(payloads::manifest(n)));
    let steps = fleets
        .windows(2)
        .chain([
            &objects[..],
            &strings[..],
            &big_objects[..],
            &maps[..],
            &manifests[..],
        ])
        .map(|w| (&w[0], &w[1]))
        .filter(|(small, _)| only.is_none_or(|o| small.label.contains(o.as_str())));
    // For each step: the msgpack decode time of both sizes, how many times
    // longer the bigger one takes, and the same ratio for JSON decode, for
    // msgpack and JSON encode, and for rmpv's untyped parse.
    println!(
        "{:<42} {:>8} {:>13} {:>13} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "payloads", "elements", "decode", "decode", "time", "json", "enc", "json enc", "rmpv"
    );
    for (small, big) in steps {
        let (ratio, a, b) = step(small, big, decode);
        let (json_ratio, ..) = step(small, big, decode_json);
        let (enc_ratio, ..) = step(small, big, encode);
        let (json_enc_ratio, ..) = step(small, big, encode_json);
        let (untyped_ratio, ..) = step(small, big, untyped);
        println!(
            "{:<42} {:>7.1}× {:>10.0} µs {:>10.0} µs {:>7.2}× {:>7.2}× {:>7.2}× {:>7.2}× {:>7.2}×",
            format!("{} → {}", small.label, big.label),
            big.elements as f64 / small.elements as f64,
            a / 1e3,
            b / 1e3,
            ratio,
            json_ratio,
            enc_ratio,
            json_enc_ratio,
            untyped_ratio,
        );
    }
    // Where the steps above 10× come from: the big payload against the
    // small one decoded (or encoded) ten times, ten trees at once. Both
    // move the same memory through a cache that no longer holds it, so a
    // ratio near 1× puts the step in the memory, not in the code.
    let wanted = |p: &Payload| only.is_none_or(|o| p.label.contains(o.as_str()));
    let fleet = |n: usize| fleets.iter().find(|p| p.elements == n).expect("a fleet");
    let checks: [(&Payload, &Payload, &str, Timer, Timer); 3] = [
        (fleet(200), fleet(2000), "decoded", decode_ten_alive, decode),
        (
            &manifests[0],
            &manifests[1],
            "decoded",
            decode_ten_alive,
            decode,
        ),
        (&maps[0], &maps[1], "encoded", encode_ten, encode),
    ];
    for (small, big, what, ten, one) in checks {
        if wanted(small) {
            let (ratio, ..) = step_between((small, ten), (big, one));
            println!(
                "{} against {} {what} ten times, ten trees at once: {ratio:.2}×",
                big.label, small.label
            );
        }
    }
}
