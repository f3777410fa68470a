//! Helpers every layer may use: random numbers, a stable hash, text files
//! read with limits, output, and a stop request for long jobs.

pub mod hash;
pub mod output;
pub mod rng;
pub mod stop;
pub mod textfile;
