//! The pawn structure: the terms of the pawn-type men alone (doubled,
//! isolated, connected, backward and passed men), the cells they attack,
//! and their cache by pawn hash.

use super::sink::{Terms, Weighted};
use super::tables::EvalTables;
use crate::rules::board::Position;
use crate::rules::sums::Score;
use crate::rules::types::{BOARD_CELLS, Cell, Color, Square};

/// Pawn-structure terms of the variant's pawn types: doubled, isolated,
/// connected and passed men. They depend on those men alone, so they are
/// cached by the pawn hash (see [`PawnCache`]).
/// Returns the cells of the passed men, for [`passed_terms`], and the
/// cells each side's pawn-type men attack, for [`positional_terms`].
pub(super) fn pawn_terms(t: &EvalTables, pos: &Position, acc: &mut impl Terms) -> PawnFacts {
    let mut passed_men: CellSet = [0; GUARD_WORDS];
    let guarded = [
        pawn_guarded(t, pos, Color::White),
        pawn_guarded(t, pos, Color::Black),
    ];
    let v = &**pos.variant();
    let l = &t.params.layout;
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

/// Words of a set of board cells.
const GUARD_WORDS: usize = BOARD_CELLS.div_ceil(64);

/// A set of board cells, bit `cell % 64` of word `cell / 64`.
pub(super) type CellSet = [u64; GUARD_WORDS];

/// Per side, 1 on each cell its pawn-type men do not attack and 0 on the
/// others: the mobility count reads a cell's byte rather than testing a
/// bit of the side's [`CellSet`].
pub(super) type FreeCells = [[u8; BOARD_CELLS]; 2];

/// The [`FreeCells`] of the sets of cells each side's pawn-type men attack,
/// written into `free` (the pawn cache's slot, without a copy).
pub(super) fn lay_out_free_cells(guarded: &[CellSet; 2], free: &mut FreeCells) {
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
fn pawn_guarded(t: &EvalTables, pos: &Position, by: Color) -> [u64; GUARD_WORDS] {
    let v = &**pos.variant();
    let mut set = [0u64; GUARD_WORDS];
    for &sq in pos.men(by) {
        let c = pos.b.cells[sq as usize];
        if v.promotion_pawns & c.kind().bit() != 0 {
            for &d in &t.pawn_captures[c.0 as usize] {
                let to = sq as usize as isize + d as isize;
                if (0..BOARD_CELLS as isize).contains(&to) {
                    set[to as usize >> 6] |= 1 << (to & 63);
                }
            }
        }
    }
    set
}

/// What the pawn-type men alone decide, besides their score: the cells of
/// the passed ones, and per side the cells its pawn-type men attack.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PawnFacts {
    pub(super) passed: CellSet,
    pub(super) guarded: [CellSet; 2],
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
    pub(super) fn structure(
        &mut self,
        t: &EvalTables,
        pos: &Position,
    ) -> (Score, &PawnFacts, &FreeCells) {
        let key = pos.b.pawn_hash;
        let slot = &mut self.slots[key as usize & (Self::SIZE - 1)];
        if slot.0 != key {
            let mut acc = Weighted::new(&t.params.weights, Score::ZERO);
            let facts = pawn_terms(t, pos, &mut acc);
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
