//! Self-play games end by a rule with legal moves only, and their PGN reads
//! back move by move.

use amalgam::engine::search::Limits;
use amalgam::rules::game::outcome;
use amalgam::{Position, VariantSet};

#[test]
fn selfplay_games_end_by_rule_and_pgn_reads_back() {
    let set = VariantSet::builtin();
    for variant in ["chess", "combination", "team-mate", "compound"] {
        let (v, eval) = amalgam::engine::eval::compile(&set, variant).expect("variant");
        let limits = Limits {
            nodes: Some(300),
            ..Default::default()
        };
        let (records, summary) = amalgam::tools::selfplay::run(&v, &eval, 4, &limits, 11);
        assert!(summary.errors.is_empty(), "{variant}: {:?}", summary.errors);
        assert_eq!(summary.unterminated, 0, "{variant}");
        assert_eq!(records.len(), 4);
        for r in &records {
            let pgn = amalgam::tools::pgn::write_record(r, v.clone()).expect("pgn");
            assert!(pgn.contains(&format!("[Variant \"{variant}\"]")));
            assert!(pgn.contains("[Termination "));
            // Replay the SAN of the move text.
            let mut pos = Position::from_fen(v.clone(), &r.start_fen).expect("fen");
            let body: String = pgn
                .lines()
                .filter(|l| !l.starts_with('['))
                .collect::<Vec<_>>()
                .join(" ");
            let mut played = 0;
            for token in body.split_whitespace() {
                if token.ends_with('.')
                    || token.contains("...")
                    || ["1-0", "0-1", "1/2-1/2", "*"].contains(&token)
                {
                    continue;
                }
                let m = pos
                    .parse_san(token)
                    .unwrap_or_else(|e| panic!("{variant}: {token}: {e}"));
                assert_eq!(m, r.moves[played], "{variant}: {token}");
                pos.make(m);
                played += 1;
            }
            assert_eq!(played, r.moves.len());
            assert_eq!(outcome(&mut pos), r.result, "{variant}: final position");
        }
    }
}

/// A game count too large to keep a record of each is refused, not a panic.
#[test]
fn a_huge_game_count_is_refused() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .args([
            "selfplay",
            "chess",
            "--games",
            "18446744073709551615",
            "--nodes",
            "1",
        ])
        .output()
        .expect("run amalgam");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("for '--games <N>'") && err.contains("is not in 0..="),
        "{err}"
    );
}
