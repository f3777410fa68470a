//! A UCI harness drives the engine: PolyGlot (the UCI-to-XBoard adapter)
//! runs `amalgam --uci` and is itself driven over XBoard commands through a
//! short orthodox game. Every move the engine sends is checked against the
//! legal moves. Needs `polyglot` installed, so it runs only when asked:
//! `cargo test --release --test polyglot -- --ignored`.

mod common;

use amalgam::{Position, VariantSet};
use common::program;
use common::session::Session;
use std::process::Command;

/// The first line that starts with `prefix` (earlier lines are skipped).
fn line(s: &mut Session, prefix: &str) -> String {
    s.until(prefix).pop().unwrap_or_default()
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
    let mut cmd = Command::new(program("polyglot"));
    cmd.arg(&ini).current_dir(&dir);
    let mut s = Session::spawn(cmd, "polyglot");

    s.send("xboard");
    s.send("protover 2");
    line(&mut s, "feature done=1");
    s.send("new");
    s.send("sd 3");
    s.send("ping 1");
    assert_eq!(line(&mut s, "pong"), "pong 1");

    let v = VariantSet::builtin().compile("chess").expect("chess");
    let mut pos = Position::startpos(v);
    s.send("go");
    for ply in 0..10 {
        // The engine's move (White), checked against the legal moves.
        let reply_line = line(&mut s, "move ");
        let text = reply_line.trim_start_matches("move ").trim();
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
        s.send(&format!("usermove {text}"));
    }
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(pos.ply_count() >= 10, "game too short: {}", pos.to_fen());
}
