//! The `split` command of XBoard versions newer than 4.9.1: a table that
//! names, for each man the GUI knows and each promotion suffix, the man a
//! move leaves on its from-square. With it, and a parent variant whose
//! suffix promotes on the destination, a partial move `F T a` (the part `a`
//! goes, the stack's remnant stays) and a pair promotion (a second man on
//! the origin) are shown exactly.
//!
//! The table's rows are the men of the piece table in its order (White's,
//! then Black's; unused `.` slots do not count). Each row starts with the
//! man a move without suffix leaves (nothing, in every variant here), then
//! one entry per promotion suffix, in the same order as the rows. `-` or an
//! empty entry leaves the square empty; entries and rows left out at the
//! end are empty too. The table comes from the variant's data: every stack
//! type with each of its proper parts, and every pair promotion.
//!
//! One table cannot hold every move of a variant with stacks: a part that
//! moves onto a friendly stack (a partial merge) is written with the merged
//! stack's letter, the key a whole stack's merge of the same result leaves
//! empty. For such a move the engine sends a table with that one entry
//! changed, the move, then the standard table again (see [`lines_for`]).

use super::glyphs::PAWN_MOVES;
use super::moves::{Gui, to_gui};
use crate::rules::board::Position;
use crate::rules::types::{Cell, Color, Move, MoveKind, PieceType};
use crate::rules::variant::Variant;

/// The `split` table of a variant: for each row man, the man left on the
/// from-square by each suffix (column 0: no suffix).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitTable {
    /// The piece table's men (letters as the GUI writes them, White's upper
    /// case), in its order: the rows, and after the no-suffix column, the
    /// columns.
    men: Vec<char>,
    /// `entries[row][column]`, `None` for an empty square.
    entries: Vec<Vec<Option<char>>>,
}

/// XBoard parents whose promotion suffix lands on the from-square (a gating
/// move) rather than on the destination. Under `split` the suffix must
/// promote on the destination, so these give way to the generic parent.
const GATING_PARENTS: [&str; 1] = ["seirawan"];
const GENERIC_PARENT: &str = "fairy";

/// The parent variant named in `setup` for this GUI.
pub fn parent(v: &Variant, gui: Gui) -> &str {
    let parent = v.xboard.parent.as_str();
    if parent.is_empty() || (gui == Gui::Split && GATING_PARENTS.contains(&parent)) {
        GENERIC_PARENT
    } else {
        parent
    }
}

/// The piece table given to this GUI. With `split`, a promoting man that
/// moves exactly like the GUI's pawn but sits in another slot takes the
/// empty Pawn slot, so that its promotions land on the destination and its
/// en-passant captures are the GUI's own.
pub fn piece_table(v: &Variant, gui: Gui) -> String {
    let table = &v.xboard.piece_table;
    let chars: Vec<char> = table.chars().collect();
    let half = chars.len() / 2;
    if gui != Gui::Split || half == 0 || chars[0] != '.' {
        return table.clone();
    }
    let pawn =
        v.pieces.iter().enumerate().find(|(t, p)| {
            v.promotion_pawns & (1u64 << t) != 0 && p.betza == PAWN_MOVES && !p.royal
        });
    let Some((_, pawn)) = pawn else {
        return table.clone();
    };
    let upper = pawn.letter.to_ascii_uppercase();
    let Some(slot) = chars[..half].iter().position(|&c| c == upper) else {
        return table.clone();
    };
    let mut out = chars.clone();
    for (offset, letter) in [(0, upper), (half, pawn.letter)] {
        if out[offset + slot] == letter && out[offset] == '.' {
            out[offset + slot] = '.';
            out[offset] = letter;
        }
    }
    out.into_iter().collect()
}

impl SplitTable {
    /// The standard table for `v` as given to this GUI: every stack with
    /// each proper part that may move alone leaves the rest, and every pair
    /// promotion leaves its second man.
    pub fn standard(v: &Variant) -> SplitTable {
        let men: Vec<char> = piece_table(v, Gui::Split)
            .chars()
            .filter(|&c| c != '.')
            .collect();
        let mut entries = vec![vec![None; men.len() + 1]; men.len()];
        for (r, &row) in men.iter().enumerate() {
            let Some((stack, color)) = man(v, row) else {
                continue;
            };
            for (c, &col) in men.iter().enumerate() {
                let Some((part, part_color)) = man(v, col) else {
                    continue;
                };
                if part_color != color {
                    continue;
                }
                let left = if v.promotion_pawns & stack.bit() != 0 {
                    v.pair_promotion_types.contains(&part).then_some(part)
                } else if v.piece(stack).parts.contains(&part) {
                    v.remnant(stack, part)
                } else {
                    None
                };
                entries[r][c + 1] = left.map(|t| v.letter(t, color));
            }
        }
        SplitTable { men, entries }
    }

    /// The man a move of `mover` with `suffix` leaves behind.
    pub fn entry(&self, mover: char, suffix: Option<char>) -> Option<char> {
        let row = self.men.iter().position(|&m| m == mover)?;
        let column = match suffix {
            None => 0,
            Some(s) => 1 + self.men.iter().position(|&m| m == s)?,
        };
        self.entries[row][column]
    }

    /// The same table with one entry changed; unchanged when the row or
    /// column is not in the table.
    pub fn with(&self, mover: char, suffix: Option<char>, left: Option<char>) -> SplitTable {
        let mut t = self.clone();
        let row = t.men.iter().position(|&m| m == mover);
        let column = match suffix {
            None => Some(0),
            Some(s) => t.men.iter().position(|&m| m == s).map(|c| c + 1),
        };
        if let (Some(r), Some(c)) = (row, column) {
            t.entries[r][c] = left;
        }
        t
    }

    /// Whether every entry is empty (the GUI's default: no `split` needed).
    pub fn is_empty(&self) -> bool {
        self.entries.iter().flatten().all(Option::is_none)
    }

    /// The `split` command: rows joined by `/`, empty entries as `-`,
    /// trailing empty entries and rows left out.
    pub fn line(&self) -> String {
        let mut rows: Vec<String> = self
            .entries
            .iter()
            .map(|row| {
                let mut text: String = row.iter().map(|e| e.unwrap_or('-')).collect();
                text.truncate(text.trim_end_matches('-').len());
                text
            })
            .collect();
        while rows.last().is_some_and(String::is_empty) {
            rows.pop();
        }
        format!("split {}", rows.join("/"))
    }
}

/// The type and colour of the man the GUI writes `letter`.
fn man(v: &Variant, letter: char) -> Option<(PieceType, Color)> {
    let color = if letter.is_ascii_uppercase() {
        Color::White
    } else {
        Color::Black
    };
    Some((v.type_of_letter(letter)?, color))
}

/// The letter the GUI writes for a man (White's upper case).
fn letter(v: &Variant, cell: Cell) -> char {
    v.letter(cell.kind(), cell.color())
}

/// Every line the engine sends for its move `mv` in `pos` to a GUI with
/// `split`: the `move` commands, and around them a changed table when the
/// standard one would leave the wrong man behind.
pub fn lines_for(pos: &Position, mv: Move, table: &SplitTable) -> Vec<String> {
    let legs = to_gui(pos, mv, Gui::Split);
    let moves: Vec<String> = legs.iter().map(|l| format!("move {l}")).collect();
    let v = pos.variant();
    let here = pos.cell(mv.from());
    // Castling and two-leg moves take nothing from the table.
    if mv.kind() == MoveKind::Castle || legs.len() != 1 || !here.is_piece() {
        return moves;
    }
    // What the move leaves on its origin.
    let left = pos
        .changes(mv)
        .iter()
        .find(|c| c.0 == mv.from().0)
        .map(|c| c.1)
        .filter(|c| c.is_piece())
        .map(|c| letter(v, c));
    let suffix = legs[0]
        .chars()
        .last()
        .filter(|c| c.is_ascii_alphabetic())
        .map(|c| match pos.side_to_move() {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c.to_ascii_lowercase(),
        });
    let mover = letter(v, here);
    if table.entry(mover, suffix) == left {
        return moves;
    }
    let mut lines = vec![table.with(mover, suffix, left).line()];
    lines.extend(moves);
    lines.push(table.line());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::xboard::setup::setup_lines;
    use crate::rules::variant_set::VariantSet;

    /// The `split` line of each shipped variant, read back by the command's
    /// specification, against the men the variant's stacks are made of.
    #[test]
    fn each_shipped_table_names_the_men_left_behind() {
        let set = VariantSet::builtin();
        for name in set.names() {
            let v = set.compile(name).expect("variant");
            let lines = setup_lines(&v, None, Gui::Split);
            let split: Vec<&String> = lines.iter().filter(|l| l.starts_with("split")).collect();
            let has_stacks = v.pieces.iter().any(|p| p.members.count_ones() > 1);
            if !has_stacks && !v.has_pair_promotion() {
                assert!(split.is_empty(), "{name}: {split:?}");
                continue;
            }
            assert_eq!(split.len(), 1, "{name}");
            let line = split[0];
            assert!(line.len() < 4096 && !line.contains("Draw"), "{line}");
            // Rows and columns count the piece table's men, `.` skipped.
            let setup = &lines[0];
            let table = &setup[setup.find('(').unwrap() + 1..setup.find(')').unwrap()];
            let men: Vec<char> = table.chars().filter(|&c| c != '.').collect();
            let rows: Vec<Vec<char>> = line["split ".len()..]
                .split('/')
                .map(|r| r.chars().collect())
                .collect();
            assert!(rows.len() <= men.len(), "{name}: too many rows");
            let by_letter = |c: char| {
                v.pieces
                    .iter()
                    .find(|p| p.letter == c.to_ascii_lowercase())
                    .expect("a man of the variant")
            };
            let mut named = 0;
            for (r, &row_man) in men.iter().enumerate() {
                let row = rows.get(r).cloned().unwrap_or_default();
                let entry = |c: usize| row.get(c).copied().filter(|&e| e != '-');
                assert_eq!(entry(0), None, "{name}: {row_man} without suffix");
                let stack = by_letter(row_man);
                for (c, &col_man) in men.iter().enumerate() {
                    let same_side = row_man.is_ascii_uppercase() == col_man.is_ascii_uppercase();
                    let part = by_letter(col_man);
                    let rest = stack.members & !part.members;
                    let expected = if !same_side {
                        None
                    } else if stack.members.count_ones() > 1
                        && part.members & !stack.members == 0
                        && rest != 0
                    {
                        // A stack's proper part goes; the rest stays.
                        let rest = v.pieces.iter().find(|p| p.members == rest).unwrap();
                        Some(rest.letter)
                    } else if v.promotion_pawns & stack.members != 0
                        && v.pair_promotion_types
                            .iter()
                            .any(|&t| v.piece(t).letter == part.letter)
                    {
                        // A pair promotion leaves its second man.
                        Some(part.letter)
                    } else {
                        None
                    };
                    let expected = expected.map(|l| {
                        if row_man.is_ascii_uppercase() {
                            l.to_ascii_uppercase()
                        } else {
                            l
                        }
                    });
                    assert_eq!(
                        entry(c + 1),
                        expected,
                        "{name}: {row_man} moving as {col_man}"
                    );
                    named += usize::from(expected.is_some());
                }
            }
            assert!(named > 0, "{name}");
        }
    }

    /// With `split` a gating parent gives way, and a man with the GUI's pawn
    /// moves takes the empty Pawn slot; without it nothing changes.
    #[test]
    fn the_setup_line_follows_the_gui() {
        let set = VariantSet::builtin();
        let v = set.compile("team-mate").expect("team-mate");
        let classic = &setup_lines(&v, None, Gui::Classic)[0];
        let split = &setup_lines(&v, None, Gui::Split)[0];
        assert!(
            classic.starts_with("setup (.N....EF...M.A.J..PCU.....BK.n"),
            "{classic}"
        );
        assert!(classic.contains("+0_seirawan "), "{classic}");
        assert!(
            split.starts_with("setup (PN....EF...M.A.J...CU.....BKpn"),
            "{split}"
        );
        assert!(split.contains("+0_fairy "), "{split}");
        // Compound's Sergeant does not move like the GUI's pawn.
        let v = set.compile("compound").expect("compound");
        assert_eq!(
            setup_lines(&v, None, Gui::Split)[0],
            setup_lines(&v, None, Gui::Classic)[0]
        );
    }
}
