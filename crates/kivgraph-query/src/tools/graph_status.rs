//! `graph_status`: the published generation — identity, counts, breakdowns, and whether each
//! repository still holds the code it describes. Reports only what this process uses.

use kivgraph_store::{
    DaemonRecord, WatchedBatch, WatchedRepository, WatcherStatus, resident_bytes,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::args::View;
use crate::census::{Counts, Derived, census};
use crate::envelope::{Coverage, Page, to_value};
use crate::error::QueryError;
use crate::published::Published;
use crate::tools::list_repositories::{RepositoryRow, row};

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphStatusArgs {}

/// A part of the reference system this server has no use for, and why.
#[derive(Serialize)]
struct NotApplicable {
    state: &'static str,
    detail: &'static str,
}

const WORKER: NotApplicable = NotApplicable {
    state: "not_applicable",
    detail: "analyzers run during indexing, in a child process, not in this server",
};

const STORAGE: NotApplicable = NotApplicable {
    state: "not_applicable",
    detail: "nothing is published: there is no canonical database to open",
};

/// The generation's canonical database, as `query_graph` reads it.
#[derive(Serialize)]
struct Storage {
    state: &'static str,
    detail: String,
}

impl Storage {
    fn of(manifest: &kivgraph_store::Manifest) -> Self {
        match &manifest.graph {
            Some(graph) => Storage {
                state: "read_only",
                detail: format!(
                    "query_graph opens this generation's canonical database ({}, {} bytes) \
                     read-only; every other tool answers from the snapshot",
                    graph.file, graph.bytes
                ),
            },
            None => Storage {
                state: "absent",
                detail: "this generation carries no canonical database yet: a live watcher \
                         writes it once saves pause, index --full at once; query_graph \
                         answers after that"
                    .to_string(),
            },
        }
    }
}

/// Whether a watcher (`kivgraph watch`, or the daemon's) keeps the graph current, and what it
/// did last.
#[derive(Serialize)]
struct Watcher<'a> {
    /// `watching`, `not_running` (it stopped) or `not_started`.
    state: &'static str,
    detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    started_at: Option<&'a str>,
    /// How long changes have been waiting to be published; absent when none are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pending_for_ms: Option<u64>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    repositories: &'a [WatchedRepository],
    /// The most recent last.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    last_batches: &'a [WatchedBatch],
}

impl<'a> Watcher<'a> {
    fn of(status: Option<&'a WatcherStatus>) -> Self {
        let Some(status) = status else {
            return Watcher {
                state: "not_started",
                detail: "no kivgraph watch has run for this state directory: answers reflect the last index --full; run kivgraph watch to republish on every save".into(),
                pid: None,
                started_at: None,
                pending_for_ms: None,
                repositories: &[],
                last_batches: &[],
            };
        };
        let (state, detail) = if status.running() {
            let seen = status.repositories.iter().filter(|r| r.watching).count();
            (
                "watching",
                format!(
                    "a watcher (pid {}, kivgraph watch or daemon) republishes on every save: {seen} of {} repositories watched",
                    status.process.pid,
                    status.repositories.len()
                ),
            )
        } else {
            (
                "not_running",
                format!(
                    "the watcher (pid {}) has stopped: answers may describe code changed since its last batch; run kivgraph watch or kivgraph daemon again",
                    status.process.pid
                ),
            )
        };
        let now_ms = kivgraph_store::unix_ms(std::time::SystemTime::now());
        Watcher {
            pending_for_ms: status
                .busy_since_unix_ms
                .filter(|_| state == "watching")
                .map(|since| now_ms.saturating_sub(since)),
            state,
            detail,
            pid: Some(status.process.pid),
            started_at: Some(&status.process.started_at),
            repositories: &status.repositories,
            last_batches: &status.batches,
        }
    }
}

/// What keeps the graph live around this server: the watcher and the daemon of its state
/// directory, as their files say, and this process's clients when it is the daemon.
#[derive(Default)]
pub struct LiveProcesses<'a> {
    pub watcher: Option<&'a WatcherStatus>,
    pub daemon: Option<&'a DaemonRecord>,
    /// The MCP sessions open in this process, when it is the daemon.
    pub daemon_clients: Option<usize>,
    /// Why the generation `CURRENT` names could not be mapped, when that is what happened.
    pub snapshot_unreadable: Option<&'a str>,
}

/// Whether a `kivgraph daemon` serves this state directory, and what it costs.
#[derive(Serialize)]
struct Daemon<'a> {
    /// `running`, `not_running` (it died without removing its record) or `not_started`.
    state: &'static str,
    detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    socket: Option<&'a std::path::Path>,
    #[serde(skip_serializing_if = "Option::is_none")]
    started_at: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uptime_ms: Option<u64>,
    /// Open MCP sessions; known only when the daemon itself answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    clients: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resident_bytes: Option<u64>,
}

impl<'a> Daemon<'a> {
    fn of(record: Option<&'a DaemonRecord>, clients: Option<usize>) -> Self {
        let Some(record) = record else {
            return Daemon {
                state: "not_started",
                detail: "no kivgraph daemon serves this state directory; each client runs a serve of its own".into(),
                pid: None,
                url: None,
                socket: None,
                started_at: None,
                uptime_ms: None,
                clients: None,
                resident_bytes: None,
            };
        };
        let process = &record.process;
        let running = process.alive();
        let detail = if running {
            format!(
                "kivgraph daemon (pid {}) serves MCP at {}",
                process.pid, record.url
            )
        } else {
            format!(
                "the daemon (pid {}) is gone without removing daemon.json: clients of {} fail until it is started again (kivgraph daemon, or kivgraph daemon install for a supervised one)",
                process.pid, record.url
            )
        };
        Daemon {
            state: if running { "running" } else { "not_running" },
            detail,
            pid: Some(process.pid),
            url: Some(&record.url),
            socket: Some(&record.socket),
            started_at: Some(&process.started_at),
            uptime_ms: running.then(|| process.uptime_ms()),
            clients: clients.filter(|_| running && process.pid == std::process::id()),
            resident_bytes: running.then(|| resident_bytes(process.pid)).flatten(),
        }
    }
}

/// Nothing is published yet.
#[derive(Serialize)]
struct Empty<'a> {
    status: &'static str,
    snapshot_id: Option<u64>,
    /// «Could not be read», which `empty` alone would make look like «never indexed».
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot_unreadable: Option<&'a str>,
    watcher: Watcher<'a>,
    daemon: Daemon<'a>,
    worker: NotApplicable,
    storage: NotApplicable,
}

/// The published generation.
#[derive(Serialize)]
struct Ready<'a> {
    status: &'static str,
    snapshot_id: u64,
    snapshot_built_at: &'a str,
    snapshot_age_ms: u64,
    snapshot_row_format_version: u32,
    /// The canonical schema the generation's database was written with (0: none).
    schema_version: u32,
    /// The schema this binary writes, when it differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    schema_version_expected: Option<u32>,
    schema_outdated: bool,
    resolver_version: String,
    repositories: usize,
    packages: usize,
    files: usize,
    symbols: usize,
    evidence: usize,
    edges: usize,
    #[serde(flatten)]
    counts: &'a Counts,
    repository_freshness: Vec<RepositoryRow<'a>>,
    repositories_moved: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    derived: Option<&'a Derived>,
    watcher: Watcher<'a>,
    daemon: Daemon<'a>,
    worker: NotApplicable,
    storage: Storage,
}

/// `published` is `None` when nothing is published: reporting that is this tool's job, never
/// a failure. `live` is what the state directory's watcher and daemon last said of themselves.
pub fn graph_status(
    published: Option<&Published>,
    _args: &GraphStatusArgs,
    live: &LiveProcesses,
) -> Result<(Page, View), QueryError> {
    let results = match published {
        None => to_value(&Empty {
            status: "empty",
            snapshot_id: None,
            snapshot_unreadable: live.snapshot_unreadable,
            watcher: Watcher::of(live.watcher),
            daemon: Daemon::of(live.daemon, live.daemon_clients),
            worker: WORKER,
            storage: STORAGE,
        }),
        Some(published) => {
            let snapshot = &published.snapshot;
            let manifest = &published.manifest;
            let freshness: Vec<RepositoryRow> = manifest.repositories.iter().map(row).collect();
            let analyzers: std::collections::BTreeSet<&str> = manifest
                .repositories
                .iter()
                .flat_map(|r| &r.analyzers)
                .filter_map(|a| a.analyzer.as_deref())
                .collect();
            let resolver = if analyzers.is_empty() {
                "tree-sitter syntax layer".to_string()
            } else {
                format!(
                    "tree-sitter syntax layer; exact: {}",
                    analyzers.into_iter().collect::<Vec<_>>().join(", ")
                )
            };
            let census = published.census.get_or_init(|| census(snapshot));
            let schema = manifest
                .graph
                .as_ref()
                .map_or(0, |graph| graph.counts.schema_version);
            let expected = kivgraph_facts::GRAPH_SCHEMA_VERSION;
            to_value(&Ready {
                status: "ready",
                snapshot_id: published.snapshot_id(),
                snapshot_built_at: &manifest.built_at,
                snapshot_age_ms: published.age_ms(),
                snapshot_row_format_version: kivgraph_snapshot::FORMAT_VERSION,
                schema_version: schema,
                schema_version_expected: (schema != expected).then_some(expected),
                schema_outdated: schema < expected,
                resolver_version: format!("kivgraph {} ({resolver})", manifest.kivgraph_version),
                repositories: snapshot.repository_count(),
                packages: snapshot.package_count(),
                files: snapshot.file_count(),
                symbols: snapshot.symbol_count(),
                evidence: snapshot.evidence_count(),
                edges: snapshot.edge_count(),
                counts: &census.counts,
                repositories_moved: freshness.iter().filter(|r| r.moved).count(),
                repository_freshness: freshness,
                derived: census.derived.as_ref(),
                watcher: Watcher::of(live.watcher),
                daemon: Daemon::of(live.daemon, live.daemon_clients),
                worker: WORKER,
                storage: Storage::of(manifest),
            })
        }
    };
    Ok((
        Page {
            total: 1,
            returned: 1,
            next_cursor: None,
            coverage: Coverage::default(),
            guidance: None,
            completeness: None,
            results,
            files: Vec::new(),
        },
        View::Full,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{facts, published, rendered};

    #[test]
    fn the_status_counts_the_generation_and_says_what_it_cannot_know() {
        let published = published(&facts());
        let status = rendered(
            &published,
            graph_status(
                Some(&published),
                &GraphStatusArgs {},
                &LiveProcesses::default(),
            ),
        );
        let results = &status["results"];
        let keys: Vec<&String> = results.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "status",
                "snapshot_id",
                "snapshot_built_at",
                "snapshot_age_ms",
                "snapshot_row_format_version",
                "schema_version",
                "schema_version_expected",
                "schema_outdated",
                "resolver_version",
                "repositories",
                "packages",
                "files",
                "symbols",
                "evidence",
                "edges",
                "package_edges",
                "unresolved",
                "edges_by_kind",
                "unresolved_by_reason",
                "repository_freshness",
                "repositories_moved",
                "watcher",
                "daemon",
                "worker",
                "storage"
            ]
        );
        assert_eq!(
            results["edges_by_kind"],
            serde_json::json!([{"key": "CALLS_DIRECT", "count": 1}])
        );
        assert_eq!(
            results["unresolved_by_reason"],
            serde_json::json!([{"key": "NAME_NOT_RESOLVED", "count": 1}])
        );
        assert_eq!(
            results["repository_freshness"][1],
            serde_json::json!({"name": "core", "path": "/src/core", "languages": ["go"],
                "moved": false,
                "moved_detail": "no commit was recorded when it was indexed (not a git checkout)"})
        );
    }

    #[test]
    fn nothing_published_is_an_answer_not_a_failure() {
        let (page, view) =
            graph_status(None, &GraphStatusArgs {}, &LiveProcesses::default()).unwrap();
        assert_eq!(
            page.render(None, view, None),
            r#"{"snapshot_id":null,"snapshot_age_ms":null,"total":1,"returned":1,"truncated":false,"next_cursor":null,"coverage":{"exact":0,"candidate":0,"unresolved_related":0,"package_level":0},"results":{"status":"empty","snapshot_id":null,"watcher":{"state":"not_started","detail":"no kivgraph watch has run for this state directory: answers reflect the last index --full; run kivgraph watch to republish on every save"},"daemon":{"state":"not_started","detail":"no kivgraph daemon serves this state directory; each client runs a serve of its own"},"worker":{"state":"not_applicable","detail":"analyzers run during indexing, in a child process, not in this server"},"storage":{"state":"not_applicable","detail":"nothing is published: there is no canonical database to open"}}}"#
        );
    }
}
