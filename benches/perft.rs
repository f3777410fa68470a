//! Perft speed per variant (one thread, bulk counting). Each benchmark first
//! asserts its node count, so a faster but wrong generator cannot pass.

use amalgam::rules::perft::perft;
use amalgam::{Position, VariantSet};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::time::Duration;

/// (name, variant, FEN, depth, expected leaves)
const CASES: &[(&str, &str, &str, u32, u64)] = &[
    ("chess startpos d5", "chess", "startpos", 5, 4_865_609),
    (
        "chess kiwipete d4",
        "chess",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        4,
        4_085_603,
    ),
    (
        "combination startpos d5",
        "combination",
        "startpos",
        5,
        9_153_697,
    ),
    ("team-mate startpos d4", "team-mate", "startpos", 4, 564_773),
    ("compound startpos d4", "compound", "startpos", 4, 8_539_426),
];

fn bench_perft(c: &mut Criterion) {
    let set = VariantSet::builtin();
    let mut group = c.benchmark_group("perft");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8));
    for &(name, variant, fen, depth, nodes) in CASES {
        let v = set.compile(variant).expect("variant compiles");
        let start = if fen == "startpos" {
            Position::startpos(v)
        } else {
            Position::from_fen(v, fen).expect("FEN")
        };
        let mut pos = start.clone();
        assert_eq!(perft(&mut pos, depth), nodes, "{name}: wrong node count");
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut p = start.clone();
                let n = perft(&mut p, depth);
                assert_eq!(n, nodes);
                n
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
