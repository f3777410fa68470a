//! Inputs that once ended a session, hung the engine or panicked it, each
//! against the real binary: bent moves of many legs, a closed output, lines
//! that are not UTF-8 or never end, `ponderhit` after a depth-limited ponder,
//! endless variant files, long inheritance chains, clocks near the integer
//! limits, and the smaller ones (`--variants` listing refused sections,
//! XBoard's `.` after `setboard`).

mod common;

use common::run_for;
use common::session::Session;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A scratch directory of this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("amalgam-reliability-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

fn write_file(name: &str, text: &str) -> String {
    let path = scratch(name);
    std::fs::write(&path, text).expect("write scratch file");
    path.to_string_lossy().into_owned()
}

/// Run the command line: its exit code (None when killed by a signal),
/// standard output and standard error.
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run amalgam");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn uci_session() -> Session {
    let mut s = Session::start_with(&["--uci"]);
    s.send("uci");
    s.until("uciok");
    s
}

fn xboard_session() -> Session {
    let mut s = Session::start_with(&["--xboard"]);
    s.send("xboard");
    s.send("protover 2");
    s.until("feature done=1");
    s
}

/// `isready` is answered, and the lines before `readyok`.
fn ready(s: &mut Session) -> Vec<String> {
    s.send("isready");
    let mut lines = s.until("readyok");
    lines.pop();
    lines
}

const FOUR_LEGS: &str = "[dl:chess]\nqueen = q:aaaaW\n";

#[test]
fn bent_moves_of_too_many_legs_are_refused_with_their_line() {
    for (name, betza) in [("legs5.ini", "aaaaW"), ("legs9.ini", "aaaaaaaaW")] {
        let file = write_file(name, &format!("[dl:chess]\nqueen = q:{betza}\n"));
        let (code, out, err) = run(&["check", &file]);
        assert_eq!(code, Some(1), "{betza}: {out}{err}");
        assert!(
            out.contains(":2: queen") && out.contains("at most 4 legs"),
            "{out}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    // Four legs that leave the mailbox's reach are refused too; four that
    // stay near the origin are a good piece.
    let far = write_file("far.ini", "[dl:chess]\nqueen = q:aaaW\n");
    let (code, out, _) = run(&["check", &far]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("more than 3 squares"), "{out}");
    let near = write_file("near.ini", "[dl:chess]\nqueen = q:alaralW\n");
    let (code, out, _) = run(&["check", &near]);
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn a_bad_bent_move_in_variant_path_keeps_both_sessions() {
    let file = write_file("four-legs.ini", FOUR_LEGS);
    let mut s = uci_session();
    s.send(&format!("setoption name VariantPath value {file}"));
    let lines = ready(&mut s);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error:") && l.contains("at most 4 legs")),
        "{lines:?}"
    );
    s.send("position startpos moves e2e4");
    s.send("go depth 2");
    assert!(
        s.until("bestmove")
            .last()
            .is_some_and(|l| l != "bestmove 0000")
    );

    let mut x = xboard_session();
    x.send(&format!("option VariantPath={file}"));
    let lines = x.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Error (") && l.contains("at most 4 legs")),
        "{lines:?}"
    );
}

#[test]
fn a_closed_output_ends_the_engine_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .arg("--uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start amalgam");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    writeln!(stdin, "uci").expect("write");
    let mut first = String::new();
    BufReader::new(stdout).read_line(&mut first).expect("read");
    assert!(first.starts_with("id name"), "{first}");
    // The reader is gone (dropped with its BufReader); the next answers
    // meet a closed pipe.
    for line in ["isready", "isready", "quit"] {
        if writeln!(stdin, "{line}").is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn command_line_output_to_a_closed_pipe_ends_quietly() {
    // As `amalgam variants | true`: the reader is gone before the first line.
    let mut child = Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .arg("variants")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start amalgam");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn a_line_that_is_not_utf8_is_refused_and_the_session_goes_on() {
    let mut s = uci_session();
    s.send_bytes(b"setoption name UCI_Variant value caf\xe9\n");
    let lines = ready(&mut s);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: not valid UTF-8")),
        "{lines:?}"
    );
    // Nothing changed: still chess, and it still plays.
    s.send("position startpos moves e2e4");
    s.send("go depth 1");
    assert!(
        s.until("bestmove")
            .last()
            .is_some_and(|l| l != "bestmove 0000")
    );

    let mut x = xboard_session();
    x.send_bytes(b"usermove e2e4\xff\n");
    let lines = x.sync();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Error (not valid UTF-8)")),
        "{lines:?}"
    );
    // The move was not made: e2e4 is still White's to play.
    x.send("force");
    x.send("usermove e2e4");
    let lines = x.sync();
    assert!(!lines.iter().any(|l| l.starts_with("Illegal")), "{lines:?}");
}

#[test]
fn a_line_without_end_is_refused_and_the_session_goes_on() {
    let mut s = uci_session();
    let mut long = b"position startpos moves".to_vec();
    while long.len() < 3 << 20 {
        long.extend_from_slice(b" e2e4");
    }
    long.push(b'\n');
    s.send_bytes(&long);
    let lines = ready(&mut s);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: line too long")),
        "{lines:?}"
    );
    s.send("go depth 1");
    assert!(
        s.until("bestmove")
            .last()
            .is_some_and(|l| l != "bestmove 0000")
    );
}

#[test]
fn ponderhit_keeps_the_depth_node_and_mate_limits() {
    for limit in ["depth 3", "nodes 3000", "mate 1"] {
        let mut s = uci_session();
        s.send("position startpos moves e2e4");
        s.send(&format!("go ponder {limit}"));
        std::thread::sleep(Duration::from_millis(200));
        s.send("ponderhit");
        // No `stop`: the search must answer by itself.
        let lines = s.until("bestmove");
        let deepest = lines
            .iter()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                w.position(|t| t == "depth")?;
                w.next()?.parse::<u32>().ok()
            })
            .max()
            .unwrap_or(0);
        if limit == "depth 3" {
            assert_eq!(deepest, 3, "{lines:?}");
        }
        assert!(deepest < 20, "{limit}: {lines:?}");
    }
}

#[test]
fn endless_variant_files_are_refused() {
    let (code, out, err) = run(&["check", "/dev/zero"]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("not a regular file (a device)"), "{out}");

    let mut s = uci_session();
    s.send("setoption name VariantPath value /dev/zero");
    let lines = ready(&mut s);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error:") && l.contains("not a regular file")),
        "{lines:?}"
    );
    let (code, _, err) = run(&["--variants", "/dev/zero", "variants"]);
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn long_inheritance_chains_are_refused() {
    let mut text = String::from("[c0:chess]\n");
    for i in 1..5000 {
        text.push_str(&format!("[c{i}:c{}]\n", i - 1));
    }
    let file = write_file("chain.ini", &text);
    let start = Instant::now();
    let (code, out, _) = run(&["check", &file]);
    assert_eq!(code, Some(1));
    assert!(out.contains("more than 32 sections in its line of parents"));
    // A short chain is fine.
    let file = write_file("short-chain.ini", "[c0:chess]\n[c1:c0]\n[c2:c1]\n");
    let (code, out, _) = run(&["check", &file]);
    assert_eq!(code, Some(0), "{out}");
    eprintln!("chain of 5000 checked in {:?}", start.elapsed());
}

/// Whether the engine plays a move within `wait` after `go` with these
/// clock lines; it is then made to move with `?`.
fn moves_at_once(clock: &[&str], wait: Duration) -> bool {
    let mut x = xboard_session();
    x.send("new");
    for l in clock {
        x.send(l);
    }
    x.send("go");
    let early = x.lines_for(wait);
    let moved = early.iter().any(|l| l.starts_with("move "));
    if !moved {
        x.send("?");
        x.until("move ");
    }
    moved
}

#[test]
fn huge_xboard_clocks_do_not_wrap_to_nothing() {
    let wait = Duration::from_millis(800);
    assert!(!moves_at_once(
        &["time 1844674407370955162", "otim 1844674407370955162"],
        wait
    ));
    assert!(!moves_at_once(&["level 40 307445734561825861:0 0"], wait));
    assert!(!moves_at_once(&["st 1e300"], wait));
    // An ordinary short clock still moves quickly.
    assert!(moves_at_once(
        &["level 40 0:01 0", "time 20", "otim 20"],
        Duration::from_secs(5)
    ));
}

#[test]
fn huge_uci_clock_numbers_are_taken_saturated() {
    let mut s = uci_session();
    let max = i64::MAX;
    for go in [
        format!("go wtime 1000 btime 1000 winc {max} binc {max}"),
        format!("go wtime {max} btime {max} movestogo 4294967297"),
        "go depth 4294967298 movetime 200".to_string(),
        format!("go mate {max} movetime 200"),
    ] {
        s.send("position startpos");
        s.send(&go);
        let lines = s.lines_for(Duration::from_millis(600));
        if !lines.iter().any(|l| l.starts_with("bestmove")) {
            s.send("stop");
            s.until("bestmove");
        }
        ready(&mut s);
    }
    // The search thread survived every one of them.
    s.send("go depth 2");
    assert!(
        s.until("bestmove")
            .last()
            .is_some_and(|l| l != "bestmove 0000")
    );
}

#[test]
fn command_line_variant_files_are_taken_whole_or_not_at_all() {
    let file = write_file(
        "half-good.ini",
        "[good:chess]\n[bad:chess]\nqueen = q:QQQ(\n",
    );
    let (code, out, err) = run(&["--variants", &file, "variants"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(!out.contains("good"), "{out}");
    assert!(err.contains("bad Betza"), "{err}");
    let (code, out, _) = run(&[
        "--variants",
        &write_file("good.ini", "[good:chess]\n"),
        "variants",
    ]);
    assert_eq!(code, Some(0));
    assert!(out.lines().any(|l| l == "good"), "{out}");
}

#[test]
fn analysis_status_after_setboard_is_the_new_search() {
    let mut x = xboard_session();
    x.send("new");
    x.send("force");
    x.send("post");
    x.send("analyze");
    std::thread::sleep(Duration::from_millis(600));
    x.send(".");
    x.send("setboard 4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
    x.send(".");
    let lines = x.sync();
    let stats: Vec<Vec<u64>> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("stat01: "))
        .map(|l| {
            l.split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect()
        })
        .collect();
    assert_eq!(stats.len(), 2, "{lines:?}");
    // Centiseconds since the search began: the first search ran for about
    // 60, the second has just begun.
    assert!(stats[0][0] >= 40, "{lines:?}");
    assert!(stats[1][0] < 20, "{lines:?}");
    // Legal moves of the new position (king and rook, with castling).
    assert_eq!(stats[1].last(), Some(&16), "{lines:?}");
    x.send("exit");
}

#[test]
fn a_position_whose_captures_explode_still_answers_in_time() {
    // Thirty queens a side: depth 1 alone takes minutes. It may run past
    // the limit (to twice the hard limit), then the best root move searched
    // so far is played.
    let file = write_file(
        "queens.ini",
        "[queens:chess]\nstartFen = qqqqkqqq/qqqqqqqq/8/8/8/8/QQQQQQQQ/QQQQKQQQ w - - 0 1\n\
         castling = false\n",
    );
    let mut s = uci_session();
    s.send(&format!("setoption name VariantPath value {file}"));
    s.send("setoption name UCI_Variant value queens");
    ready(&mut s);
    s.send("position startpos");
    s.send("go movetime 300");
    let answer = s.until("bestmove ");
    assert!(
        answer.last().is_some_and(|l| l != "bestmove 0000"),
        "{answer:?}"
    );
    // And a stop ends an infinite search as soon.
    s.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    s.send("stop");
    s.until("bestmove ");
}

#[test]
fn openings_longer_than_any_random_game_still_start_a_match() {
    let engine = format!("cmd={} --uci", env!("CARGO_BIN_EXE_amalgam"));
    let (code, out) = run_for(
        &[
            "match",
            "--engine",
            "name=A",
            &engine,
            "proto=uci",
            "--engine",
            "name=B",
            &engine,
            "proto=uci",
            "--variant",
            "chess",
            "--games",
            "2",
            "--depth",
            "1",
            "--random-plies",
            "100000",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("2 games in"), "{out}");
}

#[test]
fn thread_counts_from_the_command_line_are_bounded() {
    for args in [
        ["perft", "chess", "startpos", "2", "--threads", "100000"].as_slice(),
        ["bench", "chess", "--threads", "0"].as_slice(),
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, Some(2), "{args:?}");
        assert!(
            err.contains("for '--threads <N>'") && err.contains("is not in 1..=256"),
            "{err}"
        );
    }
}
