//! What the store asks of a database engine: the contract between a generation's canonical
//! database and the engine that writes it. The store never names the engine; whoever
//! publishes plugs one in (the CLI plugs LadybugDB in).

use std::collections::BTreeSet;
use std::path::Path;

use kivgraph_facts::{FactSet, GraphCounts, GraphUpdate};

/// A database engine that turns a generation's facts into its canonical database.
pub trait CanonicalGraph: Send + Sync + std::fmt::Debug {
    /// The database's file name inside a generation.
    fn file_name(&self) -> &'static str;
    /// Writes the database of a generation's pages (each page's number and canonical facts)
    /// at `path`, bulk files staged under `scratch`: the schema version and rows by table it
    /// wrote.
    fn write(
        &self,
        pages: &[(u32, &FactSet)],
        path: &Path,
        scratch: &Path,
    ) -> Result<GraphCounts, String>;
    /// Copies the database at `previous` to `path` (which does not exist), for `update` to
    /// bring up to date. The bytes need not reach the disk: `update` makes them durable.
    fn copy(&self, previous: &Path, path: &Path) -> Result<(), String>;
    /// Brings the database at `path`, a copy of the previous generation's (at `previous`,
    /// holding `previous_counts`), up to date with the rows of the `changed` pages (`before`:
    /// the same pages' facts in the previous generation): what it then holds and which tables
    /// it changed, or `None` — and `path` removed — when only a whole write can (the
    /// repositories changed).
    fn update(
        &self,
        previous: &Path,
        previous_counts: &GraphCounts,
        before: &[(u32, &FactSet)],
        changed: &[(u32, &FactSet)],
        path: &Path,
        scratch: &Path,
    ) -> Result<Option<GraphUpdate>, String>;
    /// Proves the database at `path` holds exactly `counts`, in the tables `only` names
    /// (every table: `None`).
    fn verify(
        &self,
        path: &Path,
        counts: &GraphCounts,
        only: Option<&BTreeSet<String>>,
    ) -> Result<(), String>;
}
