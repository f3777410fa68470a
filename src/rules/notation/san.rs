//! Standard Algebraic Notation, extended to every variant (RULES.md section 6):
//! the letter of the moving man or stack part (none for the pawn type), as
//! much of the origin as tells it apart, `x`, the destination, `=X` for a
//! promotion (Team-Mate's Brute pair: `=B`), `+` or `#`; castling `O-O` toward
//! the last file, `O-O-O` toward file a.

use super::MoveError;
use crate::rules::board::Position;
use crate::rules::types::{Move, MoveKind, Square};

impl Position {
    /// SAN of a legal move, without check marks.
    fn san_body(&mut self, m: Move, legal: &[Move]) -> String {
        let v = self.variant.clone();
        if m.kind() == MoveKind::Castle {
            return if m.to().file() > m.from().file() {
                "O-O".into()
            } else {
                "O-O-O".into()
            };
        }
        let from = m.from();
        let to = m.to();
        let capture = m.kind() == MoveKind::EnPassant || self.cell(to).is_color(self.side.flip());
        let pawn = v.promotion_pawns & m.part().bit() != 0;
        let mut s = String::new();
        if !pawn {
            s.push(v.piece(m.part()).letter.to_ascii_uppercase());
        }
        // Other moves of the same letter to the same square (a Sergeant's
        // quiet diagonal step can have a rival, so pawn types need this too).
        let rivals: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|&o| {
                o.to() == to
                    && o.from() != from
                    && o.part() == m.part()
                    && o.kind() != MoveKind::Castle
            })
            .collect();
        let same_file = rivals.iter().any(|o| o.from().file() == from.file());
        let same_rank = rivals.iter().any(|o| o.from().rank() == from.rank());
        if pawn && (capture || !rivals.is_empty()) {
            s.push(crate::rules::types::file_char(from.file()));
            if same_file {
                s.push_str(&(from.rank() + 1).to_string());
            }
        } else if !pawn && !rivals.is_empty() {
            if !same_file {
                s.push(crate::rules::types::file_char(from.file()));
            } else if !same_rank {
                s.push_str(&(from.rank() + 1).to_string());
            } else {
                s.push_str(&v.square_name(from));
            }
        }
        if capture {
            s.push('x');
        }
        s.push_str(&v.square_name(to));
        if matches!(m.kind(), MoveKind::Promotion | MoveKind::PairPromotion) {
            s.push('=');
            s.push(v.piece(m.result()).letter.to_ascii_uppercase());
        }
        s
    }

    /// SAN of a legal move, with `+` or `#`.
    pub fn san(&mut self, m: Move) -> String {
        let legal = self.legal_moves();
        let mut s = self.san_body(m, &legal);
        self.make(m);
        if self.in_check() {
            s.push(if self.legal_moves().is_empty() {
                '#'
            } else {
                '+'
            });
        }
        self.unmake();
        s
    }

    /// Find the legal move a SAN text names (check marks and annotations are
    /// ignored; `0-0` is read as `O-O`). Coordinate notation is accepted too,
    /// and XBoard's forms (see [`Position::parse_san_as_drawn`]) where the
    /// GUI's board equals this one.
    pub fn parse_san(&mut self, text: &str) -> Result<Move, MoveError> {
        self.read_san(text, None)
    }

    /// Read the SAN XBoard writes, from a board that may show other men than
    /// this one: `drawn(sq)` is the letter the GUI shows on `sq` where it
    /// differs. XBoard names a man by the letter it shows on the origin, so
    /// the engine's own SAN (the moving part's letter) counts here only for
    /// castling and the pawn types.
    pub fn parse_san_as_drawn(
        &mut self,
        text: &str,
        drawn: &dyn Fn(Square) -> Option<char>,
    ) -> Result<Move, MoveError> {
        self.read_san(text, Some(drawn))
    }

    fn read_san(
        &mut self,
        text: &str,
        gui: Option<&dyn Fn(Square) -> Option<char>>,
    ) -> Result<Move, MoveError> {
        let drawn = gui.unwrap_or(&|_| None);
        let t = text
            .trim()
            .trim_end_matches(['+', '#', '!', '?'])
            .replace('0', "O");
        let t = if t.starts_with('O') {
            t
        } else {
            text.trim()
                .trim_end_matches(['+', '#', '!', '?'])
                .to_string()
        };
        if t.is_empty()
            || t.len() > 16
            || !t
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '=' | '-' | '/'))
        {
            return Err(MoveError::Malformed(text.trim().to_string()));
        }
        let legal = self.legal_moves();
        let v = self.variant.clone();
        for &m in legal.iter() {
            let same_in_gui = m.kind() == MoveKind::Castle
                || (drawn(m.from()).is_none() && v.promotion_pawns & m.part().bit() != 0);
            if (gui.is_none() || same_in_gui) && self.san_body(m, &legal) == t {
                return Ok(m);
            }
        }
        let gui: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|&m| self.gui_san_forms(m, drawn).contains(&t))
            .collect();
        // Where the GUI shows a man as another, XBoard writes a move of it
        // in full unless it is a move of the man shown; so between two
        // readings, the man shown as itself is meant.
        let as_itself: Vec<Move> = gui
            .iter()
            .copied()
            .filter(|m| drawn(m.from()).is_none())
            .collect();
        match (gui.as_slice(), as_itself.as_slice()) {
            ([m], _) | ([_, _, ..], [m]) => Ok(*m),
            ([_, _, ..], _) => Err(MoveError::Illegal(format!("{t} (ambiguous)"))),
            ([], _) => self.parse_move(&t),
        }
    }

    /// The ways XBoard writes a legal move in its PGN (its `CoordsToAlgebraic`
    /// and multi-leg suffix): the letter of the man on the origin (a stack's
    /// own letter, a pawn type's letter when it is not in the GUI's Pawn
    /// slot), any origin part, `x` when the destination holds a man of
    /// either colour, the destination, then `=X` for a promotion or `/X` for
    /// the man a partial move leaves behind (S-Chess gating). A merge also
    /// in its two legs (`Bc1xd1-c1c`: the target's letter and square, the
    /// merging stack's square, the target again, the merged stack's letter),
    /// en passant in two legs through the victim (`Dxf5-f6`).
    fn gui_san_forms(&self, m: Move, drawn: &dyn Fn(Square) -> Option<char>) -> Vec<String> {
        let v = self.variant.clone();
        let (from, to) = (m.from(), m.to());
        let here = self.cell(from);
        if m.kind() == MoveKind::Castle || !here.is_piece() {
            return Vec::new();
        }
        let letter = |sq: Square| {
            drawn(sq)
                .unwrap_or_else(|| v.piece(self.cell(sq).kind()).letter)
                .to_ascii_uppercase()
        };
        let origins = |sq: Square| {
            let name = v.square_name(sq);
            let file = crate::rules::types::file_char(sq.file()).to_string();
            let rank = (sq.rank() + 1).to_string();
            [String::new(), file, rank, name]
        };
        // On the GUI's board: a copy it shows counts.
        let occupied =
            self.cell(to).is_piece() || drawn(to).is_some() || m.kind() == MoveKind::EnPassant;
        let suffix = match m.kind() {
            MoveKind::Promotion | MoveKind::PairPromotion => {
                let r = v.piece(m.result()).letter.to_ascii_uppercase();
                vec![format!("={r}"), format!("/{r}")]
            }
            // `=X` where the GUI finds no such move for the letter it shows.
            _ => match v.remnant(here.kind(), m.part()) {
                Some(rest) if here.kind() != m.part() => {
                    let r = v.piece(rest).letter.to_ascii_uppercase();
                    vec![format!("/{r}"), format!("={r}")]
                }
                _ => vec![String::new()],
            },
        };
        let dest = v.square_name(to);
        let mut forms = Vec::new();
        for origin in origins(from) {
            for x in ["", "x"] {
                if x == "x" && !occupied {
                    continue;
                }
                for suf in &suffix {
                    forms.push(format!("{}{origin}{x}{dest}{suf}", letter(from)));
                }
            }
        }
        let whole = here.kind() == m.part();
        if whole && m.kind() == MoveKind::Normal && self.cell(to).is_color(self.side) {
            let z = v.piece(m.result()).letter.to_ascii_lowercase();
            let from_name = v.square_name(from);
            for origin in origins(to) {
                forms.push(format!("{}{origin}x{from_name}-{dest}{z}", letter(to)));
            }
        }
        if m.kind() == MoveKind::EnPassant {
            let victim = v.square_name(Square(self.ep_victim));
            for origin in origins(from) {
                forms.push(format!("{}{origin}x{victim}-{dest}", letter(from)));
            }
        }
        forms
    }
}

#[cfg(test)]
mod tests {
    use crate::{Position, VariantSet};

    fn pos(variant: &str, fen: &str) -> Position {
        let set = VariantSet::builtin();
        let v = set.compile(variant).unwrap_or_else(|e| panic!("{e:?}"));
        if fen == "startpos" {
            Position::startpos(v)
        } else {
            Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{e}"))
        }
    }

    fn round_trip_all(p: &mut Position) {
        for m in p.legal_moves() {
            let s = p.san(m);
            assert_eq!(p.parse_san(&s), Ok(m), "{s}");
        }
    }

    #[test]
    fn chess_san() {
        let mut p = pos(
            "chess",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        );
        let m = p.parse_move("e1g1").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.san(m), "O-O");
        let m = p.parse_move("d5e6").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.san(m), "dxe6");
        let m = p.parse_move("c3b5").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.san(m), "Nb5");
        round_trip_all(&mut p);
        let mut q = pos("chess", "6k1/5ppp/8/8/8/8/4K3/R6R w - - 0 1");
        let m = q.parse_move("a1a8").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(q.san(m), "Ra8#");
        let m = q.parse_move("a1d1").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(q.san(m), "Rad1");
    }

    #[test]
    fn variant_san() {
        let mut p = pos(
            "combination",
            "r1b1k2r/pppp1ppp/8/8/8/2A5/PPPP1PPP/R3K2R w KQkq - 0 1",
        );
        let m = p.parse_move("c3b5n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.san(m), "Nb5");
        let m = p.parse_move("c3b5").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.san(m), "Ab5");
        round_trip_all(&mut p);
        let mut t = pos("team-mate", "4k3/1P6/6B1/3b4/8/8/2p3P1/4K2C w K - 0 1");
        let m = t.parse_move("b7b8b").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.san(m), "b8=B");
        round_trip_all(&mut t);
        let mut c = pos(
            "compound",
            "r1cb1k1cdr/ss1s1sssss/2d5s1/2sSsD4/10/4C5/SSS1SSSSSS/RD1BQK1CDR w KQkq e6 0 8",
        );
        let m = c.parse_move("f5e6").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.san(m), "Dxe6+");
        round_trip_all(&mut c);
    }

    /// XBoard's PGN forms, as its 4.9.1 writes them for these variants.
    #[test]
    fn xboard_san() {
        let read = |variant: &str, fen: &str, gui: &str, engine: &str| {
            let mut p = pos(variant, fen);
            let want = p.parse_move(engine).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(p.parse_san(gui), Ok(want), "{gui} in {fen}");
        };
        // Merges in two legs: the target's letter first.
        let merges = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/P3P3/2N2N2/1PPP1PPP/R1BQKB1R w KQkq - 1 5";
        read("combination", merges, "Bf1xh1-f1e", "h1f1");
        let black = "r1bqkb1r/ppp1ppp1/2n2n1p/3p4/3P4/P1N2N1P/1PP1PPP1/R1BQKB1R b KQkq - 0 5";
        read("combination", black, "Qxc6-d8h", "c6d8");
        // A merge as one plain leg, `x` onto the friendly man.
        read("combination", black, "Nxd8", "c6d8");
        // A partial move: the stack's letter, the remnant after `/`.
        let stack = "r1b1k2r/pppp1ppp/8/8/8/2A5/PPPP1PPP/R3K2R w KQkq - 0 1";
        read("combination", stack, "Ab5/B", "c3b5n");
        read("combination", stack, "Ae5/N", "c3e5b");
        read("combination", stack, "Ab5", "c3b5");
        // Pawn types outside the GUI's Pawn slot carry their letter.
        read("team-mate", "startpos", "Pc4", "c2c4");
        let promo = "4k3/1P6/6B1/3b4/8/8/2p3P1/4K2C w K - 0 1";
        read("team-mate", promo, "Pb8=U", "b7b8u");
        read("team-mate", promo, "Pb8=B", "b7b8b");
        read("compound", "startpos", "Se4", "e2e4");
        // En passant by a Dragon in two legs.
        let ep = "4k5/10/10/4Ds4/10/10/10/5K4 w - f6 0 1";
        read("compound", ep, "Dxf5-f6", "e5f6");
        // A form that names nothing is still refused.
        let mut p = pos("combination", stack);
        assert!(p.parse_san("Ab5/Q").is_err());
        assert!(p.parse_san("Zz9x").is_err());
    }
}
