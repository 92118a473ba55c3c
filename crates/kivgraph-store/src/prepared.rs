//! The previous generation's database copied ahead of the update that amends it. A warm pass
//! starts the copy as soon as it knows it will publish, so the copy and its write-back to the
//! disk happen while the pass still computes, on the core the pass leaves idle, rather than
//! on the publication's critical path.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use crate::canonical_graph::CanonicalGraph;
use crate::error::{StoreError, io};

/// What the directory holding a copy in the making is called: `<prefix><pid>-<n>`.
pub(crate) const PREPARED_PREFIX: &str = ".prepared-";

/// A copy of a generation's database in the making, in a directory of its own that is removed
/// when this is dropped (by the copying thread, if it has not finished).
#[derive(Debug)]
pub struct PreparedDatabase {
    source: PathBuf,
    directory: PathBuf,
    copy: PathBuf,
    copied: mpsc::Receiver<Result<(), String>>,
    state: Arc<Mutex<CopyState>>,
}

#[derive(Debug, Default)]
struct CopyState {
    /// The copy was made (or failed): the thread no longer writes into the directory.
    done: bool,
    /// Dropped before the copy was made: the thread removes the directory when it is.
    abandoned: bool,
}

impl PreparedDatabase {
    /// Starts copying the database at `source` into a new directory under `generations`.
    pub(crate) fn start(
        graph: Arc<dyn CanonicalGraph>,
        source: PathBuf,
        generations: &Path,
    ) -> Result<Self, StoreError> {
        static STARTED: AtomicU64 = AtomicU64::new(0);
        let directory = generations.join(format!(
            "{PREPARED_PREFIX}{}-{}",
            std::process::id(),
            STARTED.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&directory).map_err(io("create", &directory))?;
        let copy = directory.join(graph.file_name());
        let (sender, copied) = mpsc::channel();
        let state = Arc::new(Mutex::new(CopyState::default()));
        let thread = {
            let (source, directory, copy, state) = (
                source.clone(),
                directory.clone(),
                copy.clone(),
                state.clone(),
            );
            move || {
                let result = graph.copy(&source, &copy);
                // Opened before the copy is handed over: it may be renamed at once.
                let file = result.is_ok().then(|| std::fs::File::open(&copy).ok());
                let _ = sender.send(result);
                {
                    let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
                    if state.abandoned {
                        let _ = std::fs::remove_dir_all(&directory);
                        return;
                    }
                    state.done = true;
                }
                // The bytes go to the disk now, so that the update's checkpoint finds little
                // left to sync; a failure is the checkpoint's to report.
                if let Some(Some(file)) = file {
                    let _ = file.sync_data();
                }
            }
        };
        std::thread::Builder::new()
            .name("kivgraph-database-copy".into())
            .spawn(thread)
            .map_err(io("start a thread to copy", &source))?;
        Ok(PreparedDatabase {
            source,
            directory,
            copy,
            copied,
            state,
        })
    }

    /// The database this is a copy of.
    pub(crate) fn source(&self) -> &Path {
        &self.source
    }

    /// Waits for the copy and moves it to `path`.
    pub(crate) fn finish(self, path: &Path) -> Result<(), String> {
        self.copied
            .recv()
            .map_err(|_| "the copying thread ended without a word".to_string())??;
        std::fs::rename(&self.copy, path)
            .map_err(|e| format!("moving {} to {}: {e}", self.copy.display(), path.display()))
    }
}

impl Drop for PreparedDatabase {
    fn drop(&mut self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.done {
            let _ = std::fs::remove_dir_all(&self.directory);
        } else {
            state.abandoned = true;
        }
    }
}

/// Whether a directory in the generations directory is a copy in the making that a process
/// other than this one left behind (this process's own go when they are dropped).
pub(crate) fn left_by_another_process(name: &str) -> bool {
    name.strip_prefix(PREPARED_PREFIX)
        .and_then(|rest| rest.split('-').next())
        .is_some_and(|pid| pid != std::process::id().to_string())
}
