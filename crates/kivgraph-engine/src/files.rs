//! One file's facts: parsed, keyed and persisted (this memo is the fact cache), with the
//! regions the parser had to recover.

use std::collections::HashMap;

use kivgraph_facts::{
    FileFact, Language, LineSpan, PackageFact, ParseIssue, Reason, StableKey, UnresolvedReference,
};
use kivgraph_syntax::Declaration;
use serde::{Deserialize, Serialize};

use crate::database::Db;
use crate::inputs::FileInput;
use crate::keys::{file_key, key_scope, package_key, symbol_key};
use crate::resolve::go::{GoSites, go_sites};
use crate::resolve::typescript::{ModuleSite, module_sites as module_sites_of};
use crate::stored::Stored;

/// A declaration as one file's memo keeps it: keyed, with its qualified name completed by
/// the module path; everything the file implies (repository, path, language, package) is
/// restored by the package merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalSymbol {
    pub key: StableKey,
    /// The discriminator the key was computed with (an ordinal appended for repeats).
    pub discriminator: String,
    pub declaration: Declaration,
}

/// What one file contributes. Persisted: this memo table is the fact cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    pub package: PackageFact,
    /// The `module` field of this file's keys ("" where the language keys without one).
    pub key_module: String,
    pub file: FileFact,
    pub symbols: Vec<LocalSymbol>,
    /// The calls and imports the resolver reads (Go only, so far; empty elsewhere).
    pub go_sites: GoSites,
    /// Imports, re-exports and export clauses (TypeScript, JavaScript and Python).
    pub module_sites: Vec<ModuleSite>,
    /// Go's `package` clause: files of one directory can belong to different packages
    /// (`foo` and `foo_test`, a build-ignored `main`).
    pub package_clause: Option<String>,
    /// `false` when the source text could not be read.
    pub readable: bool,
    /// Rust: the code each `cfg` gates, which the analysed build keeps or leaves out.
    pub cfg_regions: Vec<kivgraph_syntax::CfgRegion>,
}

/// Parses one file and keys its declarations. Persisted: this memo is the fact cache.
#[salsa::tracked(returns(ref), persist, lru = 0)]
pub fn file_facts(db: &dyn Db, file: FileInput) -> Stored<FileFacts> {
    Stored::new(extract_file_facts(db, file))
}

fn extract_file_facts(db: &dyn Db, file: FileInput) -> FileFacts {
    let repository = file.repository(db);
    let path = file.path(db);
    let language = file.language(db);
    let unit = file.unit(db);
    let fingerprint = file.fingerprint(db);
    let text = db.source_text(fingerprint);
    let readable = text.is_some();
    let mut module_sites = Vec::new();
    let (syntax, mut go_sites) = match &text {
        Some(text) if language == Language::Go => {
            let (syntax, sites) = kivgraph_syntax::extract_with_references(language, path, text);
            (syntax, go_sites(sites))
        }
        Some(text) => {
            let (syntax, sites) = kivgraph_syntax::extract_with_references(language, path, text);
            module_sites = match language {
                Language::Rust => crate::resolve::rust::rust_sites(sites),
                _ => module_sites_of(sites),
            };
            (syntax, GoSites::default())
        }
        None => (
            kivgraph_syntax::SyntaxFacts {
                issues: vec![ParseIssue {
                    line: 1,
                    column: 1,
                    message: "source text unavailable".into(),
                    hidden_names: Vec::new(),
                }],
                ..Default::default()
            },
            GoSites::default(),
        ),
    };
    let package_key = package_key(language, repository, &unit.package);
    let module_prefix = if language == Language::Rust && !unit.module.is_empty() {
        Some(unit.module.as_str())
    } else {
        None
    };

    let mut seen: HashMap<StableKey, u32> = HashMap::new();
    let mut symbols: Vec<LocalSymbol> = Vec::with_capacity(syntax.declarations.len());
    for mut declaration in syntax.declarations {
        if let Some(prefix) = module_prefix {
            declaration.qualified_name = format!("{prefix}::{}", declaration.qualified_name);
        }
        let mut discriminator = declaration
            .discriminator
            .clone()
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| "none".to_string());
        let qualified_name = &declaration.qualified_name;
        let mut symbol_key = symbol_key(
            language,
            repository,
            unit,
            qualified_name,
            declaration.kind,
            &discriminator,
        );
        // A name the language lets a file declare twice (a Python rebinding, identical
        // overloads) gets an ordinal, in source order.
        let occurrence = seen.entry(symbol_key).or_insert(0);
        *occurrence += 1;
        if *occurrence > 1 {
            discriminator = format!("{discriminator}#{occurrence}");
            symbol_key = self::symbol_key(
                language,
                repository,
                unit,
                qualified_name,
                declaration.kind,
                &discriminator,
            );
        }
        symbols.push(LocalSymbol {
            key: symbol_key,
            discriminator,
            declaration,
        });
    }
    // The shapes only interface satisfaction reads travel with the resolver's sites.
    go_sites.method_shapes = symbols
        .iter_mut()
        .enumerate()
        .filter_map(|(i, s)| Some((i as u32, s.declaration.method_shape.take()?)))
        .collect();
    FileFacts {
        key_module: key_scope(language, unit).1.to_string(),
        package: PackageFact {
            key: package_key,
            repository: repository.clone(),
            language,
            name: unit.package.clone(),
            path: unit.package_path.clone(),
        },
        file: FileFact {
            key: file_key(repository, path),
            repository: repository.clone(),
            path: path.clone(),
            language,
            package: package_key,
            fingerprint,
            line_count: syntax.line_count,
            byte_len: file.byte_len(db),
            parse_issues: syntax.issues,
            mentions: syntax.mentions,
        },
        symbols,
        go_sites,
        module_sites,
        package_clause: syntax.package_clause,
        readable,
        cfg_regions: syntax.cfg_regions,
    }
}

/// What a file tree-sitter had to recover leaves unread, declared rather than hidden: one row
/// per name an unreadable declaration-level region spells (a declaration of that name may be
/// missing), or one row for the file when every error sits inside a function body.
pub(crate) fn parse_failures(file: &FileFact) -> Vec<UnresolvedReference> {
    let Some(first) = file.parse_issues.first() else {
        return Vec::new();
    };
    let row = |line: u32, requested_symbol: Option<String>, detail: String| UnresolvedReference {
        repository: file.repository.clone(),
        language: file.language,
        reason: Reason::ParseError,
        file_path: Some(file.path.clone()),
        span: Some(LineSpan {
            start_line: line,
            end_line: line,
            start_byte: 0,
            end_byte: 0,
        }),
        requested_symbol,
        requested_package: None,
        detail,
    };
    let mut rows = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for issue in &file.parse_issues {
        for name in &issue.hidden_names {
            if !seen.contains(&name.as_str()) {
                seen.push(name);
                let detail = format!(
                    "a declaration of {name} may be missing: the parser could not read {}:{} ({})",
                    issue.line, issue.column, issue.message
                );
                rows.push(row(issue.line, Some(name.clone()), detail));
            }
        }
    }
    if rows.is_empty() {
        let detail = format!(
            "{} syntax error(s) inside function bodies, first at {}:{} ({}); every declaration was read",
            file.parse_issues.len(),
            first.line,
            first.column,
            first.message
        );
        rows.push(row(first.line, None, detail));
    }
    rows
}

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(crate) fn attach_restored_queries(db: &mut dyn Db) {
    file_facts::set_lru_capacity(db, 0);
}
