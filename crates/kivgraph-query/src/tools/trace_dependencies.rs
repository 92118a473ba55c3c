//! `trace_dependencies`: what a symbol reaches, outward over its outgoing edges.

use std::time::Instant;

use serde::Serialize;

use crate::args::{PageLimits, View, language, trimmed};
use crate::envelope::{Page, to_map};
use crate::error::QueryError;
use crate::published::Published;
use crate::scopes::{Bounds, Hidden, invisible_scopes, unextracted_relations};
use crate::traverse::args::{TraceDependenciesArgs, common};
use crate::traverse::rows::{failures_made, page_of, traversal_page};
use crate::traverse::walk::{Direction, Step, derived, expanded_languages, walk_from};

/// What the symbol reaches outward, bounded by `depth` and `max_nodes`.
pub fn trace_dependencies(
    published: &Published,
    args: &TraceDependenciesArgs,
    limits: &PageLimits,
    deadline: Option<Instant>,
) -> Result<(Page, View), QueryError> {
    let common = common(published, &args.selector, &args.walk, limits)?;
    let language = language(args.language.as_deref())?;
    let repo = trimmed("repo", args.repo.as_deref())?;
    if let Some(repo) = repo
        && published.snapshot.repository_named(repo).is_none()
    {
        return Err(QueryError::repository_not_found(repo));
    }
    let include_derived =
        args.walk.include_derived.unwrap_or(false) || repo.is_some_and(kivgraph_facts::is_derived);
    let root = common.root;
    let walk = walk_from(published, &common, Direction::Outward, deadline)?;
    let rows: Vec<&Step> = walk
        .steps
        .iter()
        .filter(|s| repo.is_none_or(|r| s.holder.repository() == r))
        .filter(|s| language.is_none_or(|l| s.holder.file().language() == l))
        .filter(|s| include_derived || !derived(&s.holder))
        .collect();
    let root_key = root.key().to_string();
    let identity = common.identity(
        "trace_dependencies",
        "dependencies-v1",
        &[
            ("repo", repo.unwrap_or("")),
            ("language", language.map_or("", |l| l.as_str())),
        ],
    );
    let (page, next_cursor) = page_of(
        &rows,
        &identity,
        published,
        args.walk.page.cursor.as_deref(),
        common.limit,
    )?;
    let bounds = Bounds {
        scopes: invisible_scopes(
            published,
            Some(root.file().repository().name()),
            None,
            Hidden::Named(&[]),
        ),
        blind_spots: failures_made(published, &walk),
        unbound: Vec::new(),
        not_followed: None,
        unextracted: unextracted_relations(
            published,
            &expanded_languages(published, &walk),
            &common.kinds,
        ),
    };
    let deepest = rows.iter().map(|s| s.depth).max().unwrap_or(0);
    let results = to_map(&TraceHeader {
        root_key: &root_key,
        root_repository: root.file().repository().name(),
        depth: common.depth,
        max_nodes: common.max_nodes,
        reached: walk.steps.len(),
        deepest_depth: deepest,
        traversal_truncated: (common.view == View::Full || walk.truncated)
            .then_some(walk.truncated),
    });
    Ok(traversal_page(
        published,
        &common,
        &rows,
        (page, next_cursor),
        &bounds,
        results,
        |results, nodes| {
            results.insert("nodes".into(), nodes);
        },
    ))
}

/// What the trace states before its rows.
#[derive(Serialize)]
struct TraceHeader<'a> {
    root_key: &'a str,
    root_repository: &'a str,
    depth: usize,
    max_nodes: usize,
    reached: usize,
    deepest_depth: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    traversal_truncated: Option<bool>,
}
