//! The nets of the loop and how an engine is given one: a variant file
//! that defines the variant again, whole (its entries resolved through its
//! parents), with `nnue` naming the net. A later file's section replaces
//! the earlier one of the same name, so the engine loading it plays the
//! same rules with that net; the file names the net by a name beside it.
//! Files are written whole or not at all (a temporary file renamed).

use crate::rules::variant::BUILTIN_INI_NAME;
use crate::rules::variant::ini::Entry;
use crate::rules::variant_set::VariantSet;
use std::io::Write;
use std::path::Path;

/// The keys that are not inherited: a section's own, not its parents'.
const OWN_KEYS: [&str; 2] = ["evalParams", "nnue"];

/// Write `bytes` to `path` whole: into a hidden file beside it, synced,
/// then renamed over it. A stop at any point leaves the old file or the
/// new one, never a mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("no file name"))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(".tmp");
    let temp = path.with_file_name(temp_name);
    let written = std::fs::File::create(&temp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&temp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// Make `candidate` the best net at `best`, atomically.
pub fn promote(candidate: &Path, best: &Path) -> std::io::Result<()> {
    let bytes = std::fs::read(candidate)?;
    write_atomic(best, &bytes)
}

/// The evaluation an engine of the loop plays with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation<'a> {
    /// The hand-written evaluation (no net).
    HandWritten,
    /// The net the variant's own section names, if any.
    Own,
    /// This net file, named beside the variant file.
    Net(&'a str),
}

/// The value of the file key `e` for a variant file written elsewhere: the
/// full path of the file beside the ini that named it, else the name as
/// given (an embedded file).
fn file_value(e: &Entry) -> String {
    Path::new(&e.file)
        .parent()
        .map(|dir| dir.join(e.value.trim()))
        .filter(|p| e.file != BUILTIN_INI_NAME && p.is_file())
        .and_then(|p| std::fs::canonicalize(p).ok())
        .map_or_else(|| e.value.trim().to_string(), |p| p.display().to_string())
}

/// The text of a variant file that defines `variant` of `set` again, whole
/// (no parent), with the evaluation `eval`; the own `evalParams` is kept.
pub fn variant_file(set: &VariantSet, variant: &str, eval: Evaluation) -> Result<String, String> {
    let def = set
        .definition(variant)
        .ok_or_else(|| format!("unknown variant '{variant}'"))?
        .map_err(|e| e.to_string())?;
    let mut text = format!(
        "# {variant} as it is defined, with the evaluation of amalgam learn\n[{variant}]\n"
    );
    let (all, own) = (&def.all, def.own);
    for e in all.iter().filter(|e| !OWN_KEYS.contains(&e.key.as_str())) {
        text.push_str(&format!("{} = {}\n", e.key, e.value));
    }
    let own_value = |key: &str| own.iter().rev().find(|e| e.key == key).map(file_value);
    if let Some(params) = own_value("evalParams") {
        text.push_str(&format!("evalParams = {params}\n"));
    }
    let net = match eval {
        Evaluation::HandWritten => None,
        Evaluation::Own => own_value("nnue"),
        Evaluation::Net(name) => Some(name.to_string()),
    };
    if let Some(net) = net {
        text.push_str(&format!("nnue = {net}\n"));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_promotion_replaces_the_best_net_whole_or_not_at_all() {
        let dir = crate::tools::learn::scratch_dir("nets");
        let (candidate, best) = (dir.join("candidate.nnue"), dir.join("best.nnue"));
        std::fs::write(&best, b"old").expect("write");
        // No candidate: the best net stays, and nothing is left beside it.
        assert!(promote(&candidate, &best).is_err());
        assert_eq!(std::fs::read(&best).expect("best"), b"old");
        std::fs::write(&candidate, b"new").expect("write");
        promote(&candidate, &best).expect("promote");
        assert_eq!(std::fs::read(&best).expect("best"), b"new");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // A folder where the temporary file would go: the write fails and
        // the best net stays.
        std::fs::create_dir(dir.join(".best.nnue.tmp")).expect("dir");
        std::fs::write(&candidate, b"newer").expect("write");
        assert!(promote(&candidate, &best).is_err());
        assert_eq!(std::fs::read(&best).expect("best"), b"new");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_variant_file_defines_the_variant_again_with_the_net() {
        let mut set = VariantSet::builtin();
        set.load_str(
            "[base]\nmaxFile = f\nmaxRank = 6\npawn = -\nknight = -\nbishop = -\nrook = -\n\
             queen = -\ncastling = false\nstartFen = 6/6/6/6/6/K4k w - - 0 1\nnnue = x.nnue\n\
             [mini:base]\ncustomPiece1 = z:Z\nstartFen = z4k/6/6/6/6/K4Z w - - 0 1\n",
            "/nowhere/u.ini",
        );
        let text = variant_file(&set, "mini", Evaluation::Net("best.nnue")).expect("text");
        assert!(
            text.contains("\n[mini]\n") && text.ends_with("nnue = best.nnue\n"),
            "{text}"
        );
        // Inherited keys are there, the later value winning, and the
        // parent's own net is not.
        assert!(
            text.contains("maxFile = f\n") && !text.contains("x.nnue"),
            "{text}"
        );
        let mut again = VariantSet::builtin();
        again.load_str(&text, "/nowhere/best.ini");
        let (a, b) = (set.compile("mini"), again.compile("mini"));
        let (a, b) = (a.expect("mini"), b.expect("again"));
        assert_eq!(
            (a.files, a.ranks, &a.start_fen),
            (b.files, b.ranks, &b.start_fen)
        );
        assert_eq!(b.nnue.as_ref().map(|n| n.name.as_str()), Some("best.nnue"));
        // Without a net, the variant has none (the chess net is the parent's
        // own, not inherited).
        let none = variant_file(&set, "chess", Evaluation::HandWritten).expect("text");
        assert!(!none.contains("nnue"), "{none}");
        let own = variant_file(&set, "chess", Evaluation::Own).expect("text");
        assert!(own.ends_with("nnue = chess.nnue\n"), "{own}");
        assert!(variant_file(&set, "nothing", Evaluation::Own).is_err());
    }
}
