//! What the load examples share: the measurement.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

/// The command line's `[CALLS [IN_FLIGHT]]` (default 20,000 and 64).
pub fn calls_and_in_flight() -> (usize, usize) {
    let mut args = std::env::args().skip(1);
    let calls = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let in_flight = args.next().and_then(|a| a.parse().ok()).unwrap_or(64);
    (calls, in_flight)
}

/// Makes `calls` calls with at most `in_flight` at once and prints
/// throughput and latency percentiles (each call timed from when it is
/// started, after waiting for a slot).
pub async fn measure<F, Fut>(label: &str, calls: usize, in_flight: usize, call: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(), String>> + Send + 'static,
{
    let permits = Arc::new(Semaphore::new(in_flight));
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(calls);
    for _ in 0..calls {
        let permit = permits.clone().acquire_owned().await.expect("semaphore");
        let call = call();
        tasks.push(tokio::spawn(async move {
            let t = Instant::now();
            let r = call.await;
            drop(permit);
            r.map(|()| t.elapsed())
        }));
    }
    let mut latencies: Vec<Duration> = Vec::with_capacity(calls);
    for t in tasks {
        match t.await.expect("task") {
            Ok(d) => latencies.push(d),
            Err(e) => {
                println!("{label}: a call failed: {e}");
                return;
            }
        }
    }
    let total = started.elapsed();
    latencies.sort();
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    println!(
        "{label}: {calls} calls, {in_flight} in flight: {:.2} s, {:.0} calls/s, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        total.as_secs_f64(),
        calls as f64 / total.as_secs_f64(),
        ms(pct(0.50)),
        ms(pct(0.99)),
        ms(latencies[latencies.len() - 1]),
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
