//! Criterion: `PlanResourceChange` and `ApplyResourceChange` of a set
//! block of 1,000 and 10,000 elements (and one new) through the framework's whole path
//! (the scenario of `scaling.rs`; `examples/plan_scaling.rs` prints the
//! same up to 100,000).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

mod scaling;
use scaling::{Case, Scenario};

fn plan_scaling(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let scenario = runtime.block_on(Scenario::new());
    let mut group = c.benchmark_group("set_block");
    group.sample_size(10);
    for n in [1_000, 10_000] {
        let case = Case::new(n);
        let planned = runtime.block_on(scenario.plan(&case));
        assert!(Scenario::is_planned(&case, &planned));
        group.bench_with_input(BenchmarkId::new("plan", n), &case, |b, case| {
            b.iter(|| runtime.block_on(scenario.plan(case)))
        });
        assert!(Scenario::is_applied(
            &case,
            &runtime.block_on(scenario.apply(&case, &planned))
        ));
        group.bench_with_input(BenchmarkId::new("apply", n), &case, |b, case| {
            b.iter(|| runtime.block_on(scenario.apply(case, &planned)))
        });
    }
    group.finish();
}

criterion_group!(benches, plan_scaling);
criterion_main!(benches);
