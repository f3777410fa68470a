//! Amalgam: a chess-variant engine for Combination Chess, Team-Mate Chess,
//! Compound Chess and orthodox chess, with variants defined in `variants.ini`.

pub mod board;
pub mod eval;
pub mod movegen;
pub mod perft;
pub mod types;
pub mod variant;

pub use board::{FenError, MoveError, Position};
pub use types::{Color, Move, MoveKind, MoveList, PieceType, Square};
pub use variant::{Variant, VariantSet};
