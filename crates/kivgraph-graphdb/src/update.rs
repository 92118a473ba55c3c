//! A generation's database derived from the previous generation's: a copy of its file
//! (`copy_database`, which the store may start while the pass still computes) with the rows
//! of the pages a pass changed brought up to date. Where few rows changed (a save),
//! they are amended one by one in place (`amend.rs`); otherwise the pages' rows are replaced
//! by bulk load (`replace.rs`). Either way the copy ends up holding what a full write of
//! every page would.

use std::path::Path;

use kivgraph_facts::{GraphCounts, GraphUpdate, StableKey};
use lbug::Database;

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

/// Brings the database at `database`, a copy of the one at `previous` ([`copy_database`])
/// holding `previous_counts`, up to date with the rows of every page in `changed` (each
/// page's number and its whole facts; `before` holds the same pages' facts in the previous
/// generation): the rows it then holds, by table, and the tables it changed.
/// `NotIncremental` when the repositories changed, which only a full write handles; the copy
/// is then removed.
pub fn update_database(
    previous: &Path,
    previous_counts: &GraphCounts,
    before: Pages<'_>,
    changed: Pages<'_>,
    database: &Path,
    scratch: &Path,
) -> Result<GraphUpdate, GraphDbError> {
    let (update, how) = update_with(
        previous,
        previous_counts,
        [before, changed],
        database,
        scratch,
        AMEND_LIMIT,
    )?;
    tracing::debug!(?how, "canonical database: updated");
    Ok(update)
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
    pages: [Pages<'_>; 2],
    database: &Path,
    scratch: &Path,
    amend_limit: usize,
) -> Result<(GraphUpdate, Updated), GraphDbError> {
    let updated = update_copy(
        previous,
        previous_counts,
        pages,
        database,
        scratch,
        amend_limit,
    );
    if updated.is_err() {
        // Nothing half-updated is left behind: a whole write may follow.
        session::remove(database);
    }
    updated
}

fn update_copy(
    previous: &Path,
    previous_counts: &GraphCounts,
    [before, changed]: [Pages<'_>; 2],
    database: &Path,
    scratch: &Path,
    amend_limit: usize,
) -> Result<(GraphUpdate, Updated), GraphDbError> {
    if !database.is_file() {
        return Err(GraphDbError::Missing(database.to_path_buf()));
    }
    if previous_counts.schema_version != schema::SCHEMA_VERSION {
        return Err(GraphDbError::NotIncremental(format!(
            "the previous database has schema {}",
            previous_counts.schema_version
        )));
    }
    let mut lap = session::Lap::start("update");
    // The copy is opened while the rows are compared.
    let (diff, db) = std::thread::scope(|scope| {
        let diff = scope.spawn(|| RowDiff::of(before, changed));
        let db = session::open_for_writing(database);
        (diff.join().expect("comparing rows does not panic"), db)
    });
    let (diff, db) = (diff?, db?);
    lap.end("diff_and_open");
    tracing::debug!(rows = diff.len(), "canonical database: rows changed");
    if diff.len() <= amend_limit {
        match amend_rows(previous_counts, before, changed, &diff, db) {
            Ok(update) => return Ok((update, Updated::Amended)),
            Err(err @ GraphDbError::NotIncremental(_)) => return Err(err),
            Err(err) => {
                // A row the facts say is there and the database does not hold: the bulk
                // replacement below needs no such agreement, and starts from a fresh copy.
                tracing::info!(%err, "canonical database: rows not amended, pages replaced");
                session::remove(database);
                copy_database(previous, database)?;
                lap.end("copy");
            }
        }
    } else {
        // The replacement opens the copy itself.
        drop(db);
    }
    let counts = replace_pages(previous_counts, changed, database, scratch)?;
    let update = GraphUpdate {
        counts,
        changed_tables: None,
    };
    Ok((update, Updated::Replaced))
}

/// Copies a database file, which an update then brings up to date: cloned where the file
/// system shares extents (Btrfs, XFS, APFS), so that only the pages the update writes are
/// new; copied byte by byte elsewhere (ext4: ~90 ms for 300 MB). Its bytes are not synced
/// here: the update's checkpoint syncs them, and a caller may write them back ahead of it.
pub fn copy_database(previous: &Path, database: &Path) -> Result<(), GraphDbError> {
    if database.exists() {
        return Err(GraphDbError::Exists(database.to_path_buf()));
    }
    let copied = reflink_copy::reflink_or_copy(previous, database)
        .map_err(|e| GraphDbError::io("copy", previous, e))?;
    tracing::debug!(
        cloned = copied.is_none(),
        "canonical database: previous file copied"
    );
    Ok(())
}

/// Applies `diff` to the database `db`, in place.
fn amend_rows(
    previous_counts: &GraphCounts,
    before: Pages<'_>,
    changed: Pages<'_>,
    diff: &RowDiff<'_>,
    db: Database,
) -> Result<GraphUpdate, GraphDbError> {
    let mut lap = session::Lap::start("amend");
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
    let changed_tables = gained.keys().cloned().collect();
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
    Ok(GraphUpdate {
        counts,
        changed_tables: Some(changed_tables),
    })
}
