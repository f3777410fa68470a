//! The net file of a run, made sure of before the training: the bytes go
//! first to a file beside it, made when the run starts (so that a folder
//! that is not there, or not writable, or a path that names a folder, ends
//! the run at once), and renamed over it when the net is written. A run
//! that stops leaves the old file as it was, and removes its own.

use super::error::OutputError;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The file being written, until it is renamed to the net file.
pub struct PendingNet {
    path: PathBuf,
    temp: PathBuf,
    file: Option<File>,
}

impl PendingNet {
    /// Make the file beside `path` that will become it.
    pub fn create(path: &str) -> Result<PendingNet, OutputError> {
        let path = PathBuf::from(path);
        if path.is_dir() {
            return Err(OutputError::IsFolder);
        }
        let Some(name) = path.file_name() else {
            return Err(OutputError::NoFileName);
        };
        let dir = path.parent().unwrap_or(Path::new(""));
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            return Err(OutputError::NoFolder(dir.to_path_buf()));
        }
        // Hidden, and named by the process: two runs writing nets of one
        // name do not share it.
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".{}.tmp", std::process::id()));
        let temp = dir.join(temp_name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(OutputError::Create)?;
        Ok(PendingNet {
            path,
            temp,
            file: Some(file),
        })
    }

    /// Write `bytes` and put them in place of the net file.
    pub fn commit(mut self, bytes: &[u8]) -> Result<(), OutputError> {
        let Some(mut file) = self.file.take() else {
            return Err(OutputError::Write(std::io::Error::other("written twice")));
        };
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(OutputError::Write)?;
        drop(file);
        std::fs::rename(&self.temp, &self.path).map_err(OutputError::Write)
    }
}

impl Drop for PendingNet {
    /// A run that did not write its net leaves no file of its own behind
    /// (after a commit the file is already renamed: nothing to remove).
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.temp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_net_file_is_checked_first_and_replaced_whole() {
        let dir = std::env::temp_dir().join(format!("amalgam-pending-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let text = |p: &Path| p.to_string_lossy().into_owned();
        assert!(matches!(
            PendingNet::create(&text(&dir)),
            Err(OutputError::IsFolder)
        ));
        assert!(matches!(
            PendingNet::create(&text(&dir.join("no/x.nnue"))),
            Err(OutputError::NoFolder(_))
        ));
        assert!(matches!(
            PendingNet::create(""),
            Err(OutputError::IsFolder | OutputError::NoFileName)
        ));
        let net = dir.join("x.nnue");
        std::fs::write(&net, b"old").expect("old");
        let listing = || std::fs::read_dir(&dir).expect("dir").count();
        // Dropped unwritten: the old file stays, nothing else is left.
        drop(PendingNet::create(&text(&net)).expect("pending"));
        assert_eq!(
            (std::fs::read(&net).expect("net"), listing()),
            (b"old".to_vec(), 1)
        );
        let pending = PendingNet::create(&text(&net)).expect("pending");
        assert_eq!(listing(), 2);
        pending.commit(b"new").expect("commit");
        assert_eq!(
            (std::fs::read(&net).expect("net"), listing()),
            (b"new".to_vec(), 1)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
