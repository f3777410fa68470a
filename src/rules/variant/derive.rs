//! Deriving a variant's tables from its [`Description`]: the men and
//! stacks with their move rules, the stacking tables, the promotion
//! squares, the castling rules, the attack tables, the squares and the
//! hash keys.

use super::betza::Path;
use super::read::Description;
use super::{
    AttackRay, AttackTable, BothSides, CastlingRule, FastRules, MatingRules, PIN_OFFSET, PieceInfo,
    Rule, SquareSet, Variant, Zobrist,
};
use crate::rules::sums::SumTable;
use crate::rules::types::{BOARD_CELLS, Color, MAX_FILES, PieceType, Square};
use std::collections::HashMap;

/// The variant a description describes, with its board sums at zero (see
/// [`SumTable`]) and no parameter file (read apart).
pub(super) fn variant(name: &str, d: &Description) -> Variant {
    let (files, ranks) = (d.files, d.ranks);
    let (mut pieces, type_paths) = men(d);
    let n = pieces.len();
    let (merge, remnant) = stack_tables(&mut pieces, d.stacks.max);
    move_rules(&mut pieces, &type_paths, d.promotion.ep_types);
    fast_rules(&mut pieces, d.promotion.pawns);
    let promotion_near = promotion_near(&pieces, d);
    // Codes of empty cells (0) and of the other side's men.
    let mut landing = [1u64, 1u64];
    for i in 0..n {
        landing[0] |= 1u64 << (2 + 2 * i + 1);
        landing[1] |= 1u64 << (2 + 2 * i);
    }
    let (castling, castle_mask) = castling_rules(d);
    let quiet_attackers = d.game_end.quiet_attackers;
    let (attacks, capture_attacks, ep_rays) =
        attack_tables(&pieces, quiet_attackers, files.max(ranks));
    let mut squares = Vec::new();
    let mut on_board = SquareSet::default();
    for rank in 0..ranks {
        for file in 0..files {
            let s = Square::new(file, rank);
            squares.push(s);
            on_board.insert(s.index());
        }
    }
    let types_of = |mask: u64| -> Vec<PieceType> {
        (0..n)
            .filter(|&i| mask & (1u64 << i) != 0)
            .map(|i| PieceType(i as u8))
            .collect()
    };
    let g = &d.game_end;
    Variant {
        name: name.to_string(),
        files,
        ranks,
        start_fen: d.start_fen.clone(),
        king: PieceType(d.king_index as u8),
        stack_max: d.stacks.max,
        merge,
        remnant,
        promotion_pawns: d.promotion.pawns,
        promotion_types: types_of(d.promotion.types),
        pair_promotion_types: types_of(d.promotion.pair_types),
        mandatory_promotion: d.promotion.mandatory,
        promotion_region: d.promotion.region,
        promotion_near,
        initial_region: d.promotion.initial_region,
        castling,
        castling_pieces: d.castling.pieces,
        castle_mask,
        n_move_rule: g.n_move_rule,
        n_move_types: g.n_move_types,
        n_fold_rule: g.n_fold_rule,
        stalemate_value: g.stalemate_value,
        quiet_attackers,
        mating: mating_rules(&pieces, d),
        dead: g.dead.clone(),
        xboard: d.xboard.clone(),
        pin_lines: [attacks[0].pin_lines(), attacks[1].pin_lines()],
        check_map: [attacks[0].check_map(), attacks[1].check_map()],
        capture_map: [
            capture_attacks[0].check_map(),
            capture_attacks[1].check_map(),
        ],
        capture_both: BothSides::merge(&capture_attacks),
        capture_attacks,
        attacks,
        landing,
        ep_rays,
        zobrist: make_zobrist(n, name),
        squares,
        on_board,
        pieces,
        sums: SumTable::zero(2 + 2 * n),
        piece_values: d.values.clone(),
        eval_params: None,
        nnue: None,
    }
}

/// The men, then the stacks (a stack's Betza and paths are its members'),
/// with each one's paths.
fn men(d: &Description) -> (Vec<PieceInfo>, Vec<Vec<Path>>) {
    let (defs, stack_types) = (&d.defs, d.stacks.types);
    let mut pieces: Vec<PieceInfo> = defs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let stackable = stack_types & (1u64 << i) != 0;
            piece(d.letter, d.betza.clone(), 1u64 << i, d.royal, stackable)
        })
        .collect();
    // Paths of each type (stacks: union of members).
    let mut type_paths: Vec<Vec<Path>> = d.parsed.iter().map(|p| p.paths.clone()).collect();
    // Each stack's members.
    let base: Vec<usize> = (0..defs.len())
        .filter(|&i| stack_types & (1u64 << i) != 0)
        .collect();
    for &(set, letter) in &d.stacks.sets {
        let mut betza = String::new();
        let mut paths = Vec::new();
        for &i in &base {
            if set & (1u64 << i) != 0 {
                betza.push_str(&defs[i].betza);
                for p in &type_paths[i] {
                    if !paths.contains(p) {
                        paths.push(p.clone());
                    }
                }
            }
        }
        pieces.push(piece(letter, betza, set, false, true));
        type_paths.push(paths);
    }
    (pieces, type_paths)
}

/// A man or stack before its rules are derived.
fn piece(letter: char, betza: String, members: u64, royal: bool, stackable: bool) -> PieceInfo {
    PieceInfo {
        letter,
        betza,
        members,
        royal,
        stackable,
        rules: [Vec::new(), Vec::new()],
        dedup: false,
        plain_dedup: false,
        fast: Default::default(),
        plain: false,
        stepper: false,
        parts: Vec::new(),
        reach: Default::default(),
    }
}

/// What two stackable men merge into, what stays behind when a part
/// leaves a stack (both indexed `a * n + b`), and each stack's parts.
#[allow(clippy::type_complexity)]
fn stack_tables(
    pieces: &mut [PieceInfo],
    stack_max: u8,
) -> (Vec<Option<PieceType>>, Vec<Option<PieceType>>) {
    let n = pieces.len();
    let mut by_members: HashMap<u64, PieceType> = HashMap::new();
    for (i, p) in pieces.iter().enumerate() {
        by_members.insert(p.members, PieceType(i as u8));
    }
    let mut merge = vec![None; n * n];
    for a in 0..n {
        for b in 0..n {
            let (pa, pb) = (&pieces[a], &pieces[b]);
            if pa.stackable && pb.stackable && pa.members & pb.members == 0 {
                let set = pa.members | pb.members;
                if set.count_ones() <= stack_max as u32 {
                    merge[a * n + b] = by_members.get(&set).copied();
                }
            }
        }
    }
    // `remnant[a * n + b]`: what stays behind when part `b` leaves `a`.
    let mut remnant = vec![None; n * n];
    for a in 0..n {
        for b in 0..n {
            if a != b {
                let rest = pieces[a].members & !pieces[b].members;
                remnant[a * n + b] = by_members.get(&rest).copied();
            }
        }
    }
    for piece in pieces.iter_mut() {
        let m = piece.members;
        if m.count_ones() >= 2 {
            let mut parts = Vec::new();
            // Enumerate non-empty proper subsets of the member set.
            let mut sub = (m - 1) & m;
            while sub != 0 {
                if let Some(&t) = by_members.get(&sub) {
                    parts.push(t);
                }
                sub = (sub - 1) & m;
            }
            parts.sort();
            piece.parts = parts;
        }
    }
    (merge, remnant)
}

/// The move rules of each man for each colour, whether two of them reach
/// the same square, and the en-passant mode of the capture-only steps of
/// the men of `ep_types`.
fn move_rules(pieces: &mut [PieceInfo], type_paths: &[Vec<Path>], ep_types: u64) {
    for (i, paths) in type_paths.iter().enumerate() {
        for color in Color::BOTH {
            let mut rules: Vec<Rule> = Vec::new();
            for p in paths {
                let rule = path_rule(p, color);
                if !rules.contains(&rule) {
                    rules.push(rule);
                }
            }
            pieces[i].rules[color.index()] = rules;
        }
        pieces[i].dedup = rules_overlap(&pieces[i].rules[0]);
        pieces[i].plain_dedup = pieces[i].dedup
            && pieces[i].rules.iter().flatten().all(|r| {
                r.prelude.is_empty()
                    && r.start == 0
                    && !r.initial
                    && r.quiet
                    && r.capture
                    && !r.en_passant
                    && !r.double_step
            });
    }
    // The e mode of capture-only leaper steps of en-passant types.
    for (i, piece) in pieces.iter_mut().enumerate() {
        if ep_types & (1u64 << i) != 0 {
            for rules in piece.rules.iter_mut() {
                for rule in rules.iter_mut() {
                    if rule.capture && !rule.quiet && rule.max == 1 {
                        rule.en_passant = true;
                    }
                }
            }
        }
    }
}

/// The rules sorted by kind for the fast generators, the reach of each
/// man, and which men the plain and stepper generators can move.
fn fast_rules(pieces: &mut [PieceInfo], promotion_pawns: u64) {
    for (i, p) in pieces.iter_mut().enumerate() {
        p.fast = [
            FastRules::from_rules(&p.rules[0]),
            FastRules::from_rules(&p.rules[1]),
        ];
        p.reach = [reach(&p.rules[0]), reach(&p.rules[1])];
        p.plain = !p.dedup
            && !p.stackable
            && promotion_pawns & (1u64 << i) == 0
            && p.fast.iter().all(|f| {
                f.special.is_empty()
                    && f.quiet_leaps.is_empty()
                    && f.capture_leaps.is_empty()
                    && f.double_steps.is_empty()
            });
        p.stepper = !p.dedup && !p.stackable && p.fast.iter().all(|f| f.special.is_empty());
    }
}

/// Squares from which a pawn-type man may promote with one move (any
/// square, when a pawn type slides).
fn promotion_near(pieces: &[PieceInfo], d: &Description) -> [SquareSet; 2] {
    let (files, ranks) = (d.files, d.ranks);
    let (promotion_region, promotion_pawns) = (&d.promotion.region, d.promotion.pawns);
    let mut promotion_near = [SquareSet::default(), SquareSet::default()];
    for (c, near) in promotion_near.iter_mut().enumerate() {
        for (i, p) in pieces.iter().enumerate() {
            if promotion_pawns & (1u64 << i) == 0 {
                continue;
            }
            let f = &p.fast[c];
            let steps: Vec<i16> = f
                .leaps
                .iter()
                .chain(&f.quiet_leaps)
                .copied()
                .chain(f.capture_leaps.iter().map(|&(d, _)| d))
                .chain(f.double_steps.iter().map(|&(_, d)| d))
                .collect();
            for sq in (0..ranks).flat_map(|r| (0..files).map(move |f| Square::new(f, r))) {
                let from = sq.index() as isize;
                let lands = steps.iter().any(|&d| {
                    let to = from + d as isize;
                    to >= 0 && promotion_region[c].contains(to as usize)
                });
                if lands || !f.rides.is_empty() || !f.special.is_empty() {
                    near.insert(sq.index());
                }
            }
        }
    }
    promotion_near
}

/// The castling rules of both sides and, for each square, the castling
/// rights lost when its man leaves or is taken.
fn castling_rules(d: &Description) -> (Vec<CastlingRule>, Vec<u8>) {
    let (files, ranks) = (d.files, d.ranks);
    let (kingside_file, queenside_file) = (d.castling.kingside_file, d.castling.queenside_file);
    let mut castling = Vec::new();
    let mut castle_mask = vec![0u8; BOARD_CELLS];
    if d.castling.enabled
        && let Some(kf) = d.castling.king_file
    {
        for color in Color::BOTH {
            let rank = if color == Color::White { 0 } else { ranks - 1 };
            for kingside in [true, false] {
                let (rook_file, king_to) = if kingside {
                    (files - 1, kingside_file)
                } else {
                    (0, queenside_file)
                };
                // The king's destination must lie between its start and the corner.
                let between = if kingside {
                    kf < king_to && king_to < rook_file
                } else {
                    rook_file < king_to && king_to < kf
                };
                if !between {
                    continue;
                }
                let rook_to = if kingside { king_to - 1 } else { king_to + 1 };
                let bit = (color.index() * 2 + if kingside { 0 } else { 1 }) as u8;
                let lo = kf.min(rook_file).min(king_to).min(rook_to);
                let hi = kf.max(rook_file).max(king_to).max(rook_to);
                let empty: Vec<Square> = (lo..=hi)
                    .filter(|&f| f != kf && f != rook_file)
                    .map(|f| Square::new(f, rank))
                    .collect();
                // Squares the king passes over (its start square is known
                // not to be attacked when castling is generated, and its
                // landing square is judged by the legality test).
                let king_path: Vec<Square> = (kf.min(king_to) + 1..kf.max(king_to))
                    .map(|f| Square::new(f, rank))
                    .collect();
                let king_from = Square::new(kf, rank);
                let rook_from = Square::new(rook_file, rank);
                castle_mask[king_from.index()] |= 1 << bit;
                castle_mask[rook_from.index()] |= 1 << bit;
                castling.push(CastlingRule {
                    color,
                    bit,
                    king_from,
                    king_to: Square::new(king_to, rank),
                    rook_from,
                    rook_to: Square::new(rook_to, rank),
                    empty,
                    king_path,
                    kingside,
                });
            }
        }
    }
    (castling, castle_mask)
}

/// Mating potential: a stack has it alone when any member has.
fn mating_rules(pieces: &[PieceInfo], d: &Description) -> MatingRules {
    let g = &d.game_end;
    let mut solo = g.solo;
    // A stack has mating potential alone when any member has.
    for (i, p) in pieces.iter().enumerate() {
        if p.members & solo != 0 {
            solo |= 1u64 << i;
        }
    }
    MatingRules {
        solo,
        pair_exceptions: g.pair_exceptions.clone(),
        color_bound: g.color_bound,
    }
}

/// The attack tables of both colours, those of the men that capture, and
/// the en-passant rays; `board_max` is the board's longer side.
#[allow(clippy::type_complexity)]
fn attack_tables(
    pieces: &[PieceInfo],
    quiet_attackers: u64,
    board_max: usize,
) -> ([AttackTable; 2], [AttackTable; 2], [Vec<AttackRay>; 2]) {
    let attacks = [
        AttackTable::from_rays(build_rays(
            pieces,
            Color::White,
            quiet_attackers,
            board_max,
            false,
        )),
        AttackTable::from_rays(build_rays(
            pieces,
            Color::Black,
            quiet_attackers,
            board_max,
            false,
        )),
    ];
    // The same rays without the men that never capture (quietAttackerTypes).
    let capture_attacks = if quiet_attackers == 0 {
        attacks.clone()
    } else {
        [Color::White, Color::Black]
            .map(|c| AttackTable::from_rays(build_rays(pieces, c, 0, board_max, false)))
    };
    let ep_rays = [
        build_rays(pieces, Color::White, 0, board_max, true),
        build_rays(pieces, Color::Black, 0, board_max, true),
    ];
    (attacks, capture_attacks, ep_rays)
}

/// Compile a Betza path for one colour.
fn path_rule(p: &Path, color: Color) -> Rule {
    let flip = if color == Color::White { 1 } else { -1 };
    let d = |dx: i8, dy: i8| Variant::delta(dx as i32, dy as i32 * flip);
    let mut prelude = arrayvec::ArrayVec::new();
    let legs = &p.legs;
    let last = legs[legs.len() - 1];
    let (mut x, mut y) = (0i8, 0i8);
    for leg in &legs[..legs.len() - 1] {
        x += leg.dx;
        y += leg.dy;
        if !leg.modes.pass_any && !prelude.is_full() {
            prelude.push(d(x, y));
        }
    }
    if p.lame && legs.len() == 1 {
        let (dx, dy) = (last.dx, last.dy);
        if dx.abs() == 2 && dy.abs() == 1 {
            prelude.push(d(dx.signum(), 0));
        } else if dx.abs() == 1 && dy.abs() == 2 {
            prelude.push(d(0, dy.signum()));
        } else {
            let len = dx.abs().max(dy.abs());
            for k in 1..len {
                if !prelude.is_full() {
                    prelude.push(d(dx.signum() * k, dy.signum() * k));
                }
            }
        }
    }
    let max = if last.range == 0 { 255 } else { last.range };
    Rule {
        double_step: p.initial && p.lame && last.modes.quiet && !last.modes.capture && max == 1,
        prelude,
        start: d(x, y),
        step: d(last.dx, last.dy),
        max,
        quiet: last.modes.quiet,
        capture: last.modes.capture,
        en_passant: last.modes.en_passant,
        initial: p.initial,
    }
}

/// Whether two rules of a piece can reach the same square.
fn rules_overlap(rules: &[Rule]) -> bool {
    let mut seen: HashMap<i16, usize> = HashMap::new();
    for (i, r) in rules.iter().enumerate() {
        let steps = (r.max as usize).min(MAX_FILES);
        for k in 1..=steps {
            let off = r.start + r.step * k as i16;
            if let Some(&j) = seen.get(&off)
                && j != i
            {
                return true;
            }
            seen.insert(off, i);
        }
    }
    false
}

/// Reverse attack rays of one colour: rules that capture (or, with
/// `ep_only`, that capture en passant), grouped by geometry.
fn build_rays(
    pieces: &[PieceInfo],
    color: Color,
    quiet_attackers: u64,
    board_max: usize,
    ep_only: bool,
) -> Vec<AttackRay> {
    let mut rays: Vec<AttackRay> = Vec::new();
    for (i, p) in pieces.iter().enumerate() {
        let quiet_attacks = quiet_attackers & p.members != 0 || quiet_attackers & (1u64 << i) != 0;
        for rule in &p.rules[color.index()] {
            let attacks = if ep_only {
                rule.en_passant
            } else {
                rule.capture || (quiet_attacks && rule.quiet)
            };
            if !attacks {
                continue;
            }
            let len = (rule.max as usize).min(board_max);
            let idx = match rays.iter().position(|r| {
                r.prelude == rule.prelude
                    && r.start == rule.start
                    && r.step == rule.step
                    && r.initial == rule.initial
            }) {
                Some(x) => x,
                None => {
                    rays.push(AttackRay {
                        prelude: rule.prelude.clone(),
                        start: rule.start,
                        step: rule.step,
                        initial: rule.initial,
                        masks: arrayvec::ArrayVec::new(),
                    });
                    rays.len() - 1
                }
            };
            let ray = &mut rays[idx];
            while ray.masks.len() < len && !ray.masks.is_full() {
                ray.masks.push(0);
            }
            let code = 2 + 2 * i as u32 + color as u32;
            for m in ray.masks.iter_mut().take(len) {
                *m |= 1u64 << code;
            }
        }
    }
    // Short rays (leapers) first: they are cheap and often decisive.
    rays.sort_by_key(|r| r.masks.len());
    rays
}

/// SplitMix64: deterministic Zobrist keys, seeded by the variant name so that
/// two variants never share keys by accident.
fn make_zobrist(types: usize, name: &str) -> Zobrist {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for b in name.bytes() {
        state = state.wrapping_mul(0x100_0000_01B3) ^ b as u64;
    }
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let codes = 2 + 2 * types;
    let pieces = (0..codes * BOARD_CELLS).map(|_| next()).collect();
    let side = next();
    let mut castling = [0u64; 16];
    let bits: Vec<u64> = (0..4).map(|_| next()).collect();
    for (m, c) in castling.iter_mut().enumerate() {
        *c = (0..4)
            .filter(|b| m & (1 << b) != 0)
            .fold(0, |acc, b| acc ^ bits[b]);
    }
    let en_passant = (0..BOARD_CELLS).map(|_| next()).collect();
    Zobrist {
        pieces,
        side,
        castling,
        en_passant,
    }
}

/// Offsets (destination minus origin, plus [`PIN_OFFSET`]) of every square
/// a man with these rules can reach in one move on an empty board.
fn reach(rules: &[Rule]) -> Vec<bool> {
    let mut t = vec![false; 2 * BOARD_CELLS];
    for r in rules {
        for k in 1..=(r.max as isize).min(16) {
            let i = r.start as isize + k * r.step as isize + PIN_OFFSET;
            if (0..t.len() as isize).contains(&i) {
                t[i as usize] = true;
            }
        }
    }
    t
}
