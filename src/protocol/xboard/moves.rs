//! Move strings between the engine and XBoard. The engine's own notation
//! (RULES.md) is kept everywhere else; only here do moves take the forms the
//! GUI understands: a merge of a whole stack as two legs that pass through
//! the moving stack's square, a partial move with the letter of the stack
//! that stays behind, and an en-passant capture by a man the GUI does not
//! treat as a pawn as two legs through the victim.

use crate::board::{MoveError, Position};
use crate::types::{Move, MoveKind, Square};

/// How a move is written for the GUI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// The engine's own text (plain moves, promotions, castling as the king's move).
    Plain,
    /// A whole stack onto a friendly one: `T F,` then `F T z`.
    Merge,
    /// Part of a stack leaves; the suffix names the remnant.
    Split(char),
    /// En passant by a non-pawn: `F V,` then `V T` (V the victim's square).
    EnPassantLegs(Square),
}

fn form(pos: &Position, mv: Move) -> Form {
    let v = pos.variant();
    let here = pos.cell(mv.from());
    match mv.kind() {
        MoveKind::Normal if here.is_piece() && here.kind() != mv.part() => {
            match v.remnant(here.kind(), mv.part()) {
                Some(rest) => Form::Split(v.piece(rest).letter),
                None => Form::Plain,
            }
        }
        MoveKind::Normal if pos.cell(mv.to()).is_color(pos.side_to_move()) => Form::Merge,
        // The GUI removes the victim itself only for its pawns (the variant's
        // promoting men); anyone else capturing en passant passes over it.
        MoveKind::EnPassant if here.is_piece() && v.promotion_pawns & here.kind().bit() == 0 => {
            Form::EnPassantLegs(Square::new(mv.to().file(), mv.from().rank()))
        }
        _ => Form::Plain,
    }
}

/// The legs the engine sends for a move made in `pos`: one `move` command each.
pub fn to_gui(pos: &Position, mv: Move) -> Vec<String> {
    let v = pos.variant();
    let (f, t) = (v.square_name(mv.from()), v.square_name(mv.to()));
    match form(pos, mv) {
        Form::Plain => vec![pos.move_text(mv)],
        Form::Split(rest) => vec![format!("{f}{t}{rest}")],
        Form::Merge => vec![
            format!("{t}{f},"),
            format!("{f}{t}{}", v.piece(mv.result()).letter),
        ],
        Form::EnPassantLegs(victim) => {
            let x = v.square_name(victim);
            vec![format!("{f}{x},"), format!("{x}{t}")]
        }
    }
}

/// A move as one string (legs joined), for thinking output.
pub fn to_gui_joined(pos: &Position, mv: Move) -> String {
    to_gui(pos, mv).concat()
}

/// One leg of an incoming move: from, to, optional letter.
type Leg = (Square, Square, Option<char>);

fn parse_leg(pos: &Position, text: &str) -> Option<Leg> {
    let v = pos.variant();
    let b = text.as_bytes();
    let mut i = 0;
    let mut squares = Vec::new();
    for _ in 0..2 {
        let start = i;
        if i >= b.len() || !b[i].is_ascii_lowercase() {
            return None;
        }
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        squares.push(v.parse_square(&text[start..i])?);
    }
    let letter = match &b[i..] {
        [] => None,
        [c] if c.is_ascii_lowercase() => Some(*c as char),
        _ => return None,
    };
    Some((squares[0], squares[1], letter))
}

/// The legal move a GUI move string names. Partial moves are read only in
/// the GUI's form (remnant letter), never in the engine's (part letter).
pub fn from_gui(pos: &mut Position, text: &str) -> Result<Move, MoveError> {
    let lower = text.trim().to_ascii_lowercase();
    let legs: Option<Vec<Leg>> = lower.split(',').map(|l| parse_leg(pos, l)).collect();
    let Some(legs) = legs else {
        return Err(MoveError::Malformed(text.trim().to_string()));
    };
    let illegal = || MoveError::Illegal(text.trim().to_string());
    let moves = pos.legal_moves();
    let find = |want: &dyn Fn(Move, Form) -> bool| {
        moves
            .iter()
            .copied()
            .find(|&m| want(m, form(pos, m)))
            .ok_or_else(illegal)
    };
    match legs.as_slice() {
        [one] => {
            let plain = format!(
                "{}{}{}",
                pos.variant().square_name(one.0),
                pos.variant().square_name(one.1),
                one.2.map(String::from).unwrap_or_default()
            );
            find(&|m, f| {
                m.from() == one.0
                    && m.to() == one.1
                    && match f {
                        Form::Split(rest) => one.2 == Some(rest),
                        Form::Merge | Form::EnPassantLegs(_) => one.2.is_none(),
                        Form::Plain => pos.move_text(m) == plain,
                    }
            })
        }
        // `T T,F X`: a null leg on the target stack, then the merging stack's square.
        [(t, t2, _), (f, _, _)] if t == t2 => {
            find(&|m, form| form == Form::Merge && m.from() == *f && m.to() == *t)
        }
        // `F V,V T`: en passant through the victim, or the engine's own merge
        // legs `T F,F T z` echoed back.
        [(a, b, _), (b2, d, _)] if b == b2 => find(&|m, form| match form {
            Form::EnPassantLegs(victim) => m.from() == *a && victim == *b && m.to() == *d,
            Form::Merge => m.to() == *a && m.from() == *b && *d == *a,
            _ => false,
        }),
        _ => Err(illegal()),
    }
}
