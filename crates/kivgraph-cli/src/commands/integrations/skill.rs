//! `kivgraph skill install | status | remove`: the Agent Skill (`SKILL.md`, in this crate's
//! `skills/kivgraph/`) written where each client reads skills, and only a file identical to
//! it ever removed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;

use super::clients::{Scope, Target};
use super::{Clients, Outcome, Places, report, safe_file, scope_name};

/// The canonical skill, as this build ships it.
pub const SKILL: &str = include_str!("../../../skills/kivgraph/SKILL.md");

#[derive(clap::Args, Debug)]
pub struct SkillArgs {
    #[command(subcommand)]
    action: SkillAction,
}

#[derive(clap::Subcommand, Debug)]
enum SkillAction {
    /// Install the skill into one or more clients.
    Install(Change),
    /// Report whether the skill at a client's path is ours, absent or another file.
    Status(Clients),
    /// Remove the skill, only where the file is the canonical one (or with --force).
    Remove(Change),
}

#[derive(clap::Args, Debug)]
struct Change {
    #[command(flatten)]
    selection: Clients,
    #[arg(long)]
    dry_run: bool,
    /// Replace or remove a file at the skill's path that is not the canonical skill.
    #[arg(long)]
    force: bool,
}

/// Where `target` reads the skill, for `scope`.
fn skill_path(
    target: Target,
    scope: Scope,
    home: &Path,
    project: &Path,
) -> anyhow::Result<PathBuf> {
    let directory = match (target, scope) {
        (Target::ClaudeCode, Scope::User) => home.join(".claude"),
        (Target::ClaudeCode, Scope::Project) => project.join(".claude"),
        (Target::Codex, Scope::User) => home.join(".agents"),
        (Target::Codex, Scope::Project) => project.join(".agents"),
        (Target::Opencode, Scope::User) => home.join(".config/opencode"),
        (Target::Opencode, Scope::Project) => project.join(".opencode"),
        (Target::OhMyPi, Scope::User) => home.join(".omp/agent"),
        (Target::OhMyPi, Scope::Project) => project.join(".omp"),
        (other, _) => bail!(
            "target {:?} does not support local skill installation",
            other.name()
        ),
    };
    Ok(directory.join("skills/kivgraph/SKILL.md"))
}

pub fn run(args: SkillArgs) -> anyhow::Result<ExitCode> {
    let places = Places::here()?;
    let (selection, change) = match &args.action {
        SkillAction::Install(change) | SkillAction::Remove(change) => {
            (&change.selection, Some(change))
        }
        SkillAction::Status(selection) => (selection, None),
    };
    let targets = match &args.action {
        SkillAction::Install(_) => super::chosen(
            &selection.target,
            "Install kivgraph's Agent Skill for",
            Target::ALL.into_iter().filter(|target| {
                skill_path(*target, selection.scope, &places.home, &places.project).is_ok()
            }),
            &places.home,
        )?,
        _ if selection.target.is_empty() => {
            bail!("--target is required: name the client whose skill to read or remove")
        }
        _ => selection.target.clone(),
    };
    let outcomes = targets
        .iter()
        .map(|target| {
            let path = skill_path(*target, selection.scope, &places.home, &places.project)?;
            let present = safe_file::read_regular(&path)?;
            let outcome = |state: &'static str, detail: &str| Outcome {
                target: target.name(),
                scope: scope_name(selection.scope),
                path: path.clone(),
                state,
                transport: None,
                detail: detail.to_string(),
            };
            let canonical = present.as_deref() == Some(SKILL);
            let incompatible = present.is_some() && !canonical;
            let force = change.is_some_and(|c| c.force);
            let dry_run = change.is_some_and(|c| c.dry_run);
            Ok(match &args.action {
                _ if incompatible && !force && !matches!(args.action, SkillAction::Status(_)) => {
                    outcome("incompatible", "a file that is not the canonical skill is there: pass --force to replace or remove it")
                }
                SkillAction::Status(_) => match (&present, canonical) {
                    (None, _) => outcome("absent", "nothing at the path"),
                    (Some(_), true) => outcome("managed", "byte-identical to this build's skill"),
                    (Some(_), false) => outcome("incompatible", "a file that is not this build's skill"),
                },
                SkillAction::Install(_) if canonical => {
                    outcome("managed", "already this build's skill: nothing written")
                }
                SkillAction::Install(_) if dry_run => outcome("would-install", "would write this build's skill"),
                SkillAction::Install(_) => {
                    safe_file::write(&path, SKILL)?;
                    outcome("installed", "this build's skill written")
                }
                SkillAction::Remove(_) if present.is_none() => outcome("absent", "nothing at the path: nothing done"),
                SkillAction::Remove(_) if dry_run => outcome("would-remove", "would remove the skill"),
                SkillAction::Remove(_) => {
                    safe_file::remove(&path)?;
                    outcome("removed", "the skill removed; nothing else in the skills directory touched")
                }
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    report(&outcomes, selection.json)
}
