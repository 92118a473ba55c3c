//! `kivgraph watch` keeps the published graph in step with a checkout: a save is answered
//! from the next generation, a change the graph does not read publishes nothing, a deleted
//! file leaves the graph, and a registry change is watched at once.

#[path = "common/mod.rs"]
mod common;

use std::io::Write;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use common::client::{Client, index_with, indexed_live, init};
use common::{append_config, binary, copy_tree, fixtures, go_repository, save};
use serde_json::{Value, json};

/// A running `kivgraph watch --json` and its events.
struct Watch {
    child: Child,
    events: Receiver<Value>,
}

impl Watch {
    /// Starts the watcher over the configuration in `dir`, with the syntax layer alone.
    fn start(dir: &Path) -> Self {
        let mut command = Command::new(binary());
        command
            .env("KIVGRAPH_ANALYZERS_DIR", dir.join("no-analyzers"))
            .env("PATH", "/usr/bin:/bin");
        Self::spawn(dir, command)
    }

    /// Starts the watcher over the configuration in `dir` with the installed analyzers.
    fn start_with_analyzers(dir: &Path) -> Self {
        Self::spawn(dir, Command::new(binary()))
    }

    fn spawn(dir: &Path, mut command: Command) -> Self {
        let mut child = command
            .args(["watch", "--json", "--config"])
            .arg(dir.join("config.yaml"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, events) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let event: Value = serde_json::from_str(&line).expect("stdout is JSON lines");
                if send.send(event).is_err() {
                    break;
                }
            }
        });
        Watch { child, events }
    }

    /// The next event, within a minute.
    fn next(&self) -> Value {
        self.events
            .recv_timeout(Duration::from_secs(60))
            .expect("the watcher says something within a minute")
    }

    /// The next `pass` event of a batch: the passes that write a save's canonical database
    /// once saves pause are passed over.
    fn pass(&self) -> Value {
        self.pass_within(Duration::from_secs(60))
            .expect("a pass within a minute")
    }

    /// The next `pass` event of a batch within `limit`, if one comes.
    fn pass_within(&self, limit: Duration) -> Option<Value> {
        let deadline = Instant::now() + limit;
        loop {
            let event = self
                .events
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .ok()?;
            assert_ne!(event["event"], "error", "{event}");
            if event["event"] == "pass" && event["trigger"] != "database" {
                return Some(event);
            }
        }
    }

    /// The next `pass` event, whatever ran it.
    fn any_pass(&self) -> Value {
        loop {
            let event = self.next();
            assert_ne!(event["event"], "error", "{event}");
            if event["event"] == "pass" {
                return event;
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn declared(client: &mut Client, name: &str) -> u64 {
    client.ok("find_symbol", json!({"name": name}))["total"]
        .as_u64()
        .unwrap()
}

#[test]
fn a_save_is_answered_from_the_next_generation_and_a_delete_leaves_the_graph() {
    let dir = indexed_live();
    let repository = dir.path().join("live");
    let watch = Watch::start(dir.path());
    let start = watch.pass();
    assert_eq!(
        (start["trigger"].as_str(), start["result"].as_str()),
        (Some("start"), Some("unchanged")),
        "{start}"
    );
    let watching = watch.next();
    assert_eq!(watching["event"], "watching", "{watching}");
    assert_eq!(watching["repositories"][0]["watching"], true, "{watching}");

    let mut client = Client::start(dir.path());
    assert_eq!(declared(&mut client, "Added"), 0);
    save(
        &repository.join("added.go"),
        "package live\n\nfunc Added() int { return Existing() }\n",
    );
    let published = watch.pass();
    assert_eq!(
        (published["trigger"].as_str(), published["result"].as_str()),
        (Some("changes"), Some("published")),
        "{published}"
    );
    assert!(published["latency_ms"].as_u64().is_some(), "{published}");
    // The server follows CURRENT: the same process answers from the new generation.
    assert_eq!(declared(&mut client, "Added"), 1);
    // graph_status says the graph is kept current, and how long the save took to publish.
    let watcher = &client.ok("graph_status", json!({}))["results"]["watcher"];
    assert_eq!(watcher["state"], "watching", "{watcher}");
    assert_eq!(watcher["repositories"][0]["watching"], true, "{watcher}");
    let last = watcher["last_batches"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        (last["trigger"].as_str(), last["result"].as_str()),
        (Some("changes"), Some("published")),
        "{watcher}"
    );
    assert_eq!(last["latency_ms"], published["latency_ms"], "{watcher}");
    // The save's generation is published without its canonical database, which follows
    // once saves pause: then Cypher sees the save too.
    let database = |generation: &Value| {
        let id = generation["generation_id"].as_str().unwrap().to_string();
        let manifest = dir
            .path()
            .join(format!("state/generations/{id}/manifest.json"));
        let manifest: Value = serde_json::from_slice(&std::fs::read(manifest).unwrap()).unwrap();
        manifest.get("graph").cloned()
    };
    assert_eq!(database(&published), None);
    let refused = client.refused("query_graph", json!({"query": "RETURN 1"}));
    assert!(
        refused.starts_with("INDEX_NOT_READY: generation") && refused.contains("once saves pause"),
        "{refused}"
    );
    let follows = watch.any_pass();
    assert_eq!(
        (follows["trigger"].as_str(), follows["result"].as_str()),
        (Some("database"), Some("published")),
        "{follows}"
    );
    assert!(database(&follows).is_some(), "{follows}");
    let added = client.ok(
        "query_graph",
        json!({"query": "MATCH (s:Symbol {name: 'Added'}) RETURN s.file_path"}),
    );
    assert_eq!(added["results"]["rows"], json!([["added.go"]]), "{added}");

    // A file the graph does not read changes nothing it answers from.
    std::fs::write(repository.join("NOTES.txt"), "nothing to index\n").unwrap();
    let unchanged = watch.pass();
    assert_eq!(unchanged["result"], "unchanged", "{unchanged}");
    assert_eq!(
        unchanged["generation_id"], follows["generation_id"],
        "{unchanged}"
    );

    // A file renamed: its declarations answer from the new path.
    std::fs::rename(repository.join("added.go"), repository.join("moved.go")).unwrap();
    let moved = watch.pass();
    assert_eq!(moved["result"], "published", "{moved}");
    let found = client.ok("find_symbol", json!({"name": "Added", "view": "full"}));
    assert_eq!(found["total"], 1, "{found}");
    assert!(found.to_string().contains("moved.go"), "{found}");

    std::fs::remove_file(repository.join("moved.go")).unwrap();
    let removed = watch.pass();
    assert_eq!(removed["result"], "published", "{removed}");
    assert_eq!(declared(&mut client, "Added"), 0);
    assert_eq!(declared(&mut client, "Existing"), 1);

    // A watcher that stopped is said to have stopped, never to be watching.
    drop(watch);
    let watcher = &client.ok("graph_status", json!({}))["results"]["watcher"];
    assert_eq!(watcher["state"], "not_running", "{watcher}");
}

/// The debounce is the quiet awaited while a file may still be being written (here 30 s): a
/// file held open after writing waits it out, and once the write is seen to finish — the file
/// closed, or an atomic save renamed into place — the batch is published after a settle of
/// milliseconds.
#[test]
fn a_save_seen_to_finish_is_published_without_waiting_out_the_debounce() {
    let dir = indexed_live();
    append_config(
        &dir.path().join("config.yaml"),
        "watcher:\n  debounce_ms: 30000\n  maximum_batch_ms: 60000\n",
    );
    let repository = dir.path().join("live");
    let watch = Watch::start(dir.path());
    assert_eq!(watch.pass()["trigger"], "start");
    assert_eq!(watch.next()["event"], "watching");
    let mut client = Client::start(dir.path());

    let mut held = std::fs::File::create(repository.join("held.go")).unwrap();
    held.write_all(b"package live\n\nfunc Held() int { return Existing() }\n")
        .unwrap();
    held.flush().unwrap();
    let early = watch.pass_within(Duration::from_secs(3));
    assert!(early.is_none(), "published while being written: {early:?}");
    drop(held);
    let published = watch
        .pass_within(Duration::from_secs(10))
        .expect("published once the file is closed");
    assert_eq!(published["result"], "published", "{published}");
    assert_eq!(declared(&mut client, "Held"), 1);

    save(
        &repository.join("saved.go"),
        "package live\n\nfunc Saved() int { return Held() }\n",
    );
    let published = watch
        .pass_within(Duration::from_secs(10))
        .expect("an atomic save published well within the debounce");
    assert_eq!(published["result"], "published", "{published}");
    assert!(
        published["latency_ms"].as_u64().unwrap() < 10_000,
        "{published}"
    );
    assert_eq!(declared(&mut client, "Saved"), 1);
}

/// With an exact analyzer, a save is published twice: its syntax layer at once (the
/// generation says the analyzer's layer follows), then the analyzer's layer.
#[test]
fn a_save_publishes_the_syntax_layer_first_and_the_analyzers_layer_after() {
    let dir = tempfile::tempdir().unwrap();
    let repository = dir.path().join("gocalls");
    copy_tree(&fixtures().join("../resolution/gocalls"), &repository);
    init(dir.path(), "go", &[("gocalls", &repository)]);
    index_with(dir.path(), true);
    let watch = Watch::start_with_analyzers(dir.path());
    assert_eq!(watch.pass()["result"], "unchanged");
    let mut client = Client::start(dir.path());
    let callers = |client: &mut Client| {
        client.ok(
            "find_references",
            json!({"qualified_name": "Server.Start", "repository": "gocalls", "path": "server"}),
        )
    };
    let before = callers(&mut client);
    assert_eq!(
        before["results"]["confidence"], "EXACT_TYPECHECKED",
        "{before}"
    );
    assert!(before.get("freshness").is_none(), "{before}");

    // `s.Start()` on a value: go/types proves the call, the syntax layer cannot.
    let server = repository.join("server/server.go");
    let text = std::fs::read_to_string(&server).unwrap();
    save(
        &server,
        &format!(
            "{text}\n// Again starts a second server.\nfunc Again(addr string) error {{\n\ts := NewServer(addr)\n\treturn s.Start()\n}}\n"
        ),
    );
    let syntax = watch.pass();
    assert_eq!(
        (syntax["trigger"].as_str(), syntax["result"].as_str()),
        (Some("changes"), Some("published")),
        "{syntax}"
    );
    assert_eq!(
        syntax["exact_layer_follows"],
        json!(["gocalls"]),
        "{syntax}"
    );
    // The syntax generation's manifest says the analyzer's layer is owed; nothing exact is
    // claimed for the repository meanwhile.
    let generation = syntax["generation_id"].as_str().unwrap();
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(
            dir.path()
                .join(format!("state/generations/{generation}/manifest.json")),
        )
        .unwrap(),
    )
    .unwrap();
    let go = &manifest["repositories"][0]["analyzers"][0];
    assert_eq!(
        (go["language"].as_str(), go["deferred"].as_bool()),
        (Some("go"), Some(true)),
        "{manifest}"
    );
    assert!(go["analyzer"].is_null(), "{go}");

    let exact = watch.pass();
    assert_eq!(
        (exact["trigger"].as_str(), exact["result"].as_str()),
        (Some("analyzers"), Some("published")),
        "{exact}"
    );
    assert_eq!(exact["exact_layer_follows"], json!([]), "{exact}");
    let after = callers(&mut client);
    assert_eq!(
        after["results"]["confidence"], "EXACT_TYPECHECKED",
        "{after}"
    );
    assert!(after.get("freshness").is_none(), "{after}");
    let sites = after["results"]["files"][0]["at"].to_string();
    assert!(sites.contains("Again@"), "{after}");
    let repositories = client.ok("list_repositories", json!({}));
    let go = &repositories["results"][0]["analyzers"][0];
    assert!(go.get("deferred").is_none(), "{repositories}");
    // A file the graph does not read defers nothing and publishes nothing.
    std::fs::write(repository.join("NOTES.txt"), "nothing to index\n").unwrap();
    let unread = watch.pass();
    assert_eq!(unread["result"], "unchanged", "{unread}");
    assert_eq!(unread["generation_id"], exact["generation_id"], "{unread}");
    assert!(
        go["analyzer"]
            .as_str()
            .unwrap()
            .starts_with("kivgraph-go-worker"),
        "{go}"
    );
}

#[test]
fn without_a_watcher_graph_status_says_answers_reflect_the_last_index() {
    let dir = indexed_live();
    let mut client = Client::start(dir.path());
    let watcher = &client.ok("graph_status", json!({}))["results"]["watcher"];
    assert_eq!(watcher["state"], "not_started", "{watcher}");
    assert!(
        watcher["detail"]
            .as_str()
            .unwrap()
            .contains("run kivgraph watch"),
        "{watcher}"
    );
}

#[test]
fn a_repository_registered_while_watching_is_indexed_and_watched() {
    let dir = indexed_live();
    let first = dir.path().join("live");
    let watch = Watch::start(dir.path());
    watch.pass();
    assert_eq!(watch.next()["event"], "watching");

    let second = dir.path().join("other");
    std::fs::create_dir_all(&second).unwrap();
    std::fs::write(
        second.join("go.mod"),
        "module example.com/other\n\ngo 1.22\n",
    )
    .unwrap();
    std::fs::write(
        second.join("other.go"),
        "package other\n\nfunc Other() {}\n",
    )
    .unwrap();
    init(dir.path(), "go", &[("live", &first), ("other", &second)]);
    let watching = loop {
        let event = watch.next();
        if event["event"] == "watching" {
            break event;
        }
    };
    assert_eq!(watching["repositories"][1]["name"], "other", "{watching}");
    assert_eq!(watching["repositories"][1]["watching"], true, "{watching}");
    let pass = watch.pass();
    assert_eq!(
        (pass["trigger"].as_str(), pass["result"].as_str()),
        (Some("registry"), Some("published")),
        "{pass}"
    );
    let mut client = Client::start(dir.path());
    assert_eq!(declared(&mut client, "Other"), 1);
    // The new repository's own changes are seen.
    save(&second.join("more.go"), "package other\n\nfunc More() {}\n");
    assert_eq!(watch.pass()["result"], "published");
    assert_eq!(declared(&mut client, "More"), 1);
}

#[test]
fn a_disabled_watcher_says_how_to_enable_it() {
    let dir = tempfile::tempdir().unwrap();
    let repository = dir.path().join("live");
    go_repository(&repository);
    init(dir.path(), "go", &[("live", &repository)]);
    let config = dir.path().join("config.yaml");
    append_config(&config, "watcher:\n  enabled: false\n");
    let out = Command::new(binary())
        .args(["watch", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("watcher.enabled is false") && stderr.contains("set it to true"),
        "{stderr}"
    );
}
