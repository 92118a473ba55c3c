//! `kivgraph doctor`: one line per check, then `doctor: PASS|FAIL`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::anyhow;
use kivgraph_analyzers::Analyzer;
use kivgraph_config::{LoadedConfig, Registry};
use kivgraph_snapshot::Snapshot;
use kivgraph_store::{GenerationId, GenerationStore};

use crate::context::ConfigArg;

#[derive(clap::Args, Debug)]
pub struct DoctorArgs {
    #[command(subcommand)]
    command: Option<DoctorCommand>,
    #[command(flatten)]
    config: ConfigArg,
}

mod storage;

#[derive(clap::Subcommand, Debug)]
enum DoctorCommand {
    /// Inspect one canonical database read-only: location, size, permissions, digest,
    /// engine, schema and counts against its generation's manifest.
    Storage {
        #[command(flatten)]
        config: ConfigArg,
        /// The database file (default: the active generation's).
        #[arg(long, value_name = "PATH")]
        database: Option<PathBuf>,
    },
    /// Check the graph invariants of a published generation, without modifying it.
    Graph {
        #[command(flatten)]
        config: ConfigArg,
        /// The generation to check (default: the active one).
        #[arg(long, value_name = "ID", add = clap_complete::engine::ArgValueCompleter::new(crate::commands::completion::generations))]
        generation: Option<String>,
        /// Check this canonical database file instead, read-only.
        #[arg(long, value_name = "PATH", conflicts_with = "generation")]
        database: Option<PathBuf>,
    },
    /// Audit whether each registered repository can be indexed, and say what to change.
    Repositories {
        #[command(flatten)]
        config: ConfigArg,
        /// Audit one repository only.
        #[arg(long, value_name = "NAME")]
        repository: Option<String>,
        /// Print the whole report as one JSON object.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Default)]
pub(super) struct Report {
    failed: bool,
}

impl Report {
    fn pass(&mut self, check: &str, detail: impl std::fmt::Display) {
        println!("{check}: PASS ({detail})");
    }
    fn warn(&mut self, check: &str, detail: impl std::fmt::Display) {
        println!("{check}: WARN ({detail})");
    }
    fn fail(&mut self, check: &str, detail: impl std::fmt::Display) {
        self.failed = true;
        println!("{check}: FAIL ({detail})");
    }
    fn finish(self) -> ExitCode {
        if self.failed {
            println!("doctor: FAIL");
            ExitCode::FAILURE
        } else {
            println!("doctor: PASS");
            ExitCode::SUCCESS
        }
    }
}

pub fn run(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        Some(DoctorCommand::Graph {
            config,
            generation,
            database,
        }) => return run_graph(config, generation, database),
        Some(DoctorCommand::Storage { config, database }) => {
            return storage::run(config, database);
        }
        Some(DoctorCommand::Repositories {
            config,
            repository,
            json,
        }) => {
            let loaded = LoadedConfig::load(&config.path())?;
            return super::audit::run(&loaded, repository.as_deref(), json);
        }
        None => {}
    }
    let mut report = Report::default();
    let config_path = args.config.path();
    let config = match LoadedConfig::load(&config_path) {
        Ok(config) => {
            report.pass("config", config_path.display());
            config
        }
        Err(err) => {
            report.fail("config", err);
            return Ok(report.finish());
        }
    };
    let retired = config.retired_keys();
    if !retired.is_empty() {
        report.warn(
            "config.retired",
            format!("{} retired and ignored; delete them", retired.join(", ")),
        );
    }
    for (check, path) in [
        ("state.root", &config.paths.state_dir),
        ("state.fact_cache", &config.fact_cache_path),
    ] {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() && !meta.permissions().readonly() => {
                report.pass(check, path.display())
            }
            Ok(_) => report.fail(
                check,
                format!("{} is not a writable directory", path.display()),
            ),
            Err(_) => report.pass(
                check,
                format!("{} (created by the first index)", path.display()),
            ),
        }
    }
    match Registry::load(&config.repositories_file) {
        Ok(registry) if registry.repositories.is_empty() => report.fail(
            "repositories",
            format!(
                "none registered in {}: run kivgraph init --repository NAME=PATH",
                config.repositories_file.display()
            ),
        ),
        Ok(registry) => {
            report.pass(
                "repositories",
                format!(
                    "{} registered in {}",
                    registry.repositories.len(),
                    config.repositories_file.display()
                ),
            );
            for entry in &registry.repositories {
                let languages: Vec<&str> = entry.languages.iter().map(|l| l.as_str()).collect();
                let check = format!("repository.{}", entry.name);
                if entry.path.is_dir() {
                    report.pass(
                        &check,
                        format!("{}; {}", entry.path.display(), languages.join(", ")),
                    );
                } else {
                    report.fail(
                        &check,
                        format!("{} is not a readable directory", entry.path.display()),
                    );
                }
                if entry
                    .languages
                    .contains(&kivgraph_config::LanguageToken::Dart)
                {
                    report.warn(&check, "dart is accepted but this build has no Dart extractor; its files are not indexed");
                }
            }
        }
        Err(err) => report.fail("repositories", err),
    }
    check_toolchains(&mut report, &config);
    let store = GenerationStore::new(config.generation_store());
    check_graph(&mut report, &store);
    check_live(&mut report, &config, &store);
    Ok(report.finish())
}

/// The processes that keep the graph live: the watcher (and the kernel's watch limit it
/// depends on) and the daemon with its owner.
fn check_live(report: &mut Report, config: &LoadedConfig, store: &GenerationStore) {
    match store.watcher_status() {
        _ if !config.config.watcher.enabled => {
            report.pass("watcher", "disabled by watcher.enabled: answers reflect the last index --full")
        }
        Some(status) if status.running() => {
            let missed: Vec<&str> = status
                .repositories
                .iter()
                .filter(|r| !r.watching)
                .map(|r| r.name.as_str())
                .collect();
            let detail = format!(
                "pid {} watches {} of {} repositories{}",
                status.process.pid,
                status.repositories.len() - missed.len(),
                status.repositories.len(),
                if status.busy_since_unix_ms.is_some() { "; changes are being published" } else { "" }
            );
            if missed.is_empty() {
                report.pass("watcher", detail);
            } else {
                report.warn("watcher", format!("{detail}; not watched (reconciliation only): {}", missed.join(", ")));
            }
        }
        Some(status) => report.warn(
            "watcher",
            format!(
                "the watcher (pid {}) stopped: answers may describe code changed since; run kivgraph daemon or kivgraph watch",
                status.process.pid
            ),
        ),
        None => report.pass(
            "watcher",
            "none has run: answers reflect the last index --full (kivgraph daemon or kivgraph watch keeps them current)",
        ),
    }
    if let Ok(limit) = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches") {
        report.pass(
            "watcher.limit",
            format!(
                "fs.inotify.max_user_watches = {} (one per watched directory)",
                limit.trim()
            ),
        );
    }
    match store.daemon_record() {
        Some(record) if record.process.alive() => report.pass(
            "daemon",
            format!("pid {} serves MCP at {} and {}", record.process.pid, record.url, record.socket.display()),
        ),
        Some(record) => report.warn(
            "daemon",
            format!(
                "the daemon (pid {}) died without removing daemon.json: clients of {} fail until it runs again",
                record.process.pid, record.url
            ),
        ),
        None => report.pass("daemon", "not running: each client runs a serve of its own"),
    }
    match super::daemon::Owner::of(store) {
        Ok(owner) => report.pass("daemon.owner", owner.describe()),
        Err(err) => report.warn("daemon.owner", err),
    }
}

/// The exact analyzers: which program answered, its version and where it came from. An
/// absent one is a warning — its languages keep the syntax layer's facts — never a failure.
fn check_toolchains(report: &mut Report, config: &LoadedConfig) {
    let located = crate::analyzers::locate(config);
    for (check, found, languages) in [
        (
            "toolchain.typescript",
            located.get(Analyzer::Typescript),
            "TypeScript and JavaScript keep",
        ),
        (
            "toolchain.python",
            located.get(Analyzer::Python),
            "Python keeps",
        ),
        ("toolchain.rust", located.get(Analyzer::Rust), "Rust keeps"),
        ("toolchain.go", located.get(Analyzer::Go), "Go keeps"),
    ] {
        match found {
            Ok(toolchain) => report.pass(
                check,
                format!(
                    "{} at {} ({})",
                    toolchain.identity(),
                    toolchain.program.display(),
                    toolchain.source
                ),
            ),
            Err(error) => report.warn(
                check,
                format!("{error}; {languages} syntax-layer facts (STRUCTURAL_CERTAIN where the language proves them, CANDIDATE otherwise)"),
            ),
        }
    }
    for (entry, found) in crate::analyzers::configured_indexers(config, None) {
        let check = format!("toolchain.scip.{}", entry.name);
        match found {
            Ok(indexer) => report.pass(
                &check,
                format!(
                    "{} ({}), configured for {}",
                    indexer.identity(),
                    indexer.command.join(" "),
                    entry
                        .languages
                        .iter()
                        .map(|l| l.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            Err(error) => report.warn(
                &check,
                format!("{error}; the built-in analyzers decide its languages"),
            ),
        }
    }
    if let Ok(rust) = located.get(Analyzer::Rust) {
        match crate::analyzers::toolchain_sysroot(&rust.program) {
            Some(sysroot) => report.pass(
                "toolchain.rust_src",
                format!("standard library sources under {}", sysroot.display()),
            ),
            None => report.warn(
                "toolchain.rust_src",
                "no standard library sources beside rust-analyzer (rust.sysroot: discover asks cargo's toolchain); calls into std stay unresolved without them — run cargo xtask setup",
            ),
        }
    }
    if let Ok(toolchain) = located.get(Analyzer::Rust) {
        let rust = crate::analyzers::rust_analyzer(config, toolchain.clone());
        match crate::analyzers::standard_library(config, Some(&rust)) {
            Some(Ok(entry)) => report.pass(
                "rust.index_sysroot",
                format!(
                    "publishes {} from {} (withheld by the read tools unless asked)",
                    entry.name,
                    entry.path.display()
                ),
            ),
            Some(Err(why)) => report.warn("rust.index_sysroot", why),
            None => {}
        }
    } else if config.config.rust.index_sysroot {
        report.warn(
            "rust.index_sysroot",
            "set, but no Rust analyzer: the standard library is not indexed",
        );
    }
    if let Ok(go) = located.get(Analyzer::Go) {
        check_go_ceiling(report, config, &go.version);
    }
    // rust-analyzer reads each workspace through `cargo metadata`.
    match std::process::Command::new("cargo")
        .arg("--version")
        .output()
    {
        Ok(output) if output.status.success() => report.pass(
            "toolchain.cargo",
            String::from_utf8_lossy(&output.stdout).trim().to_string(),
        ),
        _ => report.warn(
            "toolchain.cargo",
            "cargo is not on the PATH; rust-analyzer cannot load a Cargo workspace without it",
        ),
    }
}

/// `major.minor` of a Go version (`go1.27.4`, `1.21`, `1.22rc1`).
fn go_language_version(version: &str) -> Option<(u32, u32)> {
    let version = version.trim().trim_start_matches("go");
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor: String = parts
        .next()
        .unwrap_or("0")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((major, minor.parse().ok()?))
}

/// The Go language version the worker type-checks with, against the highest `go` directive
/// of a registered module: a module above it cannot be loaded, and is named.
fn check_go_ceiling(report: &mut Report, config: &LoadedConfig, worker_version: &str) {
    // The worker answers `3 go1.27.4`: its protocol, then the Go it was built with.
    let go = worker_version.rsplit(' ').next().unwrap_or(worker_version);
    let Some(ceiling) = go_language_version(go) else {
        report.warn(
            "toolchain.typecheck",
            format!("cannot read the worker's Go version {go:?}"),
        );
        return;
    };
    let registry = Registry::load(&config.repositories_file).unwrap_or_default();
    let mut highest: Option<((u32, u32), String, String, String)> = None;
    let go_build = kivgraph_config::GoBuildContext::of(&config.config.go);
    for entry in &registry.repositories {
        let Ok(discovered) = kivgraph_discovery::discover_repository(entry, &go_build) else {
            continue;
        };
        for module in discovered.module_maps.go_modules.values() {
            let Some(version) = module.go_version.as_deref() else {
                continue;
            };
            let Some(parsed) = go_language_version(version) else {
                continue;
            };
            if highest.as_ref().is_none_or(|(h, ..)| parsed > *h) {
                highest = Some((
                    parsed,
                    entry.name.clone(),
                    module.path.clone(),
                    version.to_string(),
                ));
            }
        }
    }
    let stated = format!("go{}.{}", ceiling.0, ceiling.1);
    match highest {
        Some((version, repository, module, spelled)) if version > ceiling => report.fail(
            "toolchain.typecheck",
            format!("registered Go module requires a newer Go language version than this build supports (this build type-checks with {stated}): repository \"{repository}\" module \"{module}\" requires go {spelled}; rebuild the Go worker with that toolchain or drop \"go\" from the languages of that repository"),
        ),
        Some((_, _, _, spelled)) => report.pass(
            "toolchain.typecheck",
            format!("{stated} (highest registered module: go {spelled})"),
        ),
        None => report.pass(
            "toolchain.typecheck",
            format!("{stated} (no registered Go module)"),
        ),
    }
}

fn check_graph(report: &mut Report, store: &GenerationStore) {
    let current = match store.current() {
        Ok(Some(current)) => current,
        Ok(None) => {
            for check in [
                "graph.store",
                "snapshot.digest",
                "database",
                "snapshot",
                "unresolved",
            ] {
                report.pass(check, "no published generation");
            }
            return;
        }
        Err(err) => {
            report.fail("graph.store", err);
            return;
        }
    };
    let backup = store
        .backup()
        .ok()
        .flatten()
        .map(|b| b.to_string())
        .unwrap_or_else(|| "none".into());
    report.pass(
        "graph.store",
        format!(
            "active {current}, backup {backup}, {}",
            store.root().display()
        ),
    );
    match store.verify(current) {
        Ok(manifest) => report.pass(
            "snapshot.digest",
            format!(
                "facts {} · snapshot {}",
                &manifest.digests.facts[..16],
                &manifest.digests.snapshot_payload[..16]
            ),
        ),
        Err(err) => report.fail("snapshot.digest", err),
    }
    // Its digest was checked with the snapshot's; `doctor storage` opens it.
    match store.manifest(current).map(|manifest| manifest.graph) {
        Ok(Some(entry)) => report.pass(
            "database",
            format!(
                "{}, {} bytes, schema {}; kivgraph doctor storage opens it",
                entry.file, entry.bytes, entry.counts.schema_version
            ),
        ),
        Ok(None) => report.warn(
            "database",
            format!(
                "generation {current} carries no canonical database (published before \
                 generations did); the next index --full writes one"
            ),
        ),
        Err(err) => report.fail("database", err),
    }
    let started = Instant::now();
    match Snapshot::open(&store.snapshot_path(current)) {
        Ok(snapshot) => {
            let probe = snapshot
                .symbols()
                .next()
                .map(|s| s.name().to_string())
                .unwrap_or_default();
            let found = snapshot.symbols_named(&probe).len();
            let elapsed = started.elapsed().as_secs_f64() * 1000.0;
            report.pass(
                "snapshot",
                format!(
                    "mapped {} bytes; {} symbols, {} files; validated and answered a lookup ({found}) in {elapsed:.1} ms",
                    snapshot.len_bytes(),
                    snapshot.symbol_count(),
                    snapshot.file_count()
                ),
            );
            let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
            for row in snapshot.unresolved() {
                *reasons.entry(row.reason()).or_default() += 1;
            }
            let detail: Vec<String> = reasons
                .iter()
                .map(|(reason, count)| format!("{reason} {count}"))
                .collect();
            let detail = if detail.is_empty() {
                "none".to_string()
            } else {
                detail.join(", ")
            };
            report.pass(
                "unresolved",
                format!("{} declared: {detail}", snapshot.unresolved_count()),
            );
        }
        Err(err) => report.fail(
            "snapshot",
            format!(
                "{err}; kivgraph snapshot rebuilds it from the generation's canonical database, \
                 kivgraph rollback returns to the backup"
            ),
        ),
    }
}

fn run_graph(
    config: ConfigArg,
    generation: Option<String>,
    database: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    // A database is read back table by table; a generation's facts come from its pages.
    let (facts, checked) = match database {
        Some(path) => {
            let pages =
                kivgraph_graphdb::GraphReader::open(&path)?.pages(kivgraph_facts::PAGE_COUNT)?;
            let facts = kivgraph_facts::FactSet::from_pages(pages.into_iter().map(|(_, f)| f));
            (facts, path.display().to_string())
        }
        None => {
            let store = config.load()?.store(None);
            let id = match generation {
                Some(text) => GenerationId::parse(&text)
                    .ok_or_else(|| anyhow!("--generation {text:?} is not a generation id"))?,
                None => store
                    .current()?
                    .ok_or_else(|| anyhow!("no published generation to check"))?,
            };
            (store.facts(id)?, format!("generation {id}"))
        }
    };
    let mut failed = false;
    for rule in facts.check_invariants() {
        if rule.count == 0 {
            println!("{}: PASS (0)", rule.rule);
        } else {
            failed = true;
            println!("{}: FAIL ({})", rule.rule, rule.count);
            for sample in &rule.samples {
                println!("  {sample}");
            }
        }
    }
    println!(
        "doctor graph: {} ({checked})",
        if failed { "FAIL" } else { "PASS" }
    );
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
