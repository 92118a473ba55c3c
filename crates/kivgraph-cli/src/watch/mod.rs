//! `kivgraph watch [--json]`: keeps the published graph in step with the registered
//! checkouts while it runs. Every repository is watched (symlinks not followed); changes are
//! coalesced into batches (`watcher.debounce_ms`, `watcher.maximum_batch_ms`), and each batch
//! runs one pass and publishes a generation when something the graph reads changed, which
//! every `serve` picks up through `CURRENT`. `watcher.reconciliation_interval` without a
//! change runs a pass anyway, for events the platform lost. A change to the repository
//! registry re-reads it and watches what it names now. A caller waiting for its own saves
//! closes the open batch at once (a flush request in the store's `flush/`).

mod batch;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail};
use kivgraph_config::parse_duration;
use kivgraph_store::{
    GenerationStore, ProcessRecord, WatchedBatch, WatchedRepository, WatcherStatus, rfc3339_utc,
    unix_ms,
};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use serde::Serialize;

use crate::allocator;
use crate::context::{ConfigArg, Loaded};
use crate::pass::{OnUnchanged, PassResult, Toolchains, WarmPass, index_and_publish};
use batch::{Filter, Next, Phase, Window};
use kivgraph_engine::{Reread, WarmEngine};

#[derive(clap::Args, Debug)]
pub struct WatchArgs {
    #[command(flatten)]
    config: ConfigArg,
    /// stdout carries only newline-delimited JSON events.
    #[arg(long)]
    json: bool,
}

pub fn run(args: WatchArgs) -> anyhow::Result<ExitCode> {
    let loaded = args.config.load()?;
    let _record = loaded.store(None).register_process("watch")?;
    keep_live(&args.config, loaded, Output::Lines { json: args.json })?;
    Ok(ExitCode::SUCCESS)
}

/// Watches the registered repositories and publishes after every batch, until the watcher
/// fails; `out` says where what it does is told.
pub fn keep_live(config: &ConfigArg, mut loaded: Loaded, out: Output) -> anyhow::Result<()> {
    let settings = &loaded.config.config.watcher;
    if !settings.enabled {
        bail!(
            "watcher.enabled is false in {}: set it to true to watch the registered repositories",
            config.path().display()
        );
    }
    let window = Window {
        debounce: Duration::from_millis(settings.debounce_ms as u64),
        maximum: Duration::from_millis(settings.maximum_batch_ms as u64),
    };
    let idle = parse_duration(&settings.reconciliation_interval)
        .context("watcher.reconciliation_interval")?;
    let registry_file = loaded.config.repositories_file.clone();
    let config_file = config.path();
    let (send, receive) = channel();
    let mut watcher =
        RecommendedWatcher::new(send, notify::Config::default().with_follow_symlinks(false))?;
    // The registry's directory, for `init --repository` and `index_project`.
    if let Some(directory) = registry_file.parent() {
        watcher.watch(directory, RecursiveMode::NonRecursive)?;
    }
    let mut watched = watch_repositories(&mut watcher, &loaded, &[]);
    let mut flush_watched = watch_flush_requests(&mut watcher, &loaded.store(None), None);
    let mut live = Live {
        toolchains: Toolchains::default(),
        warm: WarmEngine::default(),
        store: loaded.store(None),
        status: WatcherStatus {
            process: ProcessRecord::this_process("watch"),
            repositories: seen(&watched),
            batches: Vec::new(),
            busy_since_unix_ms: None,
        },
        owed: Vec::new(),
        owed_database: false,
    };
    live.batch(&loaded, &out, Changes::none("start"));
    // The first pass read everything: whoever asked before it is answered.
    answer_flush_requests(&existing_requests(&live.store));
    out.watching(&watched, idle);
    loop {
        let ignored = ignored_directories(&loaded);
        let relevant = |path: &Path| {
            path == registry_file
                || (watched.iter().any(|w| path.starts_with(&w.path)) && relevant(path, &ignored))
        };
        let store = loaded.store(None);
        flush_watched = watch_flush_requests(&mut watcher, &store, Some(flush_watched));
        let is_flush = |path: &Path| store.is_flush_request(path);
        let filter = Filter {
            relevant: &relevant,
            flush: &is_flush,
        };
        // What a caller waiting for its saves (`fresh_within_ms`) reads.
        let mut on_phase = |phase: Phase| {
            live.status.busy_since_unix_ms = match phase {
                // What the last pass superseded is freed here rather than by the next pass,
                // which a save waits for, and the pages it freed go back to the system.
                // Callers stay told `busy` meanwhile: a save that comes now is only seen
                // after it.
                Phase::Quiet => {
                    live.warm.settle();
                    allocator::return_freed_pages();
                    return;
                }
                Phase::Idle => None,
                Phase::Busy => Some(unix_ms(SystemTime::now())),
            };
            if let Err(err) = store.write_watcher_status(&live.status) {
                out.error(&format!("the watcher's status could not be written: {err}"));
            }
        };
        // An owed analyzers' layer runs as soon as no change is queued; an owed database once
        // saves have paused (its write would hold up a save made meanwhile).
        let quiet_for = if !live.owed.is_empty() {
            Duration::ZERO
        } else if live.owed_database {
            DATABASE_AFTER_SAVES_PAUSE
        } else {
            idle
        };
        let next = batch::next(&receive, window, quiet_for, &filter, &mut on_phase);
        if matches!(next, Next::Idle) {
            // A pass of its own (a layer owed, a reconciliation) reads no event while it
            // runs: callers waiting for a save made meanwhile are told it is not settled.
            live.status.busy_since_unix_ms = Some(unix_ms(SystemTime::now()));
            if let Err(err) = store.write_watcher_status(&live.status) {
                out.error(&format!("the watcher's status could not be written: {err}"));
            }
        }
        match next {
            Next::Closed => bail!("the file-system watcher stopped"),
            Next::Flushed(requests) => answer_flush_requests(&requests),
            Next::Idle if !live.owed.is_empty() || live.owed_database => {
                let trigger = if live.owed.is_empty() {
                    "database"
                } else {
                    "analyzers"
                };
                live.batch(
                    &loaded,
                    &out,
                    Changes {
                        reread: Reread::Touched(Vec::new()),
                        ..Changes::none(trigger)
                    },
                );
                // Only once saves have paused: at the quiet after every save, trimming the C
                // heap delayed the next save's pass by tens of milliseconds.
                allocator::return_freed_c_heap();
            }
            Next::Idle => {
                live.batch(&loaded, &out, Changes::none("reconciliation"));
                allocator::return_freed_c_heap();
            }
            Next::Changes(mut changes) => {
                let requests = std::mem::take(&mut changes.flushes);
                for error in &changes.errors {
                    out.error(&format!("the watcher reported: {error}"));
                }
                let registry = changes.paths.contains(&registry_file);
                let trigger = if registry {
                    match config.load() {
                        Ok(reloaded) => {
                            loaded = reloaded;
                            // Other languages may call for other analyzers.
                            live.toolchains = Toolchains::default();
                        }
                        Err(err) => out.error(&format!("{}: {err:#}", config_file.display())),
                    }
                    watched = watch_repositories(&mut watcher, &loaded, &watched);
                    live.status.repositories = seen(&watched);
                    out.watching(&watched, idle);
                    "registry"
                } else {
                    "changes"
                };
                // A lost event may hide any change: read everything again, analyzers
                // included.
                let paths = changes.paths.len();
                let (reread, deferred) = if registry || !changes.errors.is_empty() {
                    (Reread::All, Vec::new())
                } else {
                    let deferred = touched_repositories(&loaded, &changes.paths, &live.owed);
                    (
                        Reread::Touched(changes.paths.into_iter().collect()),
                        deferred,
                    )
                };
                let changes = Changes {
                    trigger,
                    events: changes.events,
                    paths,
                    opened: changes.opened,
                    reread,
                    deferred,
                };
                live.batch(&loaded, &out, changes);
                answer_flush_requests(&requests);
            }
        }
    }
}

/// Watches the store's flush requests (`kivgraph_store::flush`), again only when the store
/// moved: the directory it was last tried for, watched or not (a failure is said once, not at
/// every batch).
fn watch_flush_requests(
    watcher: &mut RecommendedWatcher,
    store: &GenerationStore,
    watched: Option<PathBuf>,
) -> PathBuf {
    let directory = store.flush_directory();
    if watched.as_ref() == Some(&directory) {
        return directory;
    }
    if let Some(previous) = watched {
        let _ = watcher.unwatch(&previous);
    }
    let watching = std::fs::create_dir_all(&directory)
        .map_err(notify::Error::io)
        .and_then(|()| watcher.watch(&directory, RecursiveMode::NonRecursive));
    if let Err(err) = watching {
        // Callers still settle by the watcher's quiet (`fresh_within_ms`), a debounce later.
        tracing::warn!("flush requests are not watched: {err}");
    }
    directory
}

fn existing_requests(store: &GenerationStore) -> Vec<PathBuf> {
    std::fs::read_dir(store.flush_directory())
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Removing a request is its answer: every change sent before it is published.
fn answer_flush_requests(requests: &[PathBuf]) {
    for request in requests {
        let _ = std::fs::remove_file(request);
    }
}

/// What the watcher keeps from one pass to the next.
struct Live {
    toolchains: Toolchains,
    /// The engine and the repositories as read.
    warm: WarmEngine,
    /// The store that publishes: it holds the last published snapshot open, for the next
    /// publication to share its pages.
    store: GenerationStore,
    status: WatcherStatus,
    /// The repositories whose analyzers' layer the published generation still owes.
    owed: Vec<String>,
    /// Whether the published generation still owes its canonical database: a save's
    /// generation is published without one (writing it would make every save wait for it),
    /// and the pass that runs once saves pause writes it.
    owed_database: bool,
}

impl Live {
    /// Runs one batch's pass, and records it before `out` tells of it: whoever hears of the
    /// pass finds it in the status.
    fn batch(&mut self, loaded: &Loaded, out: &Output, changes: Changes) {
        if self.store.root() != loaded.config.generation_store() {
            self.store = loaded.store(None);
        }
        let save = changes.trigger == "changes";
        let store = if save {
            self.store.without_graph()
        } else {
            self.store.clone()
        };
        let outcome = pass(loaded, &self.toolchains, &mut self.warm, &store, &changes);
        if let Ok((PassResult::Published { deferred, .. }, _)) = &outcome {
            self.owed.clone_from(deferred);
            self.owed_database = save;
        }
        out.pass(&changes, outcome, &mut |record| {
            self.status.record(record);
            if let Err(err) = loaded.store(None).write_watcher_status(&self.status) {
                out.error(&format!("the watcher's status could not be written: {err}"));
            }
        });
    }
}

/// How long saves must pause before the canonical database of the generation they published
/// is written: an editing session in full flow never waits for it.
const DATABASE_AFTER_SAVES_PAUSE: Duration = Duration::from_secs(2);

/// Directories no pass reads, wherever they are: git's own, and build output (discovery
/// never enters a `target` directory, and rust-analyzer builds in one of its own). A build
/// writing thousands of files there runs no pass.
const UNREAD_DIRECTORIES: &[&str] = &[".git", "target"];

/// Whether a change at `path`, inside a watched repository, may change what a pass reads.
/// What discovery reads decides the rest: a change it does not read leaves the pass's inputs
/// as they were, and nothing is published. (Beside the registry, the configuration's
/// directory holds nothing a pass reads: a log written there runs no pass.)
fn relevant(path: &Path, ignored: &[PathBuf]) -> bool {
    !ignored.iter().any(|d| path.starts_with(d))
        && !path
            .components()
            .any(|c| UNREAD_DIRECTORIES.iter().any(|d| c.as_os_str() == *d))
}

/// One pass with the warm engine, published only when something the graph reads changed.
/// The fact cache is written by the first pass and by reconciliations, not on every save: a
/// process started later recomputes what it lacks. After a publication the generations older
/// than the backup are removed: a live graph publishes often, and `rollback` needs only the
/// one before.
fn pass(
    loaded: &Loaded,
    toolchains: &Toolchains,
    warm: &mut WarmEngine,
    store: &GenerationStore,
    changes: &Changes,
) -> anyhow::Result<(PassResult, Duration)> {
    let started = Instant::now();
    let warm = WarmPass {
        engine: warm,
        store,
        deferred: changes.deferred.clone(),
        trigger: changes.trigger,
        reread: changes.reread.clone(),
        persist: matches!(changes.trigger, "start" | "reconciliation"),
    };
    let result = index_and_publish(loaded, toolchains, &|_| {}, OnUnchanged::Skip, Some(warm))?;
    let elapsed = started.elapsed();
    if matches!(result, PassResult::Published { .. }) {
        // Another writer holding the lock prunes nothing now; the next publication will.
        if let Ok(lock) = store.lock() {
            match store.prune(&lock) {
                Ok(removed) if !removed.is_empty() => {
                    tracing::debug!(removed = removed.len(), "older generations removed")
                }
                Ok(_) => {}
                Err(err) => tracing::warn!("older generations could not be removed: {err}"),
            }
        }
    }
    Ok((result, elapsed))
}

/// Where the product writes, which no change to a repository is: the generations and the
/// fact cache (a configuration beside a checkout keeps them inside it).
fn ignored_directories(loaded: &Loaded) -> Vec<PathBuf> {
    vec![
        loaded.config.generation_store(),
        loaded.config.fact_cache_path.clone(),
        loaded.config.paths.state_dir.clone(),
    ]
}

/// What started a pass, and the changes it takes in.
struct Changes {
    trigger: &'static str,
    events: usize,
    paths: usize,
    /// When the batch's first change came.
    opened: Option<Instant>,
    /// Which repositories the pass reads again.
    reread: Reread,
    /// The repositories whose analyzers the pass leaves to the next (sorted): those the
    /// batch touched, and those whose analyzers' layer is still owed.
    deferred: Vec<String>,
}

impl Changes {
    fn none(trigger: &'static str) -> Self {
        Changes {
            trigger,
            events: 0,
            paths: 0,
            opened: None,
            reread: Reread::All,
            deferred: Vec::new(),
        }
    }
}

/// The registered repositories holding one of `paths`, with those already `owed`, sorted:
/// their syntax layer is published first, their analyzers' layer in the generation after.
fn touched_repositories(
    loaded: &Loaded,
    paths: &std::collections::BTreeSet<PathBuf>,
    owed: &[String],
) -> Vec<String> {
    let mut names: Vec<String> = loaded
        .registry
        .repositories
        .iter()
        .filter(|entry| paths.iter().any(|path| path.starts_with(&entry.path)))
        .map(|entry| entry.name.clone())
        .chain(owed.iter().cloned())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The repositories as the status file names them.
fn seen(watched: &[Watched]) -> Vec<WatchedRepository> {
    watched
        .iter()
        .map(|w| WatchedRepository {
            name: w.name.clone(),
            watching: w.watching,
            reason: w.reason.clone(),
        })
        .collect()
}

/// One registered repository and whether its changes are seen.
#[derive(Serialize, Clone)]
struct Watched {
    name: String,
    path: PathBuf,
    watching: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

/// Watches what the registry names now, and stops watching what it no longer names.
fn watch_repositories(
    watcher: &mut RecommendedWatcher,
    loaded: &Loaded,
    before: &[Watched],
) -> Vec<Watched> {
    for old in before.iter().filter(|w| w.watching) {
        if !loaded
            .registry
            .repositories
            .iter()
            .any(|r| r.path == old.path)
        {
            let _ = watcher.unwatch(&old.path);
        }
    }
    loaded
        .registry
        .repositories
        .iter()
        .map(|entry| {
            let already = before.iter().any(|w| w.watching && w.path == entry.path);
            let result = if already {
                Ok(())
            } else {
                watcher.watch(&entry.path, RecursiveMode::Recursive)
            };
            Watched {
                name: entry.name.clone(),
                path: entry.path.clone(),
                watching: result.is_ok(),
                reason: result.err().map(|err| unwatchable(&err)),
            }
        })
        .collect()
}

/// Why a repository is not watched, with the remedy when there is one.
fn unwatchable(error: &notify::Error) -> String {
    match &error.kind {
        notify::ErrorKind::MaxFilesWatch => "the inotify watch limit is reached \
             (fs.inotify.max_user_watches): raise it, e.g. `sysctl fs.inotify.max_user_watches=524288`; \
             until then its changes are found by reconciliation only"
            .to_string(),
        _ => format!("{error}; its changes are found by reconciliation only"),
    }
}

/// Where the watcher says what it does.
#[derive(Clone, Copy)]
pub enum Output {
    /// On stdout: JSON lines, or lines for a terminal.
    Lines { json: bool },
    /// In the log (the daemon's stdout is nobody's to read).
    Log,
}

impl Output {
    fn line(&self, event: serde_json::Value, text: String) {
        match self {
            Output::Lines { json } => {
                let mut stdout = std::io::stdout().lock();
                let _ = if *json {
                    writeln!(stdout, "{event}")
                } else {
                    writeln!(stdout, "watch: {text}")
                };
                let _ = stdout.flush();
            }
            Output::Log => tracing::info!(event = %event, "watch: {text}"),
        }
    }

    fn watching(&self, watched: &[Watched], idle: Duration) {
        let seen = watched.iter().filter(|w| w.watching).count();
        let mut text = format!(
            "watching {seen} of {} repositories (reconciling every {}s)",
            watched.len(),
            idle.as_secs()
        );
        for missed in watched.iter().filter(|w| !w.watching) {
            text.push_str(&format!(
                "\n  {}: {}",
                missed.name,
                missed.reason.as_deref().unwrap_or("")
            ));
        }
        self.line(
            serde_json::json!({"event": "watching", "repositories": watched,
                "reconciliation_interval_s": idle.as_secs()}),
            text,
        );
    }

    fn error(&self, detail: &str) {
        self.line(
            serde_json::json!({"event": "error", "detail": detail}),
            format!("error: {detail}"),
        );
    }

    /// A pass's outcome: what triggered it, how many changes it took in, and how long after
    /// the first of them the generation was published; returned as the status records it.
    /// Tells what a pass did, after `record` has kept it.
    fn pass(
        &self,
        changes: &Changes,
        outcome: anyhow::Result<(PassResult, Duration)>,
        record: &mut dyn FnMut(WatchedBatch),
    ) {
        let trigger = changes.trigger;
        let (events, paths) = (changes.events, changes.paths);
        let latency_ms = changes.opened.map(|at| at.elapsed().as_millis() as u64);
        let at = rfc3339_utc(SystemTime::now());
        let (result, duration) = match outcome {
            Ok(done) => done,
            Err(err) => {
                record(WatchedBatch {
                    at,
                    trigger: trigger.into(),
                    result: "failed".into(),
                    generation_id: None,
                    events,
                    latency_ms,
                    duration_ms: 0,
                });
                self.error(&format!("{trigger}: the pass failed: {err:#}"));
                return;
            }
        };
        let duration_ms = duration.as_millis() as u64;
        let (state, generation) = match &result {
            PassResult::Published { report, .. } => (
                "published",
                report["generation_id"].as_str().unwrap_or("").to_string(),
            ),
            PassResult::Unchanged(generation) => ("unchanged", generation.to_string()),
        };
        let text = match (state, latency_ms) {
            ("published", Some(latency)) => format!(
                "{trigger}: published generation {generation} ({events} events, {paths} paths; {latency} ms after the first)"
            ),
            ("published", None) => format!("{trigger}: published generation {generation}"),
            (_, _) => {
                format!("{trigger}: nothing the graph reads changed (generation {generation})")
            }
        };
        record(WatchedBatch {
            at,
            trigger: trigger.into(),
            result: state.into(),
            generation_id: Some(generation.clone()),
            events,
            latency_ms,
            duration_ms,
        });
        self.line(
            serde_json::json!({"event": "pass", "trigger": trigger, "result": state,
            "generation_id": generation, "events": events, "paths": paths,
            "duration_ms": duration_ms, "latency_ms": latency_ms,
            "phases_ms": match &result {
                PassResult::Published { report, .. } => report["index"]["phases_ms"].clone(),
                PassResult::Unchanged(_) => serde_json::Value::Null,
            },
            "exact_layer_follows": match &result {
                PassResult::Published { deferred, .. } => deferred.clone(),
                PassResult::Unchanged(_) => Vec::new(),
            }}),
            text,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_output_git_and_the_product_s_own_state_run_no_pass() {
        let ignored = [PathBuf::from("/work/state")];
        for path in [
            "/repo/src/lib.rs",
            "/repo/web/node_modules/dep/package.json",
            "/repo/targets/list.go",
        ] {
            assert!(relevant(Path::new(path), &ignored), "{path}");
        }
        for path in [
            "/repo/.git/index",
            "/repo/target/debug/build/out.rs",
            "/repo/crates/a/target/x",
            "/work/state/generations/000002/snapshot.kgs",
        ] {
            assert!(!relevant(Path::new(path), &ignored), "{path}");
        }
    }
}
