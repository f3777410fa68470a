//! Reading a section's keys into a plain [`Description`]: each key parsed
//! and checked, every error collected with its line, and nothing derived
//! yet (the tables are derived from the description in `derive`).

use super::betza;
use super::ini::{Entry, IniError, Section};
use super::keys::KEYS;
use super::{DeadRule, SquareSet, XboardInfo};
use crate::rules::types::{MAX_FILES, MAX_RANKS, PieceType, Square};
use std::collections::HashMap;

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

/// A man the section defines: a built-in (unless removed) or a custom
/// piece.
pub(super) struct Def<'a> {
    pub(super) letter: char,
    pub(super) betza: String,
    pub(super) royal: bool,
    entry: Option<&'a Entry>,
}

/// Stacking: which men stack, how many at most, and the letter of each
/// set of men that may stand together (by size, then letter).
pub(super) struct Stacks {
    pub(super) types: u64,
    pub(super) max: u8,
    pub(super) sets: Vec<(u64, char)>,
}

/// Promotion and the initial double step.
pub(super) struct Promotion {
    pub(super) region: [SquareSet; 2],
    pub(super) initial_region: [SquareSet; 2],
    pub(super) pawns: u64,
    pub(super) types: u64,
    pub(super) pair_types: u64,
    pub(super) mandatory: bool,
    pub(super) ep_types: u64,
}

/// Castling: whether it is played, which corner men castle, the king's
/// start file (none: no castling) and the king's two destination files.
pub(super) struct Castling {
    pub(super) enabled: bool,
    pub(super) pieces: u64,
    pub(super) king_file: Option<usize>,
    pub(super) kingside_file: usize,
    pub(super) queenside_file: usize,
}

/// The end of the game: move and repetition rules, stalemate, mating
/// potential and dead positions.
pub(super) struct GameEnd {
    pub(super) n_move_rule: u32,
    pub(super) n_move_types: u64,
    pub(super) n_fold_rule: u32,
    pub(super) stalemate_value: i8,
    pub(super) quiet_attackers: u64,
    /// The men with mating potential alone, as the key lists them (stacks
    /// are added when the tables are derived).
    pub(super) solo: u64,
    pub(super) pair_exceptions: Vec<(PieceType, PieceType)>,
    pub(super) color_bound: u64,
    pub(super) dead: DeadRule,
}

/// Everything a section says, read and checked. Type masks and indices
/// number the defined men first, then the stacks in the order of
/// [`Stacks::sets`].
pub(super) struct Description<'a> {
    pub(super) files: usize,
    pub(super) ranks: usize,
    pub(super) defs: Vec<Def<'a>>,
    pub(super) king_index: usize,
    pub(super) parsed: Vec<betza::BetzaPiece>,
    pub(super) stacks: Stacks,
    pub(super) promotion: Promotion,
    pub(super) start_fen: String,
    pub(super) start_fen_entry: Option<&'a Entry>,
    pub(super) castling: Castling,
    pub(super) game_end: GameEnd,
    pub(super) xboard: XboardInfo,
    /// Piece values (centipawns) given by `pieceValues`, 0 where none.
    pub(super) values: Vec<i32>,
}

/// Read every key of a section; the errors, when there are any.
pub(super) fn read_section<'a>(
    name: &str,
    section: &Section,
    entries: &'a [Entry],
) -> Result<Description<'a>, Vec<IniError>> {
    let mut r = known_keys(entries);
    let (files, ranks) = board_size(&mut r);
    let Some((defs, king_index)) = men(&mut r, section) else {
        return Err(r.errors);
    };
    let parsed = betza_pieces(&mut r, section, &defs);
    let Some(stacks) = stacks(&mut r, section, &defs, king_index) else {
        return Err(r.errors);
    };
    let promotion = promotion(&mut r, files, ranks, &defs, king_index);
    // The start position is validated after the variant is built.
    let start_fen_entry = r.get("startFen");
    let start_fen = start_fen_entry.map_or(CHESS_START.to_string(), |e| e.value.clone());
    let castling = castling(
        &mut r, section, files, &defs, king_index, &parsed, &start_fen,
    );
    let n = defs.len() + stacks.sets.len();
    let game_end = game_end(&mut r, &defs, n);
    let xboard = xboard(&r, name);
    let values = piece_values(&mut r, &defs, &stacks);
    if !r.errors.is_empty() {
        return Err(r.errors);
    }
    Ok(Description {
        files,
        ranks,
        defs,
        king_index,
        parsed,
        stacks,
        promotion,
        start_fen,
        start_fen_entry,
        castling,
        game_end,
        xboard,
        values,
    })
}

/// The entries of known keys, by key; an error for each unknown one.
fn known_keys(entries: &[Entry]) -> Reader<'_> {
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
    Reader { map, errors }
}

/// `maxFile` and `maxRank`: the board's files and ranks.
fn board_size(r: &mut Reader) -> (usize, usize) {
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
    (files, ranks)
}

/// The men: the built-ins, then custom pieces in number order, with
/// their letters unique; with the index of the king (None, the error
/// recorded, when there is none).
fn men<'a>(r: &mut Reader<'a>, section: &Section) -> Option<(Vec<Def<'a>>, usize)> {
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
        return None;
    };
    Some((defs, king_index))
}

/// Each man's Betza, parsed (an empty piece where it fails, the error
/// recorded).
fn betza_pieces(r: &mut Reader, section: &Section, defs: &[Def]) -> Vec<betza::BetzaPiece> {
    let mut parsed: Vec<betza::BetzaPiece> = Vec::new();
    for d in defs {
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
    parsed
}

/// The index of the man with this letter (either case).
fn letter_index(defs: &[Def], c: char) -> Option<usize> {
    defs.iter().position(|d| d.letter == c.to_ascii_lowercase())
}

/// A list of piece letters as a type mask; `*` stands for `star`, where
/// given.
fn letters(r: &mut Reader, defs: &[Def], key: &str, default: &str, star: Option<u64>) -> u64 {
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
        match letter_index(defs, c) {
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
}

/// Stacking: `stackTypes`, `maxStackSize` and a letter for every set of
/// stackable men (None, the error recorded, when there are more than 31
/// men and stacks).
fn stacks(r: &mut Reader, section: &Section, defs: &[Def], king_index: usize) -> Option<Stacks> {
    let stack_types = letters(r, defs, "stackTypes", "-", None);
    let stack_max = r.number("maxStackSize", 1, 3) as u8;
    if stack_types & (1u64 << king_index) != 0
        && let Some(e) = r.get("stackTypes")
    {
        r.errors.push(e.error("the king cannot stack"));
    }
    let mut sets: Vec<(u64, char)> = Vec::new();
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
                    || letter_index(defs, letter).is_some()
                    || seen_sets.values().any(|&c| c == letter)
                {
                    r.errors
                        .push(e.error(format!("stack letter '{letter}' is not free")));
                    continue;
                }
                let mut set = 0u64;
                let mut ok = true;
                for c in m.chars() {
                    match letter_index(defs, c) {
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
    } else if let Some(e) = r.get("stackLetters")
        && !e.value.is_empty()
        && e.value != "-"
    {
        r.errors
            .push(e.error("stackLetters needs maxStackSize of 2 or more"));
    }
    if defs.len() + sets.len() > 31 {
        r.errors
            .push(section.error("too many piece and stack types (at most 31)"));
        return None;
    }
    Some(Stacks {
        types: stack_types,
        max: stack_max,
        sets,
    })
}

/// Promotion and the initial double step: regions, the men that promote
/// and into what, and the men that capture en passant.
fn promotion(
    r: &mut Reader,
    files: usize,
    ranks: usize,
    defs: &[Def],
    king_index: usize,
) -> Promotion {
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
        region(r, "promotionRegionWhite", ranks - 1),
        region(r, "promotionRegionBlack", 0),
    ];
    let double_step = r.bool("doubleStep", true);
    let mut initial_region = [
        region(r, "doubleStepRegionWhite", 1),
        region(r, "doubleStepRegionBlack", ranks - 2),
    ];
    if !double_step {
        initial_region = [SquareSet::default(), SquareSet::default()];
    }
    let promotion_pawns = letters(r, defs, "promotionPawnTypes", "p", None);
    let promo_mask = letters(r, defs, "promotionPieceTypes", "nbrq", None);
    let pair_mask = letters(r, defs, "pairPromotionTypes", "-", None);
    let mandatory_promotion = r.bool("mandatoryPawnPromotion", true);
    if (promo_mask | pair_mask) & (1u64 << king_index) != 0
        && let Some(e) = r.get("promotionPieceTypes").or(r.get("pairPromotionTypes"))
    {
        r.errors.push(e.error("cannot promote to the king"));
    }
    let ep_types = letters(r, defs, "enPassantTypes", "p", None);
    Promotion {
        region: promotion_region,
        initial_region,
        pawns: promotion_pawns,
        types: promo_mask,
        pair_types: pair_mask,
        mandatory: mandatory_promotion,
        ep_types,
    }
}

/// Castling: the keys, and the king's Betza against the castling files.
fn castling(
    r: &mut Reader,
    section: &Section,
    files: usize,
    defs: &[Def],
    king_index: usize,
    parsed: &[betza::BetzaPiece],
    start_fen: &str,
) -> Castling {
    let non_royal_all: u64 = (0..defs.len())
        .filter(|&i| !defs[i].royal)
        .map(|i| 1u64 << i)
        .sum();
    let castling_enabled = r.bool("castling", true);
    let castling_pieces = letters(r, defs, "castlingRookPieces", "r", Some(non_royal_all));
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
        None => king_file_in_fen(start_fen, defs[king_index].letter).filter(|&f| f < files),
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
    let kingside_file = file_key(r, "castlingKingsideFile", files.saturating_sub(2));
    let queenside_file = file_key(r, "castlingQueensideFile", 2);
    if castling_enabled
        && let Some(kf) = king_file
        && let Some(dist) = parsed[king_index].castling
    {
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
    Castling {
        enabled: castling_enabled,
        pieces: castling_pieces,
        king_file,
        kingside_file,
        queenside_file,
    }
}

/// The end of the game: the move and repetition rules, stalemate, mating
/// potential and dead positions; `n` counts the men and stacks.
fn game_end(r: &mut Reader, defs: &[Def], n: usize) -> GameEnd {
    let n_move_rule = r.number("nMoveRule", 50, 10_000);
    let n_move_types = letters(r, defs, "nMoveRuleTypes", "p", None);
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
    let quiet_attackers = letters(r, defs, "quietAttackerTypes", "-", None);
    // Stacks are never royal.
    let all_non_royal: u64 = (0..n)
        .filter(|&i| i >= defs.len() || !defs[i].royal)
        .map(|i| 1u64 << i)
        .sum();
    let solo = letters(r, defs, "matingSoloTypes", "*", Some(all_non_royal));
    let mut pair_exceptions = Vec::new();
    if let Some(e) = r.get("matingPairExceptions") {
        for item in e.value.split_whitespace() {
            if item == "-" {
                continue;
            }
            let cs: Vec<char> = item.chars().collect();
            match (
                cs.len(),
                cs.first().and_then(|&c| letter_index(defs, c)),
                cs.get(1).and_then(|&c| letter_index(defs, c)),
            ) {
                (2, Some(a), Some(b)) => {
                    pair_exceptions.push((PieceType(a as u8), PieceType(b as u8)))
                }
                _ => r.errors.push(e.error(format!("bad pair '{item}'"))),
            }
        }
    }
    let color_bound = letters(r, defs, "colorBoundTypes", "-", None);
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
                        .map(|c| letter_index(defs, c).map(|i| PieceType(i as u8)))
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
    GameEnd {
        n_move_rule,
        n_move_types,
        n_fold_rule,
        stalemate_value,
        quiet_attackers,
        solo,
        pair_exceptions,
        color_bound,
        dead,
    }
}

/// The names and piece table XBoard uses.
fn xboard(r: &Reader, name: &str) -> XboardInfo {
    XboardInfo {
        name: r
            .get("xboardName")
            .map_or(name.to_string(), |e| e.value.clone()),
        parent: r
            .get("xboardParent")
            .map_or(String::new(), |e| e.value.clone()),
        piece_table: r
            .get("pieceToCharTable")
            .map_or(String::new(), |e| e.value.clone()),
    }
}

/// `pieceValues`: a value for some men and stacks, by letter.
fn piece_values(r: &mut Reader, defs: &[Def], stacks: &Stacks) -> Vec<i32> {
    let men = defs
        .iter()
        .map(|d| d.letter)
        .chain(stacks.sets.iter().map(|&(_, l)| l));
    let n = defs.len() + stacks.sets.len();
    let mut values = vec![0i32; n];
    if let Some(e) = r.get("pieceValues") {
        for item in e.value.split_whitespace() {
            // A letter of no man here (one a parent had, say) is told apart
            // from a malformed item.
            let parsed = item
                .split_once(':')
                .and_then(|(l, val)| {
                    let mut cs = l.chars();
                    let (Some(c), None) = (cs.next(), cs.next()) else {
                        return None;
                    };
                    let x = val
                        .parse::<i32>()
                        .ok()
                        .filter(|x| (1..=100_000).contains(x))?;
                    Some((c, x))
                })
                .map(|(c, x)| {
                    let man = men
                        .clone()
                        .position(|letter| letter == c.to_ascii_lowercase());
                    man.map(|t| (t, x)).ok_or(c)
                });
            match parsed {
                Some(Ok((t, x))) => values[t] = x,
                Some(Err(c)) => r.errors.push(e.error(format!(
                    "'{c}' is not a piece of this variant (in '{item}')"
                ))),
                None => r
                    .errors
                    .push(e.error(format!("expected letter:centipawns, found '{item}'"))),
            }
        }
    }
    values
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
