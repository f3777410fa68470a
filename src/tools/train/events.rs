//! What a run reports as it goes: the plan once the data are read, the
//! progress of each epoch, and each finished epoch.

use crate::engine::eval::nnue::features::{MAX_BUCKETS, output_bucket};

/// The men counts of output bucket `b` (of `buckets`, for a start
/// position of `start_men` men) in words: `9-16`, `25+` for the last, `-`
/// for a bucket no count from 2 men on reaches.
fn bucket_men(b: usize, start_men: usize, buckets: usize) -> String {
    let men: Vec<usize> = (2..=start_men.max(2))
        .filter(|&m| output_bucket(m, start_men, buckets) == b)
        .collect();
    match (men.first(), men.last()) {
        (Some(lo), _) if b == buckets - 1 => format!("{lo}+"),
        (Some(lo), Some(hi)) if lo == hi => lo.to_string(),
        (Some(lo), Some(hi)) => format!("{lo}-{hi}"),
        _ => "-".to_string(),
    }
}

/// The run as it will go, once the data are read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Positions read, and the seconds the reading took.
    pub positions: usize,
    pub read_seconds: f64,
    /// Positions trained on, and held out for validation.
    pub training: usize,
    pub validation: usize,
    /// The network's inputs (the variant's features) and hidden neurons.
    pub inputs: usize,
    pub hidden: usize,
    /// Positions per step, and whether it was chosen to fit the data.
    pub batch: usize,
    pub batch_chosen: bool,
    /// Output buckets, the training positions of each (the first
    /// `buckets` entries), and the men of the start position that the
    /// buckets divide.
    pub buckets: usize,
    pub bucket_positions: [usize; MAX_BUCKETS as usize],
    pub start_men: usize,
}

impl Plan {
    /// Steps an epoch.
    pub fn steps(&self) -> usize {
        self.training.div_ceil(self.batch.max(1))
    }

    /// The training positions of each output bucket and the men it
    /// holds, e.g. `0 (2-8 men): 1200, ..., 3 (25+ men): 5000`; none for one
    /// bucket.
    pub fn buckets_text(&self) -> Option<String> {
        (self.buckets > 1).then(|| {
            (0..self.buckets)
                .map(|b| {
                    let men = bucket_men(b, self.start_men, self.buckets);
                    format!("{b} ({men} men): {}", self.bucket_positions[b])
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
    }

    /// The batch, and why where it was chosen.
    pub fn batch_text(&self) -> String {
        if self.batch_chosen {
            format!(
                "{} (chosen for {} training positions: {} steps an epoch)",
                self.batch,
                self.training,
                self.steps()
            )
        } else {
            self.batch.to_string()
        }
    }
}

/// One finished epoch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Epoch {
    pub number: usize,
    /// Mean squared error over the epoch's batches, each before its step.
    pub train_loss: f64,
    /// Mean squared error on the held-out positions after the epoch (None
    /// when none are held out).
    pub validation_loss: Option<f64>,
    /// Seconds the epoch took (its steps and the validation).
    pub seconds: f64,
    /// Training positions, and the threads they were shared among.
    pub positions: usize,
    pub threads: usize,
}

impl Epoch {
    /// Training positions per second.
    pub fn speed(&self) -> f64 {
        self.positions as f64 / self.seconds.max(1e-9)
    }
}

/// What a run reports as it goes.
pub enum Event {
    Plan(Plan),
    /// Positions of the current epoch done so far, of the total.
    Progress {
        epoch: usize,
        done: usize,
        total: usize,
    },
    Epoch(Epoch),
}
