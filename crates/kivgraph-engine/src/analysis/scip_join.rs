//! The join of a SCIP index with the syntax layer's declarations: which analyzer symbol
//! names which declaration of the graph, and every use kept by position and spelling.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use kivgraph_analyzers::{LineIndex, ScipIndex};
use kivgraph_facts::{Fingerprint, LineSpan, SymbolFact};

use super::scip_symbol::ScipSymbol;
use super::unit::{Definition, Outside, UnitAnalysis, UnitReference};
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
    let by_file = declarations_by_file(symbols);
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
                if occurrence.definition {
                    analysis.defined_outside.push(occurrence.symbol.clone());
                }
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
                    None => {
                        *outside.entry(spelled.to_string()).or_default() += 1;
                        analysis.defined_outside.push(occurrence.symbol.clone());
                    }
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
    analysis.defined_outside.sort();
    analysis.defined_outside.dedup();
    analysis.implementations.sort();
    analysis.implementations.dedup();
    analysis.type_definitions.sort();
    analysis.type_definitions.dedup();
    analysis
}

/// The declarations of the unit's files, by `(repository, path)`.
fn declarations_by_file(symbols: &[SymbolFact]) -> BTreeMap<(&str, &str), Vec<&SymbolFact>> {
    let mut by_file: BTreeMap<(&str, &str), Vec<&SymbolFact>> = BTreeMap::new();
    for symbol in symbols {
        by_file
            .entry((&symbol.repository, &symbol.file_path))
            .or_default()
            .push(symbol);
    }
    by_file
}

/// A document's file, `(repository, path)`, and its text.
pub(super) type DocumentSource = ((String, String), Arc<str>);

/// rust-analyzer does not always mark the definition of an item a macro invocation spells
/// out: two runs over the same sources give syn's `ident/Ident().` (declared inside
/// `pub_if_not_doc! { pub fn Ident … }`) a definition in one and none in the other. Where
/// no occurrence of a symbol of the document's own crate is a definition, the first
/// occurrence standing on the name of the declaration its descriptors spell (`ident/Ident().`
/// inside `ident::Ident`) is that definition. Another symbol of the same name used inside
/// the declaration belongs to another crate or another path, so it is never taken.
pub(super) fn mark_unmarked_definitions(
    index: &mut ScipIndex,
    source: &dyn Fn(&str) -> Option<DocumentSource>,
    symbols: &[SymbolFact],
) {
    let defined: BTreeSet<&str> = index
        .documents
        .iter()
        .flat_map(|d| &d.occurrences)
        .filter(|o| o.definition && !o.is_local())
        .map(|o| o.symbol.as_str())
        .collect();
    let by_file = declarations_by_file(symbols);
    // Per symbol, its first standing: (repository, path, byte), document, occurrence.
    type Standing = ((String, String, usize), usize, usize);
    let mut first: BTreeMap<&str, Standing> = BTreeMap::new();
    for (d, document) in index.documents.iter().enumerate() {
        let Some(crate_of_document) = document
            .occurrences
            .iter()
            .filter(|o| o.definition)
            .find_map(|o| ScipSymbol::parse(&o.symbol))
            .map(|s| (s.package, s.version))
        else {
            continue;
        };
        // The uses that could be an unmarked definition, found without the file's text:
        // almost every document has none, and then its text is never read.
        let candidates: Vec<(usize, ScipSymbol, String)> = document
            .occurrences
            .iter()
            .enumerate()
            .filter(|(_, o)| !o.definition && !defined.contains(o.symbol.as_str()))
            .filter_map(|(k, o)| {
                let symbol = ScipSymbol::parse(&o.symbol)
                    .filter(|s| (s.package, s.version) == crate_of_document)?;
                let path = symbol.declaration_path()?;
                Some((k, symbol, path))
            })
            .collect();
        if candidates.is_empty() {
            continue;
        }
        let Some((file, text)) = source(&document.relative_path) else {
            continue;
        };
        let lines = LineIndex::new(&text);
        let declared = by_file
            .get(&(file.0.as_str(), file.1.as_str()))
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (k, symbol, path) in candidates {
            let occurrence = &document.occurrences[k];
            let Some((start, end)) = occurrence.to_bytes(&lines) else {
                continue;
            };
            let spelled = &text[start..end];
            let stands_on_it = innermost(declared, start, |s| {
                s.name == spelled && s.qualified_name == path && symbol.may_name(s.kind)
            })
            .is_some();
            let at = (file.0.clone(), file.1.clone(), start);
            if stands_on_it
                && first
                    .get(occurrence.symbol.as_str())
                    .is_none_or(|f| at < f.0)
            {
                first.insert(&occurrence.symbol, (at, d, k));
            }
        }
    }
    let marks: Vec<(usize, usize)> = first.into_values().map(|(_, d, k)| (d, k)).collect();
    for (d, k) in marks {
        index.documents[d].occurrences[k].definition = true;
    }
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use kivgraph_analyzers::{ColumnEncoding, Occurrence, ScipDocument, ScipIndex};
    use kivgraph_facts::{Language, LineSpan, StableKey, SymbolFact, SymbolKind};

    use super::mark_unmarked_definitions;

    const TEXT: &str = "pub_if_not_doc! {\n    pub fn Ident(marker: u8) -> u8 {\n        Ident(marker)\n    }\n}\n";

    fn occurrence(line: u32, columns: (u32, u32), symbol: &str, definition: bool) -> Occurrence {
        Occurrence {
            start_line: line,
            start_column: columns.0,
            end_line: line,
            end_column: columns.1,
            symbol: symbol.to_string(),
            definition,
            encoding: ColumnEncoding::Utf8,
        }
    }

    /// `ident::Ident`, the function the macro invocation spells out (lines 2-4).
    fn declaration() -> SymbolFact {
        let start = TEXT.find("pub fn").unwrap() as u32;
        let end = TEXT.rfind("    }").unwrap() as u32 + 5;
        SymbolFact {
            key: StableKey([7; 32]),
            repository: "syn".into(),
            language: Language::Rust,
            package: StableKey([1; 32]),
            file_path: "src/ident.rs".into(),
            name: "Ident".into(),
            qualified_name: "ident::Ident".into(),
            kind: SymbolKind::Function,
            signature: "pub fn Ident(marker: u8) -> u8".into(),
            exported: true,
            span: LineSpan {
                start_line: 2,
                end_line: 4,
                start_byte: start,
                end_byte: end,
            },
            doc: None,
            parent: None,
            key_module: String::new(),
            key_discriminator: String::new(),
        }
    }

    fn marked(occurrences: Vec<Occurrence>) -> Vec<bool> {
        let mut index = ScipIndex {
            documents: vec![ScipDocument {
                relative_path: "src/ident.rs".into(),
                occurrences,
                ..ScipDocument::default()
            }],
            ..ScipIndex::default()
        };
        let source = |path: &str| Some((("syn".to_string(), path.to_string()), Arc::from(TEXT)));
        mark_unmarked_definitions(&mut index, &source, &[declaration()]);
        index.documents[0]
            .occurrences
            .iter()
            .map(|o| o.definition)
            .collect()
    }

    const MODULE: &str = "rust-analyzer cargo syn 3.0.10 ident/";
    const FUNCTION: &str = "rust-analyzer cargo syn 3.0.10 ident/Ident().";

    /// rust-analyzer left the name unmarked (as it does in some runs for an item a macro
    /// spells): the occurrence on the declaration's name is its definition, the call inside
    /// the body stays a use.
    #[test]
    fn the_name_of_a_declaration_its_symbol_spells_is_its_definition() {
        let module = Occurrence {
            end_line: 4,
            end_column: 1,
            ..occurrence(0, (0, 0), MODULE, true)
        };
        assert_eq!(
            marked(vec![
                module.clone(),
                occurrence(2, (8, 13), FUNCTION, false),
                occurrence(1, (11, 16), FUNCTION, false),
            ]),
            [true, false, true]
        );
        // Marked where rust-analyzer marked it: nothing else changes.
        assert_eq!(
            marked(vec![
                module.clone(),
                occurrence(1, (11, 16), FUNCTION, true),
                occurrence(2, (8, 13), FUNCTION, false),
            ]),
            [true, true, false]
        );
        // Another crate's `Ident`, or a path other than the declaration's, is never taken.
        for other in [
            "rust-analyzer cargo proc-macro2 1.0.107 Ident().",
            "rust-analyzer cargo syn 3.0.10 token/Ident().",
        ] {
            assert_eq!(
                marked(vec![module.clone(), occurrence(1, (11, 16), other, false)]),
                [true, false],
                "{other}"
            );
        }
    }
}
