//! Static evaluation, general over variants.
//!
//! Every number used here lives in this file or in `variants.ini`, each with
//! its origin. Material and piece-square terms are kept incrementally by the
//! board (see [`EvalTables`]); the rest is computed per call and kept cheap:
//! pawn structure, king shelter, slider mobility, and scaling toward a draw
//! when the side ahead cannot force mate.

use crate::board::Position;
use crate::types::{BOARD_CELLS, Cell, Color, PieceType, Square};
use crate::variant::Variant;
use std::ops::{Add, AddAssign, Neg, Sub, SubAssign};

/// A middlegame / endgame pair of centipawn values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    pub mg: i32,
    pub eg: i32,
}

impl Score {
    pub const ZERO: Score = Score { mg: 0, eg: 0 };
    pub const fn new(mg: i32, eg: i32) -> Score {
        Score { mg, eg }
    }
}

impl Add for Score {
    type Output = Score;
    fn add(self, o: Score) -> Score {
        Score::new(self.mg + o.mg, self.eg + o.eg)
    }
}
impl Sub for Score {
    type Output = Score;
    fn sub(self, o: Score) -> Score {
        Score::new(self.mg - o.mg, self.eg - o.eg)
    }
}
impl Neg for Score {
    type Output = Score;
    fn neg(self) -> Score {
        Score::new(-self.mg, -self.eg)
    }
}
impl AddAssign for Score {
    fn add_assign(&mut self, o: Score) {
        *self = *self + o;
    }
}
impl SubAssign for Score {
    fn sub_assign(&mut self, o: Score) {
        *self = *self - o;
    }
}

/// Per-variant tables for the incremental part of the evaluation.
#[derive(Clone, Debug, Default)]
pub struct EvalTables {
    /// Material plus piece-square value of each cell code on each square,
    /// from White's point of view (Black's codes are negative).
    pub psq: Vec<Score>,
    /// Game-phase weight of each cell code (non-pawn material).
    pub phase: Vec<i32>,
    /// Phase of the start position (the middlegame end of the taper).
    pub max_phase: i32,
    /// Middlegame value of each piece type, for move ordering and pruning.
    pub value: Vec<i32>,
    /// Per cell code: the slide directions counted for mobility (empty for
    /// pawn types and men that do not slide).
    pub rides: Vec<Vec<i16>>,
    /// Cell codes of the men with slides (bit per code), so that the
    /// mobility loop passes over the others at once.
    pub sliders: u64,
}

/// Value of a pawn-type man; everything is scaled to it.
pub const PAWN_VALUE: i32 = 100;

/// Centipawns per move of empty-board mobility above a piece's average on a
/// square (centralisation): about what a knight gains from the rim to the
/// centre in common piece-square tables (-50 to +20 over 6 moves).
const CENTRAL_MG: i32 = 5;
const CENTRAL_EG: i32 = 4;

/// Estimated value of a piece with no value in the ini file: 30 cp per move
/// of average empty-board mobility plus 120, fitted by eye to the chess men
/// (knight 5.25 moves -> 280, rook 14 -> 540, queen 22.75 -> 800): a rough
/// guide for user variants, never used by the shipped ones.
fn estimate_value(avg_mobility: f64) -> i32 {
    (120.0 + 30.0 * avg_mobility) as i32
}

/// Number of moves (quiet or capture) a piece of type `t` has from `sq` on an
/// otherwise empty board.
fn empty_board_mobility(v: &Variant, t: PieceType, color: Color, sq: Square) -> usize {
    let mut cells = [Cell::OFFBOARD; BOARD_CELLS];
    for s in &v.squares {
        cells[s.index()] = Cell::EMPTY;
    }
    let mut seen = crate::variant::SquareSet::default();
    let mut n = 0;
    for rule in &v.piece(t).rules[color.index()] {
        if rule.initial {
            continue;
        }
        let mut q = sq.index() as isize + rule.start as isize;
        if cells[q as usize].is_offboard() && rule.start != 0 {
            continue;
        }
        for _ in 0..rule.max {
            q += rule.step as isize;
            if q < 0 || q as usize >= BOARD_CELLS || cells[q as usize].is_offboard() {
                break;
            }
            if !seen.contains(q as usize) {
                seen.insert(q as usize);
                n += 1;
            }
        }
    }
    n
}

/// Build the tables of a variant. `values` holds the ini's piece values by
/// type (0 where none was given).
pub fn build_tables(v: &Variant, values: &[i32]) -> EvalTables {
    let n = v.pieces.len();
    let mut value = vec![0i32; n];
    let mut avg = vec![0f64; n];
    for (i, p) in v.pieces.iter().enumerate() {
        let t = PieceType(i as u8);
        let total: usize = v
            .squares
            .iter()
            .map(|&s| empty_board_mobility(v, t, Color::White, s))
            .sum();
        avg[i] = total as f64 / v.squares.len().max(1) as f64;
        value[i] = if p.royal {
            0
        } else if v.promotion_pawns & t.bit() != 0 {
            values
                .get(i)
                .copied()
                .filter(|&x| x > 0)
                .unwrap_or(PAWN_VALUE)
        } else {
            values
                .get(i)
                .copied()
                .filter(|&x| x > 0)
                .unwrap_or_else(|| estimate_value(avg[i]))
        };
    }
    // Stacks: the sum of their members plus 10 cp for each extra man, for
    // the freedom of splitting (a guess).
    for (i, p) in v.pieces.iter().enumerate() {
        if p.members.count_ones() >= 2 {
            let mut sum = 0;
            for (j, _) in v.pieces.iter().enumerate() {
                if p.members & (1u64 << j) != 0 {
                    sum += value[j];
                }
            }
            if values.get(i).copied().unwrap_or(0) > 0 {
                sum = values[i];
            }
            value[i] = sum + 10 * (p.members.count_ones() as i32 - 1);
        }
    }
    let codes = 2 + 2 * n;
    let mut psq = vec![Score::ZERO; codes * BOARD_CELLS];
    let mut phase = vec![0i32; codes];
    let centre_f = (v.files as f64 - 1.0) / 2.0;
    let centre_r = (v.ranks as f64 - 1.0) / 2.0;
    for (i, p) in v.pieces.iter().enumerate() {
        let t = PieceType(i as u8);
        let pawn = v.promotion_pawns & t.bit() != 0;
        for color in Color::BOTH {
            let code = Cell::piece(t, color).0 as usize;
            if !p.royal && !pawn {
                phase[code] = (value[i] / PAWN_VALUE).max(1);
            }
            for &sq in &v.squares {
                let rel_rank = match color {
                    Color::White => sq.rank(),
                    Color::Black => v.ranks - 1 - sq.rank(),
                } as i32;
                let df = (sq.file() as f64 - centre_f).abs();
                let dr = (sq.rank() as f64 - centre_r).abs();
                let centre_dist = df.max(dr) as i32;
                let mut s = Score::new(value[i], value[i]);
                if p.royal {
                    // Middlegame: stay home; endgame: come to the centre.
                    s += Score::new(-12 * rel_rank.min(3), -10 * centre_dist);
                } else if pawn {
                    // Advance, the centre files more in the middlegame.
                    let central = df <= 1.0;
                    let r = rel_rank - 1;
                    s += Score::new(if central { 5 * r } else { 2 * r }, 4 * r);
                } else {
                    let m = empty_board_mobility(v, t, color, sq) as f64;
                    let d = (m - avg[i]).clamp(-8.0, 8.0);
                    s += Score::new(
                        (CENTRAL_MG as f64 * d) as i32,
                        (CENTRAL_EG as f64 * d) as i32,
                    );
                }
                psq[code * BOARD_CELLS + sq.index()] = if color == Color::White { s } else { -s };
            }
        }
    }
    // The start position's phase is the top of the taper.
    let max_phase = start_phase(v, &phase).max(1);
    let mut rides = vec![Vec::new(); codes];
    for (i, p) in v.pieces.iter().enumerate() {
        if v.promotion_pawns & PieceType(i as u8).bit() == 0 {
            for color in Color::BOTH {
                rides[Cell::piece(PieceType(i as u8), color).0 as usize] =
                    p.fast[color.index()].rides.clone();
            }
        }
    }
    let sliders = rides
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.is_empty())
        .fold(0u64, |mask, (code, _)| mask | 1 << code);
    EvalTables {
        psq,
        phase,
        max_phase,
        value,
        rides,
        sliders,
    }
}

fn start_phase(v: &Variant, phase: &[i32]) -> i32 {
    let board = v.start_fen.split_whitespace().next().unwrap_or("");
    let mut sum = 0;
    for c in board.chars() {
        if let Some(t) = v.type_of_letter(c) {
            let color = if c.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            sum += phase[Cell::piece(t, color).0 as usize];
        }
    }
    sum
}

/// Bonus for a passed pawn by its distance to promotion (1 = next step
/// promotes), endgame-heavy as in most engines.
fn passed_bonus(distance: i32) -> Score {
    match distance {
        1 => Score::new(60, 120),
        2 => Score::new(35, 70),
        3 => Score::new(15, 40),
        4 => Score::new(8, 20),
        _ => Score::new(4, 10),
    }
}

/// Penalty for a pawn-type man with a friendly one directly ahead.
const DOUBLED: Score = Score::new(-10, -20);
/// Bonus per friendly pawn-type man on the three squares in front of the king.
const SHELTER: i32 = 10;
/// Mobility of sliding men: cp per direction open at the first step
/// (middlegame, endgame); a rook boxed in by its own men loses about 30 cp.
const SLIDER_MOBILITY: Score = Score::new(8, 6);
/// Bonus for the side to move.
const TEMPO: i32 = 10;
/// Against a bare king: cp per step the lone king stands from the centre
/// (in half-squares), and per step the two kings are closer than the board
/// allows. Mates against a lone king happen on the edge with the strong
/// king near, so this leads the search toward them (the "mop-up" term of
/// many engines, sized so that it never outweighs a pawn of material).
const MOPUP_EDGE: i32 = 8;
const MOPUP_KINGS: i32 = 4;

/// Bonus for `strong` when the other side has a bare king and `strong` can
/// force mate: the lone king near the edge, the strong king near it.
fn mop_up(pos: &Position, strong: Color) -> i32 {
    let weak = strong.flip();
    if pos.men(weak).len() != 1 || !pos.has_mating_potential(strong) {
        return 0;
    }
    let v = pos.variant();
    let lone = Square(pos.b.kings[weak.index()]);
    let own = Square(pos.b.kings[strong.index()]);
    // Distance from the centre in half-squares: 1 in the middle of an
    // even board, files - 1 on its edge.
    let off = |x: usize, n: usize| (2 * x as i32 - (n as i32 - 1)).abs();
    let centre = off(lone.file(), v.files).max(off(lone.rank(), v.ranks));
    let apart = (lone.file() as i32 - own.file() as i32)
        .abs()
        .max((lone.rank() as i32 - own.rank() as i32).abs());
    let widest = v.files.max(v.ranks) as i32 - 1;
    MOPUP_EDGE * centre + MOPUP_KINGS * (widest - apart)
}

/// The middlegame and endgame values blended by the game phase. In 64 bits:
/// the ini's piece values (up to 100000 each) make both the values and the
/// phase large enough for their product to leave `i32`. The blend lies
/// between the two values, so it fits again.
fn taper(s: Score, phase: i32, max_phase: i32) -> i32 {
    let max_phase = i64::from(max_phase.max(1));
    let phase = i64::from(phase).clamp(0, max_phase);
    let blend = (i64::from(s.mg) * phase + i64::from(s.eg) * (max_phase - phase)) / max_phase;
    let bound = i64::from(i32::MAX);
    blend.clamp(-bound, bound) as i32
}

/// Material and piece-square terms only (tapered), from the side to move's
/// point of view: a cheap estimate the full evaluation rarely moves by more
/// than [`LAZY_MARGIN`].
pub fn quick(pos: &Position) -> i32 {
    let t = &pos.variant().eval;
    let s = pos.b.psq;
    let score = taper(s, pos.b.phase, t.max_phase);
    (if pos.side_to_move() == Color::White {
        score
    } else {
        -score
    }) + TEMPO
}

/// Bound on how far the positional terms move the score from [`quick`]
/// (passed pawns dominate it).
pub const LAZY_MARGIN: i32 = 300;

/// Pawn-structure terms from White's side: doubled and passed men of the
/// variant's pawn types. They depend on those men alone, so they are cached
/// by the pawn hash (see [`PawnCache`]).
fn pawn_structure(pos: &Position) -> Score {
    let v = &**pos.variant();
    let cells = &pos.b.cells;
    // Per file, the rank of the rearmost White and foremost Black pawn-type
    // man as seen by the other side (for passed pawns).
    let mut lowest_white = [i32::MAX; 16];
    let mut highest_black = [i32::MIN; 16];
    for color in Color::BOTH {
        for &sq in pos.men(color) {
            let c = cells[sq as usize];
            if v.promotion_pawns & c.kind().bit() != 0 {
                let sq = Square(sq);
                let (f, r) = (sq.file() + 1, sq.rank() as i32);
                match color {
                    Color::White => lowest_white[f] = lowest_white[f].min(r),
                    Color::Black => highest_black[f] = highest_black[f].max(r),
                }
            }
        }
    }
    let mut s = Score::ZERO;
    for color in Color::BOTH {
        let fwd: isize = if color == Color::White { 16 } else { -16 };
        let mut extra = Score::ZERO;
        for &sq in pos.men(color) {
            let kind = cells[sq as usize].kind();
            if v.promotion_pawns & kind.bit() == 0 {
                continue;
            }
            let ahead = cells[(sq as isize + fwd) as usize];
            if ahead.is_color(color) && v.promotion_pawns & ahead.kind().bit() != 0 {
                extra += DOUBLED;
            }
            let square = Square(sq);
            let (f, r) = (square.file() + 1, square.rank() as i32);
            let passed = match color {
                Color::White => (f - 1..=f + 1).all(|x| highest_black[x] <= r),
                Color::Black => (f - 1..=f + 1).all(|x| lowest_white[x] >= r),
            };
            if passed {
                let distance = match color {
                    Color::White => v.ranks as i32 - 1 - r,
                    Color::Black => r,
                };
                extra += passed_bonus(distance);
            }
        }
        if color == Color::White {
            s += extra;
        } else {
            s -= extra;
        }
    }
    s
}

/// Pawn-structure scores by pawn hash. A position without pawn-type men has
/// hash 0 and structure zero, which is what a fresh slot holds.
pub struct PawnCache {
    slots: Vec<(u64, Score)>,
}

impl PawnCache {
    const SIZE: usize = 1 << 14;

    pub fn new() -> PawnCache {
        PawnCache {
            slots: vec![(0, Score::ZERO); Self::SIZE],
        }
    }

    fn structure(&mut self, pos: &Position) -> Score {
        let key = pos.b.pawn_hash;
        let slot = &mut self.slots[key as usize & (Self::SIZE - 1)];
        if slot.0 != key {
            *slot = (key, pawn_structure(pos));
        }
        slot.1
    }
}

impl Default for PawnCache {
    fn default() -> Self {
        PawnCache::new()
    }
}

/// The static evaluation from the side to move's point of view, with the
/// pawn-structure cache kept by the caller.
pub fn evaluate(pos: &Position, pawns: &mut PawnCache) -> i32 {
    let v = &**pos.variant();
    let cells = &pos.b.cells;
    let t = &v.eval;
    let mut s = pos.b.psq + pawns.structure(pos);
    for color in Color::BOTH {
        let fwd: isize = if color == Color::White { 16 } else { -16 };
        // Mobility of sliders, cheaply: the directions not blocked at the
        // first step by a friendly man. `own` has a bit for the cell code of
        // each of this side's men (even codes from 2 for White, odd for Black).
        let own = 0x5555_5555_5555_5554u64 << color.index();
        let mut free = 0;
        for &sq in pos.men(color) {
            let code = cells[sq as usize].0;
            if (t.sliders >> code) & 1 == 0 {
                continue;
            }
            for &d in &t.rides[code as usize] {
                let c = cells[(sq as isize + d as isize) as usize].0;
                free += ((own >> c) & 1 ^ 1) as i32;
            }
        }
        let mut extra = Score::new(SLIDER_MOBILITY.mg * free, SLIDER_MOBILITY.eg * free);
        // King shelter.
        let k = pos.b.kings[color.index()] as isize;
        let mut shelter = 0;
        for df in [-1, 0, 1] {
            let c = cells[(k + fwd + df) as usize];
            if c.is_color(color) && v.promotion_pawns & c.kind().bit() != 0 {
                shelter += 1;
            }
        }
        extra += Score::new(SHELTER * shelter, 0);
        if color == Color::White {
            s += extra;
        } else {
            s -= extra;
        }
    }
    let mut score = taper(s, pos.b.phase, t.max_phase);
    // The side ahead without mating potential can at best draw.
    let few = pos.men(Color::White).len() + pos.men(Color::Black).len() <= 6;
    if few {
        score += mop_up(pos, Color::White) - mop_up(pos, Color::Black);
        let ahead = if score > 0 {
            Color::White
        } else {
            Color::Black
        };
        if score != 0 && !pos.has_mating_potential(ahead) {
            score /= 8;
        }
    }
    let stm = if pos.side_to_move() == Color::White {
        score
    } else {
        -score
    };
    stm + TEMPO
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mop_up_drives_the_lone_king_to_the_edge() {
        // Team-Mate: Wazir-Knight and Wazir-Alfil together can mate.
        let edge = Position::builtin("team-mate", "k7/8/8/8/8/2K5/8/3UF3 w - - 0 1");
        let centre = Position::builtin("team-mate", "8/8/8/4k3/8/2K5/8/3UF3 w - - 0 1");
        assert!(mop_up(&edge, Color::White) > mop_up(&centre, Color::White));
        assert_eq!(mop_up(&edge, Color::Black), 0);
        let mut pawns = PawnCache::new();
        assert!(evaluate(&edge, &mut pawns) > evaluate(&centre, &mut pawns));
        // No bonus without mating potential (a lone Knight cannot mate
        // here), nor when the weaker side has more than its king.
        let lone_knight = Position::builtin("team-mate", "k7/8/8/8/3K4/8/8/3N4 w - - 0 1");
        assert_eq!(mop_up(&lone_knight, Color::White), 0);
        let defended = Position::builtin("team-mate", "k7/p7/8/8/3K4/8/8/3UF3 w - - 0 1");
        assert_eq!(mop_up(&defended, Color::White), 0);
    }

    /// Piece values from the ini may be as large as 100000: a side a few
    /// such men ahead, with many on the board, is evaluated without overflow.
    #[test]
    fn large_ini_piece_values_evaluate_without_overflow() {
        let mut set = crate::VariantSet::builtin();
        let ini = "[queens:chess]\npieceValues = q:100000\n\
                   startFen = rnbqkbnr/qqqqqqqq/8/8/8/8/QQQQQQQQ/RNBQKBNR w KQkq - 0 1\n";
        let (_, errors) = set.load_str(ini, "t.ini");
        assert!(errors.is_empty(), "{errors:?}");
        let v = set.compile("queens").expect("variant");
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/QQQQQQQQ/RNBQKBNR w KQkq - 0 1";
        let p = Position::from_fen(v, fen).expect("fen");
        let mut pawns = PawnCache::new();
        assert!(evaluate(&p, &mut pawns) > 100_000);
        assert!(quick(&p) > 100_000);
    }
}
