//! The transposition table, shared by all search threads without locks:
//! each slot holds the key XOR the data and the data, so a torn write is
//! detected as a miss.

use crate::rules::types::Move;
use std::alloc::{Layout, alloc_zeroed};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Kind of bound a stored score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Upper = 1,
    Lower = 2,
    Exact = 3,
}

impl Bound {
    /// Whether a score with this bound proves the true value to lie on the
    /// score's side of `reference` (at or beyond it): always for an exact
    /// score, for a lower bound above the reference, an upper one below.
    pub fn beyond(self, score: i32, reference: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score > reference,
            Bound::Upper => score < reference,
        }
    }
}

/// A decoded table entry.
#[derive(Clone, Copy, Debug)]
pub struct TtEntry {
    pub mv: Move,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

struct Slot {
    key: AtomicU64,
    data: AtomicU64,
}

/// Tables up to this size are emptied for a new game by writing them (see
/// [`TranspositionTable::reset`]).
const RESET_BY_CLEARING_MB: usize = 256;

/// Entries are grouped in buckets of this many slots.
const BUCKET: usize = 4;

pub struct TranspositionTable {
    slots: Vec<Slot>,
    buckets: usize,
    generation: AtomicU64,
    /// Whether a search has run since the table was last empty.
    used: AtomicBool,
}

/// `n` empty slots straight from the allocator, or None when the memory is
/// refused. The system hands out zeroed pages only as they are first
/// touched, so a table of gigabytes is ready at once; writing every slot
/// here took about a second per gigabyte, during which the engine could
/// not answer its GUI.
fn zeroed_slots(n: usize) -> Option<Vec<Slot>> {
    if n == 0 {
        return Some(Vec::new());
    }
    let layout = Layout::array::<Slot>(n).ok()?;
    // SAFETY: the layout's size is not zero (n > 0 and a slot has 16 bytes).
    let ptr = unsafe { alloc_zeroed(layout) }.cast::<Slot>();
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of `n`
    // slots, which is the layout a Vec<Slot> of capacity `n` frees it with;
    // all `n` slots are initialised, since all-zero bytes are a valid Slot
    // (two AtomicU64 holding 0, the empty slot).
    Some(unsafe { Vec::from_raw_parts(ptr, n, n) })
}

// Data layout: move (32 bits) | score (16) | depth + 1 (8) | bound (2) |
// generation (6); with the key, 16 bytes a slot.
fn pack(mv: Move, score: i32, depth: i32, bound: Bound, generation: u64) -> u64 {
    (mv.0 as u64)
        | ((score as i16 as u16 as u64) << 32)
        | (((depth.clamp(-1, 126) + 1) as u64) << 48)
        | ((bound as u64) << 56)
        | ((generation & 63) << 58)
}

fn unpack(d: u64) -> Option<TtEntry> {
    let bound = match (d >> 56) & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => return None,
    };
    Some(TtEntry {
        mv: Move(d as u32),
        score: (d >> 32) as u16 as i16 as i32,
        depth: ((d >> 48) & 0xFF) as i32 - 1,
        bound,
    })
}

/// The system refused the memory for a table of `mb` megabytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableRefused {
    pub mb: usize,
}

impl std::fmt::Display for TableRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot allocate a hash table of {} MB", self.mb)
    }
}

impl std::error::Error for TableRefused {}

impl TranspositionTable {
    /// A table of about `mb` megabytes (at least one bucket).
    ///
    /// # Panics
    /// When the memory cannot be had; sizes that come from outside go
    /// through [`TranspositionTable::try_new`].
    pub fn new(mb: usize) -> TranspositionTable {
        match TranspositionTable::try_new(mb) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    /// A table of about `mb` megabytes, or an error when the system refuses
    /// the memory (the caller keeps its old table).
    pub fn try_new(mb: usize) -> Result<TranspositionTable, TableRefused> {
        let bytes = mb.max(1).saturating_mul(1024 * 1024);
        let buckets = (bytes / (16 * BUCKET)).max(1);
        let slots = zeroed_slots(buckets * BUCKET).ok_or(TableRefused { mb })?;
        Ok(TranspositionTable {
            slots,
            buckets,
            generation: AtomicU64::new(0),
            used: AtomicBool::new(false),
        })
    }

    /// Size in megabytes.
    pub fn size_mb(&self) -> usize {
        self.slots.len() * 16 / (1024 * 1024)
    }

    /// Empty every slot by writing it (which also brings every page of the
    /// table into memory).
    pub fn clear(&self) {
        for s in &self.slots {
            s.key.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Empty the table for a new game. Nothing to do when no search has used
    /// it. A small table is cleared: its pages stay in memory and are
    /// written faster than fresh ones would be brought in. A large one is
    /// replaced by fresh zeroed memory, which costs no time now; clearing it
    /// would also bring in every page that a short search never touched
    /// (about a second per gigabyte). When that memory is refused, it is
    /// cleared.
    pub fn reset(&mut self) {
        if !self.used.swap(false, Ordering::Relaxed) {
            return;
        }
        if self.size_mb() > RESET_BY_CLEARING_MB
            && let Some(slots) = zeroed_slots(self.slots.len())
        {
            self.slots = slots;
            self.generation.store(0, Ordering::Relaxed);
            return;
        }
        self.clear();
    }

    /// Start a new search (older entries become preferred victims).
    pub fn new_search(&self) {
        self.used.store(true, Ordering::Relaxed);
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, hash: u64) -> usize {
        ((hash as u128 * self.buckets as u128) >> 64) as usize * BUCKET
    }

    pub fn probe(&self, hash: u64) -> Option<TtEntry> {
        let b = self.bucket(hash);
        for s in &self.slots[b..b + BUCKET] {
            let data = s.data.load(Ordering::Relaxed);
            if s.key.load(Ordering::Relaxed) ^ data == hash {
                return unpack(data);
            }
        }
        None
    }

    pub fn store(&self, hash: u64, mv: Move, score: i32, depth: i32, bound: Bound) {
        let generation = self.generation.load(Ordering::Relaxed);
        let b = self.bucket(hash);
        let bucket = &self.slots[b..b + BUCKET];
        // Same position: keep its move when the new entry has none; replace
        // unless the old one is deeper and the new one not exact.
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, s) in bucket.iter().enumerate() {
            let data = s.data.load(Ordering::Relaxed);
            let key = s.key.load(Ordering::Relaxed) ^ data;
            if key == hash {
                let old = unpack(data);
                if let Some(old) = old {
                    if bound != Bound::Exact
                        && old.depth > depth + 2
                        && ((data >> 58) & 63) == (generation & 63)
                    {
                        return;
                    }
                    let mv = if mv == Move::NONE { old.mv } else { mv };
                    let d = pack(mv, score, depth, bound, generation);
                    s.key.store(hash ^ d, Ordering::Relaxed);
                    s.data.store(d, Ordering::Relaxed);
                    return;
                }
                victim = i;
                break;
            }
            // Prefer empty slots, then old generations, then shallow entries.
            let value = match unpack(data) {
                None => i32::MIN + 1,
                Some(e) => {
                    let age = ((generation as i32 - ((data >> 58) & 63) as i32) & 63) * 8;
                    e.depth - age
                }
            };
            if value < worst {
                worst = value;
                victim = i;
            }
        }
        let d = pack(mv, score, depth, bound, generation);
        bucket[victim].key.store(hash ^ d, Ordering::Relaxed);
        bucket[victim].data.store(d, Ordering::Relaxed);
    }

    /// Per mille of sampled slots used in the current search.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed) & 63;
        let n = self.slots.len().min(1000);
        let used = self.slots[..n]
            .iter()
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                (d >> 56) & 3 != 0 && (d >> 58) & 63 == generation
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1);
        let m = Move(0x1234_5678 & 0x0FFF_FFFF);
        tt.store(42, m, -31000, 7, Bound::Lower);
        let e = tt.probe(42).unwrap_or_else(|| panic!("stored entry"));
        assert_eq!(
            (e.mv, e.score, e.depth, e.bound),
            (m, -31000, 7, Bound::Lower)
        );
        assert!(tt.probe(43).is_none());
        tt.clear();
        assert!(tt.probe(42).is_none());
    }

    #[test]
    fn reset_empties_a_used_table() {
        // Both ways: clearing a small table, fresh memory for a large one.
        for mb in [1, RESET_BY_CLEARING_MB + 1] {
            let mut tt = TranspositionTable::new(mb);
            tt.new_search();
            tt.store(42, Move(0x1234), 10, 3, Bound::Exact);
            assert!(tt.probe(42).is_some());
            tt.reset();
            assert!(tt.probe(42).is_none());
            assert_eq!(tt.size_mb(), mb);
            // The emptied table works as before.
            tt.new_search();
            tt.store(43, Move(0x1234), 10, 3, Bound::Exact);
            assert!(tt.probe(43).is_some_and(|e| e.depth == 3));
        }
    }

    #[test]
    fn refused_memory_is_an_error() {
        // More than any address space holds: the allocation must fail
        // cleanly instead of aborting.
        let e = TranspositionTable::try_new(usize::MAX / (1024 * 1024));
        assert!(e.is_err());
        assert!(TranspositionTable::try_new(1).is_ok_and(|t| t.size_mb() == 1));
    }
}
