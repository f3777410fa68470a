//! Move entry by a person (`feature highlight=1`). The GUI reports how the
//! user handles the men: `lift SQ` when a man is picked up, `put SQ` where it
//! is set down, `hover SQ` over a square marked red. The engine answers a
//! `lift` with `highlight COLORFEN`, marking every square the man can go to,
//! and the GUI then refuses the others even with legality testing off.
//!
//! A move is entered as the GUI holds it (see [`moves::to_gui`]): from a
//! square, optionally through a second square (cyan: the entry goes on), to a
//! destination with an optional suffix. The colours:
//! - yellow: a move there, no choice; red: the same, a capture;
//! - cyan: the first leg of a two-leg move (a merge, from the stack that
//!   stays, through the merging one and back; a Dragon's en passant through
//!   its victim); clicked twice it ends a plain move there, if there is one;
//! - magenta: several moves end there (promotions, or a stack that moves whole
//!   or in part): the GUI asks which, from the `choice` sent on `put`;
//! - blue: one move ends there and it has a suffix: the GUI waits for the
//!   `choice` sent on `put`, which names it.
//!
//! Suffixes are the GUI's: a promotion names the new man, a partial move the
//! man that stays behind. Choosing the man that moves (magenta) enters the
//! move without a suffix (the whole stack).

use super::moves::{Gui, GuiBoard, parse_leg, to_gui};
use crate::rules::board::Position;
use crate::rules::types::{Move, Square};

/// A move as the GUI holds it: from, an optional square the first leg ends
/// on, destination and suffix (lower case).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Path {
    from: Square,
    via: Option<Square>,
    to: Square,
    suffix: Option<char>,
}

/// How the GUI holds `m`.
fn path(pos: &Position, m: Move, gui: Gui) -> Option<Path> {
    let legs = to_gui(pos, m, gui);
    match legs.as_slice() {
        [one] => {
            let (from, to, suffix) = parse_leg(pos, one)?;
            Some(Path {
                from,
                via: None,
                to,
                suffix,
            })
        }
        [first, second] => {
            let (from, via, _) = parse_leg(pos, first.trim_end_matches(','))?;
            let (_, to, suffix) = parse_leg(pos, second)?;
            Some(Path {
                from,
                via: Some(via),
                to,
                suffix,
            })
        }
        _ => None,
    }
}

/// The user's move entry so far.
#[derive(Clone, Debug, Default)]
pub struct Entry {
    /// The square the man was lifted from.
    from: Option<Square>,
    /// A cyan square the man was put on, before the GUI lifts it from there.
    put_on_cyan: Option<Square>,
    /// The cyan square the entry passed (the second leg is being entered).
    via: Option<Square>,
    /// The GUI's move forms, kept when the entry is forgotten.
    gui: Gui,
}

/// What the engine sends back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Nothing,
    Highlight(String),
    Choice(String),
}

/// The colour a square gets, and the choice for it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Mark {
    Plain,
    Capture,
    Cyan,
    Choice(String),
    Forced(char),
}

impl Entry {
    /// Forget the entry (a move was made, or the position changed).
    pub fn reset(&mut self) {
        *self = Entry {
            gui: self.gui,
            ..Entry::default()
        };
    }

    /// Enter moves in the forms of this GUI from now on.
    pub fn set_gui(&mut self, gui: Gui) {
        self.gui = gui;
        self.reset();
    }

    /// `lift SQ`.
    pub fn lift(&mut self, pos: &Position, sq: Square) -> Reply {
        if let (Some(_), Some(cyan)) = (self.from, self.put_on_cyan)
            && cyan == sq
        {
            // The GUI lifts the man again from the cyan square it was put
            // on: the second leg.
            self.via = Some(sq);
            self.put_on_cyan = None;
        } else {
            *self = Entry {
                from: Some(sq),
                gui: self.gui,
                ..Entry::default()
            };
        }
        Reply::Highlight(self.colour_fen(pos))
    }

    /// `put SQ`.
    pub fn put(&mut self, pos: &Position, sq: Square) -> Reply {
        if self.from.is_none() {
            return Reply::Nothing;
        }
        if self.via == Some(sq) {
            // A second click on the cyan square ends the move there.
            self.via = None;
        }
        match self.mark(pos, sq) {
            Some(Mark::Cyan) => {
                self.put_on_cyan = Some(sq);
                Reply::Nothing
            }
            Some(Mark::Choice(list)) => Reply::Choice(list),
            Some(Mark::Forced(c)) => Reply::Choice(c.to_ascii_uppercase().to_string()),
            _ => Reply::Nothing,
        }
    }

    /// The paths of the current stage: from the lifted square and, in the
    /// second leg, through the cyan square.
    fn paths(&self, pos: &Position) -> Vec<Path> {
        let Some(from) = self.from else {
            return Vec::new();
        };
        let mut p = pos.clone();
        let moves = p.legal_moves().to_vec();
        moves
            .into_iter()
            .filter_map(|m| path(&p, m, self.gui))
            .filter(|x| x.from == from && (self.via.is_none() || x.via == self.via))
            .collect()
    }

    fn mark(&self, pos: &Position, sq: Square) -> Option<Mark> {
        Self::mark_in(&self.paths(pos), pos, self.gui, self.via, sq, self.from?)
    }

    fn mark_in(
        paths: &[Path],
        pos: &Position,
        gui: Gui,
        via: Option<Square>,
        sq: Square,
        from: Square,
    ) -> Option<Mark> {
        if via.is_none() && paths.iter().any(|p| p.via == Some(sq)) {
            return Some(Mark::Cyan);
        }
        let mut suffixes: Vec<Option<char>> = Vec::new();
        for p in paths.iter().filter(|p| p.via == via && p.to == sq) {
            if !suffixes.contains(&p.suffix) {
                suffixes.push(p.suffix);
            }
        }
        match suffixes.as_slice() {
            [] => None,
            [None] => {
                let c = pos.cell(sq);
                let capture = c.is_piece() && c.color() != pos.side_to_move();
                Some(if capture { Mark::Capture } else { Mark::Plain })
            }
            [Some(c)] => Some(Mark::Forced(*c)),
            _ => {
                // The most valuable man first: the GUI's default.
                let v = pos.variant();
                let values = crate::engine::eval::piece_values(v);
                let worth = |c: char| {
                    v.pieces
                        .iter()
                        .position(|p| p.letter == c)
                        .map_or(0, |t| values[t])
                };
                let mut named: Vec<char> = suffixes.iter().filter_map(|s| *s).collect();
                named.sort_by_key(|&c| std::cmp::Reverse(worth(c)));
                let mut list: String = named.into_iter().collect();
                // No suffix: the man the GUI shows on the from-square (the
                // GUI's way to decline a promotion), listed first.
                if suffixes.contains(&None)
                    && let Some(l) = GuiBoard::replayed(pos, gui).letter(pos, from)
                {
                    list.insert(0, l);
                }
                Some(Mark::Choice(list.to_ascii_uppercase()))
            }
        }
    }

    /// The board of colours for the current stage.
    fn colour_fen(&self, pos: &Position) -> String {
        let v = pos.variant();
        let paths = self.paths(pos);
        let from = self.from;
        let mut rows = Vec::new();
        for rank in (0..v.ranks).rev() {
            let mut row = String::new();
            let mut empty = 0;
            for file in 0..v.files {
                let sq = Square::new(file, rank);
                let mark = from.and_then(|f| Self::mark_in(&paths, pos, self.gui, self.via, sq, f));
                let letter = match mark {
                    None => {
                        empty += 1;
                        continue;
                    }
                    Some(Mark::Plain) => 'Y',
                    Some(Mark::Capture) => 'R',
                    Some(Mark::Cyan) => 'C',
                    Some(Mark::Choice(_)) => 'M',
                    Some(Mark::Forced(_)) => 'B',
                };
                if empty > 0 {
                    row.push_str(&empty.to_string());
                    empty = 0;
                }
                row.push(letter);
            }
            if empty > 0 {
                row.push_str(&empty.to_string());
            }
            rows.push(row);
        }
        rows.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant_set::VariantSet;

    fn position(variant: &str, fen: &str) -> Position {
        let v = VariantSet::builtin().compile(variant).expect("variant");
        Position::from_fen(v, fen).expect("fen")
    }

    fn sq(pos: &Position, name: &str) -> Square {
        pos.variant().parse_square(name).expect("square")
    }

    #[test]
    fn a_knight_lifted_in_chess_marks_its_two_squares() {
        let pos = position(
            "chess",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        );
        let mut e = Entry::default();
        assert_eq!(
            e.lift(&pos, sq(&pos, "g1")),
            Reply::Highlight("8/8/8/8/8/5Y1Y/8/8".into())
        );
        assert_eq!(e.put(&pos, sq(&pos, "f3")), Reply::Nothing);
    }

    #[test]
    fn captures_are_red_and_promotions_ask() {
        let pos = position("chess", "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
        let mut e = Entry::default();
        assert_eq!(
            e.lift(&pos, sq(&pos, "a7")),
            Reply::Highlight("MM6/8/8/8/8/8/8/8".into())
        );
        assert_eq!(e.put(&pos, sq(&pos, "b8")), Reply::Choice("QRBN".into()));
    }

    #[test]
    fn a_merge_goes_from_the_stack_that_stays_through_the_merging_one() {
        let pos = position("combination", "4k3/8/8/8/8/8/4B3/3QK3 w - - 0 1");
        let mut e = Entry::default();
        // Lifting the bishop: the queen's square is cyan (the queen can join
        // it), the bishop's own moves yellow.
        let Reply::Highlight(fen) = e.lift(&pos, sq(&pos, "e2")) else {
            panic!("no highlight");
        };
        assert_eq!(fen.split('/').next_back(), Some("3C1Y2"), "{fen}");
        assert_eq!(e.put(&pos, sq(&pos, "d1")), Reply::Nothing);
        // Lifted again from there: back to the bishop's square, forced to
        // the bishop-queen stack.
        assert_eq!(
            e.lift(&pos, sq(&pos, "d1")),
            Reply::Highlight("8/8/8/8/8/8/4B3/8".into())
        );
        assert_eq!(e.put(&pos, sq(&pos, "e2")), Reply::Choice("C".into()));
    }

    #[test]
    fn a_stack_moves_whole_or_in_part_by_choice() {
        // A knight-bishop stack on c3.
        let pos = position("combination", "4k3/8/8/8/8/2A5/8/4K3 w - - 0 1");
        let mut e = Entry::default();
        let Reply::Highlight(fen) = e.lift(&pos, sq(&pos, "c3")) else {
            panic!("no highlight");
        };
        assert!(fen.split('/').all(|r| !r.contains('Y')), "{fen}");
        // b5 is a knight's square: the whole stack (its own letter, first)
        // or the knight alone, leaving the bishop.
        assert_eq!(e.put(&pos, sq(&pos, "b5")), Reply::Choice("AB".into()));
        assert_eq!(e.put(&pos, sq(&pos, "d4")), Reply::Choice("AN".into()));
        // No move goes to d3.
        assert_eq!(e.put(&pos, sq(&pos, "d3")), Reply::Nothing);
    }

    #[test]
    fn team_mate_promotions_offer_every_man_and_the_brute_pair() {
        let pos = position("team-mate", "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
        let mut e = Entry::default();
        assert_eq!(
            e.lift(&pos, sq(&pos, "b7")),
            Reply::Highlight("1M6/8/8/8/8/8/8/8".into())
        );
        let Reply::Choice(list) = e.put(&pos, sq(&pos, "b8")) else {
            panic!("no choice");
        };
        let mut sorted: Vec<char> = list.chars().collect();
        sorted.sort_unstable();
        assert_eq!(sorted.iter().collect::<String>(), "BCEFJMNU");
        assert!(list.starts_with('J'), "{list}");
    }

    #[test]
    fn a_dragon_takes_en_passant_through_its_victim() {
        let pos = position("compound", "4k5/10/10/4Ds4/10/10/10/4K5 w - f6 0 1");
        let mut e = Entry::default();
        let Reply::Highlight(fen) = e.lift(&pos, sq(&pos, "e5")) else {
            panic!("no highlight");
        };
        assert_eq!(fen.split('/').nth(3), Some("5C4"), "{fen}");
        assert_eq!(e.put(&pos, sq(&pos, "f5")), Reply::Nothing);
        let Reply::Highlight(fen) = e.lift(&pos, sq(&pos, "f5")) else {
            panic!("no highlight");
        };
        assert_eq!(fen, "10/10/5Y4/10/10/10/10/10");
        assert_eq!(e.put(&pos, sq(&pos, "f6")), Reply::Nothing);
    }
}
