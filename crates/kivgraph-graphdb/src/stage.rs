//! The bulk files a database is loaded from: every row of a set of pages, one CSV per node
//! table and per edge kind and endpoint pair, each row with its page. A full write stages
//! every page (and the tables only a whole database has: `Repository`, `Meta`); an update
//! stages the pages it replaces, their edges' other ends looked up where they already are.

use std::collections::BTreeMap;
use std::path::Path;

use kivgraph_facts::{Edge, EdgeKind, FactSet, KeyMap, StableKey, evidence_key};

use crate::bulk::{BulkFile, Field, Staged, copy_statement};
use crate::error::GraphDbError;
use crate::schema::{self, EDGE_PROPERTIES, Node, NodeTable};
use crate::session;

/// A generation's facts, page by page: each page's number and its canonical fact set (every
/// page lists every repository), borrowed from whoever decoded them.
pub type Pages<'a> = &'a [(u32, &'a FactSet)];

/// One table's bulk files and where they go.
pub(crate) struct Load {
    pub(crate) table: String,
    pair: Option<(Node, Node)>,
    parts: Vec<Staged>,
}

impl Load {
    fn rows(&self) -> usize {
        self.parts.iter().map(|p| p.rows).sum()
    }
}

/// Where the other end of an edge is when the staged pages do not hold it: in the database
/// being updated. A full write has no elsewhere.
pub(crate) trait Elsewhere {
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
        for part in load.parts.iter().filter(|p| p.rows > 0) {
            let started = std::time::Instant::now();
            session::run(connection, &copy_statement(&load.table, part, pair))?;
            tracing::debug!(table = %load.table, rows = part.rows, parallel = part.parallel, ms = started.elapsed().as_millis() as u64, "canonical database: loaded");
        }
        *rows.entry(load.table.clone()).or_default() += load.rows() as u64;
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
    let mut loads = Vec::new();
    let mut node = |table: &NodeTable,
                    rows: &mut dyn FnMut(&mut BulkFile) -> Result<(), GraphDbError>|
     -> Result<(), GraphDbError> {
        let name = table.node.name();
        let mut file = BulkFile::create(dir.join(format!("{name}.csv")), table.columns.len())?;
        rows(&mut file)?;
        loads.push(Load {
            table: name.to_string(),
            pair: None,
            parts: file.finish()?,
        });
        Ok(())
    };
    node(&schema::REPOSITORY, &mut |out| {
        let repositories = pages
            .first()
            .map(|(_, facts)| facts.repositories.as_slice());
        for r in repositories.filter(|_| whole).unwrap_or_default() {
            let languages: Vec<&str> = r.languages.iter().map(|l| l.as_str()).collect();
            out.row(&[
                key(&r.key),
                r.name.as_str().into(),
                r.root.as_str().into(),
                Field::Owned(languages.join(",")),
            ])?;
        }
        Ok(())
    })?;
    node(&schema::PACKAGE, &mut |out| {
        for (page, p) in rows(pages, |facts| &facts.packages) {
            out.row(&[
                key(&p.key),
                page,
                p.repository.as_str().into(),
                p.language.as_str().into(),
                p.name.as_str().into(),
                p.path.as_str().into(),
            ])?;
        }
        Ok(())
    })?;
    node(&schema::FILE, &mut |out| {
        for (page, f) in rows(pages, |facts| &facts.files) {
            out.row(&[
                key(&f.key),
                page,
                f.repository.as_str().into(),
                f.path.as_str().into(),
                f.language.as_str().into(),
                key(&f.package),
                Field::Owned(f.fingerprint.to_hex()),
                f.line_count.into(),
                Field::Integer(f.byte_len as i64),
                Field::Integer(f.parse_issues.len() as i64),
                json(&f.parse_issues)?,
                json(&f.mentions)?,
            ])?;
        }
        Ok(())
    })?;
    node(&schema::SYMBOL, &mut |out| {
        for (page, s) in rows(pages, |facts| &facts.symbols) {
            out.row(&[
                key(&s.key),
                page,
                s.repository.as_str().into(),
                s.language.as_str().into(),
                key(&s.package),
                s.file_path.as_str().into(),
                s.name.as_str().into(),
                s.qualified_name.as_str().into(),
                s.kind.as_str().into(),
                s.signature.as_str().into(),
                Field::Boolean(s.exported),
                s.span.start_line.into(),
                s.span.end_line.into(),
                s.span.start_byte.into(),
                s.span.end_byte.into(),
                s.doc.as_deref().into(),
                s.parent.as_ref().map_or(Field::Null, key),
                s.key_module.as_str().into(),
                s.key_discriminator.as_str().into(),
            ])?;
        }
        Ok(())
    })?;
    node(&schema::EVIDENCE, &mut |out| {
        for (page, e) in rows(pages, |facts| &facts.evidence) {
            // The key is not stored: whoever reads the row derives it from its place.
            if e.key != evidence_key(&e.repository, &e.file_path, e.span) {
                return Err(GraphDbError::Schema(format!(
                    "evidence {} is not the key of its place ({}/{} bytes {}-{})",
                    e.key, e.repository, e.file_path, e.span.start_byte, e.span.end_byte
                )));
            }
            out.row(&[
                Field::Integer(schema::evidence_ordinal(&e.key)),
                page,
                e.repository.as_str().into(),
                e.file_path.as_str().into(),
                e.span.start_line.into(),
                e.span.end_line.into(),
                e.span.start_byte.into(),
                e.span.end_byte.into(),
            ])?;
        }
        Ok(())
    })?;
    node(&schema::UNRESOLVED, &mut |out| {
        for (ordinal, (page, u)) in rows(pages, |facts| &facts.unresolved).enumerate() {
            out.row(&[
                Field::Integer(first_unresolved + ordinal as i64),
                page,
                u.repository.as_str().into(),
                u.language.as_str().into(),
                u.reason.as_str().into(),
                u.file_path.as_deref().into(),
                u.span.map_or(Field::Null, |s| s.start_line.into()),
                u.span.map_or(Field::Null, |s| s.end_line.into()),
                u.span.map_or(Field::Null, |s| s.start_byte.into()),
                u.span.map_or(Field::Null, |s| s.end_byte.into()),
                u.requested_symbol.as_deref().into(),
                u.requested_package.as_deref().into(),
                u.detail.as_str().into(),
            ])?;
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
    loads.extend(stage_edges(pages, dir, elsewhere)?);
    Ok(loads)
}

/// One table's rows of every page, in page order, each with its page's number.
pub(crate) fn rows<'a, T: 'a>(
    pages: Pages<'a>,
    table: impl Fn(&'a FactSet) -> &'a Vec<T>,
) -> impl Iterator<Item = (Field<'static>, &'a T)> {
    pages.iter().flat_map(move |(number, facts)| {
        table(facts)
            .iter()
            .map(move |row| (Field::from(*number), row))
    })
}

/// The edges, one file per kind and endpoint pair.
fn stage_edges(
    pages: Pages<'_>,
    dir: &Path,
    elsewhere: &dyn Elsewhere,
) -> Result<Vec<Load>, GraphDbError> {
    let mut tables: KeyMap<Node> = KeyMap::default();
    if let Some((_, facts)) = pages.first() {
        tables.extend(facts.repositories.iter().map(|r| (r.key, Node::Repository)));
    }
    tables.extend(rows(pages, |f| &f.packages).map(|(_, p)| (p.key, Node::Package)));
    tables.extend(rows(pages, |f| &f.files).map(|(_, f)| (f.key, Node::File)));
    tables.extend(rows(pages, |f| &f.symbols).map(|(_, s)| (s.key, Node::Symbol)));
    let table_of = |key: &StableKey, edge: &Edge| {
        let found = tables.get(key).copied().or_else(|| elsewhere.table_of(key));
        found.ok_or_else(|| {
            GraphDbError::Schema(format!(
                "a {} edge names {key}, which no node table holds",
                edge.kind
            ))
        })
    };
    let mut edges = EdgeFiles::new(dir, "");
    for (page, edge) in rows(pages, |f| &f.edges) {
        let pair = (table_of(&edge.source, edge)?, table_of(&edge.target, edge)?);
        let evidence = edge.evidence.as_ref().map(schema::evidence_ordinal);
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

    /// One edge; `evidence` is its evidence's ordinal (`edge.evidence` is not read).
    pub(crate) fn row(
        &mut self,
        edge: &Edge,
        pair: (Node, Node),
        page: Field<'_>,
        evidence: Option<i64>,
    ) -> Result<(), GraphDbError> {
        if !schema::endpoints(edge.kind).contains(&pair) {
            return Err(GraphDbError::Schema(format!(
                "the schema has no {} from {} to {}",
                edge.kind,
                pair.0.name(),
                pair.1.name()
            )));
        }
        let group = (edge.kind, pair.0, pair.1);
        if !self.files.contains_key(&group) {
            let name = format!(
                "{}{}-{}-{}.csv",
                self.prefix,
                edge.kind,
                pair.0.name(),
                pair.1.name()
            );
            let file = BulkFile::create(self.dir.join(name), 2 + EDGE_PROPERTIES.len())?;
            self.files.insert(group, file);
        }
        let out = self.files.get_mut(&group).expect("inserted above");
        out.row(&[
            key(&edge.source),
            key(&edge.target),
            page,
            edge.confidence.as_str().into(),
            edge.provenance.as_str().into(),
            evidence.map_or(Field::Null, Field::Integer),
        ])
    }

    pub(crate) fn finish(self) -> Result<Vec<Load>, GraphDbError> {
        let mut loads = Vec::new();
        for ((kind, from, to), file) in self.files {
            loads.push(Load {
                table: kind.as_str().to_string(),
                pair: (schema::endpoints(kind).len() > 1).then_some((from, to)),
                parts: file.finish()?,
            });
        }
        Ok(loads)
    }
}

/// A list the schema keeps as JSON text.
fn json(value: &impl serde::Serialize) -> Result<Field<'static>, GraphDbError> {
    serde_json::to_string(value)
        .map(Field::Owned)
        .map_err(|e| GraphDbError::Schema(e.to_string()))
}

pub(crate) fn key(key: &StableKey) -> Field<'static> {
    Field::Key(*key)
}
