//! Move text as RULES.md defines it: origin and destination squares, then one
//! letter when needed: the promotion (or pair-promotion) result, or the part
//! of a stack that moves alone. Castling is written as the king's move.

pub mod san;

use crate::rules::board::Position;
use crate::rules::movegen::legal_moves;
use crate::rules::types::{Move, MoveKind, MoveList};
use std::fmt;

/// Why a move text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not a move at all.
    Malformed(String),
    /// A well-formed move that is not legal here.
    Illegal(String),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Malformed(s) => write!(f, "malformed move: {s}"),
            MoveError::Illegal(s) => write!(f, "illegal move: {s}"),
        }
    }
}

impl std::error::Error for MoveError {}

impl Position {
    /// The text of a move in this position (before it is made).
    pub fn move_text(&self, mv: Move) -> String {
        let v = &*self.variant;
        let mut s = v.square_name(mv.from());
        s.push_str(&v.square_name(mv.to()));
        match mv.kind() {
            MoveKind::Promotion | MoveKind::PairPromotion => s.push(v.piece(mv.result()).letter),
            MoveKind::Castle => {}
            _ => {
                let here = self.b.cells[mv.from().index()];
                if here.is_piece() && here.kind() != mv.part() {
                    s.push(v.piece(mv.part()).letter);
                }
            }
        }
        s
    }

    /// Parse a move text and find the legal move it names.
    pub fn parse_move(&mut self, text: &str) -> Result<Move, MoveError> {
        let t = text.trim();
        if !well_formed(t) {
            return Err(MoveError::Malformed(t.to_string()));
        }
        let lower = t.to_ascii_lowercase();
        let mut list = MoveList::new();
        legal_moves(self, &mut list);
        list.iter()
            .copied()
            .find(|&m| self.move_text(m) == lower)
            .ok_or_else(|| MoveError::Illegal(t.to_string()))
    }

    /// All legal moves of the side to move.
    pub fn legal_moves(&mut self) -> MoveList {
        let mut list = MoveList::new();
        legal_moves(self, &mut list);
        list
    }
}

/// `<file><rank><file><rank>[letter]` with ranks of one or two digits.
fn well_formed(t: &str) -> bool {
    let b = t.as_bytes();
    let mut i = 0;
    for _ in 0..2 {
        if i >= b.len() || !b[i].is_ascii_alphabetic() {
            return false;
        }
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() && i - start < 2 {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match b.len() - i {
        0 => true,
        1 => b[i].is_ascii_alphabetic(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::well_formed;

    #[test]
    fn shapes() {
        assert!(well_formed("e2e4"));
        assert!(well_formed("a9a10q"));
        assert!(well_formed("d4d6r"));
        assert!(!well_formed("e2e"));
        assert!(!well_formed("e2e4qq"));
        assert!(!well_formed("22e4"));
        assert!(!well_formed(""));
        assert!(!well_formed("e2-e4"));
    }
}
