//! Tests of move generation and of the attack tests it rests on.

use super::check::{king_danger, king_danger_from_men, men_around, next_to};
use super::walker::{PartCtx, man_captures, plain_dedup_moves, special_moves};
use super::*;
use crate::rules::attacks::{
    Cells, attacked, attacked_among, attacked_from_men, attacked_plain, in_mask,
};
use crate::rules::types::{BOARD_WIDTH, Cell, MAX_FILES};
use crate::rules::variant::SquareSet;
use crate::rules::variant_set::VariantSet;

/// The tests from the men against those from the target, along random
/// games: [`attacked_among`] against [`attacked`] on every square for
/// both colours, also after the changes of each legal move are applied
/// to the cells (the lists then stale, as in [`safe_after`]), and
/// [`king_danger_from_men`] against [`king_danger`]. Returns how many
/// attacks came from a special ray alone, how many positions were in
/// check and how many had a pin, so that the caller can tell the tests
/// were exercised.
fn compare_attack_tests(name: &str, seed: u64) -> (usize, usize, usize) {
    let v = VariantSet::builtin()
        .compile(name)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let mut rng = crate::util::rng::Rng::new(seed);
    let mut special_only = 0;
    let mut checks = 0;
    let mut pins = 0;
    let mut list = MoveList::new();
    let mut compare = |cells: &Cells, men: [&[u8]; 2], what: &str| {
        for &sq in &v.squares {
            for by in [Color::White, Color::Black] {
                let t = &v.attacks[by.index()];
                let plain = attacked_plain(cells, t, sq.index() as isize);
                let full = attacked(cells, &v, sq.index(), by);
                let among = attacked_among(cells, &v, sq.index(), by, men[by.index()]);
                assert_eq!(among, full, "{name} {what}: {sq:?} by {by:?}");
                special_only += usize::from(full && !plain);
            }
        }
    };
    for _ in 0..40 {
        let mut pos = Position::startpos(v.clone());
        for _ in 0..(20 + rng.next_u64() % 120) {
            legal_moves(&mut pos, &mut list);
            if list.is_empty() {
                break;
            }
            let men = [&pos.b.lists[0].squares[..], &pos.b.lists[1].squares[..]];
            compare(&pos.b.cells, men, "position");
            let us = pos.side;
            let king = pos.b.kings[us.index()] as usize;
            let danger = king_danger(&pos.b.cells, &v, king, us);
            assert_eq!(
                king_danger_from_men(&pos.b.cells, &v, king, us, men[us.flip().index()]),
                danger,
                "{name}: king danger"
            );
            checks += usize::from(danger.checks > 0);
            pins += usize::from(danger.pinned != SquareSet::default());
            for &m in list.iter() {
                let mut cells = pos.b.cells;
                for (sq, c) in pos.changes(m) {
                    cells[sq as usize] = c;
                }
                // Only the opponent's list stays a superset of its men.
                let mut men = men;
                men[pos.side.index()] = &[];
                let them = pos.side.flip();
                for &sq in &v.squares {
                    let s = sq.index();
                    assert_eq!(
                        attacked_among(&cells, &v, s, them, men[them.index()]),
                        attacked(&cells, &v, s, them),
                        "{name} after {m:?}: {sq:?}"
                    );
                }
            }
            let caps: Vec<Move> = list
                .iter()
                .copied()
                .filter(|m| pos.b.cells[m.to().index()].is_color(pos.side.flip()))
                .collect();
            let m = if !caps.is_empty() && rng.next_u64().is_multiple_of(3) {
                caps[rng.next_u64() as usize % caps.len()]
            } else {
                list[rng.next_u64() as usize % list.len()]
            };
            pos.make(m);
        }
    }
    (special_only, checks, pins)
}

#[test]
fn attack_test_from_the_men_agrees_with_the_ray_scan() {
    for (name, seed) in [
        ("chess", 1),
        ("combination", 2),
        ("team-mate", 3),
        ("compound", 4),
    ] {
        let (special_only, checks, pins) = compare_attack_tests(name, seed);
        assert!(
            checks > 20 && pins > 20,
            "{name}: {checks} checks, {pins} pins"
        );
        if name == "team-mate" {
            // Bent sliders and the lame camel attack along special rays.
            assert!(special_only > 1000, "{name}: {special_only}");
        }
    }
}

/// The men that [`men_around`] keeps for a king attack each square next
/// to it (the king moved there, capturing what stood there) exactly as
/// all the men do, along random games in every variant, for both
/// kings; and they are fewer than all in most positions.
#[test]
fn the_men_around_a_king_attack_its_next_squares_as_all_do() {
    for (name, seed) in [
        ("chess", 5),
        ("combination", 6),
        ("team-mate", 7),
        ("compound", 8),
    ] {
        let v = VariantSet::builtin()
            .compile(name)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let mut rng = crate::util::rng::Rng::new(seed);
        let (mut attacked_squares, mut tests, mut fewer, mut positions) = (0, 0, 0, 0);
        for _ in 0..30 {
            random_game(Position::startpos(v.clone()), 100, &mut rng, |pos| {
                positions += 1;
                for us in Color::BOTH {
                    let them = us.flip();
                    let king = pos.b.kings[us.index()] as usize;
                    let men = &pos.b.lists[them.index()].squares;
                    let near = men_around(&pos.b.cells, &v, them, king, men);
                    fewer += usize::from(near.len() < men.len());
                    for &k in &crate::rules::variant::AROUND {
                        let to = (king as isize + k) as usize;
                        if pos.b.cells[to].is_offboard() || pos.b.cells[to].is_color(us) {
                            continue;
                        }
                        assert!(next_to(to, king));
                        let mut cells = pos.b.cells;
                        cells[king] = Cell::EMPTY;
                        cells[to] = pos.b.cells[king];
                        let all = attacked(&cells, &v, to, them);
                        assert_eq!(
                            attacked_from_men(&cells, &v, to, them, &near),
                            all,
                            "{name} {}: {them:?} on {to}",
                            pos.to_fen()
                        );
                        tests += 1;
                        attacked_squares += usize::from(all);
                    }
                }
            });
        }
        assert!(
            attacked_squares > 300 && tests > 3 * attacked_squares / 2,
            "{name}: {attacked_squares} of {tests}"
        );
        assert!(
            fewer > positions,
            "{name}: {fewer} of {positions} (two kings each)"
        );
    }
}

/// `next_to` against files and ranks for every pair of squares of the
/// largest board.
#[test]
fn next_to_is_one_file_and_one_rank() {
    let squares: Vec<usize> = (0..crate::rules::types::MAX_RANKS)
        .flat_map(|r| (0..MAX_FILES).map(move |f| (f, r)))
        .map(|(f, r)| {
            (r + crate::rules::types::RANK_PAD) * BOARD_WIDTH + f + crate::rules::types::FILE_PAD
        })
        .collect();
    let mut near = 0;
    for &a in &squares {
        for &b in &squares {
            let (fa, ra) = (a % BOARD_WIDTH, a / BOARD_WIDTH);
            let (fb, rb) = (b % BOARD_WIDTH, b / BOARD_WIDTH);
            let expected = fa.abs_diff(fb) <= 1 && ra.abs_diff(rb) <= 1;
            assert_eq!(next_to(a, b), expected, "{a} {b}");
            near += usize::from(expected);
        }
    }
    assert!(near > 500, "{near}");
}

/// Play a random game from `pos` of at most `moves` moves, each chosen
/// uniformly among the legal ones, showing `visit` every position
/// before its move (the game stops where no move is left).
fn random_game(
    mut pos: Position,
    moves: u64,
    rng: &mut crate::util::rng::Rng,
    mut visit: impl FnMut(&Position),
) {
    let mut list = MoveList::new();
    for _ in 0..moves {
        legal_moves(&mut pos, &mut list);
        if list.is_empty() {
            break;
        }
        visit(&pos);
        let m = list[(rng.next_u64() % list.len() as u64) as usize];
        pos.make(m);
    }
}

/// What [`captures_of`] keeps of a man's moves (all enemy men victims).
fn kept(pos: &Position, moves: &MoveList) -> Vec<Move> {
    let victims = pos.variant.landing[pos.side.index()] & !1;
    moves
        .iter()
        .copied()
        .filter(|m| {
            matches!(
                m.kind(),
                MoveKind::EnPassant | MoveKind::Promotion | MoveKind::PairPromotion
            ) || in_mask(victims, pos.b.cells[m.to().index()])
        })
        .collect()
}

/// [`man_captures`] against [`man_moves`] for every man of the side to
/// move that the general walker moves, along random games from the
/// start and from `fens` (men near promotion): the moves kept are the
/// same, in the same order. Returns how many moves were kept and how
/// many of them promote.
fn compare_capture_walks(name: &str, fens: &[&str], seed: u64) -> (usize, usize) {
    let mut set = VariantSet::builtin();
    // A pawn type that slides forward (so that the general walker moves
    // it) and promotes, which no shipped variant has.
    let (_, errors) = set.load_str(
        "[sliding-pawns:chess]\ncustomPiece1 = x:mfRcfF\npromotionPawnTypes = px\n\
         startFen = 4k3/1X4X1/8/8/8/8/1x4x1/4K3 w - - 0 1\n",
        "test",
    );
    assert!(errors.is_empty(), "{errors:?}");
    let v = set
        .compile(name)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let mut rng = crate::util::rng::Rng::new(seed);
    let (mut captures, mut promotions) = (0, 0);
    for game in 0..60 {
        let (pos, plies) = match fens.get(game % 3) {
            Some(fen) if game % 3 < fens.len() => (
                Position::from_fen(v.clone(), fen).unwrap_or_else(|e| panic!("{fen}: {e}")),
                rng.next_u64() % 12,
            ),
            _ => (Position::startpos(v.clone()), 20 + rng.next_u64() % 200),
        };
        random_game(pos, plies + 1, &mut rng, |pos| {
            let us = pos.side;
            let ep = if pos.ep_in_hash { pos.ep as usize } else { 0 };
            for &from in &pos.b.lists[us.index()].squares {
                let from = from as usize;
                let info = v.piece(pos.b.cells[from].kind());
                if info.plain || info.stepper {
                    continue;
                }
                let (mut full, mut walk) = (MoveList::new(), MoveList::new());
                man_moves(&pos.b.cells, &v, us, from, ep, &mut full);
                man_captures(&pos.b.cells, &v, us, from, ep, &mut walk);
                let expected = kept(pos, &full);
                assert_eq!(kept(pos, &walk), expected, "{name}: {}", pos.to_fen());
                captures += expected.len();
                promotions += expected
                    .iter()
                    .filter(|m| matches!(m.kind(), MoveKind::Promotion | MoveKind::PairPromotion))
                    .count();
            }
        });
    }
    (captures, promotions)
}

/// [`plain_dedup_moves`] against the general walker's de-duplicated walk
/// ([`special_moves`]) for every such man of the side to move, along
/// random Compound games (its queen also leaps two squares straight and
/// diagonally, where its slides reach too): the same moves in the same
/// order, and with only captures wanted, the same captures.
#[test]
fn plain_dedup_walk_is_the_general_walk() {
    let v = VariantSet::builtin()
        .compile("compound")
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(v.pieces.iter().any(|p| p.plain_dedup));
    let mut rng = crate::util::rng::Rng::new(9);
    let (mut compared, mut captures) = (0, 0);
    for _ in 0..40 {
        let moves = 10 + rng.next_u64() % 150;
        random_game(Position::startpos(v.clone()), moves, &mut rng, |pos| {
            let us = pos.side;
            for &from in &pos.b.lists[us.index()].squares {
                let from = from as usize;
                let part = pos.b.cells[from].kind();
                let info = v.piece(part);
                if !info.plain_dedup {
                    continue;
                }
                let rules = &info.rules[us.index()];
                let cx = PartCtx {
                    cells: &pos.b.cells,
                    v: &v,
                    us,
                    from,
                    part,
                    whole: true,
                    promotes: false,
                    stackable: false,
                    ep: 0,
                    captures_only: false,
                };
                let (mut general, mut fast) = (MoveList::new(), MoveList::new());
                special_moves(&cx, rules, true, &mut general);
                let landing = v.landing[us.index()];
                plain_dedup_moves(&pos.b.cells, landing, from, part, rules, false, &mut fast);
                assert_eq!(fast, general, "{}", pos.to_fen());
                let (mut general, mut fast) = (MoveList::new(), MoveList::new());
                special_moves(
                    &PartCtx {
                        captures_only: true,
                        ..cx
                    },
                    rules,
                    true,
                    &mut general,
                );
                plain_dedup_moves(&pos.b.cells, landing, from, part, rules, true, &mut fast);
                assert_eq!(fast, general, "{} (captures)", pos.to_fen());
                compared += 1;
                captures += fast.len();
            }
        });
    }
    assert!(compared > 1000 && captures > 100, "{compared} {captures}");
}

#[test]
fn capture_walk_keeps_what_the_full_walk_keeps() {
    for (name, fens, seed) in [
        (
            "combination",
            &["1r1mk3/P1P5/8/8/8/D4c2/6p1/4K2R w K - 0 1"][..],
            5,
        ),
        (
            "team-mate",
            &[
                "4k3/1P6/6B1/3b4/8/8/2p3P1/4K2C w K - 0 1",
                "u3k2c/pppp1ppp/8/8/2J5/8/Pp1PPPPP/U3K2C b KQkq - 0 1",
            ][..],
            6,
        ),
        (
            "compound",
            &["2rk3d2/1S3S3S/10/10/3q6/10/3s3s2/2D2K2R1 w - - 0 1"][..],
            7,
        ),
        ("sliding-pawns", &[][..], 8),
    ] {
        let (captures, promotions) = compare_capture_walks(name, fens, seed);
        assert!(captures > 1000, "{name}: {captures} captures");
        // Only this pawn type promotes by the general walker.
        assert_eq!(
            promotions > 0,
            name == "sliding-pawns",
            "{name}: {promotions}"
        );
    }
}

#[test]
fn start_position_move_counts() {
    let set = VariantSet::builtin();
    for (name, n) in [
        ("chess", 20),
        ("combination", 23),
        ("team-mate", 27),
        ("compound", 53),
    ] {
        let v = set
            .compile(name)
            .unwrap_or_else(|e| panic!("variant compiles: {e:?}"));
        let mut p = Position::startpos(v);
        let mut list = MoveList::new();
        legal_moves(&mut p, &mut list);
        assert_eq!(list.len(), n, "{name}");
    }
}
