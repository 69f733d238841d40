//! Load on the JSON-RPC runtime against a real child: N calls with K in
//! flight to the Deno child of tests/peers (its `echo` method), printing
//! throughput and latency percentiles.
//!
//! ```sh
//! bash scripts/test-peers.sh        # Deno from the npm registry
//! cargo run --release -p ctywire-bridge --example rpc_load --features runtime -- 100000 64
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use ctywire_bridge::runtime::{Child, ChildOptions, Handlers};
use ctywire_bridge::Json;
use tokio::sync::Semaphore;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let calls: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let in_flight: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(64);
    let root = env!("CARGO_MANIFEST_DIR");
    let deno = format!("{root}/../target/peers/node_modules/.bin/deno");
    let script = format!("{root}/tests/peers/denobridge_child.ts");
    let mut opts = ChildOptions::new(
        deno,
        [
            "run",
            "--quiet",
            "--no-prompt",
            "--no-config",
            script.as_str(),
        ],
    );
    opts.env = vec![("DENO_NO_UPDATE_CHECK".into(), "1".into())];
    let child = match Child::spawn(opts, Handlers::new()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot start deno ({e}); run scripts/test-peers.sh first");
            std::process::exit(1);
        }
    };
    // The child's readiness check (denobridge's `health`).
    child
        .peer()
        .call("health", Some(Json::parse("{}").expect("JSON")))
        .await
        .expect("health");
    let params =
        Json::parse(r#"{"props":{"name":"web","size":12345678901234567890123}}"#).expect("JSON");
    let permits = Arc::new(Semaphore::new(in_flight));
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(calls);
    for _ in 0..calls {
        let permit = permits.clone().acquire_owned().await.expect("semaphore");
        let peer = child.peer().clone();
        let params = params.clone();
        tasks.push(tokio::spawn(async move {
            let t = Instant::now();
            let r = peer.call("echo", Some(params)).await;
            drop(permit);
            r.map(|_| t.elapsed())
        }));
    }
    let mut latencies: Vec<Duration> = Vec::with_capacity(calls);
    for t in tasks {
        latencies.push(t.await.expect("task").expect("call"));
    }
    let total = started.elapsed();
    latencies.sort();
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    println!(
        "{calls} calls, {in_flight} in flight: {:.1} s, {:.0} calls/s, p50 {:?}, p99 {:?}, max {:?}",
        total.as_secs_f64(),
        calls as f64 / total.as_secs_f64(),
        pct(0.50),
        pct(0.99),
        latencies[latencies.len() - 1]
    );
    let _ = child
        .peer()
        .call("shutdown", Some(Json::parse("{}").expect("JSON")))
        .await;
    child.stop().await;
}
