//! Setting a position up: from a FEN, or the variant's start position. The
//! board reads the FEN ([`Position::read_fen`]); the move generator then
//! checks that the position leaves room in a move list, which is why this
//! sits above both.

use crate::rules::board::{FenError, Position};
use crate::rules::movegen::pseudo_legal_count;
use crate::rules::types::{Color, MAX_MOVES};
use crate::rules::variant::Variant;
use std::sync::Arc;

impl Position {
    /// Read a FEN. Missing trailing fields take their usual defaults
    /// (`w - - 0 1`). Castling rights whose king or corner man is not on its
    /// start square are dropped, as is an en-passant square with no man that
    /// could just have double-stepped past it. Besides the board's checks
    /// (the side that just moved is not in check, no man stands where it
    /// must already have promoted), a position is refused in which either
    /// side has more than half a move list of pseudo-legal moves.
    pub fn from_fen(variant: Arc<Variant>, fen: &str) -> Result<Position, FenError> {
        let pos = Position::read_fen(variant, fen)?;
        for color in Color::BOTH {
            if pseudo_legal_count(&pos, color) > MAX_MOVES / 2 {
                return Err(FenError::TooManyMoves);
            }
        }
        Ok(pos)
    }

    /// The start position of a variant.
    pub fn startpos(variant: Arc<Variant>) -> Position {
        let fen = variant.start_fen.clone();
        // The start FEN was validated when the variant was compiled.
        match Position::from_fen(variant.clone(), &fen) {
            Ok(p) => p,
            Err(_) => Position::empty(variant),
        }
    }
}

#[cfg(test)]
impl Position {
    /// A position of a built-in variant, for unit tests.
    pub(crate) fn builtin(variant: &str, fen: &str) -> Position {
        let v = crate::rules::variant_set::VariantSet::builtin()
            .compile(variant)
            .unwrap_or_else(|e| panic!("{variant} compiles: {e:?}"));
        Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{fen}: {e:?}"))
    }
}
