//! What the referee needs from an engine, whatever protocol it speaks.

use super::limits::Limits;
use crate::board::Position;
use crate::game::Outcome;
use crate::types::Move;
use crate::variant::Variant;
use std::sync::Arc;
use std::time::Instant;

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
    fn quit(&mut self);
}
