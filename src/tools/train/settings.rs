//! What a run is asked for beside its schedule, as values: the network's
//! architecture, and the settings (seed, target, validation share, batch,
//! threads, where the net goes and the command recorded with it).

use super::error::OptionError;
use super::fit::CHUNKS;
use crate::engine::eval::nnue::features::{KingBuckets, MAX_BUCKETS};
use crate::engine::eval::nnue::format::MAX_HIDDEN;
use crate::engine::eval::nnue::{Activation, Network};
use crate::util::stop::Stop;

/// The activations by the names the command line gives them, with what
/// each computes.
pub const ACTIVATIONS: [(&str, Activation, &str); 2] = [
    (
        "crelu",
        Activation::ClippedRelu,
        "Clipped ReLU: clamp(x, 0, 1)",
    ),
    (
        "screlu",
        Activation::SquaredClippedRelu,
        "Squared clipped ReLU: clamp(x, 0, 1) squared",
    ),
];

/// The network a run fits: `(inputs -> hidden) x 2 -> 1`, the output
/// layer once per output bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Architecture {
    pub hidden: usize,
    pub activation: Activation,
    /// Train with the factoriser's virtual features (folded in at the end).
    pub factoriser: bool,
    /// Output buckets by material (1..=[`MAX_BUCKETS`]; 1: one output
    /// layer for every position).
    pub buckets: usize,
    /// The preset of king buckets ([`KingBuckets::preset`]; 0: none).
    pub kings: usize,
}

impl Default for Architecture {
    fn default() -> Self {
        Architecture {
            hidden: 128,
            activation: Activation::SquaredClippedRelu,
            factoriser: true,
            buckets: 1,
            kings: 0,
        }
    }
}

/// Positions per Adam step: as given, or chosen to fit the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Batch {
    Auto,
    Given(usize),
}

/// The largest batch chosen, and the one a large file gets: the batch the
/// shipped nets were trained with, so that their commands still make them.
pub const MAX_AUTO_BATCH: usize = 16_384;

/// Steps an epoch the chosen batch gives at least, where the data allow.
/// Adam moves each weight by about its step size a step, whatever the
/// batch: a small file in one batch of 16,384 gets one step an epoch, and
/// after 20 epochs the net is still near its random start (worse than the
/// hand-written evaluation). A hundred steps an epoch let it learn what the
/// data hold.
pub const MIN_STEPS: usize = 100;

impl Batch {
    /// The batch for `positions` training positions: a given one as given;
    /// else the largest power of two from [`CHUNKS`] (a gradient is summed
    /// over that many chunks, so a smaller batch leaves chunks empty) to
    /// [`MAX_AUTO_BATCH`] that gives at least [`MIN_STEPS`] steps an epoch.
    pub fn size(self, positions: usize) -> usize {
        match self {
            Batch::Given(b) => b,
            Batch::Auto => {
                let fits = (positions / MIN_STEPS).clamp(CHUNKS, MAX_AUTO_BATCH);
                1 << fits.ilog2()
            }
        }
    }
}

/// The settings of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Seed of the initial weights, the validation split and the shuffles.
    pub seed: u64,
    /// Weight of the search score in the target (0: the result alone).
    pub lambda: f32,
    /// Share of the positions held out for validation.
    pub validation: f64,
    /// The first data file (by its number in the run's list) whose
    /// positions may be held out; those of the files before it all train
    /// (0: every file's may). `learn` holds out only data its start net
    /// has not trained on.
    pub held_from: usize,
    pub batch: Batch,
    /// Threads (0: every core); the result does not depend on them.
    pub threads: usize,
    /// The net file to write.
    pub out: String,
    /// The command line that asked for the run, recorded in the net file.
    pub command: String,
    /// The checkpoint written after each epoch (none: the net file's name
    /// with `.ckpt` added).
    pub checkpoint: Option<String>,
    /// Go on from the checkpoint instead of from the seeded start.
    pub resume: bool,
    /// Start from this net's weights instead of random ones.
    pub init: Option<StartNet>,
    /// Lines the caller adds to the net's provenance (`learn`: its log of
    /// the generation), after a line of their own naming them.
    pub notes: Option<(String, Vec<String>)>,
    /// A request to stop, heeded between two batches.
    pub stop: StopRequest,
}

/// A net a training starts from, and the name it is known by (its file,
/// or what the caller calls it).
#[derive(Clone, Debug, PartialEq)]
pub struct StartNet {
    pub name: String,
    pub network: Network,
}

impl StartNet {
    /// The net file at `path` as a start (its fit to a variant and an
    /// architecture is the trainer's to check); an error names the file.
    pub fn read(path: &str) -> Result<StartNet, String> {
        let bytes = crate::util::textfile::read_bytes(path, crate::util::textfile::MAX_NET_BYTES)
            .map_err(|e| format!("{path}: {e}"))?;
        let network = Network::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))?;
        Ok(StartNet {
            name: path.to_string(),
            network,
        })
    }

    /// The net as a checkpoint's fingerprint and the provenance name it:
    /// its name and its bytes' checksum (two nets of one name are told
    /// apart).
    pub fn text(&self) -> String {
        format!(
            "{} (checksum {:016x})",
            self.name,
            crate::util::hash::fnv1a(&self.network.to_bytes())
        )
    }
}

/// A stop request a run heeds between two batches (the checkpoint written
/// there). Not a setting of the result: any two compare equal.
#[derive(Clone, Debug, Default)]
pub struct StopRequest(pub Option<Stop>);

impl PartialEq for StopRequest {
    fn eq(&self, _: &StopRequest) -> bool {
        true
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            seed: 1,
            lambda: 0.5,
            validation: 0.1,
            held_from: 0,
            batch: Batch::Auto,
            threads: 0,
            out: String::new(),
            command: String::new(),
            checkpoint: None,
            resume: false,
            init: None,
            notes: None,
            stop: StopRequest::default(),
        }
    }
}

impl Settings {
    /// The checkpoint's file: as given, else beside the net file.
    pub fn checkpoint_path(&self) -> String {
        self.checkpoint
            .clone()
            .unwrap_or_else(|| format!("{}.ckpt", self.out))
    }

    /// The settings' numbers, each within its range.
    pub fn check(&self) -> Result<(), OptionError> {
        if !(0.0..=1.0).contains(&self.lambda) {
            return Err(OptionError::Lambda(self.lambda));
        }
        if !(0.0..=0.9).contains(&self.validation) {
            return Err(OptionError::Validation(self.validation));
        }
        if self.batch == Batch::Given(0) {
            return Err(OptionError::NoBatch);
        }
        Ok(())
    }
}

impl Architecture {
    /// Why `net` cannot start a training of this architecture, if it
    /// cannot: a wider hidden layer, another activation or other output
    /// buckets. A narrower hidden layer can: the training widens it
    /// ([`Model::widened`](super::model::Model::widened)).
    pub fn cannot_start(&self, net: &Network) -> Option<String> {
        if net.hidden as usize > self.hidden {
            Some(format!(
                "hidden size {}, more than {}",
                net.hidden, self.hidden
            ))
        } else if net.activation != self.activation {
            Some(format!(
                "activation {:?}, not {:?}",
                net.activation, self.activation
            ))
        } else if net.buckets as usize != self.buckets {
            Some(format!(
                "{} output bucket(s), not {}",
                net.buckets, self.buckets
            ))
        } else {
            None
        }
    }

    pub fn check(&self) -> Result<(), OptionError> {
        if !(1..=MAX_HIDDEN as usize).contains(&self.hidden) {
            return Err(OptionError::Hidden(self.hidden));
        }
        if !(1..=MAX_BUCKETS as usize).contains(&self.buckets) {
            return Err(OptionError::Buckets(self.buckets));
        }
        if !KingBuckets::PRESETS.contains(&self.kings) {
            return Err(OptionError::KingBuckets(self.kings));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chosen_batch_gives_enough_steps_and_a_given_one_is_kept() {
        assert_eq!(Batch::Auto.size(654), CHUNKS);
        assert_eq!(Batch::Auto.size(180_000), 1024);
        assert!(180_000 / Batch::Auto.size(180_000) >= MIN_STEPS);
        assert_eq!(Batch::Auto.size(3_300_000), MAX_AUTO_BATCH);
        assert_eq!(Batch::Auto.size(0), CHUNKS);
        assert_eq!(Batch::Given(16_384).size(654), 16_384);
        assert_eq!(Batch::Given(7).size(1_000_000), 7);
    }

    #[test]
    fn settings_and_architectures_out_of_range_are_refused() {
        let arch = |hidden, buckets| Architecture {
            hidden,
            buckets,
            ..Architecture::default()
        };
        assert_eq!(arch(4096, 16).check(), Ok(()));
        assert_eq!(arch(0, 1).check(), Err(OptionError::Hidden(0)));
        assert_eq!(arch(4097, 1).check(), Err(OptionError::Hidden(4097)));
        assert_eq!(arch(16, 0).check(), Err(OptionError::Buckets(0)));
        assert_eq!(arch(16, 17).check(), Err(OptionError::Buckets(17)));
        assert_eq!(Settings::default().check(), Ok(()));
        let d = Settings::default;
        for (settings, refusal) in [
            (
                Settings {
                    batch: Batch::Given(0),
                    ..d()
                },
                OptionError::NoBatch,
            ),
            (
                Settings {
                    validation: 0.95,
                    ..d()
                },
                OptionError::Validation(0.95),
            ),
            (Settings { lambda: 1.5, ..d() }, OptionError::Lambda(1.5)),
        ] {
            assert_eq!(settings.check(), Err(refusal));
        }
    }
}
