//! Where things are: the checkout, the build's target directory and the analyzers'
//! directory, both outside the checkout (a fresh clone builds into the same cache).

use std::path::PathBuf;

use anyhow::Context;

pub struct Locations {
    /// The checkout's root.
    pub root: PathBuf,
    /// `CARGO_TARGET_DIR`, default `~/.cache/kivgraph/target`.
    pub target: PathBuf,
    /// `KIVGRAPH_ANALYZERS_DIR`, default `$XDG_STATE_HOME/kivgraph/analyzers` (else
    /// `~/.local/state/kivgraph/analyzers`), where the product looks for them too.
    pub analyzers: PathBuf,
    /// `~/.cache/kivgraph`.
    pub cache: PathBuf,
}

impl Locations {
    pub fn from_environment() -> anyhow::Result<Self> {
        let home = PathBuf::from(std::env::var_os("HOME").context("HOME is not set")?);
        let cache = home.join(".cache/kivgraph");
        let state = std::env::var_os("XDG_STATE_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".local/state"))
            .join("kivgraph");
        let from_env = |name: &str| std::env::var_os(name).map(PathBuf::from);
        Ok(Locations {
            // This crate is crates/xtask, in the checkout `cargo xtask` runs in: cargo says
            // which at run time (a binary built by another clone sharing the target
            // directory names that clone at compile time).
            root: from_env("CARGO_MANIFEST_DIR")
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
                .join("../.."),
            target: from_env("CARGO_TARGET_DIR").unwrap_or_else(|| cache.join("target")),
            analyzers: from_env("KIVGRAPH_ANALYZERS_DIR")
                .unwrap_or_else(|| state.join("analyzers")),
            cache,
        })
    }

    /// The test suite's analyzers, unless `KIVGRAPH_ANALYZERS_DIR` names others: a cache of
    /// their own (`~/.cache/kivgraph/analyzers`), so the tests never depend on what a user
    /// installed.
    pub fn for_tests(self) -> Self {
        let analyzers = std::env::var_os("KIVGRAPH_ANALYZERS_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| self.cache.join("analyzers"));
        Locations { analyzers, ..self }
    }

    /// The analyzers' pins.
    pub fn pins(&self) -> PathBuf {
        self.root.join("crates/kivgraph-analyzers/pins")
    }

    /// A file of the analyzers' pins.
    pub fn pin(&self, name: &str) -> PathBuf {
        self.pins().join(name)
    }
}
