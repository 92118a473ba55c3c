//! `kivgraph doctor repositories`: whether each registered repository is structured so that
//! a pass can read it, without indexing anything, and what to change where it is not.
//!
//! Every check asks what a pass asks: the same discovery (exclusions, `.gitignore`, the
//! directories no pass enters, symlinks), the same package assignment from the manifests,
//! the same analyzer lookup. A finding is `blocking` when the repository contributes
//! nothing at all and `partial` when part of it is indexed less than it could be. Remedies
//! are proposals — a file to write with its content, a command to run — never applied:
//! nothing is written inside a repository. Whether cargo resolves each Cargo workspace
//! offline is asked the way rust-analyzer asks it, its lockfile kept in scratch space. What
//! only a pass can tell (a Go module whose requirements could not be loaded, a unit an
//! analyzer failed on) is read from the published generation's record of its pass, and
//! said to come from there.

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

use kivgraph_analyzers::Analyzer;
use kivgraph_config::{GoBuildContext, LanguageToken, LoadedConfig, Registry, RepositoryEntry};
use kivgraph_discovery::{DiscoveredRepository, GoFileRule, discover_repository};
use kivgraph_facts::Language;
use kivgraph_store::{GenerationId, GenerationStore, Manifest};
use serde_json::{Value, json};

use crate::analyzers::Located;

/// How much of a repository a finding hides.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Severity {
    /// The repository contributes nothing.
    Blocking,
    /// Indexed, but part of it is invisible or less exact than it could be.
    Partial,
    /// Indexed as it should be; said so that what was left out, and why, is known.
    Note,
}

impl Severity {
    fn as_str(self) -> &'static str {
        match self {
            Severity::Blocking => "blocking",
            Severity::Partial => "partial",
            Severity::Note => "note",
        }
    }
}

struct Finding {
    code: &'static str,
    severity: Severity,
    message: String,
    /// Where the finding applies, repository-relative, when it is one place.
    path: Option<String>,
    remedy: Value,
}

/// Files of `languages` no manifest claims, by the directory a manifest would go in.
fn orphans(discovered: &DiscoveredRepository, languages: &[Language]) -> BTreeMap<String, usize> {
    let mut directories = BTreeMap::new();
    for file in discovered
        .files
        .iter()
        .filter(|f| languages.contains(&f.language) && f.unit.unclaimed())
    {
        *directories
            .entry(file.unit.package_path.clone())
            .or_default() += 1;
    }
    directories
}

fn audit(
    entry: &RepositoryEntry,
    located: &Located<'_>,
    go_build: &GoBuildContext,
    ask_cargo: bool,
) -> (Vec<Finding>, Value) {
    let mut findings = Vec::new();
    let discovered = match discover_repository(entry, go_build) {
        Ok(discovered) => discovered,
        Err(error) => {
            findings.push(Finding {
                code: "REPOSITORY_NOT_READABLE",
                severity: Severity::Blocking,
                message: error.to_string(),
                path: None,
                remedy: json!({"kind": "command", "command": format!(
                    "kivgraph init --repository {}=/absolute/path/to/its/checkout", entry.name
                )}),
            });
            return (findings, json!({}));
        }
    };
    let mut by_language: BTreeMap<&str, usize> = BTreeMap::new();
    for file in &discovered.files {
        *by_language.entry(file.language.as_str()).or_default() += 1;
    }
    if discovered.files.is_empty() {
        let languages: Vec<&str> = entry.languages.iter().map(|l| l.as_str()).collect();
        // What the checkout does hold, walked the same way with every language enabled.
        let every = RepositoryEntry {
            languages: vec![
                LanguageToken::Go,
                LanguageToken::Typescript,
                LanguageToken::Rust,
                LanguageToken::Python,
            ],
            ..entry.clone()
        };
        let held: BTreeSet<&str> = discover_repository(&every, go_build)
            .map(|d| d.files.iter().map(|f| language_token(f.language)).collect())
            .unwrap_or_default();
        findings.push(Finding {
            code: "NO_INDEXABLE_FILES",
            severity: Severity::Blocking,
            message: format!(
                "no file of the registered languages ({}) outside the exclusions, .gitignore and skipped directories",
                languages.join(", ")
            ),
            path: None,
            remedy: if held.is_empty() {
                json!({"kind": "config", "file": "repositories.yaml", "key": format!("repositories[{}].exclusions", entry.name), "detail": "the checkout holds no source file of any supported language outside its exclusions"})
            } else {
                json!({"kind": "config", "file": "repositories.yaml", "key": format!("repositories[{}].languages", entry.name), "value": held})
            },
        });
    }
    // Files no manifest claims: the manifest to write, per language, where it would go.
    let module_name = format!("example.com/{}", entry.name);
    let crate_name = entry.name.replace(['.', '-'], "_");
    let unclaimed: [(&[Language], &str, &str, &str, String); 3] = [
        (
            &[Language::Go],
            "GO_PACKAGE_WITHOUT_MODULE",
            "Go files under no go.mod: no import path reaches them, so no other package can bind a use of theirs",
            "go.mod",
            format!("module {module_name}\n\ngo 1.21\n"),
        ),
        (
            &[Language::Rust],
            "RUST_FILES_WITHOUT_CRATE",
            "Rust files under no Cargo.toml: they form no crate, so paths into them from elsewhere do not resolve",
            "Cargo.toml",
            format!(
                "[package]\nname = \"{crate_name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"
            ),
        ),
        (
            &[Language::TypeScript, Language::JavaScript],
            "MODULE_FILES_WITHOUT_PACKAGE_JSON",
            "TypeScript/JavaScript files under no package.json: no other repository can import them by name",
            "package.json",
            format!(
                "{{\n  \"name\": \"{}\",\n  \"private\": true\n}}\n",
                entry.name
            ),
        ),
    ];
    for (languages, code, what, manifest, content) in unclaimed {
        for (directory, count) in orphans(&discovered, languages) {
            findings.push(Finding {
                code,
                severity: Severity::Partial,
                message: format!("{count} {what}"),
                path: Some(if directory.is_empty() { ".".into() } else { directory.clone() }),
                remedy: json!({"kind": "file", "path": join(&directory, manifest), "content": content}),
            });
        }
    }
    for (languages, found, name) in [
        (
            &[Language::TypeScript, Language::JavaScript][..],
            located.get(Analyzer::Typescript),
            "TypeScript/JavaScript",
        ),
        (
            &[Language::Python][..],
            located.get(Analyzer::Python),
            "Python",
        ),
        (&[Language::Rust][..], located.get(Analyzer::Rust), "Rust"),
        (&[Language::Go][..], located.get(Analyzer::Go), "Go"),
    ] {
        let files = discovered
            .files
            .iter()
            .filter(|f| languages.contains(&f.language))
            .count();
        if files > 0
            && let Err(error) = found
        {
            findings.push(Finding {
                code: "ANALYZER_ABSENT",
                severity: Severity::Partial,
                message: format!("{files} {name} files get syntax-layer edges only ({error})"),
                path: None,
                remedy: json!({"kind": "command", "command": "cargo xtask setup"}),
            });
        }
    }
    // A path dependency nobody checked out: cargo cannot resolve the workspace offline, so
    // rust-analyzer loads it without its dependencies (WORKSPACE_NOT_LOADED).
    let mut checked_out_partly: BTreeSet<&str> = BTreeSet::new();
    for (directory, manifest) in &discovered.module_maps.crates {
        for (name, dependency) in &manifest.dependencies {
            let Some(path) = &dependency.path else {
                continue;
            };
            let at = entry.path.join(directory).join(path);
            if !at.join("Cargo.toml").is_file() {
                checked_out_partly.extend(discovered.module_maps.cargo_workspace_root(directory));
                findings.push(Finding {
                    code: "CARGO_PATH_DEPENDENCY_MISSING",
                    severity: Severity::Partial,
                    message: format!(
                        "the path dependency {name} = {{ path = \"{path}\" }} has no Cargo.toml: the workspace is analysed without its dependencies"
                    ),
                    path: Some(join(directory, "Cargo.toml")),
                    remedy: json!({"kind": "file", "path": at.join("Cargo.toml"), "detail": "check out the crate the dependency names there (a registered repository's checkout, for a crate another repository provides)"}),
                });
            }
        }
    }
    // What rust-analyzer's load asks first: can cargo resolve the workspace offline? (A
    // workspace missing a path dependency cannot, for the reason said above.)
    if ask_cargo {
        let roots: BTreeSet<&str> = discovered
            .module_maps
            .crates
            .keys()
            .filter_map(|directory| discovered.module_maps.cargo_workspace_root(directory))
            .filter(|root| !checked_out_partly.contains(root))
            .collect();
        let scratch = std::env::temp_dir().join("kivgraph-audit");
        for root in roots {
            if let Err(error) =
                kivgraph_analyzers::cargo_resolves_offline(&entry.path.join(root), &scratch)
            {
                let root = if root.is_empty() { "." } else { root };
                findings.push(workspace_not_loaded(
                    entry,
                    root,
                    format!("cargo cannot resolve the workspace offline, so it is analysed without its dependencies ({error})"),
                ));
            }
        }
    }
    // The repository's own build output is not its source: left out, and said where and why.
    for output in &discovered.build_output {
        findings.push(Finding {
            code: "BUILD_OUTPUT_NOT_INDEXED",
            severity: Severity::Note,
            message: format!(
                "{} files treated as build output ({}): {}; uses that reach them land on the sources",
                output.files,
                output.reason.as_str(),
                output.detail
            ),
            path: Some(if output.path.is_empty() { ".".into() } else { output.path.clone() }),
            remedy: json!({"kind": "none", "detail": "nothing to do: a name's declarations are its sources"}),
        });
    }
    // The Go files the configured build does not compile: not in the graph, by choice.
    for left_out in &discovered.go_left_out {
        let remedy = match left_out.rule {
            GoFileRule::TestFile => {
                json!({"kind": "config", "file": "config.yaml", "key": "go.include_tests", "value": true, "detail": "to index the tests too"})
            }
            GoFileRule::BuildConstraint => {
                json!({"kind": "config", "file": "config.yaml", "key": "go.build_tags", "detail": "add the tags the files need"})
            }
            GoFileRule::FileName => {
                json!({"kind": "none", "detail": format!("the pass builds for GOOS={} GOARCH={} (the environment's GOOS and GOARCH decide)", go_build.goos, go_build.goarch)})
            }
            GoFileRule::IgnoredByGo => {
                json!({"kind": "none", "detail": "the go command never builds them"})
            }
        };
        findings.push(Finding {
            code: "GO_FILES_NOT_BUILT",
            severity: Severity::Note,
            message: format!(
                "{} .go files left out ({}): {}; for example {}",
                left_out.files,
                left_out.rule.as_str(),
                left_out.rule.detail(),
                left_out.example
            ),
            path: None,
            remedy,
        });
    }
    if !discovered.skipped.is_empty() {
        let samples: Vec<Value> = discovered
            .skipped
            .iter()
            .take(5)
            .map(|(path, why)| json!({"path": path, "reason": why}))
            .collect();
        findings.push(Finding {
            code: "ENTRIES_SKIPPED",
            severity: Severity::Partial,
            message: format!("{} entries are not analysed (symlinks, unreadable or oversized files); samples: {}", discovered.skipped.len(), Value::Array(samples)),
            path: None,
            remedy: json!({"kind": "config", "file": "repositories.yaml", "key": format!("repositories[{}].exclusions", entry.name), "detail": "exclude them to acknowledge the hole, or make them regular readable files inside the checkout"}),
        });
    }
    (findings, json!(by_language))
}

/// What the analyzers of the pass that published `manifest` could not do for repository
/// `entry`: each failure they recorded, with what would let the next pass do it. A
/// workspace of the repository cargo was just asked about (`cargo_asked`) has that answer
/// instead.
fn last_pass_findings(
    entry: &RepositoryEntry,
    manifest: &Manifest,
    cargo_asked: bool,
) -> Vec<Finding> {
    let Some(state) = manifest.repositories.iter().find(|r| r.name == entry.name) else {
        return Vec::new();
    };
    let mut findings: Vec<Finding> = state
        .analyzers
        .iter()
        .flat_map(|analyzer| {
            analyzer.failures.iter().filter_map(|failure| {
                let generation = &manifest.generation_id;
                failure_finding(entry, &analyzer.language, generation, failure, cargo_asked)
            })
        })
        .collect();
    // The Rust files the configured features and cfgs leave out: declarations in the
    // graph, uses not, by the configuration's choice.
    for not_built in state.analyzers.iter().flat_map(|a| &a.not_built) {
        findings.push(Finding {
            code: "RUST_FILES_NOT_BUILT",
            severity: Severity::Note,
            message: not_built.clone(),
            path: None,
            remedy: json!({"kind": "config", "file": "config.yaml", "key": "rust.features", "detail": "activate the features whose modules should count as used code (or rust.all_features: true)"}),
        });
    }
    findings
}

/// One failure an analyzer recorded (`WORKSPACE_NOT_LOADED root: why`,
/// `MODULE_NOT_LOADED package: why`, or a unit's `label: why`) as a finding; `None` for a
/// workspace whose dependencies cargo was just asked about (`cargo_asked`).
fn failure_finding(
    entry: &RepositoryEntry,
    language: &str,
    generation: &GenerationId,
    failure: &str,
    cargo_asked: bool,
) -> Option<Finding> {
    let context =
        format!("the {language} analyzer, in the pass that published generation {generation}");
    let finding = |code, message: String, path: Option<&str>, remedy| Finding {
        code,
        severity: Severity::Partial,
        message,
        path: path.map(str::to_string),
        remedy,
    };
    if let Some(rest) = failure.strip_prefix("WORKSPACE_NOT_LOADED ") {
        let (root, why) = rest.split_once(": ").unwrap_or((".", rest));
        if why.starts_with("the standard library") {
            let remedy = json!({"kind": "command", "command": "cargo xtask setup"});
            let message = format!("{context}: {why}");
            return Some(finding("WORKSPACE_NOT_LOADED", message, Some(root), remedy));
        }
        return (!cargo_asked)
            .then(|| workspace_not_loaded(entry, root, format!("{context}: {why}")));
    }
    if let Some(rest) = failure.strip_prefix("MODULE_NOT_LOADED ") {
        return Some(finding(
            "MODULE_NOT_LOADED",
            format!("{context}: {rest}"),
            None,
            json!({
                "kind": "config",
                "file": "config.yaml",
                "key": "go.allow_network",
                "detail": "what the module requires is not in the module cache: run `go mod download` in the module, or let the pass reach a module proxy",
            }),
        ));
    }
    Some(finding(
        "ANALYZER_UNIT_FAILED",
        format!("{context}: {failure}"),
        None,
        json!({
            "kind": "config",
            "file": "repositories.yaml",
            "key": format!("repositories[{}].exclusions", entry.name),
            "detail": "the unit's files keep syntax-layer edges: fix what the failure names, or exclude them to acknowledge the hole",
        }),
    ))
}

/// A Cargo workspace at `root` analysed without its dependencies, and how to let the next
/// pass load them.
fn workspace_not_loaded(entry: &RepositoryEntry, root: &str, message: String) -> Finding {
    let directory = match root {
        "." => entry.path.clone(),
        root => entry.path.join(root),
    };
    Finding {
        code: "WORKSPACE_NOT_LOADED",
        severity: Severity::Partial,
        message,
        path: Some(root.to_string()),
        remedy: json!({
            "kind": "command",
            "command": format!("cargo fetch --manifest-path {}", directory.join("Cargo.toml").display()),
            "detail": "puts the workspace's dependencies in cargo's local registry, where an offline pass loads them (cargo writes Cargo.lock there if it has none); or set rust.allow_network: true",
        }),
    }
}

/// The registry token that enables a language (JavaScript comes with `typescript`).
fn language_token(language: Language) -> &'static str {
    match language {
        Language::Go => "go",
        Language::TypeScript | Language::JavaScript => "typescript",
        Language::Rust => "rust",
        Language::Python => "python",
    }
}

fn join(directory: &str, file: &str) -> String {
    if directory.is_empty() {
        file.to_string()
    } else {
        format!("{directory}/{file}")
    }
}

pub fn run(
    config: &LoadedConfig,
    repository: Option<&str>,
    as_json: bool,
) -> anyhow::Result<ExitCode> {
    let registry = Registry::load(&config.repositories_file)?;
    let entries: Vec<&RepositoryEntry> = match repository {
        Some(name) => vec![registry.get(name).ok_or_else(|| {
            anyhow::anyhow!("REPOSITORY_NOT_FOUND: no registered repository is named {name:?}")
        })?],
        None => registry.repositories.iter().collect(),
    };
    let located = crate::analyzers::locate(config);
    // Offline, as a pass loads a workspace; with the network allowed cargo fetches instead.
    let ask_cargo = !config.config.rust.allow_network && located.get(Analyzer::Rust).is_ok();
    let go_build = GoBuildContext::of(&config.config.go);
    let store = GenerationStore::new(config.generation_store());
    let published: Option<Manifest> = store
        .current()
        .ok()
        .flatten()
        .and_then(|id| store.manifest(id).ok());
    let mut blocking = 0;
    let mut partial = 0;
    let mut reports = Vec::new();
    for entry in entries {
        let (mut findings, files) = audit(entry, &located, &go_build, ask_cargo);
        if let Some(manifest) = &published {
            findings.extend(last_pass_findings(entry, manifest, ask_cargo));
        }
        blocking += findings
            .iter()
            .filter(|f| f.severity == Severity::Blocking)
            .count();
        partial += findings
            .iter()
            .filter(|f| f.severity == Severity::Partial)
            .count();
        if !as_json {
            let verdict = if findings.iter().any(|f| f.severity == Severity::Blocking) {
                "BLOCKING"
            } else if findings.iter().all(|f| f.severity == Severity::Note) {
                "OK"
            } else {
                "PARTIAL"
            };
            println!(
                "repository.{}: {verdict} ({}; files {files})",
                entry.name,
                entry.path.display()
            );
            for finding in &findings {
                let severity = finding.severity.as_str();
                let place = finding
                    .path
                    .as_deref()
                    .map(|p| format!(" [{p}]"))
                    .unwrap_or_default();
                println!("  {severity} {}{place}: {}", finding.code, finding.message);
                println!("    remedy: {}", finding.remedy);
            }
        }
        reports.push(json!({
            "name": entry.name,
            "path": entry.path,
            "files_by_language": files,
            "findings": findings.iter().map(|f| json!({
                "code": f.code,
                "severity": f.severity.as_str(),
                "message": f.message,
                "path": f.path,
                "remedy": f.remedy,
            })).collect::<Vec<_>>(),
        }));
    }
    if as_json {
        println!(
            "{}",
            json!({"repositories": reports, "blocking": blocking, "partial": partial})
        );
    } else {
        println!("doctor repositories: {blocking} blocking, {partial} partial");
    }
    // Only a blocking finding fails: a partial one is a hole its owner may have chosen.
    Ok(if blocking > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> RepositoryEntry {
        RepositoryEntry {
            name: "crates".into(),
            path: "/src/crates".into(),
            languages: vec![LanguageToken::Rust],
            manifests: Vec::new(),
            roots: Vec::new(),
            exclusions: Vec::new(),
        }
    }

    #[test]
    fn recorded_failures_become_findings_with_what_would_let_the_next_pass_succeed() {
        let generation = GenerationId(7);
        let recorded = "WORKSPACE_NOT_LOADED itoa: dependencies not loaded (error: no matching package named `criterion` found)";
        let fetch = failure_finding(&entry(), "rust", &generation, recorded, false).unwrap();
        // Cargo asked just now answers for the workspace instead.
        assert!(failure_finding(&entry(), "rust", &generation, recorded, true).is_none());
        let at_root = "WORKSPACE_NOT_LOADED .: dependencies not loaded (error)";
        let at_root = failure_finding(&entry(), "rust", &generation, at_root, false).unwrap();
        assert_eq!(
            at_root.remedy["command"],
            "cargo fetch --manifest-path /src/crates/Cargo.toml"
        );
        assert_eq!(fetch.code, "WORKSPACE_NOT_LOADED");
        assert_eq!(fetch.path.as_deref(), Some("itoa"));
        assert_eq!(
            fetch.message,
            "the rust analyzer, in the pass that published generation 000007: dependencies not loaded (error: no matching package named `criterion` found)"
        );
        assert_eq!(
            fetch.remedy["command"],
            "cargo fetch --manifest-path /src/crates/itoa/Cargo.toml"
        );
        let sysroot = failure_finding(
            &entry(),
            "rust",
            &generation,
            "WORKSPACE_NOT_LOADED .: the standard library's dependencies not loaded; cargo xtask setup fetches them (error)",
            true,
        )
        .unwrap();
        assert_eq!(sysroot.remedy["command"], "cargo xtask setup");
        let module = failure_finding(
            &entry(),
            "go",
            &generation,
            "MODULE_NOT_LOADED example.com/app/...: go: example.com/lib@v1.2.0: module lookup disabled",
            true,
        )
        .unwrap();
        assert_eq!(
            (module.code, module.path, &module.remedy["key"]),
            ("MODULE_NOT_LOADED", None, &json!("go.allow_network"))
        );
        let unit = failure_finding(
            &entry(),
            "python",
            &generation,
            "Python unit: pyright crashed",
            true,
        )
        .unwrap();
        assert_eq!(unit.code, "ANALYZER_UNIT_FAILED");
        assert!(unit.message.ends_with(": Python unit: pyright crashed"));
        assert_eq!(unit.remedy["key"], "repositories[crates].exclusions");
    }
}
