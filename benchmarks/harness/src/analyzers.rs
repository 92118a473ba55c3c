//! What the exact analyzers cost, per language, on the registry corpora (TypeScript from
//! npm, Python sdists from PyPI, Rust crates from crates.io, Go from Debian), registered one project per repository: a cold pass with
//! the syntax layer alone, a cold pass with the analyzers (fact cache on, empty), a warm
//! pass with nothing changed, a warm pass after a one-file edit, and the analyzers alone —
//! the same analyzer invocations, unit by unit, with the same parallelism, and nothing of
//! ours around them. Wall times and the peak resident memory of each process tree.
//!
//! ```text
//! $CARGO_TARGET_DIR/release/kivgraph-bench analyzers --kivgraph $CARGO_TARGET_DIR/release/kivgraph [--languages typescript,python,rust,go]
//! ```

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};
use kivgraph_analyzers::{
    Analyzer, GoSettings, GoUnit, PythonUnit, RustSettings, RustUnit, Toolchain, TypescriptUnit,
    nearest_tsconfig,
};
use kivgraph_config::{GoBuildContext, GoSection, LanguageToken, RepositoryEntry, analyzers_dir};
use kivgraph_discovery::discover_repository;
use kivgraph_engine::python_import_root;
use kivgraph_facts::Language;
use serde_json::{Value, json};

use crate::accuracy::PROJECTS;
use crate::{Analyzers, corpus_dir, flag, write_config};

/// One pass as a child process: its wall time, the peak resident memory of its process
/// tree (the analyzers it waited for included), and its result.
fn measured_index(
    kivgraph: &Path,
    config: &Path,
    analyzers: Analyzers,
) -> anyhow::Result<(f64, i64, Value)> {
    let started = Instant::now();
    let mut command = Command::new(kivgraph);
    command
        .args(["index", "--full", "--json", "--config"])
        .arg(config)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if analyzers == Analyzers::SyntaxOnly {
        command
            .env("KIVGRAPH_ANALYZERS_DIR", "/nonexistent/kivgraph-analyzers")
            .env("PATH", "/usr/bin:/bin");
    }
    let mut child = command.spawn()?;
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .context("stdout")?
        .read_to_string(&mut stdout)?;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child and writes into structs we own. `wait4` reports the
    // child's usage together with the descendants it waited for (the analyzers).
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    if pid < 0 {
        bail!("wait4 failed: {}", std::io::Error::last_os_error());
    }
    let seconds = started.elapsed().as_secs_f64();
    let last = stdout.lines().last().context("index printed nothing")?;
    let event: Value = serde_json::from_str(last)?;
    if event["result"]["passed"] != true {
        bail!("index failed: {}", event["result"]["error"]);
    }
    Ok((seconds, usage.ru_maxrss, event["result"].clone()))
}

/// The analyzers alone: every unit a pass would run, invoked directly with the same
/// parallelism, timed from outside.
fn analyzers_alone(
    language: Language,
    entries: &[RepositoryEntry],
    scratch: &Path,
    workers: usize,
) -> anyhow::Result<f64> {
    let analyzer = match language {
        Language::Python => Analyzer::Python,
        Language::Rust => Analyzer::Rust,
        Language::Go => Analyzer::Go,
        _ => Analyzer::Typescript,
    };
    let toolchain = Toolchain::locate(analyzer, None, &analyzers_dir())?;
    let mut typescript_units: Vec<(PathBuf, Vec<String>)> = Vec::new();
    let mut python: Vec<(String, PathBuf)> = Vec::new();
    let mut import_roots: Vec<String> = Vec::new();
    // One per Cargo workspace: the checkout and the workspace's directory.
    let mut rust: Vec<(PathBuf, String)> = Vec::new();
    // One per Go module: the checkout, the module's directory and path.
    let mut go: Vec<(PathBuf, String, String)> = Vec::new();
    for entry in entries {
        let discovered = discover_repository(entry, &GoBuildContext::default())?;
        let mut workspace_roots: std::collections::BTreeSet<String> = Default::default();
        let mut go_modules: std::collections::BTreeSet<String> = Default::default();
        let mut by_directory: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for file in &discovered.files {
            match file.language {
                Language::TypeScript | Language::JavaScript => by_directory
                    .entry(file.unit.package_path.clone())
                    .or_default()
                    .push(file.path.clone()),
                Language::Python => {
                    if let Some(root) = python_import_root(&file.path, &file.unit.module) {
                        let root = if root.is_empty() {
                            entry.name.clone()
                        } else {
                            format!("{}/{root}", entry.name)
                        };
                        if !import_roots.contains(&root) {
                            import_roots.push(root);
                        }
                    }
                    if python.last().is_none_or(|(name, _)| *name != entry.name) {
                        python.push((entry.name.clone(), entry.path.clone()));
                    }
                }
                Language::Rust => {
                    if let Some(root) = discovered
                        .module_maps
                        .cargo_workspace_root(&file.unit.package_path)
                    {
                        workspace_roots.insert(root.to_string());
                    }
                }
                Language::Go => {
                    if let Some(module) = discovered
                        .module_maps
                        .go_module_root(&file.unit.package_path)
                    {
                        go_modules.insert(module.to_string());
                    }
                }
            }
        }
        rust.extend(
            workspace_roots
                .into_iter()
                .map(|root| (entry.path.clone(), root)),
        );
        for module in go_modules {
            let path = discovered.module_maps.go_modules[&module].path.clone();
            go.push((entry.path.clone(), module, path));
        }
        for (_, files) in by_directory {
            typescript_units.push((entry.path.clone(), files));
        }
    }
    std::fs::create_dir_all(scratch)?;
    let started = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()?;
    let failures: Vec<String> = pool.install(|| {
        use rayon::prelude::*;
        match language {
            // The engine's go.work lists the registered modules a module's imports reach;
            // alone, every other registered module is listed.
            Language::Go => go
                .par_iter()
                .filter_map(|(root, module, module_path)| {
                    let own = root.join(module);
                    let workspace: Vec<PathBuf> = go
                        .iter()
                        .map(|(other, dir, _)| other.join(dir))
                        .filter(|dir| *dir != own)
                        .collect();
                    let unit = GoUnit {
                        repository_root: root,
                        module,
                        module_path,
                        workspace: &workspace,
                    };
                    let settings = GoSettings::of(&GoSection::default());
                    toolchain
                        .index_go(&unit, &settings, &GoBuildContext::default(), scratch)
                        .err()
                        .map(|e| e.to_string())
                })
                .collect(),
            Language::Rust => rust
                .par_iter()
                .filter_map(|(root, workspace_root)| {
                    let unit = RustUnit {
                        repository_root: root,
                        workspace_root,
                        patches: &[],
                    };
                    let settings = RustSettings::standard(scratch.join("rust-target"));
                    toolchain
                        .index_rust(&unit, &settings, scratch)
                        .err()
                        .map(|e| e.to_string())
                })
                .collect(),
            Language::Python => python
                .par_iter()
                .filter_map(|(target, _)| {
                    let unit = PythonUnit {
                        repositories: &python,
                        import_roots: &import_roots,
                        target,
                    };
                    toolchain
                        .index_python(&unit, scratch)
                        .err()
                        .map(|e| e.to_string())
                })
                .collect(),
            _ => typescript_units
                .par_iter()
                .filter_map(|(root, files)| {
                    let directory = files
                        .first()
                        .and_then(|f| f.rsplit_once('/'))
                        .map_or("", |(d, _)| d);
                    let unit = TypescriptUnit {
                        repository_root: root,
                        files,
                        base_tsconfig: nearest_tsconfig(root, directory),
                        paths: &[],
                    };
                    toolchain
                        .index_typescript(&unit, scratch)
                        .err()
                        .map(|e| e.to_string())
                })
                .collect(),
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    for failure in failures {
        eprintln!("analyzers alone: {failure}");
    }
    Ok(seconds)
}

/// Appends a comment to one file; returns its original bytes for the restore.
fn append_comment(path: &Path, comment: &str) -> anyhow::Result<Vec<u8>> {
    let original = std::fs::read(path).with_context(|| path.display().to_string())?;
    let mut edited = original.clone();
    edited.extend_from_slice(comment.as_bytes());
    std::fs::write(path, edited)?;
    Ok(original)
}

pub fn analyzers_benchmark(args: &[String]) -> anyhow::Result<()> {
    let kivgraph = PathBuf::from(flag(args, "--kivgraph").context("--kivgraph BIN is required")?);
    let corpus = corpus_dir(args);
    let wanted = flag(args, "--languages").unwrap_or_else(|| "typescript,python,rust,go".into());
    let mut report = serde_json::Map::new();
    for (language, token, prefix, edited, comment) in [
        (
            Language::TypeScript,
            LanguageToken::Typescript,
            "ts/",
            "rxjs/src/internal/util/isFunction.ts",
            "\n// benchmark edit\n",
        ),
        (
            Language::Python,
            LanguageToken::Python,
            "python/",
            "requests-2.32.5/src/requests/utils.py",
            "\n# benchmark edit\n",
        ),
        (
            Language::Rust,
            LanguageToken::Rust,
            "rust/",
            "src/itoa-1.0.19/src/lib.rs",
            "\n// benchmark edit\n",
        ),
        (
            Language::Go,
            LanguageToken::Go,
            "go/",
            "src/github.com/gorilla/mux/mux.go",
            "\n// benchmark edit\n",
        ),
    ] {
        if !wanted.split(',').any(|w| w == language.as_str()) {
            continue;
        }
        let entries: Vec<RepositoryEntry> = PROJECTS
            .iter()
            .filter(|(_, dir)| dir.starts_with(prefix))
            .map(|(name, dir)| RepositoryEntry {
                name: name.to_string(),
                path: corpus.join(dir),
                languages: vec![token],
                manifests: vec![],
                roots: vec![],
                exclusions: vec![],
            })
            .collect();
        let work = std::env::temp_dir().join(format!(
            "kivgraph-analyzers-{}-{}",
            language.as_str(),
            std::process::id()
        ));
        let syntax_dir = work.join("syntax");
        let exact_dir = work.join("exact");
        std::fs::create_dir_all(&syntax_dir)?;
        std::fs::create_dir_all(&exact_dir)?;
        let syntax_config = write_config(&syntax_dir, &entries, "off")?;
        let exact_config = write_config(&exact_dir, &entries, "on")?;
        let (syntax_seconds, syntax_rss, syntax) =
            measured_index(&kivgraph, &syntax_config, Analyzers::SyntaxOnly)?;
        eprintln!(
            "analyzers: {} syntax-only cold {syntax_seconds:.1} s",
            language.as_str()
        );
        let (cold_seconds, cold_rss, cold) =
            measured_index(&kivgraph, &exact_config, Analyzers::Installed)?;
        eprintln!(
            "analyzers: {} exact cold {cold_seconds:.1} s",
            language.as_str()
        );
        let (unchanged_seconds, unchanged_rss, _) =
            measured_index(&kivgraph, &exact_config, Analyzers::Installed)?;
        let edited_path = corpus.join(prefix).join(edited);
        let original = append_comment(&edited_path, comment)?;
        let edit = measured_index(&kivgraph, &exact_config, Analyzers::Installed);
        std::fs::write(&edited_path, original)?;
        let (edit_seconds, edit_rss, _) = edit?;
        // The pass's budgets with the default configuration: three TypeScript/Python
        // workers, and for Rust and Go the processor count, capped at four.
        let workers = match language {
            Language::Rust | Language::Go => {
                std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
            }
            _ => 3,
        };
        let alone_seconds = analyzers_alone(language, &entries, &work.join("alone"), workers)?;
        eprintln!(
            "analyzers: {} alone {alone_seconds:.1} s",
            language.as_str()
        );
        let analyzers: Vec<&Value> = cold["repositories"]
            .as_array()
            .map(|r| {
                r.iter()
                    .flat_map(|r| r["analyzers"].as_array().into_iter().flatten())
                    .collect()
            })
            .unwrap_or_default();
        let overhead = cold_seconds - alone_seconds;
        report.insert(
            language.as_str().to_string(),
            json!({
                "repositories": entries.len(),
                "files": cold["counts"]["files"],
                "edges_syntax_only": syntax["counts"]["edges"],
                "edges_with_analyzers": cold["counts"]["edges"],
                "analyzer_runs": analyzers,
                "cold_syntax_only": {"seconds": syntax_seconds, "peak_rss_mib": syntax_rss / 1024},
                "cold_with_analyzers": {"seconds": cold_seconds, "peak_rss_mib": cold_rss / 1024},
                "warm_unchanged": {"seconds": unchanged_seconds, "peak_rss_mib": unchanged_rss / 1024, "ratio_to_cold": unchanged_seconds / cold_seconds},
                "warm_one_file_edit": {"file": edited, "seconds": edit_seconds, "peak_rss_mib": edit_rss / 1024, "ratio_to_cold": edit_seconds / cold_seconds},
                "analyzers_alone": {"seconds": alone_seconds, "workers": workers},
                "overhead_over_analyzers_alone": {"seconds": overhead, "ratio": overhead / alone_seconds},
            }),
        );
        let _ = std::fs::remove_dir_all(&work);
    }
    println!("{}", serde_json::to_string_pretty(&Value::Object(report))?);
    Ok(())
}
