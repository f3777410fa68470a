//! The evaluation's weights as data.
//!
//! Every weight of the evaluation is a middlegame / endgame pair held in one
//! flat vector per variant; a [`Layout`] says where each term's weights lie.
//! The defaults are derived from the variant (material from the ini's piece
//! values, piece-square values from empty-board mobility); a parameter file
//! replaces any of them.
//!
//! # Parameter files
//!
//! Plain text, one `name = numbers` line per weight or row of weights;
//! `#` starts a comment. A weight not named keeps its default; a name the
//! variant has no use for, a wrong count of numbers, a number outside
//! plus or minus 100,000 or a name given twice is an error with file and
//! line. The names (`L` is a man's lower-case letter, `R` a rank number
//! counted from White's side, `D` a distance):
//!
//! | name | numbers | meaning |
//! |---|---|---|
//! | `value.L` | mg eg | material |
//! | `psq.L.mg.R`, `psq.L.eg.R` | one per file | piece-square values of White's man (Black's mirrored by rank) |
//! | `passed.D` | mg eg | a passed pawn-type man D steps from promotion |
//! | `passed.free.D` | mg eg | such a man whose next square is empty |
//! | `passed.king.D` | mg eg | per step from its own king to the square in front of such a man |
//! | `passed.enemy.D` | mg eg | per step from the enemy king to that square |
//! | `doubled` | mg eg | a pawn-type man with a friendly one directly ahead |
//! | `isolated` | mg eg | a pawn-type man with no friendly one on a neighbouring file |
//! | `connected` | mg eg | a pawn-type man beside or diagonally behind a friendly one |
//! | `backward` | mg eg | a pawn-type man, not passed, with no friendly one on a neighbouring file level or behind, whose next square an enemy pawn-type man attacks |
//! | `shelter` | mg eg | per friendly pawn-type man on the three squares in front of the king |
//! | `storm` | mg eg | per enemy pawn-type man two or three steps in front of the king, on its file or a neighbour |
//! | `mobility.L` | mg eg | per slide direction of a sliding man open at its first step |
//! | `pair.L` | mg eg | a colour-bound man of this type on both square colours |
//! | `threat.L` | mg eg | a man of this type attacked by an enemy pawn-type man (for the attacker) |
//! | `attacker.L` | mg eg | a man of this type within two squares of the enemy king |
//! | `hit.L` | mg eg | a man of this type (not royal) that a cheaper man, not of a pawn type, can capture (for the attacker, per attacker) |
//! | `moves.L` | mg eg | per move of a man of this type (not a pawn type, not royal) to a square no enemy pawn-type man attacks |
//! | `tempo` | mg eg | the side to move |
//!
//! [`EvalParams::to_text`] writes every name, so a written file is a full
//! list to edit.

use crate::rules::sums::Score;
use crate::rules::variant::IniError;

/// The largest weight a file may give, in centipawns (the ini's piece
/// values have the same bound).
pub const MAX_WEIGHT: i32 = 100_000;

/// Where each term's weights lie in the flat vector of a variant.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    pub files: usize,
    pub ranks: usize,
    /// Per piece type: its lower-case letter.
    pub letters: Vec<char>,
    /// Per piece type: whether it slides (has a mobility weight).
    pub sliding: Vec<bool>,
    /// Per piece type: whether it is colour-bound (has a pair weight).
    pub bound: Vec<bool>,
    /// Per piece type: whether it is one of the variant's pawn types.
    pub pawn: Vec<bool>,
    /// Per piece type: whether it is royal.
    pub royal: Vec<bool>,
    value: usize,
    psq: usize,
    passed: usize,
    passed_free: usize,
    passed_king: usize,
    passed_enemy: usize,
    doubled: usize,
    isolated: usize,
    connected: usize,
    backward: usize,
    shelter: usize,
    storm: usize,
    mobility: usize,
    pair: usize,
    threat: usize,
    attacker: usize,
    moves: usize,
    hit: usize,
    tempo: usize,
    len: usize,
}

impl Layout {
    /// The layout of a variant with these men and board.
    pub fn new(
        files: usize,
        ranks: usize,
        letters: Vec<char>,
        sliding: Vec<bool>,
        bound: Vec<bool>,
        pawn: Vec<bool>,
        royal: Vec<bool>,
    ) -> Layout {
        let n = letters.len();
        let squares = files * ranks;
        let value = 0;
        let psq = value + n;
        let passed = psq + n * squares;
        let distances = ranks.saturating_sub(1).max(1);
        let passed_free = passed + distances;
        let passed_king = passed_free + distances;
        let passed_enemy = passed_king + distances;
        let doubled = passed_enemy + distances;
        let isolated = doubled + 1;
        let connected = isolated + 1;
        let backward = connected + 1;
        let shelter = backward + 1;
        let storm = shelter + 1;
        let mobility = storm + 1;
        let pair = mobility + n;
        let threat = pair + n;
        let attacker = threat + n;
        let moves = attacker + n;
        let hit = moves + n;
        let tempo = hit + n;
        Layout {
            files,
            ranks,
            letters,
            sliding,
            bound,
            pawn,
            royal,
            value,
            psq,
            passed,
            passed_free,
            passed_king,
            passed_enemy,
            doubled,
            isolated,
            connected,
            backward,
            shelter,
            storm,
            mobility,
            pair,
            threat,
            attacker,
            moves,
            hit,
            tempo,
            len: tempo + 1,
        }
    }

    /// Number of weights.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn value(&self, t: usize) -> usize {
        self.value + t
    }

    /// Piece-square weight of type `t` on the square `file`, `rank` seen
    /// from its own side (rank 0 is its first rank).
    pub fn psq(&self, t: usize, file: usize, rank: usize) -> usize {
        self.psq + t * self.files * self.ranks + rank * self.files + file
    }

    /// Passed-pawn weight for a man `distance` steps from promotion
    /// (distances beyond the board's count as the farthest).
    pub fn passed(&self, distance: usize) -> usize {
        self.passed + self.distance(distance)
    }
    /// A passed man `distance` steps from promotion with its next square empty.
    pub fn passed_free(&self, distance: usize) -> usize {
        self.passed_free + self.distance(distance)
    }
    /// Per step of its own king from its next square.
    pub fn passed_king(&self, distance: usize) -> usize {
        self.passed_king + self.distance(distance)
    }
    /// Per step of the enemy king from its next square.
    pub fn passed_enemy(&self, distance: usize) -> usize {
        self.passed_enemy + self.distance(distance)
    }
    fn distance(&self, distance: usize) -> usize {
        let top = self.ranks.saturating_sub(1).max(1);
        distance.clamp(1, top) - 1
    }

    pub fn doubled(&self) -> usize {
        self.doubled
    }
    pub fn isolated(&self) -> usize {
        self.isolated
    }
    pub fn connected(&self) -> usize {
        self.connected
    }
    pub fn backward(&self) -> usize {
        self.backward
    }
    pub fn shelter(&self) -> usize {
        self.shelter
    }
    pub fn storm(&self) -> usize {
        self.storm
    }
    pub fn mobility(&self, t: usize) -> usize {
        self.mobility + t
    }
    pub fn pair(&self, t: usize) -> usize {
        self.pair + t
    }
    pub fn threat(&self, t: usize) -> usize {
        self.threat + t
    }
    pub fn attacker(&self, t: usize) -> usize {
        self.attacker + t
    }
    /// Whether men of type `t` have a `moves` weight.
    pub fn mobile(&self, t: usize) -> bool {
        !self.pawn[t] && !self.royal[t]
    }
    pub fn moves(&self, t: usize) -> usize {
        self.moves + t
    }
    pub fn hit(&self, t: usize) -> usize {
        self.hit + t
    }
    pub fn tempo(&self) -> usize {
        self.tempo
    }

    /// The mirror image (by file) of weight `i`, for a left-right symmetric
    /// fit; weights that are not piece-square values are their own image.
    pub fn mirror(&self, i: usize) -> usize {
        let squares = self.files * self.ranks;
        if i < self.psq || i >= self.passed || squares == 0 {
            return i;
        }
        let k = i - self.psq;
        let (t, sq) = (k / squares, k % squares);
        let (rank, file) = (sq / self.files, sq % self.files);
        self.psq(t, self.files - 1 - file, rank)
    }

    /// Every line of a parameter file: its name and the weights (with the
    /// half of each) that its numbers set, in order.
    fn keys(&self) -> Vec<Key> {
        let mut keys = Vec::new();
        let both = |name: String, i: usize| Key {
            name,
            slots: vec![(i, Half::Mg), (i, Half::Eg)],
        };
        for (t, &l) in self.letters.iter().enumerate() {
            keys.push(both(format!("value.{l}"), self.value(t)));
        }
        for (t, &l) in self.letters.iter().enumerate() {
            for (half, tag) in [(Half::Mg, "mg"), (Half::Eg, "eg")] {
                for rank in (0..self.ranks).rev() {
                    keys.push(Key {
                        name: format!("psq.{l}.{tag}.{}", rank + 1),
                        slots: (0..self.files)
                            .map(|f| (self.psq(t, f, rank), half))
                            .collect(),
                    });
                }
            }
        }
        if self.pawn.iter().any(|&p| p) {
            for d in 1..=self.ranks.saturating_sub(1).max(1) {
                keys.push(both(format!("passed.{d}"), self.passed(d)));
            }
            for (tag, at) in [
                ("free", self.passed_free),
                ("king", self.passed_king),
                ("enemy", self.passed_enemy),
            ] {
                for d in 1..=self.ranks.saturating_sub(1).max(1) {
                    keys.push(both(format!("passed.{tag}.{d}"), at + d - 1));
                }
            }
            keys.push(both("doubled".into(), self.doubled));
            keys.push(both("isolated".into(), self.isolated));
            keys.push(both("connected".into(), self.connected));
            keys.push(both("backward".into(), self.backward));
            keys.push(both("shelter".into(), self.shelter));
            keys.push(both("storm".into(), self.storm));
        }
        for (t, &l) in self.letters.iter().enumerate() {
            if self.sliding[t] {
                keys.push(both(format!("mobility.{l}"), self.mobility(t)));
            }
        }
        for (t, &l) in self.letters.iter().enumerate() {
            if self.bound[t] {
                keys.push(both(format!("pair.{l}"), self.pair(t)));
            }
        }
        let pawns = self.pawn.iter().any(|&p| p);
        for (t, &l) in self.letters.iter().enumerate() {
            if pawns && !self.pawn[t] && !self.royal[t] {
                keys.push(both(format!("threat.{l}"), self.threat(t)));
            }
        }
        for (t, &l) in self.letters.iter().enumerate() {
            if !self.royal[t] {
                keys.push(both(format!("attacker.{l}"), self.attacker(t)));
            }
        }
        for (t, &l) in self.letters.iter().enumerate() {
            if self.mobile(t) {
                keys.push(both(format!("moves.{l}"), self.moves(t)));
            }
        }
        for (t, &l) in self.letters.iter().enumerate() {
            if !self.royal[t] {
                keys.push(both(format!("hit.{l}"), self.hit(t)));
            }
        }
        keys.push(both("tempo".into(), self.tempo));
        keys
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Half {
    Mg,
    Eg,
}

struct Key {
    name: String,
    slots: Vec<(usize, Half)>,
}

/// A variant's weights with their layout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EvalParams {
    pub layout: Layout,
    pub weights: Vec<Score>,
}

impl EvalParams {
    /// All weights zero.
    pub fn zero(layout: Layout) -> EvalParams {
        let weights = vec![Score::ZERO; layout.len()];
        EvalParams { layout, weights }
    }

    /// Set the weights a parameter file names; `file` is its name in
    /// errors. On an error nothing is changed.
    pub fn read_text(&mut self, text: &str, file: &str) -> Result<(), Vec<IniError>> {
        let keys = self.layout.keys();
        let index: std::collections::HashMap<&str, usize> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.name.as_str(), i))
            .collect();
        let mut seen = vec![false; keys.len()];
        let mut weights = self.weights.clone();
        let mut errors = Vec::new();
        let error = |line: usize, message: String| IniError {
            file: file.to_string(),
            line,
            message,
        };
        for (n, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let Some((name, numbers)) = line.split_once('=') else {
                errors.push(error(
                    n + 1,
                    format!("expected 'name = numbers', found '{line}'"),
                ));
                continue;
            };
            let name = name.trim();
            let Some(&k) = index.get(name) else {
                errors.push(error(n + 1, format!("unknown parameter '{name}'")));
                continue;
            };
            if seen[k] {
                errors.push(error(n + 1, format!("'{name}' given twice")));
                continue;
            }
            seen[k] = true;
            let parsed: Result<Vec<i32>, String> = numbers
                .split_whitespace()
                .map(|x| {
                    x.parse::<i32>()
                        .ok()
                        .filter(|v| v.abs() <= MAX_WEIGHT)
                        .ok_or_else(|| format!("'{x}' is no whole number within {MAX_WEIGHT}"))
                })
                .collect();
            let values = match parsed {
                Ok(v) => v,
                Err(e) => {
                    errors.push(error(n + 1, format!("{name}: {e}")));
                    continue;
                }
            };
            let slots = &keys[k].slots;
            if values.len() != slots.len() {
                errors.push(error(
                    n + 1,
                    format!(
                        "{name}: {} numbers expected, found {}",
                        slots.len(),
                        values.len()
                    ),
                ));
                continue;
            }
            for (&(i, half), &x) in slots.iter().zip(&values) {
                match half {
                    Half::Mg => weights[i] = Score::new(x, weights[i].eg()),
                    Half::Eg => weights[i] = Score::new(weights[i].mg(), x),
                }
            }
        }
        if errors.is_empty() {
            self.weights = weights;
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// The full parameter file of these weights, after `header` (comment
    /// lines, `#` added).
    pub fn to_text(&self, header: &str) -> String {
        let mut out = String::new();
        for l in header.lines() {
            out.push_str("# ");
            out.push_str(l);
            out.push('\n');
        }
        let mut group = String::new();
        for key in self.layout.keys() {
            let head = key.name.split('.').next().unwrap_or("").to_string();
            if head != group {
                out.push('\n');
                group = head;
            }
            let numbers: Vec<String> = key
                .slots
                .iter()
                .map(|&(i, half)| {
                    let s = self.weights[i];
                    match half {
                        Half::Mg => s.mg(),
                        Half::Eg => s.eg(),
                    }
                    .to_string()
                })
                .collect();
            out.push_str(&format!("{} = {}\n", key.name, numbers.join(" ")));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout::new(
            4,
            3,
            vec!['p', 'r', 'b', 'k'],
            vec![false, true, true, false],
            vec![false, false, true, false],
            vec![true, false, false, false],
            vec![false, false, false, true],
        )
    }

    #[test]
    fn a_written_file_reads_back_the_same_weights() {
        let mut p = EvalParams::zero(layout());
        for (i, w) in p.weights.iter_mut().enumerate() {
            *w = Score::new(i as i32, -(i as i32) * 3);
        }
        let text = p.to_text("test");
        let mut q = EvalParams::zero(layout());
        q.read_text(&text, "t").expect("reads");
        assert_eq!(q.to_text("test"), text);
        // Every weight the file has a name for came back; the others (the
        // mobility of men that do not slide, pairs of men that are not
        // colour-bound) have no meaning and stay zero.
        let l = layout();
        for i in [
            l.value(3),
            l.psq(1, 2, 1),
            l.passed(2),
            l.isolated(),
            l.mobility(2),
            l.pair(2),
            l.tempo(),
        ] {
            assert_eq!(q.weights[i], p.weights[i], "weight {i}");
        }
        assert_eq!(q.weights[l.mobility(0)], Score::ZERO);
        assert_eq!(q.weights[l.pair(1)], Score::ZERO);
    }

    #[test]
    fn bad_lines_are_errors_with_their_line_and_change_nothing() {
        let mut p = EvalParams::zero(layout());
        let text = "value.p = 90 110\n# fine\nvalue.x = 1 2\npsq.r.mg.2 = 1 2 3\n\
                    value.r = 1 2\nvalue.r = 1 2\nmobility.p = 1 1\ntempo = 1 999999\nnonsense\n";
        let errors = p.read_text(text, "f.params").expect_err("errors");
        let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![3, 4, 6, 7, 8, 9], "{errors:?}");
        assert!(errors.iter().all(|e| e.file == "f.params"));
        assert!(errors[1].message.contains("4 numbers expected, found 3"));
        assert_eq!(p, EvalParams::zero(layout()));
    }

    #[test]
    fn psq_rows_fill_the_named_rank_and_mirror_pairs_files() {
        let l = layout();
        let mut p = EvalParams::zero(l.clone());
        p.read_text("psq.b.eg.3 = 1 2 3 4\n", "t").expect("reads");
        assert_eq!(p.weights[l.psq(2, 0, 2)].eg(), 1);
        assert_eq!(p.weights[l.psq(2, 3, 2)].eg(), 4);
        assert_eq!(p.weights[l.psq(2, 3, 2)].mg(), 0);
        assert_eq!(l.mirror(l.psq(2, 0, 2)), l.psq(2, 3, 2));
        assert_eq!(l.mirror(l.psq(1, 1, 0)), l.psq(1, 2, 0));
        assert_eq!(l.mirror(l.tempo()), l.tempo());
        assert_eq!(l.passed(99), l.passed(2));
    }
}
