//! No file a run reads is a file it writes. The outputs of a run (`--html`, `-o`, `convert`'s
//! OUT and OUT.locations) are named before the command starts; every file the command then
//! reads (its inputs, `@FILE` arguments, `--spec`, `--models`, `--rr-exclude`, `--hostfile`,
//! the files found in a directory, standard input when it is a file) is checked against them
//! as it is opened, before anything is analysed or written, and creating an output checks it
//! against every file read so far. Files are compared by identity (device and inode, links
//! followed), so a symbolic link, a hard link or `./x` for `x` is the same file.

use hindsight_syntax::input_name;
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// A file as the system knows it, whatever the path that reached it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }

    /// Elsewhere a file has no identity we can read without opening it; the canonical path's
    /// hash stands in (hard links then go unseen).
    #[cfg(not(unix))]
    fn of_path(path: &Path) -> Option<FileId> {
        use std::hash::{Hash, Hasher};
        let path = std::fs::canonicalize(path).ok()?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        path.hash(&mut h);
        Some(FileId {
            dev: 0,
            ino: h.finish(),
        })
    }

    /// The file at `path` (links followed); `None` if there is none.
    pub fn at(path: &Path) -> Option<FileId> {
        #[cfg(unix)]
        {
            std::fs::metadata(path).ok().map(|m| FileId::of(&m))
        }
        #[cfg(not(unix))]
        {
            FileId::of_path(path)
        }
    }

    /// The file standard input reads, if it is one (not a terminal or a pipe: those have no
    /// name a run could write).
    pub fn of_stdin() -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
            let meta = std::fs::File::from(fd).metadata().ok()?;
            meta.is_file().then(|| FileId::of(&meta))
        }
        #[cfg(not(unix))]
        {
            None
        }
    }
}

/// The outputs of a run, named before the command starts, and the files it has read so far.
pub struct Files {
    outputs: Vec<PathBuf>,
    /// Each file read, with the name it was read by. Reads happen on the command's thread,
    /// one at a time.
    read: RefCell<Vec<(FileId, String)>>,
}

impl Files {
    /// The files of a run that writes `outputs`; made before any file is read.
    pub fn new(outputs: Vec<PathBuf>) -> Files {
        Files {
            outputs: outputs
                .into_iter()
                .filter(|p| p.as_os_str() != "-")
                .collect(),
            read: RefCell::new(Vec::new()),
        }
    }

    /// Notes that the run reads `path` (`-`: standard input): an error, naming both, if it is
    /// one of the run's outputs.
    pub fn note_read(&self, path: &Path) -> anyhow::Result<()> {
        let id = if path.as_os_str() == "-" {
            FileId::of_stdin()
        } else {
            FileId::at(path)
        };
        let Some(id) = id else {
            // Nothing there yet, or a pipe: nothing a run could overwrite.
            return Ok(());
        };
        let name = input_name(path);
        for output in &self.outputs {
            if FileId::at(output) == Some(id) {
                return Err(same_file_error(&name, output));
            }
        }
        self.read.borrow_mut().push((id, name));
        Ok(())
    }

    /// An error, naming both, if `output` is a file this run has read.
    pub fn check_output(&self, output: &Path) -> anyhow::Result<()> {
        let Some(id) = FileId::at(output) else {
            return Ok(());
        };
        match self.read.borrow().iter().find(|(r, _)| *r == id) {
            Some((_, name)) => Err(same_file_error(name, output)),
            None => Ok(()),
        }
    }
}

fn same_file_error(input: &str, output: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "{input} is both read and written by this run (the output {} is the same file): \
         writing it would destroy what is read; nothing was written",
        output.display()
    )
}
