//! The factoriser: while training, every feature (colour, kind, square)
//! has a second, virtual feature (colour, kind) that all squares of the
//! kind share. A kind's common worth (its material, roughly) is then
//! learnt from every position it appears in, not square by square, which
//! matters most when the data are few and the kinds many (stacks). The
//! virtual rows are folded into the real ones when training ends, so the
//! net file and the engine never see them.

use super::model::{Model, Shape};

/// The virtual features of a layout of `inputs` real features, `squares`
/// squares per (colour, kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Factoriser {
    inputs: usize,
    squares: usize,
}

impl Factoriser {
    /// The factoriser of `inputs` real features laid out kind by kind,
    /// `squares` features a kind (the board's squares).
    pub fn new(inputs: usize, squares: usize) -> Factoriser {
        Factoriser {
            inputs,
            squares: squares.max(1),
        }
    }

    /// How many virtual features there are.
    pub fn factors(&self) -> usize {
        self.inputs.div_ceil(self.squares)
    }

    /// Real and virtual features together.
    pub fn rows(&self) -> usize {
        self.inputs + self.factors()
    }

    /// Append each real feature's virtual one to `features` (the list stays
    /// sorted when it was, all virtual indices lying above the real ones).
    pub fn extend(&self, features: &mut Vec<u32>) {
        let real = features.len();
        if features.is_sorted() {
            // In order (as the reader gives them): each kind's block is
            // found by walking on, without a division or a sort.
            let mut block = 0;
            let mut end = self.squares;
            for i in 0..real {
                let f = features[i] as usize;
                while f >= end {
                    block += 1;
                    end += self.squares;
                }
                features.push((self.inputs + block) as u32);
            }
            return;
        }
        for i in 0..real {
            let v = (self.inputs + features[i] as usize / self.squares) as u32;
            features.push(v);
        }
        features[real..].sort_unstable();
    }

    /// [`Factoriser::extend`] for a sorted list packed last in `features`,
    /// `features[from..]`: its virtual features are appended, in order.
    pub fn extend_sorted_from(&self, features: &mut Vec<u32>, from: usize) {
        debug_assert!(features[from..].is_sorted());
        let real = features.len();
        // A copy turned in place: no capacity test a feature.
        features.extend_from_within(from..real);
        let (inputs, squares) = (self.inputs as u32, self.squares as u32);
        for f in &mut features[real..] {
            *f = inputs + *f / squares;
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
            let v = self.inputs + f / self.squares;
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
            let mut ext = (us.clone(), them.clone());
            fz.extend(&mut ext.0);
            fz.extend(&mut ext.1);
            assert_eq!(ext.0.len(), 2 * us.len());
            assert!(ext.0.windows(2).all(|w| w[0] <= w[1]));
            let plain = Samples::new(vec![Sample {
                us,
                them,
                score: 0.0,
                result: 0.5,
                baseline: 0.0,
            }]);
            let factored = Samples::new(vec![Sample {
                us: ext.0,
                them: ext.1,
                score: 0.0,
                result: 0.5,
                baseline: 0.0,
            }]);
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

    /// A sorted list and the same features out of order get the same
    /// virtual features, each its kind's block.
    #[test]
    fn virtual_features_are_each_features_block_in_order() {
        let fz = Factoriser::new(20, 4);
        let mut sorted = vec![0u32, 3, 4, 9, 10, 11, 19];
        let mut shuffled = vec![11u32, 0, 19, 4, 10, 3, 9];
        fz.extend(&mut sorted);
        fz.extend(&mut shuffled);
        assert_eq!(&sorted[7..], &[20, 20, 21, 22, 22, 22, 24]);
        assert_eq!(&sorted[7..], &shuffled[7..]);
        let mut gap = vec![17u32];
        fz.extend(&mut gap);
        assert_eq!(gap, [17, 24]);
    }

    /// A sorted list packed after others gets the virtual features that
    /// it would get alone, whatever the board's size.
    #[test]
    fn virtual_features_of_a_packed_list_are_those_of_the_list() {
        let mut rng = crate::util::rng::Rng::new(3);
        for (inputs, squares) in [(640, 64), (800, 80), (120, 10), (70, 7)] {
            let fz = Factoriser::new(inputs, squares);
            for _ in 0..20 {
                let mut list: Vec<u32> = (0..inputs as u32)
                    .filter(|_| rng.next_u64().is_multiple_of(5))
                    .collect();
                let mut packed = vec![5, 1, 3];
                packed.extend(&list);
                fz.extend_sorted_from(&mut packed, 3);
                fz.extend(&mut list);
                assert_eq!(packed[..3], [5, 1, 3]);
                assert_eq!(packed[3..], list, "{inputs} {squares}");
            }
        }
    }
}
