//! Strength levels (`UCI_LimitStrength`, `UCI_Elo`): a lower level
//! searches fewer nodes, a seed repeats a level's choice, the protocols
//! offer and take the options and refuse bad values without ending the
//! session, `go --elo` and the match runner play levels.

mod common;

use amalgam::engine::Engine;
use amalgam::engine::search::Limits;
use common::run_amalgam_with_errors;
use common::session::Session;
use std::path::PathBuf;

/// Middle-game and opening positions of chess and of the other variants.
const POSITIONS: [(&str, &str); 5] = [
    (
        "chess",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ),
    (
        "chess",
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    ),
    (
        "chess",
        "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 10",
    ),
    (
        "chess",
        "2r2rk1/1b2bppp/p3pn2/1p6/3N4/1BN1P3/PP3PPP/2R2RK1 b - - 0 16",
    ),
    ("team-mate", "startpos"),
];

/// The move and node count of a search of `fen` by a fresh engine: at
/// level `elo` with `seed`, or at full strength to `nodes`.
fn search(variant: &str, fen: &str, level: Option<(u32, u64)>, nodes: u64) -> (String, u64) {
    let mut e = Engine::new();
    e.set_variant(variant).expect("variant");
    let fen = (fen != "startpos").then_some(fen);
    e.set_position(fen, &[]).expect("position");
    if let Some((elo, seed)) = level {
        e.set_elo(elo).expect("elo in range");
        e.set_limit_strength(true);
        e.set_strength_seed(seed);
    }
    let limits = Limits {
        nodes: Some(nodes),
        ..Default::default()
    };
    let pos = e.position().clone();
    let r = e.go(&limits, &[], &mut |_| {});
    let best = r.best.map(|m| pos.move_text(m)).expect("a move");
    (best, r.nodes)
}

/// Each lower level searches fewer nodes, over several positions; the
/// highest level no more than the full engine given the same node limit.
#[test]
fn a_lower_level_searches_fewer_nodes() {
    let total = |level: Option<(u32, u64)>| -> u64 {
        POSITIONS
            .iter()
            .map(|(v, fen)| search(v, fen, level, 2_000_000).1)
            .sum()
    };
    let levels: Vec<u64> = [800, 1400, 2000, 2600]
        .iter()
        .map(|&elo| total(Some((elo, 1))))
        .collect();
    assert!(levels.windows(2).all(|w| w[0] < w[1]), "{levels:?}");
    // The lowest level: a few hundred nodes a move.
    assert!(levels[0] < 2_000 * POSITIONS.len() as u64, "{levels:?}");
}

/// The user's own node limit still applies when it is lower than the
/// level's.
#[test]
fn the_users_lower_limit_still_applies() {
    let (v, fen) = POSITIONS[2];
    let (_, at_level) = search(v, fen, Some((2600, 1)), 2_000_000);
    let (_, lowered) = search(v, fen, Some((2600, 1)), 3_000);
    assert!(lowered < at_level / 10, "{lowered} vs {at_level}");
}

/// A seed repeats a level's choice, position by position; the choices of
/// some seeds differ from the full engine's move, and from each other's in
/// the same position (the search is the same: only the choice differs).
#[test]
fn a_seed_repeats_a_levels_choice() {
    let (mut differs, mut chosen_apart) = (0, 0);
    for (v, fen) in POSITIONS {
        let (full, _) = search(v, fen, None, 200_000);
        let mut moves: Vec<String> = Vec::new();
        for seed in 1..=4 {
            let (first, _) = search(v, fen, Some((800, seed)), 1_000_000);
            let (again, _) = search(v, fen, Some((800, seed)), 1_000_000);
            assert_eq!(first, again, "{v} {fen} seed {seed}");
            differs += usize::from(first != full);
            moves.push(first);
        }
        moves.sort();
        moves.dedup();
        chosen_apart += usize::from(moves.len() > 1);
    }
    assert!(
        differs >= 3,
        "only {differs} choices differ from the full engine's"
    );
    assert!(
        chosen_apart >= 2,
        "seeds chose apart in {chosen_apart} positions"
    );
}

/// The range of `UCI_Elo`, as its refusals name it.
const RANGE: &str = "(800 to 2600)";

#[test]
fn uci_offers_the_options_and_refuses_bad_values() {
    let mut s = Session::start();
    s.send("uci");
    let lines = s.until("uciok");
    for option in [
        "option name UCI_LimitStrength type check default false",
        "option name UCI_Elo type spin default 1500 min 800 max 2600",
    ] {
        assert!(lines.iter().any(|l| l == option), "{option}: {lines:?}");
    }
    for (name, value, allowed) in [
        ("UCI_Elo", "5000", RANGE),
        ("UCI_Elo", "799", RANGE),
        ("UCI_Elo", "strong", RANGE),
        ("UCI_LimitStrength", "maybe", "(true or false)"),
    ] {
        s.send(&format!("setoption name {name} value {value}"));
        s.send("isready");
        let error = format!("info string error: {name}: bad value '{value}' {allowed}");
        assert_eq!(s.until("readyok"), [error.as_str(), "readyok"]);
    }
    // The session goes on, at the level asked for: a search of a few
    // hundred nodes.
    s.send("setoption name UCI_LimitStrength value true");
    s.send("setoption name UCI_Elo value 800");
    s.send("position startpos");
    s.send("go movetime 5000");
    let lines = s.until("bestmove");
    let nodes = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .map(|l| common::number_after(l, " nodes "))
        .fold(0.0, f64::max);
    assert!(nodes > 0.0 && nodes < 2_000.0, "{lines:?}");
}

/// The XBoard feature list holds the strength options with these values.
fn assert_features(s: &mut Session, on: u8, elo: u32) {
    s.send("protover 2");
    let lines = s.until("feature done=1");
    for feature in [
        format!("feature option=\"UCI_LimitStrength -check {on}\""),
        format!("feature option=\"UCI_Elo -spin {elo} 800 2600\""),
    ] {
        assert!(lines.contains(&feature), "{feature}: {lines:?}");
    }
}

#[test]
fn xboard_offers_the_options_and_refuses_bad_values() {
    let mut s = Session::start();
    s.send("xboard");
    assert_features(&mut s, 0, 1500);
    for (option, why) in [
        ("UCI_Elo=2601", format!("UCI_Elo: bad value '2601' {RANGE}")),
        ("UCI_Elo=weak", format!("UCI_Elo: bad value 'weak' {RANGE}")),
        ("UCI_LimitStrength=2", "UCI_LimitStrength is 0 or 1".into()),
    ] {
        s.send(&format!("option {option}"));
        assert_eq!(s.sync(), [format!("Error ({why}): option {option}")]);
    }
    // Taken: the feature list shows the new values, and the engine plays.
    for line in ["option UCI_LimitStrength=1", "option UCI_Elo=900"] {
        s.send(line);
        assert!(s.sync().is_empty(), "{line}");
    }
    assert_features(&mut s, 1, 900);
    // The level's search: thinking lines (ply, score, time, nodes, pv) of
    // a few thousand nodes at most.
    for line in ["new", "post", "go"] {
        s.send(line);
    }
    let thinking = s.until("move ");
    let nodes: Vec<u64> = thinking
        .iter()
        .filter_map(|l| l.split_whitespace().nth(3)?.parse().ok())
        .collect();
    assert!(
        !nodes.is_empty() && nodes.iter().all(|&n| n < 5_000),
        "{thinking:?}"
    );
}

/// The node count of the last line `amalgam go` prints before its move.
fn go_nodes(args: &[&str]) -> (String, f64) {
    let (ok, out, err) = run_amalgam_with_errors(args);
    assert!(ok, "{args:?}: {err}");
    let lines: Vec<&str> = out.lines().collect();
    let info = lines.iter().rev().find(|l| l.starts_with("info depth"));
    let best = lines.last().copied().unwrap_or_default().to_string();
    (
        best,
        info.map_or(0.0, |l| common::number_after(l, " nodes ")),
    )
}

#[test]
fn go_plays_a_level_with_elo_and_seed() {
    let fen = POSITIONS[2].1;
    let run = |elo: &str, seed: &str| {
        go_nodes(&[
            "go", "chess", fen, "--nodes", "1000000", "--elo", elo, "--seed", seed,
        ])
    };
    let (weak, weak_nodes) = run("900", "5");
    let (strong, strong_nodes) = run("2400", "5");
    assert!(weak.starts_with("bestmove ") && strong.starts_with("bestmove "));
    assert!(weak_nodes < strong_nodes, "{weak_nodes} vs {strong_nodes}");
    assert_eq!(run("900", "5").0, weak);
    let (ok, _, err) = run_amalgam_with_errors(&["go", "chess", "startpos", "--elo", "3000"]);
    assert!(!ok && err.contains("(800 to 2600)"), "{err}");
}

/// The match runner sets a level through the engines' options, over UCI
/// and XBoard, and refuses a level out of range.
#[test]
fn a_match_plays_levels_through_the_options() {
    let amalgam = env!("CARGO_BIN_EXE_amalgam");
    let pgn = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("strength-match.pgn");
    let run = |uci_elo: &str| {
        let _ = std::fs::remove_file(&pgn);
        let args: Vec<String> = [
            "match",
            "--engine",
            "name=Low",
            &format!("cmd={amalgam} --uci"),
            "proto=uci",
            "option.UCI_LimitStrength=true",
            &format!("option.UCI_Elo={uci_elo}"),
            "--engine",
            "name=Higher",
            &format!("cmd={amalgam} --xboard"),
            "proto=xboard",
            "option.UCI_LimitStrength=1",
            "option.UCI_Elo=1100",
            "--variant",
            "chess",
            "--games",
            "2",
            "--tc",
            "5+0.1",
            "--pgn",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([pgn.display().to_string()])
        .collect();
        run_amalgam_with_errors(&args)
    };
    let (ok, out, err) = run("800");
    assert!(ok, "{out}{err}");
    let games = std::fs::read_to_string(&pgn).unwrap_or_default();
    assert_eq!(games.matches("[Result ").count(), 2, "{games}");
    let (ok, _, err) = run("9000");
    assert!(
        !ok && err.contains("rejected option 'UCI_Elo' = '9000'"),
        "{err}"
    );
}
