//! How planning and applying scale with the size of a set block, through
//! the framework's whole path: the gRPC service in-process (protobuf
//! messages, msgpack encoding and decoding of every value), the
//! framework's plan rules, its consistency checks, and the resource's
//! typed update.
//!
//! `cargo run --release -p ctywire-provider --example plan_scaling` prints
//! one JSON line per size: `{"elements":N,"plan_ms":X,"apply_ms":Y}`.
//!
//! The scenario is in `benches/scaling.rs`, which the criterion bench
//! `plan_scaling` shares. terraform-plugin-framework#775 reports ~70 s to
//! plan 1,000 set blocks.

use std::time::Instant;

#[path = "../benches/scaling.rs"]
mod scaling;
use scaling::{Case, Scenario};

#[tokio::main]
async fn main() {
    let scenario = Scenario::new().await;
    // One small round first, so one-time work (schemas built and cached)
    // is not counted in the first size.
    let warm = Case::new(10);
    let planned = scenario.plan(&warm).await;
    scenario.apply(&warm, &planned).await;
    let sizes: Vec<usize> = match std::env::args().nth(1) {
        Some(n) => vec![n.parse().expect("a size")],
        None => vec![1_000, 10_000, 100_000],
    };
    for n in sizes {
        let case = Case::new(n);
        let started = Instant::now();
        let planned = scenario.plan(&case).await;
        let plan_ms = started.elapsed().as_secs_f64() * 1e3;
        assert!(
            Scenario::is_planned(&case, &planned),
            "every id is kept from its own element, the new one unknown"
        );

        let started = Instant::now();
        let new_state = scenario.apply(&case, &planned).await;
        let apply_ms = started.elapsed().as_secs_f64() * 1e3;
        assert!(Scenario::is_applied(&case, &new_state));

        println!("{{\"elements\":{n},\"plan_ms\":{plan_ms:.1},\"apply_ms\":{apply_ms:.1}}}");
    }
}
