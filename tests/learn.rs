//! `amalgam learn` end to end on a variant that only this test's ini
//! defines (Los Alamos chess, 6x6 without bishops): two generations on a
//! tiny budget, stopped by SIGTERM in the first gate and started again.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The men are worth a centipawn each to the hand-written evaluation:
/// little in it, so that a net trained on a few hundred positions (which
/// learns material from the games' results) wins games against it.
const VARIANT: &str = "\
# Los Alamos chess: 6x6, no bishops, no castling, no double step.
[learn-alamos]
pieceValues = p:1 n:1 r:1 q:1
maxFile = f
maxRank = 6
bishop = -
castling = false
doubleStep = false
promotionPieceTypes = nrq
startFen = rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1
";

/// The run's command line: tiny data and nets, a short gate whose bounds
/// (H0 -1500 Elo, H1 -1400, alpha and beta 0.25) promote a candidate that
/// wins two or three games of at most 20 (it won 2 to 4 of its first 4 to
/// 9 in every trial). The game's result is in the target (`--lambda
/// 0.5`): on a few hundred positions that puts the candidate's validation
/// loss below the hand-written evaluation's, which a gate needs.
/// `extra`: more options, `--positions` among them.
fn learn(ini: &Path, dir: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_amalgam"));
    cmd.arg("--variants").arg(ini);
    cmd.args(["learn", "learn-alamos", "--dir"]).arg(dir);
    cmd.args([
        "--generations",
        "2",
        "--threads",
        "2",
        "--nodes",
        "100",
        "--epochs",
        "4",
        "--gate-tc",
        "0.4+0.02",
        "--gate-games",
        "20",
        "--elo0",
        "-1500",
        "--elo1",
        "-1400",
        "--alpha",
        "0.25",
        "--beta",
        "0.25",
        "--lambda",
        "0.5",
    ]);
    cmd.args(extra);
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    cmd
}

/// New positions of a generation in the first test.
const POSITIONS: [&str; 2] = ["--positions", "600"];

fn log_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("learn.log")).unwrap_or_default()
}

/// The log, which must end with the run's stop for `reason`.
fn log_ending(dir: &Path, reason: &str) -> String {
    let log = log_of(dir);
    let last = format!("run-stop reason={reason}");
    assert!(log.trim_end().ends_with(&last), "{log}");
    log
}

/// The lines of `log` with `event` about generation `g`.
fn count(log: &str, event: &str, g: u32) -> usize {
    log.lines()
        .filter(|l| l.contains(&format!(" {event} gen={g} ")))
        .count()
}

fn wait(child: Child, limit: Duration) -> (Option<i32>, String) {
    let begun = Instant::now();
    let mut child = child;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let out = child.wait_with_output().expect("output");
            return (
                status.code(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            );
        }
        if begun.elapsed() > limit {
            let _ = child.kill();
            panic!("learn did not end in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn learn_promotes_a_net_and_continues_after_sigterm() {
    let scratch = common::scratch_dir("learn", "run");
    let ini = scratch.join("alamos.ini");
    std::fs::write(&ini, VARIANT).expect("ini");
    let dir: PathBuf = scratch.join("run");

    // First run: stopped by SIGTERM once the first gate has begun.
    let child = learn(&ini, &dir, &POSITIONS).spawn().expect("start learn");
    let begun = Instant::now();
    while count(&log_of(&dir), "gate-start", 1) == 0 {
        assert!(begun.elapsed().as_secs() < 120, "{}", log_of(&dir));
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(kill.success());
    let signalled = Instant::now();
    let (code, stderr) = wait(child, Duration::from_secs(30));
    assert!(
        signalled.elapsed().as_secs() < 5,
        "{:?}",
        signalled.elapsed()
    );
    assert_eq!(code, Some(143), "{stderr}");
    let first = log_ending(&dir, "SIGTERM");
    assert_eq!(count(&first, "data-end", 1), 1, "{first}");
    assert_eq!(count(&first, "train-end", 1), 1, "{first}");
    assert_eq!(count(&first, "gate-end", 1), 0, "{first}");
    let data1 = std::fs::read(dir.join("data/gen-0001.bin")).expect("data of generation 1");

    // Second run, same folder: it goes on with the gate of generation 1.
    let (code, stderr) = wait(
        learn(&ini, &dir, &POSITIONS).spawn().expect("start"),
        Duration::from_secs(120),
    );
    let log = log_of(&dir);
    assert_eq!(code, Some(0), "{stderr}\n{log}");
    assert!(log.starts_with(&first), "the log was rewritten:\n{log}");
    let second = &log[first.len()..];
    assert!(
        second
            .lines()
            .next()
            .is_some_and(|l| l.contains(" run-start variant=learn-alamos gen=1 ")),
        "{second}"
    );
    // Generation 1's data and training are not made again.
    for event in ["data-start", "data-end", "train-start", "train-end"] {
        assert_eq!(count(second, event, 1), 0, "{event}: {second}");
    }
    assert_eq!(
        std::fs::read(dir.join("data/gen-0001.bin")).expect("data"),
        data1
    );
    assert_eq!(count(second, "gate-start", 1), 1, "{second}");
    assert_eq!(count(second, "gate-end", 1), 1, "{second}");
    // The count goes on: generation 2 is made, trained and gated, then the
    // run ends.
    for event in ["data-end", "train-end", "gate-end"] {
        assert_eq!(count(second, event, 2), 1, "{event}: {second}");
    }
    assert_eq!(count(&log, "data-start", 3), 0, "{log}");
    // Each training names its start's loss on its validation positions
    // beside the candidate's.
    for line in log.lines().filter(|l| l.contains(" train-end ")) {
        let field = |key: &str| {
            line.split(' ')
                .find_map(|w| w.strip_prefix(key))
                .and_then(|v| v.parse::<f64>().ok())
        };
        assert!(field("validation=").is_some(), "{line}");
        assert!(field("start_validation=").is_some(), "{line}");
    }
    log_ending(&dir, "generation-2-done");
    assert!(dir.join("data/gen-0002.bin").is_file());
    // A net was promoted, and written whole.
    assert!(log.contains(" verdict=promoted"), "{log}");
    let best = std::fs::read(dir.join("best.nnue")).expect("best.nnue");
    let promoted: Vec<u32> = (1..=2)
        .filter(|g| {
            log.lines().any(|l| {
                l.contains(&format!(" gate-end gen={g} ")) && l.ends_with("verdict=promoted")
            })
        })
        .collect();
    let last = promoted.last().expect("a promotion");
    // Generation 1 trains from random weights (the variant has no net);
    // generation 2 from the best net's when generation 1 made one.
    let start_of = |g: u32| {
        let line = log
            .lines()
            .find(|l| l.contains(&format!(" train-start gen={g} ")))
            .expect("train-start");
        line.split(' ')
            .find_map(|w| w.strip_prefix("start="))
            .expect("start=")
            .to_string()
    };
    assert_eq!(start_of(1), "random", "{log}");
    let second_start = if promoted.contains(&1) {
        "best"
    } else {
        "random"
    };
    assert_eq!(start_of(2), second_start, "{log}");
    let candidate = std::fs::read(dir.join(format!("gen-{last:04}/candidate.nnue"))).expect("net");
    assert_eq!(best, candidate);
    // Its provenance holds the log of its generation up to its training.
    let provenance = amalgam::engine::eval::nnue::Network::from_bytes(&best)
        .expect("a net")
        .provenance;
    let trained = format!(" train-start gen={last} ");
    assert!(
        provenance.contains(&format!(
            "The log of amalgam learn to generation {last}'s training:\n"
        )) && provenance.contains(&trained)
            && provenance.contains(&format!(" data-end gen={last} "))
            && !provenance.contains(" epoch gen="),
        "{provenance}"
    );
    let svg = std::fs::read_to_string(dir.join("progress.svg")).expect("progress.svg");
    assert!(
        svg.starts_with("<svg") && svg.contains("<polyline"),
        "{svg}"
    );
    // The best net plays the variant.
    let (ok, out) = common::run_amalgam(&[
        "--variants".as_ref(),
        dir.join("best.ini").as_os_str(),
        "go".as_ref(),
        "learn-alamos".as_ref(),
        "startpos".as_ref(),
        "--nodes".as_ref(),
        "500".as_ref(),
    ]);
    assert!(ok && out.contains("bestmove"), "{out}");

    // A kill between the last promotion and its log line: the log ends
    // before that gate's end. The run finds the candidate already the
    // best, takes the gate's result from its games without playing more,
    // and logs the gate's end.
    let gate_end = format!(" gate-end gen={last} ");
    let cut_at = log.find(&gate_end).expect("gate-end");
    let cut_at = log[..cut_at].rfind('\n').map_or(0, |n| n + 1);
    std::fs::write(dir.join("learn.log"), &log[..cut_at]).expect("cut the log");
    let pgn = dir.join(format!("gen-{last:04}/gate.pgn"));
    let games = std::fs::read(&pgn).expect("gate.pgn");
    let generations = format!("{last}");
    let mut again = learn(&ini, &dir, &POSITIONS);
    again.args(["--generations", &generations]);
    let (code, stderr) = wait(again.spawn().expect("start"), Duration::from_secs(60));
    assert_eq!(code, Some(0), "{stderr}");
    let log = log_ending(&dir, &format!("generation-{last}-done"));
    let ended = log[cut_at..].lines().find(|l| l.contains(&gate_end));
    assert!(
        ended.is_some_and(|l| l.ends_with("verdict=promoted")),
        "{log}"
    );
    assert_eq!(std::fs::read(&pgn).expect("gate.pgn"), games);
    assert_eq!(std::fs::read(dir.join("best.nnue")).expect("best"), best);
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A run whose budget is spent stops by itself, says so in its log, and
/// leaves its data to the next run (which makes the rest of the
/// generation's positions, not all of them again).
#[test]
fn a_spent_budget_ends_the_run_and_the_next_run_goes_on() {
    let scratch = common::scratch_dir("learn", "budget");
    let ini = scratch.join("alamos.ini");
    std::fs::write(&ini, VARIANT).expect("ini");
    let dir = scratch.join("run");
    // 0.0005 hours: under 2 s, in the first generation's data.
    let budget = ["--hours", "0.0005", "--positions", "20000"];
    let (code, stderr) = wait(
        learn(&ini, &dir, &budget).spawn().expect("start"),
        Duration::from_secs(60),
    );
    assert_eq!(code, Some(0), "{stderr}");
    let log = log_ending(&dir, "budget-spent");
    assert_eq!(count(&log, "data-stop", 1), 1, "{log}");
    let made = std::fs::metadata(dir.join("data/gen-0001.bin"))
        .expect("data")
        .len();
    assert!(made > 0);
    let (code, stderr) = wait(
        learn(&ini, &dir, &budget).spawn().expect("start"),
        Duration::from_secs(60),
    );
    assert_eq!(code, Some(0), "{stderr}");
    let grown = std::fs::metadata(dir.join("data/gen-0001.bin"))
        .expect("data")
        .len();
    assert!(grown > made, "{made} {grown}");
    let log = log_of(&dir);
    assert_eq!(count(&log, "data-start", 1), 2, "{log}");
    let _ = std::fs::remove_dir_all(&scratch);
}
