//! The checkpoint of a run: after each epoch (and where a stop ends one
//! between two batches) everything the next batch needs, so that a run
//! resumed from it writes the very net an uninterrupted run would have
//! written: the float weights, Adam's moments and step count, the shuffle
//! stream's state and the last shuffle's order, the finished epochs, the
//! best epoch's weights, the starting losses, and the schedule it ran by.
//!
//! A fingerprint of what the run must match to go on (the variant and its
//! feature layout, the architecture, the settings that change the result,
//! the data files' names and sizes, the positions and batch) is kept as
//! `name: value` lines, so that a mismatch names what differs.
//!
//! All numbers are little-endian:
//!
//! ```text
//! file   MAGIC (8 bytes) | VERSION u16 | block...
//! block  payload length u64 | payload | FNV-1a hash of the payload u64
//! blocks fingerprint text | schedule and counters | weights (f32s)
//!        | Adam's first moments | Adam's second moments
//!        | training order (u32s) | best epoch (empty where none)
//! ```
//!
//! Each block's hash finds a damaged one; the error names its offset.

use super::adam::{Adam, AdamSettings};
use super::error::{CheckpointError, OutputError};
use super::events::Epoch;
use super::fit::{FitState, Partial};
use super::model::{Model, Shape};
use super::output::PendingNet;
use super::schedule::{Decay, Schedule};
use crate::util::hash::fnv1a;
use crate::util::rng::Rng;

/// The file's first bytes.
pub const MAGIC: [u8; 8] = *b"AMGCKPT\x1a";
/// The version written and read.
pub const VERSION: u16 = 1;

/// What a run must match to resume a checkpoint, as named lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint(pub Vec<(String, String)>);

/// Lines that builds before them did not write, with the value their
/// checkpoints had: such a checkpoint lacks the line and reads as that.
const LINES_ADDED: [(&str, &str); 1] = [("output buckets", "1")];

impl Fingerprint {
    /// The first of `now`'s lines that this (saved) fingerprint has
    /// otherwise (or lacks).
    pub fn check(&self, now: &Fingerprint, file: &str) -> Result<(), CheckpointError> {
        for (name, current) in &now.0 {
            let before = LINES_ADDED.iter().find(|(n, _)| n == name);
            let saved = self
                .0
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
                .or(before.map(|(_, v)| *v))
                .unwrap_or("not there");
            if saved != current {
                return Err(CheckpointError::Mismatch {
                    file: file.to_string(),
                    what: name.clone(),
                    saved: saved.to_string(),
                    now: current.clone(),
                });
            }
        }
        Ok(())
    }

    fn text(&self) -> String {
        self.0.iter().map(|(n, v)| format!("{n}: {v}\n")).collect()
    }

    fn parse(text: &str) -> Option<Fingerprint> {
        text.lines()
            .map(|l| {
                l.split_once(": ")
                    .map(|(n, v)| (n.to_string(), v.to_string()))
            })
            .collect::<Option<Vec<_>>>()
            .map(Fingerprint)
    }
}

/// A block's payload as it is written.
#[derive(Default)]
struct Payload(Vec<u8>);

impl Payload {
    fn u64(&mut self, x: u64) {
        self.0.extend(x.to_le_bytes());
    }
    fn f64(&mut self, x: f64) {
        self.u64(x.to_bits());
    }
    fn f32s(&mut self, xs: &[f32]) {
        self.0.reserve(4 * xs.len());
        for x in xs {
            self.0.extend(x.to_bits().to_le_bytes());
        }
    }
    fn u32s(&mut self, xs: &[u32]) {
        self.0.reserve(4 * xs.len());
        for x in xs {
            self.0.extend(x.to_le_bytes());
        }
    }
    fn loss(&mut self, x: Option<f64>) {
        self.u64(u64::from(x.is_some()));
        self.f64(x.unwrap_or(0.0));
    }
}

/// The checkpoint's bytes for `state`, run by `schedule`.
pub fn to_bytes(fingerprint: &Fingerprint, schedule: &Schedule, state: &FitState) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend(VERSION.to_le_bytes());
    let mut block = |p: Payload| {
        out.extend((p.0.len() as u64).to_le_bytes());
        out.extend(&p.0);
        out.extend(fnv1a(&p.0).to_le_bytes());
    };
    block(Payload(fingerprint.text().into_bytes()));

    let mut c = Payload::default();
    c.u64(schedule.epochs() as u64);
    c.u64(u64::from(schedule.rate().to_bits()));
    match schedule.decay() {
        Decay::Step { drop_epochs } => {
            c.u64(0);
            c.u64(drop_epochs as u64);
        }
        Decay::Cosine { last } => {
            c.u64(1);
            c.u64(u64::from(last.to_bits()));
        }
    }
    c.u64(schedule.warmup() as u64);
    let (m, v, steps) = state.adam.moments();
    c.u64(steps as u64);
    c.u64(state.rng.state());
    let before = state.before.unwrap_or((0.0, None));
    c.f64(before.0);
    c.loss(before.1);
    let partial = state.partial.unwrap_or(Partial {
        batches: 0,
        loss: 0.0,
    });
    c.u64(partial.batches as u64);
    c.f64(partial.loss);
    c.u64(state.epochs.len() as u64);
    for e in &state.epochs {
        c.u64(e.number as u64);
        c.f64(e.train_loss);
        c.loss(e.validation_loss);
        c.f64(e.seconds);
        c.u64(e.positions as u64);
        c.u64(e.threads as u64);
    }
    block(c);

    for floats in [&state.model.weights[..], m, v] {
        let mut p = Payload::default();
        p.f32s(floats);
        block(p);
    }
    let mut p = Payload::default();
    p.u32s(&state.train);
    block(p);
    let mut p = Payload::default();
    if let Some((number, loss, weights)) = &state.best {
        p.u64(*number as u64);
        p.f64(*loss);
        p.f32s(weights);
    }
    block(p);
    out
}

/// Write the checkpoint `bytes` to `path` whole: to a file beside it,
/// renamed over it.
pub fn write(path: &str, bytes: &[u8]) -> Result<(), OutputError> {
    PendingNet::create(path)?.commit(bytes)
}

/// Reads a checkpoint's bytes, every read checked.
struct Reader<'a> {
    file: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn damaged(&self, at: usize, message: impl Into<String>) -> CheckpointError {
        CheckpointError::Damaged {
            file: self.file.to_string(),
            offset: at as u64,
            message: message.into(),
        }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], CheckpointError> {
        let slice = self
            .at
            .checked_add(n)
            .and_then(|end| self.bytes.get(self.at..end))
            .ok_or_else(|| self.damaged(self.at, format!("the file ends inside {what}")))?;
        self.at += n;
        Ok(slice)
    }

    fn u64(&mut self, what: &str) -> Result<u64, CheckpointError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8, what)?);
        Ok(u64::from_le_bytes(a))
    }

    /// The next block's payload, checked against its hash.
    fn block(&mut self, what: &'static str) -> Result<Block<'a>, CheckpointError> {
        let start = self.at;
        let len = usize::try_from(self.u64(what)?)
            .map_err(|_| self.damaged(start, format!("{what}: a length beyond memory")))?;
        let at = self.at;
        let payload = self.take(len, what)?;
        if self.u64(what)? != fnv1a(payload) {
            return Err(self.damaged(start, format!("{what} do not match their hash")));
        }
        Ok(Block {
            what,
            inner: Reader {
                file: self.file,
                bytes: payload,
                at: 0,
            },
            base: at,
        })
    }
}

/// One block's payload, read field by field; `base` is its offset.
struct Block<'a> {
    what: &'static str,
    inner: Reader<'a>,
    base: usize,
}

impl Block<'_> {
    fn wrong(&self, message: &str) -> CheckpointError {
        self.inner.damaged(
            self.base + self.inner.at,
            format!("{}: {message}", self.what),
        )
    }
    fn u64(&mut self) -> Result<u64, CheckpointError> {
        self.inner
            .u64(self.what)
            .map_err(|_| self.wrong("too short"))
    }
    fn count(&mut self) -> Result<usize, CheckpointError> {
        let n = self.u64()?;
        usize::try_from(n).map_err(|_| self.wrong("a count beyond memory"))
    }
    fn f64(&mut self) -> Result<f64, CheckpointError> {
        Ok(f64::from_bits(self.u64()?))
    }
    fn f32(&mut self) -> Result<f32, CheckpointError> {
        let bits = u32::try_from(self.u64()?).map_err(|_| self.wrong("not a 32-bit number"))?;
        Ok(f32::from_bits(bits))
    }
    fn loss(&mut self) -> Result<Option<f64>, CheckpointError> {
        let some = self.u64()? != 0;
        let x = self.f64()?;
        Ok(some.then_some(x))
    }
    fn words(&mut self) -> Result<Vec<u32>, CheckpointError> {
        let rest = &self.inner.bytes[self.inner.at..];
        if !rest.len().is_multiple_of(4) {
            return Err(self.wrong("not whole 4-byte numbers"));
        }
        self.inner.at = self.inner.bytes.len();
        Ok(rest
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }
    fn floats(&mut self, n: usize) -> Result<Vec<f32>, CheckpointError> {
        let words = self.words()?;
        if words.len() != n {
            return Err(self.wrong(&format!("{} numbers, not the {n} expected", words.len())));
        }
        Ok(words.into_iter().map(f32::from_bits).collect())
    }
    fn done(&self) -> Result<(), CheckpointError> {
        if self.inner.at == self.inner.bytes.len() {
            Ok(())
        } else {
            Err(self.wrong("bytes left over"))
        }
    }
}

/// A checkpoint read back: what it must match, the schedule it ran by,
/// and the state to go on from.
pub struct Saved {
    pub fingerprint: Fingerprint,
    pub schedule: Schedule,
    pub state: FitState,
}

impl Saved {
    /// The state, if `schedule` goes on as the checkpoint's went: as many
    /// epochs at least as were done or begun, and the same step size at
    /// every step of them (`steps_per_epoch` steps an epoch).
    pub fn go_on(
        self,
        schedule: &Schedule,
        steps_per_epoch: usize,
        file: &str,
    ) -> Result<FitState, CheckpointError> {
        let begun = self.state.epochs.len() + usize::from(self.state.partial.is_some());
        if begun > schedule.epochs() {
            return Err(CheckpointError::BeyondEpochs {
                file: file.to_string(),
                done: begun,
                epochs: schedule.epochs(),
            });
        }
        if let Some(epoch) = self
            .schedule
            .first_difference(schedule, begun, steps_per_epoch)
        {
            return Err(CheckpointError::Schedule {
                file: file.to_string(),
                epoch,
            });
        }
        Ok(self.state)
    }
}

/// The fingerprint of the checkpoint `file`'s bytes, checked first: a
/// run refuses a checkpoint of other options before it reads its data.
pub fn fingerprint(bytes: &[u8], file: &str) -> Result<Fingerprint, CheckpointError> {
    header(bytes, file).map(|(f, _)| f)
}

/// The header and fingerprint block, and where the reading goes on.
fn header<'a>(
    bytes: &'a [u8],
    file: &'a str,
) -> Result<(Fingerprint, Reader<'a>), CheckpointError> {
    let mut r = Reader { file, bytes, at: 0 };
    if r.take(MAGIC.len(), "the header")
        .map_or(true, |m| m != MAGIC)
    {
        return Err(r.damaged(0, "not a checkpoint of amalgam train"));
    }
    let version = r.take(2, "the header")?;
    let version = u16::from_le_bytes([version[0], version[1]]);
    if version != VERSION {
        return Err(r.damaged(
            MAGIC.len(),
            format!("checkpoint version {version}; this build reads version {VERSION}"),
        ));
    }
    let fp = r.block("the fingerprint")?;
    let fingerprint = std::str::from_utf8(fp.inner.bytes)
        .ok()
        .and_then(Fingerprint::parse)
        .ok_or_else(|| fp.wrong("not lines of 'name: value'"))?;
    Ok((fingerprint, r))
}

/// The checkpoint `file`'s bytes read back for a network of `shape`
/// trained on the positions `train` (in file order).
pub fn from_bytes(
    bytes: &[u8],
    file: &str,
    shape: Shape,
    train: &[u32],
) -> Result<Saved, CheckpointError> {
    let (fingerprint, mut r) = header(bytes, file)?;
    let mut c = r.block("the counters")?;
    let epochs = c.count()?;
    let rate = c.f32()?;
    let schedule = match c.u64()? {
        0 => {
            let drop = c.count()?;
            Schedule::new(epochs, rate, drop)
        }
        1 => {
            let last = c.f32()?;
            Schedule::new(epochs, rate, 0).and_then(|s| s.cosine(Some(last)))
        }
        _ => return Err(c.wrong("an unknown schedule")),
    }
    .map_err(|e| c.wrong(&format!("a schedule refused: {e}")))?;
    let schedule = schedule.with_warmup(c.count()?);
    let steps = i32::try_from(c.u64()?).map_err(|_| c.wrong("too many Adam steps"))?;
    let rng = Rng::new(c.u64()?);
    let before = (c.f64()?, c.loss()?);
    let batches = c.count()?;
    let loss = c.f64()?;
    let partial = (batches > 0).then_some(Partial { batches, loss });
    let done = c.count()?;
    if done > epochs {
        return Err(c.wrong("more epochs done than the schedule has"));
    }
    let mut records = Vec::with_capacity(done);
    for _ in 0..done {
        records.push(Epoch {
            number: c.count()?,
            train_loss: c.f64()?,
            validation_loss: c.loss()?,
            seconds: c.f64()?,
            positions: c.count()?,
            threads: c.count()?,
        });
    }
    c.done()?;

    let size = shape.size();
    let weights = r.block("the weights")?.floats(size)?;
    let m = r.block("Adam's first moments")?.floats(size)?;
    let v = r.block("Adam's second moments")?.floats(size)?;
    let mut order = r.block("the training order")?;
    let order_read = order.words()?;
    let mut sorted = order_read.clone();
    sorted.sort_unstable();
    if sorted != train {
        return Err(order.wrong(&format!(
            "not an order of this run's {} training positions",
            train.len()
        )));
    }
    let mut b = r.block("the best epoch")?;
    let best = if b.inner.bytes.is_empty() {
        None
    } else {
        let number = b.count()?;
        let loss = b.f64()?;
        Some((number, loss, b.floats(size)?))
    };
    if r.at != bytes.len() {
        return Err(r.damaged(r.at, "bytes after the last block"));
    }
    let state = FitState::restore(
        Model { shape, weights },
        Adam::restore(AdamSettings::default(), m, v, steps),
        rng,
        order_read,
        records,
        best,
        before,
        partial,
    );
    Ok(Saved {
        fingerprint,
        schedule,
        state,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(pairs: &[(&str, &str)]) -> Fingerprint {
        Fingerprint(
            pairs
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
        )
    }

    /// A checkpoint of a build before the output buckets (no such line) is
    /// one of one bucket; one of another bucket count is refused, naming it.
    #[test]
    fn a_line_added_later_reads_as_its_old_value() {
        let old = lines(&[("hidden", "16")]);
        let one = lines(&[("hidden", "16"), ("output buckets", "1")]);
        let four = lines(&[("hidden", "16"), ("output buckets", "4")]);
        assert!(old.check(&one, "f").is_ok());
        assert!(one.check(&one, "f").is_ok());
        for (saved, now) in [(&old, &four), (&one, &four), (&four, &one)] {
            match saved.check(now, "f") {
                Err(CheckpointError::Mismatch { what, .. }) => assert_eq!(what, "output buckets"),
                other => panic!("{other:?}"),
            }
        }
        let round = Fingerprint::parse(&four.text()).expect("parsed");
        assert_eq!(round, four);
    }
}
