//! Static evaluation, general over variants.
//!
//! Every weight is data ([`params`]): defaults derived from the variant,
//! replaced by a parameter file where the variant names one. Material and
//! piece-square terms are kept incrementally by the board (see
//! [`EvalTables`]); the rest is computed per call and kept cheap: pawn
//! structure, king shelter, slider mobility, pairs of colour-bound men, and
//! scaling toward a draw when the side ahead cannot force mate. Each term is
//! written once, generic over [`Terms`], so that the tuner's trace of a
//! position ([`trace`]) and the evaluation in play are the same function.

pub mod params;

use crate::rules::board::Position;
use crate::rules::types::{BOARD_CELLS, BOARD_WIDTH, Cell, Color, MAX_FILES, PieceType, Square};
use crate::rules::variant::{IniError, Rule, Variant};
pub use params::{EvalParams, Layout};
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A middlegame / endgame pair of centipawn values, packed into one integer
/// (the middlegame value times 2^32 plus the endgame value) so that a sum
/// or a multiple of scores takes one operation. The arithmetic wraps, so
/// each half is exact whenever it fits in `i32`, as two fields would be.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Score(i64);

impl Score {
    pub const ZERO: Score = Score(0);
    pub const fn new(mg: i32, eg: i32) -> Score {
        Score(((mg as i64) << 32).wrapping_add(eg as i64))
    }
    /// The middlegame value.
    pub const fn mg(self) -> i32 {
        // The endgame half borrowed from the upper half when negative:
        // adding 2^31 first gives it back.
        (self.0.wrapping_add(1 << 31) >> 32) as i32
    }
    /// The endgame value.
    pub const fn eg(self) -> i32 {
        self.0 as i32
    }
}

impl std::fmt::Debug for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Score")
            .field("mg", &self.mg())
            .field("eg", &self.eg())
            .finish()
    }
}

impl Add for Score {
    type Output = Score;
    fn add(self, o: Score) -> Score {
        Score(self.0.wrapping_add(o.0))
    }
}
impl Sub for Score {
    type Output = Score;
    fn sub(self, o: Score) -> Score {
        Score(self.0.wrapping_sub(o.0))
    }
}
impl Neg for Score {
    type Output = Score;
    fn neg(self) -> Score {
        Score(self.0.wrapping_neg())
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

impl Mul<i32> for Score {
    type Output = Score;
    fn mul(self, n: i32) -> Score {
        Score(self.0.wrapping_mul(i64::from(n)))
    }
}

/// Per-variant tables of the evaluation: its weights, and the incremental
/// material and piece-square table built from them.
#[derive(Clone, Debug, Default)]
pub struct EvalTables {
    /// Every weight (see [`params`]).
    pub params: EvalParams,
    /// Material plus piece-square value of each cell code on each square,
    /// from White's point of view (Black's codes are negative).
    pub psq: Vec<Score>,
    /// Game-phase weight of each cell code (non-pawn material).
    pub phase: Vec<i32>,
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

/// The weights a variant has without a parameter file (derived from its
/// men and board), for a fit that starts from them.
pub fn default_weights(v: &Variant) -> EvalParams {
    let (value, avg) = exchange_values(v, &v.eval.value);
    default_params(v, &value, &avg)
}

/// Build the tables of a variant. `values` holds the ini's piece values by
/// type (0 where none was given); `file` a parameter file's text and name,
/// whose weights replace the defaults.
pub fn build_tables(
    v: &Variant,
    values: &[i32],
    file: Option<(&str, &str)>,
) -> Result<EvalTables, Vec<IniError>> {
    let n = v.pieces.len();
    let (value, avg) = exchange_values(v, values);
    let mut params = default_params(v, &value, &avg);
    if let Some((text, name)) = file {
        params.read_text(text, name)?;
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
    Ok(EvalTables {
        params,
        psq,
        phase,
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
    })
}

/// The rank of `sq` counted from `color`'s side (0 is its first rank).
#[inline]
fn relative_rank(v: &Variant, sq: Square, color: Color) -> usize {
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

/// Where the evaluation's terms go: summed with their weights in play, or
/// recorded for the tuner ([`trace`]). Every term is written once, generic
/// over this, so that the two cannot disagree.
pub(crate) trait Terms {
    /// Whether every term is wanted, those whose weights are all zero too.
    const ALL: bool;
    /// `count` times the weight at `index`, for `color`.
    fn add(&mut self, index: usize, color: Color, count: i32);
}

/// The sum of the terms with the variant's weights, kept per side (no
/// branch on the side per term) until [`Weighted::sum`] takes White's side.
struct Weighted<'a> {
    weights: &'a [Score],
    sums: [Score; 2],
}

impl<'a> Weighted<'a> {
    /// An accumulator starting from `start` (White's side).
    fn new(weights: &'a [Score], start: Score) -> Weighted<'a> {
        Weighted {
            weights,
            sums: [start, Score::ZERO],
        }
    }

    /// The sum, from White's side.
    fn sum(&self) -> Score {
        self.sums[0] - self.sums[1]
    }
}

impl Terms for Weighted<'_> {
    const ALL: bool = false;
    #[inline(always)]
    fn add(&mut self, index: usize, color: Color, count: i32) {
        self.sums[color.index()] += self.weights[index] * count;
    }
}

/// Against a bare king: cp per step the lone king stands from the centre
/// (in half-squares), and per step the two kings are closer than the board
/// allows. Mates against a lone king happen on the edge with the strong
/// king near, so this leads the search toward them (the "mop-up" term of
/// many engines, sized so that it never outweighs a pawn of material).
const MOPUP_EDGE: i32 = 8;
const MOPUP_KINGS: i32 = 4;

/// At most this many men on the board: the mop-up term and the scaling
/// of a side ahead without mating potential apply.
const FEW_MEN: usize = 6;

/// Whether few enough men are left for the mop-up term and the scaling.
fn few_men(pos: &Position) -> bool {
    pos.men(Color::White).len() + pos.men(Color::Black).len() <= FEW_MEN
}

/// The score of a side ahead without mating potential is divided by this.
const NO_MATE_DIVISOR: i32 = 8;

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
    let blend = (i64::from(s.mg()) * phase + i64::from(s.eg()) * (max_phase - phase)) / max_phase;
    let bound = i64::from(i32::MAX);
    blend.clamp(-bound, bound) as i32
}

/// The tempo weight for the side to move, tapered.
#[inline]
fn tempo(pos: &Position) -> i32 {
    let t = &pos.variant().eval;
    let w = t.params.weights[t.params.layout.tempo()];
    // One weight for both ends needs no blend (and no division).
    if w.mg() == w.eg() {
        return w.mg();
    }
    taper(w, pos.b.phase, t.max_phase)
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
    }) + tempo(pos)
}

/// Bound on how far the positional terms move the score from [`quick`]
/// (passed pawns dominate it).
pub const LAZY_MARGIN: i32 = 300;

/// Pawn-structure terms of the variant's pawn types: doubled, isolated,
/// connected and passed men. They depend on those men alone, so they are
/// cached by the pawn hash (see [`PawnCache`]).
/// Returns the cells of the passed men, for [`passed_terms`], and the
/// cells each side's pawn-type men attack, for [`positional_terms`].
fn pawn_terms(pos: &Position, acc: &mut impl Terms) -> PawnFacts {
    let mut passed_men: CellSet = [0; GUARD_WORDS];
    let guarded = [
        pawn_guarded(pos, Color::White),
        pawn_guarded(pos, Color::Black),
    ];
    let v = &**pos.variant();
    let l = &v.eval.params.layout;
    let cells = &pos.b.cells;
    let is_pawn = |c: Cell| v.promotion_pawns & c.kind().bit() != 0;
    // Per file (shifted by one, so that both neighbours of every file have
    // a slot), the rank of the rearmost White and foremost Black pawn-type
    // man as seen by the other side (for passed pawns), and per side the
    // files that hold one (for isolated ones).
    let mut lowest_white = [i32::MAX; 18];
    let mut highest_black = [i32::MIN; 18];
    let mut files = [0u32; 2];
    for color in Color::BOTH {
        for &sq in pos.men(color) {
            if is_pawn(cells[sq as usize]) {
                let sq = Square(sq);
                let (f, r) = (sq.file() + 1, sq.rank() as i32);
                files[color.index()] |= 1 << f;
                match color {
                    Color::White => lowest_white[f] = lowest_white[f].min(r),
                    Color::Black => highest_black[f] = highest_black[f].max(r),
                }
            }
        }
    }
    for color in Color::BOTH {
        let fwd: isize = if color == Color::White { 16 } else { -16 };
        let own = |c: Cell| c.is_color(color) && is_pawn(c);
        let guarded = &guarded[color.flip().index()];
        for &sq in pos.men(color) {
            if !is_pawn(cells[sq as usize]) {
                continue;
            }
            let at = |d: isize| cells[(sq as isize + d) as usize];
            if own(at(fwd)) {
                acc.add(l.doubled(), color, 1);
            }
            if own(at(-1)) || own(at(1)) || own(at(-fwd - 1)) || own(at(-fwd + 1)) {
                acc.add(l.connected(), color, 1);
            }
            let square = Square(sq);
            let (f, r) = (square.file() + 1, square.rank() as i32);
            if files[color.index()] & (0b101 << (f - 1)) == 0 {
                acc.add(l.isolated(), color, 1);
            }
            let passed = match color {
                Color::White => (f - 1..=f + 1).all(|x| highest_black[x] <= r),
                Color::Black => (f - 1..=f + 1).all(|x| lowest_white[x] >= r),
            };
            if passed {
                let distance = match color {
                    Color::White => v.ranks as i32 - 1 - r,
                    Color::Black => r,
                };
                acc.add(l.passed(distance.max(1) as usize), color, 1);
                passed_men[sq as usize >> 6] |= 1 << (sq & 63);
            } else {
                // Backward: no friendly neighbour level or behind that could
                // come up beside it, and its next square under attack.
                let alone = match color {
                    Color::White => [f - 1, f + 1].iter().all(|&x| lowest_white[x] > r),
                    Color::Black => [f - 1, f + 1].iter().all(|&x| highest_black[x] < r),
                };
                let next = (sq as isize + fwd) as usize;
                if alone && next < BOARD_CELLS && (guarded[next >> 6] >> (next & 63)) & 1 != 0 {
                    acc.add(l.backward(), color, 1);
                }
            }
        }
    }
    PawnFacts {
        passed: passed_men,
        guarded,
    }
}

/// The terms of passed men that depend on more than the pawn-type men:
/// whether the next square is empty, and how far each king is from it.
fn passed_terms(pos: &Position, passed_men: &CellSet, acc: &mut impl Terms) {
    let v = &**pos.variant();
    let l = &v.eval.params.layout;
    let cells = &pos.b.cells;
    for (w, &word) in passed_men.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let sq = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let color = cells[sq].color();
            let next = match color {
                Color::White => sq + 16,
                Color::Black => sq.wrapping_sub(16),
            };
            if cells.get(next).is_none_or(|c| c.is_offboard()) {
                continue;
            }
            let rank = Square(sq as u8).rank();
            let distance = match color {
                Color::White => v.ranks - 1 - rank,
                Color::Black => rank,
            };
            if cells[next].is_empty() {
                acc.add(l.passed_free(distance), color, 1);
            }
            let steps = |king: u8| {
                let (a, b) = (Square(next as u8), Square(king));
                a.file().abs_diff(b.file()).max(a.rank().abs_diff(b.rank())) as i32
            };
            acc.add(
                l.passed_king(distance),
                color,
                steps(pos.b.kings[color.index()]),
            );
            acc.add(
                l.passed_enemy(distance),
                color,
                steps(pos.b.kings[color.flip().index()]),
            );
        }
    }
}

/// The terms computed at every call: mobility (moves to squares no enemy
/// pawn-type man attacks, and the open first steps of sliders), men
/// attacked by pawn-type men or by cheaper men, men near the enemy king,
/// the king's pawn shelter and the pawn storm against it, and pairs of
/// colour-bound men on both colours. `free_of` holds, per side, 1 on the
/// cells its pawn-type men do not attack (see [`FreeCells`]).
fn positional_terms<T: Terms>(pos: &Position, free_of: &FreeCells, acc: &mut T) {
    let v = &**pos.variant();
    let t = &v.eval;
    let l = &t.params.layout;
    let cells = &pos.b.cells;
    let bound = if T::ALL || t.pairs_used {
        v.mating.color_bound
    } else {
        0
    };
    let pawns = if T::ALL || t.threats_used {
        v.promotion_pawns
    } else {
        0
    };
    let attackers = T::ALL || t.attackers_used;
    let moves = T::ALL || t.moves_used;
    for color in Color::BOTH {
        let fwd: isize = if color == Color::White { 16 } else { -16 };
        // Mobility of sliders, cheaply: the directions not blocked at the
        // first step by a friendly man.
        let own = own_codes(color);
        // Colour-bound types seen on light and on dark squares.
        let mut on = [0u64; 2];
        let enemy_king = Square(pos.b.kings[color.flip().index()]);
        let free = &free_of[color.flip().index()];
        for &sq in pos.men(color) {
            let cell = cells[sq as usize];
            let code = cell.0;
            let kind = cell.kind();
            if bound & kind.bit() != 0 {
                let s = Square(sq);
                on[(s.file() + s.rank()) & 1] |= kind.bit();
            }
            if attackers && t.royal & kind.bit() == 0 && within_two(Square(sq), enemy_king) {
                acc.add(l.attacker(kind.index()), color, 1);
            }
            if pawns & kind.bit() != 0 {
                // The enemy men this pawn-type man attacks.
                for &d in &t.pawn_captures[code as usize] {
                    let target = cells[(sq as isize + d as isize) as usize];
                    if target.is_color(color.flip()) && (pawns | t.royal) & target.kind().bit() == 0
                    {
                        acc.add(l.threat(target.kind().index()), color, 1);
                    }
                }
                continue;
            }
            if moves && !t.move_rules[code as usize].is_none() {
                let mine = t.value[kind.index()];
                let mut hit = |victim: Cell| {
                    let k = victim.kind();
                    if t.royal & k.bit() == 0 && t.value[k.index()] > mine {
                        acc.add(l.hit(k.index()), color, 1);
                    }
                };
                let (n, open) = count_moves(
                    cells,
                    sq as isize,
                    &t.move_rules[code as usize],
                    color,
                    free,
                    &mut hit,
                );
                acc.add(l.moves(kind.index()), color, n);
                if (t.open_in_moves >> code) & 1 != 0 {
                    acc.add(l.mobility(kind.index()), color, open);
                    continue;
                }
            }
            if (t.sliders >> code) & 1 == 0 {
                continue;
            }
            let mut free = 0;
            for &d in &t.rides[code as usize] {
                let c = cells[(sq as isize + d as isize) as usize].0;
                free += ((own >> c) & 1 ^ 1) as i32;
            }
            acc.add(l.mobility(kind.index()), color, free);
        }
        let mut pairs = on[0] & on[1];
        while pairs != 0 {
            acc.add(l.pair(pairs.trailing_zeros() as usize), color, 1);
            pairs &= pairs - 1;
        }
        // King shelter.
        let k = pos.b.kings[color.index()] as isize;
        let mut shelter = 0;
        for df in [-1, 0, 1] {
            let c = cells[(k + fwd + df) as usize];
            if c.is_color(color) && v.promotion_pawns & c.kind().bit() != 0 {
                shelter += 1;
            }
        }
        if shelter != 0 {
            acc.add(l.shelter(), color, shelter);
        }
        // Enemy pawn-type men storming the king: two or three steps ahead on
        // its file or a neighbouring one (the cells past the edge hold no man).
        let mut storm = 0;
        for ahead in [2 * fwd, 3 * fwd] {
            for df in [-1, 0, 1] {
                let i = k + ahead + df;
                if (0..BOARD_CELLS as isize).contains(&i) {
                    let c = cells[i as usize];
                    if c.is_color(color.flip()) && v.promotion_pawns & c.kind().bit() != 0 {
                        storm += 1;
                    }
                }
            }
        }
        if storm != 0 {
            acc.add(l.storm(), color, storm);
        }
    }
}

/// A bit for the cell code of each man of `color` (even codes from 2 for
/// White, odd from 3 for Black).
#[inline(always)]
fn own_codes(color: Color) -> u64 {
    0x5555_5555_5555_5554u64 << color.index()
}

/// Whether two squares are at most two files and two ranks apart, from
/// their difference alone: with `BOARD_WIDTH` 16, `a - b + 34` is
/// `16 * (ranks + 2) + (files + 2)`, and the files apart (at most
/// `MAX_FILES - 1` = 11) are the remainder by 16 exactly when they lie in
/// -2..=2, as two remainders 0..=4 and -9..=13 that agree differ by less
/// than 16. So the test is that sum within 0..=68 with a remainder of at
/// most 4.
#[inline(always)]
fn within_two(a: Square, b: Square) -> bool {
    const _: () = assert!(BOARD_WIDTH == 16 && MAX_FILES <= 13);
    let d = (a.0 as usize).wrapping_sub(b.0 as usize).wrapping_add(34);
    d <= 68 && d & 15 <= 4
}

/// Words of a set of board cells.
const GUARD_WORDS: usize = BOARD_CELLS.div_ceil(64);

/// A set of board cells, bit `cell % 64` of word `cell / 64`.
type CellSet = [u64; GUARD_WORDS];

/// Per side, 1 on each cell its pawn-type men do not attack and 0 on the
/// others: the mobility count reads a cell's byte rather than testing a
/// bit of the side's [`CellSet`].
type FreeCells = [[u8; BOARD_CELLS]; 2];

/// The [`FreeCells`] of the sets of cells each side's pawn-type men attack,
/// written into `free` (the pawn cache's slot, without a copy).
fn lay_out_free_cells(guarded: &[CellSet; 2], free: &mut FreeCells) {
    *free = [[1u8; BOARD_CELLS]; 2];
    for (side, set) in free.iter_mut().zip(guarded) {
        for (w, &word) in set.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let cell = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if let Some(b) = side.get_mut(cell) {
                    *b = 0;
                }
            }
        }
    }
}

/// The cells that `by`'s pawn-type men attack.
fn pawn_guarded(pos: &Position, by: Color) -> [u64; GUARD_WORDS] {
    let v = &**pos.variant();
    let mut set = [0u64; GUARD_WORDS];
    for &sq in pos.men(by) {
        let c = pos.b.cells[sq as usize];
        if v.promotion_pawns & c.kind().bit() != 0 {
            for &d in &v.eval.pawn_captures[c.0 as usize] {
                let to = sq as usize as isize + d as isize;
                if (0..BOARD_CELLS as isize).contains(&to) {
                    set[to as usize >> 6] |= 1 << (to & 63);
                }
            }
        }
    }
    set
}

/// A man's ways of moving for the `moves` and `hit` terms, split by shape
/// so that the common ones run in tight loops (its initial-region moves
/// left out).
#[derive(Clone, Debug, Default)]
pub struct MoveShape {
    /// Single leaps that both move and capture.
    leaps: Vec<i16>,
    /// Unlimited slides that both move and capture.
    rides: Vec<i16>,
    /// The rest: lame, bent, limited, move-only or capture-only.
    other: Vec<Rule>,
}

impl MoveShape {
    fn new(rules: &[Rule]) -> MoveShape {
        let mut shape = MoveShape::default();
        for r in rules
            .iter()
            .filter(|r| !r.initial && (r.quiet || r.capture))
        {
            let plain = r.prelude.is_empty() && r.start == 0 && r.quiet && r.capture;
            match (plain, r.max) {
                (true, 1) => shape.leaps.push(r.step),
                (true, 255) => shape.rides.push(r.step),
                _ => shape.other.push(r.clone()),
            }
        }
        shape
    }

    fn is_none(&self) -> bool {
        self.leaps.is_empty() && self.rides.is_empty() && self.other.is_empty()
    }
}

/// The moves of the man on `from` with `shape` to empty squares and onto
/// enemy men, counting only the cells where `free` holds 1; `capture` is told of
/// every enemy man it can take (guarded or not). Merges onto friendly men
/// do not count, and a square two ways reach counts twice. Also returned:
/// the unlimited slides whose first step is not onto a friendly man (an
/// edge counts as open), the slider mobility of [`positional_terms`].
fn count_moves(
    cells: &[Cell; BOARD_CELLS],
    from: isize,
    shape: &MoveShape,
    us: Color,
    free_cells: &[u8; BOARD_CELLS],
    capture: &mut impl FnMut(Cell),
) -> (i32, i32) {
    let them = us.flip();
    let own = own_codes(us);
    let free = |sq: isize| i32::from(free_cells[sq as usize]);
    let mut n = 0;
    let mut open = 0;
    for &d in &shape.leaps {
        let sq = from + d as isize;
        let c = cells[sq as usize];
        if c.is_empty() {
            n += free(sq);
        } else if c.is_color(them) {
            n += free(sq);
            capture(c);
        }
    }
    for &d in &shape.rides {
        let mut sq = from + d as isize;
        open += ((own >> cells[sq as usize].0) & 1 ^ 1) as i32;
        while cells[sq as usize].is_empty() {
            n += free(sq);
            sq += d as isize;
        }
        let c = cells[sq as usize];
        if c.is_color(them) {
            n += free(sq);
            capture(c);
        }
    }
    for rule in &shape.other {
        if !rule.prelude.iter().all(|&p| {
            cells
                .get((from + p as isize) as usize)
                .is_some_and(|c| c.is_empty())
        }) {
            continue;
        }
        let mut sq = from + rule.start as isize;
        for _ in 0..rule.max {
            sq += rule.step as isize;
            let c = cells[sq as usize];
            if c.is_empty() {
                if rule.quiet {
                    n += free(sq);
                }
                continue;
            }
            if rule.capture && c.is_color(them) {
                n += free(sq);
                capture(c);
            }
            break;
        }
    }
    (n, open)
}

/// What the pawn-type men alone decide, besides their score: the cells of
/// the passed ones, and per side the cells its pawn-type men attack.
#[derive(Clone, Copy, Debug, Default)]
struct PawnFacts {
    passed: CellSet,
    guarded: [CellSet; 2],
}

/// Pawn-structure scores and facts by pawn hash. A position without
/// pawn-type men has hash 0, structure zero and no cells in its facts, which
/// is what a fresh slot holds.
pub struct PawnCache {
    slots: Vec<(u64, Score, PawnFacts)>,
    /// A few structures' [`FreeCells`] by pawn hash (`None` in a slot never
    /// filled): nearby evaluations mostly share one of a few structures
    /// (a capture by or of a pawn, and back), so the bytes are laid out
    /// again only when the structure is not among them.
    free_keys: [Option<u64>; Self::FREE_SLOTS],
    free: Box<[FreeCells; Self::FREE_SLOTS]>,
}

impl PawnCache {
    const SIZE: usize = 1 << 14;
    /// Slots of laid-out [`FreeCells`], chosen by the top bits of the
    /// pawn hash (its low bits choose the structure's slot).
    const FREE_SLOTS: usize = 32;

    pub fn new() -> PawnCache {
        PawnCache {
            slots: vec![(0, Score::ZERO, PawnFacts::default()); Self::SIZE],
            free_keys: [None; Self::FREE_SLOTS],
            free: Box::new([[[1; BOARD_CELLS]; 2]; Self::FREE_SLOTS]),
        }
    }

    /// The structure's score, its facts and the cells free of each side's
    /// pawn-type men's attacks.
    fn structure(&mut self, pos: &Position) -> (Score, &PawnFacts, &FreeCells) {
        let key = pos.b.pawn_hash;
        let slot = &mut self.slots[key as usize & (Self::SIZE - 1)];
        if slot.0 != key {
            let mut acc = Weighted::new(&pos.variant().eval.params.weights, Score::ZERO);
            let facts = pawn_terms(pos, &mut acc);
            *slot = (key, acc.sum(), facts);
        }
        let f = (key >> (64 - Self::FREE_SLOTS.trailing_zeros())) as usize;
        if self.free_keys[f] != Some(key) {
            lay_out_free_cells(&slot.2.guarded, &mut self.free[f]);
            self.free_keys[f] = Some(key);
        }
        (slot.1, &slot.2, &self.free[f])
    }
}

impl Default for PawnCache {
    fn default() -> Self {
        PawnCache::new()
    }
}

/// The tapered sum `s` (White's side) made a score for the side to move:
/// the mop-up term and the scaling of a side ahead that cannot mate, then
/// the tempo.
fn finish(pos: &Position, s: Score) -> i32 {
    let t = &pos.variant().eval;
    let mut score = taper(s, pos.b.phase, t.max_phase);
    if few_men(pos) {
        score += mop_up(pos, Color::White) - mop_up(pos, Color::Black);
        let ahead = if score > 0 {
            Color::White
        } else {
            Color::Black
        };
        if score != 0 && !pos.has_mating_potential(ahead) {
            score /= NO_MATE_DIVISOR;
        }
    }
    let stm = if pos.side_to_move() == Color::White {
        score
    } else {
        -score
    };
    stm + tempo(pos)
}

/// The static evaluation from the side to move's point of view, with the
/// pawn-structure cache kept by the caller.
pub fn evaluate(pos: &Position, pawns: &mut PawnCache) -> i32 {
    let t = &pos.variant().eval;
    let (structure, facts, free) = pawns.structure(pos);
    let mut acc = Weighted::new(&t.params.weights, pos.b.psq + structure);
    if t.passed_used {
        passed_terms(pos, &facts.passed, &mut acc);
    }
    positional_terms(pos, free, &mut acc);
    finish(pos, acc.sum())
}

/// The evaluation of a position as a function of its weights, for the
/// tuner: White's score is
/// `scale * (taper(sum of count * weight) + mop_up) + tempo_sign * taper(tempo)`
/// where `scale` is `1 / NO_MATE_DIVISOR` when [`Trace::no_mate`] holds for
/// the side the bracket favours, else 1.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Weight index and White's count minus Black's, by index, none zero
    /// (the tempo is not among them).
    pub terms: Vec<(u32, i32)>,
    pub phase: i32,
    pub max_phase: i32,
    /// White's mop-up bonus minus Black's (fixed).
    pub mop_up: i32,
    /// Per side: few men are left and the side has no mating potential.
    pub no_mate: [bool; 2],
    /// +1 with White to move, -1 with Black.
    pub tempo_sign: i32,
}

/// The recorded terms of [`trace`].
struct Recorder(Vec<(u32, i32)>);

impl Terms for Recorder {
    const ALL: bool = true;
    fn add(&mut self, index: usize, color: Color, count: i32) {
        let n = if color == Color::White { count } else { -count };
        self.0.push((index as u32, n));
    }
}

/// Every term of the evaluation of `pos` with its count.
pub fn trace(pos: &Position) -> Trace {
    let v = &**pos.variant();
    let t = &v.eval;
    let l = &t.params.layout;
    let mut rec = Recorder(Vec::new());
    for color in Color::BOTH {
        for &sq in pos.men(color) {
            let kind = pos.b.cells[sq as usize].kind().index();
            let sq = Square(sq);
            rec.add(l.value(kind), color, 1);
            let rank = relative_rank(v, sq, color);
            rec.add(l.psq(kind, sq.file(), rank), color, 1);
        }
    }
    let facts = pawn_terms(pos, &mut rec);
    passed_terms(pos, &facts.passed, &mut rec);
    let mut free = [[0; BOARD_CELLS]; 2];
    lay_out_free_cells(&facts.guarded, &mut free);
    positional_terms(pos, &free, &mut rec);
    let mut terms = rec.0;
    terms.sort_unstable_by_key(|&(i, _)| i);
    let mut merged: Vec<(u32, i32)> = Vec::with_capacity(terms.len());
    for (i, n) in terms {
        match merged.last_mut() {
            Some(last) if last.0 == i => last.1 += n,
            _ => merged.push((i, n)),
        }
    }
    merged.retain(|&(_, n)| n != 0);
    let few = few_men(pos);
    let no_mate = |c: Color| few && !pos.has_mating_potential(c);
    Trace {
        terms: merged,
        phase: pos.b.phase,
        max_phase: t.max_phase,
        mop_up: if few {
            mop_up(pos, Color::White) - mop_up(pos, Color::Black)
        } else {
            0
        },
        no_mate: [no_mate(Color::White), no_mate(Color::Black)],
        tempo_sign: if pos.side_to_move() == Color::White {
            1
        } else {
            -1
        },
    }
}

impl Trace {
    /// White's score (floating point, as the tuner sees it) with the
    /// middlegame and endgame halves of weight `i` given by `weight(i)`, and
    /// the factor the bracket was scaled by (its derivative's factor too).
    pub fn model(&self, weight: impl Fn(usize) -> (f64, f64), tempo: usize) -> (f64, f64) {
        let (mg, eg) = self.terms.iter().fold((0.0, 0.0), |(mg, eg), &(i, n)| {
            let (wm, we) = weight(i as usize);
            (mg + wm * f64::from(n), eg + we * f64::from(n))
        });
        let p = self.middlegame_share();
        let inner = mg * p + eg * (1.0 - p) + f64::from(self.mop_up);
        let scale = self.scale(inner);
        let (tm, te) = weight(tempo);
        let score = scale * inner + f64::from(self.tempo_sign) * (tm * p + te * (1.0 - p));
        (score, scale)
    }

    /// White's score under `weights`.
    pub fn white_score(&self, weights: &[Score], tempo: usize) -> f64 {
        let half = |i: usize| (f64::from(weights[i].mg()), f64::from(weights[i].eg()));
        self.model(half, tempo).0
    }

    /// White's count minus Black's of the weight at `index`.
    pub fn count(&self, index: usize) -> i32 {
        self.terms
            .binary_search_by_key(&(index as u32), |&(i, _)| i)
            .map_or(0, |k| self.terms[k].1)
    }

    /// The middlegame share of the taper (phase over its maximum).
    pub fn middlegame_share(&self) -> f64 {
        let m = self.max_phase.max(1);
        f64::from(self.phase.clamp(0, m)) / f64::from(m)
    }

    /// The factor on a bracket worth `inner` for White.
    fn scale(&self, inner: f64) -> f64 {
        let ahead = if inner > 0.0 { 0 } else { 1 };
        if inner != 0.0 && self.no_mate[ahead] {
            1.0 / f64::from(NO_MATE_DIVISOR)
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::types::MoveList;
    use crate::util::rng::Rng;
    use std::sync::Arc;

    /// [`within_two`] against files and ranks, for every pair of squares
    /// of the largest board.
    #[test]
    fn within_two_is_two_files_and_two_ranks() {
        let squares: Vec<Square> = (0..crate::rules::types::MAX_RANKS)
            .flat_map(|r| (0..MAX_FILES).map(move |f| (f, r)))
            .map(|(f, r)| {
                Square(
                    ((r + crate::rules::types::RANK_PAD) * BOARD_WIDTH
                        + f
                        + crate::rules::types::FILE_PAD) as u8,
                )
            })
            .collect();
        let mut near = 0;
        for &a in &squares {
            for &b in &squares {
                let expected = a.file().abs_diff(b.file()) <= 2 && a.rank().abs_diff(b.rank()) <= 2;
                assert_eq!(within_two(a, b), expected, "{a:?} {b:?}");
                near += usize::from(expected);
            }
        }
        assert!(near > 2000, "{near}");
    }

    /// The packed halves of a score come back whole, with either sign and
    /// at the ends of `i32`, through sums, differences, negation and
    /// multiples: the same results as two separate fields.
    #[test]
    fn score_halves_survive_packed_arithmetic() {
        let values = [i32::MIN + 1, -100_000, -7, -1, 0, 1, 3, 99_999, i32::MAX];
        for &mg in &values {
            for &eg in &values {
                let s = Score::new(mg, eg);
                assert_eq!((s.mg(), s.eg()), (mg, eg));
                assert_eq!(((-s).mg(), (-s).eg()), (-mg, -eg));
            }
        }
        let mut rng = Rng::new(17);
        let mut half = || (rng.next_u64() % 200_001) as i32 - 100_000;
        for _ in 0..10_000 {
            let (a, b, c, d) = (half(), half(), half(), half());
            let n = half() % 300;
            let (x, y) = (Score::new(a, b), Score::new(c, d));
            assert_eq!(x + y, Score::new(a + c, b + d));
            assert_eq!(x - y, Score::new(a - c, b - d));
            assert_eq!(x * n, Score::new(a * n, b * n));
            let mut z = x;
            z -= y;
            z += y;
            assert_eq!(z, x);
        }
    }

    /// A copy of a shipped variant whose every weight is random (so that
    /// each term, those that default to zero too, counts).
    fn with_random_weights(name: &str, seed: u64) -> Arc<Variant> {
        let v = crate::VariantSet::builtin().compile(name).expect("variant");
        let mut rng = Rng::new(seed);
        let mut p = v.eval.params.clone();
        for w in p.weights.iter_mut() {
            let mut r = || (rng.next_u64() % 101) as i32 - 50;
            *w = Score::new(r(), r());
        }
        let text = p.to_text("random");
        let mut copy = (*v).clone();
        copy.eval = build_tables(&copy, &v.eval.value, Some((&text, "random"))).expect("tables");
        assert_eq!(copy.eval.params.to_text("random"), text);
        Arc::new(copy)
    }

    /// The tuner's reading of a position (its trace) gives the evaluation
    /// in play, up to the integer rounding of the taper and the scaling,
    /// along random games in every shipped variant.
    #[test]
    fn the_trace_gives_the_evaluation_along_random_games() {
        for name in ["chess", "combination", "team-mate", "compound"] {
            let v = with_random_weights(name, 7);
            let mut rng = Rng::new(11);
            let mut pawns = PawnCache::new();
            let mut checked = 0;
            for _game in 0..20 {
                let mut pos = Position::startpos(v.clone());
                for _ply in 0..120 {
                    let e = evaluate(&pos, &mut pawns);
                    let white = if pos.side_to_move() == Color::White {
                        e
                    } else {
                        -e
                    };
                    let tr = trace(&pos);
                    let model =
                        tr.white_score(&v.eval.params.weights, v.eval.params.layout.tempo());
                    assert!(
                        (model - f64::from(white)).abs() <= 3.0,
                        "{name} {}: trace {model}, evaluate {white}",
                        pos.to_fen()
                    );
                    checked += 1;
                    let mut moves = MoveList::new();
                    crate::rules::movegen::legal_moves(&mut pos, &mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    let m = moves[(rng.next_u64() % moves.len() as u64) as usize];
                    pos.make(m);
                }
            }
            assert!(checked > 1000, "{name}: {checked}");
        }
    }

    /// The open first steps that the move count walks for a slider (see
    /// [`EvalTables::open_in_moves`]) are those of its `rides`, counted
    /// directly, for every man along random games in every shipped variant.
    #[test]
    fn open_first_steps_counted_with_the_moves_match_the_rides() {
        for name in ["chess", "combination", "team-mate", "compound"] {
            let v = crate::VariantSet::builtin().compile(name).expect("variant");
            let t = &v.eval;
            let mut rng = Rng::new(5);
            let mut checked = 0;
            for _game in 0..10 {
                let mut pos = Position::startpos(v.clone());
                for _ply in 0..100 {
                    for color in Color::BOTH {
                        let own = own_codes(color);
                        for &sq in pos.men(color) {
                            let code = pos.b.cells[sq as usize].0;
                            if (t.open_in_moves >> code) & 1 == 0 {
                                continue;
                            }
                            let direct: i32 = t.rides[code as usize]
                                .iter()
                                .map(|&d| {
                                    let c = pos.b.cells[(sq as isize + d as isize) as usize].0;
                                    ((own >> c) & 1 ^ 1) as i32
                                })
                                .sum();
                            let free = [1u8; BOARD_CELLS];
                            let (_, open) = count_moves(
                                &pos.b.cells,
                                sq as isize,
                                &t.move_rules[code as usize],
                                color,
                                &free,
                                &mut |_| {},
                            );
                            assert_eq!(open, direct, "{name} {} on {sq}", pos.to_fen());
                            checked += 1;
                        }
                    }
                    let mut moves = MoveList::new();
                    crate::rules::movegen::legal_moves(&mut pos, &mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    pos.make(moves[(rng.next_u64() % moves.len() as u64) as usize]);
                }
            }
            if name == "chess" {
                assert!(checked > 1000, "{name}: {checked}");
            }
        }
    }

    /// Each new term changes the evaluation when its weight does.
    #[test]
    fn pawn_terms_and_pairs_count_where_they_apply() {
        let v = crate::VariantSet::builtin()
            .compile("chess")
            .expect("chess");
        let l = &v.eval.params.layout;
        // White: isolated a-pawn, connected d- and e-pawns, both bishops.
        let pos =
            Position::from_fen(v.clone(), "4k3/8/8/8/8/8/P2PP3/2B1KB2 w - - 0 1").expect("fen");
        let tr = trace(&pos);
        let count = |i: usize| tr.count(i);
        assert_eq!(count(l.isolated()), 1);
        assert_eq!(count(l.connected()), 2);
        let bishop = v.type_of_letter('b').expect("bishop").index();
        assert_eq!(count(l.pair(bishop)), 1);
        assert_eq!(count(l.passed(6)), 3);
        // A pawn attacking a knight; a rook beside the enemy king.
        let pos =
            Position::from_fen(v.clone(), "8/8/3k4/2R5/8/4n3/3P4/4K3 w - - 0 1").expect("fen");
        let tr = trace(&pos);
        let count = |i: usize| tr.count(i);
        let knight = v.type_of_letter('n').expect("knight").index();
        let rook = v.type_of_letter('r').expect("rook").index();
        assert_eq!(count(l.threat(knight)), 1);
        assert_eq!(count(l.attacker(rook)), 1);
        // The knight on e3 is two squares from the White king on e1.
        assert_eq!(count(l.attacker(knight)), -1);
    }

    #[test]
    fn moves_leave_out_squares_that_enemy_pawns_attack() {
        let v = crate::VariantSet::builtin()
            .compile("chess")
            .expect("chess");
        let l = &v.eval.params.layout;
        // The knight on e4: seven squares (d6 by capture), c5 and e5 are
        // attacked by the pawn on d6. The rook on a1: b1 to d1, its own pawn
        // and king in the way.
        let pos =
            Position::from_fen(v.clone(), "4k3/8/3p4/8/4N3/8/P7/R3K3 w - - 0 1").expect("fen");
        let tr = trace(&pos);
        let letter = |c: char| v.type_of_letter(c).expect("man").index();
        assert_eq!(tr.count(l.moves(letter('n'))), 7);
        assert_eq!(tr.count(l.moves(letter('r'))), 3);
        // The knight attacks the pawn (not cheaper); a rook that a knight
        // attacks counts for the knight's side.
        assert_eq!(tr.count(l.hit(letter('p'))), 0);
        let pos = Position::from_fen(v.clone(), "4k3/8/3r4/8/4N3/8/8/4K3 w - - 0 1").expect("fen");
        assert_eq!(trace(&pos).count(l.hit(letter('r'))), 1);
        // Two black pawns two and three steps in front of White's king.
        let pos = Position::from_fen(v.clone(), "4k3/8/8/8/7p/6p1/8/6K1 w - - 0 1").expect("fen");
        assert_eq!(trace(&pos).count(l.storm()), 2);
        // A passed pawn on d5, its path free: White's king five steps from
        // d6, Black's two. Blocked, it has no free-path count.
        let pos = Position::from_fen(v.clone(), "4k3/8/8/3P4/8/8/8/4K3 w - - 0 1").expect("fen");
        let tr = trace(&pos);
        assert_eq!(tr.count(l.passed(3)), 1);
        assert_eq!(tr.count(l.passed_free(3)), 1);
        assert_eq!(tr.count(l.passed_king(3)), 5);
        assert_eq!(tr.count(l.passed_enemy(3)), 2);
        let pos = Position::from_fen(v.clone(), "4k3/8/3n4/3P4/8/8/8/4K3 w - - 0 1").expect("fen");
        assert_eq!(trace(&pos).count(l.passed_free(3)), 0);
        // The d3 pawn is backward: no pawn beside or behind on c or e, and
        // c5 attacks d4. Black's b6 and c5 are not (c5 has b6 behind it, b6's
        // next square is not attacked). With a pawn on c3, d3 is not either.
        let pos =
            Position::from_fen(v.clone(), "4k3/8/1p6/2p5/4P3/3P4/8/4K3 w - - 0 1").expect("fen");
        assert_eq!(trace(&pos).count(l.backward()), 1);
        let pos =
            Position::from_fen(v.clone(), "4k3/8/1p6/2p5/4P3/2PP4/8/4K3 w - - 0 1").expect("fen");
        assert_eq!(trace(&pos).count(l.backward()), 0);
    }

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
