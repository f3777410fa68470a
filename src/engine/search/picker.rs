//! Move ordering: the ordering scores of a node's moves and the pick of
//! the best remaining one.

use super::Worker;
use super::see::see_ge;
use crate::rules::types::{Move, MoveKind, MoveList};
use arrayvec::ArrayVec;

/// Ordering scores from here up are captures that do not lose material and
/// promotions (see [`Worker::score_moves`]).
pub(super) const GOOD_CAPTURE_ORDER: i32 = 900_000;
/// Remaining moves from which [`Worker::pick`] finds the best in two
/// vectorised passes rather than one scalar pass.
const LONG_PICK: usize = 12;
/// The ordering score of the counter move; quiet moves below it are
/// ordered by their history.
pub(super) const COUNTER_ORDER: i32 = 780_000;

impl Worker<'_> {
    /// Ordering scores for the moves of a node: captures that do not lose
    /// material by most valuable victim, then promotions, killers, the
    /// counter move, quiet moves by history, and last (with `sort_losers`)
    /// the captures that lose material.
    ///
    /// The scores of `list` are appended to `scores`.
    pub(super) fn score_moves(
        &self,
        list: &[Move],
        ply: usize,
        sort_losers: bool,
        scores: &mut ArrayVec<i32, { crate::rules::types::MAX_MOVES }>,
    ) {
        let before = self.before(ply);
        let counter = self
            .counter_index()
            .map_or(Move::NONE, |k| self.mem.counters[k]);
        for &m in list.iter() {
            let s = if let Some(victim) = self.capture_value(m) {
                let mvv = victim * 16 - self.values[m.part().index()] / 16
                    + self.mem.capture(&self.pos, m) / 8;
                if sort_losers && !see_ge(self.tables(), &self.pos, m, 0) {
                    -1_000_000 + mvv
                } else {
                    1_000_000 + mvv
                }
            } else if matches!(m.kind(), MoveKind::Promotion | MoveKind::PairPromotion) {
                900_000 + self.values[m.result().index()]
            } else if m == self.killers[ply][0] {
                800_000
            } else if m == self.killers[ply][1] {
                790_000
            } else if m == counter {
                COUNTER_ORDER
            } else {
                self.mem.quiet(&self.pos, m, before)
            };
            let _ = scores.try_push(s);
        }
    }

    /// Bring the best-scored remaining move to position `i`.
    pub(super) fn pick(
        list: &mut MoveList,
        scores: &mut ArrayVec<i32, { crate::rules::types::MAX_MOVES }>,
        i: usize,
    ) {
        let rest = &scores[i..];
        let best = if rest.len() >= LONG_PICK {
            // Two passes that the compiler turns into vector code: the
            // highest score, then its first position (as below).
            let top = rest.iter().copied().fold(i32::MIN, i32::max);
            i + rest.iter().position(|&s| s == top).unwrap_or(0)
        } else {
            let mut best = i;
            let mut top = scores[i];
            for (j, &s) in scores.iter().enumerate().skip(i + 1) {
                if s > top {
                    top = s;
                    best = j;
                }
            }
            best
        };
        list.swap(i, best);
        scores.swap(i, best);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::Rng;

    /// The picks of a whole list, made by [`Worker::pick`] and by the plain
    /// selection (the first best from `i` on, swapped to `i`), agree move
    /// for move, on lists short and long, with many equal scores.
    #[test]
    fn pick_takes_the_first_best_in_short_and_long_lists() {
        let mut rng = Rng::new(17);
        for len in (1..=40).chain([63, 64, 65, 200, 1024]) {
            for spread in [3, 1_000] {
                let mut list = MoveList::new();
                let mut scores = ArrayVec::<i32, { crate::rules::types::MAX_MOVES }>::new();
                for j in 0..len {
                    list.push(Move(j as u32));
                    scores.push((rng.next_u64() % spread) as i32 - spread as i32 / 2);
                }
                let (mut want, mut want_scores) = (list.clone(), scores.clone());
                for i in 0..len {
                    Worker::pick(&mut list, &mut scores, i);
                    let mut best = i;
                    for j in i + 1..len {
                        if want_scores[j] > want_scores[best] {
                            best = j;
                        }
                    }
                    want.swap(i, best);
                    want_scores.swap(i, best);
                    assert_eq!(list[i], want[i], "length {len}, spread {spread}, pick {i}");
                }
            }
        }
    }
}
