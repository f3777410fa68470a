//! `amalgam match`: engine-versus-engine matches refereed by the engine's own
//! rules code. Engines speak UCI or XBoard; games run on worker threads, each
//! with its own engine processes; finished games come back over a channel to
//! the thread that keeps the statistics and writes the PGN.

pub mod config;
pub mod engine_proc;
pub mod limits;
pub mod pgn;
pub mod pgn_stats;
pub mod player;
pub mod referee;
pub mod results;
pub mod shard;
pub mod stats;
pub mod uci_client;
pub mod xboard_client;

use crate::tools::openings::{self, Opening};
use config::{EngineSpec, MatchConfig, Proto};
use player::Player;
use referee::{GameReport, GameRules, play_game};
use results::{Results, fmt_elo, fmt_los};
use stats::SprtDecision;
use std::collections::VecDeque;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::rules::variant::Variant;

/// Start an engine of the match in its protocol.
pub fn start_engine(spec: &EngineSpec, rules: &GameRules) -> Result<Box<dyn Player>, String> {
    let variant = &rules.variant;
    let r: Result<Box<dyn Player>, String> = match spec.proto {
        Proto::Uci => uci_client::UciPlayer::start(&spec.launch, &spec.options, variant)
            .map(|p| Box::new(p) as Box<dyn Player>),
        Proto::Xboard => {
            xboard_client::XboardPlayer::start(&spec.launch, &spec.options, variant, &rules.limits)
                .map(|p| Box::new(p) as Box<dyn Player>)
        }
    };
    r.map(|mut p| {
        if rules.probe {
            p.enable_probe();
        }
        p
    })
    .map_err(|e| format!("engine {}: {e}", spec.name))
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
    Fatal(String),
}

/// What a match produced, for the caller's exit code.
pub struct MatchOutcome {
    pub games: usize,
    pub fatal: Option<String>,
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

/// Play a match and print its progress and summary.
pub fn run(cfg: &MatchConfig, variant: Arc<Variant>) -> MatchOutcome {
    let rules = Arc::new(GameRules {
        variant: variant.clone(),
        limits: cfg.limits,
        margin: Duration::from_millis(cfg.margin_ms),
        resign: cfg.resign,
        draw: cfg.draw,
        probe: cfg.probe,
    });
    let openings: Vec<Opening> = match &cfg.openings {
        config::OpeningSource::File(list) => list.clone(),
        config::OpeningSource::Random { plies, seed } => {
            openings::random(&variant, *plies, *seed, cfg.games.div_ceil(2).max(1))
        }
        config::OpeningSource::Start => vec![Opening::start(&variant)],
    };
    let mut games = schedule(cfg.engines.len(), cfg.games, openings.len());
    if let Some(shard) = cfg.shard
        && let Some(nothing) = keep_shard(shard, &mut games, cfg.pgn.as_deref())
    {
        return nothing;
    }
    // Start every engine once, so that a refusal stops the match before it begins.
    for spec in &cfg.engines {
        match start_engine(spec, &rules) {
            Ok(mut p) => p.quit(),
            Err(e) => {
                return MatchOutcome {
                    games: 0,
                    fatal: Some(e),
                };
            }
        }
    }
    let total = games.len();
    let queue = Arc::new(Mutex::new(games.into_iter().collect::<VecDeque<_>>()));
    let stop = Arc::new(AtomicBool::new(false));
    let openings = Arc::new(openings);
    let (tx, rx) = channel();
    let mut workers = Vec::new();
    for _ in 0..cfg.concurrency.clamp(1, total.max(1)) {
        let (queue, stop, tx) = (queue.clone(), stop.clone(), tx.clone());
        let (rules, openings) = (rules.clone(), openings.clone());
        let engines = cfg.engines.clone();
        workers.push(std::thread::spawn(move || {
            worker(&engines, &rules, &openings, &queue, &stop, &tx)
        }));
    }
    drop(tx);
    let mut book = Tally::new(cfg);
    let mut pgn_file = cfg
        .pgn
        .as_ref()
        .map(|path| std::fs::File::create(path).map_err(|e| format!("{path}: {e}")));
    let mut fatal = None;
    if let Some(Err(e)) = &pgn_file {
        fatal = Some(e.clone());
        stop.store(true, Ordering::Relaxed);
    }
    let mut played = 0;
    for msg in rx {
        match msg {
            WorkerMessage::Fatal(e) => {
                fatal.get_or_insert(e);
                stop.store(true, Ordering::Relaxed);
            }
            WorkerMessage::Finished(f) => {
                played += 1;
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
                if let Some(Ok(file)) = pgn_file.as_mut() {
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
                    let text = pgn::write_game(&variant, &tags, &f.report);
                    if let Err(e) = file.write_all(text.as_bytes()).and_then(|_| file.flush()) {
                        fatal.get_or_insert(format!("PGN: {e}"));
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                book.add(&f);
                crate::outln!("{}", book.progress(played, total));
                if let Some(sprt) = cfg.sprt
                    && book.sprt_stop.is_none()
                    && let Some(decision) = sprt.decision(&book.results.pair(0, 1))
                {
                    let at = SprtStop {
                        games: played,
                        decision,
                        llr: sprt.llr(&book.results.pair(0, 1)),
                    };
                    crate::outln!("{}", at.line());
                    book.sprt_stop = Some(at);
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    }
    for w in workers {
        let _ = w.join();
    }
    book.print_summary();
    MatchOutcome {
        games: played,
        fatal,
    }
}

/// Keep the games of `shard` and say which they are. A part without games
/// ends the match here, leaving an empty PGN file (every part leaves one).
fn keep_shard(
    shard: shard::Shard,
    games: &mut Vec<Scheduled>,
    pgn: Option<&str>,
) -> Option<MatchOutcome> {
    let whole = games.len();
    let pairs = games.last().map_or(0, |g| g.pair + 1);
    games.retain(|g| shard.holds(g.pair));
    if !games.is_empty() {
        crate::outln!(
            "Shard {shard}: {} of the match's {whole} games ({} of its {pairs} game pairs)",
            games.len(),
            shard.pairs_of(pairs)
        );
        return None;
    }
    crate::outln!(
        "Shard {shard} plays nothing: the match has {pairs} game pair{}, fewer than {} parts",
        if pairs == 1 { "" } else { "s" },
        shard.count()
    );
    let fatal = pgn.and_then(|path| {
        std::fs::File::create(path)
            .err()
            .map(|e| format!("{path}: {e}"))
    });
    Some(MatchOutcome { games: 0, fatal })
}

/// A worker: takes games from the queue until it is empty or the match
/// stops, with its own engine processes (started again after a crash).
fn worker(
    engines: &[EngineSpec],
    rules: &GameRules,
    openings: &[Opening],
    queue: &Mutex<VecDeque<Scheduled>>,
    stop: &AtomicBool,
    tx: &Sender<WorkerMessage>,
) {
    let mut players: Vec<Option<Box<dyn Player>>> = engines.iter().map(|_| None).collect();
    loop {
        if stop.load(Ordering::Relaxed) {
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
                match start_engine(&engines[e], rules) {
                    Ok(p) => players[e] = Some(p),
                    Err(err) => {
                        let _ = tx.send(WorkerMessage::Fatal(err));
                        return;
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

    fn add(&mut self, f: &Finished) {
        let g = &f.game;
        self.results.add(g.pair, g.white, g.black, f.report.result);
        *self
            .terminations
            .entry(f.report.termination.clone())
            .or_default() += 1;
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
