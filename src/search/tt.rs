//! The transposition table, shared by all search threads without locks:
//! each slot holds the key XOR the data and the data, so a torn write is
//! detected as a miss.

use crate::types::Move;
use std::sync::atomic::{AtomicU64, Ordering};

/// Kind of bound a stored score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Upper = 1,
    Lower = 2,
    Exact = 3,
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

/// Entries are grouped in buckets of this many slots.
const BUCKET: usize = 4;

pub struct TranspositionTable {
    slots: Vec<Slot>,
    buckets: usize,
    generation: AtomicU64,
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
    pub fn try_new(mb: usize) -> Result<TranspositionTable, String> {
        let bytes = mb.max(1).saturating_mul(1024 * 1024);
        let buckets = (bytes / (16 * BUCKET)).max(1);
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(buckets * BUCKET)
            .map_err(|_| format!("cannot allocate a hash table of {mb} MB"))?;
        slots.extend((0..buckets * BUCKET).map(|_| Slot {
            key: AtomicU64::new(0),
            data: AtomicU64::new(0),
        }));
        Ok(TranspositionTable {
            slots,
            buckets,
            generation: AtomicU64::new(0),
        })
    }

    /// Size in megabytes.
    pub fn size_mb(&self) -> usize {
        self.slots.len() * 16 / (1024 * 1024)
    }

    pub fn clear(&self) {
        for s in &self.slots {
            s.key.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Start a new search (older entries become preferred victims).
    pub fn new_search(&self) {
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
    fn refused_memory_is_an_error() {
        // More than any address space holds: the allocation must fail
        // cleanly instead of aborting.
        let e = TranspositionTable::try_new(usize::MAX / (1024 * 1024));
        assert!(e.is_err());
        assert!(TranspositionTable::try_new(1).is_ok_and(|t| t.size_mb() == 1));
    }
}
