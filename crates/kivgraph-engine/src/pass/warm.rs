//! What a long-running caller (a watcher) keeps between passes: the engine with its memos,
//! and each repository as the last pass read it, so the next pass reads again only the
//! repositories a batch of changes touched.

use std::path::PathBuf;

use kivgraph_config::{GoBuildContext, RepositoryEntry};

use super::engine::Engine;
use super::record::DiscoveryDigests;
use super::sync::{LoadedRepository, MAXIMUM_FILE_BYTES, source_of};

#[derive(Default)]
pub struct WarmEngine {
    pub(super) engine: Option<Engine>,
    /// Each repository the last pass read, with the registry entry it was read for.
    pub(super) read: Vec<(RepositoryEntry, LoadedRepository)>,
    /// The digests of those repositories' discoveries.
    pub(super) digests: DiscoveryDigests,
}

/// Which repositories a warm pass reads again.
#[derive(Debug, Clone)]
pub enum Reread {
    /// Every one (the first pass, a registry change, a reconciliation).
    All,
    /// Those whose checkout holds one of these paths (only the saved files, when saves are
    /// all that happened there); the others are as the last pass read them.
    Touched(Vec<PathBuf>),
}

impl WarmEngine {
    /// Frees now what the last pass superseded — the memos it computed again, which salsa
    /// keeps until its next revision — so that the next update, which a save waits for, does
    /// not. For a caller with nothing else to do between passes.
    pub fn settle(&mut self) {
        if let Some(engine) = self.engine.as_mut() {
            salsa::Database::trigger_lru_eviction(&mut engine.db);
        }
    }

    /// `entry`'s repository as the last pass read it, unless it must be read again; a
    /// repository the batch touched only by saving files that pass read has those files
    /// read again, and the rest kept (see [`WarmEngine::resaved`]).
    pub(super) fn kept(
        &self,
        entry: &RepositoryEntry,
        reread: &Reread,
        go: &GoBuildContext,
    ) -> Option<LoadedRepository> {
        let Reread::Touched(paths) = reread else {
            return None;
        };
        let (_, read) = self.read.iter().find(|(read, _)| read == entry)?;
        let touched: Vec<&PathBuf> = paths
            .iter()
            .filter(|path| path.starts_with(&entry.path))
            .collect();
        if touched.is_empty() {
            return Some(read.clone());
        }
        resaved(entry, read, &touched, go)
    }
}

/// `read` with the files at `touched` read again, when a save of their text is all that
/// happened to the repository: each is a file the pass read, still read by discovery run
/// again (a Go build constraint may now leave it out), or a path that is gone and held no
/// file the pass read (an editor's temporary file, renamed over the original). A file added,
/// removed or renamed, a manifest or a directory is discovery's to read: `None`.
fn resaved(
    entry: &RepositoryEntry,
    read: &LoadedRepository,
    touched: &[&PathBuf],
    go: &GoBuildContext,
) -> Option<LoadedRepository> {
    let mut repository = read.clone();
    for path in touched {
        let relative = path.strip_prefix(&entry.path).ok()?.to_str()?;
        let relative = relative.replace(std::path::MAIN_SEPARATOR, "/");
        let files = &repository.discovered.files;
        let Ok(position) = files.binary_search_by(|file| file.path.as_str().cmp(&relative)) else {
            let under = format!("{relative}/");
            let held_something = files.iter().any(|file| file.path.starts_with(&under));
            if path.symlink_metadata().is_err() && !held_something {
                continue;
            }
            return None;
        };
        let metadata = path.symlink_metadata().ok()?;
        if !metadata.is_file() || metadata.len() > MAXIMUM_FILE_BYTES {
            return None;
        }
        let bytes = std::fs::read(path).ok()?;
        if !repository.discovered.still_reads(go, &relative, &bytes) {
            return None;
        }
        repository.sources[position] = Some(source_of(bytes));
    }
    Some(repository)
}
