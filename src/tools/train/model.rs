//! The network in f32 as the trainer fits it, and its gradients.
//!
//! `(inputs -> H) x 2 -> 1`: one feature transformer shared by both
//! perspectives, `acc = feature_bias + sum of the active features' rows`;
//! the output `o = sum f(acc_us) * w_us + sum f(acc_them) * w_them + b`
//! with `f` the clipped ReLU `clamp(x, 0, 1)` or its square, and `w_us`,
//! `w_them` and `b` those of the position's output bucket (its material,
//! see [`output_bucket`](crate::engine::eval::nnue::features::output_bucket)). The evaluation
//! is `scale * o` centipawns, so the prediction `sigmoid(o)` is compared
//! with the target `lambda * sigmoid(score / scale) + (1 - lambda) * result`
//! by the squared error.
//!
//! Every weight lies in one flat array (feature weights feature by feature,
//! feature bias, output weights bucket by bucket with the side to move's
//! half first, output biases) so that the optimiser walks one slice. A gradient of a chunk of
//! positions holds full rows only for the features the chunk touched.

use super::data::{SampleRef, Samples};
use crate::engine::eval::nnue::Activation;
use crate::util::rng::Rng;

/// Centipawns per unit of the network's output: the evaluation is
/// `SCALE * o`, and the targets' scores are read at the same scale.
pub const SCALE: i32 = 400;

/// The network's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub inputs: usize,
    pub hidden: usize,
    pub activation: Activation,
    /// Output buckets: the output layer (2 * hidden weights and a bias)
    /// is there once per bucket.
    pub buckets: usize,
}

impl Shape {
    /// Where the feature bias starts in the flat array.
    pub fn feature_bias(&self) -> usize {
        self.inputs * self.hidden
    }
    /// Where the output weights start.
    pub fn output_weights(&self) -> usize {
        self.feature_bias() + self.hidden
    }
    /// Where the output biases start (one a bucket).
    pub fn output_bias(&self) -> usize {
        self.output_weights() + self.buckets * 2 * self.hidden
    }
    /// The number of weights.
    pub fn size(&self) -> usize {
        self.output_bias() + self.buckets
    }
}

/// The float network.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub shape: Shape,
    pub weights: Vec<f32>,
}

/// A uniform number in `-a..a`.
fn uniform(rng: &mut Rng, a: f32) -> f32 {
    let unit = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
    (2.0 * unit - 1.0) * a
}

pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The training target of a position from the side to move's side.
pub fn target(s: &SampleRef, lambda: f32, scale: f32) -> f32 {
    lambda * sigmoid(s.score / scale) + (1.0 - lambda) * s.result
}

impl Model {
    /// Weights drawn from `seed`: feature weights small enough that a few
    /// dozen men leave most accumulators inside the activation's slope, the
    /// output weights scaled by the hidden size, biases zero. Every output
    /// bucket starts as the first: the net of one bucket, which the
    /// buckets' data then pull apart.
    pub fn new(shape: Shape, seed: u64) -> Model {
        let mut rng = Rng::new(seed);
        let mut weights = vec![0.0; shape.size()];
        for w in &mut weights[..shape.feature_bias()] {
            *w = uniform(&mut rng, 0.1);
        }
        let a = 1.0 / (shape.hidden as f32).sqrt();
        let (ow, layer) = (shape.output_weights(), 2 * shape.hidden);
        for w in &mut weights[ow..ow + layer] {
            *w = uniform(&mut rng, a);
        }
        for b in 1..shape.buckets {
            weights.copy_within(ow..ow + layer, ow + b * layer);
        }
        Model { shape, weights }
    }

    /// This model with `hidden` neurons (at least its own), its own first:
    /// the new neurons' feature weights drawn from `seed` as a new model's,
    /// their biases and output weights zero. The wider model evaluates every
    /// position as this one does; a training then grows the new neurons
    /// from there (their output weights first, whose gradient their random
    /// activations make, then their inputs), so a net's hidden layer grows
    /// with its data without losing what it learnt.
    pub fn widened(&self, hidden: usize, seed: u64) -> Model {
        let old = self.shape;
        let shape = Shape { hidden, ..old };
        let added = hidden.saturating_sub(old.hidden);
        let mut rng = Rng::new(seed);
        let mut weights = Vec::with_capacity(shape.size());
        for row in self.weights[..old.feature_bias()].chunks_exact(old.hidden) {
            weights.extend_from_slice(row);
            weights.extend((0..added).map(|_| uniform(&mut rng, 0.1)));
        }
        weights.extend_from_slice(&self.weights[old.feature_bias()..old.output_weights()]);
        weights.resize(shape.output_weights(), 0.0);
        // Each bucket's two halves (the side to move's, the other's).
        for half in self.weights[old.output_weights()..old.output_bias()].chunks_exact(old.hidden) {
            weights.extend_from_slice(half);
            weights.resize(weights.len() + added, 0.0);
        }
        weights.extend_from_slice(&self.weights[old.output_bias()..]);
        Model { shape, weights }
    }

    /// The accumulator of one perspective: bias plus the features' rows.
    fn accumulate(&self, features: impl Iterator<Item = u32>, acc: &mut [f32]) {
        let h = self.shape.hidden;
        let fb = self.shape.feature_bias();
        acc.copy_from_slice(&self.weights[fb..fb + h]);
        for f in features {
            let row = &self.weights[f as usize * h..(f as usize + 1) * h];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        }
    }

    /// The activation of one value.
    fn activate(&self, x: f32) -> f32 {
        let c = x.clamp(0.0, 1.0);
        match self.shape.activation {
            Activation::ClippedRelu => c,
            Activation::SquaredClippedRelu => c * c,
        }
    }

    /// The activation's slope at `x` (0 outside the clipped range).
    fn slope(&self, x: f32) -> f32 {
        if x <= 0.0 || x >= 1.0 {
            0.0
        } else {
            match self.shape.activation {
                Activation::ClippedRelu => 1.0,
                Activation::SquaredClippedRelu => 2.0 * x,
            }
        }
    }

    /// The output `o` (the evaluation over the scale) with the two
    /// accumulators filled.
    fn forward(&self, s: &SampleRef, acc: &mut [Vec<f32>; 2]) -> f32 {
        let h = self.shape.hidden;
        self.accumulate(s.rows(0), &mut acc[0]);
        self.accumulate(s.rows(1), &mut acc[1]);
        let b = self.bucket(s);
        let start = self.shape.output_weights() + b * 2 * h;
        let ow = &self.weights[start..start + 2 * h];
        let mut o = self.weights[self.shape.output_bias() + b];
        for (side, a) in acc.iter().enumerate() {
            o += self.activated_dot(a, &ow[side * h..(side + 1) * h]);
        }
        o
    }

    /// The output bucket of `s` (the last where the sample's is beyond
    /// the shape's).
    #[inline]
    fn bucket(&self, s: &SampleRef) -> usize {
        usize::from(s.bucket).min(self.shape.buckets - 1)
    }

    /// `sum f(a) * w`, in eight running sums: one chain of additions
    /// would wait on each add, and the compiler may not reorder them.
    fn activated_dot(&self, a: &[f32], w: &[f32]) -> f32 {
        let mut lanes = [0.0f32; 8];
        let (a8, w8) = (a.chunks_exact(8), w.chunks_exact(8));
        let rest: f32 = a8
            .remainder()
            .iter()
            .zip(w8.remainder())
            .map(|(&x, &w)| self.activate(x) * w)
            .sum();
        for (a, w) in a8.zip(w8) {
            for ((l, &x), &w) in lanes.iter_mut().zip(a).zip(w) {
                *l += self.activate(x) * w;
            }
        }
        lanes.iter().sum::<f32>() + rest
    }

    /// The two accumulators that [`Model::error`] works in.
    pub fn scratch(&self) -> [Vec<f32>; 2] {
        let h = self.shape.hidden;
        [vec![0.0; h], vec![0.0; h]]
    }

    /// The evaluation of a position in units of the scale.
    pub fn output(&self, s: &SampleRef) -> f32 {
        self.forward(s, &mut self.scratch())
    }

    /// The prediction for `s` less its target.
    pub fn error(&self, s: &SampleRef, acc: &mut [Vec<f32>; 2], lambda: f32, scale: f32) -> f32 {
        sigmoid(self.forward(s, acc)) - target(s, lambda, scale)
    }

    /// The summed squared error over the positions `idx` (in order).
    #[cfg(test)]
    pub fn loss_sum(&self, samples: &Samples, idx: &[u32], lambda: f32, scale: f32) -> f64 {
        let mut acc = self.scratch();
        idx.iter()
            .map(|&i| {
                f64::from(
                    self.error(&samples.get(i as usize), &mut acc, lambda, scale)
                        .powi(2),
                )
            })
            .sum()
    }

    /// The gradient of the summed squared error over the positions `idx`,
    /// taken one after the other.
    pub fn gradient(&self, samples: &Samples, idx: &[u32], lambda: f32, scale: f32) -> Gradient {
        let h = self.shape.hidden;
        let mut g = Gradient::new(self.shape);
        let mut acc = [vec![0.0; h], vec![0.0; h]];
        let mut dacc = vec![0.0; h];
        // In the dense part: feature bias (h), each bucket's output weights
        // (2h each), then the output biases.
        let biases = h + self.shape.buckets * 2 * h;
        for &i in idx {
            let s = samples.get(i as usize);
            let p = sigmoid(self.forward(&s, &mut acc));
            let e = p - target(&s, lambda, scale);
            g.loss += f64::from(e * e);
            // d(e^2)/do through the sigmoid.
            let d = 2.0 * e * p * (1.0 - p);
            let b = self.bucket(&s);
            g.dense[biases + b] += d;
            let ow = self.shape.output_weights() + b * 2 * h;
            let gow = h + b * 2 * h;
            for (side, a) in acc.iter().enumerate() {
                let w = &self.weights[ow + side * h..ow + (side + 1) * h];
                let gw = &mut g.dense[gow + side * h..gow + (side + 1) * h];
                for ((gw, dacc), (&a, &w)) in gw.iter_mut().zip(&mut dacc).zip(a.iter().zip(w)) {
                    *gw += d * self.activate(a);
                    *dacc = d * w * self.slope(a);
                }
                for (b, &x) in g.dense[..h].iter_mut().zip(&dacc) {
                    *b += x;
                }
                for f in s.rows(side) {
                    for (r, &x) in g.row(f).iter_mut().zip(&dacc) {
                        *r += x;
                    }
                }
            }
        }
        g
    }
}

/// A gradient over some positions: full rows for the features touched,
/// the rest (feature bias, output weights, output bias) dense.
pub struct Gradient {
    hidden: usize,
    /// Row of each feature in `rows`, `u32::MAX` where untouched.
    slot: Vec<u32>,
    /// The touched features in the order first touched.
    touched: Vec<u32>,
    rows: Vec<f32>,
    /// Feature bias (H), output weights (2H a bucket), output biases (1 a
    /// bucket).
    dense: Vec<f32>,
    /// The summed squared error of the positions.
    pub loss: f64,
}

impl Gradient {
    fn new(shape: Shape) -> Gradient {
        Gradient {
            hidden: shape.hidden,
            slot: vec![u32::MAX; shape.inputs],
            touched: Vec::new(),
            rows: Vec::new(),
            dense: vec![0.0; shape.hidden + shape.buckets * (2 * shape.hidden + 1)],
            loss: 0.0,
        }
    }

    /// The row of feature `f`, made (zero) on first touch.
    fn row(&mut self, f: u32) -> &mut [f32] {
        let h = self.hidden;
        let mut s = self.slot[f as usize];
        if s == u32::MAX {
            s = self.touched.len() as u32;
            self.slot[f as usize] = s;
            self.touched.push(f);
            self.rows.resize(self.rows.len() + h, 0.0);
        }
        &mut self.rows[s as usize * h..(s as usize + 1) * h]
    }

    /// Add this gradient to the flat gradient `out` (laid out as the
    /// model's weights).
    pub fn add_to(&self, out: &mut [f32]) {
        let h = self.hidden;
        for (s, &f) in self.touched.iter().enumerate() {
            let dst = &mut out[f as usize * h..(f as usize + 1) * h];
            for (d, &x) in dst.iter_mut().zip(&self.rows[s * h..(s + 1) * h]) {
                *d += x;
            }
        }
        let start = out.len() - self.dense.len();
        for (d, &x) in out[start..].iter_mut().zip(&self.dense) {
            *d += x;
        }
    }
}

#[cfg(test)]
impl Model {
    /// A model for tests: random weights, and biases away from zero so that
    /// they matter too.
    pub(super) fn with_biases(inputs: usize, hidden: usize, activation: Activation) -> Model {
        Model::with_buckets(inputs, hidden, activation, 1)
    }

    /// [`Model::with_biases`] of `buckets` output buckets, each bucket's
    /// output layer made different from the others'.
    pub(super) fn with_buckets(
        inputs: usize,
        hidden: usize,
        activation: Activation,
        buckets: usize,
    ) -> Model {
        let shape = Shape {
            inputs,
            hidden,
            activation,
            buckets,
        };
        let mut m = Model::new(shape, 4);
        let fb = shape.feature_bias();
        for k in 0..hidden {
            m.weights[fb + k] = 0.2 + 0.03 * k as f32;
        }
        for b in 0..buckets {
            m.weights[shape.output_bias() + b] = 0.15 - 0.1 * b as f32;
            // The first bucket's weights as drawn (those of one bucket).
            let start = shape.output_weights() + b * 2 * hidden;
            for (k, w) in m.weights[start..start + 2 * hidden].iter_mut().enumerate() {
                if b > 0 {
                    *w *= 0.5 + 0.25 * ((b * 7 + k) % 5) as f32 - 0.2 * b as f32;
                }
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::super::data::Sample;
    use super::*;

    fn samples() -> Samples {
        Samples::new(vec![
            Sample {
                us: vec![0, 3, 5],
                them: vec![1, 2],
                score: 150.0,
                result: 1.0,
                baseline: 0.0,
                bucket: 0,
            },
            Sample {
                us: vec![2, 4],
                them: vec![0, 5],
                score: -80.0,
                result: 0.5,
                baseline: 0.0,
                bucket: 2,
            },
        ])
    }

    /// Every derivative of the gradient matches a finite difference of the
    /// loss, for both activations, with one output bucket and with three
    /// (the two positions in buckets 0 and 2: bucket 1's layer untouched).
    #[test]
    fn gradients_match_finite_differences() {
        let data = samples();
        for (activation, buckets) in [
            (Activation::ClippedRelu, 1),
            (Activation::SquaredClippedRelu, 1),
            (Activation::ClippedRelu, 3),
            (Activation::SquaredClippedRelu, 3),
        ] {
            let m = Model::with_buckets(6, 4, activation, buckets);
            let shape = m.shape;
            let idx = [0, 1];
            let mut flat = vec![0.0; shape.size()];
            let g = m.gradient(&data, &idx, 0.5, 400.0);
            g.add_to(&mut flat);
            assert!((g.loss - m.loss_sum(&data, &idx, 0.5, 400.0)).abs() < 1e-6);
            for (i, &analytic) in flat.iter().enumerate() {
                let eps = 1e-3;
                let at = |x: f32| {
                    let mut n = m.clone();
                    n.weights[i] = x;
                    n.loss_sum(&data, &idx, 0.5, 400.0)
                };
                let numeric =
                    (at(m.weights[i] + eps) - at(m.weights[i] - eps)) / (2.0 * f64::from(eps));
                let analytic = f64::from(analytic);
                assert!(
                    (numeric - analytic).abs() < 2e-3 * (1.0 + analytic.abs()),
                    "{activation:?} weight {i}: numeric {numeric}, analytic {analytic}"
                );
            }
            assert!(flat[..shape.feature_bias()].iter().any(|&x| x != 0.0));
            if buckets == 3 {
                let layer = |b: usize| {
                    let start = shape.output_weights() + b * 8;
                    &flat[start..start + 8]
                };
                assert!(layer(0).iter().any(|&x| x != 0.0));
                assert!(layer(1).iter().all(|&x| x == 0.0));
                assert!(layer(2).iter().any(|&x| x != 0.0));
                let biases = &flat[shape.output_bias()..];
                assert!(biases[0] != 0.0 && biases[1] == 0.0 && biases[2] != 0.0);
            }
        }
    }

    /// A widened model keeps every output of the narrow one (both
    /// activations, three output buckets), its new neurons' feature weights
    /// are drawn (a gradient reaches their output weights), and the
    /// narrow model's own weights keep their places.
    #[test]
    fn a_widened_model_evaluates_as_the_narrow_one() {
        let data = samples();
        for activation in [Activation::ClippedRelu, Activation::SquaredClippedRelu] {
            let narrow = Model::with_buckets(6, 4, activation, 3);
            let wide = narrow.widened(7, 9);
            assert_eq!(wide.shape.hidden, 7);
            assert_eq!(wide.weights.len(), wide.shape.size());
            for i in 0..data.len() {
                let (a, b) = (narrow.output(&data.get(i)), wide.output(&data.get(i)));
                assert!((a - b).abs() < 1e-6, "{activation:?} {i}: {a} {b}");
            }
            for f in 0..6 {
                assert_eq!(
                    wide.weights[f * 7..f * 7 + 4],
                    narrow.weights[f * 4..f * 4 + 4]
                );
            }
            assert!(
                wide.weights[..wide.shape.feature_bias()]
                    .iter()
                    .any(|&w| w != 0.0)
            );
            let g = wide.gradient(&data, &[0, 1], 0.5, 400.0);
            let mut flat = vec![0.0; wide.shape.size()];
            g.add_to(&mut flat);
            let ow = wide.shape.output_weights();
            // Bucket 0's side-to-move half: the new neurons 4..7.
            assert!(flat[ow + 4..ow + 7].iter().any(|&x| x != 0.0));
            assert_eq!(narrow.widened(4, 9), narrow);
        }
    }

    #[test]
    fn initial_weights_come_from_the_seed() {
        let shape = Shape {
            inputs: 10,
            hidden: 8,
            activation: Activation::ClippedRelu,
            buckets: 1,
        };
        assert_eq!(Model::new(shape, 1), Model::new(shape, 1));
        // Every output bucket starts as the one-bucket net's output layer.
        let three = Model::new(
            Shape {
                buckets: 3,
                ..shape
            },
            1,
        );
        let one = Model::new(shape, 1);
        assert_eq!(
            three.weights[..one.shape.output_bias()],
            one.weights[..one.shape.output_bias()]
        );
        let ow = shape.output_weights();
        for b in 1..3 {
            assert_eq!(
                three.weights[ow + b * 16..ow + (b + 1) * 16],
                one.weights[ow..ow + 16]
            );
        }
        assert_eq!(three.weights.len(), one.weights.len() + 2 * 17);
        assert_ne!(Model::new(shape, 1), Model::new(shape, 2));
        let m = Model::new(shape, 1);
        assert!(
            m.weights[..shape.feature_bias()]
                .iter()
                .all(|w| w.abs() <= 0.1)
        );
        assert!(
            m.weights[shape.feature_bias()..shape.output_weights()]
                .iter()
                .all(|&w| w == 0.0)
        );
    }
}
