//! `match --resume`: the games a stopped match left in its PGN file. Each
//! must be a game of the match's schedule (its round, engines, game pair,
//! opening and variant), and none may come twice; the match then plays only
//! the rest. A last game cut short (the runner killed while writing it) is
//! dropped from the file and played again; a damaged game before it stops
//! the resumption, since dropping it would drop whole games after it, and
//! so does a game whose moves or result the rules refuse (the file would
//! keep it, and `pgn check` refuse the file).

use super::errors::ResumeError;
use super::pgn::{GAME_PAIR_TAG, PgnGame, read_games};
use crate::rules::game::Outcome;
use std::collections::HashMap;

/// A game of the schedule as a PGN game must name it.
#[derive(Clone, Debug)]
pub struct Expected<'a> {
    /// The game pair, from 0.
    pub pair: usize,
    pub white: &'a str,
    pub black: &'a str,
    /// The FEN the game starts from.
    pub fen: &'a str,
    /// The moves of its opening after the FEN, in SAN.
    pub opening: Vec<String>,
}

/// A game already played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Done {
    pub round: usize,
    pub result: Outcome,
    pub termination: String,
}

/// The whole games of a PGN file, in the file's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resumed {
    pub done: Vec<Done>,
    /// How much of the file's text holds them: the rest is dropped.
    pub keep: usize,
    /// The line where a last game cut short started, if there was one.
    pub dropped: Option<usize>,
}

/// The result of a whole game: its `Result` tag, which its move text ends
/// with too. The runner writes a game at once, so a game without one was
/// cut short.
fn result(g: &PgnGame) -> Result<Outcome, String> {
    match (g.tag("Result"), g.result.as_deref()) {
        (_, None) => Err("no result at the end of its moves".into()),
        (None, Some(_)) => Err("no Result tag".into()),
        (Some(tag), Some(text)) if tag != text => Err(format!(
            "Result tag {tag} but the move text ends with {text}"
        )),
        (Some(r), Some(_)) => {
            Outcome::from_pgn(r).ok_or_else(|| format!("result '{r}' is no finished game"))
        }
    }
}

/// Check a whole game against the game of the schedule its round names.
fn scheduled<'a>(
    g: &PgnGame,
    variant: &str,
    expected: &impl Fn(usize) -> Option<Expected<'a>>,
) -> Result<usize, String> {
    let round_text = g.tag("Round").unwrap_or("?");
    let round = round_text
        .parse::<usize>()
        .ok()
        .filter(|&r| r > 0)
        .ok_or_else(|| format!("Round '{round_text}' is no game number"))?;
    let e = expected(round).ok_or_else(|| format!("round {round} is not in its schedule"))?;
    let pair = (e.pair + 1).to_string();
    for (tag, want) in [
        ("White", e.white),
        ("Black", e.black),
        (GAME_PAIR_TAG, pair.as_str()),
        ("FEN", e.fen),
        ("Variant", variant),
    ] {
        let got = g.tag(tag).unwrap_or("");
        if got != want {
            return Err(format!(
                "round {round} has {tag} '{got}' where the match has '{want}'"
            ));
        }
    }
    if !g.moves.starts_with(&e.opening) {
        return Err(format!(
            "round {round} does not open with the match's opening ({})",
            e.opening.join(" ")
        ));
    }
    Ok(round)
}

/// The start of line `line` (from 1) in `text`, in bytes.
fn line_start(text: &str, line: usize) -> usize {
    text.split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum()
}

/// Read the games of a match's PGN `text` in `variant`; `expected` gives
/// the scheduled game of a round, `None` for a round outside the schedule;
/// `replays` checks a whole game's moves and result by the rules.
pub fn read<'a>(
    text: &str,
    variant: &str,
    expected: impl Fn(usize) -> Option<Expected<'a>>,
    replays: impl Fn(&PgnGame) -> Result<usize, String>,
) -> Result<Resumed, ResumeError> {
    let games = read_games(text);
    let mut done = Vec::new();
    let mut first_line: HashMap<usize, usize> = HashMap::new();
    let mut keep = text.len();
    let mut dropped = None;
    for (i, g) in games.iter().enumerate() {
        let line = g.line.max(1);
        let result = match result(g) {
            Ok(r) => r,
            Err(_) if i + 1 == games.len() => {
                keep = line_start(text, line);
                dropped = Some(line);
                break;
            }
            Err(why) => return Err(ResumeError::Damaged { line, why }),
        };
        let round =
            scheduled(g, variant, &expected).map_err(|why| ResumeError::Foreign { line, why })?;
        replays(g).map_err(|why| ResumeError::Illegal { line, why })?;
        if let Some(&first) = first_line.get(&round) {
            return Err(ResumeError::Twice { line, round, first });
        }
        first_line.insert(round, line);
        done.push(Done {
            round,
            result,
            termination: g.tag("Termination").unwrap_or("?").to_string(),
        });
    }
    Ok(Resumed {
        done,
        keep,
        dropped,
    })
}

/// What to write after the kept text so that the next game starts after a
/// blank line.
pub fn separator(kept: &str) -> &'static str {
    if kept.is_empty() || kept.ends_with("\n\n") {
        ""
    } else if kept.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(round: usize, white: &str, black: &str, result: &str) -> String {
        format!(
            "[Round \"{round}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n\
             [Result \"{result}\"]\n[Variant \"chess\"]\n[GamePair \"{}\"]\n[FEN \"f\"]\n\
             [Termination \"checkmate\"]\n\n1. e4 {{+0.10/1 0.01s}} e5 {result}\n\n",
            round.div_ceil(2)
        )
    }

    /// Every game's moves taken (their FEN "f" is no position).
    fn any(_: &PgnGame) -> Result<usize, String> {
        Ok(0)
    }

    /// Two engines, A and B, colours alternating, every game from "f".
    fn expected(round: usize) -> Option<Expected<'static>> {
        let (white, black) = if round % 2 == 1 {
            ("A", "B")
        } else {
            ("B", "A")
        };
        (1..=6).contains(&round).then_some(Expected {
            pair: (round - 1) / 2,
            white,
            black,
            fen: "f",
            opening: vec!["e4".to_string()],
        })
    }

    #[test]
    fn whole_games_are_kept_and_a_cut_last_one_is_dropped() {
        let whole = [game(2, "B", "A", "1-0"), game(1, "A", "B", "1/2-1/2")].concat();
        let r = read(&whole, "chess", expected, any).unwrap();
        assert_eq!(
            r.done
                .iter()
                .map(|d| (d.round, d.result))
                .collect::<Vec<_>>(),
            [(2, Outcome::WhiteWins), (1, Outcome::Draw)]
        );
        assert_eq!((r.keep, r.dropped), (whole.len(), None));
        assert_eq!(r.done[0].termination, "checkmate");
        // Cut anywhere in the third game: the first two are kept, to the byte.
        let third = game(3, "A", "B", "0-1");
        for cut in 1..third.len() - 2 {
            let text = format!("{whole}{}", &third[..cut]);
            let r = read(&text, "chess", expected, any).unwrap();
            assert_eq!((r.done.len(), r.keep), (2, whole.len()), "{cut}");
            assert_eq!(r.dropped, Some(whole.lines().count() + 1), "{cut}");
        }
        // Cut just after its result: whole.
        let text = format!("{whole}{}", third.trim_end());
        let r = read(&text, "chess", expected, any).unwrap();
        assert_eq!((r.done.len(), r.dropped), (3, None));
        assert_eq!(separator(&text), "\n\n");
        assert_eq!(separator(&whole), "");
        assert_eq!(read("", "chess", expected, any).unwrap().done, []);
    }

    #[test]
    fn damaged_foreign_and_repeated_games_are_refused() {
        let one = game(1, "A", "B", "1-0");
        let cut = &one[..one.len() - 8];
        let cases = [
            (format!("{cut}\n\n{one}"), "line 1 is damaged"),
            (game(7, "A", "B", "1-0"), "round 7 is not in its schedule"),
            (
                game(1, "B", "A", "1-0"),
                "White 'B' where the match has 'A'",
            ),
            (one.replace("\"f\"", "\"g\""), "FEN 'g'"),
            (
                one.replace("1. e4", "1. d4"),
                "does not open with the match's opening (e4)",
            ),
            (one.replace("[Variant \"chess\"]", ""), "Variant ''"),
            (one.replace("Pair \"1\"", "Pair \"2\""), "GamePair '2'"),
            (one.replace("Round \"1\"", "Round \"x\""), "Round 'x'"),
            (format!("{one}{one}"), "round 1 again (first at line 1)"),
        ];
        for (text, what) in cases {
            let e = read(&text, "chess", expected, any).unwrap_err().to_string();
            assert!(e.contains(what), "{e}\n{text}");
        }
    }
}
