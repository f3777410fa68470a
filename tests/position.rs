//! Position invariants on every reference position and along random games:
//! FEN round trips, make/unmake restores everything, the incremental hash
//! equals the hash computed from scratch, a move's check test before it is
//! made agrees with the one after, quiescence's capture generator gives the
//! legal captures and promotions.

mod common;

use amalgam::rules::movegen::{
    captures_of, captures_pseudo, gives_check, is_tactical, leaves_king_safe_unchecked, needs_test,
};
use amalgam::{Move, MoveKind, MoveList, Position, VariantSet};
use common::{Rng, position, test_positions};

/// Everything make/unmake must restore.
fn snapshot(p: &Position) -> (String, u64, u8, Option<amalgam::Square>, u32, u32) {
    (
        p.to_fen(),
        p.hash(),
        p.castling_rights(),
        p.ep_square(),
        p.halfmove_clock(),
        p.fullmove_number(),
    )
}

fn check_position(p: &mut Position, label: &str) {
    // FEN round trip.
    let fen = p.to_fen();
    let again = Position::from_fen(p.variant().clone(), &fen)
        .unwrap_or_else(|e| panic!("{label}: {fen}: {e}"));
    assert_eq!(again.to_fen(), fen, "{label}: FEN round trip");
    // After moves the check test looks only through the changed squares; a
    // position read from FEN has no history and scans every attack.
    assert_eq!(again.in_check(), p.in_check(), "{label}: in_check");
    assert_eq!(
        again.hash(),
        p.hash(),
        "{label}: hash after FEN round trip of {fen}"
    );
    // Hash from scratch.
    assert_eq!(
        p.hash(),
        p.compute_hash(),
        "{label}: incremental hash of {fen}"
    );
    // Out of check, quiescence's captures (pseudo-legal captures and
    // promotions, tested where `needs_test` says) are exactly the legal
    // moves that capture or promote.
    if !p.in_check() {
        let mut staged = MoveList::new();
        captures_pseudo(p, &mut staged);
        let mut staged: Vec<Move> = staged
            .iter()
            .copied()
            .filter(|&m| !needs_test(p, m) || leaves_king_safe_unchecked(p, m))
            .collect();
        let mut tactical: Vec<Move> = p
            .legal_moves()
            .into_iter()
            .filter(|&m| is_tactical(p, m))
            .collect();
        staged.sort_by_key(|m| m.0);
        tactical.sort_by_key(|m| m.0);
        assert_eq!(staged, tactical, "{label}: captures of {fen}");
        // Limited to some victims, the generator leaves out exactly the
        // other plain captures, in the same order; promotions (with the
        // choice not to promote beside them) and en passant all come.
        let mut all = MoveList::new();
        captures_pseudo(p, &mut all);
        let them = p.side_to_move().flip() as u32;
        let promotes = |m: Move| {
            all.iter().any(|x| {
                x.from() == m.from()
                    && x.to() == m.to()
                    && matches!(x.kind(), MoveKind::Promotion | MoveKind::PairPromotion)
            })
        };
        for parity in 0..2u32 {
            let victims: u64 = (0..31u32)
                .filter(|t| t % 2 == parity)
                .fold(0, |mask, t| mask | 1u64 << (2 + 2 * t + them));
            let mut some = MoveList::new();
            captures_of(p, victims, &mut some);
            let expected: Vec<Move> = all
                .iter()
                .copied()
                .filter(|&m| {
                    m.kind() == MoveKind::EnPassant
                        || promotes(m)
                        || p.piece_on(m.to()).is_some_and(|(t, c)| {
                            victims >> (2 + 2 * t.0 as u32 + c as u32) & 1 != 0
                        })
                })
                .collect();
            assert_eq!(
                some.to_vec(),
                expected,
                "{label}: captures of victims {victims:#x} in {fen}"
            );
        }
    }
    // Make/unmake of every legal move.
    let before = snapshot(p);
    for m in p.legal_moves() {
        let text = p.move_text(m);
        // The check test without making the move agrees with the one after.
        let checks = gives_check(p, m);
        p.make(m);
        assert_eq!(
            p.hash(),
            p.compute_hash(),
            "{label}: hash after {text} from {fen}"
        );
        assert_eq!(checks, p.in_check(), "{label}: {text} checks, from {fen}");
        p.unmake();
        assert_eq!(snapshot(p), before, "{label}: unmake of {text} from {fen}");
    }
}

#[test]
fn reference_positions_round_trip_and_restore() {
    let set = VariantSet::builtin();
    let positions = test_positions();
    assert!(positions.len() >= 20);
    for (variant, fen) in positions {
        let mut p = position(&set, &variant, &fen);
        // The reference FENs are written in canonical form.
        assert_eq!(p.to_fen(), fen, "{variant}: canonical FEN");
        check_position(&mut p, &variant);
    }
}

#[test]
fn random_games_keep_invariants() {
    let set = VariantSet::builtin();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for variant in ["chess", "combination", "team-mate", "compound"] {
        let v = set.compile(variant).expect("compiles");
        for game in 0..12 {
            let mut p = Position::startpos(v.clone());
            let mut fens = vec![p.to_fen()];
            for _ply in 0..120 {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                check_position(&mut p, &format!("{variant} game {game}"));
                let m = moves[(rng.next() % moves.len() as u64) as usize];
                p.make(m);
                fens.push(p.to_fen());
            }
            // Unmaking the whole game walks back through the same FENs.
            while p.ply_count() > 0 {
                fens.pop();
                p.unmake();
                assert_eq!(
                    Some(&p.to_fen()),
                    fens.last(),
                    "{variant} game {game}: unmake walk"
                );
            }
        }
    }
}

#[test]
fn repetition_is_detected() {
    let set = VariantSet::builtin();
    let v = set.compile("chess").expect("chess");
    let mut p = Position::startpos(v);
    assert_eq!(p.repetitions(), 0);
    for _ in 0..2 {
        for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            let mv = p.parse_move(m).expect("legal");
            p.make(mv);
        }
    }
    assert_eq!(p.repetitions(), 2);
    let mv = p.parse_move("e2e4").expect("legal");
    p.make(mv);
    assert_eq!(p.repetitions(), 0);
}

#[test]
fn en_passant_counts_in_hash_only_when_capturable() {
    let set = VariantSet::builtin();
    let v = set.compile("chess").expect("chess");
    // After e2e4 no black pawn can capture: same hash as without the square.
    let a = Position::from_fen(v.clone(), "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1").expect("fen");
    let b = Position::from_fen(v.clone(), "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1").expect("fen");
    assert_eq!(a.hash(), b.hash());
    assert_eq!(a.to_fen(), "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1");
    // With a black pawn on d4 the capture is legal and the hashes differ.
    let c = Position::from_fen(v.clone(), "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1").expect("fen");
    let d = Position::from_fen(v, "4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1").expect("fen");
    assert_ne!(c.hash(), d.hash());
}

#[test]
fn combination_stack_moves_have_the_documented_text() {
    let set = VariantSet::builtin();
    let mut p = position(
        &set,
        "combination",
        "r1b1k2r/pppp1ppp/8/8/8/2A5/PPPP1PPP/R3K2R w KQkq - 0 1",
    );
    for text in ["c3b5n", "c3b5", "c3e5b", "c3a5b", "c3a4n", "c3d5n", "c3d5"] {
        let m = p.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(p.move_text(m), text);
        p.make(m);
        p.unmake();
    }
    // A knight cannot make a bishop move alone.
    assert!(p.parse_move("c3e5n").is_err());
    // The part that stays behind: moving the knight leaves a bishop on c3.
    let m = p.parse_move("c3b5n").expect("legal");
    p.make(m);
    assert!(p.to_fen().contains("2B5"), "{}", p.to_fen());
}

#[test]
fn mating_potential_rules() {
    let set = VariantSet::builtin();
    let cases = [
        ("chess", "4k3/8/8/8/8/8/8/4KN2 w - - 0 1", false),
        ("chess", "4k3/8/8/8/8/8/8/4KR2 w - - 0 1", true),
        ("chess", "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", true),
        ("chess", "4k3/8/8/8/8/8/8/3BKB2 w - - 0 1", false),
        ("chess", "4k3/8/8/8/8/8/8/1B2KB2 w - - 0 1", false),
        ("team-mate", "4k3/8/8/8/8/8/8/4KU2 w - - 0 1", false),
        ("team-mate", "4k3/8/8/8/8/8/8/3NKM2 w - - 0 1", false),
        ("team-mate", "4k3/8/8/8/8/8/8/3UKM2 w - - 0 1", true),
        ("team-mate", "4k3/8/8/8/8/8/8/3BKB2 w - - 0 1", true),
        ("team-mate", "4k3/8/8/8/8/8/8/2E1KE2 w - - 0 1", true),
        ("team-mate", "4k3/8/8/8/8/8/8/3EKE2 w - - 0 1", false),
        ("team-mate", "4k3/8/8/8/8/8/P7/4K3 w - - 0 1", true),
        ("combination", "4k3/8/8/8/8/8/8/4KN2 w - - 0 1", false),
        ("combination", "4k3/8/8/8/8/8/8/4KQ2 w - - 0 1", true),
        ("combination", "4k3/8/8/8/8/8/8/4KA2 w - - 0 1", true),
        ("compound", "4k5/10/10/10/10/10/10/4KD4 w - - 0 1", true),
    ];
    for (variant, fen, expected) in cases {
        let p = position(&set, variant, fen);
        assert_eq!(
            p.has_mating_potential(amalgam::Color::White),
            expected,
            "{variant} {fen}"
        );
        assert!(
            !p.has_mating_potential(amalgam::Color::Black),
            "{variant} {fen}: bare king"
        );
    }
}
