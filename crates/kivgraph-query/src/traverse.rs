//! `trace_dependencies` and `get_blast_radius`: the same bounded breadth-first walk over the
//! snapshot's adjacency, outward over outgoing edges or backwards over incoming ones.

use std::collections::BTreeSet;
use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use kivgraph_facts::{Confidence, EdgeKind, Language};
use kivgraph_snapshot::{EdgeView, NodeRef, SymbolView, UnresolvedView};

use crate::args::{Limit, PageLimits, ResponseFormat, View, trimmed};
use crate::cursor::QueryIdentity;
use crate::envelope::{Coverage, Page};
use crate::error::{ErrorCode, QueryError};
use crate::get_symbol::package_and_module;
use crate::labelled::{LabelledRow, compact_rows};
use crate::published::Published;
use crate::references::{
    Holder, bound_under_other_names, confidence, edge_kinds, language, subject_triple,
};
use crate::scopes::{
    Bounds, Hidden, UnboundFile, blind_spots, bounded, invisible_scopes, unbound_mentions,
    unextracted_relations,
};
use crate::selector::SelectorArgs;

const DEFAULT_DEPTH: i64 = 3;
const MAX_DEPTH: i64 = 5;
const DEFAULT_MAX_NODES: i64 = 5000;
const MAX_MAX_NODES: i64 = 25_000;
/// Kinds a backwards walk crosses on its way to the consumers a reviewer looks for.
const BLAST_DEFAULT_EXCLUDED: [&str; 2] = ["field", "variable"];
/// The symbol kinds `kinds` accepts: every kind a loader publishes.
const ACCEPTED_KINDS: &[&str] = &[
    "alias",
    "associated_type",
    "attribute",
    "class",
    "const",
    "constant",
    "enum",
    "enum_member",
    "export",
    "field",
    "func",
    "function",
    "implementation",
    "import",
    "interface",
    "macro",
    "method",
    "module",
    "namespace",
    "parameter",
    "property",
    "self_parameter",
    "static",
    "static_method",
    "struct",
    "trait",
    "trait_method",
    "type",
    "type_alias",
    "type_parameter",
    "union",
    "var",
    "variable",
];

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceDependenciesArgs {
    pub stable_key: Option<String>,
    pub qualified_name: Option<String>,
    pub repository: Option<String>,
    pub path: Option<String>,
    pub depth: Option<i64>,
    pub max_nodes: Option<i64>,
    pub edge_kinds: Option<Vec<String>>,
    pub confidence: Option<String>,
    pub language: Option<String>,
    pub repo: Option<String>,
    pub include_derived: Option<bool>,
    pub limit: Option<i64>,
    pub cursor: Option<String>,
    pub response_format: Option<String>,
    pub view: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlastRadiusArgs {
    pub stable_key: Option<String>,
    pub qualified_name: Option<String>,
    pub repository: Option<String>,
    pub path: Option<String>,
    pub depth: Option<i64>,
    pub max_nodes: Option<i64>,
    pub edge_kinds: Option<Vec<String>>,
    pub confidence: Option<String>,
    pub kinds: Option<Vec<String>>,
    pub include_derived: Option<bool>,
    pub limit: Option<i64>,
    pub cursor: Option<String>,
    pub response_format: Option<String>,
    pub view: Option<String>,
}

fn bounded_integer(
    field: &str,
    value: Option<i64>,
    default: i64,
    max: i64,
) -> Result<usize, QueryError> {
    match value {
        None => Ok(default as usize),
        Some(n) if (1..=max).contains(&n) => Ok(n as usize),
        Some(n) => Err(QueryError::invalid(format!(
            "{field} must be between 1 and {max}, got {n}"
        ))),
    }
}

/// A node of the walk: a symbol, or a file's module scope (the holder of an import).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Node {
    Symbol(usize),
    Module(usize),
}

impl Node {
    fn of(node: NodeRef) -> Option<Node> {
        match node {
            NodeRef::Symbol(i) => Some(Node::Symbol(i)),
            NodeRef::File(i) => Some(Node::Module(i)),
            _ => None,
        }
    }

    fn as_ref(self) -> NodeRef {
        match self {
            Node::Symbol(i) => NodeRef::Symbol(i),
            Node::Module(i) => NodeRef::File(i),
        }
    }
}

/// One reached node and the edge the frontier first arrived by.
struct Step<'a> {
    node: Node,
    holder: Holder<'a>,
    depth: usize,
    from: Holder<'a>,
    via: EdgeView<'a>,
}

struct Walk<'a> {
    /// The root and its members: depth zero, never rows.
    seeds: Vec<SymbolView<'a>>,
    steps: Vec<Step<'a>>,
    /// Nodes whose edges the walk followed: the seeds, and steps short of the depth bound.
    expanded: Vec<Node>,
    visited: FxHashSet<Node>,
    truncated: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Outward,
    Backward,
}

struct WalkBounds<'k> {
    direction: Direction,
    kinds: &'k [EdgeKind],
    confidence: Option<Confidence>,
    depth: usize,
    max_nodes: usize,
    deadline: Option<Instant>,
}

/// A container's members (fields, variants, methods — a Go method wherever its receiver's
/// package declares it) start the walk with it: a change to a type is a change to them.
fn members<'a>(published: &'a Published, root: SymbolView<'a>) -> Vec<SymbolView<'a>> {
    if !root.kind().is_container() {
        return Vec::new();
    }
    let snapshot = &published.snapshot;
    let mut found: Vec<SymbolView> = root
        .file()
        .symbols()
        .filter(|s| s.parent().is_some_and(|p| p.index == root.index))
        .collect();
    for edge in snapshot.incoming(root.index) {
        if edge.kind() == EdgeKind::MethodOf
            && let NodeRef::Symbol(i) = edge.source()
            && !found.iter().any(|s| s.index == i)
            && let Some(method) = snapshot.symbol(i)
        {
            found.push(method);
        }
    }
    found
}

fn walk<'a>(
    published: &'a Published,
    root: SymbolView<'a>,
    bounds: &WalkBounds,
) -> Result<Walk<'a>, QueryError> {
    let snapshot = &published.snapshot;
    let mut seeds = vec![root];
    seeds.extend(members(published, root));
    let mut visited: FxHashSet<Node> = seeds.iter().map(|s| Node::Symbol(s.index)).collect();
    let mut frontier: Vec<(Node, Holder)> = seeds
        .iter()
        .map(|s| (Node::Symbol(s.index), Holder::Symbol(*s)))
        .collect();
    let mut steps: Vec<Step> = Vec::new();
    let mut expanded: Vec<Node> = Vec::new();
    let mut discovered = 1;
    let mut truncated = false;
    for depth in 1..=bounds.depth {
        let mut next = Vec::new();
        for (node, holder) in frontier {
            if bounds.deadline.is_some_and(|d| Instant::now() > d) {
                return Err(QueryError::new(
                    ErrorCode::TraversalLimitReached,
                    format!(
                        "the walk passed its deadline at depth {depth} after reaching {} symbols; lower depth or max_nodes, or narrow edge_kinds or confidence",
                        steps.len()
                    ),
                ));
            }
            let Node::Symbol(index) = node else {
                continue;
            };
            expanded.push(node);
            // The reverse walk crosses `IMPLEMENTS` both ways: what implements a changed
            // interface is affected, and so is whoever calls through the interface a changed
            // implementation provides.
            let edges: Box<dyn Iterator<Item = (EdgeView, NodeRef)>> = match bounds.direction {
                Direction::Outward => Box::new(snapshot.outgoing(index).map(|e| (e, e.target()))),
                Direction::Backward => Box::new(
                    snapshot.incoming(index).map(|e| (e, e.source())).chain(
                        snapshot
                            .outgoing(index)
                            .filter(|e| e.kind() == EdgeKind::Implements)
                            .map(|e| (e, e.target())),
                    ),
                ),
            };
            for (edge, other) in edges {
                if !bounds.kinds.contains(&edge.kind())
                    || bounds.confidence.is_some_and(|c| edge.confidence() != c)
                {
                    continue;
                }
                let Some(other) = Node::of(other) else {
                    continue;
                };
                if visited.contains(&other) {
                    continue;
                }
                if discovered >= bounds.max_nodes {
                    truncated = true;
                    continue;
                }
                let Some(reached) = Holder::of(published, other.as_ref()) else {
                    continue;
                };
                visited.insert(other);
                discovered += 1;
                steps.push(Step {
                    node: other,
                    holder: reached,
                    depth,
                    from: holder,
                    via: edge,
                });
                next.push((other, reached));
            }
        }
        frontier = next;
    }
    Ok(Walk {
        seeds,
        steps,
        expanded,
        visited,
        truncated,
    })
}

/// The languages, with their repositories, of the nodes a walk expanded.
fn expanded_languages(published: &Published, walk: &Walk) -> BTreeSet<(String, String)> {
    walk.expanded
        .iter()
        .filter_map(|node| Holder::of(published, node.as_ref()))
        .map(|h| {
            (
                h.repository().to_string(),
                h.file().language().as_str().to_string(),
            )
        })
        .collect()
}

fn derived(holder: &Holder) -> bool {
    kivgraph_facts::is_derived(holder.repository())
}

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
                json!(step.holder.kind()),
                // A tail is a list of columns, so numbers travel as strings.
                json!(step.depth.to_string()),
                json!(step.from.qualified_name()),
                json!(step.via.kind().as_str()),
                json!(step.via.confidence().as_str()),
                json!(step.via.provenance().as_str()),
            ];
            if format == ResponseFormat::Detailed {
                values.push(match step.holder {
                    Holder::Symbol(s) => json!(s.key().to_string()),
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
            map.insert("hop_depth".into(), json!(n));
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

fn full_row(step: &Step, format: ResponseFormat) -> Value {
    let mut row = step.holder.full_fields(format);
    row.insert("depth".into(), json!(step.depth));
    row.insert("reached_from".into(), json!(step.from.qualified_name()));
    row.insert("via_kind".into(), json!(step.via.kind().as_str()));
    row.insert(
        "via_confidence".into(),
        json!(step.via.confidence().as_str()),
    );
    row.insert(
        "via_provenance".into(),
        json!(step.via.provenance().as_str()),
    );
    if format == ResponseFormat::Detailed
        && let Holder::Symbol(from) = step.from
    {
        row.insert("reached_from_key".into(), json!(from.key().to_string()));
    }
    Value::Object(row)
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

struct Common<'a> {
    root: SymbolView<'a>,
    kinds: Vec<EdgeKind>,
    confidence: Option<Confidence>,
    depth: usize,
    max_nodes: usize,
    view: View,
    format: ResponseFormat,
    limit: Limit,
}

#[allow(clippy::too_many_arguments)]
fn common<'a>(
    published: &'a Published,
    selector: SelectorArgs,
    depth: Option<i64>,
    max_nodes: Option<i64>,
    edge_kinds_arg: Option<&[String]>,
    confidence_arg: Option<&str>,
    view: Option<&str>,
    format: Option<&str>,
    limit: Option<i64>,
    limits: &PageLimits,
) -> Result<Common<'a>, QueryError> {
    let depth = bounded_integer("depth", depth, DEFAULT_DEPTH, MAX_DEPTH)?;
    let max_nodes = bounded_integer("max_nodes", max_nodes, DEFAULT_MAX_NODES, MAX_MAX_NODES)?;
    let view = match view {
        Some("files") => {
            return Err(QueryError::invalid(
                "view \"files\" is not available here: the answer is a set of reached symbols, not files; use compact or full",
            ));
        }
        other => View::parse(other, false)?,
    };
    let format = ResponseFormat::parse(format)?;
    let limit = Limit::parse(limit, limits, None)?;
    let (kinds, _) = edge_kinds(edge_kinds_arg)?;
    // A walk follows every reference kind by default, forwarding bindings included.
    let kinds = if edge_kinds_arg.is_none() {
        EdgeKind::ALL
            .iter()
            .copied()
            .filter(|k| k.is_reference())
            .collect()
    } else {
        kinds
    };
    let confidence = confidence(confidence_arg)?;
    let root = selector.parse()?.resolve(published)?;
    Ok(Common {
        root,
        kinds,
        confidence,
        depth,
        max_nodes,
        view,
        format,
        limit,
    })
}

fn page_of<'s, 'a>(
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

fn kinds_identity(kinds: &[EdgeKind]) -> String {
    kinds
        .iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// What the symbol reaches outward, bounded by `depth` and `max_nodes`.
pub fn trace_dependencies(
    published: &Published,
    args: &TraceDependenciesArgs,
    limits: &PageLimits,
    deadline: Option<Instant>,
) -> Result<(Page, View), QueryError> {
    let common = common(
        published,
        SelectorArgs {
            stable_key: args.stable_key.clone(),
            repository: args.repository.clone(),
            path: args.path.clone(),
            qualified_name: args.qualified_name.clone(),
        },
        args.depth,
        args.max_nodes,
        args.edge_kinds.as_deref(),
        args.confidence.as_deref(),
        args.view.as_deref(),
        args.response_format.as_deref(),
        args.limit,
        limits,
    )?;
    let language = language(args.language.as_deref())?;
    let repo = trimmed("repo", args.repo.as_deref())?;
    if let Some(repo) = repo
        && published.snapshot.repository_named(repo).is_none()
    {
        return Err(QueryError::repository_not_found(repo));
    }
    let include_derived =
        args.include_derived.unwrap_or(false) || repo.is_some_and(kivgraph_facts::is_derived);
    let root = common.root;
    let walk = walk(
        published,
        root,
        &WalkBounds {
            direction: Direction::Outward,
            kinds: &common.kinds,
            confidence: common.confidence,
            depth: common.depth,
            max_nodes: common.max_nodes,
            deadline,
        },
    )?;
    let rows: Vec<&Step> = walk
        .steps
        .iter()
        .filter(|s| repo.is_none_or(|r| s.holder.repository() == r))
        .filter(|s| language.is_none_or(|l| s.holder.file().language() == l))
        .filter(|s| include_derived || !derived(&s.holder))
        .collect();
    let root_key = root.key().to_string();
    let depth_text = common.depth.to_string();
    let max_nodes_text = common.max_nodes.to_string();
    let identity = QueryIdentity::new(
        "trace_dependencies",
        "dependencies-v1",
        &[
            ("root", &root_key),
            ("depth", &depth_text),
            ("max_nodes", &max_nodes_text),
            ("repo", repo.unwrap_or("")),
            ("language", language.map_or("", |l| l.as_str())),
            ("edge_kinds", &kinds_identity(&common.kinds)),
            ("confidence", common.confidence.map_or("", |c| c.as_str())),
        ],
    );
    let (page, next_cursor) = page_of(
        &rows,
        &identity,
        published,
        args.cursor.as_deref(),
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
    let mut results = Map::new();
    results.insert("root_key".into(), json!(root_key));
    results.insert(
        "root_repository".into(),
        json!(root.file().repository().name()),
    );
    results.insert("depth".into(), json!(common.depth));
    results.insert("max_nodes".into(), json!(common.max_nodes));
    results.insert("reached".into(), json!(walk.steps.len()));
    results.insert("deepest_depth".into(), json!(deepest));
    if common.view == View::Full || walk.truncated {
        results.insert("traversal_truncated".into(), json!(walk.truncated));
    }
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

/// The page a traversal answers: `header`, then the page's rows in the chosen view (in the
/// full view placed by `place_full_rows`), counted, bounded and guided alike for both walks.
fn traversal_page(
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
            let nodes = page.iter().map(|s| full_row(s, common.format)).collect();
            place_full_rows(&mut header, Value::Array(nodes));
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
        },
        common.view,
    )
}

/// The failures the walk's expanded declarations made themselves: rows recorded in their
/// files, inside their line ranges.
fn failures_made<'a>(published: &'a Published, walk: &Walk) -> Vec<UnresolvedView<'a>> {
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

/// The `kinds` filter of the blast radius: which symbol kinds count as affected.
enum KindFilter {
    Default,
    Only(Vec<String>),
    Every,
}

impl KindFilter {
    fn parse(value: Option<&[String]>) -> Result<Self, QueryError> {
        let Some(list) = value else {
            return Ok(KindFilter::Default);
        };
        if list.is_empty() {
            return Err(QueryError::invalid(
                "kinds must name at least one kind, or [\"*\"] for every kind",
            ));
        }
        if list.iter().any(|k| k == "*") {
            if list.len() > 1 {
                return Err(QueryError::invalid(
                    "kinds \"*\" stands alone: it asks for no filter, so it cannot be mixed with names",
                ));
            }
            return Ok(KindFilter::Every);
        }
        let mut kinds = BTreeSet::new();
        for kind in list {
            trimmed("kinds entry", Some(kind))?;
            if !ACCEPTED_KINDS.contains(&kind.as_str()) {
                return Err(QueryError::invalid(format!(
                    "kinds entry {kind:?} is not a symbol kind; accepted: {}",
                    ACCEPTED_KINDS.join(", ")
                )));
            }
            kinds.insert(kind.clone());
        }
        Ok(KindFilter::Only(kinds.into_iter().collect()))
    }

    fn keeps(&self, kind: &str) -> bool {
        match self {
            KindFilter::Default => !BLAST_DEFAULT_EXCLUDED.contains(&kind),
            KindFilter::Only(kinds) => kinds.iter().any(|k| k == kind),
            KindFilter::Every => true,
        }
    }

    fn identity(&self) -> String {
        match self {
            KindFilter::Default => "default".into(),
            KindFilter::Only(kinds) => kinds.join(","),
            KindFilter::Every => "*".into(),
        }
    }

    /// Exactly one of `kinds_default_excluded` or `kinds`, so a count always says its filter.
    fn echo(&self, results: &mut Map<String, Value>) {
        match self {
            KindFilter::Default => {
                let mut excluded = BLAST_DEFAULT_EXCLUDED.to_vec();
                excluded.sort();
                results.insert("kinds_default_excluded".into(), json!(excluded));
            }
            KindFilter::Only(kinds) => {
                results.insert("kinds".into(), json!(kinds));
            }
            KindFilter::Every => {
                results.insert("kinds".into(), json!(["*"]));
            }
        }
    }
}

/// What a change to the symbol reaches: the walk backwards over incoming edges, with the
/// four axes over the whole (filtered) traversal.
pub fn get_blast_radius(
    published: &Published,
    args: &BlastRadiusArgs,
    limits: &PageLimits,
    deadline: Option<Instant>,
) -> Result<(Page, View), QueryError> {
    let common = common(
        published,
        SelectorArgs {
            stable_key: args.stable_key.clone(),
            repository: args.repository.clone(),
            path: args.path.clone(),
            qualified_name: args.qualified_name.clone(),
        },
        args.depth,
        args.max_nodes,
        args.edge_kinds.as_deref(),
        args.confidence.as_deref(),
        args.view.as_deref(),
        args.response_format.as_deref(),
        args.limit,
        limits,
    )?;
    let filter = KindFilter::parse(args.kinds.as_deref())?;
    let include_derived = args.include_derived.unwrap_or(false);
    let root = common.root;
    let walk = walk(
        published,
        root,
        &WalkBounds {
            direction: Direction::Backward,
            kinds: &common.kinds,
            confidence: common.confidence,
            depth: common.depth,
            max_nodes: common.max_nodes,
            deadline,
        },
    )?;
    let rows: Vec<&Step> = walk
        .steps
        .iter()
        .filter(|s| filter.keeps(s.holder.kind()))
        .filter(|s| include_derived || !derived(&s.holder))
        .collect();
    let root_key = root.key().to_string();
    let depth_text = common.depth.to_string();
    let max_nodes_text = common.max_nodes.to_string();
    let identity = QueryIdentity::new(
        "get_blast_radius",
        "blast-v1",
        &[
            ("root", &root_key),
            ("depth", &depth_text),
            ("max_nodes", &max_nodes_text),
            ("kinds", &filter.identity()),
            ("edge_kinds", &kinds_identity(&common.kinds)),
            ("confidence", common.confidence.map_or("", |c| c.as_str())),
        ],
    );
    let (page, next_cursor) = page_of(
        &rows,
        &identity,
        published,
        args.cursor.as_deref(),
        common.limit,
    )?;
    let bounds = blast_bounds(published, &walk, &common.kinds);
    let axes = Axes::of(published, &walk, &rows, &common.kinds, common.confidence);
    let deepest = rows.iter().map(|s| s.depth).max().unwrap_or(0);
    let full = common.view == View::Full;
    let mut results = Map::new();
    if full {
        results.insert("root_key".into(), json!(root_key));
        results.insert(
            "root_repository".into(),
            json!(root.file().repository().name()),
        );
    } else {
        results.insert("root".into(), json!(subject_triple(&root)));
    }
    results.insert("depth".into(), json!(common.depth));
    results.insert("max_nodes".into(), json!(common.max_nodes));
    filter.echo(&mut results);
    results.insert("affected".into(), json!(rows.len()));
    results.insert("deepest_depth".into(), json!(deepest));
    if full || walk.truncated {
        results.insert("traversal_truncated".into(), json!(walk.truncated));
    }
    if !full {
        axes.compact(&mut results, root.file().repository().name());
    }
    Ok(traversal_page(
        published,
        &common,
        &rows,
        (page, next_cursor),
        &bounds,
        results,
        |results, symbols| {
            results.insert("symbols".into(), symbols);
            axes.full(results);
        },
    ))
}

/// What bounds an impact: for every declaration the walk expanded, the failures that asked
/// for its name and the spellings of its name no edge explains (a caller the walk could not
/// see), unreadable scopes of the root's repository, bindings under other names, and the
/// relations the pass did not extract for the languages crossed.
fn blast_bounds<'a>(published: &'a Published, walk: &Walk, kinds: &[EdgeKind]) -> Bounds<'a> {
    let snapshot = &published.snapshot;
    let expanded: Vec<SymbolView> = walk
        .expanded
        .iter()
        .filter_map(|n| match n {
            Node::Symbol(i) => snapshot.symbol(*i),
            Node::Module(_) => None,
        })
        .collect();
    let names: BTreeSet<&str> = expanded.iter().map(|s| s.name()).collect();
    let asked: BTreeSet<(&str, Language)> = expanded
        .iter()
        .map(|s| (s.name(), s.language().analyzed_as()))
        .collect();
    let mut spots: Vec<UnresolvedView> = Vec::new();
    for (name, language) in asked {
        spots.extend(blind_spots(published, name, language));
    }
    let mut unbound: Vec<UnboundFile> = Vec::new();
    let mut position: FxHashMap<usize, usize> = FxHashMap::default();
    // A name's census is counted once, however many declarations the walk expanded carry it
    // (their importers are each their own).
    let mut counted: BTreeSet<&str> = BTreeSet::new();
    for symbol in &expanded {
        let census = counted.insert(symbol.name()).then(|| symbol.name());
        for (file, count) in unbound_mentions(published, census, Some(symbol)) {
            match position.get(&file.index) {
                Some(at) => unbound[*at].1 += count,
                None => {
                    position.insert(file.index, unbound.len());
                    unbound.push((file, count));
                }
            }
        }
    }
    let root = walk.seeds[0];
    Bounds {
        scopes: invisible_scopes(
            published,
            Some(root.file().repository().name()),
            None,
            Hidden::Named(&names.iter().copied().collect::<Vec<_>>()),
        ),
        blind_spots: spots,
        unbound,
        not_followed: expanded
            .iter()
            .find_map(|symbol| bound_under_other_names(published, symbol))
            .map(str::to_string),
        unextracted: unextracted_relations(published, &expanded_languages(published, walk), kinds),
    }
}

/// The four aggregations of an impact, over every filtered row rather than the page.
struct Axes {
    by_repository: Vec<(String, usize)>,
    by_depth: Vec<(usize, usize)>,
    by_kind: Vec<(&'static str, usize)>,
    /// (package name, repository, language, count)
    by_package: Vec<(String, String, &'static str, usize)>,
}

fn tally<K: Ord>(keys: impl Iterator<Item = K>) -> Vec<(K, usize)> {
    let mut counts: std::collections::BTreeMap<K, usize> = std::collections::BTreeMap::new();
    for key in keys {
        *counts.entry(key).or_default() += 1;
    }
    counts.into_iter().collect()
}

impl Axes {
    fn of(
        published: &Published,
        walk: &Walk,
        rows: &[&Step],
        kinds: &[EdgeKind],
        confidence: Option<Confidence>,
    ) -> Self {
        // Each affected symbol counts once per distinct relation by which it touches the
        // traversed subgraph, so `by_kind` may sum past `affected`.
        let affected: FxHashSet<Node> = rows.iter().map(|s| s.node).collect();
        let mut relations: FxHashMap<Node, BTreeSet<EdgeKind>> = FxHashMap::default();
        let snapshot = &published.snapshot;
        for node in &walk.expanded {
            let Node::Symbol(index) = node else { continue };
            for edge in snapshot.incoming(*index) {
                if !kinds.contains(&edge.kind())
                    || confidence.is_some_and(|c| edge.confidence() != c)
                {
                    continue;
                }
                if let Some(source) = Node::of(edge.source())
                    && affected.contains(&source)
                    && walk.visited.contains(&source)
                {
                    relations.entry(source).or_default().insert(edge.kind());
                }
            }
        }
        Axes {
            by_repository: tally(rows.iter().map(|s| s.holder.repository().to_string())),
            by_depth: tally(rows.iter().map(|s| s.depth)),
            by_kind: tally(
                relations
                    .values()
                    .flat_map(|kinds| kinds.iter().map(|k| k.as_str())),
            ),
            by_package: tally(rows.iter().map(|s| {
                let package = match s.holder {
                    Holder::Symbol(symbol) => symbol.package(),
                    Holder::Module(file) => file.package(),
                };
                (
                    package_and_module(package.language(), package.name()).0,
                    s.holder.repository().to_string(),
                    package.language().as_str(),
                )
            }))
            .into_iter()
            .map(|((name, repository, language), count)| (name, repository, language, count))
            .collect(),
        }
    }

    fn compact(&self, results: &mut Map<String, Value>, home: &str) {
        if !self.by_depth.is_empty() {
            let by_depth: Map<String, Value> = self
                .by_depth
                .iter()
                .map(|(depth, count)| (depth.to_string(), json!(count)))
                .collect();
            results.insert("by_depth".into(), Value::Object(by_depth));
        }
        if !self.by_kind.is_empty() {
            let by_kind: Map<String, Value> = self
                .by_kind
                .iter()
                .map(|(kind, count)| ((*kind).to_string(), json!(count)))
                .collect();
            results.insert("by_kind".into(), Value::Object(by_kind));
        }
        if !self.by_repository.is_empty() {
            let by_repository: Map<String, Value> = self
                .by_repository
                .iter()
                .map(|(repository, count)| (repository.clone(), json!(count)))
                .collect();
            results.insert("by_repository".into(), Value::Object(by_repository));
        }
        if !self.by_package.is_empty() {
            let only_home = self.by_repository.len() == 1 && self.by_repository[0].0 == home;
            let packages: Vec<Value> = self
                .by_package
                .iter()
                .map(|(name, repository, _, count)| {
                    if only_home || repository == home {
                        json!({"package": name, "count": count})
                    } else {
                        json!({"package": name, "repository": repository, "count": count})
                    }
                })
                .collect();
            results.insert("by_package".into(), Value::Array(packages));
        }
    }

    fn full(&self, results: &mut Map<String, Value>) {
        results.insert(
            "by_repository".into(),
            json!(
                self.by_repository
                    .iter()
                    .map(|(key, count)| json!({"key": key, "count": count}))
                    .collect::<Vec<_>>()
            ),
        );
        results.insert(
            "by_depth".into(),
            json!(
                self.by_depth
                    .iter()
                    .map(|(depth, count)| json!({"depth": depth, "count": count}))
                    .collect::<Vec<_>>()
            ),
        );
        results.insert(
            "by_kind".into(),
            json!(
                self.by_kind
                    .iter()
                    .map(|(key, count)| json!({"key": key, "count": count}))
                    .collect::<Vec<_>>()
            ),
        );
        results.insert(
            "by_package".into(),
            json!(
                self.by_package
                    .iter()
                    .map(|(name, repository, language, count)| json!({
                        "package_key": format!("package:{language}:{repository}:{name}"),
                        "package_name": name,
                        "repository": repository,
                        "count": count,
                    }))
                    .collect::<Vec<_>>()
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_filter_refuses_unknown_kinds_and_mixed_wildcards() {
        assert!(KindFilter::parse(Some(&["*".into(), "func".into()])).is_err());
        assert!(KindFilter::parse(Some(&["fucn".into()])).is_err());
        assert!(KindFilter::parse(Some(&[])).is_err());
        let filter = KindFilter::parse(Some(&["method".into(), "func".into()])).unwrap();
        assert_eq!(filter.identity(), "func,method");
        assert!(filter.keeps("func") && !filter.keeps("class"));
        assert!(!KindFilter::parse(None).unwrap().keeps("variable"));
    }
}
