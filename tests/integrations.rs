//! `kivgraph mcp install | status | remove` over clients' real configuration files: only the
//! entry named `kivgraph` changes, every other byte stays, and a real Claude Code connects
//! to what was written.

#[path = "common/mod.rs"]
mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{append_config, binary};
use serde_json::{Value, json};

/// `kivgraph ARGS` with `home` as HOME and the working directory.
fn kivgraph(home: &Path, args: &[&str]) -> Output {
    Command::new(binary())
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .current_dir(home)
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn outcome(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|_| panic!("{}", text(output)))
}

/// `index --full` of the default configuration under `home`, the syntax layer alone.
fn index_syntax_only(home: &Path) {
    let index = Command::new(binary())
        .args(["index", "--full"])
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("KIVGRAPH_ANALYZERS_DIR", home.join("no-analyzers"))
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(index.status.success(), "{}", text(&index));
}

/// `mcp install --target claude-code --stdio --json`, and `extra`.
fn install_claude_code(home: &Path, extra: &[&str]) -> Output {
    let args = [
        "mcp",
        "install",
        "--target",
        "claude-code",
        "--stdio",
        "--json",
    ];
    kivgraph(home, &[&args[..], extra].concat())
}

fn executable() -> String {
    std::fs::canonicalize(binary())
        .unwrap()
        .display()
        .to_string()
}

const OTHER_SERVER: &str = r#"    "other": {
      "command": "/opt/other/bin/server",
      "args": ["--stdio"],
      "env": {"TOKEN": "x"}
    }"#;

#[test]
fn an_install_keeps_every_other_byte_and_remove_takes_only_its_own_entry() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join(".claude.json");
    let original = format!(
        "{{\n  \"numStartups\": 7,\n  \"mcpServers\": {{\n{OTHER_SERVER}\n  }},\n  \"theme\": \"dark\"\n}}\n"
    );
    std::fs::write(&file, &original).unwrap();
    let dry = install_claude_code(home.path(), &["--dry-run"]);
    assert_eq!(outcome(&dry)["state"], "would-install", "{}", text(&dry));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);

    let installed = install_claude_code(home.path(), &[]);
    assert!(installed.status.success(), "{}", text(&installed));
    assert_eq!(outcome(&installed)["state"], "installed");
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.contains(OTHER_SERVER), "{written}");
    assert!(
        written.starts_with("{\n  \"numStartups\": 7,\n"),
        "{written}"
    );
    assert!(written.ends_with("  \"theme\": \"dark\"\n}\n"), "{written}");
    let parsed: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(
        parsed["mcpServers"]["kivgraph"],
        json!({"command": executable(), "args": ["serve"]})
    );
    assert_eq!(
        std::fs::read_to_string(home.path().join(".claude.json.kivgraph.bak")).unwrap(),
        original
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // Installed again: managed, and the file is not rewritten.
    let again = install_claude_code(home.path(), &[]);
    assert_eq!(outcome(&again)["state"], "managed", "{}", text(&again));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), written);
    let status = kivgraph(
        home.path(),
        &["mcp", "status", "--target", "claude-code", "--json"],
    );
    assert_eq!(outcome(&status)["state"], "managed", "{}", text(&status));

    let removed = kivgraph(
        home.path(),
        &["mcp", "remove", "--target", "claude-code", "--json"],
    );
    assert_eq!(outcome(&removed)["state"], "removed", "{}", text(&removed));
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let before: Value = serde_json::from_str(&original).unwrap();
    assert_eq!(after, before);
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains(OTHER_SERVER)
    );
    let absent = kivgraph(
        home.path(),
        &["mcp", "status", "--target", "claude-code", "--json"],
    );
    assert_eq!(outcome(&absent)["state"], "absent");
}

#[test]
fn comments_in_jsonc_and_toml_survive_and_another_installation_s_entry_needs_force() {
    let home = tempfile::tempdir().unwrap();
    // VS Code's project file: JSON with comments.
    let vscode = home.path().join(".vscode/mcp.json");
    std::fs::create_dir_all(vscode.parent().unwrap()).unwrap();
    let commented = "{\n  // the team's servers\n  \"servers\": {\n    \"lint\": {\"type\": \"stdio\", \"command\": \"lint-mcp\"} // keep\n  }\n}\n";
    std::fs::write(&vscode, commented).unwrap();
    let out = kivgraph(
        home.path(),
        &[
            "mcp", "install", "--target", "vscode", "--scope", "project", "--json",
        ],
    );
    assert_eq!(outcome(&out)["state"], "installed", "{}", text(&out));
    // A project's file is committed: stdio, and the answer says why.
    assert_eq!(outcome(&out)["transport"], "stdio");
    assert!(
        outcome(&out)["detail"]
            .as_str()
            .unwrap()
            .contains("committed")
    );
    let written = std::fs::read_to_string(&vscode).unwrap();
    assert!(written.contains("// the team's servers"), "{written}");
    // The other server's text and its comment stay; only the comma a new entry needs is added.
    assert!(
        written.contains("\"lint\": {\"type\": \"stdio\", \"command\": \"lint-mcp\"}, // keep"),
        "{written}"
    );
    assert!(written.contains("\"kivgraph\""), "{written}");

    // Codex: TOML, a comment and another table kept as they were.
    let codex = home.path().join(".codex/config.toml");
    std::fs::create_dir_all(codex.parent().unwrap()).unwrap();
    let toml =
        "# my settings\nmodel = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\" # pinned\n";
    std::fs::write(&codex, toml).unwrap();
    let out = kivgraph(
        home.path(),
        &["mcp", "install", "--target", "codex", "--stdio", "--json"],
    );
    assert_eq!(outcome(&out)["state"], "installed", "{}", text(&out));
    let written = std::fs::read_to_string(&codex).unwrap();
    assert!(written.starts_with(toml), "{written}");
    assert!(
        written.contains(&format!(
            "[mcp_servers.kivgraph]\ncommand = \"{}\"\nargs = [\"serve\"]\n",
            executable()
        )),
        "{written}"
    );

    // An entry another installation wrote is not ours: refused, then replaced with --force.
    let claude = home.path().join(".claude.json");
    std::fs::write(
        &claude,
        "{\"mcpServers\": {\"kivgraph\": {\"command\": \"/usr/local/bin/kivgraph\", \"args\": [\"serve\"]}}}",
    )
    .unwrap();
    let refused = install_claude_code(home.path(), &[]);
    assert!(!refused.status.success());
    assert_eq!(
        outcome(&refused)["state"],
        "incompatible",
        "{}",
        text(&refused)
    );
    let status = kivgraph(
        home.path(),
        &["mcp", "status", "--target", "claude-code", "--json"],
    );
    assert_eq!(outcome(&status)["state"], "incompatible");
    let forced = install_claude_code(home.path(), &["--force"]);
    assert_eq!(outcome(&forced)["state"], "installed", "{}", text(&forced));
}

/// Runs `kivgraph ARGS` and checks it fails saying `message`.
fn refused_saying(home: &Path, args: &[&str], message: &str) {
    let out = kivgraph(home, args);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(message), "{}", text(&out));
}

#[test]
fn a_symlink_a_broken_file_and_a_missing_target_are_refused_with_nothing_written() {
    let home = tempfile::tempdir().unwrap();
    let real = home.path().join("real.json");
    std::fs::write(&real, "{}").unwrap();
    std::os::unix::fs::symlink(&real, home.path().join(".claude.json")).unwrap();
    let install = ["mcp", "install", "--stdio", "--target"];
    refused_saying(
        home.path(),
        &[&install[..], &["claude-code"]].concat(),
        "is a symlink: refused",
    );
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "{}");

    let gemini = home.path().join(".gemini/settings.json");
    std::fs::create_dir_all(gemini.parent().unwrap()).unwrap();
    std::fs::write(&gemini, "{\"mcpServers\": [1, 2]}").unwrap();
    refused_saying(
        home.path(),
        &[&install[..], &["gemini"]].concat(),
        "`mcpServers` is not a table: left alone",
    );
    // Without --target and without a terminal, the selector refuses.
    refused_saying(
        home.path(),
        &install[..3],
        "interactive selection requires a terminal; pass --target",
    );
    refused_saying(
        home.path(),
        &[
            "mcp",
            "install",
            "--target",
            "claude-desktop",
            "--scope",
            "project",
        ],
        "claude-desktop has no project scope",
    );
    // Without a configuration the daemon has no state directory: --daemon refuses.
    refused_saying(
        home.path(),
        &["mcp", "install", "--target", "cursor", "--daemon"],
        "no configuration exists yet",
    );
    assert!(!home.path().join(".cursor/mcp.json").exists());
}

/// Without --target, at a terminal (`script` gives the command one), the selector starts
/// with the clients this machine has selected; keys choose others, Enter installs.
#[test]
fn the_selector_installs_into_the_clients_picked_at_a_terminal() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::create_dir_all(home.path().join(".codex")).unwrap();
    let run = |keys: &str| {
        let command = format!("{} mcp install --stdio", binary());
        let mut child = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join(".config"))
            .env("XDG_STATE_HOME", home.path().join(".local/state"))
            .env("NO_COLOR", "1")
            .current_dir(home.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(keys.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    // `n` clears the detected pair, two steps down is codex, space selects it, Enter.
    let picked = run("njj \r");
    let drawn = text(&picked);
    assert!(picked.status.success(), "{drawn}");
    assert!(drawn.contains("[x] claude-code       detected"), "{drawn}");
    assert!(drawn.contains("[ ] codex             detected"), "{drawn}");
    assert!(drawn.contains("[x] codex"), "{drawn}");
    let codex = std::fs::read_to_string(home.path().join(".codex/config.toml")).unwrap();
    assert!(codex.contains("[mcp_servers.kivgraph]"), "{codex}");
    assert!(!home.path().join(".claude.json").exists());
    // An empty confirmation is refused; q cancels and writes nothing.
    let cancelled = run("n\rq");
    let drawn = text(&cancelled);
    assert!(!cancelled.status.success(), "{drawn}");
    assert!(drawn.contains("select at least one client"), "{drawn}");
    assert!(drawn.contains("cancelled: nothing was changed"), "{drawn}");
    assert!(!home.path().join(".claude.json").exists());
}

/// The real Claude Code reads what `mcp install` wrote, spawns the server and reports it
/// connected.
#[test]
fn claude_code_connects_to_what_mcp_install_wrote() {
    let Some(claude) = common::clients_dir().map(|d| d.join("node_modules/.bin/claude")) else {
        panic!(
            "KIVGRAPH_CLIENTS_DIR is not set: run the suite with cargo xtask test, which installs the MCP clients"
        );
    };
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join(".claude.json"),
        "{\"mcpServers\": {\"other\": {\"command\": \"/nonexistent/other\"}}}",
    )
    .unwrap();
    let out = kivgraph(home.path(), &["mcp", "install", "--target", "claude-code"]);
    assert!(out.status.success(), "{}", text(&out));
    let listed = Command::new(&claude)
        .args(["mcp", "list"])
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join(".config"))
        .env("XDG_STATE_HOME", home.path().join(".local/state"))
        .env_remove("ANTHROPIC_API_KEY")
        .current_dir(home.path())
        .output()
        .unwrap();
    let listing = text(&listed);
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with("kivgraph: ") && l.contains("Connected")),
        "{listing}"
    );
    // The other server is still registered, as it was (and fails to start, as it did).
    assert!(
        listing.lines().any(|l| l.starts_with("other: ")),
        "{listing}"
    );
}

/// What bash offers after `words`, the stub sourced in a real bash as a user's shell does.
fn bash_completes(home: &Path, script: &Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let current = words.last().unwrap();
    let previous = words[words.len() - 2];
    let program = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; COMP_TYPE=9; _clap_complete_kivgraph kivgraph '{current}' '{previous}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words.len() - 1
    );
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &program])
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn bash_completes_commands_flags_and_the_generations_on_disk() {
    let home = tempfile::tempdir().unwrap();
    let stub = kivgraph(home.path(), &["completion", "bash"]);
    assert!(stub.status.success(), "{}", text(&stub));
    let script = home.path().join("kivgraph.bash");
    std::fs::write(&script, &stub.stdout).unwrap();
    // The stub names no command and no flag: it asks the executable.
    let stub_text = String::from_utf8_lossy(&stub.stdout);
    assert!(
        !stub_text.contains("rollback") && !stub_text.contains("--target"),
        "{stub_text}"
    );

    assert_eq!(
        bash_completes(home.path(), &script, &["kivgraph", "mc"]),
        ["mcp"]
    );
    let actions = bash_completes(home.path(), &script, &["kivgraph", "mcp", ""]);
    for action in ["install", "status", "remove"] {
        assert!(actions.iter().any(|a| a == action), "{actions:?}");
    }
    // --target: every client while this machine has none, then the clients it has.
    let targets = |typed: &str| {
        bash_completes(
            home.path(),
            &script,
            &["kivgraph", "mcp", "install", "--target", typed],
        )
    };
    assert_eq!(targets("claude-"), ["claude-code", "claude-desktop"]);
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::create_dir_all(home.path().join(".codex")).unwrap();
    assert_eq!(targets("claude-"), ["claude-code"]);
    assert_eq!(targets(""), ["claude-code", "codex"]);

    // Generations come from the disk of the default configuration.
    let repository = home.path().join("live");
    common::go_repository(&repository);
    let registered = format!("live={}", repository.display());
    let init = kivgraph(
        home.path(),
        &["init", "--repository", &registered, "--languages", "go"],
    );
    assert!(init.status.success(), "{}", text(&init));
    for _ in 0..2 {
        index_syntax_only(home.path());
    }
    assert_eq!(
        bash_completes(
            home.path(),
            &script,
            &["kivgraph", "rollback", "--generation", "0"]
        ),
        ["000002", "000001"]
    );

    // --tool completes the tools this installation was called with (the event log).
    let mut client = common::client::Client::start_at_home(home.path());
    client.ok("find_symbol", json!({"name": "Existing"}));
    client.ok("find_references", json!({"qualified_name": "Existing"}));
    client.ok("graph_status", json!({}));
    drop(client);
    assert_eq!(
        bash_completes(
            home.path(),
            &script,
            &["kivgraph", "tool-stats", "--tool", "find_"]
        ),
        ["find_references", "find_symbol"]
    );
}

/// The Agent Skill lands where each client reads skills, is never rewritten when it is
/// already there, and a file someone else put at its path is neither replaced nor removed
/// without `--force`.
#[test]
fn the_skill_is_installed_where_clients_read_it_and_only_ours_is_removed() {
    let home = tempfile::tempdir().unwrap();
    let skill = |args: &[&str]| {
        let out = kivgraph(home.path(), &[&["skill"][..], args, &["--json"]].concat());
        let state = outcome(&out)["state"].as_str().unwrap().to_string();
        (state, out)
    };
    let detail = |out: &Output| outcome(out)["detail"].as_str().unwrap().to_string();
    let shipped =
        std::fs::read_to_string(common::manifest_dir().join("skills/kivgraph/SKILL.md")).unwrap();
    assert!(shipped.starts_with("---\nname: kivgraph\ndescription: "));
    // One canonical file beside config.yaml; each client's path a link to it.
    let canonical = home
        .path()
        .join(".config/kivgraph/skills/kivgraph/SKILL.md");
    let path = home.path().join(".claude/skills/kivgraph/SKILL.md");
    assert_eq!(
        skill(&["install", "--target", "claude-code"]).0,
        "installed"
    );
    assert_eq!(std::fs::read_link(&path).unwrap(), canonical);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), shipped);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o700
    );
    let written_at = std::fs::metadata(&canonical).unwrap().modified().unwrap();
    assert_eq!(skill(&["install", "--target", "claude-code"]).0, "managed");
    assert_eq!(
        std::fs::metadata(&canonical).unwrap().modified().unwrap(),
        written_at
    );
    assert_eq!(skill(&["status", "--target", "claude-code"]).0, "managed");

    // One edit reaches every client, and an upgrade (install again) keeps it.
    assert_eq!(skill(&["install", "--target", "codex"]).0, "installed");
    let codex = home.path().join(".agents/skills/kivgraph/SKILL.md");
    let edited = format!("{shipped}\nAlways ask find_references first.\n");
    std::fs::write(&canonical, &edited).unwrap();
    assert_eq!(std::fs::read_to_string(&codex).unwrap(), edited);
    let (state, out) = skill(&["install", "--target", "claude-code"]);
    assert_eq!(state, "managed");
    assert!(
        detail(&out).contains("carries local edits"),
        "{}",
        text(&out)
    );
    assert_eq!(std::fs::read_to_string(&canonical).unwrap(), edited);
    let (state, out) = skill(&["status", "--target", "codex"]);
    assert_eq!(state, "managed");
    assert!(
        detail(&out).contains("carries local edits"),
        "{}",
        text(&out)
    );
    // --force takes this build's skill back; the edit is kept in the backup.
    assert_eq!(
        skill(&["install", "--target", "codex", "--force"]).0,
        "installed"
    );
    assert_eq!(std::fs::read_to_string(&canonical).unwrap(), shipped);
    assert_eq!(
        std::fs::read_to_string(canonical.with_file_name("SKILL.md.kivgraph.bak")).unwrap(),
        edited
    );

    // A copy an earlier install wrote becomes a link without asking.
    std::fs::remove_file(&codex).unwrap();
    std::fs::write(&codex, &shipped).unwrap();
    assert_eq!(skill(&["status", "--target", "codex"]).0, "managed");
    let (state, out) = skill(&["install", "--target", "codex"]);
    assert_eq!(state, "installed");
    assert!(detail(&out).contains("now a link"), "{}", text(&out));
    assert_eq!(std::fs::read_link(&codex).unwrap(), canonical);

    // The project scope copies: that path is committed.
    std::fs::create_dir_all(home.path().join("work")).unwrap();
    let project = Command::new(binary())
        .args([
            "skill", "install", "--target", "opencode", "--scope", "project",
        ])
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join(".config"))
        .current_dir(home.path().join("work"))
        .output()
        .unwrap();
    assert!(project.status.success(), "{}", text(&project));
    let copied = home.path().join("work/.opencode/skills/kivgraph/SKILL.md");
    assert!(copied.symlink_metadata().unwrap().is_file());
    assert_eq!(std::fs::read_to_string(&copied).unwrap(), shipped);

    // Someone's own file at the path.
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, "my notes\n").unwrap();
    assert_eq!(
        skill(&["status", "--target", "claude-code"]).0,
        "incompatible"
    );
    let (state, out) = skill(&["remove", "--target", "claude-code"]);
    assert_eq!(state, "incompatible");
    assert!(!out.status.success());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "my notes\n");
    assert_eq!(
        skill(&["install", "--target", "claude-code", "--force"]).0,
        "installed"
    );
    assert_eq!(std::fs::read_link(&path).unwrap(), canonical);
    assert_eq!(
        std::fs::read_to_string(path.with_file_name("SKILL.md.kivgraph.bak")).unwrap(),
        "my notes\n"
    );
    std::fs::write(path.with_file_name("other.md"), "another skill's file").unwrap();
    assert_eq!(
        skill(&["remove", "--target", "claude-code", "--dry-run"]).0,
        "would-remove"
    );
    assert!(path.is_file());
    assert_eq!(skill(&["remove", "--target", "claude-code"]).0, "removed");
    assert!(path.symlink_metadata().is_err());
    assert!(path.with_file_name("other.md").is_file());
    // The other client still reads the canonical.
    assert_eq!(std::fs::read_to_string(&codex).unwrap(), shipped);
    assert_eq!(skill(&["status", "--target", "claude-code"]).0, "absent");

    refused_saying(
        home.path(),
        &["skill", "install", "--target", "claude-desktop"],
        "target \"claude-desktop\" does not support local skill installation",
    );
    refused_saying(
        home.path(),
        &["skill", "install"],
        "interactive selection requires a terminal; pass --target",
    );
}

/// `kivgraph hook` as Claude Code runs it: the PreToolUse payload on stdin, the verdict on
/// stdout, always exit 0.
fn gate(home: &Path, payload: &str, disabled: bool) -> (String, Option<i32>) {
    use std::io::Write;
    let mut command = Command::new(binary());
    command
        .arg("hook")
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env_remove("KIVGRAPH_DISABLE_HOOK")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    if disabled {
        command.env("KIVGRAPH_DISABLE_HOOK", "1");
    }
    let mut child = command.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        out.status.code(),
    )
}

/// The `gocalls` fixture registered and indexed under `home`; its checkout.
fn gate_fixture(home: &Path) -> std::path::PathBuf {
    let repository = home.join("gocalls");
    common::copy_tree(
        &common::fixtures().join("../resolution/gocalls"),
        &repository,
    );
    let registered = format!("gocalls={}", repository.display());
    let init = kivgraph(
        home,
        &["init", "--repository", &registered, "--languages", "go"],
    );
    assert!(init.status.success(), "{}", text(&init));
    index_syntax_only(home);
    repository
}

#[test]
fn the_hook_sends_a_search_for_a_shared_name_to_the_graph_and_lets_the_rest_run() {
    let home = tempfile::tempdir().unwrap();
    let repository = gate_fixture(home.path());
    let grep = |pattern: &str| {
        json!({"session_id": "s", "hook_event_name": "PreToolUse", "cwd": repository,
            "tool_name": "Grep", "tool_input": {"pattern": pattern, "path": "."}})
        .to_string()
    };

    // `Server` is declared in two packages: grep cannot tell their uses apart.
    let (verdict, code) = gate(home.path(), &grep("\\bServer\\b"), false);
    assert_eq!(code, Some(0));
    let verdict: Value = serde_json::from_str(&verdict).unwrap();
    let output = &verdict["hookSpecificOutput"];
    assert_eq!(output["hookEventName"], "PreToolUse");
    assert_eq!(output["permissionDecision"], "deny");
    let reason = output["permissionDecisionReason"].as_str().unwrap();
    assert!(
        reason.starts_with("2 declarations of Server in gocalls"),
        "{reason}"
    );
    assert!(
        reason.contains("client/client.go:10 type Server"),
        "{reason}"
    );
    assert!(
        reason.contains("server/server.go:6 type Server"),
        "{reason}"
    );
    assert!(reason.contains("find_references {"), "{reason}");
    // The same search as a shell command.
    let bash = json!({"cwd": repository, "tool_name": "Bash",
        "tool_input": {"command": "rg -n Server ."}})
    .to_string();
    assert!(gate(home.path(), &bash, false).0.contains("\"deny\""));

    // One declaration, a regular expression, a pipeline, another tool, a directory no
    // repository holds, a disabled gate and a broken payload: all run, silently.
    for payload in [
        grep("retry"),
        grep("Serv.*"),
        json!({"cwd": repository, "tool_name": "Bash",
            "tool_input": {"command": "grep -rn Server . | head"}})
        .to_string(),
        json!({"cwd": repository, "tool_name": "Read", "tool_input": {"file_path": "x"}})
            .to_string(),
        json!({"cwd": home.path(), "tool_name": "Grep", "tool_input": {"pattern": "Server"}})
            .to_string(),
        "not json".to_string(),
    ] {
        assert_eq!(
            gate(home.path(), &payload, false),
            (String::new(), Some(0)),
            "{payload}"
        );
    }
    assert_eq!(
        gate(home.path(), &grep("Server"), true),
        (String::new(), Some(0))
    );

    // Registered in Claude Code's settings beside what was there, then removed alone.
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let existing = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Write\", \"hooks\": [{\"type\": \"command\", \"command\": \"lint\"}]}\n    ]\n  }\n}\n";
    std::fs::write(&settings, existing).unwrap();
    let hook = |args: &[&str]| {
        let out = kivgraph(home.path(), &[&["hook"][..], args, &["--json"]].concat());
        outcome(&out)["state"].as_str().unwrap().to_string()
    };
    let claude = ["--target", "claude-code"];
    assert_eq!(hook(&[&["status"][..], &claude].concat()), "absent");
    assert_eq!(hook(&[&["install"][..], &claude].concat()), "installed");
    assert_eq!(hook(&[&["install"][..], &claude].concat()), "managed");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(written["model"], "opus");
    let entries = written["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[1]["matcher"], "Grep|Bash");
    assert_eq!(
        entries[1]["hooks"][0]["command"],
        format!("{} hook", executable())
    );
    assert_eq!(hook(&[&["remove"][..], &claude].concat()), "removed");
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(after, serde_json::from_str::<Value>(existing).unwrap());
    assert_eq!(hook(&[&["status"][..], &claude].concat()), "absent");

    // Codex reads the same entry from its hooks.json, for its shell (`Bash`).
    let codex = ["--target", "codex"];
    assert_eq!(hook(&[&["install"][..], &codex].concat()), "installed");
    let hooks: Value = serde_json::from_str(
        &std::fs::read_to_string(home.path().join(".codex/hooks.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        hooks,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
            "hooks": [{"type": "command", "command": format!("{} hook", executable())}]}]}})
    );
    assert_eq!(hook(&[&["remove"][..], &codex].concat()), "removed");

    // The clients that host no gate say why, and nothing is written.
    for (target, why) in [
        ("oh-my-pi", "legacy"),
        ("claude-desktop", "use --target claude-code"),
        ("gemini", "claude-code, codex and opencode only"),
    ] {
        let out = kivgraph(home.path(), &["hook", "install", "--target", target]);
        assert!(!out.status.success());
        assert!(text(&out).contains(why), "{target}: {}", text(&out));
    }
}

/// OpenCode's plugin, loaded by node and called exactly as OpenCode calls
/// `tool.execute.before`: a search for a shared name throws the gate's refusal, anything else
/// returns; a file at the plugin's path that is not ours is kept without --force.
#[test]
fn opencode_s_plugin_throws_the_refusal_and_lets_the_rest_run() {
    let home = tempfile::tempdir().unwrap();
    let repository = gate_fixture(home.path());
    let hook = |args: &[&str]| {
        let out = kivgraph(home.path(), &[&["hook"][..], args, &["--json"]].concat());
        outcome(&out)["state"].as_str().unwrap().to_string()
    };
    let opencode = ["--target", "opencode"];
    assert_eq!(hook(&[&["install"][..], &opencode].concat()), "installed");
    assert_eq!(hook(&[&["status"][..], &opencode].concat()), "managed");
    let plugin = home
        .path()
        .join(".config/opencode/plugins/kivgraph-search-gate.js");
    let script = format!(
        r#"const {{ KivgraphSearchGate }} = await import({plugin});
const gate = (await KivgraphSearchGate({{ directory: {repository} }}))["tool.execute.before"];
const call = async (tool, args) => {{
  try {{ await gate({{ tool, sessionID: "s", callID: "c" }}, {{ args }}); return "ran"; }}
  catch (error) {{ return "refused: " + error.message; }}
}};
console.log(JSON.stringify([
  await call("grep", {{ pattern: "Server", path: "." }}),
  await call("bash", {{ command: "rg -n Server .", description: "find" }}),
  await call("grep", {{ pattern: "retry" }}),
  await call("grep", {{ pattern: "Serv.*" }}),
  await call("read", {{ filePath: "server/server.go" }}),
]));"#,
        plugin = json!(format!("file://{}", plugin.display())),
        repository = json!(repository),
    );
    let node = Command::new("node")
        .args([
            "--experimental-detect-module",
            "--input-type=module",
            "-e",
            &script,
        ])
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join(".config"))
        .env("XDG_STATE_HOME", home.path().join(".local/state"))
        .env_remove("KIVGRAPH_DISABLE_HOOK")
        .output()
        .unwrap();
    assert!(node.status.success(), "{}", text(&node));
    let answers: Vec<String> = serde_json::from_slice(&node.stdout).unwrap();
    assert!(
        answers[0].starts_with("refused: 2 declarations of Server in gocalls"),
        "{answers:?}"
    );
    assert!(
        answers[1].starts_with("refused: 2 declarations of Server"),
        "{answers:?}"
    );
    assert_eq!(answers[2..], ["ran", "ran", "ran"]);

    assert_eq!(hook(&[&["remove"][..], &opencode].concat()), "removed");
    assert!(!plugin.exists());
    std::fs::write(&plugin, "export const Mine = async () => ({});\n").unwrap();
    assert_eq!(
        hook(&[&["install"][..], &opencode].concat()),
        "incompatible"
    );
    assert_eq!(hook(&[&["remove"][..], &opencode].concat()), "incompatible");
    assert_eq!(
        std::fs::read_to_string(&plugin).unwrap(),
        "export const Mine = async () => ({});\n"
    );
    assert_eq!(
        hook(&[&["install", "--force"][..], &opencode].concat()),
        "installed"
    );
}

/// With a daemon running, the gate asks it over its socket: the answer holds while the
/// generation on disk is gone (the daemon keeps its mapping), and stops when the daemon does.
/// The socket's route needs the token, and the TCP door does not serve it.
#[test]
fn the_hook_asks_a_running_daemon_over_its_socket() {
    let home = tempfile::tempdir().unwrap();
    let repository = gate_fixture(home.path());
    append_config(
        &home.path().join(".config/kivgraph/config.yaml"),
        "watcher:\n  enabled: false\n",
    );
    let state = home.path().join(".local/state/kivgraph");
    let mut daemon = Command::new(binary())
        .args(["daemon", "--addr", "127.0.0.1:0"])
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join(".config"))
        .env("XDG_STATE_HOME", home.path().join(".local/state"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let record_path = state.join("daemon.json");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let record: Value = loop {
        if let Some(record) = std::fs::read(&record_path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        {
            break record;
        }
        assert!(std::time::Instant::now() < deadline, "no daemon.json");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let grep = json!({"cwd": repository, "tool_name": "Grep",
        "tool_input": {"pattern": "Server", "path": "."}})
    .to_string();
    let (first, _) = gate(home.path(), &grep, false);
    assert!(
        first.contains("2 declarations of Server in gocalls"),
        "{first}"
    );

    // The generation leaves the disk; the daemon keeps answering from its mapping.
    let generations = state.join("generations");
    let moved = home.path().join("moved-away");
    std::fs::rename(&generations, &moved).unwrap();
    assert_eq!(gate(home.path(), &grep, false).0, first);

    // The route: the token over the socket, never the TCP door.
    let socket = record["socket"].as_str().unwrap();
    let question = json!({"name": "Server", "searched": repository}).to_string();
    let ask = |token: Option<&str>| {
        use std::io::{Read, Write};
        let mut stream = std::os::unix::net::UnixStream::connect(socket).unwrap();
        let authorization = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        write!(
            stream,
            "POST /search-gate HTTP/1.1\r\nHost: localhost\r\n{authorization}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{question}",
            question.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    assert!(ask(None).starts_with("HTTP/1.1 401"), "{}", ask(None));
    let token = record["token"].as_str().unwrap();
    let answered = ask(Some(token));
    assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
    assert!(answered.contains("\"declarations\":2"), "{answered}");
    let tcp = {
        use std::io::{Read, Write};
        let address = record["url"].as_str().unwrap();
        let address = address
            .trim_start_matches("http://")
            .trim_end_matches("/mcp");
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        write!(
            stream,
            "POST /search-gate HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{question}",
            question.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    assert!(!tcp.contains("\"shared\""), "{tcp}");

    // No daemon, no generation on disk: the search runs.
    daemon.kill().unwrap();
    daemon.wait().unwrap();
    assert_eq!(gate(home.path(), &grep, false), (String::new(), Some(0)));
    std::fs::rename(&moved, &generations).unwrap();
    assert!(gate(home.path(), &grep, false).0.contains("\"deny\""));
}

/// `kivgraph logs` and `tool-stats` over a real run: an index, a server, answered and refused
/// calls — recorded by shape, never by value.
#[test]
fn logs_and_tool_stats_read_back_what_was_indexed_served_and_answered() {
    let dir = common::client::indexed_live();
    let config = dir.path().join("config.yaml");
    let mut client = common::client::Client::start(dir.path());
    client.ok("find_symbol", json!({"name": "Existing"}));
    client.ok("find_symbol", json!({"name": "Existing", "view": "full"}));
    client.refused("get_symbol", json!({"repository": "live"}));
    drop(client);
    let cli = |args: &[&str]| {
        let out = Command::new(binary())
            .args(args)
            .arg("--config")
            .arg(&config)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let events: Vec<Value> = cli(&["logs", "--json"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<(&str, &str)> = events
        .iter()
        .map(|e| (e["kind"].as_str().unwrap(), e["role"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("pass", "index"),
            ("server", "serve"),
            ("tool_call", "serve"),
            ("tool_call", "serve"),
            ("tool_call", "serve")
        ],
        "{events:?}"
    );
    assert_eq!(events[0]["trigger"], "index --full");
    assert_eq!(events[0]["result"], "published");
    assert_eq!(events[2]["tool"], "find_symbol");
    assert_eq!(events[2]["arguments"], json!([["name", "string"]]));
    assert!(events[2]["answer_bytes"].as_u64().unwrap() > 0);
    let log = std::fs::read_to_string(dir.path().join("state/events.jsonl")).unwrap();
    assert!(
        !log.contains("Existing"),
        "argument values are never written: {log}"
    );

    let failures: Vec<Value> = cli(&["logs", "--failures", "--json"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0]["tool"], "get_symbol");
    assert_eq!(failures[0]["error"], "INVALID_ARGUMENT");
    let text = cli(&["logs", "--kind", "pass"]);
    assert!(
        text.contains("index[") && text.contains("pass (index --full) published 000001"),
        "{text}"
    );

    let stats: Value = serde_json::from_str(&cli(&["tool-stats", "--json"])).unwrap();
    assert_eq!(stats[0]["tool"], "find_symbol");
    assert_eq!(stats[0]["calls"], 2);
    assert_eq!(stats[0]["failures"], json!({}));
    assert_eq!(stats[1]["tool"], "get_symbol");
    assert_eq!(stats[1]["failures"], json!({"INVALID_ARGUMENT": 1}));
    let only: Value =
        serde_json::from_str(&cli(&["tool-stats", "--tool", "get_symbol", "--json"])).unwrap();
    assert_eq!(only.as_array().unwrap().len(), 1);
}

/// A server logs as its configuration's `logging` section says: JSON at info by default,
/// text when asked, and nothing under the level asked for.
#[test]
fn a_server_logs_in_the_format_and_level_its_configuration_names() {
    let serve_log = |logging: Option<&str>| {
        let dir = common::client::indexed_live();
        if let Some(logging) = logging {
            let config = dir.path().join("config.yaml");
            let text = std::fs::read_to_string(&config).unwrap();
            std::fs::write(&config, format!("{text}\nlogging:\n{logging}")).unwrap();
        }
        let log = std::fs::File::create(dir.path().join("serve.log")).unwrap();
        let mut client =
            common::client::Client::spawn(dir.path(), json!({}), std::process::Stdio::from(log));
        client.ok("find_symbol", json!({"name": "Existing"}));
        drop(client);
        std::fs::read_to_string(dir.path().join("serve.log")).unwrap()
    };
    let default = serve_log(None);
    assert!(default.contains("tool answered"), "{default}");
    assert!(
        default
            .lines()
            .all(|l| serde_json::from_str::<Value>(l).is_ok()),
        "{default}"
    );
    let text = serve_log(Some("  format: text\n  level: info\n"));
    assert!(text.contains("tool answered"), "{text}");
    assert!(!text.trim_start().starts_with('{'), "{text}");
    let quiet = serve_log(Some("  format: json\n  level: warn\n"));
    assert!(!quiet.contains("tool answered"), "{quiet}");
}

/// `kivgraph stats` finds a running server by its executable, with its memory and the
/// generation it maps.
#[test]
fn stats_reports_a_running_server_and_the_generation_it_maps() {
    let dir = common::client::indexed_live();
    let mut client = common::client::Client::start(dir.path());
    let pid = client.pid();
    let server = || {
        let out = Command::new(binary())
            .args(["stats", "--once", "--json", "--interval", "300ms"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let processes: Value = serde_json::from_slice(&out.stdout).unwrap();
        processes
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pid"] == pid)
            .unwrap_or_else(|| panic!("{processes}"))
            .clone()
    };
    // Nobody asked yet: the graph is not mapped, and stats says why.
    let idle = server();
    assert_eq!(idle["generation"], Value::Null);
    assert_eq!(
        idle["generation_note"],
        "none mapped yet: a server maps CURRENT at its first query"
    );
    client.ok("find_symbol", json!({"name": "Existing"}));
    let server = server();
    assert_eq!(server["role"], "serve");
    assert_eq!(server["generation"], "000001");
    assert_eq!(server["generation_note"], Value::Null);
    assert!(server["rss_mib"].as_f64().unwrap() > 1.0, "{server}");
    assert!(server["cpu_percent"].as_f64().is_some());
}

/// Codex and Gemini CLI, as npm installs them, read the entries `mcp install` wrote — Gemini
/// starts the server and reports it connected — and a server registered beforehand is still
/// theirs. (OpenCode, checked by hand the same way, is not pinned: npm's lock file omits its
/// other platforms' optional packages, which `npm ci` then refuses.)
#[test]
fn codex_and_gemini_read_the_entries_mcp_install_wrote() {
    let Some(clients) = common::clients_dir().map(|d| d.join("node_modules/.bin")) else {
        panic!(
            "KIVGRAPH_CLIENTS_DIR is not set: run the suite with cargo xtask test, which installs the MCP clients"
        );
    };
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work");
    std::fs::create_dir_all(home.path().join(".codex")).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(
        home.path().join(".codex/config.toml"),
        "[mcp_servers.docs]\ncommand = \"/nonexistent/docs\"\n",
    )
    .unwrap();
    let install = kivgraph(
        home.path(),
        &[
            "mcp", "install", "--target", "codex", "--target", "gemini", "--stdio",
        ],
    );
    assert!(install.status.success(), "{}", text(&install));
    // Gemini CLI starts servers only in a folder the user trusts.
    std::fs::write(
        home.path().join(".gemini/trustedFolders.json"),
        json!({work.display().to_string(): "TRUST_FOLDER"}).to_string(),
    )
    .unwrap();
    let list = |client: &str| {
        let out = Command::new(clients.join(client))
            .args(["mcp", "list"])
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join(".config"))
            .env("XDG_STATE_HOME", home.path().join(".local/state"))
            .env("NO_COLOR", "1")
            .current_dir(&work)
            .output()
            .unwrap();
        text(&out)
    };
    let codex = list("codex");
    let row = codex
        .lines()
        .find(|l| l.starts_with("kivgraph "))
        .unwrap_or_else(|| panic!("{codex}"));
    assert!(
        row.contains(&executable()) && row.contains("serve") && row.contains("enabled"),
        "{codex}"
    );
    assert!(codex.lines().any(|l| l.starts_with("docs ")), "{codex}");
    let gemini = list("gemini");
    assert!(
        gemini
            .lines()
            .any(|l| l.contains("kivgraph:") && l.contains("Connected")),
        "{gemini}"
    );
}

/// OpenCode reads what `mcp install` wrote, starts the server and reports it connected.
#[test]
fn opencode_connects_to_what_mcp_install_wrote() {
    let Some(opencode) =
        common::clients_dir().map(|d| d.join("opencode/node_modules/.bin/opencode"))
    else {
        panic!(
            "KIVGRAPH_CLIENTS_DIR is not set: run the suite with cargo xtask test, which installs the MCP clients"
        );
    };
    let home = tempfile::tempdir().unwrap();
    let install = kivgraph(
        home.path(),
        &["mcp", "install", "--target", "opencode", "--stdio"],
    );
    assert!(install.status.success(), "{}", text(&install));
    let list = Command::new(&opencode)
        .args(["mcp", "list"])
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join(".config"))
        .env("XDG_STATE_HOME", home.path().join(".local/state"))
        .env("XDG_DATA_HOME", home.path().join(".local/share"))
        .env("XDG_CACHE_HOME", home.path().join(".cache"))
        .env("NO_COLOR", "1")
        .current_dir(home.path())
        .output()
        .unwrap();
    let listed = text(&list);
    assert!(
        listed
            .lines()
            .any(|l| l.contains("kivgraph") && l.contains("connected")),
        "{listed}"
    );
    assert!(
        listed.contains(&format!("{} serve", executable())),
        "{listed}"
    );
}

/// `logs --follow` prints what is appended after it started, once each, as it comes.
#[test]
fn logs_follow_prints_each_new_event_once() {
    use std::io::BufRead;
    /// Stops the follower however the test ends.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let dir = common::client::indexed_live();
    let config = dir.path().join("config.yaml");
    let mut follow = Killed(
        Command::new(binary())
            .args([
                "logs",
                "--follow",
                "--json",
                "--kind",
                "tool_call",
                "--config",
            ])
            .arg(&config)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut lines = std::io::BufReader::new(follow.0.stdout.take().unwrap()).lines();
    let mut client = common::client::Client::start(dir.path());
    client.ok("find_symbol", json!({"name": "Existing"}));
    client.ok(
        "get_file_outline",
        json!({"repository": "live", "path": "main.go"}),
    );
    let tools: Vec<String> = (0..2)
        .map(|_| {
            let line = lines.next().unwrap().unwrap();
            let event: Value = serde_json::from_str(&line).unwrap();
            event["tool"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(tools, ["find_symbol", "get_file_outline"]);
}
