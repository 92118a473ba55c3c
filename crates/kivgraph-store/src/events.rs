//! The event log (`logging.event_log_path`): one JSON object per line for each pass, tool
//! call and server start, appended by every kivgraph process of the state directory and read
//! by `kivgraph logs` and `kivgraph tool-stats`. It rotates at 8 MiB and keeps one rotation,
//! so its history costs at most 16 MiB. Nothing secret is written: a tool call records the
//! names and kinds of its arguments, never their values.

use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
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
        self.read_and_follow().0
    }

    /// [`EventLog::read`], and where it ended: [`EventLog::since`] reads on from there.
    pub fn read_and_follow(&self) -> (Vec<Event>, Follow) {
        let mut events = Vec::new();
        let mut rotated = Follow::default();
        read_from(&self.rotated(), &mut rotated, &mut events);
        let mut follow = Follow::default();
        read_from(&self.path, &mut follow, &mut events);
        (events, follow)
    }

    /// The events appended since `at`, moving it past them: only the new bytes are read. A
    /// rotation meanwhile reads the rest of the rotated file, then the new log.
    pub fn since(&self, at: &mut Follow) -> Vec<Event> {
        let mut events = Vec::new();
        let now = std::fs::metadata(&self.path).ok();
        if now.as_ref().is_some_and(|m| m.ino() == at.file) {
            read_from(&self.path, at, &mut events);
            return events;
        }
        // Rotated (or removed): the file followed so far is the rotation now.
        if std::fs::metadata(self.rotated()).is_ok_and(|m| m.ino() == at.file) {
            read_from(&self.rotated(), at, &mut events);
        }
        *at = Follow::default();
        read_from(&self.path, at, &mut events);
        events
    }
}

/// A position in the log: the file (by inode) and the bytes of it already read.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Follow {
    file: u64,
    offset: u64,
}

/// Reads the whole lines of `path` past `at` into `events` and moves `at` past them (a line
/// still being written is left for the next read).
fn read_from(path: &Path, at: &mut Follow, events: &mut Vec<Event>) {
    let Ok(mut file) = std::fs::File::open(path) else {
        return;
    };
    let Ok(metadata) = file.metadata() else {
        return;
    };
    if at.file != metadata.ino() || metadata.len() < at.offset {
        *at = Follow {
            file: metadata.ino(),
            offset: 0,
        };
    }
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(at.offset)).is_err() || file.read_to_end(&mut bytes).is_err() {
        return;
    }
    let whole = bytes
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |end| end + 1);
    at.offset += whole as u64;
    events.extend(
        bytes[..whole]
            .split(|b| *b == b'\n')
            .filter_map(|line| serde_json::from_slice(line).ok()),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn following_reads_only_what_was_appended_across_a_rotation() {
        let dir = tempfile::tempdir().unwrap();
        let log = EventLog::new(dir.path().join("events.jsonl"));
        let event = |detail: &str| {
            Event::now(
                "serve",
                EventKind::Server {
                    detail: detail.to_string(),
                },
            )
        };
        let details = |events: Vec<Event>| -> Vec<String> {
            events
                .into_iter()
                .map(|e| match e.what {
                    EventKind::Server { detail } => detail,
                    _ => unreachable!(),
                })
                .collect()
        };
        log.append(&event("before")).unwrap();
        let (read, mut at) = log.read_and_follow();
        assert_eq!(details(read), ["before"]);
        assert!(log.since(&mut at).is_empty());
        log.append(&event("one")).unwrap();
        // Half a line, as a writer leaves it mid-append, waits for its end.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(log.path())
            .unwrap();
        let two = serde_json::to_string(&event("two")).unwrap();
        file.write_all(&two.as_bytes()[..10]).unwrap();
        assert_eq!(details(log.since(&mut at)), ["one"]);
        file.write_all(&two.as_bytes()[10..]).unwrap();
        file.write_all(b"\n").unwrap();
        // Rotated by hand, then appended to: the rest of the old file, then the new one.
        std::fs::rename(log.path(), log.rotated()).unwrap();
        log.append(&event("three")).unwrap();
        assert_eq!(details(log.since(&mut at)), ["two", "three"]);
        assert!(log.since(&mut at).is_empty());
    }

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
