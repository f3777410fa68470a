//! Move strings of the XBoard protocol for these variants (XBOARD.md's move
//! table) and the engine's own moves they stand for. Most moves read the same
//! in both notations; these differ:
//! - a partial move names the REMNANT that stays behind (`F T r`), where the
//!   engine's notation names the moving part (also when the part merges);
//! - a whole stack merging onto a friendly one goes in two legs: an engine
//!   sends `T F,` then `F T z` (z the merged result), a GUI sends `T T,F X`
//!   (a null leg on the target, then the mover); onto a corner man that still
//!   has a castling right it is a plain `F T` (the GUI would forfeit legs
//!   starting from that corner);
//! - an en-passant capture by a man that is not the variant's promoting pawn
//!   goes in two legs through the victim's square (`e5f5,f5f6`).
//!
//! Everything here comes from the variant's data (stacks, pawn types,
//! castling), so any variant with stacks or odd en-passant capturers is
//! translated alike.

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

/// The square of the man an en-passant capture removes: beside the mover,
/// on the destination's file.
fn victim_square(m: Move) -> Square {
    Square::new(m.to().file(), m.from().rank())
}

/// Whether a move lands on a corner man of its own side that still has a
/// castling right.
fn onto_castling_corner(pos: &Position, m: Move) -> bool {
    let us = pos.side_to_move();
    pos.variant().castling.iter().any(|r| {
        r.color == us && r.rook_from == m.to() && pos.castling_rights() & (1 << r.bit) != 0
    })
}

/// The XBoard text of a legal move in `pos` (before it is made).
pub fn xboard_text(pos: &Position, m: Move, writer: Writer) -> String {
    let v = pos.variant();
    let (from, to) = (v.square_name(m.from()), v.square_name(m.to()));
    let letter = |t| v.piece(t).letter.to_ascii_lowercase();
    let here = pos.cell(m.from());
    match m.kind() {
        MoveKind::EnPassant if v.promotion_pawns & m.part().bit() == 0 => {
            let via = v.square_name(victim_square(m));
            format!("{from}{via},{via}{to}")
        }
        MoveKind::Normal if here.kind() != m.part() => match v.remnant(here.kind(), m.part()) {
            Some(r) => format!("{from}{to}{}", letter(r)),
            None => pos.move_text(m),
        },
        MoveKind::Normal
            if pos.cell(m.to()).is_color(pos.side_to_move()) && !onto_castling_corner(pos, m) =>
        {
            match writer {
                Writer::Engine => format!("{to}{from},{from}{to}{}", letter(m.result())),
                Writer::Gui => format!("{to}{to},{from}{to}"),
            }
        }
        _ => pos.move_text(m),
    }
}

/// The legal move an engine's text names: the engine form of the table, or
/// (as a courtesy) the GUI form, a whole-stack merge written as a plain
/// move, or an en-passant capture in either form. `None` when no legal move,
/// or more than one, fits.
pub fn parse_xboard_move(pos: &mut Position, text: &str) -> Option<Move> {
    let t: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    let legal = pos.legal_moves();
    let mut found = None;
    for &m in legal.iter() {
        let engine = xboard_text(pos, m, Writer::Engine);
        let fits = engine == t
            || xboard_text(pos, m, Writer::Gui) == t
            || (engine.contains(',') && pos.move_text(m) == t);
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

    fn text(p: &Position, m: Move, w: Writer) -> String {
        xboard_text(p, m, w)
    }

    fn parse(p: &mut Position, t: &str) -> Option<Move> {
        parse_xboard_move(p, t)
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
        // Onto the unmoved corner rook: one plain leg both ways.
        let mut c = pos(
            "combination",
            "r3k2r/pppppppp/8/8/8/1NN5/PPPPPPPP/R2RK2R w KQkq - 0 1",
        );
        let m = c.parse_move("b3a1").unwrap();
        assert_eq!(text(&c, m, Writer::Engine), "b3a1");
        assert_eq!(text(&c, m, Writer::Gui), "b3a1");
        let m = c.parse_move("c3d1").unwrap();
        assert_eq!(text(&c, m, Writer::Engine), "d1c3,c3d1m");
        assert_eq!(text(&c, m, Writer::Gui), "d1d1,c3d1");
        round_trip(&mut c);
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
        // A Team-Mate pawn's en-passant capture is a pawn's: plain.
        let mut e = pos("team-mate", "4k3/8/8/2Pp4/8/8/8/4K3 w - d6 0 1");
        let m = e.parse_move("c5d6").unwrap();
        assert_eq!(m.kind(), MoveKind::EnPassant);
        assert_eq!(text(&e, m, Writer::Gui), "c5d6");
        assert_eq!(parse(&mut e, "c5d6"), Some(m));
    }
}
