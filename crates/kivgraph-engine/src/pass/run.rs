//! One full pass: discover, read, sync the inputs, analyse in parallel, merge in order,
//! publish the record the next pass compares against.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use kivgraph_config::{FactCacheMode, RepositoryEntry};
use kivgraph_discovery::discover_repository;
use kivgraph_facts::{FactPage, FactSet, Fingerprint, Language, Reason, UnresolvedReference};

use super::engine::{Engine, EngineError};
use super::options::{AnalyzerOptions, PassOptions, Progress};
use super::record::{DiscoveryDigests, PassRecord, inputs_digest};
use super::report::RepositoryReport;
use super::sync::{LoadedRepository, load_repository};
use super::verify::verify_against_fresh;
use super::warm::{Reread, WarmEngine};
use crate::analysis::RecordedUnits;
use crate::cache::CacheLoad;
use crate::pages::EnginePage;

/// What a pass produced.
#[derive(Debug, Clone)]
pub enum PassGraph {
    /// A graph to publish, in pages.
    Computed(Vec<EnginePage>),
    /// The pass's inputs are exactly those this published generation was computed from:
    /// it is the answer, to be republished as it is.
    Unchanged { generation: u64 },
}

#[derive(Debug, Clone)]
pub struct PassOutcome {
    pub graph: PassGraph,
    /// The digest of everything the pass computed from (`record.rs`).
    pub inputs_digest: String,
    pub repositories: Vec<RepositoryReport>,
    pub cache: CacheLoad,
    /// How many file extractions ran (the rest were served by the fact cache).
    pub files_analyzed: usize,
    pub files_total: usize,
    pub cache_bytes: Option<u64>,
    /// Wall time of each phase, in order.
    pub timings: Timings,
}

/// Wall time per phase, in the order the phases ran.
#[derive(Debug, Clone)]
pub struct Timings {
    pub phases: Vec<(&'static str, Duration)>,
    last: Instant,
}

impl Default for Timings {
    fn default() -> Self {
        Timings {
            phases: Vec::new(),
            last: Instant::now(),
        }
    }
}

impl Timings {
    /// Closes the phase that ran since the previous lap.
    pub fn lap(&mut self, phase: &'static str) {
        let now = Instant::now();
        self.phases.push((phase, now - self.last));
        self.last = now;
    }
}

/// Runs one full pass over the registered repositories: every repository read, the engine
/// restored from the fact cache and saved to it.
pub fn run_pass(
    entries: &[RepositoryEntry],
    options: &PassOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<PassOutcome, EngineError> {
    execute(Read::Checkouts(entries), options, progress, None)
}

/// Where a pass reads its repositories.
pub(super) enum Read<'a> {
    /// The registered checkouts, on disk.
    Checkouts(&'a [RepositoryEntry]),
    /// Fact sets recorded elsewhere (`recorded.rs`): each repository as it was read there,
    /// and its analyzers' answers as recorded, by repository name.
    Recorded(
        Vec<(RepositoryEntry, LoadedRepository)>,
        BTreeMap<String, RecordedUnits>,
    ),
}

/// The registered checkouts as a pass read them.
pub(super) struct Checkouts {
    /// Each repository read, with its entry, in registry order.
    pub(super) read: Vec<(RepositoryEntry, LoadedRepository)>,
    /// The repositories that could not be read, with why.
    pub(super) unavailable: Vec<(RepositoryEntry, String)>,
}

/// Reads every repository of `entries` (those `kept` offers as they are), in order.
pub(super) fn read_checkouts(
    entries: &[RepositoryEntry],
    go_build: &kivgraph_config::GoBuildContext,
    progress: &(dyn Fn(Progress) + Sync),
    mut kept: impl FnMut(&RepositoryEntry) -> Option<LoadedRepository>,
) -> Checkouts {
    let mut loaded = Vec::new();
    let mut unavailable = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        progress(Progress {
            phase: "discover",
            repository: Some(entry.name.clone()),
            completed: index,
            total: entries.len(),
        });
        let repository = match kept(entry) {
            Some(kept) => kept,
            None => match discover_repository(entry, go_build) {
                Ok(discovered) => load_repository(discovered),
                Err(err) => {
                    unavailable.push((entry.clone(), err.to_string()));
                    continue;
                }
            },
        };
        loaded.push((entry.clone(), repository));
    }
    Checkouts {
        read: loaded,
        unavailable,
    }
}

impl WarmEngine {
    /// A pass with the engine and the repositories kept from the last one: only the
    /// repositories `reread` names are read again, the memos are those of the last pass
    /// (the fact cache is read once, by the first pass), and the cache is written only when
    /// `persist` asks (the facts published meanwhile are the record's, and a later process
    /// recomputes what the cache lacks).
    pub fn pass(
        &mut self,
        entries: &[RepositoryEntry],
        options: &PassOptions,
        progress: &(dyn Fn(Progress) + Sync),
        reread: Reread,
        persist: bool,
    ) -> Result<PassOutcome, EngineError> {
        execute(
            Read::Checkouts(entries),
            options,
            progress,
            Some((self, reread, persist)),
        )
    }
}

pub(super) fn execute(
    read: Read,
    options: &PassOptions,
    progress: &(dyn Fn(Progress) + Sync),
    mut warm: Option<(&mut WarmEngine, Reread, bool)>,
) -> Result<PassOutcome, EngineError> {
    let mut timings = Timings::default();
    let (entries, read, unavailable, recorded) = match read {
        Read::Checkouts(entries) => {
            let Checkouts { read, unavailable } =
                read_checkouts(entries, &options.analyzers.go_build, progress, |entry| {
                    let (warm, reread, _) = warm.as_mut()?;
                    warm.kept(entry, reread, &options.analyzers.go_build)
                });
            (entries.to_vec(), read, unavailable, None)
        }
        Read::Recorded(read, units) => (
            read.iter().map(|(entry, _)| entry.clone()).collect(),
            read,
            Vec::new(),
            Some(units),
        ),
    };
    let (loaded, previous): (Vec<LoadedRepository>, _) = match warm.as_mut() {
        Some((warm, ..)) => (
            read.iter().map(|(_, l)| l.clone()).collect(),
            std::mem::replace(&mut warm.read, read),
        ),
        None => (read.into_iter().map(|(_, l)| l).collect(), Vec::new()),
    };
    // Analyzers wait only where one is installed, and only for a repository whose files
    // changed since the last read: a batch that changed nothing the graph reads publishes
    // nothing, and one that did not touch a repository whose layer is owed runs it now.
    let installed = {
        let a = &options.analyzers;
        a.typescript.is_some()
            || a.python.is_some()
            || a.rust.is_some()
            || a.go.is_some()
            || !a.scip_indexers.is_empty()
    };
    let analyzers = AnalyzerOptions {
        deferred_repositories: options
            .analyzers
            .deferred_repositories
            .iter()
            .filter(|name| installed && read_differently(&previous, &loaded, name))
            .cloned()
            .collect(),
        ..options.analyzers.clone()
    };
    timings.lap("discover_and_read");
    let mut cold_digests = DiscoveryDigests::default();
    let inputs_digest = inputs_digest(
        &options.identity.0,
        &analyzers,
        &entries,
        &loaded,
        &unavailable,
        match warm.as_mut() {
            Some((warm, ..)) => &mut warm.digests,
            None => &mut cold_digests,
        },
    );
    if options.fact_cache == FactCacheMode::On
        && let Some(record) = PassRecord::read(&options.cache_directory)
        && record.inputs_digest == inputs_digest
        && options.published_generation == Some(record.generation)
    {
        timings.lap("compare_inputs");
        return Ok(PassOutcome {
            graph: PassGraph::Unchanged {
                generation: record.generation,
            },
            inputs_digest,
            repositories: record.repositories,
            cache: CacheLoad::NotNeeded,
            files_analyzed: 0,
            files_total: record.files_total,
            cache_bytes: crate::cache::size_on_disk(&options.cache_directory),
            timings,
        });
    }
    timings.lap("compare_inputs");
    progress(Progress {
        phase: Progress::COMPUTE,
        repository: None,
        completed: 0,
        total: 1,
    });
    let kept_engine = warm.as_mut().and_then(|(warm, ..)| warm.engine.take());
    let (mut engine, cache_load) = match (kept_engine, options.fact_cache) {
        (Some(engine), _) => (engine, CacheLoad::Kept),
        (None, FactCacheMode::Off) => (Engine::new(), CacheLoad::Absent),
        (None, FactCacheMode::On | FactCacheMode::Verify) => {
            Engine::from_cache(&options.cache_directory, &options.identity)
        }
    };
    timings.lap("cache_load");
    engine.execution_log().take();
    engine.update(&loaded);
    engine.set_analyzers(&analyzers);
    if let Some(recorded) = recorded {
        engine.set_recorded(recorded);
    }
    timings.lap("update_inputs");
    let workspace = engine.facts(progress);
    timings.lap("analyse_and_merge");
    let files_analyzed = engine.execution_log().count("file_facts");
    // A unit re-runs with no file changed when its analyzer did.
    let memos_recomputed = engine
        .execution_log()
        .names()
        .iter()
        .filter(|query| !crate::persisted::UNPERSISTED_QUERIES.contains(&query.as_str()))
        .count();
    if options.fact_cache == FactCacheMode::Verify {
        verify_against_fresh(&engine, &workspace, &loaded, &analyzers)?;
        timings.lap("verify");
    }
    let mut reports: Vec<RepositoryReport> = loaded
        .iter()
        .map(|l| {
            let mut report = engine.repository_report(l);
            report.analyzers = engine.analyzer_runs(&report.name, &analyzers);
            report
        })
        .collect();
    let files_total = reports.iter().map(|r| r.files).sum();
    // A repository that cannot be read is declared, not a failed pass.
    let mut pass_wide = Vec::new();
    for (entry, reason) in unavailable {
        let language = kivgraph_discovery::enabled_languages(&entry.languages)
            .first()
            .copied()
            .unwrap_or(Language::Go);
        pass_wide.push(UnresolvedReference {
            repository: entry.name.clone(),
            language,
            reason: Reason::RepositoryNotReadable,
            file_path: None,
            span: None,
            requested_symbol: None,
            requested_package: None,
            detail: reason.clone(),
        });
        reports.push(RepositoryReport {
            name: entry.name.clone(),
            root: entry.path.to_string_lossy().to_string(),
            unavailable: Some(reason),
            ..RepositoryReport::default()
        });
    }
    timings.lap("reports");
    let persist = warm.as_ref().is_none_or(|(_, _, persist)| *persist);
    let cache_bytes = match options.fact_cache {
        FactCacheMode::Off => None,
        // Nothing was recomputed: the memos on disk already hold every fact of this pass
        // (inputs the pass dropped are reconciled again by the next load), so the cache is
        // not rewritten.
        _ if matches!(cache_load, CacheLoad::Loaded) && memos_recomputed == 0 => {
            crate::cache::size_on_disk(&options.cache_directory)
        }
        _ if !persist => crate::cache::size_on_disk(&options.cache_directory),
        _ => Some(engine.save_cache(&options.cache_directory, &options.identity)?),
    };
    timings.lap("cache_save");
    let pages = workspace.pages(&options.identity.0, &pass_wide);
    match warm {
        Some((warm, ..)) => warm.engine = Some(engine),
        // The memo tables of a large workspace take a quarter of a second to free, which
        // nobody needs to wait for.
        None => {
            std::thread::spawn(move || drop(engine));
        }
    }
    Ok(PassOutcome {
        graph: PassGraph::Computed(pages),
        inputs_digest,
        repositories: reports,
        cache: cache_load,
        files_analyzed,
        files_total,
        cache_bytes,
        timings,
    })
}

/// Whether repository `name` as `loaded` now differs from its `previous` read (or was not
/// read before): other files, or other contents.
fn read_differently(
    previous: &[(RepositoryEntry, LoadedRepository)],
    loaded: &[LoadedRepository],
    name: &str,
) -> bool {
    let now = loaded.iter().find(|l| l.discovered.name == name);
    let before = previous
        .iter()
        .find(|(entry, _)| entry.name == name)
        .map(|(_, read)| read);
    let (Some(now), Some(before)) = (now, before) else {
        return true;
    };
    let fingerprints = |read: &LoadedRepository| -> Vec<Option<Fingerprint>> {
        read.sources
            .iter()
            .map(|s| s.as_ref().map(|(f, _, _)| *f))
            .collect()
    };
    now.discovered.files.len() != before.discovered.files.len()
        || now
            .discovered
            .files
            .iter()
            .zip(&before.discovered.files)
            .any(|(a, b)| a.path != b.path)
        || fingerprints(now) != fingerprints(before)
}

impl PassOutcome {
    /// The graph the pass computed, as one fact set (every page decoded); `None` when it
    /// answered with the published generation.
    pub fn computed(&self) -> Option<FactSet> {
        match &self.graph {
            PassGraph::Computed(pages) => {
                Some(FactSet::from_pages(pages.iter().map(FactPage::facts)))
            }
            PassGraph::Unchanged { .. } => None,
        }
    }

    /// Remembers, once `generation` is published from this pass, what it was computed
    /// from: the next pass with the same inputs republishes it. With the fact cache `off`
    /// nothing is remembered.
    pub fn record_published(
        &self,
        options: &PassOptions,
        generation: u64,
    ) -> Result<(), EngineError> {
        if options.fact_cache == FactCacheMode::Off {
            return Ok(());
        }
        PassRecord {
            inputs_digest: self.inputs_digest.clone(),
            generation,
            repositories: self.repositories.clone(),
            files_total: self.files_total,
        }
        .write(&options.cache_directory)
        .map_err(|error| EngineError::RecordWrite(error.to_string()))
    }
}
