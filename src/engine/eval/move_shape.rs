//! A man's ways of moving, sorted by shape for the `moves` and `hit`
//! terms: part of the evaluation's tables, walked by the terms.

use crate::rules::variant::Rule;

/// A man's ways of moving for the `moves` and `hit` terms, split by shape
/// so that the common ones run in tight loops (its initial-region moves
/// left out).
#[derive(Clone, Debug, Default)]
pub struct MoveShape {
    /// Single leaps that both move and capture.
    pub(super) leaps: Vec<i16>,
    /// Unlimited slides that both move and capture.
    pub(super) rides: Vec<i16>,
    /// The rest: lame, bent, limited, move-only or capture-only.
    pub(super) other: Vec<Rule>,
}

impl MoveShape {
    pub(super) fn new(rules: &[Rule]) -> MoveShape {
        let mut shape = MoveShape::default();
        for r in rules
            .iter()
            .filter(|r| !r.initial && (r.quiet || r.capture))
        {
            let plain = r.prelude.is_empty() && r.start == 0 && r.quiet && r.capture;
            match (plain, r.max) {
                (true, 1) => shape.leaps.push(r.step),
                (true, 255) => shape.rides.push(r.step),
                _ => shape.other.push(r.clone()),
            }
        }
        shape
    }

    pub(super) fn is_none(&self) -> bool {
        self.leaps.is_empty() && self.rides.is_empty() && self.other.is_empty()
    }
}
