//! Openings of matches, self-play and training games: lines of a FEN or
//! EPD file, the shipped suites (`openings/VARIANT.epd`, built into the
//! binary and used when no other openings are given), random legal plies
//! from the start position (seeded, [`random_opening`]), or the start
//! position alone; and the making of suites ([`generate`]).

pub mod random;
pub mod suite;

pub use random::{random, random_opening};
pub use suite::{SuiteOptions, generate};

use crate::rules::board::Position;
use crate::rules::types::Move;
use crate::rules::variant::Variant;
use std::sync::Arc;

/// A start position and moves from it, played before the engines take over.
#[derive(Clone, Debug)]
pub struct Opening {
    pub fen: String,
    pub moves: Vec<Move>,
}

impl Opening {
    pub fn start(variant: &Arc<Variant>) -> Opening {
        Opening {
            fen: variant.start_fen.clone(),
            moves: Vec::new(),
        }
    }
}

/// The openings of a FEN or EPD file: one per line; an EPD line's operations
/// after the four position fields are ignored. Blank lines and `#` comments
/// are skipped.
pub fn from_text(variant: &Arc<Variant>, text: &str) -> Result<Vec<Opening>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let counters = fields.len() >= 6
            && fields[4].parse::<u32>().is_ok()
            && fields[5].parse::<u32>().is_ok();
        let fen = if counters {
            fields[..6].join(" ")
        } else if fields.len() >= 4 {
            format!("{} 0 1", fields[..4].join(" "))
        } else {
            return Err(format!("line {}: not a FEN or EPD position", n + 1));
        };
        let pos = Position::from_fen(variant.clone(), &fen)
            .map_err(|e| format!("line {}: {e}", n + 1))?;
        out.push(Opening {
            fen: pos.to_fen(),
            moves: Vec::new(),
        });
    }
    if out.is_empty() {
        return Err("no positions in the openings file".into());
    }
    Ok(out)
}

/// The shipped suite of a variant, by its name.
pub fn shipped(name: &str) -> Option<&'static str> {
    match name {
        "chess" => Some(include_str!("../../../openings/chess.epd")),
        "combination" => Some(include_str!("../../../openings/combination.epd")),
        "team-mate" => Some(include_str!("../../../openings/team-mate.epd")),
        "compound" => Some(include_str!("../../../openings/compound.epd")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VariantSet;

    #[test]
    fn reads_fen_and_epd_lines() {
        let v = VariantSet::builtin().compile("chess").unwrap();
        let text = "# openings\n\
            rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1\n\
            \n\
            rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - bm Nf3; id \"x\";\n";
        let o = from_text(&v, text).unwrap();
        assert_eq!(o.len(), 2);
        assert!(o[1].fen.ends_with("w KQkq - 0 1"), "{}", o[1].fen);
        assert!(from_text(&v, "nonsense\n").is_err());
        assert!(from_text(&v, "\n").is_err());
    }
}
