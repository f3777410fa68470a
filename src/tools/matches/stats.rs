//! Match statistics from wins, draws and losses.
//!
//! - Score `s = (W + D/2) / N`; Elo difference of the logistic model
//!   `Elo(s) = -400 log10(1/s - 1)`.
//! - Per-game variance of the trinomial result
//!   `var = (W (1-s)^2 + D (1/2-s)^2 + L s^2) / N`; standard error
//!   `se = sqrt(var / N)`; the 95% margin is half the Elo width of
//!   `s ± 1.959964 se`.
//! - Likelihood of superiority `LOS = (1 + erf((W - L) / sqrt(2 (W + L)))) / 2`.
//! - SPRT: the generalised SPRT's log-likelihood ratio on logistic Elo.
//!   Under each hypothesis the loss, draw and win probabilities `p` are
//!   those of largest likelihood whose expected score is `s0` (or `s1`, the
//!   expected scores at `elo0`, `elo1`): `p_i = f_i / (1 + l (a_i - s))`
//!   for the observed frequencies `f_i` of the results `a_i` (0, 1/2, 1),
//!   with `l` the root of `sum f_i (a_i - s) / (1 + l (a_i - s)) = 0`; a
//!   result not yet seen counts 0.001 times. `LLR = sum n_i ln(p1_i / p0_i)`.
//!   The normal approximation `N (s1 - s0) (2s - s0 - s1) / (2 var)` agrees
//!   with it on many games but, with the sample's own variance, decides on
//!   a lucky start (5-0-2 in 7 games crosses 2.94; this LLR is 0.94). It
//!   stops at `ln(beta / (1 - alpha))` (H0 accepted) or
//!   `ln((1 - beta) / alpha)` (H1).
//! - Pentanomial counts: game pairs (one opening played with both colours)
//!   by the points one side took from the pair, 0, 1/2, 1, 3/2 or 2.

/// Results of one side: wins, losses, draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

/// Two-sided 97.5% quantile of the normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// Elo difference of an expected score in (0, 1).
pub fn elo_of_score(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score of an Elo difference.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The results' points: a loss, a draw, a win.
const POINTS: [f64; 3] = [0.0, 0.5, 1.0];

/// The largest Elo difference an SPRT hypothesis may name.
const MAX_SPRT_ELO: f64 = 2000.0;

/// The weight of a result not yet seen in the SPRT's fit.
const UNSEEN_WEIGHT: f64 = 1e-3;

/// The loss, draw and win probabilities of largest likelihood for results
/// seen with frequencies `freq` (each above 0) under an expected score `s`
/// in (0, 1): `freq_i / (1 + l (a_i - s))`, where `l` makes their expected
/// score `s`. The constraint's left side falls as `l` grows on the
/// interval where every probability is positive, so `l` is found by
/// bisection there.
fn fitted_results(freq: [f64; 3], s: f64) -> [f64; 3] {
    let gap = |l: f64| -> f64 {
        (0..3)
            .map(|i| freq[i] * (POINTS[i] - s) / (1.0 + l * (POINTS[i] - s)))
            .sum()
    };
    // 1 + l (a - s) > 0 for a = 0 and a = 1.
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if gap(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let l = (lo + hi) / 2.0;
    [0, 1, 2].map(|i| freq[i] / (1.0 + l * (POINTS[i] - s)))
}

/// The error function: its Maclaurin series below 2.5, the continued
/// fraction of erfc above (both accurate to about 1e-12).
pub fn erf(x: f64) -> f64 {
    if x < 0.0 {
        return -erf(-x);
    }
    if x < 2.5 {
        // Maclaurin series: erf x = 2/sqrt(pi) sum (-1)^n x^(2n+1) / (n! (2n+1)).
        let mut term = x;
        let mut sum = x;
        let x2 = x * x;
        for n in 1..200 {
            term *= -x2 / n as f64;
            let add = term / (2 * n + 1) as f64;
            sum += add;
            if add.abs() < 1e-17 {
                break;
            }
        }
        2.0 / std::f64::consts::PI.sqrt() * sum
    } else {
        // Continued fraction of erfc, evaluated from the tail (Lentz-free).
        let mut f = 0.0;
        for k in (1..60).rev() {
            f = (k as f64 / 2.0) / (x + f);
        }
        1.0 - (-x * x).exp() / std::f64::consts::PI.sqrt() / (x + f)
    }
}

impl Score {
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    pub fn add(&mut self, o: Score) {
        self.wins += o.wins;
        self.losses += o.losses;
        self.draws += o.draws;
    }

    /// The same results seen from the other side.
    pub fn flipped(&self) -> Score {
        Score {
            wins: self.losses,
            losses: self.wins,
            draws: self.draws,
        }
    }

    /// Points per game.
    pub fn ratio(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| (self.wins as f64 + self.draws as f64 / 2.0) / n as f64)
    }

    /// Per-game variance of the result.
    fn variance(&self) -> Option<f64> {
        let s = self.ratio()?;
        let n = self.games() as f64;
        Some(
            (self.wins as f64 * (1.0 - s).powi(2)
                + self.draws as f64 * (0.5 - s).powi(2)
                + self.losses as f64 * s.powi(2))
                / n,
        )
    }

    /// Elo difference; `None` without games or at a score of 0% or 100%.
    pub fn elo(&self) -> Option<f64> {
        let s = self.ratio()?;
        (s > 0.0 && s < 1.0).then(|| elo_of_score(s))
    }

    /// Half width of the 95% confidence interval of the Elo difference.
    pub fn elo_margin(&self) -> Option<f64> {
        let s = self.ratio()?;
        let se = (self.variance()? / self.games() as f64).sqrt();
        let (lo, hi) = (s - Z95 * se, s + Z95 * se);
        (lo > 0.0 && hi < 1.0).then(|| (elo_of_score(hi) - elo_of_score(lo)) / 2.0)
    }

    /// Likelihood of superiority; `None` when every game was drawn.
    pub fn los(&self) -> Option<f64> {
        let decisive = (self.wins + self.losses) as f64;
        (decisive > 0.0).then(|| {
            0.5 * (1.0 + erf((self.wins as f64 - self.losses as f64) / (2.0 * decisive).sqrt()))
        })
    }
}

/// Game pairs counted by one side's points over both games: `counts[i]`
/// pairs of `i / 2` points (0, 1/2, 1, 3/2, 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    pub counts: [u32; 5],
}

impl Pentanomial {
    /// Count a pair from the side's half points in each of its two games
    /// (0 for a loss, 1 for a draw, 2 for a win).
    pub fn add_pair(&mut self, first: u32, second: u32) {
        self.counts[(first.min(2) + second.min(2)) as usize] += 1;
    }

    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// The same pairs seen from the other side.
    pub fn flipped(&self) -> Pentanomial {
        let mut counts = self.counts;
        counts.reverse();
        Pentanomial { counts }
    }
}

/// Parameters of a sequential probability ratio test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// What an SPRT has decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    AcceptH0,
    AcceptH1,
}

impl std::fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
        })
    }
}

/// A parameter of an SPRT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtKey {
    Elo0,
    Elo1,
    Alpha,
    Beta,
}

impl SprtKey {
    const ALL: [SprtKey; 4] = [SprtKey::Elo0, SprtKey::Elo1, SprtKey::Alpha, SprtKey::Beta];

    pub fn name(self) -> &'static str {
        match self {
            SprtKey::Elo0 => "elo0",
            SprtKey::Elo1 => "elo1",
            SprtKey::Alpha => "alpha",
            SprtKey::Beta => "beta",
        }
    }
}

/// One `key=value` word of an SPRT: `elo0=0`, `alpha=0.05`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtParam {
    pub key: SprtKey,
    pub value: f64,
}

/// Why an SPRT's words were refused.
#[derive(Clone, Debug, PartialEq)]
pub enum SprtError {
    /// A word without `=`.
    NotKeyValue(String),
    UnknownKey(String),
    BadNumber {
        key: SprtKey,
        value: String,
    },
    /// A key given twice.
    Twice(SprtKey),
    /// elo0 or elo1 left out.
    Missing(SprtKey),
    /// elo0 and elo1 not in order, or beyond what the fit can take.
    Hypotheses {
        elo0: f64,
        elo1: f64,
    },
    /// alpha or beta outside (0, 0.5).
    Probability {
        key: SprtKey,
        value: f64,
    },
}

impl std::fmt::Display for SprtError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let names = SprtKey::ALL.map(SprtKey::name).join(", ");
        match self {
            SprtError::NotKeyValue(w) => write!(f, "expected key=value ({names}), got '{w}'"),
            SprtError::UnknownKey(k) => write!(f, "unknown parameter '{k}' ({names})"),
            SprtError::BadNumber { key, value } => {
                write!(f, "{}: '{value}' is not a number", key.name())
            }
            SprtError::Twice(k) => write!(f, "{} is given twice", k.name()),
            SprtError::Missing(k) => write!(
                f,
                "{} is needed (elo0 and elo1 always; alpha and beta are {DEFAULT_ERROR} unless given)",
                k.name()
            ),
            SprtError::Hypotheses { elo0, elo1 } => write!(
                f,
                "elo0 ({}) must be below elo1 ({}), both within +/-{MAX_SPRT_ELO}",
                readable(*elo0),
                readable(*elo1)
            ),
            SprtError::Probability { key, value } => write!(
                f,
                "{} ({}) must be above 0 and below 0.5",
                key.name(),
                readable(*value)
            ),
        }
    }
}

impl std::error::Error for SprtError {}

/// The error probabilities alpha and beta when not given.
pub const DEFAULT_ERROR: f64 = 0.05;

/// A parameter as people write it: as given, but in exponent form when
/// that would take many zeros (1e-300, not 300 digits).
pub fn readable(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-4..1e9).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

impl SprtParam {
    /// Read `key=value`.
    pub fn parse(word: &str) -> Result<SprtParam, SprtError> {
        let (k, v) = word
            .split_once('=')
            .ok_or_else(|| SprtError::NotKeyValue(word.to_string()))?;
        let key = SprtKey::ALL
            .into_iter()
            .find(|x| x.name() == k)
            .ok_or_else(|| SprtError::UnknownKey(k.to_string()))?;
        let value = v.parse::<f64>().map_err(|_| SprtError::BadNumber {
            key,
            value: v.to_string(),
        })?;
        Ok(SprtParam { key, value })
    }
}

impl Sprt {
    /// The test of `params` (any order): elo0 and elo1 needed, alpha and
    /// beta [`DEFAULT_ERROR`] unless given.
    pub fn from_params(params: &[SprtParam]) -> Result<Sprt, SprtError> {
        let mut vals = [None; 4];
        for p in params {
            let i = SprtKey::ALL.iter().position(|&k| k == p.key).unwrap_or(0);
            if vals[i].replace(p.value).is_some() {
                return Err(SprtError::Twice(p.key));
            }
        }
        let [elo0, elo1, alpha, beta] = vals;
        let elo0 = elo0.ok_or(SprtError::Missing(SprtKey::Elo0))?;
        let elo1 = elo1.ok_or(SprtError::Missing(SprtKey::Elo1))?;
        let alpha = alpha.unwrap_or(DEFAULT_ERROR);
        let beta = beta.unwrap_or(DEFAULT_ERROR);
        // Beyond a few thousand Elo the expected score rounds to 0 or 1 and
        // the hypotheses' fit is undefined.
        let e = |x: f64| x.abs() <= MAX_SPRT_ELO;
        if !e(elo0) || !e(elo1) || elo1 <= elo0 {
            return Err(SprtError::Hypotheses { elo0, elo1 });
        }
        for (key, value) in [(SprtKey::Alpha, alpha), (SprtKey::Beta, beta)] {
            if !(value > 0.0 && value < 0.5) {
                return Err(SprtError::Probability { key, value });
            }
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// Read the words `elo0=0 elo1=5 [alpha=0.05] [beta=0.05]`.
    pub fn parse(words: &[&str]) -> Result<Sprt, SprtError> {
        let params = words
            .iter()
            .map(|w| SprtParam::parse(w))
            .collect::<Result<Vec<_>, _>>()?;
        Sprt::from_params(&params)
    }

    /// Log-likelihood ratio of the results (0 without games).
    pub fn llr(&self, score: &Score) -> f64 {
        let counts = [score.losses, score.draws, score.wins].map(f64::from);
        let total: f64 = counts.iter().sum();
        if total == 0.0 {
            return 0.0;
        }
        // A result not yet seen gets a small weight, so that a hypothesis
        // is never given probability 0 for it.
        let weights = counts.map(|c| if c > 0.0 { c } else { UNSEEN_WEIGHT });
        let sum: f64 = weights.iter().sum();
        let freq = weights.map(|w| w / sum);
        let p0 = fitted_results(freq, score_of_elo(self.elo0));
        let p1 = fitted_results(freq, score_of_elo(self.elo1));
        (0..3)
            .filter(|&i| counts[i] > 0.0)
            .map(|i| counts[i] * (p1[i] / p0[i]).ln())
            .sum()
    }

    /// (lower, upper) stopping bounds of the LLR.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    pub fn decision(&self, score: &Score) -> Option<SprtDecision> {
        let llr = self.llr(score);
        let (lo, hi) = self.bounds();
        if llr >= hi {
            Some(SprtDecision::AcceptH1)
        } else if llr <= lo {
            Some(SprtDecision::AcceptH0)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sprt_words_take_defaults_and_name_what_is_wrong() {
        let s = Sprt::parse(&["elo1=5", "elo0=0"]).unwrap();
        assert_eq!((s.alpha, s.beta), (DEFAULT_ERROR, DEFAULT_ERROR));
        let s = Sprt::parse(&["elo0=-3", "elo1=2", "beta=0.1"]).unwrap();
        assert_eq!((s.elo0, s.alpha, s.beta), (-3.0, DEFAULT_ERROR, 0.1));
        let cases: [(&[&str], &str); 8] = [
            (&["elo0=0"], "elo1 is needed"),
            (&["elo1=0"], "elo0 is needed"),
            (&["elo0=0", "elo0=1", "elo1=5"], "elo0 is given twice"),
            (
                &["elo0=0", "elo1=5", "gamma=1"],
                "unknown parameter 'gamma'",
            ),
            (&["elo0=0", "elo1"], "expected key=value"),
            (&["elo0=0", "elo1=x"], "elo1: 'x' is not a number"),
            (&["elo0=5", "elo1=0"], "elo0 (5) must be below elo1 (0)"),
            (
                &["elo0=0", "elo1=5", "alpha=0.5"],
                "alpha (0.5) must be above 0",
            ),
        ];
        for (words, what) in cases {
            let e = Sprt::parse(words).unwrap_err().to_string();
            assert!(e.contains(what) && !e.contains("--sprt"), "{words:?}: {e}");
        }
    }

    #[test]
    fn parameters_print_readably() {
        assert_eq!(readable(0.05), "0.05");
        assert_eq!(readable(-10.0), "-10");
        assert_eq!(readable(0.0), "0");
        assert_eq!(readable(1e-300), "1e-300");
        assert_eq!(readable(2.5e-7), "2.5e-7");
    }
}
