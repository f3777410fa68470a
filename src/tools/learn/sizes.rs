//! How big each generation is: its new positions, the window of data its
//! candidate trains on, and the network's hidden size, all grown with the
//! data so that the same defaults serve a first run of a few minutes and
//! a run of hundreds of millions of positions.

/// The sizes of a run: the defaults, or what the command line gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// New positions of a generation: fixed, or grown with the data.
    pub positions: Option<usize>,
    /// The fewest new positions of a grown generation.
    pub min_positions: usize,
    /// The most new positions of a generation (one data file each).
    pub max_positions: usize,
    /// Positions a candidate trains on at most: the newest data files up
    /// to this many.
    pub window: usize,
    /// Hidden neurons: fixed, or grown with the window.
    pub hidden: Option<usize>,
}

/// A generation's new positions when grown: at least a million, about the
/// fewest on which a first net beats the hand-written evaluation that made
/// its data (on 50,000 to 300,000 positions of a chess-like variant the
/// nets' validation loss stayed above the hand-written evaluation's and
/// they lost their gates by 100 Elo and more); 10 to 20 minutes of
/// `datagen` at 1,000 nodes a move on two threads.
pub const MIN_POSITIONS: usize = 1_000_000;

/// The most new positions of a generation: its binary file stays far below
/// the largest data file read (128 MB; a position takes about 4 to 8
/// bytes), and a generation's data never takes more than a few hours on
/// two cores.
pub const MAX_POSITIONS: usize = 8_000_000;

/// The most positions a candidate trains on: the trainer holds its data
/// in memory, a few hundred bytes a position, so about 6 GB here; the
/// newest data are the best (made by the strongest net).
pub const WINDOW: usize = 20_000_000;

/// Hidden sizes by the positions trained on: below the first bound the
/// first size, and so on; a larger net fits more data without learning
/// its noise.
const HIDDEN_STEPS: [(usize, usize); 3] = [(1_000_000, 32), (20_000_000, 128), (usize::MAX, 256)];

impl Default for Sizes {
    fn default() -> Self {
        Sizes {
            positions: None,
            min_positions: MIN_POSITIONS,
            max_positions: MAX_POSITIONS,
            window: WINDOW,
            hidden: None,
        }
    }
}

impl Sizes {
    /// New positions of the generation after `have` positions of earlier
    /// generations: half as many as those, so that each generation adds a
    /// third of the data (the newest net's games weigh in while the old
    /// ones are still most of it), within the bounds. When the best is a
    /// net made elsewhere, trained on `rival` positions, the generation
    /// adds at least what brings the data to that many (within the most
    /// of a generation): a net trained from nothing on half its rival's
    /// data did not beat it (Team-Mate, 3.0 M positions against the
    /// shipped net's 6.3 M: -37 Elo after 56 games at 10+0.1), and a gate
    /// it cannot win costs a generation.
    pub fn generation_positions(&self, have: usize, rival: usize) -> usize {
        self.positions.unwrap_or_else(|| {
            (have / 2).max(rival.saturating_sub(have)).clamp(
                self.min_positions,
                self.max_positions.max(self.min_positions),
            )
        })
    }

    /// Hidden neurons of a net trained on `positions` positions.
    pub fn hidden(&self, positions: usize) -> usize {
        self.hidden.unwrap_or_else(|| {
            HIDDEN_STEPS
                .iter()
                .find(|(below, _)| positions < *below)
                .map_or(256, |&(_, h)| h)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_grow_with_the_data_within_bounds() {
        let s = Sizes::default();
        let mut have = 0;
        let mut sizes = Vec::new();
        for _ in 0..6 {
            let n = s.generation_positions(have, 0);
            sizes.push(n);
            have += n;
        }
        assert_eq!(
            sizes,
            [
                1_000_000, 1_000_000, 1_000_000, 1_500_000, 2_250_000, 3_375_000
            ]
        );
        assert_eq!(s.generation_positions(500_000_000, 0), MAX_POSITIONS);
        // A rival net's data are caught up with, within the most of a
        // generation; data already beyond them change nothing.
        assert_eq!(s.generation_positions(0, 6_308_099), 6_308_099);
        assert_eq!(s.generation_positions(3_000_000, 6_308_099), 3_308_099);
        assert_eq!(s.generation_positions(0, 14_358_415), MAX_POSITIONS);
        assert_eq!(s.generation_positions(8_000_000, 14_358_415), 6_358_415);
        assert_eq!(
            s.generation_positions(20_000_000, 14_358_415),
            MAX_POSITIONS
        );
        assert_eq!(s.generation_positions(0, 200_000), MIN_POSITIONS);
        let fixed = Sizes {
            positions: Some(1234),
            ..s
        };
        assert_eq!(fixed.generation_positions(10_000_000, 50_000_000), 1234);
        // Bounds given the wrong way round still give a size.
        let odd = Sizes {
            min_positions: 100,
            max_positions: 10,
            ..s
        };
        assert_eq!(odd.generation_positions(1_000_000, 0), 100);
    }

    #[test]
    fn the_hidden_size_grows_with_the_data() {
        let s = Sizes::default();
        assert_eq!(s.hidden(0), 32);
        assert_eq!(s.hidden(999_999), 32);
        assert_eq!(s.hidden(1_000_000), 128);
        assert_eq!(s.hidden(19_999_999), 128);
        assert_eq!(s.hidden(20_000_000), 256);
        assert_eq!(s.hidden(usize::MAX), 256);
        let fixed = Sizes {
            hidden: Some(64),
            ..s
        };
        assert_eq!(fixed.hidden(50_000_000), 64);
    }
}
