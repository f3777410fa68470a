//! Tools built on the engine: the match runner, self-play, opening suites,
//! training data, tuning and EPD test suites.

pub mod datagen;
pub mod epd;
pub mod matches;
pub mod openings;
pub mod selfplay;
pub mod tune;
