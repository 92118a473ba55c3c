//! `get_blast_radius`: what a change to a symbol reaches, backwards over its incoming edges,
//! with the axes it is summarised on (repositories, packages, kinds, confidences).

use std::collections::BTreeSet;
use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use kivgraph_facts::{Confidence, EdgeKind, Language};
use kivgraph_snapshot::{SymbolView, UnresolvedView};

use crate::args::{PageLimits, View};
use crate::envelope::{Page, to_map};
use crate::error::QueryError;
use crate::holder::{Holder, bound_under_other_names, subject_triple};
use crate::packages::package_and_module;
use crate::published::Published;
use crate::scopes::{
    Bounds, Hidden, UnboundFile, blind_spots, invisible_scopes, unbound_mentions,
    unextracted_relations,
};
use crate::traverse::args::{BlastRadiusArgs, KindFilter, KindsEcho, common};
use crate::traverse::rows::{page_of, traversal_page};
use crate::traverse::walk::{Direction, Node, Step, Walk, derived, expanded_languages, walk_from};

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
    let walk = walk_from(published, &common, Direction::Backward, deadline)?;
    let rows: Vec<&Step> = walk
        .steps
        .iter()
        .filter(|s| filter.keeps(s.holder.kind()))
        .filter(|s| include_derived || !derived(&s.holder))
        .collect();
    let root_key = root.key().to_string();
    let identity = common.identity(
        "get_blast_radius",
        "blast-v1",
        &[("kinds", &filter.identity())],
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
    let root_triple = subject_triple(&root);
    let header = BlastHeader {
        root_key: full.then_some(root_key.as_str()),
        root_repository: full.then(|| root.file().repository().name()),
        root: (!full).then_some(root_triple.as_str()),
        depth: common.depth,
        max_nodes: common.max_nodes,
        kinds: filter.echo(),
        affected: rows.len(),
        deepest_depth: deepest,
        traversal_truncated: (full || walk.truncated).then_some(walk.truncated),
        axes: (!full).then(|| axes.compact(root.file().repository().name())),
    };
    let results = to_map(&header);
    Ok(traversal_page(
        published,
        &common,
        &rows,
        (page, next_cursor),
        &bounds,
        results,
        |results, symbols| {
            results.insert("symbols".into(), symbols);
            results.extend(to_map(&axes.full()));
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

    fn compact(&self, home: &str) -> CompactAxes<'_> {
        let only_home = self.by_repository.len() == 1 && self.by_repository[0].0 == home;
        CompactAxes {
            by_depth: self
                .by_depth
                .iter()
                .map(|(depth, count)| (depth.to_string(), *count))
                .collect(),
            by_kind: self
                .by_kind
                .iter()
                .map(|(kind, count)| ((*kind).to_string(), *count))
                .collect(),
            by_repository: self.by_repository.clone(),
            by_package: self
                .by_package
                .iter()
                .map(|(name, repository, _, count)| PackageCount {
                    package: name,
                    repository: (!only_home && repository != home).then_some(repository.as_str()),
                    count: *count,
                })
                .collect(),
        }
    }

    fn full(&self) -> FullAxes<'_> {
        FullAxes {
            by_repository: self
                .by_repository
                .iter()
                .map(|(key, count)| KeyCount { key, count: *count })
                .collect(),
            by_depth: self
                .by_depth
                .iter()
                .map(|(depth, count)| DepthCount {
                    depth: *depth,
                    count: *count,
                })
                .collect(),
            by_kind: self
                .by_kind
                .iter()
                .map(|(key, count)| KeyCount { key, count: *count })
                .collect(),
            by_package: self
                .by_package
                .iter()
                .map(|(name, repository, language, count)| PackageRow {
                    package_key: format!("package:{language}:{repository}:{name}"),
                    package_name: name,
                    repository,
                    count: *count,
                })
                .collect(),
        }
    }
}

/// What the blast radius states before its rows.
#[derive(Serialize)]
struct BlastHeader<'a> {
    /// Full view: the root by key and repository; compact: as `repository:path:line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    root_key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    root_repository: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    root: Option<&'a str>,
    depth: usize,
    max_nodes: usize,
    #[serde(flatten)]
    kinds: KindsEcho<'a>,
    affected: usize,
    deepest_depth: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    traversal_truncated: Option<bool>,
    /// Compact view only: the full view states them after its rows.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    axes: Option<CompactAxes<'a>>,
}

/// The four axes as the compact view states them: counts by depth, relation and repository
/// as objects, packages as a list naming a repository only when it is not the root's.
#[derive(Serialize)]
struct CompactAxes<'a> {
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "as_object")]
    by_depth: Vec<(String, usize)>,
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "as_object")]
    by_kind: Vec<(String, usize)>,
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "as_object")]
    by_repository: Vec<(String, usize)>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    by_package: Vec<PackageCount<'a>>,
}

#[derive(Serialize)]
struct PackageCount<'a> {
    package: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    repository: Option<&'a str>,
    count: usize,
}

/// The four axes as the full view states them, after its rows.
#[derive(Serialize)]
struct FullAxes<'a> {
    by_repository: Vec<KeyCount<'a>>,
    by_depth: Vec<DepthCount>,
    by_kind: Vec<KeyCount<'a>>,
    by_package: Vec<PackageRow<'a>>,
}

#[derive(Serialize)]
struct KeyCount<'a> {
    key: &'a str,
    count: usize,
}

#[derive(Serialize)]
struct DepthCount {
    depth: usize,
    count: usize,
}

#[derive(Serialize)]
struct PackageRow<'a> {
    package_key: String,
    package_name: &'a str,
    repository: &'a str,
    count: usize,
}

/// Pairs in order as one JSON object.
fn as_object<S: serde::Serializer>(
    pairs: &[(String, usize)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(pairs.iter().map(|(key, count)| (key, count)))
}
