//! FEN reading and writing for every variant: run lengths of any size (`10`),
//! one letter per man or stack, castling rights `KQkq`, en-passant square.

use super::position::{MAX_MEN, Position, is_attacked};
use crate::rules::types::{Cell, Color, Square};
use crate::rules::variant::Variant;
use std::fmt;
use std::sync::Arc;

/// Why a FEN was refused. Ranks are numbered from 1, as in square names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// No fields at all.
    Empty,
    /// More than the six FEN fields (the count found).
    TooManyFields(usize),
    /// The board field has the wrong number of ranks.
    RankCount { found: usize, expected: usize },
    /// A run of empty squares written as `0`.
    EmptyRun { rank: usize },
    /// A rank that runs past the board's last file.
    RankTooLong { rank: usize, files: usize },
    /// A letter that names no piece of the variant.
    UnknownPiece { letter: char, variant: String },
    /// More men of one side than a position holds.
    TooManyMen,
    /// A rank that ends before the board's last file.
    RankTooShort {
        rank: usize,
        found: usize,
        expected: usize,
    },
    /// Not exactly one king a side (the counts found).
    KingCount { white: usize, black: usize },
    /// The side-to-move field is neither `w` nor `b`.
    BadSide(String),
    /// A letter of the castling field other than `KQkq`.
    BadCastling(char),
    /// An en-passant field that names no square.
    BadEnPassant(String),
    /// A halfmove clock or fullmove number (`counter` names which) above
    /// [`MAX_FEN_COUNTER`].
    CounterTooLarge { counter: &'static str, text: String },
    /// A halfmove clock or fullmove number that is not a number.
    CounterNotNumber { counter: &'static str, text: String },
    /// The side that just moved is in check.
    NotToMoveInCheck,
    /// A man stands where it must already have promoted.
    ManOnPromotionSquare { man: char, square: String },
    /// More moves than a move list holds.
    TooManyMoves,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => f.write_str("empty FEN"),
            FenError::TooManyFields(n) => write!(f, "FEN has {n} fields, at most 6 expected"),
            FenError::RankCount { found, expected } => {
                write!(f, "board has {found} ranks, the variant has {expected}")
            }
            FenError::EmptyRun { rank } => write!(f, "rank {rank}: empty run of 0 squares"),
            FenError::RankTooLong { rank, files } => {
                write!(f, "rank {rank} has more than {files} files")
            }
            FenError::UnknownPiece { letter, variant } => {
                write!(f, "'{letter}' is not a piece of {variant}")
            }
            FenError::TooManyMen => f.write_str("too many men"),
            FenError::RankTooShort {
                rank,
                found,
                expected,
            } => write!(
                f,
                "rank {rank} has {found} files, the variant has {expected}"
            ),
            FenError::KingCount { white, black } => write!(
                f,
                "each side needs exactly one king (White has {white}, Black has {black})"
            ),
            FenError::BadSide(s) => write!(f, "side to move must be w or b, found '{s}'"),
            FenError::BadCastling(c) => write!(f, "castling field: unexpected '{c}'"),
            FenError::BadEnPassant(s) => write!(f, "bad en-passant square '{s}'"),
            FenError::CounterTooLarge { counter, text } => write!(
                f,
                "{counter} must be at most {MAX_FEN_COUNTER}, found '{text}'"
            ),
            FenError::CounterNotNumber { counter, text } => {
                write!(f, "{counter} must be a number, found '{text}'")
            }
            FenError::NotToMoveInCheck => f.write_str("the side not to move is in check"),
            FenError::ManOnPromotionSquare { man, square } => {
                write!(f, "a {man} man stands on its promotion square {square}")
            }
            FenError::TooManyMoves => f.write_str("position has too many moves"),
        }
    }
}

impl std::error::Error for FenError {}

/// The largest halfmove clock or fullmove number a FEN may give. Each move
/// adds one to them, so a bound far below `u32::MAX` leaves room for any game
/// played on from the position.
pub const MAX_FEN_COUNTER: u32 = 1_000_000_000;

impl Position {
    /// Read a FEN with the checks the board can make alone (see
    /// [`Position::from_fen`], which adds the move generator's). Missing
    /// trailing fields take their usual defaults (`w - - 0 1`). Castling
    /// rights whose king or corner man is not on its start square are
    /// dropped, as is an en-passant square with no man that could just have
    /// double-stepped past it.
    pub(crate) fn read_fen(variant: Arc<Variant>, fen: &str) -> Result<Position, FenError> {
        let mut pos = Position::empty(variant);
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.is_empty() {
            return Err(FenError::Empty);
        }
        if fields.len() > 6 {
            return Err(FenError::TooManyFields(fields.len()));
        }
        let field = |i: usize, default: &'static str| fields.get(i).copied().unwrap_or(default);
        pos.read_board(fields[0])?;
        pos.side = match field(1, "w") {
            "w" => Color::White,
            "b" => Color::Black,
            s => return Err(FenError::BadSide(s.to_string())),
        };
        pos.read_castling(field(2, "-"))?;
        pos.read_en_passant(field(3, "-"))?;
        pos.halfmove = read_counter(fields.get(4).copied(), 0, "halfmove clock")?;
        pos.fullmove = read_counter(fields.get(5).copied(), 1, "fullmove number")?.max(1);
        pos.check_sane()?;
        pos.refresh_hash();
        Ok(pos)
    }

    /// Set the men of the board field up on the empty board; each side
    /// must have exactly one king.
    fn read_board(&mut self, board: &str) -> Result<(), FenError> {
        let ranks = self.variant.ranks;
        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != ranks {
            return Err(FenError::RankCount {
                found: rows.len(),
                expected: ranks,
            });
        }
        let mut kings = [0usize; 2];
        for (i, row) in rows.iter().enumerate() {
            self.read_rank(row, ranks - 1 - i, &mut kings)?;
        }
        if kings != [1, 1] {
            return Err(FenError::KingCount {
                white: kings[0],
                black: kings[1],
            });
        }
        Ok(())
    }

    /// Set up one rank (`rank` from 0) of the board field, counting each
    /// side's kings in `kings`.
    fn read_rank(
        &mut self,
        row: &str,
        rank: usize,
        kings: &mut [usize; 2],
    ) -> Result<(), FenError> {
        let v = &*self.variant;
        let too_long = FenError::RankTooLong {
            rank: rank + 1,
            files: v.files,
        };
        let mut file = 0usize;
        let mut chars = row.chars().peekable();
        while let Some(c) = chars.next() {
            if let Some(digit) = c.to_digit(10) {
                let n = empty_run(digit, &mut chars);
                if n == 0 {
                    return Err(FenError::EmptyRun { rank: rank + 1 });
                }
                file += n;
                if file > v.files {
                    return Err(too_long);
                }
                continue;
            }
            let Some(t) = v.type_of_letter(c) else {
                return Err(FenError::UnknownPiece {
                    letter: c,
                    variant: v.name.clone(),
                });
            };
            if file >= v.files {
                return Err(too_long);
            }
            let color = if c.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            if t == v.king {
                kings[color.index()] += 1;
            }
            if self.b.lists[color.index()].squares.len() >= MAX_MEN {
                return Err(FenError::TooManyMen);
            }
            let sq = Square::new(file, rank).index();
            self.b.set(v, sq, Cell::piece(t, color));
            file += 1;
        }
        if file != v.files {
            return Err(FenError::RankTooShort {
                rank: rank + 1,
                found: file,
                expected: v.files,
            });
        }
        Ok(())
    }

    /// The castling rights of the castling field (`-` for none) that the
    /// board allows: a right whose king or corner man is not on its start
    /// square is dropped.
    fn read_castling(&mut self, field: &str) -> Result<(), FenError> {
        if field == "-" {
            return Ok(());
        }
        let v = &*self.variant;
        for c in field.chars() {
            let (color, kingside) = match c {
                'K' => (Color::White, true),
                'Q' => (Color::White, false),
                'k' => (Color::Black, true),
                'q' => (Color::Black, false),
                _ => return Err(FenError::BadCastling(c)),
            };
            if let Some(rule) = v
                .castling
                .iter()
                .find(|r| r.color == color && r.kingside == kingside)
            {
                let king_ok = self.b.cells[rule.king_from.index()] == Cell::piece(v.king, color);
                let corner = self.b.cells[rule.rook_from.index()];
                let corner_ok = corner.is_color(color)
                    && v.piece(corner.kind()).members & v.castling_pieces != 0;
                if king_ok && corner_ok {
                    self.castling |= 1 << rule.bit;
                }
            }
        }
        Ok(())
    }

    /// The en-passant square of its field (`-` for none), kept only when it
    /// is empty and a man of the side that moved, able to double-step,
    /// stands one step beyond it.
    fn read_en_passant(&mut self, field: &str) -> Result<(), FenError> {
        if field == "-" {
            return Ok(());
        }
        let v = &*self.variant;
        let Some(sq) = v.parse_square(field) else {
            return Err(FenError::BadEnPassant(field.to_string()));
        };
        // The man that double-stepped stands one step beyond the square,
        // seen from the side that moved.
        let mover = self.side.flip();
        let victim = if mover == Color::White {
            sq.index() + 16
        } else {
            sq.index() - 16
        };
        let vc = self.b.cells[victim];
        let stepper = vc.is_color(mover)
            && v.piece(vc.kind()).rules[mover.index()]
                .iter()
                .any(|r| r.double_step);
        if self.b.cells[sq.index()].is_empty() && stepper {
            self.ep = sq.0;
            self.ep_victim = victim as u8;
        }
        Ok(())
    }

    /// The checks of a position read: the side that just moved may not be
    /// in check, and no man may stand where it must already have promoted.
    fn check_sane(&self) -> Result<(), FenError> {
        let v = &*self.variant;
        let them = self.side.flip();
        if is_attacked(self, self.b.kings[them.index()] as usize, self.side) {
            return Err(FenError::NotToMoveInCheck);
        }
        if v.mandatory_promotion {
            for color in Color::BOTH {
                for &sq in self.men(color) {
                    let t = self.b.cells[sq as usize].kind();
                    if v.promotion_pawns & t.bit() != 0
                        && v.promotion_region[color.index()].contains(sq as usize)
                    {
                        return Err(FenError::ManOnPromotionSquare {
                            man: v.letter(t, color),
                            square: v.square_name(Square(sq)),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Write the position as FEN.
    pub fn to_fen(&self) -> String {
        let v = &*self.variant;
        let mut s = String::new();
        for rank in (0..v.ranks).rev() {
            let mut empty = 0;
            for file in 0..v.files {
                let c = self.b.cells[Square::new(file, rank).index()];
                if c.is_piece() {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    s.push(v.letter(c.kind(), c.color()));
                } else {
                    empty += 1;
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(if self.side == Color::White { 'w' } else { 'b' });
        s.push(' ');
        let mut rights = String::new();
        for (color, kingside, ch) in [
            (Color::White, true, 'K'),
            (Color::White, false, 'Q'),
            (Color::Black, true, 'k'),
            (Color::Black, false, 'q'),
        ] {
            if let Some(rule) = v
                .castling
                .iter()
                .find(|r| r.color == color && r.kingside == kingside)
                && self.castling & (1 << rule.bit) != 0
            {
                rights.push(ch);
            }
        }
        if rights.is_empty() {
            rights.push('-');
        }
        s.push_str(&rights);
        s.push(' ');
        if self.ep != 0 {
            s.push_str(&v.square_name(Square(self.ep)));
        } else {
            s.push('-');
        }
        s.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        s
    }
}

/// The length of a run of empty squares that starts with `first`, its
/// further digits read from `chars` (a run grown past 99 stops there: the
/// rank is too long whatever follows).
fn empty_run(first: u32, chars: &mut std::iter::Peekable<std::str::Chars>) -> usize {
    let mut n = first as usize;
    while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
        n = n * 10 + d as usize;
        chars.next();
        if n > 99 {
            break;
        }
    }
    n
}

/// A halfmove clock or fullmove number (`counter` names which), `default`
/// when the field is missing.
fn read_counter(text: Option<&str>, default: u32, counter: &'static str) -> Result<u32, FenError> {
    let Some(s) = text else {
        return Ok(default);
    };
    match s.parse::<u32>() {
        Ok(n) if n <= MAX_FEN_COUNTER => Ok(n),
        Ok(_) => Err(FenError::CounterTooLarge {
            counter,
            text: s.to_string(),
        }),
        Err(_) => Err(FenError::CounterNotNumber {
            counter,
            text: s.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant_set::VariantSet;

    /// Each reason for refusing a FEN has its own text.
    #[test]
    fn refusals_say_why() {
        let v = VariantSet::builtin().compile("chess").expect("variant");
        for (fen, why) in [
            ("", "empty FEN"),
            ("a b c d e f g", "FEN has 7 fields, at most 6 expected"),
            ("8/8/8 w", "board has 3 ranks, the variant has 8"),
            ("k7/8/8/8/8/8/8/0K7", "rank 1: empty run of 0 squares"),
            ("k8/8/8/8/8/8/8/K7", "rank 8 has more than 8 files"),
            ("k7p/8/8/8/8/8/8/K7", "rank 8 has more than 8 files"),
            ("kx6/8/8/8/8/8/8/K7", "'x' is not a piece of chess"),
            ("k6/8/8/8/8/8/8/K7", "rank 8 has 7 files, the variant has 8"),
            (
                "8/8/8/8/8/8/8/K7",
                "each side needs exactly one king (White has 1, Black has 0)",
            ),
            (
                "k7/8/8/8/8/8/8/K7 x",
                "side to move must be w or b, found 'x'",
            ),
            ("k7/8/8/8/8/8/8/K7 w X", "castling field: unexpected 'X'"),
            ("k7/8/8/8/8/8/8/K7 w - z9", "bad en-passant square 'z9'"),
            (
                "k7/8/8/8/8/8/8/K7 w - - 1000000001",
                "halfmove clock must be at most 1000000000, found '1000000001'",
            ),
            (
                "k7/8/8/8/8/8/8/K7 w - - 0 x",
                "fullmove number must be a number, found 'x'",
            ),
            ("k6R/8/8/8/8/8/8/K7 w", "the side not to move is in check"),
            (
                "k5P1/8/8/8/8/8/8/K7 w",
                "a P man stands on its promotion square g8",
            ),
        ] {
            let got = Position::from_fen(v.clone(), fen).map(|p| p.to_fen());
            assert_eq!(
                got.map_err(|e| e.to_string()),
                Err(why.to_string()),
                "{fen}"
            );
        }
    }

    /// Moves add one to both counters: the largest ones a FEN may give
    /// leave room for that, and larger ones are refused.
    #[test]
    fn clocks_at_the_bound_can_move_on() {
        let v = VariantSet::builtin().compile("chess").expect("variant");
        let fen = format!("4k3/8/8/8/8/8/8/4K3 b - - {MAX_FEN_COUNTER} {MAX_FEN_COUNTER}");
        let mut p = Position::from_fen(v.clone(), &fen).expect("fen");
        let m = p.parse_move("e8e7").expect("move");
        p.make(m);
        assert_eq!(p.halfmove_clock(), MAX_FEN_COUNTER + 1);
        assert_eq!(p.fullmove_number(), MAX_FEN_COUNTER + 1);
        p.unmake();
        assert_eq!(p.to_fen(), fen);
        for fen in [
            "4k3/8/8/8/8/8/8/4K3 w - - 4294967295 1",
            "4k3/8/8/8/8/8/8/4K3 b - - 0 4294967295",
        ] {
            let read = Position::from_fen(v.clone(), fen);
            if let Ok(mut p) = read.clone() {
                // What accepting them would lead to: the next move overflows.
                let m = p.legal_moves()[0];
                p.make(m);
            }
            assert!(read.is_err(), "{fen}");
        }
    }
}
