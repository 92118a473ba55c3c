//! A generation's database derived from the previous generation's: a copy of its file with
//! the rows of the pages a pass changed brought up to date. Where few rows changed (a save),
//! they are amended one by one in place (`amend.rs`); otherwise the pages' rows are replaced
//! by bulk load (`replace.rs`). Either way the copy ends up holding what a full write of
//! every page would.

use std::path::Path;

use kivgraph_facts::{GraphCounts, StableKey};

use crate::amend::amend;
use crate::diff::RowDiff;
use crate::error::GraphDbError;
use crate::lookup::{Found, check_repositories, next_ordinal, unresolved_ordinals};
use crate::replace::replace_pages;
use crate::schema;
use crate::session;
use crate::stage::{Elsewhere, Pages, check_named, named_nodes, node_tables};

/// Up to this many changed rows are amended one by one (~0.05 ms each in a transaction);
/// beyond it, replacing the pages' rows by bulk load (seconds, whatever their size) costs
/// less.
const AMEND_LIMIT: usize = 20_000;

/// Copies the database at `previous` (holding `previous_counts`) to `database` and brings
/// the rows of every page in `changed` (each page's number and its whole facts; `before`
/// holds the same pages' facts in the previous generation) up to date; the rows the result
/// holds, by table. `NotIncremental` when the repositories changed, which only a full
/// write handles.
pub fn update_database(
    previous: &Path,
    previous_counts: &GraphCounts,
    before: Pages<'_>,
    changed: Pages<'_>,
    database: &Path,
    scratch: &Path,
) -> Result<GraphCounts, GraphDbError> {
    let (counts, how) = update_with(
        previous,
        previous_counts,
        [before, changed],
        database,
        scratch,
        AMEND_LIMIT,
    )?;
    tracing::debug!(?how, "canonical database: updated");
    Ok(counts)
}

/// How an update brought the pages' rows up to date.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Updated {
    Amended,
    Replaced,
}

/// `update_database`, amending up to `amend_limit` changed rows.
pub(crate) fn update_with(
    previous: &Path,
    previous_counts: &GraphCounts,
    [before, changed]: [Pages<'_>; 2],
    database: &Path,
    scratch: &Path,
    amend_limit: usize,
) -> Result<(GraphCounts, Updated), GraphDbError> {
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
    let diff = RowDiff::of(before, changed)?;
    lap.end("diff");
    tracing::debug!(rows = diff.len(), "canonical database: rows changed");
    if diff.len() <= amend_limit {
        copy(previous, database)?;
        lap.end("copy");
        // The copy's bytes go to the disk while its rows are looked up and amended, so the
        // checkpoint's sync finds little left to write.
        let amended = std::thread::scope(|scope| {
            scope.spawn(|| write_back(database));
            amend_rows(previous_counts, before, changed, &diff, database)
        });
        match amended {
            Ok(counts) => return Ok((counts, Updated::Amended)),
            Err(err @ GraphDbError::NotIncremental(_)) => {
                session::remove(database);
                return Err(err);
            }
            Err(err) => {
                // A row the facts say is there and the database does not hold: the bulk
                // replacement below needs no such agreement.
                tracing::info!(%err, "canonical database: rows not amended, pages replaced");
                session::remove(database);
            }
        }
    }
    copy(previous, database)?;
    lap.end("copy");
    let updated = replace_pages(previous_counts, changed, database, scratch);
    if updated.is_err() {
        // Nothing half-updated is left behind: a whole write may follow.
        session::remove(database);
    }
    Ok((updated?, Updated::Replaced))
}

/// The previous file copied: cloned where the file system shares extents (Btrfs, XFS, APFS),
/// so that only the pages the update writes are new, and what a checkpoint syncs is those;
/// copied byte by byte elsewhere (ext4: ~90 ms and an fsync of ~230 ms for 300 MB).
fn copy(previous: &Path, database: &Path) -> Result<(), GraphDbError> {
    let copied = reflink_copy::reflink_or_copy(previous, database)
        .map_err(|e| GraphDbError::io("copy", previous, e))?;
    tracing::debug!(
        cloned = copied.is_none(),
        "canonical database: previous file copied"
    );
    Ok(())
}

/// Writes a file's bytes to the disk ahead of the engine's own sync; a failure is the
/// engine's to report when it syncs.
fn write_back(path: &Path) {
    let _ = std::fs::File::open(path).and_then(|file| file.sync_data());
}

/// Applies `diff` to the database at `database`, in place.
fn amend_rows(
    previous_counts: &GraphCounts,
    before: Pages<'_>,
    changed: Pages<'_>,
    diff: &RowDiff<'_>,
    database: &Path,
) -> Result<GraphCounts, GraphDbError> {
    let mut lap = session::Lap::start("amend");
    let db = session::open_for_writing(database)?;
    let connection = session::connect(&db)?;
    check_repositories(&connection, changed)?;
    let now = node_tables(changed);
    let mut local = node_tables(before);
    local.extend(now.iter().map(|(key, node)| (*key, *node)));
    let named = named_nodes(changed).map(|(key, _)| key);
    let found = Found::look_up(&connection, &local, diff.edge_ends().chain(named))?;
    // A node only the previous version of the pages held is gone once they are amended.
    check_named(changed, &|key| {
        now.get(key).copied().or_else(|| found.table_of(key))
    })?;
    let ordinals = unresolved_ordinals(&connection, changed, &diff.unresolved_removed)?;
    let first_unresolved = next_ordinal(&connection)?;
    lap.end("look_up");
    let table_of = |key: &StableKey| local.get(key).copied().or_else(|| found.table_of(key));
    let gained = amend(&connection, diff, &table_of, &ordinals, first_unresolved)?;
    lap.end("amend");
    let mut counts = previous_counts.clone();
    for (table, by) in gained {
        let rows = counts.tables.entry(table).or_default();
        *rows = rows.checked_add_signed(by).ok_or_else(|| {
            GraphDbError::Mismatch("an update removed more rows than a table held".into())
        })?;
    }
    session::run(&connection, "CHECKPOINT")?;
    lap.end("checkpoint");
    drop(connection);
    drop(db);
    lap.end("close");
    Ok(counts)
}
