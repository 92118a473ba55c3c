//! The canonical database a generation carries beside its snapshot. The store does not know
//! the database engine: whoever publishes plugs one in ([`CanonicalGraph`]; the CLI plugs
//! LadybugDB in), and the store writes it into the candidate, proves it, records its digest
//! and rows in the manifest, and links it unchanged into a republished generation.

use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use kivgraph_facts::{FactPage, FactSet, GRAPH_SCHEMA_VERSION, GraphUpdate};

use crate::canonical_graph::CanonicalGraph;
use crate::decoded::Decoded;
use crate::error::{StoreError, io};
use crate::manifest::{GraphEntry, PageEntry};
use crate::pages::{FactsFileError, hex, read_page_facts};
use crate::prepared::PreparedDatabase;
use crate::{GenerationId, Manifest};

/// How much larger than its whole write a database may grow by updates before the next
/// change writes it whole again, in halves: LadybugDB writes a changed column chunk anew
/// rather than in place, so every update leaves the file larger (by the chunk of the largest
/// text column a save touches, ~20 MB on the benchmark corpus), and nothing gives it back.
const GROWTH_LIMIT_HALVES: u64 = 3;

/// The served generation's database, which a publication derives its own from.
pub(crate) struct PreviousGraph<'a> {
    pub directory: &'a Path,
    pub entry: &'a GraphEntry,
    pub pages: &'a [PageEntry],
}

/// Whether updates grew a database so far past its whole write that the next change writes it
/// whole again.
pub(crate) fn grown(entry: &GraphEntry) -> bool {
    entry.bytes * 2 > entry.whole_bytes * GROWTH_LIMIT_HALVES
}

/// Where a candidate's database is written, and what it may start from.
pub(crate) struct GraphTarget<'a> {
    /// The candidate generation's directory.
    pub directory: &'a Path,
    /// The directory holding every generation, where a copy is made.
    pub generations: &'a Path,
    pub id: GenerationId,
    /// A copy of the previous database already under way.
    pub prepared: Option<PreparedDatabase>,
}

/// Writes the database of a generation's pages into the candidate directory — from the
/// previous generation's, replacing the pages that changed, where there is one — proves it
/// from disk and records it.
pub(crate) fn write_graph<P: FactPage>(
    graph: &Arc<dyn CanonicalGraph>,
    decoded: &Decoded<'_, P>,
    previous: Option<PreviousGraph<'_>>,
    target: GraphTarget<'_>,
) -> Result<GraphEntry, StoreError> {
    let GraphTarget {
        directory,
        generations,
        id,
        prepared,
    } = target;
    let refused = |reason: String| StoreError::Invalid {
        id,
        reason: format!("its canonical database: {reason}"),
    };
    let path = directory.join(graph.file_name());
    let mut updated = None;
    let mut whole_bytes = None;
    // A database of another schema is never carried over: it is written whole.
    let previous = previous.filter(|p| p.entry.counts.schema_version == GRAPH_SCHEMA_VERSION);
    if let Some(previous) = previous {
        let unchanged = |page: &P| {
            let identity = page.identity().map(|i| hex(&i));
            identity.is_some()
                && previous
                    .pages
                    .iter()
                    .any(|entry| entry.number == page.number() && entry.identity == identity)
        };
        let changed: Vec<usize> = (0..decoded.pages().len())
            .filter(|&index| !unchanged(&decoded.pages()[index]))
            .collect();
        let source = previous.directory.join(&previous.entry.file);
        if changed.is_empty() {
            // The same facts: the same database, linked.
            link_graph(previous.directory, directory, previous.entry)?;
            return Ok(previous.entry.clone());
        }
        if grown(previous.entry) {
            tracing::info!(
                bytes = previous.entry.bytes,
                whole_bytes = previous.entry.whole_bytes,
                "the canonical database has grown by its updates; it is written whole"
            );
        } else if changed.len() < decoded.pages().len() {
            let copy = match prepared.filter(|p| p.source() == source) {
                Some(copy) => copy,
                None => PreparedDatabase::start(graph.clone(), source.clone(), generations)?,
            };
            let started = std::time::Instant::now();
            // The pages' previous facts are read while the layout decodes the pages.
            let (before, changed) = rayon::join(
                || previous_facts(&previous, decoded, &changed),
                || -> Vec<(u32, &FactSet)> {
                    changed
                        .iter()
                        .map(|&index| (decoded.pages()[index].number(), decoded.facts(index)))
                        .collect()
                },
            );
            tracing::debug!(
                ms = started.elapsed().as_millis() as u64,
                "canonical database: the changed pages' facts and their previous facts read"
            );
            let started = std::time::Instant::now();
            let copied = before.is_ok().then(|| copy.finish(&path));
            tracing::debug!(
                ms = started.elapsed().as_millis() as u64,
                "canonical database: waited for the previous file's copy"
            );
            match (before, copied) {
                (Ok(_), Some(Err(err))) => {
                    tracing::info!(%err, "the previous database was not copied; it is written whole");
                }
                (Ok(before), _) => {
                    let before: Vec<(u32, &FactSet)> =
                        before.iter().map(|(n, facts)| (*n, facts)).collect();
                    updated = graph
                        .update(
                            &source,
                            &previous.entry.counts,
                            &before,
                            &changed,
                            &path,
                            directory,
                        )
                        .map_err(refused)?;
                    whole_bytes = updated.as_ref().map(|_| previous.entry.whole_bytes);
                }
                (Err(err), _) => {
                    tracing::info!(%err, "the canonical database is written whole");
                }
            }
        }
    }
    let GraphUpdate {
        counts,
        changed_tables,
    } = match updated {
        Some(updated) => updated,
        None => {
            let started = std::time::Instant::now();
            // From the last page, while the layout starts from the first (`Decoded`).
            let mut pages: Vec<(u32, &FactSet)> = (0..decoded.pages().len())
                .into_par_iter()
                .rev()
                .map(|index| (decoded.pages()[index].number(), decoded.facts(index)))
                .collect();
            pages.reverse();
            tracing::debug!(
                ms = started.elapsed().as_millis() as u64,
                "canonical database: pages decoded (or shared with the layout)"
            );
            GraphUpdate {
                counts: graph.write(&pages, &path, directory).map_err(refused)?,
                changed_tables: None,
            }
        }
    };
    let started = std::time::Instant::now();
    // The file is hashed while the database reads its counts back: both only read it. Of an
    // updated database, only the tables the update changed are counted: the others hold the
    // previous database's rows, proven when it was published.
    let elapsed = || started.elapsed().as_millis() as u64;
    let ((verified, verify_ms), (digested, hash_ms)) = std::thread::scope(|scope| {
        let digest = scope.spawn(|| {
            let digested = file_digest(&path);
            (digested, elapsed())
        });
        let verified = graph.verify(&path, &counts, changed_tables.as_ref());
        (
            (verified, elapsed()),
            digest.join().expect("hashing a file does not panic"),
        )
    });
    verified.map_err(refused)?;
    let (digest, bytes) = digested?;
    tracing::debug!(
        verify_ms,
        hash_ms,
        "canonical database: verified and hashed"
    );
    Ok(GraphEntry {
        file: graph.file_name().to_string(),
        digest,
        bytes,
        whole_bytes: whole_bytes.unwrap_or(bytes),
        counts,
    })
}

/// The previous generation's facts of the pages at `changed` (a page it did not have is
/// empty but for the repositories every page lists).
fn previous_facts<P: FactPage>(
    previous: &PreviousGraph<'_>,
    decoded: &Decoded<'_, P>,
    changed: &[usize],
) -> Result<Vec<(u32, FactSet)>, FactsFileError> {
    changed
        .par_iter()
        .map(|&index| {
            let number = decoded.pages()[index].number();
            let entry = previous.pages.iter().find(|e| e.number == number);
            let facts = match entry {
                Some(entry) => read_page_facts(previous.directory, entry)?,
                None => FactSet {
                    repositories: decoded.facts(index).repositories.clone(),
                    ..FactSet::default()
                },
            };
            Ok((number, facts))
        })
        .collect()
}

/// Links the database of generation directory `from` into `to`: a published database is
/// never written again, so a republished generation shares the file.
pub(crate) fn link_graph(from: &Path, to: &Path, entry: &GraphEntry) -> Result<(), StoreError> {
    let (source, target) = (from.join(&entry.file), to.join(&entry.file));
    std::fs::hard_link(&source, &target)
        .or_else(|_| std::fs::copy(&source, &target).map(|_| ()))
        .map_err(io("link", &target))
}

/// Checks a generation's database file against the digest its manifest records.
pub(crate) fn check_graph_file(directory: &Path, manifest: &Manifest) -> Result<(), StoreError> {
    let Some(entry) = &manifest.graph else {
        return Ok(());
    };
    let (digest, _) = file_digest(&directory.join(&entry.file))?;
    if digest != entry.digest {
        return Err(StoreError::Invalid {
            id: manifest.generation_id,
            reason: format!(
                "{} does not have the digest its manifest records",
                entry.file
            ),
        });
    }
    Ok(())
}

/// A file's BLAKE3, hex, and its length: what a manifest records of a database. Mapped and
/// hashed on every core: a database is hundreds of megabytes, and a save's pass waits for it.
pub fn file_digest(path: &Path) -> Result<(String, u64), StoreError> {
    let mut hasher = blake3::Hasher::new();
    hasher.update_mmap_rayon(path).map_err(io("read", path))?;
    Ok((hasher.finalize().to_hex().to_string(), hasher.count()))
}
