//! The data a run trains on, as a value: the `datagen` files, read once
//! into the trainer's positions (each line's two sorted feature lists, the
//! score and result from the side to move's side, and the hand-written
//! evaluation's score; the factoriser's virtual features, when it is on,
//! are not stored but given by [`Samples::with_virtuals`]).

use super::data::{Sample, Samples, TooManyFeatures, split_from};
use super::error::TrainError;
use super::factor::Factoriser;
use super::model::sigmoid;
use crate::engine::eval::nnue::features::View;
use crate::engine::eval::nnue::{Layout, Net};
use crate::engine::eval::{EvalTables, PawnCache, evaluate};
use crate::rules::types::{BOARD_CELLS, Cell, Color, Square};
use crate::rules::variant::Variant;
use crate::tools::datafile::{DataPosition, DataSet};
use arrayvec::ArrayVec;
use std::sync::Arc;

/// The data files of a run, read in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataFiles {
    pub files: Vec<String>,
}

/// The positions read, the comment lines of the files (for the net's
/// provenance), and the positions split into validation and training.
pub struct Loaded {
    pub samples: Samples,
    pub comments: Vec<String>,
    pub validation: Vec<u32>,
    pub train: Vec<u32>,
}

/// What turns a data line into a position: the variant, its feature layout,
/// the factoriser if training uses one, the hand-written evaluation, and
/// the net's output buckets (each position's is stored with it).
pub struct Reader<'a> {
    pub variant: &'a Arc<Variant>,
    pub layout: &'a Layout,
    pub factoriser: Option<&'a Factoriser>,
    pub tables: &'a EvalTables,
    /// 1..=[`MAX_BUCKETS`](crate::engine::eval::nnue::features::MAX_BUCKETS).
    pub buckets: usize,
}

/// A reading thread's working state: the hand-written evaluation's pawn
/// cache, a bit a feature for each perspective, which give a position's
/// features in order without sorting them, and each man's two features
/// learnt as met.
pub struct Baseline {
    pawns: PawnCache,
    /// White's perspective's features, then Black's, as bits.
    seen: [Vec<u64>; 2],
    /// How White's perspective and Black's see the position `seen` holds
    /// (under king buckets, where each perspective's king stands).
    views: [View; 2],
    /// The game and the moves made of the position `seen` holds, if a
    /// binary game's: the next position of that game updates `seen` from
    /// the squares its moves changed rather than from every man.
    last: Option<(usize, usize)>,
    /// Each cell's row of `features` plus one (0: none yet).
    rows: [u16; 256],
    /// A row a cell met: what a man of that cell on each square gives
    /// (its feature from White's perspective in the high half, from
    /// Black's in the low, or [`NO_FEATURE`] or [`UNKNOWN`]): one table
    /// look-up a man instead of two features computed.
    features: Vec<[u64; BOARD_CELLS]>,
}

/// A man that is no feature of the layout.
const NO_FEATURE: u64 = u64::MAX - 1;
/// A man not met yet.
const UNKNOWN: u64 = u64::MAX;

impl Baseline {
    pub fn new() -> Baseline {
        Baseline {
            pawns: PawnCache::new(),
            seen: [Vec::new(), Vec::new()],
            views: [View::PLAIN; 2],
            last: None,
            rows: [0; 256],
            features: Vec::new(),
        }
    }

    /// The plain features ([`Layout::plain_feature`]) of a man of `cell`
    /// on `sq` from White's perspective (the high half) and from Black's
    /// (the low), or [`NO_FEATURE`]; learnt from `layout` when first met.
    #[inline]
    fn man(&mut self, layout: &Layout, cell: Cell, sq: usize) -> Result<u64, String> {
        let slot = match self.rows[usize::from(cell.0)] {
            0 => None,
            r => self.features[usize::from(r) - 1].get(sq).copied(),
        };
        match slot {
            Some(pair) if pair != UNKNOWN => Ok(pair),
            _ => self.learn(layout, cell, sq),
        }
    }

    /// [`Baseline::man`] for a man not met yet: a feature beyond the
    /// layout's inputs is an error.
    #[cold]
    fn learn(&mut self, layout: &Layout, cell: Cell, sq: usize) -> Result<u64, String> {
        let plane = layout.plane();
        let beyond = || format!("a feature index beyond the layout's {plane} of a plane");
        let pair = match layout.plain_feature(Color::White, cell, sq) {
            None => NO_FEATURE,
            Some(f) if f >= plane => return Err(beyond()),
            // A feature seen from Black's side is one too: the layout is
            // the same from either side.
            Some(f) => {
                let b = layout
                    .plain_feature(Color::Black, cell, sq)
                    .ok_or_else(beyond)?;
                (f as u64) << 32 | b as u64
            }
        };
        if sq < BOARD_CELLS {
            let row = match self.rows[usize::from(cell.0)] {
                0 => {
                    self.features.push([UNKNOWN; BOARD_CELLS]);
                    // At most 256 rows, one a cell.
                    self.rows[usize::from(cell.0)] = self.features.len() as u16;
                    self.features.len() - 1
                }
                r => usize::from(r) - 1,
            };
            self.features[row][sq] = pair;
        }
        Ok(pair)
    }
}

impl Default for Baseline {
    fn default() -> Self {
        Baseline::new()
    }
}

/// Which positions get the hand-written evaluation's score: the held-out
/// ones, the only ones whose score is used (the measure to beat). The
/// evaluation costs more than the rest of a position's reading together.
pub struct Wanted<'a>(pub &'a [bool]);

impl Wanted<'_> {
    fn get(&self, index: usize) -> bool {
        self.0.get(index).copied().unwrap_or(true)
    }
}

impl DataFiles {
    pub fn new(files: Vec<String>) -> DataFiles {
        DataFiles { files }
    }

    /// Every position of the files (on the current thread pool), and the
    /// split by `validation` share and `seed` ([`split_from`]), the
    /// validation drawn from the files from number `held_from` on (0: all);
    /// a file that cannot be read or has a bad line ends the reading. The
    /// files' positions are counted first, so that the split is known
    /// while they are read.
    pub fn load(
        &self,
        reader: &Reader,
        validation: f64,
        held_from: usize,
        seed: u64,
    ) -> Result<Loaded, TrainError> {
        let set = DataSet::read(&self.files).map_err(TrainError::Data)?;
        let counts = set.file_positions();
        let positions: usize = counts.iter().sum();
        let from: usize = counts.iter().take(held_from).sum();
        let (held, train) = split_from(positions, from, validation, seed);
        let mut held_out = vec![false; positions];
        for &i in &held {
            held_out[i as usize] = true;
        }
        let wanted = Wanted(&held_out);
        let virtuals = reader.factoriser.map(Factoriser::virtuals);
        // Room for a feature a man and perspective, with every man of the
        // start position on the board: rarely too little, never much more.
        let features_each = 2 * reader.layout.start_men();
        // Each game or run of lines is packed as it is read, and the parts
        // joined once: no vector a position.
        let loaded = set
            .load_parts(
                reader.variant,
                Baseline::new,
                |room| Samples::with_room(room, room * features_each).with_virtuals(virtuals),
                |state, part, line| reader.append(state, line, &wanted, part),
            )
            .map_err(TrainError::Data)?;
        let samples = Samples::concat(loaded.samples);
        if samples.is_empty() {
            return Err(TrainError::NoPositions);
        }
        // The count is exact for files that read without error; were it
        // not, the split is taken again (every position then scored).
        let (validation, train) = if samples.len() == positions {
            (held, train)
        } else {
            split_from(samples.len(), from, validation, seed)
        };
        Ok(Loaded {
            samples,
            comments: loaded.comments,
            validation,
            train,
        })
    }

    /// The mean squared error of `net`'s own evaluation over the positions
    /// `held_out` marks (by their number in the files), read again from
    /// the files, under the trainer's target with weight `lambda` on the
    /// score. It measures a net whose layout is not the one trained (a
    /// start net without king buckets, lifted into a layout with them),
    /// whose evaluation the samples' features cannot give.
    pub fn net_loss(
        &self,
        v: &Arc<Variant>,
        net: &Net,
        held_out: &[bool],
        lambda: f32,
    ) -> Result<f64, TrainError> {
        let set = DataSet::read(&self.files).map_err(TrainError::Data)?;
        let scale = net.network().scale as f32;
        let parts = set
            .load_parts(
                v,
                || (),
                |_| (0.0f64, 0usize),
                |_, (sum, count), line| {
                    if held_out.get(line.index).copied().unwrap_or(false) {
                        let (score, result) = side_to_move_targets(&line);
                        let want =
                            lambda * sigmoid(score as f32 / scale) + (1.0 - lambda) * result as f32;
                        let error = sigmoid(net.evaluate(line.pos) as f32 / scale) - want;
                        *sum += f64::from(error).powi(2);
                        *count += 1;
                    }
                    Ok(())
                },
            )
            .map_err(TrainError::Data)?;
        let (sum, count) = parts
            .samples
            .iter()
            .fold((0.0, 0), |(s, c), &(ps, pc)| (s + ps, c + pc));
        Ok(sum / count.max(1) as f64)
    }
}

/// A position's score and result from its side to move's side.
fn side_to_move_targets(line: &DataPosition) -> (i32, f64) {
    if line.pos.side_to_move() == Color::White {
        (line.score, line.result)
    } else {
        (-line.score, 1.0 - line.result)
    }
}

impl Reader<'_> {
    /// A data file's position as the trainer sees it, appended to `out`;
    /// the hand-written evaluation's score only where `wanted` (0
    /// elsewhere).
    pub fn append(
        &self,
        state: &mut Baseline,
        line: DataPosition,
        wanted: &Wanted,
        out: &mut Samples,
    ) -> Result<(), String> {
        let pos = line.pos;
        let stm = pos.side_to_move();
        let (score, result) = side_to_move_targets(&line);
        let baseline = if wanted.get(line.index) {
            evaluate(self.tables, pos, &mut state.pawns) as f32
        } else {
            0.0
        };
        // The engine's own rule: at most MAX_BUCKETS - 1, a u8.
        let bucket = self.layout.bucket(pos, self.buckets) as u8;
        let [white, black] = self.features(&line, state)?;
        // The side to move's perspective first.
        let sides = if stm == Color::White {
            [white, black]
        } else {
            [black, white]
        };
        out.push_with(
            |features, side| {
                for (w, &word) in sides[side].iter().enumerate() {
                    let base = (w * 64) as u32;
                    let mut rest = word;
                    while rest != 0 {
                        features.push(base + rest.trailing_zeros());
                        rest &= rest - 1;
                    }
                }
            },
            [score as f32, result as f32, baseline],
            bucket,
        )
        // A man count the packed lengths cannot hold: no board has that
        // many squares, but the length is checked rather than truncated.
        .map_err(|TooManyFeatures| "too many men".to_string())
    }

    /// [`Reader::append`] for one position, as a value.
    pub fn sample(
        &self,
        state: &mut Baseline,
        line: DataPosition,
        wanted: &Wanted,
    ) -> Result<Sample, String> {
        let mut one = Samples::with_room(1, 0);
        self.append(state, line, wanted, &mut one)?;
        let s = one.get(0);
        Ok(Sample {
            us: s.us.to_vec(),
            them: s.them.to_vec(),
            score: s.score,
            result: s.result,
            baseline: s.baseline,
            bucket: s.bucket,
        })
    }

    /// The active features of the line's position from White's
    /// perspective and from Black's, as bits (read back in order, they are
    /// the sorted lists that the layout's [`Layout::active`] gives in board
    /// order): from the last position's where this one is later in its
    /// game, else from every man.
    fn features<'s>(
        &self,
        line: &DataPosition,
        state: &'s mut Baseline,
    ) -> Result<[&'s [u64]; 2], String> {
        if self.layout.kings().is_none() {
            self.features_in::<false>(line, state)
        } else {
            self.features_in::<true>(line, state)
        }
    }

    /// [`Reader::features`] of a layout with king buckets (`KINGS`) or
    /// without (every view plain).
    #[inline]
    fn features_in<'s, const KINGS: bool>(
        &self,
        line: &DataPosition,
        state: &'s mut Baseline,
    ) -> Result<[&'s [u64]; 2], String> {
        let pos = line.pos;
        // Cleared first: an error leaves no position behind for the next.
        let last = state.last.take();
        let mut changed = ArrayVec::<(u8, Cell), 64>::new();
        let views = match KINGS {
            true => self.layout.views(pos),
            false => [View::PLAIN; 2],
        };
        let follows = match (line.game, last) {
            (Some(game), Some((was, made))) => {
                game == was && views == state.views && pos.changed_since(made, &mut changed)
            }
            _ => false,
        };
        if follows {
            // A square holds one man, and a man on a square one feature
            // from each side: a changed square's old man's bits are set
            // and its new man's clear (both flip back if they are the same).
            for &(sq, old) in &changed {
                for cell in [old, pos.cell(Square(sq))] {
                    if cell.is_piece() {
                        self.flip::<KINGS>(state, cell, sq)?;
                    }
                }
            }
        } else {
            state.views = views;
            let words = self.layout.inputs().div_ceil(64);
            for bits in state.seen.iter_mut() {
                bits.clear();
                bits.resize(words, 0);
            }
            for c in Color::BOTH {
                for &sq in pos.men(c) {
                    self.flip::<KINGS>(state, pos.cell(Square(sq)), sq)?;
                }
            }
        }
        state.last = line.game.map(|game| (game, pos.moves_made()));
        Ok([&state.seen[0], &state.seen[1]])
    }

    /// Flip the two bits of a man of `cell` on `sq` (if it is a feature),
    /// each perspective's in its view (`state.views`; both plain unless
    /// `KINGS`).
    #[inline]
    fn flip<const KINGS: bool>(
        &self,
        state: &mut Baseline,
        cell: Cell,
        sq: u8,
    ) -> Result<(), String> {
        let sq = usize::from(sq);
        let [wv, bv] = state.views;
        if !KINGS || (wv == View::PLAIN && bv == View::PLAIN) {
            let pair = state.man(self.layout, cell, sq)?;
            if pair != NO_FEATURE {
                let (f, b) = ((pair >> 32) as usize, (pair & 0xFFFF_FFFF) as usize);
                let [white, black] = &mut state.seen;
                white[f / 64] ^= 1 << (f % 64);
                black[b / 64] ^= 1 << (b % 64);
            }
            return Ok(());
        }
        for (side, view) in [wv, bv].into_iter().enumerate() {
            let on = if view.mirror() {
                self.layout.mirror_square(sq)
            } else {
                sq
            };
            let pair = state.man(self.layout, cell, on)?;
            if pair != NO_FEATURE {
                let plain = if side == 0 {
                    pair >> 32
                } else {
                    pair & 0xFFFF_FFFF
                };
                let f = view.base() + plain as usize;
                state.seen[side][f / 64] ^= 1 << (f % 64);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::rules::board::Position;
    use crate::rules::variant_set::VariantSet;

    /// `f` given a reader of chess lines (without the factoriser).
    pub(in super::super) fn with_chess_reader<R>(f: impl FnOnce(&Reader) -> R) -> R {
        let (v, tables) =
            crate::engine::eval::compile(&VariantSet::builtin(), "chess").expect("chess");
        f(&Reader {
            variant: &v,
            layout: &Layout::new(&v),
            factoriser: None,
            tables: tables.tables(),
            buckets: 4,
        })
    }

    #[test]
    fn both_perspectives_are_taken_from_the_side_to_move() {
        with_chess_reader(perspectives);
    }

    fn perspectives(reader: &Reader) {
        let layout = reader.layout;
        let mut hce = Baseline::new();
        let fen = "4k3/8/8/8/8/8/3P4/4K3";
        let at =
            |side| Position::from_fen(reader.variant.clone(), &format!("{fen} {side} - - 0 1"));
        let (w, b) = (at("w").expect("fen"), at("b").expect("fen"));
        let mut read = |pos| {
            let line = DataPosition {
                pos,
                score: 120,
                result: 1.0,
                index: 0,
                game: None,
            };
            reader.sample(&mut hce, line, &Wanted(&[true]))
        };
        let white = read(&w).expect("sample");
        let black = read(&b).expect("sample");
        // The features are the layout's, in order.
        let mut active = Vec::new();
        layout.active(&w, Color::White, &mut active);
        active.sort_unstable();
        assert_eq!(white.us, active);
        // Only the positions wanted get the hand-written score.
        let unscored = DataPosition {
            pos: &w,
            score: 120,
            result: 1.0,
            index: 1,
            game: None,
        };
        let unscored = reader
            .sample(&mut hce, unscored, &Wanted(&[true, false]))
            .expect("sample");
        assert_eq!((unscored.baseline, &unscored.us), (0.0, &white.us));
        // The hand-written score is the side to move's: a pawn up for White.
        assert!(white.baseline > 50.0, "{}", white.baseline);
        assert!(black.baseline < -50.0, "{}", black.baseline);
        assert_eq!((white.score, white.result), (120.0, 1.0));
        assert_eq!((black.score, black.result), (-120.0, 0.0));
        assert_eq!((white.us.len(), white.them.len()), (3, 3));
        // Three men of 32 at the start: the first of four buckets; the
        // start position the last.
        assert_eq!((white.bucket, black.bucket), (0, 0));
        let start = Position::startpos(reader.variant.clone());
        let line = DataPosition {
            pos: &start,
            score: 0,
            result: 0.5,
            index: 0,
            game: None,
        };
        assert_eq!(
            reader
                .sample(&mut hce, line, &Wanted(&[]))
                .map(|s| s.bucket),
            Ok(3)
        );
        assert_eq!(white.us, black.them);
        assert_eq!(white.them, black.us);
        assert_ne!(white.us, white.them);
        assert!(white.us.windows(2).all(|w| w[0] < w[1]));

        let packed = Samples::new(vec![white.clone(), black.clone()]);
        assert_eq!(packed.len(), 2);
        let p = packed.get(1);
        assert_eq!(
            (p.us, p.them, p.score),
            (&black.us[..], &black.them[..], -120.0)
        );
        assert!(packed.feature_bound() <= layout.inputs());
    }
}
