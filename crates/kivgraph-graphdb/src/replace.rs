//! Replacing pages' rows by bulk load, for a change too large to amend row by row: what the
//! pages own deleted — the edges other pages own into their nodes read first and loaded
//! back — and their rows staged and loaded as a whole write loads them.

use std::path::Path;

use kivgraph_facts::{Confidence, Edge, EdgeKind, GraphCounts, Provenance, StableKey};
use lbug::{Connection, Value};

use crate::error::GraphDbError;
use crate::lookup::{Found, check_repositories, next_ordinal, page_list, unexpected};
use crate::schema::{self, Node};
use crate::session;
use crate::stage::{EdgeFiles, Load, Pages, load, named_nodes, node_tables, stage};

/// The node tables whose rows belong to a page.
const PAGED: [Node; 6] = [
    Node::Package,
    Node::File,
    Node::Mentions,
    Node::Symbol,
    Node::Evidence,
    Node::Unresolved,
];

/// Replaces the rows of every page in `changed` in the database at `database` with theirs;
/// the rows it then holds, by table.
pub(crate) fn replace_pages(
    previous_counts: &GraphCounts,
    changed: Pages<'_>,
    database: &Path,
    scratch: &Path,
) -> Result<GraphCounts, GraphDbError> {
    let mut lap = session::Lap::start("update");
    let db = session::open_for_writing(database)?;
    let connection = session::connect(&db)?;
    check_repositories(&connection, changed)?;
    lap.end("open");
    let pages = page_list(changed);
    let staging = session::staging(scratch)?;
    let mut counts = previous_counts.clone();
    // What the replaced pages own goes, with every edge that touches their nodes; the edges
    // other pages own among those are kept aside first.
    let kept = keep_reaching_edges(&connection, &pages, staging.path())?;
    lap.end("keep_reaching_edges");
    for (table, removed) in remove_pages(&connection, &pages)? {
        let rows = counts.tables.entry(table).or_default();
        *rows = rows.saturating_sub(removed);
    }
    lap.end("remove_pages");
    let local = node_tables(changed);
    let ends = changed
        .iter()
        .flat_map(|(_, f)| &f.edges)
        .flat_map(|e| [&e.source, &e.target])
        .chain(named_nodes(changed).map(|(key, _)| key));
    let elsewhere = Found::look_up(&connection, &local, ends)?;
    lap.end("look_up");
    let first_unresolved = next_ordinal(&connection)?;
    let loads = stage(changed, staging.path(), false, &elsewhere, first_unresolved)?;
    lap.end("stage");
    for (table, rows) in load(&connection, &loads)? {
        *counts.tables.entry(table).or_default() += rows;
    }
    load(&connection, &kept)?;
    lap.end("load");
    Ok(counts)
}

/// Reads the edges that pages outside `pages` own and that reach a node of `pages` into bulk
/// files to load back.
fn keep_reaching_edges(
    connection: &Connection<'_>,
    pages: &Value,
    dir: &Path,
) -> Result<Vec<Load>, GraphDbError> {
    let mut kept = EdgeFiles::new(dir, "kept-");
    for kind in EdgeKind::ALL {
        for (from, to) in schema::endpoints(*kind) {
            let reaches = |node: &Node, name: &str| {
                (*node != Node::Repository).then(|| format!("{name}.page IN $pages"))
            };
            let reaching: Vec<String> = [reaches(from, "a"), reaches(to, "b")]
                .into_iter()
                .flatten()
                .collect();
            if reaching.is_empty() {
                continue;
            }
            let query = format!(
                "MATCH (a:{})-[e:{}]->(b:{}) WHERE NOT (e.page IN $pages) AND ({}) \
                 RETURN a.key, b.key, e.page, e.confidence, e.provenance, e.evidence",
                from.name(),
                kind.as_str(),
                to.name(),
                reaching.join(" OR ")
            );
            for row in session::rows(connection, &query, vec![("pages", pages.clone())])? {
                let (edge, page, evidence) = edge_of(*kind, row)?;
                kept.row(&edge, (*from, *to), page, evidence)?;
            }
        }
    }
    kept.finish()
}

/// Deletes what `pages` own: their edges, then their nodes with every edge still touching
/// them. The rows removed, by table (the edges other pages own are loaded back).
fn remove_pages(
    connection: &Connection<'_>,
    pages: &Value,
) -> Result<Vec<(String, u64)>, GraphDbError> {
    let parameters = || vec![("pages", pages.clone())];
    let mut removed = Vec::new();
    for kind in EdgeKind::ALL {
        let count = format!(
            "MATCH ()-[e:{}]->() WHERE e.page IN $pages RETURN count(e)",
            kind.as_str()
        );
        removed.push((
            kind.as_str().to_string(),
            count_of(connection, &count, parameters())?,
        ));
        session::run_with(
            connection,
            &format!(
                "MATCH ()-[e:{}]->() WHERE e.page IN $pages DELETE e",
                kind.as_str()
            ),
            parameters(),
        )?;
    }
    for node in PAGED {
        let name = node.name();
        let count = format!("MATCH (n:{name}) WHERE n.page IN $pages RETURN count(n)");
        removed.push((
            name.to_string(),
            count_of(connection, &count, parameters())?,
        ));
        session::run_with(
            connection,
            &format!("MATCH (n:{name}) WHERE n.page IN $pages DETACH DELETE n"),
            parameters(),
        )?;
    }
    Ok(removed)
}

/// An edge read back, its page, and its evidence's ordinal (the edge's own `evidence` left
/// empty: staging writes the ordinal).
fn edge_of(kind: EdgeKind, row: Vec<Value>) -> Result<(Edge, u32, Option<i64>), GraphDbError> {
    let context = "an edge kept across an update";
    match row.as_slice() {
        [
            Value::String(source),
            Value::String(target),
            Value::Int64(page),
            Value::String(confidence),
            Value::String(provenance),
            evidence,
        ] => {
            let parse_key = |text: &str| StableKey::parse(text).map_err(|e| unexpected(context, e));
            let edge = Edge {
                kind,
                source: parse_key(source)?,
                target: parse_key(target)?,
                confidence: Confidence::parse(confidence).map_err(|e| unexpected(context, e))?,
                provenance: Provenance::parse(provenance).map_err(|e| unexpected(context, e))?,
                evidence: None,
            };
            let evidence = match evidence {
                Value::Int64(ordinal) => Some(*ordinal),
                _ => None,
            };
            Ok((edge, *page as u32, evidence))
        }
        other => Err(unexpected(context, other)),
    }
}

fn count_of(
    connection: &Connection<'_>,
    query: &str,
    parameters: Vec<(&str, Value)>,
) -> Result<u64, GraphDbError> {
    match session::rows(connection, query, parameters)?
        .first()
        .map(Vec::as_slice)
    {
        Some([Value::Int64(n)]) => Ok(*n as u64),
        other => Err(unexpected(query, other)),
    }
}
