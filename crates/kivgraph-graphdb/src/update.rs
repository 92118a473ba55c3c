//! A generation's database derived from the previous generation's: a copy of its file with
//! the rows of the pages a pass changed replaced by theirs. Edges of unchanged pages that
//! reach a replaced node are read before the delete and loaded again after it, so the copy
//! ends up holding what a full write of every page would.

use std::path::Path;

use kivgraph_facts::{Confidence, Edge, EdgeKind, GraphCounts, KeyMap, Provenance, StableKey};
use lbug::{Connection, LogicalType, Value};

use crate::error::GraphDbError;
use crate::schema::{self, Node};
use crate::session;
use crate::stage::{EdgeFiles, Elsewhere, Load, Pages, load, rows, stage};

/// The node tables whose rows belong to a page.
const PAGED: [Node; 5] = [
    Node::Package,
    Node::File,
    Node::Symbol,
    Node::Evidence,
    Node::Unresolved,
];

/// Copies the database at `previous` (holding `previous_counts`) to `database` and replaces
/// the rows of every page in `changed` (each page's number and its whole facts) with those
/// facts; the rows the result holds, by table. `NotIncremental` when the repositories
/// changed, which only a full write handles.
pub fn update_database(
    previous: &Path,
    previous_counts: &GraphCounts,
    changed: Pages<'_>,
    database: &Path,
    scratch: &Path,
) -> Result<GraphCounts, GraphDbError> {
    if database.exists() {
        return Err(GraphDbError::Exists(database.to_path_buf()));
    }
    if previous_counts.schema_version != schema::SCHEMA_VERSION {
        return Err(GraphDbError::NotIncremental(format!(
            "the previous database has schema {}",
            previous_counts.schema_version
        )));
    }
    let mut lap = session::Lap::start("update");
    std::fs::copy(previous, database).map_err(|e| GraphDbError::io("copy", previous, e))?;
    lap.end("copy");
    let updated = replace_pages(previous_counts, changed, database, scratch);
    if updated.is_err() {
        // Nothing half-updated is left behind: a whole write may follow.
        session::remove(database);
    }
    updated
}

fn replace_pages(
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
    let pages = Value::List(
        LogicalType::Int64,
        changed
            .iter()
            .map(|(n, _)| Value::Int64(i64::from(*n)))
            .collect(),
    );
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
    let elsewhere = Found::look_up(&connection, changed)?;
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

/// The repositories every page lists must be the ones the database holds.
fn check_repositories(connection: &Connection<'_>, changed: Pages<'_>) -> Result<(), GraphDbError> {
    let Some((_, facts)) = changed.first() else {
        return Ok(());
    };
    let held = session::rows(
        connection,
        "MATCH (r:Repository) RETURN r.key ORDER BY r.key",
        vec![],
    )?;
    let mut listed: Vec<String> = facts
        .repositories
        .iter()
        .map(|r| r.key.to_string())
        .collect();
    listed.sort();
    let held: Vec<String> = held
        .into_iter()
        .filter_map(|row| match row.into_iter().next() {
            Some(Value::String(key)) => Some(key),
            _ => None,
        })
        .collect();
    if held != listed {
        return Err(GraphDbError::NotIncremental(
            "the registered repositories changed".into(),
        ));
    }
    Ok(())
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
                kept.row(&edge, (*from, *to), page.into(), evidence)?;
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

/// Where the replaced pages' edges reach outside them, looked up once.
struct Found {
    tables: KeyMap<Node>,
}

impl Found {
    fn look_up(connection: &Connection<'_>, changed: Pages<'_>) -> Result<Self, GraphDbError> {
        let mut local: KeyMap<()> = KeyMap::default();
        local.extend(rows(changed, |f| &f.packages).map(|(_, p)| (p.key, ())));
        local.extend(rows(changed, |f| &f.files).map(|(_, f)| (f.key, ())));
        local.extend(rows(changed, |f| &f.symbols).map(|(_, s)| (s.key, ())));
        let mut wanted: Vec<Value> = rows(changed, |f| &f.edges)
            .flat_map(|(_, e)| [e.source, e.target])
            .filter(|k| !local.contains_key(k))
            .map(|k| Value::String(k.to_string()))
            .collect();
        wanted.sort_by_key(|v| v.to_string());
        wanted.dedup_by_key(|v| v.to_string());
        let mut tables: KeyMap<Node> = KeyMap::default();
        if !wanted.is_empty() {
            let keys = Value::List(LogicalType::String, wanted);
            for node in [Node::Repository, Node::Package, Node::File, Node::Symbol] {
                let query = format!(
                    "MATCH (n:{}) WHERE n.key IN $keys RETURN n.key",
                    node.name()
                );
                for row in session::rows(connection, &query, vec![("keys", keys.clone())])? {
                    if let [Value::String(text)] = row.as_slice() {
                        let key = StableKey::parse(text).map_err(|e| unexpected(&query, e))?;
                        tables.insert(key, node);
                    }
                }
            }
        }
        Ok(Found { tables })
    }
}

impl Elsewhere for Found {
    fn table_of(&self, key: &StableKey) -> Option<Node> {
        self.tables.get(key).copied()
    }
}

/// The first unresolved ordinal no row of the database holds.
fn next_ordinal(connection: &Connection<'_>) -> Result<i64, GraphDbError> {
    let query = "MATCH (u:Unresolved) RETURN max(u.ordinal)";
    match session::rows(connection, query, vec![])?
        .first()
        .map(Vec::as_slice)
    {
        Some([Value::Int64(n)]) => Ok(n + 1),
        Some([Value::Null(_)]) | None => Ok(0),
        Some(other) => Err(unexpected(query, other)),
    }
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

fn unexpected(what: &str, found: impl std::fmt::Debug) -> GraphDbError {
    GraphDbError::Mismatch(format!("{what}: unexpected {found:?}"))
}
