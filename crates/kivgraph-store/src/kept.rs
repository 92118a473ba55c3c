//! The snapshot a store last published, kept open: the next publication by the same store
//! (a watcher's, on every save) shares its validated pages instead of mapping and
//! validating every page of the served generation again.

use std::sync::{Arc, Mutex};

use kivgraph_snapshot::Snapshot;

/// Shared between clones of one store; empty in a store that has not published.
#[derive(Clone, Default)]
pub(crate) struct KeptSnapshot(Arc<Mutex<Option<Arc<Snapshot>>>>);

impl KeptSnapshot {
    pub(crate) fn get(&self) -> Option<Arc<Snapshot>> {
        self.0.lock().expect("kept snapshot").clone()
    }

    pub(crate) fn set(&self, snapshot: Snapshot) {
        *self.0.lock().expect("kept snapshot") = Some(Arc::new(snapshot));
    }
}

impl std::fmt::Debug for KeptSnapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let generation = self.get().map(|snapshot| snapshot.generation());
        f.debug_tuple("KeptSnapshot").field(&generation).finish()
    }
}
