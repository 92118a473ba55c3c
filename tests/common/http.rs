//! A `kivgraph daemon` the tests start, and its doors.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::binary;
use super::mcp_http::{Door, Session};

/// A `kivgraph daemon` over the configuration in `dir`, on a free loopback port.
pub struct Daemon {
    pub child: Child,
    pub record: Value,
    pub stderr: PathBuf,
}

impl Daemon {
    /// Starts the daemon with the syntax layer alone and waits for its `daemon.json`.
    pub fn start(dir: &Path) -> Self {
        std::fs::create_dir_all(dir.join("logs")).unwrap();
        let stderr = dir.join("logs/daemon.log");
        let log = std::fs::File::options()
            .create(true)
            .append(true)
            .open(&stderr)
            .unwrap();
        let child = Command::new(binary())
            .args(["daemon", "--addr", "127.0.0.1:0", "--config"])
            .arg(dir.join("config.yaml"))
            .env("KIVGRAPH_ANALYZERS_DIR", dir.join("no-analyzers"))
            .env("PATH", "/usr/bin:/bin")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        // Owned at once, so a daemon that never gets ready is still killed.
        let mut daemon = Daemon {
            child,
            record: Value::Null,
            stderr,
        };
        let record_path = dir.join("state/daemon.json");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(record) = std::fs::read(&record_path)
                .ok()
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                .filter(|r| r["pid"] == daemon.child.id())
            {
                daemon.record = record;
                return daemon;
            }
            assert!(
                Instant::now() < deadline,
                "no daemon.json within a minute: {}",
                std::fs::read_to_string(&daemon.stderr).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn token(&self) -> &str {
        self.record["token"].as_str().unwrap()
    }

    pub fn url(&self) -> &str {
        self.record["url"].as_str().unwrap()
    }

    /// `127.0.0.1:PORT`.
    pub fn address(&self) -> String {
        self.url()
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string()
    }

    pub fn tcp(&self) -> Door {
        Door::Tcp(self.address())
    }

    pub fn unix(&self) -> Door {
        Door::Unix(PathBuf::from(self.record["socket"].as_str().unwrap()))
    }

    pub fn session(&self, door: Door) -> Session {
        Session::open(door, self.token())
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
