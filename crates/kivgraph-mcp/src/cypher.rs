//! `query_graph`: read-only Cypher over the served generation's canonical database, opened
//! once per generation and shared by every call. The other tools answer from the snapshot.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kivgraph_graphdb::{GraphReader, QueryLimits, QueryRefusal};
use kivgraph_query::{Coverage, ErrorCode, Page, Published, QueryError, View};
use kivgraph_store::{GenerationId, GenerationStore};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

const DEFAULT_ROWS: usize = 100;
const MAXIMUM_ROWS: usize = 1000;
const DEFAULT_TIME_MS: u64 = 5_000;
const MAXIMUM_TIME_MS: u64 = 30_000;

pub const DESCRIPTION: &str = "Read-only Cypher (MATCH … RETURN) over the canonical graph of the generation the other tools answer from, for questions no fixed tool asks: fan-in rankings, packages depending on a package, unresolved references by reason, paths across repositories. Bind values with $parameters. Writes, COPY, LOAD and ATTACH are refused; limit bounds the rows (default 100, at most 1000), timeout_ms the time (default 5000, at most 30000). Prefer the fixed tools where one fits: their answers carry completeness.";

/// The schema, appended to the description so a query can be written without guessing.
pub fn schema_description() -> String {
    format!(
        "Schema (version {}):\n{}",
        kivgraph_graphdb::SCHEMA_VERSION,
        kivgraph_graphdb::describe()
    )
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryGraphArgs {
    /// One reading Cypher statement, e.g. MATCH (c:Symbol)-[:CALLS_DIRECT]->(s:Symbol {name: $name}) RETURN c.repository, c.name.
    pub query: String,
    /// Values of the query's $parameters: text, numbers, booleans, or lists of one of them.
    #[serde(default)]
    pub parameters: Map<String, Value>,
    /// Rows returned (default 100, at most 1000).
    pub limit: Option<usize>,
    /// Milliseconds before the query is stopped (default 5000, at most 30000).
    pub timeout_ms: Option<u64>,
}

/// The database of the generation last asked about, open.
#[derive(Default)]
pub struct OpenDatabase {
    held: Mutex<Option<(GenerationId, Arc<GraphReader>)>>,
}

impl OpenDatabase {
    fn reader(
        &self,
        store_root: &Path,
        published: &Published,
    ) -> Result<Arc<GraphReader>, QueryError> {
        let mut held = self.held.lock().expect("database lock");
        if let Some((id, reader)) = held.as_ref()
            && *id == published.id
        {
            return Ok(reader.clone());
        }
        let Some(entry) = &published.manifest.graph else {
            return Err(QueryError::new(
                ErrorCode::IndexNotReady,
                format!(
                    "generation {} carries no canonical database yet: a live watcher publishes \
                     each save without it and writes it once saves pause (ask again in a few \
                     seconds); \"kivgraph index --full\" writes one at once",
                    published.id
                ),
            ));
        };
        let path = GenerationStore::new(store_root)
            .generation_dir(published.id)
            .join(&entry.file);
        let reader = Arc::new(
            GraphReader::open(&path)
                .map_err(|e| QueryError::new(ErrorCode::SnapshotUnavailable, e.to_string()))?,
        );
        *held = Some((published.id, reader.clone()));
        Ok(reader)
    }
}

/// Runs one query for `query_graph`.
pub fn query_graph(
    published: &Published,
    database: &OpenDatabase,
    store_root: &Path,
    args: &QueryGraphArgs,
) -> Result<Page, QueryError> {
    let rows = args.limit.unwrap_or(DEFAULT_ROWS);
    let time = args.timeout_ms.unwrap_or(DEFAULT_TIME_MS);
    if rows == 0 || rows > MAXIMUM_ROWS {
        return Err(QueryError::invalid(format!(
            "limit {rows} is outside 1..={MAXIMUM_ROWS}"
        )));
    }
    if time == 0 || time > MAXIMUM_TIME_MS {
        return Err(QueryError::invalid(format!(
            "timeout_ms {time} is outside 1..={MAXIMUM_TIME_MS}"
        )));
    }
    let limits = QueryLimits {
        rows,
        time: Duration::from_millis(time),
    };
    let answer = database
        .reader(store_root, published)?
        .query(&args.query, &args.parameters, limits)
        .map_err(refused)?;
    let returned = answer.rows.len();
    Ok(Page {
        total: returned,
        returned,
        next_cursor: None,
        coverage: Coverage::default(),
        guidance: answer.truncated.then(|| {
            format!(
                "more than {rows} rows matched: this page is a floor; aggregate, ORDER BY with \
                 LIMIT, or raise limit (at most {MAXIMUM_ROWS})"
            )
        }),
        completeness: None,
        results: json!({
            "columns": answer.columns,
            "rows": answer.rows,
            "truncated": answer.truncated,
        }),
        files: Vec::new(),
    })
}

/// The view `query_graph` answers in: its rows are the query's own.
pub const VIEW: View = View::Compact;

fn refused(refusal: QueryRefusal) -> QueryError {
    let code = match &refusal {
        QueryRefusal::Writes(_) => ErrorCode::PermissionDenied,
        QueryRefusal::TimedOut(_) => ErrorCode::TraversalLimitReached,
        QueryRefusal::Invalid(_) | QueryRefusal::Parameter { .. } => ErrorCode::InvalidArgument,
        QueryRefusal::Unavailable(_) => ErrorCode::SnapshotUnavailable,
    };
    QueryError::new(code, refusal.to_string())
}
