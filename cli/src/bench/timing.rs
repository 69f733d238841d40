//! Timing single calls, shared by `ctywire bench` and the scaling example.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Nanoseconds per call of `f`: the median of calls timed one by one for
/// `budget`, and of at least `min_calls` (the median, because a shared
/// machine adds outliers). Each result is dropped after its clock stops,
/// as criterion's `iter_with_large_drop` does: freeing a decoded tree is a
/// cost of whoever lets go of the value, not of decoding.
pub fn median_ns<T>(budget: Duration, min_calls: usize, mut f: impl FnMut() -> T) -> u64 {
    let start = Instant::now();
    let mut samples: Vec<u64> = Vec::new();
    while start.elapsed() < budget || samples.len() < min_calls {
        let t = Instant::now();
        let r = black_box(f());
        samples.push(t.elapsed().as_nanos() as u64);
        drop(r);
    }
    samples.sort_unstable();
    samples[samples.len() / 2]
}
