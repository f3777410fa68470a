//! Search speed per variant: the bench positions of each variant to a fixed
//! depth on one thread. Every iteration must reproduce the node count of the
//! first (the search is deterministic), so a change of behaviour shows.

use amalgam::VariantSet;
use amalgam::engine::bench::run;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::time::Duration;

const DEPTH: u32 = 7;

fn bench_search(c: &mut Criterion) {
    let set = VariantSet::builtin();
    let mut group = c.benchmark_group("search");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for variant in ["chess", "combination", "team-mate", "compound"] {
        let nodes: u64 = run(&set, Some(variant), DEPTH, 1)
            .expect("bench")
            .iter()
            .map(|l| l.nodes)
            .sum();
        assert!(nodes > 0);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("{variant} depth {DEPTH}"), |b| {
            b.iter(|| {
                let n: u64 = run(&set, Some(variant), DEPTH, 1)
                    .expect("bench")
                    .iter()
                    .map(|l| l.nodes)
                    .sum();
                assert_eq!(n, nodes, "{variant}: node count changed between runs");
                n
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_search);
criterion_main!(benches);
