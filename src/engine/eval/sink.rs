//! Where the evaluation's terms go: the trait every term is written
//! against, and its implementation for play, the weighted sum.

use crate::rules::sums::Score;
use crate::rules::types::Color;

/// Where the evaluation's terms go: summed with their weights in play, or
/// recorded for the tuner ([`trace`](super::trace)). Every term is written once, generic
/// over this, so that the two cannot disagree.
pub(crate) trait Terms {
    /// Whether every term is wanted, those whose weights are all zero too.
    const ALL: bool;
    /// `count` times the weight at `index`, for `color`.
    fn add(&mut self, index: usize, color: Color, count: i32);
}

/// The sum of the terms with the variant's weights, kept per side (no
/// branch on the side per term) until [`Weighted::sum`] takes White's side.
pub(super) struct Weighted<'a> {
    weights: &'a [Score],
    sums: [Score; 2],
}

impl<'a> Weighted<'a> {
    /// An accumulator starting from `start` (White's side).
    pub(super) fn new(weights: &'a [Score], start: Score) -> Weighted<'a> {
        Weighted {
            weights,
            sums: [start, Score::ZERO],
        }
    }

    /// The sum, from White's side.
    pub(super) fn sum(&self) -> Score {
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
