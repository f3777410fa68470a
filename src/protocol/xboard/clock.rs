//! XBoard time controls (`level`, `st`, `sd`, `time`, `otim`) turned into
//! search limits.

use crate::engine::search::Limits;
use crate::protocol::CommandError;

/// Clock times from the GUI are clamped to this (about 31 years), so that
/// sums and products of them can never overflow.
pub const MAX_CLOCK_MS: u64 = 1_000_000_000_000;

/// Default allowance for communication delays, in milliseconds.
const OVERHEAD_MS: u64 = 30;

#[derive(Clone, Debug, Default)]
pub struct Clock {
    /// Moves per session (0: the whole game), base time and increment.
    pub mps: u32,
    pub base_ms: u64,
    pub inc_ms: u64,
    /// Fixed time per move (`st`); replaces the level while set.
    pub per_move_ms: Option<u64>,
    /// Depth limit (`sd`).
    pub depth: Option<u32>,
    /// Last `time` and `otim`, in milliseconds.
    pub own_ms: Option<u64>,
    pub opponent_ms: Option<u64>,
}

impl Clock {
    /// The clock's commands, `time`, `otim`, `level`, `st` and `sd`; None
    /// for any other command.
    pub fn command(&mut self, cmd: &str, args: &[&str]) -> Option<Result<(), CommandError>> {
        Some(match cmd {
            "time" => centiseconds(args.first()).map(|t| self.own_ms = Some(t)),
            "otim" => centiseconds(args.first()).map(|t| self.opponent_ms = Some(t)),
            "level" => self.set_level(args),
            "st" => match args.first().and_then(|s| s.parse::<f64>().ok()) {
                Some(s) if s > 0.0 && s.is_finite() => {
                    self.per_move_ms = Some(((s * 1000.0) as u64).min(MAX_CLOCK_MS));
                    Ok(())
                }
                _ => Err("st needs seconds".into()),
            },
            "sd" => match args.first().and_then(|s| s.parse::<u32>().ok()) {
                Some(d) if d > 0 => {
                    self.depth = Some(d);
                    Ok(())
                }
                _ => Err("sd needs a depth".into()),
            },
            _ => return None,
        })
    }

    /// `level MPS BASE INC`: BASE in minutes or `m:ss`, INC in seconds.
    pub fn set_level(&mut self, args: &[&str]) -> Result<(), CommandError> {
        let [mps, base, inc] = args else {
            return Err("level needs MPS BASE INC".into());
        };
        let mps: u32 = mps.parse().map_err(|_| "bad moves per session")?;
        let base_ms = match base.split_once(':') {
            Some((m, s)) => {
                let m: u64 = m.parse().map_err(|_| "bad base time")?;
                let s: u64 = s.parse().map_err(|_| "bad base time")?;
                m.saturating_mul(60)
                    .saturating_add(s)
                    .saturating_mul(1000)
                    .min(MAX_CLOCK_MS)
            }
            None => {
                let m: f64 = base.parse().map_err(|_| "bad base time")?;
                if !(m >= 0.0 && m.is_finite()) {
                    return Err("bad base time".into());
                }
                // A float cast saturates; the clamp keeps sums far from overflow.
                ((m * 60_000.0) as u64).min(MAX_CLOCK_MS)
            }
        };
        let inc: f64 = inc.parse().map_err(|_| "bad increment")?;
        if !(inc >= 0.0 && inc.is_finite()) {
            return Err("bad increment".into());
        }
        *self = Clock {
            mps,
            base_ms,
            inc_ms: ((inc * 1000.0) as u64).min(MAX_CLOCK_MS),
            per_move_ms: None,
            depth: self.depth,
            own_ms: None,
            opponent_ms: None,
        };
        Ok(())
    }

    /// Limits for a search by the side that has made `moves_made` moves.
    pub fn limits(&self, moves_made: usize) -> Limits {
        let mut l = Limits {
            depth: self.depth,
            overhead: OVERHEAD_MS,
            ..Default::default()
        };
        if let Some(ms) = self.per_move_ms {
            l.movetime = Some(ms);
            return l;
        }
        if self.base_ms == 0 && self.own_ms.is_none() {
            // No clock at all: only the depth limit (or none) bounds it.
            if self.depth.is_none() {
                l.movetime = Some(1000);
            }
            return l;
        }
        l.time = Some(self.own_ms.unwrap_or(self.base_ms));
        l.opponent_time = Some(self.opponent_ms.unwrap_or(self.base_ms));
        l.inc = self.inc_ms;
        l.opponent_inc = self.inc_ms;
        if self.mps > 0 {
            l.movestogo = Some(self.mps - (moves_made % self.mps as usize) as u32);
        }
        l
    }
}

/// A `time`/`otim` value (centiseconds) in milliseconds; negative is zero.
fn centiseconds(arg: Option<&&str>) -> Result<u64, CommandError> {
    let n: i64 = arg
        .and_then(|s| s.parse().ok())
        .ok_or("needs centiseconds")?;
    Ok((n.max(0) as u64).saturating_mul(10).min(MAX_CLOCK_MS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_with_minutes_and_seconds() {
        let mut c = Clock::default();
        c.set_level(&["40", "0:05", "0.05"]).unwrap();
        assert_eq!((c.mps, c.base_ms, c.inc_ms), (40, 5000, 50));
        c.set_level(&["0", "2", "1"]).unwrap();
        assert_eq!((c.mps, c.base_ms, c.inc_ms), (0, 120_000, 1000));
        assert!(c.set_level(&["x", "1", "0"]).is_err());
        assert!(c.set_level(&["0", "1:xx", "0"]).is_err());
        assert!(c.set_level(&["0", "1"]).is_err());
    }

    #[test]
    fn clock_commands_set_the_clock_and_refuse_bad_numbers() {
        let mut c = Clock::default();
        assert!(c.command("time", &["-5"]).is_some_and(|r| r.is_ok()));
        assert_eq!(c.own_ms, Some(0));
        assert!(c.command("otim", &["123"]).is_some_and(|r| r.is_ok()));
        assert_eq!(c.opponent_ms, Some(1230));
        assert!(c.command("st", &["0.5"]).is_some_and(|r| r.is_ok()));
        assert_eq!(c.per_move_ms, Some(500));
        assert!(c.command("st", &["inf"]).is_some_and(|r| r.is_err()));
        assert!(c.command("sd", &["0"]).is_some_and(|r| r.is_err()));
        assert!(c.command("sd", &["7"]).is_some_and(|r| r.is_ok()));
        assert_eq!(c.depth, Some(7));
        assert!(c.command("go", &[]).is_none());
    }

    #[test]
    fn limits_follow_the_clock() {
        let mut c = Clock::default();
        c.set_level(&["40", "1", "0"]).unwrap();
        c.own_ms = Some(3000);
        let l = c.limits(39);
        assert_eq!((l.time, l.movestogo), (Some(3000), Some(1)));
        assert_eq!(c.limits(40).movestogo, Some(40));
        c.per_move_ms = Some(700);
        assert_eq!(c.limits(0).movetime, Some(700));
        let c = Clock {
            depth: Some(4),
            ..Default::default()
        };
        let l = c.limits(0);
        assert_eq!((l.depth, l.movetime, l.time), (Some(4), None, None));
    }
}
