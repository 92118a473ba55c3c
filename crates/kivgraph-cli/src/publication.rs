//! What a published pass says of itself: where each checkout stood in git, each
//! repository's state in the manifest (which analyzers answered, which relations they
//! decide), the report `index --full` and `rebuild` print, and the pass's record in the
//! event log.

use kivgraph_config::RepositoryEntry;
use kivgraph_engine::{PassOutcome, RepositoryReport};
use kivgraph_facts::Language;
use kivgraph_store::{
    AnalyzerState, BuildOutputState, Event, EventKind, EventLog, GitPosition, Published,
    RepositoryState, read_git_position,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Where a repository's checkout stood when the pass read it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Checkout {
    pub git: GitPosition,
    /// Whether tracked files differed from `HEAD`; `None` when git could not say.
    pub dirty: Option<bool>,
    /// When the pass started reading its files.
    pub files_read_at_unix_ms: Option<u64>,
}

/// Where the checkout at `root` stands in git, asked at index time (never on a query path):
/// its position, and whether tracked files differ from `HEAD` (`None` when git cannot say).
pub fn checkout_at(root: &str, files_read_at_unix_ms: Option<u64>) -> Checkout {
    let git = read_git_position(std::path::Path::new(root));
    let dirty = git.commit.as_ref().and_then(|_| {
        let out = std::process::Command::new("git")
            .args(["-C", root, "status", "--porcelain", "--untracked-files=no"])
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        out.status.success().then_some(!out.stdout.is_empty())
    });
    Checkout {
        git,
        dirty,
        files_read_at_unix_ms,
    }
}

/// Records a pass in the event log: a log that cannot be written costs the record, never
/// the pass.
pub fn record_pass_event(
    log: &std::path::Path,
    role: &str,
    trigger: &str,
    result: &str,
    generation: Option<String>,
    started: std::time::Instant,
) {
    EventLog::new(log).record(&Event::now(
        role,
        EventKind::Pass {
            trigger: trigger.to_string(),
            result: result.to_string(),
            generation,
            duration_ms: started.elapsed().as_millis() as u64,
        },
    ));
}

/// The manifest's state of every repository the pass reported on.
pub fn repository_states(
    entries: &[RepositoryEntry],
    outcome: &PassOutcome,
    checkout: impl Fn(&RepositoryReport) -> Checkout,
) -> Vec<RepositoryState> {
    outcome
        .repositories
        .iter()
        .map(|report| {
            let entry = entries.iter().find(|e| e.name == report.name);
            let Checkout {
                git,
                dirty,
                files_read_at_unix_ms,
            } = checkout(report);
            let analyzers: Vec<AnalyzerState> = report
                .analyzers
                .iter()
                .map(|run| AnalyzerState {
                    language: run.language.as_str().to_string(),
                    analyzer: run.analyzer.clone(),
                    units: run.units,
                    failures: run.failures.clone(),
                    absent: run.absent.clone(),
                    patched: run.patched.clone(),
                    not_built: run.not_built.clone(),
                    deferred: run.deferred,
                })
                .collect();
            let exact = |language: Language| {
                let served = language.analyzed_as();
                analyzers
                    .iter()
                    .any(|a| a.language == served.as_str() && a.is_complete())
            };
            RepositoryState {
                name: report.name.clone(),
                path: report.root.clone(),
                languages: entry
                    .map(|e| e.languages.iter().map(|l| l.as_str().to_string()).collect())
                    .unwrap_or_default(),
                indexed_commit: git.commit.clone(),
                indexed_branch: git.branch.clone(),
                indexed_dirty: dirty,
                git_unavailable: git.unavailable.clone(),
                resolved_relations: entry
                    .map(|e| {
                        e.languages
                            .iter()
                            .filter_map(|token| {
                                let language = Language::parse(token.as_str()).ok()?;
                                let relations = if exact(language) {
                                    kivgraph_engine::analyzed_relations(language)
                                } else {
                                    kivgraph_engine::resolved_relations(language)
                                };
                                let relations =
                                    relations.iter().map(|k| k.as_str().to_string()).collect();
                                Some((language.as_str().to_string(), relations))
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                analyzers,
                build_output: report
                    .build_output
                    .iter()
                    .map(|b| BuildOutputState {
                        path: b.path.clone(),
                        reason: b.reason.as_str().to_string(),
                        detail: b.detail.clone(),
                        files: b.files,
                    })
                    .collect(),
                files_read_at_unix_ms,
            }
        })
        .collect()
}

/// Each repository's lines of the report.
pub fn repositories_report(outcome: &PassOutcome) -> Vec<serde_json::Value> {
    outcome
    .repositories
    .iter()
    .map(|r| {
        json!({
            "name": r.name,
            "files": r.files,
            "symbols": r.symbols,
            "parse_failures": r.parse_failures.iter().map(|(path, issues)| json!({"path": path, "issues": issues})).collect::<Vec<_>>(),
            "skipped": r.skipped.iter().map(|(path, why)| json!({"path": path, "reason": why})).collect::<Vec<_>>(),
            "build_output": r.build_output.iter().map(|b| json!({"path": b.path, "reason": b.reason.as_str(), "detail": b.detail, "files": b.files})).collect::<Vec<_>>(),
            "unavailable": r.unavailable,
            "analyzers": r.analyzers.iter().map(|a| json!({
                "language": a.language.as_str(),
                "analyzer": a.analyzer,
                "units": a.units,
                "failures": a.failures,
                "absent": a.absent,
                "patched": a.patched,
                "not_built": a.not_built,
            })).collect::<Vec<_>>(),
        })
    })
    .collect()
}

/// Wall time per phase, the pass's then the publication's, in milliseconds.
pub fn phases_report(
    outcome: &PassOutcome,
    published: &Published,
) -> serde_json::Map<String, serde_json::Value> {
    outcome
        .timings
        .phases
        .iter()
        .chain(published.timings.iter())
        .map(|(phase, duration)| (phase.to_string(), json!(duration.as_millis() as u64)))
        .collect()
}

/// A published generation's counts, as the reports print them.
pub fn counts_line(counts: &serde_json::Value) -> String {
    format!(
        "repositories {} · packages {} · files {} · symbols {} · edges {} · unresolved {}",
        counts["repositories"],
        counts["packages"],
        counts["files"],
        counts["symbols"],
        counts["edges"],
        counts["unresolved"]
    )
}
