//! `kivgraph hook`: the gate an agent's client runs before its own search tools. A search
//! for an identifier that two or more declarations of the searched repository share — which
//! a text search cannot tell apart — is refused with the rows and the call that separates
//! them; anything else passes, silently and at once (`verdict`). The question goes to a
//! running daemon when there is one (`ask_daemon`). `hook install|status|remove` registers
//! the gate where Claude Code, Codex and OpenCode run it (`registration`).

mod ask_daemon;
mod registration;
mod verdict;

use std::process::ExitCode;

use super::clients::Target;
use super::{Change, Clients, Places, chosen, report};
use registration::{Action, HOSTS};

#[derive(clap::Args, Debug)]
pub struct HookArgs {
    #[command(subcommand)]
    action: Option<HookAction>,
}

#[derive(clap::Subcommand, Debug)]
enum HookAction {
    /// Register the gate in Claude Code and Codex (a PreToolUse entry) or OpenCode (a plugin).
    Install(Change),
    /// Say whether the gate is registered (every client that hosts it, without --target).
    Status(Clients),
    /// Remove only the gate's registration (from every client that hosts it, without --target).
    Remove(Change),
}

pub fn run(args: HookArgs) -> anyhow::Result<ExitCode> {
    let Some(action) = args.action else {
        if let Some(refusal) = verdict::gate() {
            println!("{refusal}");
        }
        return Ok(ExitCode::SUCCESS);
    };
    let places = Places::here()?;
    let (selection, action) = match &action {
        HookAction::Install(change) => (
            &change.selection,
            Action::Install {
                dry_run: change.dry_run,
                force: change.force,
            },
        ),
        HookAction::Remove(change) => (
            &change.selection,
            Action::Remove {
                dry_run: change.dry_run,
                force: change.force,
            },
        ),
        HookAction::Status(selection) => (selection, Action::Status),
    };
    let targets: Vec<Target> = match action {
        Action::Install { .. } => chosen(
            &selection.target,
            "the gate",
            HOSTS.into_iter(),
            &places.home,
        )?,
        _ if selection.target.is_empty() => HOSTS.to_vec(),
        _ => selection.target.clone(),
    };
    let outcomes = targets
        .into_iter()
        .map(|target| registration::act(target, selection.scope, action, &places))
        .collect::<anyhow::Result<Vec<_>>>()?;
    report(&outcomes, selection.json)
}
