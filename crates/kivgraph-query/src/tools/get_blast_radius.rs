//! `get_blast_radius`: what a change to a symbol reaches, backwards over its incoming edges,
//! with the axes it is summarised on (repositories, packages, kinds, confidences).

use std::collections::BTreeSet;
use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value, json};

use kivgraph_facts::{Confidence, EdgeKind, Language};
use kivgraph_snapshot::{SymbolView, UnresolvedView};

use crate::args::{PageLimits, View};
use crate::cursor::QueryIdentity;
use crate::envelope::Page;
use crate::error::QueryError;
use crate::holder::{Holder, bound_under_other_names, subject_triple};
use crate::packages::package_and_module;
use crate::published::Published;
use crate::scopes::{
    Bounds, Hidden, UnboundFile, blind_spots, invisible_scopes, unbound_mentions,
    unextracted_relations,
};
use crate::traverse::args::{BlastRadiusArgs, KindFilter, common, kinds_identity};
use crate::traverse::rows::{page_of, traversal_page};
use crate::traverse::walk::{
    Direction, Node, Step, Walk, WalkBounds, derived, expanded_languages, walk,
};

/// What a change to the symbol reaches: the walk backwards over incoming edges, with the
/// four axes over the whole (filtered) traversal.
pub fn get_blast_radius(
    published: &Published,
    args: &BlastRadiusArgs,
    limits: &PageLimits,
    deadline: Option<Instant>,
) -> Result<(Page, View), QueryError> {
    let common = common(published, &args.selector, &args.walk, limits)?;
    let filter = KindFilter::parse(args.kinds.as_deref())?;
    let include_derived = args.walk.include_derived.unwrap_or(false);
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
        args.walk.page.cursor.as_deref(),
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
    pub(super) fn of(
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
