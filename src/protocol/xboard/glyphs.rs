//! The GUI's glyph slots: which letter of a variant wears which of XBoard's
//! piece glyphs (from the ini's piece table), and the moves XBoard itself
//! gives the slots whose meaning it fixes. The modules that write `setup`
//! lines, move forms and the `split` table all read the table through here.

use crate::rules::variant::Variant;

/// The GUI's own moves for the glyph slots whose meaning it fixes: Pawn,
/// Knight, Bishop, Rook and Queen in the first five slots, the King in the
/// last. A man whose Betza string differs, or who sits in any other slot,
/// gets a `piece` line.
pub const SLOT_MOVES: [&str; 5] = [PAWN_MOVES, "N", "B", "R", "Q"];
pub const KING_MOVES: &str = "K";
/// The GUI's own pawn moves, those of its Pawn slot.
pub const PAWN_MOVES: &str = "fmWfcFifmnD";
/// Slot of the Rook glyph: without it the GUI cannot write castling rights.
const ROOK_SLOT: usize = 3;

/// White's half of the piece table (empty when the variant has none): its
/// first half of characters, since the ini may hold any text there.
pub fn white_half(v: &Variant) -> &str {
    let t = &v.xboard.piece_table;
    let half = t.chars().count() / 2;
    t.char_indices()
        .nth(half)
        .and_then(|(i, _)| t.get(..i))
        .unwrap_or(t)
}

/// The letter in the GUI's Pawn slot (none without a piece table).
pub fn pawn_glyph(v: &Variant) -> Option<char> {
    white_half(v).chars().next().filter(|&c| c != '.')
}

/// Whether men with this letter wear the GUI's Rook glyph.
pub fn wears_rook_glyph(v: &Variant, letter: char) -> bool {
    white_half(v).chars().nth(ROOK_SLOT) == Some(letter.to_ascii_uppercase())
}

/// Whether the piece table leaves the Rook slot unused, so that the GUI
/// cannot write castling rights in its FENs.
pub fn no_rook_glyph(v: &Variant) -> bool {
    white_half(v).chars().nth(ROOK_SLOT) == Some('.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant_set::VariantSet;

    #[test]
    fn team_mate_has_no_rook_glyph_and_no_pawn_slot() {
        let v = VariantSet::builtin().compile("team-mate").expect("variant");
        assert!(no_rook_glyph(&v));
        assert_eq!(pawn_glyph(&v), None);
        let compound = VariantSet::builtin().compile("compound").expect("variant");
        assert!(wears_rook_glyph(&compound, 'r') && !no_rook_glyph(&compound));
    }
}
