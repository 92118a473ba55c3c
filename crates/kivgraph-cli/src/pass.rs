//! One pass over every registered repository and its publication: what `index --full` runs
//! once and `watch` runs per batch of changes.

use std::sync::OnceLock;
use std::time::Instant;

use anyhow::bail;
use kivgraph_config::LanguageToken;
use kivgraph_config::{LoadedConfig, RepositoryEntry};
use kivgraph_engine::{
    AnalyzerOptions, CacheIdentity, CacheLoad, Engine, PassGraph, PassOptions, Progress, Reread,
    WarmEngine, run_pass,
};
use kivgraph_store::{GenerationId, GenerationStore};
use serde_json::json;

use crate::context::Loaded;
use crate::fact_set::FactSetFile;
use crate::publication::{
    Checkout, checkout_at, phases_report, record_pass_event, repositories_report, repository_states,
};

/// What a pass whose inputs the published generation already reflects does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnUnchanged {
    /// Publish it again, as a new generation (`index --full`: the user asked for one).
    Republish,
    /// Publish nothing (`watch`: a change outside what the graph reads).
    Skip,
}

/// A watcher's pass: its warm engine, the repositories a batch touched, and whether the
/// fact cache is written this time.
pub struct WarmPass<'a> {
    pub engine: &'a mut WarmEngine,
    /// The store the caller keeps: it holds the last published snapshot open, for the next
    /// publication to share its pages.
    pub store: &'a GenerationStore,
    /// The repositories whose analyzers this pass leaves to the next (sorted).
    pub deferred: Vec<String>,
    /// What ran the pass (`start`, `changes`, `analyzers`, …), for the event log.
    pub trigger: &'static str,
    pub reread: Reread,
    pub persist: bool,
}

/// What a pass did.
pub enum PassResult {
    /// A generation was published: the `index --full` report, and the repositories whose
    /// analyzers' layer it still owes (see [`WarmPass::deferred`]).
    Published {
        report: serde_json::Value,
        deferred: Vec<String>,
    },
    /// Nothing the graph reads changed: the generation already served.
    Unchanged(GenerationId),
}

fn cache_word(load: &CacheLoad) -> String {
    match load {
        CacheLoad::Loaded => "loaded".into(),
        CacheLoad::Absent => "absent".into(),
        CacheLoad::Foreign => "foreign (another build; ignored)".into(),
        CacheLoad::Corrupt(reason) => format!("corrupt ({reason}; ignored)"),
        CacheLoad::NotNeeded => "unchanged (the published generation's inputs; republished)".into(),
        CacheLoad::Kept => "kept (the watcher's engine, warm from its last pass)".into(),
    }
}

/// The analyzers a pass runs and the standard library it indexes, located at the first pass
/// (after its lock: the loser of a race is told before any work) and kept: locating asks
/// each analyzer for its version, which a watcher must not do on every save.
#[derive(Default)]
pub struct Toolchains {
    located: OnceLock<Located>,
}

struct Located {
    analyzers: AnalyzerOptions,
    standard_library: Option<Result<RepositoryEntry, String>>,
}

impl Toolchains {
    /// What the configuration and the registered repositories' languages call for.
    fn get(&self, loaded: &Loaded) -> &Located {
        self.located.get_or_init(|| {
            let analyzers = crate::analyzers::locate(&loaded.config).into_options(
                &loaded
                    .registry
                    .repositories
                    .iter()
                    .flat_map(|entry| kivgraph_discovery::enabled_languages(&entry.languages))
                    .collect(),
            );
            let standard_library = loaded
                .registry
                .repositories
                .iter()
                .any(|entry| entry.languages.contains(&LanguageToken::Rust))
                .then(|| {
                    crate::analyzers::standard_library(&loaded.config, analyzers.rust.as_ref())
                })
                .flatten();
            Located {
                analyzers,
                standard_library,
            }
        })
    }
}

impl Located {
    /// The registered repositories, and the standard library derived for them when it is
    /// indexed.
    fn entries(&self, loaded: &Loaded) -> Vec<RepositoryEntry> {
        let mut entries = loaded.registry.repositories.clone();
        match &self.standard_library {
            Some(Ok(derived)) => entries.push(derived.clone()),
            Some(Err(why)) => tracing::warn!(why, "the standard library is not indexed"),
            None => {}
        }
        entries
    }
}

/// A pass's options as the configuration sets them, with `analyzers`.
pub fn pass_options(config: &LoadedConfig, analyzers: AnalyzerOptions) -> PassOptions {
    PassOptions {
        published_generation: None,
        fact_cache: config.config.indexing.fact_cache,
        cache_directory: config.fact_cache_path.clone(),
        identity: CacheIdentity::of_this_build(),
        analyzers,
    }
}

/// Records repository `name` as a fact set (`index --facts-only`): read with every
/// registered repository beside it, its own analyzers run, nothing published.
pub fn record_repository(
    loaded: &Loaded,
    name: &str,
    progress: &(dyn Fn(Progress) + Sync),
) -> anyhow::Result<FactSetFile> {
    let files_read_at_unix_ms = Some(kivgraph_store::unix_ms(std::time::SystemTime::now()));
    let toolchains = Toolchains::default();
    let located = toolchains.get(loaded);
    let entries = located.entries(loaded);
    let options = pass_options(&loaded.config, located.analyzers.clone());
    let repository = Engine::record(&entries, name, &options, progress)?;
    Ok(FactSetFile {
        checkout: checkout_at(
            &repository.entry.path.to_string_lossy(),
            files_read_at_unix_ms,
        ),
        repository,
    })
}

/// Analyses every registered repository and publishes the result, recorded in the event
/// log (a log that cannot be written costs the record, never the pass).
pub fn index_and_publish(
    loaded: &Loaded,
    toolchains: &Toolchains,
    progress: &(dyn Fn(Progress) + Sync),
    on_unchanged: OnUnchanged,
    warm: Option<WarmPass>,
) -> anyhow::Result<PassResult> {
    let started = Instant::now();
    let (role, trigger) = match &warm {
        Some(warm) => ("watch", warm.trigger),
        None => ("index", "index --full"),
    };
    let result = publish_pass(loaded, toolchains, progress, on_unchanged, warm);
    let (state, generation) = match &result {
        Ok(PassResult::Published { report, .. }) => (
            "published",
            report["generation_id"].as_str().map(str::to_string),
        ),
        Ok(PassResult::Unchanged(generation)) => ("unchanged", Some(generation.to_string())),
        Err(_) => ("failed", None),
    };
    record_pass_event(
        &loaded.config.event_log_path,
        role,
        trigger,
        state,
        generation,
        started,
    );
    result
}

fn publish_pass(
    loaded: &Loaded,
    toolchains: &Toolchains,
    progress: &(dyn Fn(Progress) + Sync),
    on_unchanged: OnUnchanged,
    warm: Option<WarmPass>,
) -> anyhow::Result<PassResult> {
    let started = Instant::now();
    // Before discovery: a file saved after this may differ from what the pass read.
    let files_read_at_unix_ms = Some(kivgraph_store::unix_ms(std::time::SystemTime::now()));
    if loaded.registry.repositories.is_empty() {
        bail!("no repository is registered: run \"kivgraph init --repository NAME=PATH\" first");
    }
    let store = match &warm {
        Some(warm) => warm.store.clone(),
        None => loaded.store(None),
    };
    // Taken before any work: the loser of a race is told at once.
    let lock = store.lock()?;
    let toolchains = toolchains.get(loaded);
    let entries = toolchains.entries(loaded);
    // A generation whose canonical database is missing or of another schema is never
    // republished as unchanged: the pass computes again and writes it (what `upgrade` needs).
    let current = store.current()?.filter(|id| {
        store.manifest(*id).is_ok_and(|manifest| {
            manifest.graph.map(|graph| graph.counts.schema_version)
                == Some(kivgraph_facts::GRAPH_SCHEMA_VERSION)
        })
    });
    let options = PassOptions {
        published_generation: current.map(|id| id.0),
        analyzers: AnalyzerOptions {
            deferred_repositories: warm
                .as_ref()
                .map(|w| w.deferred.clone())
                .unwrap_or_default(),
            ..toolchains.analyzers.clone()
        },
        ..pass_options(&loaded.config, toolchains.analyzers.clone())
    };
    // Where each checkout stands in git (`git status` can take a while in a large checkout):
    // asked while the engine works.
    let git_positions = {
        let roots: Vec<String> = entries
            .iter()
            .filter(|e| !kivgraph_facts::is_derived(&e.name))
            .map(|e| e.path.to_string_lossy().to_string())
            .collect();
        std::thread::spawn(move || {
            roots
                .into_iter()
                .map(|root| {
                    let checkout = checkout_at(&root, files_read_at_unix_ms);
                    (root, checkout)
                })
                .collect::<std::collections::HashMap<_, _>>()
        })
    };
    // Once the pass knows it will publish, the previous database is copied while it computes.
    let prepared = std::sync::Mutex::new(None);
    let preparing = |event: Progress| {
        if event.phase == Progress::COMPUTE {
            let mut prepared = prepared.lock().unwrap_or_else(|e| e.into_inner());
            if prepared.is_none() {
                *prepared = store.prepare_database(&lock);
            }
        }
        progress(event)
    };
    let outcome = match warm {
        Some(warm) => {
            warm.engine
                .pass(&entries, &options, &preparing, warm.reread, warm.persist)?
        }
        None => run_pass(&entries, &options, &preparing)?,
    };
    let prepared = prepared.lock().unwrap_or_else(|e| e.into_inner()).take();
    if on_unchanged == OnUnchanged::Skip
        && let PassGraph::Unchanged { generation } = outcome.graph
    {
        return Ok(PassResult::Unchanged(GenerationId(generation)));
    }
    progress(Progress {
        phase: "publish",
        repository: None,
        completed: 0,
        total: 1,
    });
    let git_positions = git_positions.join().unwrap_or_default();
    let states = repository_states(&entries, &outcome, |report| {
        // A derived provider has no commit: nothing clones it, nothing moves it.
        git_positions
            .get(&report.root)
            .cloned()
            .unwrap_or(Checkout {
                files_read_at_unix_ms,
                ..Checkout::default()
            })
    });
    let published = match &outcome.graph {
        PassGraph::Computed(facts) => store.publish_prepared(&lock, facts, states, prepared)?,
        PassGraph::Unchanged { generation } => {
            store.republish(&lock, GenerationId(*generation), states)?
        }
    };
    outcome.record_published(&options, published.id.0)?;
    let phases = phases_report(&outcome, &published);
    let counts = &published.manifest.counts;
    let deferred: Vec<String> = outcome
        .repositories
        .iter()
        .filter(|r| r.analyzers.iter().any(|a| a.deferred))
        .map(|r| r.name.clone())
        .collect();
    let result = json!({
        "passed": true,
        "generation_id": published.id.to_string(),
        "previous_generation_id": published.previous.map(|p| p.to_string()),
        "generation_path": published.directory,
        "counts": counts,
        "index": {
            "files_total": outcome.files_total,
            "files_analyzed": outcome.files_analyzed,
            "fact_cache": loaded.config.config.indexing.fact_cache.as_str(),
            "fact_cache_state": cache_word(&outcome.cache),
            "fact_cache_bytes": outcome.cache_bytes,
            "duration_ms": started.elapsed().as_millis() as u64,
            "phases_ms": phases,
        },
        "repositories": repositories_report(&outcome),
        "standard_library": toolchains.standard_library.as_ref().map(|found| match found {
            Ok(entry) => json!({"repository": entry.name, "path": entry.path}),
            Err(why) => json!({"absent": why}),
        }),
    });
    // The computed graph takes a noticeable fraction of a second to free; the report does
    // not wait for it.
    std::thread::spawn(move || drop(outcome));
    Ok(PassResult::Published {
        report: result,
        deferred,
    })
}
