//! The real client: headless XBoard 4.9.1 matches (under xvfb-run) of the
//! engine against Fairy-Max in Team-Mate and against itself in Combination
//! and Compound. Fails on any forfeit, illegal move, crash, or a game without
//! a proper result, read from XBoard's PGN and debug log, and on a PGN that
//! `amalgam pgn check` refuses. Needs `xboard`,
//! `xvfb-run` and `fairymax` installed, so it runs only when asked:
//! `cargo test --release --test xboard_gui -- --ignored`.

mod common;

use common::program;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Games per match and the clock of each side.
const GAMES: usize = 2;
const BASE: &str = "0:05";
const INC: &str = "0.05";
/// A match that runs longer than this has hung.
const MATCH_LIMIT: Duration = Duration::from_secs(200);

struct Match {
    name: &'static str,
    dir: PathBuf,
    child: Child,
    started: Instant,
}

fn start(name: &'static str, root: &Path, variant: &str, first: &str, rest: &[&str]) -> Match {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).expect("match directory");
    let mut cmd = Command::new(program("xvfb-run"));
    cmd.current_dir(&dir)
        .args(["-a", program("xboard").to_str().expect("path")])
        .args(["-noGUI", "-xexit", "-mm", "-mg", &GAMES.to_string()])
        .args(["-fcp", first, "-variant", variant, "-testLegality", "false"])
        .args(["-tc", BASE, "-inc", INC, "-xponder", "-matchPause", "100"])
        .args([
            "-sgf",
            "match.pgn",
            "-debug",
            "-nameOfDebugFile",
            "xboard.debug",
        ])
        .args([
            "-saveSettingsOnExit",
            "false",
            "-soundProgram",
            "",
            "-startupMessage",
            "",
        ])
        .args(rest)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("xboard.out")).expect("log"))
        .stderr(Stdio::from(
            std::fs::File::create(dir.join("xboard.err")).expect("log"),
        ));
    Match {
        name,
        dir,
        child: cmd.spawn().expect("xvfb-run starts"),
        started: Instant::now(),
    }
}

/// Fairy-Max 5.0b reads an unknown command as a move with uninitialised
/// fields and sometimes crashes on it; XBoard sends it two (`computer`,
/// `result`), so they are filtered out before they reach it.
fn fairymax_wrapper(root: &Path) -> String {
    let path = root.join("fairymax.sh");
    let script = format!(
        "#!/bin/sh\nsed -u -e '/^computer$/d' -e '/^result /d' | {}\n",
        program("fairymax").display()
    );
    std::fs::write(&path, script).expect("wrapper");
    let ok = Command::new("chmod")
        .arg("+x")
        .arg(&path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "chmod");
    path.display().to_string()
}

/// Problems found in one finished match.
fn check(m: &Match) -> Vec<String> {
    let mut problems = Vec::new();
    let pgn = std::fs::read_to_string(m.dir.join("match.pgn")).unwrap_or_default();
    let log = std::fs::read_to_string(m.dir.join("xboard.debug")).unwrap_or_default();
    let games: Vec<&str> = pgn.split("[Event ").skip(1).collect();
    if games.len() != GAMES {
        problems.push(format!("{} games in the PGN, not {GAMES}", games.len()));
    }
    let bad_words = [
        "forfeit",
        "illegal",
        "invalid",
        "error",
        "exit",
        "crash",
        "time",
        "disconnect",
    ];
    for (i, game) in games.iter().enumerate() {
        let result = game
            .lines()
            .find_map(|l| l.strip_prefix("[Result \""))
            .map(|r| r.trim_end_matches("\"]"));
        if !matches!(result, Some("1-0" | "0-1" | "1/2-1/2")) {
            problems.push(format!("game {}: result {result:?}", i + 1));
        }
        // The comment just before the result says why the game ended.
        let why = game
            .rfind('{')
            .map(|at| &game[at..])
            .and_then(|t| t.split('}').next())
            .unwrap_or("");
        if bad_words
            .iter()
            .any(|w| why.to_ascii_lowercase().contains(w))
        {
            problems.push(format!("game {}: {why}}}", i + 1));
        }
    }
    // The engine reads back what the GUI saved.
    let checked = Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .args(["pgn", "check"])
        .arg(m.dir.join("match.pgn"))
        .output()
        .expect("pgn check runs");
    if !checked.status.success() {
        problems.push(format!(
            "pgn check: {}",
            String::from_utf8_lossy(&checked.stdout).trim()
        ));
    }
    for line in log.lines() {
        let engine_says = line.contains("<first :") || line.contains("<second:");
        let bad = (engine_says && (line.contains(": Illegal move") || line.contains(": Error")))
            || line.contains("Forfeit")
            || line.contains("exited unexpectedly")
            || line.contains("Error writing");
        if bad {
            problems.push(format!("log: {line}"));
        }
    }
    problems
}

#[test]
#[ignore = "needs xboard, xvfb-run and fairymax; run with --ignored"]
fn headless_xboard_matches() {
    let root = std::env::temp_dir().join(format!("amalgam-xboard-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("temp dir");
    let amalgam = format!("{} --xboard", env!("CARGO_BIN_EXE_amalgam"));
    let fairymax = fairymax_wrapper(&root);
    let no_gui_draws = ["-repeatsToDraw", "0", "-ruleMoves", "0"];
    let mut matches = Vec::new();
    let plans: [(&'static str, &str, Vec<&str>); 3] = [
        (
            "team-mate",
            "team-mate",
            vec!["-firstOptions", "PairPromotion=0", "-scp", &fairymax],
        ),
        (
            "combination",
            "combination",
            [["-scp", amalgam.as_str()].as_slice(), &no_gui_draws].concat(),
        ),
        ("compound", "compound", vec!["-scp", &amalgam]),
    ];
    for (name, variant, rest) in &plans {
        matches.push(start(name, &root, variant, &amalgam, rest));
        // xvfb-run -a picks a free display; started together, two could pick the same.
        std::thread::sleep(Duration::from_secs(2));
    }
    let mut report = Vec::new();
    for mut m in matches {
        let status = loop {
            if let Some(s) = m.child.try_wait().expect("wait") {
                break Some(s);
            }
            if m.started.elapsed() > MATCH_LIMIT {
                let _ = m.child.kill();
                let _ = m.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        let mut problems = check(&m);
        match status {
            None => problems.push(format!("no end after {MATCH_LIMIT:?}")),
            Some(s) if !s.success() => problems.push(format!("xboard ended with {s}")),
            Some(_) => {}
        }
        eprintln!(
            "{}: {:.0?}, {} problem(s)",
            m.name,
            m.started.elapsed(),
            problems.len()
        );
        for p in problems {
            report.push(format!("{} ({}): {p}", m.name, m.dir.display()));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
    let _ = std::fs::remove_dir_all(&root);
}
