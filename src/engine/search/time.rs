//! Limits of a search and how much time to spend.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What bounds a search. Times are in milliseconds.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<u64>,
    /// Clock of the side to move and the other side.
    pub time: Option<u64>,
    pub inc: u64,
    pub opponent_time: Option<u64>,
    pub opponent_inc: u64,
    pub movestogo: Option<u32>,
    pub infinite: bool,
    /// Pondering: while this flag is set, the search does not answer by
    /// itself (as when infinite); its depth, node and mate limits still
    /// bound the work. Clearing it (`ponderhit`) lets the search answer once
    /// those limits are reached, or at once when they already are.
    pub ponder: Option<Arc<AtomicBool>>,
    /// Subtracted from every time budget (communication delays).
    pub overhead: u64,
}

/// Soft (start no new iteration) and hard (stop now) time limits.
#[derive(Clone, Copy, Debug)]
pub struct TimeBudget {
    pub soft: Option<Duration>,
    pub hard: Option<Duration>,
    /// The time was fixed by the user (`movetime`): it is spent whole, so
    /// the soft limit is not scaled down when the best move is settled.
    pub fixed: bool,
}

impl Limits {
    /// Whether the search must wait for `stop` (or for the end of
    /// pondering) before it answers.
    pub fn waits_for_stop(&self) -> bool {
        self.infinite
            || self
                .ponder
                .as_ref()
                .is_some_and(|p| p.load(Ordering::Relaxed))
    }

    pub fn budget(&self) -> TimeBudget {
        if self.infinite {
            return TimeBudget {
                soft: None,
                hard: None,
                fixed: false,
            };
        }
        if let Some(mt) = self.movetime {
            let t = Duration::from_millis(mt.saturating_sub(self.overhead).max(1));
            return TimeBudget {
                soft: Some(t),
                hard: Some(t),
                fixed: true,
            };
        }
        let Some(time) = self.time else {
            return TimeBudget {
                soft: None,
                hard: None,
                fixed: false,
            };
        };
        // Plan for the moves to go (or 30 more moves), spend most of the
        // increment, never more than a third of the clock at once.
        // Saturating: the clocks come from outside and may be anything.
        let left = time.saturating_sub(self.overhead).max(1);
        let mtg = self.movestogo.unwrap_or(30).clamp(1, 60) as u64;
        let soft = (left / mtg)
            .saturating_add(self.inc.saturating_mul(3) / 4)
            .min(left / 3)
            .max(1);
        let hard = soft.saturating_mul(4).min(left / 2).max(soft);
        TimeBudget {
            soft: Some(Duration::from_millis(soft)),
            hard: Some(Duration::from_millis(hard)),
            fixed: false,
        }
    }
}

/// The share of the soft limit within which a new iteration may start,
/// from how many iterations in a row have kept the best move and how many
/// centipawns the score fell in the last one: a best move that keeps
/// changing, or a falling score, earns more time; a settled one less.
pub fn soft_scale(stable_iterations: u32, score_drop: i32) -> f64 {
    let stability = 1.3 - 0.1 * stable_iterations.min(5) as f64;
    let falling = match score_drop {
        d if d >= 50 => 1.4,
        d if d >= 20 => 1.2,
        _ => 1.0,
    };
    0.6 * stability * falling
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsettled_searches_get_more_time() {
        assert!(soft_scale(0, 0) > soft_scale(1, 0));
        assert!(soft_scale(1, 0) > soft_scale(5, 0));
        assert_eq!(soft_scale(5, 0), soft_scale(50, 0));
        assert!(soft_scale(3, 60) > soft_scale(3, 25));
        assert!(soft_scale(3, 25) > soft_scale(3, 0));
        assert_eq!(soft_scale(3, -100), soft_scale(3, 0));
        // Never past the hard limit's usual four soft limits.
        assert!(soft_scale(0, 1000) < 4.0);
    }

    #[test]
    fn budgets() {
        let l = Limits {
            time: Some(60_000),
            inc: 1000,
            ..Default::default()
        };
        let b = l.budget();
        assert_eq!(b.soft, Some(Duration::from_millis(2750)));
        assert_eq!(b.hard, Some(Duration::from_millis(11000)));
        let l = Limits {
            movetime: Some(500),
            overhead: 20,
            ..Default::default()
        };
        assert_eq!(l.budget().hard, Some(Duration::from_millis(480)));
        assert!(l.budget().fixed);
        assert!(!Limits::default().budget().fixed);
        let l = Limits {
            time: Some(30),
            movestogo: Some(1),
            ..Default::default()
        };
        assert!(
            l.budget()
                .hard
                .is_some_and(|h| h <= Duration::from_millis(15))
        );
        assert!(Limits::default().budget().hard.is_none());
    }
}
