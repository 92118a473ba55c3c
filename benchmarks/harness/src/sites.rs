//! What reading reference sites costs the syntax layer, and how many there are: each file of
//! the corpus parsed once for declarations alone and once with its reference sites, on one
//! thread, side by side.
//!
//! ```text
//! $CARGO_TARGET_DIR/release/kivgraph-bench sites [--corpus DIR]
//! ```

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use kivgraph_facts::Language;
use serde_json::json;

use crate::corpus_dir;
use crate::navigate::source_files;

pub fn sites_benchmark(args: &[String]) -> anyhow::Result<()> {
    let corpus = corpus_dir(args);
    let mut report = Vec::new();
    for (language, dir, extension) in [
        (Language::Rust, "rust/src", ".rs"),
        (Language::Go, "go/src", ".go"),
        (Language::TypeScript, "ts", ".ts"),
        (Language::Python, "python", ".py"),
    ] {
        let mut files = Vec::new();
        source_files(&corpus.join(dir), extension, &mut files);
        let (mut declarations_only, mut with_sites) = (Duration::ZERO, Duration::ZERO);
        let (mut lines, mut declarations) = (0u64, 0u64);
        let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
        let mut top_level = 0u64;
        for path in &files {
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            let name = path.to_string_lossy();
            let started = Instant::now();
            let facts = kivgraph_syntax::extract(language, &name, &text);
            declarations_only += started.elapsed();
            let started = Instant::now();
            let (_, sites) = kivgraph_syntax::extract_with_references(language, &name, &text);
            with_sites += started.elapsed();
            lines += u64::from(facts.line_count);
            declarations += facts.declarations.len() as u64;
            for site in &sites {
                *by_kind.entry(site.kind.as_str().to_string()).or_default() += 1;
                top_level += u64::from(site.enclosing.is_none());
            }
        }
        let total: u64 = by_kind.values().sum();
        report.push(json!({
            "language": language.as_str(),
            "files": files.len(),
            "lines": lines,
            "declarations": declarations,
            "sites": total,
            "sites_at_top_level": top_level,
            "sites_by_kind": by_kind,
            "declarations_only_ms": declarations_only.as_secs_f64() * 1e3,
            "with_sites_ms": with_sites.as_secs_f64() * 1e3,
            "ratio": with_sites.as_secs_f64() / declarations_only.as_secs_f64().max(1e-9),
        }));
    }
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
