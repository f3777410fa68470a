//! Seeded random numbers for the fuzzer (its own, so that a finding's seed replays it whatever the engine's generator does).

/// SplitMix64.
#[derive(Clone)]
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    pub(crate) fn percent(&mut self, p: u64) -> bool {
        self.next() % 100 < p
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// The generator of one job: independent of every other job's.
    pub(crate) fn for_job(seed: u64, kind: u64, index: usize) -> Rng {
        let mut r = Rng(seed
            ^ kind.wrapping_mul(0xA24B_AED4_963E_E407)
            ^ (index as u64 + 1).wrapping_mul(0x9FB2_1C65_1E98_DF25));
        r.next();
        r
    }
}
