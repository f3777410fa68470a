//! Reading the files a user names (variant files, nets, PGN, EPD,
//! openings, training data): only regular files, so that a folder, a named
//! pipe or a device (which could block forever or never end) is refused
//! before it is opened, and with a size limit, so that a huge file (a wrong
//! path to a disk image) is refused after reading just past the limit
//! instead of exhausting memory.

use std::io::Read;

/// The largest variant (ini) file read: the shipped `variants.ini` is about
/// 10 KB.
pub const MAX_INI_BYTES: u64 = 1 << 20;

/// The largest data file read (PGN, EPD, openings): a PGN of 10,000 games
/// is about 20 MB.
pub const MAX_DATA_BYTES: u64 = 256 << 20;

/// The largest training data file read (`tune`): a million positions of
/// `datagen` are about 80 MB.
pub const MAX_TRAINING_BYTES: u64 = 1 << 30;

/// Why a file was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// Nothing is there (the system's message).
    NotFound(String),
    /// It is there but is no regular file: a folder, a named pipe, a
    /// device or a socket (what it is).
    NotAFile(&'static str),
    /// It cannot be opened or read (the system's message).
    Io(String),
    /// It is larger than the limit, in bytes.
    TooLarge(u64),
    /// It is not UTF-8 text.
    NotText,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotFound(e) | ReadError::Io(e) => write!(f, "cannot read file: {e}"),
            ReadError::NotAFile(kind) => write!(f, "not a regular file ({kind})"),
            ReadError::TooLarge(max) => write!(f, "file larger than {max} bytes"),
            ReadError::NotText => write!(f, "file is not UTF-8 text"),
        }
    }
}

/// The largest network file read (a variant's `nnue`): a net of 4096
/// hidden units over the largest board and sixty-four kinds of men is about
/// 126 MB.
pub const MAX_NET_BYTES: u64 = 256 << 20;

/// The whole text of `path`, if it has at most `max` bytes.
pub fn read(path: &str, max: u64) -> Result<String, ReadError> {
    String::from_utf8(read_bytes(path, max)?).map_err(|_| ReadError::NotText)
}

/// The whole contents of `path`, if it is a regular file of at most `max`
/// bytes.
pub fn read_bytes(path: &str, max: u64) -> Result<Vec<u8>, ReadError> {
    // Looked at before it is opened: opening a named pipe blocks until
    // something writes to it.
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ReadError::NotFound(e.to_string()),
        _ => ReadError::Io(e.to_string()),
    })?;
    regular(&meta)?;
    let file = std::fs::File::open(path).map_err(|e| ReadError::Io(e.to_string()))?;
    // And again once open, in case the path changed in between.
    regular(&file.metadata().map_err(|e| ReadError::Io(e.to_string()))?)?;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io(e.to_string()))?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge(max));
    }
    Ok(bytes)
}

/// Refuse what is not a regular file, saying what it is.
fn regular(meta: &std::fs::Metadata) -> Result<(), ReadError> {
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(());
    }
    if kind.is_dir() {
        return Err(ReadError::NotAFile("a folder"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Err(ReadError::NotAFile("a named pipe"));
        }
        if kind.is_char_device() || kind.is_block_device() {
            return Err(ReadError::NotAFile("a device"));
        }
        if kind.is_socket() {
            return Err(ReadError::NotAFile("a socket"));
        }
    }
    Err(ReadError::NotAFile("a special file"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_files_are_refused_at_the_limit_and_odd_ones_at_once() {
        assert!(matches!(
            read("/no/such/file", 1000),
            Err(ReadError::NotFound(_))
        ));
        let dir = std::env::temp_dir().join(format!("amalgam-textfile-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let folder = dir.to_string_lossy().into_owned();
        assert_eq!(read(&folder, 1000), Err(ReadError::NotAFile("a folder")));
        #[cfg(unix)]
        assert_eq!(
            read("/dev/zero", 1000),
            Err(ReadError::NotAFile("a device"))
        );
        let f = dir.join("t.txt");
        let _ = std::fs::write(&f, b"abc\xff");
        let path = f.to_string_lossy().into_owned();
        assert_eq!(read(&path, 3), Err(ReadError::TooLarge(3)));
        assert_eq!(read(&path, 4), Err(ReadError::NotText));
        let _ = std::fs::write(&f, b"abcd");
        assert_eq!(read(&path, 4).as_deref(), Ok("abcd"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
