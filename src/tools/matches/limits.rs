//! Time controls and per-move limits of a match.

/// A clock: `moves` moves per session (all remaining moves when `None`),
/// `base_ms` per session, `inc_ms` added after each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub moves: Option<u32>,
    pub base_ms: u64,
    pub inc_ms: u64,
}

impl TimeControl {
    /// Parse `BASE+INC` or `MOVES/BASE+INC`; BASE is seconds or `m:ss`,
    /// INC seconds (both may have decimals); `+INC` may be left out.
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let bad = || format!("bad time control '{text}' (e.g. 10+0.1 or 40/60+0)");
        let (moves, rest) = match text.split_once('/') {
            Some((m, r)) => (Some(m.parse::<u32>().map_err(|_| bad())?), r),
            None => (None, text),
        };
        if moves == Some(0) {
            return Err(bad());
        }
        let (base, inc) = rest.split_once('+').unwrap_or((rest, "0"));
        let base_ms = match base.split_once(':') {
            Some((m, s)) => {
                let m: u64 = m.parse().map_err(|_| bad())?;
                m.checked_mul(60_000)
                    .and_then(|ms| ms.checked_add(seconds_ms(s)?))
                    .ok_or_else(bad)?
            }
            None => seconds_ms(base).ok_or_else(bad)?,
        };
        let inc_ms = seconds_ms(inc).ok_or_else(bad)?;
        if base_ms == 0 && inc_ms == 0 || base_ms > MAX_TIME_MS {
            return Err(bad());
        }
        Ok(TimeControl {
            moves,
            base_ms,
            inc_ms,
        })
    }

    /// The PGN `TimeControl` value: `MOVES/SECONDS` sessions and
    /// `SECONDS+INC` increments.
    pub fn pgn(&self) -> String {
        let secs = |ms: u64| {
            if ms.is_multiple_of(1000) {
                (ms / 1000).to_string()
            } else {
                format!("{}", ms as f64 / 1000.0)
            }
        };
        let mut s = match self.moves {
            Some(m) => format!("{m}/{}", secs(self.base_ms)),
            None => secs(self.base_ms),
        };
        if self.inc_ms > 0 {
            s.push('+');
            s.push_str(&secs(self.inc_ms));
        }
        s
    }
}

/// The longest time control part taken, in milliseconds (about 115 days):
/// every deadline the runner computes from it stays far from overflow.
pub const MAX_TIME_MS: u64 = 10_000_000_000;

fn seconds_ms(s: &str) -> Option<u64> {
    let x: f64 = s.parse().ok()?;
    let ms = (x * 1000.0).round();
    (x.is_finite() && x >= 0.0 && ms <= MAX_TIME_MS as f64).then_some(ms as u64)
}

/// Everything that limits one move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub clock: Option<TimeControl>,
    pub movetime_ms: Option<u64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
}

impl Limits {
    pub fn is_empty(&self) -> bool {
        self.clock.is_none()
            && self.movetime_ms.is_none()
            && self.depth.is_none()
            && self.nodes.is_none()
    }

    pub fn pgn(&self) -> String {
        match (self.clock, self.movetime_ms) {
            (Some(tc), _) => tc.pgn(),
            // PGN's form for a fixed time per move.
            (None, Some(ms)) => format!("*{}", ms as f64 / 1000.0),
            _ => "-".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_time_controls() {
        let tc = TimeControl::parse("10+0.1").unwrap();
        assert_eq!((tc.moves, tc.base_ms, tc.inc_ms), (None, 10_000, 100));
        assert_eq!(tc.pgn(), "10+0.1");
        let tc = TimeControl::parse("40/60+0").unwrap();
        assert_eq!((tc.moves, tc.base_ms, tc.inc_ms), (Some(40), 60_000, 0));
        assert_eq!(tc.pgn(), "40/60");
        let tc = TimeControl::parse("1:30+2").unwrap();
        assert_eq!((tc.base_ms, tc.inc_ms), (90_000, 2000));
        assert!(TimeControl::parse("x+1").is_err());
        assert!(TimeControl::parse("0/10").is_err());
        assert!(TimeControl::parse("0+0").is_err());
    }
}
