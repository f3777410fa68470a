//! `amalgam match`: engine-versus-engine matches refereed by the engine's own
//! rules code. Engines speak UCI or XBoard; games run on worker threads, each
//! with its own engine processes; finished games come back over a channel to
//! the thread that keeps the statistics and writes the PGN. A match asked to
//! stop (SIGINT, SIGTERM) abandons the games in progress, so that its PGN
//! holds only whole games, and `--resume` plays the rest.

pub mod config;
pub mod engine_proc;
pub mod errors;
pub mod limits;
pub mod pgn;
pub mod pgn_stats;
pub mod player;
pub mod referee;
pub mod results;
pub mod resume;
pub mod shard;
pub mod stats;
pub mod uci_client;
pub mod xboard_client;

use crate::tools::openings::Opening;
use crate::util::stop::Stop;
use config::{EngineSpec, MatchConfig, Prepared, Proto};
use errors::{MatchError, ResumeError};
use player::Player;
use referee::{GameReport, GameRules, play_game};
use results::{Results, fmt_elo, fmt_los};
use stats::SprtDecision;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::rules::game::Outcome;

/// Start an engine of the match in its protocol; its waits end when `stop`
/// is requested.
pub fn start_engine(
    spec: &EngineSpec,
    rules: &GameRules,
    stop: &Stop,
) -> Result<Box<dyn Player>, MatchError> {
    let variant = &rules.variant;
    let r: Result<Box<dyn Player>, _> = match spec.proto {
        Proto::Uci => uci_client::UciPlayer::start(&spec.launch, &spec.options, variant, stop)
            .map(|p| Box::new(p) as Box<dyn Player>),
        Proto::Xboard => xboard_client::XboardPlayer::start(
            &spec.launch,
            &spec.options,
            variant,
            &rules.limits,
            stop,
        )
        .map(|p| Box::new(p) as Box<dyn Player>),
    };
    r.map(|mut p| {
        if rules.probe {
            p.enable_probe();
        }
        p
    })
    .map_err(|error| MatchError::Engine {
        name: spec.name.clone(),
        error,
    })
}

/// One scheduled game.
#[derive(Clone, Debug)]
struct Scheduled {
    round: usize,
    /// The game pair (from 0): the games of every pairing of engines from
    /// one opening, with both colours.
    pair: usize,
    white: usize,
    black: usize,
    opening: usize,
}

/// A finished game as the workers report it.
struct Finished {
    game: Scheduled,
    report: GameReport,
    /// Engines that had to be started again before this game.
    restarted: Vec<usize>,
}

enum WorkerMessage {
    Finished(Box<Finished>),
    Fatal(MatchError),
}

/// What a match produced, for the caller's exit status.
pub struct MatchOutcome {
    /// Games played in this run.
    pub games: usize,
    /// Games read from the PGN file (`--resume`).
    pub resumed: usize,
    /// Games of the match (of its part, with `--shard`).
    pub scheduled: usize,
    pub fatal: Option<MatchError>,
    /// The match was asked to stop before its end.
    pub stopped: bool,
}

/// The match schedule: every pairing plays `games` games, each opening once
/// with each colour (the colours alternate). Game pair p holds games 2p and
/// 2p + 1 of every pairing; it opens from opening p (mod the openings).
fn schedule(engines: usize, games: usize, openings: usize) -> Vec<Scheduled> {
    let mut pairs = Vec::new();
    for a in 0..engines {
        for b in a + 1..engines {
            pairs.push((a, b));
        }
    }
    let mut out = Vec::new();
    for g in 0..games {
        for &(a, b) in &pairs {
            let (white, black) = if g % 2 == 0 { (a, b) } else { (b, a) };
            out.push(Scheduled {
                round: out.len() + 1,
                pair: g / 2,
                white,
                black,
                opening: (g / 2) % openings.max(1),
            });
        }
    }
    out
}

/// The games of the schedule already in the PGN file (`--resume`), read
/// and checked: its games in the file's order, the length of its text to
/// keep, and the text kept.
fn resume(
    cfg: &MatchConfig,
    path: &str,
    games: &[Scheduled],
    prepared: &Prepared,
) -> Result<(resume::Resumed, String), MatchError> {
    let failed = |error| MatchError::Resume {
        path: path.to_string(),
        error,
    };
    // A match not yet begun has no file.
    let text = if std::path::Path::new(path).exists() {
        crate::util::textfile::read(path, crate::util::textfile::MAX_DATA_BYTES)
            .map_err(|e| failed(ResumeError::Read(e.to_string())))?
    } else {
        String::new()
    };
    let by_round: HashMap<usize, &Scheduled> = games.iter().map(|g| (g.round, g)).collect();
    let expected = |round: usize| {
        by_round.get(&round).map(|g| {
            let opening = &prepared.openings[g.opening];
            resume::Expected {
                pair: g.pair,
                white: &cfg.engines[g.white].name,
                black: &cfg.engines[g.black].name,
                fen: &opening.fen,
                opening: opening_san(&prepared.variant, opening),
            }
        })
    };
    let replays = |g: &pgn::PgnGame| pgn::check_own_game(&prepared.variant, g);
    let found = resume::read(&text, &prepared.variant.name, expected, replays).map_err(failed)?;
    let kept = text[..found.keep].to_string();
    Ok((found, kept))
}

/// The moves of an opening after its FEN, in SAN.
fn opening_san(variant: &Arc<crate::rules::variant::Variant>, opening: &Opening) -> Vec<String> {
    let Ok(mut pos) = crate::rules::board::Position::from_fen(variant.clone(), &opening.fen) else {
        return Vec::new();
    };
    opening
        .moves
        .iter()
        .map(|&m| {
            let san = pos.san(m);
            pos.make(m);
            san
        })
        .collect()
}

/// Open the PGN file: created anew, or, resuming, cut to the whole games
/// it holds and appended to.
fn open_pgn(path: &str, kept: Option<&str>) -> Result<std::fs::File, MatchError> {
    let failed = |error| MatchError::Pgn {
        path: path.to_string(),
        error,
    };
    let Some(kept) = kept else {
        return std::fs::File::create(path).map_err(failed);
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(failed)?;
    file.set_len(kept.len() as u64).map_err(failed)?;
    file.flush().map_err(failed)?;
    drop(file);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(failed)?;
    file.write_all(resume::separator(kept).as_bytes())
        .map_err(failed)?;
    Ok(file)
}

/// Play a match and print its progress and summary. `stop` ends it early:
/// the games in progress are abandoned and their engines killed.
pub fn run(cfg: &MatchConfig, prepared: Prepared, stop: &Stop) -> MatchOutcome {
    let variant = prepared.variant.clone();
    let rules = Arc::new(GameRules {
        variant: variant.clone(),
        limits: cfg.limits,
        margin: Duration::from_millis(cfg.margin_ms),
        resign: cfg.resign,
        draw: cfg.draw,
        probe: cfg.probe,
    });
    let mut games = schedule(cfg.engines.len(), cfg.games, prepared.openings.len());
    let mut outcome = MatchOutcome {
        games: 0,
        resumed: 0,
        scheduled: games.len(),
        fatal: None,
        stopped: false,
    };
    if let Some(shard) = cfg.shard {
        keep_shard(shard, &mut games);
        outcome.scheduled = games.len();
        if games.is_empty() {
            // Every part leaves a PGN file, an empty one here (left as it
            // is when resuming).
            if let Some(path) = &cfg.pgn {
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .write(true)
                    .truncate(!cfg.resume)
                    .open(path);
                outcome.fatal = file.err().map(|error| MatchError::Pgn {
                    path: path.clone(),
                    error,
                });
            }
            return outcome;
        }
    }
    let resumed = match (&cfg.pgn, cfg.resume) {
        (Some(path), true) => match resume(cfg, path, &games, &prepared) {
            Ok(r) => Some(r),
            Err(e) => {
                outcome.fatal = Some(e);
                return outcome;
            }
        },
        _ => None,
    };
    // Start every engine once, so that a refusal stops the match before it
    // begins (and before the PGN file is touched).
    for spec in &cfg.engines {
        match start_engine(spec, &rules, stop) {
            Ok(mut p) => p.quit(),
            Err(e) => {
                outcome.stopped = stop.is_requested();
                if !outcome.stopped {
                    outcome.fatal = Some(e);
                }
                return outcome;
            }
        }
    }
    let mut pgn_file = match &cfg.pgn {
        Some(path) => match open_pgn(path, resumed.as_ref().map(|r| r.1.as_str())) {
            Ok(f) => Some(f),
            Err(e) => {
                outcome.fatal = Some(e);
                return outcome;
            }
        },
        None => None,
    };
    let total = games.len();
    let mut book = Tally::new(cfg);
    let halt = Arc::new(AtomicBool::new(false));
    let mut played = 0;
    if let (Some((found, _)), Some(path)) = (&resumed, &cfg.pgn) {
        played = count_resumed(cfg, found, path, &mut games, &mut book, &halt);
    }
    outcome.resumed = played;
    if halt.load(Ordering::Relaxed) {
        games.clear();
    }
    let queue = Arc::new(Mutex::new(games.into_iter().collect::<VecDeque<_>>()));
    let openings = Arc::new(prepared.openings);
    let (tx, rx) = channel();
    let mut workers = Vec::new();
    let waiting = queue.lock().map_or(0, |q| q.len());
    for _ in 0..cfg.concurrency.clamp(1, waiting.max(1)) {
        let (queue, halt, tx, stop) = (queue.clone(), halt.clone(), tx.clone(), stop.clone());
        let (rules, openings) = (rules.clone(), openings.clone());
        let engines = cfg.engines.clone();
        workers.push(std::thread::spawn(move || {
            let shared = Shared {
                engines: &engines,
                rules: &rules,
                openings: &openings,
                queue: &queue,
                halt: &halt,
                stop: &stop,
            };
            worker(&shared, &tx)
        }));
    }
    drop(tx);
    for msg in rx {
        match msg {
            WorkerMessage::Fatal(e) => {
                outcome.fatal.get_or_insert(e);
                halt.store(true, Ordering::Relaxed);
            }
            WorkerMessage::Finished(f) => {
                played += 1;
                outcome.games += 1;
                for &e in &f.restarted {
                    crate::outln!(
                        "Engine {} restarted before game {}",
                        cfg.engines[e].name,
                        f.game.round
                    );
                }
                for line in &f.report.log {
                    crate::outln!("{line}");
                }
                if let (Some(file), Some(path)) = (pgn_file.as_mut(), &cfg.pgn)
                    && let Err(error) = write_game(cfg, &variant, &f, file)
                {
                    outcome.fatal.get_or_insert(MatchError::Pgn {
                        path: path.clone(),
                        error,
                    });
                    halt.store(true, Ordering::Relaxed);
                }
                book.add(&f);
                crate::outln!("{}", book.progress(played, total));
                book.check_sprt(cfg, played, &halt);
            }
        }
    }
    for w in workers {
        let _ = w.join();
    }
    outcome.stopped = stop.is_requested();
    book.print_summary();
    outcome
}

/// Count the games already in the PGN file at `path` (`--resume`), in the
/// file's order and with the SPRT checked after each as when they were
/// played, and take them off the schedule `games`. Gives their number.
fn count_resumed(
    cfg: &MatchConfig,
    found: &resume::Resumed,
    path: &str,
    games: &mut Vec<Scheduled>,
    book: &mut Tally,
    halt: &AtomicBool,
) -> usize {
    if let Some(line) = found.dropped {
        eprintln!("{path}:{line}: the last game was cut short: dropped, to be played again");
    }
    let by_round: HashMap<usize, &Scheduled> = games.iter().map(|g| (g.round, g)).collect();
    let mut played = 0;
    for d in &found.done {
        if let Some(g) = by_round.get(&d.round) {
            played += 1;
            book.add_result(g, d.result, &d.termination);
            book.check_sprt(cfg, played, halt);
        }
    }
    let total = games.len();
    eprintln!("{path}: {played} of the {total} games already played");
    let done: BTreeSet<usize> = found.done.iter().map(|d| d.round).collect();
    games.retain(|g| !done.contains(&g.round));
    crate::outln!("{}", book.progress(played, total));
    played
}

/// Append a finished game to the PGN file.
fn write_game(
    cfg: &MatchConfig,
    variant: &Arc<crate::rules::variant::Variant>,
    f: &Finished,
    file: &mut std::fs::File,
) -> std::io::Result<()> {
    let tags = pgn::GameTags {
        event: &cfg.event,
        round: f.game.round,
        game_pair: f.game.pair + 1,
        white: &cfg.engines[f.game.white].name,
        black: &cfg.engines[f.game.black].name,
        time_control: cfg.limits.pgn(),
        date: pgn::today(),
        pair_promotion_off: !cfg.pair_promotion,
    };
    let text = pgn::write_game(variant, &tags, &f.report);
    file.write_all(text.as_bytes())?;
    file.flush()
}

/// Keep the games of `shard` and say which they are; a part without games
/// says so on standard error.
fn keep_shard(shard: shard::Shard, games: &mut Vec<Scheduled>) {
    let whole = games.len();
    let pairs = games.last().map_or(0, |g| g.pair + 1);
    games.retain(|g| shard.holds(g.pair));
    if !games.is_empty() {
        crate::outln!(
            "Shard {shard}: {} of the match's {whole} games ({} of its {pairs} game pairs)",
            games.len(),
            shard.pairs_of(pairs)
        );
        return;
    }
    eprintln!(
        "Shard {shard} plays nothing: the match has {pairs} game pair{}, fewer than {} parts",
        if pairs == 1 { "" } else { "s" },
        shard.count()
    );
}

/// What the workers of a match share.
struct Shared<'a> {
    engines: &'a [EngineSpec],
    rules: &'a GameRules,
    openings: &'a [Opening],
    queue: &'a Mutex<VecDeque<Scheduled>>,
    /// No new game is to start (the SPRT decided, or the match failed).
    halt: &'a AtomicBool,
    /// The match is to stop now: games in progress are abandoned.
    stop: &'a Stop,
}

/// How long a worker waits, after an engine crashed, to see whether a stop
/// came with the crash: a signal to the whole process group reaches the
/// engine too, and its game is then abandoned, not lost by a crash.
const CRASH_STOP_GRACE: Duration = Duration::from_millis(200);

/// A worker: takes games from the queue until it is empty or the match
/// halts, with its own engine processes (started again after a crash). A
/// game in progress when the match is asked to stop is not reported.
fn worker(shared: &Shared, tx: &Sender<WorkerMessage>) {
    let Shared {
        engines,
        rules,
        openings,
        queue,
        halt,
        stop,
    } = *shared;
    let mut players: Vec<Option<Box<dyn Player>>> = engines.iter().map(|_| None).collect();
    'games: loop {
        if halt.load(Ordering::Relaxed) || stop.is_requested() {
            break;
        }
        let next = match queue.lock() {
            Ok(mut q) => q.pop_front(),
            Err(_) => None,
        };
        let Some(game) = next else { break };
        let mut restarted = Vec::new();
        for e in [game.white, game.black] {
            let alive = players[e].as_ref().is_some_and(|p| p.is_alive());
            if !alive {
                if players[e].is_some() {
                    restarted.push(e);
                }
                match start_engine(&engines[e], rules, stop) {
                    Ok(p) => players[e] = Some(p),
                    Err(err) => {
                        if !stop.is_requested() {
                            let _ = tx.send(WorkerMessage::Fatal(err));
                        }
                        break 'games;
                    }
                }
            }
        }
        let (Some(mut w), Some(mut b)) = (players[game.white].take(), players[game.black].take())
        else {
            break;
        };
        let label = format!("Game {}", game.round);
        let report = play_game(
            rules,
            &openings[game.opening],
            [w.as_mut(), b.as_mut()],
            [&engines[game.white].name, &engines[game.black].name],
            &label,
        );
        players[game.white] = Some(w);
        players[game.black] = Some(b);
        let crashed = report.termination == referee::CRASH;
        if stop.is_requested()
            || crashed && {
                std::thread::sleep(CRASH_STOP_GRACE);
                stop.is_requested()
            }
        {
            break;
        }
        let msg = Finished {
            game,
            report,
            restarted,
        };
        if tx.send(WorkerMessage::Finished(Box::new(msg))).is_err() {
            break;
        }
    }
    for p in players.iter_mut().flatten() {
        p.quit();
    }
}

/// Where the SPRT stopped a match.
#[derive(Clone, Copy, Debug, PartialEq)]
struct SprtStop {
    /// Games counted when the test decided.
    games: usize,
    decision: SprtDecision,
    llr: f64,
}

impl SprtStop {
    fn line(&self) -> String {
        format!(
            "SPRT: {} at game {} (LLR {:.2})",
            self.decision, self.games, self.llr
        )
    }

    /// The decision stands at the game where the test crossed its bound;
    /// games already in progress then are finished and counted, and may
    /// move the LLR of the whole match back inside the bounds.
    fn summary_line(&self, games: usize) -> String {
        let late = games.saturating_sub(self.games);
        if late == 0 {
            return self.line();
        }
        format!(
            "{}; the {late} game{} then in progress {} finished and counted above",
            self.line(),
            if late == 1 { "" } else { "s" },
            if late == 1 { "was" } else { "were" }
        )
    }
}

/// Results and timing figures of a match.
struct Tally {
    results: Results,
    /// Where the SPRT decided, if it did.
    sprt_stop: Option<SprtStop>,
    terminations: std::collections::BTreeMap<String, usize>,
    sprt: Option<stats::Sprt>,
    min_clock_left_ms: Option<i64>,
    max_runner_gap: Duration,
    max_probe: Option<Duration>,
    restarts: usize,
}

impl Tally {
    fn new(cfg: &MatchConfig) -> Tally {
        Tally {
            results: Results::new(cfg.engines.iter().map(|e| e.name.clone()).collect()),
            sprt_stop: None,
            terminations: Default::default(),
            sprt: cfg.sprt,
            min_clock_left_ms: None,
            max_runner_gap: Duration::ZERO,
            max_probe: None,
            restarts: 0,
        }
    }

    /// Count a game's result and how it ended.
    fn add_result(&mut self, g: &Scheduled, result: Outcome, termination: &str) {
        self.results.add(g.pair, g.white, g.black, result);
        *self
            .terminations
            .entry(termination.to_string())
            .or_default() += 1;
    }

    /// Stop the match (`halt`) when its SPRT decides after `played` games.
    fn check_sprt(&mut self, cfg: &MatchConfig, played: usize, halt: &AtomicBool) {
        if let Some(sprt) = cfg.sprt
            && self.sprt_stop.is_none()
            && let Some(decision) = sprt.decision(&self.results.pair(0, 1))
        {
            let at = SprtStop {
                games: played,
                decision,
                llr: sprt.llr(&self.results.pair(0, 1)),
            };
            crate::outln!("{}", at.line());
            self.sprt_stop = Some(at);
            halt.store(true, Ordering::Relaxed);
        }
    }

    fn add(&mut self, f: &Finished) {
        self.add_result(&f.game, f.report.result, &f.report.termination);
        if let Some(m) = f.report.min_clock_left_ms {
            self.min_clock_left_ms = Some(self.min_clock_left_ms.map_or(m, |x| x.min(m)));
        }
        self.max_runner_gap = self.max_runner_gap.max(f.report.max_runner_gap);
        if let Some(p) = f.report.max_probe {
            self.max_probe = Some(self.max_probe.map_or(p, |m| m.max(p)));
        }
        self.restarts += f.restarted.len();
    }

    fn progress(&self, played: usize, total: usize) -> String {
        let s = self.results.total(0);
        let mut line = format!(
            "Games {played}/{total}: {} {}-{}-{} (W-L-D) Elo {} LOS {}",
            self.results.names()[0],
            s.wins,
            s.losses,
            s.draws,
            fmt_elo(&s),
            fmt_los(&s),
        );
        if let Some(sprt) = self.sprt {
            let (lo, hi) = sprt.bounds();
            line.push_str(&format!(
                " LLR {:.2} [{lo:.2}, {hi:.2}]",
                sprt.llr(&self.results.pair(0, 1))
            ));
        }
        line
    }

    fn print_summary(&self) {
        crate::outln!();
        for line in self.results.summary(self.sprt) {
            crate::outln!("{line}");
        }
        if let Some(at) = self.sprt_stop {
            let games = self.results.total(0).games() as usize;
            crate::outln!("{}", at.summary_line(games));
        }
        let ends: Vec<String> = self
            .terminations
            .iter()
            .map(|(t, n)| format!("{t} {n}"))
            .collect();
        crate::outln!("Endings: {}", ends.join(", "));
        if let Some(m) = self.min_clock_left_ms {
            crate::outln!("Lowest clock left after a move: {m} ms");
        }
        crate::outln!(
            "Longest runner gap between a reply and the next request: {:.1} ms",
            self.max_runner_gap.as_secs_f64() * 1000.0
        );
        if let Some(p) = self.max_probe {
            crate::outln!(
                "Longest answer to isready/ping during a search: {:.1} ms",
                p.as_secs_f64() * 1000.0
            );
        }
        if self.restarts > 0 {
            crate::outln!("Engine restarts: {}", self.restarts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SprtDecision, SprtStop, schedule};

    #[test]
    fn the_sprt_stop_is_reported_with_the_games_that_followed() {
        let at = SprtStop {
            games: 73,
            decision: SprtDecision::AcceptH1,
            llr: 3.012,
        };
        assert_eq!(at.line(), "SPRT: H1 accepted at game 73 (LLR 3.01)");
        assert_eq!(at.summary_line(73), at.line());
        assert_eq!(
            at.summary_line(75),
            "SPRT: H1 accepted at game 73 (LLR 3.01); \
             the 2 games then in progress were finished and counted above"
        );
        let h0 = SprtStop {
            decision: SprtDecision::AcceptH0,
            llr: -2.95,
            ..at
        };
        assert!(h0.summary_line(74).starts_with(
            "SPRT: H0 accepted at game 73 (LLR -2.95); the 1 game then in progress was"
        ));
    }

    #[test]
    fn every_opening_with_both_colours() {
        let s = schedule(2, 6, 3);
        assert_eq!(s.len(), 6);
        for (p, pair) in s.chunks(2).enumerate() {
            assert_eq!((pair[0].pair, pair[1].pair), (p, p));
            assert_eq!(pair[0].opening, pair[1].opening);
            assert_eq!(
                (pair[0].white, pair[0].black),
                (pair[1].black, pair[1].white)
            );
        }
        let rr = schedule(3, 2, 1);
        assert_eq!(rr.len(), 6);
        assert_eq!(
            rr.iter().map(|g| g.round).collect::<Vec<_>>(),
            vec![1, 2, 3, 4, 5, 6]
        );
    }
}
