//! Fitting the evaluation's weights to self-play games (Texel's method,
//! with Adam in place of coordinate search).
//!
//! Each position of the data (see [`crate::tools::datagen`], read by
//! [`crate::tools::datafile`]) is traced once: the
//! evaluation is a linear sum of weights times counts, tapered by the game
//! phase (see [`crate::engine::eval::Trace`]). The prediction for a position is
//! `sigmoid(K * eval)`, its target the game's result, optionally blended
//! with `sigmoid(K * search score)`; the loss is the logistic loss (cross
//! entropy). `K` is fitted first with the starting weights, then every
//! weight by Adam on shuffled mini-batches. A share of the positions is held
//! out and its loss printed beside the training loss after every epoch.
//!
//! Deterministic for a seed: the split and the batches come from the seed,
//! and every batch's gradient is summed over fixed chunks in a fixed order,
//! so the thread count does not change a bit of the result.

use crate::engine::eval::{EvalParams, EvalTables, Score, Trace, trace};
use crate::tools::datafile::DataPosition;
use crate::util::rng::Rng;
use rayon::prelude::*;

/// One training position.
#[derive(Clone, Debug)]
pub struct Sample {
    pub trace: Trace,
    /// The game's result for White: 1, 0.5 or 0.
    pub result: f64,
    /// The search's score for White, in centipawns.
    pub score: f64,
}

/// A data file's position traced with the variant's evaluation tables.
pub fn sample(eval: &EvalTables, line: DataPosition) -> Result<Sample, String> {
    Ok(Sample {
        trace: trace(eval, line.pos),
        result: line.result,
        score: f64::from(line.score),
    })
}

/// What a run is asked for.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    pub epochs: usize,
    pub seed: u64,
    /// Weight of the search score in the target (0: the result alone).
    pub lambda: f64,
    /// Share of the positions held out for validation.
    pub validation: f64,
    /// Positions per Adam step.
    pub batch: usize,
    /// Adam's step size, in centipawns.
    pub rate: f64,
    /// Pull of every weight back to its starting value: the fitted loss is
    /// the data's loss plus `decay / 2` times the sum of the squared
    /// distances from the start, in pawns. A weight that few positions see
    /// then stays near its start instead of following their noise.
    pub decay: f64,
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions {
            epochs: 50,
            seed: 1,
            lambda: 0.0,
            validation: 0.1,
            batch: 16_384,
            rate: 1.0,
            decay: 0.0,
        }
    }
}

/// What a run found.
#[derive(Clone, Debug)]
pub struct TuneReport {
    pub k: f64,
    pub train_positions: usize,
    pub validation_positions: usize,
    /// Training and validation loss before the first epoch.
    pub before: (f64, f64),
    /// Training and validation loss after each epoch.
    pub epochs: Vec<(f64, f64)>,
    pub params: EvalParams,
}

/// Positions per chunk of a gradient or loss sum (fixed, so that sums do
/// not depend on the thread count).
const CHUNK: usize = 1024;

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The fitting problem: positions, targets and the weights' layout.
struct Problem<'a> {
    samples: &'a [Sample],
    tempo: usize,
    lambda: f64,
}

impl Problem<'_> {
    fn target(&self, s: &Sample, k: f64) -> f64 {
        (1.0 - self.lambda) * s.result + self.lambda * sigmoid(k * s.score)
    }

    fn loss_one(&self, s: &Sample, w: &[Score], k: f64) -> f64 {
        let p = sigmoid(k * s.trace.white_score(w, self.tempo)).clamp(1e-12, 1.0 - 1e-12);
        let t = self.target(s, k);
        -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
    }

    /// Mean loss over the positions `idx`.
    fn loss(&self, idx: &[u32], w: &[Score], k: f64) -> f64 {
        if idx.is_empty() {
            return 0.0;
        }
        let sums: Vec<f64> = idx
            .par_chunks(CHUNK)
            .map(|c| {
                c.iter()
                    .map(|&i| self.loss_one(&self.samples[i as usize], w, k))
                    .sum()
            })
            .collect();
        sums.iter().sum::<f64>() / idx.len() as f64
    }

    /// Gradient of the summed loss over `idx` by each weight half (mg at
    /// `2i`, eg at `2i + 1`), evaluated at the real-valued weights `x`.
    fn gradient(&self, idx: &[u32], x: &[f64], k: f64) -> Vec<f64> {
        let parts: Vec<Vec<f64>> = idx
            .par_chunks(CHUNK)
            .map(|c| {
                let mut g = vec![0.0; x.len()];
                for &i in c {
                    let s = &self.samples[i as usize];
                    let tr = &s.trace;
                    let share = tr.middlegame_share();
                    let (e, scale) = tr.model(|j| (x[2 * j], x[2 * j + 1]), self.tempo);
                    // d(loss)/d(eval) of the logistic loss.
                    let d = k * (sigmoid(k * e) - self.target(s, k));
                    for &(j, n) in &tr.terms {
                        let f = d * scale * f64::from(n);
                        g[2 * j as usize] += f * share;
                        g[2 * j as usize + 1] += f * (1.0 - share);
                    }
                    let f = d * f64::from(tr.tempo_sign);
                    g[2 * self.tempo] += f * share;
                    g[2 * self.tempo + 1] += f * (1.0 - share);
                }
                g
            })
            .collect();
        let mut g = vec![0.0; x.len()];
        for p in parts {
            for (a, b) in g.iter_mut().zip(p) {
                *a += b;
            }
        }
        g
    }
}

/// The `K` that minimises the loss of `w` on `idx` (golden-section search
/// over log K).
fn fit_k(problem: &Problem, idx: &[u32], w: &[Score]) -> f64 {
    let f = |lk: f64| problem.loss(idx, w, lk.exp());
    let (mut a, mut b) = ((1e-4f64).ln(), (0.1f64).ln());
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - r * (b - a);
    let mut d = a + r * (b - a);
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..40 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - r * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + r * (b - a);
            fd = f(d);
        }
    }
    ((a + b) / 2.0).exp()
}

fn rounded(layout: &crate::engine::eval::Layout, x: &[f64]) -> EvalParams {
    let bound = f64::from(crate::engine::eval::params::MAX_WEIGHT);
    let mut p = EvalParams::zero(layout.clone());
    for (i, w) in p.weights.iter_mut().enumerate() {
        *w = Score::new(
            x[2 * i].round().clamp(-bound, bound) as i32,
            x[2 * i + 1].round().clamp(-bound, bound) as i32,
        );
    }
    p
}

/// Fit the weights of `start` to `samples`; `epoch_done` is called after
/// each epoch with its number and the training and validation loss.
pub fn tune(
    start: &EvalParams,
    samples: &[Sample],
    opts: &TuneOptions,
    epoch_done: &mut dyn FnMut(usize, f64, f64),
) -> TuneReport {
    let layout = &start.layout;
    let problem = Problem {
        samples,
        tempo: layout.tempo(),
        lambda: opts.lambda.clamp(0.0, 1.0),
    };
    // Split: a seeded shuffle, the first share held out.
    let mut rng = Rng::new(opts.seed);
    let mut order: Vec<u32> = (0..samples.len() as u32).collect();
    rng.shuffle(&mut order);
    let held = ((samples.len() as f64 * opts.validation.clamp(0.0, 0.9)) as usize).min(order.len());
    let (validation, train) = order.split_at(held);
    let (validation, mut train) = (validation.to_vec(), train.to_vec());
    // The training positions in file order, before the first epoch's shuffle.
    train.sort_unstable();

    let k = fit_k(&problem, &train, &start.weights);
    let before = (
        problem.loss(&train, &start.weights, k),
        problem.loss(&validation, &start.weights, k),
    );
    // Left-right symmetry: where the starting piece-square values are
    // symmetric, each pair of mirrored weights moves together.
    let symmetric = (0..layout.len()).all(|i| start.weights[i] == start.weights[layout.mirror(i)]);
    let mut x: Vec<f64> = start
        .weights
        .iter()
        .flat_map(|w| [f64::from(w.mg()), f64::from(w.eg())])
        .collect();
    let x0 = x.clone();
    // The decay's gradient per centipawn: distances are counted in pawns.
    let pull = opts.decay.max(0.0) / (100.0 * 100.0);
    let (mut m, mut v) = (vec![0.0; x.len()], vec![0.0; x.len()]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
    let mut step = 0i32;
    let mut epochs = Vec::new();
    let batch = opts.batch.max(1);
    for epoch in 1..=opts.epochs {
        rng.shuffle(&mut train);
        for b in train.chunks(batch) {
            let mut g = problem.gradient(b, &x, k);
            let n = b.len() as f64;
            if symmetric {
                for i in 0..layout.len() {
                    let j = layout.mirror(i);
                    if j > i {
                        for h in 0..2 {
                            let avg = (g[2 * i + h] + g[2 * j + h]) / 2.0;
                            g[2 * i + h] = avg;
                            g[2 * j + h] = avg;
                        }
                    }
                }
            }
            step = step.saturating_add(1);
            let (c1, c2) = (1.0 - b1.powi(step), 1.0 - b2.powi(step));
            for i in 0..x.len() {
                let gi = g[i] / n + pull * (x[i] - x0[i]);
                m[i] = b1 * m[i] + (1.0 - b1) * gi;
                v[i] = b2 * v[i] + (1.0 - b2) * gi * gi;
                x[i] -= opts.rate * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
            }
        }
        let p = rounded(layout, &x);
        let losses = (
            problem.loss(&train, &p.weights, k),
            problem.loss(&validation, &p.weights, k),
        );
        epoch_done(epoch, losses.0, losses.1);
        epochs.push(losses);
    }
    TuneReport {
        k,
        train_positions: train.len(),
        validation_positions: validation.len(),
        before,
        epochs,
        params: rounded(layout, &x),
    }
}
