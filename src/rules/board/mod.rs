//! The position and its FEN form.

pub mod fen;
pub mod position;

pub use fen::FenError;
pub use position::Position;
