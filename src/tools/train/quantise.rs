//! The float network made the integer network of a net file: feature
//! weights and biases times `qa`, output weights times `qb`, the output
//! biases times `qa * qb` (each output bucket's layer alike), each rounded and clamped to its integer range
//! (the clamped weights counted); and the quantised network's loss on
//! held-out positions, each evaluated by the engine's own net code; and
//! back: a net file's integer network as the float one a training starts
//! from.

use super::data::Samples;
use super::fit::mean_squared_error;
use super::model::{Model, SCALE, Shape, sigmoid, target};
use crate::engine::eval::nnue::{Layout, Net, Network};

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

/// The integer network of `model` (of the layout's inputs) for `layout`,
/// without provenance.
pub fn quantise(model: &Model, layout: &Layout) -> Quantised {
    let shape = model.shape;
    let w = &model.weights;
    let mut net = Network::zeroed(
        layout,
        shape.hidden as u32,
        shape.activation,
        [QA, QB, SCALE],
        shape.buckets as u32,
    );
    let mut clamped = 0;
    let mut fill = |to: &mut [i16], from: std::ops::Range<usize>, factor: i32| {
        for (q, &x) in to.iter_mut().zip(&w[from]) {
            *q = to_i16(x, factor, &mut clamped);
        }
    };
    fill(&mut net.feature_weights, 0..shape.feature_bias(), QA);
    fill(
        &mut net.feature_bias,
        shape.feature_bias()..shape.output_weights(),
        QA,
    );
    fill(
        &mut net.output_weights,
        shape.output_weights()..shape.output_bias(),
        QB,
    );
    for (q, &x) in net.output_bias.iter_mut().zip(&w[shape.output_bias()..]) {
        let bias = (f64::from(x) * f64::from(QA * QB)).round();
        if bias.abs() > f64::from(i32::MAX) {
            clamped += 1;
        }
        *q = bias.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
    }
    Quantised { net, clamped }
}

/// The float network of a net file's integer one, each weight divided by
/// the factor the file names (its `qa`, `qb`): the start of a training that
/// goes on from the net. `rows` is the model's inputs: the net's features,
/// then the factoriser's virtual ones (if any), which start at zero, so
/// that the model evaluates every position as the net does, within float
/// rounding. A net of another centipawn scale than [`SCALE`] has its
/// output layer scaled to it.
pub fn dequantise(net: &Network, rows: usize) -> Model {
    let (inputs, hidden) = (net.inputs as usize, net.hidden as usize);
    let shape = Shape {
        inputs: rows.max(inputs),
        hidden,
        activation: net.activation,
        buckets: net.buckets as usize,
    };
    let (qa, qb) = (f64::from(net.qa), f64::from(net.qb));
    let rescale = f64::from(net.scale) / f64::from(SCALE);
    let mut weights = Vec::with_capacity(shape.size());
    let of = |w: i16, factor: f64| (f64::from(w) / factor) as f32;
    weights.extend(net.feature_weights.iter().map(|&w| of(w, qa)));
    weights.resize(shape.feature_bias(), 0.0);
    weights.extend(net.feature_bias.iter().map(|&w| of(w, qa)));
    weights.extend(net.output_weights.iter().map(|&w| of(w, qb / rescale)));
    weights.extend(
        net.output_bias
            .iter()
            .map(|&b| (f64::from(b) * rescale / (qa * qb)) as f32),
    );
    Model { shape, weights }
}

/// The quantised network's mean squared error on the positions `idx`: each
/// position's real features (the only ones stored) evaluated by
/// [`Net::evaluate_features`] with its output bucket, in centipawns, against the same target as
/// in training.
pub fn quantised_loss(net: &Net, samples: &Samples, idx: &[u32], lambda: f32) -> f64 {
    let scale = net.network().scale as f32;
    mean_squared_error(
        samples,
        idx,
        || (),
        |_, s| {
            sigmoid(net.evaluate_features(s.us, s.them, usize::from(s.bucket)) as f32 / scale)
                - target(s, lambda, scale)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::loader::tests::with_chess_reader;
    use super::super::loader::{Baseline, Reader, Wanted};
    use super::*;
    use crate::engine::eval::nnue::{Accumulators, Activation};
    use crate::rules::board::Position;
    use crate::tools::datafile::DataPosition;
    use std::sync::Arc;

    /// The integer network's evaluation is the float network's, within the
    /// rounding of its weights, for both activations and for one and four
    /// output buckets, on positions of every bucket; the trainer's
    /// evaluation of a position's stored features and bucket is the
    /// engine's, exactly; weights too large for i16 are clamped and
    /// counted.
    #[test]
    fn the_quantised_network_evaluates_as_the_float_one() {
        with_chess_reader(|reader| {
            for buckets in [1, 4] {
                quantised_as_float(&Reader { buckets, ..*reader });
            }
        });
    }

    fn quantised_as_float(reader: &Reader) {
        let (v, layout, buckets) = (reader.variant, reader.layout, reader.buckets);
        // 32, 22, 12 and 4 men: buckets 3, 2, 1 and 0 of four.
        let positions: Vec<Position> = [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "r1bqk2r/pp3ppp/2n5/8/8/2N5/PP3PPP/R1BQK2R w KQkq - 0 1",
            "4k3/pp3pp1/8/3r4/8/2R5/PP3PP1/4K3 b - - 0 1",
            "4k3/8/8/3q4/8/8/3P4/4K3 w - - 0 1",
        ]
        .iter()
        .map(|fen| Position::from_fen(v.clone(), fen).expect("fen"))
        .collect();
        let mut baseline = Baseline::new();
        let samples = Samples::new(
            positions
                .iter()
                .map(|pos| {
                    let line = DataPosition {
                        pos,
                        score: 30,
                        result: 0.5,
                        index: 0,
                        game: None,
                    };
                    reader.sample(&mut baseline, line, &Wanted(&[]))
                })
                .collect::<Result<_, _>>()
                .expect("samples"),
        );
        let stored: Vec<u8> = (0..positions.len())
            .map(|i| samples.get(i).bucket)
            .collect();
        let want: &[u8] = if buckets == 4 { &[3, 2, 1, 0] } else { &[0; 4] };
        assert_eq!(stored, want);
        for activation in [Activation::ClippedRelu, Activation::SquaredClippedRelu] {
            let mut model = Model::with_buckets(layout.inputs(), 16, activation, buckets);
            let shape = model.shape;
            let q = quantise(&model, layout);
            assert_eq!(q.clamped, 0);
            assert_eq!((q.net.hidden, q.net.inputs), (16, 768));
            assert_eq!(q.net.buckets as usize, buckets);
            let net = Arc::new(Net::new(layout.clone(), q.net, "test").expect("a net for chess"));
            for (i, pos) in positions.iter().enumerate() {
                let s = samples.get(i);
                let float = 400.0 * model.output(&s);
                let engine = Accumulators::new(net.clone(), pos).evaluate(pos);
                let bucket = usize::from(s.bucket);
                assert_eq!(net.evaluate_features(s.us, s.them, bucket), engine);
                assert_eq!(net.evaluate(pos), engine);
                if buckets > 1 {
                    // Another bucket's layer gives another score: the test
                    // sees which one is used.
                    let other = (bucket + 1) % buckets;
                    assert_ne!(net.evaluate_features(s.us, s.them, other), engine);
                }
                // Each weight is rounded by up to half a step (1/510 for the
                // feature weights, 1/2048 for the output weights): a few
                // centipawns over 32 hidden values.
                assert!(float.abs() > 10.0, "a test that sees the weights: {float}");
                let int = engine as f32;
                assert!(
                    (float - int).abs() < 4.0,
                    "{activation:?}, {buckets} buckets: {float} vs {int}"
                );
            }
            // Back to floats: every position evaluated as the net does, a
            // virtual row more changing nothing while it is zero, and
            // quantised again the very same net.
            let back = dequantise(net.network(), layout.inputs() + 12);
            assert_eq!(back.shape.inputs, layout.inputs() + 12);
            assert_eq!((back.shape.hidden, back.shape.buckets), (16, buckets));
            for (i, pos) in positions.iter().enumerate() {
                let again = 400.0 * back.output(&samples.get(i));
                let engine = net.evaluate(pos) as f32;
                assert!((again - engine).abs() < 1.5, "{again} vs {engine}");
            }
            let folded = Model {
                shape: Shape {
                    inputs: layout.inputs(),
                    ..back.shape
                },
                weights: [
                    &back.weights[..layout.inputs() * 16],
                    &back.weights[back.shape.feature_bias()..],
                ]
                .concat(),
            };
            let requantised = quantise(&folded, layout);
            assert_eq!(requantised.clamped, 0);
            assert!(requantised.net == *net.network(), "a weight changed");
            let loss = quantised_loss(&net, &samples, &[0, 1, 2, 3], 0.5);
            assert!(loss.is_finite() && loss > 0.0, "{loss}");
            model.weights[3] = 200.0;
            model.weights[shape.output_weights() + (buckets - 1) * 32] = -600.0;
            model.weights[shape.output_bias() + buckets - 1] = 1e9;
            assert_eq!(quantise(&model, layout).clamped, 3);
        }
    }
}
