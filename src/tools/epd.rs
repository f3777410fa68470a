//! EPD test suites: positions with `bm` (best moves) and `am` (avoid moves)
//! in SAN; a position is solved when the engine's move is one of the best
//! moves and none of the moves to avoid.

use crate::rules::board::Position;
use crate::rules::types::Move;
use crate::rules::variant::Variant;
use std::sync::Arc;

/// One EPD record.
pub struct EpdEntry {
    pub id: String,
    pub fen: String,
    pub best: Vec<Move>,
    pub avoid: Vec<Move>,
    pub position: Position,
}

/// Parse one EPD line (four FEN fields, then `opcode operands;` items).
pub fn parse_line(variant: &Arc<Variant>, line: &str) -> Result<EpdEntry, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 4 {
        return Err("EPD line needs four FEN fields".into());
    }
    let fen = fields[..4].join(" ");
    let mut position = Position::from_fen(variant.clone(), &fen).map_err(|e| e.to_string())?;
    let ops = fields[4..].join(" ");
    let mut entry = EpdEntry {
        id: String::new(),
        fen,
        best: Vec::new(),
        avoid: Vec::new(),
        position: position.clone(),
    };
    for op in ops.split(';') {
        let mut words = op.split_whitespace();
        let Some(code) = words.next() else { continue };
        let operands: Vec<&str> = words.collect();
        match code {
            "bm" | "am" => {
                for san in operands {
                    let m = position
                        .parse_san(san)
                        .map_err(|e| format!("{code} {san}: {e}"))?;
                    if code == "bm" {
                        entry.best.push(m);
                    } else {
                        entry.avoid.push(m);
                    }
                }
            }
            "id" => entry.id = operands.join(" ").trim_matches('"').to_string(),
            _ => {}
        }
    }
    if entry.best.is_empty() && entry.avoid.is_empty() {
        return Err("no bm or am operation".into());
    }
    Ok(entry)
}

impl EpdEntry {
    pub fn solved_by(&self, m: Move) -> bool {
        (self.best.is_empty() || self.best.contains(&m)) && !self.avoid.contains(&m)
    }
}
