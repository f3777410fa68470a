//! Move strings of the XBoard protocol for these variants (XBOARD.md's move
//! table) and the engine's own moves they stand for. Most moves read the same
//! in both notations; these differ:
//! - a split names the REMNANT that stays behind (`F T r`), where the
//!   engine's notation names the moving part;
//! - a merge is two legs: an engine sends `T F,` then `F T z` (z the merged
//!   result); a GUI sends `T T,F X` (a null leg on the target, then the mover);
//! - an en-passant capture by a man that is not in XBoard's Pawn slot goes in
//!   two legs through the victim's square (`e5f5,f5f6`).
//!
//! Everything here comes from the variant's data (stacks, piece table), so
//! any variant with stacks or odd en-passant capturers is translated alike.

use crate::board::Position;
use crate::types::{Move, MoveKind, Square};

/// Which side of the protocol writes the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// What an engine sends (`move ...`).
    Engine,
    /// What a GUI sends to an engine.
    Gui,
}

/// The glyph of XBoard's Pawn slot in a piece table (the first character;
/// `.` when the slot is unused): the GUI knows en passant for that glyph only.
pub fn pawn_glyph(piece_table: &str) -> char {
    piece_table
        .chars()
        .next()
        .unwrap_or('P')
        .to_ascii_uppercase()
}

/// The square of the man an en-passant capture removes: the one the last
/// move's double step put there (or, without history, beside the mover on
/// the destination's file).
fn victim_square(pos: &Position, m: Move) -> Square {
    pos.moves_played()
        .last()
        .map(|last| last.to())
        .unwrap_or_else(|| Square::new(m.to().file(), m.from().rank()))
}

/// The XBoard text of a legal move in `pos` (before it is made); `pawn` is
/// the glyph of XBoard's Pawn slot in the engine's piece table.
pub fn xboard_text(pos: &Position, m: Move, writer: Writer, pawn: char) -> String {
    let v = pos.variant();
    let (from, to) = (v.square_name(m.from()), v.square_name(m.to()));
    let letter = |t| v.piece(t).letter.to_ascii_lowercase();
    match m.kind() {
        MoveKind::EnPassant => {
            if letter(m.part()).to_ascii_uppercase() == pawn {
                format!("{from}{to}")
            } else {
                let via = v.square_name(victim_square(pos, m));
                format!("{from}{via},{via}{to}")
            }
        }
        MoveKind::Normal => {
            let here = pos.cell(m.from());
            let target = pos.cell(m.to());
            let merge = target.is_piece() && target.color() == pos.side_to_move();
            let whole = here.kind() == m.part();
            match (merge, writer) {
                (true, Writer::Engine) => format!("{to}{from},{from}{to}{}", letter(m.result())),
                (true, Writer::Gui) if whole => format!("{to}{to},{from}{to}"),
                (true, Writer::Gui) => format!("{to}{to},{from}{to}{}", letter(m.result())),
                (false, _) if whole => format!("{from}{to}"),
                (false, _) => match v.remnant(here.kind(), m.part()) {
                    Some(r) => format!("{from}{to}{}", letter(r)),
                    None => pos.move_text(m),
                },
            }
        }
        _ => pos.move_text(m),
    }
}

/// The legal move an engine's text names: the engine form of the table, or
/// (as a courtesy) the GUI form of a merge, a whole-stack merge written as a
/// plain move, or an en-passant capture in either form. `None` when no legal
/// move, or more than one, fits.
pub fn parse_xboard_move(pos: &mut Position, text: &str, pawn: char) -> Option<Move> {
    let t: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    let legal = pos.legal_moves();
    let mut found = None;
    for &m in legal.iter() {
        let engine = xboard_text(pos, m, Writer::Engine, pawn);
        let plain_form = match m.kind() {
            MoveKind::EnPassant => true,
            MoveKind::Normal => pos.cell(m.from()).kind() == m.part(),
            _ => false,
        };
        let fits = engine == t
            || xboard_text(pos, m, Writer::Gui, pawn) == t
            || (engine.contains(',') && plain_form && pos.move_text(m) == t)
            || (m.kind() == MoveKind::EnPassant && xboard_text(pos, m, Writer::Engine, '.') == t);
        if fits {
            if found.is_some() {
                return None;
            }
            found = Some(m);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VariantSet;

    fn pos(variant: &str, fen: &str) -> Position {
        let v = VariantSet::builtin().compile(variant).unwrap();
        Position::from_fen(v, fen).unwrap()
    }

    fn pawn(p: &Position) -> char {
        pawn_glyph(&p.variant().xboard.piece_table)
    }

    fn text(p: &Position, m: Move, w: Writer) -> String {
        xboard_text(p, m, w, pawn(p))
    }

    fn parse(p: &mut Position, t: &str) -> Option<Move> {
        let g = pawn(p);
        parse_xboard_move(p, t, g)
    }

    fn round_trip(p: &mut Position) {
        for m in p.legal_moves() {
            let e = text(p, m, Writer::Engine);
            assert_eq!(parse(p, &e), Some(m), "{e}");
            let g = text(p, m, Writer::Gui);
            assert_eq!(parse(p, &g), Some(m), "{g}");
        }
    }

    #[test]
    fn combination_splits_and_merges() {
        let mut p = pos(
            "combination",
            "r1b1k2r/pppp1ppp/8/8/8/2A2B2/PPPP1PPP/R3K1NR w KQkq - 0 1",
        );
        // The knight leaves the Knight+Bishop stack: XBoard names the bishop.
        let m = p.parse_move("c3b5n").unwrap();
        assert_eq!(text(&p, m, Writer::Engine), "c3b5b");
        assert_eq!(text(&p, m, Writer::Gui), "c3b5b");
        // The knight joins the bishop on f3: two legs, the result's letter.
        let m = p.parse_move("g1f3").unwrap();
        assert_eq!(text(&p, m, Writer::Engine), "f3g1,g1f3a");
        assert_eq!(text(&p, m, Writer::Gui), "f3f3,g1f3");
        assert_eq!(parse(&mut p, "g1f3"), Some(m));
        round_trip(&mut p);
    }

    #[test]
    fn compound_dragon_en_passant() {
        let mut p = pos(
            "compound",
            "r1cb1k1cdr/ss1s1sssss/2d5s1/2sSsD4/10/4C5/SSS1SSSSSS/RD1BQK1CDR w KQkq e6 0 8",
        );
        let m = p.parse_move("f5e6").unwrap();
        assert_eq!(text(&p, m, Writer::Engine), "f5e5,e5e6");
        assert_eq!(parse(&mut p, "f5e5,e5e6"), Some(m));
        // An engine whose Pawn slot holds the Dragon writes it plainly.
        assert_eq!(xboard_text(&p, m, Writer::Engine, 'D'), "f5e6");
        assert_eq!(parse(&mut p, "f5e6"), Some(m));
        round_trip(&mut p);
    }

    #[test]
    fn chess_and_team_mate_read_alike() {
        let mut c = pos("chess", "4k3/1P6/8/3pP3/8/8/8/R3K2R w KQ d6 0 1");
        for m in c.legal_moves() {
            assert_eq!(text(&c, m, Writer::Engine), c.move_text(m));
        }
        round_trip(&mut c);
        let mut t = pos("team-mate", "4k3/1P6/6B1/3b4/8/8/2p3P1/4K2C w K - 0 1");
        let m = t.parse_move("b7b8b").unwrap();
        assert_eq!(text(&t, m, Writer::Engine), "b7b8b");
        round_trip(&mut t);
        assert_eq!(parse(&mut t, "b7b9"), None);
        // A Team-Mate pawn's en-passant capture: plain for an engine with the
        // Pawn in XBoard's Pawn slot, two legs otherwise; both are read.
        let mut e = pos("team-mate", "4k3/8/8/2Pp4/8/8/8/4K3 w - d6 0 1");
        let m = e.parse_move("c5d6").unwrap();
        assert_eq!(m.kind(), MoveKind::EnPassant);
        assert_eq!(xboard_text(&e, m, Writer::Gui, 'P'), "c5d6");
        assert_eq!(xboard_text(&e, m, Writer::Gui, '.'), "c5d5,d5d6");
        assert_eq!(parse_xboard_move(&mut e, "c5d6", 'P'), Some(m));
        assert_eq!(parse_xboard_move(&mut e, "c5d5,d5d6", 'P'), Some(m));
    }
}
