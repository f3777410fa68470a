//! The results of a match by pairing of engines (wins, losses, draws and
//! the game pairs' pentanomial counts) and their summary table: the match
//! runner and `amalgam pgn stats` print the same lines from the same games.

use super::stats::{Pentanomial, Score, Sprt, readable};
use crate::rules::game::Outcome;
use std::collections::HashMap;

/// Results of a match between named engines (indices into `names`).
#[derive(Clone, Debug)]
pub struct Results {
    names: Vec<String>,
    /// `scores[a][b]`: results of engine a against engine b.
    scores: Vec<Vec<Score>>,
    /// `pairs[a][b]`: game pairs of a against b, by a's points.
    pairs: Vec<Vec<Pentanomial>>,
    /// Games whose pair is not complete, by (game pair, a, b) with a < b:
    /// the half points a took in them.
    waiting: HashMap<(usize, usize, usize), u32>,
}

/// Elo with its 95% margin, or the infinite score it cannot give.
pub fn fmt_elo(s: &Score) -> String {
    // No "-0.0" for an even score.
    let tidy = |e: f64| if e.abs() < 0.05 { 0.0 } else { e };
    match (s.elo().map(tidy), s.elo_margin()) {
        (Some(e), Some(m)) => format!("{e:+.1} +/- {m:.1}"),
        (Some(e), None) => format!("{e:+.1} +/- inf"),
        (None, _) => match s.ratio() {
            Some(r) if r >= 1.0 => "+inf".to_string(),
            Some(_) => "-inf".to_string(),
            None => "-".to_string(),
        },
    }
}

/// LOS as a percentage.
pub fn fmt_los(s: &Score) -> String {
    s.los().map_or("-".into(), |l| format!("{:.1}%", l * 100.0))
}

impl Results {
    pub fn new(names: Vec<String>) -> Results {
        let n = names.len();
        Results {
            names,
            scores: vec![vec![Score::default(); n]; n],
            pairs: vec![vec![Pentanomial::default(); n]; n],
            waiting: HashMap::new(),
        }
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Count a finished game of game pair `pair`. The caller gives each
    /// pair's two games (one with each colour) once each; the pair is
    /// counted when its second game comes, in either order.
    pub fn add(&mut self, pair: usize, white: usize, black: usize, result: Outcome) {
        let mut sw = Score::default();
        match result {
            Outcome::WhiteWins => sw.wins = 1,
            Outcome::BlackWins => sw.losses = 1,
            Outcome::Draw => sw.draws = 1,
        }
        self.scores[white][black].add(sw);
        self.scores[black][white].add(sw.flipped());
        let (a, b) = (white.min(black), white.max(black));
        let of_a = if a == white { sw } else { sw.flipped() };
        let half_points = 2 * of_a.wins + of_a.draws;
        match self.waiting.remove(&(pair, a, b)) {
            Some(first) => {
                self.pairs[a][b].add_pair(first, half_points);
                self.pairs[b][a] = self.pairs[a][b].flipped();
            }
            None => {
                self.waiting.insert((pair, a, b), half_points);
            }
        }
    }

    /// Results of engine `a` against engine `b`.
    pub fn pair(&self, a: usize, b: usize) -> Score {
        self.scores[a][b]
    }

    /// Game pairs of engine `a` against engine `b`, by a's points.
    pub fn pentanomial(&self, a: usize, b: usize) -> Pentanomial {
        self.pairs[a][b]
    }

    /// Games of `a` against `b` whose pair is not complete.
    pub fn unpaired(&self, a: usize, b: usize) -> usize {
        let (a, b) = (a.min(b), a.max(b));
        self.waiting
            .keys()
            .filter(|&&(_, x, y)| (x, y) == (a, b))
            .count()
    }

    /// Results of engine `a` against all others.
    pub fn total(&self, a: usize) -> Score {
        let mut s = Score::default();
        for x in &self.scores[a] {
            s.add(*x);
        }
        s
    }

    /// The summary: a table ranked by score, the results of each pairing
    /// (with more than two engines), the pentanomial counts of each
    /// pairing and, with two engines, the SPRT's state.
    pub fn summary(&self, sprt: Option<Sprt>) -> Vec<String> {
        let mut out = vec![format!(
            "{:<4} {:<20} {:>6} {:>5} {:>5} {:>5} {:>7}  {:<20} {:>7}",
            "Rank", "Name", "Games", "W", "L", "D", "Score", "Elo (95%)", "LOS"
        )];
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| {
            let r = |i: usize| self.total(i).ratio().unwrap_or(0.0);
            r(b).total_cmp(&r(a))
        });
        for (rank, &i) in order.iter().enumerate() {
            let s = self.total(i);
            out.push(format!(
                "{:<4} {:<20} {:>6} {:>5} {:>5} {:>5} {:>6.1}%  {:<20} {:>7}",
                rank + 1,
                self.names[i],
                s.games(),
                s.wins,
                s.losses,
                s.draws,
                s.ratio().unwrap_or(0.0) * 100.0,
                fmt_elo(&s),
                fmt_los(&s),
            ));
        }
        let n = self.names.len();
        for a in 0..n {
            for b in a + 1..n {
                let s = self.pair(a, b);
                if n > 2 {
                    out.push(format!(
                        "  {} vs {}: {}-{}-{} Elo {}",
                        self.names[a],
                        self.names[b],
                        s.wins,
                        s.losses,
                        s.draws,
                        fmt_elo(&s)
                    ));
                }
                out.push(self.pentanomial_line(a, b));
            }
        }
        if let Some(sprt) = sprt
            && n == 2
        {
            out.push(sprt_line(&sprt, &self.pair(0, 1)));
        }
        out
    }

    fn pentanomial_line(&self, a: usize, b: usize) -> String {
        let p = self.pentanomial(a, b);
        let counts: Vec<String> = p.counts.iter().map(u32::to_string).collect();
        let unpaired = self.unpaired(a, b);
        let mut line = format!(
            "Game pairs {} vs {} by {}'s points 0, 1/2, 1, 3/2, 2: {} ({} pair{}",
            self.names[a],
            self.names[b],
            self.names[a],
            counts.join(" "),
            p.pairs(),
            if p.pairs() == 1 { "" } else { "s" }
        );
        if unpaired > 0 {
            line.push_str(&format!(
                "; {unpaired} game{} without the other colour",
                if unpaired == 1 { "" } else { "s" }
            ));
        }
        line.push(')');
        line
    }
}

/// The SPRT's parameters, LLR, bounds and decision for `score`.
pub fn sprt_line(sprt: &Sprt, score: &Score) -> String {
    let (lo, hi) = sprt.bounds();
    let decision = sprt
        .decision(score)
        .map_or("no decision".to_string(), |d| d.to_string());
    format!(
        "SPRT elo0={} elo1={} alpha={} beta={}: LLR {:.2} [{lo:.2}, {hi:.2}], {decision}",
        readable(sprt.elo0),
        readable(sprt.elo1),
        readable(sprt.alpha),
        readable(sprt.beta),
        sprt.llr(score)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_counted_when_both_colours_are_in() {
        let mut r = Results::new(vec!["A".into(), "B".into()]);
        // Pair 0: A wins with White, draws with Black: 3/2 points.
        r.add(0, 0, 1, Outcome::WhiteWins);
        assert_eq!(r.unpaired(0, 1), 1);
        r.add(0, 1, 0, Outcome::Draw);
        // Pair 1, second game first: B wins both.
        r.add(1, 1, 0, Outcome::WhiteWins);
        r.add(1, 0, 1, Outcome::BlackWins);
        // Pair 2: one game only.
        r.add(2, 0, 1, Outcome::Draw);
        assert_eq!(r.pentanomial(0, 1).counts, [1, 0, 0, 1, 0]);
        assert_eq!(r.pentanomial(1, 0).counts, [0, 1, 0, 0, 1]);
        assert_eq!(r.unpaired(1, 0), 1);
        assert_eq!(
            r.pair(0, 1),
            Score {
                wins: 1,
                losses: 2,
                draws: 2
            }
        );
        let lines = r.summary(None);
        assert!(
            lines.contains(
                &"Game pairs A vs B by A's points 0, 1/2, 1, 3/2, 2: 1 0 0 1 0 (2 pairs; \
                  1 game without the other colour)"
                    .to_string()
            ),
            "{lines:?}"
        );
        // B leads the table.
        assert!(lines[1].starts_with("1    B "), "{lines:?}");
    }
}
