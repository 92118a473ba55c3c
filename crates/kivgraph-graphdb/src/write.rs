//! Writing a generation's canonical database from its facts: the schema, then every table
//! bulk-loaded by `COPY` from files staged in scratch space.

use std::path::Path;

use kivgraph_facts::GraphCounts;

use crate::error::GraphDbError;
use crate::schema;
use crate::session;
use crate::stage::{Nowhere, Pages, load, stage};

/// Writes the facts of `pages` into a new database at `database` (which must not exist),
/// staging the bulk files under `scratch`; the rows it holds, by table.
pub fn write_database(
    pages: Pages<'_>,
    database: &Path,
    scratch: &Path,
) -> Result<GraphCounts, GraphDbError> {
    if database.exists() {
        return Err(GraphDbError::Exists(database.to_path_buf()));
    }
    let mut lap = session::Lap::start("write");
    let staging = session::staging(scratch)?;
    let loads = stage(pages, staging.path(), true, &Nowhere, 0)?;
    lap.end("stage");
    let db = session::open_for_writing(database)?;
    let connection = session::connect(&db)?;
    for statement in schema::ddl() {
        session::run(&connection, &statement)?;
    }
    lap.end("schema");
    let tables = load(&connection, &loads)?;
    lap.end("load");
    // Closing checkpoints what the loads wrote into the file.
    drop(connection);
    drop(db);
    lap.end("close");
    Ok(GraphCounts {
        schema_version: schema::SCHEMA_VERSION,
        tables,
    })
}
