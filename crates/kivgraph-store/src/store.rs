//! Publishing, pointers, rollback and clean.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use kivgraph_facts::{FactPage, FactSet, GRAPH_SCHEMA_VERSION};
use kivgraph_snapshot::{Snapshot, SnapshotError, write_root};

use crate::canonical_graph::CanonicalGraph;
use crate::decoded::Decoded;
use crate::error::{StoreError, io};
use crate::graph::{GraphTarget, PreviousGraph, check_graph_file, grown, link_graph, write_graph};
use crate::kept::KeptSnapshot;
use crate::layout::{MANIFEST_FILE, SNAPSHOT_FILE, sync_dir, write_synced};
use crate::manifest::{Counts, Digests, MANIFEST_FORMAT, Manifest, RepositoryState};
pub use crate::pages::SinglePage;
use crate::pages::{
    Previous, WrittenPages, check_facts_files, facts_digest, hex, link_pages, read_facts,
    root_entries, total_counts, write_pages,
};
use crate::prepared::{self, PreparedDatabase};
use crate::{GenerationId, rfc3339_utc, unix_ms};

const GENERATIONS: &str = "generations";
const CURRENT: &str = "CURRENT";
const BACKUP: &str = "BACKUP";
const LOCK: &str = "publish.lock";
const TEMPORARY_PREFIX: &str = ".tmp-";
/// How many generations back a publication looks for a database to derive its own from: a
/// live watcher publishes a burst of saves without one, then the database's own pass.
const DATABASE_LOOKBACK: usize = 16;
/// Held while publishing, rolling back or cleaning. Released on drop.
#[derive(Debug)]
pub struct PublishLock {
    _file: File,
}

#[derive(Debug, Clone)]
pub struct Published {
    /// Wall time of each publication step, in order.
    pub timings: Vec<(&'static str, std::time::Duration)>,
    pub id: GenerationId,
    pub previous: Option<GenerationId>,
    pub manifest: Manifest,
    pub directory: PathBuf,
}

#[derive(Debug, Clone, Default)]
pub struct CleanReport {
    /// What was (or, without `--yes`, would be) removed.
    pub generations: Vec<GenerationId>,
    pub kept: Option<GenerationId>,
    pub removed_backup_pointer: bool,
    pub applied: bool,
}

/// The generations under one state directory.
#[derive(Debug, Clone)]
pub struct GenerationStore {
    root: PathBuf,
    /// What this store (or a clone) published last, for the next publication to share.
    kept: KeptSnapshot,
    /// The engine that writes each candidate's canonical database; without one, generations
    /// carry none.
    graph: Option<Arc<dyn CanonicalGraph>>,
}

impl GenerationStore {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        GenerationStore {
            root: root.into(),
            kept: KeptSnapshot::default(),
            graph: None,
        }
    }

    /// This store, writing every candidate's canonical database with `graph`.
    pub fn with_graph(self, graph: Arc<dyn CanonicalGraph>) -> Self {
        GenerationStore {
            graph: Some(graph),
            ..self
        }
    }

    /// This store, publishing without a canonical database (sharing what it keeps open).
    pub fn without_graph(&self) -> Self {
        GenerationStore {
            graph: None,
            ..self.clone()
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn generations_dir(&self) -> PathBuf {
        self.root.join(GENERATIONS)
    }

    pub fn generation_dir(&self, id: GenerationId) -> PathBuf {
        self.generations_dir().join(id.to_string())
    }

    pub fn snapshot_path(&self, id: GenerationId) -> PathBuf {
        self.generation_dir(id).join(SNAPSHOT_FILE)
    }

    pub fn pointer_path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn read_pointer(&self, name: &str) -> Result<Option<GenerationId>, StoreError> {
        let path = self.pointer_path(name);
        match std::fs::read_to_string(&path) {
            Ok(content) => GenerationId::parse(content.trim())
                .map(Some)
                .ok_or(StoreError::CorruptPointer { path, content }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(StoreError::Io {
                action: "read",
                path,
                source,
            }),
        }
    }

    /// The published generation, if any.
    pub fn current(&self) -> Result<Option<GenerationId>, StoreError> {
        self.read_pointer(CURRENT)
    }

    pub fn backup(&self) -> Result<Option<GenerationId>, StoreError> {
        self.read_pointer(BACKUP)
    }

    /// Every retained generation, oldest first.
    pub fn list(&self) -> Result<Vec<GenerationId>, StoreError> {
        let dir = self.generations_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(StoreError::Io {
                    action: "list",
                    path: dir,
                    source,
                });
            }
        };
        let mut ids: Vec<GenerationId> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| GenerationId::parse(&e.file_name().to_string_lossy()))
            .collect();
        ids.sort();
        Ok(ids)
    }

    /// The id the next publication takes: one past the highest retained or pointed-to.
    pub fn next_id(&self) -> Result<GenerationId, StoreError> {
        let highest = self
            .list()?
            .into_iter()
            .chain(self.current()?)
            .chain(self.backup()?)
            .max();
        Ok(highest.map(GenerationId::next).unwrap_or(GenerationId(1)))
    }

    /// Takes the publish lock without waiting.
    pub fn lock(&self) -> Result<PublishLock, StoreError> {
        std::fs::create_dir_all(&self.root).map_err(io("create", &self.root))?;
        let path = self.root.join(LOCK);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io("open", &path))?;
        match file.try_lock() {
            Ok(()) => Ok(PublishLock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::Locked),
            Err(std::fs::TryLockError::Error(source)) => Err(StoreError::Io {
                action: "lock",
                path,
                source,
            }),
        }
    }

    /// Removes what a writer that died mid-publication left. Only called under the lock, so no
    /// live writer owns them.
    fn remove_temporaries(&self) -> Result<(), StoreError> {
        let dir = self.generations_dir();
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Ok(());
        };
        for entry in entries.filter_map(|e| e.ok()) {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with(TEMPORARY_PREFIX) || prepared::left_by_another_process(&name) {
                std::fs::remove_dir_all(entry.path()).map_err(io("remove", &entry.path()))?;
            }
        }
        Ok(())
    }

    /// Writes a pass's pages as a new generation, validates it, and only then points
    /// `CURRENT` at it. A page whose identity equals the served generation's is linked from
    /// it rather than laid out again.
    pub fn publish<P: FactPage>(
        &self,
        lock: &PublishLock,
        pages: &[P],
        repositories: Vec<RepositoryState>,
    ) -> Result<Published, StoreError> {
        self.publish_prepared(lock, pages, repositories, None)
    }

    /// Starts copying the database the next publication derives its own from, so that a pass
    /// that will publish pays for the copy while it still computes. `None` when there is no
    /// such database, or the next one is written whole. Asked under the publish lock, which
    /// keeps the database copied from being pruned before the publication uses it.
    pub fn prepare_database(&self, _lock: &PublishLock) -> Option<PreparedDatabase> {
        let graph = self.graph.as_ref()?;
        let served = self.reusable_generation();
        let (_, directory, manifest) = self.database_generation(served.as_ref())?;
        let entry = manifest.graph.as_ref().filter(|entry| !grown(entry))?;
        let source = directory.join(&entry.file);
        PreparedDatabase::start(graph.clone(), source, &self.generations_dir())
            .inspect_err(|err| tracing::info!(%err, "the previous database is not copied ahead"))
            .ok()
    }

    /// `publish`, the database derived from a copy `prepare_database` started (if it is a
    /// copy of the database the publication derives its own from).
    pub fn publish_prepared<P: FactPage>(
        &self,
        lock: &PublishLock,
        pages: &[P],
        repositories: Vec<RepositoryState>,
        prepared: Option<PreparedDatabase>,
    ) -> Result<Published, StoreError> {
        self.publish_candidate(lock, |store, directory, id, lap| {
            let previous = store.reusable_generation();
            let kept = store.kept.get();
            let database = store
                .graph
                .as_ref()
                .and_then(|_| store.database_generation(previous.as_ref()));
            let previous_graph = database.as_ref().and_then(|(_, directory, manifest)| {
                Some(PreviousGraph {
                    directory,
                    entry: manifest.graph.as_ref()?,
                    pages: &manifest.pages,
                })
            });
            let previous = previous.as_ref().map(|(directory, manifest)| Previous {
                directory,
                pages: &manifest.pages,
                kept: kept.as_deref(),
            });
            // The database is written from the same facts beside the layout, not after it,
            // each page decoded once for both.
            let decoded = Decoded::new(pages);
            let generations = store.generations_dir();
            let (written, graph) = std::thread::scope(|scope| {
                let decoded = &decoded;
                let graph = store.graph.as_ref().map(|graph| {
                    let target = GraphTarget {
                        directory,
                        generations: &generations,
                        id,
                        prepared,
                    };
                    scope.spawn(move || write_graph(graph, decoded, previous_graph, target))
                });
                let written = write_pages(directory, id, decoded, previous.as_ref(), lap);
                let graph = graph
                    .map(|handle| handle.join().expect("the database writer does not panic"))
                    .transpose();
                (written, graph)
            });
            let WrittenPages {
                entries,
                laid_out,
                previous,
            } = written?;
            let graph = graph?;
            lap("write_database");
            let root = write_root(id.0, &root_entries(&entries));
            write_synced(&directory.join(SNAPSHOT_FILE), &root)?;
            let manifest = Manifest {
                repositories,
                graph,
                ..fresh_manifest(
                    id,
                    total_counts(&entries),
                    Digests {
                        facts: facts_digest(&entries),
                        snapshot_payload: blake3::hash(&root[64..]).to_hex().to_string(),
                    },
                    entries,
                )
            };
            store.write_manifest_and_verify(
                directory,
                id,
                manifest,
                &|number| laid_out.contains(&number),
                previous.as_ref(),
                lap,
            )
        })
    }

    /// The served generation, when its pages can be shared: its directory and manifest.
    /// Anything unreadable only means nothing is shared.
    fn reusable_generation(&self) -> Option<(PathBuf, Manifest)> {
        let current = self.current().ok()??;
        let directory = self.generation_dir(current);
        let manifest = read_manifest(&directory, current).ok()?;
        (manifest.format == MANIFEST_FORMAT).then_some((directory, manifest))
    }

    /// The newest generation up to the served one whose database this build can derive a new
    /// one from: the served generation (`served`, when its manifest is already read), or —
    /// after saves the watcher published without a database — the last one that carried it.
    /// Anything unreadable only means a whole write.
    fn database_generation(
        &self,
        served: Option<&(PathBuf, Manifest)>,
    ) -> Option<(GenerationId, PathBuf, Manifest)> {
        let usable = |manifest: &Manifest| {
            manifest.format == MANIFEST_FORMAT
                && manifest
                    .graph
                    .as_ref()
                    .is_some_and(|g| g.counts.schema_version == GRAPH_SCHEMA_VERSION)
        };
        if let Some((directory, manifest)) = served
            && usable(manifest)
        {
            return Some((manifest.generation_id, directory.clone(), manifest.clone()));
        }
        let current = self.current().ok()??;
        let mut ids: Vec<GenerationId> = self
            .list()
            .ok()?
            .into_iter()
            .filter(|id| *id < current || (*id == current && served.is_none()))
            .collect();
        ids.reverse();
        ids.into_iter().take(DATABASE_LOOKBACK).find_map(|id| {
            let directory = self.generation_dir(id);
            let manifest = read_manifest(&directory, id).ok()?;
            usable(&manifest).then_some((id, directory, manifest))
        })
    }

    /// Publishes the facts of generation `from` again as a new generation, for a pass that
    /// proved its inputs unchanged: its pages and their facts are linked (or copied), the
    /// root names them under the new id, the manifest carries the repositories' new states.
    /// Validated from disk like any candidate.
    pub fn republish(
        &self,
        lock: &PublishLock,
        from: GenerationId,
        repositories: Vec<RepositoryState>,
    ) -> Result<Published, StoreError> {
        self.publish_candidate(lock, |store, directory, id, lap| {
            let source = store.generation_dir(from);
            let previous = read_manifest(&source, from)?;
            link_pages(&source, directory, &previous.pages)?;
            // The same facts, so the same database: linked, like the pages. (A pass by
            // another build never republishes, so a generation without one stays rare.)
            if let Some(entry) = &previous.graph {
                link_graph(&source, directory, entry)?;
            }
            let graph = previous.graph.clone();
            lap("copy_generation");
            write_synced(
                &directory.join(SNAPSHOT_FILE),
                &write_root(id.0, &root_entries(&previous.pages)),
            )?;
            lap("write_and_sync");
            let manifest = Manifest {
                repositories,
                graph,
                ..fresh_manifest(id, previous.counts, previous.digests, previous.pages)
            };
            let kept = store.kept.get();
            store.write_manifest_and_verify(
                directory,
                id,
                manifest,
                &|_| false,
                kept.as_deref(),
                lap,
            )
        })
    }

    /// Builds a candidate in a temporary directory with `write`, and only once it is
    /// written and verified renames it into place and points `CURRENT` at it.
    fn publish_candidate(
        &self,
        _lock: &PublishLock,
        write: impl FnOnce(
            &Self,
            &Path,
            GenerationId,
            &mut dyn FnMut(&'static str),
        ) -> Result<Manifest, StoreError>,
    ) -> Result<Published, StoreError> {
        let mut timings = Vec::new();
        let mut last = std::time::Instant::now();
        let mut lap = |phase: &'static str| {
            let now = std::time::Instant::now();
            timings.push((phase, now - last));
            last = now;
        };
        self.remove_temporaries()?;
        let id = self.next_id()?;
        let generations = self.generations_dir();
        std::fs::create_dir_all(&generations).map_err(io("create", &generations))?;
        let temporary = generations.join(format!("{TEMPORARY_PREFIX}{id}-{}", std::process::id()));
        std::fs::create_dir_all(&temporary).map_err(io("create", &temporary))?;

        let manifest = match write(self, &temporary, id, &mut lap) {
            Ok(manifest) => manifest,
            Err(err) => {
                let _ = std::fs::remove_dir_all(&temporary);
                return Err(err);
            }
        };
        let directory = self.generation_dir(id);
        std::fs::rename(&temporary, &directory).map_err(io("rename", &temporary))?;
        sync_dir(&generations)?;
        let previous = self.current()?;
        if let Some(previous) = previous {
            self.write_pointer(BACKUP, previous)?;
        }
        self.write_pointer(CURRENT, id)?;
        lap("switch_pointers");
        Ok(Published {
            timings,
            id,
            previous,
            manifest,
            directory,
        })
    }

    /// Writes the manifest and validates the candidate from disk; the snapshot, when it was
    /// opened whole, is kept for the next publication to share.
    fn write_manifest_and_verify(
        &self,
        directory: &Path,
        id: GenerationId,
        manifest: Manifest,
        written: &(dyn Fn(u32) -> bool + Sync),
        shared: Option<&Snapshot>,
        lap: &mut dyn FnMut(&'static str),
    ) -> Result<Manifest, StoreError> {
        let manifest_bytes = serde_json::to_vec_pretty(&manifest)
            .map_err(|e| StoreError::Snapshot(e.to_string()))?;
        write_synced(&directory.join(MANIFEST_FILE), &manifest_bytes)?;
        sync_dir(directory)?;
        // Validate exactly what a server will map, from disk: the root and the pages this
        // publication wrote (the facts were validated in memory; their files are checked
        // against their digests). A linked page is the file a previous publication proved.
        let proof = Proof::Written { written, shared };
        if let Some(snapshot) = verify_files(directory, id, &manifest, proof)? {
            self.kept.set(snapshot);
        }
        lap("verify_from_disk");
        Ok(manifest)
    }

    /// Reads a generation's manifest.
    pub fn manifest(&self, id: GenerationId) -> Result<Manifest, StoreError> {
        read_manifest(&self.generation_dir(id), id)
    }

    /// A generation's fact set, its pages' facts each checked against its digest in the
    /// manifest.
    pub fn facts(&self, id: GenerationId) -> Result<FactSet, StoreError> {
        let directory = self.generation_dir(id);
        let manifest = read_manifest(&directory, id)?;
        read_facts(&directory, &manifest.pages).map_err(|e| StoreError::Invalid {
            id,
            reason: e.to_string(),
        })
    }

    /// Recomputes a generation's digests and counts, reopens its snapshot and checks its
    /// invariants. Nothing is modified.
    pub fn verify(&self, id: GenerationId) -> Result<Manifest, StoreError> {
        let directory = self.generation_dir(id);
        if !directory.is_dir() {
            return Err(StoreError::UnknownGeneration(id));
        }
        verify_directory(&directory, id)
    }

    /// Points `CURRENT` at `target` (or at the backup), after verifying it.
    pub fn rollback(
        &self,
        _lock: &PublishLock,
        target: Option<GenerationId>,
    ) -> Result<(Option<GenerationId>, GenerationId), StoreError> {
        let target = match target {
            Some(target) => target,
            None => self.backup()?.ok_or(StoreError::NothingToRollBack)?,
        };
        self.verify(target)?;
        let current = self.current()?;
        if let Some(current) = current.filter(|c| *c != target) {
            self.write_pointer(BACKUP, current)?;
        }
        self.write_pointer(CURRENT, target)?;
        Ok((current, target))
    }

    /// Removes every generation but the active and the backup: what a live watcher does after
    /// each publication, so generations do not pile up. A server still answering from a
    /// removed generation keeps its mapping (the kernel frees the pages when the last mapping
    /// ends); a page shared with a kept generation is a hard link and stays. Returns the
    /// removed.
    pub fn prune(&self, _lock: &PublishLock) -> Result<Vec<GenerationId>, StoreError> {
        // And the database the next publication derives its own from, when the active
        // generation has none (saves published without one).
        let database = self.database_generation(None).map(|(id, ..)| id);
        let kept = [self.current()?, self.backup()?, database];
        let removed: Vec<GenerationId> = self
            .list()?
            .into_iter()
            .filter(|id| !kept.contains(&Some(*id)))
            .collect();
        for id in &removed {
            let dir = self.generation_dir(*id);
            std::fs::remove_dir_all(&dir).map_err(io("remove", &dir))?;
        }
        if !removed.is_empty() {
            sync_dir(&self.generations_dir())?;
        }
        Ok(removed)
    }

    /// Lists (and with `apply`, removes) published generations.
    pub fn clean(
        &self,
        _lock: &PublishLock,
        keep_active: bool,
        apply: bool,
    ) -> Result<CleanReport, StoreError> {
        let current = self.current()?;
        let kept = if keep_active { current } else { None };
        let generations: Vec<GenerationId> = self
            .list()?
            .into_iter()
            .filter(|id| Some(*id) != kept)
            .collect();
        let mut report = CleanReport {
            generations,
            kept,
            removed_backup_pointer: self.backup()?.is_some(),
            applied: apply,
        };
        if !apply {
            return Ok(report);
        }
        self.remove_temporaries()?;
        // Pointers first: a reader never follows a pointer into a directory being removed.
        if kept.is_none() {
            remove_if_exists(&self.pointer_path(CURRENT))?;
        }
        remove_if_exists(&self.pointer_path(BACKUP))?;
        for id in &report.generations {
            let dir = self.generation_dir(*id);
            std::fs::remove_dir_all(&dir).map_err(io("remove", &dir))?;
        }
        sync_dir(&self.root)?;
        report.applied = true;
        Ok(report)
    }

    fn write_pointer(&self, name: &str, id: GenerationId) -> Result<(), StoreError> {
        let path = self.pointer_path(name);
        let temporary = self.root.join(format!("{name}.tmp-{}", std::process::id()));
        write_synced(&temporary, format!("{id}\n").as_bytes())?;
        std::fs::rename(&temporary, &path).map_err(io("rename", &temporary))?;
        sync_dir(&self.root)
    }
}

fn read_manifest(directory: &Path, id: GenerationId) -> Result<Manifest, StoreError> {
    let path = directory.join(MANIFEST_FILE);
    let bytes = std::fs::read(&path).map_err(io("read", &path))?;
    serde_json::from_slice(&bytes).map_err(|e| StoreError::Invalid {
        id,
        reason: format!("{MANIFEST_FILE}: {e}"),
    })
}

/// Everything: digests, the fact set's counts and invariants, the snapshot.
fn verify_directory(directory: &Path, id: GenerationId) -> Result<Manifest, StoreError> {
    let manifest = read_manifest(directory, id)?;
    if manifest.generation_id != id {
        return Err(StoreError::Invalid {
            id,
            reason: format!("its manifest names generation {}", manifest.generation_id),
        });
    }
    let invalid = |reason: String| StoreError::Invalid { id, reason };
    let facts = read_facts(directory, &manifest.pages).map_err(|e| invalid(e.to_string()))?;
    if crate::pages::page_counts(&facts) != manifest.counts {
        return Err(invalid("the fact counts do not match the manifest".into()));
    }
    facts.validate().map_err(|e| invalid(e.to_string()))?;
    verify_files(directory, id, &manifest, Proof::Everything)?;
    check_graph_file(directory, &manifest)?;
    Ok(manifest)
}

/// How much of a candidate's snapshot [`verify_files`] validates.
enum Proof<'a> {
    /// Every page.
    Everything,
    /// The pages a publication wrote; the others are links to files a previous publication
    /// proved, and must only be there. Those `shared` holds by number and digest, validated
    /// before, are taken from it.
    Written {
        written: &'a (dyn Fn(u32) -> bool + Sync),
        shared: Option<&'a Snapshot>,
    },
}

/// The files on disk against the manifest: the facts' digests, and the snapshot reopened
/// and validated by the reader that servers use, as far as `proof` asks. Returns the
/// snapshot when it was opened whole (every page validated now or shared).
fn verify_files(
    directory: &Path,
    id: GenerationId,
    manifest: &Manifest,
    proof: Proof,
) -> Result<Option<Snapshot>, StoreError> {
    let invalid = |reason: String| StoreError::Invalid { id, reason };
    let root = directory.join(SNAPSHOT_FILE);
    let mismatch = || {
        invalid(format!(
            "{SNAPSHOT_FILE} does not hold this generation's facts"
        ))
    };
    let written = |number: u32| match &proof {
        Proof::Everything => true,
        Proof::Written { written, .. } => written(number),
    };
    let checked: Vec<_> = manifest
        .pages
        .iter()
        .filter(|entry| written(entry.number))
        .cloned()
        .collect();
    // Opening whole costs no more than the written pages when the others are shared (or
    // there are none).
    let shared = match &proof {
        Proof::Everything => None,
        Proof::Written { shared, .. } => *shared,
    };
    let whole = shared.is_some() || checked.len() == manifest.pages.len();
    // The facts' digests are checked beside the snapshot's validation.
    let (facts, snapshot) = rayon::join(
        || check_facts_files(directory, &checked),
        || -> Result<(String, Option<Snapshot>), StoreError> {
            let in_file = |e: SnapshotError| invalid(format!("{SNAPSHOT_FILE}: {e}"));
            if whole {
                let snapshot = Snapshot::open_after(&root, shared).map_err(in_file)?;
                let counts = &manifest.counts;
                if snapshot.generation() != id.0
                    || snapshot.symbol_count() != counts.symbols
                    || snapshot.file_count() != counts.files
                    || snapshot.edge_count() != counts.edges
                {
                    return Err(mismatch());
                }
                return Ok((hex(&snapshot.payload_digest()), Some(snapshot)));
            }
            let validated = Snapshot::validate_pages(&root, written).map_err(in_file)?;
            let agrees = validated.generation == id.0
                && validated
                    .pages
                    .iter()
                    .all(|(number, symbols, files, edges)| {
                        manifest.pages.iter().any(|entry| {
                            entry.number == *number
                                && entry.counts.symbols == *symbols
                                && entry.counts.files == *files
                                && entry.counts.edges == *edges
                        })
                    });
            if !agrees {
                return Err(mismatch());
            }
            Ok((hex(&validated.payload_digest), None))
        },
    );
    facts.map_err(|e| invalid(e.to_string()))?;
    let (payload_digest, snapshot) = snapshot?;
    if payload_digest != manifest.digests.snapshot_payload {
        return Err(invalid(format!(
            "{SNAPSHOT_FILE} does not match the digest in its manifest"
        )));
    }
    Ok(snapshot)
}

/// A manifest built now, by this build, for pages with these counts and digests.
fn fresh_manifest(
    id: GenerationId,
    counts: Counts,
    digests: Digests,
    pages: Vec<crate::manifest::PageEntry>,
) -> Manifest {
    let now = SystemTime::now();
    Manifest {
        generation_id: id,
        format: MANIFEST_FORMAT,
        kivgraph_version: env!("CARGO_PKG_VERSION").to_string(),
        built_at: rfc3339_utc(now),
        built_at_unix_ms: unix_ms(now),
        counts,
        digests,
        repositories: Vec::new(),
        pages,
        graph: None,
    }
}

fn remove_if_exists(path: &Path) -> Result<(), StoreError> {
    match std::fs::remove_file(path) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(StoreError::Io {
            action: "remove",
            path: path.to_path_buf(),
            source: err,
        }),
        _ => Ok(()),
    }
}
