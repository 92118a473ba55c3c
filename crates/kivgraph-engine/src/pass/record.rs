//! What the last published pass was computed from: the digest of every input of the pass
//! (the build, the analyzers and their settings, the registry entries, each discovered
//! file's path and fingerprint, the manifests' module maps) with the generation it became.
//!
//! It is the top memo of the engine. When a pass with the fact cache `on` finds the same
//! digest and that generation is still the one served, the generation *is* the pass's
//! answer: the caller republishes it instead of loading every memo to rebuild the same
//! bytes. The digest covers what the memo tables' keys cover, no more and no less.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::options::AnalyzerOptions;
use super::report::RepositoryReport;
use super::sync::LoadedRepository;
use kivgraph_config::RepositoryEntry;
use kivgraph_discovery::DiscoveredRepository;
use serde::{Deserialize, Serialize};

const FILE_NAME: &str = "last-pass.bin";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PassRecord {
    pub inputs_digest: String,
    pub generation: u64,
    pub repositories: Vec<RepositoryReport>,
    pub files_total: usize,
}

/// Feeds formatted text straight into the hasher.
struct HashWriter(blake3::Hasher);

impl std::fmt::Write for HashWriter {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.0.update(text.as_bytes());
        Ok(())
    }
}

/// Digests of discoveries already hashed, known by pointer: a warm pass hashes again only
/// what discovery read again.
#[derive(Default)]
pub(crate) struct DiscoveryDigests(Vec<(Arc<DiscoveredRepository>, blake3::Hash)>);

impl DiscoveryDigests {
    fn of(&self, discovered: &Arc<DiscoveredRepository>) -> blake3::Hash {
        self.0
            .iter()
            .find(|(known, _)| Arc::ptr_eq(known, discovered))
            .map(|(_, digest)| *digest)
            .unwrap_or_else(|| {
                let mut hasher = HashWriter(blake3::Hasher::new());
                let _ = write!(hasher, "{discovered:?}");
                hasher.0.finalize()
            })
    }
}

/// The digest of everything a pass computes from. `Debug` renderings are hashed: the build
/// identity is part of the digest, so a rendering that changes between builds never
/// matches an old record, and within one build it is deterministic (ordered collections
/// only). `digests` is left holding the digests of `loaded`'s discoveries.
pub(crate) fn inputs_digest(
    build: &str,
    analyzers: &AnalyzerOptions,
    entries: &[RepositoryEntry],
    loaded: &[LoadedRepository],
    unavailable: &[(RepositoryEntry, String)],
    digests: &mut DiscoveryDigests,
) -> String {
    let mut hasher = HashWriter(blake3::Hasher::new());
    // Writing into a hasher cannot fail.
    let _ = writeln!(
        hasher,
        "{build}\n{analyzers:?}\n{entries:?}\n{unavailable:?}"
    );
    let mut known = Vec::with_capacity(loaded.len());
    for repository in loaded {
        let discovered = digests.of(&repository.discovered);
        hasher.0.update(discovered.as_bytes());
        known.push((repository.discovered.clone(), discovered));
        for source in &repository.sources {
            match source {
                Some((fingerprint, _, length)) => {
                    hasher.0.update(&[1]);
                    hasher.0.update(&fingerprint.0);
                    hasher.0.update(&length.to_le_bytes());
                }
                None => {
                    hasher.0.update(&[0]);
                }
            }
        }
    }
    digests.0 = known;
    hasher.0.finalize().to_hex().to_string()
}

fn record_file(cache_directory: &Path) -> PathBuf {
    cache_directory.join(FILE_NAME)
}

impl PassRecord {
    /// The record, when there is a readable one.
    pub fn read(cache_directory: &Path) -> Option<PassRecord> {
        let bytes = std::fs::read(record_file(cache_directory)).ok()?;
        postcard::from_bytes(&bytes).ok()
    }

    /// Written after the generation is published: a record never names a generation that
    /// does not exist yet. Written to a temporary and renamed, so a reader sees the old
    /// record or the new one.
    pub fn write(&self, cache_directory: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(cache_directory)?;
        let bytes = postcard::to_stdvec(self).map_err(std::io::Error::other)?;
        let temporary = cache_directory.join(format!("{FILE_NAME}.{}", std::process::id()));
        std::fs::write(&temporary, bytes)?;
        std::fs::rename(&temporary, record_file(cache_directory))
    }
}
