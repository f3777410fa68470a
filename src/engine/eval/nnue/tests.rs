//! Tests of the accumulators against computations from scratch, along
//! random games of every shipped variant, and of the kernels against each
//! other on the positions of those games.

use super::features::KingBuckets;
use super::{Accumulators, Kernel, Layout, Net, Network};
use crate::rules::board::Position;
use crate::rules::movegen::legal_moves;
use crate::rules::types::{Color, Move, MoveKind, MoveList};
use crate::rules::variant::Variant;
use crate::rules::variant_set::VariantSet;
use crate::util::rng::Rng;
use std::sync::Arc;

fn shipped() -> Vec<Arc<Variant>> {
    let set = VariantSet::builtin();
    set.names()
        .iter()
        .map(|n| set.compile(n).unwrap_or_else(|e| panic!("{n}: {e:?}")))
        .collect()
}

/// A random net of `v` with the king bucket preset `kings`.
fn random_net(v: &Variant, hidden: u32, seed: u64, kings: usize) -> Arc<Net> {
    let kings = KingBuckets::preset(kings, v.files, v.ranks).expect("preset");
    let layout = Layout::new(v).with_kings(kings).expect("kings");
    let network = Network::random(&layout, hidden, seed);
    Arc::new(Net::new(layout, network, "random").expect("random net"))
}

/// The accumulators of `pos` from scratch, White's then Black's.
fn scratch(net: &Net, pos: &Position) -> (Vec<i16>, Vec<i16>) {
    let mut white = vec![0; net.hidden()];
    let mut black = vec![0; net.hidden()];
    let mut features = Vec::new();
    net.refresh(pos, Color::White, &mut white, &mut features);
    net.refresh(pos, Color::Black, &mut black, &mut features);
    (white, black)
}

fn assert_current(acc: &mut Accumulators, pos: &Position, what: &str) {
    let want = scratch(acc.net(), pos);
    let (white, black) = acc.current(pos);
    assert!(
        white == &want.0[..] && black == &want.1[..],
        "{what}: incremental accumulators differ from scratch at {}",
        pos.to_fen()
    );
    let net = acc.net().clone();
    assert_eq!(acc.evaluate(pos), net.evaluate(pos), "{what}: output");
}

/// The kinds of move a game should contain to test the updates.
#[derive(Debug, Default)]
struct Seen {
    castles: usize,
    en_passant: usize,
    /// En passant by a man that is not a pawn type.
    en_passant_other: usize,
    promotions: usize,
    pair_promotions: usize,
    merges: usize,
    splits: usize,
    stack_captures: usize,
}

/// Which of the kinds `m` is (before it is made on `pos`); also counts it.
fn special(pos: &Position, m: Move, seen: &mut Seen) -> bool {
    let v = pos.variant();
    let us = pos.side_to_move();
    let here = pos.cell(m.from());
    let there = pos.cell(m.to());
    let mut any = true;
    match m.kind() {
        MoveKind::Castle => seen.castles += 1,
        MoveKind::EnPassant => {
            seen.en_passant += 1;
            if v.promotion_pawns & v.piece(m.part()).members == 0 {
                seen.en_passant_other += 1;
            }
        }
        MoveKind::Promotion => seen.promotions += 1,
        MoveKind::PairPromotion => seen.pair_promotions += 1,
        // Not counted, but made often so that en passant gets its chances.
        MoveKind::DoubleStep => {}
        _ => any = false,
    }
    if m.kind() != MoveKind::Castle {
        if there.is_color(us) {
            seen.merges += 1;
            any = true;
        }
        if here.kind() != m.part() {
            seen.splits += 1;
            any = true;
        }
        if there.is_color(us.flip()) && v.piece(there.kind()).members.count_ones() > 1 {
            seen.stack_captures += 1;
            any = true;
        }
    }
    any
}

/// A position where a move random games seldom reach is near: a Dragon
/// beside a Sergeant's double step, to capture it en passant.
fn near_rare_moves(variant: &str) -> Option<&'static str> {
    match variant {
        "compound" => Some("4k5/3s1s4/10/4D5/10/10/10/4K5 b - - 0 1"),
        _ => None,
    }
}

/// A legal move, half the time one of the special kinds where there is one.
fn pick(pos: &mut Position, rng: &mut Rng, list: &mut MoveList) -> Option<Move> {
    legal_moves(pos, list);
    if list.is_empty() {
        return None;
    }
    let mut ignore = Seen::default();
    let specials: Vec<Move> = list
        .iter()
        .copied()
        .filter(|&m| special(pos, m, &mut ignore))
        .collect();
    if !specials.is_empty() && rng.next_u64().is_multiple_of(2) {
        return Some(specials[rng.next_u64() as usize % specials.len()]);
    }
    Some(list[rng.next_u64() as usize % list.len()])
}

/// Random games in every shipped variant, with a net without king buckets
/// and one with them: after every make and unmake the incremental
/// accumulators equal those computed from scratch. Along each game a short
/// side line of moves and null moves is made without looking (so that the
/// lazy updates catch up over several plies) and taken back, looking at
/// every unmake.
#[test]
fn incremental_accumulators_match_scratch_along_random_games() {
    for kings in [0, 4] {
        accumulators_along_random_games(kings);
    }
}

fn accumulators_along_random_games(kings: usize) {
    let mut rng = Rng::new(0xACC);
    for v in shipped() {
        // 40 hidden units: not a multiple of the AVX2 width, so the tails
        // run too.
        let net = random_net(&v, 40, 7, kings);
        let layout = net.layout().clone();
        // Moves that change a side's view: a king to another bucket or
        // across the middle.
        let mut view_changes = 0;
        let mut seen = Seen::default();
        let mut list = MoveList::new();
        for game in 0..16 {
            // Some games start where a rare move is one move away.
            let mut pos = match near_rare_moves(&v.name) {
                Some(fen) if game % 4 == 3 => Position::from_fen(v.clone(), fen).expect("fen"),
                _ => Position::startpos(v.clone()),
            };
            let mut acc = Accumulators::new(net.clone(), &pos);
            let what = format!("{} game {game}", v.name);
            for _ in 0..160 {
                let Some(m) = pick(&mut pos, &mut rng, &mut list) else {
                    break;
                };
                special(&pos, m, &mut seen);
                let before = layout.views(&pos);
                pos.make(m);
                view_changes += usize::from(layout.views(&pos) != before);
                acc.push_move(&pos);
                assert_current(&mut acc, &pos, &what);
                let mut depth = 0;
                for _ in 0..rng.next_u64() % 4 {
                    if rng.next_u64().is_multiple_of(4) && !pos.in_check() {
                        acc.push_null();
                        pos.make_null();
                    } else if let Some(m) = pick(&mut pos, &mut rng, &mut list) {
                        special(&pos, m, &mut seen);
                        pos.make(m);
                        acc.push_move(&pos);
                    } else {
                        break;
                    }
                    depth += 1;
                }
                if depth > 0 {
                    assert_current(&mut acc, &pos, &what);
                }
                for _ in 0..depth {
                    acc.pop();
                    pos.unmake();
                    assert_current(&mut acc, &pos, &what);
                }
            }
            while pos.ply_count() > 0 {
                acc.pop();
                pos.unmake();
                assert_current(&mut acc, &pos, &what);
            }
        }
        let name = &v.name;
        if kings > 0 {
            assert!(view_changes > 50, "{name}: {view_changes} view changes");
        }
        assert!(seen.promotions > 0, "{name}: {seen:?}");
        if !v.castling.is_empty() {
            assert!(seen.castles > 0, "{name}: {seen:?}");
        }
        if !v.ep_rays[0].is_empty() {
            assert!(seen.en_passant > 0, "{name}: {seen:?}");
        }
        if v.has_pair_promotion() {
            assert!(seen.pair_promotions > 0, "{name}: {seen:?}");
        }
        if v.is_stacking() {
            assert!(seen.merges > 0 && seen.splits > 0, "{name}: {seen:?}");
            assert!(seen.stack_captures > 0, "{name}: {seen:?}");
        }
        if v.pieces.iter().enumerate().any(|(i, p)| {
            v.promotion_pawns & (1 << i) == 0 && p.rules[0].iter().any(|r| r.en_passant)
        }) {
            assert!(seen.en_passant_other > 0, "{name}: {seen:?}");
        }
        eprintln!("{name}: {seen:?}, {view_changes} view changes");
    }
}

/// The portable and AVX2 kernels give the same accumulators and outputs on
/// the positions of random games (skipped where there is no AVX2).
#[test]
fn kernels_agree_on_random_positions() {
    let kernels = Kernel::available();
    if kernels.len() < 2 {
        eprintln!("note: no AVX2 on this processor; the kernels are not compared");
        return;
    }
    let mut rng = Rng::new(0x5EED);
    for v in shipped() {
        for (hidden, activation, buckets) in [
            (64, super::Activation::ClippedRelu, 1),
            (33, super::Activation::SquaredClippedRelu, 4),
        ] {
            let layout = Layout::new(&v);
            let mut network =
                Network::random_with_buckets(&layout, hidden, buckets, rng.next_u64());
            network.activation = activation;
            let base = Net::new(layout, network, "random").expect("net");
            let nets: Vec<Arc<Net>> = kernels
                .iter()
                .map(|&k| Arc::new(base.clone().with_kernel(k)))
                .collect();
            assert_eq!(nets[1].kernel(), Kernel::Avx2);
            let mut list = MoveList::new();
            for _ in 0..6 {
                let mut pos = Position::startpos(v.clone());
                let mut accs: Vec<Accumulators> = nets
                    .iter()
                    .map(|n| Accumulators::new(n.clone(), &pos))
                    .collect();
                for _ in 0..100 {
                    let Some(m) = pick(&mut pos, &mut rng, &mut list) else {
                        break;
                    };
                    pos.make(m);
                    for a in &mut accs {
                        a.push_move(&pos);
                    }
                    let scores: Vec<i32> = accs.iter_mut().map(|a| a.evaluate(&pos)).collect();
                    assert_eq!(scores[0], scores[1], "{}", pos.to_fen());
                    let (w0, b0) = accs[0].current(&pos);
                    let (w0, b0) = (w0.to_vec(), b0.to_vec());
                    let second = accs[1].current(&pos);
                    assert_eq!(second, (&w0[..], &b0[..]), "{}", pos.to_fen());
                    assert_eq!(scratch(&nets[1], &pos), (w0, b0));
                }
            }
        }
    }
}
