//! The net file: a quantised network, its fields in a fixed little-endian
//! layout closed by a checksum, written by the trainer and read (with every
//! length checked before anything is allocated) by the engine.
//!
//! ```text
//! magic "AMNN" | version u32 | layout hash u64 | inputs u32 | hidden u32
//! | activation u8 | qa i32 | qb i32 | scale i32
//! | buckets u32 (versions 2 and 3; version 1 has one bucket)
//! | king buckets (version 3 only): mirror u8 (0 or 1) | map length u32
//!   | map u8 x length (the bucket of each square of the perspective's
//!   king, empty or one a square of the board)
//! | provenance length u32 | provenance (UTF-8)
//! | feature weights i16 x inputs x hidden (feature-major)
//! | feature bias i16 x hidden
//! | output weights i16 x buckets x 2 x hidden (bucket-major, the side to
//!   move's half first in each) | output bias i32 x buckets
//! | FNV-1a checksum u64 of everything before it
//! ```
//!
//! A net of one output bucket is written as version 1, byte for byte the
//! file of a build without buckets; a net of more as version 2; a net
//! with king buckets as version 3.

use super::features::{KingBucketError, KingBuckets, Layout, MAX_BUCKETS};
use crate::util::hash::fnv1a;
use std::fmt;

/// The file's first four bytes.
pub const MAGIC: [u8; 4] = *b"AMNN";
/// The newest format version this build reads and writes: version 2 adds
/// the output bucket count, version 3 the king buckets; version 1 (one
/// bucket) is still read, and written for nets of one bucket and no king
/// buckets, version 2 for nets of no king buckets.
pub const VERSION: u32 = 3;
/// Largest hidden layer a file may declare.
pub const MAX_HIDDEN: u32 = 4096;
/// Largest quantisation factors and output scale a file may declare: the
/// accumulators are i16, so a larger `qa` could never be reached, and
/// bounds on all three keep the output's arithmetic far from overflow.
pub const MAX_QUANT: i32 = 32767;
pub const MAX_SCALE: i32 = 100_000;
/// Bytes before the provenance text in version 1: magic, version, layout
/// hash, inputs, hidden, activation, qa, qb, scale, provenance length
/// (version 2 has 4 more, the bucket count).
const HEADER: usize = 4 + 4 + 8 + 4 + 4 + 1 + 4 + 4 + 4 + 4;

/// The activation applied to each accumulator value, clamped to `0..=qa`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    ClippedRelu,
    SquaredClippedRelu,
}

impl Activation {
    fn code(self) -> u8 {
        match self {
            Activation::ClippedRelu => 0,
            Activation::SquaredClippedRelu => 1,
        }
    }
    fn from_code(code: u8) -> Option<Activation> {
        match code {
            0 => Some(Activation::ClippedRelu),
            1 => Some(Activation::SquaredClippedRelu),
            _ => None,
        }
    }
}

/// A quantised network (inputs -> hidden) x 2 perspectives -> 1, the
/// output layer once per output bucket (see
/// [`output_bucket`](super::features::output_bucket)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    pub layout_hash: u64,
    pub inputs: u32,
    pub hidden: u32,
    pub activation: Activation,
    /// Accumulator quantisation (e.g. 255).
    pub qa: i32,
    /// Output weight quantisation (e.g. 64).
    pub qb: i32,
    /// Output centipawn scale (e.g. 400).
    pub scale: i32,
    /// Output buckets, 1..=[`MAX_BUCKETS`].
    pub buckets: u32,
    /// The king buckets the inputs are laid out by (none for most nets).
    pub kings: KingBuckets,
    /// UTF-8 text: commands, seeds, data, losses.
    pub provenance: String,
    /// inputs * hidden, feature-major.
    pub feature_weights: Vec<i16>,
    /// hidden.
    pub feature_bias: Vec<i16>,
    /// buckets * 2 * hidden, bucket by bucket: side to move's half first.
    pub output_weights: Vec<i16>,
    /// One a bucket.
    pub output_bias: Vec<i32>,
}

/// Why a net file was refused; Display is a clear sentence; callers add
/// the file name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetError {
    /// The file ends before `needed` bytes (it has `len`).
    Truncated {
        needed: u64,
        len: u64,
    },
    BadMagic,
    UnsupportedVersion(u32),
    /// The net was made for another board or other men.
    LayoutMismatch {
        expected: u64,
        found: u64,
    },
    /// Inputs or hidden size zero, too large, or inputs not the layout's.
    BadSizes {
        inputs: u32,
        hidden: u32,
    },
    UnknownActivation(u8),
    /// King buckets that do not fit the variant's board, or a mirror flag
    /// other than 0 or 1 (`None`).
    BadKingBuckets(Option<KingBucketError>),
    /// A bucket count of 0 or above [`MAX_BUCKETS`].
    BadBuckets(u32),
    /// qa, qb or scale not positive or beyond the bounds.
    BadQuantisation {
        qa: i32,
        qb: i32,
        scale: i32,
    },
    ProvenanceNotUtf8,
    /// Bytes after the checksum.
    TrailingBytes {
        expected: u64,
        len: u64,
    },
    BadChecksum {
        stored: u64,
        computed: u64,
    },
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetError::Truncated { needed, len } => write!(
                f,
                "the net file is truncated: it has {len} bytes where its header needs {needed}"
            ),
            NetError::BadMagic => write!(f, "not a net file (it does not start with AMNN)"),
            NetError::UnsupportedVersion(v) => write!(
                f,
                "net file format version {v} is not supported (this build reads versions 1 to {VERSION})"
            ),
            NetError::LayoutMismatch { expected, found } => write!(
                f,
                "the net was made for other men or another board \
                 (layout hash {found:016x}, the variant's is {expected:016x})"
            ),
            NetError::BadSizes { inputs, hidden } => write!(
                f,
                "the net's sizes are impossible: {inputs} inputs, {hidden} hidden \
                 (hidden must be 1..={MAX_HIDDEN}, inputs the variant's)"
            ),
            NetError::UnknownActivation(c) => write!(f, "unknown activation code {c}"),
            NetError::BadKingBuckets(Some(e)) => {
                write!(f, "the net's king buckets are refused: {e}")
            }
            NetError::BadKingBuckets(None) => {
                write!(f, "the net's king bucket mirror flag is neither 0 nor 1")
            }
            NetError::BadBuckets(b) => write!(
                f,
                "the net's output bucket count {b} is out of range (it must be 1..={MAX_BUCKETS})"
            ),
            NetError::BadQuantisation { qa, qb, scale } => write!(
                f,
                "the net's quantisation is out of range: qa {qa}, qb {qb}, scale {scale} \
                 (qa and qb must be 1..={MAX_QUANT}, scale 1..={MAX_SCALE})"
            ),
            NetError::ProvenanceNotUtf8 => write!(f, "the net's provenance text is not UTF-8"),
            NetError::TrailingBytes { expected, len } => write!(
                f,
                "the net file has {len} bytes where its header says {expected}"
            ),
            NetError::BadChecksum { stored, computed } => write!(
                f,
                "the net file is corrupt: checksum {stored:016x}, contents give {computed:016x}"
            ),
        }
    }
}

impl std::error::Error for NetError {}

/// Reads the file's fields in order, each read checked against its length.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], NetError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(NetError::Truncated {
                needed: self.at as u64 + n as u64,
                len: self.bytes.len() as u64,
            });
        };
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], NetError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u32(&mut self) -> Result<u32, NetError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn i32(&mut self) -> Result<i32, NetError> {
        Ok(i32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, NetError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    /// `n` i16 values; the caller has checked that the file holds them.
    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, NetError> {
        let bytes = self.take(n.saturating_mul(2))?;
        Ok(bytes
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
}

impl Network {
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        let mut r = Reader { bytes, at: 0 };
        let magic = r.take(4).map_err(|e| match e {
            // A short prefix that already differs is not a net file at all.
            _ if !MAGIC.starts_with(bytes) => NetError::BadMagic,
            e => e,
        })?;
        if magic != MAGIC {
            return Err(NetError::BadMagic);
        }
        let version = r.u32()?;
        if !(1..=VERSION).contains(&version) {
            return Err(NetError::UnsupportedVersion(version));
        }
        let layout_hash = r.u64()?;
        let inputs = r.u32()?;
        let hidden = r.u32()?;
        if inputs == 0 || hidden == 0 || hidden > MAX_HIDDEN {
            return Err(NetError::BadSizes { inputs, hidden });
        }
        let [code] = r.array()?;
        let activation = Activation::from_code(code).ok_or(NetError::UnknownActivation(code))?;
        let (qa, qb, scale) = (r.i32()?, r.i32()?, r.i32()?);
        if !(1..=MAX_QUANT).contains(&qa)
            || !(1..=MAX_QUANT).contains(&qb)
            || !(1..=MAX_SCALE).contains(&scale)
        {
            return Err(NetError::BadQuantisation { qa, qb, scale });
        }
        let buckets = if version >= 2 { r.u32()? } else { 1 };
        if !(1..=MAX_BUCKETS).contains(&buckets) {
            return Err(NetError::BadBuckets(buckets));
        }
        let kings = if version >= 3 {
            let mirror = match r.array::<1>()? {
                [0] => false,
                [1] => true,
                _ => return Err(NetError::BadKingBuckets(None)),
            };
            let len = r.u32()?;
            // Taken from the bytes there are: a length beyond them is a
            // truncated file, found before anything is allocated.
            let map = r.take(len as usize)?.to_vec();
            KingBuckets::from_parts(map, mirror).map_err(|e| NetError::BadKingBuckets(Some(e)))?
        } else {
            KingBuckets::none()
        };
        let provenance_len = r.u32()?;
        // The whole file's length, from the header, in u64 (no overflow):
        // checked before any allocation, so a bad header cannot ask for
        // more memory than the file itself holds.
        let (n_in, n_hid, n_b) = (inputs as u64, hidden as u64, buckets as u64);
        // The header ends where the provenance begins.
        let expected = r.at as u64
            + provenance_len as u64
            + 2 * (n_in * n_hid + n_hid + n_b * 2 * n_hid)
            + 4 * n_b
            + 8;
        let len = bytes.len() as u64;
        if len < expected {
            return Err(NetError::Truncated {
                needed: expected,
                len,
            });
        }
        if len > expected {
            return Err(NetError::TrailingBytes { expected, len });
        }
        let body = expected as usize - 8;
        let computed = fnv1a(&bytes[..body]);
        let stored =
            u64::from_le_bytes(bytes[body..].try_into().map_err(|_| NetError::Truncated {
                needed: expected,
                len,
            })?);
        if stored != computed {
            return Err(NetError::BadChecksum { stored, computed });
        }
        let provenance = String::from_utf8(r.take(provenance_len as usize)?.to_vec())
            .map_err(|_| NetError::ProvenanceNotUtf8)?;
        let (ni, nh) = (inputs as usize, hidden as usize);
        let feature_weights = r.i16s(ni * nh)?;
        let feature_bias = r.i16s(nh)?;
        let output_weights = r.i16s(buckets as usize * 2 * nh)?;
        let output_bias = (0..buckets)
            .map(|_| r.i32())
            .collect::<Result<Vec<i32>, NetError>>()?;
        Ok(Network {
            layout_hash,
            inputs,
            hidden,
            activation,
            qa,
            qb,
            scale,
            buckets,
            kings,
            provenance,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        })
    }

    /// The file's bytes: version 1 for a net of one bucket (the file a
    /// build without buckets writes), version 2 for more, version 3 with
    /// king buckets.
    pub fn to_bytes(&self) -> Vec<u8> {
        let version: u32 = match (self.kings.is_none(), self.buckets) {
            (false, _) => 3,
            (true, 1) => 1,
            (true, _) => 2,
        };
        let mut out = Vec::with_capacity(
            HEADER
                + 9
                + self.kings.map().len()
                + self.provenance.len()
                + 2 * (self.feature_weights.len()
                    + self.feature_bias.len()
                    + self.output_weights.len())
                + 4 * self.output_bias.len()
                + 8,
        );
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&self.layout_hash.to_le_bytes());
        out.extend_from_slice(&self.inputs.to_le_bytes());
        out.extend_from_slice(&self.hidden.to_le_bytes());
        out.push(self.activation.code());
        for x in [self.qa, self.qb, self.scale] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        if version >= 2 {
            out.extend_from_slice(&self.buckets.to_le_bytes());
        }
        if version >= 3 {
            out.push(u8::from(self.kings.mirror()));
            out.extend_from_slice(&(self.kings.map().len() as u32).to_le_bytes());
            out.extend_from_slice(self.kings.map());
        }
        out.extend_from_slice(&(self.provenance.len() as u32).to_le_bytes());
        out.extend_from_slice(self.provenance.as_bytes());
        for w in self
            .feature_weights
            .iter()
            .chain(&self.feature_bias)
            .chain(&self.output_weights)
        {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.output_bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Whether the net was made for `layout`: its hash, its king buckets
    /// and input count.
    pub fn check_layout(&self, layout: &Layout) -> Result<(), NetError> {
        if self.layout_hash != layout.hash() {
            return Err(NetError::LayoutMismatch {
                expected: layout.hash(),
                found: self.layout_hash,
            });
        }
        if &self.kings != layout.kings() {
            return Err(NetError::BadSizes {
                inputs: self.inputs,
                hidden: self.hidden,
            });
        }
        if self.inputs as usize != layout.inputs() {
            return Err(NetError::BadSizes {
                inputs: self.inputs,
                hidden: self.hidden,
            });
        }
        Ok(())
    }

    /// A network of small random weights for `layout`, for tests and tools:
    /// the same seed gives the same net. Its accumulators stay far inside
    /// i16 for any position of up to 512 men.
    pub fn random(layout: &Layout, hidden: u32, seed: u64) -> Network {
        Network::random_with_buckets(layout, hidden, 1, seed)
    }

    /// [`Network::random`] with `buckets` output buckets (of one bucket,
    /// the same net).
    pub fn random_with_buckets(layout: &Layout, hidden: u32, buckets: u32, seed: u64) -> Network {
        let mut rng = crate::util::rng::Rng::new(seed);
        let mut small = |bound: u64| (rng.next_u64() % (2 * bound + 1)) as i16 - bound as i16;
        let inputs = layout.inputs();
        let h = hidden as usize;
        Network {
            provenance: format!("random net, seed {seed}"),
            feature_weights: (0..inputs * h).map(|_| small(40)).collect(),
            feature_bias: (0..h).map(|_| small(200)).collect(),
            output_weights: (0..buckets as usize * 2 * h).map(|_| small(64)).collect(),
            output_bias: (0..buckets).map(|_| i32::from(small(1000)) * 64).collect(),
            ..Network::zeroed(
                layout,
                hidden,
                Activation::ClippedRelu,
                [255, 64, 400],
                buckets,
            )
        }
    }

    /// A network for `layout` of `hidden` neurons with `activation`, the
    /// quantisation `[qa, qb, scale]` and `buckets` output buckets, every
    /// weight zero and no provenance: the frame that the trainer fills in.
    pub fn zeroed(
        layout: &Layout,
        hidden: u32,
        activation: Activation,
        [qa, qb, scale]: [i32; 3],
        buckets: u32,
    ) -> Network {
        let (inputs, h) = (layout.inputs(), hidden as usize);
        Network {
            layout_hash: layout.hash(),
            inputs: inputs as u32,
            hidden,
            activation,
            qa,
            qb,
            scale,
            buckets,
            kings: layout.kings().clone(),
            provenance: String::new(),
            feature_weights: vec![0; inputs * h],
            feature_bias: vec![0; h],
            output_weights: vec![0; buckets as usize * 2 * h],
            output_bias: vec![0; buckets as usize],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant_set::VariantSet;

    fn layout() -> Layout {
        let set = VariantSet::builtin();
        Layout::new(&set.compile("chess").expect("chess"))
    }

    fn net() -> Network {
        let mut n = Network::random(&layout(), 8, 3);
        n.provenance = "trained on nothing, é".to_string();
        n
    }

    /// Writes `bytes` back with a fresh checksum, after `edit` changed them.
    fn resealed(mut bytes: Vec<u8>, edit: impl Fn(&mut Vec<u8>)) -> Vec<u8> {
        bytes.truncate(bytes.len() - 8);
        edit(&mut bytes);
        let sum = fnv1a(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        bytes
    }

    #[test]
    fn round_trip() {
        for act in [Activation::ClippedRelu, Activation::SquaredClippedRelu] {
            let mut n = net();
            n.activation = act;
            n.output_bias = vec![-123_456];
            let bytes = n.to_bytes();
            assert_eq!(Network::from_bytes(&bytes), Ok(n.clone()));
            assert_eq!(Network::from_bytes(&bytes).map(|m| m.to_bytes()), Ok(bytes));
        }
    }

    /// A net of several buckets is written as version 2 with its bucket
    /// count after the scale, and read back as it was; one of a single
    /// bucket stays version 1.
    #[test]
    fn bucketed_nets_round_trip_as_version_2() {
        for buckets in [2, 4, MAX_BUCKETS] {
            let mut n = Network::random_with_buckets(&layout(), 8, buckets, 5);
            n.activation = Activation::SquaredClippedRelu;
            assert_eq!(n.output_weights.len(), buckets as usize * 16);
            assert_eq!(n.output_bias.len(), buckets as usize);
            let b = n.to_bytes();
            assert_eq!(b[4..8], 2u32.to_le_bytes());
            assert_eq!(b[37..41], buckets.to_le_bytes());
            assert_eq!(b[41..45], (n.provenance.len() as u32).to_le_bytes());
            let end = b.len() - 8;
            assert_eq!(
                b[end - 4..end],
                n.output_bias[buckets as usize - 1].to_le_bytes()
            );
            assert_eq!(Network::from_bytes(&b), Ok(n.clone()));
            assert_eq!(Network::from_bytes(&b).map(|m| m.to_bytes()), Ok(b));
        }
        let one = Network::random_with_buckets(&layout(), 8, 1, 3);
        assert_eq!(one, Network::random(&layout(), 8, 3));
        assert_eq!(one.to_bytes()[4..8], 1u32.to_le_bytes());
    }

    /// A version 1 file is a net of one bucket; the same net written as
    /// version 2 (its bucket count 1) reads as the same net.
    #[test]
    fn version_1_files_read_as_one_bucket() {
        let n = net();
        let v1 = n.to_bytes();
        let read = Network::from_bytes(&v1).expect("version 1");
        assert_eq!((read.buckets, read.output_bias.len()), (1, 1));
        let v2 = resealed(v1.clone(), |b| {
            b[4..8].copy_from_slice(&2u32.to_le_bytes());
            b.splice(37..37, 1u32.to_le_bytes());
        });
        assert_eq!(Network::from_bytes(&v2), Ok(read));
    }

    /// A net with king buckets is written as version 3, the buckets after
    /// the output bucket count, and read back as it was; a bad mirror
    /// flag, a bucket beyond the most, a map longer than the file and a
    /// file cut anywhere in the king buckets are refused.
    #[test]
    fn king_buckets_round_trip_and_bad_ones_are_refused() {
        let set = VariantSet::builtin();
        let v = set.compile("chess").expect("chess");
        let kings = KingBuckets::preset(4, 8, 8).expect("preset");
        let layout = Layout::new(&v).with_kings(kings.clone()).expect("kings");
        let n = Network::random_with_buckets(&layout, 8, 2, 9);
        assert_eq!(n.kings, kings);
        assert_eq!(n.inputs as usize, 4 * Layout::new(&v).inputs());
        let bytes = n.to_bytes();
        assert_eq!(bytes[4..8], 3u32.to_le_bytes());
        assert_eq!(bytes[37..41], 2u32.to_le_bytes());
        assert_eq!(bytes[41], 1);
        assert_eq!(bytes[42..46], 64u32.to_le_bytes());
        assert_eq!(&bytes[46..110], kings.map());
        assert_eq!(Network::from_bytes(&bytes), Ok(n.clone()));
        assert_eq!(
            Network::from_bytes(&bytes).map(|m| m.to_bytes()),
            Ok(bytes.clone())
        );
        let b = resealed(bytes.clone(), |b| b[41] = 2);
        assert_eq!(Network::from_bytes(&b), Err(NetError::BadKingBuckets(None)));
        let b = resealed(bytes.clone(), |b| b[50] = 16);
        assert_eq!(
            Network::from_bytes(&b),
            Err(NetError::BadKingBuckets(Some(KingBucketError::TooMany(16))))
        );
        let b = resealed(bytes.clone(), |b| {
            b[42..46].copy_from_slice(&u32::MAX.to_le_bytes())
        });
        assert!(matches!(
            Network::from_bytes(&b),
            Err(NetError::Truncated { .. })
        ));
        for cut in [42, 45, 46, 100, 110] {
            assert!(
                matches!(
                    Network::from_bytes(&bytes[..cut]),
                    Err(NetError::Truncated { .. })
                ),
                "cut {cut}"
            );
        }
        // Without king buckets the same net is version 2, and the plain
        // layout refuses the net with them.
        let plain = Network {
            kings: KingBuckets::none(),
            ..Network::random_with_buckets(&Layout::new(&v), 8, 2, 9)
        };
        assert_eq!(plain.to_bytes()[4..8], 2u32.to_le_bytes());
        assert!(n.check_layout(&Layout::new(&v)).is_err());
        assert_eq!(n.check_layout(&layout), Ok(()));
    }

    /// A bucket count of 0 or above the most is refused, and so is a file
    /// cut anywhere or too short for the buckets its header gives.
    #[test]
    fn bad_bucket_counts_and_truncated_bucketed_files_are_refused() {
        let bytes = Network::random_with_buckets(&layout(), 8, 4, 5).to_bytes();
        for bad in [0, MAX_BUCKETS + 1, u32::MAX] {
            let b = resealed(bytes.clone(), |b| {
                b[37..41].copy_from_slice(&bad.to_le_bytes())
            });
            assert_eq!(Network::from_bytes(&b), Err(NetError::BadBuckets(bad)));
        }
        for cut in [
            38,
            41,
            45,
            bytes.len() / 2,
            bytes.len() - 20,
            bytes.len() - 1,
        ] {
            assert!(
                matches!(
                    Network::from_bytes(&bytes[..cut]),
                    Err(NetError::Truncated { .. })
                ),
                "cut {cut}"
            );
        }
        // More buckets than the file holds weights for.
        let b = resealed(bytes.clone(), |b| {
            b[37..41].copy_from_slice(&MAX_BUCKETS.to_le_bytes())
        });
        assert!(matches!(
            Network::from_bytes(&b),
            Err(NetError::Truncated { .. })
        ));
        // Fewer: bytes left over.
        let b = resealed(bytes, |b| b[37..41].copy_from_slice(&2u32.to_le_bytes()));
        assert!(matches!(
            Network::from_bytes(&b),
            Err(NetError::TrailingBytes { .. })
        ));
    }

    #[test]
    fn the_header_is_laid_out_as_documented() {
        let n = net();
        let b = n.to_bytes();
        assert_eq!(&b[0..4], b"AMNN");
        assert_eq!(b[4..8], 1u32.to_le_bytes());
        assert_eq!(b[8..16], n.layout_hash.to_le_bytes());
        assert_eq!(b[16..20], n.inputs.to_le_bytes());
        assert_eq!(b[20..24], 8u32.to_le_bytes());
        assert_eq!(b[24], 0);
        assert_eq!(b[25..29], 255i32.to_le_bytes());
        assert_eq!(b[29..33], 64i32.to_le_bytes());
        assert_eq!(b[33..37], 400i32.to_le_bytes());
        assert_eq!(b[37..41], (n.provenance.len() as u32).to_le_bytes());
        let end = b.len() - 8;
        assert_eq!(b[end..], fnv1a(&b[..end]).to_le_bytes());
        assert_eq!(b[end - 4..end], n.output_bias[0].to_le_bytes());
    }

    #[test]
    fn truncated_files_are_refused_at_every_cut() {
        let bytes = net().to_bytes();
        let cuts = [0, 3, 4, 7, 10, 20, 24, 30, 40, 41, 50, 500, bytes.len() - 9];
        for cut in cuts.into_iter().chain(bytes.len() - 8..bytes.len()) {
            match Network::from_bytes(&bytes[..cut]) {
                Err(NetError::Truncated { needed, len }) => {
                    assert_eq!(len, cut as u64);
                    assert!(needed > len, "cut {cut}");
                }
                other => panic!("cut {cut}: {other:?}"),
            }
        }
    }

    #[test]
    fn wrong_magic_and_version_are_refused() {
        let bytes = net().to_bytes();
        let mut b = bytes.clone();
        b[0] = b'X';
        assert_eq!(Network::from_bytes(&b), Err(NetError::BadMagic));
        assert_eq!(Network::from_bytes(b"PK"), Err(NetError::BadMagic));
        assert_eq!(Network::from_bytes(b"{\"a\": 1}"), Err(NetError::BadMagic));
        for v in [0, VERSION + 1] {
            let b = resealed(bytes.clone(), |b| {
                b[4..8].copy_from_slice(&u32::to_le_bytes(v))
            });
            assert_eq!(
                Network::from_bytes(&b),
                Err(NetError::UnsupportedVersion(v))
            );
        }
    }

    #[test]
    fn bad_checksums_and_flipped_bits_are_refused() {
        let bytes = net().to_bytes();
        for at in [45, bytes.len() / 2, bytes.len() - 10, bytes.len() - 1] {
            let mut b = bytes.clone();
            b[at] ^= 0x10;
            assert!(
                matches!(Network::from_bytes(&b), Err(NetError::BadChecksum { .. })),
                "byte {at}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            Network::from_bytes(&longer),
            Err(NetError::TrailingBytes { .. })
        ));
    }

    /// Absurd sizes are refused from the header alone, before any allocation
    /// (a header asking for gigabytes answers at once, as truncated).
    #[test]
    fn absurd_sizes_are_refused() {
        let bytes = net().to_bytes();
        let set = |at: usize, v: u32| {
            resealed(bytes.clone(), move |b| {
                b[at..at + 4].copy_from_slice(&v.to_le_bytes())
            })
        };
        for (inputs, hidden) in [(0, 8), (768, 0), (768, 4097), (768, u32::MAX)] {
            let b = resealed(bytes.clone(), |b| {
                b[16..20].copy_from_slice(&u32::to_le_bytes(inputs));
                b[20..24].copy_from_slice(&u32::to_le_bytes(hidden));
            });
            assert_eq!(
                Network::from_bytes(&b),
                Err(NetError::BadSizes { inputs, hidden })
            );
        }
        for b in [set(16, u32::MAX), set(20, 4096), set(37, u32::MAX)] {
            assert!(
                matches!(Network::from_bytes(&b), Err(NetError::Truncated { .. })),
                "{:?}",
                Network::from_bytes(&b)
            );
        }
        let b = set(16, 1);
        assert!(matches!(
            Network::from_bytes(&b),
            Err(NetError::TrailingBytes { .. })
        ));
        for (at, v) in [
            (25, 0),
            (29, -1i32 as u32),
            (33, 0),
            (25, 40_000),
            (33, 200_000),
        ] {
            assert!(matches!(
                Network::from_bytes(&set(at, v)),
                Err(NetError::BadQuantisation { .. })
            ));
        }
        let b = resealed(bytes.clone(), |b| b[24] = 7);
        assert_eq!(Network::from_bytes(&b), Err(NetError::UnknownActivation(7)));
    }

    #[test]
    fn bad_provenance_and_layout_are_refused() {
        let n = net();
        let b = resealed(n.to_bytes(), |b| b[41] = 0xff);
        assert_eq!(Network::from_bytes(&b), Err(NetError::ProvenanceNotUtf8));
        assert_eq!(n.check_layout(&layout()), Ok(()));
        let set = VariantSet::builtin();
        let other = Layout::new(&set.compile("combination").expect("combination"));
        assert!(matches!(
            n.check_layout(&other),
            Err(NetError::LayoutMismatch { .. })
        ));
        let mut wrong = n.clone();
        wrong.inputs += 1;
        assert!(matches!(
            wrong.check_layout(&layout()),
            Err(NetError::BadSizes { .. })
        ));
    }

    #[test]
    fn every_refusal_reads_as_a_sentence() {
        let errors = [
            NetError::Truncated { needed: 9, len: 3 },
            NetError::BadMagic,
            NetError::UnsupportedVersion(9),
            NetError::LayoutMismatch {
                expected: 1,
                found: 2,
            },
            NetError::BadSizes {
                inputs: 0,
                hidden: 0,
            },
            NetError::UnknownActivation(3),
            NetError::BadBuckets(17),
            NetError::BadKingBuckets(None),
            NetError::BadKingBuckets(Some(KingBucketError::TooMany(16))),
            NetError::BadQuantisation {
                qa: 0,
                qb: 0,
                scale: 0,
            },
            NetError::ProvenanceNotUtf8,
            NetError::TrailingBytes {
                expected: 1,
                len: 2,
            },
            NetError::BadChecksum {
                stored: 1,
                computed: 2,
            },
        ];
        let texts: std::collections::HashSet<String> =
            errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(texts.len(), errors.len());
        assert!(texts.iter().all(|t| t.len() > 20 && !t.ends_with('.')));
    }
}
