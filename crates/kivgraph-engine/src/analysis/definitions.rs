//! The analyzer symbols every unit of the workspace defines, with the declarations they
//! name: what a use elsewhere is bound to.

use std::collections::{BTreeMap, BTreeSet};

use kivgraph_facts::{StableKey, SymbolKind};
use serde::{Deserialize, Serialize};

use super::scip_symbol::ScipSymbol;
use super::units::workspace_units;
use crate::database::Db;
use crate::inputs::Workspace;
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
    let units = workspace_units(db, workspace);
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

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(super) fn attach_restored_queries(db: &mut dyn Db) {
    analyzer_definitions::set_lru_capacity(db, 0);
}
