//! The gate: a match of the candidate against the best evaluation of the
//! time, played by the match runner with both engines started as this
//! binary over UCI, each given its evaluation by a variant file
//! ([`super::nets::variant_file`]). Game pairs (each opening with both
//! colours), a short clock, an SPRT and a cap on the games; the candidate
//! is promoted only when the SPRT accepts H1 (better by `elo1`), and
//! rejected when it accepts H0 or the cap comes first. The games go to a
//! PGN file, so that a stopped gate is resumed (`--resume`) and its
//! result read from the file.

use super::Stop;
use crate::rules::game::Outcome;
use crate::rules::variant_set::VariantSet;
use crate::tools::matches::config::{EngineSpec, MatchConfig, OpeningChoice, Proto};
use crate::tools::matches::engine_proc::Launch;
use crate::tools::matches::limits::{Limits, TimeControl};
use crate::tools::matches::pgn::read_games;
use crate::tools::matches::pgn_stats::{FileRelation, merge};
use crate::tools::matches::referee::ResignRule;
use crate::tools::matches::stats::{Score, Sprt, SprtDecision, elo_of_score};
use crate::tools::openings;
use crate::tools::selfplay::RANDOM_PLIES;
use std::path::Path;

/// What a gate plays: its test, clock, cap and games at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GateSettings {
    pub sprt: Sprt,
    pub clock: TimeControl,
    pub max_games: usize,
    pub concurrency: usize,
}

/// The default test: elo0 = 0, elo1 = 30, alpha = beta = 0.05. A net that
/// is 30 Elo better is promoted 95% of the time and one no better than the
/// best 5% of the time; the gains of the first generations (+100 and
/// more) decide in a few dozen games.
pub const DEFAULT_SPRT: Sprt = Sprt {
    elo0: 0.0,
    elo1: 30.0,
    alpha: 0.05,
    beta: 0.05,
};

/// The default clock, 5 s + 0.05 s a move: a game of a small variant
/// takes some seconds, so a gate of a hundred games takes minutes on two
/// threads.
pub const DEFAULT_CLOCK: TimeControl = TimeControl {
    moves: None,
    base_ms: 5_000,
    inc_ms: 50,
};

/// [`DEFAULT_CLOCK`] as the command line writes it.
pub const DEFAULT_CLOCK_TEXT: &str = "5+0.05";

/// The default cap: 200 games (100 pairs); a gate still undecided there
/// rejects its candidate (the data stay, and the next generation has more).
pub const DEFAULT_MAX_GAMES: usize = 200;

/// Milliseconds an engine may run past its clock: the gate's engines share
/// the cores with each other and with other work.
const MARGIN_MS: u64 = 100;

/// The engines concede a game both see lost by 8 pawns for 4 moves each,
/// as in the matches that promoted the shipped nets.
const RESIGN: ResignRule = ResignRule {
    movecount: 4,
    score: 800,
};

/// Why a candidate was not promoted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The SPRT accepted H0.
    H0,
    /// The cap came first.
    Cap,
    /// The runner stopped on its test, but the games then in progress took
    /// the LLR back inside its bounds.
    Undecided,
}

/// The result of a gate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GateResult {
    /// The candidate's wins, losses and draws.
    pub score: Score,
    /// The candidate's Elo (a clean sweep counts as half a game less).
    pub elo: f64,
    pub llr: f64,
    pub verdict: Result<(), Rejection>,
}

impl GateResult {
    pub fn promoted(&self) -> bool {
        self.verdict.is_ok()
    }

    /// The verdict as the log writes it.
    pub fn verdict_text(&self) -> &'static str {
        match self.verdict {
            Ok(()) => "promoted",
            Err(_) => "rejected",
        }
    }

    pub fn why(&self) -> &'static str {
        match self.verdict {
            Ok(()) => "H1",
            Err(Rejection::H0) => "H0",
            Err(Rejection::Cap) => "cap",
            Err(Rejection::Undecided) => "undecided",
        }
    }
}

/// How a gate ended without a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateEnd {
    Stopped,
    Failed(String),
}

/// One engine of the gate: its name and its variant file.
pub struct Side<'a> {
    pub name: &'a str,
    pub variant_file: &'a Path,
}

/// A gate to play.
pub struct Gate<'a> {
    /// The referee's variants.
    pub set: &'a VariantSet,
    pub variant: &'a str,
    /// This binary.
    pub exe: &'a Path,
    pub candidate: Side<'a>,
    pub best: Side<'a>,
    pub pgn: &'a Path,
    pub settings: GateSettings,
    /// Seed of the openings.
    pub seed: u64,
    pub stop: &'a Stop,
}

/// The Elo of a score, a clean sweep counted as half a game less.
fn elo(s: &Score) -> f64 {
    s.elo().unwrap_or_else(|| {
        let n = f64::from(s.games().max(1));
        let points = f64::from(s.wins) + f64::from(s.draws) / 2.0;
        elo_of_score(points.clamp(0.5, n - 0.5) / n)
    })
}

/// `path` refused where it holds white space: the runner splits an
/// engine's command at white space, so no path in one may hold any.
pub fn without_spaces(path: &Path) -> Result<(), String> {
    let text = path.display().to_string();
    if text.contains(char::is_whitespace) {
        return Err(format!(
            "'{text}' holds a space: the gate's engines are started by a command split at \
             spaces (give --dir a path without one)"
        ));
    }
    Ok(())
}

impl Gate<'_> {
    /// The command that starts an engine with `variant_file`.
    fn engine(&self, side: &Side) -> Result<EngineSpec, String> {
        without_spaces(self.exe)?;
        without_spaces(side.variant_file)?;
        let words = [self.exe, side.variant_file].map(|p| p.display().to_string());
        Ok(EngineSpec {
            name: side.name.to_string(),
            launch: Launch {
                command: format!("{} --variants {} --uci", words[0], words[1]),
                dir: None,
            },
            proto: Proto::Uci,
            options: vec![
                ("Hash".to_string(), "16".to_string()),
                ("Threads".to_string(), "1".to_string()),
            ],
        })
    }

    /// The match of the gate.
    pub fn config(&self) -> Result<MatchConfig, String> {
        let openings = if openings::shipped(self.variant).is_some() {
            OpeningChoice::Shipped { seed: self.seed }
        } else {
            OpeningChoice::Random {
                plies: RANDOM_PLIES,
                seed: self.seed,
            }
        };
        Ok(MatchConfig {
            engines: vec![self.engine(&self.candidate)?, self.engine(&self.best)?],
            variant: self.variant.to_string(),
            pair_promotion: true,
            games: self.settings.max_games,
            concurrency: self.settings.concurrency.max(1),
            limits: Limits {
                clock: Some(self.settings.clock),
                ..Default::default()
            },
            margin_ms: MARGIN_MS,
            probe: false,
            openings,
            pgn: Some(self.pgn.display().to_string()),
            resume: true,
            sprt: Some(self.settings.sprt),
            resign: Some(RESIGN),
            draw: None,
            event: format!("amalgam learn gate of {}", self.candidate.name),
            shard: None,
            ini: Vec::new(),
        })
    }

    /// Play the gate (or the rest of it) and read its result.
    pub fn play(&self) -> Result<GateResult, GateEnd> {
        let cfg = self.config().map_err(GateEnd::Failed)?;
        cfg.check().map_err(|e| GateEnd::Failed(e.to_string()))?;
        let mut set = self.set.clone();
        let prepared = cfg
            .prepare(&mut set)
            .map_err(|e| GateEnd::Failed(e.to_string()))?;
        let outcome = crate::tools::matches::run(&cfg, prepared, self.stop);
        if outcome.stopped || self.stop.is_requested() {
            return Err(GateEnd::Stopped);
        }
        if let Some(e) = outcome.fatal {
            return Err(GateEnd::Failed(e.to_string()));
        }
        self.result().map_err(GateEnd::Failed)
    }

    /// The result of the games in the PGN file.
    pub fn result(&self) -> Result<GateResult, String> {
        let path = self.pgn.display().to_string();
        let text = crate::util::textfile::read(&path, crate::util::textfile::MAX_DATA_BYTES)
            .map_err(|e| format!("{path}: {e}"))?;
        let merged = merge(&[(path.clone(), text.clone())], FileRelation::Parts)
            .map_err(|e| e.to_string())?;
        // The candidate against the other engine of the file (named as the
        // best was when the games were played).
        let names = merged.results.names();
        let candidate = names.iter().position(|n| n == self.candidate.name);
        let other = names.iter().position(|n| n != self.candidate.name);
        let score = match (candidate, other) {
            (Some(c), Some(b)) => merged.results.pair(c, b),
            _ => Score::default(),
        };
        let decided = first_decision(&text, self.candidate.name, &self.settings.sprt);
        Ok(decide(score, decided, &self.settings))
    }
}

/// The SPRT's decision after the first game at which it decided, the games
/// taken in the order the PGN file holds them: the order in which they
/// ended, which the match's own test followed. The games in progress when
/// the test decided are finished and written too; they count in the score
/// but do not undo the decision (with them the LLR may fall back inside
/// the bounds).
pub fn first_decision(pgn: &str, candidate: &str, sprt: &Sprt) -> Option<SprtDecision> {
    let mut score = Score::default();
    for game in read_games(pgn) {
        let (Some(white), Some(black)) = (game.tag("White"), game.tag("Black")) else {
            continue;
        };
        let result = game.tag("Result").or(game.result.as_deref());
        let Some(outcome) = result.and_then(Outcome::from_pgn) else {
            continue;
        };
        let as_white = match (white == candidate, black == candidate) {
            (true, false) => true,
            (false, true) => false,
            _ => continue,
        };
        match (outcome, as_white) {
            (Outcome::Draw, _) => score.draws += 1,
            (Outcome::WhiteWins, true) | (Outcome::BlackWins, false) => score.wins += 1,
            _ => score.losses += 1,
        }
        if let Some(d) = sprt.decision(&score) {
            return Some(d);
        }
    }
    None
}

/// The verdict on the candidate's `score`, the SPRT having `decided` as
/// the games were played (else its decision on the whole score).
pub fn decide(score: Score, decided: Option<SprtDecision>, settings: &GateSettings) -> GateResult {
    let sprt = settings.sprt;
    let verdict = match decided.or_else(|| sprt.decision(&score)) {
        Some(SprtDecision::AcceptH1) => Ok(()),
        Some(SprtDecision::AcceptH0) => Err(Rejection::H0),
        None if score.games() as usize >= settings.max_games => Err(Rejection::Cap),
        None => Err(Rejection::Undecided),
    };
    GateResult {
        score,
        elo: elo(&score),
        llr: sprt.llr(&score),
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_clock_reads_as_written() {
        assert_eq!(TimeControl::parse(DEFAULT_CLOCK_TEXT), Ok(DEFAULT_CLOCK));
    }

    /// A PGN of games of `cand` against `other`, each `(candidate is
    /// White, result)`.
    fn pgn(cand: &str, other: &str, games: &[(bool, &str)]) -> String {
        let mut text = String::new();
        for (i, &(white, result)) in games.iter().enumerate() {
            let (w, b) = if white { (cand, other) } else { (other, cand) };
            text.push_str(&format!(
                "[Round \"{}\"]\n[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"{result}\"]\n\n{result}\n\n",
                i + 1
            ));
        }
        text
    }

    #[test]
    fn the_decision_is_the_first_the_games_in_their_order_reach() {
        let settings = GateSettings {
            sprt: DEFAULT_SPRT,
            clock: DEFAULT_CLOCK,
            max_games: 400,
            concurrency: 1,
        };
        let sprt = settings.sprt;
        // Wins with both colours until the test accepts H1.
        let mut games = Vec::new();
        let mut score = Score::default();
        while sprt.decision(&score).is_none() {
            let white = games.len() % 2 == 0;
            games.push((white, if white { "1-0" } else { "0-1" }));
            score.wins += 1;
        }
        let accepted_at = games.len();
        // Then losses, finished after the decision, that take the LLR back
        // inside the bounds.
        while sprt.decision(&score).is_some() {
            games.push((true, "0-1"));
            score.losses += 1;
        }
        let text = pgn("gen-2", "best", &games);
        assert_eq!(
            first_decision(&text, "gen-2", &sprt),
            Some(SprtDecision::AcceptH1)
        );
        assert_eq!(
            decide(score, None, &settings).verdict,
            Err(Rejection::Undecided)
        );
        let decided = first_decision(&text, "gen-2", &sprt);
        assert!(decide(score, decided, &settings).promoted());
        // Without the games after the decision, the same; with one game
        // fewer, no decision; the other engine's view: H0 at once.
        let head = pgn("gen-2", "best", &games[..accepted_at]);
        assert_eq!(
            first_decision(&head, "gen-2", &sprt),
            Some(SprtDecision::AcceptH1)
        );
        let short = pgn("gen-2", "best", &games[..accepted_at - 1]);
        assert_eq!(first_decision(&short, "gen-2", &sprt), None);
        assert_eq!(
            first_decision(&head, "best", &sprt),
            Some(SprtDecision::AcceptH0)
        );
        // Games of other engines and unfinished ones are not counted.
        let others = pgn("x", "y", &games);
        assert_eq!(first_decision(&others, "gen-2", &sprt), None);
        let unfinished = pgn("gen-2", "best", &vec![(true, "*"); accepted_at]);
        assert_eq!(first_decision(&unfinished, "gen-2", &sprt), None);
    }

    #[test]
    fn only_an_accepted_h1_promotes() {
        let settings = GateSettings {
            sprt: DEFAULT_SPRT,
            clock: DEFAULT_CLOCK,
            max_games: 400,
            concurrency: 1,
        };
        let score = |wins, losses, draws| Score {
            wins,
            losses,
            draws,
        };
        let strong = decide(score(60, 10, 10), None, &settings);
        assert!(
            strong.promoted() && strong.llr > 2.9 && strong.elo > 200.0,
            "{strong:?}"
        );
        assert_eq!(
            decide(score(10, 60, 10), None, &settings).verdict,
            Err(Rejection::H0)
        );
        assert_eq!(
            decide(
                score(16, 14, 10),
                None,
                &GateSettings {
                    max_games: 40,
                    ..settings
                }
            )
            .verdict,
            Err(Rejection::Cap)
        );
        assert_eq!(
            decide(score(3, 2, 1), None, &settings).verdict,
            Err(Rejection::Undecided)
        );
        // A clean sweep has a finite Elo.
        let sweep = decide(score(10, 0, 0), None, &settings);
        assert!(sweep.elo.is_finite() && sweep.elo > 300.0, "{sweep:?}");
        assert!(decide(score(0, 0, 0), None, &settings).elo.is_finite());
    }
}
