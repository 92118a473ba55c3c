//! `list_repositories`: what the published graph covers, and whether each checkout still
//! holds the code it describes.

use std::path::Path;

use kivgraph_store::read_git_position;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::args::{Limit, PageLimits, View};
use crate::cursor::QueryIdentity;
use crate::envelope::{Coverage, Page};
use crate::error::QueryError;
use crate::published::Published;

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListRepositoriesArgs {
    #[schemars(range(min = 1, max = 500), extend("default" = 50))]
    pub limit: Option<i64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

pub fn list_repositories(
    published: &Published,
    args: &ListRepositoriesArgs,
    limits: &PageLimits,
) -> Result<(Page, View), QueryError> {
    let limit = Limit::parse(args.limit, limits, None)?;
    let identity = QueryIdentity::new("list_repositories", "name-v1", &[]);
    let offset = match &args.cursor {
        Some(cursor) => identity.resume(cursor, published.snapshot_id())?,
        None => 0,
    };
    let rows: Vec<Value> = published
        .manifest
        .repositories
        .iter()
        .skip(offset)
        .take(limit.0)
        .map(row)
        .collect();
    let total = published.manifest.repositories.len();
    let returned = rows.len();
    let next_cursor = (offset + returned < total)
        .then(|| identity.cursor(published.snapshot_id(), offset + returned));
    let guidance = (returned < total)
        .then(|| format!("showing {returned} of {total}; pass the cursor for the next page"));
    let page = Page {
        total,
        returned,
        next_cursor,
        coverage: Coverage::default(),
        guidance,
        completeness: None,
        results: Value::Array(rows),
    };
    Ok((page, View::Full))
}

/// One repository: where it was indexed and where its checkout is now. Reading the current
/// position is two small file reads, done inline.
pub(crate) fn row(state: &kivgraph_store::RepositoryState) -> Value {
    let mut row = Map::new();
    row.insert("name".into(), json!(state.name));
    row.insert("path".into(), json!(state.path));
    row.insert("languages".into(), json!(state.languages));
    // Which analyzer produced the repository's edges, per language it has one for.
    if !state.analyzers.is_empty() {
        let analyzers: Vec<Value> = state
            .analyzers
            .iter()
            .map(|a| {
                let mut entry = Map::new();
                entry.insert("language".into(), json!(a.language));
                match &a.analyzer {
                    Some(analyzer) => {
                        entry.insert("analyzer".into(), json!(analyzer));
                        entry.insert("units".into(), json!(a.units));
                    }
                    None => {
                        entry.insert("analyzer".into(), Value::Null);
                        entry.insert("edges".into(), json!("syntax layer"));
                    }
                }
                if !a.failures.is_empty() {
                    entry.insert("failed_units".into(), json!(a.failures));
                }
                if !a.patched.is_empty() {
                    entry.insert("patched".into(), json!(a.patched));
                }
                if !a.not_built.is_empty() {
                    entry.insert("not_built".into(), json!(a.not_built));
                }
                if let Some(absent) = &a.absent {
                    entry.insert("absent".into(), json!(absent));
                }
                Value::Object(entry)
            })
            .collect();
        row.insert("analyzers".into(), Value::Array(analyzers));
    }
    // What discovery left out as the repository's own build output, and why: no
    // declaration of it and no place to look for a use.
    if !state.build_output.is_empty() {
        let outputs: Vec<Value> = state
            .build_output
            .iter()
            .map(|b| json!({"path": b.path, "reason": b.reason, "files": b.files, "detail": b.detail}))
            .collect();
        row.insert("build_output".into(), Value::Array(outputs));
    }
    if kivgraph_facts::is_derived(&state.name) {
        row.insert("derived".into(), json!(true));
        row.insert("moved".into(), json!(false));
        row.insert(
            "moved_detail".into(),
            json!("a derived provider has no commit to compare: nothing clones it and nothing moves it"),
        );
        return Value::Object(row);
    }
    if let Some(commit) = &state.indexed_commit {
        row.insert("indexed_commit".into(), json!(commit));
    }
    if let Some(branch) = &state.indexed_branch {
        row.insert("indexed_branch".into(), json!(branch));
    }
    if state.indexed_dirty == Some(true) {
        row.insert("indexed_dirty".into(), json!(true));
    }
    let current = read_git_position(Path::new(&state.path));
    if let Some(commit) = &current.commit {
        row.insert("current_commit".into(), json!(commit));
    }
    if let Some(branch) = &current.branch {
        row.insert("current_branch".into(), json!(branch));
    }
    // Movement is decided by the commit alone; an unknown position is never agreement.
    let (moved, detail) = match (&state.indexed_commit, &current.commit) {
        (Some(indexed), Some(now)) if indexed != now => (
            true,
            Some(format!("the working tree moved from {indexed} to {now}")),
        ),
        (Some(_), Some(_)) => (false, None),
        (None, _) => (
            false,
            Some(format!(
                "no commit was recorded when it was indexed ({})",
                state
                    .git_unavailable
                    .as_deref()
                    .unwrap_or("not a git checkout")
            )),
        ),
        (Some(_), None) => (
            false,
            Some(format!(
                "HEAD cannot be read now: {}",
                current.unavailable.as_deref().unwrap_or("unknown reason")
            )),
        ),
    };
    row.insert("moved".into(), json!(moved));
    if let Some(detail) = detail {
        row.insert("moved_detail".into(), json!(detail));
    }
    Value::Object(row)
}
