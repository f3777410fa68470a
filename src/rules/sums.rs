//! The scores the board sums incrementally as men move: a material and
//! piece-square score and a game phase, each the sum over the men on the
//! board of a value by cell code and square. The values are the
//! evaluation's; the table is zero until the evaluation installs its own
//! (see [`SumTable`]), so that the rules need nothing from it.

use crate::rules::types::BOARD_CELLS;
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

/// What each man adds to the board's sums: the score of each cell code on
/// each square (indexed `code * BOARD_CELLS + square`) and the phase of
/// each cell code. A compiled variant holds one of zeros; the evaluation
/// fills it when it builds its tables for the variant.
#[derive(Clone, Debug, Default)]
pub struct SumTable {
    pub psq: Vec<Score>,
    pub phase: Vec<i32>,
}

impl SumTable {
    /// A table of zeros for `codes` cell codes.
    pub fn zero(codes: usize) -> SumTable {
        SumTable {
            psq: vec![Score::ZERO; codes * BOARD_CELLS],
            phase: vec![0; codes],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::Rng;

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
}
