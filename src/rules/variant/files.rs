//! The files an ini's keys name (`evalParams`, `nnue`) and where they are
//! found: a name is looked for beside the ini file that gives it, then
//! among the files the binary embeds; the shipped ini names embedded files
//! only.

use super::BUILTIN_INI_NAME;
use super::ini::{Entry, IniError};
use crate::util::textfile::ReadError;

/// The network file a variant's `nnue` names: the name as the ini gives
/// it, and the ini file and line that give it (to look for the file beside
/// that ini, and for errors). The evaluation finds, reads and checks the
/// net ([`locate`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetFileName {
    pub name: String,
    pub ini_file: String,
    pub ini_line: usize,
}

impl NetFileName {
    pub(super) fn from_entry(entry: &Entry) -> NetFileName {
        NetFileName {
            name: entry.value.trim().to_string(),
            ini_file: entry.file.clone(),
            ini_line: entry.line,
        }
    }

    /// An error about the net, at the ini line that names it.
    pub fn error(&self, message: impl std::fmt::Display) -> IniError {
        IniError {
            file: self.ini_file.clone(),
            line: self.ini_line,
            message: format!("nnue: {message}"),
        }
    }
}

/// A file an ini names, found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Located<C> {
    /// Read from this path, beside the ini file.
    File { path: String, contents: C },
    /// The embedded file of this name.
    Embedded { name: &'static str, contents: C },
}

/// Find the file `name` that the ini file `ini_file` names: beside the ini
/// file, read with `read`, else (when nothing is there) the file of that
/// name among `embedded`.
/// `what` names the kind of file in errors; an error is the message for
/// the ini entry that names the file.
pub fn locate<T, C>(
    ini_file: &str,
    name: &str,
    what: &str,
    embedded: &[(&'static str, &'static T)],
    read: impl Fn(&str) -> Result<C, ReadError>,
) -> Result<Located<C>, String>
where
    T: ?Sized,
    C: From<&'static T>,
{
    let name = name.trim();
    let embedded = || {
        embedded
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(name, contents)| Located::Embedded {
                name,
                contents: C::from(contents),
            })
    };
    if ini_file == BUILTIN_INI_NAME {
        return embedded().ok_or_else(|| format!("no embedded {what} '{name}'"));
    }
    let path = std::path::Path::new(ini_file)
        .parent()
        .map_or_else(|| std::path::PathBuf::from(name), |dir| dir.join(name));
    let path = path.to_string_lossy().into_owned();
    // Only a file that is not there gives way to the embedded one: one
    // that is there but cannot be read (a folder, say) is an error, never
    // quietly replaced.
    match read(&path) {
        Ok(contents) => Ok(Located::File { path, contents }),
        Err(e @ ReadError::NotFound(_)) => embedded().ok_or_else(|| format!("{path}: {e}")),
        Err(e) => Err(format!("{path}: {e}")),
    }
}
