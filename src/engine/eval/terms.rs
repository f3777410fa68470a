//! The terms of the evaluation computed per call, written once for play
//! and for the tuner's trace (generic over [`Terms`]): passed men beyond
//! their structure, mobility, threats, attackers, king shelter and storm,
//! pairs of colour-bound men; the mop-up against a lone king, the tempo and
//! the taper between middlegame and endgame.

use super::move_shape::MoveShape;
use super::pawns::{CellSet, FreeCells};
use super::sink::Terms;
use super::tables::EvalTables;
use crate::rules::board::Position;
use crate::rules::sums::Score;
use crate::rules::types::{BOARD_CELLS, BOARD_WIDTH, Cell, Color, MAX_FILES, Square};

/// Against a bare king: cp per step the lone king stands from the centre
/// (in half-squares), and per step the two kings are closer than the board
/// allows. Mates against a lone king happen on the edge with the strong
/// king near, so this leads the search toward them (the "mop-up" term of
/// many engines, sized so that it never outweighs a pawn of material).
const MOPUP_EDGE: i32 = 8;
const MOPUP_KINGS: i32 = 4;

/// At most this many men on the board: the mop-up term and the scaling
/// of a side ahead without mating potential apply.
const FEW_MEN: usize = 6;

/// Whether few enough men are left for the mop-up term and the scaling.
pub(super) fn few_men(pos: &Position) -> bool {
    pos.men(Color::White).len() + pos.men(Color::Black).len() <= FEW_MEN
}

/// The score of a side ahead without mating potential is divided by this.
pub(super) const NO_MATE_DIVISOR: i32 = 8;

/// Bonus for `strong` when the other side has a bare king and `strong` can
/// force mate: the lone king near the edge, the strong king near it.
pub(super) fn mop_up(pos: &Position, strong: Color) -> i32 {
    let weak = strong.flip();
    if pos.men(weak).len() != 1 || !pos.has_mating_potential(strong) {
        return 0;
    }
    let v = pos.variant();
    let lone = Square(pos.b.kings[weak.index()]);
    let own = Square(pos.b.kings[strong.index()]);
    // Distance from the centre in half-squares: 1 in the middle of an
    // even board, files - 1 on its edge.
    let off = |x: usize, n: usize| (2 * x as i32 - (n as i32 - 1)).abs();
    let centre = off(lone.file(), v.files).max(off(lone.rank(), v.ranks));
    let apart = (lone.file() as i32 - own.file() as i32)
        .abs()
        .max((lone.rank() as i32 - own.rank() as i32).abs());
    let widest = v.files.max(v.ranks) as i32 - 1;
    MOPUP_EDGE * centre + MOPUP_KINGS * (widest - apart)
}

/// The middlegame and endgame values blended by the game phase. In 64 bits:
/// the ini's piece values (up to 100000 each) make both the values and the
/// phase large enough for their product to leave `i32`. The blend lies
/// between the two values, so it fits again.
pub(super) fn taper(s: Score, phase: i32, max_phase: i32) -> i32 {
    let max_phase = i64::from(max_phase.max(1));
    let phase = i64::from(phase).clamp(0, max_phase);
    let blend = (i64::from(s.mg()) * phase + i64::from(s.eg()) * (max_phase - phase)) / max_phase;
    let bound = i64::from(i32::MAX);
    blend.clamp(-bound, bound) as i32
}

/// The tempo weight for the side to move, tapered.
#[inline]
pub(super) fn tempo(t: &EvalTables, pos: &Position) -> i32 {
    let w = t.params.weights[t.params.layout.tempo()];
    // One weight for both ends needs no blend (and no division).
    if w.mg() == w.eg() {
        return w.mg();
    }
    taper(w, pos.b.phase, t.max_phase)
}

/// Material and piece-square terms only (tapered), from the side to move's
/// point of view: a cheap estimate the full evaluation rarely moves by more
/// than [`LAZY_MARGIN`].
pub fn quick(t: &EvalTables, pos: &Position) -> i32 {
    let s = pos.b.psq;
    let score = taper(s, pos.b.phase, t.max_phase);
    (if pos.side_to_move() == Color::White {
        score
    } else {
        -score
    }) + tempo(t, pos)
}

/// Bound on how far the positional terms move the score from [`quick`]
/// (passed pawns dominate it).
pub const LAZY_MARGIN: i32 = 300;

/// The terms of passed men that depend on more than the pawn-type men:
/// whether the next square is empty, and how far each king is from it.
pub(super) fn passed_terms(
    t: &EvalTables,
    pos: &Position,
    passed_men: &CellSet,
    acc: &mut impl Terms,
) {
    let v = &**pos.variant();
    let l = &t.params.layout;
    let cells = &pos.b.cells;
    for (w, &word) in passed_men.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let sq = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let color = cells[sq].color();
            let next = match color {
                Color::White => sq + 16,
                Color::Black => sq.wrapping_sub(16),
            };
            if cells.get(next).is_none_or(|c| c.is_offboard()) {
                continue;
            }
            let rank = Square(sq as u8).rank();
            let distance = match color {
                Color::White => v.ranks - 1 - rank,
                Color::Black => rank,
            };
            if cells[next].is_empty() {
                acc.add(l.passed_free(distance), color, 1);
            }
            let steps = |king: u8| {
                let (a, b) = (Square(next as u8), Square(king));
                a.file().abs_diff(b.file()).max(a.rank().abs_diff(b.rank())) as i32
            };
            acc.add(
                l.passed_king(distance),
                color,
                steps(pos.b.kings[color.index()]),
            );
            acc.add(
                l.passed_enemy(distance),
                color,
                steps(pos.b.kings[color.flip().index()]),
            );
        }
    }
}

/// The terms computed at every call: mobility (moves to squares no enemy
/// pawn-type man attacks, and the open first steps of sliders), men
/// attacked by pawn-type men or by cheaper men, men near the enemy king,
/// the king's pawn shelter and the pawn storm against it, and pairs of
/// colour-bound men on both colours. `free_of` holds, per side, 1 on the
/// cells its pawn-type men do not attack (see [`FreeCells`]).
pub(super) fn positional_terms<T: Terms>(
    t: &EvalTables,
    pos: &Position,
    free_of: &FreeCells,
    acc: &mut T,
) {
    let v = &**pos.variant();
    let l = &t.params.layout;
    let cells = &pos.b.cells;
    let bound = if T::ALL || t.pairs_used {
        v.mating.color_bound
    } else {
        0
    };
    let pawns = if T::ALL || t.threats_used {
        v.promotion_pawns
    } else {
        0
    };
    let attackers = T::ALL || t.attackers_used;
    let moves = T::ALL || t.moves_used;
    for color in Color::BOTH {
        let fwd: isize = if color == Color::White { 16 } else { -16 };
        // Mobility of sliders, cheaply: the directions not blocked at the
        // first step by a friendly man.
        let own = own_codes(color);
        // Colour-bound types seen on light and on dark squares.
        let mut on = [0u64; 2];
        let enemy_king = Square(pos.b.kings[color.flip().index()]);
        let free = &free_of[color.flip().index()];
        for &sq in pos.men(color) {
            let cell = cells[sq as usize];
            let code = cell.0;
            let kind = cell.kind();
            if bound & kind.bit() != 0 {
                let s = Square(sq);
                on[(s.file() + s.rank()) & 1] |= kind.bit();
            }
            if attackers && t.royal & kind.bit() == 0 && within_two(Square(sq), enemy_king) {
                acc.add(l.attacker(kind.index()), color, 1);
            }
            if pawns & kind.bit() != 0 {
                // The enemy men this pawn-type man attacks.
                for &d in &t.pawn_captures[code as usize] {
                    let target = cells[(sq as isize + d as isize) as usize];
                    if target.is_color(color.flip()) && (pawns | t.royal) & target.kind().bit() == 0
                    {
                        acc.add(l.threat(target.kind().index()), color, 1);
                    }
                }
                continue;
            }
            if moves && !t.move_rules[code as usize].is_none() {
                let mine = t.value[kind.index()];
                let mut hit = |victim: Cell| {
                    let k = victim.kind();
                    if t.royal & k.bit() == 0 && t.value[k.index()] > mine {
                        acc.add(l.hit(k.index()), color, 1);
                    }
                };
                let (n, open) = count_moves(
                    cells,
                    sq as isize,
                    &t.move_rules[code as usize],
                    color,
                    free,
                    &mut hit,
                );
                acc.add(l.moves(kind.index()), color, n);
                if (t.open_in_moves >> code) & 1 != 0 {
                    acc.add(l.mobility(kind.index()), color, open);
                    continue;
                }
            }
            if (t.sliders >> code) & 1 == 0 {
                continue;
            }
            let mut free = 0;
            for &d in &t.rides[code as usize] {
                let c = cells[(sq as isize + d as isize) as usize].0;
                free += ((own >> c) & 1 ^ 1) as i32;
            }
            acc.add(l.mobility(kind.index()), color, free);
        }
        let mut pairs = on[0] & on[1];
        while pairs != 0 {
            acc.add(l.pair(pairs.trailing_zeros() as usize), color, 1);
            pairs &= pairs - 1;
        }
        // King shelter.
        let k = pos.b.kings[color.index()] as isize;
        let mut shelter = 0;
        for df in [-1, 0, 1] {
            let c = cells[(k + fwd + df) as usize];
            if c.is_color(color) && v.promotion_pawns & c.kind().bit() != 0 {
                shelter += 1;
            }
        }
        if shelter != 0 {
            acc.add(l.shelter(), color, shelter);
        }
        // Enemy pawn-type men storming the king: two or three steps ahead on
        // its file or a neighbouring one (the cells past the edge hold no man).
        let mut storm = 0;
        for ahead in [2 * fwd, 3 * fwd] {
            for df in [-1, 0, 1] {
                let i = k + ahead + df;
                if (0..BOARD_CELLS as isize).contains(&i) {
                    let c = cells[i as usize];
                    if c.is_color(color.flip()) && v.promotion_pawns & c.kind().bit() != 0 {
                        storm += 1;
                    }
                }
            }
        }
        if storm != 0 {
            acc.add(l.storm(), color, storm);
        }
    }
}

/// A bit for the cell code of each man of `color` (even codes from 2 for
/// White, odd from 3 for Black).
#[inline(always)]
fn own_codes(color: Color) -> u64 {
    0x5555_5555_5555_5554u64 << color.index()
}

/// Whether two squares are at most two files and two ranks apart, from
/// their difference alone: with `BOARD_WIDTH` 16, `a - b + 34` is
/// `16 * (ranks + 2) + (files + 2)`, and the files apart (at most
/// `MAX_FILES - 1` = 11) are the remainder by 16 exactly when they lie in
/// -2..=2, as two remainders 0..=4 and -9..=13 that agree differ by less
/// than 16. So the test is that sum within 0..=68 with a remainder of at
/// most 4.
#[inline(always)]
fn within_two(a: Square, b: Square) -> bool {
    const _: () = assert!(BOARD_WIDTH == 16 && MAX_FILES <= 13);
    let d = (a.0 as usize).wrapping_sub(b.0 as usize).wrapping_add(34);
    d <= 68 && d & 15 <= 4
}

/// The moves of the man on `from` with `shape` to empty squares and onto
/// enemy men, counting only the cells where `free` holds 1; `capture` is told of
/// every enemy man it can take (guarded or not). Merges onto friendly men
/// do not count, and a square two ways reach counts twice. Also returned:
/// the unlimited slides whose first step is not onto a friendly man (an
/// edge counts as open), the slider mobility of [`positional_terms`].
fn count_moves(
    cells: &[Cell; BOARD_CELLS],
    from: isize,
    shape: &MoveShape,
    us: Color,
    free_cells: &[u8; BOARD_CELLS],
    capture: &mut impl FnMut(Cell),
) -> (i32, i32) {
    let them = us.flip();
    let own = own_codes(us);
    let free = |sq: isize| i32::from(free_cells[sq as usize]);
    let mut n = 0;
    let mut open = 0;
    for &d in &shape.leaps {
        let sq = from + d as isize;
        let c = cells[sq as usize];
        if c.is_empty() {
            n += free(sq);
        } else if c.is_color(them) {
            n += free(sq);
            capture(c);
        }
    }
    for &d in &shape.rides {
        let mut sq = from + d as isize;
        open += ((own >> cells[sq as usize].0) & 1 ^ 1) as i32;
        while cells[sq as usize].is_empty() {
            n += free(sq);
            sq += d as isize;
        }
        let c = cells[sq as usize];
        if c.is_color(them) {
            n += free(sq);
            capture(c);
        }
    }
    for rule in &shape.other {
        if !rule.prelude.iter().all(|&p| {
            cells
                .get((from + p as isize) as usize)
                .is_some_and(|c| c.is_empty())
        }) {
            continue;
        }
        let mut sq = from + rule.start as isize;
        for _ in 0..rule.max {
            sq += rule.step as isize;
            let c = cells[sq as usize];
            if c.is_empty() {
                if rule.quiet {
                    n += free(sq);
                }
                continue;
            }
            if rule.capture && c.is_color(them) {
                n += free(sq);
                capture(c);
            }
            break;
        }
    }
    (n, open)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::eval::{PawnCache, compile, evaluate, trace};
    use crate::rules::types::MoveList;
    use crate::rules::variant_set::VariantSet;
    use crate::util::rng::Rng;

    /// [`within_two`] against files and ranks, for every pair of squares
    /// of the largest board.
    #[test]
    fn within_two_is_two_files_and_two_ranks() {
        let squares: Vec<Square> = (0..crate::rules::types::MAX_RANKS)
            .flat_map(|r| (0..MAX_FILES).map(move |f| (f, r)))
            .map(|(f, r)| {
                Square(
                    ((r + crate::rules::types::RANK_PAD) * BOARD_WIDTH
                        + f
                        + crate::rules::types::FILE_PAD) as u8,
                )
            })
            .collect();
        let mut near = 0;
        for &a in &squares {
            for &b in &squares {
                let expected = a.file().abs_diff(b.file()) <= 2 && a.rank().abs_diff(b.rank()) <= 2;
                assert_eq!(within_two(a, b), expected, "{a:?} {b:?}");
                near += usize::from(expected);
            }
        }
        assert!(near > 2000, "{near}");
    }

    /// The open first steps that the move count walks for a slider (see
    /// [`EvalTables::open_in_moves`]) are those of its `rides`, counted
    /// directly, for every man along random games in every shipped variant.
    #[test]
    fn open_first_steps_counted_with_the_moves_match_the_rides() {
        for name in ["chess", "combination", "team-mate", "compound"] {
            let (v, evaluator) = compile(&VariantSet::builtin(), name).expect("variant");
            let t = evaluator.tables();
            let mut rng = Rng::new(5);
            let mut checked = 0;
            for _game in 0..10 {
                let mut pos = Position::startpos(v.clone());
                for _ply in 0..100 {
                    for color in Color::BOTH {
                        let own = own_codes(color);
                        for &sq in pos.men(color) {
                            let code = pos.b.cells[sq as usize].0;
                            if (t.open_in_moves >> code) & 1 == 0 {
                                continue;
                            }
                            let direct: i32 = t.rides[code as usize]
                                .iter()
                                .map(|&d| {
                                    let c = pos.b.cells[(sq as isize + d as isize) as usize].0;
                                    ((own >> c) & 1 ^ 1) as i32
                                })
                                .sum();
                            let free = [1u8; BOARD_CELLS];
                            let (_, open) = count_moves(
                                &pos.b.cells,
                                sq as isize,
                                &t.move_rules[code as usize],
                                color,
                                &free,
                                &mut |_| {},
                            );
                            assert_eq!(open, direct, "{name} {} on {sq}", pos.to_fen());
                            checked += 1;
                        }
                    }
                    let mut moves = MoveList::new();
                    crate::rules::movegen::legal_moves(&mut pos, &mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    pos.make(moves[(rng.next_u64() % moves.len() as u64) as usize]);
                }
            }
            if name == "chess" {
                assert!(checked > 1000, "{name}: {checked}");
            }
        }
    }

    /// Each new term changes the evaluation when its weight does.
    #[test]
    fn pawn_terms_and_pairs_count_where_they_apply() {
        let (v, evaluator) = compile(&VariantSet::builtin(), "chess").expect("chess");
        let t = evaluator.tables();
        let l = &t.params.layout;
        // White: isolated a-pawn, connected d- and e-pawns, both bishops.
        let pos =
            Position::from_fen(v.clone(), "4k3/8/8/8/8/8/P2PP3/2B1KB2 w - - 0 1").expect("fen");
        let tr = trace(t, &pos);
        let count = |i: usize| tr.count(i);
        assert_eq!(count(l.isolated()), 1);
        assert_eq!(count(l.connected()), 2);
        let bishop = v.type_of_letter('b').expect("bishop").index();
        assert_eq!(count(l.pair(bishop)), 1);
        assert_eq!(count(l.passed(6)), 3);
        // A pawn attacking a knight; a rook beside the enemy king.
        let pos =
            Position::from_fen(v.clone(), "8/8/3k4/2R5/8/4n3/3P4/4K3 w - - 0 1").expect("fen");
        let tr = trace(t, &pos);
        let count = |i: usize| tr.count(i);
        let knight = v.type_of_letter('n').expect("knight").index();
        let rook = v.type_of_letter('r').expect("rook").index();
        assert_eq!(count(l.threat(knight)), 1);
        assert_eq!(count(l.attacker(rook)), 1);
        // The knight on e3 is two squares from the White king on e1.
        assert_eq!(count(l.attacker(knight)), -1);
    }

    #[test]
    fn moves_leave_out_squares_that_enemy_pawns_attack() {
        let (v, evaluator) = compile(&VariantSet::builtin(), "chess").expect("chess");
        let t = evaluator.tables();
        let l = &t.params.layout;
        // The knight on e4: seven squares (d6 by capture), c5 and e5 are
        // attacked by the pawn on d6. The rook on a1: b1 to d1, its own pawn
        // and king in the way.
        let pos =
            Position::from_fen(v.clone(), "4k3/8/3p4/8/4N3/8/P7/R3K3 w - - 0 1").expect("fen");
        let tr = trace(t, &pos);
        let letter = |c: char| v.type_of_letter(c).expect("man").index();
        assert_eq!(tr.count(l.moves(letter('n'))), 7);
        assert_eq!(tr.count(l.moves(letter('r'))), 3);
        // The knight attacks the pawn (not cheaper); a rook that a knight
        // attacks counts for the knight's side.
        assert_eq!(tr.count(l.hit(letter('p'))), 0);
        let pos = Position::from_fen(v.clone(), "4k3/8/3r4/8/4N3/8/8/4K3 w - - 0 1").expect("fen");
        assert_eq!(trace(t, &pos).count(l.hit(letter('r'))), 1);
        // Two black pawns two and three steps in front of White's king.
        let pos = Position::from_fen(v.clone(), "4k3/8/8/8/7p/6p1/8/6K1 w - - 0 1").expect("fen");
        assert_eq!(trace(t, &pos).count(l.storm()), 2);
        // A passed pawn on d5, its path free: White's king five steps from
        // d6, Black's two. Blocked, it has no free-path count.
        let pos = Position::from_fen(v.clone(), "4k3/8/8/3P4/8/8/8/4K3 w - - 0 1").expect("fen");
        let tr = trace(t, &pos);
        assert_eq!(tr.count(l.passed(3)), 1);
        assert_eq!(tr.count(l.passed_free(3)), 1);
        assert_eq!(tr.count(l.passed_king(3)), 5);
        assert_eq!(tr.count(l.passed_enemy(3)), 2);
        let pos = Position::from_fen(v.clone(), "4k3/8/3n4/3P4/8/8/8/4K3 w - - 0 1").expect("fen");
        assert_eq!(trace(t, &pos).count(l.passed_free(3)), 0);
        // The d3 pawn is backward: no pawn beside or behind on c or e, and
        // c5 attacks d4. Black's b6 and c5 are not (c5 has b6 behind it, b6's
        // next square is not attacked). With a pawn on c3, d3 is not either.
        let pos =
            Position::from_fen(v.clone(), "4k3/8/1p6/2p5/4P3/3P4/8/4K3 w - - 0 1").expect("fen");
        assert_eq!(trace(t, &pos).count(l.backward()), 1);
        let pos =
            Position::from_fen(v.clone(), "4k3/8/1p6/2p5/4P3/2PP4/8/4K3 w - - 0 1").expect("fen");
        assert_eq!(trace(t, &pos).count(l.backward()), 0);
    }

    #[test]
    fn mop_up_drives_the_lone_king_to_the_edge() {
        // Team-Mate: Wazir-Knight and Wazir-Alfil together can mate.
        let (edge, evaluator) =
            crate::engine::eval::builtin("team-mate", "k7/8/8/8/8/2K5/8/3UF3 w - - 0 1");
        let t = evaluator.tables();
        let centre = Position::from_fen(edge.variant().clone(), "8/8/8/4k3/8/2K5/8/3UF3 w - - 0 1")
            .expect("fen");
        assert!(mop_up(&edge, Color::White) > mop_up(&centre, Color::White));
        assert_eq!(mop_up(&edge, Color::Black), 0);
        let mut pawns = PawnCache::new();
        assert!(evaluate(t, &edge, &mut pawns) > evaluate(t, &centre, &mut pawns));
        // No bonus without mating potential (a lone Knight cannot mate
        // here), nor when the weaker side has more than its king.
        let lone_knight = Position::builtin("team-mate", "k7/8/8/8/3K4/8/8/3N4 w - - 0 1");
        assert_eq!(mop_up(&lone_knight, Color::White), 0);
        let defended = Position::builtin("team-mate", "k7/p7/8/8/3K4/8/8/3UF3 w - - 0 1");
        assert_eq!(mop_up(&defended, Color::White), 0);
    }
}
