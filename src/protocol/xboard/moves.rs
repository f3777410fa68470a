//! Move strings between the engine and XBoard. The engine's own notation
//! (RULES.md) is kept everywhere else; only here do moves take the forms the
//! GUI understands: a merge of a whole stack as two legs that pass through
//! the moving stack's square, a partial move with the letter of the stack
//! that stays behind, and an en-passant capture by a man the GUI does not
//! treat as a pawn as two legs through the victim.

use super::glyphs::{pawn_glyph, wears_rook_glyph};
use crate::rules::board::Position;
use crate::rules::notation::MoveError;
use crate::rules::types::{Move, MoveKind, Square};

/// Which XBoard the engine talks to: the forms of its moves differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Gui {
    /// XBoard 4.9.1 and WinBoard: a move writes at most one chosen man, so
    /// partial moves are sent with the remnant's letter and the GUI shows
    /// the whole stack on their destination (see [`GuiBoard`]).
    #[default]
    Classic,
    /// An XBoard with the `split` command (see [`super::split`]): a partial
    /// move names the part that goes, a merge the merged stack, and the
    /// table puts the right man on the from-square.
    Split,
}

/// How a move is written for the GUI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// The engine's own text (plain moves, promotions, castling as the king's move).
    Plain,
    /// A whole stack onto a friendly one: `T F,` then `F T z`.
    Merge,
    /// The same onto a man the GUI counts as unmoved (see [`gui_unmoved`]),
    /// as a plain `F T`. The GUI then shows the merging stack on T without
    /// T's own men: no form shows this merge exactly, and this one is never
    /// refused.
    CornerMerge,
    /// Part of a stack leaves; the suffix names the remnant.
    Split(char),
    /// En passant by a non-pawn: `F V,` then `V T` (V the victim's square).
    EnPassantLegs(Square),
    /// With `split`, a move onto a friendly stack in one leg, `F T z`, with
    /// the letter of the stack it forms.
    NamedMerge,
}

fn form(pos: &Position, mv: Move, gui: Gui) -> Form {
    let v = pos.variant();
    let here = pos.cell(mv.from());
    match mv.kind() {
        // With `split` a partial move is the engine's own text (the part's
        // letter) and any move onto a friendly stack names the result.
        MoveKind::Normal if gui == Gui::Split && pos.cell(mv.to()).is_color(pos.side_to_move()) => {
            Form::NamedMerge
        }
        MoveKind::Normal if gui == Gui::Split && here.is_piece() && here.kind() != mv.part() => {
            Form::Plain
        }
        MoveKind::Normal if here.is_piece() && here.kind() != mv.part() => {
            match v.remnant(here.kind(), mv.part()) {
                Some(rest) => Form::Split(v.piece(rest).letter),
                None => Form::Plain,
            }
        }
        MoveKind::Normal if pos.cell(mv.to()).is_color(pos.side_to_move()) => {
            if gui_unmoved(pos, mv.to()) {
                Form::CornerMerge
            } else {
                Form::Merge
            }
        }
        // The GUI removes the victim itself only for its pawns (the variant's
        // promoting men); anyone else capturing en passant passes over it.
        MoveKind::EnPassant if here.is_piece() && v.promotion_pawns & here.kind().bit() == 0 => {
            Form::EnPassantLegs(Square::new(mv.to().file(), mv.from().rank()))
        }
        _ => Form::Plain,
    }
}

/// Whether the GUI counts the man on `sq` as unmoved, which matters under
/// the parent `seirawan` (S-Chess): there a suffixed move from an unmoved
/// back-rank man is a gating, and the GUI checks the gated man against a
/// stock of men in hand that this board does not have. That check reads
/// unrelated squares, so the GUI refuses such a move as impossible in some
/// positions and not in others, and forfeits the engine. The merge legs
/// `T F,` `F T z` start from the target T, so a merge onto such a man must
/// not use them.
///
/// The GUI marks, when it reads a FEN, the man each castling right names:
/// from the corner toward the king, the first man in the Rook glyph (and
/// the king). It clears the mark when a move starts or ends on the square.
fn gui_unmoved(pos: &Position, sq: Square) -> bool {
    let v = pos.variant();
    // Only a square some castling right starts from may be marked; the
    // cheap tests go first, the root position is rebuilt only after them.
    if v.xboard.parent != "seirawan"
        || !v.castling.iter().any(|r| r.rook_from.rank() == sq.rank())
        || pos.moves_played().any(|m| m.from() == sq || m.to() == sq)
    {
        return false;
    }
    // No move has touched `sq`, so its man stood there when the position
    // was set up; the rights and the board of that moment decide.
    let mut root = pos.clone();
    let mut rights = pos.castling_rights();
    while root.ply_count() > 0 {
        root.unmake();
        rights = root.castling_rights();
    }
    let rook_glyph = |s: Square| {
        let c = root.cell(s);
        c.is_piece() && wears_rook_glyph(v, v.piece(c.kind()).letter)
    };
    v.castling.iter().any(|r| {
        if rights & (1 << r.bit) == 0 || r.rook_from.rank() != sq.rank() {
            return false;
        }
        let king = r.king_from.file();
        let rank = sq.rank();
        let mut files: Box<dyn Iterator<Item = usize>> = if r.kingside {
            Box::new((king + 1..v.files).rev())
        } else {
            Box::new(0..king)
        };
        files
            .find(|&f| rook_glyph(Square::new(f, rank)))
            .is_some_and(|f| f == sq.file())
    })
}

/// The letters XBoard 4.9.1 shows where its board differs from the game,
/// kept move by move from the forms of [`to_gui`] (see the README: a partial
/// move shows the whole stack on its destination, a plain merge the merging
/// stack, and under `seirawan` a promotion of a man outside the Pawn slot
/// leaves a copy of the new man on its origin). Its PGN names each man by
/// the letter it shows, so reading that PGN needs them.
#[derive(Clone, Debug, Default)]
pub struct GuiBoard {
    /// Square index and the letter shown there (upper case).
    drawn: Vec<(u8, char)>,
}

impl GuiBoard {
    /// The letter the GUI shows on `sq` where it differs from the game.
    pub fn drawn(&self, sq: Square) -> Option<char> {
        self.drawn.iter().find(|d| d.0 == sq.0).map(|d| d.1)
    }

    /// What the GUI shows after the moves played in `pos` since it was set
    /// up; with `split` it shows every move exactly.
    pub fn replayed(pos: &Position, gui: Gui) -> GuiBoard {
        let moves: Vec<Move> = pos.moves_played().collect();
        let mut p = pos.clone();
        while p.ply_count() > 0 {
            p.unmake();
        }
        let mut board = GuiBoard::default();
        if gui == Gui::Split {
            return board;
        }
        for m in moves {
            board.apply(&p, m);
            p.make(m);
        }
        board
    }

    /// The letter (upper case) the GUI shows on `sq` of `pos`, if any.
    pub fn letter(&self, pos: &Position, sq: Square) -> Option<char> {
        let c = pos.cell(sq);
        self.drawn(sq)
            .or_else(|| c.is_piece().then(|| pos.variant().piece(c.kind()).letter))
            .map(|l| l.to_ascii_uppercase())
    }

    /// Follow a legal move made in `pos` (before it is made).
    pub fn apply(&mut self, pos: &Position, mv: Move) {
        let v = pos.variant();
        let (from, to) = (mv.from(), mv.to());
        let mover = self.letter(pos, from);
        let result = v.piece(mv.result()).letter.to_ascii_uppercase();
        let pawn_slot = pawn_glyph(v) == mover;
        // What the GUI shows afterwards on each square the move touches
        // (None: empty); squares it shows exactly are left out.
        let mut shown: Vec<(Square, Option<char>)> = Vec::new();
        let mut exact: Vec<Square> = vec![from, to];
        match (mv.kind(), form(pos, mv, Gui::Classic)) {
            (MoveKind::Castle, _) => {
                if let Some(r) = v
                    .castling
                    .iter()
                    .find(|r| r.king_from == from && r.king_to == to)
                {
                    exact.extend([r.rook_from, r.rook_to]);
                }
            }
            (_, Form::Merge | Form::NamedMerge) => {}
            (_, Form::EnPassantLegs(victim)) => exact.push(victim),
            (_, Form::CornerMerge) => shown = vec![(from, None), (to, mover)],
            (_, Form::Split(rest)) => {
                shown = vec![(from, Some(rest.to_ascii_uppercase())), (to, mover)];
            }
            (MoveKind::Promotion | MoveKind::PairPromotion, _) => {
                let gated = v.xboard.parent == "seirawan" && !pawn_slot;
                shown = vec![(from, gated.then_some(result)), (to, Some(result))];
            }
            (kind, _) => {
                if kind == MoveKind::EnPassant {
                    exact.push(Square::new(to.file(), from.rank()));
                }
                shown = vec![(from, None), (to, mover)];
            }
        }
        let mut after = pos.clone();
        after.make(mv);
        let game = |sq: Square| {
            let c = after.cell(sq);
            c.is_piece()
                .then(|| v.piece(c.kind()).letter.to_ascii_uppercase())
        };
        self.drawn.retain(|d| !exact.iter().any(|s| s.0 == d.0));
        for (sq, gui) in shown {
            self.drawn.retain(|d| d.0 != sq.0);
            if let Some(l) = gui
                && gui != game(sq)
            {
                self.drawn.push((sq.0, l));
            }
        }
    }
}

/// The legs the engine sends for a move made in `pos`: one `move` command each.
pub fn to_gui(pos: &Position, mv: Move, gui: Gui) -> Vec<String> {
    let v = pos.variant();
    let (f, t) = (v.square_name(mv.from()), v.square_name(mv.to()));
    match form(pos, mv, gui) {
        Form::Plain | Form::CornerMerge => vec![pos.move_text(mv)],
        Form::Split(rest) => vec![format!("{f}{t}{rest}")],
        Form::Merge => vec![
            format!("{t}{f},"),
            format!("{f}{t}{}", v.piece(mv.result()).letter),
        ],
        Form::NamedMerge => vec![format!("{f}{t}{}", v.piece(mv.result()).letter)],
        Form::EnPassantLegs(victim) => {
            let x = v.square_name(victim);
            vec![format!("{f}{x},"), format!("{x}{t}")]
        }
    }
}

/// A move as one string (legs joined), for thinking output.
pub fn to_gui_joined(pos: &Position, mv: Move, gui: Gui) -> String {
    to_gui(pos, mv, gui).concat()
}

/// The string a GUI sends to an engine for a move made in `pos` (one that
/// [`from_gui`] reads): a whole-stack merge as a null leg on the target, then
/// the merging stack's square; every other move as the engine writes it.
pub fn gui_text(pos: &Position, mv: Move, gui: Gui) -> String {
    let v = pos.variant();
    match form(pos, mv, gui) {
        Form::Merge => {
            let t = v.square_name(mv.to());
            format!("{t}{t},{}{t}", v.square_name(mv.from()))
        }
        _ => to_gui_joined(pos, mv, gui),
    }
}

/// One leg of an incoming move: from, to, optional letter.
pub(super) type Leg = (Square, Square, Option<char>);

/// Length of the square name at the start of `text` (a letter and digits).
fn square_len(text: &str) -> usize {
    let b = text.as_bytes();
    if b.first().is_none_or(|c| !c.is_ascii_lowercase()) {
        return 0;
    }
    1 + b[1..].iter().take_while(|c| c.is_ascii_digit()).count()
}

fn square_prefix(pos: &Position, text: &str) -> Option<Square> {
    pos.variant().parse_square(&text[..square_len(text)])
}

pub(super) fn parse_leg(pos: &Position, text: &str) -> Option<Leg> {
    let v = pos.variant();
    let b = text.as_bytes();
    let mut i = 0;
    let mut squares = Vec::new();
    for _ in 0..2 {
        let n = square_len(&text[i..]);
        squares.push(v.parse_square(&text[i..i + n])?);
        i += n;
    }
    let letter = match &b[i..] {
        [] => None,
        [c] if c.is_ascii_lowercase() => Some(*c as char),
        _ => return None,
    };
    Some((squares[0], squares[1], letter))
}

/// The legal move a GUI move string names. Without `split`, partial moves
/// are read only in the GUI's form (remnant letter), never in the engine's
/// (part letter); with it, only in the engine's, and a move onto a friendly
/// stack may also name the stack it forms.
pub fn from_gui(pos: &mut Position, text: &str, gui: Gui) -> Result<Move, MoveError> {
    let lower = text.trim().to_ascii_lowercase();
    let illegal = || MoveError::Illegal(text.trim().to_string());
    let malformed = || MoveError::Malformed(text.trim().to_string());
    // `T T,F X`: a null leg on the target stack, then the merging stack's
    // square; the rest (X) is meaningless and may hold any characters.
    if let Some((first, second)) = lower.split_once(',')
        && let Some((t, t2, None)) = parse_leg(pos, first)
        && t == t2
    {
        let f = square_prefix(pos, second).ok_or_else(malformed)?;
        return pos
            .legal_moves()
            .iter()
            .copied()
            .find(|&m| {
                matches!(
                    form(pos, m, gui),
                    Form::Merge | Form::CornerMerge | Form::NamedMerge
                ) && m.from() == f
                    && m.to() == t
            })
            .ok_or_else(illegal);
    }
    let legs: Option<Vec<Leg>> = lower.split(',').map(|l| parse_leg(pos, l)).collect();
    let Some(legs) = legs else {
        return Err(malformed());
    };
    let moves = pos.legal_moves();
    let find = |want: &dyn Fn(Move, Form) -> bool| {
        moves
            .iter()
            .copied()
            .find(|&m| want(m, form(pos, m, gui)))
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
                        Form::Merge | Form::CornerMerge | Form::EnPassantLegs(_) => one.2.is_none(),
                        Form::Plain => pos.move_text(m) == plain,
                        Form::NamedMerge => {
                            let whole = pos.cell(m.from()).kind() == m.part();
                            let result = pos.variant().piece(m.result()).letter;
                            one.2 == Some(result)
                                || pos.move_text(m) == plain
                                || (whole && one.2.is_none())
                        }
                    }
            })
        }
        // `F V,V T`: en passant through the victim, or the engine's own merge
        // legs `T F,F T z` echoed back.
        [(a, b, _), (b2, d, _)] if b == b2 => find(&|m, form| match form {
            Form::EnPassantLegs(victim) => m.from() == *a && victim == *b && m.to() == *d,
            Form::Merge => m.to() == *a && m.from() == *b && *d == *a,
            Form::NamedMerge => {
                pos.cell(m.from()).kind() == m.part() && m.to() == *a && m.from() == *b && *d == *a
            }
            _ => false,
        }),
        _ => Err(illegal()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GUI legs of the move the engine writes `engine`, and the move
    /// read back from each GUI form in `incoming`.
    fn check(variant: &str, fen: &str, engine: &str, legs: &[&str], incoming: &[&str]) {
        let mut pos = Position::builtin(variant, fen);
        let mv = pos.parse_move(engine).expect("engine move");
        assert_eq!(to_gui(&pos, mv, Gui::Classic), legs, "{engine} in {fen}");
        for text in incoming {
            assert_eq!(
                from_gui(&mut pos, text, Gui::Classic),
                Ok(mv),
                "{text} in {fen}"
            );
        }
    }

    const STACKS: &str = "r1b1k2r/pppp1ppp/8/8/8/2A5/PPPP1PPP/R3K2R w KQkq - 0 1";
    const MERGES: &str = "r3k2r/pppppppp/8/8/8/1NN5/PPPPPPPP/R2RK2R w KQkq - 0 1";

    #[test]
    fn splits_name_the_remnant() {
        check("combination", STACKS, "c3b5n", &["c3b5b"], &["c3b5b"]);
        check("combination", STACKS, "c3e5b", &["c3e5n"], &["c3e5n"]);
        check("combination", STACKS, "c3b5", &["c3b5"], &["c3b5"]);
        // The engine's part letter means the other part to the GUI.
        let mut pos = Position::builtin("combination", STACKS);
        assert!(matches!(
            from_gui(&mut pos, "c3e5b", Gui::Classic),
            Err(MoveError::Illegal(_))
        ));
    }

    /// With `split`: a partial move names the part that goes, a move onto
    /// a friendly stack the stack it forms, in one leg.
    #[test]
    fn split_forms_name_the_part_and_the_merged_stack() {
        let split = |fen: &str, engine: &str, legs: &[&str], incoming: &[&str]| {
            let mut pos = Position::builtin("combination", fen);
            let mv = pos.parse_move(engine).expect("engine move");
            assert_eq!(to_gui(&pos, mv, Gui::Split), legs, "{engine}");
            for text in incoming {
                assert_eq!(from_gui(&mut pos, text, Gui::Split), Ok(mv), "{text}");
            }
        };
        split(STACKS, "c3b5n", &["c3b5n"], &["c3b5n"]);
        split(STACKS, "c3e5b", &["c3e5b"], &["c3e5b"]);
        split(STACKS, "c3b5", &["c3b5"], &["c3b5"]);
        split(
            MERGES,
            "c3d1",
            &["c3d1m"],
            &["c3d1m", "c3d1", "d1d1,c3e2", "d1c3,c3d1m"],
        );
        split(MERGES, "b3a1", &["b3a1m"], &["b3a1m", "b3a1"]);
        // The remnant's letter, the classic form, names the other part.
        let mut pos = Position::builtin("combination", STACKS);
        let knight = pos.parse_move("c3b5n").expect("move");
        assert_ne!(from_gui(&mut pos, "c3b5b", Gui::Split), Ok(knight));
    }

    #[test]
    fn merges_go_in_two_legs() {
        check(
            "combination",
            MERGES,
            "c3d1",
            &["d1c3,", "c3d1m"],
            &["d1d1,c3`1", "d1d1,c3e2", "c3d1", "d1c3,c3d1m"],
        );
        // Onto the unmoved corner rook: one plain leg.
        check(
            "combination",
            MERGES,
            "b3a1",
            &["b3a1"],
            &["b3a1", "a1a1,b3c4"],
        );
        // Without the right the GUI never marked the rook: two legs.
        let no_rights = "r3k2r/pppppppp/8/8/8/1NN5/PPPPPPPP/R2RK2R w - - 0 1";
        check("combination", no_rights, "b3a1", &["a1b3,", "b3a1m"], &[]);
        let mut pos = Position::builtin("combination", MERGES);
        assert!(matches!(
            from_gui(&mut pos, "d1d1,e4`1", Gui::Classic),
            Err(MoveError::Illegal(_))
        ));
    }

    /// The GUI forgets a man is unmoved only when a move starts or ends on
    /// its square, not when the castling right goes.
    #[test]
    fn the_corner_stays_unmoved_for_the_gui_until_a_move_touches_it() {
        let legs = |moves: &[&str], merge: &str| {
            let mut pos = Position::builtin("combination", MERGES);
            for m in moves {
                let mv = pos.parse_move(m).expect("move");
                pos.make(mv);
            }
            let mv = pos.parse_move(merge).expect("merge");
            to_gui(&pos, mv, Gui::Classic)
        };
        // The king has moved and back: no right, but a1 untouched.
        let king_walk = ["e1f1", "e8f8", "f1e1", "f8e8"];
        assert_eq!(legs(&king_walk, "b3a1"), ["b3a1"]);
        // The rook has left a1 and come back: two legs.
        let rook_walk = ["a1b1", "a8b8", "b1a1", "b8a8"];
        assert_eq!(legs(&rook_walk, "b3a1"), ["a1b3,", "b3a1m"]);
        // Black's corner likewise.
        let black = "r3k2r/pppppppp/1nn5/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1";
        let mut pos = Position::builtin("combination", black);
        let mv = pos.parse_move("b6a8").expect("merge");
        assert_eq!(to_gui(&pos, mv, Gui::Classic), ["b6a8"]);
        // Other parents have no gating: the corner takes two legs.
        assert!(!gui_unmoved(
            &Position::builtin("chess", MERGES),
            Square::new(0, 0)
        ));
    }

    /// The letters the GUI shows where its board differs from the game.
    #[test]
    fn the_gui_board_follows_what_xboard_shows() {
        let play = |variant: &str, fen: &str, moves: &[&str]| {
            let mut pos = Position::builtin(variant, fen);
            let mut gui = GuiBoard::default();
            for m in moves {
                let mv = pos.parse_move(m).expect("move");
                gui.apply(&pos, mv);
                pos.make(mv);
            }
            (pos, gui)
        };
        let sq = |name: &str| {
            Square::new(
                name.as_bytes()[0] as usize - 97,
                name[1..].parse::<usize>().expect("rank") - 1,
            )
        };
        // A partial move: the whole stack's letter on the destination, the
        // remnant shown exactly.
        let (_, gui) = play("combination", STACKS, &["c3b5n"]);
        assert_eq!(
            (gui.drawn(sq("b5")), gui.drawn(sq("c3"))),
            (Some('A'), None)
        );
        // It moves on with the man, and goes when the man is captured.
        let (_, gui) = play("combination", STACKS, &["c3b5n", "a7a6", "b5d6"]);
        assert_eq!(
            (gui.drawn(sq("b5")), gui.drawn(sq("d6"))),
            (None, Some('A'))
        );
        let (_, gui) = play("combination", STACKS, &["c3b5n", "a7a6", "b5d6", "c7d6"]);
        assert_eq!(gui.drawn(sq("d6")), None);
        // Whole-stack merges in two legs are exact; a plain one shows the
        // merging stack.
        let (_, gui) = play("combination", MERGES, &["c3d1"]);
        assert_eq!(gui.drawn(sq("d1")), None);
        let (_, gui) = play("combination", MERGES, &["b3a1"]);
        assert_eq!(gui.drawn(sq("a1")), Some('N'));
        // A Team-Mate promotion leaves a copy on its origin; a Brute pair
        // is exact.
        let promo = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1";
        let (_, gui) = play("team-mate", promo, &["a7a8u"]);
        assert_eq!(
            (gui.drawn(sq("a7")), gui.drawn(sq("a8"))),
            (Some('U'), None)
        );
        let (_, gui) = play("team-mate", promo, &["a7a8b"]);
        assert_eq!(gui.drawn(sq("a7")), None);
        // XBoard writes a move onto that copy as a capture.
        let (mut pos, gui) = play("team-mate", "8/1P6/2k5/8/8/8/8/4K3 w - - 0 1", &["b7b8j"]);
        let king = pos.parse_move("c6b7").expect("move");
        assert_eq!(pos.parse_san_as_drawn("Kxb7", &|s| gui.drawn(s)), Ok(king));
        // Compound's promotions are exact.
        let (_, gui) = play(
            "compound",
            "4k5/S9/10/10/10/10/10/5K4 w - - 0 1",
            &["a7a8q"],
        );
        assert_eq!(gui.drawn(sq("a7")), None);
    }

    #[test]
    fn gui_text_reads_back_for_every_move() {
        for (variant, fen) in [
            ("combination", STACKS),
            ("combination", MERGES),
            ("compound", "4k5/10/10/4Ds4/10/10/10/5K4 w - f6 0 1"),
            ("team-mate", "4k3/1P6/6B1/3b4/8/8/2p3P1/4K2C w K - 0 1"),
        ] {
            let mut pos = Position::builtin(variant, fen);
            for mv in pos.legal_moves() {
                let text = gui_text(&pos, mv, Gui::Classic);
                assert_eq!(
                    from_gui(&mut pos, &text, Gui::Classic),
                    Ok(mv),
                    "{text} in {fen}"
                );
                let legs = to_gui_joined(&pos, mv, Gui::Classic);
                assert_eq!(
                    from_gui(&mut pos, &legs, Gui::Classic),
                    Ok(mv),
                    "{legs} in {fen}"
                );
            }
        }
        let pos = Position::builtin("combination", MERGES);
        let mv = pos.clone().parse_move("c3d1").expect("merge");
        assert_eq!(gui_text(&pos, mv, Gui::Classic), "d1d1,c3d1");
    }

    #[test]
    fn en_passant_by_a_non_pawn_passes_the_victim() {
        let fen = "4k5/10/10/4Ds4/10/10/10/5K4 w - f6 0 1";
        check(
            "compound",
            fen,
            "e5f6",
            &["e5f5,", "f5f6"],
            &["e5f5,f5f6", "e5f6"],
        );
        let chess = "4k3/8/8/4Pp2/8/8/8/4K3 w - f6 0 1";
        check("chess", chess, "e5f6", &["e5f6"], &["e5f6"]);
    }

    #[test]
    fn promotions_pairs_and_castling_are_plain() {
        check(
            "team-mate",
            "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
            "a7a8b",
            &["a7a8b"],
            &["a7a8b", "A7A8B"],
        );
        check(
            "team-mate",
            "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
            "a7a8u",
            &["a7a8u"],
            &["a7a8u"],
        );
        let compound = "r4k3r/10/10/10/10/10/10/R4K3R w KQkq - 0 1";
        check("compound", compound, "f1i1", &["f1i1"], &["f1i1"]);
        check("compound", compound, "f1c1", &["f1c1"], &["f1c1"]);
    }

    #[test]
    fn bad_strings() {
        let mut pos = Position::builtin("chess", "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        for bad in ["", "e2", "e2e4qq", "z9z9", "e1e2,", "hello"] {
            assert!(
                matches!(
                    from_gui(&mut pos, bad, Gui::Classic),
                    Err(MoveError::Malformed(_))
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            from_gui(&mut pos, "e1e3", Gui::Classic),
            Err(MoveError::Illegal(_))
        ));
    }
}
