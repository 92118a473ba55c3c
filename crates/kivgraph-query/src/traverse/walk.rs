//! The bounded breadth-first walk over the snapshot's adjacency, outward over outgoing
//! edges or backwards over incoming ones, and the symbols it reaches.

use std::collections::BTreeSet;
use std::time::Instant;

use rustc_hash::FxHashSet;

use kivgraph_facts::{Confidence, EdgeKind};
use kivgraph_snapshot::{EdgeView, NodeRef, SymbolView};

use crate::error::{ErrorCode, QueryError};
use crate::holder::Holder;
use crate::published::Published;
use crate::traverse::args::Common;

/// A node of the walk: a symbol, or a file's module scope (the holder of an import).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Node {
    Symbol(usize),
    Module(usize),
}

impl Node {
    pub(crate) fn of(node: NodeRef) -> Option<Node> {
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
pub(crate) struct Step<'a> {
    pub(crate) node: Node,
    pub(crate) holder: Holder<'a>,
    pub(crate) depth: usize,
    pub(crate) from: Holder<'a>,
    pub(crate) via: EdgeView<'a>,
}

pub(crate) struct Walk<'a> {
    /// The root and its members: depth zero, never rows.
    pub(crate) seeds: Vec<SymbolView<'a>>,
    pub(crate) steps: Vec<Step<'a>>,
    /// Nodes whose edges the walk followed: the seeds, and steps short of the depth bound.
    pub(crate) expanded: Vec<Node>,
    pub(crate) visited: FxHashSet<Node>,
    pub(crate) truncated: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Outward,
    Backward,
}

struct WalkBounds<'k> {
    pub(crate) direction: Direction,
    pub(crate) kinds: &'k [EdgeKind],
    pub(crate) confidence: Option<Confidence>,
    pub(crate) depth: usize,
    pub(crate) max_nodes: usize,
    pub(crate) deadline: Option<Instant>,
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

/// The walk a validated request asks for, in `direction`, given up at `deadline`.
pub(crate) fn walk_from<'a>(
    published: &'a Published,
    common: &Common<'a>,
    direction: Direction,
    deadline: Option<Instant>,
) -> Result<Walk<'a>, QueryError> {
    walk(
        published,
        common.root,
        &WalkBounds {
            direction,
            kinds: &common.kinds,
            confidence: common.confidence,
            depth: common.depth,
            max_nodes: common.max_nodes,
            deadline,
        },
    )
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
pub(crate) fn expanded_languages(published: &Published, walk: &Walk) -> BTreeSet<(String, String)> {
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

pub(crate) fn derived(holder: &Holder) -> bool {
    kivgraph_facts::is_derived(holder.repository())
}
