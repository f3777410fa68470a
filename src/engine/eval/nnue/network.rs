//! The networks the binary embeds, and the loading of the net a variant's
//! `nnue` names: the file of that name beside the variant's ini file, else
//! the embedded net of that name, checked against the variant's men and
//! board.

use super::features::Layout;
use super::net::Net;
use crate::rules::variant::files::{Located, locate};
use crate::rules::variant::{IniError, NetFileName, Variant};
use crate::util::textfile;
use std::borrow::Cow;
use std::fmt;

/// The nets the binary embeds, by the name an ini's `nnue` gives
/// (`nets/README.md` says how each was made).
pub const EMBEDDED_NETS: &[(&str, &[u8])] = &[
    ("chess.nnue", include_bytes!("../../../../nets/chess.nnue")),
    (
        "combination.nnue",
        include_bytes!("../../../../nets/combination.nnue"),
    ),
    (
        "compound.nnue",
        include_bytes!("../../../../nets/compound.nnue"),
    ),
    (
        "team-mate.nnue",
        include_bytes!("../../../../nets/team-mate.nnue"),
    ),
];

/// Where a variant's net was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetOrigin {
    /// The embedded net of this name.
    Embedded(&'static str),
    /// The file at this path, beside the variant's ini file.
    File(String),
}

impl fmt::Display for NetOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, name) = match self {
            NetOrigin::Embedded(name) => ("embedded network", *name),
            NetOrigin::File(path) => ("network file", path.as_str()),
        };
        write!(f, "{kind} {name}")
    }
}

/// The net the variant's `nnue` names (none when it names none), checked
/// against its men and board, and where it was read from. An error names
/// the net's file and the ini line that names it.
pub fn load(v: &Variant) -> Result<Option<(Net, NetOrigin)>, IniError> {
    let Some(file) = &v.nnue else {
        return Ok(None);
    };
    load_named(file, Layout::new(v)).map(Some)
}

fn load_named(file: &NetFileName, layout: Layout) -> Result<(Net, NetOrigin), IniError> {
    let read = |path: &str| textfile::read_bytes(path, textfile::MAX_NET_BYTES).map(Cow::Owned);
    let found = locate(
        &file.ini_file,
        &file.name,
        "network file",
        EMBEDDED_NETS,
        read,
    )
    .map_err(|e| file.error(e))?;
    let (bytes, origin) = match found {
        Located::File { path, contents } => (contents, NetOrigin::File(path)),
        Located::Embedded { name, contents } => (contents, NetOrigin::Embedded(name)),
    };
    let name = match &origin {
        NetOrigin::Embedded(name) => name.to_string(),
        NetOrigin::File(path) => path.clone(),
    };
    match Net::from_bytes(layout, &bytes, &name) {
        Ok(net) => Ok((net, origin)),
        Err(e) => Err(file.error(format!("{name}: {e}"))),
    }
}
