//! Tools built on the engine: the match runner, self-play, openings, PGN,
//! training data, tuning, network training and EPD test suites.

pub mod datafile;
pub mod datagen;
pub mod epd;
pub mod learn;
pub mod matches;
pub mod openings;
pub mod pgn;
pub mod selfplay;
pub mod train;
pub mod tune;
