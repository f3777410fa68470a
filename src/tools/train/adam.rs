//! Adam, the optimiser: per weight, running means of the gradient and of
//! its square, a step against the mean scaled by the root of the square.
//! The step walks the weights in fixed slices on rayon's threads; each
//! weight's update depends on nothing else, so the thread count does not
//! change the result.

use rayon::prelude::*;

/// Weights per slice of the parallel update.
const SLICE: usize = 1 << 14;

/// Adam's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamSettings {
    pub beta1: f32,
    pub beta2: f32,
    pub eps: f32,
}

impl Default for AdamSettings {
    fn default() -> Self {
        AdamSettings {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
        }
    }
}

/// The optimiser's state for a set of weights.
pub struct Adam {
    settings: AdamSettings,
    m: Vec<f32>,
    v: Vec<f32>,
    steps: i32,
}

impl Adam {
    pub fn new(len: usize, settings: AdamSettings) -> Adam {
        Adam {
            settings,
            m: vec![0.0; len],
            v: vec![0.0; len],
            steps: 0,
        }
    }

    /// An optimiser that goes on from saved moments after `steps` steps.
    pub fn restore(settings: AdamSettings, m: Vec<f32>, v: Vec<f32>, steps: i32) -> Adam {
        Adam {
            settings,
            m,
            v,
            steps,
        }
    }

    /// The running means of the gradient and of its square, and the steps
    /// taken: what [`Adam::restore`] goes on from.
    pub fn moments(&self) -> (&[f32], &[f32], i32) {
        (&self.m, &self.v, self.steps)
    }

    /// One step of size `rate` along the gradient `grad` times `mean` (one
    /// over the batch's size); the gradient is cleared for the next batch.
    pub fn step(&mut self, weights: &mut [f32], grad: &mut [f32], mean: f32, rate: f32) {
        let AdamSettings { beta1, beta2, eps } = self.settings;
        self.steps = self.steps.saturating_add(1);
        let c1 = 1.0 - beta1.powi(self.steps);
        let c2 = 1.0 - beta2.powi(self.steps);
        weights
            .par_chunks_mut(SLICE)
            .zip(grad.par_chunks_mut(SLICE))
            .zip(self.m.par_chunks_mut(SLICE))
            .zip(self.v.par_chunks_mut(SLICE))
            .for_each(|(((w, g), m), v)| {
                for i in 0..w.len() {
                    let gi = g[i] * mean;
                    g[i] = 0.0;
                    m[i] = beta1 * m[i] + (1.0 - beta1) * gi;
                    v[i] = beta2 * v[i] + (1.0 - beta2) * gi * gi;
                    w[i] -= rate * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a quadratic bowl Adam walks to the bottom; its first step is the
    /// rate against the gradient's sign.
    #[test]
    fn adam_descends_a_bowl() {
        let target = [3.0f32, -2.0, 0.5];
        let mut w = vec![0.0f32; 3];
        let mut adam = Adam::new(3, AdamSettings::default());
        let mut g: Vec<f32> = w.iter().zip(&target).map(|(x, t)| 2.0 * (x - t)).collect();
        adam.step(&mut w, &mut g, 1.0, 0.1);
        assert!(g.iter().all(|&x| x == 0.0), "the gradient is cleared");
        for (x, t) in w.iter().zip(&target) {
            assert!((x - 0.1 * t.signum()).abs() < 1e-4, "{x}");
        }
        for _ in 0..2000 {
            let mut g: Vec<f32> = w.iter().zip(&target).map(|(x, t)| 4.0 * (x - t)).collect();
            adam.step(&mut w, &mut g, 0.5, 0.05);
        }
        for (x, t) in w.iter().zip(&target) {
            assert!((x - t).abs() < 0.05, "{x} for {t}");
        }
    }
}
