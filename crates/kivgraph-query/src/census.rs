//! What `graph_status` counts over a whole snapshot — edges by kind, unresolved rows by
//! reason, the derived providers' share — counted once per served generation.

use std::collections::BTreeMap;

use kivgraph_facts::{EdgeKind, is_derived};
use kivgraph_snapshot::{NodeRef, Snapshot};
use serde::Serialize;

/// One line of a breakdown: a kind or a reason, and how many rows carry it.
#[derive(Serialize)]
pub(crate) struct Count {
    key: String,
    count: usize,
}

fn breakdown(counts: BTreeMap<&str, usize>) -> Vec<Count> {
    counts
        .into_iter()
        .map(|(key, count)| Count {
            key: key.to_string(),
            count,
        })
        .collect()
}

/// The derived providers' (the standard library's) share of the graph.
#[derive(Serialize)]
pub(crate) struct Derived {
    repositories: Vec<String>,
    packages: usize,
    files: usize,
    symbols: usize,
    edges_within: usize,
    edges_inbound: usize,
    unresolved: usize,
}

/// Edges by kind and unresolved rows by reason.
#[derive(Serialize)]
pub(crate) struct Counts {
    package_edges: usize,
    unresolved: usize,
    edges_by_kind: Vec<Count>,
    unresolved_by_reason: Vec<Count>,
}

/// What the derived providers (the standard library) contribute, apart from the registered
/// repositories' counts; `None` when the graph holds none. An edge belongs to the repository
/// of its source, the side that observed it.
fn derived_breakdown(snapshot: &Snapshot) -> Option<Derived> {
    let names: Vec<String> = snapshot
        .repositories()
        .map(|r| r.name())
        .filter(|name| is_derived(name))
        .map(str::to_string)
        .collect();
    if names.is_empty() {
        return None;
    }
    let derived_node = |node: NodeRef| {
        let repository = match node {
            NodeRef::Repository(i) => snapshot.repository(i),
            NodeRef::Package(i) => snapshot.package(i).map(|p| p.repository()),
            NodeRef::File(i) => snapshot.file(i).map(|f| f.repository()),
            NodeRef::Symbol(i) => snapshot.symbol(i).map(|s| s.file().repository()),
            NodeRef::Evidence(_) | NodeRef::Missing(_) => None,
        };
        repository.is_some_and(|r| is_derived(r.name()))
    };
    let packages = (0..snapshot.package_count())
        .filter(|i| derived_node(NodeRef::Package(*i)))
        .count();
    let files = snapshot
        .files()
        .filter(|f| is_derived(f.repository().name()))
        .count();
    let symbols = snapshot
        .symbols()
        .filter(|s| is_derived(s.file().repository().name()))
        .count();
    let (mut within, mut inbound) = (0, 0);
    for edge in snapshot.edges() {
        match (derived_node(edge.source()), derived_node(edge.target())) {
            (true, _) => within += 1,
            (false, true) => inbound += 1,
            (false, false) => {}
        }
    }
    let unresolved = snapshot
        .unresolved()
        .filter(|u| u.repository().is_some_and(|r| is_derived(r.name())))
        .count();
    Some(Derived {
        repositories: names,
        packages,
        files,
        symbols,
        edges_within: within,
        edges_inbound: inbound,
        unresolved,
    })
}

/// What `graph_status` counts over the whole snapshot: a snapshot never changes, so it is
/// counted once.
pub(crate) struct Census {
    pub(crate) counts: Counts,
    /// The derived providers' share, when there are any.
    pub(crate) derived: Option<Derived>,
}

pub(crate) fn census(snapshot: &Snapshot) -> Census {
    let mut edges_by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    let mut package_edges = 0;
    for edge in snapshot.edges() {
        *edges_by_kind.entry(edge.kind().as_str()).or_default() += 1;
        if edge.kind() == EdgeKind::PackageDependsOn {
            package_edges += 1;
        }
    }
    let mut unresolved_by_reason: BTreeMap<&str, usize> = BTreeMap::new();
    for row in snapshot.unresolved() {
        *unresolved_by_reason.entry(row.reason()).or_default() += 1;
    }
    Census {
        counts: Counts {
            package_edges,
            unresolved: snapshot.unresolved_count(),
            edges_by_kind: breakdown(edges_by_kind),
            unresolved_by_reason: breakdown(unresolved_by_reason),
        },
        derived: derived_breakdown(snapshot),
    }
}
