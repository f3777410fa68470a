//! The binary data format: whole games, a start position and then each
//! move with the search's score, about 3.5 bytes a ply.
//!
//! All numbers are little-endian. A file is a header and then records:
//!
//! ```text
//! header  MAGIC (8 bytes) | VERSION u16 | name length u16 | variant name
//!         | layout hash u64 | provenance length u32 | provenance text
//! record  type u8 | body length u32 | body
//!   summed game (type 7): game | sum u32 (the body before it: FNV-1a's
//!            low 32 bits)
//!   game     (type 1): result u8 (0 Black won, 1 draw, 2 White won)
//!            | FEN length u16 | start FEN | plies...
//!   comment  (type 2): UTF-8 text (provenance of a later run)
//! ply     code u16 | [extra u16] | score delta (zigzag LEB128, 1 to 3 bytes)
//! ```
//!
//! A ply's code holds the move's origin and destination as `from * 120 +
//! to` (squares numbered `rank * 12 + file`, so the numbers do not depend
//! on the board's width), bit 14 when the extra field follows and bit 15
//! when the position before the move is a training position. Without the
//! extra field the move is the one the origin's man makes whole to the
//! destination, plain, as a double step, en passant or castling, whichever
//! is legal ([`default_move`]); with it the move's other fields (the part
//! that moves, the man that stands on the destination, the kind: stack
//! splits, merges, promotions) are the extra field, the high half of
//! [`Move`]. The encoding does not depend on the order in which moves are
//! generated. The code [`NO_MOVE`] ends a game with a scored position and
//! no move (a position converted from a text file is a game of its own
//! with one such ply).
//!
//! What a reader checks ([`MoveCheck`]): games are written summed, and a
//! summed game whose sum holds is replayed with each move checked to be
//! one its man can make (pseudo-legal) and to capture no royal man: the sum
//! finds damage anywhere in the record, scores and results included, and
//! the check keeps a forged record from making a move that the board
//! cannot take. A game without a sum (files of earlier versions) has each
//! move checked legal, which finds most damage to moves but none to
//! scores, and costs about a seventh of the trainer's reading.
//!
//! A ply's score is White's, in centipawns, stored as the difference from
//! the previous ply's (the first from 0); beyond [`MAX_CP`] it is clamped,
//! a mate is [`MATE_WHITE`] or [`MATE_BLACK`].
//!
//! The layout hash ([`layout_hash`]) covers what a game's decoding depends
//! on: the board, the men (letters, moves, stacks), promotion and castling,
//! so a file is refused by another variant or by a changed definition.

use crate::rules::board::Position;
use crate::rules::movegen::{is_legal, is_pseudo_legal};
use crate::rules::types::{Move, MoveKind, Square};
use crate::rules::variant::Variant;
use crate::util::hash::{FNV_OFFSET, fnv1a, fnv1a_from};
use std::sync::Arc;

/// The file's first bytes.
pub const MAGIC: [u8; 8] = *b"AMGDATA\x1a";
/// The format version written and read.
pub const VERSION: u16 = 1;
/// The largest score in centipawns stored as it is.
pub const MAX_CP: i32 = 30_000;
/// A mate for White / for Black.
pub const MATE_WHITE: i32 = 32_000;
pub const MATE_BLACK: i32 = -32_000;
/// The ply code of a scored position without a move (the game's last).
pub const NO_MOVE: u16 = 0x3FFF;
const EXTRA_BIT: u16 = 1 << 14;
const TRAIN_BIT: u16 = 1 << 15;
/// Square numbers are `rank * SQUARE_ROW + file`.
const SQUARE_ROW: usize = 12;
/// Square pairs are `from * SQUARE_PAIR + to`.
const SQUARE_PAIR: u16 = 120;
/// Record types.
pub const GAME: u8 = 1;
pub const COMMENT: u8 = 2;
/// Two bits from each other type: one flipped bit makes no known type of a
/// summed game's (a game would otherwise read as a comment).
pub const SUMMED_GAME: u8 = 7;
/// The bytes of a summed game's sum.
const SUM_BYTES: usize = 4;
/// The longest record body written or read: `datagen`'s games end at
/// 2,000 plies (at most 7 bytes each), and the bound keeps a damaged
/// length from making one game's replay hold hundreds of thousands of
/// positions.
const MAX_BODY: u32 = 1 << 20;

/// A stable 64-bit hash ([`fnv1a`]) of numbers and text, in pieces.
struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, b: &[u8]) {
        self.0 = fnv1a_from(self.0, b);
    }
    fn num(&mut self, n: u64) {
        self.bytes(&n.to_le_bytes());
    }
    fn text(&mut self, s: &str) {
        self.num(s.len() as u64);
        self.bytes(s.as_bytes());
    }
}

/// The hash of what decoding a game depends on: board size, men (letters,
/// Betza, stack members, royalty, parts), promotion and castling.
pub fn layout_hash(v: &Variant) -> u64 {
    let mut h = Fnv(FNV_OFFSET);
    h.num(u64::from(VERSION));
    h.num(v.files as u64);
    h.num(v.ranks as u64);
    h.num(u64::from(v.stack_max));
    h.num(u64::from(v.king.0));
    h.num(v.pieces.len() as u64);
    for p in &v.pieces {
        h.num(u64::from(p.letter));
        h.text(&p.betza);
        h.num(p.members);
        h.num(u64::from(p.royal) | u64::from(p.stackable) << 1);
        h.num(p.parts.len() as u64);
        for t in &p.parts {
            h.num(u64::from(t.0));
        }
    }
    h.num(v.promotion_pawns);
    for list in [&v.promotion_types, &v.pair_promotion_types] {
        h.num(list.len() as u64);
        for t in list {
            h.num(u64::from(t.0));
        }
    }
    h.num(u64::from(v.mandatory_promotion));
    for set in v.promotion_region.iter().chain(&v.initial_region) {
        for w in set.0 {
            h.num(w);
        }
    }
    h.num(v.castling_pieces);
    h.num(v.castling.len() as u64);
    for c in &v.castling {
        for sq in [c.king_from, c.king_to, c.rook_from, c.rook_to] {
            h.num(u64::from(sq.0));
        }
        h.num(c.color as u64);
        h.num(c.empty.len() as u64);
        for sq in c.empty.iter().chain(&c.king_path) {
            h.num(u64::from(sq.0));
        }
    }
    h.0
}

/// A file's header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub variant: String,
    pub layout: u64,
    /// Free text: how the data was made (lines).
    pub provenance: String,
}

/// A damaged or foreign file: the byte where reading stopped and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    pub offset: u64,
    pub message: String,
}

fn damage(offset: usize, message: impl Into<String>) -> Damage {
    Damage {
        offset: offset as u64,
        message: message.into(),
    }
}

/// Whether `bytes` are a binary data file (or the start of one).
pub fn is_binary(bytes: &[u8]) -> bool {
    let n = bytes.len().min(MAGIC.len());
    n > 0 && bytes[..n] == MAGIC[..n]
}

/// Reads numbers from a slice, every read checked; `base` is the slice's
/// offset in the file, for errors.
struct Bytes<'a> {
    bytes: &'a [u8],
    at: usize,
    base: usize,
}

impl<'a> Bytes<'a> {
    fn offset(&self) -> usize {
        self.base + self.at
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], Damage> {
        match self.bytes.get(self.at..self.at.saturating_add(n)) {
            Some(s) => {
                self.at += n;
                Ok(s)
            }
            None => Err(damage(self.offset(), format!("ends inside {what}"))),
        }
    }
    fn u8(&mut self, what: &str) -> Result<u8, Damage> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, Damage> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &str) -> Result<u32, Damage> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self, what: &str) -> Result<u64, Damage> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8, what)?);
        Ok(u64::from_le_bytes(a))
    }
    fn text(&mut self, n: usize, what: &str) -> Result<&'a str, Damage> {
        let at = self.offset();
        std::str::from_utf8(self.take(n, what)?)
            .map_err(|_| damage(at, format!("{what} is not UTF-8 text")))
    }
    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }
}

impl Header {
    /// The header of a file of `v`.
    pub fn new(v: &Variant, provenance: &str) -> Header {
        Header {
            variant: v.name.clone(),
            layout: layout_hash(v),
            provenance: provenance.to_string(),
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        // Longer fields than the lengths can hold are cut (a variant name is
        // short; provenance is free text).
        let name = cut(&self.variant, usize::from(u16::MAX));
        let provenance = cut(&self.provenance, 1 << 20);
        let mut out = MAGIC.to_vec();
        out.extend(VERSION.to_le_bytes());
        out.extend((name.len() as u16).to_le_bytes());
        out.extend(name.as_bytes());
        out.extend(self.layout.to_le_bytes());
        out.extend((provenance.len() as u32).to_le_bytes());
        out.extend(provenance.as_bytes());
        out
    }

    /// The header at the start of `bytes` and its length.
    pub fn parse(bytes: &[u8]) -> Result<(Header, usize), Damage> {
        let mut r = Bytes {
            bytes,
            at: 0,
            base: 0,
        };
        if r.take(MAGIC.len(), "the header")? != MAGIC {
            return Err(damage(0, "not an amalgam binary data file"));
        }
        let version = r.u16("the header")?;
        if version != VERSION {
            return Err(damage(
                MAGIC.len(),
                format!("format version {version}; this build reads version {VERSION}"),
            ));
        }
        let n = r.u16("the header")?;
        let variant = r.text(usize::from(n), "the variant's name")?.to_string();
        let layout = r.u64("the header")?;
        let n = r.u32("the header")?;
        let provenance = r.text(n as usize, "the provenance text")?.to_string();
        Ok((
            Header {
                variant,
                layout,
                provenance,
            },
            r.at,
        ))
    }

    /// Whether the file's variant is `v`: same name and same layout.
    pub fn check(&self, v: &Variant) -> Result<(), String> {
        let layout = layout_hash(v);
        if self.variant != v.name {
            Err(format!(
                "data of variant '{}', not of '{}'",
                self.variant, v.name
            ))
        } else if self.layout != layout {
            Err(format!(
                "data of another definition of '{}' (layout {:016x}, this one {layout:016x}): \
                 its board, men, promotion or castling differ",
                self.variant, self.layout
            ))
        } else {
            Ok(())
        }
    }
}

/// The first `max` bytes of `s`, cut at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// One record of a file, found by [`records`].
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    /// The offset of the record's first byte in the file.
    pub offset: u64,
    pub kind: u8,
    /// The body (a summed game's without its sum).
    pub body: &'a [u8],
    /// A summed game's sum, as read (checked when the game is replayed).
    pub sum: Option<u32>,
}

impl Record<'_> {
    /// A game, summed or not.
    pub fn is_game(&self) -> bool {
        self.kind == GAME || self.kind == SUMMED_GAME
    }

    /// The offset of the byte after the record.
    pub fn end(&self) -> usize {
        self.offset as usize + 5 + self.body.len() + self.sum.map_or(0, |_| SUM_BYTES)
    }

    /// The record as it stands in a file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let sum = self.sum.map(u32::to_le_bytes);
        let len = self.body.len() + sum.map_or(0, |s| s.len());
        let mut out = Vec::with_capacity(5 + len);
        out.push(self.kind);
        // A record read has at most MAX_BODY bytes.
        out.extend((len as u32).to_le_bytes());
        out.extend(self.body);
        out.extend(sum.iter().flatten());
        out
    }
}

/// A summed game's sum of its body.
pub fn sum(body: &[u8]) -> u32 {
    fnv1a(body) as u32
}

/// A file's records after the header (at `start`), and the damage that
/// ended the list early, if any (a truncated last record: an interrupted
/// writer).
pub fn records(bytes: &[u8], start: usize) -> (Vec<Record<'_>>, Option<Damage>) {
    let mut out = Vec::new();
    let mut at = start;
    while at < bytes.len() {
        let mut r = Bytes {
            bytes: &bytes[at..],
            at: 0,
            base: at,
        };
        let head = r.u8("a record's type").and_then(|kind| {
            let len = r.u32("a record's length")?;
            if ![GAME, COMMENT, SUMMED_GAME].contains(&kind) {
                return Err(damage(at, format!("unknown record type {kind}")));
            }
            if kind == SUMMED_GAME && (len as usize) < SUM_BYTES {
                return Err(damage(at, format!("summed game of {len} bytes")));
            }
            if len > MAX_BODY {
                return Err(damage(at, format!("record of {len} bytes: too long")));
            }
            Ok((kind, len as usize))
        });
        let (kind, len) = match head {
            Ok(h) => h,
            Err(d) => {
                let d = truncated(d, &out);
                return (out, Some(d));
            }
        };
        let body = match r.take(len, "a record") {
            Ok(b) => b,
            Err(_) => {
                let d = damage(
                    at,
                    format!(
                        "truncated record: {len} bytes announced, {} left",
                        bytes.len() - at - 5
                    ),
                );
                let d = truncated(d, &out);
                return (out, Some(d));
            }
        };
        let (body, sum) = if kind == SUMMED_GAME {
            let (body, sum) = body.split_at(len - SUM_BYTES);
            (
                body,
                Some(u32::from_le_bytes([sum[0], sum[1], sum[2], sum[3]])),
            )
        } else {
            (body, None)
        };
        out.push(Record {
            offset: at as u64,
            kind,
            body,
            sum,
        });
        at += 5 + len;
    }
    (out, None)
}

/// `d` with the count of whole games before it.
fn truncated(mut d: Damage, before: &[Record]) -> Damage {
    let games = before.iter().filter(|r| r.is_game()).count();
    d.message = format!("{} ({games} whole games before it)", d.message);
    d
}

/// A game as the writer gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    /// The start position's FEN.
    pub start: String,
    pub plies: Vec<Ply>,
    /// White's points: 1, 0.5 or 0.
    pub result: f64,
}

/// A position of a game: its score and the move played there (none for a
/// last position that is only scored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    pub mv: Option<Move>,
    /// White's score in centipawns, or [`MATE_WHITE`] / [`MATE_BLACK`].
    pub score: i32,
    /// A training position.
    pub train: bool,
}

/// The result's byte.
fn result_byte(result: f64) -> Result<u8, String> {
    match result {
        1.0 => Ok(2),
        0.5 => Ok(1),
        0.0 => Ok(0),
        r => Err(format!("result {r} is none of 1, 0.5, 0")),
    }
}

fn square_number(sq: Square) -> u16 {
    (sq.rank() * SQUARE_ROW + sq.file()) as u16
}

fn number_square(v: &Variant, n: u16) -> Option<Square> {
    let n = usize::from(n);
    v.square(n % SQUARE_ROW, n / SQUARE_ROW)
}

/// How a replayed move is checked (see the module's notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveCheck {
    /// Legal where it is played: a game without a sum, and every move
    /// written.
    Legal,
    /// One the man on its origin can make there (castling: legal), and no
    /// capture of a royal man: a summed game whose sum holds.
    Playable,
}

impl MoveCheck {
    /// Whether `m` passes; `in_check` is the side to move's, asked for
    /// only where needed (it costs more than the rest of the test).
    fn accepts(self, pos: &mut Position, m: Move, in_check: &mut Option<bool>) -> bool {
        let mut in_check = |pos: &Position| *in_check.get_or_insert_with(|| pos.in_check());
        match self {
            MoveCheck::Legal => {
                let check = in_check(pos);
                is_legal(pos, m, check)
            }
            MoveCheck::Playable if m.kind() == MoveKind::Castle => {
                let check = in_check(pos);
                is_legal(pos, m, check)
            }
            MoveCheck::Playable => is_pseudo_legal(pos, m) && !captures_royal(pos, m),
        }
    }
}

/// Whether `m` (pseudo-legal) takes a royal man: only an illegal move
/// before it could allow that, and a side without its king is no position.
fn captures_royal(pos: &Position, m: Move) -> bool {
    let victim = match m.kind() {
        MoveKind::EnPassant => Square(pos.ep_victim),
        _ => m.to(),
    };
    let cell = pos.cell(victim);
    cell.is_color(pos.side_to_move().flip()) && pos.variant().piece(cell.kind()).royal
}

/// The move that the man on `from` makes whole to `to` without promotion,
/// if one such passes `check` here: what a ply without the extra field
/// holds.
fn default_move(
    pos: &mut Position,
    from: Square,
    to: Square,
    check: MoveCheck,
    in_check: &mut Option<bool>,
) -> Option<Move> {
    let cell = pos.cell(from);
    if !cell.is_color(pos.side_to_move()) {
        return None;
    }
    let k = cell.kind();
    [
        MoveKind::Normal,
        MoveKind::DoubleStep,
        MoveKind::EnPassant,
        MoveKind::Castle,
    ]
    .into_iter()
    .map(|kind| Move::new(from, to, k, k, kind))
    .find(|&m| check.accepts(pos, m, in_check))
}

/// The move of a ply's square pair and extra field, checked by `check`.
fn decode_move(
    pos: &mut Position,
    pair: u16,
    extra: Option<u16>,
    check: MoveCheck,
) -> Result<Move, String> {
    // The variant is borrowed, not cloned: a shared count touched on every
    // ply by every thread would cost more than the rest of the decoding.
    let v = pos.variant();
    let (from, to) = match (
        number_square(v, pair / SQUARE_PAIR),
        number_square(v, pair % SQUARE_PAIR),
    ) {
        (Some(f), Some(t)) => (f, t),
        _ => return Err(format!("move code {pair}: no square of the board")),
    };
    let mut in_check = None;
    let m = match extra {
        None => default_move(pos, from, to, check, &mut in_check),
        Some(x) => Some(Move(
            u32::from(from.0) | u32::from(to.0) << 8 | u32::from(x) << 16,
        ))
        .filter(|&m| check.accepts(pos, m, &mut in_check)),
    };
    m.ok_or_else(|| {
        let v = pos.variant();
        let x = extra.map(|x| format!(" ({x:#06x})")).unwrap_or_default();
        let what = match check {
            MoveCheck::Legal => "not legal here",
            MoveCheck::Playable => "no move of its man here",
        };
        format!(
            "move {}{}{x} is {what}",
            v.square_name(from),
            v.square_name(to)
        )
    })
}

/// A ply's code and extra field for `m`, checked to decode to `m`.
fn encode_move(pos: &mut Position, m: Move) -> Result<(u16, Option<u16>), String> {
    let pair = square_number(m.from()) * SQUARE_PAIR + square_number(m.to());
    let legal = MoveCheck::Legal;
    let extra = if default_move(pos, m.from(), m.to(), legal, &mut None) == Some(m) {
        None
    } else {
        Some((m.0 >> 16) as u16)
    };
    match decode_move(pos, pair, extra, legal) {
        Ok(back) if back == m => Ok((pair, extra)),
        _ => Err(format!("{m:?} is no legal move of {}", pos.to_fen())),
    }
}

fn zigzag(x: i32) -> u32 {
    ((x << 1) ^ (x >> 31)) as u32
}

fn unzigzag(z: u32) -> i32 {
    (z >> 1) as i32 ^ -((z & 1) as i32)
}

fn check_score(s: i32) -> bool {
    s.abs() <= MAX_CP || s == MATE_WHITE || s == MATE_BLACK
}

/// A game's record, type and length included, for one write. Each move is
/// replayed from the start position to be encoded and checked.
pub fn encode_game(v: &Arc<Variant>, game: &Game) -> Result<Vec<u8>, String> {
    let mut body = vec![result_byte(game.result)?];
    let fen = game.start.as_bytes();
    let len = u16::try_from(fen.len()).map_err(|_| "FEN too long".to_string())?;
    body.extend(len.to_le_bytes());
    body.extend(fen);
    let mut pos =
        Position::from_fen(v.clone(), &game.start).map_err(|e| format!("bad FEN: {e}"))?;
    let mut last = 0;
    for (i, ply) in game.plies.iter().enumerate() {
        if !check_score(ply.score) || (ply.train && ply.score.abs() > MAX_CP) {
            return Err(format!(
                "score {} beyond the format's range{}",
                ply.score,
                if ply.train {
                    " for a training position"
                } else {
                    ""
                }
            ));
        }
        let (pair, extra) = match ply.mv {
            Some(m) => encode_move(&mut pos, m)?,
            None if i + 1 == game.plies.len() => (NO_MOVE, None),
            None => return Err("a ply without a move before the last".to_string()),
        };
        let code = pair
            | if extra.is_some() { EXTRA_BIT } else { 0 }
            | if ply.train { TRAIN_BIT } else { 0 };
        body.extend(code.to_le_bytes());
        if let Some(x) = extra {
            body.extend(x.to_le_bytes());
        }
        let mut z = zigzag(ply.score - last);
        last = ply.score;
        while z >= 0x80 {
            body.push((z as u8 & 0x7F) | 0x80);
            z >>= 7;
        }
        body.push(z as u8);
        if let Some(m) = ply.mv {
            pos.make(m);
        }
    }
    body.extend(sum(&body).to_le_bytes());
    record(SUMMED_GAME, &body)
}

/// A comment record (provenance of a later run).
pub fn comment_record(text: &str) -> Result<Vec<u8>, String> {
    record(COMMENT, cut(text, 1 << 20).as_bytes())
}

fn record(kind: u8, body: &[u8]) -> Result<Vec<u8>, String> {
    let len = u32::try_from(body.len())
        .ok()
        .filter(|&n| n <= MAX_BODY)
        .ok_or_else(|| format!("record of {} bytes: too long", body.len()))?;
    let mut out = Vec::with_capacity(body.len() + 5);
    out.push(kind);
    out.extend(len.to_le_bytes());
    out.extend(body);
    Ok(out)
}

/// A decoded game's totals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GameInfo {
    /// Scored positions (plies, and a last position without a move).
    pub positions: usize,
    pub training: usize,
    /// White's points.
    pub result: f64,
}

/// How many training positions the game record `r` holds, counted from
/// its plies' codes without replaying a move (cheap: what the positions'
/// numbers are known by before they are read). A damaged record is
/// counted as far as it can be read; its replay reports the damage.
pub fn training_plies(r: &Record) -> usize {
    let body = r.body;
    // Result byte, FEN length, FEN.
    let Some(fen) = body
        .get(1..3)
        .map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])))
    else {
        return 0;
    };
    let mut at = 3 + fen;
    let mut count = 0;
    while let Some(b) = body.get(at..at + 2) {
        let code = u16::from_le_bytes([b[0], b[1]]);
        count += usize::from(code & TRAIN_BIT != 0);
        at += if code & EXTRA_BIT != 0 { 4 } else { 2 };
        // The score: bytes with the high bit set, then one without.
        while body.get(at).is_some_and(|&x| x & 0x80 != 0) {
            at += 1;
        }
        at += 1;
    }
    count
}

/// Replay the game record `r` (a game, summed or not): `visit` is given
/// each position before its move is made, with its White score and whether
/// it is a training position, and the game's result. A summed game's sum
/// is checked first; every move is checked ([`MoveCheck`]).
pub fn decode_game(
    v: &Arc<Variant>,
    r: &Record,
    mut visit: impl FnMut(&Position, &Ply, f64) -> Result<(), String>,
) -> Result<GameInfo, Damage> {
    let base = r.offset as usize + 5;
    let check = match r.sum {
        Some(s) if s == sum(r.body) => MoveCheck::Playable,
        Some(_) => {
            return Err(damage(
                r.offset as usize,
                "damaged game: its sum does not hold",
            ));
        }
        None => MoveCheck::Legal,
    };
    let mut b = Bytes {
        bytes: r.body,
        at: 0,
        base,
    };
    let result = match b.u8("the game")? {
        0 => 0.0,
        1 => 0.5,
        2 => 1.0,
        x => return Err(damage(base, format!("result byte {x}"))),
    };
    let n = b.u16("the game")?;
    let at = b.offset();
    let fen = b.text(usize::from(n), "the start position")?;
    let mut pos = Position::from_fen(v.clone(), fen)
        .map_err(|e| damage(at, format!("bad FEN '{fen}': {e}")))?;
    let mut info = GameInfo {
        result,
        ..Default::default()
    };
    let mut score = 0i32;
    while !b.done() {
        let at = b.offset();
        let code = b.u16("a ply")?;
        let extra = if code & EXTRA_BIT != 0 {
            Some(b.u16("a ply")?)
        } else {
            None
        };
        let mut z = 0u32;
        for i in 0..3 {
            let x = b.u8("a ply's score")?;
            z |= u32::from(x & 0x7F) << (7 * i);
            if x & 0x80 == 0 {
                break;
            }
            if i == 2 {
                return Err(damage(at, "score longer than 3 bytes"));
            }
        }
        score = score.saturating_add(unzigzag(z));
        let train = code & TRAIN_BIT != 0;
        if !check_score(score) || (train && score.abs() > MAX_CP) {
            return Err(damage(at, format!("score {score} out of range")));
        }
        let pair = code & !(EXTRA_BIT | TRAIN_BIT);
        let mv = if pair == NO_MOVE {
            if extra.is_some() || !b.done() {
                return Err(damage(
                    at,
                    "a position without a move before the game's end",
                ));
            }
            None
        } else {
            Some(decode_move(&mut pos, pair, extra, check).map_err(|e| damage(at, e))?)
        };
        let ply = Ply { mv, score, train };
        visit(&pos, &ply, result).map_err(|e| damage(at, e))?;
        info.positions += 1;
        info.training += usize::from(train);
        if let Some(m) = mv {
            pos.make(m);
        }
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_round_trips_every_score_difference() {
        for x in [0, 1, -1, 63, -64, 64, 8191, -8192, 64_000, -64_000] {
            assert_eq!(unzigzag(zigzag(x)), x);
        }
        assert_eq!((zigzag(-1), zigzag(1)), (1, 2));
    }

    #[test]
    fn headers_round_trip_and_partial_headers_are_binary() {
        let h = Header {
            variant: "chess".into(),
            layout: 0x0123_4567_89ab_cdef,
            provenance: "amalgam datagen".into(),
        };
        let bytes = h.to_bytes();
        assert_eq!(Header::parse(&bytes), Ok((h, bytes.len())));
        assert!(is_binary(&bytes[..3]) && !is_binary(b"rnbqkbnr/") && !is_binary(b""));
        for n in 0..bytes.len() {
            assert!(Header::parse(&bytes[..n]).is_err(), "{n}");
        }
    }
}
