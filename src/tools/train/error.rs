//! Why a training run stopped, told apart by its callers: options that
//! contradict each other and a net file that cannot be written are found
//! before any data is read; bad data lines come with every one of them.

use crate::engine::eval::nnue::NetError;
use crate::engine::eval::nnue::features::{KingBuckets, MAX_BUCKETS};
use crate::engine::eval::nnue::format::MAX_HIDDEN;
use crate::tools::datafile::LoadError;
use std::fmt;
use std::path::PathBuf;

/// Options refused before anything is read.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionError {
    NoEpochs,
    /// More epochs at the dropped step size than epochs.
    DropBeyondEpochs {
        drop: usize,
        epochs: usize,
    },
    /// A step size not above 0 and at most 1.
    Rate(f32),
    /// A drop of the step schedule asked for with the cosine decay.
    DropWithCosine,
    /// A final step size given without the cosine decay.
    FinalWithoutCosine(f32),
    /// A cosine decay's final step size below 0 or above the step size.
    FinalRate {
        last: f32,
        rate: f32,
    },
    /// A search score weight outside 0 to 1.
    Lambda(f32),
    /// A validation share outside 0 to 0.9.
    Validation(f64),
    /// A hidden layer of no neurons or more than a net file may hold.
    Hidden(usize),
    /// Output buckets none or more than a net file may hold.
    Buckets(usize),
    /// A king bucket preset there is not.
    KingBuckets(usize),
    NoBatch,
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::NoEpochs => write!(f, "--epochs must be at least 1"),
            OptionError::DropBeyondEpochs { drop, epochs } => write!(
                f,
                "--lr-drop {drop} is more than --epochs {epochs}: the step size can drop \
                 for at most every epoch"
            ),
            OptionError::Rate(r) => write!(f, "--lr {r} is not above 0 and at most 1"),
            OptionError::DropWithCosine => write!(
                f,
                "--lr-drop belongs to --lr-schedule step: the cosine decay lowers the \
                 step size itself (--lr-final)"
            ),
            OptionError::FinalWithoutCosine(last) => {
                write!(f, "--lr-final {last} belongs to --lr-schedule cosine")
            }
            OptionError::FinalRate { last, rate } => {
                write!(f, "--lr-final {last} is not from 0 to --lr {rate}")
            }
            OptionError::Lambda(l) => write!(f, "--lambda {l} is not from 0 to 1"),
            OptionError::Validation(v) => write!(f, "--validation {v} is not from 0 to 0.9"),
            OptionError::Hidden(h) => write!(f, "--hidden {h} is not from 1 to {MAX_HIDDEN}"),
            OptionError::Buckets(b) => {
                write!(f, "--output-buckets {b} is not from 1 to {MAX_BUCKETS}")
            }
            OptionError::KingBuckets(k) => write!(
                f,
                "--king-buckets {k} is not one of the presets {} to {}",
                KingBuckets::PRESETS.start(),
                KingBuckets::PRESETS.end()
            ),
            OptionError::NoBatch => write!(f, "--batch must be at least 1"),
        }
    }
}

/// Why the net file cannot be written where it was asked for.
#[derive(Debug)]
pub enum OutputError {
    /// The path names an existing folder.
    IsFolder,
    /// The folder it would go in is not there.
    NoFolder(PathBuf),
    /// The path ends in no file name (`..`, empty).
    NoFileName,
    /// The file beside it, written first and renamed at the end, cannot be
    /// made (a folder without write permission, a full disk).
    Create(std::io::Error),
    /// Writing or renaming failed at the end.
    Write(std::io::Error),
}

/// Why a checkpoint is not resumed.
#[derive(Debug)]
pub enum CheckpointError {
    /// `--resume` without a checkpoint file there.
    Missing(String),
    /// The file cannot be read.
    Io(String, std::io::Error),
    /// The checkpoint cannot be written at `file`.
    Write { file: String, error: OutputError },
    /// Not a checkpoint, or a damaged one: the byte where it is.
    Damaged {
        file: String,
        offset: u64,
        message: String,
    },
    /// Made by a run of other options or data: the first line that
    /// differs, as the checkpoint and as this run has it.
    Mismatch {
        file: String,
        what: String,
        saved: String,
        now: String,
    },
    /// The schedule gives a step of the epochs already run another step
    /// size than the checkpoint's did.
    Schedule { file: String, epoch: usize },
    /// More epochs done (or begun) than the schedule has.
    BeyondEpochs {
        file: String,
        done: usize,
        epochs: usize,
    },
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointError::Missing(file) => {
                write!(f, "{file}: no checkpoint to resume (--checkpoint names it)")
            }
            CheckpointError::Io(file, e) => write!(f, "{file}: {e}"),
            CheckpointError::Write { file, error } => {
                error.describe(f, "--checkpoint", file, "the checkpoint's file name")
            }
            CheckpointError::Damaged {
                file,
                offset,
                message,
            } => write!(f, "{file}: byte {offset}: {message}; not resumed"),
            CheckpointError::Mismatch {
                file,
                what,
                saved,
                now,
            } => write!(
                f,
                "{file} was made by another run: its {what} is {saved}, this run's {now}; \
                 not resumed"
            ),
            CheckpointError::Schedule { file, epoch } => write!(
                f,
                "{file} was made by another schedule: epoch {epoch} ran at other step sizes \
                 than these options give it (--lr, --lr-drop, --lr-schedule, --lr-final, \
                 --lr-warmup, or --epochs with a decay); not resumed"
            ),
            CheckpointError::BeyondEpochs { file, done, epochs } => write!(
                f,
                "{file} has {done} epoch(s) done or begun, more than --epochs {epochs}; \
                 not resumed"
            ),
        }
    }
}

impl std::error::Error for CheckpointError {}

impl OutputError {
    /// This error of the file `path` that `option` names; `name` says
    /// what to give where a folder was given.
    fn describe(
        &self,
        f: &mut fmt::Formatter<'_>,
        option: &str,
        path: &str,
        name: &str,
    ) -> fmt::Result {
        match self {
            OutputError::IsFolder => write!(f, "{option} {path} is a folder: give {name}"),
            OutputError::NoFolder(dir) => write!(f, "{}: no such folder", dir.display()),
            OutputError::NoFileName => write!(f, "{option} '{path}' names no file"),
            OutputError::Create(e) => write!(f, "{path}: cannot write beside it: {e}"),
            OutputError::Write(e) => write!(f, "{path}: {e}"),
        }
    }
}

/// Why a run stopped.
#[derive(Debug)]
pub enum TrainError {
    Options(OptionError),
    /// The net file cannot be written at `path`.
    Output {
        path: String,
        error: OutputError,
    },
    /// A data file cannot be read or has bad lines.
    Data(LoadError),
    /// The data files hold no positions.
    NoPositions,
    /// The validation share leaves nothing to train on.
    NoTrainingPositions,
    /// A position's feature lies beyond the network's inputs.
    FeatureBeyondInputs {
        inputs: usize,
    },
    /// The thread pool could not be started.
    Threads {
        threads: usize,
        error: String,
    },
    /// The weights are no longer finite.
    Diverged,
    /// The quantised network is not a valid net for the variant.
    NetRefused(NetError),
    /// A checkpoint that cannot be resumed.
    Checkpoint(CheckpointError),
    /// The net to start from is not of this variant or architecture: its
    /// name, and what differs.
    StartNet {
        name: String,
        why: String,
    },
    /// A stop request ended the run after `epochs` epochs and `batches`
    /// batches of the next, with the checkpoint written.
    Stopped {
        epochs: usize,
        batches: usize,
        checkpoint: String,
    },
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::Options(e) => write!(f, "{e}"),
            TrainError::Output { path, error } => error.describe(
                f,
                "--out",
                path,
                &format!(
                    "the net file's name (e.g. {}/VARIANT.nnue)",
                    path.trim_end_matches('/')
                ),
            ),
            TrainError::Data(e) => write!(f, "{e}"),
            TrainError::NoPositions => write!(f, "no positions in the data files"),
            TrainError::NoTrainingPositions => {
                write!(f, "no training positions left after the validation share")
            }
            TrainError::FeatureBeyondInputs { inputs } => {
                write!(f, "a feature index beyond the layout's {inputs} inputs")
            }
            TrainError::Threads { threads, error } => {
                write!(f, "cannot start {threads} threads: {error}")
            }
            TrainError::Diverged => write!(
                f,
                "the training diverged (weights no longer finite): try a lower --lr"
            ),
            TrainError::Checkpoint(e) => write!(f, "{e}"),
            TrainError::Stopped {
                epochs,
                batches,
                checkpoint,
            } => {
                write!(f, "stopped after epoch {epochs}")?;
                if *batches > 0 {
                    write!(f, " and {batches} batch(es) of epoch {}", epochs + 1)?;
                }
                write!(
                    f,
                    "; the checkpoint {checkpoint} is written: the same command with \
                     --resume goes on from it"
                )
            }
            TrainError::NetRefused(e) => write!(f, "the trained net is refused: {e}"),
            TrainError::StartNet { name, why } => {
                write!(f, "--init {name} cannot be trained on: {why}")
            }
        }
    }
}

impl std::error::Error for TrainError {}

impl From<CheckpointError> for TrainError {
    fn from(e: CheckpointError) -> Self {
        TrainError::Checkpoint(e)
    }
}

impl From<OptionError> for TrainError {
    fn from(e: OptionError) -> Self {
        TrainError::Options(e)
    }
}
