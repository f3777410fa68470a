//! Piece pictures for XBoard's `-pieceImageDirectory`: one SVG file per
//! colour and glyph slot of a variant's piece table, named as XBoard looks
//! them up (`WhiteKnight.svg`, `BlackCrownedBishop.svg`, ...: the slot's
//! name, whatever man the table puts in it). Each man is drawn as itself:
//! the orthodox men (by their moves) and the pawn type as chess symbols,
//! other men as a disc with their letter, and a stack as its members side by
//! side, so that a player sees what a stack holds.

use crate::rules::types::PieceType;
use crate::rules::variant::Variant;

/// XBoard 4.9's names of its glyph slots, in the order of its piece types
/// (the order of the piece table); the table's last character is the King.
const SLOT_NAMES: [&str; 66] = [
    "Pawn",
    "Knight",
    "Bishop",
    "Rook",
    "Queen",
    "Advisor",
    "Elephant",
    "Archbishop",
    "Marshall",
    "Gold",
    "Commoner",
    "Canon",
    "Nightrider",
    "CrownedBishop",
    "CrownedRook",
    "Crown",
    "Chancellor",
    "Hawk",
    "Lance",
    "Cobra",
    "Unicorn",
    "Lion",
    "Sword",
    "Zebra",
    "Camel",
    "Tower",
    "Wolf",
    "Hat",
    "Duck",
    "Lance",
    "Dragon",
    "Gnu",
    "Cub",
    "LShield",
    "Pegasus",
    "Wizard",
    "Copper",
    "Iron",
    "Viking",
    "Flag",
    "Axe",
    "Dolphin",
    "Leopard",
    "Claw",
    "Left",
    "Butterfly",
    "PromoBishop",
    "PromoRook",
    "HCrown",
    "RShield",
    "Prince",
    "Phoenix",
    "Kylin",
    "Drunk",
    "Right",
    "GoldPawn",
    "GoldKnight",
    "PromoHorse",
    "PromoDragon",
    "GoldLance",
    "GoldSilver",
    "HSword",
    "PromoSword",
    "PromoHSword",
    "Princess",
    "King",
];

/// Slots that a parent variant draws with another slot's picture file
/// (XBoard's `SelectPieces`, draw.c): S-Chess draws the Archbishop slot with
/// the Hawk's file and the Marshall slot with the Elephant's.
const BORROWED: [(&str, usize, usize); 2] = [("seirawan", 7, 17), ("seirawan", 8, 6)];

/// How one man is drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Glyph {
    /// A chess symbol (the filled form; the colour comes from the fill).
    Symbol(char),
    /// A disc with the man's letter.
    Letter(char),
}

fn glyph(v: &Variant, t: PieceType) -> Glyph {
    let p = v.piece(t);
    let symbol = if p.royal {
        Some('\u{265A}')
    } else if v.promotion_pawns & t.bit() != 0 {
        Some('\u{265F}')
    } else {
        match p.betza.as_str() {
            "N" => Some('\u{265E}'),
            "B" => Some('\u{265D}'),
            "R" => Some('\u{265C}'),
            "Q" => Some('\u{265B}'),
            _ => None,
        }
    };
    symbol.map_or(Glyph::Letter(p.letter.to_ascii_uppercase()), Glyph::Symbol)
}

/// The men a man or stack is drawn as: its members, or itself.
fn members(v: &Variant, t: PieceType) -> Vec<PieceType> {
    let p = v.piece(t);
    let parts: Vec<PieceType> = (0..v.pieces.len())
        .map(|i| PieceType(i as u8))
        .filter(|&m| {
            let q = v.piece(m);
            q.members.count_ones() == 1 && p.members & q.members != 0
        })
        .collect();
    if parts.len() > 1 { parts } else { vec![t] }
}

/// SVG of one glyph in a 100x100 box, at `(x, y)` (its centre) and `scale`.
fn draw(g: &Glyph, white: bool, x: f64, y: f64, scale: f64) -> String {
    let (fill, line) = if white {
        ("#ffffff", "#000000")
    } else {
        ("#000000", "#ffffff")
    };
    let body = match g {
        Glyph::Symbol(c) => format!(
            "<text x=\"0\" y=\"32\" font-size=\"90\" text-anchor=\"middle\" \
             font-family=\"DejaVu Sans\" fill=\"{fill}\" stroke=\"#000000\" \
             stroke-width=\"2.5\">{c}</text>"
        ),
        Glyph::Letter(c) => format!(
            "<circle cx=\"0\" cy=\"0\" r=\"40\" fill=\"{fill}\" stroke=\"#000000\" \
             stroke-width=\"4\"/><text x=\"0\" y=\"19\" font-size=\"54\" \
             font-weight=\"bold\" text-anchor=\"middle\" font-family=\"DejaVu Sans\" \
             fill=\"{line}\">{c}</text>"
        ),
    };
    format!("<g transform=\"translate({x} {y}) scale({scale})\">{body}</g>")
}

/// The SVG picture of a man or stack.
pub fn picture(v: &Variant, t: PieceType, white: bool) -> String {
    let parts = members(v, t);
    // Centres and scale of 1, 2 or 3 members (more: in a row).
    let spots: Vec<(f64, f64)> = match parts.len() {
        1 => vec![(50.0, 50.0)],
        2 => vec![(28.0, 50.0), (72.0, 50.0)],
        3 => vec![(28.0, 30.0), (72.0, 30.0), (50.0, 72.0)],
        n => (0..n)
            .map(|i| (100.0 * (i as f64 + 0.5) / n as f64, 50.0))
            .collect(),
    };
    let scale = match parts.len() {
        1 => 1.0,
        2 | 3 => 0.55,
        n => 1.0 / n as f64,
    };
    let body: String = parts
        .iter()
        .zip(&spots)
        .map(|(&m, &(x, y))| draw(&glyph(v, m), white, x, y, scale))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\" \
         viewBox=\"0 0 100 100\">{body}</svg>\n"
    )
}

/// Every picture the variant's piece table needs: (file name, SVG). Empty
/// for a variant without a piece table (the GUI draws it with its own men).
pub fn pictures(v: &Variant) -> Vec<(String, String)> {
    let table: Vec<char> = v.xboard.piece_table.chars().collect();
    let white = &table[..table.len() / 2];
    let mut out = Vec::new();
    for (slot, &c) in white.iter().enumerate() {
        if c == '.' {
            continue;
        }
        let drawn_from = BORROWED
            .iter()
            .find(|b| b.0 == v.xboard.parent && b.1 == slot)
            .map_or(slot, |b| b.2);
        let name = if slot + 1 == white.len() {
            "King"
        } else {
            match SLOT_NAMES.get(drawn_from) {
                Some(n) => n,
                None => continue,
            }
        };
        if out
            .iter()
            .any(|(f, _): &(String, String)| f == &format!("White{name}.svg"))
        {
            // Two slots drawn from one file: the GUI cannot tell them apart.
            continue;
        }
        let Some(t) = v
            .pieces
            .iter()
            .position(|p| p.letter == c.to_ascii_lowercase())
        else {
            continue;
        };
        for (colour, is_white) in [("White", true), ("Black", false)] {
            out.push((
                format!("{colour}{name}.svg"),
                picture(v, PieceType(t as u8), is_white),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant_set::VariantSet;

    fn variant(name: &str) -> std::sync::Arc<Variant> {
        VariantSet::builtin().compile(name).expect("variant")
    }

    #[test]
    fn every_glyph_of_a_table_gets_both_colours() {
        for name in ["combination", "team-mate", "compound"] {
            let v = variant(name);
            let glyphs = v.xboard.piece_table.chars().filter(|&c| c != '.').count();
            assert_eq!(pictures(&v).len(), glyphs, "{name}");
        }
    }

    #[test]
    fn a_stack_is_drawn_as_its_members() {
        let v = variant("combination");
        let all = pictures(&v);
        let find = |file: &str| {
            all.iter()
                .find(|(f, _)| f == file)
                .map(|(_, svg)| svg.clone())
                .unwrap_or_else(|| panic!("{file}"))
        };
        // `A` (knight and bishop) sits in the Archbishop slot, which the
        // parent `seirawan` draws from the Hawk's file: a knight and a
        // bishop symbol.
        let a = find("WhiteHawk.svg");
        assert!(a.contains('\u{265E}') && a.contains('\u{265D}'), "{a}");
        // `E` (bishop and rook) is no queen: a bishop and a rook.
        let e = find("WhiteCrown.svg");
        assert!(e.contains('\u{265D}') && e.contains('\u{265C}'), "{e}");
        assert!(!e.contains('\u{265B}'), "{e}");
        // Three members: three glyphs.
        let w = find("BlackWizard.svg");
        assert_eq!(w.matches("<g ").count(), 3, "{w}");
    }

    #[test]
    fn team_mate_men_are_themselves_and_its_pawn_a_pawn() {
        let v = variant("team-mate");
        let all = pictures(&v);
        let pawn = all
            .iter()
            .find(|(f, _)| f == "WhiteLance.svg")
            .expect("pawn slot");
        assert!(pawn.1.contains('\u{265F}'), "{}", pawn.1);
        // The Brute is no bishop, though its letter is `b`.
        let brute = all
            .iter()
            .find(|(f, _)| f == "WhiteWolf.svg")
            .expect("brute");
        assert!(brute.1.contains(">B</text>"), "{}", brute.1);
    }
}
