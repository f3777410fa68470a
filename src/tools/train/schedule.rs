//! The learning-rate schedule, as a value: how many epochs, Adam's step
//! size, and how many of the last epochs run at a tenth of it.

use super::error::OptionError;

/// The epochs of a run and the step size of each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    epochs: usize,
    rate: f32,
    drop_epochs: usize,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            epochs: 20,
            rate: 0.001,
            drop_epochs: 0,
        }
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
            drop_epochs,
        })
    }

    pub fn epochs(&self) -> usize {
        self.epochs
    }

    /// The step size before any drop.
    pub fn rate(&self) -> f32 {
        self.rate
    }

    pub fn drop_epochs(&self) -> usize {
        self.drop_epochs
    }

    /// The step size of epoch `number` (from 1).
    pub fn rate_at(&self, number: usize) -> f32 {
        if number + self.drop_epochs > self.epochs {
            self.rate / 10.0
        } else {
            self.rate
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_step_size_drops_for_the_last_epochs_and_bad_schedules_are_refused() {
        let s = Schedule::new(5, 0.01, 2).expect("schedule");
        let rates: Vec<f32> = (1..=5).map(|n| s.rate_at(n)).collect();
        assert_eq!(rates, [0.01, 0.01, 0.01, 0.01 / 10.0, 0.01 / 10.0]);
        assert_eq!(
            Schedule::new(3, 0.5, 3).map(|s| s.rate_at(1)),
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
}
