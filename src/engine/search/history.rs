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
