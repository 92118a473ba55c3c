//! Methods that override a base class's method (rule H2 of `docs/resolution.md`).
//!
//! TypeScript, JavaScript and Python look a method up on the object's own class before its
//! bases, so a method a subclass declares under the name of one a base class declares
//! replaces it for every instance of the subclass. The edge is as certain as the `EXTENDS`
//! chain that leads to the base.

use std::collections::{BTreeMap, BTreeSet};

use kivgraph_facts::{Confidence, EdgeKind, FactSet, Language, StableKey, SymbolKind};

use super::Resolved;

/// How far up a chain of bases the lookup goes; real hierarchies are far shallower.
const MAXIMUM_DEPTH: usize = 16;

/// `OVERRIDES` from each method of a class of `facts` to the nearest method of that name
/// its bases declare, when the bases are classes of the same package.
pub(crate) fn class_overrides(facts: &FactSet, out: &mut Resolved) {
    let classes: BTreeMap<StableKey, Language> = facts
        .symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Class)
        .filter(|s| {
            matches!(
                s.language,
                Language::TypeScript | Language::JavaScript | Language::Python
            )
        })
        .map(|s| (s.key, s.language))
        .collect();
    let mut bases: BTreeMap<StableKey, Vec<(StableKey, bool)>> = BTreeMap::new();
    for edge in facts.edges.iter().filter(|e| e.kind == EdgeKind::Extends) {
        if classes.contains_key(&edge.source) && classes.contains_key(&edge.target) {
            let certain = edge.confidence == Confidence::StructuralCertain;
            bases
                .entry(edge.source)
                .or_default()
                .push((edge.target, certain));
        }
    }
    if bases.is_empty() {
        return;
    }
    let methods: BTreeMap<(StableKey, &str), StableKey> = facts
        .symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Method)
        .filter_map(|s| Some(((s.parent?, s.name.as_str()), s.key)))
        .collect();
    let files: BTreeMap<&str, _> = facts.files.iter().map(|f| (f.path.as_str(), f)).collect();
    for method in facts
        .symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Method)
    {
        let Some(class) = method.parent.filter(|p| bases.contains_key(p)) else {
            continue;
        };
        // A constructor initializes its own class; it replaces nothing.
        if classes[&class] != Language::Python && method.name == "constructor" {
            continue;
        }
        let Some(file) = files.get(method.file_path.as_str()) else {
            continue;
        };
        let mut visited = BTreeSet::from([class]);
        let mut frontier: Vec<(StableKey, bool)> = vec![(class, true)];
        for _ in 0..MAXIMUM_DEPTH {
            let mut next = Vec::new();
            for (holder, certain) in frontier {
                for (base, proven) in bases.get(&holder).into_iter().flatten() {
                    if !visited.insert(*base) {
                        continue;
                    }
                    let certain = certain && *proven;
                    match methods.get(&(*base, method.name.as_str())) {
                        Some(overridden) => {
                            out.edges(
                                EdgeKind::Overrides,
                                file,
                                method.key,
                                method.span.start(),
                                &[*overridden],
                                certain,
                            );
                        }
                        None => next.push((*base, certain)),
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
    }
}
