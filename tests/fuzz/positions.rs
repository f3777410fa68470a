//! Legal positions and move sequences walked with the library, and mutated FENs.

use super::*;

/// `plies` random legal moves from the start position: the position and
/// the moves in the engine's notation.
pub(crate) fn walk(rng: &mut Rng, v: &Arc<Variant>, plies: usize) -> (Position, Vec<String>) {
    let mut p = Position::startpos(v.clone());
    let mut texts = Vec::new();
    for _ in 0..plies {
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.below(moves.len())];
        texts.push(p.move_text(m));
        p.make(m);
    }
    (p, texts)
}

/// A short walk that leaves a game in progress (legal moves, no rule ends it).
pub(crate) fn open_walk(
    rng: &mut Rng,
    v: &Arc<Variant>,
    castling_kept: bool,
) -> (Position, Vec<String>) {
    for _ in 0..20 {
        let plies = rng.below(9);
        let (mut p, moves) = walk(rng, v, plies);
        let castling_ok = !castling_kept || p.to_fen().split(' ').nth(2) != Some("-");
        if castling_ok && amalgam::rules::game::outcome(&mut p).is_none() {
            return (p, moves);
        }
    }
    (Position::startpos(v.clone()), Vec::new())
}

pub(crate) const FEN_CHARS: &[u8] =
    b"pnbrqkPNBRQKsdcSDCaAmMhHeEwWfFlLgGuUjJzZyY0123456789/-wbKQkq ";

pub(crate) fn mutate_fen(rng: &mut Rng, fen: &str) -> String {
    let mut fields: Vec<String> = fen.split(' ').map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        let f = rng.below(fields.len());
        let field = &mut fields[f];
        match rng.below(9) {
            0 | 1 if !field.is_empty() => {
                let i = rng.below(field.len());
                if field.is_char_boundary(i) && field.is_char_boundary(i + 1) {
                    let c = *rng.pick(FEN_CHARS) as char;
                    field.replace_range(i..i + 1, &c.to_string());
                }
            }
            2 if !field.is_empty() => {
                let i = rng.below(field.len());
                if field.is_char_boundary(i) && field.is_char_boundary(i + 1) {
                    field.remove(i);
                }
            }
            3 => {
                let i = rng.below(field.len() + 1);
                if field.is_char_boundary(i) {
                    field.insert(i, *rng.pick(FEN_CHARS) as char);
                }
            }
            4 if fields.len() > 1 => {
                fields.remove(f);
            }
            5 => {
                let dup = fields[f].clone();
                fields.insert(f, dup);
            }
            6 => {
                let g = rng.below(fields.len());
                fields.swap(f, g);
            }
            7 => {
                let i = if fields.len() > 4 {
                    4 + rng.below(fields.len() - 4)
                } else {
                    f
                };
                fields[i] = rng.pick(&EXTREMES).to_string();
            }
            _ => {
                let mut ranks: Vec<String> = fields[0].split('/').map(str::to_string).collect();
                let r = rng.below(ranks.len());
                let junk = [
                    "9",
                    "99",
                    "0",
                    "x",
                    "12",
                    "8p",
                    "",
                    "11111111",
                    "pppppppppppp",
                ];
                ranks[r] = rng.pick(&junk).to_string();
                if rng.percent(30) {
                    ranks.push(ranks[r].clone());
                }
                fields[0] = ranks.join("/");
            }
        }
    }
    fields.join(" ")
}

/// Move texts that are well-formed but (almost always) not legal, or junk.
#[rustfmt::skip]
pub(crate) const BAD_MOVES: [&str; 14] = [
    "e2e5", "a1a1", "z9z9", "e7e8q", "0000", "e2e4e", "j10j11", "a0a1", "e2", "e2e4qq",
    "h7h8k", "d4d6r", "l10l1", "e1g1",
];
