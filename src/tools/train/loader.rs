//! The data a run trains on, as a value: the `datagen` files, read once
//! into the trainer's positions (each line's two sorted feature lists, with
//! the factoriser's virtual features when it is on, the score and result
//! from the side to move's side, and the hand-written evaluation's score).

use super::data::{Sample, Samples};
use super::error::TrainError;
use super::factor::Factoriser;
use crate::engine::eval::nnue::Layout;
use crate::engine::eval::{EvalTables, PawnCache, evaluate};
use crate::rules::types::Color;
use crate::rules::variant::Variant;
use crate::tools::datafile::{self, DataPosition};
use std::sync::Arc;

/// The data files of a run, read in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataFiles {
    pub files: Vec<String>,
}

/// The positions read, and the comment lines of the files (for the net's
/// provenance).
pub struct Loaded {
    pub samples: Samples,
    pub comments: Vec<String>,
}

/// What turns a data line into a position: the variant, its feature layout,
/// the factoriser if training uses one, and the hand-written evaluation.
pub struct Reader<'a> {
    pub variant: &'a Arc<Variant>,
    pub layout: &'a Layout,
    pub factoriser: Option<&'a Factoriser>,
    pub tables: &'a EvalTables,
}

/// The hand-written evaluation's pawn cache, one per reading thread.
pub struct Baseline {
    pawns: PawnCache,
}

impl Baseline {
    pub fn new() -> Baseline {
        Baseline {
            pawns: PawnCache::new(),
        }
    }
}

impl Default for Baseline {
    fn default() -> Self {
        Baseline::new()
    }
}

impl DataFiles {
    pub fn new(files: Vec<String>) -> DataFiles {
        DataFiles { files }
    }

    /// Every position of the files (on the current thread pool); a file
    /// that cannot be read or has a bad line ends the reading.
    pub fn load(&self, reader: &Reader) -> Result<Loaded, TrainError> {
        let loaded = datafile::load_with(
            &self.files,
            reader.variant,
            Baseline::new,
            |baseline, line| reader.sample(baseline, line),
        )
        .map_err(TrainError::Data)?;
        if loaded.samples.is_empty() {
            return Err(TrainError::NoPositions);
        }
        Ok(Loaded {
            samples: Samples::new(loaded.samples),
            comments: loaded.comments,
        })
    }
}

impl Reader<'_> {
    /// A data file's position as the trainer sees it.
    pub fn sample(&self, baseline: &mut Baseline, line: DataPosition) -> Result<Sample, String> {
        let pos = line.pos;
        let stm = pos.side_to_move();
        let (mut us, mut them) = (Vec::new(), Vec::new());
        self.layout.active(pos, stm, &mut us);
        self.layout.active(pos, stm.flip(), &mut them);
        us.sort_unstable();
        them.sort_unstable();
        if let Some(fz) = self.factoriser {
            fz.extend(&mut us);
            fz.extend(&mut them);
        }
        let (score, result) = if stm == Color::White {
            (line.score, line.result)
        } else {
            (-line.score, 1.0 - line.result)
        };
        // A man count the packed lengths cannot hold: no board has that many
        // squares, but the length is checked rather than truncated.
        if us.len() > usize::from(u16::MAX) || them.len() > usize::from(u16::MAX) {
            return Err("too many men".to_string());
        }
        Ok(Sample {
            us,
            them,
            score: score as f32,
            result: result as f32,
            baseline: evaluate(self.tables, pos, &mut baseline.pawns) as f32,
        })
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
            };
            reader.sample(&mut hce, line)
        };
        let white = read(&w).expect("sample");
        let black = read(&b).expect("sample");
        // The hand-written score is the side to move's: a pawn up for White.
        assert!(white.baseline > 50.0, "{}", white.baseline);
        assert!(black.baseline < -50.0, "{}", black.baseline);
        assert_eq!((white.score, white.result), (120.0, 1.0));
        assert_eq!((black.score, black.result), (-120.0, 0.0));
        assert_eq!((white.us.len(), white.them.len()), (3, 3));
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
