//! What a long-running caller (a watcher) keeps between passes: the engine with its memos,
//! and each repository as the last pass read it, so the next pass reads again only the
//! repositories a batch of changes touched.

use std::path::PathBuf;

use kivgraph_config::RepositoryEntry;

use super::engine::Engine;
use super::sync::LoadedRepository;

#[derive(Default)]
pub struct WarmEngine {
    pub(super) engine: Option<Engine>,
    /// Each repository the last pass read, with the registry entry it was read for.
    pub(super) read: Vec<(RepositoryEntry, LoadedRepository)>,
}

/// Which repositories a warm pass reads again.
#[derive(Debug, Clone)]
pub enum Reread {
    /// Every one (the first pass, a registry change, a reconciliation).
    All,
    /// Those whose checkout holds one of these paths; the others are as the last pass read
    /// them.
    Touched(Vec<PathBuf>),
}

impl WarmEngine {
    /// `entry`'s repository as the last pass read it, unless it must be read again.
    pub(super) fn kept(
        &self,
        entry: &RepositoryEntry,
        reread: &Reread,
    ) -> Option<LoadedRepository> {
        let Reread::Touched(paths) = reread else {
            return None;
        };
        if paths.iter().any(|path| path.starts_with(&entry.path)) {
            return None;
        }
        self.read
            .iter()
            .find(|(read, _)| read == entry)
            .map(|(_, repository)| repository.clone())
    }
}
