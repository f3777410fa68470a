//! Turning the entries of one ini section into a compiled [`Variant`], in
//! steps: the keys are read and checked into a plain description
//! ([`read`](super::read)), the tables are derived from it
//! ([`derive`](super::derive)), the parameter and network files of the
//! evaluation are read (not parsed: the evaluation does that), and the
//! start position is checked.

use super::ini::{Entry, IniError, Section};
use super::read::Description;
use super::{NetFile, ParamsFile, Variant, derive, read};

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
    variant.nnue = net_file(section)?;
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

/// The parameter file a section names with `evalParams` (its own entry
/// only: a variant's men differ from its parent's, so its parent's weights
/// would not fit), as its text and its name for errors.
fn eval_params_file(section: &Section) -> Result<Option<ParamsFile>, Vec<IniError>> {
    let found = named_file(
        section,
        "evalParams",
        "parameter file",
        super::SHIPPED_PARAMS,
        |path| crate::util::textfile::read(path, crate::util::textfile::MAX_INI_BYTES),
    )?;
    Ok(found.map(|(_, text, name)| ParamsFile { text, name }))
}

/// The network file a section names with `nnue` (its own entry only, as
/// for `evalParams`), as its bytes, its name and the naming entry.
fn net_file(section: &Section) -> Result<Option<NetFile>, Vec<IniError>> {
    let found = named_file(
        section,
        "nnue",
        "network file",
        super::SHIPPED_NETS,
        |path| crate::util::textfile::read_bytes(path, crate::util::textfile::MAX_NET_BYTES),
    )?;
    Ok(found.map(|(entry, bytes, name)| NetFile {
        bytes: std::sync::Arc::from(bytes),
        name,
        ini_file: entry.file.clone(),
        ini_line: entry.line,
    }))
}

/// The file a section's own `key` names: its entry, its contents and its
/// name. A name is looked up beside the ini file, then among the files the
/// binary embeds (`shipped`); the shipped ini uses embedded files only.
fn named_file<'a, T, C>(
    section: &'a Section,
    key: &str,
    what: &str,
    shipped: &[(&str, &'static T)],
    read: impl Fn(&str) -> Result<C, crate::util::textfile::ReadError>,
) -> Result<Option<(&'a Entry, C, String)>, Vec<IniError>>
where
    T: ?Sized,
    C: From<&'static T>,
{
    let Some(entry) = section.entries.iter().rev().find(|e| e.key == key) else {
        return Ok(None);
    };
    let name = entry.value.trim();
    let embedded = shipped
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(n, contents)| (entry, C::from(contents), n.to_string()));
    if entry.file == super::BUILTIN_INI_NAME {
        return embedded
            .map(Some)
            .ok_or_else(|| vec![entry.error(format!("no embedded {what} '{name}'"))]);
    }
    let path = std::path::Path::new(&entry.file)
        .parent()
        .map_or_else(|| std::path::PathBuf::from(name), |dir| dir.join(name));
    let path = path.to_string_lossy().into_owned();
    match read(&path) {
        Ok(contents) => Ok(Some((entry, contents, path))),
        Err(e) => embedded
            .map(Some)
            .ok_or_else(|| vec![entry.error(format!("{path}: {e}"))]),
    }
}
