//! Indexing benchmark: cold and warm passes over a real corpus, in-process incremental
//! updates through the engine API, and what it costs to open the published snapshot.
//!
//! ```text
//! benchmarks/fetch-corpus.sh
//! cargo build --release -p kivgraph-cli -p kivgraph-benchmarks
//! $CARGO_TARGET_DIR/release/kivgraph-bench index --kivgraph $CARGO_TARGET_DIR/release/kivgraph
//! ```
//! Prints a JSON report on stdout; `docs/benchmarks.md` quotes it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use kivgraph_config::{LanguageToken, RepositoryEntry};
use kivgraph_engine::{Engine, load_repository};
use kivgraph_facts::Fingerprint;
use kivgraph_snapshot::Snapshot;
use kivgraph_store::GenerationStore;
use serde_json::{Value, json};

mod accuracy;
mod analyzers;
mod answers;
mod checkpoint;
mod client;
mod crossrepo;
mod crossrepo_truth;
mod cypher;
mod daemon;
mod go_files;
mod intent;
#[path = "../../../tests/common/mcp_http.rs"]
mod mcp_http;
mod navigate;
mod pipeline;
mod references;
mod serve;
mod sites;
mod tokens;
mod watch;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("index") => index_benchmark(&args[1..]),
        Some("serve") => serve::serve_benchmark(&args[1..]),
        Some("cypher") => cypher::cypher_benchmark(&args[1..]),
        Some("checkpoint") => checkpoint::checkpoint_benchmark(&args[1..]),
        Some("pipeline") => pipeline::pipeline_benchmark(&args[1..]),
        Some("navigate") => navigate::navigate_benchmark(&args[1..]),
        Some("intent") => intent::intent_benchmark(&args[1..]),
        Some("sites") => sites::sites_benchmark(&args[1..]),
        Some("references") => references::references_benchmark(&args[1..]),
        Some("accuracy") => accuracy::accuracy_benchmark(&args[1..]),
        Some("crossrepo") => crossrepo::crossrepo_benchmark(&args[1..]),
        Some("crossrepo-truth") => crossrepo_truth::crossrepo_truth(&args[1..]),
        Some("analyzers") => analyzers::analyzers_benchmark(&args[1..]),
        Some("answers") => answers::answers_benchmark(&args[1..]),
        Some("go-files") => go_files::go_files_benchmark(&args[1..]),
        Some("watch") => watch::watch_benchmark(&args[1..]),
        Some("daemon") => daemon::daemon_benchmark(&args[1..]),
        Some("open-lookup") => open_lookup(&args[1..]),
        Some("edge-sample") => edge_sample(&args[1..]),
        Some("dispatch-sample") => dispatch_sample(&args[1..]),
        Some("unresolved-packages") => unresolved_packages(&args[1..]),
        _ => bail!(
            "usage: kivgraph-bench index|serve|cypher|pipeline|watch|daemon|references|accuracy|crossrepo|analyzers --kivgraph BIN [--corpus DIR] | answers --kivgraph BIN --work DIR [--languages L,…] | crossrepo-truth rust [--write|--survey] | navigate [--corpus DIR] | checkpoint --database PATH | go-files --go PATH DIR... | intent --kivgraph BIN | sites [--corpus DIR] | open-lookup SNAPSHOT NAME | edge-sample SNAPSHOT KIND LANGUAGE CONFIDENCE N | dispatch-sample SNAPSHOT N | unresolved-packages SNAPSHOT REASON"
        ),
    }
}

/// `--corpus DIR`, else where `benchmarks/fetch-corpus.sh` caches the corpus.
pub(crate) fn corpus_dir(args: &[String]) -> PathBuf {
    flag(args, "--corpus")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/kivgraph/corpus")
        })
}

/// The `p` quantile of `samples` (sorted in place), nearest rank.
pub(crate) fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(|a, b| a.total_cmp(b));
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

pub(crate) fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// A benchmark's workspace in scratch space: the `kivgraph` binary `--kivgraph` names, the
/// corpus, and a configuration registering its Go, TypeScript and Python parts with the fact
/// cache `fact_cache`. Returns (binary, corpus, work directory, configuration).
pub(crate) fn corpus_workspace(
    args: &[String],
    name: &str,
    fact_cache: &str,
) -> anyhow::Result<(PathBuf, PathBuf, PathBuf, PathBuf)> {
    let kivgraph = PathBuf::from(flag(args, "--kivgraph").context("--kivgraph BIN is required")?);
    let corpus = corpus_dir(args);
    let entries: Vec<_> = corpus_entries(&corpus)?
        .into_iter()
        .filter(|e| e.name != "crates")
        .collect();
    let work = std::env::temp_dir().join(format!("kivgraph-{name}-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let config = write_config(&work, &entries, fact_cache)?;
    Ok((kivgraph, corpus, work, config))
}

/// The corpus as registered repositories: one per ecosystem directory.
pub(crate) fn corpus_entries(corpus: &Path) -> anyhow::Result<Vec<RepositoryEntry>> {
    let all = vec![
        LanguageToken::Go,
        LanguageToken::Typescript,
        LanguageToken::Rust,
        LanguageToken::Python,
    ];
    let mut entries = Vec::new();
    for (name, dir) in [
        ("crates", "rust/src"),
        ("debian-go", "go/src"),
        ("npm", "ts"),
        ("pypi", "python"),
    ] {
        let path = corpus.join(dir);
        if !path.is_dir() {
            bail!(
                "{} is missing: run benchmarks/fetch-corpus.sh first",
                path.display()
            );
        }
        entries.push(RepositoryEntry {
            name: name.into(),
            path,
            languages: all.clone(),
            manifests: vec![],
            roots: vec![],
            exclusions: vec![],
        });
    }
    Ok(entries)
}

pub(crate) fn write_config(
    dir: &Path,
    entries: &[RepositoryEntry],
    mode: &str,
) -> anyhow::Result<PathBuf> {
    let registry = kivgraph_config::Registry {
        version: 1,
        repositories: entries.to_vec(),
    };
    std::fs::write(dir.join("repositories.yaml"), registry.to_yaml())?;
    let config = dir.join("config.yaml");
    std::fs::write(
        &config,
        format!("version: 1\nindexing:\n  fact_cache: {mode}\n"),
    )?;
    Ok(config)
}

/// Peak resident memory of the largest waited-for child, in KiB.
pub(crate) fn children_max_rss_kib() -> i64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we own.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss
}

/// Runs `kivgraph index --full --json`, returning (seconds, result event).
/// Which exact analyzers a benchmark's pass may run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Analyzers {
    /// None: the syntax layer alone, as every figure measured before the analyzers existed.
    SyntaxOnly,
    /// Whatever `cargo xtask setup` installed.
    Installed,
}

pub(crate) fn run_index(
    kivgraph: &Path,
    config: &Path,
    analyzers: Analyzers,
) -> anyhow::Result<(f64, Value)> {
    run_json(kivgraph, &["index", "--full", "--json"], config, analyzers)
}

/// Runs `kivgraph ARGS --config CONFIG` (a `--json` command), returning (seconds, its
/// `result`), which must have passed.
pub(crate) fn run_json(
    kivgraph: &Path,
    args: &[&str],
    config: &Path,
    analyzers: Analyzers,
) -> anyhow::Result<(f64, Value)> {
    let started = Instant::now();
    let mut command = Command::new(kivgraph);
    command.args(args).arg("--config").arg(config);
    if analyzers == Analyzers::SyntaxOnly {
        command
            .env("KIVGRAPH_ANALYZERS_DIR", "/nonexistent/kivgraph-analyzers")
            .env("PATH", "/usr/bin:/bin");
    }
    let out = command.output()?;
    let seconds = started.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout
        .lines()
        .last()
        .with_context(|| format!("{args:?} printed nothing"))?;
    let event: Value = serde_json::from_str(last)?;
    if event["result"]["passed"] != true {
        bail!("{args:?} failed: {}", event["result"]["error"]);
    }
    Ok((seconds, event["result"].clone()))
}

/// Appends a comment to one mid-sized source file; returns its path and original bytes.
fn edit_one_file(corpus: &Path) -> anyhow::Result<(PathBuf, Vec<u8>)> {
    let path = corpus.join("go/src/golang.org/x/tools/go/packages/packages.go");
    let original = std::fs::read(&path).with_context(|| path.display().to_string())?;
    let mut edited = original.clone();
    edited.extend_from_slice(b"\n// benchmark edit\nfunc BenchmarkEditAdded() {}\n");
    std::fs::write(&path, &edited)?;
    Ok((path, original))
}

fn index_benchmark(args: &[String]) -> anyhow::Result<()> {
    let kivgraph = PathBuf::from(flag(args, "--kivgraph").context("--kivgraph BIN is required")?);
    let corpus = corpus_dir(args);
    let entries = corpus_entries(&corpus)?;
    let work = std::env::temp_dir().join(format!("kivgraph-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;

    // 1. Cold pass through the CLI, fact cache off.
    let cold_dir = work.join("cold");
    std::fs::create_dir_all(&cold_dir)?;
    let cold_config = write_config(&cold_dir, &entries, "off")?;
    let (cold_seconds, cold) = run_index(&kivgraph, &cold_config, Analyzers::SyntaxOnly)?;
    let cold_rss_kib = children_max_rss_kib();
    let store = GenerationStore::new(cold_dir.join("state"));
    let generation = store.current()?.context("no generation")?;
    let facts = store.facts(generation)?;
    let lines: u64 = facts.files.iter().map(|f| u64::from(f.line_count)).sum();
    let files = facts.files.len();
    let symbols = facts.symbols.len();
    let snapshot_path = store.snapshot_path(generation);
    let snapshot_bytes = snapshot_len(&snapshot_path)?;

    // 2. Warm passes through the CLI with the fact cache on: unchanged, then one file edited.
    let warm_dir = work.join("warm");
    std::fs::create_dir_all(&warm_dir)?;
    let warm_config = write_config(&warm_dir, &entries, "on")?;
    let (populate_seconds, _) = run_index(&kivgraph, &warm_config, Analyzers::SyntaxOnly)?;
    let (unchanged_seconds, unchanged) = run_index(&kivgraph, &warm_config, Analyzers::SyntaxOnly)?;
    let (edited_path, original) = edit_one_file(&corpus)?;
    let edited = run_index(&kivgraph, &warm_config, Analyzers::SyntaxOnly);
    std::fs::write(&edited_path, &original)?;
    let (edited_seconds, edited) = edited?;

    // 3. In process, through the engine API as watch mode uses it.
    let loaded_started = Instant::now();
    let mut loaded: Vec<_> = entries
        .iter()
        .map(|e| {
            kivgraph_discovery::discover_repository(e, &Default::default()).map(load_repository)
        })
        .collect::<Result<_, _>>()?;
    let read_seconds = loaded_started.elapsed().as_secs_f64();
    let mut engine = Engine::new();
    let started = Instant::now();
    engine.update(&loaded);
    let in_process_cold = engine.facts(&|_| {});
    let in_process_cold_seconds = started.elapsed().as_secs_f64();
    let repository = loaded
        .iter_mut()
        .find(|l| l.discovered.name == "debian-go")
        .context("go corpus")?;
    let position = repository
        .discovered
        .files
        .iter()
        .position(|f| f.path == "golang.org/x/tools/go/packages/packages.go")
        .context("edited file")?;
    let (_, text, _) = repository.sources[position].clone().context("source")?;
    let new_text: Arc<str> =
        format!("{text}\n// benchmark edit\nfunc BenchmarkEditAdded() {{}}\n").into();
    repository.sources[position] = Some((
        Fingerprint::of(new_text.as_bytes()),
        new_text.clone(),
        new_text.len() as u64,
    ));
    engine.execution_log().take();
    let started = Instant::now();
    engine.update(&loaded);
    let in_process_edit = engine.facts(&|_| {});
    let in_process_edit_seconds = started.elapsed().as_secs_f64();
    let reexecuted = engine.execution_log().count("file_facts");
    anyhow::ensure!(
        in_process_edit.symbol_count() == in_process_cold.symbol_count() + 1,
        "the edit adds one symbol"
    );

    // 4. A fresh process opens the published snapshot and answers a lookup.
    let me = std::env::current_exe()?;
    let probe = Command::new(&me)
        .arg("open-lookup")
        .arg(&snapshot_path)
        .arg("Parse")
        .output()?;
    let opened: Value = serde_json::from_slice(&probe.stdout).context("open-lookup output")?;

    // 5. The same on a generation of about 100,000 symbols (the Go and Python parts).
    let small_dir = work.join("small");
    std::fs::create_dir_all(&small_dir)?;
    let small_entries: Vec<_> = entries
        .iter()
        .filter(|e| e.name == "debian-go" || e.name == "pypi")
        .cloned()
        .collect();
    let small_config = write_config(&small_dir, &small_entries, "off")?;
    run_index(&kivgraph, &small_config, Analyzers::SyntaxOnly)?;
    let small_store = GenerationStore::new(small_dir.join("state"));
    let small_snapshot =
        small_store.snapshot_path(small_store.current()?.context("no generation")?);
    let probe = Command::new(&me)
        .arg("open-lookup")
        .arg(&small_snapshot)
        .arg("Parse")
        .output()?;
    let small_opened: Value =
        serde_json::from_slice(&probe.stdout).context("open-lookup output")?;
    let small_bytes = snapshot_len(&small_snapshot)?;

    let _ = std::fs::remove_dir_all(&work);
    let report = json!({
        "corpus": {"lines": lines, "files": files, "symbols": symbols, "repositories": entries.len()},
        "cold_cli": {
            "seconds": cold_seconds,
            "lines_per_minute": lines as f64 / cold_seconds * 60.0,
            "files_per_second": files as f64 / cold_seconds,
            "peak_rss_mib": cold_rss_kib as f64 / 1024.0,
            "files_analyzed": cold["index"]["files_analyzed"],
        },
        "warm_cli": {
            "populate_seconds": populate_seconds,
            "unchanged_seconds": unchanged_seconds,
            "unchanged_files_analyzed": unchanged["index"]["files_analyzed"],
            "one_file_edit_seconds": edited_seconds,
            "one_file_edit_files_analyzed": edited["index"]["files_analyzed"],
            "one_file_edit_ratio_to_cold": edited_seconds / cold_seconds,
            "fact_cache_bytes": edited["index"]["fact_cache_bytes"],
        },
        "in_process": {
            "read_and_fingerprint_seconds": read_seconds,
            "cold_seconds": in_process_cold_seconds,
            "one_file_edit_seconds": in_process_edit_seconds,
            "one_file_edit_ratio_to_cold": in_process_edit_seconds / in_process_cold_seconds,
            "file_extractions_reexecuted": reexecuted,
        },
        "snapshot": {
            "bytes": snapshot_bytes,
            "bytes_per_symbol": snapshot_bytes as f64 / symbols as f64,
            "open_and_lookup": opened,
            "private_anon_ratio_to_snapshot": opened["rss_anon_growth_kib"].as_f64().unwrap_or(0.0) * 1024.0 / snapshot_bytes as f64,
        },
        "snapshot_about_100k_symbols": {
            "bytes": small_bytes,
            "open_and_lookup": small_opened,
        },
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

/// `RssAnon` and `RssFile` of this process, in KiB.
fn rss() -> (i64, i64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (field("RssAnon:"), field("RssFile:"))
}

/// The bytes of a snapshot: its root and its pages.
fn snapshot_len(root: &Path) -> anyhow::Result<u64> {
    Ok(Snapshot::open(root)?.len_bytes() as u64)
}

/// In a fresh process: open (map + validate) the snapshot, answer a name lookup, and report
/// how much private memory that cost.
fn open_lookup(args: &[String]) -> anyhow::Result<()> {
    let [path, name] = args else {
        bail!("open-lookup SNAPSHOT NAME")
    };
    let (anon_before, file_before) = rss();
    let started = Instant::now();
    let snapshot = Snapshot::open(Path::new(path))?;
    let opened = started.elapsed().as_secs_f64() * 1000.0;
    let lookup_started = Instant::now();
    let found = snapshot.symbols_named(name);
    let locations: Vec<String> = found
        .iter()
        .take(3)
        .map(|s| format!("{}:{}", s.file().path(), s.span().start_line))
        .collect();
    let lookup = lookup_started.elapsed().as_secs_f64() * 1000.0;
    let (anon_after, file_after) = rss();
    println!(
        "{}",
        json!({
            "open_ms": opened,
            "lookup_ms": lookup,
            "open_and_lookup_ms": opened + lookup,
            "matches": found.len(),
            "first": locations,
            "symbols": snapshot.symbol_count(),
            "rss_anon_growth_kib": anon_after - anon_before,
            "rss_file_growth_kib": file_after - file_before,
        })
    );
    Ok(())
}

/// `edge-sample SNAPSHOT KIND LANGUAGE CONFIDENCE N`: N edges of one kind, language (of the
/// file holding the evidence) and confidence, taken at an even stride, each as the evidence
/// line and both ends: the sample `docs/benchmarks.md` checks by hand.
fn edge_sample(args: &[String]) -> anyhow::Result<()> {
    let [path, kind, language, confidence, count] = args else {
        bail!("edge-sample SNAPSHOT KIND LANGUAGE CONFIDENCE N")
    };
    let snapshot = Snapshot::open(Path::new(path))?;
    let kind = kivgraph_facts::EdgeKind::parse(kind)?;
    let confidence = kivgraph_facts::Confidence::parse(confidence)?;
    let language = kivgraph_facts::Language::parse(language)?;
    let count: usize = count.parse()?;
    let node = |node: kivgraph_snapshot::NodeRef| match node {
        kivgraph_snapshot::NodeRef::Symbol(i) => snapshot.symbol(i).map(|s| {
            format!(
                "{}:{}#{}",
                s.file().path(),
                s.span().start_line,
                s.qualified_name()
            )
        }),
        kivgraph_snapshot::NodeRef::File(i) => {
            snapshot.file(i).map(|f| format!("{}#<module>", f.path()))
        }
        kivgraph_snapshot::NodeRef::Package(i) => snapshot.package(i).map(|p| p.name().to_string()),
        _ => None,
    };
    let matching: Vec<_> = snapshot
        .edges()
        .filter(|e| e.kind() == kind && e.confidence() == confidence)
        .filter(|e| {
            e.evidence()
                .and_then(|v| v.file())
                .is_some_and(|f| f.language() == language)
        })
        .collect();
    let stride = (matching.len() / count.max(1)).max(1);
    println!("{} edges match", matching.len());
    for edge in matching.iter().step_by(stride).take(count) {
        let evidence = edge.evidence().context("evidence")?;
        println!(
            "{}:{}  {} -> {}",
            evidence.file().context("evidence file")?.path(),
            evidence.lines().0,
            node(edge.source()).unwrap_or_default(),
            node(edge.target()).unwrap_or_default()
        );
    }
    Ok(())
}

/// `dispatch-sample SNAPSHOT N`: N interface methods that have exactly one implementation
/// and callers, taken at an even stride: candidates for the accuracy questions about calls
/// dispatched through an interface.
fn dispatch_sample(args: &[String]) -> anyhow::Result<()> {
    let [path, count] = args else {
        bail!("dispatch-sample SNAPSHOT N")
    };
    let snapshot = Snapshot::open(Path::new(path))?;
    let count: usize = count.parse()?;
    let implements = kivgraph_facts::EdgeKind::Implements;
    let mut found = Vec::new();
    for index in 0..snapshot.symbol_count() {
        let Some(symbol) = snapshot.symbol(index) else {
            continue;
        };
        let implementations: Vec<_> = snapshot
            .incoming(index)
            .filter(|e| e.kind() == implements)
            .collect();
        let callers = snapshot
            .incoming(index)
            .filter(|e| e.kind() == kivgraph_facts::EdgeKind::CallsDirect)
            .count();
        if let ([only], true) = (implementations.as_slice(), callers > 0)
            && let kivgraph_snapshot::NodeRef::Symbol(i) = only.source()
            && let Some(implementation) = snapshot.symbol(i)
        {
            found.push(format!(
                "{}:{}#{} ({callers} callers) <- {}:{}#{}",
                symbol.file().path(),
                symbol.span().start_line,
                symbol.qualified_name(),
                implementation.file().path(),
                implementation.span().start_line,
                implementation.qualified_name()
            ));
        }
    }
    println!(
        "{} interface methods with one implementation and callers",
        found.len()
    );
    let stride = (found.len() / count.max(1)).max(1);
    for line in found.iter().step_by(stride).take(count) {
        println!("{line}");
    }
    Ok(())
}

/// `unresolved-packages SNAPSHOT REASON`: the packages the failures of one reason request,
/// most requested first: what `docs/benchmarks.md` names when it counts declared holes.
fn unresolved_packages(args: &[String]) -> anyhow::Result<()> {
    let [path, reason] = args else {
        bail!("unresolved-packages SNAPSHOT REASON")
    };
    let snapshot = Snapshot::open(Path::new(path))?;
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for row in snapshot.unresolved() {
        if row.reason() == reason {
            *counts
                .entry(row.requested_package().unwrap_or("-"))
                .or_default() += 1;
        }
    }
    let mut sorted: Vec<(&str, usize)> = counts.into_iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (package, count) in sorted {
        println!("{count}\t{package}");
    }
    Ok(())
}
