//! The rules of the game: squares and moves, variants read from their ini
//! files, the board, move generation, move notation, game end and perft.

pub mod board;
pub mod game;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod types;
pub mod variant;
