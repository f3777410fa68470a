//! Static evaluation, general over variants.
//!
//! Every weight is data ([`params`]): defaults derived from the variant,
//! replaced by a parameter file where the variant names one. Material and
//! piece-square terms are kept incrementally by the board (see
//! [`EvalTables`]); the rest is computed per call and kept cheap: pawn
//! structure, king shelter, slider mobility, pairs of colour-bound men, and
//! scaling toward a draw when the side ahead cannot force mate. Each term is
//! written once, generic over [`Terms`](sink::Terms), so that the tuner's
//! trace of a position ([`trace`]) and the evaluation in play are the same
//! function.

mod move_shape;
pub mod nnue;
pub mod params;
mod pawns;
mod sink;
mod tables;
mod terms;
mod trace;

use crate::rules::board::Position;
pub use crate::rules::sums::Score;
use crate::rules::types::Color;
pub use move_shape::MoveShape;
pub use params::{EvalParams, Layout};
pub use pawns::PawnCache;
use sink::Weighted;
pub use tables::{
    EvalTables, PAWN_VALUE, build_tables, compile, default_weights, load_file_checked, piece_values,
};
pub use terms::{LAZY_MARGIN, quick};
use terms::{NO_MATE_DIVISOR, few_men, mop_up, passed_terms, positional_terms, taper, tempo};
pub use trace::{Trace, trace};

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

/// A position of a built-in variant, and the variant's tables, for unit
/// tests.
#[cfg(test)]
pub(crate) fn builtin(variant: &str, fen: &str) -> (Position, std::sync::Arc<EvalTables>) {
    let (v, t) = compile(&crate::rules::variant_set::VariantSet::builtin(), variant)
        .unwrap_or_else(|e| panic!("{variant} compiles: {e:?}"));
    let pos = Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{fen}: {e:?}"));
    (pos, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Piece values from the ini may be as large as 100000: a side a few
    /// such men ahead, with many on the board, is evaluated without overflow.
    #[test]
    fn large_ini_piece_values_evaluate_without_overflow() {
        let mut set = crate::VariantSet::builtin();
        let ini = "[queens:chess]\npieceValues = q:100000\n\
                   startFen = rnbqkbnr/qqqqqqqq/8/8/8/8/QQQQQQQQ/RNBQKBNR w KQkq - 0 1\n";
        let (_, errors) = set.load_str(ini, "t.ini");
        assert!(errors.is_empty(), "{errors:?}");
        let (v, t) = compile(&set, "queens").expect("variant");
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/QQQQQQQQ/RNBQKBNR w KQkq - 0 1";
        let p = Position::from_fen(v, fen).expect("fen");
        let mut pawns = PawnCache::new();
        assert!(evaluate(&t, &p, &mut pawns) > 100_000);
        assert!(quick(&t, &p) > 100_000);
    }
}
