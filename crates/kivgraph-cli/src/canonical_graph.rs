//! LadybugDB plugged into the generation store: every generation a pass publishes carries
//! its canonical database, written from the same facts as the snapshot.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use kivgraph_facts::{FactSet, GraphCounts, GraphUpdate};
use kivgraph_graphdb::GraphDbError;
use kivgraph_store::{CanonicalGraph, GenerationStore};

#[derive(Debug)]
struct Ladybug;

impl CanonicalGraph for Ladybug {
    fn file_name(&self) -> &'static str {
        kivgraph_graphdb::DATABASE_FILE
    }

    fn write(
        &self,
        pages: &[(u32, &FactSet)],
        path: &Path,
        scratch: &Path,
    ) -> Result<GraphCounts, String> {
        kivgraph_graphdb::write_database(pages, path, scratch).map_err(|e| e.to_string())
    }

    fn copy(&self, previous: &Path, path: &Path) -> Result<(), String> {
        kivgraph_graphdb::copy_database(previous, path).map_err(|e| e.to_string())
    }

    fn update(
        &self,
        previous: &Path,
        previous_counts: &GraphCounts,
        before: &[(u32, &FactSet)],
        changed: &[(u32, &FactSet)],
        path: &Path,
        scratch: &Path,
    ) -> Result<Option<GraphUpdate>, String> {
        let updated = kivgraph_graphdb::update_database(
            previous,
            previous_counts,
            before,
            changed,
            path,
            scratch,
        );
        match updated {
            Ok(update) => Ok(Some(update)),
            Err(GraphDbError::NotIncremental(why)) => {
                tracing::info!(why, "the canonical database is written whole");
                Ok(None)
            }
            Err(err) => Err(err.to_string()),
        }
    }

    fn verify(
        &self,
        path: &Path,
        counts: &GraphCounts,
        only: Option<&BTreeSet<String>>,
    ) -> Result<(), String> {
        kivgraph_graphdb::verify_tables(path, counts, only).map_err(|e| e.to_string())
    }
}

/// `store`, writing LadybugDB databases into the generations it publishes.
pub fn with_canonical_graph(store: GenerationStore) -> GenerationStore {
    store.with_graph(Arc::new(Ladybug))
}
