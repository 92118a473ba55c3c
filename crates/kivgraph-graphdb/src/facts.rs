//! Reading a database back into the generation's pages: every table, row by row, into the
//! fact sets it was written from, so that the snapshot can be rebuilt from the canonical
//! graph alone. The column order is the schema's (`schema.rs`); the round-trip test proves
//! the reader and the writer agree on it.

use std::collections::{BTreeMap, HashMap};

use kivgraph_facts::*;
use lbug::{Connection, Value};

use crate::census;
use crate::error::GraphDbError;
use crate::read::GraphReader;
use crate::schema::{self, EDGE_PROPERTIES, NodeTable};
use crate::session;

impl GraphReader {
    /// Every page's facts, canonical, by page number: pages with no rows of their own still
    /// list every repository, as published pages do.
    pub fn pages(&self, page_count: u32) -> Result<Vec<(u32, FactSet)>, GraphDbError> {
        let connection = session::connect(self.database())?;
        let repositories = scan(&connection, &schema::REPOSITORY, page_count, |row| {
            Ok(RepositoryFact {
                key: row.identified()?,
                name: row.text()?,
                root: row.text()?,
                languages: row
                    .text()?
                    .split(',')
                    .filter(|l| !l.is_empty())
                    .map(Language::parse)
                    .collect::<Result<_, _>>()
                    .map_err(|e| row.invalid(e))?,
            })
        })?;
        let mut pages: BTreeMap<u32, FactSet> = (0..page_count)
            .map(|number| {
                let facts = FactSet {
                    repositories: repositories.clone(),
                    ..FactSet::default()
                };
                (number, facts)
            })
            .collect();
        // Files and symbols name their package, and symbols their parent, by id.
        let mut package_keys: HashMap<i64, StableKey> = HashMap::new();
        for (number, package) in scan(&connection, &schema::PACKAGE, page_count, |row| {
            let key = row.identified()?;
            package_keys.insert(schema::key_id(&key), key);
            Ok((
                row.page()?,
                PackageFact {
                    key,
                    repository: row.text()?,
                    language: row.language()?,
                    name: row.text()?,
                    path: row.text()?,
                },
            ))
        })? {
            page(&mut pages, number)?.packages.push(package);
        }
        let mut mentions: HashMap<i64, Vec<Mention>> = HashMap::new();
        for (file_id, said) in scan(&connection, &schema::MENTIONS, page_count, |row| {
            let file_id = row.integer()?;
            row.page()?;
            let text = row.text()?;
            Ok((
                file_id,
                census::from_json(&text).map_err(|e| row.invalid(e))?,
            ))
        })? {
            mentions.insert(file_id, said);
        }
        for (number, file) in scan(&connection, &schema::FILE, page_count, |row| {
            let key = row.identified()?;
            let number = row.page()?;
            let said = mentions
                .remove(&schema::key_id(&key))
                .ok_or_else(|| row.invalid(format!("no Mentions row for file {key}")))?;
            Ok((
                number,
                FileFact {
                    key,
                    repository: row.text()?,
                    path: row.text()?,
                    language: row.language()?,
                    package: row.named(&package_keys, "Package")?,
                    fingerprint: row.fingerprint()?,
                    line_count: row.number()?,
                    byte_len: row.integer()? as u64,
                    parse_issues: {
                        row.integer()?;
                        row.json()?
                    },
                    mentions: said,
                },
            ))
        })? {
            page(&mut pages, number)?.files.push(file);
        }
        let mut parents: Vec<(u32, usize, i64)> = Vec::new();
        for (number, symbol, parent) in scan(&connection, &schema::SYMBOL, page_count, |row| {
            let key = row.identified()?;
            let number = row.page()?;
            let parent;
            let symbol = SymbolFact {
                key,
                repository: row.text()?,
                language: row.language()?,
                package: row.named(&package_keys, "Package")?,
                file_path: row.text()?,
                name: row.text()?,
                qualified_name: row.text()?,
                kind: SymbolKind::parse(&row.text()?).map_err(|e| row.invalid(e))?,
                signature: row.text()?,
                exported: row.boolean()?,
                span: row.span()?,
                doc: row.optional_text()?,
                // Its id, named below once every symbol is read.
                parent: {
                    parent = row.optional_integer()?;
                    None
                },
                key_module: row.text()?,
                key_discriminator: row.text()?,
            };
            Ok((number, symbol, parent))
        })? {
            let symbols = &mut page(&mut pages, number)?.symbols;
            if let Some(parent) = parent {
                parents.push((number, symbols.len(), parent));
            }
            symbols.push(symbol);
        }
        // A parent may be read after its child: named once every symbol is.
        let symbol_keys: HashMap<i64, StableKey> = pages
            .values()
            .flat_map(|facts| &facts.symbols)
            .map(|s| (schema::key_id(&s.key), s.key))
            .collect();
        for (number, index, parent) in parents {
            let key = symbol_keys.get(&parent).copied().ok_or_else(|| {
                GraphDbError::Mismatch(format!("a Symbol's parent_id {parent} names no Symbol"))
            })?;
            page(&mut pages, number)?.symbols[index].parent = Some(key);
        }
        // An evidence's key is derived from its place; relationships name it by its id.
        let mut evidence_keys: HashMap<i64, StableKey> = HashMap::new();
        for (number, evidence) in scan(&connection, &schema::EVIDENCE, page_count, |row| {
            let id = row.integer()?;
            let number = row.page()?;
            let repository = row.text()?;
            let file_path = row.text()?;
            let span = row.span()?;
            let key = evidence_key(&repository, &file_path, span);
            if schema::key_id(&key) != id {
                return Err(row.invalid(format!(
                    "Evidence {id} is not the id of its place ({repository}/{file_path})"
                )));
            }
            evidence_keys.insert(id, key);
            Ok((
                number,
                Evidence {
                    key,
                    repository,
                    file_path,
                    span,
                },
            ))
        })? {
            page(&mut pages, number)?.evidence.push(evidence);
        }
        for (number, unresolved) in scan(&connection, &schema::UNRESOLVED, page_count, |row| {
            row.integer()?;
            let number = row.page()?;
            Ok((
                number,
                UnresolvedReference {
                    repository: row.text()?,
                    language: row.language()?,
                    reason: Reason::parse(&row.text()?).map_err(|e| row.invalid(e))?,
                    file_path: row.optional_text()?,
                    span: row.optional_span()?,
                    requested_symbol: row.optional_text()?,
                    requested_package: row.optional_text()?,
                    detail: row.text()?,
                },
            ))
        })? {
            page(&mut pages, number)?.unresolved.push(unresolved);
        }
        for kind in EdgeKind::ALL {
            let properties: Vec<String> = EDGE_PROPERTIES
                .iter()
                .map(|c| format!("e.{}", c.name))
                .collect();
            // A few pages at a time, as `scan` reads the node tables.
            for first in (0..page_count).step_by(PAGES_PER_READ as usize) {
                let query = format!(
                    "MATCH (a)-[e:{}]->(b) WHERE e.page >= {first} AND e.page < {} \
                     RETURN a.key, b.key, {}",
                    kind.as_str(),
                    first + PAGES_PER_READ,
                    properties.join(", ")
                );
                for (number, edge) in rows(&connection, &query, |row| {
                    let source = row.key()?;
                    let target = row.key()?;
                    Ok((
                        row.page()?,
                        Edge {
                            kind: *kind,
                            source,
                            target,
                            confidence: Confidence::parse(&row.text()?)
                                .map_err(|e| row.invalid(e))?,
                            provenance: Provenance::parse(&row.text()?)
                                .map_err(|e| row.invalid(e))?,
                            evidence: match row.optional_integer()? {
                                Some(id) => Some(*evidence_keys.get(&id).ok_or_else(|| {
                                    row.invalid(format!("no Evidence has id {id}"))
                                })?),
                                None => None,
                            },
                        },
                    ))
                })? {
                    page(&mut pages, number)?.edges.push(edge);
                }
            }
        }
        Ok(pages
            .into_iter()
            .map(|(number, mut facts)| {
                facts.canonicalize();
                (number, facts)
            })
            .collect())
    }
}

/// The page a row names.
fn page(pages: &mut BTreeMap<u32, FactSet>, number: u32) -> Result<&mut FactSet, GraphDbError> {
    let count = pages.len();
    pages
        .get_mut(&number)
        .ok_or_else(|| GraphDbError::Mismatch(format!("a row names page {number} of {count}")))
}

/// How many pages one query reads: the engine holds a query's whole answer in the reader's
/// bounded buffer pool, which the `Symbol` table of a 4 M-line workspace overflows at once,
/// and every query scans its whole table, so one page at a time took 25 s there.
const PAGES_PER_READ: u32 = 8;

/// Every row of a node table, its columns in the schema's order; a table whose rows belong
/// to pages `PAGES_PER_READ` pages at a time.
fn scan<T>(
    connection: &Connection<'_>,
    table: &NodeTable,
    page_count: u32,
    mut decode: impl FnMut(&mut Row) -> Result<T, GraphDbError>,
) -> Result<Vec<T>, GraphDbError> {
    let columns: Vec<String> = table
        .columns
        .iter()
        .map(|c| format!("n.{}", c.name))
        .collect();
    let select = |filter: &str| {
        format!(
            "MATCH (n:{}) {filter}RETURN {}",
            table.node.name(),
            columns.join(", ")
        )
    };
    if !table.columns.iter().any(|c| c.name == "page") {
        return rows(connection, &select(""), decode);
    }
    let mut all = Vec::new();
    for first in (0..page_count).step_by(PAGES_PER_READ as usize) {
        let query = select(&format!(
            "WHERE n.page >= {first} AND n.page < {} ",
            first + PAGES_PER_READ
        ));
        all.extend(rows(connection, &query, &mut decode)?);
    }
    Ok(all)
}

fn rows<T>(
    connection: &Connection<'_>,
    query: &str,
    mut decode: impl FnMut(&mut Row) -> Result<T, GraphDbError>,
) -> Result<Vec<T>, GraphDbError> {
    let result = connection
        .query(query)
        .map_err(|e| GraphDbError::Statement {
            statement: query.to_string(),
            message: e.to_string(),
        })?;
    result
        .map(|values| {
            decode(&mut Row {
                values: values.into_iter(),
                query,
            })
        })
        .collect()
}

/// One row's values, read in order.
struct Row<'a> {
    values: std::vec::IntoIter<Value>,
    query: &'a str,
}

impl Row<'_> {
    fn invalid(&self, why: impl std::fmt::Display) -> GraphDbError {
        GraphDbError::Mismatch(format!("a row of `{}`: {why}", self.query))
    }

    fn next(&mut self) -> Result<Value, GraphDbError> {
        self.values
            .next()
            .ok_or_else(|| self.invalid("fewer columns than the schema declares"))
    }

    fn optional_text(&mut self) -> Result<Option<String>, GraphDbError> {
        match self.next()? {
            Value::String(text) => Ok(Some(text)),
            Value::Null(_) => Ok(None),
            other => Err(self.invalid(format!("{other} where a text belongs"))),
        }
    }

    fn text(&mut self) -> Result<String, GraphDbError> {
        self.optional_text()?
            .ok_or_else(|| self.invalid("null where a text belongs"))
    }

    fn optional_integer(&mut self) -> Result<Option<i64>, GraphDbError> {
        match self.next()? {
            Value::Int64(n) => Ok(Some(n)),
            Value::Null(_) => Ok(None),
            other => Err(self.invalid(format!("{other} where an integer belongs"))),
        }
    }

    fn integer(&mut self) -> Result<i64, GraphDbError> {
        self.optional_integer()?
            .ok_or_else(|| self.invalid("null where an integer belongs"))
    }

    fn number(&mut self) -> Result<u32, GraphDbError> {
        let n = self.integer()?;
        u32::try_from(n).map_err(|_| self.invalid(format!("{n} is out of range")))
    }

    fn page(&mut self) -> Result<u32, GraphDbError> {
        self.number()
    }

    fn boolean(&mut self) -> Result<bool, GraphDbError> {
        match self.next()? {
            Value::Bool(b) => Ok(b),
            other => Err(self.invalid(format!("{other} where a boolean belongs"))),
        }
    }

    fn optional_key(&mut self) -> Result<Option<StableKey>, GraphDbError> {
        match self.optional_text()? {
            Some(text) => StableKey::parse(&text)
                .map(Some)
                .map_err(|e| self.invalid(e)),
            None => Ok(None),
        }
    }

    fn key(&mut self) -> Result<StableKey, GraphDbError> {
        self.optional_key()?
            .ok_or_else(|| self.invalid("null where a key belongs"))
    }

    /// The key of the node `table` holds under the id in this column.
    fn named(
        &mut self,
        keys: &HashMap<i64, StableKey>,
        table: &str,
    ) -> Result<StableKey, GraphDbError> {
        let id = self.integer()?;
        keys.get(&id)
            .copied()
            .ok_or_else(|| self.invalid(format!("{id} is the id of no {table}")))
    }

    /// Two columns: a node's id, then its key, which the id must be of.
    fn identified(&mut self) -> Result<StableKey, GraphDbError> {
        let id = self.integer()?;
        let key = self.key()?;
        if schema::key_id(&key) != id {
            return Err(self.invalid(format!("{id} is not the id of key {key}")));
        }
        Ok(key)
    }

    fn language(&mut self) -> Result<Language, GraphDbError> {
        let text = self.text()?;
        Language::parse(&text).map_err(|e| self.invalid(e))
    }

    fn fingerprint(&mut self) -> Result<Fingerprint, GraphDbError> {
        let text = self.text()?;
        Fingerprint::from_hex(&text).ok_or_else(|| self.invalid("not a BLAKE3 digest"))
    }

    fn json<T: serde::de::DeserializeOwned>(&mut self) -> Result<T, GraphDbError> {
        let text = self.text()?;
        serde_json::from_str(&text).map_err(|e| self.invalid(e))
    }

    /// Four columns: start and end line, start and end byte.
    fn optional_span(&mut self) -> Result<Option<LineSpan>, GraphDbError> {
        let mut parts = [None; 4];
        for part in &mut parts {
            *part = self.optional_integer()?;
        }
        match parts {
            [
                Some(start_line),
                Some(end_line),
                Some(start_byte),
                Some(end_byte),
            ] => {
                let narrow =
                    |n: i64| u32::try_from(n).map_err(|_| self.invalid("span out of range"));
                Ok(Some(LineSpan {
                    start_line: narrow(start_line)?,
                    end_line: narrow(end_line)?,
                    start_byte: narrow(start_byte)?,
                    end_byte: narrow(end_byte)?,
                }))
            }
            [None, None, None, None] => Ok(None),
            _ => Err(self.invalid("a span with some of its columns null")),
        }
    }

    fn span(&mut self) -> Result<LineSpan, GraphDbError> {
        self.optional_span()?
            .ok_or_else(|| self.invalid("null where a span belongs"))
    }
}
