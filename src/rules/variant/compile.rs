//! Turning the entries of one ini section into a compiled [`Variant`].

use super::betza::{self, Path};
use super::ini::{Entry, IniError, Section};
use super::{
    AttackRay, AttackTable, BothSides, CastlingRule, DeadRule, FastRules, MatingRules, PIN_OFFSET,
    PieceInfo, Rule, SquareSet, Variant, XboardInfo, Zobrist,
};
use crate::rules::types::{BOARD_CELLS, Color, MAX_FILES, MAX_RANKS, PieceType, Square};
use std::collections::HashMap;

/// Every key a section may use: name, type, default, meaning. The header of
/// `variants.ini` documents the same list (a test keeps them in step).
pub const KEYS: &[(&str, &str, &str, &str)] = &[
    (
        "maxFile",
        "file letter or number",
        "h",
        "last file of the board (up to l / 12)",
    ),
    (
        "maxRank",
        "number",
        "8",
        "last rank of the board (up to 10)",
    ),
    ("pawn", "letter[:Betza] or -", "p:fmWfcFifmnD", "the pawn"),
    ("knight", "letter[:Betza] or -", "n:N", "the knight"),
    ("bishop", "letter[:Betza] or -", "b:B", "the bishop"),
    ("rook", "letter[:Betza] or -", "r:R", "the rook"),
    ("queen", "letter[:Betza] or -", "q:Q", "the queen"),
    ("king", "letter[:Betza] or -", "k:K", "the royal man"),
    (
        "customPieceN",
        "letter:Betza",
        "-",
        "an extra man, N = 1..26",
    ),
    ("startFen", "FEN", "chess start", "start position"),
    (
        "promotionRegionWhite",
        "region",
        "last rank",
        "where White's promoting men promote",
    ),
    (
        "promotionRegionBlack",
        "region",
        "first rank",
        "where Black's promoting men promote",
    ),
    ("promotionPawnTypes", "letters", "p", "men that promote"),
    (
        "promotionPieceTypes",
        "letters",
        "nbrq",
        "what they promote to",
    ),
    (
        "pairPromotionTypes",
        "letters",
        "-",
        "promotions that also leave a copy on the origin square",
    ),
    (
        "mandatoryPawnPromotion",
        "bool",
        "true",
        "promotion is compulsory in the region",
    ),
    (
        "doubleStep",
        "bool",
        "true",
        "initial (i) moves are allowed",
    ),
    (
        "doubleStepRegionWhite",
        "region",
        "second rank",
        "where White's initial moves start",
    ),
    (
        "doubleStepRegionBlack",
        "region",
        "second-last rank",
        "where Black's initial moves start",
    ),
    (
        "enPassantTypes",
        "letters",
        "p",
        "men whose capture-only steps also capture en passant",
    ),
    ("castling", "bool", "true", "castling exists"),
    (
        "castlingKingFile",
        "file letter",
        "king file of startFen",
        "file the king castles from",
    ),
    (
        "castlingKingsideFile",
        "file letter",
        "g",
        "king's destination castling towards the last file",
    ),
    (
        "castlingQueensideFile",
        "file letter",
        "c",
        "king's destination castling towards file a",
    ),
    (
        "castlingRookPieces",
        "letters or *",
        "r",
        "corner men that castle (* = any non-royal man)",
    ),
    (
        "nMoveRule",
        "number",
        "50",
        "draw after this many moves without reset (0 = off)",
    ),
    (
        "nMoveRuleTypes",
        "letters",
        "p",
        "men whose moves reset the counter (captures always do)",
    ),
    ("nFoldRule", "number", "3", "repetitions that draw"),
    (
        "stalemateValue",
        "win|loss|draw",
        "draw",
        "result for the stalemated side",
    ),
    (
        "stackTypes",
        "letters",
        "-",
        "men that may stack on one square",
    ),
    ("maxStackSize", "number", "1", "most men in one stack"),
    (
        "stackLetters",
        "letter:members ...",
        "-",
        "letter of each stack of two or more men",
    ),
    (
        "quietAttackerTypes",
        "letters",
        "-",
        "men whose non-capturing moves still attack (give check)",
    ),
    (
        "matingSoloTypes",
        "letters or *",
        "*",
        "men that give mating potential alone",
    ),
    (
        "matingPairExceptions",
        "pairs",
        "-",
        "pairs of men that are not a mating team, e.g. nm nn",
    ),
    (
        "colorBoundTypes",
        "letters",
        "-",
        "men confined to one square colour",
    ),
    (
        "deadPosition",
        "no-mating-potential|material",
        "no-mating-potential",
        "when a position is drawn as dead",
    ),
    (
        "deadMaterial",
        "men:men ...",
        "k:k",
        "with deadPosition = material: the material of dead positions",
    ),
    (
        "deadColorBound",
        "true|false",
        "false",
        "with deadPosition = material: also dead when every man but the kings is colour-bound on one colour",
    ),
    (
        "pieceValues",
        "letter:centipawns ...",
        "estimated",
        "material values (stacks: sum of members)",
    ),
    (
        "evalParams",
        "file",
        "-",
        "evaluation weights (not inherited; see README)",
    ),
    (
        "pieceToCharTable",
        "string",
        "-",
        "XBoard piece table (setup command)",
    ),
    ("xboardParent", "name", "-", "XBoard parent variant"),
    (
        "xboardName",
        "name",
        "section name",
        "name XBoard uses for the variant",
    ),
];

const BUILTINS: [(&str, char, &str); 6] = [
    ("pawn", 'p', "fmWfcFifmnD"),
    ("knight", 'n', "N"),
    ("bishop", 'b', "B"),
    ("rook", 'r', "R"),
    ("queen", 'q', "Q"),
    ("king", 'k', "K"),
];

const CHESS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Collects errors while reading a section.
struct Reader<'a> {
    map: HashMap<&'a str, &'a Entry>,
    errors: Vec<IniError>,
}

impl<'a> Reader<'a> {
    fn get(&self, key: &str) -> Option<&'a Entry> {
        self.map.get(key).copied()
    }

    fn bool(&mut self, key: &str, default: bool) -> bool {
        match self.get(key) {
            None => default,
            Some(e) => match e.value.as_str() {
                "true" => true,
                "false" => false,
                _ => {
                    self.errors
                        .push(e.error(format!("expected true or false, found '{}'", e.value)));
                    default
                }
            },
        }
    }

    fn number(&mut self, key: &str, default: u32, max: u32) -> u32 {
        match self.get(key) {
            None => default,
            Some(e) => match e.value.parse::<u32>() {
                Ok(n) if n <= max => n,
                _ => {
                    self.errors.push(e.error(format!(
                        "expected a number up to {max}, found '{}'",
                        e.value
                    )));
                    default
                }
            },
        }
    }
}

fn file_value(v: &str) -> Option<usize> {
    if let Ok(n) = v.parse::<usize>() {
        return (n >= 1).then(|| n - 1);
    }
    let mut c = v.chars();
    match (c.next(), c.next()) {
        (Some(f), None) if f.is_ascii_lowercase() => Some(f as usize - 'a' as usize),
        _ => None,
    }
}

pub fn compile(name: &str, section: &Section, entries: &[Entry]) -> Result<Variant, Vec<IniError>> {
    let mut map: HashMap<&str, &Entry> = HashMap::new();
    let mut errors = Vec::new();
    for e in entries {
        let known = KEYS.iter().any(|k| k.0 == e.key)
            || e.key
                .strip_prefix("customPiece")
                .and_then(|n| n.parse::<u32>().ok())
                .is_some_and(|n| (1..=26).contains(&n));
        if !known {
            errors.push(e.error("unknown key"));
            continue;
        }
        map.insert(e.key.as_str(), e);
    }
    let mut r = Reader { map, errors };

    // Board size.
    let files = match r.get("maxFile") {
        None => 8,
        Some(e) => match file_value(&e.value) {
            Some(f) if (1..MAX_FILES).contains(&f) => f + 1,
            _ => {
                r.errors
                    .push(e.error(format!("expected a file from b to l, found '{}'", e.value)));
                8
            }
        },
    };
    let ranks = match r.get("maxRank") {
        None => 8,
        Some(e) => match e.value.parse::<usize>() {
            Ok(n) if (2..=MAX_RANKS).contains(&n) => n,
            _ => {
                r.errors.push(e.error(format!(
                    "expected a rank from 2 to {MAX_RANKS}, found '{}'",
                    e.value
                )));
                8
            }
        },
    };

    // Pieces: built-ins, then custom pieces in number order.
    struct Def<'a> {
        letter: char,
        betza: String,
        royal: bool,
        entry: Option<&'a Entry>,
    }
    let mut defs: Vec<Def> = Vec::new();
    for (key, letter, betza) in BUILTINS {
        let (letter, betza, entry) = match r.get(key) {
            None => (Some(letter), betza.to_string(), None),
            Some(e) => {
                let v = e.value.as_str();
                if v == "-" {
                    (None, String::new(), Some(e))
                } else {
                    match parse_letter_betza(v, Some(betza)) {
                        Some((l, b)) => (Some(l), b, Some(e)),
                        None => {
                            r.errors.push(e.error(format!(
                                "expected a letter, 'letter:Betza' or '-', found '{v}'"
                            )));
                            (None, String::new(), Some(e))
                        }
                    }
                }
            }
        };
        if let Some(letter) = letter {
            defs.push(Def {
                letter,
                betza,
                royal: key == "king",
                entry,
            });
        }
    }
    for n in 1..=26 {
        let key = format!("customPiece{n}");
        if let Some(e) = r.get(&key) {
            match parse_letter_betza(&e.value, None) {
                Some((l, b)) => defs.push(Def {
                    letter: l,
                    betza: b,
                    royal: false,
                    entry: Some(e),
                }),
                None => r
                    .errors
                    .push(e.error(format!("expected 'letter:Betza', found '{}'", e.value))),
            }
        }
    }
    // Unique letters.
    for i in 0..defs.len() {
        for j in 0..i {
            if defs[i].letter == defs[j].letter {
                if let Some(e) = defs[i].entry {
                    r.errors
                        .push(e.error(format!("letter '{}' is already used", defs[i].letter)));
                } else {
                    r.errors
                        .push(section.error(format!("letter '{}' is used twice", defs[i].letter)));
                }
            }
        }
    }
    let Some(king_index) = defs.iter().position(|d| d.royal) else {
        r.errors.push(section.error("the variant needs a king"));
        return Err(r.errors);
    };

    // Parse Betza strings.
    let mut parsed: Vec<betza::BetzaPiece> = Vec::new();
    for d in &defs {
        match betza::parse(&d.betza) {
            Ok(p) => parsed.push(p),
            Err(err) => {
                let msg = format!("piece '{}': bad Betza '{}' {}", d.letter, d.betza, err);
                match d.entry {
                    Some(e) => r.errors.push(e.error(msg)),
                    None => r.errors.push(section.error(msg)),
                }
                parsed.push(betza::BetzaPiece::default());
            }
        }
    }

    let letter_index = |c: char| defs.iter().position(|d| d.letter == c.to_ascii_lowercase());
    // A list of piece letters as a type mask.
    let letters = |r: &mut Reader, key: &str, default: &str, star: Option<u64>| -> u64 {
        let (value, entry) = match r.get(key) {
            Some(e) => (e.value.clone(), Some(e)),
            None => (default.to_string(), None),
        };
        if value == "*"
            && let Some(all) = star
        {
            return all;
        }
        let mut mask = 0u64;
        if value == "-" || value.is_empty() {
            return 0;
        }
        for c in value.chars() {
            if c.is_whitespace() {
                continue;
            }
            match letter_index(c) {
                Some(i) => mask |= 1u64 << i,
                None => {
                    // Defaults may name pieces the variant dropped; only
                    // explicit values are errors.
                    if let Some(e) = entry {
                        r.errors
                            .push(e.error(format!("'{c}' is not a piece of this variant")));
                    }
                }
            }
        }
        mask
    };
    let non_royal_all: u64 = (0..defs.len())
        .filter(|&i| !defs[i].royal)
        .map(|i| 1u64 << i)
        .sum();

    // Stacks.
    let stack_types = letters(&mut r, "stackTypes", "-", None);
    let stack_max = r.number("maxStackSize", 1, 3) as u8;
    let mut pieces: Vec<PieceInfo> = defs
        .iter()
        .enumerate()
        .map(|(i, d)| PieceInfo {
            letter: d.letter,
            betza: d.betza.clone(),
            members: 1u64 << i,
            royal: d.royal,
            stackable: stack_types & (1u64 << i) != 0,
            rules: [Vec::new(), Vec::new()],
            dedup: false,
            plain_dedup: false,
            fast: Default::default(),
            plain: false,
            stepper: false,
            parts: Vec::new(),
            reach: Default::default(),
        })
        .collect();
    // Paths of each type (stacks: union of members).
    let mut type_paths: Vec<Vec<Path>> = parsed.iter().map(|p| p.paths.clone()).collect();
    if stack_types & (1u64 << king_index) != 0
        && let Some(e) = r.get("stackTypes")
    {
        r.errors.push(e.error("the king cannot stack"));
    }
    if stack_max > 1 {
        let entry = r.get("stackLetters");
        let mut seen_sets: HashMap<u64, char> = HashMap::new();
        if let Some(e) = entry {
            for item in e.value.split_whitespace() {
                let Some((l, m)) = item.split_once(':') else {
                    r.errors
                        .push(e.error(format!("expected letter:members, found '{item}'")));
                    continue;
                };
                let mut lc = l.chars();
                let (Some(letter), None) = (lc.next(), lc.next()) else {
                    r.errors
                        .push(e.error(format!("stack letter must be one character in '{item}'")));
                    continue;
                };
                let letter = letter.to_ascii_lowercase();
                if !letter.is_ascii_lowercase()
                    || letter_index(letter).is_some()
                    || seen_sets.values().any(|&c| c == letter)
                {
                    r.errors
                        .push(e.error(format!("stack letter '{letter}' is not free")));
                    continue;
                }
                let mut set = 0u64;
                let mut ok = true;
                for c in m.chars() {
                    match letter_index(c) {
                        Some(i) if stack_types & (1u64 << i) != 0 && set & (1u64 << i) == 0 => {
                            set |= 1u64 << i
                        }
                        _ => {
                            r.errors.push(e.error(format!(
                                "'{c}' in '{item}' is not a distinct stackable man"
                            )));
                            ok = false;
                        }
                    }
                }
                if !ok {
                    continue;
                }
                let size = set.count_ones() as u8;
                if size < 2 || size > stack_max {
                    r.errors
                        .push(e.error(format!("stack '{item}' must have 2 to {stack_max} men")));
                    continue;
                }
                if seen_sets.insert(set, letter).is_some() {
                    r.errors
                        .push(e.error(format!("stack '{item}' is defined twice")));
                }
            }
        }
        // Every combination of 2..=max stackable men needs a letter.
        let base: Vec<usize> = (0..defs.len())
            .filter(|&i| stack_types & (1u64 << i) != 0)
            .collect();
        let combos = 1u64 << base.len();
        let mut sets: Vec<(u64, char)> = Vec::new();
        for bits in 1..combos {
            let size = bits.count_ones() as u8;
            if size < 2 || size > stack_max {
                continue;
            }
            let set: u64 = base
                .iter()
                .enumerate()
                .filter(|(k, _)| bits & (1u64 << k) != 0)
                .map(|(_, &i)| 1u64 << i)
                .sum();
            match seen_sets.get(&set) {
                Some(&l) => sets.push((set, l)),
                None => {
                    let names: String = base
                        .iter()
                        .filter(|&&i| set & (1u64 << i) != 0)
                        .map(|&i| defs[i].letter)
                        .collect();
                    let msg = format!("stack '{names}' has no letter in stackLetters");
                    match entry {
                        Some(e) => r.errors.push(e.error(msg)),
                        None => r.errors.push(section.error(msg)),
                    }
                }
            }
        }
        sets.sort_by_key(|s| (s.0.count_ones(), s.1));
        for (set, letter) in sets {
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
            pieces.push(PieceInfo {
                letter,
                betza,
                members: set,
                royal: false,
                stackable: true,
                rules: [Vec::new(), Vec::new()],
                dedup: false,
                plain_dedup: false,
                fast: Default::default(),
                plain: false,
                stepper: false,
                parts: Vec::new(),
                reach: Default::default(),
            });
            type_paths.push(paths);
        }
    } else if let Some(e) = r.get("stackLetters")
        && !e.value.is_empty()
        && e.value != "-"
    {
        r.errors
            .push(e.error("stackLetters needs maxStackSize of 2 or more"));
    }
    if pieces.len() > 31 {
        r.errors
            .push(section.error("too many piece and stack types (at most 31)"));
        return Err(r.errors);
    }
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

    // Rules per colour.
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

    // Regions.
    let region = |r: &mut Reader, key: &str, default_rank: usize| -> SquareSet {
        let mut set = SquareSet::default();
        match r.get(key) {
            None => {
                for f in 0..files {
                    set.insert(Square::new(f, default_rank).index());
                }
            }
            Some(e) => {
                for item in e.value.split_whitespace() {
                    if !parse_region_item(item, files, ranks, &mut set) {
                        r.errors.push(e.error(format!("bad region item '{item}'")));
                    }
                }
            }
        }
        set
    };
    let promotion_region = [
        region(&mut r, "promotionRegionWhite", ranks - 1),
        region(&mut r, "promotionRegionBlack", 0),
    ];
    let double_step = r.bool("doubleStep", true);
    let mut initial_region = [
        region(&mut r, "doubleStepRegionWhite", 1),
        region(&mut r, "doubleStepRegionBlack", ranks - 2),
    ];
    if !double_step {
        initial_region = [SquareSet::default(), SquareSet::default()];
    }
    let promotion_pawns = letters(&mut r, "promotionPawnTypes", "p", None);
    let promo_mask = letters(&mut r, "promotionPieceTypes", "nbrq", None);
    let pair_mask = letters(&mut r, "pairPromotionTypes", "-", None);
    let mandatory_promotion = r.bool("mandatoryPawnPromotion", true);
    let types_of = |mask: u64| -> Vec<PieceType> {
        (0..n)
            .filter(|&i| mask & (1u64 << i) != 0)
            .map(|i| PieceType(i as u8))
            .collect()
    };
    if (promo_mask | pair_mask) & (1u64 << king_index) != 0
        && let Some(e) = r.get("promotionPieceTypes").or(r.get("pairPromotionTypes"))
    {
        r.errors.push(e.error("cannot promote to the king"));
    }
    let ep_types = letters(&mut r, "enPassantTypes", "p", None);
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
    // Squares from which a pawn-type man may promote with one move (any
    // square, when a pawn type slides).
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
    // Codes of empty cells (0) and of the other side's men.
    let mut landing = [1u64, 1u64];
    for i in 0..n {
        landing[0] |= 1u64 << (2 + 2 * i + 1);
        landing[1] |= 1u64 << (2 + 2 * i);
    }

    // Start position (validated after the variant is built).
    let start_fen = r
        .get("startFen")
        .map_or(CHESS_START.to_string(), |e| e.value.clone());

    // Castling.
    let castling_enabled = r.bool("castling", true);
    let castling_pieces = letters(&mut r, "castlingRookPieces", "r", Some(non_royal_all));
    let king_file = match r.get("castlingKingFile") {
        Some(e) => match file_value(&e.value) {
            Some(f) if f < files => Some(f),
            _ => {
                r.errors.push(e.error(format!("bad file '{}'", e.value)));
                None
            }
        },
        // A file off the board leaves no castling; the start position is
        // refused later with its own error.
        None => king_file_in_fen(&start_fen, defs[king_index].letter).filter(|&f| f < files),
    };
    let file_key = |r: &mut Reader, key: &str, default: usize| -> usize {
        match r.get(key) {
            None => default,
            Some(e) => match file_value(&e.value) {
                Some(f) if f < files => f,
                _ => {
                    r.errors.push(e.error(format!("bad file '{}'", e.value)));
                    default
                }
            },
        }
    };
    let kingside_file = file_key(&mut r, "castlingKingsideFile", files.saturating_sub(2));
    let queenside_file = file_key(&mut r, "castlingQueensideFile", 2);
    let mut castling = Vec::new();
    let mut castle_mask = vec![0u8; BOARD_CELLS];
    if castling_enabled && let Some(kf) = king_file {
        if let Some(dist) = parsed[king_index].castling {
            let ok = kingside_file.abs_diff(kf) == dist as usize
                && queenside_file.abs_diff(kf) == dist as usize;
            if !ok {
                let e = r.get("king").or(r.get("castlingKingsideFile"));
                let msg = format!(
                    "the king's Betza castles by {dist} squares but the castling files say otherwise"
                );
                match e {
                    Some(e) => r.errors.push(e.error(msg)),
                    None => r.errors.push(section.error(msg)),
                }
            }
        }
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

    let n_move_rule = r.number("nMoveRule", 50, 10_000);
    let n_move_types = letters(&mut r, "nMoveRuleTypes", "p", None);
    let n_fold_rule = r.number("nFoldRule", 3, 100);
    let stalemate_value = match r.get("stalemateValue") {
        None => 0,
        Some(e) => match e.value.as_str() {
            "draw" => 0,
            "win" => 1,
            "loss" => -1,
            v => {
                r.errors
                    .push(e.error(format!("expected win, loss or draw, found '{v}'")));
                0
            }
        },
    };
    let quiet_attackers = letters(&mut r, "quietAttackerTypes", "-", None);
    let all_non_royal: u64 = (0..n)
        .filter(|&i| !pieces[i].royal)
        .map(|i| 1u64 << i)
        .sum();
    let mut solo = letters(&mut r, "matingSoloTypes", "*", Some(all_non_royal));
    // A stack has mating potential alone when any member has.
    for (i, p) in pieces.iter().enumerate() {
        if p.members & solo != 0 {
            solo |= 1u64 << i;
        }
    }
    let mut pair_exceptions = Vec::new();
    if let Some(e) = r.get("matingPairExceptions") {
        for item in e.value.split_whitespace() {
            if item == "-" {
                continue;
            }
            let cs: Vec<char> = item.chars().collect();
            match (
                cs.len(),
                cs.first().and_then(|&c| letter_index(c)),
                cs.get(1).and_then(|&c| letter_index(c)),
            ) {
                (2, Some(a), Some(b)) => {
                    pair_exceptions.push((PieceType(a as u8), PieceType(b as u8)))
                }
                _ => r.errors.push(e.error(format!("bad pair '{item}'"))),
            }
        }
    }
    let color_bound = letters(&mut r, "colorBoundTypes", "-", None);
    let dead = match r.get("deadPosition").map(|e| (e, e.value.as_str())) {
        None | Some((_, "no-mating-potential")) => DeadRule::NoMatingPotential,
        Some((_, "material")) => {
            let mut sets = Vec::new();
            let text = r.get("deadMaterial").map(|e| (e, e.value.clone()));
            let items = text.as_ref().map_or("k:k", |(_, t)| t.as_str());
            for item in items.split_whitespace() {
                // Each side's men, kings included, as letters.
                let side = |men: &str| -> Option<Vec<PieceType>> {
                    let mut types: Vec<PieceType> = men
                        .chars()
                        .map(|c| letter_index(c).map(|i| PieceType(i as u8)))
                        .collect::<Option<_>>()?;
                    types.sort();
                    Some(types)
                };
                match item.split_once(':').map(|(a, b)| (side(a), side(b))) {
                    Some((Some(a), Some(b))) => sets.push((a, b)),
                    _ => {
                        if let Some((e, _)) = text {
                            r.errors.push(e.error(format!("bad material '{item}'")));
                        }
                    }
                }
            }
            DeadRule::Material {
                sets,
                color_bound: r.bool("deadColorBound", false),
            }
        }
        Some((e, v)) => {
            r.errors.push(e.error(format!(
                "expected no-mating-potential or material, found '{v}'"
            )));
            DeadRule::NoMatingPotential
        }
    };
    let xboard = XboardInfo {
        name: r
            .get("xboardName")
            .map_or(name.to_string(), |e| e.value.clone()),
        parent: r
            .get("xboardParent")
            .map_or(String::new(), |e| e.value.clone()),
        piece_table: r
            .get("pieceToCharTable")
            .map_or(String::new(), |e| e.value.clone()),
    };

    let attacks = [
        AttackTable::from_rays(build_rays(
            &pieces,
            Color::White,
            quiet_attackers,
            files.max(ranks),
            false,
        )),
        AttackTable::from_rays(build_rays(
            &pieces,
            Color::Black,
            quiet_attackers,
            files.max(ranks),
            false,
        )),
    ];
    // The same rays without the men that never capture (quietAttackerTypes).
    let capture_attacks = if quiet_attackers == 0 {
        attacks.clone()
    } else {
        [Color::White, Color::Black]
            .map(|c| AttackTable::from_rays(build_rays(&pieces, c, 0, files.max(ranks), false)))
    };
    let ep_rays = [
        build_rays(&pieces, Color::White, 0, files.max(ranks), true),
        build_rays(&pieces, Color::Black, 0, files.max(ranks), true),
    ];

    let mut squares = Vec::new();
    let mut on_board = SquareSet::default();
    for rank in 0..ranks {
        for file in 0..files {
            let s = Square::new(file, rank);
            squares.push(s);
            on_board.insert(s.index());
        }
    }
    let zobrist = make_zobrist(n, name);
    let mut values = vec![0i32; n];
    if let Some(e) = r.get("pieceValues") {
        for item in e.value.split_whitespace() {
            let parsed = item.split_once(':').and_then(|(l, val)| {
                let mut cs = l.chars();
                let (Some(c), None) = (cs.next(), cs.next()) else {
                    return None;
                };
                let t = pieces
                    .iter()
                    .position(|p| p.letter == c.to_ascii_lowercase())?;
                let x = val
                    .parse::<i32>()
                    .ok()
                    .filter(|x| (1..=100_000).contains(x))?;
                Some((t, x))
            });
            match parsed {
                Some((t, x)) => values[t] = x,
                None => r
                    .errors
                    .push(e.error(format!("expected letter:centipawns, found '{item}'"))),
            }
        }
    }

    if !r.errors.is_empty() {
        return Err(r.errors);
    }
    let mut variant = Variant {
        name: name.to_string(),
        files,
        ranks,
        start_fen: start_fen.clone(),
        king: PieceType(king_index as u8),
        stack_max,
        merge,
        remnant,
        promotion_pawns,
        promotion_types: types_of(promo_mask),
        pair_promotion_types: types_of(pair_mask),
        mandatory_promotion,
        promotion_region,
        promotion_near,
        initial_region,
        castling,
        castling_pieces,
        castle_mask,
        n_move_rule,
        n_move_types,
        n_fold_rule,
        stalemate_value,
        quiet_attackers,
        mating: MatingRules {
            solo,
            pair_exceptions,
            color_bound,
        },
        dead,
        xboard,
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
        zobrist,
        squares,
        on_board,
        pieces,
        eval: Default::default(),
    };
    let params = eval_params_file(section)?;
    variant.eval = crate::engine::eval::build_tables(
        &variant,
        &values,
        params
            .as_ref()
            .map(|(text, file)| (text.as_str(), file.as_str())),
    )?;
    // The start position must be a valid position of the variant.
    if let Err(e) =
        crate::rules::board::Position::from_fen(std::sync::Arc::new(variant.clone()), &start_fen)
    {
        let msg = format!("bad start position: {e}");
        return Err(vec![match r.get("startFen") {
            Some(entry) => entry.error(msg),
            None => section.error(msg),
        }]);
    }
    Ok(variant)
}

/// `x` or `x:Betza`; `default_betza` applies to a bare letter.
fn parse_letter_betza(v: &str, default_betza: Option<&str>) -> Option<(char, String)> {
    let (l, b) = match v.split_once(':') {
        Some((l, b)) => (l.trim(), Some(b.trim())),
        None => (v.trim(), None),
    };
    let mut chars = l.chars();
    let (Some(letter), None) = (chars.next(), chars.next()) else {
        return None;
    };
    if !letter.is_ascii_alphabetic() {
        return None;
    }
    let betza = match (b, default_betza) {
        (Some(b), _) => b.to_string(),
        (None, Some(d)) => d.to_string(),
        (None, None) => return None,
    };
    Some((letter.to_ascii_lowercase(), betza))
}

fn parse_region_item(item: &str, files: usize, ranks: usize, set: &mut SquareSet) -> bool {
    let (f, r) = item.split_at(item.chars().next().map_or(0, |c| c.len_utf8()));
    let file = if f == "*" {
        None
    } else {
        match file_value(f) {
            Some(x) if x < files => Some(x),
            _ => return false,
        }
    };
    let rank = if r == "*" {
        None
    } else {
        match r.parse::<usize>() {
            Ok(x) if x >= 1 && x <= ranks => Some(x - 1),
            _ => return false,
        }
    };
    for ff in 0..files {
        for rr in 0..ranks {
            if file.is_none_or(|x| x == ff) && rank.is_none_or(|x| x == rr) {
                set.insert(Square::new(ff, rr).index());
            }
        }
    }
    true
}

/// File of White's king in a FEN's board field (None when a run of empty
/// squares is too long to count).
fn king_file_in_fen(fen: &str, king: char) -> Option<usize> {
    let board = fen.split_whitespace().next()?;
    let first_rank = board.split('/').next_back()?;
    let mut file = 0usize;
    let mut digits = String::new();
    for c in first_rank.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if !digits.is_empty() {
            file = file.checked_add(digits.parse::<usize>().ok()?)?;
            digits.clear();
        }
        if c == king.to_ascii_uppercase() {
            return Some(file);
        }
        file = file.checked_add(1)?;
    }
    None
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

/// The parameter file a section names with `evalParams` (its own entry
/// only: a variant's men differ from its parent's, so its parent's weights
/// would not fit), as its text and its name for errors. A name is looked up
/// beside the ini file, then among the files the binary embeds; the
/// shipped ini uses embedded files only.
fn eval_params_file(section: &Section) -> Result<Option<(String, String)>, Vec<IniError>> {
    let Some(entry) = section.entries.iter().rev().find(|e| e.key == "evalParams") else {
        return Ok(None);
    };
    let name = entry.value.trim();
    let embedded = super::SHIPPED_PARAMS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, text)| (text.to_string(), n.to_string()));
    if entry.file == super::BUILTIN_INI_NAME {
        return embedded
            .map(Some)
            .ok_or_else(|| vec![entry.error(format!("no embedded parameter file '{name}'"))]);
    }
    let path = std::path::Path::new(&entry.file)
        .parent()
        .map_or_else(|| std::path::PathBuf::from(name), |dir| dir.join(name));
    let path = path.to_string_lossy().into_owned();
    match crate::util::textfile::read(&path, crate::util::textfile::MAX_INI_BYTES) {
        Ok(text) => Ok(Some((text, path))),
        Err(e) => embedded
            .map(Some)
            .ok_or_else(|| vec![entry.error(format!("{path}: {e}"))]),
    }
}
