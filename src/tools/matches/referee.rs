//! One game between two engines, refereed by the engine's own rules code:
//! real clocks, every move checked, the game ended by the rules whatever the
//! engines claim.
//!
//! Rules of the referee:
//! - A move that is not legal loses; the position is logged as a FEN.
//! - Time is measured from the moment a request is written to the moment the
//!   reply line is read (stamped by the reader thread); an engine whose clock
//!   runs out (or that overruns a fixed move time) by more than the margin
//!   loses on time, and an engine that does not answer at all loses on time
//!   once its clock (or, without a clock, the stall limit) has passed.
//! - An engine that exits loses ("crash") and is started again for the next game.
//! - `resign` loses. A result claim while the game goes on is false: a claim
//!   of the claimer's own loss counts as resignation, any other false claim
//!   loses ("false claim"). Draw offers are ignored.
//! - Score adjudication (resign / draw) only when asked for.

use super::limits::Limits;
use super::player::{Failure, Player, Reply, SearchInfo, Turn};
use crate::rules::board::Position;
use crate::rules::game::{Outcome, outcome};
use crate::rules::types::{Color, Move};
use crate::rules::variant::Variant;
use crate::tools::openings::Opening;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long an engine may take to start a game.
const HANDSHAKE: Duration = Duration::from_secs(10);
/// Without a clock or a move time, how long an engine may stay silent.
pub const STALL_LIMIT: Duration = Duration::from_secs(60);
/// A game this long (plies) is adjudicated a draw; the move rules of every
/// built-in variant end games long before.
pub const MAX_PLIES: usize = 2000;
/// The PGN `Termination` of a game lost by an engine that exited.
pub const CRASH: &str = "crash";

/// Resign adjudication: both engines agree for `movecount` moves each that
/// one side is at least `score` centipawns behind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignRule {
    pub movecount: u32,
    pub score: i32,
}

/// Draw adjudication: from move `movenumber` on, both engines report scores
/// within `score` centipawns of zero for `movecount` moves each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    pub movenumber: u32,
    pub movecount: u32,
    pub score: i32,
}

/// One `key=number` word of an adjudication rule (`movecount=3`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleWord {
    pub key: String,
    pub value: i64,
}

impl RuleWord {
    pub fn parse(word: &str) -> Result<RuleWord, String> {
        let (k, v) = word
            .split_once('=')
            .ok_or_else(|| format!("expected key=number, got '{word}'"))?;
        let value = v
            .parse()
            .map_err(|_| format!("{k}: '{v}' is not a whole number"))?;
        Ok(RuleWord {
            key: k.to_string(),
            value,
        })
    }
}

/// The values of `keys` in `words`, each given once.
fn rule_values<const N: usize>(words: &[RuleWord], keys: [&str; N]) -> Result<[i64; N], String> {
    let mut vals = [None; N];
    for w in words {
        let i = keys
            .iter()
            .position(|k| *k == w.key)
            .ok_or_else(|| format!("unknown key '{}' ({})", w.key, keys.join(", ")))?;
        if vals[i].replace(w.value).is_some() {
            return Err(format!("{} is given twice", w.key));
        }
    }
    let mut out = [0; N];
    for (i, v) in vals.into_iter().enumerate() {
        out[i] = v.ok_or_else(|| format!("{}= is needed", keys[i]))?;
    }
    Ok(out)
}

fn count(key: &str, v: i64) -> Result<u32, String> {
    u32::try_from(v).map_err(|_| format!("{key}: {v} is no count (0 to {})", u32::MAX))
}

fn centipawns(v: i64) -> Result<i32, String> {
    i32::try_from(v)
        .map_err(|_| format!("score: {v} is out of range ({} to {})", i32::MIN, i32::MAX))
}

impl ResignRule {
    /// The rule of `movecount=M score=CP`.
    pub fn from_words(words: &[RuleWord]) -> Result<ResignRule, String> {
        let [movecount, score] = rule_values(words, ["movecount", "score"])?;
        Ok(ResignRule {
            movecount: count("movecount", movecount)?,
            score: centipawns(score)?,
        })
    }
}

impl DrawRule {
    /// The rule of `movenumber=N movecount=M score=CP`.
    pub fn from_words(words: &[RuleWord]) -> Result<DrawRule, String> {
        let [movenumber, movecount, score] =
            rule_values(words, ["movenumber", "movecount", "score"])?;
        Ok(DrawRule {
            movenumber: count("movenumber", movenumber)?,
            movecount: count("movecount", movecount)?,
            score: centipawns(score)?,
        })
    }
}

/// Everything that is the same for every game of a match.
pub struct GameRules {
    pub variant: Arc<Variant>,
    pub limits: Limits,
    /// Time an engine may exceed its clock by before it loses.
    pub margin: Duration,
    pub resign: Option<ResignRule>,
    pub draw: Option<DrawRule>,
    /// Probe the engines' liveness while they think (see [`super::player::Probe`]).
    pub probe: bool,
}

/// A move of the game record with its PGN comment.
#[derive(Clone, Debug)]
pub struct RecordedMove {
    pub mv: Move,
    pub comment: Option<String>,
}

/// How a game went.
#[derive(Clone, Debug)]
pub struct GameReport {
    pub start_fen: String,
    pub moves: Vec<RecordedMove>,
    pub result: Outcome,
    /// PGN `Termination` value.
    pub termination: String,
    /// Human-readable reason, e.g. "Black loses on time".
    pub reason: String,
    /// Events worth a line in the match log (illegal moves, crashes ...).
    pub log: Vec<String>,
    /// The lowest clock any engine had left after a move (negative: the
    /// time it overran by).
    pub min_clock_left_ms: Option<i64>,
    /// The longest time the runner itself took between a reply and the next
    /// request.
    pub max_runner_gap: Duration,
    /// The longest answer to a liveness probe during a search, when probing.
    pub max_probe: Option<Duration>,
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn win_for(c: Color) -> Outcome {
    match c {
        Color::White => Outcome::WhiteWins,
        Color::Black => Outcome::BlackWins,
    }
}

/// PGN comment of an engine move: `{+0.35/12 0.52s}`.
fn move_comment(info: &SearchInfo, elapsed: Duration) -> String {
    let time = format!("{:.2}s", elapsed.as_secs_f64());
    let score = match (info.mate, info.score_cp) {
        // The engine's numbers may be anything: `i32::MIN` has no `abs`.
        (Some(m), _) => Some(format!(
            "{}M{}",
            if m < 0 { "-" } else { "+" },
            m.unsigned_abs()
        )),
        (None, Some(cp)) => Some(format!("{:+.2}", cp as f64 / 100.0)),
        _ => None,
    };
    match (score, info.depth) {
        (Some(s), Some(d)) => format!("{s}/{d} {time}"),
        (Some(s), None) => format!("{s} {time}"),
        _ => time,
    }
}

/// Consecutive-score counters of the adjudication rules.
#[derive(Default)]
struct ScoreRuns {
    losing: [u32; 2],
    winning: [u32; 2],
    level: [u32; 2],
}

impl ScoreRuns {
    fn record(&mut self, side: Color, score: Option<i32>, rules: &GameRules) {
        let i = side.index();
        let run = |count: u32, hit: bool| if hit { count + 1 } else { 0 };
        let resign = rules.resign.map_or(i32::MAX, |r| r.score);
        let draw = rules.draw.map_or(-1, |d| d.score);
        match score {
            // Saturating: the scores come from the engines and the bounds
            // from the command line, and either may be `i32::MIN`.
            Some(s) => {
                self.losing[i] = run(self.losing[i], s <= resign.saturating_neg());
                self.winning[i] = run(self.winning[i], s >= resign);
                self.level[i] = run(self.level[i], s.saturating_abs() <= draw);
            }
            None => (self.losing[i], self.winning[i], self.level[i]) = (0, 0, 0),
        }
    }

    /// The adjudicated result, if the rules give one now.
    fn verdict(&self, rules: &GameRules, fullmove: u32) -> Option<(Outcome, String)> {
        if let Some(r) = rules.resign {
            for side in [Color::White, Color::Black] {
                let (i, o) = (side.index(), side.flip().index());
                if self.losing[i] >= r.movecount && self.winning[o] >= r.movecount {
                    let text = format!("{} resigns by adjudication", color_name(side));
                    return Some((win_for(side.flip()), text));
                }
            }
        }
        if let Some(d) = rules.draw
            && fullmove >= d.movenumber
            && self.level.iter().all(|&n| n >= d.movecount)
        {
            return Some((Outcome::Draw, "Draw by adjudication".into()));
        }
        None
    }
}

/// The clock state of a game.
struct Clocks {
    left_ms: [i64; 2],
    moves_made: [u32; 2],
}

/// Play one game. `players[0]` has White. `names` go into log lines.
pub fn play_game(
    rules: &GameRules,
    opening: &Opening,
    players: [&mut dyn Player; 2],
    names: [&str; 2],
    label: &str,
) -> GameReport {
    let mut players = players;
    let variant = &rules.variant;
    let mut report = GameReport {
        start_fen: opening.fen.clone(),
        moves: Vec::new(),
        result: Outcome::Draw,
        termination: String::new(),
        reason: String::new(),
        log: Vec::new(),
        min_clock_left_ms: None,
        max_runner_gap: Duration::ZERO,
        max_probe: None,
    };
    let start = match Position::from_fen(variant.clone(), &opening.fen) {
        Ok(p) => p,
        Err(e) => {
            report.termination = "abandoned".into();
            report.reason = format!("bad opening: {e}");
            return report;
        }
    };
    let mut pos = start.clone();
    for &m in &opening.moves {
        pos.make(m);
        report.moves.push(RecordedMove {
            mv: m,
            comment: None,
        });
    }
    let end = play_moves(
        rules,
        &start,
        &mut pos,
        &mut players,
        names,
        label,
        &mut report,
    );
    report.result = end.0;
    report.termination = end.1;
    report.reason = end.2;
    for p in players.iter_mut() {
        if p.is_alive() {
            p.game_over(report.result, &report.reason);
        }
    }
    report
}

/// The game loop; returns (result, termination, reason).
fn play_moves(
    rules: &GameRules,
    start: &Position,
    pos: &mut Position,
    players: &mut [&mut dyn Player; 2],
    names: [&str; 2],
    label: &str,
    report: &mut GameReport,
) -> (Outcome, String, String) {
    for (i, p) in players.iter_mut().enumerate() {
        let side = [Color::White, Color::Black][i];
        if let Err(f) = p.new_game(&rules.variant, start) {
            return failure(side, names[i], HANDSHAKE, &f, pos, label, report);
        }
    }
    let base = rules.limits.clock.map_or(0, |tc| tc.base_ms as i64);
    let mut clocks = Clocks {
        left_ms: [base; 2],
        moves_made: [0; 2],
    };
    let mut runs = ScoreRuns::default();
    let mut last_reply: Option<Instant> = None;
    let mut history: Vec<Move> = report.moves.iter().map(|r| r.mv).collect();
    loop {
        if let Some((o, t)) = outcome(pos) {
            let reason = match o {
                Outcome::Draw => format!("Draw by {}", t.describe()),
                _ => format!(
                    "{} wins by {}",
                    color_name(pos.side_to_move().flip()),
                    t.describe()
                ),
            };
            return (o, t.describe().to_string(), reason);
        }
        if history.len() >= MAX_PLIES {
            return (
                Outcome::Draw,
                "adjudication".into(),
                "Draw: game too long".into(),
            );
        }
        let side = pos.side_to_move();
        let i = side.index();
        let moves_to_go = rules
            .limits
            .clock
            .and_then(|tc| tc.moves.map(|m| m - clocks.moves_made[i] % m));
        let mut wait = STALL_LIMIT;
        if rules.limits.clock.is_some() {
            wait = Duration::from_millis(clocks.left_ms[i].max(0) as u64) + rules.margin;
        }
        if let Some(ms) = rules.limits.movetime_ms {
            wait = wait.min(Duration::from_millis(ms) + rules.margin);
        }
        let turn = Turn {
            start,
            history: &history,
            position: pos,
            limits: &rules.limits,
            clocks: clocks.left_ms,
            moves_to_go,
            wait,
        };
        let (answer, sent) = match players[i].think(&turn) {
            Ok(a) => a,
            Err(f) => return failure(side, names[i], wait, &f, pos, label, report),
        };
        if let Some(prev) = last_reply {
            report.max_runner_gap = report
                .max_runner_gap
                .max(sent.saturating_duration_since(prev));
        }
        last_reply = Some(answer.at);
        if let Some(p) = answer.probe {
            report.max_probe = Some(report.max_probe.map_or(p, |m| m.max(p)));
        }
        let elapsed = answer.at.saturating_duration_since(sent);
        let elapsed_ms = elapsed.as_millis() as i64;
        let margin_ms = rules.margin.as_millis() as i64;
        if let Some(tc) = rules.limits.clock {
            clocks.left_ms[i] -= elapsed_ms;
            note_clock(report, clocks.left_ms[i]);
            if clocks.left_ms[i] < -margin_ms {
                let detail = format!(
                    "took {elapsed_ms} ms of {} ms",
                    clocks.left_ms[i] + elapsed_ms
                );
                return on_time(side, names[i], &detail, pos, label, report);
            }
            clocks.left_ms[i] += tc.inc_ms as i64;
            clocks.moves_made[i] += 1;
            if let Some(m) = tc.moves
                && clocks.moves_made[i].is_multiple_of(m)
            {
                clocks.left_ms[i] += tc.base_ms as i64;
            }
        }
        if let Some(ms) = rules.limits.movetime_ms
            && elapsed_ms > ms as i64 + margin_ms
        {
            let detail = format!("took {elapsed_ms} ms of {ms} ms");
            return on_time(side, names[i], &detail, pos, label, report);
        }
        let text = match answer.reply {
            Reply::Move(t) => t,
            Reply::Resign => {
                let reason = format!("{} resigns", color_name(side));
                return (win_for(side.flip()), "resignation".into(), reason);
            }
            Reply::Claim(claimed, why) => {
                report.log.push(format!(
                    "{label}: {} ({}) claimed {} {{{why}}} in {}, but the game goes on",
                    names[i],
                    color_name(side),
                    claimed.pgn(),
                    pos.to_fen()
                ));
                if claimed == win_for(side.flip()) {
                    let reason = format!("{} resigns", color_name(side));
                    return (claimed, "resignation".into(), reason);
                }
                let reason = format!("{} makes a false result claim", color_name(side));
                return (win_for(side.flip()), "false claim".into(), reason);
            }
        };
        let Some(m) = players[i].parse_move(pos, &text) else {
            report.log.push(format!(
                "{label}: {} ({}) played an illegal move '{text}' in {}",
                names[i],
                color_name(side),
                pos.to_fen()
            ));
            let reason = format!("{} makes an illegal move: {text}", color_name(side));
            return (win_for(side.flip()), "illegal move".into(), reason);
        };
        runs.record(side, answer.info.score(), rules);
        pos.make(m);
        history.push(m);
        report.moves.push(RecordedMove {
            mv: m,
            comment: Some(move_comment(&answer.info, elapsed)),
        });
        if let Some((o, reason)) = runs.verdict(rules, pos.fullmove_number()) {
            return (o, "adjudication".into(), reason);
        }
    }
}

fn note_clock(report: &mut GameReport, left: i64) {
    report.min_clock_left_ms = Some(report.min_clock_left_ms.map_or(left, |m| m.min(left)));
}

fn on_time(
    side: Color,
    name: &str,
    detail: &str,
    pos: &Position,
    label: &str,
    report: &mut GameReport,
) -> (Outcome, String, String) {
    report.log.push(format!(
        "{label}: {name} ({}) lost on time ({detail}) in {}",
        color_name(side),
        pos.to_fen()
    ));
    let reason = format!("{} loses on time", color_name(side));
    (win_for(side.flip()), "time forfeit".into(), reason)
}

fn failure(
    side: Color,
    name: &str,
    waited: Duration,
    f: &Failure,
    pos: &Position,
    label: &str,
    report: &mut GameReport,
) -> (Outcome, String, String) {
    let c = color_name(side);
    match f {
        Failure::Timeout => {
            let detail = format!("no reply within {} ms", waited.as_millis());
            on_time(side, name, &detail, pos, label, report)
        }
        Failure::Crashed => {
            report
                .log
                .push(format!("{label}: {name} ({c}) crashed in {}", pos.to_fen()));
            (
                win_for(side.flip()),
                CRASH.into(),
                format!("{c}'s engine crashed"),
            )
        }
        // The game is not counted: no one lost it.
        Failure::Stopped => (
            Outcome::Draw,
            "abandoned".into(),
            "the match was stopped".into(),
        ),
        Failure::Protocol(msg) => {
            report
                .log
                .push(format!("{label}: {name} ({c}): {msg} in {}", pos.to_fen()));
            (
                win_for(side.flip()),
                "rules infraction".into(),
                format!("{c}: {msg}"),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant_set::VariantSet;

    /// Scores an engine reports and adjudication bounds from the command
    /// line may be the extremes of `i32`.
    #[test]
    fn extreme_scores_and_bounds_do_not_overflow() {
        let mated = SearchInfo {
            depth: Some(1),
            score_cp: None,
            mate: Some(i32::MIN),
        };
        assert_eq!(move_comment(&mated, Duration::ZERO), "-M2147483648/1 0.00s");
        let variant = VariantSet::builtin().compile("chess").expect("variant");
        let rules = GameRules {
            variant,
            limits: Limits::default(),
            margin: Duration::ZERO,
            resign: Some(ResignRule {
                movecount: 1,
                score: i32::MIN,
            }),
            draw: Some(DrawRule {
                movenumber: 1,
                movecount: 1,
                score: 10,
            }),
            probe: false,
        };
        let mut runs = ScoreRuns::default();
        for s in [i32::MIN, i32::MAX, 0] {
            runs.record(Color::White, Some(s), &rules);
            runs.record(Color::Black, mated.score(), &rules);
        }
        assert_eq!(runs.level, [1, 0]);
    }
}
