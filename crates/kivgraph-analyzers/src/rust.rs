//! Running rust-analyzer's `scip` command on the Cargo workspaces of one repository.

use std::path::{Path, PathBuf};
use std::process::Command;

use kivgraph_config::RustSection;
use serde::{Deserialize, Serialize};

use crate::patched::PatchedWorkspace;
use crate::runner::{AnalyzerError, Configured, Toolchain, scratch_directory};
use crate::scip_index::ScipIndex;

/// The `rust` section of the configuration as the analyzer sees it: what a Rust unit's
/// answers depend on besides the sources, so part of its identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RustSettings {
    pub features: Vec<String>,
    pub all_features: bool,
    pub no_default_features: bool,
    pub cfgs: Vec<String>,
    pub build_scripts: bool,
    pub proc_macros: bool,
    pub include_tests: bool,
    pub allow_network: bool,
    /// Build artifacts of the analysis (build scripts, proc macros), outside every
    /// repository.
    pub target_directory: PathBuf,
    /// `discover`, `none`, or the path of a sysroot.
    pub sysroot: String,
}

impl RustSettings {
    /// The configuration's `rust` section as the analyzer runs under it: artifacts under
    /// `target_directory`, the standard library at `sysroot` (`discover`, `none` or a path,
    /// as the caller resolved the section's).
    pub fn of(section: &RustSection, target_directory: PathBuf, sysroot: String) -> Self {
        RustSettings {
            features: section.features.clone(),
            all_features: section.all_features,
            no_default_features: section.no_default_features,
            cfgs: section.cfgs.clone(),
            build_scripts: section.build_scripts,
            proc_macros: section.proc_macros,
            include_tests: section.include_tests,
            allow_network: section.allow_network,
            target_directory,
            sysroot,
        }
    }

    /// The configuration's defaults, artifacts under `target_directory`.
    pub fn standard(target_directory: PathBuf) -> Self {
        let defaults = RustSection::default();
        RustSettings::of(&defaults, target_directory, defaults.sysroot.clone())
    }

    /// The `--cfg` values the analysis sets besides features and the target:
    /// rust-analyzer's own defaults, which `rust.cfgs` adds to. Without `miri`, the
    /// standard library's intrinsics cost the analysis ten times as long (over ten minutes
    /// for `library/`, 22 s with it).
    pub fn analyzed_cfgs(&self) -> Vec<String> {
        let mut cfgs = vec!["debug_assertions".to_string(), "miri".to_string()];
        cfgs.extend(self.cfgs.iter().cloned());
        cfgs
    }

    /// rust-analyzer's configuration object for these settings; cargo runs with
    /// `cargo_home` as its `CARGO_HOME` when one is given.
    fn analyzer_config(&self, cargo_home: Option<&Path>) -> serde_json::Value {
        let features: serde_json::Value = if self.all_features {
            "all".into()
        } else {
            self.features.clone().into()
        };
        let mut extra_env = serde_json::Map::new();
        // `cargo metadata` caches the compiler's answers in the workspace's target directory
        // (`target/.rustc_info.json`): pointed elsewhere, nothing is written in the checkout.
        extra_env.insert(
            "CARGO_TARGET_DIR".into(),
            self.target_directory.display().to_string().into(),
        );
        if !self.allow_network {
            // Hermetic: a crate the local registry cache does not hold is reported, never
            // fetched.
            extra_env.insert("CARGO_NET_OFFLINE".into(), "true".into());
        }
        if let Some(home) = cargo_home {
            extra_env.insert("CARGO_HOME".into(), home.display().to_string().into());
        }
        let sysroot: serde_json::Value = match self.sysroot.as_str() {
            "none" => serde_json::Value::Null,
            other => other.into(),
        };
        let cfgs = self.analyzed_cfgs();
        serde_json::json!({
            "cargo": {
                "features": features,
                "noDefaultFeatures": self.no_default_features,
                "cfgs": cfgs,
                "buildScripts": { "enable": self.build_scripts },
                "extraEnv": extra_env,
                "targetDir": self.target_directory.display().to_string(),
                "sysroot": sysroot,
            },
            "procMacro": { "enable": self.proc_macros },
            "cfg": { "setTest": self.include_tests },
        })
    }
}

/// rust-analyzer with the settings it runs under.
pub type RustAnalyzer = Configured<RustSettings>;

/// One Cargo workspace of a repository: what one rust-analyzer load reads.
pub struct RustUnit<'a> {
    pub repository_root: &'a Path,
    /// The workspace's directory, repository-relative (`""` for the repository's root).
    pub workspace_root: &'a str,
    /// `(package, directory)`: registry dependencies the workspace is loaded against a
    /// registered crate's source for, as a developer working on both would `[patch]` them.
    pub patches: &'a [(String, PathBuf)],
}

impl Toolchain {
    /// Runs `rust-analyzer scip` on the unit's workspace, its configuration and output in
    /// scratch space. Documents come back repository-relative. A workspace whose
    /// dependencies could not be loaded (offline, not in the local registry) is indexed as
    /// far as rust-analyzer loaded it, and said so in `not_loaded`.
    pub fn index_rust(
        &self,
        unit: &RustUnit,
        settings: &RustSettings,
        scratch: &Path,
    ) -> Result<ScipIndex, AnalyzerError> {
        if unit.patches.is_empty() {
            return self.load_rust(unit, &[], settings, scratch);
        }
        let patched = self.load_rust(unit, unit.patches, settings, scratch);
        if matches!(&patched, Ok(index) if index.not_loaded.is_empty()) {
            return patched;
        }
        // A patched source whose own dependencies cargo cannot resolve offline (or a mirror
        // that could not be made) must not take the workspace down: loaded as published,
        // its uses of the registered crates resolve into the registry's copies, and are
        // declared as such.
        let unpatched = self.load_rust(unit, &[], settings, scratch)?;
        if unpatched.not_loaded.is_empty() || patched.is_err() {
            let why = match &patched {
                Ok(index) => index.not_loaded.join("; "),
                Err(error) => error.to_string(),
            };
            tracing::warn!(
                workspace = unit.workspace_root,
                why,
                "the workspace did not load against the registered sources; loaded as published"
            );
            return Ok(unpatched);
        }
        patched
    }

    fn load_rust(
        &self,
        unit: &RustUnit,
        patches: &[(String, PathBuf)],
        settings: &RustSettings,
        scratch: &Path,
    ) -> Result<ScipIndex, AnalyzerError> {
        let work = scratch_directory(scratch, "rs-unit-")?;
        let root = unit.workspace_root;
        let checkout = unit.repository_root.join(root);
        let patched = if patches.is_empty() {
            None
        } else {
            Some(PatchedWorkspace::new(
                work.path(),
                unit.repository_root,
                root,
                patches,
            )?)
        };
        let config_file = work.path().join("rust-analyzer.json");
        std::fs::write(
            &config_file,
            serde_json::to_vec_pretty(
                &settings.analyzer_config(patched.as_ref().map(|p| p.cargo_home.as_path())),
            )
            .expect("a JSON value serializes"),
        )?;
        let directory = patched
            .as_ref()
            .map_or_else(|| checkout.clone(), |p| p.workspace.clone());
        let output_file = work.path().join("index.scip");
        let mut command = Command::new(&self.program);
        command
            .arg("scip")
            .arg(&directory)
            .arg("--output")
            .arg(&output_file)
            .arg("--config-path")
            .arg(&config_file)
            .arg("--exclude-vendored-libraries")
            // What it reports of a failed load is part of the unit's answer: a backtrace the
            // caller's environment asks for would make that answer depend on the environment.
            .env_remove("RUST_BACKTRACE")
            .env_remove("RUST_LIB_BACKTRACE")
            // rust-analyzer asks rustup for the toolchain of the directory it runs in:
            // scratch space has none of its own, so the default one answers.
            .current_dir(work.path());
        let (mut index, said) = self.run(command, &checkout.display().to_string(), &output_file)?;
        // What cargo said names the checkout, not the scratch space it was loaded in.
        let said = match &patched {
            Some(p) => said.replace(
                &p.workspace.display().to_string(),
                &checkout.display().to_string(),
            ),
            None => said,
        };
        for document in &mut index.documents {
            document.relative_path = join_root(root, &document.relative_path);
        }
        let at = if root.is_empty() { "." } else { root };
        index.not_loaded = metadata_failures(&said)
            .into_iter()
            .map(|failure| format!("{at}: {failure}"))
            .collect();
        index.patched = patches.iter().map(|(package, _)| package.clone()).collect();
        index.member_features = member_features(
            settings,
            &directory,
            work.path(),
            patched.as_ref().map(|p| p.cargo_home.as_path()),
        )
        .into_iter()
        .map(|(member, features)| (join_root(root, &member), features))
        .collect();
        Ok(index)
    }
}

/// A path relative to the workspace at `root` (relative to the repository), made relative to
/// the repository.
fn join_root(root: &str, path: &str) -> String {
    match (root.is_empty(), path.is_empty()) {
        (true, _) => path.to_string(),
        (false, true) => root.to_string(),
        (false, false) => format!("{root}/{path}"),
    }
}

/// What cargo said when it could not resolve a workspace offline.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{said}")]
pub struct NotResolvedOffline {
    pub said: String,
}

/// Whether cargo resolves the Cargo workspace at `workspace` without the network, asked as
/// rust-analyzer asks it in a pass (`cargo metadata --offline`): `Err` with what cargo said
/// when it cannot, `Ok` when it can or when cargo cannot be started (nothing to say then).
pub fn cargo_resolves_offline(workspace: &Path, scratch: &Path) -> Result<(), NotResolvedOffline> {
    let Ok(work) = scratch_directory(scratch, "cargo-metadata-") else {
        return Ok(());
    };
    let output = cargo_metadata(workspace, work.path(), &["--offline".to_string()], None);
    match output {
        Ok(output) if !output.status.success() => {
            let said = String::from_utf8_lossy(&output.stderr);
            let error: Vec<&str> = said
                .lines()
                .map(str::trim)
                .take_while(|line| !line.starts_with("As a reminder"))
                .filter(|line| !line.is_empty())
                .collect();
            Err(NotResolvedOffline {
                said: error.join(" "),
            })
        }
        _ => Ok(()),
    }
}

/// `cargo metadata --format-version 1` of the Cargo workspace at `workspace`, with
/// `arguments` and `cargo_home` as its `CARGO_HOME` when one is given. The lockfile cargo
/// would write goes to `work` (a copy of the workspace's own), and the compiler's cached
/// answers too, so nothing is written inside the repository.
fn cargo_metadata(
    workspace: &Path,
    work: &Path,
    arguments: &[String],
    cargo_home: Option<&Path>,
) -> std::io::Result<std::process::Output> {
    let lockfile = work.join("Cargo.lock");
    // A workspace without a lockfile of its own has one resolved, in scratch.
    let _ = std::fs::copy(workspace.join("Cargo.lock"), &lockfile);
    let mut command = Command::new("cargo");
    command
        .args(["metadata", "-Zlockfile-path", "--format-version", "1"])
        .args(arguments)
        .arg("--manifest-path")
        .arg(workspace.join("Cargo.toml"))
        // `-Zlockfile-path` is how rust-analyzer keeps cargo's lockfile out of a workspace
        // on a stable toolchain.
        .env("__CARGO_TEST_CHANNEL_OVERRIDE_DO_NOT_USE_THIS", "nightly")
        .env("CARGO_RESOLVER_LOCKFILE_PATH", &lockfile)
        .env("CARGO_TARGET_DIR", work.join("target"))
        .current_dir(work);
    if let Some(home) = cargo_home {
        command.env("CARGO_HOME", home);
    }
    command.output()
}

/// The features cargo activates for each member of the Cargo workspace at `workspace` under
/// `settings` — the resolve of `cargo metadata`, unified over the workspace as rust-analyzer
/// reads it: `(member directory relative to the workspace, features)`, sorted. Empty when
/// cargo cannot say (a dependency missing offline): then no feature is known to be off.
fn member_features(
    settings: &RustSettings,
    workspace: &Path,
    work: &Path,
    cargo_home: Option<&Path>,
) -> Vec<(String, Vec<String>)> {
    let mut arguments = Vec::new();
    if !settings.allow_network {
        arguments.push("--offline".to_string());
    }
    if settings.all_features {
        arguments.push("--all-features".to_string());
    } else if !settings.features.is_empty() {
        arguments.push(format!("--features={}", settings.features.join(",")));
    }
    if settings.no_default_features {
        arguments.push("--no-default-features".to_string());
    }
    let Ok(output) = cargo_metadata(workspace, work, &arguments, cargo_home) else {
        return Vec::new();
    };
    if !output.status.success() {
        return Vec::new();
    }
    let Ok(metadata) = serde_json::from_slice::<serde_json::Value>(&output.stdout) else {
        return Vec::new();
    };
    let root = metadata["workspace_root"].as_str().map(PathBuf::from);
    let directories: std::collections::BTreeMap<&str, PathBuf> = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let manifest = Path::new(p["manifest_path"].as_str()?);
            Some((p["id"].as_str()?, manifest.parent()?.to_path_buf()))
        })
        .collect();
    let members: std::collections::BTreeSet<&str> = metadata["workspace_members"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|id| id.as_str())
        .collect();
    let mut features: Vec<(String, Vec<String>)> = metadata["resolve"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|node| {
            let id = node["id"].as_str()?;
            if !members.contains(id) {
                return None;
            }
            let directory = directories.get(id)?.strip_prefix(root.as_ref()?).ok()?;
            let mut on: Vec<String> = node["features"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| Some(f.as_str()?.to_string()))
                .collect();
            on.sort();
            Some((directory.to_string_lossy().into_owned(), on))
        })
        .collect();
    features.sort();
    features
}

/// The `cargo metadata` failures rust-analyzer logged: it then loads the workspace's own
/// crates without their dependencies (`--no-deps`). The standard library's workspace fails
/// the same way when its own dependencies are not in the local registry; its crates then
/// lose their links to each other, and method calls through `Iterator` go unresolved.
fn metadata_failures(said: &str) -> Vec<String> {
    const MARK: &str = "`cargo metadata` failed and returning succeeded result with `--no-deps`";
    let mut failures = Vec::new();
    let mut rest = said;
    while let Some(at) = rest.find(MARK) {
        let block = &rest[at + MARK.len()..];
        // The block runs until cargo's reminder, a backtrace or the next log line.
        let end = [
            "As a reminder",
            "Stack backtrace:",
            "\nrust-analyzer:",
            "\n20",
        ]
        .iter()
        .filter_map(|stop| block.find(stop))
        .min()
        .unwrap_or(block.len());
        let text = &block[..end];
        rest = &block[end..];
        // Cargo's progress lines (`Blocking waiting for file lock on package cache`, when
        // two loads share the registry) depend on timing: they are no part of the failure,
        // and a unit's answer must not change with them.
        let error = text
            .lines()
            .map(|line| {
                line.trim()
                    .trim_start_matches("error=")
                    .trim_start_matches("`cargo metadata` exited with an error: ")
                    .trim()
            })
            .filter(|line| !line.is_empty() && !line.starts_with("Blocking waiting for"))
            .collect::<Vec<_>>()
            .join(" ");
        failures.push(if text.contains("rustlib/src/rust/library") {
            format!(
                "the standard library's dependencies not loaded; cargo xtask setup fetches them ({error})"
            )
        } else {
            format!("dependencies not loaded ({error})")
        });
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_failures_are_reported_the_standard_library_s_apart() {
        let said = "rust-analyzer: Loading cargo metadata: failed exit status: 101
2026-11-30T04:19:54.275775185Z  WARN `cargo metadata` failed and returning succeeded result with `--no-deps` error=`cargo metadata` exited with an error:     Blocking waiting for file lock on package cache
error: no matching package named `serde` found
location searched: crates.io index
required by package `app v0.2.0 (/src/app)`
As a reminder, you're using offline mode (--offline) which can sometimes cause surprising resolution failures.
rust-analyzer: Loading cargo metadata: finished
2026-11-30T04:19:54.356632395Z  WARN `cargo metadata` failed and returning succeeded result with `--no-deps` error=`cargo metadata` exited with an error: error: no matching package named `object` found
location searched: crates.io index
required by package `std v0.0.0 (/root/.rustup/toolchains/stable/lib/rustlib/src/rust/library/std)`
As a reminder, you're using offline mode (--offline).
2026-11-30T04:19:55.000000000Z  WARN `cargo metadata` failed and returning succeeded result with `--no-deps` error=`cargo metadata` exited with an error: error: failed to download `libc v0.2.189`

Caused by:
  attempting to make an HTTP request, but --offline was specified

Stack backtrace:
   0: <anyhow::Error as core::convert::From<cargo_metadata::errors::Error>>::from
";
        let failures = metadata_failures(said);
        assert_eq!(
            failures[0],
            "dependencies not loaded (error: no matching package named `serde` found \
             location searched: crates.io index required by package `app v0.2.0 (/src/app)`)"
        );
        assert!(failures[1].starts_with("the standard library's dependencies not loaded"));
        assert_eq!(
            failures[2],
            "dependencies not loaded (error: failed to download `libc v0.2.189` Caused by: \
             attempting to make an HTTP request, but --offline was specified)"
        );
        assert_eq!(failures.len(), 3);
        assert!(metadata_failures("Generating SCIP finished").is_empty());
    }

    #[test]
    fn settings_become_rust_analyzer_configuration() {
        let settings = RustSettings {
            features: vec!["serde".into()],
            all_features: false,
            no_default_features: true,
            cfgs: vec!["tokio_unstable".into()],
            build_scripts: false,
            proc_macros: true,
            include_tests: false,
            allow_network: false,
            target_directory: PathBuf::from("/state/rust-target"),
            sysroot: "none".into(),
        };
        let config = settings.analyzer_config(None);
        assert_eq!(config["cargo"]["features"], serde_json::json!(["serde"]));
        assert_eq!(config["cargo"]["extraEnv"]["CARGO_NET_OFFLINE"], "true");
        assert_eq!(
            config["cargo"]["extraEnv"]["CARGO_TARGET_DIR"],
            "/state/rust-target"
        );
        assert_eq!(
            config["cargo"]["cfgs"],
            serde_json::json!(["debug_assertions", "miri", "tokio_unstable"])
        );
        assert_eq!(config["cargo"]["sysroot"], serde_json::Value::Null);
        assert_eq!(config["cfg"]["setTest"], false);
        assert_eq!(config["cargo"]["targetDir"], "/state/rust-target");
    }
}
