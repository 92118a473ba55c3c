//! `graph_status`: the published generation — identity, counts, breakdowns, and whether each
//! repository still holds the code it describes. Reports only what this process uses.

use std::collections::BTreeMap;

use kivgraph_facts::{EdgeKind, is_derived};
use kivgraph_snapshot::{NodeRef, Snapshot};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::args::View;
use crate::envelope::{Coverage, Page};
use crate::error::QueryError;
use crate::list_repositories::row;
use crate::published::Published;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphStatusArgs {}

fn breakdown(counts: BTreeMap<&str, usize>) -> Value {
    Value::Array(
        counts
            .into_iter()
            .map(|(key, count)| json!({"key": key, "count": count}))
            .collect(),
    )
}

/// What the derived providers (the standard library) contribute, apart from the registered
/// repositories' counts; `None` when the graph holds none. An edge belongs to the repository
/// of its source, the side that observed it.
fn derived_breakdown(snapshot: &Snapshot) -> Option<Value> {
    let names: Vec<&str> = snapshot
        .repositories()
        .map(|r| r.name())
        .filter(|name| is_derived(name))
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
    Some(json!({
        "repositories": names,
        "packages": packages,
        "files": files,
        "symbols": symbols,
        "edges_within": within,
        "edges_inbound": inbound,
        "unresolved": unresolved,
    }))
}

/// What `graph_status` counts over the whole snapshot: a snapshot never changes, so it is
/// counted once.
pub(crate) struct Census {
    /// Edges by kind and unresolved rows by reason.
    counts: Value,
    /// The derived providers' share, when there are any.
    derived: Option<Value>,
}

fn census(snapshot: &Snapshot) -> Census {
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
        counts: json!({
            "package_edges": package_edges,
            "unresolved": snapshot.unresolved_count(),
            "edges_by_kind": breakdown(edges_by_kind),
            "unresolved_by_reason": breakdown(unresolved_by_reason),
        }),
        derived: derived_breakdown(snapshot),
    }
}

/// `published` is `None` when nothing is published: reporting that is this tool's job, never
/// a failure.
pub fn graph_status(
    published: Option<&Published>,
    _args: &GraphStatusArgs,
) -> Result<(Page, View), QueryError> {
    let not_applicable = json!({
        "worker": {"state": "not_applicable", "detail": "analyzers run during indexing, in a child process, not in this server"},
        "storage": {"state": "not_applicable", "detail": "this server answers from the published snapshot and never opens the canonical store"},
    });
    let results = match published {
        None => {
            let mut empty = json!({"status": "empty", "snapshot_id": null});
            empty
                .as_object_mut()
                .expect("object")
                .extend(not_applicable.as_object().expect("object").clone());
            empty
        }
        Some(published) => {
            let snapshot = &published.snapshot;
            let manifest = &published.manifest;
            let freshness: Vec<Value> = manifest.repositories.iter().map(row).collect();
            let analyzers: std::collections::BTreeSet<&str> = manifest
                .repositories
                .iter()
                .flat_map(|r| &r.analyzers)
                .filter_map(|a| a.analyzer.as_deref())
                .collect();
            let resolver = if analyzers.is_empty() {
                "tree-sitter syntax layer".to_string()
            } else {
                format!(
                    "tree-sitter syntax layer; exact: {}",
                    analyzers.into_iter().collect::<Vec<_>>().join(", ")
                )
            };
            let moved = freshness.iter().filter(|r| r["moved"] == true).count();
            let mut status = json!({
                "status": "ready",
                "snapshot_id": published.snapshot_id(),
                "snapshot_built_at": manifest.built_at,
                "snapshot_age_ms": published.age_ms(),
                "snapshot_row_format_version": kivgraph_snapshot::FORMAT_VERSION,
                "schema_version": manifest.format,
                "resolver_version": format!("kivgraph {} ({resolver})", manifest.kivgraph_version),
                "repositories": snapshot.repository_count(),
                "packages": snapshot.package_count(),
                "files": snapshot.file_count(),
                "symbols": snapshot.symbol_count(),
                "evidence": snapshot.evidence_count(),
                "edges": snapshot.edge_count(),
            });
            let fields = status.as_object_mut().expect("object");
            let census = published.census.get_or_init(|| census(snapshot));
            fields.extend(census.counts.as_object().expect("object").clone());
            fields.insert("repository_freshness".into(), freshness.into());
            fields.insert("repositories_moved".into(), moved.into());
            if let Some(derived) = &census.derived {
                fields.insert("derived".into(), derived.clone());
            }
            status
                .as_object_mut()
                .expect("object")
                .extend(not_applicable.as_object().expect("object").clone());
            status
        }
    };
    Ok((
        Page {
            total: 1,
            returned: 1,
            next_cursor: None,
            coverage: Coverage::default(),
            guidance: None,
            completeness: None,
            results,
        },
        View::Full,
    ))
}
