//! The rules of the game: squares and moves, variants read from their ini
//! files, square attacks, the board, move generation, setting a position
//! up from FEN, move notation, game end and perft.
//!
//! From the bottom up: `types`; `sums` (the scores the board sums as men
//! move, filled by the evaluation); `variant` (reading and compiling one
//! variant); `attacks`, below both the board and move generation, so that
//! the position asks about checks without the move generator; `board`;
//! `movegen`; `setup` (a position from FEN, above both, as it counts the
//! moves); `variant_set` (the variants of the loaded files, which checks
//! each start position); `notation`, `game` and `perft`.

pub mod attacks;
pub mod board;
pub mod game;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod setup;
pub mod sums;
pub mod types;
pub mod variant;
pub mod variant_set;
