//! `doctor storage [--database PATH]`: one canonical database inspected read-only — where it
//! is, its size and permissions, the engine, its schema, what it holds, and whether that is
//! what its generation's manifest recorded. The database is never modified.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::anyhow;
use kivgraph_graphdb::{GraphReader, SCHEMA_VERSION};
use kivgraph_store::{GenerationId, GenerationStore, file_digest};

use super::Report;
use crate::context::ConfigArg;

pub fn run(config: ConfigArg, database: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let (path, recorded) = match database {
        Some(path) => {
            let recorded =
                generation_of(&path).and_then(|(store, id)| store.manifest(id).ok()?.graph);
            (path, recorded)
        }
        None => {
            let store = config.load()?.store(None);
            let id = store
                .current()?
                .ok_or_else(|| anyhow!("no published generation: pass --database PATH"))?;
            let entry = store.manifest(id)?.graph.ok_or_else(|| {
                anyhow!("generation {id} carries no canonical database: run kivgraph index --full")
            })?;
            (store.generation_dir(id).join(&entry.file), Some(entry))
        }
    };
    let mut report = Report::default();
    let metadata = match std::fs::metadata(&path) {
        Ok(metadata) if metadata.is_file() => metadata,
        Ok(_) => {
            report.fail("location", format!("{} is not a file", path.display()));
            return Ok(report.finish());
        }
        Err(err) => {
            report.fail("location", format!("{}: {err}", path.display()));
            return Ok(report.finish());
        }
    };
    report.pass("location", path.display());
    report.pass("size", format!("{} bytes", metadata.len()));
    let mode = metadata.permissions().mode() & 0o777;
    if std::fs::File::open(&path).is_ok() {
        report.pass("permissions", format!("mode {mode:04o}, readable"));
    } else {
        report.fail(
            "permissions",
            format!("mode {mode:04o}, not readable by this user"),
        );
    }
    match &recorded {
        Some(entry) => match file_digest(&path) {
            Ok((digest, _)) if digest == entry.digest => {
                report.pass("digest", "the BLAKE3 its manifest records")
            }
            Ok(_) => report.fail(
                "digest",
                "differs from its manifest's: the file changed after publication; \
                 run kivgraph rollback, or kivgraph index --full",
            ),
            Err(err) => report.fail("digest", err),
        },
        None => report.warn("digest", "no generation's manifest names this file"),
    }
    let reader = match GraphReader::open(&path) {
        Ok(reader) => reader,
        Err(err) => {
            report.fail("engine", err);
            return Ok(report.finish());
        }
    };
    report.pass(
        "engine",
        format!(
            "LadybugDB {}, opened read-only",
            kivgraph_graphdb::ENGINE_VERSION
        ),
    );
    let counts = match reader.counts() {
        Ok(counts) => counts,
        Err(err) => {
            report.fail("schema", err);
            return Ok(report.finish());
        }
    };
    if counts.schema_version == SCHEMA_VERSION {
        report.pass("schema", format!("version {SCHEMA_VERSION}"));
    } else {
        report.fail(
            "schema",
            format!(
                "version {} where this build reads {SCHEMA_VERSION}: run kivgraph upgrade",
                counts.schema_version
            ),
        );
    }
    let rows: u64 = counts.tables.values().sum();
    let detail: Vec<String> = counts
        .tables
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(table, n)| format!("{table} {n}"))
        .collect();
    match &recorded {
        Some(entry) if entry.counts != counts => report.fail(
            "counts",
            format!(
                "{rows} rows, not what its manifest records: {}",
                detail.join(", ")
            ),
        ),
        _ => report.pass("counts", format!("{rows} rows: {}", detail.join(", "))),
    }
    Ok(report.finish())
}

/// The store and generation a database file belongs to, when it sits in one
/// (`…/generations/NNNNNN/graph.lbdb`).
fn generation_of(path: &Path) -> Option<(GenerationStore, GenerationId)> {
    let directory = path.parent()?;
    let id = GenerationId::parse(directory.file_name()?.to_str()?)?;
    let root = directory.parent()?.parent()?;
    Some((GenerationStore::new(root), id))
}
