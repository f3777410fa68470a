//! The position and its FEN form, and the scores the board sums as men move.

pub mod fen;
pub mod position;
pub mod sums;

pub use fen::FenError;
pub use position::Position;
