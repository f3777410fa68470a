//! XBoard transcripts against the real binary: handshake, variant set-up
//! lines, moves in the GUI's forms, searches under each kind of clock, `ping`
//! during a search, take-backs, analysis, result claims and malformed lines.

mod common;

use common::session::Session;

/// A session past the handshake.
fn xboard() -> Session {
    let mut s = Session::start();
    s.send("xboard");
    s.send("protover 2");
    s.until("feature done=1");
    s
}

/// Lines that report an error or refuse a move.
fn complaints(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.starts_with("Error") || l.starts_with("Illegal move"))
        .collect()
}

/// Play moves in force mode; none may be refused.
fn play(s: &mut Session, moves: &[&str]) {
    for m in moves {
        s.send(&format!("usermove {m}"));
    }
    let lines = s.sync();
    assert!(complaints(&lines).is_empty(), "{moves:?}: {lines:?}");
}

/// The answer to one line.
fn reply(s: &mut Session, line: &str) -> Vec<String> {
    s.send(line);
    s.sync()
}

#[test]
fn handshake_lists_features_and_options() {
    for start in [&[][..], &["--xboard"][..]] {
        let mut s = Session::start_with(start);
        if start.is_empty() {
            s.send("xboard");
        }
        s.send("protover 2");
        let lines = s.until("feature done=1");
        assert!(
            lines[0].starts_with("feature myname=\"Amalgam "),
            "{lines:?}"
        );
        for f in [
            "variants=\"normal,combination,team-mate,compound\"",
            "setboard=1 ping=1 usermove=1 playother=1 colors=0 sigint=0 sigterm=0 time=1 draw=1 reuse=1 analyze=1 san=0 debug=1 memory=1 smp=1",
        ] {
            assert!(lines[0].contains(f), "{f} in {}", lines[0]);
        }
        assert!(lines.contains(&"feature option=\"PairPromotion -check 1\"".to_string()));
        assert!(complaints(&lines).is_empty());
    }
}

/// `SplitCommand`'s label, all that the GUI shows of the option, says
/// which XBoard it needs (XBoard 4.9.1 forfeits games with it on); the GUI
/// sends the label back as the option's name, and the short name is still
/// taken.
#[test]
fn the_split_option_says_which_xboard_it_needs() {
    let label = "SplitCommand (XBoard v4.9.x (2025-11-28) or later only)";
    let feature = |on: bool| format!("feature option=\"{label} -check {}\"", u8::from(on));
    let mut s = Session::start();
    s.send("xboard");
    s.send("protover 2");
    assert!(s.until("feature done=1").contains(&feature(false)));
    assert_eq!(
        reply(&mut s, "option SplitCommand=2"),
        ["Error (SplitCommand is 0 or 1): option SplitCommand=2"]
    );
    // On in the GUI's form, off by the short name: the next `setup` has the
    // `split` table or not.
    for (name, on) in [(label, true), ("SplitCommand", false)] {
        assert!(reply(&mut s, &format!("option {name}={}", u8::from(on))).is_empty());
        let setup = reply(&mut s, "variant combination");
        let split = setup.iter().any(|l| l.starts_with("split "));
        assert_eq!(split, on, "{name}: {setup:?}");
        s.send("protover 2");
        assert!(s.until("feature done=1").contains(&feature(on)), "{name}");
    }
}

/// An empty `VariantPath` loads nothing and is no error.
#[test]
fn an_empty_variant_path_loads_nothing() {
    let mut s = xboard();
    for line in ["option VariantPath=", "option VariantPath"] {
        assert_eq!(reply(&mut s, line), Vec::<String>::new(), "{line}");
    }
}

const COMBINATION: &str = "setup (PNBRQ..AM....CDEH....L........FG...WKpnbrq..am....cdeh....l........fg...wk) 8x8+0_seirawan rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
piece Q& K
piece A& NB
piece M& NR
piece H& NK
piece E& BR
piece C& BK
piece D& RK
piece L& NBK
piece F& NBR
piece G& NRK
piece W& BRK";

const TEAM_MATE: &str = "setup (.N....EF...M.A.J..PCU.....BK.n....ef...m.a.j..pcu.....bk) 8x8+0_seirawan ufeakmnc/pppppppp/8/8/8/8/PPPPPPPP/UFEAKMNC w KQkq - 0 1
piece E& FA
piece F& WA
piece M& AG
piece U& WN
piece C& NmpafsafF
piece A& WyafsW
piece K& KisO2
piece J& BD0
piece B& mFmbW
piece P& fmWfcFifmnD";

const COMPOUND: &str = "setup (..BRQ...........C.S...........DK..brq...........c.s...........dk) 10x8+0_spartan rdcbqkbcdr/ssssssssss/10/10/10/10/SSSSSSSSSS/RDCBQKBCDR w KQkq - 0 1
piece S& fWfFifmnD
piece D& NfmWfceF
piece C& NK
piece B& BD
piece R& RA
piece Q& QAD
piece K& KisO3";

/// `setup` first, then the `piece` lines in any order.
fn same_setup(got: &[String], want: &str) {
    let want: Vec<&str> = want.lines().collect();
    assert_eq!(got.first().map(String::as_str), Some(want[0]), "{got:?}");
    let mut got_pieces: Vec<&str> = got[1..].iter().map(String::as_str).collect();
    let mut want_pieces = want[1..].to_vec();
    got_pieces.sort_unstable();
    want_pieces.sort_unstable();
    assert_eq!(got_pieces, want_pieces);
}

#[test]
fn variant_switch_sends_setup_and_piece_lines() {
    let mut s = xboard();
    for (name, want) in [
        ("combination", COMBINATION),
        ("team-mate", TEAM_MATE),
        ("compound", COMPOUND),
        ("10x8_compound", COMPOUND),
    ] {
        // XBoard sends the command twice at start-up; both get the reply.
        for _ in 0..2 {
            let got = reply(&mut s, &format!("variant {name}"));
            same_setup(&got, want);
        }
    }
    assert!(reply(&mut s, "variant normal").is_empty());
    // Pair promotion off: still the same lines for the GUI.
    s.send("option PairPromotion=0");
    same_setup(&reply(&mut s, "variant team-mate"), TEAM_MATE);
}

/// A GUI that loaded a position sends `variant` and `setboard` at once and
/// reads the `setup` reply after: the reply carries that position, or the
/// GUI would reset its board to the start position.
#[test]
fn a_setboard_right_after_variant_is_the_setup_position() {
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1";
    let burst = |tail: &str| {
        format!(
            "new\nvariant combination\nlevel 0 0:03 0.05\npost\nping 1\nforce\n\
             ping 2\nnew\nvariant combination\nping 3\nforce\n{tail}ping 4\n"
        )
    };
    let setups = |s: &mut Session| -> Vec<String> {
        s.until("pong 4")
            .into_iter()
            .filter(|l| l.starts_with("setup "))
            .collect()
    };
    let mut s = xboard();
    s.send_bytes(burst(&format!("setboard {fen}\n")).as_bytes());
    let lines = setups(&mut s);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines.iter().all(|l| l.ends_with(fen)), "{lines:?}");
    // The engine plays from it too.
    assert_eq!(reply(&mut s, "usermove g1f3"), Vec::<String>::new());
    // Without one, the start position; and a move before the setboard
    // means the setboard comes later in the game.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let mut s = xboard();
    s.send_bytes(burst("").as_bytes());
    assert!(setups(&mut s).iter().all(|l| l.ends_with(start)));
    let mut s = xboard();
    s.send_bytes(burst(&format!("usermove e2e4\nsetboard {fen}\n")).as_bytes());
    assert!(setups(&mut s).iter().all(|l| l.ends_with(start)));
    // A setboard the variant cannot read leaves the start position.
    let mut s = xboard();
    s.send_bytes(burst("setboard 8/8/8 w - - 0 1\n").as_bytes());
    assert!(setups(&mut s).iter().all(|l| l.ends_with(start)));
}

#[test]
fn combination_merges_and_splits_in_the_gui_forms() {
    let mut s = xboard();
    s.send("variant combination");
    s.send("force");
    let merges = "setboard r3k2r/pppppppp/8/8/8/1NN5/PPPPPPPP/R2RK2R w KQkq - 0 1";
    // The GUI's merge: a null leg on the target, then the merging square;
    // afterwards d1 moves as a knight (a stack of knight and rook).
    for merge in ["d1d1,c3e2", "d1d1,c3`1", "c3d1", "d1c3,c3d1m"] {
        s.send(merges);
        play(&mut s, &[merge, "a7a6", "d1e3"]);
    }
    // A split names the remnant: c3b5b sends the knight and keeps the bishop.
    let stacks = "setboard r1b1k2r/pppp1ppp/8/8/8/2A5/PPPP1PPP/R3K2R w KQkq - 0 1";
    s.send(stacks);
    play(&mut s, &["c3b5b", "a7a6", "c3e5", "a6b5"]);
    // The engine's own notation (the part's letter) means the other part here.
    s.send(stacks);
    assert_eq!(reply(&mut s, "usermove c3e5b"), ["Illegal move: c3e5b"]);
    // The engine merges in two legs: the rook joins the knight on a8 and mates.
    assert_eq!(
        white_mates(&mut s, "N6k/R5pp/8/8/8/8/8/K7 w - - 0 1"),
        ["move a8a7,", "move a7a8m"]
    );
}

/// The `move` lines of the engine's search from `fen`, which must end in
/// `1-0 {White mates}`.
fn white_mates(s: &mut Session, fen: &str) -> Vec<String> {
    s.send(&format!("setboard {fen}"));
    s.send("sd 3");
    s.send("go");
    let lines = s.until("1-0");
    assert_eq!(lines.last().map(String::as_str), Some("1-0 {White mates}"));
    lines
        .into_iter()
        .filter(|l| l.starts_with("move"))
        .collect()
}

#[test]
fn dragon_en_passant_brute_pairs_and_castling() {
    let mut s = xboard();
    s.send("variant compound");
    s.send("force");
    // Dragon en passant in two legs; afterwards the Dragon on f6 gives check,
    // so e7 (which it attacks) is refused and f7 is not.
    for ep in ["e5f5,f5f6", "e5f6"] {
        s.send("setboard 4k5/10/10/4Ds4/10/10/10/5K4 w - f6 0 1");
        play(&mut s, &[ep]);
        assert_eq!(reply(&mut s, "usermove e8e7"), ["Illegal move: e8e7"]);
        play(&mut s, &["e8f7"]);
    }
    // The engine's Dragon en passant goes out in two legs (here it mates).
    assert_eq!(
        white_mates(&mut s, "6sss1/7ks1/6sss1/4Ds4/10/10/10/K9 w - f6 0 1"),
        ["move e5f5,", "move f5f6"]
    );
    s.send("force");
    // Compound castling: the king moves three squares.
    s.send("setboard r4k3r/10/10/10/10/10/10/R4K3R w KQkq - 0 1");
    play(&mut s, &["f1i1", "f8c8"]);
    // A Brute pair: the second Brute stands on a7 and can step to b6.
    s.send("variant team-mate");
    s.send("force");
    s.send("setboard 4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    play(&mut s, &["a7a8b", "e8d7", "a7b6"]);
    // Team-Mate FENs from the GUI have no castling rights ('-'): unmoved
    // king and corner men keep theirs.
    s.send("setboard ufeakmnc/pppppppp/8/8/8/8/PPPPPPPP/UFEAK2C w - - 0 1");
    play(&mut s, &["e1g1"]);
    // In chess '-' means no rights.
    s.send("new");
    s.send("force");
    s.send("setboard rnbqk2r/pppppppp/8/8/8/8/PPPPPPPP/RNBQK2R w - - 0 1");
    assert_eq!(reply(&mut s, "usermove e1g1"), ["Illegal move: e1g1"]);
}

#[test]
fn every_variant_plays_under_every_clock() {
    let mut s = xboard();
    s.send("post");
    for (variant, opening) in [
        ("normal", "e2e4"),
        ("combination", "b1c3"),
        ("team-mate", "e2e4"),
        ("compound", "e2e4"),
    ] {
        for clock in [
            &["level 40 0:02 0", "time 200", "otim 200"][..],
            &["level 0 1 0.1", "time 500", "otim 500"],
            &["st 1"],
            &["sd 3"],
        ] {
            s.send("new");
            s.send(&format!("variant {variant}"));
            for c in clock {
                s.send(c);
            }
            // The engine plays Black and answers at once.
            s.send(&format!("usermove {opening}"));
            let lines = s.until("move ");
            assert!(
                complaints(&lines).is_empty(),
                "{variant} {clock:?}: {lines:?}"
            );
            if clock == ["sd 3"] {
                let depths: Vec<u32> = lines
                    .iter()
                    .filter_map(|l| l.split(' ').next()?.parse().ok())
                    .collect();
                assert_eq!(depths.iter().max(), Some(&3), "{lines:?}");
            }
            // The move is legal: taking it back and playing it again works.
            // A merge comes in two legs, the first ending in a comma; the
            // GUI's echo of both joined names the move.
            let first = lines
                .last()
                .and_then(|l| l.strip_prefix("move "))
                .expect("move");
            let mut legs = vec![first.to_string()];
            while legs.last().is_some_and(|l| l.ends_with(',')) {
                let more = s.until("move ");
                assert!(complaints(&more).is_empty(), "{variant}: {more:?}");
                let leg = more.last().and_then(|l| l.strip_prefix("move "));
                legs.push(leg.expect("second leg").to_string());
            }
            s.send("force");
            s.send("undo");
            play(&mut s, &[&legs.concat()]);
        }
    }
}

/// `ping` while the engine thinks on its move is answered after the move
/// (the protocol: "you must not send the pong reply to xboard until after
/// you send your move"); while it ponders or analyses, at once.
#[test]
fn ping_while_thinking_is_answered_after_the_move() {
    let mut s = xboard();
    s.send("new");
    s.send("st 0.3");
    s.send("usermove e2e4");
    s.send("ping 100");
    let lines = s.until("pong 100");
    let moved = lines.iter().position(|l| l.starts_with("move "));
    assert!(moved.is_some(), "pong before the move: {lines:?}");
    assert!(complaints(&lines).is_empty(), "{lines:?}");
    // A minute to think: the pong waits, `?` still acts at once and the
    // pong follows the move.
    s.send("force");
    s.send("undo");
    s.send("undo");
    s.send("st 60");
    s.send("go");
    s.send("ping 101");
    let early = s.lines_for(std::time::Duration::from_millis(500));
    assert!(
        !early
            .iter()
            .any(|l| l.starts_with("pong") || l.starts_with("move")),
        "{early:?}"
    );
    s.send("?");
    let lines = s.until("pong 101");
    assert!(
        lines.iter().any(|l| l.starts_with("move ")),
        "pong before the move: {lines:?}"
    );
    assert!(complaints(&s.sync()).is_empty());
}

#[test]
fn ping_while_pondering_or_analysing_is_answered_at_once() {
    let mut s = xboard();
    // Pondering: the engine thinks on in the opponent's time (without end),
    // answers pings, and takes the opponent's move at once.
    s.send("new");
    s.send("hard");
    s.send("st 0.3");
    s.send("usermove d2d4");
    s.until("move ");
    assert!(complaints(&s.sync()).is_empty());
    s.send("hint");
    let hint = s.sync();
    assert!(hint.iter().all(|l| l.starts_with("Hint: ")), "{hint:?}");
    s.send("force");
    s.send("undo");
    s.send("undo");
    s.send("easy");
    play(&mut s, &["c2c4"]);
    // Analysis runs without end too: the pong comes, and no move.
    s.send("analyze");
    let analysis = s.sync();
    let moves = analysis.iter().filter(|l| l.starts_with("move"));
    assert!(
        complaints(&analysis).is_empty() && moves.count() == 0,
        "{analysis:?}"
    );
    s.send("exit");
}

#[test]
fn undo_and_remove_take_moves_back() {
    let mut s = xboard();
    s.send("new");
    s.send("force");
    assert_eq!(reply(&mut s, "undo"), ["Error (no move to undo): undo"]);
    play(&mut s, &["e2e4"]);
    s.send("undo");
    play(&mut s, &["e2e4", "e7e5"]);
    s.send("remove");
    // Back at the start: e2e4 is legal again, e7e5 after it.
    play(&mut s, &["e2e4", "e7e5"]);
    assert_eq!(reply(&mut s, "remove"), Vec::<String>::new());
    assert_eq!(reply(&mut s, "remove"), ["Error (no move to undo): remove"]);
}

#[test]
fn analysis_reports_until_exit() {
    let mut s = xboard();
    s.send("variant team-mate");
    s.send("analyze");
    // Thinking lines: depth score time nodes pv.
    let first = s.until("1 ");
    assert!(complaints(&first).is_empty(), "{first:?}");
    s.send(".");
    s.until("stat01: ");
    // A move during analysis: the analysis goes on from the new position.
    s.send("usermove e2e4");
    s.send("exit");
    let lines = s.sync();
    assert!(
        !lines
            .iter()
            .any(|l| l.starts_with("move") || l.starts_with("Error")),
        "{lines:?}"
    );
    // Analysis left: e2e4 was played, so it is Black's move.
    s.send("force");
    play(&mut s, &["e7e5"]);
}

#[test]
fn results_are_claimed() {
    let mut s = xboard();
    // The engine plays the side not on move; the user's move ends the game.
    for (variant, fen, mv, claim) in [
        (
            "normal",
            "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1",
            "f7g7",
            "1-0 {White mates}",
        ),
        (
            "normal",
            "7k/8/4Q1K1/8/8/8/8/8 w - - 0 1",
            "e6f7",
            "1/2-1/2 {Stalemate}",
        ),
        (
            "team-mate",
            "4k3/8/8/8/8/8/P7/4K3 w - - 127 90",
            "e1d1",
            "1/2-1/2 {64-move rule}",
        ),
        (
            "compound",
            "4k5/10/10/10/10/10/4s5/5K4 w - - 0 1",
            "f1e2",
            "1/2-1/2 {Insufficient mating material}",
        ),
    ] {
        s.send("new");
        s.send(&format!("variant {variant}"));
        s.send(&format!("setboard {fen}"));
        s.send("playother");
        s.sync();
        assert_eq!(reply(&mut s, &format!("usermove {mv}")), [claim], "{fen}");
    }
    s.send("new");
    s.send("force");
    play(
        &mut s,
        &["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"],
    );
    s.send("playother");
    assert_eq!(
        reply(&mut s, "usermove f6g8"),
        ["1/2-1/2 {Draw by repetition}"]
    );
    // The engine mated: it says so after its move.
    s.send("new");
    assert_eq!(
        white_mates(&mut s, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"),
        ["move a1a8"]
    );
}

#[test]
fn malformed_lines_get_exact_replies_and_change_nothing() {
    let mut s = xboard();
    s.send("new");
    s.send("force");
    for (line, answer) in [
        ("foo", "Error (unknown command): foo"),
        ("usermove e2e5", "Illegal move: e2e5"),
        ("usermove e2", "Illegal move (malformed): e2"),
        ("e2e5", "Illegal move: e2e5"),
        ("usermove", "Error (usermove needs one move): usermove"),
        (
            "usermove e2e4 e7e5",
            "Error (usermove needs one move): usermove e2e4 e7e5",
        ),
        ("level 40 x 0", "Error (bad base time): level 40 x 0"),
        ("level 40", "Error (level needs MPS BASE INC): level 40"),
        ("level 40 5 -1", "Error (bad increment): level 40 5 -1"),
        ("st zero", "Error (st needs seconds): st zero"),
        ("sd -1", "Error (sd needs a depth): sd -1"),
        ("time abc", "Error (needs centiseconds): time abc"),
        ("memory lots", "Error (memory needs a number): memory lots"),
        ("cores", "Error (cores needs a number): cores"),
        ("variant shogi", "Error (unknown variant): variant shogi"),
        ("variant", "Error (variant needs a name): variant"),
        (
            "option Nonsense=1",
            "Error (unknown option): option Nonsense=1",
        ),
        (
            "option PairPromotion=2",
            "Error (PairPromotion is 0 or 1): option PairPromotion=2",
        ),
    ] {
        assert_eq!(reply(&mut s, line), [answer], "{line}");
    }
    let bad_fen = reply(&mut s, "setboard 8/8/8 w - - 0 1");
    assert!(
        bad_fen.len() == 1
            && bad_fen[0].starts_with("Error (bad FEN: ")
            && bad_fen[0].ends_with("): setboard 8/8/8 w - - 0 1"),
        "{bad_fen:?}"
    );
    // Still chess from the start position.
    play(&mut s, &["e2e4", "e7e5", "g1f3"]);
}

#[test]
fn commands_that_wait_for_our_move_never_block_the_input() {
    // `memory` and `option` wait until the search for our move has played
    // it; the lines after them are still read. `force` ends the search
    // without its move, and `?` makes it move now.
    let mut s = xboard();
    s.send("new");
    s.send("st 600");
    s.send("usermove e2e4");
    s.send("memory 8");
    s.send("option PairPromotion=1");
    s.send("force");
    let lines = s.sync();
    assert!(
        lines.iter().all(|l| !l.starts_with("move")) && complaints(&lines).is_empty(),
        "{lines:?}"
    );
    play(&mut s, &["e7e5"]);

    s.send("new");
    s.send("usermove d2d4");
    s.send("cores 1");
    s.send("?");
    s.until("move ");
    let lines = s.sync();
    assert!(complaints(&lines).is_empty(), "{lines:?}");
}

#[test]
fn protover_during_analysis_is_answered() {
    // The feature list comes from the front end's own copies of the
    // settings, not from the engine that the analysis holds.
    let mut s = xboard();
    s.send("analyze");
    // The first thinking line: the analysis holds the engine now.
    s.until("1 ");
    s.send("protover 2");
    let lines = s.until("feature done=1");
    assert!(
        lines.iter().any(|l| l.contains("variants=\"normal,")),
        "{lines:?}"
    );
    s.send("exit");
    assert!(complaints(&s.sync()).is_empty());
}

#[test]
fn bad_variant_or_position_during_a_search_leaves_it_running() {
    let mut s = xboard();
    s.send("new");
    s.send("st 60");
    s.send("usermove e2e4");
    // The first search of the game says which evaluation it uses.
    s.until("# evaluation: ");
    // Answered at once (a `ping` would wait for the move).
    s.send("variant shogi");
    assert_eq!(s.until("Error"), ["Error (unknown variant): variant shogi"]);
    s.send("setboard 8/8/8 w - - 0 1");
    let bad_fen = s.until("Error");
    assert!(
        bad_fen.len() == 1 && bad_fen[0].starts_with("Error (bad FEN: "),
        "{bad_fen:?}"
    );
    // The search goes on and its move still counts.
    s.send("?");
    s.until("move ");
    s.send("force");
    s.send("undo");
    s.send("undo");
    play(&mut s, &["d2d4"]);
}

#[test]
fn lift_and_put_mark_the_squares_and_bad_squares_get_an_error() {
    let mut s = xboard();
    reply(&mut s, "new");
    reply(&mut s, "force");
    // A knight picked up in the start position: its two squares.
    let got = reply(&mut s, "lift g1");
    assert_eq!(
        got,
        vec!["highlight 8/8/8/8/8/5Y1Y/8/8".to_string()],
        "{got:?}"
    );
    // The GUI asks for the promotion men on a magenta square.
    reply(&mut s, "setboard 1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    let got = reply(&mut s, "lift a7");
    assert_eq!(got, vec!["highlight MM6/8/8/8/8/8/8/8".to_string()]);
    let got = reply(&mut s, "put b8");
    assert_eq!(got, vec!["choice QRBN".to_string()]);
    // Malformed squares: an error each, and nothing changes.
    for bad in ["lift z9", "lift", "put a0", "hover e2 e4", "lift a77"] {
        let got = reply(&mut s, bad);
        assert_eq!(got.len(), 1, "{bad}: {got:?}");
        assert!(got[0].starts_with("Error ("), "{bad}: {got:?}");
    }
    let got = reply(&mut s, "usermove a7b8q");
    assert!(complaints(&got).is_empty(), "{got:?}");
}

/// Lines that come right after `variant` are read ahead with it; a `?`
/// among them, behind a `ping` that waits for the move, still makes the
/// engine move at once (and a `force` among them ends the search), as when
/// it comes later.
#[test]
fn move_now_read_ahead_with_a_variant_acts_at_once() {
    for (tail, want) in [("?\n", "move "), ("force\n", "pong 1")] {
        let mut s = xboard();
        s.send("st 60");
        s.send_bytes(format!("variant normal\ngo\nping 1\n{tail}").as_bytes());
        let lines = s.lines_for(std::time::Duration::from_secs(3));
        assert!(
            lines.iter().any(|l| l.starts_with(want)) && lines.iter().any(|l| l == "pong 1"),
            "{tail:?}: {lines:?}"
        );
    }
}
