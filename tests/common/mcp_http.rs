//! A real MCP client of `kivgraph daemon`: Streamable HTTP over TCP or the unix socket, one
//! HTTP/1.1 request per connection, written by hand so its users see every status, header
//! and byte the daemon sends. Shared by the integration tests and the benchmarks (each
//! includes this file); it depends on `serde_json` alone.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;

use serde_json::{Value, json};

/// Where a client reaches the daemon.
#[derive(Debug, Clone)]
pub enum Door {
    Tcp(String),
    Unix(PathBuf),
}

/// One HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The JSON-RPC messages of the body: the body itself, or each `data:` of an event stream.
    pub fn messages(&self) -> Vec<Value> {
        let text = self.text();
        if self
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
        {
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str(data.trim()).ok())
                .collect()
        } else {
            serde_json::from_str(&text).into_iter().collect()
        }
    }
}

/// Sends one request and reads the whole answer (`Connection: close`).
pub fn send(door: &Door, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
    let host = match door {
        Door::Tcp(address) => address.clone(),
        Door::Unix(_) => "localhost".to_string(),
    };
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        // A test may replace Host.
        if name.eq_ignore_ascii_case("host") {
            request = request.replacen(&format!("Host: {host}\r\n"), "", 1);
        }
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let mut raw = Vec::new();
    match door {
        Door::Tcp(address) => exchange(
            TcpStream::connect(address).unwrap(),
            &request,
            body,
            &mut raw,
        ),
        Door::Unix(path) => exchange(UnixStream::connect(path).unwrap(), &request, body, &mut raw),
    }
    parse(&raw)
}

fn exchange<S: Read + Write>(mut stream: S, head: &str, body: &[u8], raw: &mut Vec<u8>) {
    stream.write_all(head.as_bytes()).unwrap();
    // A refused request may be answered before its body is read; the answer still counts.
    let _ = stream.write_all(body);
    let _ = stream.read_to_end(raw);
}

fn parse(raw: &[u8]) -> Answer {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP head in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    Answer {
        status,
        headers,
        body,
    }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(
            String::from_utf8_lossy(&rest[..end])
                .split(';')
                .next()
                .unwrap()
                .trim(),
            16,
        )
        .unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&rest[end + 2..end + 2 + size]);
        rest = &rest[end + 2 + size + 2..];
    }
    out
}

/// An MCP session with the daemon.
pub struct Session {
    pub door: Door,
    token: String,
    id: Option<String>,
    next: u64,
}

impl Session {
    /// Initializes a session through `door`.
    pub fn open(door: Door, token: &str) -> Self {
        let mut session = Session {
            door,
            token: token.to_string(),
            id: None,
            next: 1,
        };
        let init = session.post(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "kivgraph-tests", "version": "1"}}}));
        assert_eq!(init.status, 200, "{}", init.text());
        session.id = Some(
            init.header("mcp-session-id")
                .expect("the daemon names the session")
                .to_string(),
        );
        let initialized =
            session.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(initialized.status, 202, "{}", initialized.text());
        session
    }

    pub fn post(&self, message: &Value) -> Answer {
        let authorization = format!("Bearer {}", self.token);
        let mut headers = vec![
            ("Authorization", authorization.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        if let Some(id) = &self.id {
            headers.push(("Mcp-Session-Id", id));
        }
        send(&self.door, "POST", &headers, message.to_string().as_bytes())
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let answer =
            self.post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        assert_eq!(answer.status, 200, "{}", answer.text());
        answer
            .messages()
            .into_iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no answer to {id} in {}", answer.text()))
    }

    /// A tool's text and whether it is an error.
    pub fn call(&mut self, tool: &str, arguments: Value) -> (String, bool) {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &answer["result"];
        (
            result["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            result["isError"].as_bool().unwrap_or(false),
        )
    }

    pub fn ok(&mut self, tool: &str, arguments: Value) -> Value {
        let (text, error) = self.call(tool, arguments);
        assert!(!error, "{tool} failed: {text}");
        serde_json::from_str(&text).unwrap()
    }
}
