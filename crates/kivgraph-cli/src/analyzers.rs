//! Which exact analyzers this machine has, as `index` runs them and `doctor` reports them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use kivgraph_analyzers::{
    Analyzer, AnalyzerError, GoAnalyzer, GoSettings, RustAnalyzer, RustSettings, ScipIndexer,
    Toolchain,
};
use kivgraph_config::{
    LanguageToken, LoadedConfig, RepositoryEntry, ScipIndexerEntry, analyzers_dir,
};
use kivgraph_engine::{AnalyzerOptions, ConfiguredIndexer, LoadsAtOnce};
use kivgraph_facts::{DERIVED_NAMESPACE, Language};

/// The analyzers this machine has, each found (or found absent) on first use: asking a
/// Node-based analyzer its version starts `node` (0.4 s), so a pass asks only for the
/// analyzers of the languages it indexes.
pub struct Located<'a> {
    config: &'a LoadedConfig,
    found: [OnceLock<Result<Toolchain, AnalyzerError>>; 4],
}

/// The default `typescript.worker_command` means "the analyzer the setup script installed".
const DEFAULT_WORKER: &str = "kivgraph-ts-worker";
/// The default `rust.analyzer_command`: the pinned copy the setup script installed, else
/// the one beside the executable, else the `PATH`'s.
const DEFAULT_RUST_ANALYZER: &str = "rust-analyzer";

const ANALYZERS: [Analyzer; 4] = [
    Analyzer::Typescript,
    Analyzer::Python,
    Analyzer::Rust,
    Analyzer::Go,
];

pub fn locate(config: &LoadedConfig) -> Located<'_> {
    Located {
        config,
        found: Default::default(),
    }
}

impl Located<'_> {
    /// The analyzer's program, or why it is absent.
    pub fn get(&self, analyzer: Analyzer) -> &Result<Toolchain, AnalyzerError> {
        let slot = ANALYZERS
            .iter()
            .position(|a| *a == analyzer)
            .expect("every analyzer has a slot");
        self.found[slot].get_or_init(|| {
            let config = &self.config.config;
            let configured = match analyzer {
                Analyzer::Typescript => Some(config.typescript.worker_command.as_str())
                    .filter(|command| *command != DEFAULT_WORKER),
                Analyzer::Rust => Some(config.rust.analyzer_command.as_str())
                    .filter(|command| *command != DEFAULT_RUST_ANALYZER),
                Analyzer::Python | Analyzer::Go => None,
            };
            Toolchain::locate(analyzer, configured, &analyzers_dir())
        })
    }
}

/// Each SCIP indexer the configuration plugs in that decides one of `languages` (every one
/// when `None`), found or found absent.
pub fn configured_indexers<'a>(
    config: &'a LoadedConfig,
    languages: Option<&BTreeSet<Language>>,
) -> Vec<(&'a ScipIndexerEntry, Result<ScipIndexer, AnalyzerError>)> {
    config
        .config
        .scip
        .indexers
        .iter()
        .filter(|entry| {
            languages.is_none_or(|languages| {
                kivgraph_discovery::enabled_languages(&entry.languages)
                    .iter()
                    .any(|l| languages.contains(l))
            })
        })
        .map(|entry| (entry, ScipIndexer::locate(&entry.name, &entry.command)))
        .collect()
}

/// The processor count, capped: what `0` means for a bound on concurrent loads, each of
/// which holds a whole crate graph or type universe in memory.
fn loads(configured: i64) -> usize {
    match usize::try_from(configured) {
        Ok(0) | Err(_) => std::thread::available_parallelism().map_or(1, |n| n.get().min(4)),
        Ok(n) => n,
    }
}

/// rust-analyzer as the configuration's `rust` section runs it.
pub fn rust_analyzer(config: &LoadedConfig, toolchain: Toolchain) -> RustAnalyzer {
    RustAnalyzer {
        settings: rust_settings(config, &toolchain),
        toolchain,
    }
}

/// The configuration's `rust` section as rust-analyzer runs under it. `sysroot: discover`
/// takes the standard library of the toolchain the analyzer belongs to when it sits in
/// one (rustup's layout), so the analyzer and the sources it resolves `std` in are pinned
/// together.
fn rust_settings(config: &LoadedConfig, toolchain: &Toolchain) -> RustSettings {
    let rust = &config.config.rust;
    let sysroot = match rust.sysroot.as_str() {
        "discover" => toolchain_sysroot(&toolchain.program)
            .map_or_else(|| "discover".to_string(), |p| p.display().to_string()),
        other => other.to_string(),
    };
    let target_directory = rust
        .target_directory
        .as_deref()
        .map(PathBuf::from)
        .unwrap_or_else(|| config.paths.state_dir.join("rust-target"));
    RustSettings::of(rust, target_directory, sysroot)
}

/// The standard library as a derived provider, when `rust.index_sysroot` asks for it: the
/// repository `rust:<release>` over the sources of the sysroot the Rust analyzer loads, or
/// why there is none (no analyzer, no `rust-src`). Never a failure: the registered
/// repositories are indexed either way.
pub fn standard_library(
    config: &LoadedConfig,
    rust: Option<&RustAnalyzer>,
) -> Option<Result<RepositoryEntry, String>> {
    if !config.config.rust.index_sysroot {
        return None;
    }
    let Some(rust) = rust else {
        return Some(Err(
            "no Rust analyzer: the standard library is analysed by rust-analyzer".into(),
        ));
    };
    let library = Path::new(&rust.settings.sysroot).join("lib/rustlib/src/rust/library");
    if !library.join("Cargo.toml").is_file() {
        return Some(Err(format!(
            "no standard library sources at {} (rust.sysroot: {}); install rustup's rust-src component or run cargo xtask setup",
            library.display(),
            config.config.rust.sysroot
        )));
    }
    let release = rust
        .toolchain
        .version
        .split_whitespace()
        .next()
        .unwrap_or("unknown");
    // `core`, `alloc` and `std`: what code calls. The library's other crates (its tests,
    // `stdarch`, the panic runtimes…) are loaded by the analyzer with the workspace, not
    // published.
    let published = ["core", "alloc", "std"];
    let exclusions = std::fs::read_dir(&library)
        .map(|entries| {
            let mut excluded: Vec<String> = entries
                .filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|name| !published.contains(&name.as_str()))
                .collect();
            excluded.sort();
            excluded
        })
        .unwrap_or_default();
    Some(Ok(RepositoryEntry {
        name: format!("{DERIVED_NAMESPACE}{release}"),
        path: library,
        languages: vec![LanguageToken::Rust],
        manifests: Vec::new(),
        roots: Vec::new(),
        exclusions,
    }))
}

/// `<toolchain>` for a program at `<toolchain>/bin/rust-analyzer` whose toolchain carries
/// the standard library's sources.
pub fn toolchain_sysroot(program: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(program).ok()?;
    let toolchain = real.parent()?.parent()?;
    toolchain
        .join("lib/rustlib/src/rust/library")
        .is_dir()
        .then(|| toolchain.to_path_buf())
}

impl Located<'_> {
    /// What a pass over repositories of these languages runs: the analyzers of the other
    /// languages are not looked for. A missing analyzer is an absence the pass reports per
    /// repository, never a failure.
    pub fn into_options(self, languages: &BTreeSet<Language>) -> AnalyzerOptions {
        let config = self.config;
        let mut absent = Vec::new();
        let mut found = |analyzer: Analyzer, served: &[Language]| {
            if !served.iter().any(|l| languages.contains(l)) {
                return None;
            }
            match self.get(analyzer) {
                Ok(toolchain) => Some(toolchain.clone()),
                Err(error) => {
                    tracing::info!(%error, "analyzer absent; its language keeps syntax-layer facts");
                    absent.push((served[0], error.to_string()));
                    None
                }
            }
        };
        let typescript = found(
            Analyzer::Typescript,
            &[Language::TypeScript, Language::JavaScript],
        );
        let python = found(Analyzer::Python, &[Language::Python]);
        let rust = found(Analyzer::Rust, &[Language::Rust])
            .map(|toolchain| rust_analyzer(config, toolchain));
        let go = found(Analyzer::Go, &[Language::Go]).map(|toolchain| GoAnalyzer {
            toolchain,
            settings: GoSettings::of(&config.config.go),
        });
        // A configured indexer that cannot run leaves its languages to the built-in analyzers.
        let scip_indexers = configured_indexers(config, Some(languages))
            .into_iter()
            .filter_map(|(entry, found)| match found {
                Ok(indexer) => Some(ConfiguredIndexer {
                    indexer,
                    languages: kivgraph_discovery::enabled_languages(&entry.languages),
                    repositories: entry.repositories.clone(),
                }),
                Err(error) => {
                    tracing::warn!(%error, "configured SCIP indexer absent; the built-in analyzers decide its languages");
                    None
                }
            })
            .collect();
        AnalyzerOptions {
            typescript,
            python,
            rust,
            go,
            go_build: kivgraph_config::GoBuildContext::of(&config.config.go),
            scip_indexers,
            scratch: config.paths.state_dir.join("analyzer-scratch"),
            maximum_workers: usize::try_from(config.config.typescript.maximum_workers).unwrap_or(1),
            loads_at_once: LoadsAtOnce {
                rust_workspaces: loads(config.config.rust.maximum_workspaces),
                go_modules: loads(config.config.go.maximum_loads),
            },
            absent,
            deferred_repositories: Vec::new(),
        }
    }
}
