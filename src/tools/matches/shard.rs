//! One of N disjoint parts of a match (`--shard K/N`): the parts are cut by
//! game pair (one opening played with both colours by every pairing of
//! engines), so a pair never straddles two parts, and together the parts
//! are the whole match.

use std::fmt;
use std::num::IntErrorKind;

/// Part `index` (from 1) of `count` parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: usize,
    count: usize,
}

/// Why a `K/N` was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardError {
    /// Not two whole numbers around a slash.
    Form(String),
    /// A number too large for this machine.
    Overflow(String),
    /// N is 0.
    NoParts,
    /// K is 0 or above N.
    OutOfRange { index: usize, count: usize },
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ShardError::Form(s) => write!(
                f,
                "'{s}' is not K/N: give the part K and the number of parts N as whole numbers, e.g. 1/4"
            ),
            ShardError::Overflow(s) => write!(f, "'{s}' is too large for a part or part count"),
            ShardError::NoParts => write!(f, "N, the number of parts, must be at least 1"),
            ShardError::OutOfRange { index, count } => {
                write!(f, "part {index} of {count}: K counts from 1 to N ({count})")
            }
        }
    }
}

impl std::error::Error for ShardError {}

impl Shard {
    /// The whole match as a single part.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Read `K/N`: part K (1 to N) of N.
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let t = text.trim();
        let (k, n) = t
            .split_once('/')
            .ok_or_else(|| ShardError::Form(t.to_string()))?;
        let number = |s: &str| {
            // `usize::from_str` takes a leading '+'; a part number does not.
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ShardError::Form(t.to_string()));
            }
            s.parse::<usize>().map_err(|e| match e.kind() {
                IntErrorKind::PosOverflow => ShardError::Overflow(s.to_string()),
                _ => ShardError::Form(t.to_string()),
            })
        };
        let (index, count) = (number(k)?, number(n)?);
        if count == 0 {
            return Err(ShardError::NoParts);
        }
        if index == 0 || index > count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// The part, from 1.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of parts.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether game pair `pair` (from 0) belongs to this part: the pairs
    /// are dealt out in turn, pair p to part (p mod N) + 1, so that parts
    /// differ by at most one pair.
    pub fn holds(&self, pair: usize) -> bool {
        pair % self.count == self.index - 1
    }

    /// How many of `pairs` game pairs (0 to pairs - 1) this part holds.
    pub fn pairs_of(&self, pairs: usize) -> usize {
        pairs / self.count + usize::from(pairs % self.count >= self.index)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_parts_and_refuses_bad_ones() {
        assert_eq!(
            Shard::parse("2/3").map(|s| (s.index(), s.count())),
            Ok((2, 3))
        );
        assert_eq!(Shard::parse("1/1"), Ok(Shard::WHOLE));
        assert_eq!(Shard::parse("1/0"), Err(ShardError::NoParts));
        assert_eq!(
            Shard::parse("0/2"),
            Err(ShardError::OutOfRange { index: 0, count: 2 })
        );
        assert_eq!(
            Shard::parse("3/2"),
            Err(ShardError::OutOfRange { index: 3, count: 2 })
        );
        for bad in [
            "a/b", "2", "", "/", "1/", "/2", "-1/2", "1/-2", "+1/2", "1/2/3", "1.0/2",
        ] {
            assert!(
                matches!(Shard::parse(bad), Err(ShardError::Form(_))),
                "{bad}: {:?}",
                Shard::parse(bad)
            );
        }
        assert!(matches!(
            Shard::parse("1/99999999999999999999999"),
            Err(ShardError::Overflow(_))
        ));
    }

    /// Every pair falls in exactly one part, and `pairs_of` counts them.
    #[test]
    fn the_parts_cover_every_pair_once() {
        for count in 1..7 {
            for pairs in 0..20 {
                let parts: Vec<Shard> = (1..=count)
                    .map(|k| Shard::parse(&format!("{k}/{count}")).unwrap())
                    .collect();
                for p in 0..pairs {
                    assert_eq!(parts.iter().filter(|s| s.holds(p)).count(), 1);
                }
                for s in &parts {
                    let held = (0..pairs).filter(|&p| s.holds(p)).count();
                    assert_eq!(s.pairs_of(pairs), held, "{s} of {pairs}");
                }
            }
        }
    }
}
