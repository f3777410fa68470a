//! Turning the entries of one ini section into a compiled [`Variant`], in
//! steps: the keys are read and checked into a plain description
//! ([`read`](super::read)), the tables are derived from it
//! ([`derive`](super::derive)), the evaluation's parameter file is read
//! (not parsed: the evaluation does that) and its network file named, and
//! the start position is checked.

use super::files::{self, Located, NetFileName};
use super::ini::{Entry, IniError, Section};
use super::read::Description;
use super::{ParamsFile, Variant, derive, read};

/// Compile a section (its entries with those it inherits).
/// `start_error` says why the start position is not valid, if it is not:
/// positions are set up above the variants (the board and the move
/// generator read the compiled variant), so the set of variants passes the
/// check in.
pub fn compile(
    name: &str,
    section: &Section,
    entries: &[Entry],
    start_error: &dyn Fn(&Variant) -> Option<String>,
) -> Result<Variant, Vec<IniError>> {
    let d = read::read_section(name, section, entries)?;
    let mut variant = derive::variant(name, &d);
    variant.eval_params = eval_params_file(section)?;
    variant.nnue = own_entry(section, "nnue").map(NetFileName::from_entry);
    check_start_position(&variant, &d, section, start_error)?;
    Ok(variant)
}

/// The start position must be a valid position of the variant.
fn check_start_position(
    variant: &Variant,
    d: &Description,
    section: &Section,
    start_error: &dyn Fn(&Variant) -> Option<String>,
) -> Result<(), Vec<IniError>> {
    if let Some(e) = start_error(variant) {
        let msg = format!("bad start position: {e}");
        return Err(vec![match d.start_fen_entry {
            Some(entry) => entry.error(msg),
            None => section.error(msg),
        }]);
    }
    Ok(())
}

/// The entry of a section's own `key` (not one it inherits: a variant's
/// men differ from its parent's, so its parent's weights or net would not
/// fit).
fn own_entry<'a>(section: &'a Section, key: &str) -> Option<&'a Entry> {
    section.entries.iter().rev().find(|e| e.key == key)
}

/// The parameter file a section names with `evalParams`, as its text and
/// its name for errors.
fn eval_params_file(section: &Section) -> Result<Option<ParamsFile>, Vec<IniError>> {
    let Some(entry) = own_entry(section, "evalParams") else {
        return Ok(None);
    };
    let found = files::locate(
        &entry.file,
        &entry.value,
        "parameter file",
        super::SHIPPED_PARAMS,
        |path| crate::util::textfile::read(path, crate::util::textfile::MAX_INI_BYTES),
    )
    .map_err(|e| vec![entry.error(e)])?;
    Ok(Some(match found {
        Located::File { path, contents } => ParamsFile {
            text: contents,
            name: path,
        },
        Located::Embedded { name, contents } => ParamsFile {
            text: contents,
            name: name.to_string(),
        },
    }))
}
