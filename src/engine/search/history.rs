//! What the search learns about moves and keeps from one search to the next
//! (until a new game): butterfly history of quiet moves, capture history,
//! one- and two-ply continuation history and counter moves.
//!
//! Every score moves by [`update`], with "gravity": a bonus or malus moves
//! it the less the nearer it already is to the bound, so scores stay within
//! plus and minus [`HISTORY_MAX`] and old evidence fades as new arrives.

use crate::rules::board::Position;
use crate::rules::types::{BOARD_CELLS, Cell, Move, MoveKind, Square};
use crate::rules::variant::Variant;

/// History scores stay within plus and minus this.
pub const HISTORY_MAX: i32 = 16_384;

/// Entries of each side's correction table (a power of two).
const CORRECTION_ENTRIES: usize = 16_384;
/// Correction entries are kept in 1/256 centipawn.
const CORRECTION_GRAIN: i32 = 256;
/// A single search result moves its entry by at most this many centipawns
/// from the static evaluation: one wild score does not poison the entry.
const CORRECTION_CLAMP: i32 = 64;

/// Most keys (mover and destination) a continuation table is indexed by;
/// a larger variant folds its keys onto these, so that the table stays
/// within 8 MB whatever the variant (collisions only blur the statistics).
const MAX_KEYS: usize = 2_048;

/// A history bonus (or, negated, a malus) for a move searched at `depth`.
pub fn bonus(depth: i32) -> i32 {
    (16 * depth * depth + 32 * depth).min(1_500)
}

/// Move a score toward the bonus's sign, with gravity.
#[inline]
fn update(entry: &mut i16, bonus: i32) {
    let e = *entry as i32;
    *entry = (e + bonus - e * bonus.abs() / HISTORY_MAX) as i16;
}

/// A move's key in the continuation tables: the man that moves (cell code,
/// so colour included) and its destination on the real board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContKey(u32);

/// The tables, sized for one variant (the default is sized for none).
#[derive(Clone, Default)]
pub struct SearchMemory {
    /// Variant dimensions the tables were sized for.
    shape: (usize, usize, usize),
    /// Quiet moves by (cell code of the mover, destination cell).
    butterfly: Vec<i16>,
    /// Captures by (cell code of the mover, destination cell, victim type).
    capture: Vec<i16>,
    /// Quiet moves by (key of an earlier move, key of this move); the same
    /// table serves the move one ply and two plies before.
    continuation: Vec<i16>,
    keys: usize,
    /// Whether keys are folded onto the table (a large variant).
    fold: bool,
    /// Each mailbox cell's index on the real board (`rank * files + file`).
    square_of: Vec<u16>,
    squares: usize,
    /// The quiet move that last refuted a move, by (cell code of the man
    /// that move left on its destination, destination cell).
    pub counters: Vec<Move>,
    types: usize,
    /// By side to move and pawn structure: a running average of how far
    /// the search's score stood from the static evaluation, in 1/256 cp.
    correction: Vec<i32>,
}

impl SearchMemory {
    pub fn new(variant: &Variant) -> SearchMemory {
        let types = variant.pieces.len();
        let codes = 2 + 2 * types;
        let squares = variant.files * variant.ranks;
        let keys = (codes * squares).clamp(1, MAX_KEYS);
        let mut square_of = vec![0u16; BOARD_CELLS];
        for rank in 0..variant.ranks {
            for file in 0..variant.files {
                square_of[Square::new(file, rank).index()] = (rank * variant.files + file) as u16;
            }
        }
        SearchMemory {
            shape: (types, variant.files, variant.ranks),
            butterfly: vec![0; codes * BOARD_CELLS],
            capture: vec![0; codes * BOARD_CELLS * types.max(1)],
            continuation: vec![0; keys * keys],
            keys,
            fold: codes * squares > MAX_KEYS,
            square_of,
            squares,
            counters: vec![Move::NONE; codes * BOARD_CELLS],
            types,
            correction: vec![0; 2 * CORRECTION_ENTRIES],
        }
    }

    /// Whether the tables are sized for `variant`.
    pub fn fits(&self, variant: &Variant) -> bool {
        self.shape == (variant.pieces.len(), variant.files, variant.ranks)
    }

    /// Forget everything (a new game).
    pub fn clear(&mut self) {
        self.butterfly.fill(0);
        self.capture.fill(0);
        self.continuation.fill(0);
        self.counters.fill(Move::NONE);
        self.correction.fill(0);
    }

    #[inline]
    fn correction_index(pos: &Position) -> usize {
        pos.side_to_move() as usize * CORRECTION_ENTRIES
            + (pos.pawn_hash() as usize & (CORRECTION_ENTRIES - 1))
    }

    /// Centipawns to add to the static evaluation of `pos`: what searches
    /// of positions with its pawn structure found the evaluation to miss.
    #[inline]
    pub fn correction(&self, pos: &Position) -> i32 {
        self.correction[Self::correction_index(pos)] / CORRECTION_GRAIN
    }

    /// Move the correction of `pos` toward `diff` (the search's score less
    /// the static evaluation), by more the deeper the search was.
    pub fn update_correction(&mut self, pos: &Position, diff: i32, depth: i32) {
        let weight = (depth + 1).clamp(1, 16);
        let target = diff.clamp(-CORRECTION_CLAMP, CORRECTION_CLAMP) * CORRECTION_GRAIN;
        let e = &mut self.correction[Self::correction_index(pos)];
        *e = (*e * (256 - weight) + target * weight) / 256;
    }

    /// Cell code of the man that makes `m` in `pos` (before it is made).
    #[inline]
    fn mover(pos: &Position, m: Move) -> usize {
        Cell::piece(m.part(), pos.side_to_move()).0 as usize
    }

    /// The continuation key of `m`, to be made in `pos`.
    #[inline]
    pub fn key(&self, pos: &Position, m: Move) -> ContKey {
        let raw = Self::mover(pos, m) * self.squares + self.square_of[m.to().index()] as usize;
        ContKey(if self.fold { raw % self.keys } else { raw } as u32)
    }

    #[inline]
    fn butterfly_index(pos: &Position, m: Move) -> usize {
        Self::mover(pos, m) * BOARD_CELLS + m.to().index()
    }

    #[inline]
    fn cont_index(&self, before: ContKey, now: ContKey) -> usize {
        before.0 as usize * self.keys + now.0 as usize
    }

    /// Type index of the man `m` captures in `pos` (en passant: the type
    /// of the capturing man, which is what en passant takes).
    #[inline]
    fn victim(pos: &Position, m: Move) -> usize {
        if m.kind() == MoveKind::EnPassant {
            m.part().index()
        } else {
            pos.cell(m.to()).kind().index()
        }
    }

    #[inline]
    fn capture_index(&self, pos: &Position, m: Move) -> usize {
        Self::butterfly_index(pos, m) * self.types + Self::victim(pos, m)
    }

    /// The history score of a quiet move: butterfly plus the continuation
    /// scores after the moves one and two plies before (where known).
    #[inline(always)]
    pub fn quiet(&self, pos: &Position, m: Move, before: [Option<ContKey>; 2]) -> i32 {
        let mut s = self.butterfly[Self::butterfly_index(pos, m)] as i32;
        let now = self.key(pos, m);
        for b in before.into_iter().flatten() {
            s += self.continuation[self.cont_index(b, now)] as i32;
        }
        s
    }

    /// The capture history score of a capture.
    #[inline]
    pub fn capture(&self, pos: &Position, m: Move) -> i32 {
        self.capture[self.capture_index(pos, m)] as i32
    }

    /// Reward (positive bonus) or punish (negative) a quiet move.
    pub fn update_quiet(
        &mut self,
        pos: &Position,
        m: Move,
        before: [Option<ContKey>; 2],
        bonus: i32,
    ) {
        let i = Self::butterfly_index(pos, m);
        update(&mut self.butterfly[i], bonus);
        let now = self.key(pos, m);
        for b in before.into_iter().flatten() {
            let i = self.cont_index(b, now);
            update(&mut self.continuation[i], bonus);
        }
    }

    /// Reward or punish a capture.
    pub fn update_capture(&mut self, pos: &Position, m: Move, bonus: i32) {
        let i = self.capture_index(pos, m);
        update(&mut self.capture[i], bonus);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant_set::VariantSet;
    use std::sync::Arc;

    #[test]
    fn gravity_keeps_scores_within_the_bound() {
        let mut e = 0i16;
        for _ in 0..10_000 {
            update(&mut e, bonus(20));
        }
        assert!(
            e as i32 <= HISTORY_MAX && e as i32 > HISTORY_MAX - 200,
            "{e}"
        );
        for _ in 0..10_000 {
            update(&mut e, -bonus(20));
        }
        assert!(
            e as i32 >= -HISTORY_MAX && (e as i32) < -HISTORY_MAX + 200,
            "{e}"
        );
    }

    #[test]
    fn the_correction_follows_its_pawn_structure_and_side() {
        let set = VariantSet::builtin();
        let v: Arc<Variant> = set.compile("chess").expect("built-in variant");
        let mut mem = SearchMemory::new(&v);
        let mut pos = Position::startpos(v.clone());
        assert_eq!(mem.correction(&pos), 0);
        // Deep searches that keep finding 40 cp more than the evaluation
        // bring the correction near 40; a wild score counts as 64 at most.
        for (diff, near) in [(40, 38..=40), (5_000, 62..=64)] {
            for _ in 0..200 {
                mem.update_correction(&pos, diff, 20);
            }
            let c = mem.correction(&pos);
            assert!(near.contains(&c), "{diff}: {c}");
        }
        // A shallow search moves it less than a deep one.
        let mut shallow = mem.clone();
        shallow.update_correction(&pos, -64, 1);
        let mut deep = mem.clone();
        deep.update_correction(&pos, -64, 12);
        assert!(deep.correction(&pos) < shallow.correction(&pos));
        // A move of a man that is no pawn keeps the key and hands the move
        // over: the other side's entry, untouched, is read; a pawn's move
        // changes the key.
        let before = mem.correction(&pos);
        // A legal move that keeps the pawn structure, or one that changes it.
        let find = |pos: &mut Position, keeps: bool| {
            let pawns = pos.pawn_hash();
            pos.legal_moves().iter().copied().find(|&m| {
                pos.make(m);
                let same = pos.pawn_hash() == pawns;
                pos.unmake();
                same == keeps
            })
        };
        for _ in 0..2 {
            let m = find(&mut pos, true).expect("a knight's move");
            pos.make(m);
        }
        assert_eq!(mem.correction(&pos), before);
        pos.unmake();
        assert_eq!(mem.correction(&pos), 0);
        pos.unmake();
        let m = find(&mut pos, false).expect("a pawn's move");
        pos.make(m);
        let m = find(&mut pos, true).expect("a knight's move");
        pos.make(m);
        assert_eq!(mem.correction(&pos), 0);
        pos.unmake();
        pos.unmake();
        mem.clear();
        assert_eq!(mem.correction(&pos), 0);
    }

    #[test]
    fn keys_stay_within_the_table_in_every_variant() {
        let set = VariantSet::builtin();
        for name in set.names() {
            let v: Arc<Variant> = set.compile(name).expect("built-in variant");
            let mut mem = SearchMemory::new(&v);
            let mut pos = Position::startpos(v.clone());
            // Walk a few plies, rewarding every move at every step: an index
            // out of range panics.
            for _ in 0..12 {
                let moves = pos.legal_moves().to_vec();
                let Some(&first) = moves.first() else { break };
                let before = [Some(mem.key(&pos, first)), None];
                for &m in &moves {
                    mem.update_quiet(&pos, m, before, 100);
                    assert!(mem.quiet(&pos, m, before) > 0);
                }
                pos.make(moves[moves.len() / 2]);
            }
            assert!(mem.fits(&v));
            mem.clear();
            assert!(mem.continuation.iter().all(|&x| x == 0));
        }
    }
}
