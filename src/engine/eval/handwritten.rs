//! The hand-written evaluation of a position: the board's incremental
//! material and piece-square sum, the pawn structure (cached) and the
//! terms computed per call, tapered and scaled.

use super::pawns::PawnCache;
use super::sink::Weighted;
use super::tables::EvalTables;
use super::terms::{
    NO_MATE_DIVISOR, few_men, mop_up, passed_terms, positional_terms, taper, tempo,
};
use crate::rules::board::Position;
use crate::rules::sums::Score;
use crate::rules::types::Color;

/// The tapered sum `s` (White's side) made a score for the side to move:
/// the mop-up term and the scaling of a side ahead that cannot mate, then
/// the tempo.
fn finish(t: &EvalTables, pos: &Position, s: Score) -> i32 {
    let mut score = taper(s, pos.b.phase, t.max_phase);
    if few_men(pos) {
        score += mop_up(pos, Color::White) - mop_up(pos, Color::Black);
        let ahead = if score > 0 {
            Color::White
        } else {
            Color::Black
        };
        if score != 0 && !pos.has_mating_potential(ahead) {
            score /= NO_MATE_DIVISOR;
        }
    }
    let stm = if pos.side_to_move() == Color::White {
        score
    } else {
        -score
    };
    stm + tempo(t, pos)
}

/// The static evaluation from the side to move's point of view, with the
/// variant's tables `t` and the pawn-structure cache kept by the caller.
pub fn evaluate(t: &EvalTables, pos: &Position, pawns: &mut PawnCache) -> i32 {
    let (structure, facts, free) = pawns.structure(t, pos);
    let mut acc = Weighted::new(&t.params.weights, pos.b.psq + structure);
    if t.passed_used {
        passed_terms(t, pos, &facts.passed, &mut acc);
    }
    positional_terms(t, pos, free, &mut acc);
    finish(t, pos, acc.sum())
}
