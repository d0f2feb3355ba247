//! Files the tools write: a trace, a history, a report. Each is written to a temporary file
//! beside its target and renamed into place once complete, so a run that fails (bad input,
//! full disk, a panic) leaves the target as it was and no half-written file that would pass for
//! a whole one; and a target that is one of the run's inputs is refused before anything is
//! written, since writing it would destroy what is being read.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use tempfile::NamedTempFile;

/// The temporary files being written now, so that a process ended by a signal can remove them
/// ([`remove_unfinished`]); dropping or committing an [`OutputFile`] takes its own out.
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn unfinished() -> MutexGuard<'static, Vec<PathBuf>> {
    // A panic elsewhere while the list was held leaves it whole (pushes and removals only).
    UNFINISHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes every temporary file being written and returns the list, held: no new one can be
/// started (or finished) until it is dropped. For a process about to end on a signal, which
/// would otherwise leave them beside their targets; it ends while holding the list.
pub fn remove_unfinished() -> MutexGuard<'static, Vec<PathBuf>> {
    let mut list = unfinished();
    for path in list.drain(..) {
        let _ = std::fs::remove_file(path);
    }
    list
}

/// Whether `a` and `b` name the same file: the same path, a hard link or a symbolic link to it.
/// A path that does not exist is no other file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
    }
}

/// A file being written: buffered, in a temporary file beside `target`, which becomes `target`
/// only at [`OutputFile::commit`]. Dropped without a commit, it is removed.
pub struct OutputFile {
    target: PathBuf,
    out: Out,
}

enum Out {
    /// A regular file: written beside, renamed into place.
    Beside(BufWriter<NamedTempFile>, Listed),
    /// A device or a pipe (`/dev/null`, `/dev/stdout`, a FIFO): written as it is, since
    /// renaming over it would replace the device.
    Through(BufWriter<File>),
}

impl OutputFile {
    /// Starts writing `target`; an error if `target` is one of `inputs` (the message says so)
    /// or if its folder cannot take a new file.
    pub fn create(target: &Path, inputs: &[&Path]) -> io::Result<OutputFile> {
        if let Some(input) = inputs.iter().find(|i| same_file(i, target)) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "it is the input {} (the same file), which writing would destroy",
                    input.display()
                ),
            ));
        }
        if std::fs::metadata(target).is_ok_and(|m| !m.is_file()) {
            let file = std::fs::OpenOptions::new().write(true).open(target)?;
            return Ok(OutputFile {
                target: target.to_path_buf(),
                out: Out::Through(BufWriter::new(file)),
            });
        }
        // Through a symbolic link to the file it names, as a plain create writes: renaming
        // over the link would replace the link.
        let resolved;
        let target = if std::fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_symlink())
        {
            resolved = std::fs::canonicalize(target)?;
            resolved.as_path()
        } else {
            target
        };
        let folder = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let prefix = format!(
            ".{}.",
            target
                .file_name()
                .map_or_else(|| "output".into(), |n| n.to_string_lossy())
        );
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".part");
        // A temporary file is private by default; the output gets what a plain create gives
        // (the umask applies at creation).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        // The list is held while the file is created, so that a signal in between finds it.
        let mut list = unfinished();
        let file = builder.tempfile_in(folder)?;
        list.push(file.path().to_path_buf());
        drop(list);
        let listed = Listed(file.path().to_path_buf());
        // A replaced file keeps what it was: its permissions and, where the system lets this
        // process give it away, its owner and group.
        if let Ok(old) = std::fs::metadata(target) {
            keep_owner_and_mode(file.as_file(), &old)?;
        }
        Ok(OutputFile {
            target: target.to_path_buf(),
            out: Out::Beside(BufWriter::with_capacity(1 << 20, file), listed),
        })
    }

    /// Flushes what is buffered and renames the file into place.
    pub fn commit(self) -> io::Result<()> {
        match self.out {
            Out::Beside(out, _listed) => {
                let file = out.into_inner().map_err(|e| e.into_error())?;
                file.persist(&self.target).map_err(|e| e.error)?;
                Ok(())
            }
            Out::Through(mut out) => out.flush(),
        }
    }

    fn inner(&mut self) -> &mut dyn Write {
        match &mut self.out {
            Out::Beside(o, _) => o,
            Out::Through(o) => o,
        }
    }
}

/// A temporary file's place in [`UNFINISHED`], given up when dropped (after the file itself,
/// which [`Out::Beside`] drops first: removed, or renamed into place).
struct Listed(PathBuf);

impl Drop for Listed {
    fn drop(&mut self) {
        unfinished().retain(|p| *p != self.0);
    }
}

#[cfg(unix)]
fn keep_owner_and_mode(file: &File, old: &std::fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let new = file.metadata()?;
    if new.uid() != old.uid() || new.gid() != old.gid() {
        // Only root gives a file away; an owner may still pass it to another of its groups.
        // What is not permitted is left as a plain create would leave it.
        if std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid())).is_err() {
            let _ = std::os::unix::fs::fchown(file, None, Some(old.gid()));
        }
    }
    // After the owner: changing it clears the set-id bits.
    file.set_permissions(std::fs::Permissions::from_mode(old.mode() & 0o7777))
}

#[cfg(not(unix))]
fn keep_owner_and_mode(file: &File, old: &std::fs::Metadata) -> io::Result<()> {
    file.set_permissions(old.permissions())
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner().write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner().write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner().flush()
    }
}
