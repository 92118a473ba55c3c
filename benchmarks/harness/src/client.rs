//! A minimal MCP client over a child's stdio, for measuring the server as an agent sees it.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

pub struct McpClient {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    /// From spawn to the `initialize` answer.
    pub handshake: Duration,
}

impl McpClient {
    pub fn start(kivgraph: &Path, config: &Path) -> anyhow::Result<Self> {
        let started = Instant::now();
        let mut child = Command::new(kivgraph)
            .args(["serve", "--config"])
            .arg(config)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take().context("stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("stdout")?);
        let mut client = McpClient {
            child,
            stdin,
            stdout,
            next_id: 1,
            handshake: Duration::ZERO,
        };
        client.request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}))?;
        client.handshake = started.elapsed();
        writeln!(
            client.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )?;
        Ok(client)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn request(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        )?;
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line)? == 0 {
                bail!("the server closed its stdout");
            }
            let message: Value = serde_json::from_str(&line)?;
            if message["id"] == json!(id) {
                if let Some(error) = message.get("error") {
                    bail!("{error}");
                }
                return Ok(message["result"].clone());
            }
        }
    }

    /// The text block of a tool answer.
    pub fn call(&mut self, tool: &str, arguments: Value) -> anyhow::Result<String> {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}))?;
        Ok(result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string())
    }
}

impl Drop for McpClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
