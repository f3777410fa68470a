//! The match runner's errors, as callers must tell them apart: a match
//! configured wrongly (nothing started), an engine that could not be made
//! ready (it would not start, died or fell silent in its handshake, or
//! refused what the match asks of it), and a match that failed while it ran.

use std::fmt;

/// A match whose options do not go together, or whose files cannot be
/// read: found before any engine starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// Fewer than two `--engine`.
    TooFewEngines,
    /// An `--engine` without `cmd=` or `proto=`.
    EngineNeeds { what: &'static str },
    /// Two engines with one name.
    SameName(String),
    /// More games than a match schedules.
    TooManyGames { most: usize },
    /// `--sprt` with other than two engines.
    SprtEngines,
    /// `--sprt` with `--shard`.
    SprtWithShard,
    /// `--resume` without `--pgn`.
    ResumeWithoutPgn,
    /// A limit that an engine's protocol cannot carry.
    NodesOverXboard { engine: String },
    /// A variant file given with `--ini` that does not load.
    Ini(String),
    /// The variant cannot be played (unknown, or its rules do not compile).
    Variant(String),
    /// `--pair-promotion off` for a variant without one.
    NoPairPromotion(String),
    /// The openings cannot be read.
    Openings { file: String, reason: String },
}

impl ConfigError {
    /// Whether the error is in the command line alone (a usage error),
    /// not in a file it names.
    pub fn is_usage(&self) -> bool {
        !matches!(
            self,
            ConfigError::Ini(_) | ConfigError::Variant(_) | ConfigError::Openings { .. }
        )
    }
}

/// Why `--sprt` and `--shard` do not go together.
const SPRT_AND_SHARD: &str = "--sprt stops a whole match early, which one part of it cannot do: \
     play the parts without it and give --sprt to `amalgam pgn stats` over their PGN files";

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ConfigError::TooFewEngines => write!(f, "a match needs two or more --engine"),
            ConfigError::EngineNeeds { what } => write!(f, "--engine needs {what}"),
            ConfigError::SameName(n) => {
                write!(f, "two engines are named '{n}': give each its own name=")
            }
            ConfigError::TooManyGames { most } => write!(
                f,
                "--games: a match has at most {most} games (--games times the pairings of engines)"
            ),
            ConfigError::SprtEngines => write!(f, "--sprt needs exactly two engines"),
            ConfigError::SprtWithShard => f.write_str(SPRT_AND_SHARD),
            ConfigError::ResumeWithoutPgn => write!(
                f,
                "--resume continues the match in its --pgn file: give the file"
            ),
            ConfigError::NodesOverXboard { engine } => write!(
                f,
                "--nodes cannot be given over the XBoard protocol (engine {engine})"
            ),
            ConfigError::Ini(e) | ConfigError::Variant(e) => f.write_str(e),
            ConfigError::NoPairPromotion(v) => {
                write!(f, "{v} has no pair promotion to switch off")
            }
            ConfigError::Openings { file, reason } => write!(f, "{file}: {reason}"),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Why an engine could not be made ready for a game. The engine's command
/// or name is added by the caller ([`MatchError::Engine`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The program did not start.
    Spawn(String),
    /// It exited during its handshake or while its options were set.
    Exited { during: String },
    /// It did not answer in time.
    Silent { awaited: &'static str },
    /// It does not offer an option the match sets.
    UnknownOption {
        option: String,
        offered: Vec<String>,
    },
    /// It answered an option with an error.
    OptionRejected {
        option: String,
        value: String,
        answer: String,
    },
    /// It does not play the match's variant.
    NoVariant {
        variant: String,
        /// Where the engine lists its variants (`UCI_Variant values`).
        list: &'static str,
        offered: Vec<String>,
    },
    /// The match was stopped while the engine started.
    Stopped,
}

impl EngineError {
    /// What the engine's `answer` to option `option` = `value` means: an
    /// answer that refuses it (see the clients' `refuses`) or none.
    pub fn option_answer(option: &str, value: &str, answer: Option<String>) -> Result<(), Self> {
        match answer {
            Some(answer) => Err(EngineError::OptionRejected {
                option: option.to_string(),
                value: value.to_string(),
                answer,
            }),
            None => Ok(()),
        }
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let list = |names: &[String]| {
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        };
        match self {
            EngineError::Spawn(e) => f.write_str(e),
            EngineError::Exited { during } => write!(f, "exited during {during}"),
            EngineError::Silent { awaited } => write!(f, "did not answer {awaited}"),
            EngineError::UnknownOption { option, offered } => write!(
                f,
                "has no option '{option}' (its options: {})",
                list(offered)
            ),
            EngineError::OptionRejected {
                option,
                value,
                answer,
            } => write!(
                f,
                "rejected option '{option}' = '{value}': it answered \"{answer}\""
            ),
            EngineError::NoVariant {
                variant,
                list: where_listed,
                offered,
            } => write!(
                f,
                "does not play {variant} (its {where_listed}: {})",
                list(offered)
            ),
            EngineError::Stopped => write!(f, "the match was stopped"),
        }
    }
}

impl std::error::Error for EngineError {}

/// Why a match ended before its schedule did, or did not start.
#[derive(Debug)]
pub enum MatchError {
    /// An engine could not be made ready (before the first game, or when it
    /// was started again).
    Engine { name: String, error: EngineError },
    /// The PGN file could not be written.
    Pgn { path: String, error: std::io::Error },
    /// The games already in the PGN file cannot be continued.
    Resume { path: String, error: ResumeError },
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            MatchError::Engine { name, error } => write!(f, "engine {name}: {error}"),
            MatchError::Pgn { path, error } => write!(f, "{path}: {error}"),
            MatchError::Resume { path, error } => write!(f, "--resume: {path}: {error}"),
        }
    }
}

impl std::error::Error for MatchError {}

/// Why the games of a file cannot be continued.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResumeError {
    /// The file cannot be read.
    Read(String),
    /// A game before the last is not whole.
    Damaged { line: usize, why: String },
    /// A game that is not one of this match (or of this part of it).
    Foreign { line: usize, why: String },
    /// A whole game whose moves or result the rules refuse.
    Illegal { line: usize, why: String },
    /// A round that the file holds twice.
    Twice {
        line: usize,
        round: usize,
        first: usize,
    },
}

impl fmt::Display for ResumeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ResumeError::Read(e) => f.write_str(e),
            ResumeError::Damaged { line, why } => write!(
                f,
                "the game at line {line} is damaged ({why}) and whole games follow it"
            ),
            ResumeError::Foreign { line, why } => write!(
                f,
                "the game at line {line} is not one of this match: {why} \
                 (resume with the command that began the match)"
            ),
            ResumeError::Illegal { line, why } => write!(
                f,
                "the game at line {line} does not replay by the rules: {why}"
            ),
            ResumeError::Twice { line, round, first } => write!(
                f,
                "the game at line {line} is round {round} again (first at line {first})"
            ),
        }
    }
}

impl std::error::Error for ResumeError {}
