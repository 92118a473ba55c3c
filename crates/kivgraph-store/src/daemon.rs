//! `daemon.json`: where the running daemon answers (its url and unix socket) and the token
//! every request must carry. Written before the daemon accepts a connection, mode `0600` from
//! its creation (it holds the token), and removed when the daemon exits.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::{StoreError, io};
use crate::processes::ProcessRecord;
use crate::store::GenerationStore;

/// The file, under the store's root.
pub const DAEMON_FILE: &str = "daemon.json";

/// What `daemon.json` holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaemonRecord {
    /// The Streamable HTTP endpoint, e.g. `http://127.0.0.1:7788/mcp`.
    pub url: String,
    /// The unix socket serving the same protocol.
    pub socket: PathBuf,
    /// Sent as `Authorization: Bearer <token>`.
    pub token: String,
    #[serde(flatten)]
    pub process: ProcessRecord,
}

impl GenerationStore {
    pub fn daemon_record_path(&self) -> PathBuf {
        self.root().join(DAEMON_FILE)
    }

    /// Writes the record: a temporary file created with mode `0600`, renamed over the last.
    pub fn write_daemon_record(&self, record: &DaemonRecord) -> Result<(), StoreError> {
        std::fs::create_dir_all(self.root()).map_err(io("create", self.root()))?;
        let path = self.daemon_record_path();
        let temporary = path.with_extension("json.tmp");
        let _ = std::fs::remove_file(&temporary);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temporary)
            .map_err(io("create", &temporary))?;
        let bytes = serde_json::to_vec_pretty(record).expect("a record serializes");
        file.write_all(&bytes).map_err(io("write", &temporary))?;
        file.sync_all().map_err(io("sync", &temporary))?;
        std::fs::rename(&temporary, &path).map_err(io("rename", &temporary))
    }

    /// The record a daemon wrote, if its file reads (whether that daemon still runs is
    /// [`ProcessRecord::alive`]).
    pub fn daemon_record(&self) -> Option<DaemonRecord> {
        let bytes = std::fs::read(self.daemon_record_path()).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// The record of the daemon that runs now, if one does.
    pub fn running_daemon(&self) -> Option<DaemonRecord> {
        self.daemon_record().filter(|r| r.process.alive())
    }

    /// Removes the record if it is `pid`'s: a daemon that exits never removes its successor's.
    pub fn remove_daemon_record(&self, pid: u32) {
        if self.daemon_record().is_some_and(|r| r.process.pid == pid) {
            let _ = std::fs::remove_file(self.daemon_record_path());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn the_record_is_private_from_its_creation_and_only_its_daemon_removes_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = GenerationStore::new(dir.path().join("state"));
        assert_eq!(store.daemon_record(), None);
        let record = DaemonRecord {
            url: "http://127.0.0.1:7788/mcp".into(),
            socket: dir.path().join("state/daemon.sock"),
            token: "secret".into(),
            process: ProcessRecord::this_process("daemon"),
        };
        store.write_daemon_record(&record).unwrap();
        let mode = std::fs::metadata(store.daemon_record_path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(store.daemon_record(), Some(record.clone()));
        store.remove_daemon_record(record.process.pid + 1);
        assert!(store.daemon_record().is_some());
        store.remove_daemon_record(record.process.pid);
        assert_eq!(store.daemon_record(), None);
    }
}
