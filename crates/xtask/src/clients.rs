//! The real MCP clients the test suite drives (Claude Code, Codex and Gemini CLI, from npm),
//! pinned by `crates/xtask/clients`, installed under `~/.cache/kivgraph/clients`; OpenCode,
//! pinned by exact version in `clients/opencode`, under `clients/opencode`.

use std::fs::File;
use std::path::PathBuf;

use anyhow::Context;

use crate::locations::Locations;

/// Installs the clients; their directory, when they are there.
pub fn setup(locations: &Locations) -> anyhow::Result<Option<PathBuf>> {
    let dir = locations.cache.join("clients");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // Several test runs may start at once: one installs, the others wait for it.
    let lock = File::create(dir.join(".setup.lock"))?;
    lock.lock().context("cannot lock the clients' directory")?;
    let pins = locations.root.join("crates/xtask/clients");
    let installed = crate::npm::ci(
        "the MCP clients",
        &pins,
        &dir,
        &["claude", "codex", "gemini"],
    )?;
    crate::npm::install_exact(
        "OpenCode",
        &pins.join("opencode"),
        &dir.join("opencode"),
        &["opencode"],
    )?;
    Ok(installed.then_some(dir))
}
