//! The trainer's positions: each one's two sorted feature lists (the side
//! to move's perspective first), its score and result from the side to
//! move's side and its output bucket, packed into arrays of features; and the seeded split
//! into training and validation positions.
//!
//! Only the real features are stored. The factoriser's virtual feature of
//! each is a function of it ([`Virtuals`]) and is added where the features
//! are used ([`SampleRef::rows`]): stored, it would double the memory of
//! the data and the work of reading it.

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
    /// The output bucket of the position's material
    /// ([`output_bucket`](crate::engine::eval::nnue::features::output_bucket)).
    pub bucket: u8,
}

/// Where one position's features lie in [`Samples::chunks`], and its
/// numbers.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// The chunk, and the first feature in it.
    chunk: u32,
    start: usize,
    us: u16,
    them: u16,
    bucket: u8,
    score: f32,
    result: f32,
    baseline: f32,
}

/// The factoriser's virtual feature of each real feature `f`: `inputs +
/// (f % plane) / block` (see [`Factoriser`](super::factor::Factoriser)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Virtuals {
    pub inputs: u32,
    /// At least 1.
    pub plane: u32,
    /// At least 1.
    pub block: u32,
}

impl Virtuals {
    /// The virtual feature of the real feature `f`.
    #[inline]
    pub fn of(&self, f: u32) -> u32 {
        // Most layouts have one plane: no remainder to take.
        let f = if f >= self.plane { f % self.plane } else { f };
        self.inputs + f / self.block
    }
}

/// A position's view into [`Samples`]: `us` and `them` are its real
/// features.
#[derive(Clone, Copy, Debug)]
pub struct SampleRef<'a> {
    pub us: &'a [u32],
    pub them: &'a [u32],
    pub score: f32,
    pub result: f32,
    pub baseline: f32,
    pub bucket: u8,
    pub virtuals: Option<Virtuals>,
}

impl<'a> SampleRef<'a> {
    /// The rows of the model that perspective `side` (0: the side to move)
    /// adds up: its real features in order, then their virtual ones, if
    /// any, in the same order (the order the model's sums are taken in).
    #[inline]
    pub fn rows(&self, side: usize) -> impl Iterator<Item = u32> + 'a {
        let real = if side == 0 { self.us } else { self.them };
        let virtuals = self.virtuals;
        real.iter().copied().chain(
            virtuals
                .into_iter()
                .flat_map(move |v| real.iter().map(move |&f| v.of(f))),
        )
    }
}

/// Every position, its features in arrays of many positions each (a
/// vector a position would cost more in allocation than its features): a
/// chunk per part read and joined ([`Samples::concat`] moves the parts'
/// chunks, never copies their features).
#[derive(Clone, Debug, Default)]
pub struct Samples {
    /// Positions are appended to the last chunk.
    chunks: Vec<Vec<u32>>,
    entries: Vec<Entry>,
    virtuals: Option<Virtuals>,
}

/// A position with more features in a list than the packed lengths hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyFeatures;

impl Samples {
    /// Pack the positions (a list longer than the packed lengths hold is
    /// cut to it: no board has that many men).
    pub fn new(samples: Vec<Sample>) -> Samples {
        let features = samples.iter().map(|s| s.us.len() + s.them.len()).sum();
        let mut packed = Samples::with_room(samples.len(), features);
        for s in samples {
            let cut = |list: &[u32]| list.len().min(usize::from(u16::MAX));
            let (us, them) = (&s.us[..cut(&s.us)], &s.them[..cut(&s.them)]);
            let pushed = packed.push_with(
                |features, side| features.extend_from_slice([us, them][side]),
                [s.score, s.result, s.baseline],
                s.bucket,
            );
            debug_assert_eq!(pushed, Ok(()));
        }
        packed
    }

    /// No positions, with room for `positions` of them and `features`
    /// features in all (more grow the room as a vector does).
    pub fn with_room(positions: usize, features: usize) -> Samples {
        Samples {
            chunks: vec![Vec::with_capacity(features)],
            entries: Vec::with_capacity(positions),
            virtuals: None,
        }
    }

    /// The same positions, whose features have the virtual features
    /// `virtuals` (or none).
    pub fn with_virtuals(self, virtuals: Option<Virtuals>) -> Samples {
        Samples { virtuals, ..self }
    }

    /// Append a position: `write(features, side)` appends its side to
    /// move's list (`side` 0) and then its other list (1) to `features`
    /// (which it must only append to); `[score, result, baseline]` and
    /// `bucket` as in [`Sample`]. A list longer than the packed lengths
    /// hold is refused, nothing appended.
    pub fn push_with(
        &mut self,
        mut write: impl FnMut(&mut Vec<u32>, usize),
        [score, result, baseline]: [f32; 3],
        bucket: u8,
    ) -> Result<(), TooManyFeatures> {
        if self.chunks.is_empty() {
            self.chunks.push(Vec::new());
        }
        // Fewer chunks than positions or parts, far below u32::MAX.
        let chunk = self.chunks.len() - 1;
        let features = &mut self.chunks[chunk];
        let start = features.len();
        let mut lengths = [0u16; 2];
        for (side, length) in lengths.iter_mut().enumerate() {
            let before = features.len();
            write(features, side);
            let Ok(n) = u16::try_from(features.len() - before) else {
                features.truncate(start);
                return Err(TooManyFeatures);
            };
            *length = n;
        }
        self.entries.push(Entry {
            chunk: chunk as u32,
            start,
            us: lengths[0],
            them: lengths[1],
            bucket,
            score,
            result,
            baseline,
        });
        Ok(())
    }

    /// The parts' positions, in order, packed into one (with the first
    /// part's virtual features: the parts of one load share them). The
    /// parts' chunks are moved, not copied, each cut to its length (which
    /// gives back the room a part was given beyond what it used).
    pub fn concat(parts: Vec<Samples>) -> Samples {
        let mut all = Samples {
            chunks: Vec::with_capacity(parts.iter().map(|p| p.chunks.len()).sum()),
            entries: Vec::with_capacity(parts.iter().map(Samples::len).sum()),
            virtuals: parts.first().and_then(|p| p.virtuals),
        };
        for p in parts {
            let base = all.chunks.len() as u32;
            all.entries.extend(p.entries.iter().map(|e| Entry {
                chunk: base + e.chunk,
                ..*e
            }));
            all.chunks.extend(p.chunks.into_iter().map(|mut c| {
                c.shrink_to_fit();
                c
            }));
        }
        all
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The largest row index used plus one (0 with no features): the
    /// largest real feature's virtual one lies highest, when there are
    /// virtual features.
    pub fn feature_bound(&self) -> usize {
        self.chunks.iter().flatten().max().map_or(0, |&f| {
            let top = self.virtuals.map_or(f, |v| v.of(f).max(f));
            top as usize + 1
        })
    }

    /// How many of the positions `idx` lie in each of `buckets` output
    /// buckets (a position of a bucket beyond them counted in the last).
    pub fn bucket_counts(&self, idx: &[u32], buckets: usize) -> Vec<usize> {
        let mut counts = vec![0; buckets.max(1)];
        let last = counts.len() - 1;
        for &i in idx {
            counts[usize::from(self.entries[i as usize].bucket).min(last)] += 1;
        }
        counts
    }

    /// Position `i`.
    pub fn get(&self, i: usize) -> SampleRef<'_> {
        let e = self.entries[i];
        let features = &self.chunks[e.chunk as usize];
        let mid = e.start + usize::from(e.us);
        SampleRef {
            us: &features[e.start..mid],
            them: &features[mid..mid + usize::from(e.them)],
            score: e.score,
            result: e.result,
            baseline: e.baseline,
            bucket: e.bucket,
            virtuals: self.virtuals,
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
    split_from(len, 0, validation, seed)
}

/// [`split`] with the validation share drawn from the positions `from..len`
/// alone (a share of those): the positions before `from` all train. A
/// training that goes on from a net holds out only data the net has not
/// learnt, or the net would be measured on positions it knows.
pub fn split_from(len: usize, from: usize, validation: f64, seed: u64) -> (Vec<u32>, Vec<u32>) {
    let from = from.min(len);
    let eligible = len - from;
    let mut blocks: Vec<u32> = (0..eligible.div_ceil(SPLIT_BLOCK) as u32).collect();
    Rng::new(seed).shuffle(&mut blocks);
    let held = ((eligible as f64 * validation.clamp(0.0, 1.0)) as usize).min(eligible);
    let mut held_out = vec![false; len];
    let mut count = 0;
    for b in blocks {
        if count >= held {
            break;
        }
        let start = from + b as usize * SPLIT_BLOCK;
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

    fn sample(us: Vec<u32>, them: Vec<u32>, score: f32) -> Sample {
        Sample {
            us,
            them,
            score,
            result: 0.5,
            baseline: -score,
            bucket: (score.abs() as u8) % 3,
        }
    }

    /// Positions packed in parts and the parts joined are the positions
    /// packed at once; a list too long for a length is refused whole.
    #[test]
    fn parts_joined_are_the_positions_packed_at_once() {
        let all = [
            sample(vec![1, 5, 9], vec![2, 6], 10.0),
            sample(vec![], vec![3], -4.0),
            sample(vec![7, 8], vec![], 0.0),
            sample(vec![0], vec![4, 11, 12], 25.0),
        ];
        let parts = vec![
            Samples::new(all[..1].to_vec()),
            Samples::new(Vec::new()),
            Samples::new(all[1..].to_vec()),
        ];
        let (joined, at_once) = (Samples::concat(parts), Samples::new(all.to_vec()));
        assert_eq!(joined.len(), 4);
        for (i, s) in all.iter().enumerate() {
            for packed in [&joined, &at_once] {
                let p = packed.get(i);
                assert_eq!((p.us, p.them), (&s.us[..], &s.them[..]));
                assert_eq!((p.score, p.result, p.baseline), (s.score, 0.5, -s.score));
                assert_eq!(p.bucket, s.bucket);
            }
        }
        let mut packed = Samples::new(all[..1].to_vec());
        let long = vec![1u32; usize::from(u16::MAX) + 1];
        let refused = packed.push_with(
            |features, side| features.extend_from_slice(if side == 0 { &[3] } else { &long }),
            [0.0; 3],
            0,
        );
        assert_eq!(refused, Err(TooManyFeatures));
        assert_eq!((packed.len(), packed.feature_bound()), (1, 10));
        packed
            .push_with(
                |features, side| features.push(side as u32 + 20),
                [1.0; 3],
                5,
            )
            .expect("short lists");
        let p = packed.get(1);
        assert_eq!(
            (p.us, p.them, p.score, p.bucket),
            (&[20][..], &[21][..], 1.0, 5)
        );
        assert_eq!(packed.bucket_counts(&[0, 1], 3), [0, 1, 1]);
        assert_eq!(packed.bucket_counts(&[0, 1], 6), [0, 1, 0, 0, 0, 1]);
        assert_eq!(joined.bucket_counts(&[0, 1, 2, 3], 3), [1, 3, 0]);
    }

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
        // Held out from the last 3,000 positions only: a tenth of them.
        let (late, rest) = split_from(10_000, 7_000, 0.1, 5);
        assert_eq!(late.len(), 300);
        assert!(late.iter().all(|&i| i >= 7_000), "{late:?}");
        assert_eq!(late.len() + rest.len(), 10_000);
        assert_eq!(split_from(1000, 0, 0.1, 5), split(1000, 0.1, 5));
        assert_eq!(split_from(1000, 5000, 0.1, 5).0.len(), 0);
    }
}
