//! A UCI harness drives the engine: PolyGlot (the UCI-to-XBoard adapter)
//! runs `amalgam --uci` and is itself driven over XBoard commands through a
//! short orthodox game. Every move the engine sends is checked against the
//! legal moves. Needs `polyglot` installed, so it runs only when asked:
//! `cargo test --release --test polyglot -- --ignored`.

use amalgam::{Position, VariantSet};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

/// A program on PATH or in /usr/games (where Debian puts polyglot).
fn program(name: &str) -> PathBuf {
    let path = std::env::var("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/games")])
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} is not installed"))
}

#[test]
#[ignore = "needs polyglot; run by .ci/run"]
fn polyglot_drives_an_orthodox_game_over_uci() {
    let dir = std::env::temp_dir().join(format!("amalgam-polyglot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ini = dir.join("amalgam.ini");
    std::fs::write(
        &ini,
        format!(
            "[PolyGlot]\nEngineCommand = {} --uci\nEngineDir = {}\nLog = false\n[Engine]\nHash = 16\n",
            env!("CARGO_BIN_EXE_amalgam"),
            dir.display()
        ),
    )
    .expect("ini written");
    let mut child = Command::new(program("polyglot"))
        .arg(&ini)
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("polyglot starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut send = |line: &str| {
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
    };
    let until = |prefix: &str| -> String {
        loop {
            let line = rx
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no '{prefix}' line from polyglot"));
            if line.starts_with(prefix) {
                return line;
            }
        }
    };

    send("xboard");
    send("protover 2");
    until("feature done=1");
    send("new");
    send("sd 3");
    send("ping 1");
    assert_eq!(until("pong"), "pong 1");

    let v = VariantSet::builtin().compile("chess").expect("chess");
    let mut pos = Position::startpos(v);
    send("go");
    for ply in 0..10 {
        // The engine's move (White), checked against the legal moves.
        let line = until("move ");
        let text = line.trim_start_matches("move ").trim();
        let mv = pos
            .parse_move(text)
            .unwrap_or_else(|e| panic!("ply {ply}: engine move {text}: {e}"));
        assert!(pos.legal_moves().contains(&mv), "ply {ply}: {text}");
        pos.make(mv);
        // Our reply (Black): the first legal move.
        let Some(&reply) = pos.legal_moves().first() else {
            break;
        };
        let text = pos.move_text(reply);
        pos.make(reply);
        send(&format!("usermove {text}"));
    }
    send("quit");
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(pos.ply_count() >= 10, "game too short: {}", pos.to_fen());
}
