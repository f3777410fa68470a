//! Static evaluation, general over variants: the [`Evaluator`] a variant
//! plays with, chosen when it is compiled, is the hand-written evaluation
//! ([`evaluate`]) or the network its `nnue` names ([`nnue`]).
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

mod evaluator;
mod handwritten;
mod move_shape;
pub mod nnue;
pub mod params;
mod pawns;
mod sink;
mod tables;
mod terms;
mod trace;

pub use crate::rules::sums::Score;
pub use evaluator::{Evaluation, Evaluator, ThreadEval, compile, load_file_checked};
pub use handwritten::evaluate;
pub use move_shape::MoveShape;
pub use params::{EvalParams, Layout};
pub use pawns::PawnCache;
pub use tables::{EvalTables, PAWN_VALUE, build_tables, default_weights, piece_values};
pub use terms::{LAZY_MARGIN, quick};
pub use trace::{Trace, trace};

/// A position of a built-in variant, and the variant's tables, for unit
/// tests.
#[cfg(test)]
pub(crate) fn builtin(
    variant: &str,
    fen: &str,
) -> (crate::rules::board::Position, std::sync::Arc<Evaluator>) {
    let (v, t) = compile(&crate::rules::variant_set::VariantSet::builtin(), variant)
        .unwrap_or_else(|e| panic!("{variant} compiles: {e:?}"));
    let pos =
        crate::rules::board::Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{fen}: {e:?}"));
    (pos, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Position;

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
        assert!(evaluate(t.tables(), &p, &mut pawns) > 100_000);
        assert!(quick(t.tables(), &p) > 100_000);
    }
}
