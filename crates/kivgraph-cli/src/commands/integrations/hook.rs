//! `kivgraph hook`: the gate an agent's client runs before its own search tools. A search
//! for an identifier that two or more declarations of the searched repository share — which
//! a text search cannot tell apart — is refused with the rows and the call that separates
//! them; anything else passes, silently and at once. `hook install|status|remove` registers
//! the gate as Claude Code's `PreToolUse` hook, touching nothing else in its settings.
//!
//! Every failure (an unreadable payload, no configuration, no published graph, a directory
//! no registered repository holds) allows: the gate must never stand between an agent and
//! its tools for a reason of its own. `KIVGRAPH_DISABLE_HOOK=1` allows everything.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use serde_json::{Value, json};

use super::clients::Scope;
use super::{Outcome, Places, report, safe_file, scope_name};
use crate::commands::serve::store_of;
use crate::context::ConfigArg;

#[derive(clap::Args, Debug)]
pub struct HookArgs {
    #[command(subcommand)]
    action: Option<HookAction>,
}

#[derive(clap::Subcommand, Debug)]
enum HookAction {
    /// Register the gate as Claude Code's PreToolUse hook for Grep and Bash.
    Install(Change),
    /// Say whether the gate is registered.
    Status(Place),
    /// Remove only the gate's registration.
    Remove(Change),
}

#[derive(clap::Args, Debug)]
struct Place {
    /// `user` (~/.claude/settings.json) or `project` (.claude/settings.json here).
    #[arg(long, value_enum, default_value = "user")]
    scope: Scope,
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct Change {
    #[command(flatten)]
    place: Place,
    #[arg(long)]
    dry_run: bool,
}

/// The client tools the gate is registered for.
const MATCHER: &str = "Grep|Bash";
/// At most this many rows are quoted in a refusal.
const QUOTED: usize = 6;

pub fn run(args: HookArgs) -> anyhow::Result<ExitCode> {
    match args.action {
        None => {
            if let Some(refusal) = gate() {
                println!("{refusal}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(action) => registration(action),
    }
}

/// The identifier a search looks for, when the call is a search for one: Claude Code's
/// `Grep` pattern, or the pattern of a `grep`, `rg` or `git grep` command. A regular
/// expression, a phrase or any other tool is no such search.
pub fn searched_identifier(tool: &str, input: &Value) -> Option<String> {
    let pattern = match tool {
        "Grep" => input.get("pattern")?.as_str()?.to_string(),
        "Bash" => {
            let command = input.get("command")?.as_str()?;
            let words: Vec<&str> = command.split_whitespace().collect();
            let arguments = match words.as_slice() {
                ["grep" | "rg", rest @ ..] | ["git", "grep", rest @ ..] => rest,
                _ => return None,
            };
            // One search, no pipeline or chain: the first argument that is no flag.
            if command.contains(['|', ';', '&', '>', '<', '`', '$']) {
                return None;
            }
            arguments
                .iter()
                .find(|word| !word.starts_with('-'))?
                .trim_matches(|c| c == '"' || c == '\'')
                .to_string()
        }
        _ => return None,
    };
    let bare = pattern
        .strip_prefix("\\b")
        .and_then(|p| p.strip_suffix("\\b"))
        .unwrap_or(&pattern);
    let identifier = !bare.is_empty()
        && bare.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !bare.starts_with(|c: char| c.is_ascii_digit());
    identifier.then(|| bare.to_string())
}

/// The refusal for the call on standard input, or `None` to let it run.
fn gate() -> Option<Value> {
    if std::env::var_os("KIVGRAPH_DISABLE_HOOK").is_some_and(|v| v == "1") {
        return None;
    }
    let mut payload = String::new();
    std::io::stdin()
        .take(1 << 20)
        .read_to_string(&mut payload)
        .ok()?;
    let payload: Value = serde_json::from_str(&payload).ok()?;
    // Classified before anything is read: nearly every call leaves here.
    let name = searched_identifier(
        payload.get("tool_name")?.as_str()?,
        payload.get("tool_input")?,
    )?;
    let cwd = PathBuf::from(payload.get("cwd").and_then(Value::as_str).unwrap_or("."));
    let searched = match payload["tool_input"].get("path").and_then(Value::as_str) {
        Some(path) => cwd.join(path),
        None => cwd,
    };
    let config = ConfigArg { config: None };
    if !config.path().is_file() {
        return None;
    }
    let store = store_of(&config).ok()?;
    let published = kivgraph_query::Published::open_current(&store).ok()?;
    let repository = published
        .manifest
        .repositories
        .iter()
        .filter(|r| searched.starts_with(&r.path))
        .max_by_key(|r| r.path.len())?;
    let declarations: Vec<_> = published
        .snapshot
        .symbols_named(&name)
        .into_iter()
        .filter(|s| s.file().repository().name() == repository.name)
        .collect();
    if declarations.len() < 2 {
        return None;
    }
    let rows: Vec<String> = declarations
        .iter()
        .take(QUOTED)
        .map(|s| {
            format!(
                "{}:{} {} {}",
                s.file().path(),
                s.span().start_line,
                s.kind().as_str(),
                s.qualified_name()
            )
        })
        .collect();
    let first = &declarations[0];
    let reason = format!(
        "{} declarations of {name} in {} — a text search cannot tell their uses apart: {}{}. Ask kivgraph instead: find_references {} for the uses of one, or find_symbol {} for all. (KIVGRAPH_DISABLE_HOOK=1 runs the search anyway.)",
        declarations.len(),
        repository.name,
        rows.join("; "),
        if declarations.len() > QUOTED {
            "; …"
        } else {
            ""
        },
        json!({"qualified_name": first.qualified_name(), "repository": repository.name, "path": first.file().path()}),
        json!({"name": name, "repository": repository.name}),
    );
    Some(json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }}))
}

/// Claude Code's settings file for `scope`.
fn settings_path(scope: Scope, places: &Places) -> PathBuf {
    match scope {
        Scope::User => places.home.join(".claude/settings.json"),
        Scope::Project => places.project.join(".claude/settings.json"),
    }
}

/// The command the registration runs.
fn gate_command(executable: &str) -> String {
    format!("{executable} hook")
}

/// Whether a `PreToolUse` element is the gate's registration.
fn is_ours(element: &Value, command: &str) -> bool {
    element["hooks"]
        .as_array()
        .is_some_and(|hooks| hooks.iter().any(|h| h["command"] == command))
}

fn registration(action: HookAction) -> anyhow::Result<ExitCode> {
    let places = Places::here()?;
    let (place, dry_run) = match &action {
        HookAction::Install(change) | HookAction::Remove(change) => (&change.place, change.dry_run),
        HookAction::Status(place) => (place, false),
    };
    let path = settings_path(place.scope, &places);
    let command = gate_command(&places.executable);
    let text = safe_file::read_regular(&path)?.unwrap_or_default();
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
    let registered = entries.iter().any(|e| is_ours(e, &command));
    let outcome = |state: &'static str, detail: &str| Outcome {
        target: "claude-code",
        scope: scope_name(place.scope),
        path: path.clone(),
        state,
        transport: None,
        detail: detail.to_string(),
    };
    let done = match (&action, registered) {
        (HookAction::Status(_), true) => outcome("managed", "the gate runs before Grep and Bash"),
        (HookAction::Status(_), false) => outcome("absent", "no PreToolUse entry runs the gate"),
        (HookAction::Install(_), true) => outcome("managed", "already registered: nothing written"),
        (HookAction::Remove(_), false) => outcome("absent", "nothing to remove"),
        (HookAction::Install(_), false) if dry_run => {
            outcome("would-install", "would add a PreToolUse entry")
        }
        (HookAction::Remove(_), true) if dry_run => {
            outcome("would-remove", "would remove the gate's entry")
        }
        (HookAction::Install(_), false) => {
            let pre_tool_use = root
                .object_value_or_set()
                .object_value_or_set("hooks")
                .array_value_or_set("PreToolUse");
            pre_tool_use.append(CstInputValue::Object(vec![
                ("matcher".into(), MATCHER.into()),
                (
                    "hooks".into(),
                    CstInputValue::Array(vec![CstInputValue::Object(vec![
                        ("type".into(), "command".into()),
                        ("command".into(), command.clone().into()),
                    ])]),
                ),
            ]));
            safe_file::write(&path, &root.to_string())?;
            outcome(
                "installed",
                "a PreToolUse entry for Grep and Bash runs the gate; every other setting kept",
            )
        }
        (HookAction::Remove(_), true) => {
            let array = root
                .object_value()
                .and_then(|top| top.object_value("hooks"))
                .and_then(|hooks| hooks.array_value("PreToolUse"))
                .context("the registration was just read")?;
            for (element, value) in array.elements().into_iter().zip(&entries) {
                if is_ours(value, &command) {
                    element.remove();
                }
            }
            safe_file::write(&path, &root.to_string())?;
            outcome("removed", "the gate's entry removed; every other hook kept")
        }
    };
    report(&[done], place.json)
}
