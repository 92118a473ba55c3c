//! rust-analyzer and the standard library's sources (rust-src) of the toolchain pinned in
//! `pins/rust-toolchain`, with rustup, linked as `bin/rust-analyzer`; and the standard
//! library's own crates.io dependencies in the local registry: rust-analyzer loads std
//! offline, and without them std's crates lose their links to each other.

use std::path::PathBuf;

use crate::locations::Locations;
use crate::run::{Step, on_path};

pub fn install(locations: &Locations) -> anyhow::Result<()> {
    let toolchain = std::fs::read_to_string(locations.pin("rust-toolchain"))?
        .trim()
        .to_string();
    if !on_path("rustup") {
        super::absent("rust-analyzer", "rustup not found");
        return Ok(());
    }
    let find = || {
        let program = Step::new("rustup")
            .args(["which", "--toolchain", &toolchain, "rust-analyzer"])
            .output()
            .map(PathBuf::from)
            .filter(|p| p.is_file());
        let sources = Step::new("rustc")
            .arg(format!("+{toolchain}"))
            .args(["--print", "sysroot"])
            .output()
            .map(|sysroot| PathBuf::from(sysroot).join("lib/rustlib/src/rust/library"))
            .filter(|p| p.is_dir());
        program.zip(sources)
    };
    let (program, sources) = match find() {
        Some(found) => found,
        None => {
            Step::new("rustup")
                .args(["toolchain", "install", &toolchain, "--profile", "minimal"])
                .args(["--component", "rust-analyzer,rust-src"])
                .succeed()?;
            find().ok_or_else(|| {
                anyhow::anyhow!("rustup installed {toolchain} without rust-analyzer or rust-src")
            })?
        }
    };
    let bin = locations.analyzers.join("bin");
    std::fs::create_dir_all(&bin)?;
    let fetched = bin.join(format!(".rust-src-fetched-{toolchain}"));
    if !fetched.exists() {
        // std's workspace is a nightly one: cargo reads its manifest only when told so.
        Step::new("cargo")
            .arg(format!("+{toolchain}"))
            .args(["fetch", "--locked", "--manifest-path"])
            .arg(sources.join("Cargo.toml"))
            .env("RUSTC_BOOTSTRAP", "1")
            .env("__CARGO_TEST_CHANNEL_OVERRIDE_DO_NOT_USE_THIS", "nightly")
            .succeed()?;
        std::fs::write(&fetched, "")?;
    }
    let link = bin.join("rust-analyzer");
    if std::fs::read_link(&link).ok().as_ref() != Some(&program) {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&program, &link)?;
        eprintln!(
            "xtask setup: rust-analyzer of toolchain {toolchain} linked under {}",
            bin.display()
        );
    }
    Ok(())
}
