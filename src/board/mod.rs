//! The position and its text forms (FEN, move notation).

pub mod fen;
pub mod notation;
pub mod position;
pub mod san;

pub use fen::FenError;
pub use notation::MoveError;
pub use position::Position;
