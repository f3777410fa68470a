//! How a game ends by the rules, and the record of a game.

use crate::rules::board::Position;
use crate::rules::types::{Color, Move};

/// Result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    WhiteWins,
    BlackWins,
    Draw,
}

impl Outcome {
    pub fn pgn(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }

    /// The outcome a PGN result text names (`1-0`, `0-1`, `1/2-1/2`).
    pub fn from_pgn(text: &str) -> Option<Outcome> {
        [Outcome::WhiteWins, Outcome::BlackWins, Outcome::Draw]
            .into_iter()
            .find(|o| o.pgn() == text)
    }

    fn win_for(c: Color) -> Outcome {
        match c {
            Color::White => Outcome::WhiteWins,
            Color::Black => Outcome::BlackWins,
        }
    }
}

/// Which rule ended the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Termination {
    Checkmate,
    Stalemate,
    Repetition,
    MoveRule,
    DeadPosition,
}

impl Termination {
    pub fn describe(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::Repetition => "repetition",
            Termination::MoveRule => "move rule",
            Termination::DeadPosition => "dead position",
        }
    }
}

/// The result if the game is over in `pos` (the side to move is to play).
/// Checkmate comes first: a mating move wins even when it completes a
/// repetition or the move count, or leaves no mating material.
pub fn outcome(pos: &mut Position) -> Option<(Outcome, Termination)> {
    let v = pos.variant().clone();
    let us = pos.side_to_move();
    if pos.legal_moves().is_empty() {
        if pos.in_check() {
            return Some((Outcome::win_for(us.flip()), Termination::Checkmate));
        }
        let r = match v.stalemate_value {
            1 => Outcome::win_for(us),
            -1 => Outcome::win_for(us.flip()),
            _ => Outcome::Draw,
        };
        return Some((r, Termination::Stalemate));
    }
    if v.n_fold_rule > 0 && pos.repetitions() + 1 >= v.n_fold_rule as usize {
        return Some((Outcome::Draw, Termination::Repetition));
    }
    if v.n_move_rule > 0 && pos.halfmove_clock() >= 2 * v.n_move_rule {
        return Some((Outcome::Draw, Termination::MoveRule));
    }
    if pos.is_dead() {
        return Some((Outcome::Draw, Termination::DeadPosition));
    }
    None
}

/// A finished (or abandoned) game for PGN output.
pub struct GameRecord {
    pub variant: String,
    pub start_fen: String,
    pub moves: Vec<Move>,
    pub result: Option<(Outcome, Termination)>,
    pub white: String,
    pub black: String,
    pub round: usize,
    pub event: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dead(variant: &str, fen: &str) -> bool {
        let mut pos = Position::builtin(variant, fen);
        let ended = outcome(&mut pos);
        assert_eq!(ended.is_some(), pos.is_dead(), "{variant} {fen}");
        pos.is_dead()
    }

    #[test]
    fn dead_positions_follow_each_variant_rule() {
        // Chess (FIDE): lone kings, a lone minor, bishops all on one colour.
        assert!(dead("chess", "8/8/4k3/8/8/3K4/8/8 w - - 0 1"));
        assert!(dead("chess", "8/8/4k3/8/8/3K4/8/5N2 w - - 0 1"));
        assert!(dead("chess", "8/8/4k3/8/8/3K4/8/5B2 w - - 0 1"));
        assert!(!dead("chess", "8/8/4k3/8/8/3K4/3b4/5B2 w - - 0 1"));
        assert!(dead("chess", "8/8/4k3/8/8/3K4/6b1/5B2 w - - 0 1"));
        assert!(!dead("chess", "8/8/4k3/8/8/3K4/8/4NN2 w - - 0 1"));
        assert!(!dead("chess", "8/8/4k3/8/8/3K4/4n3/5N2 w - - 0 1"));
        // Combination: only a lone single knight or bishop against a king.
        assert!(dead("combination", "8/8/4k3/8/8/3K4/8/5B2 w - - 0 1"));
        assert!(!dead("combination", "8/8/4k3/8/8/3K4/6b1/5B2 w - - 0 1"));
        assert!(!dead("combination", "8/8/4k3/8/8/3K4/4n3/5N2 w - - 0 1"));
        assert!(!dead("combination", "8/8/4k3/8/8/3K4/8/5A2 w - - 0 1"));
        // Team-Mate: drawn when neither side has mating potential.
        assert!(dead("team-mate", "8/8/4k3/8/8/3K4/4n3/5N2 w - - 0 1"));
        assert!(!dead("team-mate", "8/8/4k3/8/8/3K4/8/4UF2 w - - 0 1"));
        // Compound: king against king only.
        assert!(dead("compound", "10/10/5k4/10/10/4K5/10/10 w - - 0 1"));
        assert!(!dead("compound", "10/10/5k4/10/10/4K5/10/5D4 w - - 0 1"));
    }
}
