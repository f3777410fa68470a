//! A network ready to evaluate: a net file's contents checked against the
//! variant's feature layout, with the kernel that runs its arithmetic, and
//! the output computed from the two perspectives' accumulators.

use super::features::{Layout, MAX_BUCKETS};
use super::format::{Activation, MAX_QUANT, MAX_SCALE, NetError, Network};
use super::kernels::Kernel;
use crate::rules::board::Position;
use crate::rules::types::Color;
use std::fmt;

/// The network's scores stay within this many centipawns, far from the
/// search's mate scores whatever the weights.
pub const NET_SCORE_LIMIT: i32 = 20_000;

/// A network checked against a variant's layout, ready to evaluate.
#[derive(Clone)]
pub struct Net {
    layout: Layout,
    network: Network,
    kernel: Kernel,
    /// Where the net came from, for messages.
    name: String,
}

impl fmt::Debug for Net {
    // The weights would fill pages: the sizes and the name say enough.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Net({}: {} inputs, {} hidden, {:?}, {} output bucket(s))",
            self.name,
            self.network.inputs,
            self.network.hidden,
            self.network.activation,
            self.network.buckets
        )
    }
}

impl Net {
    /// The net `network` for the variant of `layout` (its king buckets
    /// taken from the net), refused unless it was made for that variant,
    /// its king buckets fit the board and its arrays have the sizes its
    /// header gives.
    pub fn new(layout: Layout, network: Network, name: &str) -> Result<Net, NetError> {
        if network.layout_hash != layout.hash() {
            return Err(NetError::LayoutMismatch {
                expected: layout.hash(),
                found: network.layout_hash,
            });
        }
        let layout = layout
            .with_kings(network.kings.clone())
            .map_err(|e| NetError::BadKingBuckets(Some(e)))?;
        network.check_layout(&layout)?;
        let n = &network;
        let (inputs, hidden) = (n.inputs as usize, n.hidden as usize);
        if !(1..=MAX_BUCKETS).contains(&n.buckets) {
            return Err(NetError::BadBuckets(n.buckets));
        }
        let buckets = n.buckets as usize;
        if hidden == 0
            || n.feature_weights.len() != inputs * hidden
            || n.feature_bias.len() != hidden
            || n.output_weights.len() != buckets * 2 * hidden
            || n.output_bias.len() != buckets
        {
            return Err(NetError::BadSizes {
                inputs: n.inputs,
                hidden: n.hidden,
            });
        }
        if !(1..=MAX_QUANT).contains(&n.qa)
            || !(1..=MAX_QUANT).contains(&n.qb)
            || !(1..=MAX_SCALE).contains(&n.scale)
        {
            return Err(NetError::BadQuantisation {
                qa: n.qa,
                qb: n.qb,
                scale: n.scale,
            });
        }
        Ok(Net {
            layout,
            network,
            kernel: Kernel::detect(),
            name: name.to_string(),
        })
    }

    /// A net read from the bytes of a net file for `layout`.
    pub fn from_bytes(layout: Layout, bytes: &[u8], name: &str) -> Result<Net, NetError> {
        Net::new(layout, Network::from_bytes(bytes)?, name)
    }

    /// The same net running on `kernel` (which the processor must have:
    /// take it from [`Kernel::available`]).
    pub fn with_kernel(mut self, kernel: Kernel) -> Net {
        if Kernel::available().contains(&kernel) {
            self.kernel = kernel;
        }
        self
    }

    pub fn kernel(&self) -> Kernel {
        self.kernel
    }
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    pub fn network(&self) -> &Network {
        &self.network
    }
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn hidden(&self) -> usize {
        self.network.hidden as usize
    }
    /// Output buckets (1..=[`MAX_BUCKETS`]).
    pub fn buckets(&self) -> usize {
        self.network.buckets as usize
    }

    /// The output bucket of `pos`: [`Layout::bucket`] of its men.
    #[inline]
    pub fn bucket(&self, pos: &Position) -> usize {
        self.layout.bucket(pos, self.buckets())
    }

    /// The row of feature weights of feature `f`.
    #[inline]
    pub(super) fn row(&self, f: usize) -> &[i16] {
        let h = self.hidden();
        &self.network.feature_weights[f * h..(f + 1) * h]
    }

    /// Set `acc` to the accumulator of `perspective` from scratch: the
    /// bias plus the rows of the position's active features.
    pub fn refresh(
        &self,
        pos: &Position,
        perspective: Color,
        acc: &mut [i16],
        scratch: &mut Vec<u32>,
    ) {
        self.layout.active(pos, perspective, scratch);
        self.accumulate(scratch, acc);
    }

    /// Set `acc` to the bias plus the rows of `features` (each below the
    /// layout's input count).
    pub fn accumulate(&self, features: &[u32], acc: &mut [i16]) {
        acc.copy_from_slice(&self.network.feature_bias);
        for chunk in features.chunks(8) {
            let mut rows = arrayvec::ArrayVec::<&[i16], 8>::new();
            rows.extend(chunk.iter().map(|&f| self.row(f as usize)));
            self.kernel.apply(acc, &rows, &[]);
        }
    }

    /// The score in centipawns for the side whose accumulator is `us`, by
    /// the output layer of `bucket` (below [`Net::buckets`]; see
    /// [`Net::bucket`]): `(sum a(us) * w_us + sum a(them) * w_them +
    /// output_bias) * scale / (qa * qb)`, the squared activation's sums
    /// first divided by `qa` (divisions round toward zero), within
    /// [`NET_SCORE_LIMIT`].
    #[inline]
    pub fn output(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        let n = &self.network;
        let h = self.hidden();
        // qa was checked to lie in 1..=32767.
        let qa = n.qa as i16;
        let weights = &n.output_weights[bucket * 2 * h..(bucket + 1) * 2 * h];
        let sums = self.kernel.dot(n.activation, qa, us, &weights[..h])
            + self.kernel.dot(n.activation, qa, them, &weights[h..]);
        // i128: a squared net's sums reach 2^58 before the division, and
        // the scale multiplies them.
        let sums = match n.activation {
            Activation::ClippedRelu => sums as i128,
            Activation::SquaredClippedRelu => sums as i128 / n.qa as i128,
        };
        let cp = (sums + n.output_bias[bucket] as i128) * n.scale as i128
            / (n.qa as i128 * n.qb as i128);
        cp.clamp(-(NET_SCORE_LIMIT as i128), NET_SCORE_LIMIT as i128) as i32
    }

    /// The score of `pos` for the side to move, computed from scratch.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let stm = pos.side_to_move();
        let (mut us, mut them) = (Vec::new(), Vec::new());
        self.layout.active(pos, stm, &mut us);
        self.layout.active(pos, stm.flip(), &mut them);
        self.evaluate_features(&us, &them, self.bucket(pos))
    }

    /// The score for the side to move, from scratch, of the active
    /// features of its perspective (`us`) and the other side's (`them`),
    /// by the output layer of `bucket`.
    pub fn evaluate_features(&self, us: &[u32], them: &[u32], bucket: usize) -> i32 {
        let h = self.hidden();
        let (mut ours, mut theirs) = (vec![0i16; h], vec![0i16; h]);
        self.accumulate(us, &mut ours);
        self.accumulate(them, &mut theirs);
        self.output(&ours, &theirs, bucket)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant_set::VariantSet;

    fn chess() -> (std::sync::Arc<crate::rules::variant::Variant>, Layout) {
        let v = VariantSet::builtin().compile("chess").expect("chess");
        let layout = Layout::new(&v);
        (v, layout)
    }

    /// A net with one hidden unit, its output worked out by hand.
    #[test]
    fn output_follows_the_formula() {
        let (v, layout) = chess();
        let mut n = Network::random(&layout, 1, 1);
        n.feature_bias = vec![100];
        n.output_weights = vec![3, -2];
        n.output_bias = vec![640];
        n.qa = 255;
        n.qb = 64;
        n.scale = 400;
        let net = Net::new(layout.clone(), n.clone(), "t").expect("net");
        // (100 * 3 + 50 * -2 + 640) * 400 / (255 * 64) = 336000 / 16320
        assert_eq!(net.output(&[100], &[50], 0), 20);
        assert_eq!(net.output(&[-100], &[-50], 0), 640 * 400 / 16320);
        // Clamped: a(-7) = 0, a(300) = 255.
        assert_eq!(net.output(&[-7], &[300], 0), (-510 + 640) * 400 / 16320);
        n.activation = Activation::SquaredClippedRelu;
        let net = Net::new(layout.clone(), n.clone(), "t").expect("net");
        // (100^2 * 3 + 50^2 * -2) / 255 + 640 = 25000 / 255 + 640 = 738
        assert_eq!(net.output(&[100], &[50], 0), 738 * 400 / 16320);
        let pos = Position::from_fen(v.clone(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1").expect("fen");
        assert_eq!(net.evaluate(&pos), {
            let mut us = [100i16];
            let mut them = [100i16];
            for (acc, p) in [(&mut us, Color::Black), (&mut them, Color::White)] {
                let mut f = Vec::new();
                layout.active(&pos, p, &mut f);
                for x in f {
                    acc[0] = acc[0].wrapping_add(n.feature_weights[x as usize]);
                }
            }
            net.output(&us, &them, 0)
        });
    }

    #[test]
    fn extreme_weights_stay_within_the_limit() {
        let (_, layout) = chess();
        for act in [Activation::ClippedRelu, Activation::SquaredClippedRelu] {
            let mut n = Network::random(&layout, 64, 2);
            n.activation = act;
            n.qa = 32767;
            n.qb = 1;
            n.scale = MAX_SCALE;
            n.output_weights.fill(i16::MAX);
            n.output_bias = vec![i32::MAX];
            let net = Net::new(layout.clone(), n.clone(), "t").expect("net");
            let full = vec![i16::MAX; 64];
            assert_eq!(net.output(&full, &full, 0), NET_SCORE_LIMIT);
            n.output_weights.fill(i16::MIN);
            n.output_bias = vec![i32::MIN];
            let net = Net::new(layout.clone(), n, "t").expect("net");
            assert_eq!(net.output(&full, &full, 0), -NET_SCORE_LIMIT);
        }
    }

    #[test]
    fn nets_with_wrong_sizes_or_layouts_are_refused() {
        let (_, layout) = chess();
        let good = Network::random(&layout, 16, 4);
        assert!(Net::new(layout.clone(), good.clone(), "t").is_ok());
        let mut short = good.clone();
        short.feature_bias.pop();
        assert!(matches!(
            Net::new(layout.clone(), short, "t"),
            Err(NetError::BadSizes { .. })
        ));
        let mut q = good.clone();
        q.qa = 0;
        assert!(matches!(
            Net::new(layout.clone(), q, "t"),
            Err(NetError::BadQuantisation { .. })
        ));
        let mut two = good.clone();
        two.buckets = 2;
        assert!(matches!(
            Net::new(layout.clone(), two, "t"),
            Err(NetError::BadSizes { .. })
        ));
        let mut none = good.clone();
        none.buckets = 0;
        assert_eq!(
            Net::new(layout.clone(), none, "t").err(),
            Some(NetError::BadBuckets(0))
        );
        // King buckets of another board's size.
        let mut kings = good.clone();
        kings.kings =
            crate::engine::eval::nnue::features::KingBuckets::preset(2, 10, 8).expect("preset");
        assert!(matches!(
            Net::new(layout.clone(), kings, "t"),
            Err(NetError::BadKingBuckets(Some(_)))
        ));
        let other = Layout::new(&VariantSet::builtin().compile("compound").expect("compound"));
        assert!(matches!(
            Net::new(other, good, "t"),
            Err(NetError::LayoutMismatch { .. })
        ));
    }
}
