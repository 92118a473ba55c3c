//! `graph_status`: the published generation — identity, counts, breakdowns, and whether each
//! repository still holds the code it describes. Reports only what this process uses.

use std::collections::BTreeMap;

use kivgraph_facts::EdgeKind;
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
                "package_edges": package_edges,
                "unresolved": snapshot.unresolved_count(),
                "edges_by_kind": breakdown(edges_by_kind),
                "unresolved_by_reason": breakdown(unresolved_by_reason),
                "repository_freshness": freshness,
                "repositories_moved": moved,
            });
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
