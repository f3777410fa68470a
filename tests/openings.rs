//! Opening suites: `openings` is deterministic for a seed, and the shipped
//! suites hold enough distinct, playable positions within their score limit.

use amalgam::tools::openings::{SuiteOptions, generate, shipped};
use amalgam::{Position, VariantSet};
use std::collections::HashSet;

#[test]
fn a_suite_repeats_with_its_seed() {
    let set = VariantSet::builtin();
    for variant in ["chess", "combination"] {
        let (v, eval) = amalgam::engine::eval::compile(&set, variant).expect("variant");
        let opts = SuiteOptions {
            count: 6,
            nodes: 2_000,
            ..Default::default()
        };
        let a = generate(&v, &eval, &opts, &mut |_, _| {});
        let b = generate(&v, &eval, &opts, &mut |_, _| {});
        assert_eq!(a.len(), 6);
        assert_eq!(a, b, "{variant}");
        let other = generate(&v, &eval, &SuiteOptions { seed: 2, ..opts }, &mut |_, _| {});
        assert_ne!(a, other, "{variant}");
    }
}

#[test]
fn shipped_suites_hold_500_distinct_playable_balanced_positions() {
    let set = VariantSet::builtin();
    for variant in ["chess", "combination", "team-mate", "compound"] {
        let v = set.compile(variant).expect("variant");
        let text = shipped(variant).expect("a shipped suite");
        let mut seen = HashSet::new();
        let mut count = 0;
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (position, ops) = line.split_once(" ce ").expect("a ce operation");
            let ce: i32 = ops.trim_end_matches(';').parse().expect("a score");
            assert!(ce.abs() <= 100, "{variant}: {line}");
            let mut pos = Position::from_fen(v.clone(), &format!("{position} 0 1"))
                .unwrap_or_else(|e| panic!("{variant}: {line}: {e}"));
            assert!(!pos.legal_moves().is_empty(), "{variant}: {line}");
            assert!(seen.insert(position.to_string()), "{variant}: twice {line}");
            count += 1;
        }
        assert!(count >= 500, "{variant}: {count} positions");
    }
    assert!(shipped("no-such-variant").is_none());
}
