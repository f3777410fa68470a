//! PGN of match games (their tags, and SAN move text that the engine reads
//! back, with comments of score, depth and time, written by
//! [`crate::tools::pgn::write`]), and a checker that replays PGN games with
//! the engine's rules.

use super::referee::GameReport;
use crate::protocol::xboard::moves::GuiBoard;
use crate::protocol::xboard::setup::fill_castling;
use crate::rules::board::Position;
use crate::rules::game::{Termination, outcome};
use crate::rules::variant::Variant;
use crate::rules::variant_set::VariantSet;
use std::sync::Arc;

/// Tag naming a switched-off pair promotion (absent when the variant's own
/// rules were played).
pub const PAIR_PROMOTION_TAG: &str = "PairPromotion";

/// Tag naming a game's game pair (from 1): the games of every pairing of
/// engines from one opening, with both colours. Older PGN lacks it; their
/// `Round` gives the pair (see [`super::pgn_stats`]).
pub const GAME_PAIR_TAG: &str = "GamePair";

/// Tags of a game besides those the report gives.
pub struct GameTags<'a> {
    pub event: &'a str,
    pub round: usize,
    /// The game pair, from 1.
    pub game_pair: usize,
    pub white: &'a str,
    pub black: &'a str,
    pub time_control: String,
    pub date: String,
    /// The variant's pair promotion was switched off for this game.
    pub pair_promotion_off: bool,
}

/// Today's date as `YYYY.MM.DD` (UTC).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

/// The PGN text of a finished game.
pub fn write_game(variant: &Arc<Variant>, tags: &GameTags, report: &GameReport) -> String {
    let mut pairs = vec![
        ("Event", tags.event.to_string()),
        ("Site", "Amalgam match".to_string()),
        ("Date", tags.date.clone()),
        ("Round", tags.round.to_string()),
        ("White", tags.white.to_string()),
        ("Black", tags.black.to_string()),
        ("Result", report.result.pgn().to_string()),
        ("Variant", variant.name.clone()),
        (GAME_PAIR_TAG, tags.game_pair.to_string()),
    ];
    if tags.pair_promotion_off {
        pairs.push((PAIR_PROMOTION_TAG, "off".to_string()));
    }
    pairs.extend([
        ("FEN", report.start_fen.clone()),
        ("SetUp", "1".to_string()),
        ("TimeControl", tags.time_control.clone()),
        ("Termination", report.termination.clone()),
        ("PlyCount", report.moves.len().to_string()),
    ]);
    let mut words: Vec<String> = Vec::new();
    match Position::from_fen(variant.clone(), &report.start_fen) {
        Ok(mut pos) => {
            words = crate::tools::pgn::move_words(
                &mut pos,
                report.moves.iter().map(|r| (r.mv, r.comment.as_deref())),
            );
        }
        Err(e) => words.push(format!("{{bad start position: {e}}}")),
    }
    if !report.reason.is_empty() {
        words.push(format!("{{{}}}", report.reason.replace('}', ")")));
    }
    words.push(report.result.pgn().to_string());
    let mut s = String::new();
    let mut line = String::new();
    for w in words {
        if !line.is_empty() && line.len() + 1 + w.len() > 79 {
            s.push_str(&line);
            s.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&w);
    }
    s.push_str(&line);
    crate::tools::pgn::write(&pairs, &s)
}

/// One game as read from a PGN file.
#[derive(Clone, Debug, Default)]
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<String>,
    /// The result token at the end of the move text.
    pub result: Option<String>,
    /// The line of the file where the game starts (from 1).
    pub line: usize,
}

impl PgnGame {
    pub fn tag(&self, k: &str) -> Option<&str> {
        self.tags.iter().find(|t| t.0 == k).map(|t| t.1.as_str())
    }
}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// Split a PGN text into games: tags, SAN tokens and result. Comments,
/// variations, move numbers and NAGs are skipped.
pub fn read_games(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    let mut game = PgnGame::default();
    let mut in_moves = false;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            if in_moves {
                games.push(std::mem::take(&mut game));
                in_moves = false;
            }
            if game.line == 0 {
                game.line = n + 1;
            }
            if let Some((k, v)) = parse_tag(t) {
                game.tags.push((k, v));
            }
            continue;
        }
        if t.starts_with('%') {
            continue;
        }
        if !t.is_empty() && game.line == 0 {
            game.line = n + 1;
        }
        in_moves |= !t.is_empty();
        game.moves.push(format!("{t}\n"));
    }
    // A last game of tag lines alone is read even when none of them could
    // be read whole (a file cut in its first tag line), so that a reader
    // sees it was cut.
    if in_moves || game.line != 0 {
        games.push(game);
    }
    for g in &mut games {
        let text: String = g.moves.concat();
        let (moves, result) = move_tokens(&text);
        g.moves = moves;
        g.result = result;
    }
    games
}

fn parse_tag(t: &str) -> Option<(String, String)> {
    let inner = t.strip_prefix('[')?.strip_suffix(']')?.trim();
    let (k, v) = inner.split_once(char::is_whitespace)?;
    let v = v.trim().strip_prefix('"')?.strip_suffix('"')?;
    Some((k.to_string(), v.replace("\\\"", "\"").replace("\\\\", "\\")))
}

/// SAN tokens and the result of a move text.
fn move_tokens(text: &str) -> (Vec<String>, Option<String>) {
    let mut moves = Vec::new();
    let mut result = None;
    let mut depth_comment = false;
    let mut depth_var = 0usize;
    let mut word = String::new();
    let mut chars = text.chars().peekable();
    let flush = |w: &mut String, moves: &mut Vec<String>, result: &mut Option<String>| {
        let t = std::mem::take(w);
        if RESULTS.contains(&t.as_str()) {
            *result = Some(t);
            return;
        }
        let t = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if !t.is_empty() && !t.starts_with('$') {
            moves.push(t.to_string());
        }
    };
    while let Some(c) = chars.next() {
        if depth_comment {
            depth_comment = c != '}';
            continue;
        }
        match c {
            '{' => {
                flush(&mut word, &mut moves, &mut result);
                depth_comment = true;
            }
            ';' => {
                flush(&mut word, &mut moves, &mut result);
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                flush(&mut word, &mut moves, &mut result);
                depth_var += 1;
            }
            ')' => {
                word.clear();
                depth_var = depth_var.saturating_sub(1);
            }
            c if c.is_whitespace() => {
                if depth_var == 0 {
                    flush(&mut word, &mut moves, &mut result);
                } else {
                    word.clear();
                }
            }
            c => word.push(c),
        }
    }
    if depth_var == 0 {
        flush(&mut word, &mut moves, &mut result);
    }
    (moves, result)
}

/// Replay a game with the rules of its `Variant` tag (from `set`) and check
/// every move, that no move follows the end of the game by the rules, and
/// that the result agrees with the rules where they decide it.
pub fn check_game(set: &VariantSet, game: &PgnGame) -> Result<usize, String> {
    let name = game.tag("Variant").unwrap_or("chess");
    let name = if name.eq_ignore_ascii_case("standard") {
        "chess"
    } else {
        name
    };
    let mut variant = set
        .compile(name)
        .map_err(|_| format!("unknown variant '{name}'"))?;
    if game.tag(PAIR_PROMOTION_TAG) == Some("off") {
        variant = Arc::new(variant.without_pair_promotion());
    }
    let fen = game.tag("FEN");
    let start = |fen: Option<&str>| match fen {
        Some(fen) => Position::from_fen(variant.clone(), fen).map_err(|e| format!("bad FEN: {e}")),
        None => Ok(Position::startpos(variant.clone())),
    };
    // XBoard's PGN names men by the letters its board shows, which differ
    // from the game's after some moves (see `GuiBoard`), and its FEN leaves
    // out castling rights it cannot write (`fill_castling`); the engine's
    // own PGN is exact. A game is read the engine's way first.
    match replay(start(fen)?, game, None) {
        Ok(pos) => check_result(pos, game),
        Err(own) => {
            let gui_fen = fen.map(|f| fill_castling(&variant, f));
            match replay(start(gui_fen.as_deref())?, game, Some(GuiBoard::default())) {
                Ok(pos) => check_result(pos, game),
                Err(gui) if gui == own => Err(own),
                Err(gui) => Err(format!("{own} (read as XBoard writes it: {gui})")),
            }
        }
    }
}

/// Replay a game the match runner wrote (the engine's own SAN, from its
/// `FEN` tag) in `variant`, checking its moves and result as [`check_game`]
/// does.
pub fn check_own_game(variant: &Arc<Variant>, game: &PgnGame) -> Result<usize, String> {
    let start = match game.tag("FEN") {
        Some(fen) => {
            Position::from_fen(variant.clone(), fen).map_err(|e| format!("bad FEN: {e}"))?
        }
        None => Position::startpos(variant.clone()),
    };
    check_result(replay(start, game, None)?, game)
}

/// Play a game's moves from `pos`, reading its SAN as the engine writes it
/// or, with a `GuiBoard`, as XBoard does.
fn replay(
    mut pos: Position,
    game: &PgnGame,
    mut gui: Option<GuiBoard>,
) -> Result<Position, String> {
    for (i, san) in game.moves.iter().enumerate() {
        if let Some((_, t)) = outcome(&mut pos) {
            return Err(format!(
                "move {} ({san}) after the game ended by {}",
                i + 1,
                t.describe()
            ));
        }
        let m = match &gui {
            Some(g) => pos.parse_san_as_drawn(san, &|sq| g.drawn(sq)),
            None => pos.parse_san(san),
        }
        .map_err(|e| format!("move {} ({san}): {e} in {}", i + 1, pos.to_fen()))?;
        if let Some(g) = gui.as_mut() {
            g.apply(&pos, m);
        }
        pos.make(m);
    }
    Ok(pos)
}

/// Check that a game's result agrees with the rules where they decide it,
/// from the position after its last move.
fn check_result(mut pos: Position, game: &PgnGame) -> Result<usize, String> {
    let tag_result = game.tag("Result").unwrap_or("*");
    let result = game.result.as_deref().unwrap_or("*");
    if tag_result != result {
        return Err(format!(
            "Result tag {tag_result} but the move text ends with {result}"
        ));
    }
    let termination = game.tag("Termination").unwrap_or("");
    match outcome(&mut pos) {
        Some((o, t)) if o.pgn() != result => Err(format!(
            "the game ends by {} ({}) but the result is {result}",
            t.describe(),
            o.pgn()
        )),
        Some(_) => Ok(game.moves.len()),
        None => {
            let rule = [
                Termination::Checkmate,
                Termination::Stalemate,
                Termination::Repetition,
                Termination::MoveRule,
                Termination::DeadPosition,
            ]
            .iter()
            .find(|t| t.describe() == termination);
            match rule {
                Some(t) => Err(format!(
                    "Termination says {} but the final position is not one",
                    t.describe()
                )),
                None => Ok(game.moves.len()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tags_comments_and_results() {
        let text = "[Event \"x\"]\n[Variant \"chess\"]\n[Result \"1-0\"]\n\n\
            1. f3 {+0.10/3 0.01s} e5 2. g4 $1 (2. e4) Qh4# {mate} 0-1\n\n\
            [Event \"y\"]\n[Result \"*\"]\n\n1. e4 ; a comment\n*\n";
        let g = read_games(text);
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].line, g[1].line), (1, 7));
        assert_eq!(g[0].moves, vec!["f3", "e5", "g4", "Qh4#"]);
        assert_eq!(g[0].result.as_deref(), Some("0-1"));
        assert_eq!(g[1].moves, vec!["e4"]);
        let set = VariantSet::builtin();
        // Tag says 1-0, text 0-1: refused.
        assert!(check_game(&set, &g[0]).is_err());
        let mut ok = g[0].clone();
        ok.tags[2].1 = "0-1".into();
        assert_eq!(check_game(&set, &ok), Ok(4));
        // A wrong result for a checkmate is refused.
        let mut wrong = ok.clone();
        wrong.tags[2].1 = "1/2-1/2".into();
        wrong.result = Some("1/2-1/2".into());
        assert!(check_game(&set, &wrong).is_err());
        // A move after the mate is refused.
        let mut after = ok.clone();
        after.moves.push("Nc3".into());
        assert!(check_game(&set, &after).is_err());
        assert_eq!(check_game(&set, &g[1]), Ok(1));
    }

    /// XBoard writes Team-Mate FENs without castling rights (no Rook
    /// glyph); its games castle all the same.
    #[test]
    fn an_xboard_fen_without_rights_still_castles() {
        let set = VariantSet::builtin();
        let text = "[Variant \"team-mate\"]\n\
            [FEN \"ufeakmnc/pppppppp/8/8/8/8/PPPPPPPP/UFEAKMNC w - - 0 1\"]\n\
            [Result \"*\"]\n\n1. Nf3 Nf6 2. Mh3 Mh6 3. O-O O-O *\n";
        let games = read_games(text);
        assert_eq!(check_game(&set, &games[0]), Ok(6));
        // In the engine's own PGN a '-' means no rights.
        let own = text.replace("O-O O-O", "Kf1 Kf8");
        assert_eq!(check_game(&set, &read_games(&own)[0]), Ok(6));
        let wrong = text.replace("3. O-O O-O", "3. O-O-O");
        assert!(check_game(&set, &read_games(&wrong)[0]).is_err());
    }

    #[test]
    fn civil_date_shape() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert_eq!(&d[4..5], ".");
    }
}
