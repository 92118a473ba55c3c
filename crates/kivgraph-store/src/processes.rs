//! The long-running processes of a state directory — `serve`, `daemon`, `watch` — each known
//! by the record it writes under `run/` while it runs, so `stop` and `graph_status` find them
//! without matching process names. A record outlives a killed process; it counts as gone once
//! `/proc` holds no process of that pid started at the recorded instant (a reused pid is
//! someone else).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::error::{StoreError, io};
use crate::store::GenerationStore;
use crate::time::{rfc3339_utc, unix_ms};

/// The directory of the records, under the store's root.
pub const RUN_DIRECTORY: &str = "run";

/// One running process of this state directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessRecord {
    /// `serve`, `daemon` or `watch`.
    pub kind: String,
    pub pid: u32,
    /// RFC 3339.
    pub started_at: String,
    pub started_unix_ms: u64,
    /// The kernel's start time of the process (`/proc/PID/stat`), which tells a reused pid
    /// apart; absent where there is no `/proc`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ticks: Option<u64>,
    /// Its command line, for the reader who wants to know what it stops.
    pub command: Vec<String>,
}

impl ProcessRecord {
    /// This process, as a record of `kind`.
    pub fn this_process(kind: &str) -> Self {
        let now = SystemTime::now();
        ProcessRecord {
            kind: kind.to_string(),
            pid: std::process::id(),
            started_at: rfc3339_utc(now),
            started_unix_ms: unix_ms(now),
            start_ticks: start_ticks(std::process::id()),
            command: std::env::args().collect(),
        }
    }

    /// Whether the process that wrote it still runs: same pid, same start time (on Linux, by
    /// `/proc`; elsewhere it is taken at its word).
    pub fn alive(&self) -> bool {
        if !Path::new("/proc").is_dir() {
            return true;
        }
        match (start_ticks(self.pid), self.start_ticks) {
            (Some(now), Some(recorded)) => now == recorded,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// How long it has run, in milliseconds.
    pub fn uptime_ms(&self) -> u64 {
        unix_ms(SystemTime::now()).saturating_sub(self.started_unix_ms)
    }
}

/// The start time of `pid` in clock ticks since boot: field 22 of `/proc/PID/stat`, counted
/// after the command name's closing parenthesis (the name may hold spaces).
pub fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    // Fields from the third (state) on; the start time is the 22nd field overall.
    after_name.split_whitespace().nth(19)?.parse().ok()
}

/// The resident memory of `pid` in bytes (`VmRSS` of `/proc/PID/status`), where it can be read.
pub fn resident_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kibibytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kibibytes * 1024)
}

/// Removes the record of a process when the process ends normally.
#[derive(Debug)]
pub struct ProcessGuard {
    path: PathBuf,
}

impl Drop for ProcessGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl GenerationStore {
    fn run_directory(&self) -> PathBuf {
        self.root().join(RUN_DIRECTORY)
    }

    /// Records this process as a running `kind` until the guard is dropped.
    pub fn register_process(&self, kind: &str) -> Result<ProcessGuard, StoreError> {
        let directory = self.run_directory();
        std::fs::create_dir_all(&directory).map_err(io("create", &directory))?;
        let record = ProcessRecord::this_process(kind);
        let path = directory.join(format!("{kind}.{}.json", record.pid));
        let bytes = serde_json::to_vec_pretty(&record).expect("a record serializes");
        // Not synced: a record a crash loses belonged to a process the crash ended, and every
        // `serve` writes one before its handshake.
        std::fs::write(&path, bytes).map_err(io("write", &path))?;
        Ok(ProcessGuard { path })
    }

    /// The processes that run now, ordered by kind and pid; the records of processes that
    /// are gone are removed on the way.
    pub fn processes(&self) -> Vec<ProcessRecord> {
        let Ok(entries) = std::fs::read_dir(self.run_directory()) else {
            return Vec::new();
        };
        let mut running: Vec<ProcessRecord> = entries
            .flatten()
            .filter_map(|entry| {
                let path = entry.path();
                let record: ProcessRecord =
                    serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
                if record.alive() {
                    Some(record)
                } else {
                    let _ = std::fs::remove_file(&path);
                    None
                }
            })
            .collect();
        running.sort_by(|a, b| (&a.kind, a.pid).cmp(&(&b.kind, b.pid)));
        running
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_lives_while_its_guard_does_and_a_gone_process_is_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let store = GenerationStore::new(dir.path());
        let guard = store.register_process("serve").unwrap();
        let listed = store.processes();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].pid, std::process::id());
        assert!(listed[0].start_ticks.is_some());
        assert!(resident_bytes(std::process::id()).unwrap() > 0);
        // A pid reused by another process is not the recorded one.
        let reused = ProcessRecord {
            start_ticks: listed[0].start_ticks.map(|t| t + 1),
            ..listed[0].clone()
        };
        assert!(!reused.alive());
        let stale = dir.path().join("run/watch.4194303.json");
        let gone = ProcessRecord {
            pid: 4_194_303,
            ..listed[0].clone()
        };
        std::fs::write(&stale, serde_json::to_vec(&gone).unwrap()).unwrap();
        assert_eq!(store.processes().len(), 1);
        assert!(!stale.exists());
        drop(guard);
        assert!(store.processes().is_empty());
    }
}
