//! Helpers every layer may use: text files read with limits and output.

pub mod output;
pub mod textfile;
