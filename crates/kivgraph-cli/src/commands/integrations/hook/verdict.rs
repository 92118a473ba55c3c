//! What the gate says to the call on standard input: nothing (it runs), or a refusal in the
//! shape Claude Code and Codex read off stdout — which OpenCode's plugin reads too. The
//! question goes to the running daemon when there is one, else to the published snapshot.
//!
//! Every failure (an unreadable payload, no configuration, no published graph, a directory
//! no registered repository holds, a daemon that does not answer) allows: the gate must
//! never stand between an agent and its tools for a reason of its own.

use std::io::Read;
use std::path::PathBuf;

use kivgraph_query::{SearchQuestion, SharedName, shared_name};
use kivgraph_store::GenerationStore;
use serde_json::{Value, json};

use super::ask_daemon;
use crate::commands::serve::store_of;
use crate::context::ConfigArg;

/// The identifier a search looks for, when the call is a search for one: the `Grep` tool's
/// pattern, or the pattern of a `grep`, `rg` or `git grep` command. A regular expression, a
/// phrase or any other tool is no such search.
fn searched_identifier(tool: &str, input: &Value) -> Option<String> {
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
pub fn gate() -> Option<Value> {
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
    let question = SearchQuestion { name, searched };
    let shared = match store.running_daemon() {
        Some(daemon) => ask_daemon::ask(&daemon, &question).unwrap_or_else(|err| {
            tracing::debug!("the daemon was not asked: {err:#}; reading the snapshot");
            from_snapshot(&store, &question)
        }),
        None => from_snapshot(&store, &question),
    }?;
    Some(refusal(&shared))
}

fn from_snapshot(store: &GenerationStore, question: &SearchQuestion) -> Option<SharedName> {
    let published = kivgraph_query::Published::open_current(store).ok()?;
    shared_name(&published, &question.name, &question.searched)
}

/// The refusal, quoting the rows and naming the calls that separate them.
fn refusal(shared: &SharedName) -> Value {
    let rows: Vec<String> = shared
        .rows
        .iter()
        .map(|row| {
            format!(
                "{}:{} {} {}",
                row.path, row.line, row.kind, row.qualified_name
            )
        })
        .collect();
    let first = &shared.rows[0];
    let reason = format!(
        "{} declarations of {} in {} — a text search cannot tell their uses apart: {}{}. Ask kivgraph instead: find_references {} for the uses of one, or find_symbol {} for all. (KIVGRAPH_DISABLE_HOOK=1 runs the search anyway.)",
        shared.declarations,
        shared.name,
        shared.repository,
        rows.join("; "),
        if shared.declarations > rows.len() {
            "; …"
        } else {
            ""
        },
        json!({"qualified_name": first.qualified_name, "repository": shared.repository, "path": first.path}),
        json!({"name": shared.name, "repository": shared.repository}),
    );
    json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }})
}
