//! Ground truth for the Rust and Python cross-repository questions
//! (`benchmarks/crossrepo/{rust,python}`), from each language's analyzer, read with SCIP's
//! own bindings, not kivgraph's.
//!
//! Rust: rust-analyzer over the workspace a developer working on every registered crate sets up
//! for each of them: a copy of the crate in scratch space, its lockfile kept, with a
//! `[patch.crates-io]` entry pointing every other registered crate's name at its checkout
//! and `cargo update -p` run for each, as cargo asks when the lockfile pins another release,
//! so a use of a registered crate whose version the requirement accepts binds to the
//! registered source (cargo's rule), and each crate is built with its own features, as its
//! own repository is. rust-analyzer indexes each (`scip`).
//!
//! Python: pyright (`scip-python`) over one project holding every registered project, its
//! search path every project's import root (`src/` where the project has one), ahead of any
//! installed copy — a developer working on all of them installs each in editable mode.
//!
//! For each question's subject — the definition in its file whose symbol's path is its
//! qualified name (`module::Type::member` in Rust, `Class.method` in Python) — it writes the files holding a reference (`repository/path`):
//! `find_references` counts every file, `find_cross_repo_consumers` the files of other
//! repositories. `--survey` lists instead every definition another repository references,
//! with the files referencing it, to choose questions from.
//!
//! ```text
//! benchmarks/fetch-crossrepo.sh rust python
//! $CARGO_TARGET_DIR/release/kivgraph-bench crossrepo-truth rust|python [--write | --survey | --definitions REPOSITORY/PATH] [--reuse-index] [--corpus DIR]
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use protobuf::Message;
use serde_json::Value;

use crate::corpus_dir;

/// SCIP's `SymbolRole.Definition` bit.
const DEFINITION: i32 = 1;

/// One SCIP occurrence, reduced to what the truth needs.
struct Site {
    /// `repository/path`.
    file: String,
    symbol: String,
    definition: bool,
}

pub fn crossrepo_truth(args: &[String]) -> anyhow::Result<()> {
    let language = args.first().map(String::as_str).unwrap_or("");
    if language != "rust" && language != "python" {
        bail!("crossrepo-truth: rust or python (go: go/truth, typescript: truth.mjs)");
    }
    let corpus = crate::crossrepo::language_corpus(&corpus_dir(args), language);
    let repositories: BTreeMap<String, PathBuf> =
        crate::crossrepo::repositories(&corpus, language)?
            .into_iter()
            .map(|entry| (entry.name, entry.path))
            .collect();
    // The indexes are kept beside the corpus: `--reuse-index` reads them again.
    let indexes = corpus.join(".truth-indexes");
    if !(args.iter().any(|a| a == "--reuse-index") && indexes.exists()) {
        let work =
            std::env::temp_dir().join(format!("kivgraph-{language}-truth-{}", std::process::id()));
        let written = match language {
            "rust" => index_each_repository(&repositories, &work, &indexes),
            _ => index_python_projects(&repositories, &work, &indexes),
        };
        let _ = std::fs::remove_dir_all(&work);
        written?;
    }
    let sites = read_sites(&indexes, &repositories)?;
    if let Some(file) = crate::flag(args, "--definitions") {
        for site in sites.iter().filter(|s| s.definition && s.file == file) {
            println!(
                "{}\t{}",
                symbol_path(&site.symbol).unwrap_or_default(),
                site.symbol
            );
        }
        return Ok(());
    }
    if args.iter().any(|a| a == "--survey") {
        print_survey(&sites);
        return Ok(());
    }
    let questions_file = crate::crossrepo::benchmark_file(language, "questions.json");
    let mut questions: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&questions_file)?)?;
    for question in &mut questions {
        let arguments = &question["arguments"];
        let repository = arguments["repository"].as_str().context("repository")?;
        let file = format!(
            "{repository}/{}",
            arguments["path"].as_str().context("path")?
        );
        let qualified = arguments["qualified_name"]
            .as_str()
            .context("qualified_name")?;
        let symbol = subject(&sites, &file, qualified)
            .with_context(|| format!("{}: {file} {qualified}", question["id"]))?;
        let consumers_only = question["tool"] == "find_cross_repo_consumers";
        let truth: BTreeSet<&str> = sites
            .iter()
            .filter(|s| !s.definition && s.symbol == symbol)
            .map(|s| s.file.as_str())
            .filter(|f| !consumers_only || !f.starts_with(&format!("{repository}/")))
            .collect();
        eprintln!(
            "{} {qualified}: {} files ({symbol})",
            question["id"],
            truth.len()
        );
        question["truth"] = serde_json::json!(truth);
    }
    if args.iter().any(|a| a == "--write") {
        std::fs::write(
            &questions_file,
            serde_json::to_string_pretty(&questions)? + "\n",
        )?;
    }
    Ok(())
}

/// Copies each crate into `work` with every other registered crate patched in, and has
/// rust-analyzer index it into `indexes/NAME.scip`.
fn index_each_repository(
    repositories: &BTreeMap<String, PathBuf>,
    work: &Path,
    indexes: &Path,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(work)?;
    std::fs::create_dir_all(indexes)?;
    let mut names = BTreeMap::new();
    for (name, dir) in repositories {
        names.insert(name, package_name(&dir.join("Cargo.toml"))?);
    }
    let rust_analyzer = analyzers_dir().join("bin/rust-analyzer");
    for (name, dir) in repositories {
        let copy = work.join(name);
        let status = Command::new("cp").arg("-r").arg(dir).arg(&copy).status()?;
        if !status.success() {
            bail!("could not copy {}", dir.display());
        }
        let mut manifest = std::fs::read_to_string(copy.join("Cargo.toml"))?;
        manifest.push_str("\n[patch.crates-io]\n");
        for (other, checkout) in repositories.iter().filter(|(other, _)| *other != name) {
            manifest.push_str(&format!(
                "{} = {{ path = \"{}\" }}\n",
                names[other],
                checkout.display()
            ));
        }
        std::fs::write(copy.join("Cargo.toml"), manifest)?;
        // A lockfile pinning another release leaves the patch unused until the developer
        // runs what cargo's warning says: `cargo update -p NAME` (one the lockfile does
        // not hold is no error worth stopping for).
        for crate_name in names.values() {
            let _ = Command::new("cargo")
                .args(["update", "--offline", "--quiet", "-p", crate_name])
                .current_dir(&copy)
                .output();
        }
        let mut command = Command::new(&rust_analyzer);
        command
            .arg("scip")
            .arg(&copy)
            .arg("--output")
            .arg(indexes.join(format!("{name}.scip")))
            .env("CARGO_NET_OFFLINE", "true");
        run_indexer(command, &rust_analyzer)?;
        eprintln!("crossrepo-truth: indexed {name}");
    }
    Ok(())
}

/// Every occurrence each repository's index holds in that repository's files.
fn read_sites(
    indexes: &Path,
    repositories: &BTreeMap<String, PathBuf>,
) -> anyhow::Result<Vec<Site>> {
    let mut sites = Vec::new();
    for name in repositories.keys().map(String::as_str).chain([ALL]) {
        let file = indexes.join(format!("{name}.scip"));
        if !file.exists() {
            // One index holds every project (Python): its paths start with the project's.
            continue;
        }
        let index = scip::types::Index::parse_from_bytes(&std::fs::read(&file)?)?;
        for document in index.documents {
            // Patched checkouts lie outside the copy: their files are their own index's.
            if document.relative_path.starts_with("..") {
                continue;
            }
            for occurrence in document.occurrences {
                if occurrence.symbol.starts_with("local ") {
                    continue;
                }
                sites.push(Site {
                    file: if name == ALL {
                        document.relative_path.clone()
                    } else {
                        format!("{name}/{}", document.relative_path)
                    },
                    definition: occurrence.symbol_roles & DEFINITION != 0,
                    symbol: occurrence.symbol,
                });
            }
        }
    }
    Ok(sites)
}

/// The name of the index holding every project, whose documents' paths start with the
/// project's name.
const ALL: &str = "all";

/// Links every project into one pyright project in `work`, its search path the projects'
/// import roots, and has scip-python index it into `indexes/all.scip`.
fn index_python_projects(
    repositories: &BTreeMap<String, PathBuf>,
    work: &Path,
    indexes: &Path,
) -> anyhow::Result<()> {
    let project = work.join("project");
    std::fs::create_dir_all(&project)?;
    std::fs::create_dir_all(indexes)?;
    let mut roots = Vec::new();
    for (name, dir) in repositories {
        std::os::unix::fs::symlink(dir, project.join(name))?;
        roots.push(if dir.join("src").is_dir() {
            format!("{name}/src")
        } else {
            name.clone()
        });
    }
    let config =
        serde_json::json!({"extraPaths": roots, "exclude": ["**/.venv", "**/node_modules"]});
    std::fs::write(project.join("pyrightconfig.json"), config.to_string())?;
    // pyright asks the environment for installed distributions: none.
    let environment = work.join("environment.json");
    std::fs::write(&environment, "[]")?;
    let scip_python = analyzers_dir().join("node_modules/.bin/scip-python");
    let mut command = Command::new(&scip_python);
    command
        .arg("index")
        .arg("--cwd")
        .arg(&project)
        .arg("--output")
        .arg(indexes.join(format!("{ALL}.scip")))
        .arg("--quiet")
        .arg("--project-name")
        .arg("truth")
        .arg("--project-version")
        .arg("0")
        .arg("--environment")
        .arg(&environment)
        .arg(&project);
    run_indexer(command, &scip_python)
}

/// Runs an indexer to its end; its stderr is the error when it fails.
fn run_indexer(mut command: Command, program: &Path) -> anyhow::Result<()> {
    let run = command
        .output()
        .with_context(|| format!("could not start {}", program.display()))?;
    if !run.status.success() {
        bail!(
            "{} failed: {}",
            program.display(),
            String::from_utf8_lossy(&run.stderr)
        );
    }
    Ok(())
}

fn analyzers_dir() -> PathBuf {
    std::env::var_os("KIVGRAPH_ANALYZERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default())
                .join(".cache/kivgraph/analyzers")
        })
}

fn package_name(manifest: &Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(manifest)?;
    let table: toml::Table = text.parse()?;
    table["package"]["name"]
        .as_str()
        .map(str::to_string)
        .context("a crate's manifest names its package")
}

/// The path a symbol names as kivgraph spells a qualified name: in Rust `module::Type::member`
/// (its descriptors' names without generic arguments, impl blocks left out); in Python
/// `Class.method` (the module, which the question's path names, left out).
fn symbol_path(symbol: &str) -> Option<String> {
    let parsed = scip::symbol::parse_symbol(symbol).ok()?;
    if parsed.scheme == "scip-python" {
        let names: Vec<&str> = parsed
            .descriptors
            .iter()
            .filter(|d| d.suffix.enum_value() != Ok(scip::types::descriptor::Suffix::Namespace))
            .map(|d| d.name.as_str())
            .collect();
        return Some(names.join("."));
    }
    let names: Vec<String> = parsed
        .descriptors
        .iter()
        .filter(|d| !d.name.starts_with("impl"))
        // `Punctuated<T, P>` names the type of a generic impl: its path is `Punctuated`.
        .map(|d| d.name.split('<').next().unwrap_or_default().to_string())
        .collect();
    Some(names.join("::"))
}

/// The symbol defined in `file` whose path is `qualified` (the crate's module path, as
/// kivgraph spells a Rust qualified name). rust-analyzer does not always record the
/// definition of an item a macro declares (syn's `ast_struct!`): then the symbol of that
/// path the file mentions, in the file's own crate.
fn subject(sites: &[Site], file: &str, qualified: &str) -> anyhow::Result<String> {
    let matching = |definitions: bool| -> BTreeSet<&str> {
        sites
            .iter()
            .filter(|s| s.file == file && (s.definition || !definitions))
            .filter(|s| symbol_path(&s.symbol).is_some_and(|p| p == qualified))
            .map(|s| s.symbol.as_str())
            .collect()
    };
    let mut candidates = matching(true);
    if candidates.is_empty() {
        let crate_of_file = sites
            .iter()
            .find(|s| s.file == file && s.definition)
            .and_then(|s| scip::symbol::parse_symbol(&s.symbol).ok())
            .map(|s| s.package.name.clone());
        candidates = matching(false)
            .into_iter()
            .filter(|symbol| {
                scip::symbol::parse_symbol(symbol)
                    .is_ok_and(|s| Some(&s.package.name) == crate_of_file.as_ref())
            })
            .collect();
    }
    match candidates.len() {
        1 => Ok(candidates
            .into_iter()
            .next()
            .unwrap_or_default()
            .to_string()),
        0 => bail!("no definition of that name in the file"),
        _ => bail!("several definitions match: {candidates:?}"),
    }
}

/// Every definition another repository references: repository, file, path, and the
/// referencing files of other repositories.
fn print_survey(sites: &[Site]) {
    let repository = |file: &str| file.split('/').next().unwrap_or("").to_string();
    let defined: BTreeMap<&str, &str> = sites
        .iter()
        .filter(|s| s.definition)
        .map(|s| (s.symbol.as_str(), s.file.as_str()))
        .collect();
    let mut users: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for site in sites.iter().filter(|s| !s.definition) {
        if let Some(file) = defined.get(site.symbol.as_str())
            && repository(file) != repository(&site.file)
        {
            users
                .entry(site.symbol.as_str())
                .or_default()
                .insert(site.file.as_str());
        }
    }
    for (symbol, files) in users {
        println!(
            "{}\t{}\t{}\t{}",
            defined[symbol],
            symbol_path(symbol).unwrap_or_default(),
            files.len(),
            files.iter().copied().collect::<Vec<_>>().join(" ")
        );
    }
}
