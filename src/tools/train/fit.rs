//! The epoch loop: shuffled mini-batches, each batch's gradient summed
//! over a fixed number of chunks in a fixed order (so that the thread count
//! changes no bit of the result), an Adam step per batch, and after each
//! epoch the training and validation loss. What an epoch changes is held
//! in one [`FitState`], what it reads in a [`Fit`].

use super::adam::{Adam, AdamSettings};
use super::data::{SampleRef, Samples};
use super::error::TrainError;
use super::events::{Epoch, Event};
use super::model::{Model, SCALE, Shape, sigmoid, target};
use super::schedule::{Schedule, StepAt};
use crate::util::rng::Rng;
use crate::util::stop::Stop;
use rayon::prelude::*;
use std::time::Instant;

/// Chunks a batch is cut into, whatever the thread count: each chunk's
/// gradient is computed on one thread, and the chunks are summed in order.
pub const CHUNKS: usize = 32;

/// Positions per chunk of a loss sum.
const LOSS_CHUNK: usize = 4096;

/// What the epochs read: the positions, the held-out ones, the schedule,
/// the target's weight of the search score and the batch.
pub struct Fit<'a> {
    pub samples: &'a Samples,
    pub validation: &'a [u32],
    pub schedule: &'a Schedule,
    pub lambda: f32,
    pub batch: usize,
    /// The threads of the pool the fit runs in (for the epochs' reports).
    pub threads: usize,
}

/// Everything the epochs change, from the seeded start on: what a
/// checkpoint saves and a resumed run goes on from.
pub struct FitState {
    pub model: Model,
    pub(super) adam: Adam,
    /// The stream the epochs' shuffles draw from.
    pub(super) rng: Rng,
    /// The training positions, in the order of the last shuffle.
    pub(super) train: Vec<u32>,
    grad: Vec<f32>,
    pub epochs: Vec<Epoch>,
    /// The epoch with the lowest validation loss so far, its loss and
    /// weights: a net that overfits its few games is written as it was at
    /// its best.
    pub(super) best: Option<(usize, f64, Vec<f32>)>,
    /// Training and validation loss of the starting weights, once taken.
    pub(super) before: Option<(f64, Option<f64>)>,
    /// The epoch after the last one finished, where a stop ended it
    /// between two batches.
    pub(super) partial: Option<Partial>,
    /// The weights are a trained net's, a candidate for the net written
    /// (until the starting losses are taken; a checkpoint holds `best`).
    from_net: bool,
}

/// An epoch stopped between two batches: the batches done (after its
/// shuffle) and the loss summed over them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Partial {
    pub batches: usize,
    pub loss: f64,
}

/// What a fit hears and tells besides its result: the events, the state
/// to save after each epoch (and where a stop ends one), and the stop.
pub struct Hooks<'a> {
    pub on_event: &'a mut (dyn FnMut(Event) + Send),
    pub save: &'a mut (dyn FnMut(&FitState) -> Result<(), TrainError> + Send),
    pub stop: Option<&'a Stop>,
}

/// How a fit ended.
pub enum FitEnd {
    Done(Trained),
    /// A stop ended it (the state saved): after `epochs` whole epochs and
    /// `batches` batches of the next.
    Stopped {
        epochs: usize,
        batches: usize,
    },
}

/// What a fit found.
pub struct Trained {
    /// The weights of the epoch written: the one with the lowest validation
    /// loss, else the last.
    pub model: Model,
    /// How many positions were trained on.
    pub train_positions: usize,
    /// Training and validation loss of the starting weights.
    pub before: (f64, Option<f64>),
    /// The hand-written evaluation's validation loss.
    pub baseline: Option<f64>,
    pub epochs: Vec<Epoch>,
    /// The epoch whose weights `model` holds (0: no epoch ran).
    pub best_epoch: usize,
}

impl Trained {
    /// The training and validation loss of the epoch written.
    pub fn written_losses(&self) -> (f64, Option<f64>) {
        self.best_epoch
            .checked_sub(1)
            .and_then(|i| self.epochs.get(i))
            .map_or(self.before, |e| (e.train_loss, e.validation_loss))
    }
}

impl FitState {
    /// The start of a fit of a network of `shape` to the positions `train`:
    /// the initial weights and the shuffles each draw from a stream of
    /// their own of `seed`.
    pub fn new(shape: Shape, train: Vec<u32>, seed: u64) -> FitState {
        let model = Model::new(shape, seed ^ 0xA076_1D64_78BD_642F);
        FitState::starting(model, train, seed, false)
    }

    /// The start of a fit from the weights of `model` (a net trained
    /// before), the shuffles drawn from `seed` as [`FitState::new`]'s. The
    /// start counts as epoch 0 in the choice of the epoch written: a fit
    /// whose epochs all lose to it writes the net it started from.
    pub fn from_model(model: Model, train: Vec<u32>, seed: u64) -> FitState {
        FitState::starting(model, train, seed, true)
    }

    fn starting(model: Model, train: Vec<u32>, seed: u64, from_net: bool) -> FitState {
        let shape = model.shape;
        FitState {
            from_net,
            model,
            adam: Adam::new(shape.size(), AdamSettings::default()),
            rng: Rng::new(seed ^ 0xE703_7ED1_A0B4_28DB),
            train,
            grad: vec![0.0; shape.size()],
            epochs: Vec::new(),
            best: None,
            before: None,
            partial: None,
        }
    }

    /// A state saved by a run that goes on: its weights, optimiser, shuffle
    /// stream and order, epochs, best epoch, starting losses and the batches
    /// done of an epoch a stop ended.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn restore(
        model: Model,
        adam: Adam,
        rng: Rng,
        train: Vec<u32>,
        epochs: Vec<Epoch>,
        best: Option<(usize, f64, Vec<f32>)>,
        before: (f64, Option<f64>),
        partial: Option<Partial>,
    ) -> FitState {
        FitState {
            from_net: false,
            grad: vec![0.0; model.weights.len()],
            model,
            adam,
            rng,
            train,
            epochs,
            best,
            before: Some(before),
            partial,
        }
    }
}

impl Fit<'_> {
    fn validation_loss(&self, m: &Model) -> Option<f64> {
        (!self.validation.is_empty())
            .then(|| mean_loss(m, self.samples, self.validation, self.lambda))
    }

    /// The schedule's epochs from `state` on; `hooks` hear of progress and
    /// of each epoch, save the state after each, and may stop the fit
    /// between two batches (the state saved there too).
    pub fn run(&self, mut state: FitState, hooks: &mut Hooks) -> Result<FitEnd, TrainError> {
        let before = match state.before {
            Some(before) => before,
            None => {
                let before = (
                    mean_loss(&state.model, self.samples, &state.train, self.lambda),
                    self.validation_loss(&state.model),
                );
                state.before = Some(before);
                if let (true, Some(v)) = (state.from_net, before.1) {
                    state.best = Some((0, v, state.model.weights.clone()));
                }
                before
            }
        };
        while state.epochs.len() < self.schedule.epochs() {
            if let Some(stopped) = self.epoch(&mut state, hooks)? {
                return Ok(stopped);
            }
        }
        let mut best_epoch = state.epochs.len();
        if let Some((number, _, weights)) = state.best {
            state.model.weights = weights;
            best_epoch = number;
        }
        let baseline = (!self.validation.is_empty())
            .then(|| baseline_loss(self.samples, self.validation, self.lambda));
        Ok(FitEnd::Done(Trained {
            model: state.model,
            train_positions: state.train.len(),
            before,
            baseline,
            epochs: state.epochs,
            best_epoch,
        }))
    }

    /// The next epoch of `state` (the rest of one a stop ended), saved
    /// when done; where a stop ends it, how far it went.
    fn epoch(&self, state: &mut FitState, hooks: &mut Hooks) -> Result<Option<FitEnd>, TrainError> {
        let number = state.epochs.len() + 1;
        let started = Instant::now();
        // An epoch a stop ended goes on after its last batch, with the
        // order of its shuffle.
        let resumed = state.partial.take();
        let FitState {
            model,
            adam,
            rng,
            train,
            grad,
            ..
        } = state;
        if resumed.is_none() {
            rng.shuffle(train);
        }
        let batch = self.batch.max(1);
        let steps_per_epoch = train.len().div_ceil(batch);
        let skip = resumed.map_or(0, |p| p.batches);
        let mut loss = resumed.map_or(0.0, |p| p.loss);
        for (b, positions) in train.chunks(batch).enumerate().skip(skip) {
            let rate = self.schedule.rate_at(StepAt {
                epoch: number,
                step: b,
                steps_per_epoch,
            });
            let chunk = positions.len().div_ceil(CHUNKS);
            let parts: Vec<_> = positions
                .par_chunks(chunk)
                .map(|c| model.gradient(self.samples, c, self.lambda, SCALE as f32))
                .collect();
            for p in &parts {
                loss += p.loss;
                p.add_to(grad);
            }
            let mean = 1.0 / positions.len() as f32;
            adam.step(&mut model.weights, grad, mean, rate);
            (hooks.on_event)(Event::Progress {
                epoch: number,
                done: (b * batch + positions.len()).min(train.len()),
                total: train.len(),
            });
            if hooks.stop.is_some_and(Stop::is_requested) && b + 1 < steps_per_epoch {
                state.partial = Some(Partial {
                    batches: b + 1,
                    loss,
                });
                (hooks.save)(state)?;
                return Ok(Some(FitEnd::Stopped {
                    epochs: number - 1,
                    batches: b + 1,
                }));
            }
        }
        let epoch = Epoch {
            number,
            train_loss: loss / train.len() as f64,
            validation_loss: self.validation_loss(model),
            seconds: started.elapsed().as_secs_f64(),
            positions: train.len(),
            threads: self.threads,
        };
        (hooks.on_event)(Event::Epoch(epoch));
        state.epochs.push(epoch);
        if let Some(v) = epoch.validation_loss
            && state.best.as_ref().is_none_or(|(_, b, _)| v < *b)
        {
            state.best = Some((number, v, state.model.weights.clone()));
        }
        (hooks.save)(state)?;
        let more = state.epochs.len() < self.schedule.epochs();
        Ok(
            (more && hooks.stop.is_some_and(Stop::is_requested)).then_some(FitEnd::Stopped {
                epochs: number,
                batches: 0,
            }),
        )
    }
}

/// Mean squared error of `model` over `idx`.
pub fn mean_loss(model: &Model, samples: &Samples, idx: &[u32], lambda: f32) -> f64 {
    mean_squared_error(
        samples,
        idx,
        || model.scratch(),
        |acc, s| model.error(s, acc, lambda, SCALE as f32),
    )
}

/// The mean over the positions `idx` of the squared `error` of each (given
/// a working state made by `init` once a chunk), summed in fixed chunks so
/// that the thread count changes no bit.
pub fn mean_squared_error<S>(
    samples: &Samples,
    idx: &[u32],
    init: impl Fn() -> S + Sync,
    error: impl Fn(&mut S, &SampleRef) -> f32 + Sync,
) -> f64 {
    let sums: Vec<f64> = idx
        .par_chunks(LOSS_CHUNK)
        .map(|c| {
            let mut state = init();
            c.iter()
                .map(|&i| f64::from(error(&mut state, &samples.get(i as usize)).powi(2)))
                .sum::<f64>()
        })
        .collect();
    sums.iter().sum::<f64>() / idx.len().max(1) as f64
}

/// Mean squared error over `idx` of the hand-written evaluation's scores
/// (each sample's baseline) under the same target: what a net must beat.
pub fn baseline_loss(samples: &Samples, idx: &[u32], lambda: f32) -> f64 {
    let scale = SCALE as f32;
    mean_squared_error(
        samples,
        idx,
        || (),
        |_, s| sigmoid(s.baseline / scale) - target(s, lambda, scale),
    )
}

/// A pool of `threads` threads (0: every core).
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, TrainError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TrainError::Threads {
            threads,
            error: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::super::data::{Sample, split};
    use super::*;
    use crate::engine::eval::nnue::Activation;

    /// Positions whose score is a sum of values of their features: a net
    /// can learn it.
    fn synthetic(n: usize) -> Samples {
        let mut rng = Rng::new(17);
        let value = |f: u32| (f as f32 - 10.0) * 25.0;
        Samples::new(
            (0..n)
                .map(|_| {
                    let mut us: Vec<u32> = (0..6).map(|_| (rng.next_u64() % 20) as u32).collect();
                    us.sort_unstable();
                    us.dedup();
                    let them: Vec<u32> = us.iter().map(|f| 39 - f).collect();
                    let score = us.iter().map(|&f| value(f)).sum();
                    Sample {
                        us,
                        them,
                        score,
                        result: 0.5,
                        baseline: 0.0,
                        bucket: 0,
                    }
                })
                .collect(),
        )
    }

    /// A fit of 6 epochs on `threads` threads, `share` held out.
    fn fit(samples: &Samples, threads: usize, seed: u64, share: f64) -> (Trained, Vec<u32>) {
        let (validation, train) = split(samples.len(), share, seed);
        let schedule = Schedule::new(6, 0.01, 2).expect("schedule");
        let shape = Shape {
            inputs: 40,
            hidden: 8,
            activation: Activation::SquaredClippedRelu,
            buckets: 1,
        };
        let fit = Fit {
            samples,
            validation: &validation,
            schedule: &schedule,
            lambda: 1.0,
            batch: 100,
            threads,
        };
        let pool = thread_pool(threads).expect("pool");
        let end = pool.install(|| {
            fit.run(
                FitState::new(shape, train, seed),
                &mut Hooks {
                    on_event: &mut |_| {},
                    save: &mut |_| Ok(()),
                    stop: None,
                },
            )
        });
        let Ok(FitEnd::Done(trained)) = end else {
            panic!("the fit did not end");
        };
        (trained, validation)
    }

    #[test]
    fn the_fit_learns_and_ignores_the_thread_count() {
        let samples = synthetic(3000);
        let (one, validation) = fit(&samples, 1, 1, 0.1);
        let (two, _) = fit(&samples, 2, 1, 0.1);
        assert_eq!(one.model, two.model, "1 and 2 threads");
        assert_eq!(one.epochs.len(), 6);
        assert_eq!((one.train_positions, validation.len()), (2700, 300));
        let last = one.epochs[5];
        assert!(
            last.train_loss < one.before.0 / 4.0,
            "{:?} {last:?}",
            one.before
        );
        let (Some(before), Some(after)) = (one.before.1, last.validation_loss) else {
            panic!("no validation loss");
        };
        assert!(after < before / 4.0, "validation {before} -> {after}");
        // The weights kept are those of the epoch with the lowest
        // validation loss, and give that loss again.
        let best = one
            .epochs
            .iter()
            .min_by(|a, b| {
                a.validation_loss
                    .partial_cmp(&b.validation_loss)
                    .expect("loss")
            })
            .expect("epochs");
        assert_eq!(one.best_epoch, best.number);
        assert_eq!(one.written_losses().1, best.validation_loss);
        let again = mean_loss(&one.model, &samples, &validation, 1.0);
        assert_eq!(Some(again), best.validation_loss);
        // Without a validation share, the last epoch's weights.
        let (blind, none) = fit(&samples, 1, 1, 0.0);
        assert!(none.is_empty());
        assert_eq!(blind.best_epoch, 6);
        assert_eq!(blind.baseline, None);
        assert_ne!(fit(&samples, 1, 2, 0.1).0.model, one.model, "another seed");
    }
}
