//! What the GUI must be told about a variant (`setup` and `piece` lines from
//! the ini's piece table and Betza strings), what its FENs leave out, and how
//! a finished game is claimed.

use super::glyphs::{KING_MOVES, SLOT_MOVES, no_rook_glyph};
use super::moves::Gui;
use super::split::{self, SplitTable};
use crate::rules::board::Position;
use crate::rules::game::{Outcome, Termination, outcome};
use crate::rules::types::Color;
use crate::rules::variant::Variant;

/// `setup` and `piece` lines for a variant, with `fen` (else the start
/// position) as the GUI's initial position, and for a GUI with `split` the
/// table of men left behind; none for a variant the GUI knows (no piece
/// table in the ini).
pub fn setup_lines(v: &Variant, fen: Option<&str>, gui: Gui) -> Vec<String> {
    if v.xboard.piece_table.is_empty() {
        return Vec::new();
    }
    let table = split::piece_table(v, gui);
    let mut lines = vec![format!(
        "setup ({table}) {}x{}+0_{} {}",
        v.files,
        v.ranks,
        split::parent(v, gui),
        fen.unwrap_or(&v.start_fen)
    )];
    let half: Vec<char> = table.chars().take(table.chars().count() / 2).collect();
    for p in &v.pieces {
        let glyph = p.letter.to_ascii_uppercase();
        let Some(slot) = half.iter().position(|&c| c == glyph) else {
            continue;
        };
        let standard = if slot + 1 == half.len() {
            Some(KING_MOVES)
        } else {
            SLOT_MOVES.get(slot).copied()
        };
        if standard != Some(p.betza.as_str()) {
            lines.push(format!("piece {glyph}& {}", p.betza));
        }
    }
    if gui == Gui::Split {
        let split = SplitTable::standard(v);
        if !split.is_empty() {
            lines.push(split.line());
        }
    }
    lines
}

/// A FEN from the GUI with the castling rights it could not write filled in.
/// A piece table without a Rook glyph leaves the GUI no way to write them, so
/// `-` then grants every right whose king and corner man still stand on their
/// start squares.
pub fn fill_castling(v: &std::sync::Arc<Variant>, fen: &str) -> String {
    let mut fields: Vec<&str> = fen.split_whitespace().collect();
    if !no_rook_glyph(v) || fields.get(2) != Some(&"-") {
        return fen.to_string();
    }
    let Ok(pos) = Position::from_fen(v.clone(), fen) else {
        return fen.to_string();
    };
    let start = Position::startpos(v.clone());
    let mut rights = String::new();
    for color in Color::BOTH {
        for kingside in [true, false] {
            let unmoved = v
                .castling
                .iter()
                .find(|r| r.color == color && r.kingside == kingside)
                .is_some_and(|r| {
                    let corner = start.cell(r.rook_from);
                    corner.is_piece()
                        && pos.cell(r.rook_from) == corner
                        && pos.cell(r.king_from) == start.cell(r.king_from)
                });
            if unmoved {
                let c = if kingside { 'k' } else { 'q' };
                rights.push(match color {
                    Color::White => c.to_ascii_uppercase(),
                    Color::Black => c,
                });
            }
        }
    }
    if !rights.is_empty() {
        fields[2] = &rights;
    }
    fields.join(" ")
}

/// The result claim when the game is over in `pos`, e.g. `1-0 {White mates}`.
pub fn claim(pos: &mut Position) -> Option<String> {
    let (result, why) = outcome(pos)?;
    let text = match why {
        Termination::Checkmate if result == Outcome::WhiteWins => "White mates".to_string(),
        Termination::Checkmate => "Black mates".to_string(),
        Termination::Stalemate => "Stalemate".to_string(),
        Termination::Repetition => "Draw by repetition".to_string(),
        Termination::MoveRule => format!("{}-move rule", pos.variant().n_move_rule),
        Termination::DeadPosition => "Insufficient mating material".to_string(),
    };
    Some(format!("{} {{{text}}}", result.pgn()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::xboard::glyphs;
    use crate::rules::variant_set::VariantSet;

    fn variant(name: &str) -> std::sync::Arc<Variant> {
        VariantSet::builtin().compile(name).expect("variant")
    }

    #[test]
    fn castling_dash_grants_unmoved_rights_without_a_rook_glyph() {
        let v = variant("team-mate");
        let start = "ufeakmnc/pppppppp/8/8/8/8/PPPPPPPP/UFEAKMNC w - - 0 1";
        assert!(fill_castling(&v, start).contains(" w KQkq - "));
        let king_moved = "ufeakmnc/pppppppp/8/8/8/8/PPPPKPPP/UFEA1MNC b - - 0 1";
        assert!(fill_castling(&v, king_moved).contains(" b kq - "));
        let cobra_moved = "ufeakmnc/pppppppp/8/8/8/8/PPPPPPPP/UFEAKMN1 w - - 0 1";
        assert!(fill_castling(&v, cobra_moved).contains(" w Qkq - "));
        // Rights written out are kept as they are.
        let given = "ufeakmnc/pppppppp/8/8/8/8/PPPPPPPP/UFEAKMNC w Kq - 0 1";
        assert_eq!(fill_castling(&v, given), given);
        // A GUI that has a Rook glyph means '-'.
        let chess = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";
        assert_eq!(fill_castling(&variant("chess"), chess), chess);
        assert_eq!(fill_castling(&variant("compound"), "x y - z"), "x y - z");
    }

    /// A piece table is text from the ini: halving it must not split a
    /// character, and the `setup` line takes it whole.
    #[test]
    fn a_piece_table_with_multibyte_characters_is_halved_by_characters() {
        let mut set = VariantSet::builtin();
        let (_, errors) = set.load_str(
            "[wide:chess]\npieceToCharTable = PNBRQ\u{e9}Kpnbrq\n",
            "t.ini",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let v = set.compile("wide").expect("variant");
        assert_eq!(glyphs::white_half(&v), "PNBRQ\u{e9}");
        assert_eq!(glyphs::pawn_glyph(&v), Some('P'));
        assert!(
            setup_lines(&v, None, Gui::Classic)[0]
                .starts_with("setup (PNBRQ\u{e9}Kpnbrq) 8x8+0_fairy ")
        );
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";
        assert_eq!(fill_castling(&v, start), start);
    }

    #[test]
    fn claims() {
        let mut mated =
            Position::from_fen(variant("chess"), "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").expect("fen");
        assert_eq!(claim(&mut mated).as_deref(), Some("1-0 {White mates}"));
        let mut stale =
            Position::from_fen(variant("chess"), "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").expect("fen");
        assert_eq!(claim(&mut stale).as_deref(), Some("1/2-1/2 {Stalemate}"));
        let mut bare =
            Position::from_fen(variant("chess"), "7k/8/6K1/8/8/8/8/8 b - - 0 1").expect("fen");
        assert_eq!(
            claim(&mut bare).as_deref(),
            Some("1/2-1/2 {Insufficient mating material}")
        );
        let mut rule =
            Position::from_fen(variant("team-mate"), "4k3/8/8/8/8/8/P7/4K3 w - - 128 90")
                .expect("fen");
        assert_eq!(claim(&mut rule).as_deref(), Some("1/2-1/2 {64-move rule}"));
        let mut open = Position::startpos(variant("compound"));
        assert_eq!(claim(&mut open), None);
        assert!(setup_lines(&variant("chess"), None, Gui::Classic).is_empty());
    }
}
