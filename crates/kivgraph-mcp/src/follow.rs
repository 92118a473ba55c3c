//! Following the published generation: the first query maps it, a newer `CURRENT` replaces
//! it, and a mapping is released when the last request holding it ends.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use kivgraph_query::{Published, QueryError};
use kivgraph_store::GenerationStore;

pub struct Follower {
    store: GenerationStore,
    loaded: Mutex<Option<Arc<Published>>>,
    rewind_reported: AtomicBool,
}

impl Follower {
    pub fn new(store: GenerationStore) -> Self {
        Follower {
            store,
            loaded: Mutex::new(None),
            rewind_reported: AtomicBool::new(false),
        }
    }

    /// Whether any generation is published (a pointer read; no mapping).
    pub fn has_generation(&self) -> bool {
        matches!(self.store.current(), Ok(Some(_)))
            || self.loaded.lock().expect("follower lock").is_some()
    }

    /// The generation to answer from: the one `CURRENT` names, mapped on first use.
    pub fn current(&self) -> Result<Arc<Published>, QueryError> {
        let pointer = self.store.current().ok().flatten();
        let mut loaded = self.loaded.lock().expect("follower lock");
        match (pointer, loaded.as_ref()) {
            (Some(id), Some(published)) if id == published.id => Ok(published.clone()),
            (Some(id), Some(published)) if id < published.id => {
                self.report_rewind(&id.to_string(), published);
                Ok(published.clone())
            }
            (Some(id), before) => {
                let opened = Published::open_after(&self.store, id, before.map(|p| &**p)).or_else(
                    |err| {
                        // A live watcher publishes often and removes what is older than
                        // the backup: a generation named a moment ago may be gone. The one
                        // named now is what to answer from.
                        match self.store.current().ok().flatten() {
                            Some(now) if now != id => {
                                Published::open_after(&self.store, now, before.map(|p| &**p))
                            }
                            _ => Err(err),
                        }
                    },
                )?;
                let published = Arc::new(opened);
                tracing::info!(generation = %published.id, symbols = published.snapshot.symbol_count(), "serving generation");
                *loaded = Some(published.clone());
                Ok(published)
            }
            (None, Some(published)) => {
                self.report_rewind("none", published);
                Ok(published.clone())
            }
            (None, None) => Err(QueryError::index_not_ready()),
        }
    }

    /// A store rewound by `clean` is reported once; the graph already mapped keeps answering.
    fn report_rewind(&self, now: &str, published: &Published) {
        if !self.rewind_reported.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "generation store was rewound to {now} while serving {}: restart to follow it again",
                published.id
            );
        }
    }
}
