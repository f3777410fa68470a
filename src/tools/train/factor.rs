//! The factoriser: while training, every feature (colour, kind, square)
//! has a second, virtual feature (colour, kind) that all squares of the
//! kind share. A kind's common worth (its material, roughly) is then
//! learnt from every position it appears in, not square by square, which
//! matters most when the data are few and the kinds many (stacks). Under
//! king buckets the virtual feature is instead the (colour, kind, square)
//! that every king bucket shares, so that a bucket whose king squares are
//! rare still learns what each man on each square is worth. The virtual
//! rows are folded into the real ones when training ends, so the net file
//! and the engine never see them.

use super::data::Virtuals;
use super::model::{Model, Shape};
use crate::engine::eval::nnue::Layout;

/// The virtual features of a layout of `inputs` real features: the real
/// feature `f` has the virtual one `inputs + (f % plane) / block`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Factoriser {
    inputs: usize,
    plane: usize,
    block: usize,
}

impl Factoriser {
    /// The factoriser of `inputs` real features laid out kind by kind,
    /// `squares` features a kind (the board's squares): one virtual
    /// feature a kind.
    pub fn new(inputs: usize, squares: usize) -> Factoriser {
        Factoriser {
            inputs,
            plane: inputs.max(1),
            block: squares.max(1),
        }
    }

    /// The factoriser of `inputs` real features in planes of `plane` (one
    /// a king bucket): one virtual feature a feature of a plane.
    pub fn across_planes(inputs: usize, plane: usize) -> Factoriser {
        Factoriser {
            inputs,
            plane: plane.max(1),
            block: 1,
        }
    }

    /// The factoriser that suits `layout`: across its king buckets' planes
    /// if it has them, else by kind.
    pub fn of(layout: &Layout) -> Factoriser {
        if layout.kings().is_none() {
            Factoriser::new(layout.inputs(), layout.squares())
        } else {
            Factoriser::across_planes(layout.inputs(), layout.plane())
        }
    }

    /// How many virtual features there are.
    pub fn factors(&self) -> usize {
        self.plane.min(self.inputs).div_ceil(self.block)
    }

    /// Real and virtual features together.
    pub fn rows(&self) -> usize {
        self.inputs + self.factors()
    }

    /// Each real feature's virtual one, which the model adds where the
    /// features are used.
    pub fn virtuals(&self) -> Virtuals {
        // A layout of more than u32::MAX inputs is not read (features are
        // u32 in the data): the casts cannot cut.
        Virtuals {
            inputs: self.inputs as u32,
            plane: self.plane as u32,
            block: self.block as u32,
        }
    }

    /// The model of the real features alone: each real row plus its
    /// virtual row, the rest as it was. `model` must have `rows()` inputs.
    pub fn fold(&self, model: &Model) -> Model {
        let h = model.shape.hidden;
        debug_assert_eq!(model.shape.inputs, self.rows());
        let shape = Shape {
            inputs: self.inputs,
            ..model.shape
        };
        let mut weights = Vec::with_capacity(shape.size());
        for f in 0..self.inputs {
            let v = self.inputs + (f % self.plane) / self.block;
            let (real, shared) = (
                &model.weights[f * h..(f + 1) * h],
                &model.weights[v * h..(v + 1) * h],
            );
            weights.extend(real.iter().zip(shared).map(|(a, b)| a + b));
        }
        weights.extend_from_slice(&model.weights[model.shape.feature_bias()..]);
        Model { shape, weights }
    }
}

#[cfg(test)]
mod tests {
    use super::super::data::{Sample, Samples};
    use super::*;
    use crate::engine::eval::nnue::Activation;

    /// The folded model gives every position the output the factorised
    /// one gave it with the virtual features.
    #[test]
    fn folding_keeps_every_output() {
        let fz = Factoriser::new(12, 4);
        assert_eq!((fz.factors(), fz.rows()), (3, 15));
        let model = Model::with_biases(fz.rows(), 8, Activation::SquaredClippedRelu);
        let folded = fz.fold(&model);
        assert_eq!(folded.shape.inputs, 12);
        assert_eq!(folded.weights.len(), folded.shape.size());
        for (us, them) in [
            (vec![0u32, 5, 9], vec![2u32, 11]),
            (vec![3, 4, 7, 8], vec![]),
        ] {
            let plain = Samples::new(vec![Sample {
                us,
                them,
                score: 0.0,
                result: 0.5,
                baseline: 0.0,
                bucket: 0,
            }]);
            let factored = plain.clone().with_virtuals(Some(fz.virtuals()));
            let (a, b) = (model.output(&factored.get(0)), folded.output(&plain.get(0)));
            assert!((a - b).abs() < 1e-5, "{a} {b}");
            // Without the virtual rows the output is another.
            let unfolded = Model {
                shape: folded.shape,
                weights: [
                    &model.weights[..12 * 8],
                    &model.weights[model.shape.feature_bias()..],
                ]
                .concat(),
            };
            assert!((unfolded.output(&plain.get(0)) - a).abs() > 1e-4);
        }
    }

    /// Across king buckets' planes each feature's virtual one is the same
    /// feature of the first plane, above every real feature; folding adds
    /// that shared row to the feature's row in every plane.
    #[test]
    fn across_planes_every_plane_shares_one_row_a_feature() {
        let fz = Factoriser::across_planes(12, 4);
        assert_eq!((fz.factors(), fz.rows()), (4, 16));
        let v = fz.virtuals();
        let of: Vec<u32> = (0..12).map(|f| v.of(f)).collect();
        assert_eq!(of, [12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15]);
        let mut model = Model::with_biases(fz.rows(), 2, Activation::ClippedRelu);
        for (i, w) in model.weights[..16 * 2].iter_mut().enumerate() {
            *w = i as f32;
        }
        let folded = fz.fold(&model);
        assert_eq!(folded.shape.inputs, 12);
        // Feature 5 (plane 1, feature 1): its row (10, 11) plus row 13's
        // (26, 27).
        assert_eq!(folded.weights[10..12], [36.0, 38.0]);
        assert_eq!(folded.weights[2..4], [2.0 + 26.0, 3.0 + 27.0]);
    }

    /// Each feature's virtual one is its kind's block (its colour and
    /// kind), above every real feature, whatever the board's size; the
    /// rows a position adds are its real features and then theirs.
    #[test]
    fn virtual_features_are_each_features_block() {
        let v = Factoriser::new(20, 4).virtuals();
        let real = [0u32, 3, 4, 9, 10, 11, 19];
        let virtual_of: Vec<u32> = real.iter().map(|&f| v.of(f)).collect();
        assert_eq!(virtual_of, [20, 20, 21, 22, 22, 22, 24]);
        for (inputs, squares) in [(640, 64), (800, 80), (120, 10), (70, 7)] {
            let fz = Factoriser::new(inputs, squares);
            let v = fz.virtuals();
            for f in 0..inputs as u32 {
                let block = f as usize / squares;
                assert_eq!(v.of(f) as usize, inputs + block, "{inputs} {squares} {f}");
                assert!((v.of(f) as usize) < fz.rows());
            }
        }
        let samples = Samples::new(vec![Sample {
            us: real.to_vec(),
            them: vec![17],
            score: 0.0,
            result: 0.5,
            baseline: 0.0,
            bucket: 0,
        }])
        .with_virtuals(Some(v));
        let s = samples.get(0);
        let rows: Vec<u32> = s.rows(0).collect();
        assert_eq!(rows[..7], real);
        assert_eq!(rows[7..], virtual_of[..]);
        assert_eq!(s.rows(1).collect::<Vec<u32>>(), [17, 24]);
        assert_eq!(samples.feature_bound(), 25);
        let plain = samples.clone().with_virtuals(None);
        assert_eq!(plain.get(0).rows(1).collect::<Vec<u32>>(), [17]);
        assert_eq!(plain.feature_bound(), 20);
    }
}
