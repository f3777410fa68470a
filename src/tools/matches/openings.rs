//! Opening positions of a match: lines of a FEN or EPD file, random legal
//! plies from the start position (seeded), or the start position alone.

use crate::rules::board::Position;
use crate::rules::types::Move;
use crate::rules::variant::Variant;
use crate::tools::selfplay::random_opening;
use crate::util::rng::Rng;
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

/// `count` openings of `plies` random legal moves from the start position;
/// the same seed gives the same openings.
pub fn random(variant: &Arc<Variant>, plies: usize, seed: u64, count: usize) -> Vec<Opening> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let pos = random_opening(variant, plies, &mut rng);
            Opening {
                fen: variant.start_fen.clone(),
                moves: pos.moves_played().collect(),
            }
        })
        .collect()
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

    #[test]
    fn random_openings_repeat_with_the_seed() {
        let v = VariantSet::builtin().compile("team-mate").unwrap();
        let a = random(&v, 6, 7, 3);
        let b = random(&v, 6, 7, 3);
        assert_eq!(a.len(), 3);
        assert!(a.iter().all(|o| o.moves.len() == 6));
        assert_eq!(a[2].moves, b[2].moves);
        assert_ne!(a[0].moves, a[1].moves);
    }
}
