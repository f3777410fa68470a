//! The network's arithmetic on i16 slices: adding and subtracting feature
//! rows to an accumulator, and the activated dot product of the output.
//! A portable path written for the compiler to vectorise, and an AVX2 path
//! chosen once at run time where the processor has it; both are exact
//! integer arithmetic (accumulators wrap, sums are i64) and give the same
//! results.

use super::format::Activation;

/// Which implementation of the arithmetic runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Portable,
    /// Only chosen where the processor has AVX2 (see [`Kernel::detect`]).
    Avx2,
}

impl Kernel {
    /// The fastest kernel this processor runs.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel::Avx2;
        }
        Kernel::Portable
    }

    /// Every kernel this processor runs (for tests that compare them).
    pub fn available() -> Vec<Kernel> {
        let mut all = vec![Kernel::Portable];
        if Kernel::detect() == Kernel::Avx2 {
            all.push(Kernel::Avx2);
        }
        all
    }

    /// `acc += sum of add - sum of sub`, lane by lane, wrapping. Every row
    /// must be at least as long as `acc`.
    #[inline]
    pub fn apply(self, acc: &mut [i16], add: &[&[i16]], sub: &[&[i16]]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx2` is only chosen where the processor has AVX2.
            Kernel::Avx2 => unsafe { avx2::apply(acc, add, sub) },
            _ => portable::apply(acc, add, sub),
        }
    }

    /// The sum over the lanes of `activation(clamp(acc, 0, qa)) * w`, with
    /// the squared activation's `a * a * w` (before any division).
    /// `qa` must be positive; `w` at least as long as `acc`.
    #[inline]
    pub fn dot(self, activation: Activation, qa: i16, acc: &[i16], w: &[i16]) -> i64 {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx2` is only chosen where the processor has AVX2.
            Kernel::Avx2 => unsafe { avx2::dot(activation, qa, acc, w) },
            _ => portable::dot(activation, qa, acc, w),
        }
    }
}

mod portable {
    use super::Activation;

    #[inline]
    pub(super) fn apply(acc: &mut [i16], add: &[&[i16]], sub: &[&[i16]]) {
        let n = acc.len();
        for row in add {
            for (a, &r) in acc.iter_mut().zip(&row[..n]) {
                *a = a.wrapping_add(r);
            }
        }
        for row in sub {
            for (a, &r) in acc.iter_mut().zip(&row[..n]) {
                *a = a.wrapping_sub(r);
            }
        }
    }

    #[inline]
    pub(super) fn dot(activation: Activation, qa: i16, acc: &[i16], w: &[i16]) -> i64 {
        let w = &w[..acc.len()];
        // Each product a * w fits an i32 (|a| <= 32767, |w| <= 32768).
        let lanes = acc.iter().zip(w).map(|(&a, &w)| {
            let a = a.clamp(0, qa) as i32;
            (a, a * w as i32)
        });
        match activation {
            Activation::ClippedRelu => lanes.map(|(_, aw)| aw as i64).sum(),
            Activation::SquaredClippedRelu => lanes.map(|(a, aw)| aw as i64 * a as i64).sum(),
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Activation, portable};
    use std::arch::x86_64::*;

    const LANES: usize = 16;

    /// # Safety
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn apply(acc: &mut [i16], add: &[&[i16]], sub: &[&[i16]]) {
        let n = acc.len();
        let body = n - n % LANES;
        // Bounds checked once here, so that the loads below stay inside.
        for row in add.iter().chain(sub) {
            assert!(row.len() >= n, "feature row shorter than the accumulator");
        }
        let p = acc.as_mut_ptr();
        for i in (0..body).step_by(LANES) {
            // SAFETY: i + LANES <= n, and every row holds n lanes.
            unsafe {
                let mut v = _mm256_loadu_si256(p.add(i) as *const __m256i);
                for row in add {
                    let r = _mm256_loadu_si256(row.as_ptr().add(i) as *const __m256i);
                    v = _mm256_add_epi16(v, r);
                }
                for row in sub {
                    let r = _mm256_loadu_si256(row.as_ptr().add(i) as *const __m256i);
                    v = _mm256_sub_epi16(v, r);
                }
                _mm256_storeu_si256(p.add(i) as *mut __m256i, v);
            }
        }
        for row in add {
            portable::apply(&mut acc[body..], &[&row[body..]], &[]);
        }
        for row in sub {
            portable::apply(&mut acc[body..], &[], &[&row[body..]]);
        }
    }

    /// # Safety
    /// The processor must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dot(activation: Activation, qa: i16, acc: &[i16], w: &[i16]) -> i64 {
        let n = acc.len();
        let w = &w[..n];
        let body = n - n % LANES;
        let zero = _mm256_setzero_si256();
        let top = _mm256_set1_epi16(qa);
        let mut sum = _mm256_setzero_si256();
        for i in (0..body).step_by(LANES) {
            // SAFETY: i + LANES <= n = acc.len() = w.len().
            let (a, wv) = unsafe {
                (
                    _mm256_loadu_si256(acc.as_ptr().add(i) as *const __m256i),
                    _mm256_loadu_si256(w.as_ptr().add(i) as *const __m256i),
                )
            };
            let a = _mm256_min_epi16(_mm256_max_epi16(a, zero), top);
            match activation {
                Activation::ClippedRelu => {
                    // Pairs of products: each pair sum fits an i32
                    // (2 * 32767 * 32768 < 2^31), widened to i64 at once.
                    let p = _mm256_madd_epi16(a, wv);
                    sum = _mm256_add_epi64(sum, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(p)));
                    sum = _mm256_add_epi64(
                        sum,
                        _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(p)),
                    );
                }
                Activation::SquaredClippedRelu => {
                    // a * w as i32 (from its low and high halves), times a
                    // as i64: even and odd i32 lanes apart.
                    let lo = _mm256_mullo_epi16(a, wv);
                    let hi = _mm256_mulhi_epi16(a, wv);
                    for (aw, a32) in [
                        (
                            _mm256_unpacklo_epi16(lo, hi),
                            _mm256_unpacklo_epi16(a, zero),
                        ),
                        (
                            _mm256_unpackhi_epi16(lo, hi),
                            _mm256_unpackhi_epi16(a, zero),
                        ),
                    ] {
                        sum = _mm256_add_epi64(sum, _mm256_mul_epi32(aw, a32));
                        let (aw_odd, a_odd) =
                            (_mm256_srli_epi64::<32>(aw), _mm256_srli_epi64::<32>(a32));
                        sum = _mm256_add_epi64(sum, _mm256_mul_epi32(aw_odd, a_odd));
                    }
                }
            }
        }
        let mut lanes = [0i64; 4];
        // SAFETY: `lanes` holds 32 bytes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, sum) };
        let tail = portable::dot(activation, qa, &acc[body..], &w[body..]);
        lanes.iter().sum::<i64>() + tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::Rng;

    fn random(rng: &mut Rng, n: usize) -> Vec<i16> {
        (0..n).map(|_| rng.next_u64() as i16).collect()
    }

    /// The portable path against a plain scalar reading of the definition.
    #[test]
    fn portable_matches_the_definition() {
        let mut rng = Rng::new(5);
        for n in [1, 15, 16, 33, 256] {
            let acc = random(&mut rng, n);
            let w = random(&mut rng, n);
            for qa in [1i16, 255, 32767] {
                let a = |x: i16| x.clamp(0, qa) as i64;
                let crelu: i64 = acc.iter().zip(&w).map(|(&x, &w)| a(x) * w as i64).sum();
                let screlu: i64 = acc
                    .iter()
                    .zip(&w)
                    .map(|(&x, &w)| a(x) * a(x) * w as i64)
                    .sum();
                let k = Kernel::Portable;
                assert_eq!(k.dot(Activation::ClippedRelu, qa, &acc, &w), crelu);
                assert_eq!(k.dot(Activation::SquaredClippedRelu, qa, &acc, &w), screlu);
            }
            let (r1, r2, r3) = (
                random(&mut rng, n),
                random(&mut rng, n),
                random(&mut rng, n),
            );
            let mut got = acc.clone();
            Kernel::Portable.apply(&mut got, &[&r1, &r2], &[&r3]);
            for i in 0..n {
                let want = acc[i]
                    .wrapping_add(r1[i])
                    .wrapping_add(r2[i])
                    .wrapping_sub(r3[i]);
                assert_eq!(got[i], want);
            }
        }
    }

    /// Both paths give the same sums on random and extreme values, with
    /// lengths that leave a tail.
    #[test]
    fn every_kernel_gives_the_same_results() {
        let kernels = Kernel::available();
        if kernels.len() == 1 {
            eprintln!("note: no AVX2 on this processor; only the portable path is tested");
        }
        let mut rng = Rng::new(17);
        for n in [1, 7, 16, 31, 64, 130, 1024] {
            for round in 0..20 {
                let mut acc = random(&mut rng, n);
                let mut w = random(&mut rng, n);
                if round == 0 {
                    acc.fill(i16::MAX);
                    w.fill(i16::MIN);
                }
                let rows: Vec<Vec<i16>> = (0..8).map(|_| random(&mut rng, n)).collect();
                let (add, sub): (Vec<&[i16]>, Vec<&[i16]>) = (
                    rows[..4].iter().map(|r| &r[..]).collect(),
                    rows[4..].iter().map(|r| &r[..]).collect(),
                );
                let qa = [255i16, 1, 32767, 127][round % 4];
                let results: Vec<_> = kernels
                    .iter()
                    .map(|k| {
                        let mut a = acc.clone();
                        k.apply(&mut a, &add, &sub);
                        (
                            a,
                            k.dot(Activation::ClippedRelu, qa, &acc, &w),
                            k.dot(Activation::SquaredClippedRelu, qa, &acc, &w),
                        )
                    })
                    .collect();
                for (k, r) in kernels.iter().zip(&results) {
                    assert_eq!(r, &results[0], "{k:?}, length {n}, round {round}");
                }
            }
        }
    }
}
