//! What a running `kivgraph watch` says of itself, beside the generations it publishes: its
//! process, which repositories it sees, and its last batches. Servers read it for
//! `graph_status`; a process that is gone is reported as such, never as watching.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::{StoreError, io};
use crate::layout::write_synced;
use crate::processes::ProcessRecord;
use crate::store::GenerationStore;

/// The file, under the store's root.
pub const WATCHER_FILE: &str = "watch.json";

/// How many batches the status keeps.
pub const RECENT_BATCHES: usize = 10;

/// One registered repository as the watcher sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchedRepository {
    pub name: String,
    pub watching: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One pass the watcher ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchedBatch {
    /// When it ended, RFC 3339.
    pub at: String,
    /// `start`, `changes`, `registry` or `reconciliation`.
    pub trigger: String,
    /// `published`, `unchanged` or `failed`.
    pub result: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation_id: Option<String>,
    pub events: usize,
    /// From the batch's first change to the end of its pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    pub duration_ms: u64,
}

/// What `watch.json` holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatcherStatus {
    /// The process that watches (`kivgraph watch`, or a daemon).
    #[serde(flatten)]
    pub process: ProcessRecord,
    pub repositories: Vec<WatchedRepository>,
    /// The most recent last.
    pub batches: Vec<WatchedBatch>,
    /// When the changes not yet published began to arrive (milliseconds since the Unix
    /// epoch); absent while the watcher has nothing queued, so every change it was sent is
    /// in the current generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_since_unix_ms: Option<u64>,
}

impl WatcherStatus {
    /// Adds a batch, keeping the most recent [`RECENT_BATCHES`].
    pub fn record(&mut self, batch: WatchedBatch) {
        self.batches.push(batch);
        let excess = self.batches.len().saturating_sub(RECENT_BATCHES);
        self.batches.drain(..excess);
    }

    /// Whether the process that wrote it still runs (a reused pid is someone else).
    pub fn running(&self) -> bool {
        self.process.alive()
    }
}

impl GenerationStore {
    pub fn watcher_status_path(&self) -> PathBuf {
        self.root().join(WATCHER_FILE)
    }

    /// Writes the watcher's status: a temporary file renamed over the last, so a reader sees
    /// one or the other whole.
    pub fn write_watcher_status(&self, status: &WatcherStatus) -> Result<(), StoreError> {
        let path = self.watcher_status_path();
        std::fs::create_dir_all(self.root()).map_err(io("create", self.root()))?;
        let temporary = path.with_extension("json.tmp");
        let bytes = serde_json::to_vec_pretty(status).expect("a status serializes");
        write_synced(&temporary, &bytes)?;
        std::fs::rename(&temporary, &path).map_err(io("rename", &temporary))
    }

    /// The last status a watcher wrote, if one ever ran here and its file reads.
    pub fn watcher_status(&self) -> Option<WatcherStatus> {
        let bytes = std::fs::read(self.watcher_status_path()).ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(n: usize) -> WatchedBatch {
        WatchedBatch {
            at: format!("t{n}"),
            trigger: "changes".into(),
            result: "published".into(),
            generation_id: Some(format!("{n:06}")),
            events: n,
            latency_ms: Some(800),
            duration_ms: 650,
        }
    }

    #[test]
    fn the_status_round_trips_keeps_the_last_batches_and_knows_a_gone_process() {
        let dir = tempfile::tempdir().unwrap();
        let store = GenerationStore::new(dir.path().join("state"));
        assert_eq!(store.watcher_status(), None);
        let mut status = WatcherStatus {
            process: ProcessRecord::this_process("watch"),
            repositories: vec![WatchedRepository {
                name: "a".into(),
                watching: true,
                reason: None,
            }],
            batches: Vec::new(),
            busy_since_unix_ms: Some(1),
        };
        for n in 0..15 {
            status.record(batch(n));
        }
        assert_eq!(status.batches.len(), RECENT_BATCHES);
        assert_eq!(status.batches[0].events, 5);
        store.write_watcher_status(&status).unwrap();
        let read = store.watcher_status().unwrap();
        assert_eq!(read, status);
        assert!(read.running());
        // A pid now held by another process is not the watcher's.
        let reused = WatcherStatus {
            process: ProcessRecord {
                start_ticks: read.process.start_ticks.map(|t| t + 1),
                ..read.process.clone()
            },
            ..read.clone()
        };
        assert!(!reused.running());
        let gone = WatcherStatus {
            process: ProcessRecord {
                pid: u32::MAX - 1,
                ..read.process.clone()
            },
            ..read
        };
        assert!(!gone.running());
    }
}
