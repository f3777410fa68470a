//! The trainer's positions: each one's two sorted feature lists (the side
//! to move's perspective first) and its score and result from the side to
//! move's side, packed into one array of features; and the seeded split
//! into training and validation positions.

use crate::util::rng::Rng;

/// One position, from the side to move's side.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Active features from the side to move's perspective, sorted.
    pub us: Vec<u32>,
    /// Active features from the other side's perspective, sorted.
    pub them: Vec<u32>,
    /// The search's score in centipawns.
    pub score: f32,
    /// The game's result: 1 a win for the side to move, 0 a loss.
    pub result: f32,
    /// The hand-written evaluation's static score in centipawns, the
    /// measure a network must beat.
    pub baseline: f32,
}

/// Where one position's features lie in [`Samples::features`].
#[derive(Clone, Copy, Debug)]
struct Entry {
    start: usize,
    us: u16,
    them: u16,
    score: f32,
    result: f32,
    baseline: f32,
}

/// A position's view into [`Samples`].
#[derive(Clone, Copy, Debug)]
pub struct SampleRef<'a> {
    pub us: &'a [u32],
    pub them: &'a [u32],
    pub score: f32,
    pub result: f32,
    pub baseline: f32,
}

/// Every position, its features in one array (a vector a position would
/// cost more in allocation than its features).
#[derive(Clone, Debug, Default)]
pub struct Samples {
    features: Vec<u32>,
    entries: Vec<Entry>,
}

impl Samples {
    /// Pack the positions.
    pub fn new(samples: Vec<Sample>) -> Samples {
        let total = samples.iter().map(|s| s.us.len() + s.them.len()).sum();
        let mut packed = Samples {
            features: Vec::with_capacity(total),
            entries: Vec::with_capacity(samples.len()),
        };
        for s in samples {
            packed.entries.push(Entry {
                start: packed.features.len(),
                us: s.us.len() as u16,
                them: s.them.len() as u16,
                score: s.score,
                result: s.result,
                baseline: s.baseline,
            });
            packed.features.extend_from_slice(&s.us);
            packed.features.extend_from_slice(&s.them);
        }
        packed
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The largest feature index plus one (0 with no features).
    pub fn feature_bound(&self) -> usize {
        self.features.iter().max().map_or(0, |&f| f as usize + 1)
    }

    /// Position `i`.
    pub fn get(&self, i: usize) -> SampleRef<'_> {
        let e = self.entries[i];
        let mid = e.start + usize::from(e.us);
        SampleRef {
            us: &self.features[e.start..mid],
            them: &self.features[mid..mid + usize::from(e.them)],
            score: e.score,
            result: e.result,
            baseline: e.baseline,
        }
    }
}

/// Consecutive positions held out or kept together. A game's positions
/// lie together in a data file and share its result: held out one by one,
/// nearly every held-out position would have its game's other positions in
/// training, and the validation loss would reward learning games by heart.
/// In blocks, most held-out games are held out whole.
pub const SPLIT_BLOCK: usize = 256;

/// The positions' indices split by `seed`: the validation share (held
/// out, whole blocks of [`SPLIT_BLOCK`] positions drawn at random) and the
/// rest, for training, in file order.
pub fn split(len: usize, validation: f64, seed: u64) -> (Vec<u32>, Vec<u32>) {
    let mut blocks: Vec<u32> = (0..len.div_ceil(SPLIT_BLOCK) as u32).collect();
    Rng::new(seed).shuffle(&mut blocks);
    let held = ((len as f64 * validation.clamp(0.0, 1.0)) as usize).min(len);
    let mut held_out = vec![false; len];
    let mut count = 0;
    for b in blocks {
        if count >= held {
            break;
        }
        let start = b as usize * SPLIT_BLOCK;
        // The last block may be short; the final block taken may be cut.
        let end = (start + SPLIT_BLOCK).min(len).min(start + held - count);
        held_out[start..end].iter_mut().for_each(|h| *h = true);
        count += end - start;
    }
    (0..len as u32).partition(|&i| held_out[i as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_holds_out_its_share_by_the_seed() {
        let (valid, train) = split(1000, 0.1, 5);
        assert_eq!((valid.len(), train.len()), (100, 900));
        assert!(valid.windows(2).all(|w| w[1] == w[0] + 1), "one block");
        let (blocks, rest) = split(10_000, 0.25, 5);
        assert_eq!((blocks.len(), rest.len()), (2500, 7500));
        assert!(blocks.windows(2).filter(|w| w[1] != w[0] + 1).count() < 10);
        let mut all: Vec<u32> = valid.iter().chain(&train).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..1000).collect::<Vec<u32>>());
        assert_eq!(split(1000, 0.1, 5), (valid.clone(), train));
        assert_ne!(split(1000, 0.1, 6).0, valid);
        assert_eq!(split(10, 0.0, 1).0.len(), 0);
    }
}
