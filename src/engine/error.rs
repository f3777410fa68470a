//! Why the engine refused a request: the one error type of the Engine API,
//! whose texts are the ones the protocols print.

use crate::engine::search::tt::TableRefused;
use crate::rules::board::FenError;
use crate::rules::notation::MoveError;
use crate::rules::variant::IniError;
use std::fmt;

/// The values an option takes, as its refusal names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allowed {
    /// A whole number (the text does not repeat it).
    Number,
    /// `true` or `false` (UCI checks).
    TrueOrFalse,
    /// `0` or `1` (XBoard checks).
    ZeroOrOne,
    /// A whole number from `min` to `max`.
    Range { min: u32, max: u32 },
}

/// Why the engine refused a request. Errors leave the engine as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// No variant of that name is loaded.
    UnknownVariant(String),
    /// The variant's definition does not compile: every error found.
    BadVariantFile(Vec<IniError>),
    /// A position that is not a valid FEN for the variant.
    BadFen(FenError),
    /// A move that is malformed or not legal in its position.
    BadMove(MoveError),
    /// An option value that is not one the option takes.
    BadOption {
        name: String,
        value: String,
        allowed: Allowed,
    },
    /// The memory for a hash table of the size asked for was refused.
    HashRefused(TableRefused),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::UnknownVariant(name) => write!(f, "unknown variant '{name}'"),
            EngineError::BadVariantFile(errors) => {
                for (i, e) in errors.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{e}")?;
                }
                Ok(())
            }
            EngineError::BadFen(e) => write!(f, "bad FEN: {e}"),
            EngineError::BadMove(e) => write!(f, "{e}"),
            EngineError::BadOption {
                name,
                value,
                allowed,
            } => match allowed {
                Allowed::Number => write!(f, "{name}: bad value '{value}'"),
                Allowed::TrueOrFalse => write!(f, "{name}: bad value '{value}' (true or false)"),
                Allowed::ZeroOrOne => write!(f, "{name} is 0 or 1"),
                Allowed::Range { min, max } => {
                    write!(f, "{name}: bad value '{value}' ({min} to {max})")
                }
            },
            EngineError::HashRefused(e) => write!(f, "{e}"),
        }
    }
}

/// The texts above already include the inner errors' texts, so no `source`
/// is given (a report that walks the chain would repeat them); match on the
/// variant to get the inner error.
impl std::error::Error for EngineError {}

impl From<FenError> for EngineError {
    fn from(e: FenError) -> Self {
        EngineError::BadFen(e)
    }
}

impl From<MoveError> for EngineError {
    fn from(e: MoveError) -> Self {
        EngineError::BadMove(e)
    }
}

impl From<TableRefused> for EngineError {
    fn from(e: TableRefused) -> Self {
        EngineError::HashRefused(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_the_protocols_own() {
        let bad = |name: &str, value: &str, allowed| EngineError::BadOption {
            name: name.into(),
            value: value.into(),
            allowed,
        };
        for (e, text) in [
            (
                EngineError::UnknownVariant("shogi".into()),
                "unknown variant 'shogi'",
            ),
            (EngineError::BadFen(FenError::Empty), "bad FEN: empty FEN"),
            (
                EngineError::BadMove(MoveError::Illegal("e2e5".into())),
                "illegal move: e2e5",
            ),
            (
                bad("Hash", "many", Allowed::Number),
                "Hash: bad value 'many'",
            ),
            (
                bad("PairPromotion", "2", Allowed::TrueOrFalse),
                "PairPromotion: bad value '2' (true or false)",
            ),
            (
                bad("PairPromotion", "2", Allowed::ZeroOrOne),
                "PairPromotion is 0 or 1",
            ),
            (
                bad(
                    "UCI_Elo",
                    "5000",
                    Allowed::Range {
                        min: 800,
                        max: 2600,
                    },
                ),
                "UCI_Elo: bad value '5000' (800 to 2600)",
            ),
            (
                EngineError::HashRefused(TableRefused { mb: 7 }),
                "cannot allocate a hash table of 7 MB",
            ),
        ] {
            assert_eq!(e.to_string(), text);
        }
        let ini = |line| IniError {
            file: "f.ini".into(),
            line,
            message: "bad".into(),
        };
        let e = EngineError::BadVariantFile(vec![ini(1), ini(2)]);
        assert_eq!(e.to_string(), "f.ini:1: bad; f.ini:2: bad");
    }
}
