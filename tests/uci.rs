//! UCI transcripts against the real binary: handshake, variant switch,
//! positions with moves, searches with each kind of limit, `stop` and
//! `isready` while searching, malformed lines.

mod common;

use common::session::Session;
use std::path::PathBuf;
use std::time::Duration;

#[test]
fn handshake_lists_options_and_variants() {
    let mut s = Session::start();
    s.send("uci");
    let lines = s.until("uciok");
    assert!(lines[0].starts_with("id name Amalgam"));
    let variant = lines
        .iter()
        .find(|l| l.contains("name UCI_Variant"))
        .expect("UCI_Variant option");
    for v in ["chess", "combination", "team-mate", "compound"] {
        assert!(variant.contains(&format!("var {v}")), "{variant}");
    }
    for o in [
        "Hash",
        "Threads",
        "MultiPV",
        "Ponder",
        "Move Overhead",
        "VariantPath",
    ] {
        assert!(
            lines.iter().any(|l| l.contains(&format!("name {o} type"))),
            "option {o}"
        );
    }
    s.send("isready");
    assert_eq!(
        s.until("readyok").last().map(String::as_str),
        Some("readyok")
    );
}

#[test]
fn every_variant_searches_after_moves() {
    let mut s = Session::start();
    s.send("uci");
    s.until("uciok");
    let cases = [
        ("chess", "e2e4 e7e5"),
        ("combination", "a1b1 h8g8"),
        ("team-mate", "e2e4 e7e5"),
        ("compound", "b2b4 i7i5"),
    ];
    for (v, moves) in cases {
        s.send(&format!("setoption name UCI_Variant value {v}"));
        s.send(&format!("position startpos moves {moves}"));
        s.send("go depth 4");
        let lines = s.until("bestmove");
        assert!(
            lines.iter().any(|l| l.starts_with("info depth 4 ")),
            "{v}: {lines:?}"
        );
        assert!(!lines.iter().any(|l| l.contains("error")), "{v}: {lines:?}");
        let best = lines.last().expect("bestmove");
        assert!(
            best.split_whitespace().nth(1).is_some_and(|m| m.len() >= 4),
            "{v}: {best}"
        );
        // Every other kind of limit, each ending in a legal-looking move.
        for go in [
            "go nodes 2000",
            "go movetime 100",
            "go wtime 3000 btime 3000 winc 30 binc 30",
            "go wtime 1000 btime 1000 movestogo 5",
        ] {
            s.send(go);
            let lines = s.until("bestmove");
            let best = lines.last().expect("bestmove");
            assert!(
                !lines.iter().any(|l| l.contains("error"))
                    && best.split_whitespace().nth(1).is_some_and(|m| m.len() >= 4),
                "{v}: {go}: {lines:?}"
            );
        }
        s.send("go infinite");
        std::thread::sleep(std::time::Duration::from_millis(50));
        s.send("stop");
        let best = s.until("bestmove").pop().expect("bestmove");
        assert!(
            best.split_whitespace().nth(1).is_some_and(|m| m.len() >= 4),
            "{v}: infinite: {best}"
        );
    }
}

#[test]
fn limits_stop_and_isready_while_thinking() {
    let mut s = Session::start();
    s.send("uci");
    s.until("uciok");
    s.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    s.send("go nodes 3000");
    s.until("bestmove");
    s.send("go movetime 200");
    s.until("bestmove");
    s.send("go wtime 2000 btime 2000 winc 20 binc 20 movestogo 10");
    s.until("bestmove");
    s.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    s.send("isready");
    let lines = s.until("readyok");
    assert!(
        !lines.iter().any(|l| l.starts_with("bestmove")),
        "infinite search ended early"
    );
    s.send("stop");
    s.until("bestmove");
    s.send("go depth 3 searchmoves a2a3 b2b3");
    let best = s.until("bestmove").pop().expect("line");
    assert!(
        best.starts_with("bestmove a2a3") || best.starts_with("bestmove b2b3"),
        "{best}"
    );
}

#[test]
fn a_variant_file_with_any_error_is_refused_whole() {
    let dir = std::env::temp_dir().join(format!("amalgam-uci-ini-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // A good new variant beside a chess whose queen does not parse: loading
    // half of it would leave chess unplayable.
    let bad = dir.join("bad.ini");
    std::fs::write(
        &bad,
        "[mine:chess]\nknight = n:NW\n\n[chess]\nqueen = q:QQQ(\n",
    )
    .expect("write");
    // Redefining chess breaks the variants that inherit from it.
    let bad_parent = dir.join("bad_parent.ini");
    std::fs::write(&bad_parent, "[chess]\nmaxFile = z\n").expect("write");
    let good = dir.join("good.ini");
    std::fs::write(&good, "[mine:chess]\nknight = n:NW\n").expect("write");

    let mut s = Session::start();
    s.send("uci");
    s.until("uciok");
    for file in [&bad, &bad_parent] {
        s.send(&format!(
            "setoption name VariantPath value {}",
            file.display()
        ));
        s.send("isready");
        let lines = s.until("readyok");
        assert!(
            lines.len() == 2
                && lines[0].starts_with("info string error: ")
                && lines[0].ends_with("file not loaded)"),
            "{lines:?}"
        );
        s.send("setoption name UCI_Variant value mine");
        s.send("isready");
        let lines = s.until("readyok");
        assert_eq!(lines[0], "info string error: unknown variant 'mine'");
    }
    // Chess and its children are as they were: the queen still moves.
    s.send("setoption name UCI_Variant value team-mate");
    s.send("setoption name UCI_Variant value chess");
    s.send("position startpos moves e2e4 e7e5");
    s.send("go depth 1 searchmoves d1h5");
    assert_eq!(s.until("bestmove").pop().as_deref(), Some("bestmove d1h5"));

    s.send(&format!(
        "setoption name VariantPath value {}",
        good.display()
    ));
    s.send("setoption name UCI_Variant value mine");
    s.send("position startpos moves g1f3 b8c6");
    // The new knight also steps like a wazir.
    s.send("go depth 1 searchmoves f3f4");
    let lines = s.until("bestmove");
    assert_eq!(lines[0], "info string loaded mine");
    assert_eq!(lines.last().map(String::as_str), Some("bestmove f3f4"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_lines_get_info_strings_and_change_nothing() {
    let mut s = Session::start();
    s.send("uci");
    s.until("uciok");
    for (bad, answer) in [
        ("position startpos moves e2e5", "illegal move: e2e5"),
        (
            "position fen 8/8/8 w - - 0 1",
            "bad FEN: board has 3 ranks, the variant has 8",
        ),
        ("position", "position needs 'startpos' or 'fen FEN'"),
        ("position startpos moves e2e4 zz", "malformed move: zz"),
        ("go depth lots", "go depth: needs a number"),
        ("go wtime", "go wtime: needs a number"),
        ("go sideways", "go: unknown parameter 'sideways'"),
        ("setoption name Hash value many", "Hash: bad value 'many'"),
        (
            "setoption name UCI_Variant value shogi",
            "unknown variant 'shogi'",
        ),
        (
            "setoption name Nonsense value 1",
            "unknown option 'nonsense'",
        ),
        ("flibbertigibbet", "unknown command: flibbertigibbet"),
    ] {
        s.send(bad);
        s.send("isready");
        let lines = s.until("readyok");
        assert_eq!(
            lines,
            [
                format!("info string error: {answer}"),
                "readyok".to_string()
            ],
            "{bad}"
        );
    }
    // The position is still the start position of chess.
    s.send("go depth 1 searchmoves e2e4");
    assert_eq!(s.until("bestmove").pop().as_deref(), Some("bestmove e2e4"));
}

#[test]
fn pair_promotion_option_switches_the_brute_pair() {
    let mut s = Session::start();
    s.send("uci");
    let lines = s.until("uciok");
    assert!(
        lines
            .iter()
            .any(|l| l == "option name PairPromotion type check default true"),
        "{lines:?}"
    );
    s.send("setoption name UCI_Variant value team-mate");
    let fen = "position fen 4k3/P7/8/8/8/8/8/4K3 w - - 0 1 moves a7a8b";
    // On (the default): the pair promotion is a legal move.
    s.send(fen);
    s.send("isready");
    let lines = s.until("readyok");
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    // Off: the same move is refused, a single-piece promotion is not.
    s.send("setoption name PairPromotion value false");
    s.send(fen);
    s.send("isready");
    let lines = s.until("readyok");
    assert!(
        lines.iter().any(|l| l.starts_with("info string error")),
        "{lines:?}"
    );
    s.send("position fen 4k3/P7/8/8/8/8/8/4K3 w - - 0 1 moves a7a8u");
    s.send("setoption name PairPromotion value maybe");
    s.send("isready");
    let lines = s.until("readyok");
    assert_eq!(
        lines.iter().filter(|l| l.contains("error")).count(),
        1,
        "{lines:?}"
    );
    s.send("go depth 3");
    let best = s.until("bestmove");
    assert!(best.last().is_some_and(|b| b.starts_with("bestmove ")));
}

#[test]
fn commands_during_an_infinite_search_wait_and_never_hang() {
    let mut s = Session::start();
    s.send("uci");
    s.until("uciok");
    // `go` and `position` while `go infinite` runs wait their turn; `stop`
    // still reaches the running search and the one the queued `go` starts.
    s.send("go infinite");
    s.send("go infinite");
    s.send("position startpos moves e2e4");
    s.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    s.send("stop");
    s.send("isready");
    let lines = s.until("readyok");
    let bests = lines.iter().filter(|l| l.starts_with("bestmove")).count();
    assert!(bests >= 2, "{lines:?}");
    // The last search ran after e2e4: its move is Black's.
    s.send("stop");
    s.send("go depth 2");
    let best = s.until("bestmove").pop().expect("line");
    assert!(
        best.contains('7') || best.contains('8') || best.contains('6'),
        "{best}"
    );
}

/// Lines the parser reads as `ucinewgame` or `setoption` in another form
/// (upper case, a control character after the word) wait for a running
/// search like their plain forms, so that a later `stop` still ends it.
#[test]
fn loose_forms_of_engine_commands_wait_for_the_search_too() {
    for line in [
        "UCINEWGAME",
        "ucinewgame\u{1}",
        "SetOption name Hash value 8",
    ] {
        let mut s = Session::start();
        s.send("uci");
        s.until("uciok");
        s.send("go infinite");
        s.send(line);
        std::thread::sleep(Duration::from_millis(50));
        s.send("stop");
        s.send("isready");
        // Info lines keep coming from a search that is never stopped, so
        // the answer is waited for by time.
        let seen = s.lines_for(Duration::from_secs(2));
        let tail = &seen[seen.len().saturating_sub(3)..];
        assert!(
            seen.iter().any(|l| l == "readyok"),
            "{line:?}: no readyok; got {tail:?}"
        );
        assert!(seen.iter().any(|l| l.starts_with("bestmove")), "{line:?}");
    }
}

/// Fairy-Stockfish's conventions: `load FILE`, and the `info string variant`
/// line after `UCI_Variant` for a variant GUIs do not know.
#[test]
fn fairy_stockfish_conventions() {
    let dir = std::env::temp_dir().join(format!("amalgam-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let good = dir.join("good.ini");
    std::fs::write(&good, "[mine:compound]\nnMoveRule = 40\n").expect("write");
    let mut s = Session::start();
    s.send("uci");
    s.until("uciok");
    s.send("setoption name UCI_Variant value compound");
    s.send("isready");
    let lines = s.until("readyok");
    assert_eq!(
        lines[0],
        "info string variant compound files 10 ranks 8 pocket 0 template spartan \
         startpos rdcbqkbcdr/ssssssssss/10/10/10/10/SSSSSSSSSS/RDCBQKBCDR w KQkq - 0 1"
    );
    // Chess needs no description.
    s.send("setoption name UCI_Variant value chess");
    s.send("isready");
    assert_eq!(s.until("readyok"), ["readyok"]);
    for (bad, answer) in [
        ("load", "info string error: load needs a file"),
        ("load    ", "info string error: load needs a file"),
    ] {
        s.send(bad);
        s.send("isready");
        assert_eq!(s.until("readyok")[0], answer);
    }
    s.send("load /no/such/file.ini");
    s.send("isready");
    assert!(s.until("readyok")[0].starts_with("info string error: "));
    s.send(&format!("load {}", good.display()));
    s.send("setoption name UCI_Variant value mine");
    s.send("isready");
    let lines = s.until("readyok");
    assert_eq!(lines[0], "info string loaded mine");
    assert!(
        lines[1]
            .starts_with("info string variant mine files 10 ranks 8 pocket 0 template spartan "),
        "{lines:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fresh folder `amalgam-env-NAME-PID` with these variant files (names
/// and texts) written in it; the folder and the files' paths.
fn env_files(name: &str, files: &[(&str, &str)]) -> (PathBuf, Vec<PathBuf>) {
    let dir = std::env::temp_dir().join(format!("amalgam-env-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let paths = files
        .iter()
        .map(|(file, text)| {
            let path = dir.join(file);
            std::fs::write(&path, text).expect("write");
            path
        })
        .collect();
    (dir, paths)
}

/// Variant files named in `AMALGAM_VARIANT_PATH` are loaded at start-up; a
/// bad one is an error naming the variable, which ends a command.
#[test]
fn variant_files_from_the_environment() {
    let (dir, files) = env_files(
        "command",
        &[
            ("good.ini", "[mine:chess]\nknight = n:NW\n"),
            ("other.ini", "[yours:chess]\n"),
            ("bad.ini", "[chess]\nqueen = q:QQQ(\n"),
        ],
    );
    let run = |path: std::ffi::OsString| {
        std::process::Command::new(env!("CARGO_BIN_EXE_amalgam"))
            .env("AMALGAM_VARIANT_PATH", path)
            .arg("variants")
            .output()
            .expect("amalgam runs")
    };
    let both = std::env::join_paths(&files[..2]).expect("paths");
    let out = run(both);
    assert!(out.status.success());
    let names = String::from_utf8_lossy(&out.stdout);
    assert!(names.lines().any(|l| l == "mine") && names.lines().any(|l| l == "yours"));
    let out = run(files[2].clone().into_os_string());
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("AMALGAM_VARIANT_PATH: "));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Files for the `bad_environment_files` tests: a good one, then a bad ini,
/// one whose net is no net, and one that is missing; the folder and the
/// variable's value.
fn environment_files(name: &str) -> (PathBuf, std::ffi::OsString) {
    let (dir, mut files) = env_files(
        name,
        &[
            ("good.ini", "[mine:chess]\nknight = n:NW\n"),
            ("bad.ini", "[yours:chess]\nqueen = q:QQQ(\n"),
            ("bad-net.ini", "[theirs:chess]\nnnue = bad.nnue\n"),
            ("bad.nnue", "value.q = 1 1\n"),
        ],
    );
    files.pop();
    files.push(dir.join("missing.ini"));
    let path = std::env::join_paths(&files).expect("paths");
    (dir, path)
}

/// A session of the binary with `AMALGAM_VARIANT_PATH` set.
fn session_with_path(path: &std::ffi::OsStr) -> Session {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_amalgam"));
    cmd.env("AMALGAM_VARIANT_PATH", path);
    Session::spawn(cmd, "engine")
}

/// In the protocol loop a file of `AMALGAM_VARIANT_PATH` that does not load
/// is reported through the protocol after the first command, and the engine
/// goes on with the files that did.
#[test]
fn bad_environment_files_are_reported_after_uciok() {
    let (dir, path) = environment_files("uci");
    let mut s = session_with_path(&path);
    s.send("uci");
    let handshake = s.until("uciok");
    assert!(
        handshake.iter().any(|l| l.contains("var mine"))
            && !handshake
                .iter()
                .any(|l| l.contains("var yours") || l.contains("var theirs")),
        "{handshake:?}"
    );
    s.send("isready");
    let lines = s.until("readyok");
    let errors: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string error: AMALGAM_VARIANT_PATH: "))
        .collect();
    assert_eq!(errors.len(), 3, "{lines:?}");
    for (error, file) in errors.iter().zip(["bad.ini", "bad.nnue", "missing.ini"]) {
        assert!(error.contains(file), "{file}: {lines:?}");
    }
    assert_eq!(lines.len(), 4, "{lines:?}");
    // Reported once; the variant that loaded plays.
    for line in [
        "setoption name UCI_Variant value mine",
        "position startpos moves e2e4",
        "isready",
    ] {
        s.send(line);
    }
    assert_eq!(s.until("readyok"), ["readyok"]);
    s.send("go depth 1");
    let lines = s.until("bestmove");
    assert!(
        lines.last().is_some_and(|l| l != "bestmove 0000") && !lines[0].contains("error"),
        "{lines:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_environment_files_are_reported_after_the_xboard_features() {
    let (dir, path) = environment_files("xboard");
    let mut s = session_with_path(&path);
    s.send("xboard");
    s.send("protover 2");
    let features = s.until("feature done=1");
    assert!(
        !features
            .iter()
            .any(|l| l.starts_with("Error") || l.starts_with('#')),
        "{features:?}"
    );
    let lines = s.sync();
    assert_eq!(lines.len(), 6, "{lines:?}");
    for (pair, file) in lines.chunks(2).zip(["bad.ini", "bad.nnue", "missing.ini"]) {
        assert_eq!(
            pair[0],
            "Error (variant file not loaded): AMALGAM_VARIANT_PATH"
        );
        assert!(
            pair[1].starts_with("# AMALGAM_VARIANT_PATH: ") && pair[1].contains(file),
            "{file}: {lines:?}"
        );
    }
    // Reported once; the engine plays on.
    s.send("new");
    s.send("sd 1");
    s.send("usermove e2e4");
    let lines = s.until("move ");
    assert!(!lines.iter().any(|l| l.starts_with("Error")), "{lines:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `VariantPath` empty, or the `<empty>` the option advertises as its
/// default, loads nothing and is no error (as in XBoard).
#[test]
fn an_empty_variant_path_loads_nothing() {
    let mut s = Session::start();
    s.send("uci");
    let handshake = s.until("uciok");
    assert!(handshake.contains(&"option name VariantPath type string default <empty>".to_string()));
    for line in [
        "setoption name VariantPath value <empty>",
        "setoption name VariantPath value",
        "setoption name VariantPath",
    ] {
        s.send(line);
        s.send("isready");
        assert_eq!(s.until("readyok"), ["readyok"], "{line}");
    }
    s.send("load");
    s.send("isready");
    assert!(s.until("readyok")[0].starts_with("info string error: load needs a file"));
}
