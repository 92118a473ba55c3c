//! Reading a published database: Cypher for agents, read-only and bounded, and the counts a
//! publication or `doctor` compares with what was written.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use kivgraph_facts::{GraphCounts, StableKey};
use lbug::{Database, Value};

use crate::error::GraphDbError;
use crate::schema::{self, NODE_TABLES};
use crate::session;

/// What bounds one query.
#[derive(Debug, Clone, Copy)]
pub struct QueryLimits {
    /// Rows returned; one more is read to tell whether there were more.
    pub rows: usize,
    /// Wall time, after which the engine interrupts the query.
    pub time: Duration,
}

/// A query's answer: its columns and rows, in the order the query returned them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct QueryAnswer {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<serde_json::Value>>,
    /// More rows than `QueryLimits::rows` matched.
    pub truncated: bool,
}

/// Why a query got no answer.
#[derive(Debug, thiserror::Error)]
pub enum QueryRefusal {
    #[error(
        "only reading queries are answered (MATCH, OPTIONAL MATCH, WITH, UNWIND, RETURN, CALL): {0}"
    )]
    Writes(String),
    #[error("the query ran past its time limit of {0} ms and was stopped")]
    TimedOut(u128),
    #[error("the query is not valid Cypher for this schema: {0}")]
    Invalid(String),
    #[error("parameter {name:?}: {why}")]
    Parameter { name: String, why: String },
    #[error(transparent)]
    Unavailable(#[from] GraphDbError),
}

/// The first keywords of a reading statement. Anything else — `CREATE`, `COPY … TO` (which
/// writes a file), `LOAD FROM` (which reads one), `ATTACH`, `INSTALL`, `EXPORT` — is refused
/// before the engine sees it; what passes is still prepared and refused unless the engine
/// itself calls it read-only, on a database opened read-only.
const READING: &[&str] = &["MATCH", "OPTIONAL", "WITH", "UNWIND", "RETURN", "CALL"];

/// A published database, opened read-only.
pub struct GraphReader {
    db: Database,
    path: PathBuf,
}

impl GraphReader {
    pub fn open(path: &Path) -> Result<Self, GraphDbError> {
        Ok(GraphReader {
            db: session::open_read_only(path)?,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn database(&self) -> &Database {
        &self.db
    }

    /// Runs one reading query with `parameters` (JSON scalars and lists), bounded by `limits`.
    pub fn query(
        &self,
        cypher: &str,
        parameters: &serde_json::Map<String, serde_json::Value>,
        limits: QueryLimits,
    ) -> Result<QueryAnswer, QueryRefusal> {
        let first = cypher
            .trim_start()
            .split(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        if !READING.contains(&first.as_str()) {
            return Err(QueryRefusal::Writes(format!(
                "a statement starting with {first:?} is not answered"
            )));
        }
        let connection = session::connect(&self.db)?;
        connection.set_query_timeout(limits.time.as_millis().max(1) as u64);
        let mut statement = connection.prepare(cypher).map_err(|e| {
            let message = e.to_string();
            // The engine refuses a write at preparation on a read-only database.
            if message.contains("read-only database") {
                QueryRefusal::Writes("the engine says this statement writes".to_string())
            } else {
                QueryRefusal::Invalid(message)
            }
        })?;
        if !statement.is_read_only() {
            return Err(QueryRefusal::Writes(
                "the engine says this statement writes".to_string(),
            ));
        }
        let mut values = Vec::with_capacity(parameters.len());
        let mut ids = Vec::new();
        for (name, value) in parameters {
            let value = parameter(value).map_err(|why| QueryRefusal::Parameter {
                name: name.clone(),
                why,
            })?;
            // A key's node is found by its id, which the agent cannot compute: bound beside
            // it, where the query asks for it and does not bind it itself.
            let id_name = format!("{name}_id");
            let wanted =
                cypher.contains(&format!("${id_name}")) && !parameters.contains_key(&id_name);
            if let Some(id) = wanted.then(|| key_ids(&value)).flatten() {
                ids.push((id_name, id));
            }
            values.push((name.as_str(), value));
        }
        values.extend(ids.iter().map(|(name, id)| (name.as_str(), id.clone())));
        let result = connection
            .execute(&mut statement, values)
            .map_err(|e| refusal(e, limits))?;
        let columns = result.get_column_names();
        let mut rows: Vec<Vec<serde_json::Value>> = result
            .take(limits.rows + 1)
            .map(|row| row.iter().map(json).collect())
            .collect();
        let truncated = rows.len() > limits.rows;
        rows.truncate(limits.rows);
        Ok(QueryAnswer {
            columns,
            rows,
            truncated,
        })
    }

    /// The schema version and the rows of every table, read from the database.
    pub fn counts(&self) -> Result<GraphCounts, GraphDbError> {
        self.counts_of(None)
    }

    /// The schema version and the rows of the tables `only` names (of every table: `None`).
    fn counts_of(&self, only: Option<&BTreeSet<String>>) -> Result<GraphCounts, GraphDbError> {
        let wanted = |table: &str| only.is_none_or(|only| only.contains(table));
        let connection = session::connect(&self.db)?;
        let count = |statement: String| -> Result<u64, GraphDbError> {
            let mut result = connection
                .query(&statement)
                .map_err(|e| GraphDbError::Statement {
                    statement: statement.clone(),
                    message: e.to_string(),
                })?;
            match result.next().as_deref() {
                Some([Value::Int64(n)]) => Ok(*n as u64),
                other => Err(GraphDbError::Mismatch(format!(
                    "`{statement}` returned {other:?}"
                ))),
            }
        };
        let mut counts = GraphCounts::default();
        for table in NODE_TABLES.iter().filter(|t| wanted(t.node.name())) {
            let name = table.node.name();
            let rows = count(format!("MATCH (n:{name}) RETURN count(n)"))?;
            counts.tables.insert(name.to_string(), rows);
        }
        for kind in kivgraph_facts::EdgeKind::ALL
            .iter()
            .filter(|kind| wanted(kind.as_str()))
        {
            let name = kind.as_str();
            let rows = count(format!("MATCH ()-[r:{name}]->() RETURN count(r)"))?;
            counts.tables.insert(name.to_string(), rows);
        }
        let mut result = connection
            .query("MATCH (m:Meta {name: 'schema_version'}) RETURN m.value")
            .map_err(|e| GraphDbError::Engine(e.to_string()))?;
        counts.schema_version = match result.next().as_deref() {
            Some([Value::String(version)]) => version.parse().unwrap_or(0),
            _ => 0,
        };
        Ok(counts)
    }
}

/// Checks that the database at `path` holds exactly `written`: the schema this build writes
/// and the same rows in every table.
pub fn verify_database(path: &Path, written: &GraphCounts) -> Result<(), GraphDbError> {
    verify_tables(path, written, None)
}

/// `verify_database` for the tables `only` names (every table: `None`), such as those an
/// update changed: counting a large relationship table takes a scan of it.
pub fn verify_tables(
    path: &Path,
    written: &GraphCounts,
    only: Option<&BTreeSet<String>>,
) -> Result<(), GraphDbError> {
    let found = GraphReader::open(path)?.counts_of(only)?;
    if found.schema_version != schema::SCHEMA_VERSION {
        return Err(GraphDbError::Mismatch(format!(
            "schema version {} where this build writes {}",
            found.schema_version,
            schema::SCHEMA_VERSION
        )));
    }
    let differing: Vec<String> = found
        .tables
        .iter()
        .filter(|(table, rows)| written.of(table) != **rows)
        .map(|(table, rows)| format!("{table}: {rows} rows, {} written", written.of(table)))
        .collect();
    if differing.is_empty() {
        Ok(())
    } else {
        Err(GraphDbError::Mismatch(differing.join("; ")))
    }
}

fn refusal(error: lbug::Error, limits: QueryLimits) -> QueryRefusal {
    let message = error.to_string();
    if message.contains("Interrupted") {
        QueryRefusal::TimedOut(limits.time.as_millis())
    } else {
        QueryRefusal::Invalid(message)
    }
}

/// A parameter from JSON: text, integer, float, boolean, or a list of one of them.
fn parameter(value: &serde_json::Value) -> Result<Value, String> {
    use serde_json::Value as Json;
    Ok(match value {
        Json::String(text) => Value::String(text.clone()),
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int64(i),
            None => Value::Double(n.as_f64().ok_or("not a finite number")?),
        },
        Json::Array(items) => {
            let items: Vec<Value> = items.iter().map(parameter).collect::<Result<_, _>>()?;
            let Some(first) = items.first() else {
                return Err("an empty list has no element type".to_string());
            };
            let kind = lbug::LogicalType::from(first);
            Value::List(kind, items)
        }
        Json::Null | Json::Object(_) => {
            return Err("only text, numbers, booleans and lists of them are accepted".into());
        }
    })
}

/// The ids of the nodes a stable key, or a list of them, names (`schema::key_id`); `None`
/// for anything else.
fn key_ids(value: &Value) -> Option<Value> {
    match value {
        Value::String(text) => StableKey::parse(text)
            .ok()
            .map(|key| Value::Int64(schema::key_id(&key))),
        Value::List(_, items) => {
            let ids = items.iter().map(key_ids).collect::<Option<Vec<_>>>()?;
            Some(Value::List(lbug::LogicalType::Int64, ids))
        }
        _ => None,
    }
}

/// A value as JSON: scalars as themselves, nodes and relationships as their properties with
/// `_label`, lists and structs element by element, anything else as its text.
fn json(value: &Value) -> serde_json::Value {
    use serde_json::{Map, Value as Json};
    let properties = |label: &str, properties: &[(String, Value)]| {
        let mut object = Map::new();
        object.insert("_label".into(), Json::String(label.to_string()));
        for (name, value) in properties {
            object.insert(name.clone(), json(value));
        }
        Json::Object(object)
    };
    match value {
        Value::Null(_) => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int64(n) => (*n).into(),
        Value::Int32(n) => (*n).into(),
        Value::Int16(n) => (*n).into(),
        Value::Int8(n) => (*n).into(),
        Value::UInt64(n) => (*n).into(),
        Value::UInt32(n) => (*n).into(),
        Value::UInt16(n) => (*n).into(),
        Value::UInt8(n) => (*n).into(),
        Value::Double(x) => serde_json::Number::from_f64(*x).map_or(Json::Null, Json::Number),
        Value::Float(x) => {
            serde_json::Number::from_f64(f64::from(*x)).map_or(Json::Null, Json::Number)
        }
        Value::String(text) => Json::String(text.clone()),
        Value::List(_, items) | Value::Array(_, items) => {
            Json::Array(items.iter().map(json).collect())
        }
        Value::Struct(fields) => Json::Object(
            fields
                .iter()
                .map(|(name, value)| (name.clone(), json(value)))
                .collect(),
        ),
        Value::Node(node) => properties(node.get_label_name(), node.get_properties()),
        Value::Rel(rel) => properties(rel.get_label_name(), rel.get_properties()),
        other => Json::String(other.to_string()),
    }
}
