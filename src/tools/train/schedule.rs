//! The learning-rate schedule, as a value: how many epochs, Adam's step
//! size, and how it changes over the run: the step schedule (the rate,
//! the last epochs at a tenth of it) or a cosine decay from the rate to a
//! final rate; either may start with a linear warm-up over its first
//! steps.

use super::error::OptionError;

/// How the step size changes over the epochs after the warm-up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decay {
    /// The rate, and a tenth of it for the last `drop_epochs` epochs.
    Step { drop_epochs: usize },
    /// Half a cosine from the rate down to `last`, step by step over the
    /// whole run.
    Cosine { last: f32 },
}

/// The names of the decays on the command line, with what each does.
pub const DECAYS: [(&str, &str); 2] = [
    (
        "step",
        "the step size, a tenth of it for the last --lr-drop epochs",
    ),
    (
        "cosine",
        "half a cosine from the step size down to --lr-final, step by step",
    ),
];

/// The share of the rate a cosine decay ends at unless told.
pub const COSINE_LAST_SHARE: f32 = 0.01;

/// The epochs of a run and the step size of each step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    epochs: usize,
    rate: f32,
    decay: Decay,
    /// Steps at the start whose rate rises linearly to the schedule's.
    warmup: usize,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            epochs: 20,
            rate: 0.001,
            decay: Decay::Step { drop_epochs: 0 },
            warmup: 0,
        }
    }
}

/// Where a step lies in a run: its epoch (from 1), its step in the epoch
/// (from 0) and the steps of every epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepAt {
    pub epoch: usize,
    pub step: usize,
    pub steps_per_epoch: usize,
}

impl StepAt {
    /// Steps before this one in the run.
    fn before(&self) -> usize {
        self.epoch
            .saturating_sub(1)
            .saturating_mul(self.steps_per_epoch)
            .saturating_add(self.step)
    }
}

impl Schedule {
    /// `epochs` epochs at step size `rate`, the last `drop_epochs` of them
    /// at a tenth of it; refused unless every number makes sense with the
    /// others.
    pub fn new(epochs: usize, rate: f32, drop_epochs: usize) -> Result<Schedule, OptionError> {
        if epochs == 0 {
            return Err(OptionError::NoEpochs);
        }
        if !(rate > 0.0 && rate <= 1.0) {
            return Err(OptionError::Rate(rate));
        }
        if drop_epochs > epochs {
            return Err(OptionError::DropBeyondEpochs {
                drop: drop_epochs,
                epochs,
            });
        }
        Ok(Schedule {
            epochs,
            rate,
            decay: Decay::Step { drop_epochs },
            warmup: 0,
        })
    }

    /// This schedule with a cosine decay to `last` (a hundredth of the
    /// rate when none is given) in place of the step schedule; a drop given
    /// with it is refused, as is a final rate not below the rate.
    pub fn cosine(self, last: Option<f32>) -> Result<Schedule, OptionError> {
        if self.drop_epochs() > 0 {
            return Err(OptionError::DropWithCosine);
        }
        let last = last.unwrap_or(self.rate * COSINE_LAST_SHARE);
        if !(last >= 0.0 && last <= self.rate) {
            return Err(OptionError::FinalRate {
                last,
                rate: self.rate,
            });
        }
        Ok(Schedule {
            decay: Decay::Cosine { last },
            ..self
        })
    }

    /// This schedule with a linear warm-up over its first `steps` steps.
    pub fn with_warmup(self, steps: usize) -> Schedule {
        Schedule {
            warmup: steps,
            ..self
        }
    }

    pub fn epochs(&self) -> usize {
        self.epochs
    }

    /// The step size before any drop, decay or warm-up.
    pub fn rate(&self) -> f32 {
        self.rate
    }

    pub fn decay(&self) -> Decay {
        self.decay
    }

    pub fn warmup(&self) -> usize {
        self.warmup
    }

    /// The epochs of the step schedule's drop (0 for a cosine decay).
    pub fn drop_epochs(&self) -> usize {
        match self.decay {
            Decay::Step { drop_epochs } => drop_epochs,
            Decay::Cosine { .. } => 0,
        }
    }

    /// Whether this is the schedule of the options there were before the
    /// cosine decay and the warm-up (what a net's provenance then said
    /// in full).
    pub fn is_plain_step(&self) -> bool {
        self.warmup == 0 && matches!(self.decay, Decay::Step { .. })
    }

    /// The step size of the step `at`.
    pub fn rate_at(&self, at: StepAt) -> f32 {
        let rate = match self.decay {
            Decay::Step { drop_epochs } => {
                if at.epoch + drop_epochs > self.epochs {
                    self.rate / 10.0
                } else {
                    self.rate
                }
            }
            Decay::Cosine { last } => {
                let total = self.epochs.saturating_mul(at.steps_per_epoch).max(1);
                let done = at.before() as f64 / total as f64;
                let factor = 0.5 * (1.0 + (std::f64::consts::PI * done.min(1.0)).cos());
                (f64::from(last) + (f64::from(self.rate) - f64::from(last)) * factor) as f32
            }
        };
        let before = at.before();
        if before < self.warmup {
            // Multiplied only inside the warm-up: a schedule without one
            // gives the same bits as before warm-ups existed.
            rate * ((before + 1) as f64 / self.warmup as f64) as f32
        } else {
            rate
        }
    }

    /// Whether `other` gives every step of this schedule's first `epochs`
    /// epochs the same step size (what a run that resumes another must
    /// keep); the first epoch where they differ otherwise.
    pub fn first_difference(
        &self,
        other: &Schedule,
        epochs: usize,
        steps_per_epoch: usize,
    ) -> Option<usize> {
        (1..=epochs).find(|&epoch| {
            (0..steps_per_epoch).any(|step| {
                let at = StepAt {
                    epoch,
                    step,
                    steps_per_epoch,
                };
                self.rate_at(at).to_bits() != other.rate_at(at).to_bits()
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(epoch: usize, step: usize) -> StepAt {
        StepAt {
            epoch,
            step,
            steps_per_epoch: 4,
        }
    }

    #[test]
    fn the_step_size_drops_for_the_last_epochs_and_bad_schedules_are_refused() {
        let s = Schedule::new(5, 0.01, 2).expect("schedule");
        let rates: Vec<f32> = (1..=5).map(|n| s.rate_at(at(n, 3))).collect();
        assert_eq!(rates, [0.01, 0.01, 0.01, 0.01 / 10.0, 0.01 / 10.0]);
        assert_eq!(
            Schedule::new(3, 0.5, 3).map(|s| s.rate_at(at(1, 0))),
            Ok(0.5 / 10.0)
        );
        assert_eq!(
            Schedule::new(3, 0.01, 4),
            Err(OptionError::DropBeyondEpochs { drop: 4, epochs: 3 })
        );
        assert_eq!(Schedule::new(0, 0.01, 0), Err(OptionError::NoEpochs));
        for bad in [0.0, -1.0, 1.5, f32::NAN] {
            assert!(matches!(
                Schedule::new(3, bad, 0),
                Err(OptionError::Rate(_))
            ));
        }
    }

    #[test]
    fn a_cosine_decay_falls_step_by_step_to_its_final_rate() {
        let s = Schedule::new(4, 0.01, 0)
            .and_then(|s| s.cosine(None))
            .expect("cosine");
        let rates: Vec<f32> = (1..=4)
            .flat_map(|e| (0..4).map(move |k| (e, k)))
            .map(|(e, k)| s.rate_at(at(e, k)))
            .collect();
        assert_eq!(rates[0], 0.01);
        assert!(rates.windows(2).all(|w| w[1] < w[0]), "{rates:?}");
        // Half-way down at the middle step, and near the end at the last.
        assert!((rates[8] - (0.01 + 0.0001) / 2.0).abs() < 1e-6, "{rates:?}");
        assert!(rates[15] > 0.0001 && rates[15] < 0.0002, "{rates:?}");
        let to = |last| Schedule::new(4, 0.01, 0).and_then(|s| s.cosine(Some(last)));
        assert_eq!(to(0.0).map(|s| s.decay()), Ok(Decay::Cosine { last: 0.0 }));
        assert_eq!(
            to(0.02),
            Err(OptionError::FinalRate {
                last: 0.02,
                rate: 0.01
            })
        );
        assert_eq!(
            Schedule::new(4, 0.01, 1).and_then(|s| s.cosine(None)),
            Err(OptionError::DropWithCosine)
        );
    }

    #[test]
    fn a_warm_up_rises_linearly_and_then_leaves_the_schedule_as_it_was() {
        let plain = Schedule::new(3, 0.01, 1).expect("schedule");
        let warm = plain.with_warmup(5);
        let steps: Vec<StepAt> = (1..=3)
            .flat_map(|e| (0..4).map(move |k| at(e, k)))
            .collect();
        for (i, &a) in steps.iter().enumerate() {
            let (w, p) = (warm.rate_at(a), plain.rate_at(a));
            if i < 5 {
                assert!((w - p * (i + 1) as f32 / 5.0).abs() < 1e-9, "step {i}");
            } else {
                assert_eq!(w.to_bits(), p.to_bits(), "step {i}");
            }
        }
        assert!(plain.is_plain_step() && !warm.is_plain_step());
        assert_eq!(plain.first_difference(&warm, 3, 4), Some(1));
        assert_eq!(plain.first_difference(&plain.with_warmup(0), 3, 4), None);
        // A longer run without a drop keeps the first epochs' rates; with
        // one it changes the epoch where the drop began.
        let longer = Schedule::new(5, 0.01, 1).expect("schedule");
        assert_eq!(plain.first_difference(&longer, 2, 4), None);
        assert_eq!(plain.first_difference(&longer, 3, 4), Some(3));
    }
}
