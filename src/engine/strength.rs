//! Strength levels (`UCI_LimitStrength`, `UCI_Elo`): the limits a search
//! plays with at a level, read from `params/strength.txt`, and the choice
//! of the move among the best few root moves (the search's MultiPV lines)
//! that a weaker level makes. The search itself is the full engine's; a
//! level only lowers its node and depth limits, searches more lines, and
//! picks among them afterwards.

use crate::engine::search::{Limits, MATE, SearchInfo, Value};
use crate::util::rng::Rng;
use std::fmt;

/// The levels' table, as shipped.
const BUILTIN: &str = include_str!("../../params/strength.txt");

/// The level a new engine plays at once `UCI_LimitStrength` is switched on
/// (clamped into the table's range).
pub const DEFAULT_ELO: u32 = 1500;

/// What a search plays with at one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// The most nodes one move's search takes.
    pub nodes: u64,
    /// The deepest iteration.
    pub depth: u32,
    /// The best root moves the move is chosen among.
    pub moves: usize,
    /// Centipawns: the largest random bonus a line's score gets.
    pub spread: u32,
}

impl Level {
    /// The user's limits, lowered to the level's (never raised).
    pub fn lower(&self, limits: &Limits) -> Limits {
        let mut l = limits.clone();
        l.nodes = Some(l.nodes.map_or(self.nodes, |n| n.min(self.nodes)));
        l.depth = Some(l.depth.map_or(self.depth, |d| d.min(self.depth)));
        l
    }
}

/// One row of the table: a level and its Elo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Anchor {
    pub elo: u32,
    pub level: Level,
}

/// Why the levels' table was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableError {
    /// No rows.
    Empty,
    /// A row that is not five whole numbers (its line, counted from 1).
    BadRow(usize),
    /// A column out of the order the rules ask for, or a value below 1
    /// where at least 1 is needed (the line, the column).
    OutOfOrder(usize, &'static str),
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Empty => write!(f, "strength table: no levels"),
            TableError::BadRow(line) => {
                write!(f, "strength table line {line}: not five whole numbers")
            }
            TableError::OutOfOrder(line, column) => {
                write!(f, "strength table line {line}: {column} out of order")
            }
        }
    }
}

impl std::error::Error for TableError {}

/// The anchor levels, in rising Elo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrengthTable {
    anchors: Vec<Anchor>,
}

impl StrengthTable {
    /// The shipped table (`params/strength.txt`; a test checks it reads).
    pub fn builtin() -> StrengthTable {
        StrengthTable::parse(BUILTIN).unwrap_or_else(|e| panic!("built-in {e}"))
    }

    /// Read a table: `#` comments, blank lines, and rows of
    /// `elo nodes depth moves spread`, checked for order.
    pub fn parse(text: &str) -> Result<StrengthTable, TableError> {
        let mut anchors: Vec<Anchor> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let n: Vec<u64> = line
                .split_whitespace()
                .map(|w| w.parse::<u64>())
                .collect::<Result<_, _>>()
                .map_err(|_| TableError::BadRow(i + 1))?;
            let &[elo, nodes, depth, moves, spread] = n.as_slice() else {
                return Err(TableError::BadRow(i + 1));
            };
            let small = |v: u64| u32::try_from(v).map_err(|_| TableError::BadRow(i + 1));
            let anchor = Anchor {
                elo: small(elo)?,
                level: Level {
                    nodes,
                    depth: small(depth)?,
                    moves: small(moves)? as usize,
                    spread: small(spread)?,
                },
            };
            let bad = |column| Err(TableError::OutOfOrder(i + 1, column));
            let l = anchor.level;
            if l.nodes == 0 || l.depth == 0 || l.moves == 0 {
                return bad("a value below 1");
            }
            if let Some(prev) = anchors.last() {
                let p = prev.level;
                if anchor.elo <= prev.elo {
                    return bad("elo");
                }
                if l.nodes < p.nodes {
                    return bad("nodes");
                }
                if l.depth < p.depth {
                    return bad("depth");
                }
                if l.moves > p.moves {
                    return bad("moves");
                }
                if l.spread > p.spread {
                    return bad("spread");
                }
            }
            anchors.push(anchor);
        }
        if anchors.is_empty() {
            return Err(TableError::Empty);
        }
        Ok(StrengthTable { anchors })
    }

    pub fn anchors(&self) -> &[Anchor] {
        &self.anchors
    }

    /// The lowest and highest Elo (the first and last rows).
    pub fn range(&self) -> (u32, u32) {
        let elo = |a: Option<&Anchor>| a.map_or(0, |a| a.elo);
        (elo(self.anchors.first()), elo(self.anchors.last()))
    }

    /// The level at `elo`, between the two anchors around it: nodes
    /// log-linearly, the rest linearly. None outside the table's range.
    pub fn level(&self, elo: u32) -> Option<Level> {
        let i = self.anchors.iter().position(|a| a.elo >= elo)?;
        let hi = self.anchors[i];
        if hi.elo == elo {
            return Some(hi.level);
        }
        let lo = *self.anchors.get(i.checked_sub(1)?)?;
        let t = f64::from(elo - lo.elo) / f64::from(hi.elo - lo.elo);
        let line = |a: f64, b: f64| a + t * (b - a);
        let (a, b) = (lo.level, hi.level);
        let nodes = line((a.nodes as f64).ln(), (b.nodes as f64).ln()).exp();
        Some(Level {
            nodes: (nodes.round() as u64).clamp(a.nodes, b.nodes),
            depth: line(f64::from(a.depth), f64::from(b.depth)).round() as u32,
            moves: line(a.moves as f64, b.moves as f64).round() as usize,
            spread: line(f64::from(a.spread), f64::from(b.spread)).round() as u32,
        })
    }
}

/// A score in centipawns for the choice: mates beyond every evaluation,
/// sooner ones first.
fn centipawns(value: Value) -> i64 {
    match value {
        Value::Cp(cp) => i64::from(cp),
        Value::Mate(n) if n > 0 => i64::from(MATE) - 2 * i64::from(n),
        Value::Mate(n) => -i64::from(MATE) - 2 * i64::from(n),
    }
}

/// The lines of the deepest iteration a search reported, one per MultiPV
/// number (an iteration cut short reports none but its first line).
#[derive(Default)]
pub struct LastLines {
    lines: Vec<SearchInfo>,
}

impl LastLines {
    pub fn record(&mut self, info: &SearchInfo) {
        let depth = self.lines.first().map_or(0, |l| l.depth);
        if info.depth > depth {
            self.lines.clear();
        } else if info.depth < depth {
            return;
        }
        self.lines.retain(|l| l.multipv != info.multipv);
        self.lines.push(info.clone());
        self.lines.sort_by_key(|l| l.multipv);
    }

    /// The lines, in MultiPV order (best first).
    pub fn lines(&self) -> &[SearchInfo] {
        &self.lines
    }
}

/// The line a level plays: each line's score plus a random bonus from 0 to
/// `spread` centipawns, the highest sum (the better line on a tie). The
/// bonus is what a weaker player misjudges: a line much worse than the
/// best is rarely chosen, one close to it often.
pub fn choose(lines: &[SearchInfo], spread: u32, rng: &mut Rng) -> Option<usize> {
    let mut best: Option<(usize, i64)> = None;
    for (i, l) in lines.iter().enumerate() {
        let bonus = (rng.next_u64() % (u64::from(spread) + 1)) as i64;
        let score = centipawns(l.value) + bonus;
        if best.is_none_or(|(_, s)| score > s) {
            best = Some((i, score));
        }
    }
    best.map(|(i, _)| i)
}

/// The strength setting of an engine: whether it plays at a level, the
/// level's Elo, and the random numbers of its choices.
pub struct Strength {
    table: StrengthTable,
    on: bool,
    elo: u32,
    rng: Rng,
}

/// Why an Elo was refused: outside the table's range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EloOutOfRange {
    pub min: u32,
    pub max: u32,
}

impl Strength {
    /// Full strength; the level's choices seeded from the clock, so that
    /// games differ.
    pub fn new() -> Strength {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let table = StrengthTable::builtin();
        let (min, max) = table.range();
        Strength {
            table,
            on: false,
            elo: DEFAULT_ELO.clamp(min, max),
            rng: Rng::new(seed),
        }
    }

    pub fn table(&self) -> &StrengthTable {
        &self.table
    }

    pub fn set_on(&mut self, on: bool) {
        self.on = on;
    }

    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Set the level's Elo; one outside the table's range is refused.
    pub fn set_elo(&mut self, elo: u32) -> Result<(), EloOutOfRange> {
        let (min, max) = self.table.range();
        if !(min..=max).contains(&elo) {
            return Err(EloOutOfRange { min, max });
        }
        self.elo = elo;
        Ok(())
    }

    pub fn elo(&self) -> u32 {
        self.elo
    }

    /// Start the choices' random numbers again from `seed`.
    pub fn set_seed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    /// The level searches play at: none at full strength.
    pub fn level(&self) -> Option<Level> {
        self.on.then(|| self.table.level(self.elo)).flatten()
    }

    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }
}

impl Default for Strength {
    fn default() -> Self {
        Strength::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped table reads, and its levels are ordered: nodes and depth
    /// do not fall as the Elo rises, moves and spread do not rise, also
    /// between the anchors.
    #[test]
    fn the_shipped_levels_are_ordered() {
        let t = StrengthTable::parse(BUILTIN).expect("the shipped table reads");
        let (min, max) = t.range();
        assert!(min <= 800 && max >= 2600, "range {min}..{max}");
        let mut prev: Option<Level> = None;
        for elo in min..=max {
            let l = t.level(elo).expect("a level inside the range");
            if let Some(p) = prev {
                assert!(
                    l.nodes >= p.nodes && l.depth >= p.depth,
                    "{elo}: {l:?} {p:?}"
                );
                assert!(
                    l.moves <= p.moves && l.spread <= p.spread,
                    "{elo}: {l:?} {p:?}"
                );
            }
            prev = Some(l);
        }
        let (low, high) = (t.level(min), t.level(max));
        assert!(
            low.zip(high)
                .is_some_and(|(l, h)| l.nodes < h.nodes && l.spread > h.spread)
        );
        assert_eq!(t.level(min - 1), None);
        assert_eq!(t.level(max + 1), None);
    }

    #[test]
    fn nodes_go_log_linearly_between_anchors() {
        let t = StrengthTable::parse("1000 100 1 4 100\n2000 10000 5 2 0\n").expect("reads");
        let mid = t.level(1500).expect("inside");
        assert_eq!(mid.nodes, 1000);
        assert_eq!((mid.depth, mid.moves, mid.spread), (3, 3, 50));
    }

    #[test]
    fn tables_out_of_order_or_malformed_are_refused() {
        let parse = StrengthTable::parse;
        assert_eq!(parse(""), Err(TableError::Empty));
        assert_eq!(parse("# only\n"), Err(TableError::Empty));
        for row in ["800 300 1 8", "800 300 1 8 x", "800 300 1 8 -4"] {
            assert_eq!(parse(row), Err(TableError::BadRow(1)), "{row}");
        }
        let below = TableError::OutOfOrder(1, "a value below 1");
        assert_eq!(parse("800 300 0 8 4"), Err(below));
        // Each column out of order in the second row.
        for (second, column) in [
            ("700 400 1 8 4", "elo"),
            ("900 200 1 8 4", "nodes"),
            ("900 400 0 8 4", "a value below 1"),
            ("900 400 1 9 4", "moves"),
            ("900 400 1 8 5", "spread"),
        ] {
            let text = format!("800 300 1 8 4\n{second}\n");
            assert_eq!(parse(&text), Err(TableError::OutOfOrder(2, column)));
        }
        let text = "800 300 2 8 4\n900 400 1 8 4\n";
        assert_eq!(parse(text), Err(TableError::OutOfOrder(2, "depth")));
    }

    #[test]
    fn an_elo_outside_the_table_is_refused() {
        let mut s = Strength::new();
        let (min, max) = s.table().range();
        assert_eq!(s.set_elo(max + 1), Err(EloOutOfRange { min, max }));
        assert_eq!(s.set_elo(min - 1), Err(EloOutOfRange { min, max }));
        assert_eq!(s.elo(), DEFAULT_ELO);
        assert_eq!(s.set_elo(min), Ok(()));
        assert_eq!(s.level(), None, "off: full strength");
        s.set_on(true);
        assert_eq!(s.level(), s.table().level(min));
    }

    #[test]
    fn the_level_lowers_the_users_limits_only() {
        let l = Level {
            nodes: 1000,
            depth: 4,
            moves: 2,
            spread: 10,
        };
        let none = l.lower(&Limits::default());
        assert_eq!((none.nodes, none.depth), (Some(1000), Some(4)));
        let user = Limits {
            nodes: Some(10),
            depth: Some(9),
            movetime: Some(50),
            ..Default::default()
        };
        let lowered = l.lower(&user);
        assert_eq!((lowered.nodes, lowered.depth), (Some(10), Some(4)));
        assert_eq!(lowered.movetime, Some(50));
    }

    fn line(multipv: usize, depth: u32, cp: i32) -> SearchInfo {
        SearchInfo {
            depth,
            seldepth: depth,
            multipv,
            value: Value::Cp(cp),
            bound: None,
            nodes: 0,
            nps: 0,
            time_ms: 0,
            hashfull: 0,
            pv: Vec::new(),
        }
    }

    #[test]
    fn the_last_lines_are_the_deepest_iterations() {
        let mut last = LastLines::default();
        for info in [line(1, 1, 5), line(2, 1, 3), line(1, 2, 7), line(2, 2, 1)] {
            last.record(&info);
        }
        let got: Vec<(u32, usize, Value)> = last
            .lines()
            .iter()
            .map(|l| (l.depth, l.multipv, l.value))
            .collect();
        assert_eq!(got, [(2, 1, Value::Cp(7)), (2, 2, Value::Cp(1))]);
    }

    /// No spread plays the best line; a spread picks others too, more
    /// often the closer they are, and repeats with the seed.
    #[test]
    fn the_choice_widens_with_the_spread() {
        let lines = [line(1, 3, 100), line(2, 3, 90), line(3, 3, -300)];
        let picks = |spread, seed| {
            let mut rng = Rng::new(seed);
            let mut count = [0usize; 3];
            for _ in 0..1000 {
                count[choose(&lines, spread, &mut rng).expect("lines")] += 1;
            }
            count
        };
        assert_eq!(picks(0, 1), [1000, 0, 0]);
        let wide = picks(100, 1);
        assert!(
            wide[1] > 100 && wide[0] > wide[1] && wide[2] == 0,
            "{wide:?}"
        );
        let wider = picks(1000, 1);
        assert!(wider[2] > 0, "{wider:?}");
        assert_eq!(picks(100, 7), picks(100, 7));
        assert_eq!(choose(&[], 100, &mut Rng::new(1)), None);
    }
}
