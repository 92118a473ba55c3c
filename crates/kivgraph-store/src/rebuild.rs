//! Rebuilding a published generation's hot snapshot from the facts its canonical database
//! holds: every page laid out again in scratch space, proven byte-identical to what the
//! manifest records (each page's snapshot and facts digests, and the root's), and only then
//! moved into the generation in place of its files. Nothing changes when a digest differs.

use kivgraph_facts::{FactPage, FactSet};
use kivgraph_snapshot::{PAGES_DIRECTORY, write_root};

use crate::GenerationId;
use crate::decoded::Decoded;
use crate::error::{StoreError, io};
use crate::layout::{SNAPSHOT_FILE, sync_dir, write_synced};
use crate::pages::{FACTS_DIRECTORY, hex, root_entries, write_pages};
use crate::store::{GenerationStore, PublishLock};

/// One page of facts read back from a database.
struct ReadBack<'a>(u32, &'a FactSet);

impl FactPage for ReadBack<'_> {
    fn number(&self) -> u32 {
        self.0
    }
    fn identity(&self) -> Option<[u8; 32]> {
        None
    }
    fn facts(&self) -> FactSet {
        self.1.clone()
    }
}

/// What a rebuild proved and replaced.
#[derive(Debug, Clone)]
pub struct Rebuilt {
    pub id: GenerationId,
    pub pages: usize,
    /// BLAKE3 of the root's payload, hex: the digest the manifest records.
    pub snapshot_payload: String,
}

impl GenerationStore {
    /// Lays out generation `id`'s snapshot again from `pages` (each page's number and facts,
    /// as its database holds them) and, once every digest equals its manifest's, replaces the
    /// generation's snapshot and facts files with the rebuilt ones; then verifies it whole.
    pub fn rebuild_snapshot(
        &self,
        _lock: &PublishLock,
        id: GenerationId,
        pages: &[(u32, FactSet)],
    ) -> Result<Rebuilt, StoreError> {
        let directory = self.generation_dir(id);
        let manifest = self.manifest(id)?;
        let refused = |reason: String| StoreError::Invalid {
            id,
            reason: format!("its database does not rebuild its snapshot: {reason}"),
        };
        // Named like a publication's candidate, so one a crash leaves is removed by the next.
        let scratch = self.root().join(format!(
            "generations/.tmp-rebuild-{id}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&scratch);
        std::fs::create_dir_all(&scratch).map_err(io("create", &scratch))?;
        let result = (|| {
            let read_back: Vec<ReadBack> = pages.iter().map(|(n, f)| ReadBack(*n, f)).collect();
            let written = write_pages(&scratch, id, &Decoded::new(&read_back), None, &mut |_| {})?;
            for (rebuilt, published) in written.entries.iter().zip(&manifest.pages) {
                if (rebuilt.number, &rebuilt.snapshot, &rebuilt.facts)
                    != (published.number, &published.snapshot, &published.facts)
                {
                    return Err(refused(format!("page {} differs", published.number)));
                }
            }
            if written.entries.len() != manifest.pages.len() {
                return Err(refused(format!(
                    "{} pages where the manifest records {}",
                    written.entries.len(),
                    manifest.pages.len()
                )));
            }
            let root = write_root(id.0, &root_entries(&written.entries));
            let payload = hex(blake3::hash(&root[64..]).as_bytes());
            if payload != manifest.digests.snapshot_payload {
                return Err(refused("the root differs".into()));
            }
            write_synced(&scratch.join(SNAPSHOT_FILE), &root)?;
            // Proven identical: each rebuilt file replaces the published one by rename, so a
            // file another generation links to is never written in place.
            for sub in [PAGES_DIRECTORY, FACTS_DIRECTORY] {
                let from = scratch.join(sub);
                for file in std::fs::read_dir(&from).map_err(io("read", &from))? {
                    let file = file.map_err(io("read", &from))?;
                    let target = directory.join(sub).join(file.file_name());
                    std::fs::rename(file.path(), &target).map_err(io("replace", &target))?;
                }
                sync_dir(&directory.join(sub))?;
            }
            let target = directory.join(SNAPSHOT_FILE);
            std::fs::rename(scratch.join(SNAPSHOT_FILE), &target)
                .map_err(io("replace", &target))?;
            sync_dir(&directory)?;
            Ok(Rebuilt {
                id,
                pages: written.entries.len(),
                snapshot_payload: payload,
            })
        })();
        let _ = std::fs::remove_dir_all(&scratch);
        let rebuilt = result?;
        self.verify(id)?;
        Ok(rebuilt)
    }
}
