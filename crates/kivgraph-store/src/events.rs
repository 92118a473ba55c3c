//! The event log (`logging.event_log_path`): one JSON object per line for each pass, tool
//! call and server start, appended by every kivgraph process of the state directory and read
//! by `kivgraph logs` and `kivgraph tool-stats`. It rotates at 8 MiB and keeps one rotation,
//! so its history costs at most 16 MiB. Nothing secret is written: a tool call records the
//! names and kinds of its arguments, never their values.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{rfc3339_utc, unix_ms};

/// Past this size the log is rotated before the next append.
pub const ROTATE_AT_BYTES: u64 = 8 << 20;

/// One record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub at: String,
    pub at_unix_ms: u64,
    pub pid: u32,
    /// `serve`, `daemon`, `watch`, `index`.
    pub role: String,
    #[serde(flatten)]
    pub what: EventKind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventKind {
    /// A tool answered or refused.
    ToolCall {
        tool: String,
        /// Each argument's name and JSON kind (`string`, `number`, …), in the call's order.
        arguments: Vec<(String, String)>,
        duration_ms: f64,
        /// The answer's size as the client receives it.
        answer_bytes: usize,
        /// The stable error code of a refusal.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A pass published a generation, or found nothing changed.
    Pass {
        trigger: String,
        result: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        generation: Option<String>,
        duration_ms: u64,
    },
    /// A server started.
    Server { detail: String },
}

impl Event {
    /// An event of this process, now.
    pub fn now(role: &str, what: EventKind) -> Self {
        let now = std::time::SystemTime::now();
        Event {
            at: rfc3339_utc(now),
            at_unix_ms: unix_ms(now),
            pid: std::process::id(),
            role: role.to_string(),
            what,
        }
    }

    /// Whether this event is a failure: a refused call or a failed pass.
    pub fn failed(&self) -> bool {
        match &self.what {
            EventKind::ToolCall { error, .. } => error.is_some(),
            EventKind::Pass { result, .. } => result == "failed",
            EventKind::Server { .. } => false,
        }
    }
}

/// The names and JSON kinds of a call's arguments: their shape, never their values.
pub fn argument_shape(arguments: &serde_json::Map<String, Value>) -> Vec<(String, String)> {
    arguments
        .iter()
        .map(|(name, value)| {
            let kind = match value {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Number(_) => "number",
                Value::String(_) => "string",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
            };
            (name.clone(), kind.to_string())
        })
        .collect()
}

/// The append-only log at a path.
#[derive(Debug, Clone)]
pub struct EventLog {
    path: PathBuf,
}

impl EventLog {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        EventLog { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The rotation beside the log.
    fn rotated(&self) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(".1");
        self.path.with_file_name(name)
    }

    /// Appends `event` as one line (one `write` on an `O_APPEND` file, so lines of processes
    /// writing at once do not interleave), rotating first past [`ROTATE_AT_BYTES`]. A log
    /// that cannot be written is reported to the caller, who never fails for it.
    pub fn append(&self, event: &Event) -> std::io::Result<()> {
        if std::fs::metadata(&self.path).is_ok_and(|m| m.len() >= ROTATE_AT_BYTES) {
            std::fs::rename(&self.path, self.rotated())?;
        }
        let mut line = serde_json::to_vec(event).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let open = || {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
        };
        // The directory is created by the first append that finds it missing, not by every one.
        let mut file = match open() {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                if let Some(directory) = self.path.parent() {
                    std::fs::create_dir_all(directory)?;
                }
                open()?
            }
            opened => opened?,
        };
        file.write_all(&line)
    }

    /// Appends `event`; a log that cannot be written costs the record, never the caller's
    /// work (an answer, a pass).
    pub fn record(&self, event: &Event) {
        if let Err(err) = self.append(event) {
            tracing::debug!(path = %self.path.display(), "the event log could not be written: {err}");
        }
    }

    /// Every readable event, oldest first (the rotation, then the log); a line that does
    /// not parse (a record of another version) is skipped.
    pub fn read(&self) -> Vec<Event> {
        [self.rotated(), self.path.clone()]
            .iter()
            .filter_map(|path| std::fs::File::open(path).ok())
            .flat_map(|file| std::io::BufReader::new(file).lines().map_while(Result::ok))
            .filter_map(|line| serde_json::from_str(&line).ok())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_rotates_past_its_size_and_keeps_one_rotation() {
        let dir = tempfile::tempdir().unwrap();
        let log = EventLog::new(dir.path().join("events.jsonl"));
        let event = |n: usize| {
            Event::now(
                "serve",
                EventKind::Server {
                    detail: format!("{n}{}", "x".repeat(1 << 20)),
                },
            )
        };
        for n in 0..20 {
            log.append(&event(n)).unwrap();
        }
        let size = |path: &Path| std::fs::metadata(path).unwrap().len();
        assert!(size(log.path()) <= ROTATE_AT_BYTES + (2 << 20));
        assert!(size(&log.rotated()) <= ROTATE_AT_BYTES + (2 << 20));
        let kept = log.read();
        // 20 records of 1 MiB: the oldest ones went with the first rotation.
        assert!(kept.len() < 20 && kept.len() >= 8, "{}", kept.len());
        let last = match &kept.last().unwrap().what {
            EventKind::Server { detail } => detail.chars().take(2).collect::<String>(),
            _ => unreachable!(),
        };
        assert_eq!(last, "19");
        assert!(std::fs::read_dir(dir.path()).unwrap().count() == 2);
    }

    #[test]
    fn a_call_s_arguments_are_recorded_by_name_and_kind_only() {
        let arguments = serde_json::json!({"name": "Secret", "limit": 5, "fresh": true});
        assert_eq!(
            argument_shape(arguments.as_object().unwrap()),
            [
                ("name".to_string(), "string".to_string()),
                ("limit".to_string(), "number".to_string()),
                ("fresh".to_string(), "boolean".to_string()),
            ]
        );
    }
}
