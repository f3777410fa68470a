//! PGN writing for every tool that saves games: the tag pairs (values
//! escaped as the PGN standard asks) and the move text of a game, and the
//! PGN of a self-play game's record.

use crate::rules::board::{FenError, Position};
use crate::rules::game::GameRecord;
use crate::rules::types::{Color, Move};
use crate::rules::variant::Variant;
use std::sync::Arc;

/// The PGN text of one game: a tag pair a line, a blank line, the move text
/// (ending with the result) and a blank line. A `"` or `\` in a tag value
/// is escaped with a `\`.
pub fn write(tags: &[(&str, String)], movetext: &str) -> String {
    let mut s = String::new();
    for (k, v) in tags {
        s.push_str(&format!("[{k} \"{}\"]\n", escape(v)));
    }
    s.push('\n');
    s.push_str(movetext);
    s.push_str("\n\n");
    s
}

/// A tag value with `\` and `"` escaped.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The words of a game's move text from `pos`: each move number (`1.`, or
/// `1...` when the game starts with Black), each move in SAN and, after a
/// move, its comment in braces. `pos` is left after the last move.
pub fn move_words<'a>(
    pos: &mut Position,
    moves: impl Iterator<Item = (Move, Option<&'a str>)>,
) -> Vec<String> {
    let mut words = Vec::new();
    for (i, (m, comment)) in moves.enumerate() {
        let n = pos.fullmove_number();
        if pos.side_to_move() == Color::White {
            words.push(format!("{n}."));
        } else if i == 0 {
            words.push(format!("{n}..."));
        }
        words.push(pos.san(m));
        if let Some(c) = comment {
            words.push(format!("{{{c}}}"));
        }
        pos.make(m);
    }
    words
}

/// PGN text of a game record: tags, then the moves in SAN.
pub fn write_record(record: &GameRecord, variant: Arc<Variant>) -> Result<String, FenError> {
    let mut pos = Position::from_fen(variant, &record.start_fen)?;
    let result = record.result.map_or("*", |r| r.0.pgn());
    let tags = [
        ("Event", record.event.clone()),
        ("Site", "Amalgam".to_string()),
        ("Round", record.round.to_string()),
        ("White", record.white.clone()),
        ("Black", record.black.clone()),
        ("Result", result.to_string()),
        ("Variant", record.variant.clone()),
        ("FEN", record.start_fen.clone()),
        ("SetUp", "1".to_string()),
        (
            "Termination",
            record
                .result
                .map_or("unterminated", |r| r.1.describe())
                .to_string(),
        ),
        ("PlyCount", record.moves.len().to_string()),
    ];
    let mut words = move_words(&mut pos, record.moves.iter().map(|&m| (m, None)));
    words.push(result.to_string());
    // A line ends after the move that takes it past 70 characters.
    let mut s = String::new();
    let mut line = String::new();
    for w in &words {
        line.push_str(w);
        line.push(' ');
        if !w.ends_with('.') && line.len() > 70 {
            s.push_str(line.trim_end());
            s.push('\n');
            line.clear();
        }
    }
    s.push_str(line.trim_end());
    Ok(write(&tags, &s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VariantSet;
    use crate::rules::game::{Outcome, Termination};

    #[test]
    fn quotes_and_backslashes_in_tag_values_are_escaped() {
        let tags = [
            ("Event", "plain".to_string()),
            ("White", "Engine \"Nightly\" C:\\bin".to_string()),
        ];
        assert_eq!(
            write(&tags, "1. e4 *"),
            "[Event \"plain\"]\n[White \"Engine \\\"Nightly\\\" C:\\\\bin\"]\n\n1. e4 *\n\n"
        );
    }

    #[test]
    fn a_record_numbers_its_moves_and_ends_with_the_result() {
        let v = VariantSet::builtin().compile("chess").unwrap();
        let mut pos = Position::startpos(v.clone());
        let moves: Vec<_> = ["f3", "e5", "g4", "Qh4#"]
            .iter()
            .map(|san| {
                let m = pos.parse_san(san).unwrap();
                pos.make(m);
                m
            })
            .collect();
        let record = GameRecord {
            variant: "chess".into(),
            start_fen: v.start_fen.clone(),
            moves,
            result: Some((Outcome::BlackWins, Termination::Checkmate)),
            white: "A".into(),
            black: "B".into(),
            round: 1,
            event: "E".into(),
        };
        let text = write_record(&record, v.clone()).unwrap();
        let tags: Vec<&str> = text.lines().take(11).collect();
        assert_eq!(tags[0], "[Event \"E\"]");
        assert_eq!(tags[5], "[Result \"0-1\"]");
        assert_eq!(tags[9], "[Termination \"checkmate\"]");
        assert!(text.ends_with("\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n"), "{text}");
    }
}
