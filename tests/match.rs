//! `amalgam match` against scripted fake engines (tests/fake_engines) and
//! the engine itself, a match cut into parts with `--shard` and merged by
//! `amalgam pgn stats`, and the match statistics against a reference
//! computation.

mod common;

use amalgam::tools::matches::pgn::read_games;
use amalgam::tools::matches::stats::{Score, Sprt, erf};
use common::run_amalgam;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn amalgam() -> &'static str {
    env!("CARGO_BIN_EXE_amalgam")
}

/// The command line of a scripted fake engine in `mode`.
fn fake(script: &str, mode: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fake_engines")
        .join(script);
    format!("{} {mode}", p.display())
}

/// The `--engine` option group of one engine.
fn engine(name: &str, cmd: &str, proto: &str) -> Vec<String> {
    vec![
        "--engine".into(),
        format!("name={name}"),
        format!("cmd={cmd}"),
        format!("proto={proto}"),
    ]
}

fn own_uci(name: &str) -> Vec<String> {
    engine(name, &format!("{} --uci", amalgam()), "uci")
}

/// A match of `first` (its `--engine` words) against the engine itself
/// over UCI, with the options `rest`.
fn against_amalgam(first: Vec<String>, rest: &str, tag: &str) -> Run {
    let mut args = first;
    args.extend(own_uci("Amalgam"));
    args.extend(words(rest));
    run_match(tag, args)
}

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
    pgn: String,
    pgn_path: PathBuf,
}

/// The command of a match, `args` and its PGN file (removed first).
fn match_command(tag: &str, args: &[String]) -> (Command, PathBuf) {
    let pgn_path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("match-{tag}.pgn"));
    let _ = std::fs::remove_file(&pgn_path);
    let mut cmd = Command::new(amalgam());
    cmd.arg("match").args(args).arg("--pgn").arg(&pgn_path);
    (cmd, pgn_path)
}

/// Run a match; `args` besides the PGN file.
fn run_match(tag: &str, args: Vec<String>) -> Run {
    let (mut cmd, pgn_path) = match_command(tag, &args);
    let out = cmd.output().expect("run amalgam match");
    Run {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        pgn: std::fs::read_to_string(&pgn_path).unwrap_or_default(),
        pgn_path,
    }
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// The values of one PGN tag, game by game.
fn tags(pgn: &str, name: &str) -> Vec<String> {
    let prefix = format!("[{name} \"");
    pgn.lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(|v| v.trim_end_matches("\"]").to_string())
        .collect()
}

fn pgn_check(path: &Path) -> (bool, String) {
    run_amalgam(&["pgn".as_ref(), "check".as_ref(), path.as_os_str()])
}

#[test]
fn an_illegal_move_loses_and_is_logged_with_the_position() {
    let mut args = engine("Fake", &fake("fake_uci.sh", "illegal"), "uci");
    args.extend(own_uci("Amalgam"));
    args.extend(words(
        "--variant chess --games 2 --tc 5+0.1 --random-plies 0",
    ));
    let r = run_match("illegal", args);
    assert!(r.ok, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(
            "Game 1: Fake (White) played an illegal move 'a1a8' in \
             rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("Game 2: Fake (Black) played an illegal move 'a1a8'")
    );
    assert_eq!(
        tags(&r.pgn, "Termination"),
        ["illegal move", "illegal move"]
    );
    assert_eq!(tags(&r.pgn, "Result"), ["0-1", "1-0"]);
    assert!(r.stdout.contains("Fake 0-2-0"), "{}", r.stdout);
    let (ok, text) = pgn_check(&r.pgn_path);
    assert!(ok, "{text}");
}

/// Options are sent before the variant list is read (again), so an option
/// that loads variants (Fairy-Stockfish's `VariantPath`) lets the engine
/// play them.
#[test]
fn options_come_before_the_variant_list_is_read() {
    let fake_engine = |options: &[&str]| {
        let mut args = engine("Fake", &fake("fake_uci.sh", "variant-path"), "uci");
        args.extend(options.iter().map(|o| o.to_string()));
        args.extend(own_uci("Amalgam"));
        args.extend(words("--variant compound --games 1 --tc 5+0.1"));
        args
    };
    let r = run_match(
        "variant-path",
        fake_engine(&["option.VariantPath=/any/file.ini"]),
    );
    assert!(r.ok, "{}{}", r.stdout, r.stderr);
    assert_eq!(tags(&r.pgn, "Variant"), ["compound"]);
    assert_eq!(tags(&r.pgn, "Termination"), ["illegal move"]);
    let r = run_match("variant-path-none", fake_engine(&[]));
    assert!(!r.ok);
    assert!(
        r.stderr.contains("does not play compound"),
        "{}{}",
        r.stdout,
        r.stderr
    );
}

#[test]
fn a_crash_loses_and_the_engine_is_started_again() {
    let mut args = own_uci("Amalgam");
    args.extend(engine("Crasher", &fake("fake_uci.sh", "crash"), "uci"));
    args.extend(words("--variant chess --games 3 --tc 5+0.1"));
    let r = run_match("crash", args);
    assert!(r.ok, "{}{}", r.stdout, r.stderr);
    assert_eq!(tags(&r.pgn, "Termination"), ["crash", "crash", "crash"]);
    assert_eq!(tags(&r.pgn, "Result"), ["1-0", "0-1", "1-0"]);
    assert!(r.stdout.contains("Crasher (Black) crashed"), "{}", r.stdout);
    assert!(
        r.stdout.contains("Engine Crasher restarted before game 2"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("Engine Crasher restarted before game 3"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Games 3/3"), "{}", r.stdout);
}

#[test]
fn a_hang_past_the_clock_loses_on_time() {
    let mut args = engine("Sleeper", &fake("fake_uci.sh", "hang"), "uci");
    args.extend(own_uci("Amalgam"));
    args.extend(words("--variant chess --games 2 --tc 0.5+0"));
    let r = run_match("hang", args);
    assert!(r.ok, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        tags(&r.pgn, "Termination"),
        ["time forfeit", "time forfeit"]
    );
    assert_eq!(tags(&r.pgn, "Result"), ["0-1", "1-0"]);
    assert!(
        r.stdout
            .contains("Sleeper (White) lost on time (no reply within 500 ms)"),
        "{}",
        r.stdout
    );
    // The silent engine was killed after game 1 and started again.
    assert!(
        r.stdout.contains("Engine Sleeper restarted before game 2"),
        "{}",
        r.stdout
    );
}

/// Without openings a match opens from the variant's shipped suite, where
/// its seed says.
#[test]
fn a_match_opens_from_the_shipped_suite() {
    let fens = |seed: &str| {
        let r = against_amalgam(
            engine("Fake", &fake("fake_uci.sh", "illegal"), "uci"),
            &format!("--variant chess --games 2 --tc 5+0.1 --seed {seed}"),
            &format!("suite-{seed}"),
        );
        assert!(r.ok, "{}{}", r.stdout, r.stderr);
        tags(&r.pgn, "FEN")
    };
    let suite = amalgam::tools::openings::shipped("chess").expect("suite");
    let a = fens("1");
    assert_eq!(a.len(), 2);
    // Both colours from one opening, which is a suite position.
    assert_eq!(a[0], a[1]);
    let board = |fen: &str| fen.split(' ').take(4).collect::<Vec<_>>().join(" ");
    assert!(
        suite.lines().any(|l| l.starts_with(&board(&a[0]))),
        "{}",
        a[0]
    );
    assert_ne!(board(&fens("2")[0]), board(&a[0]));
}

#[test]
fn a_false_result_claim_loses_and_a_claim_of_ones_own_loss_resigns() {
    let mut args = engine("Claimer", &fake("fake_xboard.sh", "claim"), "xboard");
    args.extend(own_uci("Amalgam"));
    args.extend(words(
        "--variant chess --games 2 --tc 5+0.1 --random-plies 0",
    ));
    let r = run_match("claim", args);
    assert!(r.ok, "{}{}", r.stdout, r.stderr);
    // Game 1: the claimer is White and claims its own win: false, it loses.
    // Game 2: as Black it claims White's win: that is resignation.
    assert_eq!(tags(&r.pgn, "Termination"), ["false claim", "resignation"]);
    assert_eq!(tags(&r.pgn, "Result"), ["0-1", "1-0"]);
    assert!(
        r.stdout
            .contains("Game 1: Claimer (White) claimed 1-0 {White mates} in rnbqkbnr"),
        "{}",
        r.stdout
    );
    let (ok, text) = pgn_check(&r.pgn_path);
    assert!(ok, "{text}");
}

#[test]
fn an_engine_without_the_variant_is_refused() {
    let mut args = own_uci("Amalgam");
    args.extend(engine(
        "Orthodox",
        &fake("fake_xboard.sh", "orthodox"),
        "xboard",
    ));
    args.extend(words("--variant team-mate --games 2 --tc 5+0.1"));
    let r = run_match("refuse", args);
    assert!(!r.ok);
    assert!(
        r.stderr.contains("engine Orthodox: ")
            && r.stderr
                .contains("does not play team-mate (its feature variants: normal)"),
        "{}",
        r.stderr
    );
}

#[test]
fn full_games_between_two_engines_replay_under_pgn_check() {
    let mut args = own_uci("First");
    args.extend(own_uci("Second"));
    args.extend(words(
        "--variant compound --games 2 --depth 1 --random-plies 6 --seed 3 --concurrency 2",
    ));
    let r = run_match("depth1", args);
    assert!(r.ok, "{}{}", r.stdout, r.stderr);
    assert_eq!(tags(&r.pgn, "Result").len(), 2);
    assert_eq!(tags(&r.pgn, "Variant"), ["compound", "compound"]);
    let (ok, text) = pgn_check(&r.pgn_path);
    assert!(ok, "{text}");
    assert!(text.contains("2 game(s)"), "{text}");
    // A corrupted copy (one move changed) is refused.
    let bad = r.pgn.replacen(" 4.", " 4. Kj5", 1);
    let bad_path = r.pgn_path.with_extension("bad.pgn");
    std::fs::write(&bad_path, bad).unwrap();
    let (ok, text) = pgn_check(&bad_path);
    assert!(!ok, "{text}");
}

#[test]
fn stack_moves_travel_over_xboard_and_replay() {
    let mut args = engine("OverXboard", &format!("{} --xboard", amalgam()), "xboard");
    args.extend(own_uci("OverUci"));
    args.extend(words(
        "--variant combination --games 2 --depth 2 --random-plies 4 --seed 8 --concurrency 2",
    ));
    let r = run_match("xboard", args);
    assert!(r.ok, "{}{}", r.stdout, r.stderr);
    // Neither side broke a rule: every game ended by the rules.
    for t in tags(&r.pgn, "Termination") {
        assert!(
            [
                "checkmate",
                "stalemate",
                "repetition",
                "move rule",
                "dead position"
            ]
            .contains(&t.as_str()),
            "{t}\n{}",
            r.stdout
        );
    }
    let (ok, text) = pgn_check(&r.pgn_path);
    assert!(ok, "{text}");
}

fn wld(wins: u32, losses: u32, draws: u32) -> Score {
    Score {
        wins,
        losses,
        draws,
    }
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

/// Reference values computed with Python's `math` module from the formulas
/// documented in `matchplay::stats` (math.erf, math.log10).
#[test]
fn statistics_equal_a_reference_computation() {
    let sprt = Sprt::parse(&["elo0=0", "elo1=5", "alpha=0.05", "beta=0.05"]).unwrap();
    let cases = [
        // (W, L, D, Elo, margin, LOS, LLR)
        (
            30,
            20,
            50,
            34.86007028756008,
            48.470228059870166,
            0.9213503964748575,
            0.26747193142850645,
        ),
        (
            1200,
            1100,
            2700,
            6.949638427769096,
            6.5320932708236334,
            0.9814718907179405,
            2.0034395705250034,
        ),
        (
            7,
            12,
            1,
            -88.73949984654253,
            167.1616639382733,
            0.12567455440511133,
            -0.07791508108290324,
        ),
    ];
    for (w, l, d, elo, margin, los, llr) in cases {
        let s = Score {
            wins: w,
            losses: l,
            draws: d,
        };
        close(s.elo().unwrap(), elo);
        close(s.elo_margin().unwrap(), margin);
        close(s.los().unwrap(), los);
        close(sprt.llr(&s), llr);
    }
    let (lo, hi) = sprt.bounds();
    close(lo, -2.9444389791664403);
    close(hi, 2.9444389791664403);
    let s = Score {
        wins: 80,
        losses: 5,
        draws: 15,
    };
    let strong = Sprt::parse(&["elo0=200", "elo1=300", "alpha=0.05", "beta=0.05"]).unwrap();
    close(s.elo().unwrap(), 338.0392160057028);
    close(s.elo_margin().unwrap(), 88.29386987261341);
    close(strong.llr(&s), 5.521036847560854);
    assert!(strong.decision(&s).is_some());
    // A lucky start decides nothing: 5-0-2 in 7 games is far from the
    // bound (the normal approximation with the sample's variance gave
    // 3.15 and accepted H1); 30-11-18 in 59 games accepts H1.
    let sprt50 = Sprt::parse(&["elo0=0", "elo1=50", "alpha=0.05", "beta=0.05"]).unwrap();
    let lucky = wld(5, 0, 2);
    close(sprt50.llr(&lucky), 0.9351428847724066);
    assert!(sprt50.decision(&lucky).is_none());
    let decided = wld(30, 11, 18);
    close(sprt50.llr(&decided), 3.0981764967014502);
    assert!(sprt50.decision(&decided).is_some());
    // Only draws: some evidence against the stronger hypothesis.
    let drawn = wld(0, 0, 4);
    close(sprt.llr(&drawn), -0.05698775522803688);
    // Hypotheses the fit cannot take are refused.
    for bad in ["elo1=inf", "elo1=NaN", "elo1=100000"] {
        assert!(Sprt::parse(&["elo0=0", bad, "alpha=0.05", "beta=0.05"]).is_err());
    }
    assert!(Sprt::parse(&["elo0=-2000", "elo1=2000", "alpha=0.05", "beta=0.05"]).is_ok());
    for (x, e) in [
        (0.3, 0.3286267594591274),
        (1.7, 0.9837904585907745),
        (2.6, 0.9997639655834707),
        (4.0, 0.9999999845827421),
    ] {
        close(erf(x), e);
        close(erf(-x), -e);
    }
    // No decisive game: no LOS; a perfect score: no finite Elo.
    assert_eq!(
        Score {
            wins: 0,
            losses: 0,
            draws: 4
        }
        .los(),
        None
    );
    assert_eq!(
        Score {
            wins: 3,
            losses: 0,
            draws: 0
        }
        .elo(),
        None
    );
}

/// Orthodox chess with other piece values and the default evaluation
/// weights: loaded through `VariantPath`, it makes a second engine that
/// plays otherwise than the first, so that game pairs split.
const PLAIN_CHESS: &str = "[chess]
xboardName = normal
startFen = rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
matingSoloTypes = prq
colorBoundTypes = b
deadPosition = material
deadMaterial = k:k kn:k kb:k
deadColorBound = true
pieceValues = p:100 n:300 b:300 r:500 q:900
";

/// The test of the SPRT lines the runner and `pgn stats` print.
const SPRT: &str = "elo0=0 elo1=5 alpha=0.05 beta=0.05";

/// The match that is played whole and in parts: 7 games, so the last game
/// pair has one game; depth-limited searches from a fresh table each game,
/// so that the parts play the very games of the whole.
fn shard_match() -> Vec<String> {
    static INI: OnceLock<PathBuf> = OnceLock::new();
    let ini = INI.get_or_init(|| {
        let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shard-plain-chess.ini");
        std::fs::write(&p, PLAIN_CHESS).expect("write the ini");
        p
    });
    let mut args = own_uci("Tuned");
    args.extend(own_uci("Plain"));
    args.push(format!("option.VariantPath={}", ini.display()));
    args.extend(words(
        "--variant chess --games 7 --depth 1 --random-plies 6 --seed 5 \
         --draw movenumber=30 movecount=4 score=50 --resign movecount=2 score=400",
    ));
    args
}

/// The whole match, played once for the tests that compare with it.
fn whole_match() -> &'static Run {
    static WHOLE: OnceLock<Run> = OnceLock::new();
    WHOLE.get_or_init(|| {
        let mut args = shard_match();
        args.push("--sprt".into());
        args.extend(words(SPRT));
        let r = run_match("shard-whole", args);
        assert!(r.ok, "{}{}", r.stdout, r.stderr);
        r
    })
}

/// A game of the runner's PGN by the tags that say which game it is and
/// how it went.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Record {
    round: usize,
    pair: usize,
    white: String,
    black: String,
    fen: String,
    result: String,
    termination: String,
    plies: String,
}

fn records(pgn: &str) -> Vec<Record> {
    let mut out: Vec<Record> = read_games(pgn)
        .iter()
        .map(|g| {
            let tag = |k: &str| g.tag(k).unwrap_or_else(|| panic!("no {k} tag")).to_string();
            Record {
                round: tag("Round").parse().expect("a round"),
                pair: tag("GamePair").parse().expect("a game pair"),
                white: tag("White"),
                black: tag("Black"),
                fen: tag("FEN"),
                result: tag("Result"),
                termination: tag("Termination"),
                plies: tag("PlyCount"),
            }
        })
        .collect();
    out.sort();
    out
}

/// The results' lines of a summary: from the table's head to the SPRT
/// line, as the runner and `pgn stats` both print them.
fn summary(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("Rank "))
        .take_while(|l| !l.starts_with("Endings:") && !l.starts_with("Unfinished:"))
        .map(String::from)
        .collect()
}

fn pgn_stats(files: &[&Path], sprt: &str) -> Output {
    let mut cmd = Command::new(amalgam());
    cmd.args(["pgn", "stats"]).args(files);
    if !sprt.is_empty() {
        cmd.arg("--sprt").args(sprt.split_whitespace());
    }
    cmd.output().expect("run amalgam pgn stats")
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The parts' PGN merged by `pgn stats` give the whole match's summary.
fn assert_merges_to_the_whole(parts: &[&Path]) {
    let whole = whole_match();
    let merged = stdout(&pgn_stats(parts, SPRT));
    let expected = summary(&whole.stdout);
    assert!(expected.len() == 5, "{}", whole.stdout);
    assert_eq!(summary(&merged), expected, "{merged}");
}

#[test]
fn the_parts_of_a_match_are_its_games_and_merge_to_its_results() {
    let whole = whole_match();
    let games = records(&whole.pgn);
    assert_eq!(games.len(), 7, "{}", whole.pgn);
    let parts: Vec<Run> = (1..=2)
        .map(|k| {
            let mut args = shard_match();
            args.extend(words(&format!("--shard {k}/2")));
            let r = run_match(&format!("shard-{k}"), args);
            assert!(r.ok, "{}{}", r.stdout, r.stderr);
            r
        })
        .collect();
    assert!(
        parts[0]
            .stdout
            .contains("Shard 1/2: 4 of the match's 7 games (2 of its 4 game pairs)"),
        "{}",
        parts[0].stdout
    );
    // Every game pair in one part, the parts disjoint, together the whole,
    // game for game (opening, colours, round, and how it went).
    let in_part: Vec<BTreeSet<usize>> = parts
        .iter()
        .map(|p| records(&p.pgn).iter().map(|r| r.pair).collect())
        .collect();
    assert!(in_part[0].is_disjoint(&in_part[1]), "{in_part:?}");
    let mut together: Vec<Record> = parts.iter().flat_map(|p| records(&p.pgn)).collect();
    together.sort();
    assert_eq!(together, games);
    // Both colours of each of the first three openings, one game of the last.
    let mut by_pair: BTreeMap<usize, Vec<&Record>> = BTreeMap::new();
    for g in &games {
        by_pair.entry(g.pair).or_default().push(g);
    }
    assert_eq!(by_pair.keys().copied().collect::<Vec<_>>(), [1, 2, 3, 4]);
    for (pair, g) in &by_pair {
        if *pair < 4 {
            assert_eq!(g.len(), 2);
            assert_eq!((&g[0].white, &g[0].fen), (&g[1].black, &g[1].fen));
        }
    }
    // The merged summary is the whole's, line for line.
    let paths: Vec<&Path> = parts.iter().map(|p| p.pgn_path.as_path()).collect();
    assert_merges_to_the_whole(&paths);
    // ... and its counts are those of the games' tags.
    let points = |g: &Record| match (g.result.as_str(), g.white == "Tuned") {
        ("1/2-1/2", _) => 1,
        ("1-0", true) | ("0-1", false) => 2,
        _ => 0,
    };
    let count = |p: u32| games.iter().filter(|g| points(g) == p).count();
    let merged = stdout(&pgn_stats(&paths, ""));
    let row = format!("{:>6} {:>5} {:>5} {:>5}", 7, count(2), count(0), count(1));
    assert!(
        merged
            .lines()
            .any(|l| l.contains(" Tuned ") && l.contains(&row)),
        "{row}\n{merged}"
    );
    let mut penta = [0; 5];
    for g in by_pair.values().filter(|g| g.len() == 2) {
        penta[g.iter().map(|g| points(g)).sum::<u32>() as usize] += 1;
    }
    let penta: Vec<String> = penta.iter().map(u32::to_string).collect();
    assert!(
        merged.contains(&format!(
            "by Tuned's points 0, 1/2, 1, 3/2, 2: {} (3 pairs; 1 game without",
            penta.join(" ")
        )),
        "{penta:?}\n{merged}"
    );
    // A part given twice is refused, naming the file and line.
    let twice = pgn_stats(&[paths[0], paths[1], paths[0]], "");
    let err = String::from_utf8_lossy(&twice.stderr);
    assert_eq!(twice.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{}:", paths[0].display())) && err.contains("given twice"),
        "{err}"
    );
}

/// An unfinished game is named and left out of the counts; a missing file
/// is an error that names it.
#[test]
fn pgn_stats_names_unfinished_games_and_missing_files() {
    let whole = whole_match();
    let first = records(&whole.pgn)[0].result.clone();
    let pgn = whole
        .pgn
        .replacen(&format!("[Result \"{first}\"]"), "[Result \"*\"]", 1);
    // The first game's move text ends with its result too.
    let end = pgn.find("\n\n[").expect("two games");
    let (head, tail) = pgn.split_at(end);
    let cut = head.rfind(first.as_str()).expect("the result");
    let pgn = format!("{}*{}", &head[..cut], tail);
    let path = whole.pgn_path.with_extension("unfinished.pgn");
    std::fs::write(&path, pgn).unwrap();
    let text = stdout(&pgn_stats(&[&path], ""));
    assert!(
        text.contains("7 games of Tuned, Plain, 1 unfinished"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "Unfinished: Round 1 Tuned - Plain ({}:1), not counted",
            path.display()
        )),
        "{text}"
    );
    assert!(text.contains("2 games without the other colour"), "{text}");
    let missing = whole.pgn_path.with_extension("missing.pgn");
    let o = pgn_stats(&[&whole.pgn_path, &missing], "");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains(&missing.display().to_string()), "{err}");
}

#[test]
fn the_parts_run_under_gnu_parallel() {
    if Command::new("parallel").arg("--version").output().is_err() {
        eprintln!("note: GNU parallel is not on PATH; the test is skipped");
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shard-parallel");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // `-q` passes each word as it is, `{}` the part, `{#}` the job number.
    let out = Command::new("parallel")
        .args(["--will-cite", "-q", amalgam(), "match"])
        .args(shard_match())
        .args(["--shard", "{}", "--pgn"])
        .arg(dir.join("part-{#}.pgn"))
        .args([":::", "1/2", "2/2"])
        .output()
        .expect("run parallel");
    stdout(&out);
    let parts = [dir.join("part-1.pgn"), dir.join("part-2.pgn")];
    assert_merges_to_the_whole(&[&parts[0], &parts[1]]);
}

#[test]
fn bad_shards_are_usage_errors_and_an_empty_part_plays_nothing() {
    let two = words("--engine cmd=no-such-engine proto=uci --engine cmd=nor-this proto=uci");
    let run = |extra: &str| {
        let mut args = two.clone();
        args.extend(words(extra));
        run_match(&format!("shard-bad-{}", extra.len()), args)
    };
    for bad in [
        "0/2",
        "3/2",
        "1/0",
        "a/b",
        "2",
        "-1/2",
        "1/-2",
        "99999999999999999999999/2",
    ] {
        let r = run(&format!("--depth 1 --shard {bad}"));
        assert!(!r.ok && r.stdout.is_empty(), "{bad}: {}", r.stdout);
        assert!(
            r.stderr.starts_with(&format!(
                "error: invalid value '{bad}' for '--shard <K/N>': "
            )) && r
                .stderr
                .ends_with("\n\nFor more information, try '--help'.\n"),
            "{bad}: {}",
            r.stderr
        );
        assert!(!r.pgn_path.exists(), "{bad}");
    }
    let r = run(&format!("--depth 1 --shard 1/2 --sprt {SPRT}"));
    assert!(!r.ok && r.stderr.contains("--sprt stops a whole match early"));
    // Three parts of two game pairs: the third plays nothing (its engines
    // are not even started) and leaves an empty PGN.
    let r = run("--depth 1 --games 3 --shard 3/3");
    assert!(r.ok, "{}{}", r.stdout, r.stderr);
    // Said on standard error, where a script's log keeps it apart from results.
    assert!(
        r.stderr
            .contains("Shard 3/3 plays nothing: the match has 2 game pairs, fewer than 3 parts"),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.contains("plays nothing"), "{}", r.stdout);
    assert!(r.pgn_path.exists() && r.pgn.is_empty());
    let o = pgn_stats(&[&r.pgn_path], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no games"));
}

/// The match's PGN file is not written when the match is refused.
fn assert_refused(r: &Run, what: &str) {
    assert!(!r.ok, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains(what), "{what}\n{}{}", r.stdout, r.stderr);
    assert!(!r.pgn_path.exists(), "{what}: a PGN file was written");
    assert!(!r.stdout.contains("Games 1/"), "{}", r.stdout);
}

/// An engine that does not list an option given it, or that answers it
/// with an error (`info string error` over UCI, `Error` over XBoard), is
/// refused before the first game, naming the engine, the option and the
/// engine's words.
#[test]
fn an_option_the_engine_refuses_stops_the_match_before_it_begins() {
    let bad_file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-such-dir/over.ini");
    let bad_file = bad_file.display().to_string();
    let own_xboard = |name: &str| engine(name, &format!("{} --xboard", amalgam()), "xboard");
    let picky = || engine("Picky", &fake("fake_xboard.sh", "picky"), "xboard");
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            [
                own_uci("New"),
                vec![format!("option.VariantPath={bad_file}")],
            ]
            .concat(),
            format!(
                "engine New: rejected option 'VariantPath' = '{bad_file}': it answered \
                 \"info string error: {bad_file}"
            ),
        ),
        (
            [own_uci("New"), words("option.Hash=lots")].concat(),
            "engine New: rejected option 'Hash' = 'lots': it answered \"info string error: Hash"
                .into(),
        ),
        (
            [own_uci("New"), words("option.NoSuchOption=1")].concat(),
            "engine New: has no option 'NoSuchOption' (its options: Hash, Threads".into(),
        ),
        (
            [
                own_xboard("New"),
                vec![format!("option.VariantPath={bad_file}")],
            ]
            .concat(),
            format!(
                "engine New: rejected option 'VariantPath' = '{bad_file}': it answered \"Error ("
            ),
        ),
        (
            [own_xboard("New"), words("option.NoSuchOption=1")].concat(),
            "engine New: has no option 'NoSuchOption' (its options: ".into(),
        ),
        (
            [picky(), words("option.Style=wild")].concat(),
            "engine Picky: rejected option 'Style' = 'wild': it answered \
             \"Error (bad value): option Style=wild\""
                .into(),
        ),
    ];
    for (i, (first, what)) in cases.into_iter().enumerate() {
        let mut args = first;
        args.extend(own_uci("Old"));
        args.extend(words("--variant chess --games 2 --depth 1"));
        let r = run_match(&format!("refused-option-{i}"), args);
        assert_refused(&r, &what);
    }
    // The options it offers and takes, it plays with.
    let r = against_amalgam(
        [picky(), words("option.Style=solid option.Level=3")].concat(),
        "--variant chess --games 2 --tc 5+0.1",
        "accepted-option",
    );
    assert!(r.ok, "{}{}", r.stdout, r.stderr);
    assert_eq!(tags(&r.pgn, "Result").len(), 2);
}

/// An engine whose `UCI_Variant` lists no values is asked for the variant,
/// and refused when it answers with an error.
#[test]
fn a_variant_the_engine_refuses_stops_the_match() {
    let play = |variant: &str| {
        against_amalgam(
            engine("Fake", &fake("fake_uci.sh", "string-variant"), "uci"),
            &format!("--variant {variant} --games 2 --depth 1 --random-plies 0"),
            &format!("string-variant-{variant}"),
        )
    };
    assert_refused(
        &play("compound"),
        "engine Fake: rejected option 'UCI_Variant' = 'compound': it answered \
         \"info string error: unknown variant compound\"",
    );
    // Orthodox chess it takes.
    let r = play("chess");
    assert!(r.ok, "{}{}", r.stdout, r.stderr);
    assert_eq!(tags(&r.pgn, "Termination").len(), 2);
}

/// The engines' processes whose command line holds `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if let Ok(cmd) = std::fs::read(entry.path().join("cmdline"))
            && String::from_utf8_lossy(&cmd).contains(marker)
        {
            out.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    out
}

/// The match that is stopped and resumed: deterministic (depth-limited
/// searches from a fresh table each game), long enough to be stopped in its
/// course. The second engine's command names its own variant file, so that
/// its processes can be found.
fn resumable_match(tag: &str) -> Vec<String> {
    let ini = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("resume-{tag}.ini"));
    std::fs::write(&ini, PLAIN_CHESS).expect("write the ini");
    let mut args = own_uci("Tuned");
    args.extend(engine(
        "Plain",
        &format!("{} --variants {} --uci", amalgam(), ini.display()),
        "uci",
    ));
    args.extend(words(
        "--variant chess --games 8 --depth 5 --random-plies 6 --seed 5 --concurrency 2 \
         --draw movenumber=30 movecount=4 score=50 --resign movecount=2 score=400",
    ));
    args.push("--sprt".into());
    args.extend(words(SPRT));
    args
}

/// A match stopped by SIGTERM stops within seconds, kills its engines and
/// leaves only whole games; `--resume` (after a game cut short is added to
/// the file) plays exactly the missing games, and the results are those of
/// the match played unbroken.
#[test]
fn a_match_stopped_by_sigterm_resumes_to_the_unbroken_results() {
    let whole = run_match("resume-whole", resumable_match("whole"));
    assert!(whole.ok, "{}{}", whole.stdout, whole.stderr);
    let games = records(&whole.pgn);
    assert_eq!(games.len(), 8);

    let args = resumable_match("stopped");
    let (mut cmd, pgn_path) = match_command("resume-stopped", &args);
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start the match");
    // Stopped once two games are in, others in progress.
    let begun = std::time::Instant::now();
    while records_in(&pgn_path) < 2 {
        assert!(begun.elapsed().as_secs() < 120, "no games written");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(kill.success());
    let signalled = std::time::Instant::now();
    let out = child.wait_with_output().expect("the match ends");
    let stopped_in = signalled.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stdout}{stderr}");
    assert!(stopped_in.as_secs() < 5, "{stopped_in:?}");
    assert!(
        stderr.contains("match stopped by SIGTERM") && stderr.contains("--resume"),
        "{stderr}"
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(processes_with("resume-stopped.ini"), Vec::<String>::new());
    // Only whole games, each one of the unbroken match's.
    let text = std::fs::read_to_string(&pgn_path).unwrap();
    let kept = records(&text);
    assert!(kept.len() >= 2 && kept.len() < 8, "{stdout}");
    for g in &kept {
        assert!(games.contains(g), "{g:?}");
    }
    assert_eq!(
        read_games(&text)
            .iter()
            .filter(|g| g.result.is_some())
            .count(),
        kept.len()
    );

    // A game cut short at the end of the file is dropped and played again.
    let last = &whole.pgn[whole.pgn.rfind("[Event ").unwrap()..];
    let cut = &last[..last.len() / 2];
    std::fs::write(&pgn_path, format!("{text}{cut}")).unwrap();
    let resume = || resume_match(&args, &pgn_path);
    let out = resume();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stderr.contains("the last game was cut short: dropped, to be played again")
            && stderr.contains(&format!("{} of the 8 games already played", kept.len())),
        "{stderr}"
    );
    assert!(
        stdout.contains(&format!("{} games in", 8 - kept.len())),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&pgn_path).unwrap();
    assert_eq!(records(&text), games, "{text}");
    assert_eq!(summary(&stdout), summary(&whole.stdout), "{stdout}");
    let (ok, check) = pgn_check(&pgn_path);
    assert!(ok && check.contains("8 game(s)"), "{check}");

    // Resumed again, it has nothing to play.
    let out = resume();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("\n0 games in"),
        "{stdout}"
    );
    assert_eq!(summary(&stdout), summary(&whole.stdout), "{stdout}");
    assert_eq!(std::fs::read_to_string(&pgn_path).unwrap(), text);
    // Resumed with other openings, its games are not those of the match.
    let mut other = args.clone();
    let seed = other.iter().position(|a| a == "--seed").unwrap() + 1;
    other[seed] = "6".into();
    let out = resume_match(&other, &pgn_path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // The first game in the file is refused: round 1 or, where the other
    // game of its pair ended first, round 2.
    assert!(
        stderr.contains("is not one of this match: round ")
            && stderr.contains(" does not open with"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&pgn_path).unwrap(), text);
}

/// The match `args` resumed from its PGN file.
fn resume_match(args: &[String], pgn: &Path) -> std::process::Output {
    Command::new(amalgam())
        .arg("match")
        .args(args)
        .arg("--pgn")
        .arg(pgn)
        .arg("--resume")
        .output()
        .expect("resume the match")
}

/// The whole games in a PGN file so far.
fn records_in(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    read_games(&text)
        .iter()
        .filter(|g| g.result.is_some())
        .count()
}

/// `pgn stats` reads its options as its help gives them: files before or
/// after `--sprt`, alpha and beta optional, numbers in a readable form.
#[test]
fn pgn_stats_reads_its_options_as_its_help_says() {
    let whole = whole_match();
    let path = whole.pgn_path.as_path();
    let run = |args: &[&str]| {
        Command::new(amalgam())
            .args(["pgn", "stats"])
            .args(args)
            .output()
            .expect("run amalgam pgn stats")
    };
    let file = path.to_str().unwrap();
    let after = stdout(&run(&[file, "--sprt", "elo0=0", "elo1=5"]));
    let before = stdout(&run(&["--sprt", "elo0=0", "elo1=5", file]));
    assert_eq!(before, after);
    assert_eq!(summary(&after), summary(&whole.stdout), "{after}");
    // Two files after the test: both read (as separate matches).
    let copy = whole.pgn_path.with_extension("copy.pgn");
    std::fs::copy(path, &copy).unwrap();
    let two = stdout(&run(&[
        "--separate",
        "--sprt",
        "elo1=5",
        "elo0=0",
        file,
        copy.to_str().unwrap(),
    ]));
    assert!(two.contains("14 games of Tuned, Plain"), "{two}");
    let tiny = stdout(&run(&[file, "--sprt", "elo0=0", "elo1=5", "alpha=1e-300"]));
    assert!(
        tiny.contains("SPRT elo0=0 elo1=5 alpha=1e-300 beta=0.05: "),
        "{tiny}"
    );
    for (args, what) in [
        (vec![file, "--sprt", "elo0=0"], "--sprt: elo1 is needed"),
        (
            vec![file, "--sprt", "elo0=0", "elo1=5", "gamma=1"],
            "--sprt: unknown parameter 'gamma'",
        ),
        (
            vec!["--sprt", "elo0=0", "elo1=5"],
            "give one or more PGN files",
        ),
    ] {
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(what), "{args:?}: {err}");
        // Said once, in the message's line (the usage below names it too).
        let first = err.lines().next().unwrap_or_default();
        assert_eq!(
            first.matches("--sprt").count(),
            usize::from(what.contains("--sprt")),
            "{err}"
        );
        assert!(!err.contains("alpha and beta are needed"), "{err}");
    }
    // An empty White tag is called empty.
    let empty = whole.pgn.replacen("[White \"Tuned\"]", "[White \"\"]", 1);
    let empty_path = whole.pgn_path.with_extension("empty-white.pgn");
    std::fs::write(&empty_path, empty).unwrap();
    let o = run(&[empty_path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(":1: the White tag is empty"), "{err}");
}

/// `--resume` replays the file's games by the rules: a game whose moves
/// were damaged (a line of its move text written twice) is refused, with
/// its line, and the file is left as it was, rather than kept and
/// continued into a file that `pgn check` refuses.
#[test]
fn a_resumed_game_that_breaks_the_rules_is_refused() {
    let mut args = own_uci("A");
    args.extend(own_uci("B"));
    args.extend(words("--depth 1 --games 4 --seed 7"));
    let whole = run_match("resume-illegal", args.clone());
    assert!(whole.ok, "{}{}", whole.stdout, whole.stderr);
    // The second line of the first game's move text, twice.
    let lines: Vec<&str> = whole.pgn.lines().collect();
    let moves = lines.iter().position(|l| l.starts_with("1. ")).unwrap();
    let mut damaged = lines[..=moves + 1].to_vec();
    damaged.extend(&lines[moves + 1..]);
    let damaged = damaged.join("\n") + "\n";
    std::fs::write(&whole.pgn_path, &damaged).unwrap();
    let (ok, check) = pgn_check(&whole.pgn_path);
    assert!(!ok, "the damage breaks no rule: {check}");
    let out = resume_match(&args, &whole.pgn_path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the game at line 1 does not replay by the rules: move "),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&whole.pgn_path).unwrap(), damaged);
}
