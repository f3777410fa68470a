//! What the referee needs from an engine, whatever protocol it speaks.

use super::engine_proc::{EngineProcess, WaitError};
use super::limits::Limits;
use crate::rules::board::Position;
use crate::rules::game::Outcome;
use crate::rules::types::Move;
use crate::rules::variant::Variant;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The last search report of an engine before its move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: Option<u32>,
    /// Centipawns from the mover's point of view.
    pub score_cp: Option<i32>,
    /// Mate in this many moves (negative: the mover is mated).
    pub mate: Option<i32>,
}

impl SearchInfo {
    /// The score as one number for adjudication: mates far beyond any
    /// material score.
    pub fn score(&self) -> Option<i32> {
        match (self.mate, self.score_cp) {
            (Some(m), _) if m > 0 => Some(100_000 - m),
            (Some(m), _) => Some(-100_000 - m),
            (None, s) => s,
        }
    }
}

/// What an engine answered when asked for a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A move in the engine's protocol form.
    Move(String),
    Resign,
    /// The engine says the game is over with this result.
    Claim(Outcome, String),
}

/// A reply, the moment it was read, and the search report before it.
#[derive(Clone, Debug)]
pub struct Answer {
    pub reply: Reply,
    pub at: Instant,
    pub info: SearchInfo,
    /// The longest answer to a liveness probe during this search (see
    /// [`Probe`]), when probing.
    pub probe: Option<Duration>,
}

/// How often a probe is repeated while a search runs.
const PROBE_EVERY: Duration = Duration::from_millis(100);

/// Liveness probes (`amalgam match --probe`): while an engine thinks, a
/// question it must answer at once (`isready`, `ping N`) is sent when the
/// search starts and again every [`PROBE_EVERY`], one at a time; the longest
/// wait for an answer is reported. An answer that comes after the move still
/// counts, in the search during which it arrives.
#[derive(Debug, Default)]
pub struct Probe {
    pub on: bool,
    /// The question out: when it was sent and the answer expected.
    out: Option<(Instant, String)>,
    next: Option<Instant>,
    longest: Option<Duration>,
}

impl Probe {
    /// A search starts now: the first question is due.
    pub fn search_starts(&mut self, now: Instant) {
        if self.on {
            self.next = Some(now);
        }
    }

    /// Whether to ask now (no question is out and one is due).
    pub fn due(&self, now: Instant) -> bool {
        self.on && self.out.is_none() && self.next.is_some_and(|t| now >= t)
    }

    /// A question was sent at `at`; `answer` is the line that answers it.
    pub fn asked(&mut self, at: Instant, answer: String) {
        self.out = Some((at, answer));
        self.next = Some(at + PROBE_EVERY);
    }

    /// When to look again while waiting for the move until `deadline`.
    pub fn wake(&self, deadline: Instant) -> Instant {
        match self.next {
            Some(t) if self.on => t.min(deadline),
            _ => deadline,
        }
    }

    /// Whether `line` (read at `at`) answers the question out; then it is
    /// counted.
    pub fn answered(&mut self, line: &str, at: Instant) -> bool {
        match &self.out {
            Some((sent, answer)) if answer == line => {
                let waited = at.saturating_duration_since(*sent);
                self.longest = Some(self.longest.map_or(waited, |l| l.max(waited)));
                self.out = None;
                true
            }
            _ => false,
        }
    }

    /// Drop the question out, if any (its answer will be read elsewhere);
    /// true when there was one.
    pub fn forget(&mut self) -> bool {
        self.out.take().is_some()
    }

    /// The search is over: no new question until the next starts. Gives
    /// the longest wait of this search.
    pub fn search_ends(&mut self) -> Option<Duration> {
        self.next = None;
        self.longest.take()
    }

    /// The next line of `proc` during a search that ends at `deadline`
    /// (trimmed, with the moment it was read), asking the probe's question
    /// whenever one is due and passing over its answers. `question` gives
    /// the question's text and the answer awaited.
    pub fn read_search_line(
        &mut self,
        proc: &mut EngineProcess,
        deadline: Instant,
        mut question: impl FnMut() -> (String, String),
    ) -> Result<(Instant, String), Failure> {
        loop {
            if self.due(Instant::now()) {
                let (ask, answer) = question();
                proc.send(&ask).map_err(to_failure)?;
                self.asked(Instant::now(), answer);
            }
            let (at, line) = match proc.recv(self.wake(deadline)) {
                Err(WaitError::Timeout) if Instant::now() < deadline => continue,
                r => r.map_err(to_failure)?,
            };
            let line = line.trim();
            if !self.answered(line, at) {
                return Ok((at, line.to_string()));
            }
        }
    }
}

/// Why an engine gave no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Nothing came before the deadline.
    Timeout,
    /// The process ended.
    Crashed,
    /// The engine refused a legal move or broke the protocol.
    Protocol(String),
    /// The match was asked to stop: the game is abandoned.
    Stopped,
}

/// The failure that a wait for an engine's line ended in.
pub fn to_failure(e: WaitError) -> Failure {
    match e {
        WaitError::Timeout => Failure::Timeout,
        WaitError::Exited => Failure::Crashed,
        WaitError::Stopped => Failure::Stopped,
    }
}

/// A request for a move.
pub struct Turn<'a> {
    /// The game's start position and every move since.
    pub start: &'a Position,
    pub history: &'a [Move],
    /// The position now (after `history`).
    pub position: &'a Position,
    pub limits: &'a Limits,
    /// Remaining clock times of White and Black in milliseconds.
    pub clocks: [i64; 2],
    /// Moves of the mover until the next time control, if any.
    pub moves_to_go: Option<u32>,
    /// How long to wait for the answer after the request is sent.
    pub wait: std::time::Duration,
}

/// An engine as the referee sees it.
pub trait Player: Send {
    /// Prepare a new game in `variant` from `start`.
    fn new_game(&mut self, variant: &Arc<Variant>, start: &Position) -> Result<(), Failure>;
    /// Ask for a move; returns the answer and the moment the request was sent.
    fn think(&mut self, turn: &Turn) -> Result<(Answer, Instant), Failure>;
    /// The legal move that a move text of this engine names.
    fn parse_move(&self, pos: &mut Position, text: &str) -> Option<Move>;
    /// The game is over; bring the engine to rest. An engine that does not
    /// respond is killed (and must be started again).
    fn game_over(&mut self, result: Outcome, reason: &str);
    /// False once the process has ended or was killed.
    fn is_alive(&self) -> bool;
    /// Probe the engine's liveness while it thinks (see [`Probe`]).
    fn enable_probe(&mut self);
    fn quit(&mut self);
}
