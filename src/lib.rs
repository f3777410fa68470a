//! Amalgam: a chess-variant engine for Combination Chess, Team-Mate Chess,
//! Compound Chess and orthodox chess, with variants defined in `variants.ini`.

// Input from outside never meets an unwrap or expect: `cargo clippy` fails on
// one outside the tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod bench;
pub mod board;
pub mod datagen;
pub mod engine;
pub mod epd;
pub mod eval;
pub mod game;
pub mod matchplay;
pub mod movegen;
pub mod openings;
pub mod output;
pub mod perft;
pub mod protocol;
pub mod search;
pub mod selfplay;
pub mod textfile;
pub mod tune;
pub mod types;
pub mod variant;

pub use board::{FenError, MoveError, Position};
pub use types::{Color, Move, MoveKind, MoveList, PieceType, Square};
pub use variant::{Variant, VariantSet};
