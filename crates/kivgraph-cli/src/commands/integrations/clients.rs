//! The MCP clients `mcp install` knows: where each keeps its servers, in which format and
//! under which key, and the shape of the entry it reads.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use serde_json::{Value, json};

/// A client, as `--target` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Target {
    ClaudeCode,
    ClaudeDesktop,
    Codex,
    Opencode,
    OhMyPi,
    Gemini,
    Cursor,
    Vscode,
}

/// Where a registration goes: the user's own configuration, or the project in the
/// current directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scope {
    User,
    Project,
}

/// How a client's configuration file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON, comments allowed where the client reads them (kept as they are).
    Json,
    Toml,
}

/// What the entry runs: this executable over stdio, or the daemon's endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    Stdio { command: String },
    Daemon { url: String, token: String },
}

impl Target {
    pub const ALL: [Target; 8] = [
        Target::ClaudeCode,
        Target::ClaudeDesktop,
        Target::Codex,
        Target::Opencode,
        Target::OhMyPi,
        Target::Gemini,
        Target::Cursor,
        Target::Vscode,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::ClaudeCode => "claude-code",
            Target::ClaudeDesktop => "claude-desktop",
            Target::Codex => "codex",
            Target::Opencode => "opencode",
            Target::OhMyPi => "oh-my-pi",
            Target::Gemini => "gemini",
            Target::Cursor => "cursor",
            Target::Vscode => "vscode",
        }
    }

    /// The file the entry goes in; `None` for a scope the client has no file for.
    pub fn file(self, scope: Scope, home: &Path, project: &Path) -> Option<PathBuf> {
        let config = home.join(".config");
        Some(match (self, scope) {
            (Target::ClaudeCode, Scope::User) => home.join(".claude.json"),
            (Target::ClaudeCode, Scope::Project) => project.join(".mcp.json"),
            (Target::ClaudeDesktop, Scope::User) if cfg!(target_os = "macos") => {
                home.join("Library/Application Support/Claude/claude_desktop_config.json")
            }
            (Target::ClaudeDesktop, Scope::User) => {
                config.join("Claude/claude_desktop_config.json")
            }
            (Target::ClaudeDesktop, Scope::Project) => return None,
            (Target::Codex, Scope::User) => home.join(".codex/config.toml"),
            (Target::Codex, Scope::Project) => project.join(".codex/config.toml"),
            (Target::Opencode, Scope::User) => config.join("opencode/opencode.json"),
            (Target::Opencode, Scope::Project) => project.join("opencode.json"),
            (Target::OhMyPi, Scope::User) => home.join(".omp/agent/mcp.json"),
            (Target::OhMyPi, Scope::Project) => project.join(".omp/mcp.json"),
            (Target::Gemini, Scope::User) => home.join(".gemini/settings.json"),
            (Target::Gemini, Scope::Project) => project.join(".gemini/settings.json"),
            (Target::Cursor, Scope::User) => home.join(".cursor/mcp.json"),
            (Target::Cursor, Scope::Project) => project.join(".cursor/mcp.json"),
            (Target::Vscode, Scope::User) if cfg!(target_os = "macos") => {
                home.join("Library/Application Support/Code/User/mcp.json")
            }
            (Target::Vscode, Scope::User) => config.join("Code/User/mcp.json"),
            (Target::Vscode, Scope::Project) => project.join(".vscode/mcp.json"),
        })
    }

    /// Where the client keeps itself on this machine: its presence is what detection sees.
    pub fn installed_at(self, home: &Path) -> PathBuf {
        let config = home.join(".config");
        match self {
            Target::ClaudeCode => home.join(".claude"),
            Target::ClaudeDesktop => self
                .file(Scope::User, home, home)
                .and_then(|file| file.parent().map(Path::to_path_buf))
                .unwrap_or_else(|| config.join("Claude")),
            Target::Codex => home.join(".codex"),
            Target::Opencode => config.join("opencode"),
            Target::OhMyPi => home.join(".omp"),
            Target::Gemini => home.join(".gemini"),
            Target::Cursor => home.join(".cursor"),
            Target::Vscode => config.join("Code"),
        }
    }

    pub fn format(self) -> Format {
        match self {
            Target::Codex => Format::Toml,
            _ => Format::Json,
        }
    }

    /// The key of the table of servers the entry goes under.
    pub fn section(self) -> &'static str {
        match self {
            Target::Codex => "mcp_servers",
            Target::Opencode => "mcp",
            Target::Vscode => "servers",
            _ => "mcpServers",
        }
    }

    /// Whether the client reads a url entry from its file; the others get stdio.
    pub fn reads_urls(self) -> bool {
        !matches!(self, Target::ClaudeDesktop | Target::OhMyPi)
    }

    /// The entry, as the client's documentation shapes it.
    pub fn entry(self, transport: &Transport) -> Value {
        match (self, transport) {
            (Target::Opencode, Transport::Stdio { command }) => {
                json!({"type": "local", "command": [command, "serve"], "enabled": true})
            }
            (Target::Opencode, Transport::Daemon { url, token }) => json!({
                "type": "remote", "url": url, "enabled": true,
                "headers": {"Authorization": format!("Bearer {token}")}
            }),
            (Target::Vscode, Transport::Stdio { command }) => {
                json!({"type": "stdio", "command": command, "args": ["serve"]})
            }
            (Target::Codex, Transport::Daemon { url, token }) => json!({
                "url": url, "http_headers": {"Authorization": format!("Bearer {token}")}
            }),
            (Target::Gemini, Transport::Daemon { url, token }) => json!({
                "httpUrl": url, "headers": {"Authorization": format!("Bearer {token}")}
            }),
            (Target::Cursor, Transport::Daemon { url, token }) => json!({
                "url": url, "headers": {"Authorization": format!("Bearer {token}")}
            }),
            (_, Transport::Daemon { url, token }) => json!({
                "type": "http", "url": url,
                "headers": {"Authorization": format!("Bearer {token}")}
            }),
            (_, Transport::Stdio { command }) => json!({"command": command, "args": ["serve"]}),
        }
    }
}

/// Whether `entry` is one this installation wrote: a stdio entry running `executable`, or a
/// url entry for this state directory's daemon (`daemon_url`). Such an entry is replaced by a
/// new install (switching transports leaves one entry); any other entry named `kivgraph` —
/// another installation's — is not ours to touch without `--force`.
pub fn written_by_us(entry: &Value, executable: &str, daemon_url: Option<&str>) -> bool {
    let stdio = match entry.get("command") {
        Some(Value::Array(parts)) => parts.first().and_then(Value::as_str) == Some(executable),
        Some(command) => command.as_str() == Some(executable),
        None => false,
    };
    let url = ["url", "httpUrl"]
        .iter()
        .filter_map(|key| entry.get(*key)?.as_str())
        .any(|url| Some(url) == daemon_url);
    stdio || url
}
