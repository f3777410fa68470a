//! Perft against the reference counts of `tests/data/*.tsv` (independent
//! generators) and against the per-move divide files.

mod common;

use amalgam::VariantSet;
use amalgam::rules::perft::{divide, perft};
use common::{data_dir, perft_rows, position};

/// Rows up to this many leaves run in the normal suite; larger ones in the
/// ignored test `perft_large_rows` (`cargo test --release -- --ignored`).
const CI_LIMIT: u64 = 2_000_000;

fn check_rows(filter: impl Fn(u64) -> bool) -> usize {
    let set = VariantSet::builtin();
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in perft_rows().into_iter().filter(|r| filter(r.nodes)) {
        let mut pos = position(&set, &row.variant, &row.fen);
        let got = perft(&mut pos, row.depth);
        checked += 1;
        if got != row.nodes {
            failures.push(format!(
                "{} depth {} {}: expected {} got {}",
                row.variant, row.depth, row.fen, row.nodes, got
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "perft mismatches:\n{}",
        failures.join("\n")
    );
    checked
}

#[test]
fn perft_reference_rows() {
    let n = check_rows(|nodes| nodes <= CI_LIMIT);
    assert!(n >= 80, "only {n} rows checked");
}

#[test]
#[ignore = "large counts: run with cargo test --release -- --ignored"]
fn perft_large_rows() {
    let n = check_rows(|nodes| nodes > CI_LIMIT);
    assert!(n >= 10);
}

/// Per-move counts at depth 1 and 2, in RULES.md move notation: checks the
/// move text as well as the counts.
#[test]
fn divide_files_match() {
    let set = VariantSet::builtin();
    let dir = data_dir().join("divide");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("divide dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    files.sort();
    assert!(files.len() >= 20);
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read");
        let mut variant = String::new();
        let mut fen = String::new();
        let mut depth = 0;
        let mut expected: Vec<Vec<(String, u64)>> = vec![Vec::new(), Vec::new(), Vec::new()];
        for line in text.lines() {
            if let Some(v) = line.strip_prefix("# variant: ") {
                variant = v.trim().to_string();
            } else if let Some(f) = line.strip_prefix("# fen: ") {
                fen = f.trim().to_string();
            } else if let Some(d) = line.strip_prefix("## depth ") {
                depth = d.trim().parse().expect("depth");
            } else if let Some((m, n)) = line.split_once(": ")
                && depth > 0
                && !line.starts_with('#')
            {
                expected[depth].push((m.to_string(), n.trim().parse().expect("count")));
            }
        }
        let pos = position(&set, &variant, &fen);
        for (d, exp) in expected.iter().enumerate().skip(1) {
            let mut exp = exp.clone();
            exp.sort();
            assert!(!exp.is_empty(), "{}: no depth {d}", path.display());
            let got = divide(&pos, d as u32, 1);
            assert_eq!(got, exp, "{} depth {d}", path.display());
        }
    }
}

#[test]
fn parallel_divide_agrees() {
    let set = VariantSet::builtin();
    let pos = position(
        &set,
        "compound",
        "r1cb1k1cdr/ss1s1sssss/2d5s1/2sSsD4/10/4C5/SSS1SSSSSS/RD1BQK1CDR w KQkq e6 0 8",
    );
    assert_eq!(divide(&pos, 3, 2), divide(&pos, 3, 1));
    assert_eq!(divide(&pos, 3, 2).iter().map(|m| m.1).sum::<u64>(), 284666);
}
