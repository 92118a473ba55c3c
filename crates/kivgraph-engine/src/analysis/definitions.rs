//! The analyzer symbols every unit of the workspace defines, with the declarations they
//! name: what a use elsewhere is bound to.

use std::collections::{BTreeMap, BTreeSet};

use kivgraph_facts::{Language, StableKey, SymbolKind};
use serde::{Deserialize, Serialize};

use super::{
    ScipSymbol, UnitAnalysis, configured_units, go_unit, load_groups, python_unit, rust_unit,
    typescript_unit,
};
use crate::database::Db;
use crate::queries::{RepositoryInput, Workspace};
use crate::stored::Stored;

/// The analyzer symbols of the workspace's units that name declarations of the graph.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyzerDefinitions {
    /// Symbol → the declarations it names (several for merged declarations and overloads).
    pub keys: BTreeMap<String, Vec<StableKey>>,
    /// Symbols two files define (one module path in two repositories): which one the
    /// analyzer resolved a use to is not known, so such a use decides nothing.
    pub ambiguous: BTreeSet<String>,
    /// Symbols defined only in declaration files (`.d.ts`): what the checker reads for the
    /// types of a JavaScript module that ships one, not the module a JavaScript file binds
    /// at run time.
    pub declared_only: BTreeSet<String>,
    /// The kind of each declaration a symbol names.
    pub kinds: BTreeMap<StableKey, SymbolKind>,
    /// For the symbols configured indexers define: the symbol with its package version
    /// left out ([`ScipSymbol::unversioned`]) → the versions the graph defines it at.
    pub configured_versions: BTreeMap<String, BTreeSet<String>>,
    /// Symbols some unit defines at no declaration of the graph (a type parameter, an
    /// item a macro generates from nothing the source names): a use of one is owed nothing.
    pub defined_outside: BTreeSet<String>,
}

impl AnalyzerDefinitions {
    /// Whether every target is data (a field, a property, a constant): a value read, never
    /// a function passed, assigned or returned.
    pub(super) fn all_data(&self, targets: &[StableKey]) -> bool {
        !targets.is_empty()
            && targets.iter().all(|t| {
                matches!(
                    self.kinds.get(t),
                    Some(
                        SymbolKind::Field
                            | SymbolKind::Property
                            | SymbolKind::EnumMember
                            | SymbolKind::Const
                            | SymbolKind::Constant
                    )
                )
            })
    }
}

fn is_declaration_file(path: &str) -> bool {
    [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|suffix| path.ends_with(suffix))
}

/// Every analyzer symbol the workspace's units define, with the declarations it names.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn analyzer_definitions(db: &dyn Db, workspace: Workspace) -> Stored<AnalyzerDefinitions> {
    // Per symbol: the files defining it, and the declarations it names.
    type Places<'a> = BTreeMap<&'a str, (BTreeSet<(&'a str, &'a str)>, Vec<StableKey>)>;
    let mut places: Places = BTreeMap::new();
    let packages = workspace
        .repositories(db)
        .iter()
        .flat_map(|r: &RepositoryInput| r.packages(db).iter().copied());
    let mut units: Vec<&UnitAnalysis> = packages
        .filter_map(|package| typescript_unit(db, package).as_deref())
        .collect();
    for repository in workspace.repositories(db) {
        let groups = load_groups(db, *repository);
        units.extend(
            groups
                .owners(Language::Rust)
                .filter_map(|(_, owner)| rust_unit(db, owner).as_deref()),
        );
        units.extend(
            groups
                .owners(Language::Go)
                .filter_map(|(_, owner)| go_unit(db, owner).as_deref()),
        );
        units.extend(python_unit(db, *repository).as_deref());
        units.extend(
            configured_units(db, *repository)
                .iter()
                .filter_map(|unit| unit.as_deref()),
        );
    }
    let mut kinds = BTreeMap::new();
    let mut configured_versions: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut defined_outside = BTreeSet::new();
    for unit in units {
        defined_outside.extend(unit.defined_outside.iter().cloned());
        for definition in &unit.definitions {
            if unit.configured
                && let Some(symbol) = ScipSymbol::parse(&definition.symbol)
            {
                configured_versions
                    .entry(symbol.unversioned())
                    .or_default()
                    .insert(symbol.version.to_string());
            }
            kinds.insert(definition.key, definition.kind);
            let (files, keys) = places.entry(&definition.symbol).or_default();
            files.insert((&definition.repository, &definition.path));
            if !keys.contains(&definition.key) {
                keys.push(definition.key);
            }
        }
    }
    let mut definitions = AnalyzerDefinitions {
        kinds,
        configured_versions,
        defined_outside,
        ..AnalyzerDefinitions::default()
    };
    for (symbol, (files, keys)) in places {
        if files.iter().all(|(_, path)| is_declaration_file(path)) {
            definitions.declared_only.insert(symbol.to_string());
        }
        if files.len() == 1 {
            definitions.keys.insert(symbol.to_string(), keys);
        } else {
            definitions.ambiguous.insert(symbol.to_string());
        }
    }
    Stored::new(definitions)
}

/// This module's share of [`crate::queries::attach_restored_queries`].
pub(super) fn attach_restored_queries(db: &mut dyn Db) {
    analyzer_definitions::set_lru_capacity(db, 0);
}
