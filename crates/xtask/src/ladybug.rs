//! LadybugDB, built once per machine. The `lbug` crate links a static `liblbug.a`: it would
//! download one, which this machine cannot, or compile ~1,100 C++ units inside every fresh
//! target directory. Instead this builds the archive from the crate's own bundled sources with
//! cmake and ninja under `~/.cache/kivgraph/ladybug/<version>/`, places it where the crate's
//! build script looks for a prebuilt archive (`LBUG_PREBUILT_CACHE_DIR`, key
//! `version-local-compat`), and links the checkout's `.ladybug` to that directory, which
//! `.cargo/config.toml` names relative to the checkout. Idempotent: once the archive is
//! there, a clone only gets its link.
//!
//! LadybugDB's headers need C++20 `<format>`, which GCC 12 lacks: it is built with clang 19
//! and libc++ (Debian's packages, installed here when missing), and `.cargo/config.toml`
//! compiles the crate's C++ bridge with the same toolchain.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};

use crate::locations::Locations;
use crate::run::{Step, cargo, on_path};

/// The Debian packages the build needs, with the program each provides.
const PACKAGES: &[(&str, &str)] = &[
    ("cmake", "cmake"),
    ("ninja-build", "ninja"),
    ("clang-19", "clang++-19"),
    ("libc++-19-dev", ""),
    ("libc++abi-19-dev", ""),
    ("libssl-dev", ""),
];

/// The key the crate's build script derives from `LBUG_VERSION=local` on Linux.
const PREBUILT_KEY: &str = "version-local-compat";

pub fn setup(locations: &Locations) -> anyhow::Result<()> {
    let crate_dir = lbug_crate(locations)?;
    let version = crate_dir
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.strip_prefix("lbug-"))
        .context("the lbug crate's directory is not named lbug-<version>")?
        .to_string();
    let home = locations.cache.join("ladybug").join(&version);
    std::fs::create_dir_all(&home).with_context(|| format!("cannot create {}", home.display()))?;
    // Several runs may start at once: one builds, the others wait for it.
    let lock = File::create(home.join(".setup.lock"))?;
    lock.lock().context("cannot lock LadybugDB's directory")?;
    let prebuilt = home.join("prebuilt").join(PREBUILT_KEY).join("lib");
    if !prebuilt.join("liblbug.a").is_file() || !prebuilt.join("lbug.hpp").is_file() {
        build(&crate_dir.join("lbug-src"), &home, &prebuilt, &version)?;
    }
    only_libcxx(&prebuilt)?;
    link_checkout(&locations.root.join(".ladybug"), &home)
}

/// The `lbug` crate's sources as cargo fetched them for the locked version.
fn lbug_crate(locations: &Locations) -> anyhow::Result<PathBuf> {
    let metadata = cargo(locations)
        .args(["metadata", "--locked", "--format-version", "1"])
        .output()
        .context("cargo metadata failed")?;
    let metadata: serde_json::Value = serde_json::from_str(&metadata)?;
    let manifest = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|package| package["name"] == "lbug")
        .and_then(|package| package["manifest_path"].as_str())
        .context("the workspace does not depend on lbug")?;
    Ok(Path::new(manifest)
        .parent()
        .context("lbug's manifest has no directory")?
        .to_path_buf())
}

fn build(source: &Path, home: &Path, prebuilt: &Path, version: &str) -> anyhow::Result<()> {
    install_toolchain()?;
    let build = home.join("build");
    let started = Instant::now();
    eprintln!(
        "xtask setup: building LadybugDB {version} from source once for this machine \
         (about 1,100 C++ units: 25-40 minutes on 2 cores), into {}",
        build.display()
    );
    Step::new("cmake")
        .arg("-S")
        .arg(source)
        .arg("-B")
        .arg(&build)
        .args(["-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"])
        .args(["-DBUILD_SHELL=OFF", "-DBUILD_SINGLE_FILE_HEADER=ON"])
        .args(["-DAUTO_UPDATE_GRAMMAR=OFF", "-DBUILD_SHARED_LBUG=OFF"])
        .arg("-DBUILD_STATIC_LBUG=ON")
        .env("CC", "clang-19")
        .env("CXX", "clang++-19")
        .env("CXXFLAGS", "-stdlib=libc++")
        .env("LDFLAGS", "-stdlib=libc++")
        .succeed()?;
    // The bundled archive (every third-party library inside) and the one-file header.
    Step::new("ninja")
        .arg("-C")
        .arg(&build)
        .args(["lbug", "single_file_header"])
        .succeed()?;
    let staging = home.join("prebuilt/.staging");
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)?;
    for (from, name) in [
        (build.join("src/liblbug.a"), "liblbug.a"),
        (build.join("src/lbug.hpp"), "lbug.hpp"),
        (source.join("src/include/c_api/lbug.h"), "lbug.h"),
    ] {
        std::fs::copy(&from, staging.join(name))
            .with_context(|| format!("cannot copy {}", from.display()))?;
    }
    let _ = std::fs::remove_dir_all(prebuilt);
    std::fs::create_dir_all(prebuilt.parent().context("no parent")?)?;
    std::fs::rename(&staging, prebuilt)?;
    // The objects are inside the archive now; the build directory is gigabytes.
    let _ = std::fs::remove_dir_all(&build);
    eprintln!(
        "xtask setup: LadybugDB {version} built in {} s",
        started.elapsed().as_secs()
    );
    Ok(())
}

/// The `lbug` crate links `-lstdc++` for its static archive, but the archive (and the bridge
/// compiled beside it) use libc++: two C++ runtimes in one process each define `__cxa_throw`,
/// and an exception thrown by one is caught by neither (the process aborts). A linker script
/// named `libstdc++.so` in the archive's directory, which the crate puts first on the search
/// path, makes that `-lstdc++` mean libc++.
fn only_libcxx(prebuilt: &Path) -> anyhow::Result<()> {
    let script = prebuilt.join("libstdc++.so");
    let text = "/* LadybugDB is built with libc++ (crates/xtask/src/ladybug.rs): \
                -lstdc++ means libc++ here. */\nINPUT(-lc++)\n";
    if std::fs::read_to_string(&script).ok().as_deref() != Some(text) {
        std::fs::write(&script, text)
            .with_context(|| format!("cannot write {}", script.display()))?;
    }
    Ok(())
}

/// Installs the compiler and build tools from Debian's packages when one is missing.
fn install_toolchain() -> anyhow::Result<()> {
    let missing = PACKAGES
        .iter()
        .any(|(_, program)| !program.is_empty() && !on_path(program))
        || !Path::new("/usr/lib/x86_64-linux-gnu/libc++.so").exists();
    if !missing {
        return Ok(());
    }
    if !on_path("apt-get") {
        bail!(
            "building LadybugDB needs {}; install them (there is no apt-get here)",
            PACKAGES
                .iter()
                .map(|(p, _)| *p)
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    let root = Step::new("id").arg("-u").output().as_deref() == Some("0");
    let apt = if root {
        Step::new("apt-get")
    } else {
        Step::new("sudo").arg("apt-get")
    };
    apt.args(["install", "-y", "-q", "--no-install-recommends"])
        .args(PACKAGES.iter().map(|(package, _)| package))
        .env("DEBIAN_FRONTEND", "noninteractive")
        .succeed()
}

/// Points `link` (the checkout's `.ladybug`) at `home`, replacing a link to another version.
fn link_checkout(link: &Path, home: &Path) -> anyhow::Result<()> {
    if std::fs::read_link(link).ok().as_deref() == Some(home) {
        return Ok(());
    }
    if link.symlink_metadata().is_ok() {
        std::fs::remove_file(link).with_context(|| format!("cannot replace {}", link.display()))?;
    }
    std::os::unix::fs::symlink(home, link)
        .with_context(|| format!("cannot link {} to {}", link.display(), home.display()))
}
