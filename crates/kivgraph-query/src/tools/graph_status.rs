//! `graph_status`: the published generation — identity, counts, breakdowns, and whether each
//! repository still holds the code it describes. Reports only what this process uses.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::args::View;
use crate::census::census;
use crate::envelope::{Coverage, Page};
use crate::error::QueryError;
use crate::published::Published;
use crate::tools::list_repositories::row;

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphStatusArgs {}

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
