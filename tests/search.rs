//! Search: forced mates found with the exact distance, a deterministic bench
//! signature, time and node limits respected.

mod common;

use amalgam::engine::Engine;
use amalgam::engine::search::{Limits, SearchResult, Value};
use common::data_dir;
use std::time::{Duration, Instant};

/// Search under `limits` without watching the progress.
fn quiet_go(engine: &mut Engine, limits: Limits) -> SearchResult {
    engine.go(&limits, &[], &mut |_| {})
}

/// Every position of `mates.tsv` (mates in 1 to 3, verified by exhaustive
/// search): the engine announces the exact mate distance and plays one of
/// the listed first moves, within 10 s on one thread.
#[test]
fn mates_are_found_with_exact_distance() {
    let text = std::fs::read_to_string(data_dir().join("mates.tsv")).expect("mates.tsv");
    let mut engine = Engine::new();
    let mut failures = Vec::new();
    let mut count = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (variant, fen, n) = (f[0], f[1], f[2].parse::<i32>().expect("mate_in"));
        let firsts: Vec<&str> = f[3].split_whitespace().collect();
        engine.set_variant(variant).expect("variant");
        engine.new_game();
        engine.set_position(Some(fen), &[]).expect("fen");
        let limits = Limits {
            movetime: Some(10_000),
            ..Default::default()
        };
        let start = Instant::now();
        let r = engine.go(&limits, &[], &mut |_| {});
        let pos = engine.position().clone();
        let played = r.best.map(|m| pos.move_text(m)).unwrap_or_default();
        count += 1;
        if r.value != Value::Mate(n)
            || !firsts.contains(&played.as_str())
            || start.elapsed() > Duration::from_secs(10)
        {
            failures.push(format!(
                "{variant} {fen}: expected mate {n} with {firsts:?}, got {:?} {played}",
                r.value
            ));
        }
    }
    assert!(count >= 50);
    assert!(
        failures.is_empty(),
        "{} of {count} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn bench_signature_is_deterministic() {
    let set = amalgam::VariantSet::builtin();
    let a: Vec<u64> = amalgam::engine::bench::run(&set, None, 5, 1)
        .expect("bench")
        .iter()
        .map(|l| l.nodes)
        .collect();
    let b: Vec<u64> = amalgam::engine::bench::run(&set, None, 5, 1)
        .expect("bench")
        .iter()
        .map(|l| l.nodes)
        .collect();
    assert_eq!(a, b);
    assert!(a.iter().all(|&n| n > 0));
}

#[test]
fn node_and_depth_limits_hold() {
    let mut engine = Engine::new();
    for variant in ["chess", "combination", "team-mate", "compound"] {
        engine.set_variant(variant).expect("variant");
        let r = quiet_go(
            &mut engine,
            Limits {
                nodes: Some(5000),
                ..Default::default()
            },
        );
        assert!(r.best.is_some());
        assert!(r.nodes <= 5000 + 64, "{variant}: {} nodes", r.nodes);
        let mut depths = Vec::new();
        let r = engine.go(
            &Limits {
                depth: Some(4),
                ..Default::default()
            },
            &[],
            &mut |i| depths.push(i.depth),
        );
        assert_eq!(r.depth, 4);
        assert_eq!(depths.last(), Some(&4));
    }
}

/// Under a node limit alone, depth 1 is finished past the limit and ended
/// by a node count, never by the clock, so the search is the same on a
/// loaded machine: this Compound position's depth 1 takes some 400,000
/// nodes (captures go on for 30 plies).
#[test]
fn a_long_depth_one_under_a_node_limit_is_reproducible() {
    let fen = "1rcbqkb2r/s1d2cd3/1ss1s2ss1/3s1sss2/1SS1S2S2/S1DS1S1S1D/5CSB1S/R1CBQ2RK1 w k - 2 12";
    let mut runs = Vec::new();
    for _ in 0..2 {
        let mut engine = Engine::new();
        engine.set_variant("compound").expect("variant");
        engine.set_position(Some(fen), &[]).expect("fen");
        let r = quiet_go(
            &mut engine,
            Limits {
                nodes: Some(1000),
                ..Default::default()
            },
        );
        runs.push((r.best, r.nodes, r.depth, r.value));
    }
    assert_eq!(runs[0], runs[1]);
    let (best, nodes, depth, _) = runs[0];
    assert!(best.is_some() && depth == 1, "{runs:?}");
    assert!((100_000..=1_001_064).contains(&nodes), "{nodes} nodes");
}

#[test]
fn a_stop_before_the_first_iteration_still_plays_a_searched_move() {
    // White wins the queen with Rxd5; the stop is already set when the
    // search starts, yet depth 1 is completed and its best move played.
    let mut engine = Engine::new();
    engine
        .set_position(Some("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1"), &[])
        .expect("fen");
    let first = engine.position_mut().legal_moves()[0];
    assert_ne!(engine.position().move_text(first), "d1d5");
    engine
        .stop_handle()
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let r = quiet_go(
        &mut engine,
        Limits {
            depth: Some(20),
            ..Default::default()
        },
    );
    let played = r.best.map(|m| engine.position().move_text(m));
    assert_eq!(played.as_deref(), Some("d1d5"));
    assert_eq!(r.depth, 1);
}

#[test]
fn an_iteration_cut_short_plays_a_move_proven_better_in_it() {
    // Depth 1 takes the knight with Qxa4 (quiescence sees no recapture);
    // depth 2 finds that it allows Re1 mate, and any queen move that keeps
    // the first rank guarded beats it. Some node limit ends the search in
    // depth 2 after such a move has finished and before the iteration has:
    // the move then played is that one, not the last completed iteration's,
    // and the last line shown begins with it.
    let fen = "4r1k1/5ppp/8/8/n7/8/5PPP/3Q2K1 w - - 0 1";
    let mut engine = Engine::new();
    engine.set_hash_mb(1).expect("hash");
    let mut cut_short_and_changed = 0;
    for nodes in (20..4000).step_by(10) {
        engine.new_game();
        engine.set_position(Some(fen), &[]).expect("fen");
        let mut lines = Vec::new();
        let r = engine.go(
            &Limits {
                nodes: Some(nodes),
                ..Default::default()
            },
            &[],
            &mut |info| lines.push((info.depth, info.pv.first().copied())),
        );
        let text = |m: Option<_>| m.map(|m| engine.position().move_text(m));
        let played = text(r.best);
        assert_eq!(
            lines.last().and_then(|l| text(l.1)),
            played,
            "at {nodes} nodes"
        );
        if r.depth >= 2 {
            // Depth 2 completed: the capture is known to lose.
            assert_ne!(played.as_deref(), Some("d1a4"), "at {nodes} nodes");
        } else if r.depth == 1 {
            let completed = lines.iter().rev().find(|l| l.0 == 1).and_then(|l| l.1);
            assert_eq!(text(completed).as_deref(), Some("d1a4"));
            if played.as_deref() != Some("d1a4") {
                cut_short_and_changed += 1;
            }
        }
    }
    assert!(cut_short_and_changed > 0);
}

/// A search of `ms` milliseconds of fixed time, and how long it took.
fn timed_movetime(engine: &mut Engine, ms: u64) -> (SearchResult, Duration) {
    let start = Instant::now();
    let r = quiet_go(
        engine,
        Limits {
            movetime: Some(ms),
            ..Default::default()
        },
    );
    (r, start.elapsed())
}

#[test]
fn movetime_is_respected() {
    let mut engine = Engine::new();
    engine.set_variant("compound").expect("variant");
    let (r, t) = timed_movetime(&mut engine, 300);
    assert!(r.best.is_some());
    assert!(
        t >= Duration::from_millis(300) && t <= Duration::from_millis(600),
        "{t:?}"
    );
}

/// A fixed time is spent whole even when the best move is settled from the
/// first iterations (a rook takes a loose queen): the early stop that a
/// clock's soft limit allows is not for `movetime`.
#[test]
fn movetime_is_spent_whole_when_the_best_move_is_settled() {
    let mut engine = Engine::new();
    engine.set_variant("chess").expect("variant");
    engine
        .set_position(Some("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"), &[])
        .expect("fen");
    let (r, t) = timed_movetime(&mut engine, 400);
    let pos = engine.position().clone();
    assert_eq!(r.best.map(|m| pos.move_text(m)).as_deref(), Some("d2d5"));
    assert!(
        t >= Duration::from_millis(400) && t <= Duration::from_millis(800),
        "{t:?}"
    );
}

#[test]
fn multipv_reports_distinct_lines() {
    let mut engine = Engine::new();
    engine.set_multipv(3);
    let mut last: Vec<(usize, Vec<amalgam::Move>)> = Vec::new();
    engine.go(
        &Limits {
            depth: Some(5),
            ..Default::default()
        },
        &[],
        &mut |i| {
            if i.depth == 5 {
                last.push((i.multipv, i.pv.clone()));
            }
        },
    );
    assert_eq!(last.iter().map(|l| l.0).collect::<Vec<_>>(), vec![1, 2, 3]);
    let firsts: Vec<_> = last.iter().map(|l| l.1[0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
}

#[test]
fn stalemate_and_checkmate_at_the_root() {
    let mut engine = Engine::new();
    let mut at_root = |fen: &str| {
        engine.set_position(Some(fen), &[]).expect("fen");
        quiet_go(
            &mut engine,
            Limits {
                depth: Some(3),
                ..Default::default()
            },
        )
    };
    let r = at_root("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(r.best, None);
    assert_eq!(r.value, Value::Cp(0));
    let r = at_root("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(r.best, None);
    assert_eq!(r.value, Value::Mate(0));
}

/// `bench` ends with `N nodes M nps`, the line testing frameworks read, and
/// N is the node count printed above it.
#[test]
fn bench_ends_with_the_testing_framework_line() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .args(["bench", "chess", "--depth", "4"])
        .output()
        .expect("bench runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().expect("output");
    let words: Vec<&str> = last.split(' ').collect();
    assert_eq!(words.len(), 4, "{last}");
    assert_eq!((words[1], words[3]), ("nodes", "nps"), "{last}");
    assert!(words[2].parse::<u64>().is_ok(), "{last}");
    let searched = text
        .lines()
        .find_map(|l| l.strip_prefix("Nodes searched  : "))
        .expect("node count");
    assert_eq!(words[0], searched);
}

/// `epd --nodes` searches each position to a node count, so two runs agree
/// line for line whatever the machine's load; a solved position reports
/// the iteration from which the best line began with the solving move, a
/// failed one does not.
#[test]
fn epd_with_a_node_limit_is_reproducible_and_reports_when_solved() {
    let dir = std::env::temp_dir().join(format!("amalgam-epd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("suite.epd");
    // Back-rank mate in one, solved; then the same move to avoid, failed.
    std::fs::write(
        &file,
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id \"mate\";\n\
         6k1/5ppp/8/8/8/8/8/R5K1 w - - am Ra8#; id \"avoid\";\n",
    )
    .expect("write suite");
    let run = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_amalgam"))
            .args(["epd", file.to_str().expect("path"), "--nodes", "20000"])
            .output()
            .expect("epd runs");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // Everything but the milliseconds.
    let untimed = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| {
                l.split(", ")
                    .filter(|f| !f.ends_with(" ms"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .collect()
    };
    let first = run();
    assert_eq!(untimed(&first), untimed(&run()), "two runs differ");
    let mate = first
        .lines()
        .find(|l| l.starts_with("mate "))
        .expect("mate line");
    assert!(
        mate.contains(" ok ") && mate.contains(" from depth 1, "),
        "{mate}"
    );
    let avoid = first
        .lines()
        .find(|l| l.starts_with("avoid "))
        .expect("avoid line");
    assert!(
        avoid.contains("FAIL") && !avoid.contains("from depth"),
        "{avoid}"
    );
    assert!(first.contains("Solved 1 of 2"), "{first}");
    let _ = std::fs::remove_dir_all(&dir);
}
