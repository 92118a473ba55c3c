//! The bulk files a database is loaded from: every row of a set of pages, one Parquet file
//! per node table and per edge kind and endpoint pair, each row with its page. A full write stages
//! every page (and the tables only a whole database has: `Repository`, `Meta`); an update
//! stages the pages it replaces, their edges' other ends looked up where they already are.

use std::collections::BTreeMap;
use std::path::Path;

use kivgraph_facts::{Edge, EdgeKind, FactSet, KeyMap, StableKey};

use crate::bulk::{BulkFile, Field, Staged, copy_statement};
use crate::error::GraphDbError;
use crate::rows;
use crate::schema::{self, ColumnType, EDGE_PROPERTIES, Node, NodeTable};
use crate::session;

/// A generation's facts, page by page: each page's number and its canonical fact set (every
/// page lists every repository), borrowed from whoever decoded them.
pub type Pages<'a> = &'a [(u32, &'a FactSet)];

/// One table's bulk files and where they go.
pub(crate) struct Load {
    pub(crate) table: String,
    pair: Option<(Node, Node)>,
    staged: Staged,
}

/// Where the other end of an edge is when the staged pages do not hold it: in the database
/// being updated. A full write has no elsewhere.
pub(crate) trait Elsewhere: Sync {
    fn table_of(&self, key: &StableKey) -> Option<Node>;
}

/// Nothing outside the staged pages.
pub(crate) struct Nowhere;

impl Elsewhere for Nowhere {
    fn table_of(&self, _: &StableKey) -> Option<Node> {
        None
    }
}

/// Loads every staged file, in order; the rows loaded, by table.
pub(crate) fn load(
    connection: &lbug::Connection<'_>,
    loads: &[Load],
) -> Result<BTreeMap<String, u64>, GraphDbError> {
    // Every table, those that load nothing included: counts compare equal whatever was staged.
    let mut rows: BTreeMap<String, u64> = schema::table_names().map(|t| (t, 0)).collect();
    for load in loads {
        let pair = load.pair.map(|(from, to)| (from.name(), to.name()));
        let staged = &load.staged;
        if staged.rows > 0 {
            let started = std::time::Instant::now();
            session::run(connection, &copy_statement(&load.table, staged, pair))?;
            tracing::debug!(table = %load.table, rows = staged.rows, ms = started.elapsed().as_millis() as u64, "canonical database: loaded");
        }
        *rows.entry(load.table.clone()).or_default() += staged.rows as u64;
    }
    Ok(rows)
}

/// Writes every bulk file of `pages`, in load order: node tables first, relationships after.
/// `whole` adds `Repository` and `Meta`, which only a new database loads; unresolved rows are
/// numbered from `first_unresolved` (the ordinal no row of the database holds yet).
pub(crate) fn stage(
    pages: Pages<'_>,
    dir: &Path,
    whole: bool,
    elsewhere: &dyn Elsewhere,
    first_unresolved: i64,
) -> Result<Vec<Load>, GraphDbError> {
    let tables = node_tables(pages);
    let table_of = |key: &StableKey| tables.get(key).copied().or_else(|| elsewhere.table_of(key));
    check_named(pages, &table_of)?;
    // The edges' files are written beside the nodes': writing is most of staging's time.
    let (nodes, edges) = std::thread::scope(|scope| {
        let edges = scope.spawn(|| stage_edges(pages, dir, &table_of));
        let nodes = stage_nodes(pages, dir, whole, first_unresolved);
        (nodes, edges.join().expect("staging edges does not panic"))
    });
    let mut loads = nodes?;
    loads.extend(edges?);
    Ok(loads)
}

/// The node tables' files, in load order.
fn stage_nodes(
    pages: Pages<'_>,
    dir: &Path,
    whole: bool,
    first_unresolved: i64,
) -> Result<Vec<Load>, GraphDbError> {
    let mut loads = Vec::new();
    let mut node = |table: &NodeTable,
                    rows: &mut dyn FnMut(&mut BulkFile) -> Result<(), GraphDbError>|
     -> Result<(), GraphDbError> {
        let name = table.node.name();
        let columns: Vec<ColumnType> = table.columns.iter().map(|c| c.kind).collect();
        let mut file = BulkFile::create(dir.join(format!("{name}.parquet")), &columns)?;
        rows(&mut file)?;
        loads.push(Load {
            table: name.to_string(),
            pair: None,
            staged: file.finish()?,
        });
        Ok(())
    };
    node(&schema::REPOSITORY, &mut |out| {
        let repositories = pages
            .first()
            .map(|(_, facts)| facts.repositories.as_slice());
        for r in repositories.filter(|_| whole).unwrap_or_default() {
            out.row(&rows::repository(r))?;
        }
        Ok(())
    })?;
    node(&schema::PACKAGE, &mut |out| {
        for (page, p) in rows_of(pages, |facts| &facts.packages) {
            out.row(&rows::package(page, p))?;
        }
        Ok(())
    })?;
    node(&schema::FILE, &mut |out| {
        for (page, f) in rows_of(pages, |facts| &facts.files) {
            out.row(&rows::file(page, f)?)?;
        }
        Ok(())
    })?;
    node(&schema::MENTIONS, &mut |out| {
        for (page, f) in rows_of(pages, |facts| &facts.files) {
            out.row(&rows::mentions(page, f))?;
        }
        Ok(())
    })?;
    node(&schema::SYMBOL, &mut |out| {
        for (page, s) in rows_of(pages, |facts| &facts.symbols) {
            out.row(&rows::symbol(page, s))?;
        }
        Ok(())
    })?;
    node(&schema::EVIDENCE, &mut |out| {
        for (page, e) in rows_of(pages, |facts| &facts.evidence) {
            out.row(&rows::evidence(page, e)?)?;
        }
        Ok(())
    })?;
    node(&schema::UNRESOLVED, &mut |out| {
        for (ordinal, (page, u)) in rows_of(pages, |facts| &facts.unresolved).enumerate() {
            out.row(&rows::unresolved(
                first_unresolved + ordinal as i64,
                page,
                u,
            ))?;
        }
        Ok(())
    })?;
    node(&schema::META, &mut |out| {
        if !whole {
            return Ok(());
        }
        out.row(&[
            "schema_version".into(),
            Field::Owned(schema::SCHEMA_VERSION.to_string()),
        ])
    })?;
    Ok(loads)
}

/// One table's rows of every page, in page order, each with its page's number.
pub(crate) fn rows_of<'a, T: 'a>(
    pages: Pages<'a>,
    table: impl Fn(&'a FactSet) -> &'a Vec<T>,
) -> impl Iterator<Item = (u32, &'a T)> {
    pages
        .iter()
        .flat_map(move |(number, facts)| table(facts).iter().map(move |row| (*number, row)))
}

/// The table of every node `pages` hold that an edge can join.
pub(crate) fn node_tables(pages: Pages<'_>) -> KeyMap<Node> {
    let mut tables: KeyMap<Node> = KeyMap::default();
    if let Some((_, facts)) = pages.first() {
        tables.extend(facts.repositories.iter().map(|r| (r.key, Node::Repository)));
    }
    tables.extend(rows_of(pages, |f| &f.packages).map(|(_, p)| (p.key, Node::Package)));
    tables.extend(rows_of(pages, |f| &f.files).map(|(_, f)| (f.key, Node::File)));
    tables.extend(rows_of(pages, |f| &f.symbols).map(|(_, s)| (s.key, Node::Symbol)));
    tables
}

/// The nodes files and symbols name by id, besides their edges: their package, and a
/// symbol's parent; each with the table that holds it.
pub(crate) fn named_nodes(pages: Pages<'_>) -> impl Iterator<Item = (&StableKey, Node)> {
    let files = rows_of(pages, |f| &f.files).map(|(_, f)| (&f.package, Node::Package));
    let symbols = rows_of(pages, |f| &f.symbols).flat_map(|(_, s)| {
        let parent = s.parent.as_ref().map(|p| (p, Node::Symbol));
        std::iter::once((&s.package, Node::Package)).chain(parent)
    });
    files.chain(symbols)
}

/// Refuses a page whose file or symbol names a package or parent no table holds: the
/// database names them by id, which only a row it holds turns back into a key.
pub(crate) fn check_named(
    pages: Pages<'_>,
    table_of: &dyn Fn(&StableKey) -> Option<Node>,
) -> Result<(), GraphDbError> {
    for (key, node) in named_nodes(pages) {
        if table_of(key) != Some(node) {
            return Err(GraphDbError::Schema(format!(
                "{key} is named as a {} where no {0} row holds it",
                node.name()
            )));
        }
    }
    Ok(())
}

/// The edges, one file per kind and endpoint pair.
fn stage_edges(
    pages: Pages<'_>,
    dir: &Path,
    table_of: &(dyn Fn(&StableKey) -> Option<Node> + Sync),
) -> Result<Vec<Load>, GraphDbError> {
    let table_of = |key: &StableKey, edge: &Edge| {
        table_of(key).ok_or_else(|| {
            GraphDbError::Schema(format!(
                "a {} edge names {key}, which no node table holds",
                edge.kind
            ))
        })
    };
    let mut edges = EdgeFiles::new(dir, "");
    for (page, edge) in rows_of(pages, |f| &f.edges) {
        let pair = (table_of(&edge.source, edge)?, table_of(&edge.target, edge)?);
        let evidence = edge.evidence.as_ref().map(schema::key_id);
        edges.row(edge, pair, page, evidence)?;
    }
    edges.finish()
}

/// Edge rows, one file per kind and endpoint pair, checked against the schema.
pub(crate) struct EdgeFiles<'a> {
    dir: &'a Path,
    /// Tells these files from another set's in the same directory.
    prefix: &'static str,
    files: BTreeMap<(EdgeKind, Node, Node), BulkFile>,
}

impl<'a> EdgeFiles<'a> {
    pub(crate) fn new(dir: &'a Path, prefix: &'static str) -> Self {
        EdgeFiles {
            dir,
            prefix,
            files: BTreeMap::new(),
        }
    }

    /// One edge; `evidence` is its evidence's id (`edge.evidence` is not read).
    pub(crate) fn row(
        &mut self,
        edge: &Edge,
        pair: (Node, Node),
        page: u32,
        evidence: Option<i64>,
    ) -> Result<(), GraphDbError> {
        schema::check_joins(edge.kind, pair)?;
        let group = (edge.kind, pair.0, pair.1);
        if !self.files.contains_key(&group) {
            let name = format!(
                "{}{}-{}-{}.parquet",
                self.prefix,
                edge.kind,
                pair.0.name(),
                pair.1.name()
            );
            let ends = [ColumnType::Integer; 2];
            let columns: Vec<ColumnType> = ends
                .into_iter()
                .chain(EDGE_PROPERTIES.iter().map(|c| c.kind))
                .collect();
            let file = BulkFile::create(self.dir.join(name), &columns)?;
            self.files.insert(group, file);
        }
        let out = self.files.get_mut(&group).expect("inserted above");
        out.row(&rows::edge(edge, page, evidence))
    }

    pub(crate) fn finish(self) -> Result<Vec<Load>, GraphDbError> {
        let mut loads = Vec::new();
        for ((kind, from, to), file) in self.files {
            loads.push(Load {
                table: kind.as_str().to_string(),
                pair: (schema::endpoints(kind).len() > 1).then_some((from, to)),
                staged: file.finish()?,
            });
        }
        Ok(loads)
    }
}
