//! Fact sets: one repository as a pass read it, with its analyzers' answers, recorded
//! where it was indexed ([`Engine::record`]) and merged with the others into one pass
//! anywhere else ([`run_pass_from_records`]) — no checkout, no toolchain and no analyzer
//! is needed where they are merged. Syntax, resolution across repositories and the
//! layering of the answers run again at the merge, over every fact set at once, exactly as
//! one pass over the same checkouts would.

use std::collections::BTreeMap;
use std::sync::Arc;

use kivgraph_analyzers::{GoAnalyzer, RustAnalyzer, Toolchain};
use kivgraph_config::{FactCacheMode, GoBuildContext, RepositoryEntry};
use kivgraph_discovery::DiscoveredRepository;
use kivgraph_facts::{Fingerprint, Language};
use salsa::Setter;
use serde::{Deserialize, Serialize};

use super::engine::{Engine, EngineError};
use super::options::{AnalyzerOptions, PassOptions, Progress};
use super::run::{Checkouts, PassOutcome, Read, execute, read_checkouts};
use super::sync::LoadedRepository;
use crate::analysis::{ConfiguredIndexer, Recorded, RecordedUnits, recorded_units_of};
use crate::inputs::Workspace;

/// One repository as a pass read it and its analyzers answered it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecordedRepository {
    #[serde(with = "entry_as_json")]
    pub entry: RepositoryEntry,
    pub discovered: DiscoveredRepository,
    /// Parallel to `discovered.files`: each file's fingerprint and length in bytes, `None`
    /// where it could not be read.
    pub files: Vec<Option<(Fingerprint, u64)>>,
    /// Each text once, by ascending fingerprint.
    pub texts: Vec<(Fingerprint, String)>,
    pub analyzers: RecordedAnalyzers,
    pub units: RecordedUnits,
    /// The repositories registered beside it when its analyzers ran, by name: a
    /// provider's declarations its units bound uses to are answers only where that
    /// provider is merged too.
    pub workspace: Vec<String>,
}

/// The analyzers a repository's units were answered by, as the pass located them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RecordedAnalyzers {
    pub typescript: Option<Toolchain>,
    pub python: Option<Toolchain>,
    pub rust: Option<RustAnalyzer>,
    pub go: Option<GoAnalyzer>,
    pub go_build: GoBuildContext,
    pub scip_indexers: Vec<ConfiguredIndexer>,
    /// Why each absent analyzer is absent, by the language it serves.
    pub absent: Vec<(Language, String)>,
}

impl RecordedAnalyzers {
    fn of(options: &AnalyzerOptions) -> Self {
        RecordedAnalyzers {
            typescript: options.typescript.clone(),
            python: options.python.clone(),
            rust: options.rust.clone(),
            go: options.go.clone(),
            go_build: options.go_build.clone(),
            scip_indexers: options.scip_indexers.clone(),
            absent: options.absent.clone(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("repository {0:?} is not registered")]
    NotRegistered(String),
    #[error("repository {name:?} could not be read: {reason}")]
    Unreadable { name: String, reason: String },
    #[error("two fact sets hold repository {0:?}: a merge takes each repository once")]
    Duplicate(String),
    #[error(
        "the fact sets of {first:?} and {second:?} were answered by different {analyzer}s ({first_says} and {second_says}): index both with the same analyzers"
    )]
    AnalyzersDisagree {
        analyzer: &'static str,
        first: String,
        second: String,
        first_says: String,
        second_says: String,
    },
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// A registry entry as JSON text: the registry leaves its empty lists out, which a binary
/// encoding (that never names a field) cannot express.
mod entry_as_json {
    use kivgraph_config::RepositoryEntry;
    use serde::de::Error as _;
    use serde::ser::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(entry: &RepositoryEntry, out: S) -> Result<S::Ok, S::Error> {
        out.serialize_str(&serde_json::to_string(entry).map_err(S::Error::custom)?)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<RepositoryEntry, D::Error> {
        serde_json::from_str(&String::deserialize(input)?).map_err(D::Error::custom)
    }
}

impl RecordedRepository {
    fn new(
        entry: RepositoryEntry,
        read: &LoadedRepository,
        analyzers: RecordedAnalyzers,
        units: RecordedUnits,
        workspace: Vec<String>,
    ) -> Self {
        let mut texts: BTreeMap<Fingerprint, String> = BTreeMap::new();
        let files = read
            .sources
            .iter()
            .map(|source| {
                source.as_ref().map(|(fingerprint, text, len)| {
                    texts
                        .entry(*fingerprint)
                        .or_insert_with(|| text.to_string());
                    (*fingerprint, *len)
                })
            })
            .collect();
        RecordedRepository {
            entry,
            discovered: (*read.discovered).clone(),
            files,
            texts: texts.into_iter().collect(),
            analyzers,
            units,
            workspace,
        }
    }

    /// The repository as the pass that recorded it read it, and its units.
    fn into_read(self) -> ((RepositoryEntry, LoadedRepository), (String, RecordedUnits)) {
        let texts: BTreeMap<Fingerprint, Arc<str>> = self
            .texts
            .into_iter()
            .map(|(fingerprint, text)| (fingerprint, Arc::from(text)))
            .collect();
        let loaded = LoadedRepository {
            discovered: Arc::new(self.discovered),
            sources: self
                .files
                .iter()
                .map(|file| {
                    let (fingerprint, len) = (*file)?;
                    Some((fingerprint, texts.get(&fingerprint)?.clone(), len))
                })
                .collect(),
        };
        let name = self.entry.name.clone();
        ((self.entry, loaded), (name, self.units))
    }

    /// The repositories its analyzers saw that a merge of `merged` (by name) lacks: uses
    /// bound to them are answers no declaration of the merged graph receives.
    pub fn missing_from<'a>(&'a self, merged: &[&str]) -> Vec<&'a str> {
        self.workspace
            .iter()
            .map(String::as_str)
            .filter(|name| !merged.contains(name))
            .collect()
    }
}

impl Engine {
    /// Reads every repository of `entries`, runs the analyzers of repository `name` (only
    /// its own: the others are read for what its units import) and records it. Nothing is
    /// published and the fact cache is only read.
    pub fn record(
        entries: &[RepositoryEntry],
        name: &str,
        options: &PassOptions,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<RecordedRepository, RecordError> {
        let entry = entries
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| RecordError::NotRegistered(name.to_string()))?;
        let Checkouts { read, unavailable } =
            read_checkouts(entries, &options.analyzers.go_build, progress, |_| None);
        if let Some((_, reason)) = unavailable.iter().find(|(e, _)| e.name == name) {
            return Err(RecordError::Unreadable {
                name: name.to_string(),
                reason: reason.clone(),
            });
        }
        let mut engine = match options.fact_cache {
            FactCacheMode::Off => Engine::new(),
            FactCacheMode::On | FactCacheMode::Verify => {
                Engine::from_cache(&options.cache_directory, &options.identity).0
            }
        };
        let loaded: Vec<LoadedRepository> = read.iter().map(|(_, l)| l.clone()).collect();
        engine.update(&loaded);
        let mut others: Vec<String> = read
            .iter()
            .map(|(e, _)| e.name.clone())
            .filter(|other| other != name)
            .collect();
        others.sort();
        engine.set_analyzers(&AnalyzerOptions {
            deferred_repositories: others.clone(),
            ..options.analyzers.clone()
        });
        let workspace = Workspace::get(&engine.db);
        engine.analyze_units(workspace, progress, || {});
        let input = workspace
            .repositories(&engine.db)
            .iter()
            .copied()
            .find(|r| r.name(&engine.db) == name)
            .ok_or_else(|| RecordError::NotRegistered(name.to_string()))?;
        let units = recorded_units_of(&engine.db, input);
        let (_, repository) = read
            .iter()
            .find(|(e, _)| e.name == name)
            .ok_or_else(|| RecordError::NotRegistered(name.to_string()))?;
        Ok(RecordedRepository::new(
            entry.clone(),
            repository,
            RecordedAnalyzers::of(&options.analyzers),
            units,
            others,
        ))
    }

    /// Serves every unit from `recorded` (by repository name) instead of its analyzer.
    pub(super) fn set_recorded(&mut self, recorded: BTreeMap<String, RecordedUnits>) {
        match Recorded::try_get(&self.db) {
            Some(input) => {
                input.set_repositories(&mut self.db).to(recorded);
            }
            None => {
                Recorded::new(&self.db, recorded);
            }
        }
    }
}

/// One pass over fact sets recorded elsewhere, in a fresh engine (the fact cache is
/// neither read nor written): their repositories as they were read, each unit answered as
/// recorded. The analyzers the units were answered by must agree wherever two fact sets
/// hold the language an analyzer serves. The records are taken, not copied: their texts
/// and answers are most of what a merge holds.
pub fn run_pass_from_records(
    records: Vec<RecordedRepository>,
    options: &PassOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<PassOutcome, RecordError> {
    for (at, record) in records.iter().enumerate() {
        if records[..at]
            .iter()
            .any(|r| r.entry.name == record.entry.name)
        {
            return Err(RecordError::Duplicate(record.entry.name.clone()));
        }
    }
    let merged = merge_analyzers(&records, &options.analyzers.go_build)?;
    let options = PassOptions {
        fact_cache: FactCacheMode::Off,
        published_generation: None,
        analyzers: AnalyzerOptions {
            typescript: merged.typescript,
            python: merged.python,
            rust: merged.rust,
            go: merged.go,
            go_build: merged.go_build,
            scip_indexers: merged.scip_indexers,
            absent: merged.absent,
            deferred_repositories: Vec::new(),
            ..options.analyzers.clone()
        },
        ..options.clone()
    };
    let (read, units) = records
        .into_iter()
        .map(RecordedRepository::into_read)
        .unzip();
    Ok(execute(
        Read::Recorded(read, units),
        &options,
        progress,
        None,
    )?)
}

/// What decides a toolchain's answers: the tool and its version, not where the recording
/// machine keeps it.
fn answered_by(toolchain: &Toolchain) -> String {
    toolchain.identity()
}

/// rust-analyzer's answers are decided by its version and the build it loads, not by where
/// the recording machine keeps it, puts its build artifacts or found a standard library.
fn rust_answered_by(rust: &RustAnalyzer) -> RustAnalyzer {
    let mut decides = rust.clone();
    decides.toolchain.program = Default::default();
    decides.toolchain.source = String::new();
    decides.settings.target_directory = Default::default();
    if !matches!(decides.settings.sysroot.as_str(), "discover" | "none") {
        decides.settings.sysroot = "a path".into();
    }
    decides
}

/// The analyzers of the merged pass: each taken from the fact sets whose repository holds
/// a language it serves, whose answers must be decided alike (the same tools, versions and
/// settings, wherever each machine keeps them); the absent ones with the first reason given.
/// Without a Go repository, the build context is `go_build`'s (it decides nothing).
fn merge_analyzers(
    records: &[RecordedRepository],
    go_build: &GoBuildContext,
) -> Result<RecordedAnalyzers, RecordError> {
    /// The first holder's `value`, once every holder's `decides` equals the first's.
    fn agreed<T: Clone, K: PartialEq + std::fmt::Debug>(
        analyzer: &'static str,
        records: &[RecordedRepository],
        serves: &[Language],
        value: impl Fn(&RecordedAnalyzers) -> &T,
        decides: impl Fn(&T) -> K,
    ) -> Result<Option<T>, RecordError> {
        let mut holders = records
            .iter()
            .filter(|r| r.discovered.languages.iter().any(|l| serves.contains(l)));
        let Some(first) = holders.next() else {
            return Ok(None);
        };
        let expected = decides(value(&first.analyzers));
        for other in holders {
            let found = decides(value(&other.analyzers));
            if found != expected {
                return Err(RecordError::AnalyzersDisagree {
                    analyzer,
                    first: first.entry.name.clone(),
                    second: other.entry.name.clone(),
                    first_says: format!("{expected:?}"),
                    second_says: format!("{found:?}"),
                });
            }
        }
        Ok(Some(value(&first.analyzers).clone()))
    }
    let toolchain = |t: &Option<Toolchain>| t.as_ref().map(answered_by);
    let modules = [Language::TypeScript, Language::JavaScript];
    let typescript = agreed(
        "TypeScript analyzer",
        records,
        &modules,
        |a| &a.typescript,
        toolchain,
    )?;
    let python = agreed(
        "Python analyzer",
        records,
        &[Language::Python],
        |a| &a.python,
        toolchain,
    )?;
    let rust = agreed(
        "Rust analyzer",
        records,
        &[Language::Rust],
        |a| &a.rust,
        |r| r.as_ref().map(rust_answered_by),
    )?;
    let go = agreed(
        "Go analyzer",
        records,
        &[Language::Go],
        |a| &a.go,
        |g| {
            g.as_ref()
                .map(|g| (answered_by(&g.toolchain), g.settings.clone()))
        },
    )?;
    let merged_go_build = agreed(
        "Go build context",
        records,
        &[Language::Go],
        |a| &a.go_build,
        Clone::clone,
    )?;
    let scip_indexers = agreed(
        "configured SCIP indexer",
        records,
        Language::ALL,
        |a| &a.scip_indexers,
        Clone::clone,
    )?;
    let present = |language: Language| match language {
        Language::TypeScript | Language::JavaScript => {
            typescript.as_ref().is_some_and(Option::is_some)
        }
        Language::Python => python.as_ref().is_some_and(Option::is_some),
        Language::Rust => rust.as_ref().is_some_and(Option::is_some),
        Language::Go => go.as_ref().is_some_and(Option::is_some),
    };
    let mut absent: Vec<(Language, String)> = Vec::new();
    for record in records {
        for (language, why) in &record.analyzers.absent {
            let held = record.discovered.languages.contains(language);
            if held && !present(*language) && !absent.iter().any(|(l, _)| l == language) {
                absent.push((*language, why.clone()));
            }
        }
    }
    absent.sort();
    Ok(RecordedAnalyzers {
        typescript: typescript.flatten(),
        python: python.flatten(),
        rust: rust.flatten(),
        go: go.flatten(),
        go_build: merged_go_build.unwrap_or_else(|| go_build.clone()),
        scip_indexers: scip_indexers.unwrap_or_default(),
        absent,
    })
}

/// What a fact set must have been recorded by to be merged by this build: the same release
/// (its keys and fact model) and the same grammars (the syntax layer runs again at the
/// merge, against answers keyed by the recording one).
pub fn record_identity() -> String {
    format!(
        "kivgraph={};{}",
        env!("CARGO_PKG_VERSION"),
        kivgraph_syntax::GRAMMAR_VERSIONS
    )
}
