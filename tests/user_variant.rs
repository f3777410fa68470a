//! A variant defined only in a test ini file loads and perfts correctly,
//! checked against a deliberately naive generator written here from scratch.

mod common;

use amalgam::rules::perft::perft;
use amalgam::{Position, VariantSet};
use common::{data_dir, run_amalgam};

/// The naive reference: a board of (letter, white) cells, `board[rank][file]`.
#[derive(Clone)]
struct Naive {
    board: Vec<Vec<Option<(char, bool)>>>,
    files: usize,
    ranks: usize,
    white: bool,
}

fn vectors(letter: char) -> (Vec<(i32, i32)>, bool) {
    let sym = |a: i32, b: i32| {
        let mut v = Vec::new();
        for (x, y) in [(a, b), (b, a)] {
            for sx in [1, -1] {
                for sy in [1, -1] {
                    if !v.contains(&(x * sx, y * sy)) {
                        v.push((x * sx, y * sy));
                    }
                }
            }
        }
        v
    };
    match letter {
        'k' => {
            let mut v = sym(1, 0);
            v.extend(sym(1, 1));
            (v, false)
        }
        'z' => (sym(3, 2), false),
        'l' => (sym(3, 1), false),
        'y' => (sym(2, 1), true),
        _ => panic!("unknown letter {letter}"),
    }
}

impl Naive {
    fn from_fen(fen: &str, files: usize, ranks: usize) -> Naive {
        let mut board = vec![vec![None; files]; ranks];
        let fields: Vec<&str> = fen.split(' ').collect();
        for (i, row) in fields[0].split('/').enumerate() {
            let rank = ranks - 1 - i;
            let mut file = 0;
            let mut run = 0;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    run = run * 10 + d as usize;
                    continue;
                }
                file += run;
                run = 0;
                board[rank][file] = Some((c.to_ascii_lowercase(), c.is_ascii_uppercase()));
                file += 1;
            }
        }
        Naive {
            board,
            files,
            ranks,
            white: fields[1] == "w",
        }
    }

    /// Pseudo-legal moves of `white`: ((from file, rank), (to file, rank)).
    fn moves(&self, white: bool) -> Vec<((usize, usize), (usize, usize))> {
        let mut out = Vec::new();
        for r in 0..self.ranks {
            for f in 0..self.files {
                let Some((letter, w)) = self.board[r][f] else {
                    continue;
                };
                if w != white {
                    continue;
                }
                let (vecs, rider) = vectors(letter);
                for (dx, dy) in vecs {
                    let (mut x, mut y) = (f as i32, r as i32);
                    loop {
                        x += dx;
                        y += dy;
                        if x < 0 || y < 0 || x >= self.files as i32 || y >= self.ranks as i32 {
                            break;
                        }
                        match self.board[y as usize][x as usize] {
                            None => out.push(((f, r), (x as usize, y as usize))),
                            Some((_, w2)) => {
                                if w2 != white {
                                    out.push(((f, r), (x as usize, y as usize)));
                                }
                                break;
                            }
                        }
                        if !rider {
                            break;
                        }
                    }
                }
            }
        }
        out
    }

    fn king_attacked(&self, white: bool) -> bool {
        self.moves(!white)
            .iter()
            .any(|&(_, (x, y))| self.board[y][x] == Some(('k', white)))
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut n = 0;
        for ((f, r), (x, y)) in self.moves(self.white) {
            let mut next = self.clone();
            next.board[y][x] = next.board[r][f].take();
            if next.king_attacked(self.white) {
                continue;
            }
            next.white = !self.white;
            n += next.perft(depth - 1);
        }
        n
    }
}

fn zoo_set() -> VariantSet {
    let mut set = VariantSet::builtin();
    let path = data_dir().join("user-variants.ini");
    let (names, errors) = set
        .load_file(path.to_str().expect("path"))
        .expect("readable");
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(names, vec!["zoo".to_string(), "big-zoo".to_string()]);
    set
}

#[test]
fn user_variant_perft_matches_naive_generator() {
    let set = zoo_set();
    let v = set.compile("zoo").unwrap_or_else(|e| panic!("{e:?}"));
    let fens = [
        "lyzkzy/6/6/6/6/YZKZYL w - - 0 1",
        "6/2k3/1y4/3Z2/L5/4KY w - - 0 1",
        "k5/6/2Y3/6/3z2/5K b - - 0 1",
        "y1l2k/2z3/6/1Z4/4Y1/K4L w - - 0 1",
    ];
    for fen in fens {
        let naive = Naive::from_fen(fen, 6, 6);
        let mut p = Position::from_fen(v.clone(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        for depth in 1..=4 {
            let expected = naive.perft(depth);
            assert_eq!(perft(&mut p, depth), expected, "zoo {fen} depth {depth}");
        }
    }
}

/// The largest board the mailbox holds, 12 files by 10 ranks: leaps of three
/// squares off every edge must land on sentinels.
#[test]
fn largest_board_matches_naive_generator() {
    let set = zoo_set();
    let v = set.compile("big-zoo").unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!((v.files, v.ranks), (12, 10));
    let fens = [
        "ly1z3k1zyl/12/12/12/12/12/12/12/12/LY1Z3K1ZYL w - - 0 1",
        "z10l/k11/12/12/5Y6/12/12/12/11K/L10Z w - - 0 1",
        "11z/1y10/12/12/12/12/2k9/12/10Y1/K10L b - - 0 1",
    ];
    for fen in fens {
        let naive = Naive::from_fen(fen, 12, 10);
        let mut p = Position::from_fen(v.clone(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(p.to_fen(), fen);
        for depth in 1..=3 {
            assert_eq!(
                perft(&mut p, depth),
                naive.perft(depth),
                "big-zoo {fen} depth {depth}"
            );
        }
    }
}

#[test]
fn user_variant_is_listed_by_the_command_line() {
    let path = data_dir().join("user-variants.ini");
    let (ok, text) = run_amalgam(&[
        "--variants",
        path.to_str().expect("path"),
        "perft",
        "zoo",
        "startpos",
        "3",
    ]);
    assert!(ok, "{text}");
    let naive = Naive::from_fen("lyzkzy/6/6/6/6/YZKZYL w - - 0 1", 6, 6).perft(3);
    assert!(text.contains(&format!("Nodes: {naive}")), "{text}");
}

/// Along random games of the test-only variants, the check test (which after
/// a move looks only through the squares it changed) agrees with the naive
/// generator's.
#[test]
fn check_after_moves_matches_naive_generator() {
    let set = zoo_set();
    let mut rng = common::Rng(0x2545_F491_4F6C_DD1D);
    for name in ["zoo", "big-zoo"] {
        let v = set.compile(name).unwrap_or_else(|e| panic!("{e:?}"));
        for game in 0..20 {
            let mut p = Position::startpos(v.clone());
            for _ in 0..80 {
                let naive = Naive::from_fen(&p.to_fen(), v.files, v.ranks);
                let white = p.side_to_move() == amalgam::Color::White;
                assert_eq!(
                    p.in_check(),
                    naive.king_attacked(white),
                    "{name} game {game}: {}",
                    p.to_fen()
                );
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p.make(moves[(rng.next() % moves.len() as u64) as usize]);
            }
        }
    }
}
