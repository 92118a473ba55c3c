//! Mirrors of a checkout in scratch space, for analyzers that must run somewhere they may
//! write: files hard-linked, so a mirror costs directory entries, not copies.

use std::path::{Path, PathBuf};

/// Recreates the tree under `from` at `to`: directories made, files hard-linked (copied
/// where a link cannot cross file systems), symbolic links recreated as they read. Entries
/// named in `skip` (`.git`: an indexer reads sources, not history) are left out.
pub(crate) fn mirror_tree(from: &Path, to: &Path, skip: &[&str]) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    let mut pending: Vec<(PathBuf, PathBuf)> = vec![(from.to_path_buf(), to.to_path_buf())];
    while let Some((source, target)) = pending.pop() {
        for entry in std::fs::read_dir(&source)? {
            let entry = entry?;
            if skip.iter().any(|s| entry.file_name() == *s) {
                continue;
            }
            let (path, copy) = (entry.path(), target.join(entry.file_name()));
            let kind = entry.file_type()?;
            if kind.is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(&path)?, &copy)?;
            } else if kind.is_dir() {
                // A mirror made inside the tree it mirrors is not mirrored again.
                if to.starts_with(&path) {
                    continue;
                }
                std::fs::create_dir(&copy)?;
                pending.push((path, copy));
            } else if std::fs::hard_link(&path, &copy).is_err() {
                std::fs::copy(&path, &copy)?;
            }
        }
    }
    Ok(())
}

/// A mirror of the checkout at `root` (absolute) placed at that same path under `base`,
/// every other entry of each directory above it a symbolic link to the real one: a
/// relative path leaving the checkout (`../other/crate`) resolves from the mirror as it does
/// from the checkout. Returns the mirrored root.
pub(crate) fn mirror_in_place(root: &Path, base: &Path, skip: &[&str]) -> std::io::Result<PathBuf> {
    let under_base = |path: &Path| base.join(path.strip_prefix("/").unwrap_or(path));
    let mirror = under_base(root);
    mirror_tree(root, &mirror, skip)?;
    // Best effort above the checkout: a directory this process may not list only leaves
    // the paths through it unresolved, as they would be from the checkout.
    let mut child = root;
    while let Some(parent) = child.parent() {
        let mirrored = under_base(parent);
        for entry in std::fs::read_dir(parent).into_iter().flatten().flatten() {
            let path = entry.path();
            if path != child {
                let _ = std::os::unix::fs::symlink(&path, mirrored.join(entry.file_name()));
            }
        }
        child = parent;
    }
    Ok(mirror)
}
