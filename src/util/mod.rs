//! Helpers every layer may use: random numbers, text files read with
//! limits, and output.

pub mod output;
pub mod rng;
pub mod textfile;
