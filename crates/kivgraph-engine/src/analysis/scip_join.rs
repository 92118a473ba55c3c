//! The join of a SCIP index with the syntax layer's declarations: which analyzer symbol
//! names which declaration of the graph, and every use kept by position and spelling.

use std::collections::{BTreeMap, BTreeSet};

use kivgraph_analyzers::{LineIndex, ScipIndex};
use kivgraph_facts::{Fingerprint, LineSpan, SymbolFact};

use super::{Definition, Outside, UnitAnalysis, UnitReference};
use crate::database::Db;

/// Joins an index's occurrences with the declarations of the files the unit owns:
/// a definition names the innermost declaration spelled as it is at its position; a
/// reference keeps its position and spelling for the layering to class.
pub(super) fn unit_analysis(
    db: &dyn Db,
    analyzer: String,
    index: &ScipIndex,
    own: &BTreeMap<(String, String), Fingerprint>,
    locate: &dyn Fn(&str) -> Option<(String, String)>,
    symbols: &[SymbolFact],
) -> UnitAnalysis {
    let mut by_file: BTreeMap<(&str, &str), Vec<&SymbolFact>> = BTreeMap::new();
    for symbol in symbols {
        by_file
            .entry((&symbol.repository, &symbol.file_path))
            .or_default()
            .push(symbol);
    }
    let mut analysis = UnitAnalysis {
        analyzer,
        skipped_files: index.skipped.iter().filter_map(|p| locate(p)).collect(),
        not_loaded: index.not_loaded.clone(),
        unbuildable: index.unbuildable.clone(),
        unloaded: index.unloaded.clone(),
        ..UnitAnalysis::default()
    };
    for document in &index.documents {
        let Some((repository, path)) = locate(&document.relative_path) else {
            continue;
        };
        let Some(fingerprint) = own.get(&(repository.clone(), path.clone())) else {
            continue;
        };
        let Some(text) = db.source_text(*fingerprint) else {
            continue;
        };
        let lines = LineIndex::new(&text);
        let declared = by_file
            .get(&(repository.as_str(), path.as_str()))
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut defined: BTreeSet<&str> = BTreeSet::new();
        let mut outside: BTreeMap<String, u32> = BTreeMap::new();
        // A local the document never binds is a name an unresolved import brought (the
        // checker gives it no declaration): a use nobody bound, still owed an explanation.
        let bound_locals: BTreeSet<&str> = document
            .occurrences
            .iter()
            .filter(|o| o.definition && o.is_local())
            .map(|o| o.symbol.as_str())
            .collect();
        for occurrence in &document.occurrences {
            let Some((start, end)) = occurrence.to_bytes(&lines) else {
                continue;
            };
            if occurrence.is_local() {
                if bound_locals.contains(occurrence.symbol.as_str()) {
                    *outside.entry(text[start..end].to_string()).or_default() += 1;
                }
                continue;
            }
            if names_a_module(&occurrence.symbol) {
                *outside.entry(text[start..end].to_string()).or_default() += 1;
                continue;
            }
            // pyright spans a renaming import whole (`Square as Square`): the name used is
            // the one before `as`. rust-analyzer defines a module over its whole file: no
            // name is spelled there.
            let spelled = &text[start..end];
            if spelled.contains('\n') {
                continue;
            }
            let (spelled, end) = match spelled.split_once(" as ") {
                Some((name, _)) => (name.trim_end(), start + name.trim_end().len()),
                None => (spelled, end),
            };
            if occurrence.definition {
                match innermost(declared, start, |s| s.name == spelled) {
                    Some(symbol) => {
                        defined.insert(&occurrence.symbol);
                        analysis.definitions.push(Definition {
                            symbol: occurrence.symbol.clone(),
                            key: symbol.key,
                            kind: symbol.kind,
                            repository: repository.clone(),
                            path: path.clone(),
                        });
                    }
                    None => *outside.entry(spelled.to_string()).or_default() += 1,
                }
                continue;
            }
            analysis.references.push(UnitReference {
                repository: repository.clone(),
                path: path.clone(),
                span: LineSpan {
                    start_line: occurrence.start_line + 1,
                    end_line: occurrence.end_line + 1,
                    start_byte: start as u32,
                    end_byte: end as u32,
                },
                text: spelled.to_string(),
                symbol: occurrence.symbol.clone(),
            });
        }
        analysis
            .outside
            .extend(outside.into_iter().map(|(name, count)| Outside {
                repository: repository.clone(),
                path: path.clone(),
                name,
                count,
            }));
        for (related, relationships) in [
            (&mut analysis.implementations, &document.implementations),
            (&mut analysis.type_definitions, &document.type_definitions),
        ] {
            related.extend(
                relationships
                    .iter()
                    .filter(|(symbol, _)| defined.contains(symbol.as_str()))
                    .cloned(),
            );
        }
    }
    // By file, so that each package reads only its own files' share.
    analysis.references.sort_by(|a, b| {
        (&a.repository, &a.path, a.span.start_byte, &a.symbol).cmp(&(
            &b.repository,
            &b.path,
            b.span.start_byte,
            &b.symbol,
        ))
    });
    analysis
        .outside
        .sort_by(|a, b| (&a.repository, &a.path, &a.name).cmp(&(&b.repository, &b.path, &b.name)));
    // Whatever order the analyzer wrote its documents in, the unit's answer is the same.
    analysis.definitions.sort_by(|a, b| {
        (&a.repository, &a.path, &a.symbol, a.key).cmp(&(&b.repository, &b.path, &b.symbol, b.key))
    });
    analysis.implementations.sort();
    analysis.implementations.dedup();
    analysis.type_definitions.sort();
    analysis.type_definitions.dedup();
    analysis
}

/// A symbol that names a file or a module rather than a declaration:
/// `` src/`cache.ts`/ `` (TypeScript), `` `pkg.mod`/__init__: `` (Python), `crate/` or
/// `store/` (Rust: a crate root or a module), `go-package net/http` (Go: an imported package,
/// or the universe's `builtin`).
fn names_a_module(symbol: &str) -> bool {
    (symbol.ends_with('/') && (symbol.contains("`/") || symbol.starts_with("rust-analyzer ")))
        || symbol.ends_with("__init__:")
        || symbol.starts_with("go-package ")
}

/// The innermost declaration of `symbols` holding byte `at` that `accepts`.
pub(super) fn innermost<'a>(
    symbols: &[&'a SymbolFact],
    at: usize,
    accepts: impl Fn(&SymbolFact) -> bool,
) -> Option<&'a SymbolFact> {
    let at = at as u32;
    symbols
        .iter()
        .filter(|s| s.span.start_byte <= at && at < s.span.end_byte.max(s.span.start_byte + 1))
        .filter(|s| accepts(s))
        .min_by_key(|s| s.span.end_byte - s.span.start_byte)
        .copied()
}
