//! `module_report` and `read_symbol` against reading the whole file, on real files of each
//! language: files with many small declarations and files that are one giant function.

use std::path::{Path, PathBuf};

use anyhow::Context;
use kivgraph_facts::Language;
use kivgraph_query::{ModuleReportArgs, ReadSymbolArgs, Roots, module_report, read_symbol};
use serde_json::{Value, json};

use crate::corpus_dir;

const PER_SHAPE: [(&str, usize); 2] = [("many small symbols", 7), ("one giant function", 3)];

pub(crate) fn source_files(root: &Path, extension: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let is_link = std::fs::symlink_metadata(&path)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(true);
        if is_link
            || name.starts_with('.')
            || name == "node_modules"
            || name == "dist"
            || name == "target"
        {
            continue;
        }
        if path.is_dir() {
            source_files(&path, extension, out);
        } else if name.ends_with(extension)
            && !name.ends_with(".d.ts")
            && !name.contains("_test.")
            && !name.starts_with("test_")
        {
            out.push(path);
        }
    }
}

/// The shape of a file, by its declarations: many small ones, or one that is most of it.
fn shape_of(language: Language, path: &Path, text: &str) -> Option<&'static str> {
    let facts = kivgraph_syntax::extract(language, &path.to_string_lossy(), text);
    let lines = facts.line_count;
    let callable = |k: &str| matches!(k, "func" | "function" | "method" | "static_method");
    let largest = facts
        .declarations
        .iter()
        .filter(|d| callable(d.kind.as_str()))
        .map(|d| d.span.end_line - d.span.start_line + 1)
        .max()
        .unwrap_or(0);
    if facts.declarations.len() >= 15 && (150..=2000).contains(&lines) && largest * 5 < lines {
        Some("many small symbols")
    } else if lines >= 80 && largest * 10 >= lines * 6 && facts.declarations.len() <= 8 {
        Some("one giant function")
    } else {
        None
    }
}

pub fn navigate_benchmark(args: &[String]) -> anyhow::Result<()> {
    let corpus = corpus_dir(args);
    let repositories = [
        ("crates", corpus.join("rust/src"), Language::Rust, ".rs"),
        ("debian-go", corpus.join("go/src"), Language::Go, ".go"),
        ("npm", corpus.join("ts"), Language::TypeScript, ".ts"),
        ("pypi", corpus.join("python"), Language::Python, ".py"),
    ];
    let roots = Roots(
        repositories
            .iter()
            .map(|(name, root, _, _)| (name.to_string(), root.clone()))
            .collect(),
    );
    let bpe = tiktoken_rs::o200k_base()?;
    let tokens = |text: &str| bpe.encode_with_special_tokens(text).len();
    let mut rows = Vec::new();
    for (name, root, language, extension) in &repositories {
        let mut files = Vec::new();
        source_files(root, extension, &mut files);
        for (shape, wanted) in PER_SHAPE {
            let mut taken = 0;
            for file in &files {
                if taken == wanted {
                    break;
                }
                let Ok(text) = std::fs::read_to_string(file) else {
                    continue;
                };
                if shape_of(*language, file, &text) != Some(shape) {
                    continue;
                }
                let request = ModuleReportArgs {
                    file: Some(file.to_string_lossy().to_string()),
                    repository: Some(name.to_string()),
                    max_refs_per_symbol: None,
                    view: None,
                };
                let json_report =
                    module_report(None, &roots, &request).map_err(|e| anyhow::anyhow!(e))?;
                let compact = module_report(
                    None,
                    &roots,
                    &ModuleReportArgs {
                        view: Some("compact".into()),
                        ..request.clone()
                    },
                )
                .map_err(|e| anyhow::anyhow!(e))?;
                let parsed: Value = serde_json::from_str(&json_report)?;
                // The common case reads one function of ordinary size: the median callable.
                let mut callables: Vec<(u64, String)> = ["api", "internal"]
                    .iter()
                    .flat_map(|section| parsed[*section].as_array().cloned().unwrap_or_default())
                    .filter(|e| {
                        matches!(
                            e["kind"].as_str(),
                            Some("func" | "function" | "method" | "static_method")
                        )
                    })
                    .map(|e| {
                        (
                            e["endLine"].as_u64().unwrap_or(0)
                                - e["startLine"].as_u64().unwrap_or(0),
                            e["name"].as_str().unwrap_or("").to_string(),
                        )
                    })
                    .collect();
                callables.sort();
                let target = match callables.get(callables.len() / 2) {
                    Some((_, name)) => name.clone(),
                    None => parsed["recommendedReads"][0]["symbol"]
                        .as_str()
                        .context("a symbol to read")?
                        .to_string(),
                };
                let body = read_symbol(
                    &roots,
                    &ReadSymbolArgs {
                        file: request.file.clone(),
                        symbol: Some(target.clone()),
                        kind: None,
                        repository: Some(name.to_string()),
                    },
                )
                .map_err(|e| anyhow::anyhow!(e))?;
                let (read, json_tokens, compact_tokens, body_tokens) = (
                    tokens(&text),
                    tokens(&json_report),
                    tokens(&compact),
                    tokens(&body),
                );
                rows.push(json!({
                    "repository": name, "file": file.strip_prefix(root).unwrap_or(file).display().to_string(), "shape": shape,
                    "lines": text.lines().count(), "read": read, "report_json": json_tokens, "report_compact": compact_tokens,
                    "read_symbol": body_tokens, "symbol": target,
                    "compact_vs_read": (read as f64 / compact_tokens as f64 * 100.0).round() / 100.0,
                    "pair_saving": ((1.0 - (compact_tokens + body_tokens) as f64 / read as f64) * 1000.0).round() / 10.0,
                }));
                taken += 1;
            }
        }
    }
    let summary = |shape: &str| {
        let chosen: Vec<&Value> = rows.iter().filter(|r| r["shape"] == shape).collect();
        let sum = |field: &str| {
            chosen
                .iter()
                .map(|r| r[field].as_u64().unwrap_or(0))
                .sum::<u64>()
        };
        json!({
            "files": chosen.len(),
            "read": sum("read"), "report_json": sum("report_json"), "report_compact": sum("report_compact"),
            "compact_vs_read": (sum("read") as f64 / sum("report_compact") as f64 * 100.0).round() / 100.0,
            "json_vs_read": (sum("read") as f64 / sum("report_json") as f64 * 100.0).round() / 100.0,
            "pair_saving_percent": ((1.0 - (sum("report_compact") + sum("read_symbol")) as f64 / sum("read") as f64) * 1000.0).round() / 10.0,
            "files_where_reading_wins_the_pair": chosen.iter().filter(|r| r["pair_saving"].as_f64().unwrap_or(0.0) < 0.0).count(),
        })
    };
    let report = json!({
        "many_small_symbols": summary("many small symbols"),
        "one_giant_function": summary("one giant function"),
        "files": rows,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
