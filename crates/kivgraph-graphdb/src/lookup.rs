//! What both ways of updating a database look up in it before they change it: that it holds
//! the registered repositories, the tables of the nodes changed edges reach outside the
//! changed pages, the numbers its unresolved references hold.

use std::collections::{BTreeMap, HashMap};

use kivgraph_facts::{KeyMap, StableKey};
use lbug::{Connection, LogicalType, Value};

use crate::bulk::Field;
use crate::error::GraphDbError;
use crate::rows::{field_of, value};
use crate::schema::{self, Node};
use crate::session;
use crate::stage::{Elsewhere, Pages};

/// The repositories every page lists must be the ones the database holds.
pub(crate) fn check_repositories(
    connection: &Connection<'_>,
    changed: Pages<'_>,
) -> Result<(), GraphDbError> {
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

/// Where the replaced pages' edges reach outside them, looked up once.
pub(crate) struct Found {
    tables: KeyMap<Node>,
}

impl Found {
    /// The tables of the keys `ends` names that `local` does not hold.
    pub(crate) fn look_up<'k>(
        connection: &Connection<'_>,
        local: &KeyMap<Node>,
        ends: impl Iterator<Item = &'k StableKey>,
    ) -> Result<Self, GraphDbError> {
        // By id, in order: the list the queries are given is the same every time.
        let by_id: BTreeMap<i64, &StableKey> = ends
            .filter(|k| !local.contains_key(k))
            .map(|k| (schema::key_id(k), k))
            .collect();
        let mut tables: KeyMap<Node> = KeyMap::default();
        if !by_id.is_empty() {
            let ids = Value::List(
                LogicalType::Int64,
                by_id.keys().map(|id| Value::Int64(*id)).collect(),
            );
            for node in [Node::Repository, Node::Package, Node::File, Node::Symbol] {
                let query = format!("MATCH (n:{}) WHERE n.id IN $ids RETURN n.id", node.name());
                for row in session::rows(connection, &query, vec![("ids", ids.clone())])? {
                    let key = match row.as_slice() {
                        [Value::Int64(id)] => by_id.get(id),
                        _ => None,
                    };
                    let key = key.ok_or_else(|| unexpected(&query, &row))?;
                    tables.insert(**key, node);
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
pub(crate) fn next_ordinal(connection: &Connection<'_>) -> Result<i64, GraphDbError> {
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

/// The ordinals of the unresolved references `removed` names (rows without their ordinal,
/// as `rows::unresolved` lists the other columns), read from the pages that hold them.
pub(crate) fn unresolved_ordinals(
    connection: &Connection<'_>,
    changed: Pages<'_>,
    removed: &[Vec<Field<'_>>],
) -> Result<Vec<i64>, GraphDbError> {
    if removed.is_empty() {
        return Ok(Vec::new());
    }
    let columns = &schema::UNRESOLVED.columns;
    let names: Vec<String> = columns.iter().map(|c| format!("n.{}", c.name)).collect();
    let query = format!(
        "MATCH (n:Unresolved) WHERE n.page IN $pages RETURN {}",
        names.join(", ")
    );
    let mut held: HashMap<Vec<Field<'static>>, Vec<i64>> = HashMap::new();
    for row in session::rows(connection, &query, vec![("pages", page_list(changed))])? {
        let [Value::Int64(ordinal), rest @ ..] = row.as_slice() else {
            return Err(unexpected(&query, row));
        };
        let fields = rest.iter().map(field_of).collect::<Option<Vec<_>>>();
        let fields = fields.ok_or_else(|| unexpected(&query, &row))?;
        held.entry(fields).or_default().push(*ordinal);
    }
    removed
        .iter()
        .map(|row| {
            // As the engine gives it back: through the value it was given.
            let fields: Option<Vec<Field<'static>>> = columns[1..]
                .iter()
                .zip(row)
                .map(|(column, field)| field_of(&value(field, column.kind)))
                .collect();
            let fields = fields.ok_or_else(|| unexpected("an unresolved reference", row))?;
            held.get_mut(&fields)
                .and_then(Vec::pop)
                .ok_or_else(|| unexpected("an unresolved reference to remove", fields))
        })
        .collect()
}

pub(crate) fn page_list(pages: Pages<'_>) -> Value {
    Value::List(
        LogicalType::Int64,
        pages
            .iter()
            .map(|(n, _)| Value::Int64(i64::from(*n)))
            .collect(),
    )
}

pub(crate) fn unexpected(what: &str, found: impl std::fmt::Debug) -> GraphDbError {
    GraphDbError::Mismatch(format!("{what}: unexpected {found:?}"))
}
