//! npm packages pinned by a `package.json` and its `package-lock.json`, installed with the
//! machine's npm into a directory outside the checkout (`npm ci`), again only when the lock
//! changed or a tool is missing — or, where no lock can be written, by exact versions alone
//! (`npm install`).

use std::path::Path;

use crate::run::{Step, on_path};

/// Installs `pins` (a directory holding the two files) into `dir`; `tools` are the
/// executables it must leave under `node_modules/.bin`. Whether they are there.
pub fn ci(what: &str, pins: &Path, dir: &Path, tools: &[&str]) -> anyhow::Result<bool> {
    if !on_path("npm") {
        eprintln!("xtask setup: npm not found; {what} stay(s) absent");
        return Ok(false);
    }
    std::fs::create_dir_all(dir)?;
    let lock = std::fs::read(pins.join("package-lock.json"))?;
    let installed = tools
        .iter()
        .all(|tool| dir.join("node_modules/.bin").join(tool).is_file());
    if installed && std::fs::read(dir.join("package-lock.json")).ok() == Some(lock) {
        return Ok(true);
    }
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(pins.join(file), dir.join(file))?;
    }
    Step::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(dir)
        .succeed()?;
    eprintln!("xtask setup: {what} installed under {}", dir.display());
    Ok(true)
}

/// Installs `pins` (a directory holding a `package.json` of exact versions, no lock) into
/// `dir`, again only when it changed or a tool is missing. Whether the tools are there.
pub fn install_exact(what: &str, pins: &Path, dir: &Path, tools: &[&str]) -> anyhow::Result<bool> {
    if !on_path("npm") {
        eprintln!("xtask setup: npm not found; {what} stay(s) absent");
        return Ok(false);
    }
    std::fs::create_dir_all(dir)?;
    let manifest = std::fs::read(pins.join("package.json"))?;
    let installed = tools
        .iter()
        .all(|tool| dir.join("node_modules/.bin").join(tool).is_file());
    if installed && std::fs::read(dir.join("package.json")).ok() == Some(manifest.clone()) {
        return Ok(true);
    }
    std::fs::write(dir.join("package.json"), &manifest)?;
    Step::new("npm")
        .args([
            "install",
            "--no-package-lock",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ])
        .current_dir(dir)
        .succeed()?;
    eprintln!("xtask setup: {what} installed under {}", dir.display());
    Ok(true)
}
