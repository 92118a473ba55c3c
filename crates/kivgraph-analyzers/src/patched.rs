//! A Cargo workspace as a developer working on it and on the registered crates it depends on
//! would set it up: loaded against their sources through `[patch.crates-io]`. All of it in
//! scratch space — a mirror of the checkout whose `Cargo.lock` no longer pins the patched
//! crates to the registry's releases (a pin keeps cargo from using a patch), and a
//! `CARGO_HOME` whose configuration carries the patches — so nothing is written in a
//! repository, and cargo still decides, by its own rules, whether each patch applies.

use std::path::{Path, PathBuf};

use crate::mirror::mirror_in_place;

/// Directories a mirror leaves out: history, and cargo's own build output.
const NOT_MIRRORED: &[&str] = &[".git", "target"];

pub(crate) struct PatchedWorkspace {
    /// The workspace's directory in the mirror: where the analyzer loads it.
    pub workspace: PathBuf,
    /// What cargo runs with as `CARGO_HOME`.
    pub cargo_home: PathBuf,
}

impl PatchedWorkspace {
    /// Sets the workspace at `workspace_root` (relative to the checkout at
    /// `repository_root`) up in `work`, with `patches` as `(package, directory)`.
    pub(crate) fn new(
        work: &Path,
        repository_root: &Path,
        workspace_root: &str,
        patches: &[(String, PathBuf)],
    ) -> std::io::Result<Self> {
        let checkout = std::fs::canonicalize(repository_root)?;
        let mirror = mirror_in_place(&checkout, &work.join("mirror"), NOT_MIRRORED)?;
        let workspace = mirror.join(workspace_root);
        unpin(&workspace.join("Cargo.lock"), patches)?;
        let cargo_home = patched_cargo_home(work, patches)?;
        Ok(PatchedWorkspace {
            workspace,
            cargo_home,
        })
    }
}

/// Rewrites the mirror's lockfile without the registry releases of the patched packages,
/// as a new file: the mirror's is a hard link to the checkout's, which stays as it is.
fn unpin(lockfile: &Path, patches: &[(String, PathBuf)]) -> std::io::Result<()> {
    let Ok(text) = std::fs::read_to_string(lockfile) else {
        return Ok(());
    };
    let Ok(mut lock) = text.parse::<toml::Table>() else {
        return Ok(());
    };
    if let Some(packages) = lock.get_mut("package").and_then(toml::Value::as_array_mut) {
        packages.retain(|package| {
            let named = |key: &str| package.get(key).and_then(toml::Value::as_str);
            let patched = patches
                .iter()
                .any(|(name, _)| Some(name.as_str()) == named("name"));
            !(patched && named("source").is_some_and(|s| s.starts_with("registry+")))
        });
    }
    std::fs::remove_file(lockfile)?;
    let text = toml::to_string(&lock).map_err(std::io::Error::other)?;
    std::fs::write(lockfile, text)
}

/// A `CARGO_HOME` in `work`: the user's cargo configuration with a `[patch.crates-io]` entry
/// for each of `patches`, and the real home's registry and git caches linked in, so cargo
/// resolves offline as it otherwise would.
fn patched_cargo_home(work: &Path, patches: &[(String, PathBuf)]) -> std::io::Result<PathBuf> {
    let real = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")));
    let home = work.join("cargo-home");
    std::fs::create_dir_all(&home)?;
    let mut config = toml::Table::new();
    if let Some(real) = &real {
        for cache in ["registry", "git"] {
            if real.join(cache).exists() {
                std::os::unix::fs::symlink(real.join(cache), home.join(cache))?;
            }
        }
        if let Some(text) = ["config.toml", "config"]
            .iter()
            .find_map(|name| std::fs::read_to_string(real.join(name)).ok())
        {
            config = text.parse().unwrap_or_default();
        }
    }
    let crates_io = config
        .entry("patch")
        .or_insert_with(|| toml::Table::new().into())
        .as_table_mut()
        .map(|patch| {
            patch
                .entry("crates-io")
                .or_insert_with(|| toml::Table::new().into())
        })
        .and_then(toml::Value::as_table_mut);
    if let Some(crates_io) = crates_io {
        for (package, directory) in patches {
            let mut entry = toml::Table::new();
            entry.insert("path".into(), directory.display().to_string().into());
            crates_io.insert(package.clone(), entry.into());
        }
    }
    let text = toml::to_string(&config).map_err(std::io::Error::other)?;
    std::fs::write(home.join("config.toml"), text)?;
    Ok(home)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mirror_unpins_patched_crates_and_the_checkout_stays_as_it_is() {
        let root = tempfile::tempdir().unwrap();
        let checkout = root.path().join("consumer");
        std::fs::create_dir_all(checkout.join("src")).unwrap();
        std::fs::create_dir_all(root.path().join("sibling")).unwrap();
        let lock = "version = 4\n\n[[package]]\nname = \"itoa\"\nversion = \"1.0.19\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n[[package]]\nname = \"ryu\"\nversion = \"1.0.20\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n[[package]]\nname = \"consumer\"\nversion = \"0.1.0\"\n";
        std::fs::write(checkout.join("Cargo.lock"), lock).unwrap();
        std::fs::write(checkout.join("src/lib.rs"), "").unwrap();
        let work = tempfile::tempdir().unwrap();
        let patches = [("itoa".to_string(), PathBuf::from("/registered/itoa"))];
        let patched = PatchedWorkspace::new(work.path(), &checkout, "", &patches).unwrap();
        assert_eq!(
            std::fs::read_to_string(checkout.join("Cargo.lock")).unwrap(),
            lock
        );
        let unpinned = std::fs::read_to_string(patched.workspace.join("Cargo.lock")).unwrap();
        assert!(
            !unpinned.contains("\"itoa\"") && unpinned.contains("\"ryu\""),
            "{unpinned}"
        );
        // A path leaving the checkout resolves from the mirror as from the checkout.
        assert!(patched.workspace.join("../sibling").is_dir());
        assert!(patched.workspace.join("src/lib.rs").is_file());
        let config = std::fs::read_to_string(patched.cargo_home.join("config.toml")).unwrap();
        assert!(config.contains("[patch.crates-io.itoa]"), "{config}");
        assert!(config.contains("path = \"/registered/itoa\""), "{config}");
    }
}
