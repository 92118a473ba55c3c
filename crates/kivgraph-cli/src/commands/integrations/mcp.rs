//! `kivgraph mcp install | status | remove`: one command registers kivgraph with the MCP
//! clients people use, against the daemon where it has an owner and over stdio otherwise,
//! touching nothing in their files but the entry named `kivgraph`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};

use super::clients::{Scope, Target, Transport, written_by_us};
use super::config_file::ConfigFile;
use super::{Clients, Outcome, Places, report, scope_name};
use crate::commands::daemon::{DEFAULT_ADDRESS, Owner, address, give_owner, supervisor_reachable};
use crate::commands::serve::store_of;
use crate::context::ConfigArg;

#[derive(clap::Args, Debug)]
pub struct McpArgs {
    #[command(subcommand)]
    action: McpAction,
}

#[derive(clap::Subcommand, Debug)]
enum McpAction {
    /// Register kivgraph with one or more clients (those detected here without --target).
    Install(InstallArgs),
    /// Report whether a client's registration is ours, absent or another's.
    Status(Selection),
    /// Remove kivgraph's own registration, and nothing else.
    Remove(RemoveArgs),
}

#[derive(clap::Args, Debug)]
struct Selection {
    #[command(flatten)]
    clients: Clients,
    /// Consider the stdio entry (what status compares, and what install writes).
    #[arg(long)]
    stdio: bool,
    #[command(flatten)]
    config: ConfigArg,
}

#[derive(clap::Args, Debug)]
struct InstallArgs {
    #[command(flatten)]
    selection: Selection,
    /// Refuse rather than fall back to stdio when the daemon cannot be the entry.
    #[arg(long, conflicts_with = "stdio")]
    daemon: bool,
    /// Say what would be written, write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Replace an entry named kivgraph that another installation wrote.
    #[arg(long)]
    force: bool,
}

#[derive(clap::Args, Debug)]
struct RemoveArgs {
    #[command(flatten)]
    selection: Selection,
    #[arg(long)]
    dry_run: bool,
    #[arg(long)]
    force: bool,
}

pub fn run(args: McpArgs) -> anyhow::Result<ExitCode> {
    let Places {
        home,
        project,
        executable,
    } = Places::here()?;
    let (selection, outcomes) = match args.action {
        McpAction::Install(install) => {
            let targets = super::chosen(
                &install.selection.clients.target,
                "Register kivgraph's MCP server with",
                Target::ALL.into_iter(),
                &home,
            )?;
            let (transport, why) = transport(&install, &executable)?;
            let outcomes = targets
                .iter()
                .map(|target| {
                    let transport = match (&transport, target.reads_urls()) {
                        (Transport::Daemon { .. }, false) => Transport::Stdio {
                            command: executable.clone(),
                        },
                        _ => transport.clone(),
                    };
                    let mut outcome = install_one(*target, &install, &transport, &home, &project)?;
                    if let Some(why) = &why {
                        outcome.detail.push_str(&format!("; stdio because {why}"));
                    }
                    Ok(outcome)
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            (install.selection, outcomes)
        }
        McpAction::Status(selection) => {
            let targets = required(&selection)?;
            let outcomes = targets
                .iter()
                .map(|target| status_one(*target, &selection, &executable, &home, &project))
                .collect::<anyhow::Result<Vec<_>>>()?;
            (selection, outcomes)
        }
        McpAction::Remove(remove) => {
            let targets = required(&remove.selection)?;
            let outcomes = targets
                .iter()
                .map(|target| remove_one(*target, &remove, &executable, &home, &project))
                .collect::<anyhow::Result<Vec<_>>>()?;
            (remove.selection, outcomes)
        }
    };
    report(&outcomes, selection.clients.json)
}

fn required(selection: &Selection) -> anyhow::Result<Vec<Target>> {
    if selection.clients.target.is_empty() {
        bail!("--target is required: name the client whose registration to read or remove");
    }
    Ok(selection.clients.target.clone())
}

/// What install writes: the daemon's url where the daemon has an owner (installing one
/// where the platform's supervisor is reachable), stdio otherwise — and why.
fn transport(
    install: &InstallArgs,
    executable: &str,
) -> anyhow::Result<(Transport, Option<String>)> {
    let stdio = Transport::Stdio {
        command: executable.to_string(),
    };
    if install.selection.stdio {
        return Ok((stdio, None));
    }
    let fallback = |why: String| -> anyhow::Result<(Transport, Option<String>)> {
        if install.daemon {
            bail!("--daemon: {why}; nothing was written");
        }
        Ok((stdio.clone(), Some(why)))
    };
    if install.selection.clients.scope == Scope::Project {
        return fallback("a project's file gets committed, and a url entry carries a token".into());
    }
    let config = &install.selection.config;
    if !config.path().is_file() {
        return fallback(format!(
            "no configuration exists yet at {} (run kivgraph init)",
            config.path().display()
        ));
    }
    if let Err(why) = supervisor_reachable() {
        return fallback(format!("the daemon would have no owner here: {why}"));
    }
    let store = store_of(config)?;
    if install.dry_run && store.running_daemon().is_none() {
        return fallback("--dry-run installs no daemon owner".into());
    }
    if !Owner::of(&store)?.installed || store.running_daemon().is_none() {
        let address = address(DEFAULT_ADDRESS).map_err(anyhow::Error::msg)?;
        give_owner(config, address, false)?;
    }
    let record = store
        .running_daemon()
        .context("the daemon's owner is installed, but no daemon published its endpoint")?;
    Ok((
        Transport::Daemon {
            url: record.url,
            token: record.token,
        },
        None,
    ))
}

/// One client's file for the selection's scope, read and checked, with what an outcome
/// about it names.
struct Registration<'a> {
    target: Target,
    selection: &'a Selection,
    file: ConfigFile,
}

impl<'a> Registration<'a> {
    fn open(
        target: Target,
        selection: &'a Selection,
        home: &Path,
        project: &Path,
    ) -> anyhow::Result<Self> {
        let path = target
            .file(selection.clients.scope, home, project)
            .with_context(|| {
                format!(
                    "{} has no {} scope",
                    target.name(),
                    scope_name(selection.clients.scope)
                )
            })?;
        Ok(Registration {
            target,
            selection,
            file: ConfigFile::read(&path, target.format(), target.section())?,
        })
    }

    /// The entry named kivgraph in the client's section.
    fn entry(&self) -> anyhow::Result<Option<serde_json::Value>> {
        self.file.entry(self.target.section())
    }

    /// Whether `entry` is this installation's (see [`written_by_us`]).
    fn ours(&self, entry: &serde_json::Value, executable: &str) -> bool {
        written_by_us(
            entry,
            executable,
            daemon_url(&self.selection.config).as_deref(),
        )
    }

    /// Writes the file with the entry set, or removed for `None`.
    fn write(&self, entry: Option<&serde_json::Value>) -> anyhow::Result<()> {
        self.file
            .write(&self.file.edited(self.target.section(), entry)?)
    }

    fn outcome(&self, state: &'static str, detail: String) -> Outcome {
        Outcome {
            target: self.target.name(),
            scope: scope_name(self.selection.clients.scope),
            path: self.file.path.clone(),
            state,
            transport: None,
            detail,
        }
    }
}

/// The daemon url this state directory's daemon serves, when one runs.
fn daemon_url(config: &ConfigArg) -> Option<String> {
    if !config.path().is_file() {
        return None;
    }
    store_of(config)
        .ok()?
        .running_daemon()
        .map(|record| record.url)
}

fn install_one(
    target: Target,
    install: &InstallArgs,
    transport: &Transport,
    home: &Path,
    project: &Path,
) -> anyhow::Result<Outcome> {
    let registration = Registration::open(target, &install.selection, home, project)?;
    let wanted = target.entry(transport);
    let (transport_name, executable) = match transport {
        Transport::Stdio { command } => ("stdio", command.clone()),
        Transport::Daemon { .. } => ("daemon", std::env::current_exe()?.display().to_string()),
    };
    let with_transport = |mut outcome: Outcome| {
        outcome.transport = Some(transport_name);
        outcome
    };
    let existing = registration.entry()?;
    if existing.as_ref() == Some(&wanted) {
        return Ok(with_transport(registration.outcome(
            "managed",
            "already registered as written; the file was not rewritten".into(),
        )));
    }
    if let Some(existing) = &existing
        && !install.force
        && !registration.ours(existing, &executable)
    {
        return Ok(registration.outcome("incompatible", format!(
            "an entry named kivgraph that this installation did not write is there ({existing}): pass --force to replace it"
        )));
    }
    let (verb, done) = if existing.is_some() {
        ("replace", "replaced")
    } else {
        ("add", "added")
    };
    if install.dry_run {
        return Ok(with_transport(
            registration.outcome("would-install", format!("would {verb} {wanted}")),
        ));
    }
    registration.write(Some(&wanted))?;
    Ok(with_transport(registration.outcome(
        "installed",
        format!(
            "{done} `{}.kivgraph`; every other key kept",
            target.section()
        ),
    )))
}

fn status_one(
    target: Target,
    selection: &Selection,
    executable: &str,
    home: &Path,
    project: &Path,
) -> anyhow::Result<Outcome> {
    let registration = Registration::open(target, selection, home, project)?;
    let (state, detail) = match registration.entry()? {
        None => ("absent", "no entry named kivgraph".to_string()),
        Some(entry) if registration.ours(&entry, executable) => {
            ("managed", format!("this installation's entry: {entry}"))
        }
        Some(entry) => (
            "incompatible",
            format!("an entry named kivgraph that this installation did not write: {entry}"),
        ),
    };
    Ok(registration.outcome(state, detail))
}

fn remove_one(
    target: Target,
    remove: &RemoveArgs,
    executable: &str,
    home: &Path,
    project: &Path,
) -> anyhow::Result<Outcome> {
    let registration = Registration::open(target, &remove.selection, home, project)?;
    let Some(entry) = registration.entry()? else {
        return Ok(registration.outcome("absent", "no entry named kivgraph: nothing done".into()));
    };
    if !remove.force && !registration.ours(&entry, executable) {
        return Ok(registration.outcome("incompatible", format!(
            "an entry named kivgraph that this installation did not write is there ({entry}): pass --force to remove it"
        )));
    }
    if remove.dry_run {
        return Ok(registration.outcome("would-remove", format!("would remove {entry}")));
    }
    registration.write(None)?;
    Ok(registration.outcome(
        "removed",
        format!(
            "`{}.kivgraph` removed; every other key kept",
            target.section()
        ),
    ))
}
