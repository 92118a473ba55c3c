//! A real MCP client of the `kivgraph` binary: `init`, `index --full`, then `serve` over stdio
//! JSON-RPC, as an agent's client drives it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use super::binary;

/// `kivgraph init` of a configuration in `dir` registering `repositories` with `languages`.
pub fn init(dir: &Path, languages: &str, repositories: &[(&str, &Path)]) {
    let mut command = Command::new(binary());
    command
        .args(["init", &format!("--languages={languages}"), "--config"])
        .arg(dir.join("config.yaml"));
    for (name, path) in repositories {
        command.arg(format!("--repository={name}={}", path.display()));
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn reindex(dir: &Path) {
    index_with(dir, true);
}

/// `index --full`, with the installed exact analyzers or with none.
pub fn index_with(dir: &Path, analyzers: bool) {
    let mut command = Command::new(binary());
    command
        .args(["index", "--full", "--config"])
        .arg(dir.join("config.yaml"));
    if !analyzers {
        command
            .env("KIVGRAPH_ANALYZERS_DIR", dir.join("no-analyzers"))
            .env("PATH", "/usr/bin:/bin");
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A configuration in a temporary directory over one Go repository, `live` (the module of
/// `go_repository`), indexed by the syntax layer alone.
pub fn indexed_live() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repository = dir.path().join("live");
    super::go_repository(&repository);
    init(dir.path(), "go", &[("live", &repository)]);
    index_with(dir.path(), false);
    dir
}

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    pub instructions: String,
}

impl Client {
    pub fn start(dir: &Path) -> Self {
        Self::start_with(dir, json!({}))
    }

    /// Starts a server with the given client capabilities.
    pub fn start_with(dir: &Path, capabilities: Value) -> Self {
        Self::spawn(dir, capabilities, Stdio::null())
    }

    /// Starts a server whose log goes to `stderr`.
    pub fn spawn(dir: &Path, capabilities: Value, stderr: Stdio) -> Self {
        let mut command = Command::new(binary());
        command
            .args(["serve", "--config"])
            .arg(dir.join("config.yaml"))
            .stderr(stderr);
        Self::handshake(command, capabilities)
    }

    /// Starts the server of the default configuration of a user whose home is `home`.
    #[allow(dead_code)]
    pub fn start_at_home(home: &Path) -> Self {
        let mut command = Command::new(binary());
        command
            .arg("serve")
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .stderr(Stdio::null());
        Self::handshake(command, json!({}))
    }

    fn handshake(mut command: Command, capabilities: Value) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut client = Client {
            child,
            stdin,
            stdout,
            next_id: 1,
            instructions: String::new(),
        };
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": capabilities, "clientInfo": {"name": "test", "version": "1"}}),
        );
        client.instructions = init["instructions"].as_str().unwrap().to_string();
        client.notify("notifications/initialized");
        client
    }

    pub fn notify(&mut self, method: &str) {
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": method})
        )
        .unwrap();
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.exchange(method, params, &mut |_| json!({}), &mut Vec::new())
    }

    /// Sends a request, answering the server's own requests with `respond` and collecting
    /// its notifications, until the response arrives.
    pub fn exchange(
        &mut self,
        method: &str,
        params: Value,
        respond: &mut dyn FnMut(&Value) -> Value,
        notifications: &mut Vec<Value>,
    ) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        )
        .unwrap();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed stdout"
            );
            let message: Value = serde_json::from_str(&line).expect("stdout carries JSON-RPC only");
            if message.get("method").is_some() && message.get("id").is_some() {
                let result = respond(&message);
                writeln!(
                    self.stdin,
                    "{}",
                    json!({"jsonrpc": "2.0", "id": message["id"], "result": result})
                )
                .unwrap();
            } else if message.get("method").is_some() {
                notifications.push(message);
            } else if message["id"] == json!(id) {
                assert!(message.get("error").is_none(), "{message}");
                return message["result"].clone();
            }
        }
    }

    pub fn tool_names(&mut self) -> Vec<String> {
        let tools = self.request("tools/list", json!({}));
        tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }

    /// The answer's text, and whether it is an error.
    pub fn call(&mut self, tool: &str, arguments: Value) -> (String, bool) {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let content = result["content"].as_array().unwrap();
        assert_eq!(content.len(), 1, "one text block per answer");
        assert!(result.get("structuredContent").is_none());
        (
            content[0]["text"].as_str().unwrap().to_string(),
            result["isError"] == true,
        )
    }

    pub fn ok(&mut self, tool: &str, arguments: Value) -> Value {
        let (text, error) = self.call(tool, arguments);
        assert!(!error, "{text}");
        serde_json::from_str(&text).unwrap()
    }

    /// The server process's id.
    #[allow(dead_code)]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn refused(&mut self, tool: &str, arguments: Value) -> String {
        let (text, error) = self.call(tool, arguments);
        assert!(error, "expected a refusal, got {text}");
        text
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
