//! One published generation as the serving side sees it.

use std::path::Path;
use std::sync::OnceLock;
use std::time::SystemTime;

use kivgraph_facts::Language;
use kivgraph_snapshot::Snapshot;
use kivgraph_store::{GenerationId, GenerationStore, Manifest, unix_ms};

use crate::error::{ErrorCode, QueryError};

/// The mapped snapshot of a generation and its manifest.
pub struct Published {
    pub id: GenerationId,
    pub snapshot: Snapshot,
    pub manifest: Manifest,
    /// `graph_status`'s counts of the snapshot: a walk over every edge, done once.
    pub(crate) census: OnceLock<crate::census::Census>,
    /// Whether the files answers came from changed on disk since.
    pub(crate) file_checks: crate::staleness::FileChecks,
}

impl Published {
    /// Maps the generation `CURRENT` names; `INDEX_NOT_READY` when there is none.
    pub fn open_current(store: &GenerationStore) -> Result<Self, QueryError> {
        let unavailable = |detail: String| QueryError::new(ErrorCode::SnapshotUnavailable, detail);
        let id = store
            .current()
            .map_err(|e| unavailable(e.to_string()))?
            .ok_or_else(QueryError::index_not_ready)?;
        Self::open(store, id)
    }

    pub fn open(store: &GenerationStore, id: GenerationId) -> Result<Self, QueryError> {
        Self::open_after(store, id, None)
    }

    /// Opens generation `id`, sharing with `previous` (the generation a server answered
    /// from until now) every page the two have in common: a generation that changed one page
    /// costs the mapping and validation of that page alone.
    pub fn open_after(
        store: &GenerationStore,
        id: GenerationId,
        previous: Option<&Published>,
    ) -> Result<Self, QueryError> {
        let unavailable = |detail: String| {
            QueryError::new(
                ErrorCode::SnapshotUnavailable,
                format!("generation {id}: {detail}"),
            )
        };
        let manifest = store.manifest(id).map_err(|e| unavailable(e.to_string()))?;
        let snapshot =
            Snapshot::open_after(&store.snapshot_path(id), previous.map(|p| &p.snapshot))
                .map_err(|e| unavailable(e.to_string()))?;
        Ok(Self::from_parts(id, snapshot, manifest))
    }

    /// Opens a snapshot file directly (tests, tools).
    pub fn from_parts(id: GenerationId, snapshot: Snapshot, manifest: Manifest) -> Self {
        Published {
            id,
            snapshot,
            manifest,
            census: OnceLock::new(),
            file_checks: Default::default(),
        }
    }

    /// The files among `files` (snapshot file indices) that changed on disk since this
    /// generation read them, in the order given, each once.
    pub fn stale_files(&self, files: &[usize]) -> Vec<crate::staleness::StaleFile<'_>> {
        self.file_checks
            .stale(&self.snapshot, &self.manifest, files)
    }

    /// The repositories of `files` (snapshot file indices; every repository when there are
    /// none) whose analyzers' layer this generation still owes: a watcher published their
    /// saves with the syntax layer, and the analyzers' generation follows. By name, each once.
    pub fn exact_layer_owed(&self, files: &[usize]) -> Vec<&str> {
        let owed: Vec<&str> = self
            .manifest
            .repositories
            .iter()
            .filter(|r| r.analyzers.iter().any(|a| a.deferred))
            .map(|r| r.name.as_str())
            .collect();
        if owed.is_empty() || files.is_empty() {
            return owed;
        }
        let answered: std::collections::BTreeSet<&str> = files
            .iter()
            .filter_map(|index| self.snapshot.file(*index))
            .map(|file| file.repository().name())
            .collect();
        owed.into_iter()
            .filter(|name| answered.contains(name))
            .collect()
    }

    pub fn snapshot_id(&self) -> u64 {
        self.id.0
    }

    pub fn age_ms(&self) -> u64 {
        unix_ms(SystemTime::now()).saturating_sub(self.manifest.built_at_unix_ms)
    }

    /// Whether an exact analyzer read every unit of `language` in every repository that has
    /// its files (JavaScript is the TypeScript analyzer's): then a use under another name —
    /// an alias, a namespace or default import — is bound by the analyzer, not left to the
    /// reader.
    pub fn analyzed_everywhere(&self, language: Language) -> bool {
        let served = language.analyzed_as();
        let states: Vec<_> = self
            .manifest
            .repositories
            .iter()
            .flat_map(|r| &r.analyzers)
            .filter(|a| a.language == served.as_str())
            .collect();
        !states.is_empty() && states.iter().all(|a| a.is_complete())
    }

    /// Whether an exact analyzer read every unit of `language` in `repository`.
    pub fn analyzed_in(&self, repository: &str, language: Language) -> bool {
        let served = language.analyzed_as();
        self.manifest
            .repositories
            .iter()
            .filter(|r| r.name == repository)
            .flat_map(|r| &r.analyzers)
            .any(|a| a.language == served.as_str() && a.is_complete())
    }

    /// The absolute checkout path of a repository, as registered when it was indexed.
    pub fn repository_root(&self, name: &str) -> Option<&Path> {
        self.snapshot
            .repository_named(name)
            .map(|r| Path::new(r.root()))
    }
}

/// The exact string a symbol's stable key hashes (BLAKE3-256, base32): language, repository,
/// package, module, qualified name, kind and discriminator, NUL-separated and length-prefixed.
pub fn canonical_identity(symbol: &kivgraph_snapshot::SymbolView) -> String {
    let file = symbol.file();
    kivgraph_facts::StableKeyIdentity {
        language: symbol.language().as_str(),
        repository: file.repository().name(),
        package: file.package().name(),
        module: symbol.key_module(),
        qualified_name: symbol.qualified_name(),
        kind: symbol.kind().as_str(),
        discriminator: symbol.key_discriminator(),
    }
    .canonical()
    .unwrap_or_default()
}
