//! Amalgam: a chess-variant engine for Combination Chess, Team-Mate Chess,
//! Compound Chess and orthodox chess, with variants defined in `variants.ini`.
//!
//! The crate is built in layers, each a folder whose modules only import
//! from the layers below it (`tests/layers.rs` checks this):
//!
//! | layer | holds |
//! |---|---|
//! | [`cli`] | the command line: the protocol loop or one of the tools |
//! | [`tools`] | the match runner, self-play, opening suites, training data, tuning, EPD |
//! | [`protocol`] | the UCI and XBoard front ends |
//! | [`engine`] | the engine's API, benchmark, evaluation and search |
//! | [`rules`] | types, variants and their files, the board, move generation, notation, game end, perft |
//! | [`util`] | random numbers, text files, output |

// Input from outside never meets an unwrap or expect: `cargo clippy` fails on
// one outside the tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod cli;
pub mod engine;
pub mod protocol;
pub mod rules;
pub mod tools;
pub mod util;

pub use rules::board::{FenError, Position};
pub use rules::notation::MoveError;
pub use rules::types::{Color, Move, MoveKind, MoveList, PieceType, Square};
pub use rules::variant::Variant;
pub use rules::variant_set::VariantSet;
