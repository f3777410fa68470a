//! Standard Algebraic Notation, extended to every variant (RULES.md section 6):
//! the letter of the moving man or stack part (none for the pawn type), as
//! much of the origin as tells it apart, `x`, the destination, `=X` for a
//! promotion (Team-Mate's Brute pair: `=B`), `+` or `#`; castling `O-O` toward
//! the last file, `O-O-O` toward file a.

use super::notation::MoveError;
use super::position::Position;
use crate::types::{Move, MoveKind};

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
            s.push(crate::types::file_char(from.file()));
            if same_file {
                s.push_str(&(from.rank() + 1).to_string());
            }
        } else if !pawn && !rivals.is_empty() {
            if !same_file {
                s.push(crate::types::file_char(from.file()));
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
    /// ignored; `0-0` is read as `O-O`). Coordinate notation is accepted too.
    pub fn parse_san(&mut self, text: &str) -> Result<Move, MoveError> {
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
            || t.len() > 12
            || !t
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '=' || c == '-')
        {
            return Err(MoveError::Malformed(text.trim().to_string()));
        }
        let legal = self.legal_moves();
        for &m in legal.iter() {
            if self.san_body(m, &legal) == t {
                return Ok(m);
            }
        }
        self.parse_move(&t)
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
}
