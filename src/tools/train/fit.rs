//! The epoch loop: seeded initialisation and split, shuffled mini-batches,
//! each batch's gradient summed over a fixed number of chunks in a fixed
//! order (so that the thread count changes no bit of the result), an Adam
//! step per batch, and after each epoch the training and validation loss.

use super::adam::{Adam, AdamSettings};
use super::data::{SampleRef, Samples, split};
use super::model::{Model, Shape, sigmoid, target};
use crate::engine::eval::nnue::Activation;
use crate::util::rng::Rng;
use rayon::prelude::*;
use std::time::Instant;

/// Chunks a batch is cut into, whatever the thread count: each chunk's
/// gradient is computed on one thread, and the chunks are summed in order.
const CHUNKS: usize = 32;

/// Positions per chunk of a loss sum.
const LOSS_CHUNK: usize = 4096;

/// What a run is asked for.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub hidden: usize,
    pub activation: Activation,
    pub epochs: usize,
    pub seed: u64,
    /// Weight of the search score in the target (0: the result alone).
    pub lambda: f32,
    /// Share of the positions held out for validation.
    pub validation: f64,
    /// Positions per Adam step.
    pub batch: usize,
    /// Adam's step size.
    pub rate: f32,
    /// The last epochs run at a tenth of the rate.
    pub drop_epochs: usize,
    /// Centipawns per unit of the network's output.
    pub scale: f32,
    /// Threads (0: every core).
    pub threads: usize,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            hidden: 128,
            activation: Activation::SquaredClippedRelu,
            epochs: 20,
            seed: 1,
            lambda: 0.5,
            validation: 0.1,
            batch: 16_384,
            rate: 0.001,
            drop_epochs: 0,
            scale: 400.0,
            threads: 0,
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
    /// Positions of the current epoch done so far, of the total.
    Progress {
        epoch: usize,
        done: usize,
        total: usize,
    },
    Epoch(Epoch),
}

/// What a run found.
pub struct Trained {
    pub model: Model,
    /// How many positions were trained on.
    pub train_positions: usize,
    /// The indices of the held-out positions.
    pub validation: Vec<u32>,
    /// Training and validation loss of the starting weights.
    pub before: (f64, Option<f64>),
    /// The hand-written evaluation's validation loss.
    pub baseline: Option<f64>,
    pub epochs: Vec<Epoch>,
    /// The epoch whose weights `model` holds: the one with the lowest
    /// validation loss, else the last (0: no epoch ran).
    pub best_epoch: usize,
    /// The threads the run had.
    pub threads: usize,
}

/// Mean squared error of `model` over `idx`.
pub fn mean_loss(model: &Model, samples: &Samples, idx: &[u32], lambda: f32, scale: f32) -> f64 {
    mean_squared_error(
        samples,
        idx,
        || model.scratch(),
        |acc, s| model.error(s, acc, lambda, scale),
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
pub fn baseline_loss(samples: &Samples, idx: &[u32], lambda: f32, scale: f32) -> f64 {
    mean_squared_error(
        samples,
        idx,
        || (),
        |_, s| sigmoid(s.baseline / scale) - target(s, lambda, scale),
    )
}

/// A pool of `threads` threads (0: every core).
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))
}

/// Fit a network of `inputs` features to `samples`; `on_event` hears of
/// progress and of each epoch.
pub fn train(
    samples: &Samples,
    inputs: usize,
    opts: &TrainOptions,
    on_event: &mut (dyn FnMut(Event) + Send),
) -> Result<Trained, String> {
    if samples.feature_bound() > inputs {
        return Err(format!(
            "a feature index beyond the layout's {inputs} inputs"
        ));
    }
    let pool = thread_pool(opts.threads)?;
    let threads = pool.current_num_threads();
    pool.install(|| fit(samples, inputs, opts, on_event, threads))
}

fn fit(
    samples: &Samples,
    inputs: usize,
    opts: &TrainOptions,
    on_event: &mut (dyn FnMut(Event) + Send),
    threads: usize,
) -> Result<Trained, String> {
    let shape = Shape {
        inputs,
        hidden: opts.hidden,
        activation: opts.activation,
    };
    // The split, the initial weights and the epochs' shuffles each draw
    // from a stream of their own.
    let mut model = Model::new(shape, opts.seed ^ 0xA076_1D64_78BD_642F);
    let (validation, mut train) = split(samples.len(), opts.validation, opts.seed);
    if train.is_empty() {
        return Err("no training positions left after the validation share".to_string());
    }
    let (lambda, scale) = (opts.lambda, opts.scale);
    let validation_loss = |m: &Model| {
        (!validation.is_empty()).then(|| mean_loss(m, samples, &validation, lambda, scale))
    };
    let before = (
        mean_loss(&model, samples, &train, lambda, scale),
        validation_loss(&model),
    );
    let mut rng = Rng::new(opts.seed ^ 0xE703_7ED1_A0B4_28DB);
    let mut adam = Adam::new(shape.size(), AdamSettings::default());
    let mut grad = vec![0.0f32; shape.size()];
    let batch = opts.batch.max(1);
    let mut epochs = Vec::with_capacity(opts.epochs);
    // The weights of the epoch with the lowest validation loss so far: a
    // net that overfits its few games is written as it was at its best.
    let mut best: Option<(f64, Vec<f32>)> = None;
    let mut best_epoch = opts.epochs;
    for number in 1..=opts.epochs {
        let started = Instant::now();
        rng.shuffle(&mut train);
        let rate = if number + opts.drop_epochs > opts.epochs {
            opts.rate / 10.0
        } else {
            opts.rate
        };
        let mut loss = 0.0;
        for (b, positions) in train.chunks(batch).enumerate() {
            let chunk = positions.len().div_ceil(CHUNKS);
            let parts: Vec<_> = positions
                .par_chunks(chunk)
                .map(|c| model.gradient(samples, c, lambda, scale))
                .collect();
            for p in &parts {
                loss += p.loss;
                p.add_to(&mut grad);
            }
            let mean = 1.0 / positions.len() as f32;
            adam.step(&mut model.weights, &mut grad, mean, rate);
            on_event(Event::Progress {
                epoch: number,
                done: (b * batch + positions.len()).min(train.len()),
                total: train.len(),
            });
        }
        let epoch = Epoch {
            number,
            train_loss: loss / train.len() as f64,
            validation_loss: validation_loss(&model),
            seconds: started.elapsed().as_secs_f64(),
            positions: train.len(),
            threads,
        };
        on_event(Event::Epoch(epoch));
        epochs.push(epoch);
        if let Some(v) = epoch.validation_loss
            && best.as_ref().is_none_or(|(b, _)| v < *b)
        {
            best = Some((v, model.weights.clone()));
            best_epoch = number;
        }
    }
    if let Some((_, weights)) = best {
        model.weights = weights;
    }
    let baseline =
        (!validation.is_empty()).then(|| baseline_loss(samples, &validation, lambda, scale));
    Ok(Trained {
        model,
        train_positions: train.len(),
        validation,
        before,
        baseline,
        epochs,
        best_epoch,
        threads,
    })
}

#[cfg(test)]
mod tests {
    use super::super::data::Sample;
    use super::*;

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
                    }
                })
                .collect(),
        )
    }

    #[test]
    fn the_fit_learns_and_ignores_the_thread_count() {
        let samples = synthetic(3000);
        let opts = |threads| TrainOptions {
            hidden: 8,
            epochs: 6,
            lambda: 1.0,
            batch: 100,
            rate: 0.01,
            drop_epochs: 2,
            threads,
            ..TrainOptions::default()
        };
        let run = |threads| train(&samples, 40, &opts(threads), &mut |_| {}).expect("train");
        let one = run(1);
        let two = run(2);
        assert_eq!(one.model, two.model, "1 and 2 threads");
        assert_eq!(one.epochs.len(), 6);
        assert_eq!((one.train_positions, one.validation.len()), (2700, 300));
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
        let again = mean_loss(&one.model, &samples, &one.validation, 1.0, 400.0);
        assert_eq!(Some(again), best.validation_loss);
        // Without a validation share, the last epoch's weights.
        let blind = train(
            &samples,
            40,
            &TrainOptions {
                validation: 0.0,
                ..opts(1)
            },
            &mut |_| {},
        )
        .expect("train");
        assert_eq!(blind.best_epoch, 6);
        let other = train(
            &samples,
            40,
            &TrainOptions { seed: 2, ..opts(1) },
            &mut |_| {},
        );
        assert_ne!(other.expect("train").model, one.model, "another seed");
        // Features beyond the inputs are refused, not indexed.
        assert!(train(&samples, 30, &opts(1), &mut |_| {}).is_err());
    }
}
