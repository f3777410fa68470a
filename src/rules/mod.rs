//! The rules of the game: squares and moves, variants read from their ini
//! files, square attacks, the board, move generation, setting a position
//! up from FEN, move notation, game end and perft.
//!
//! Square attacks sit below both the board and move generation, so that
//! the position asks about checks without the move generator; setting a
//! position up from FEN sits above both, as it counts the moves.

pub mod attacks;
pub mod board;
pub mod game;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod setup;
pub mod types;
pub mod variant;
