//! Go and our go/types worker. Go comes from the Debian packages `pins/go-toolchain.sha256`
//! names (trixie-backports' golang-1.27, statically linked), checked against their SHA-256
//! and extracted under `go/` with no root needed, `go/current` pointing at it; the worker
//! (`crates/kivgraph-analyzers/go-worker`, standard library only) is built with it as
//! `bin/kivgraph-go-worker`, again whenever its sources or the pins change.

use std::path::Path;

use anyhow::{Context, bail};
use sha2::{Digest, Sha256};

use crate::locations::Locations;
use crate::run::{Step, on_path};

pub fn install(locations: &Locations) -> anyhow::Result<()> {
    let pins = std::fs::read_to_string(locations.pin("go-toolchain.sha256"))?;
    // `<sha256> golang-1.27-go_1.27.4-1~bpo13+1_amd64.deb`, one line a package.
    let packages: Vec<(&str, &str)> = pins
        .lines()
        .filter_map(|line| line.split_once(' '))
        .collect();
    let Some(source) = packages
        .iter()
        .find_map(|(_, file)| file.split_once("-go_").map(|(source, _)| source))
    else {
        bail!("go-toolchain.sha256 names no golang-1.N-go package");
    };
    let dir = &locations.analyzers;
    let go_dir = format!("usr/lib/go-{}", source.trim_start_matches("golang-"));
    let go_root = dir.join("go").join(&go_dir);
    let go = go_root.join("bin/go");
    if !go.is_file() {
        if !on_path("curl") || !on_path("dpkg-deb") {
            super::absent("the Go worker", "curl or dpkg-deb not found");
            return Ok(());
        }
        let downloads = dir.join("downloads");
        std::fs::create_dir_all(&downloads)?;
        for (sha, file) in &packages {
            let deb = downloads.join(file);
            if sha256(&deb).ok().as_deref() != Some(*sha) {
                let url = format!("https://deb.debian.org/debian/pool/main/g/{source}/{file}");
                Step::new("curl")
                    .args(["-fsSL", &url, "-o"])
                    .arg(&deb)
                    .succeed()?;
                if sha256(&deb)? != *sha {
                    bail!("{file} does not have the SHA-256 go-toolchain.sha256 pins");
                }
            }
            Step::new("dpkg-deb")
                .arg("-x")
                .arg(&deb)
                .arg(dir.join("go"))
                .succeed()?;
        }
        eprintln!("xtask setup: Go extracted under {}", go_root.display());
    }
    // The worker runs the Go this names; an older extraction beside it is never used.
    let current = dir.join("go/current");
    if std::fs::read_link(&current).ok().as_deref() != Some(Path::new(&go_dir)) {
        let _ = std::fs::remove_file(&current);
        std::os::unix::fs::symlink(&go_dir, &current)?;
    }
    let sources = locations.root.join("crates/kivgraph-analyzers/go-worker");
    let mut inputs = pins.into_bytes();
    let mut files: Vec<_> = std::fs::read_dir(&sources)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|p| p.extension().is_some_and(|e| e == "go" || e == "mod"))
        .collect();
    files.sort();
    for file in &files {
        inputs.extend(std::fs::read(file)?);
    }
    let digest = hex(&Sha256::digest(&inputs));
    let bin = dir.join("bin");
    let worker = bin.join("kivgraph-go-worker");
    let stamp = bin.join(".go-worker.sha256");
    if !worker.is_file() || std::fs::read_to_string(&stamp).ok().as_deref() != Some(&digest) {
        std::fs::create_dir_all(&bin)?;
        Step::new(&go)
            .args(["build", "-trimpath", "-o"])
            .arg(&worker)
            .arg(".")
            .current_dir(&sources)
            .env("GOTOOLCHAIN", "local")
            .env("GOPROXY", "off")
            .env("GOFLAGS", "-mod=mod")
            .succeed()?;
        std::fs::write(&stamp, &digest)?;
        eprintln!("xtask setup: the Go worker built under {}", bin.display());
    }
    Ok(())
}

fn sha256(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(hex(&Sha256::digest(&bytes)))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
