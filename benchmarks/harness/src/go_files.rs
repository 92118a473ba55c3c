//! Which `.go` files the graph holds, against the go command: for each Go module of each
//! directory, `go list -e -json ./...` under the same build context is the truth (its
//! `GoFiles` and `CgoFiles`, with `TestGoFiles` and `XTestGoFiles` when tests are included),
//! and discovery's files are compared with it, file by file.
//!
//! ```text
//! $CARGO_TARGET_DIR/release/kivgraph-bench go-files --go ~/.cache/kivgraph/analyzers/go/current/bin/go DIR...
//! ```

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};
use kivgraph_config::{GoBuildContext, GoSection, LanguageToken, RepositoryEntry};
use kivgraph_discovery::discover_repository;
use serde_json::{Value, json};

use crate::flag;

pub fn go_files_benchmark(args: &[String]) -> anyhow::Result<()> {
    let go = flag(args, "--go").context("--go PATH: the go command to ask")?;
    let mut directories = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if arg == "--go" {
            rest.next();
        } else {
            directories.push(arg.clone());
        }
    }
    if directories.is_empty() {
        bail!("usage: kivgraph-bench go-files --go PATH DIR...");
    }
    let mut report = Vec::new();
    for directory in &directories {
        for include_tests in [false, true] {
            let context = GoBuildContext {
                include_tests,
                ..GoBuildContext::of(&GoSection::default())
            };
            report.push(compare(Path::new(directory), &go, &context)?);
        }
    }
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

fn compare(root: &Path, go: &str, context: &GoBuildContext) -> anyhow::Result<Value> {
    // go list names directories absolutely.
    let root = &root.canonicalize()?;
    let entry = RepositoryEntry {
        name: "measured".into(),
        path: root.to_path_buf(),
        languages: vec![LanguageToken::Go],
        manifests: vec![],
        roots: vec![],
        exclusions: vec![],
    };
    let discovered = discover_repository(&entry, context)?;
    let modules: Vec<&String> = discovered.module_maps.go_modules.keys().collect();
    let in_a_module = |path: &str| {
        modules
            .iter()
            .any(|m| m.is_empty() || path.starts_with(&format!("{m}/")))
    };
    let ours: BTreeSet<String> = discovered
        .files
        .iter()
        .map(|f| f.path.clone())
        .filter(|p| in_a_module(p))
        .collect();
    let mut truth = BTreeSet::new();
    for module in &modules {
        truth.extend(listed(root, module, go, context)?);
    }
    let only_ours: Vec<&String> = ours.difference(&truth).collect();
    let only_go: Vec<&String> = truth.difference(&ours).collect();
    Ok(json!({
        "directory": root.display().to_string(),
        "include_tests": context.include_tests,
        "modules": modules.len(),
        "go_list_files": truth.len(),
        "graph_files": ours.len(),
        "agree": ours.intersection(&truth).count(),
        "only_in_graph": only_ours,
        "only_in_go_list": only_go,
        "left_out": discovered.go_left_out.iter().map(|l| json!({"rule": l.rule.as_str(), "files": l.files})).collect::<Vec<_>>(),
    }))
}

/// The repository-relative files `go list` compiles in the module at `module`.
fn listed(
    root: &Path,
    module: &str,
    go: &str,
    context: &GoBuildContext,
) -> anyhow::Result<Vec<String>> {
    let directory = root.join(module);
    let list = |modules: &str| {
        Command::new(go)
            .args([
                "list",
                "-e",
                "-json",
                "-tags",
                &context.build_tags.join(","),
            ])
            .arg("./...")
            .current_dir(&directory)
            .env("GOOS", &context.goos)
            .env("GOARCH", &context.goarch)
            .env("CGO_ENABLED", if context.cgo { "1" } else { "0" })
            .env("GO111MODULE", modules)
            .env("GOPROXY", "off")
            .env("GOWORK", "off")
            .env("GOFLAGS", "-mod=mod")
            .env("GOTOOLCHAIN", "local")
            .output()
            .with_context(|| format!("running {go} list in {}", directory.display()))
    };
    let mut output = list("on")?;
    // A module whose requirements cannot be loaded offline lists nothing; go/build selects
    // a directory's files the same way without modules.
    if output.stdout.is_empty() {
        output = list("off")?;
    }
    let mut files = Vec::new();
    for package in serde_json::Deserializer::from_slice(&output.stdout).into_iter::<Value>() {
        let package = package?;
        let Some(dir) = package["Dir"].as_str() else {
            continue;
        };
        let Ok(relative) = Path::new(dir).strip_prefix(root) else {
            continue;
        };
        let mut lists = vec!["GoFiles", "CgoFiles"];
        if context.include_tests {
            lists.extend(["TestGoFiles", "XTestGoFiles"]);
        }
        for list in lists {
            for file in package[list].as_array().into_iter().flatten() {
                let path = relative.join(file.as_str().unwrap_or_default());
                files.push(path.to_string_lossy().into_owned());
            }
        }
    }
    Ok(files)
}
