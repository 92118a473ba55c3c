//! Whether the files an answer's rows come from still hold what the generation read. A file
//! whose size and modification time say it was not touched since the pass began reading is
//! as it was (the cheap look); one touched since is read and its content's fingerprint
//! compared with the indexed one, and the verdict is remembered until the file is touched
//! again — an editor's save of unchanged text is not a change. A checkout that is gone
//! altogether is reported by the repository's freshness row, not file by file.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use kivgraph_facts::Fingerprint;
use kivgraph_snapshot::{FileView, Snapshot};
use kivgraph_store::Manifest;
use serde::Serialize;

/// What happened to a file since the generation read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Modified,
    Deleted,
}

/// A file of an answer that changed on disk after its generation read it: rows from it may
/// name lines or declarations that are no longer there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StaleFile<'a> {
    pub repository: &'a str,
    pub path: &'a str,
    pub change: Change,
}

/// The verdicts of one generation's files, by snapshot file index.
#[derive(Default)]
pub(crate) struct FileChecks(Mutex<HashMap<usize, Seen>>);

#[derive(Clone, Copy)]
struct Seen {
    len: u64,
    modified: SystemTime,
    change: Option<Change>,
}

impl FileChecks {
    /// The files among `files` (indices into `snapshot`) that changed on disk since the
    /// generation `manifest` describes read them, in the order given, each once.
    pub(crate) fn stale<'a>(
        &self,
        snapshot: &'a Snapshot,
        manifest: &Manifest,
        files: &[usize],
    ) -> Vec<StaleFile<'a>> {
        let mut seen = std::collections::HashSet::new();
        files
            .iter()
            .filter(|index| seen.insert(**index))
            .filter_map(|index| {
                let file = snapshot.file(*index)?;
                Some(StaleFile {
                    change: self.change(manifest, &file)?,
                    repository: file.repository().name(),
                    path: file.path(),
                })
            })
            .collect()
    }

    fn change(&self, manifest: &Manifest, file: &FileView) -> Option<Change> {
        let repository = file.repository();
        let root = Path::new(repository.root());
        // A checkout that is gone is the repository's freshness to report (`moved`), not a
        // deletion of each of its files.
        if !root.is_dir() {
            return None;
        }
        let on_disk = root.join(file.path());
        let Ok(meta) = std::fs::metadata(&on_disk) else {
            return Some(Change::Deleted);
        };
        let modified = meta.modified().unwrap_or(UNIX_EPOCH);
        let mut checks = self.0.lock().expect("file checks lock");
        if let Some(seen) = checks.get(&file.index)
            && seen.len == meta.len()
            && seen.modified == modified
        {
            return seen.change;
        }
        let read_at = manifest
            .repositories
            .iter()
            .find(|r| r.name == repository.name())
            .and_then(|r| r.files_read_at_unix_ms)
            .unwrap_or(manifest.built_at_unix_ms);
        let untouched = modified < UNIX_EPOCH + Duration::from_millis(read_at);
        let change = if untouched {
            None
        } else {
            match std::fs::read(&on_disk) {
                Ok(bytes) if Fingerprint::of(&bytes) == file.fingerprint() => None,
                Ok(_) => Some(Change::Modified),
                Err(_) => Some(Change::Deleted),
            }
        };
        checks.insert(
            file.index,
            Seen {
                len: meta.len(),
                modified,
                change,
            },
        );
        change
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::published::Published;
    use crate::testing::{facts, published};

    #[test]
    fn a_file_is_stale_when_its_content_changed_since_the_read_and_not_when_only_touched() {
        let dir = tempfile::tempdir().unwrap();
        let mut facts = facts();
        for repository in &mut facts.repositories {
            repository.root = dir.path().join(&repository.name).display().to_string();
            std::fs::create_dir_all(&repository.root).unwrap();
        }
        // The fixture fingerprints each file by its path.
        std::fs::write(dir.path().join("core/parse.go"), "parse.go").unwrap();
        let published = published(&facts);
        let index = |path: &str| {
            published
                .snapshot
                .files()
                .find(|f| f.path() == path)
                .unwrap()
                .index
        };
        let (parse, main) = (index("parse.go"), index("main.go"));
        let stale = |published: &Published| {
            published
                .stale_files(&[parse, main, parse])
                .into_iter()
                .map(|s| (s.repository.to_string(), s.path.to_string(), s.change))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            stale(&published),
            [("app".into(), "main.go".into(), Change::Deleted)]
        );
        std::fs::write(dir.path().join("app/main.go"), "package app // edited").unwrap();
        assert_eq!(
            stale(&published),
            [("app".into(), "main.go".into(), Change::Modified)]
        );
        // Saved again with the text the generation read: touched, not changed.
        std::fs::write(dir.path().join("app/main.go"), "main.go").unwrap();
        assert_eq!(stale(&published), []);
        // A read after the file's last write needs no hashing to know it is as read.
        std::fs::write(dir.path().join("app/main.go"), "edited before the pass").unwrap();
        let mut later = crate::testing::published(&facts);
        for repository in &mut later.manifest.repositories {
            repository.files_read_at_unix_ms = Some(u64::MAX / 2);
        }
        assert_eq!(stale(&later), []);
    }
}
