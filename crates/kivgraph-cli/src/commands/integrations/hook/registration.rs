//! Where each client runs the gate, and `hook install | status | remove` for it. Claude Code
//! and Codex read a `PreToolUse` entry from a JSON settings file and the verdict off stdout,
//! so one command serves both and only the file and the tools matched differ; only that entry
//! is ever touched. OpenCode loads a plugin from its plugins directory, generated here,
//! because its `tool.execute.before` can only stop a tool by throwing.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use serde_json::Value;

use super::super::clients::{Scope, Target};
use super::super::{Outcome, Places, safe_file, scope_name};

/// The clients that host the gate.
pub const HOSTS: [Target; 3] = [Target::ClaudeCode, Target::Codex, Target::Opencode];

/// The plugin OpenCode loads; `__KIVGRAPH__` becomes this executable, as a JS string.
const OPENCODE_PLUGIN: &str = include_str!("../../../../hooks/opencode-search-gate.js");

/// What the hook command does to one client's registration.
#[derive(Debug, Clone, Copy)]
pub enum Action {
    Install { dry_run: bool, force: bool },
    Status,
    Remove { dry_run: bool, force: bool },
}

/// Where `target` reads the gate.
enum Registration {
    /// A `PreToolUse` entry in a JSON settings file, for the tools `matcher` names.
    Settings {
        path: PathBuf,
        matcher: &'static str,
    },
    /// A plugin file of ours.
    Plugin { path: PathBuf },
}

fn registration(target: Target, scope: Scope, places: &Places) -> anyhow::Result<Registration> {
    let (home, project) = (&places.home, &places.project);
    let root = match scope {
        Scope::User => home,
        Scope::Project => project,
    };
    Ok(match target {
        Target::ClaudeCode => Registration::Settings {
            path: root.join(".claude/settings.json"),
            matcher: "Grep|Bash",
        },
        // Codex has no search tool of its own: its shell reaches hooks as `Bash`.
        Target::Codex => Registration::Settings {
            path: root.join(".codex/hooks.json"),
            matcher: "Bash",
        },
        Target::Opencode => Registration::Plugin {
            path: match scope {
                Scope::User => home.join(".config/opencode/plugins"),
                Scope::Project => project.join(".opencode/plugins"),
            }
            .join("kivgraph-search-gate.js"),
        },
        Target::OhMyPi => bail!(
            "oh-my-pi: its own documentation calls its hook subsystem legacy; the gate is not registered there"
        ),
        Target::ClaudeDesktop => bail!(
            "claude-desktop: the app keeps no hook configuration of its own that this build knows; the Claude Code sessions it runs read Claude Code's settings — use --target claude-code"
        ),
        other => bail!(
            "{}: the gate runs in claude-code, codex and opencode only",
            other.name()
        ),
    })
}

/// The command a settings entry runs.
fn gate_command(executable: &str) -> String {
    format!("{executable} hook")
}

/// Carries `action` out on `target`'s registration.
pub fn act(
    target: Target,
    scope: Scope,
    action: Action,
    places: &Places,
) -> anyhow::Result<Outcome> {
    let outcome = |path: &PathBuf, state: &'static str, detail: &str| Outcome {
        target: target.name(),
        scope: scope_name(scope),
        path: path.clone(),
        state,
        transport: None,
        detail: detail.to_string(),
    };
    match registration(target, scope, places)? {
        Registration::Settings { path, matcher } => {
            let (state, text) =
                settings(&path, matcher, action, &gate_command(&places.executable))?;
            let note = if target == Target::Codex && state == "installed" {
                format!("{text}; Codex asks you to review and trust a new hook before it runs it")
            } else {
                text
            };
            Ok(outcome(&path, state, &note))
        }
        Registration::Plugin { path } => {
            let (state, text) = plugin(&path, action, &places.executable)?;
            Ok(outcome(&path, state, text))
        }
    }
}

/// Whether a `PreToolUse` element is the gate's registration.
fn is_ours(element: &Value, command: &str) -> bool {
    element["hooks"]
        .as_array()
        .is_some_and(|hooks| hooks.iter().any(|h| h["command"] == command))
}

/// A settings file's `hooks.PreToolUse`: our entry added or removed, every other byte kept.
fn settings(
    path: &Path,
    matcher: &str,
    action: Action,
    command: &str,
) -> anyhow::Result<(&'static str, String)> {
    let text = safe_file::read_regular(path)?.unwrap_or_default();
    let source = if text.trim().is_empty() {
        "{}\n".to_string()
    } else {
        text
    };
    let root = CstRootNode::parse(&source, &ParseOptions::default())
        .with_context(|| format!("{} does not parse as JSON: left alone", path.display()))?;
    let entries: Vec<Value> =
        jsonc_parser::parse_to_serde_value::<Value>(&source, &ParseOptions::default())
            .ok()
            .and_then(|v| v.get("hooks")?.get("PreToolUse")?.as_array().cloned())
            .unwrap_or_default();
    let registered = entries.iter().any(|e| is_ours(e, command));
    let tools = matcher.replace('|', " and ");
    Ok(match (action, registered) {
        (Action::Status, true) => ("managed", format!("the gate runs before {tools}")),
        (Action::Status, false) => ("absent", "no PreToolUse entry runs the gate".into()),
        (Action::Install { .. }, true) => ("managed", "already registered: nothing written".into()),
        (Action::Remove { .. }, false) => ("absent", "nothing to remove".into()),
        (Action::Install { dry_run: true, .. }, false) => {
            ("would-install", "would add a PreToolUse entry".into())
        }
        (Action::Remove { dry_run: true, .. }, true) => {
            ("would-remove", "would remove the gate's entry".into())
        }
        (Action::Install { .. }, false) => {
            let pre_tool_use = root
                .object_value_or_set()
                .object_value_or_set("hooks")
                .array_value_or_set("PreToolUse");
            pre_tool_use.append(CstInputValue::Object(vec![
                ("matcher".into(), matcher.into()),
                (
                    "hooks".into(),
                    CstInputValue::Array(vec![CstInputValue::Object(vec![
                        ("type".into(), "command".into()),
                        ("command".into(), command.into()),
                    ])]),
                ),
            ]));
            safe_file::write(path, &root.to_string())?;
            (
                "installed",
                format!("a PreToolUse entry for {tools} runs the gate; every other setting kept"),
            )
        }
        (Action::Remove { .. }, true) => {
            let array = root
                .object_value()
                .and_then(|top| top.object_value("hooks"))
                .and_then(|hooks| hooks.array_value("PreToolUse"))
                .context("the registration was just read")?;
            for (element, value) in array.elements().into_iter().zip(&entries) {
                if is_ours(value, command) {
                    element.remove();
                }
            }
            safe_file::write(path, &root.to_string())?;
            (
                "removed",
                "the gate's entry removed; every other hook kept".into(),
            )
        }
    })
}

/// OpenCode's plugin file: ours when it is what this executable would write; an older gate
/// (another executable's, or another build's) is replaced by an install; any other file at
/// the path is left alone without `--force`.
fn plugin(
    path: &Path,
    action: Action,
    executable: &str,
) -> anyhow::Result<(&'static str, &'static str)> {
    let wanted = OPENCODE_PLUGIN.replace(
        "__KIVGRAPH__",
        &serde_json::to_string(executable).expect("a string serialises"),
    );
    let first_line = OPENCODE_PLUGIN.lines().next().unwrap_or_default();
    let present = safe_file::read_regular(path)?;
    let current = present.as_deref() == Some(wanted.as_str());
    let older = !current
        && present
            .as_deref()
            .is_some_and(|text| text.lines().next() == Some(first_line));
    let foreign = present.is_some() && !current && !older;
    Ok(match action {
        Action::Status => match present {
            None => ("absent", "no plugin runs the gate"),
            Some(_) if current => ("managed", "the plugin runs the gate before grep and bash"),
            Some(_) if older => (
                "incompatible",
                "a gate plugin written by another kivgraph build or executable: install replaces it",
            ),
            Some(_) => ("incompatible", "a file that is not the gate's plugin"),
        },
        Action::Install { force, .. } | Action::Remove { force, .. } if foreign && !force => (
            "incompatible",
            "a file that is not the gate's plugin is there: pass --force to replace or remove it",
        ),
        Action::Install { .. } if current => {
            ("managed", "already this build's plugin: nothing written")
        }
        Action::Install { dry_run: true, .. } => ("would-install", "would write the plugin"),
        Action::Install { .. } => {
            safe_file::write(path, &wanted)?;
            (
                "installed",
                "the plugin runs the gate before grep and bash; OpenCode loads it at its next start",
            )
        }
        Action::Remove { .. } if present.is_none() => ("absent", "nothing to remove"),
        Action::Remove { dry_run: true, .. } => ("would-remove", "would remove the plugin"),
        Action::Remove { .. } => {
            safe_file::remove(path)?;
            (
                "removed",
                "the plugin removed; nothing else in the plugins directory touched",
            )
        }
    })
}
