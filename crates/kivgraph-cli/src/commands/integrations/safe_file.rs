//! Writing into another program's configuration safely: a symlink or anything but a regular
//! file is refused, the first state is kept in `<file>.kivgraph.bak`, and every write is a
//! synced `0600` temporary file renamed into place (missing directories created `0700`).

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The file's text, `None` when nothing is there; a symlink or a non-regular file is refused.
pub fn read_regular(path: &Path) -> anyhow::Result<Option<String>> {
    match path.symlink_metadata() {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            bail!("{} is a symlink: refused, nothing written", path.display())
        }
        Ok(metadata) if !metadata.is_file() => {
            bail!("{} is not a regular file: refused", path.display())
        }
        Ok(_) => std::fs::read_to_string(path)
            .map(Some)
            .with_context(|| format!("cannot read {}", path.display())),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// `<file>.kivgraph.bak`, beside it.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".kivgraph.bak");
    path.with_file_name(name)
}

/// Copies `path` to its backup, unless a backup already holds an earlier state.
fn back_up(path: &Path) -> anyhow::Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let backup = backup_path(path);
    match backup.symlink_metadata() {
        Ok(metadata) if metadata.file_type().is_symlink() || !metadata.is_file() => {
            bail!("{} is not a regular file: refused", backup.display())
        }
        Ok(_) => Ok(()),
        Err(_) => std::fs::copy(path, &backup)
            .map(|_| ())
            .with_context(|| format!("cannot write {}", backup.display())),
    }
}

/// A temporary path beside `path`, for this process.
fn temporary_beside(path: &Path) -> PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    path.with_file_name(format!(".{name}.kivgraph-{}", std::process::id()))
}

/// Creates the directory `path` goes in, private to this user, where it is missing: that
/// directory.
fn create_directory_of(path: &Path) -> anyhow::Result<&Path> {
    let directory = path.parent().context("a file has a directory")?;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(directory)
        .with_context(|| format!("cannot create {}", directory.display()))?;
    Ok(directory)
}

/// Writes `text` over `path` atomically, after backing up what was there.
pub fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    let directory = create_directory_of(path)?;
    back_up(path)?;
    let temporary = temporary_beside(path);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)
        .with_context(|| format!("cannot write {}", temporary.display()))?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temporary, path))
        .and_then(|()| std::fs::File::open(directory)?.sync_all());
    if let Err(err) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(err).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}

/// Removes `path` after backing it up: renamed aside first, so no reader sees half a file.
pub fn remove(path: &Path) -> anyhow::Result<()> {
    back_up(path)?;
    let temporary = temporary_beside(path);
    std::fs::rename(path, &temporary)
        .and_then(|()| std::fs::remove_file(&temporary))
        .with_context(|| format!("cannot remove {}", path.display()))
}

/// What is at a path, read without following a link.
#[derive(Debug, PartialEq, Eq)]
pub enum Present {
    Absent,
    File(String),
    LinkTo(PathBuf),
    /// A directory, a socket or another kind of file.
    Other,
}

pub fn inspect(path: &Path) -> anyhow::Result<Present> {
    match path.symlink_metadata() {
        Ok(metadata) if metadata.file_type().is_symlink() => std::fs::read_link(path)
            .map(Present::LinkTo)
            .with_context(|| format!("cannot read the link {}", path.display())),
        Ok(metadata) if metadata.is_file() => std::fs::read_to_string(path)
            .map(Present::File)
            .with_context(|| format!("cannot read {}", path.display())),
        Ok(_) => Ok(Present::Other),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Present::Absent),
        Err(err) => Err(err).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Makes `path` a symlink to `target`, atomically: a regular file there is backed up first,
/// a link there is replaced.
pub fn link(path: &Path, target: &Path) -> anyhow::Result<()> {
    let directory = create_directory_of(path)?;
    if matches!(inspect(path)?, Present::File(_)) {
        back_up(path)?;
    }
    let temporary = temporary_beside(path);
    let _ = std::fs::remove_file(&temporary);
    std::os::unix::fs::symlink(target, &temporary)
        .and_then(|()| std::fs::rename(&temporary, path))
        .and_then(|()| std::fs::File::open(directory)?.sync_all())
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&temporary);
        })
        .with_context(|| format!("cannot link {} to {}", path.display(), target.display()))
}

/// Removes the link at `path` (never what it points to).
pub fn unlink(path: &Path) -> anyhow::Result<()> {
    std::fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))
}
