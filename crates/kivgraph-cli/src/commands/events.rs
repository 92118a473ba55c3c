//! `kivgraph logs` and `kivgraph tool-stats`: what this machine indexed, served and answered,
//! read back from the event log (`logging.event_log_path`) every kivgraph process appends to.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};
use kivgraph_config::parse_duration;
use kivgraph_store::{Event, EventKind, EventLog, unix_ms};
use serde::Serialize;

use crate::context::ConfigArg;

#[derive(clap::Args, Debug)]
pub struct LogsArgs {
    #[command(flatten)]
    config: ConfigArg,
    /// Keep printing events as they are appended.
    #[arg(long)]
    follow: bool,
    /// Only events of this kind: tool_call, pass or server.
    #[arg(long)]
    kind: Option<String>,
    /// Only calls of this tool.
    #[arg(long, add = ArgValueCompleter::new(called_tools))]
    tool: Option<String>,
    /// Only events of the last D (a Go duration: 90s, 10m, 2h).
    #[arg(long, value_name = "D", value_parser = duration)]
    since: Option<Duration>,
    /// At most the last N events (before --follow).
    #[arg(long, default_value_t = 50)]
    limit: usize,
    /// Only refused calls and failed passes.
    #[arg(long)]
    failures: bool,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
pub struct ToolStatsArgs {
    #[command(flatten)]
    config: ConfigArg,
    #[arg(long, add = ArgValueCompleter::new(called_tools))]
    tool: Option<String>,
    #[arg(long, value_name = "D", value_parser = duration)]
    since: Option<Duration>,
    #[arg(long)]
    json: bool,
}

fn duration(text: &str) -> Result<Duration, String> {
    parse_duration(text).ok_or_else(|| format!("{text:?} is not a duration such as 90s, 10m or 2h"))
}

/// The tools the default configuration's event log has seen called, that start with what
/// was typed: what `--tool` completes to.
fn called_tools(typed: &std::ffi::OsStr) -> Vec<CompletionCandidate> {
    let typed = typed.to_string_lossy();
    let Ok(log) = log_of(&ConfigArg { config: None }) else {
        return Vec::new();
    };
    let tools: std::collections::BTreeSet<String> = log
        .read()
        .into_iter()
        .filter_map(|event| match event.what {
            EventKind::ToolCall { tool, .. } => Some(tool),
            _ => None,
        })
        .filter(|tool| tool.starts_with(typed.as_ref()))
        .collect();
    tools.into_iter().map(CompletionCandidate::new).collect()
}

fn log_of(config: &ConfigArg) -> anyhow::Result<EventLog> {
    let loaded = config
        .load()
        .context("the event log's place is in the configuration")?;
    Ok(EventLog::new(&loaded.config.event_log_path))
}

/// The earliest instant `since` admits.
fn cutoff(since: Option<Duration>) -> u64 {
    since.map_or(0, |since| {
        unix_ms(std::time::SystemTime::now()).saturating_sub(since.as_millis() as u64)
    })
}

fn kind_name(event: &Event) -> &'static str {
    match event.what {
        EventKind::ToolCall { .. } => "tool_call",
        EventKind::Pass { .. } => "pass",
        EventKind::Server { .. } => "server",
    }
}

impl LogsArgs {
    fn admits(&self, event: &Event, after: u64) -> bool {
        event.at_unix_ms >= after
            && self
                .kind
                .as_deref()
                .is_none_or(|kind| kind == kind_name(event))
            && self.tool.as_deref().is_none_or(
                |tool| matches!(&event.what, EventKind::ToolCall { tool: t, .. } if t == tool),
            )
            && (!self.failures || event.failed())
    }

    fn print(&self, event: &Event) -> anyhow::Result<()> {
        if self.json {
            println!("{}", serde_json::to_string(event)?);
            return Ok(());
        }
        let what = match &event.what {
            EventKind::ToolCall {
                tool,
                duration_ms,
                answer_bytes,
                error,
                ..
            } => format!(
                "{tool} {duration_ms:.1} ms, {answer_bytes} bytes{}",
                error
                    .as_ref()
                    .map(|e| format!(", refused {e}"))
                    .unwrap_or_default()
            ),
            EventKind::Pass {
                trigger,
                result,
                generation,
                duration_ms,
            } => format!(
                "pass ({trigger}) {result}{} in {duration_ms} ms",
                generation
                    .as_ref()
                    .map(|g| format!(" {g}"))
                    .unwrap_or_default()
            ),
            EventKind::Server { detail } => detail.clone(),
        };
        println!("{} {}[{}] {what}", event.at, event.role, event.pid);
        Ok(())
    }
}

pub fn run_logs(args: LogsArgs) -> anyhow::Result<ExitCode> {
    let log = log_of(&args.config)?;
    let after = cutoff(args.since);
    let (events, mut at) = log.read_and_follow();
    let events: Vec<Event> = events
        .into_iter()
        .filter(|e| args.admits(e, after))
        .collect();
    let shown = &events[events.len().saturating_sub(args.limit)..];
    for event in shown {
        args.print(event)?;
    }
    if !args.follow {
        return Ok(ExitCode::SUCCESS);
    }
    // Each poll reads only the bytes appended since the last.
    loop {
        std::thread::sleep(Duration::from_millis(300));
        for event in log.since(&mut at) {
            if args.admits(&event, after) {
                args.print(&event)?;
            }
        }
    }
}

/// One tool's calls, as read.
#[derive(Default)]
struct Calls {
    durations: Vec<f64>,
    answer_bytes: usize,
    failures: BTreeMap<String, usize>,
}

/// One tool's calls, summed up.
#[derive(Serialize)]
struct ToolStats {
    tool: String,
    calls: usize,
    p50_ms: f64,
    p95_ms: f64,
    answer_bytes: usize,
    /// Refusals by their stable code.
    failures: BTreeMap<String, usize>,
}

pub fn run_tool_stats(args: ToolStatsArgs) -> anyhow::Result<ExitCode> {
    let after = cutoff(args.since);
    let mut by_tool: BTreeMap<String, Calls> = BTreeMap::new();
    for event in log_of(&args.config)?.read() {
        let EventKind::ToolCall {
            tool,
            duration_ms,
            answer_bytes,
            error,
            ..
        } = event.what
        else {
            continue;
        };
        if event.at_unix_ms < after || args.tool.as_ref().is_some_and(|t| *t != tool) {
            continue;
        }
        let calls = by_tool.entry(tool).or_default();
        calls.durations.push(duration_ms);
        calls.answer_bytes += answer_bytes;
        if let Some(code) = error {
            *calls.failures.entry(code).or_default() += 1;
        }
    }
    let stats: Vec<ToolStats> = by_tool
        .into_iter()
        .map(|(tool, calls)| {
            let Calls {
                mut durations,
                answer_bytes,
                failures,
            } = calls;
            durations.sort_by(f64::total_cmp);
            let at = |q: f64| durations[((durations.len() - 1) as f64 * q).round() as usize];
            ToolStats {
                tool,
                calls: durations.len(),
                p50_ms: (at(0.5) * 100.0).round() / 100.0,
                p95_ms: (at(0.95) * 100.0).round() / 100.0,
                answer_bytes,
                failures,
            }
        })
        .collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&stats)?);
    } else {
        println!(
            "{:<28} {:>6} {:>9} {:>9} {:>12}  failures",
            "tool", "calls", "p50 ms", "p95 ms", "bytes out"
        );
        for s in &stats {
            let failures: Vec<String> =
                s.failures.iter().map(|(c, n)| format!("{c} {n}")).collect();
            println!(
                "{:<28} {:>6} {:>9.2} {:>9.2} {:>12}  {}",
                s.tool,
                s.calls,
                s.p50_ms,
                s.p95_ms,
                s.answer_bytes,
                failures.join(", ")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
