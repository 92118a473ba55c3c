//! A walk's answer as rows: the columns of a reached symbol, its hop depth, the page of
//! rows, the guidance when it was bounded, and the failures the reached symbols made.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use serde_json::{Map, Value};

use kivgraph_facts::Confidence;
use kivgraph_snapshot::UnresolvedView;

use super::args::Common;
use super::walk::{Node, Step, Walk};
use crate::args::{Limit, ResponseFormat, View};
use crate::cursor::QueryIdentity;
use crate::envelope::{Coverage, Page, to_value};
use crate::error::QueryError;
use crate::holder::{Holder, HolderFields};
use crate::labelled::{LabelledRow, compact_rows};
use crate::published::Published;
use crate::scopes::{Bounds, bounded};

/// The columns a reached row carries, in the surface's fixed order.
const REACHED_COLUMNS: [&str; 6] = [
    "kind",
    "hop_depth",
    "reached_from",
    "via_kind",
    "via_confidence",
    "via_provenance",
];

fn labelled(rows: &[&Step], format: ResponseFormat) -> (Vec<LabelledRow>, Vec<&'static str>) {
    let mut columns = REACHED_COLUMNS.to_vec();
    if format == ResponseFormat::Detailed {
        columns.push("stable_key");
    }
    let rows = rows
        .iter()
        .map(|step| {
            let mut values = vec![
                Value::from(step.holder.kind()),
                // A tail is a list of columns, so numbers travel as strings.
                Value::from(step.depth.to_string()),
                Value::from(step.from.qualified_name()),
                Value::from(step.via.kind().as_str()),
                Value::from(step.via.confidence().as_str()),
                Value::from(step.via.provenance().as_str()),
            ];
            if format == ResponseFormat::Detailed {
                values.push(match step.holder {
                    Holder::Symbol(s) => Value::from(s.key().to_string()),
                    Holder::Module(_) => Value::Null,
                });
            }
            LabelledRow {
                repository: step.holder.repository().to_string(),
                file: step.holder.file().path().to_string(),
                label: step.holder.label(),
                columns: values,
            }
        })
        .collect();
    (rows, columns)
}

/// The compact header states `hop_depth` as a number, not the tail's string.
fn numeric_hop_depth(mut results: Value) -> Value {
    let restore = |map: &mut Map<String, Value>| {
        if let Some(Value::String(depth)) = map.get("hop_depth")
            && let Ok(n) = depth.parse::<u64>()
        {
            map.insert("hop_depth".into(), Value::from(n));
        }
    };
    if let Value::Object(map) = &mut results {
        restore(map);
        if let Some(Value::Array(groups)) = map.get_mut("groups") {
            for group in groups {
                if let Value::Object(group) = group {
                    restore(group);
                }
            }
        }
    }
    results
}

/// A reached declaration as the full view writes it: the declaration, then how the walk
/// reached it.
#[derive(Serialize)]
struct FullRow<'a> {
    #[serde(flatten)]
    holder: HolderFields<'a>,
    depth: usize,
    reached_from: &'a str,
    via_kind: &'static str,
    via_confidence: &'static str,
    via_provenance: &'static str,
    /// Detailed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    reached_from_key: Option<String>,
}

fn full_row<'a>(step: &Step<'a>, format: ResponseFormat) -> FullRow<'a> {
    FullRow {
        holder: step.holder.full_fields(format),
        depth: step.depth,
        reached_from: step.from.qualified_name(),
        via_kind: step.via.kind().as_str(),
        via_confidence: step.via.confidence().as_str(),
        via_provenance: step.via.provenance().as_str(),
        reached_from_key: match step.from {
            Holder::Symbol(from) if format == ResponseFormat::Detailed => {
                Some(from.key().to_string())
            }
            _ => None,
        },
    }
}

fn coverage(rows: &[&Step], unresolved_related: usize) -> Coverage {
    Coverage {
        exact: rows
            .iter()
            .filter(|s| s.via.confidence().is_exact())
            .count(),
        candidate: rows
            .iter()
            .filter(|s| s.via.confidence() == Confidence::Candidate)
            .count(),
        unresolved_related,
        package_level: 0,
    }
}

pub(crate) fn page_of<'s, 'a>(
    rows: &'s [&'s Step<'a>],
    identity: &QueryIdentity,
    published: &Published,
    cursor: Option<&str>,
    limit: Limit,
) -> Result<(&'s [&'s Step<'a>], Option<String>), QueryError> {
    let offset = match cursor {
        Some(cursor) => identity.resume(cursor, published.snapshot_id())?,
        None => 0,
    };
    let total = rows.len();
    let page = &rows[offset.min(total)..(offset + limit.0).min(total)];
    let next = (offset + page.len() < total)
        .then(|| identity.cursor(published.snapshot_id(), offset + page.len()));
    Ok((page, next))
}

fn traversal_guidance(total: usize, returned: usize, narrow: &str) -> Option<String> {
    if total == 0 {
        return Some(
            "the traversal reached nothing within its bounds; raise depth, or ask find_references for the direct relations only".into(),
        );
    }
    (returned < total).then(|| {
        format!("showing {returned} of {total}; narrow with {narrow}, or pass the cursor for the next page")
    })
}

/// The page a traversal answers: `header`, then the page's rows in the chosen view (in the
/// full view placed by `place_full_rows`), counted, bounded and guided alike for both walks.
pub(crate) fn traversal_page(
    published: &Published,
    common: &Common,
    rows: &[&Step],
    (page, next_cursor): (&[&Step], Option<String>),
    bounds: &Bounds,
    mut header: Map<String, Value>,
    place_full_rows: impl FnOnce(&mut Map<String, Value>, Value),
) -> (Page, View) {
    let root = common.root;
    let results = match common.view {
        View::Full => {
            let nodes: Vec<FullRow> = page.iter().map(|s| full_row(s, common.format)).collect();
            place_full_rows(&mut header, to_value(&nodes));
            Value::Object(header)
        }
        _ => {
            let (labelled, columns) = labelled(page, common.format);
            numeric_hop_depth(compact_rows(
                header,
                &columns,
                &labelled,
                root.file().repository().name(),
            ))
        }
    };
    (
        Page {
            total: rows.len(),
            returned: page.len(),
            next_cursor,
            coverage: coverage(rows, bounds.blind_spots.len()),
            guidance: traversal_guidance(
                rows.len(),
                page.len(),
                "depth, max_nodes, edge_kinds or confidence",
            ),
            completeness: Some(bounded(published, Some(root.name()), bounds)),
            results,
            files: std::iter::once(root.file().index)
                .chain(page.iter().map(|step| step.holder.file().index))
                .collect(),
        },
        common.view,
    )
}

/// The failures the walk's expanded declarations made themselves: rows recorded in their
/// files, inside their line ranges.
pub(crate) fn failures_made<'a>(published: &'a Published, walk: &Walk) -> Vec<UnresolvedView<'a>> {
    let snapshot = &published.snapshot;
    let mut spots = Vec::new();
    let mut seen: FxHashSet<usize> = FxHashSet::default();
    // A file's failures, looked up once however many of its declarations the walk expanded.
    let mut by_file: FxHashMap<usize, Vec<UnresolvedView<'a>>> = FxHashMap::default();
    for node in &walk.expanded {
        let Node::Symbol(index) = node else { continue };
        let Some(symbol) = snapshot.symbol(*index) else {
            continue;
        };
        let span = symbol.span();
        let file = symbol.file();
        let failures = by_file
            .entry(file.index)
            .or_insert_with(|| snapshot.unresolved_in_file(file.repository().name(), file.path()));
        for failure in failures.iter() {
            if failure
                .lines()
                .is_some_and(|(line, _)| (span.start_line..=span.end_line).contains(&line))
                && seen.insert(failure.index)
            {
                spots.push(*failure);
            }
        }
    }
    spots
}
