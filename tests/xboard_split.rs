//! The engine's moves for an XBoard with the `split` command, checked
//! against a model of that GUI written from the command's specification:
//! `setup` gives the piece table (the rows and columns of the split table,
//! unused `.` slots skipped) and the start position; `split` gives, for
//! each moved man and promotion suffix, the man left on the from-square; a
//! move puts its suffix's man (else the moved man) on its destination, empties
//! the square its first leg ends on when it has two legs, then puts the
//! table's man on its origin. The GUI moves the rook of a king that steps
//! two or more files, and removes the victim of its pawn's en-passant
//! capture. After every move the model's board must equal the engine's.

mod common;

use amalgam::protocol::xboard::moves::{Gui, from_gui};
use amalgam::protocol::xboard::setup::setup_lines;
use amalgam::protocol::xboard::split::{SplitTable, lines_for};
use amalgam::rules::game::outcome;
use amalgam::rules::types::{Move, MoveKind, Square};
use amalgam::{Position, VariantSet};
use common::Rng;
use common::session::Session;

/// The GUI's board as the `split` specification says it changes.
struct GuiModel {
    files: usize,
    ranks: usize,
    /// Men by square (`file + rank * files`), as the GUI writes them.
    board: Vec<Option<char>>,
    /// The piece table's men in its order.
    men: Vec<char>,
    /// The GUI's pawn and king (White's letters).
    pawn: Option<char>,
    king: char,
    /// `table[row][column]`: the man a move leaves on its origin.
    table: Vec<Vec<Option<char>>>,
    /// Legs of a move in progress (`move F V,` before `move V T`).
    legs: Vec<String>,
}

impl GuiModel {
    fn from_setup(line: &str) -> GuiModel {
        let rest = line.strip_prefix("setup (").expect("setup line");
        let (pieces, rest) = rest.split_once(") ").expect("piece table");
        let (size, fen) = rest.split_once(' ').expect("size");
        let (files, rest) = size.split_once('x').expect("files");
        let ranks: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let (files, ranks): (usize, usize) = (files.parse().unwrap(), ranks.parse().unwrap());
        let chars: Vec<char> = pieces.chars().collect();
        let half = &chars[..chars.len() / 2];
        let mut model = GuiModel {
            files,
            ranks,
            board: vec![None; files * ranks],
            men: chars.iter().copied().filter(|&c| c != '.').collect(),
            pawn: Some(half[0]).filter(|&c| c != '.'),
            king: half[half.len() - 1],
            table: Vec::new(),
            legs: Vec::new(),
        };
        let placement = fen.split(' ').next().unwrap();
        for (r, row) in placement.split('/').enumerate() {
            let rank = ranks - 1 - r;
            let mut file = 0;
            let mut digits = String::new();
            for c in row.chars() {
                if c.is_ascii_digit() {
                    digits.push(c);
                    continue;
                }
                file += digits.parse::<usize>().unwrap_or(0);
                digits.clear();
                model.board[file + rank * files] = Some(c);
                file += 1;
            }
        }
        model
    }

    /// `split ROWS`.
    fn split(&mut self, line: &str) {
        let rows = line.strip_prefix("split").unwrap().trim();
        self.table = vec![vec![None; self.men.len() + 1]; self.men.len()];
        for (r, row) in rows.split('/').enumerate() {
            for (c, e) in row.chars().enumerate() {
                self.table[r][c] = Some(e).filter(|&e| e != '-');
            }
        }
    }

    fn square(&self, text: &str) -> usize {
        let file = (text.as_bytes()[0] - b'a') as usize;
        let rank: usize = text[1..].parse().unwrap();
        file + (rank - 1) * self.files
    }

    /// A leg's from, to and suffix.
    fn leg(&self, text: &str) -> (usize, usize, Option<char>) {
        let b = text.as_bytes();
        let mut cuts = vec![0];
        for i in 1..b.len() {
            if b[i].is_ascii_lowercase() && b[i - 1].is_ascii_digit() {
                cuts.push(i);
            }
        }
        let from = &text[..cuts[1]];
        let (to, suffix) = if cuts.len() > 2 {
            (&text[cuts[1]..cuts[2]], text[cuts[2]..].chars().next())
        } else {
            (&text[cuts[1]..], None)
        };
        (self.square(from), self.square(to), suffix)
    }

    /// `move TEXT`.
    fn play(&mut self, text: &str) {
        if let Some(first) = text.strip_suffix(',') {
            self.legs.push(first.to_string());
            return;
        }
        self.legs.push(text.to_string());
        let legs: Vec<_> = self.legs.drain(..).collect();
        let (origin, first_to, _) = self.leg(&legs[0]);
        let (_, dest, suffix) = self.leg(&legs[legs.len() - 1]);
        let kill = (legs.len() == 2).then_some(first_to);
        let moved = self.board[origin].expect("a man on the origin");
        let white = moved.is_ascii_uppercase();
        let own = |c: char| {
            if white {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        };
        let (of, or) = (origin % self.files, origin / self.files);
        let (df, dr) = (dest % self.files, dest / self.files);
        // The GUI's own rules: castling by the king, en passant by its pawn.
        if moved.to_ascii_uppercase() == self.king && or == dr && of.abs_diff(df) > 1 {
            let corner = if df > of {
                or * self.files + self.files - 1
            } else {
                or * self.files
            };
            let beside = if df > of { dest - 1 } else { dest + 1 };
            self.board[beside] = self.board[corner].take();
        }
        if Some(moved.to_ascii_uppercase()) == self.pawn && of != df && self.board[dest].is_none() {
            self.board[df + or * self.files] = None;
        }
        self.board[origin] = None;
        if let Some(k) = kill {
            self.board[k] = None;
        }
        self.board[dest] = Some(suffix.map_or(moved, own));
        let row = self.men.iter().position(|&m| m == moved).expect("row");
        let column = match suffix {
            None => 0,
            Some(s) => 1 + self.men.iter().position(|&m| m == own(s)).expect("column"),
        };
        let left = self
            .table
            .get(row)
            .and_then(|r| r.get(column))
            .copied()
            .flatten();
        if left.is_some() {
            self.board[origin] = left;
        }
    }

    /// Every line the engine sent: `split` and `move`.
    fn read(&mut self, line: &str) {
        if line.starts_with("split") {
            self.split(line);
        } else if let Some(m) = line.strip_prefix("move ") {
            self.play(m);
        }
    }

    /// Differences from the engine's board, as text.
    fn differences(&self, pos: &Position) -> Vec<String> {
        let v = pos.variant();
        let mut out = Vec::new();
        for rank in 0..self.ranks {
            for file in 0..self.files {
                let c = pos.cell(Square::new(file, rank));
                let game = c.is_piece().then(|| v.letter(c.kind(), c.color()));
                let gui = self.board[file + rank * self.files];
                if gui != game {
                    out.push(format!(
                        "{}: GUI {gui:?}, game {game:?}",
                        v.square_name(Square::new(file, rank))
                    ));
                }
            }
        }
        out
    }
}

/// The kinds of move the games must hold.
#[derive(Default, Debug)]
struct Seen {
    partial: usize,
    merge: usize,
    partial_merge: usize,
    promotion: usize,
    pair: usize,
    castling: usize,
    en_passant: usize,
}

impl Seen {
    fn count(&mut self, pos: &Position, mv: Move) {
        let here = pos.cell(mv.from());
        let onto_own = pos.cell(mv.to()).is_color(pos.side_to_move());
        let partial = here.is_piece() && here.kind() != mv.part();
        match mv.kind() {
            MoveKind::Castle => self.castling += 1,
            MoveKind::EnPassant => self.en_passant += 1,
            MoveKind::Promotion => self.promotion += 1,
            MoveKind::PairPromotion => self.pair += 1,
            _ if onto_own && partial => self.partial_merge += 1,
            _ if onto_own => self.merge += 1,
            _ if partial => self.partial += 1,
            _ => {}
        }
    }
}

fn special(pos: &Position, mv: Move) -> bool {
    let here = pos.cell(mv.from());
    mv.kind() != MoveKind::Normal
        || pos.cell(mv.to()).is_color(pos.side_to_move())
        || (here.is_piece() && here.kind() != mv.part())
}

/// Random games from `fens` with a bias toward the moves that matter here,
/// each move sent through the `split` forms and followed on the model.
fn replay(variant: &str, fens: &[&str], games: usize, seed: u64) -> Seen {
    let set = VariantSet::builtin();
    let v = set.compile(variant).expect("variant");
    let table = SplitTable::standard(&v);
    let mut seen = Seen::default();
    let mut rng = Rng(seed);
    for g in 0..games {
        let fen = fens[g % fens.len()];
        let mut pos = common::position(&set, variant, fen);
        let lines = setup_lines(&v, Some(fen), Gui::Split);
        let mut gui = GuiModel::from_setup(&lines[0]);
        for l in &lines[1..] {
            gui.read(l);
        }
        assert!(gui.differences(&pos).is_empty(), "{variant} {fen}: setup");
        for ply in 0..160 {
            let moves = pos.legal_moves().to_vec();
            if moves.is_empty() {
                break;
            }
            let specials: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|&m| special(&pos, m))
                .collect();
            let mv = if !specials.is_empty() && rng.below(3) > 0 {
                specials[rng.below(specials.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            seen.count(&pos, mv);
            let sent = lines_for(&pos, mv, &table);
            for l in &sent {
                assert!(l.len() < 4096 && !l.contains("Draw"), "{l}");
                gui.read(l);
            }
            // The GUI's own text for the move reads back as the same move.
            let text = sent
                .iter()
                .filter_map(|l| l.strip_prefix("move "))
                .collect::<String>();
            assert_eq!(from_gui(&mut pos, &text, Gui::Split), Ok(mv), "{text}");
            let before = pos.to_fen();
            pos.make(mv);
            let diff = gui.differences(&pos);
            assert!(
                diff.is_empty(),
                "{variant} game {g} ply {ply}: {} in {before} sent as {sent:?}: {diff:?}",
                pos.variant().square_name(mv.from())
            );
        }
    }
    seen
}

#[test]
fn combination_partial_moves_and_merges_are_exact() {
    let seen = replay(
        "combination",
        &[
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1b1k2r/pppp1ppp/8/8/8/2A5/PPPP1PPP/R3K2R w KQkq - 0 1",
            "r3k2r/pppppppp/8/8/8/1NN5/PPPPPPPP/R2RK2R w KQkq - 0 1",
            "4k3/1P4P1/8/3pP3/8/2F1B3/6p1/R3K2R w KQ d6 0 1",
        ],
        24,
        7,
    );
    assert!(
        seen.partial > 0 && seen.merge > 0 && seen.partial_merge > 0,
        "{seen:?}"
    );
    assert!(
        seen.promotion > 0 && seen.castling > 0 && seen.en_passant > 0,
        "{seen:?}"
    );
}

#[test]
fn team_mate_single_and_pair_promotions_are_exact() {
    let seen = replay(
        "team-mate",
        &[
            "ufeakmnc/pppppppp/8/8/8/8/PPPPPPPP/UFEAKMNC w KQkq - 0 1",
            "4k3/1P4P1/8/3pP3/8/8/1p4p1/4K3 w - d6 0 1",
        ],
        24,
        11,
    );
    assert!(seen.promotion > 0 && seen.pair > 0, "{seen:?}");
    assert!(seen.castling > 0 && seen.en_passant > 0, "{seen:?}");
}

#[test]
fn compound_castling_and_dragon_en_passant_are_exact() {
    let seen = replay(
        "compound",
        &[
            "rdcbqkbcdr/ssssssssss/10/10/10/10/SSSSSSSSSS/RDCBQKBCDR w KQkq - 0 1",
            "r4k3r/1S8/10/10/10/10/8s1/R4K3R w KQkq - 0 1",
            "4k5/10/10/4Ds4/10/10/10/5K4 w - f6 0 1",
        ],
        18,
        13,
    );
    assert!(
        seen.castling > 0 && seen.en_passant > 0 && seen.promotion > 0,
        "{seen:?}"
    );
}

/// Self-play over the protocol: the engine told that its GUI has `split`
/// plays both sides, and the model follows every line it sends.
#[test]
fn self_play_over_the_protocol_keeps_the_model_exact() {
    let set = VariantSet::builtin();
    for variant in ["combination", "team-mate", "compound"] {
        let mut e = Session::start();
        e.send("xboard");
        e.send("protover 2");
        e.until("feature done=1");
        e.send("option SplitCommand=1");
        e.send("new");
        e.send(&format!("variant {variant}"));
        let lines = e.sync();
        let setup = lines
            .iter()
            .position(|l| l.starts_with("setup "))
            .expect("setup line");
        let mut gui = GuiModel::from_setup(&lines[setup]);
        let tables = lines.iter().filter(|l| l.starts_with("split")).count();
        assert_eq!(tables, usize::from(variant != "compound"), "{lines:?}");
        for l in &lines[setup + 1..] {
            gui.read(l);
        }
        let mut pos = Position::startpos(set.compile(variant).expect("variant"));
        e.send("force");
        e.send("sd 2");
        for _ in 0..40 {
            if outcome(&mut pos).is_some() {
                break;
            }
            e.send("go");
            // The move's lines: an optional table, its legs, a table again.
            let mut got = e.until("move ");
            e.send("force");
            got.extend(e.sync());
            let mut text = String::new();
            for l in &got {
                gui.read(l);
                if let Some(m) = l.strip_prefix("move ") {
                    text.push_str(m);
                }
            }
            let mv = from_gui(&mut pos, &text, Gui::Split).expect("the engine's move");
            pos.make(mv);
            assert!(gui.differences(&pos).is_empty(), "{variant}: {text}");
        }
    }
}
