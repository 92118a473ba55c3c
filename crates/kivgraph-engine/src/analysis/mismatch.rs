//! Uses an analyzer resolved into a registered package that no declaration of the graph
//! answers — another version of it, or a symbol no load defines: declared holes, never
//! bound by name and never owed nothing.

use std::collections::HashMap;

use kivgraph_facts::{Language, Reason, SymbolKind, UnresolvedReference};

use super::definitions::AnalyzerDefinitions;
use super::scip_symbol::ScipSymbol;
use super::unit::UnitReference;
use crate::database::Db;
use crate::inputs::{PackageInput, Workspace};
use crate::packages::package_symbols;
use crate::resolve::rust::rust_providers;

/// A use a configured indexer resolved into a package the graph defines the symbol of, but
/// at another version: declared `PACKAGE_VERSION_MISMATCH`, never bound to the registered
/// copy.
pub(super) fn moniker_version_mismatch(
    definitions: &AnalyzerDefinitions,
    reference: &UnitReference,
    language: Language,
) -> Option<UnresolvedReference> {
    let symbol = ScipSymbol::parse(&reference.symbol)?;
    let versions = definitions.configured_versions.get(&symbol.unversioned())?;
    let (package, version) = (symbol.package, symbol.version);
    Some(UnresolvedReference {
        repository: reference.repository.clone(),
        language,
        reason: Reason::PackageVersionMismatch,
        file_path: Some(reference.path.clone()),
        span: Some(reference.span),
        requested_symbol: Some(reference.text.clone()),
        requested_package: Some(format!("{package} {version}")),
        detail: format!(
            "the indexer resolved this use into {package} {version}; the graph defines it at {}",
            versions.iter().cloned().collect::<Vec<_>>().join(", ")
        ),
    })
}

/// The declarations each registered crate holds, by qualified name, read once per package
/// layered: whether the graph holds the declaration a symbol spells.
#[derive(Default)]
pub(super) struct CratePaths {
    by_crate: HashMap<PackageInput, HashMap<String, Vec<SymbolKind>>>,
}

impl CratePaths {
    fn declares(
        &mut self,
        db: &dyn Db,
        provider: PackageInput,
        path: &str,
        symbol: &ScipSymbol,
    ) -> bool {
        let declarations = self.by_crate.entry(provider).or_insert_with(|| {
            let mut by_path: HashMap<String, Vec<SymbolKind>> = HashMap::new();
            for s in &package_symbols(db, provider).symbols {
                by_path
                    .entry(s.qualified_name.clone())
                    .or_default()
                    .push(s.kind);
            }
            by_path
        });
        declarations
            .get(path)
            .is_some_and(|kinds| kinds.iter().any(|kind| symbol.may_name(*kind)))
    }
}

/// A Rust use rust-analyzer resolved into a crate the graph registers that no declaration of
/// the graph answers, declared, never owed nothing:
/// - at a version no registered copy has (cargo resolved the dependency to another release
///   in the local registry): `CRATE_VERSION_MISMATCH`, never bound to the registered copy;
/// - at the registered version, to a declaration the registered crate holds (its path is the
///   symbol's, its kind one the symbol can name) that no unit defines, neither there nor outside the graph:
///   `CRATE_SYMBOL_NOT_MATCHED`. The crate's own load did not lower it (a feature its build
///   leaves off) or did not mark its definition, so the use is bound to nothing the
///   analyzer decided, and an answer about that name is a floor. A symbol no declaration
///   of the crate spells (`Self`, a tuple field, what a derive generates) is owed nothing.
pub(super) fn unmatched_crate_use(
    db: &dyn Db,
    definitions: &AnalyzerDefinitions,
    paths: &mut CratePaths,
    reference: &UnitReference,
) -> Option<UnresolvedReference> {
    let symbol = ScipSymbol::parse(&reference.symbol)
        .filter(|s| (s.scheme, s.manager) == ("rust-analyzer", "cargo"))?;
    let (name, version) = (symbol.package, symbol.version);
    let providers = rust_providers(db, Workspace::get(db));
    let registered = providers.get(&name.replace('-', "_"))?;
    let hole = |reason: Reason, detail: String| UnresolvedReference {
        repository: reference.repository.clone(),
        language: Language::Rust,
        reason,
        file_path: Some(reference.path.clone()),
        span: Some(reference.span),
        requested_symbol: Some(reference.text.clone()),
        requested_package: Some(format!("{name} {version}")),
        detail,
    };
    let at_version: Vec<PackageInput> = registered
        .iter()
        .filter(|(_, v)| v.as_deref() == Some(version))
        .map(|(provider, _)| *provider)
        .collect();
    if !at_version.is_empty() {
        // Cheapest first: most such uses are of something a load defined outside the graph,
        // and only the rest reads the crate's declarations.
        if definitions.defined_outside.contains(&reference.symbol) {
            return None;
        }
        let path = symbol.declaration_path()?;
        let declared = at_version
            .iter()
            .any(|provider| paths.declares(db, *provider, &path, &symbol));
        return declared.then(|| {
            hole(
                Reason::CrateSymbolNotMatched,
                format!(
                    "the analyzer resolved this use into {name} {version}, whose load defines no `{path}`"
                ),
            )
        });
    }
    let versions: Vec<&str> = registered
        .iter()
        .filter_map(|(_, v)| v.as_deref())
        .collect();
    Some(hole(
        Reason::CrateVersionMismatch,
        format!(
            "the analyzer resolved this use into {name} {version}; the graph registers {name} {}",
            versions.join(", ")
        ),
    ))
}
