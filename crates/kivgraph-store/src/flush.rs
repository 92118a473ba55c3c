//! A caller waiting for its own saves (`fresh_within_ms`) asks the watcher not to wait out
//! its debounce: it creates a file under `flush/`, which the watcher watches. File-system
//! events reach the watcher in the order they happened, so every save the caller made is
//! already in the watcher's open batch when the request arrives; the watcher closes that
//! batch at once and removes the file when the pass holding it has ended. A removed request
//! is the answer: everything the caller saved before asking is in the current generation.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{StoreError, io};
use crate::store::GenerationStore;

/// The directory of requests, under the store's root.
pub const FLUSH_DIRECTORY: &str = "flush";

/// One caller's request; dropping it withdraws it.
#[derive(Debug)]
pub struct FlushRequest {
    path: PathBuf,
}

impl FlushRequest {
    /// Whether the watcher has published every change it was sent before the request.
    pub fn answered(&self) -> bool {
        !self.path.exists()
    }
}

impl Drop for FlushRequest {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl GenerationStore {
    pub fn flush_directory(&self) -> PathBuf {
        self.root().join(FLUSH_DIRECTORY)
    }

    /// Whether `path` is a request (the watcher asks this of every event it hears).
    pub fn is_flush_request(&self, path: &Path) -> bool {
        path.parent() == Some(self.flush_directory().as_path())
    }

    /// Files a request, named for this process and a counter, so concurrent callers never
    /// share one.
    pub fn request_flush(&self) -> Result<FlushRequest, StoreError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let directory = self.flush_directory();
        std::fs::create_dir_all(&directory).map_err(io("create", &directory))?;
        let path = directory.join(format!(
            "{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::File::create(&path).map_err(io("create", &path))?;
        Ok(FlushRequest { path })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_answered_when_its_file_is_removed_and_withdrawn_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let store = GenerationStore::new(dir.path());
        let first = store.request_flush().unwrap();
        let second = store.request_flush().unwrap();
        assert_ne!(first.path, second.path);
        assert!(store.is_flush_request(&first.path));
        assert!(!store.is_flush_request(&dir.path().join("watch.json")));
        assert!(!first.answered());
        std::fs::remove_file(&first.path).unwrap();
        assert!(first.answered() && !second.answered());
        let left = second.path.clone();
        drop(second);
        assert!(!left.exists());
    }
}
