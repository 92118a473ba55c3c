//! `kivgraph skill install | status | remove`: the Agent Skill (`SKILL.md`, in this crate's
//! `skills/kivgraph/`) where each client reads skills. In the user scope one canonical file,
//! beside `config.yaml` (`skills/kivgraph/SKILL.md`), and each client's path a link to it, so
//! one edit reaches every client: install writes the canonical only when it is absent (or
//! with `--force`, which takes this build's skill back), and turns an earlier install's copy
//! into a link. The project scope copies — that path is committed, and a link to one
//! machine's home would arrive broken in every other clone. Only a link to the canonical or
//! a file identical to this build's skill is ever removed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;

use super::clients::{Scope, Target};
use super::safe_file::Present;
use super::{Change, Clients, Outcome, Places, report, safe_file, scope_name};

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
            if selection.scope == Scope::User {
                return linked(*target, &path, &args.action);
            }
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

/// The canonical skill every user-scope client links to: beside `config.yaml`.
fn canonical_path() -> PathBuf {
    let config = kivgraph_config::default_config_path();
    config
        .parent()
        .unwrap_or(Path::new("."))
        .join("skills/kivgraph/SKILL.md")
}

/// One user-scope client: its path a link to the canonical skill.
fn linked(target: Target, path: &Path, action: &SkillAction) -> anyhow::Result<Outcome> {
    let canonical = canonical_path();
    let shipped = safe_file::read_regular(&canonical)?;
    let edited = shipped.as_deref().is_some_and(|text| text != SKILL);
    let at = safe_file::inspect(path)?;
    let is_link = matches!(&at, Present::LinkTo(to) if to == &canonical);
    let is_copy = matches!(&at, Present::File(text) if text == SKILL);
    let ours = is_link || is_copy;
    let outcome = |state: &'static str, detail: String| Outcome {
        target: target.name(),
        scope: "user",
        path: path.to_path_buf(),
        state,
        transport: None,
        detail,
    };
    let (force, dry_run) = match action {
        SkillAction::Install(change) | SkillAction::Remove(change) => {
            (change.force, change.dry_run)
        }
        SkillAction::Status(_) => (false, false),
    };
    let foreign = || match &at {
        Present::LinkTo(to) => format!("a link to {}, not to the canonical skill", to.display()),
        Present::Other => "not a regular file".to_string(),
        _ => "a file that is not this build's skill".to_string(),
    };
    let edits = if edited {
        format!(
            "; {} carries local edits (install --force takes this build's skill back)",
            canonical.display()
        )
    } else {
        String::new()
    };
    Ok(match action {
        SkillAction::Status(_) => match &at {
            Present::Absent => outcome("absent", "nothing at the path".into()),
            _ if is_link && shipped.is_none() => outcome(
                "incompatible",
                format!(
                    "a link to {}, which is missing: install writes it",
                    canonical.display()
                ),
            ),
            _ if is_link => outcome(
                "managed",
                format!("a link to {}{edits}", canonical.display()),
            ),
            _ if is_copy => outcome(
                "managed",
                "a copy of this build's skill (install makes it a link)".into(),
            ),
            _ => outcome("incompatible", foreign()),
        },
        SkillAction::Install(_) if !ours && at != Present::Absent && !force => outcome(
            "incompatible",
            format!("{}: pass --force to replace it", foreign()),
        ),
        SkillAction::Install(_) if dry_run => outcome(
            "would-install",
            format!("would link to {}", canonical.display()),
        ),
        SkillAction::Install(_) => {
            let restored = shipped.is_none() || (edited && force);
            if restored {
                safe_file::write(&canonical, SKILL)?;
            }
            if is_link && !restored {
                outcome(
                    "managed",
                    format!("already a link to {}{edits}", canonical.display()),
                )
            } else {
                if !is_link {
                    safe_file::link(path, &canonical)?;
                }
                let was = match &at {
                    Present::Absent => "",
                    _ if is_copy => "; the copy an earlier install wrote is now a link",
                    _ if is_link => "; this build's skill written back",
                    _ => "; what was there is kept in .kivgraph.bak",
                };
                let edits = if restored { String::new() } else { edits };
                outcome(
                    "installed",
                    format!("a link to {}{was}{edits}", canonical.display()),
                )
            }
        }
        SkillAction::Remove(_) if at == Present::Absent => {
            outcome("absent", "nothing at the path: nothing done".into())
        }
        SkillAction::Remove(_) if !ours && !force => outcome(
            "incompatible",
            format!("{}: pass --force to remove it", foreign()),
        ),
        SkillAction::Remove(_) if dry_run => {
            outcome("would-remove", "would remove the skill".into())
        }
        SkillAction::Remove(_) => {
            match &at {
                Present::LinkTo(_) => safe_file::unlink(path)?,
                _ => safe_file::remove(path)?,
            }
            outcome(
                "removed",
                format!(
                    "the skill removed from this client; {} kept for the others",
                    canonical.display()
                ),
            )
        }
    })
}
