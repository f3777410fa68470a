//! `amalgam pgn stats`: the games of the match runner's PGN files (the
//! parts of a match played with `--shard`, or separate matches of the same
//! engines) merged into one set of results.
//!
//! A game pair is named by the `GamePair` tag; PGN written before that tag
//! existed is paired by its `Round`, which the runner numbers through the
//! schedule: with P pairings of engines, game pair p (from 0) holds rounds
//! 2pP + 1 to 2(p + 1)P.

use super::pgn::{GAME_PAIR_TAG, PgnGame, read_games};
use super::results::Results;
use crate::rules::game::Outcome;
use std::collections::HashMap;
use std::fmt;

/// Where a game starts: its file and line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub file: String,
    pub line: usize,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A game that cannot be counted, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatsError {
    pub place: Place,
    pub message: String,
}

impl fmt::Display for StatsError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.place.fmt(f)?;
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for StatsError {}

/// A game with the result `*`: not counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unfinished {
    pub place: Place,
    pub round: String,
    pub white: String,
    pub black: String,
}

/// How the files' game pairs relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileRelation {
    /// Parts of one match (`--shard`): game pair p is game pair p in every
    /// file, and no pair may hold a game twice.
    Parts,
    /// Separate matches (runs with other seeds, or one continued): each
    /// file's game pairs are its own, so equal numbers in two files are two
    /// pairs. A file may not be named twice.
    Runs,
}

/// The merged results.
#[derive(Clone, Debug)]
pub struct Merged {
    pub results: Results,
    /// Games read from each file, in the order given.
    pub games_per_file: Vec<usize>,
    pub unfinished: Vec<Unfinished>,
}

/// One game as the statistics need it.
struct Game {
    place: Place,
    white: String,
    black: String,
    /// None for `*`.
    result: Option<Outcome>,
    round_text: String,
    round: Option<usize>,
    game_pair: Option<usize>,
    fen: Option<String>,
    /// The separate match the game belongs to (0 for the parts of one).
    run: usize,
}

/// A whole number from 1.
fn positive(text: &str) -> Option<usize> {
    text.parse::<usize>().ok().filter(|&n| n > 0)
}

fn read_game(g: &PgnGame, file: &str) -> Result<Game, StatsError> {
    let place = Place {
        file: file.to_string(),
        line: g.line.max(1),
    };
    let fail = |message: String| StatsError {
        place: place.clone(),
        message,
    };
    let name = |tag: &str| match g.tag(tag).map(str::trim) {
        Some(n) if !n.is_empty() => Ok(n.to_string()),
        Some(_) => Err(fail(format!(
            "the {tag} tag is empty: the engine's name is needed"
        ))),
        None => Err(fail(format!(
            "no {tag} tag: not a game of the match runner's PGN"
        ))),
    };
    let (white, black) = (name("White")?, name("Black")?);
    if white == black {
        return Err(fail(format!(
            "'{white}' plays both colours: the engines need distinct names"
        )));
    }
    let result = match (g.tag("Result"), g.result.as_deref()) {
        (Some(tag), Some(text)) if tag != text => {
            return Err(fail(format!(
                "Result tag {tag} but the move text ends with {text}"
            )));
        }
        (Some(r), _) | (None, Some(r)) => r,
        (None, None) => return Err(fail("no result, in the tags or the move text".into())),
    };
    let result = match (result, Outcome::from_pgn(result)) {
        (_, Some(o)) => Some(o),
        ("*", None) => None,
        (r, None) => {
            return Err(fail(format!(
                "result '{r}' is none of 1-0, 0-1, 1/2-1/2 and *"
            )));
        }
    };
    let game_pair = match g.tag(GAME_PAIR_TAG) {
        None => None,
        Some(t) => Some(positive(t).ok_or_else(|| {
            fail(format!(
                "{GAME_PAIR_TAG} '{t}' is not a whole number from 1"
            ))
        })?),
    };
    let round_text = g.tag("Round").unwrap_or("?").to_string();
    Ok(Game {
        round: positive(&round_text),
        round_text,
        white,
        black,
        result,
        game_pair,
        fen: g.tag("FEN").map(str::to_string),
        place,
        run: 0,
    })
}

/// A game already seen of a pair: White's engine, start and place.
struct Seen {
    white: usize,
    fen: Option<String>,
    place: Place,
}

/// Merge the games of `files` (name, text), checking that no game pair
/// holds a game twice (a file given twice) or games from two openings.
pub fn merge(files: &[(String, String)], relation: FileRelation) -> Result<Merged, StatsError> {
    let mut games = Vec::new();
    let mut games_per_file = Vec::new();
    for (index, (file, text)) in files.iter().enumerate() {
        if relation == FileRelation::Runs && files[..index].iter().any(|(f, _)| f == file) {
            return Err(StatsError {
                place: Place {
                    file: file.clone(),
                    line: 1,
                },
                message: "the file is named twice".into(),
            });
        }
        let read = read_games(text);
        games_per_file.push(read.len());
        for g in &read {
            let mut game = read_game(g, file)?;
            if relation == FileRelation::Runs {
                game.run = index;
            }
            games.push(game);
        }
    }
    // The engines in the order of the schedule: round 1's White first.
    games.sort_by_key(|g| g.round.unwrap_or(usize::MAX));
    let mut names: Vec<String> = Vec::new();
    for g in &games {
        for n in [&g.white, &g.black] {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    let index = |n: &str| names.iter().position(|x| x == n).unwrap_or(0);
    let pairings = names.len() * names.len().saturating_sub(1) / 2;
    let mut results = Results::new(names.clone());
    let mut seen: HashMap<(usize, usize, usize), Vec<Seen>> = HashMap::new();
    // Each (run, game pair) gets a number of its own for the results.
    let mut pair_ids: HashMap<(usize, usize), usize> = HashMap::new();
    let mut unfinished = Vec::new();
    for g in games {
        let fail = |message: String| StatsError {
            place: g.place.clone(),
            message,
        };
        let pair = match (g.game_pair, g.round) {
            (Some(p), _) => p - 1,
            (None, Some(r)) => (r - 1) / (2 * pairings.max(1)),
            (None, None) => {
                return Err(fail(format!(
                    "no {GAME_PAIR_TAG} tag and Round '{}' is no game number: \
                     the game's opening pair is unknown",
                    g.round_text
                )));
            }
        };
        let next_id = pair_ids.len();
        let pair_id = *pair_ids.entry((g.run, pair)).or_insert(next_id);
        let (w, b) = (index(&g.white), index(&g.black));
        let others = seen.entry((pair_id, w.min(b), w.max(b))).or_default();
        for o in others.iter() {
            if o.white == w {
                return Err(fail(format!(
                    "game pair {} of {} vs {} with {} as White is also at {}: \
                     is a file given twice, or are these separate matches (--separate)?",
                    pair + 1,
                    names[w.min(b)],
                    names[w.max(b)],
                    g.white,
                    o.place
                )));
            }
            if o.fen != g.fen {
                return Err(fail(format!(
                    "game pair {} starts from {}, its other game ({}) from {}",
                    pair + 1,
                    g.fen.as_deref().unwrap_or("the start position"),
                    o.place,
                    o.fen.as_deref().unwrap_or("the start position")
                )));
            }
        }
        others.push(Seen {
            white: w,
            fen: g.fen.clone(),
            place: g.place.clone(),
        });
        match g.result {
            Some(o) => results.add(pair_id, w, b, o),
            None => unfinished.push(Unfinished {
                place: g.place,
                round: g.round_text,
                white: g.white,
                black: g.black,
            }),
        }
    }
    Ok(Merged {
        results,
        games_per_file,
        unfinished,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(round: usize, pair: Option<usize>, white: &str, black: &str, result: &str) -> String {
        let pair = pair.map_or(String::new(), |p| format!("[GamePair \"{p}\"]\n"));
        // Both games of a pair open from one (made-up) position.
        let fen = format!("f{}", round.div_ceil(2));
        format!(
            "[Round \"{round}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n\
             [Result \"{result}\"]\n{pair}[FEN \"{fen}\"]\n\n1. e4 {result}\n\n"
        )
    }

    fn files(texts: &[&str]) -> Vec<(String, String)> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("part{}.pgn", i + 1), t.to_string()))
            .collect()
    }

    #[test]
    fn parts_merge_by_game_pair_with_or_without_the_tag() {
        // Two engines; the second part's games came back in reverse order.
        let one = [
            game(1, Some(1), "A", "B", "1-0"),
            game(2, Some(1), "B", "A", "1/2-1/2"),
            game(5, Some(3), "A", "B", "0-1"),
        ]
        .concat();
        let two = [
            game(4, Some(2), "B", "A", "*"),
            game(3, Some(2), "A", "B", "1-0"),
            game(6, Some(3), "B", "A", "1-0"),
        ]
        .concat();
        for (a, b) in [(one.clone(), two.clone()), (two.clone(), one.clone())] {
            let m = merge(&files(&[&a, &b]), FileRelation::Parts).unwrap();
            assert_eq!(m.results.names(), ["A", "B"]);
            let s = m.results.pair(0, 1);
            assert_eq!((s.wins, s.losses, s.draws), (2, 2, 1));
            assert_eq!(m.results.pentanomial(0, 1).counts, [1, 0, 0, 1, 0]);
            assert_eq!(m.results.unpaired(0, 1), 1);
            assert_eq!(m.unfinished.len(), 1);
            assert_eq!(m.unfinished[0].round, "4");
        }
        // Without the tag the rounds give the same pairs.
        let old = files(&[
            &one.replace("[GamePair", "[Other"),
            &two.replace("[GamePair", "[X"),
        ]);
        let m = merge(&old, FileRelation::Parts).unwrap();
        assert_eq!(m.results.pentanomial(0, 1).counts, [1, 0, 0, 1, 0]);
        assert_eq!(m.games_per_file, [3, 3]);
    }

    #[test]
    fn bad_games_are_named_by_file_and_line() {
        let good = game(1, Some(1), "A", "B", "1-0");
        let cases = [
            (format!("{good}{good}"), "part1.pgn:10", "given twice"),
            (
                good.replace("[White \"A\"]\n", ""),
                "part1.pgn:1",
                "no White tag",
            ),
            (
                good.replace("[Black \"B\"]", "[Black \" \"]"),
                "part1.pgn:1",
                "the Black tag is empty",
            ),
            (
                good.replace("\"B\"", "\"A\""),
                "part1.pgn:1",
                "both colours",
            ),
            (
                good.replace("1. e4 1-0", "1. e4 0-1"),
                "part1.pgn:1",
                "Result tag 1-0",
            ),
            (good.replace("1-0", "2-0"), "part1.pgn:1", "none of"),
            (
                good.replace("Pair \"1\"", "Pair \"0\""),
                "part1.pgn:1",
                "GamePair '0'",
            ),
            (
                good.replace("[GamePair \"1\"]\n", "")
                    .replace("\"1\"", "\"?\""),
                "part1.pgn:1",
                "Round '?'",
            ),
            (
                format!(
                    "{good}{}",
                    game(2, Some(1), "B", "A", "1-0").replace("f1", "f9")
                ),
                "part1.pgn:10",
                "other game (part1.pgn:1)",
            ),
            (
                "just some text\n".to_string(),
                "part1.pgn:1",
                "no White tag",
            ),
        ];
        for (text, place, what) in cases {
            let e = merge(&files(&[&text]), FileRelation::Parts)
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(place) && e.contains(what), "{e}\n{text}");
        }
        // An empty part is no error.
        let m = merge(&files(&[&good, ""]), FileRelation::Parts).unwrap();
        assert_eq!(m.games_per_file, [1, 0]);
    }

    #[test]
    fn separate_runs_keep_their_pairs_apart() {
        // Two matches of the same engines, both numbering their pairs from 1.
        let run = |a: &str, b: &str| {
            [game(1, Some(1), "A", "B", a), game(2, Some(1), "B", "A", b)].concat()
        };
        let (one, two) = (run("1-0", "0-1"), run("1/2-1/2", "1-0"));
        let both = files(&[&one, &two]);
        // As parts of one match they collide.
        let e = merge(&both, FileRelation::Parts).unwrap_err().to_string();
        assert!(e.contains("given twice"), "{e}");
        // As separate runs they are two pairs: A scored 2 of 2, then 1/2 of 2.
        let m = merge(&both, FileRelation::Runs).unwrap();
        let s = m.results.pair(0, 1);
        assert_eq!((s.wins, s.losses, s.draws), (2, 1, 1));
        assert_eq!(m.results.pentanomial(0, 1).counts, [0, 1, 0, 0, 1]);
        assert_eq!(m.results.unpaired(0, 1), 0);
        // One file named twice is still refused.
        let twice = vec![
            ("x.pgn".to_string(), one.clone()),
            ("x.pgn".to_string(), one),
        ];
        let e = merge(&twice, FileRelation::Runs).unwrap_err().to_string();
        assert!(e.starts_with("x.pgn:1") && e.contains("named twice"), "{e}");
    }
}
