//! The evaluation's tables of a variant, built from its men and board and
//! its parameter file: the exchange values of the men, the default weights
//! and their layout, the incremental material and piece-square table, and
//! what the terms read per cell code.

use super::move_shape::MoveShape;
use super::params::{EvalParams, Layout};
use crate::rules::sums::{Score, SumTable};
use crate::rules::types::{BOARD_CELLS, Cell, Color, PieceType, Square};
use crate::rules::variant::{IniError, Variant};

/// Per-variant tables of the evaluation: its weights, and what the terms
/// read per piece type and cell code. The material and piece-square table
/// that the board sums as men move is the variant's [`SumTable`], filled
/// by [`compile`].
#[derive(Clone, Debug, Default)]
pub struct EvalTables {
    /// Every weight (see [`params`](super::params)).
    pub params: EvalParams,
    /// Phase of the start position (the middlegame end of the taper).
    pub max_phase: i32,
    /// Middlegame value of each piece type from the ini (or estimated), for
    /// move ordering, exchanges and pruning; the evaluation's own material
    /// weights may differ.
    pub value: Vec<i32>,
    /// The promotion type of the highest `value` (the first among equals),
    /// and the most a pawn-type man gains by promoting to it (0 when none
    /// can), for the exchange evaluation.
    pub best_promotion: Option<PieceType>,
    pub promotion_gain: i32,
    /// Per cell code: the slide directions counted for mobility (empty for
    /// pawn types and men that do not slide).
    pub rides: Vec<Vec<i16>>,
    /// Cell codes of the men with slides (bit per code), so that the
    /// mobility loop passes over the others at once.
    pub sliders: u64,
    /// Cell codes whose `rides` are the unlimited slides of their
    /// `move_rules` (the same steps, in any order): the walk that counts
    /// their moves counts their open first steps too.
    pub open_in_moves: u64,
    /// Per cell code of a pawn-type man: the steps on which it captures.
    pub pawn_captures: Vec<Vec<i16>>,
    /// Piece types that are royal (bit per type).
    pub royal: u64,
    /// Per cell code of a man with `moves` and `hit` weights: its ways of moving
    /// (those of its initial region only left out).
    pub move_rules: Vec<MoveShape>,
    /// Whether any weight of these groups is not zero; the evaluation in
    /// play skips a group that is all zero (the tuner's trace never does).
    pub moves_used: bool,
    /// Any weight of the free path or king distances of passed men.
    pub passed_used: bool,
    pub threats_used: bool,
    pub attackers_used: bool,
    pub pairs_used: bool,
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
    let mut seen = crate::rules::variant::SquareSet::default();
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

/// The exchange value of each piece type: the ini's value (`values`, 0
/// where none was given), else estimated from mobility; a stack without
/// one is worth its members plus 10 cp for each extra man (for the freedom
/// of splitting, a guess). Also the average empty-board mobility per type.
fn exchange_values(v: &Variant, values: &[i32]) -> (Vec<i32>, Vec<f64>) {
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
        let given = values.get(i).copied().filter(|&x| x > 0);
        value[i] = if p.royal {
            0
        } else if v.promotion_pawns & t.bit() != 0 {
            given.unwrap_or(PAWN_VALUE)
        } else {
            given.unwrap_or_else(|| estimate_value(avg[i]))
        };
    }
    for (i, p) in v.pieces.iter().enumerate() {
        if p.members.count_ones() >= 2 {
            let members: i32 = (0..n)
                .filter(|&j| p.members & (1u64 << j) != 0)
                .map(|j| value[j])
                .sum();
            let sum = values.get(i).copied().filter(|&x| x > 0).unwrap_or(members);
            value[i] = sum + 10 * (p.members.count_ones() as i32 - 1);
        }
    }
    (value, avg)
}

/// The exchange value of each piece type of `v`, as [`EvalTables::value`]
/// holds it, for a caller without the tables.
pub fn piece_values(v: &Variant) -> Vec<i32> {
    exchange_values(v, &v.piece_values).0
}

/// The layout of a variant's weights.
fn layout(v: &Variant) -> Layout {
    let n = v.pieces.len();
    let is_pawn = |i: usize| v.promotion_pawns & PieceType(i as u8).bit() != 0;
    Layout::new(
        v.files,
        v.ranks,
        v.pieces.iter().map(|p| p.letter).collect(),
        (0..n)
            .map(|i| !is_pawn(i) && v.pieces[i].fast.iter().any(|f| !f.rides.is_empty()))
            .collect(),
        (0..n)
            .map(|i| v.mating.color_bound & PieceType(i as u8).bit() != 0)
            .collect(),
        (0..n).map(is_pawn).collect(),
        v.pieces.iter().map(|p| p.royal).collect(),
    )
}

/// The default weights of a variant: material from the exchange values,
/// piece-square values from empty-board mobility (centralisation), the king
/// home in the middlegame and central in the endgame, pawn-type men
/// advancing; the other terms as set by hand before any tuning.
fn default_params(v: &Variant, value: &[i32], avg: &[f64]) -> EvalParams {
    let mut p = EvalParams::zero(layout(v));
    let l = p.layout.clone();
    let w = &mut p.weights;
    let centre_f = (v.files as f64 - 1.0) / 2.0;
    let centre_r = (v.ranks as f64 - 1.0) / 2.0;
    for (i, piece) in v.pieces.iter().enumerate() {
        let t = PieceType(i as u8);
        w[l.value(i)] = Score::new(value[i], value[i]);
        let pawn = l.pawn[i];
        for &sq in &v.squares {
            let (file, rank) = (sq.file(), sq.rank());
            let df = (file as f64 - centre_f).abs();
            let dr = (rank as f64 - centre_r).abs();
            let centre_dist = df.max(dr) as i32;
            let r = rank as i32;
            w[l.psq(i, file, rank)] = if piece.royal {
                // Middlegame: stay home; endgame: come to the centre.
                Score::new(-12 * r.min(3), -10 * centre_dist)
            } else if pawn {
                // Advance, the centre files more in the middlegame.
                let central = df <= 1.0;
                Score::new(if central { 5 * (r - 1) } else { 2 * (r - 1) }, 4 * (r - 1))
            } else {
                let m = empty_board_mobility(v, t, Color::White, sq) as f64;
                let d = (m - avg[i]).clamp(-8.0, 8.0);
                Score::new(
                    (CENTRAL_MG as f64 * d) as i32,
                    (CENTRAL_EG as f64 * d) as i32,
                )
            };
        }
        if l.sliding[i] {
            // A rook boxed in by its own men loses about 30 cp.
            w[l.mobility(i)] = Score::new(8, 6);
        }
    }
    // Passed pawns by distance to promotion (1 = next step promotes),
    // endgame-heavy as in most engines.
    for d in 1..v.ranks.max(2) {
        w[l.passed(d)] = match d {
            1 => Score::new(60, 120),
            2 => Score::new(35, 70),
            3 => Score::new(15, 40),
            4 => Score::new(8, 20),
            _ => Score::new(4, 10),
        };
    }
    w[l.doubled()] = Score::new(-10, -20);
    w[l.shelter()] = Score::new(10, 0);
    w[l.tempo()] = Score::new(10, 10);
    p
}

/// The weights a variant with tables `t` has without a parameter file
/// (derived from its men and board), for a fit that starts from them.
pub fn default_weights(v: &Variant, t: &EvalTables) -> EvalParams {
    let (value, avg) = exchange_values(v, &t.value);
    default_params(v, &value, &avg)
}

/// Build the tables of a variant from its men and board, the ini's piece
/// values (`piece_values`, 0 where none was given) and its parameter file
/// (`eval_params`), whose weights replace the defaults; also the table of
/// what each man adds to the board's sums.
pub fn build_tables(v: &Variant) -> Result<(EvalTables, SumTable), Vec<IniError>> {
    let n = v.pieces.len();
    let (value, avg) = exchange_values(v, &v.piece_values);
    let mut params = default_params(v, &value, &avg);
    if let Some(file) = &v.eval_params {
        params.read_text(&file.text, &file.name)?;
    }
    let l = &params.layout;
    let codes = 2 + 2 * n;
    let mut psq = vec![Score::ZERO; codes * BOARD_CELLS];
    let mut phase = vec![0i32; codes];
    for (i, p) in v.pieces.iter().enumerate() {
        let t = PieceType(i as u8);
        for color in Color::BOTH {
            let code = Cell::piece(t, color).0 as usize;
            if !p.royal && !l.pawn[i] {
                phase[code] = (value[i] / PAWN_VALUE).max(1);
            }
            for &sq in &v.squares {
                let s = params.weights[l.value(i)]
                    + params.weights[l.psq(i, sq.file(), relative_rank(v, sq, color))];
                psq[code * BOARD_CELLS + sq.index()] = if color == Color::White { s } else { -s };
            }
        }
    }
    // The start position's phase is the top of the taper.
    let max_phase = start_phase(v, &phase).max(1);
    let mut rides = vec![Vec::new(); codes];
    for (i, p) in v.pieces.iter().enumerate() {
        if l.sliding[i] {
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
    let mut pawn_captures = vec![Vec::new(); codes];
    for (i, p) in v.pieces.iter().enumerate() {
        if l.pawn[i] {
            for color in Color::BOTH {
                let fast = &p.fast[color.index()];
                pawn_captures[Cell::piece(PieceType(i as u8), color).0 as usize] = fast
                    .leaps
                    .iter()
                    .copied()
                    .chain(fast.capture_leaps.iter().map(|&(d, _)| d))
                    .collect();
            }
        }
    }
    let mut move_rules = vec![MoveShape::default(); codes];
    for (i, p) in v.pieces.iter().enumerate() {
        if l.mobile(i) {
            for color in Color::BOTH {
                move_rules[Cell::piece(PieceType(i as u8), color).0 as usize] =
                    MoveShape::new(&p.rules[color.index()]);
            }
        }
    }
    let open_in_moves = (0..codes)
        .filter(|&code| {
            let mut walked = move_rules[code].rides.clone();
            let mut counted = rides[code].clone();
            walked.sort_unstable();
            counted.sort_unstable();
            !counted.is_empty() && walked == counted
        })
        .fold(0u64, |mask, code| mask | 1 << code);
    let best_promotion = v.promotion_types.iter().copied().reduce(|a, b| {
        if value[b.index()] > value[a.index()] {
            b
        } else {
            a
        }
    });
    let cheapest_pawn = (0..n)
        .filter(|&i| v.promotion_pawns & (1u64 << i) != 0)
        .map(|i| value[i])
        .min();
    let promotion_gain = match (best_promotion, cheapest_pawn) {
        (Some(kind), Some(pawn)) => value[kind.index()].saturating_sub(pawn).max(0),
        _ => 0,
    };
    let royal = (0..n)
        .filter(|&i| v.pieces[i].royal)
        .fold(0u64, |mask, i| mask | PieceType(i as u8).bit());
    let used =
        |index: &dyn Fn(usize) -> usize| (0..n).any(|i| params.weights[index(i)] != Score::ZERO);
    let moves_used = used(&|i| l.moves(i)) || used(&|i| l.hit(i));
    let passed_used = (1..v.ranks.max(2)).any(|d| {
        [l.passed_free(d), l.passed_king(d), l.passed_enemy(d)]
            .iter()
            .any(|&i| params.weights[i] != Score::ZERO)
    });
    let threats_used = used(&|i| l.threat(i));
    let attackers_used = used(&|i| l.attacker(i));
    let pairs_used = used(&|i| l.pair(i));
    let tables = EvalTables {
        params,
        max_phase,
        value,
        best_promotion,
        promotion_gain,
        rides,
        sliders,
        open_in_moves,
        pawn_captures,
        royal,
        move_rules,
        moves_used,
        passed_used,
        threats_used,
        attackers_used,
        pairs_used,
    };
    Ok((tables, SumTable { psq, phase }))
}

/// The rank of `sq` counted from `color`'s side (0 is its first rank).
#[inline]
pub(super) fn relative_rank(v: &Variant, sq: Square, color: Color) -> usize {
    match color {
        Color::White => sq.rank(),
        Color::Black => v.ranks - 1 - sq.rank(),
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
