//! Wiring kivgraph into the coding agents people use: `mcp` registers the server in each
//! client's configuration, `skill` installs the Agent Skill where each client reads skills.
//! Both touch only what is kivgraph's, write as `safe_file` writes, and report one outcome
//! per client.

mod clients;
mod config_file;
pub mod hook;
pub mod mcp;
mod safe_file;
mod selector;
pub mod skill;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde::Serialize;

use clients::{Scope, Target};

/// Which clients a command is about, and how it reports.
#[derive(clap::Args, Debug)]
struct Clients {
    /// A client: claude-code, claude-desktop, codex, opencode, oh-my-pi, gemini, cursor,
    /// vscode (skills: the first five but claude-desktop).
    #[arg(long, value_enum, add = clap_complete::engine::ArgValueCompleter::new(present_clients))]
    target: Vec<Target>,
    /// `user` (the client's own configuration) or `project` (the current directory's).
    #[arg(long, value_enum, default_value = "user")]
    scope: Scope,
    /// One JSON object per client instead of a line.
    #[arg(long)]
    json: bool,
}

/// What `--target` completes to: the clients this machine has (all of them where it has
/// none), that start with what was typed.
fn present_clients(typed: &std::ffi::OsStr) -> Vec<clap_complete::engine::CompletionCandidate> {
    let typed = typed.to_string_lossy();
    let home = PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    let present: Vec<Target> = Target::ALL
        .into_iter()
        .filter(|target| target.installed_at(&home).exists())
        .collect();
    let offered = if present.is_empty() {
        Target::ALL.to_vec()
    } else {
        present
    };
    offered
        .into_iter()
        .map(Target::name)
        .filter(|name| name.starts_with(typed.as_ref()))
        .map(clap_complete::engine::CompletionCandidate::new)
        .collect()
}

/// An install or a remove: the clients, and how far it may go.
#[derive(clap::Args, Debug)]
struct Change {
    #[command(flatten)]
    selection: Clients,
    #[arg(long)]
    dry_run: bool,
    /// Replace or remove a file at kivgraph's path (the skill, the gate's plugin) that is not
    /// the one this build writes.
    #[arg(long)]
    force: bool,
}

/// Where integrations resolve their paths, and the executable they register.
struct Places {
    home: PathBuf,
    /// The current directory: what `--scope project` writes into.
    project: PathBuf,
    executable: String,
}

impl Places {
    fn here() -> anyhow::Result<Self> {
        if !cfg!(any(target_os = "linux", target_os = "macos")) {
            bail!("client integrations run on Linux and macOS only: no path is guessed here");
        }
        Ok(Places {
            home: PathBuf::from(std::env::var_os("HOME").context("HOME is not set")?),
            project: std::env::current_dir().context("cannot read the current directory")?,
            executable: std::env::current_exe()
                .context("cannot locate the kivgraph executable")?
                .display()
                .to_string(),
        })
    }
}

fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::User => "user",
        Scope::Project => "project",
    }
}

/// What one client's file holds, or what was done to it.
#[derive(Serialize)]
struct Outcome {
    target: &'static str,
    scope: &'static str,
    path: PathBuf,
    /// `managed`, `absent`, `incompatible`, `installed`, `removed`, `would-install`,
    /// `would-remove`.
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    transport: Option<&'static str>,
    detail: String,
}

/// Prints each outcome (a line, or a JSON object per line); an `incompatible` one fails.
fn report(outcomes: &[Outcome], json: bool) -> anyhow::Result<ExitCode> {
    for outcome in outcomes {
        if json {
            println!("{}", serde_json::to_string(outcome)?);
        } else {
            println!(
                "{} ({} scope): {} — {} ({})",
                outcome.target,
                outcome.scope,
                outcome.state,
                outcome.detail,
                outcome.path.display()
            );
        }
    }
    Ok(if outcomes.iter().any(|o| o.state == "incompatible") {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The clients an install acts on: `--target`, or — without it — those picked in the
/// selector among `offered` (the ones present under `home` start selected). Cancelling
/// acts on none.
fn chosen(
    targets: &[Target],
    what: &str,
    offered: impl Iterator<Item = Target>,
    home: &std::path::Path,
) -> anyhow::Result<Vec<Target>> {
    if !targets.is_empty() {
        return Ok(targets.to_vec());
    }
    let choices = offered
        .map(|target| (target, target.installed_at(home).exists()))
        .collect();
    let picked = selector::select(what, choices)?;
    if picked.is_empty() {
        bail!("cancelled: nothing was changed");
    }
    Ok(picked)
}
