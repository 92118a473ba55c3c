//! Installs the exact analyzers into the analyzers' directory, never into the checkout, each
//! pinned by `crates/kivgraph-analyzers/pins`: scip-typescript and scip-python (npm),
//! rust-analyzer with the standard library's sources (rustup), and Go with our go/types
//! worker. Idempotent. A missing installer leaves its analyzers absent, with a note: the
//! syntax layer still answers.

mod go;
mod rust;

use std::fs::File;

use anyhow::Context;

use crate::locations::Locations;

pub fn setup(locations: &Locations) -> anyhow::Result<()> {
    let dir = &locations.analyzers;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // Several test runs may start at once: one installs, the others wait for it.
    let lock = File::create(dir.join(".setup.lock"))?;
    lock.lock()
        .context("cannot lock the analyzers' directory")?;
    crate::npm::ci(
        "scip-typescript and scip-python",
        &locations.pins(),
        dir,
        &["scip-typescript", "scip-python"],
    )?;
    rust::install(locations)?;
    go::install(locations)?;
    Ok(())
}

/// Says why an analyzer stays absent.
fn absent(what: &str, why: &str) {
    eprintln!("xtask setup: {why}; {what} stay(s) absent");
}
