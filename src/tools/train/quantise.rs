//! The float network made the integer network of a net file: feature
//! weights and biases times `qa`, output weights times `qb`, the output
//! bias times `qa * qb`, each rounded and clamped to its integer range
//! (the clamped weights counted); and the quantised network's loss, by
//! integer inference, on held-out positions.

use super::data::Samples;
use super::fit::mean_squared_error;
use super::model::{Model, sigmoid, target};
use crate::engine::eval::nnue::{Net, Network};

/// Accumulator quantisation: a float 1.0 is 255.
pub const QA: i32 = 255;
/// Output weight quantisation: a float 1.0 is 1024. Each output weight
/// reaches the score directly, so its step must be fine: at 64 (6 cp at a
/// scale of 400) rounding cost a 64-hidden chess net 7% of its validation
/// loss; float output weights stay far below 32, the i16 limit here.
pub const QB: i32 = 1024;

/// A quantised network and how many of its weights were clamped.
pub struct Quantised {
    pub net: Network,
    pub clamped: usize,
}

/// Round `x * factor`, clamped to i16, counting a clamp.
fn to_i16(x: f32, factor: i32, clamped: &mut usize) -> i16 {
    let q = (f64::from(x) * f64::from(factor)).round();
    if q < f64::from(i16::MIN) || q > f64::from(i16::MAX) {
        *clamped += 1;
    }
    q.clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
}

/// The integer network of `model`, for a variant whose layout hashes to
/// `layout_hash`, with its provenance text.
pub fn quantise(model: &Model, layout_hash: u64, scale: i32, provenance: String) -> Quantised {
    let shape = model.shape;
    let w = &model.weights;
    let mut clamped = 0;
    let mut many = |range: std::ops::Range<usize>, factor: i32| -> Vec<i16> {
        w[range]
            .iter()
            .map(|&x| to_i16(x, factor, &mut clamped))
            .collect()
    };
    let feature_weights = many(0..shape.feature_bias(), QA);
    let feature_bias = many(shape.feature_bias()..shape.output_weights(), QA);
    let output_weights = many(shape.output_weights()..shape.output_bias(), QB);
    let bias = (f64::from(w[shape.output_bias()]) * f64::from(QA * QB)).round();
    if bias.abs() > f64::from(i32::MAX) {
        clamped += 1;
    }
    let output_bias = bias.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
    Quantised {
        net: Network {
            layout_hash,
            inputs: shape.inputs as u32,
            hidden: shape.hidden as u32,
            activation: shape.activation,
            qa: QA,
            qb: QB,
            scale,
            provenance,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        },
        clamped,
    }
}

/// The evaluation of a position in centipawns by the integer network, from
/// its two sorted feature lists (the side to move's first): the accumulators built
/// with the net's kernel, the output by the net's own formula.
pub fn evaluate(net: &Net, us: &[u32], them: &[u32], acc: &mut [Vec<i16>; 2]) -> i32 {
    let n = net.network();
    let h = net.hidden();
    for (a, features) in acc.iter_mut().zip([us, them]) {
        a.clear();
        a.extend_from_slice(&n.feature_bias);
        // A factoriser's virtual features (above the net's inputs) were
        // folded into the real ones.
        let real = features.partition_point(|&f| f < n.inputs);
        for chunk in features[..real].chunks(8) {
            let rows: Vec<&[i16]> = chunk
                .iter()
                .map(|&f| &n.feature_weights[f as usize * h..(f as usize + 1) * h])
                .collect();
            net.kernel().apply(a, &rows, &[]);
        }
    }
    net.output(&acc[0], &acc[1])
}

/// The quantised network's mean squared error on the positions `idx`: the
/// evaluation by integer inference, in centipawns, against the same target
/// as in training.
pub fn quantised_loss(net: &Net, samples: &Samples, idx: &[u32], lambda: f32) -> f64 {
    let scale = net.network().scale as f32;
    mean_squared_error(
        samples,
        idx,
        || [Vec::new(), Vec::new()],
        |acc, s| {
            let cp = evaluate(net, s.us, s.them, acc);
            sigmoid(cp as f32 / scale) - target(s, lambda, scale)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::data::Sample;
    use super::*;
    use crate::engine::eval::nnue::{Activation, Layout};

    /// The integer network's evaluation is the float network's, within the
    /// rounding of its weights, for both activations; weights too large for
    /// i16 are clamped and counted.
    #[test]
    fn the_quantised_network_evaluates_as_the_float_one() {
        let set = crate::rules::variant_set::VariantSet::builtin();
        let layout = Layout::new(&set.compile("chess").expect("chess"));
        let samples = Samples::new(vec![
            Sample {
                us: vec![0, 3, 100, 700],
                them: vec![1, 2, 767],
                score: 0.0,
                result: 0.5,
                baseline: 0.0,
            },
            Sample {
                us: vec![2, 4],
                them: vec![0, 5, 7],
                score: 0.0,
                result: 0.5,
                baseline: 0.0,
            },
        ]);
        for activation in [Activation::ClippedRelu, Activation::SquaredClippedRelu] {
            let mut model = Model::with_biases(layout.inputs(), 16, activation);
            let shape = model.shape;
            let q = quantise(&model, layout.hash(), 400, "test".into());
            assert_eq!(q.clamped, 0);
            assert_eq!((q.net.hidden, q.net.inputs), (16, 768));
            let net = Net::new(layout.clone(), q.net, "test").expect("a net for chess");
            let mut acc = [Vec::new(), Vec::new()];
            for i in 0..samples.len() {
                let s = samples.get(i);
                let float = 400.0 * model.output(&s);
                let int = evaluate(&net, s.us, s.them, &mut acc) as f32;
                // Each weight is rounded by up to half a step (1/510 for the
                // feature weights, 1/2048 for the output weights): a few
                // centipawns over 32 hidden values.
                assert!(float.abs() > 50.0, "a test that sees the weights: {float}");
                assert!(
                    (float - int).abs() < 4.0,
                    "{activation:?}: {float} vs {int}"
                );
            }
            model.weights[3] = 200.0;
            model.weights[shape.output_weights()] = -600.0;
            assert_eq!(quantise(&model, 77, 400, String::new()).clamped, 2);
        }
    }
}
