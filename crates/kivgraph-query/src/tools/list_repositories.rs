//! `list_repositories`: what the published graph covers, and whether each checkout still
//! holds the code it describes.

use std::path::Path;

use kivgraph_store::read_git_position;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::args::{Limit, PageLimits, View};
use crate::cursor::QueryIdentity;
use crate::envelope::{Coverage, Page, to_value};
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
    let rows: Vec<RepositoryRow> = published
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
        results: to_value(&rows),
        files: Vec::new(),
    };
    Ok((page, View::Full))
}

/// One repository: where it was indexed and where its checkout is now.
#[derive(Serialize)]
pub(crate) struct RepositoryRow<'a> {
    name: &'a str,
    path: &'a str,
    languages: &'a [String],
    /// Which analyzer produced the repository's edges, per language it has one for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    analyzers: Vec<AnalyzerRow<'a>>,
    /// What discovery left out as the repository's own build output, and why: no
    /// declaration of it and no place to look for a use.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    build_output: Vec<BuildOutputRow<'a>>,
    #[serde(skip_serializing_if = "is_false")]
    derived: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    indexed_commit: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    indexed_branch: Option<&'a str>,
    #[serde(skip_serializing_if = "is_false")]
    indexed_dirty: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    current_commit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    current_branch: Option<String>,
    pub(crate) moved: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    moved_detail: Option<String>,
}

#[derive(Serialize)]
struct AnalyzerRow<'a> {
    language: &'a str,
    /// `null` where the syntax layer produced the edges.
    analyzer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    units: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edges: Option<&'static str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    failed_units: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    patched: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    not_built: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    absent: Option<&'a str>,
    /// The analyzer's layer follows in a later generation: a watcher published the
    /// repository's saves with the syntax layer first.
    #[serde(skip_serializing_if = "is_false")]
    deferred: bool,
}

#[derive(Serialize)]
struct BuildOutputRow<'a> {
    path: &'a str,
    reason: &'a str,
    files: usize,
    detail: &'a str,
}

fn is_false(value: &bool) -> bool {
    !value
}

/// One repository's row. Reading the checkout's current position is two small file reads,
/// done inline.
pub(crate) fn row(state: &kivgraph_store::RepositoryState) -> RepositoryRow<'_> {
    let analyzers = state
        .analyzers
        .iter()
        .map(|a| AnalyzerRow {
            language: &a.language,
            analyzer: a.analyzer.as_deref(),
            units: a.analyzer.is_some().then_some(a.units),
            edges: (a.analyzer.is_none() || a.deferred).then_some("syntax layer"),
            failed_units: &a.failures,
            patched: &a.patched,
            not_built: &a.not_built,
            absent: a.absent.as_deref(),
            deferred: a.deferred,
        })
        .collect();
    let build_output = state
        .build_output
        .iter()
        .map(|b| BuildOutputRow {
            path: &b.path,
            reason: &b.reason,
            files: b.files,
            detail: &b.detail,
        })
        .collect();
    let mut row = RepositoryRow {
        name: &state.name,
        path: &state.path,
        languages: &state.languages,
        analyzers,
        build_output,
        derived: false,
        indexed_commit: None,
        indexed_branch: None,
        indexed_dirty: false,
        current_commit: None,
        current_branch: None,
        moved: false,
        moved_detail: None,
    };
    if kivgraph_facts::is_derived(&state.name) {
        row.derived = true;
        row.moved_detail = Some(
            "a derived provider has no commit to compare: nothing clones it and nothing moves it"
                .into(),
        );
        return row;
    }
    row.indexed_commit = state.indexed_commit.as_deref();
    row.indexed_branch = state.indexed_branch.as_deref();
    row.indexed_dirty = state.indexed_dirty == Some(true);
    let current = read_git_position(Path::new(&state.path));
    // Movement is decided by the commit alone; an unknown position is never agreement.
    (row.moved, row.moved_detail) = match (&state.indexed_commit, &current.commit) {
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
    row.current_commit = current.commit;
    row.current_branch = current.branch;
    row
}
