//! Opening databases and running statements: the settings every process uses, in one place.

use std::path::Path;

use lbug::{Connection, Database, SystemConfig};

use crate::error::GraphDbError;

/// The buffer pool a writer gets: bulk loads of large workspaces need room, and it is freed
/// when the pass's database closes.
const WRITER_BUFFER_POOL: u64 = 1 << 30;
/// The buffer pool a reader gets: a server holds it for as long as it serves, and a query
/// that needs more fails instead of growing the process.
const READER_BUFFER_POOL: u64 = 256 << 20;
/// The largest database a process may open: address space only, reserved not committed. The
/// crate's default, 4 GiB, is what a workspace of ~30 M lines would outgrow.
const MAXIMUM_DATABASE: u64 = 1 << 43;

/// Opens a database as the pass's writers do (public so that a benchmark measures what they
/// pay). A writer checkpoints once, when it closes: checkpointing after the deletes of an
/// update made its first load cost 1.9 s and every later one 0.1–0.35 s (6.1 s in all,
/// against 1.0 s without; docs/benchmarks.md).
pub fn open_for_writing(path: &Path) -> Result<Database, GraphDbError> {
    let config = SystemConfig::default()
        .buffer_pool_size(WRITER_BUFFER_POOL)
        .max_db_size(MAXIMUM_DATABASE)
        .auto_checkpoint(false);
    Database::new(path, config).map_err(|e| GraphDbError::open(path, e))
}

pub(crate) fn open_read_only(path: &Path) -> Result<Database, GraphDbError> {
    if !path.is_file() {
        return Err(GraphDbError::Missing(path.to_path_buf()));
    }
    let config = SystemConfig::default()
        .buffer_pool_size(READER_BUFFER_POOL)
        .max_db_size(MAXIMUM_DATABASE)
        .read_only(true);
    Database::new(path, config).map_err(|e| GraphDbError::open(path, e))
}

pub(crate) fn connect(db: &Database) -> Result<Connection<'_>, GraphDbError> {
    Connection::new(db).map_err(|e| GraphDbError::Engine(e.to_string()))
}

/// Removes a database file and what the engine keeps beside it.
pub(crate) fn remove(path: &Path) {
    let _ = std::fs::remove_file(path);
    let mut wal = path.as_os_str().to_owned();
    wal.push(".wal");
    let _ = std::fs::remove_file(wal);
}

/// The time each step of a write takes, logged at debug level as it ends.
pub(crate) struct Lap {
    what: &'static str,
    last: std::time::Instant,
}

impl Lap {
    pub(crate) fn start(what: &'static str) -> Self {
        Lap {
            what,
            last: std::time::Instant::now(),
        }
    }

    pub(crate) fn end(&mut self, step: &'static str) {
        let now = std::time::Instant::now();
        let ms = (now - self.last).as_millis() as u64;
        tracing::debug!(what = self.what, step, ms, "canonical database");
        self.last = now;
    }
}

/// A scratch directory for bulk files, removed when dropped.
pub(crate) fn staging(scratch: &Path) -> Result<tempfile::TempDir, GraphDbError> {
    tempfile::Builder::new()
        .prefix("graphdb-")
        .tempdir_in(scratch)
        .map_err(|e| GraphDbError::io("create", scratch, e))
}

/// Runs a statement with parameters; its rows.
pub(crate) fn rows(
    connection: &Connection<'_>,
    statement: &str,
    parameters: Vec<(&str, lbug::Value)>,
) -> Result<Vec<Vec<lbug::Value>>, GraphDbError> {
    let failed = |e| GraphDbError::statement(statement, e);
    let mut prepared = connection.prepare(statement).map_err(failed)?;
    Ok(connection
        .execute(&mut prepared, parameters)
        .map_err(failed)?
        .collect())
}

/// Runs a statement with parameters whose result is not read.
pub(crate) fn run_with(
    connection: &Connection<'_>,
    statement: &str,
    parameters: Vec<(&str, lbug::Value)>,
) -> Result<(), GraphDbError> {
    rows(connection, statement, parameters).map(|_| ())
}

/// Runs a statement whose result is not read.
pub(crate) fn run(connection: &Connection<'_>, statement: &str) -> Result<(), GraphDbError> {
    connection
        .query(statement)
        .map(|_| ())
        .map_err(|e| GraphDbError::statement(statement, e))
}
