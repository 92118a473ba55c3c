//! `kivgraph daemon`: one process serving MCP to many clients over Streamable HTTP and a unix
//! socket, guarded by its token, keeping the graph live with its own watcher, and leaving the
//! store serving when it is killed.

#[path = "common/mod.rs"]
mod common;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::client::{Client, indexed_live};
use common::http::Daemon;
use common::mcp_http::{Session, send};
use common::{append_config, command, run, save};
use serde_json::{Value, json};

/// Polls `check` until it holds, for at most `seconds`.
fn eventually(seconds: u64, what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    while !check() {
        assert!(Instant::now() < deadline, "{what} within {seconds} s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn http_and_socket_clients_query_at_once_and_a_save_reaches_both() {
    let dir = indexed_live();
    let daemon = Daemon::start(dir.path());
    let state = dir.path().join("state");
    assert_eq!(mode(&state.join("daemon.json")), 0o600);
    assert_eq!(mode(&state.join("daemon.sock")), 0o600);
    assert_eq!(daemon.record["kind"], "daemon");
    assert_eq!(daemon.token().len(), 64);

    let mut http = daemon.session(daemon.tcp());
    let mut socket = daemon.session(daemon.unix());
    // Both doors at once: each of two threads asks through its own.
    let threads: Vec<_> = [daemon.tcp(), daemon.unix()]
        .into_iter()
        .map(|door| {
            let token = daemon.token().to_string();
            std::thread::spawn(move || {
                let mut session = Session::open(door, &token);
                (0..20)
                    .map(|_| {
                        session.ok("find_symbol", json!({"name": "Existing"}))["total"].clone()
                    })
                    .collect::<Vec<Value>>()
            })
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().unwrap(), vec![json!(1); 20]);
    }
    let found = http.ok("find_symbol", json!({"name": "Existing"}));
    assert_eq!(
        found["results"]["symbols"],
        json!([{"at": "main.go:3", "sig": "func Existing() int"}]),
        "{found}"
    );

    // The daemon's watcher publishes the save; the next answer through either door has it.
    save(
        &dir.path().join("live/added.go"),
        "package live\n\nfunc Added() int { return Existing() }\n",
    );
    eventually(30, "the save answered over HTTP", || {
        http.ok("find_symbol", json!({"name": "Added"}))["total"] == 1
    });
    assert_eq!(
        socket.ok("find_symbol", json!({"name": "Added"}))["total"],
        1
    );
    std::fs::remove_file(dir.path().join("live/added.go")).unwrap();
    eventually(30, "the delete answered over the socket", || {
        socket.ok("find_symbol", json!({"name": "Added"}))["total"] == 0
    });

    let status = http.ok("graph_status", json!({}))["results"].clone();
    let section = &status["daemon"];
    assert_eq!(section["state"], "running", "{section}");
    assert_eq!(section["pid"], daemon.child.id(), "{section}");
    assert_eq!(section["url"], daemon.url(), "{section}");
    // This test's two sessions, and the two threads' that ended without closing theirs.
    assert!(section["clients"].as_u64().unwrap() >= 2, "{section}");
    assert!(
        section["resident_bytes"].as_u64().unwrap() > 1 << 20,
        "{section}"
    );
    assert_eq!(status["watcher"]["state"], "watching", "{status}");
    assert_eq!(status["watcher"]["pid"], daemon.child.id(), "{status}");

    // `stop` finds the daemon by its record, and the daemon takes its files with it.
    let mut daemon = daemon;
    let listed = run(dir.path(), &["stop", "--dry-run"]);
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(
        listed.starts_with(&format!("would stop daemon (pid {},", daemon.child.id())),
        "{listed}"
    );
    assert!(
        daemon.child.try_wait().unwrap().is_none(),
        "--dry-run stops nothing"
    );
    let stopped = run(dir.path(), &["stop"]);
    assert!(stopped.status.success());
    let exit = daemon.child.wait().unwrap();
    assert!(exit.success(), "SIGTERM is a clean exit: {exit:?}");
    assert!(!state.join("daemon.json").exists());
    assert!(!state.join("daemon.sock").exists());
    let nothing = run(dir.path(), &["stop"]);
    assert!(
        String::from_utf8_lossy(&nothing.stdout).starts_with("nothing to stop"),
        "{nothing:?}"
    );
}

#[test]
fn every_request_needs_the_token_and_the_daemon_s_own_host_and_origin() {
    let dir = indexed_live();
    let daemon = Daemon::start(dir.path());
    let door = daemon.tcp();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"}}})
    .to_string();
    let bearer = format!("Bearer {}", daemon.token());
    let accept = ("Accept", "application/json, text/event-stream");
    let json_type = ("Content-Type", "application/json");
    let post = |headers: &[(&str, &str)], body: &[u8]| send(&door, "POST", headers, body);

    let anonymous = post(&[json_type, accept], initialize.as_bytes());
    assert_eq!(anonymous.status, 401, "{}", anonymous.text());
    assert_eq!(anonymous.header("www-authenticate"), Some("Bearer"));
    let wrong = post(
        &[("Authorization", "Bearer 0000"), json_type, accept],
        initialize.as_bytes(),
    );
    assert_eq!(wrong.status, 401);
    // The socket is no side door.
    let over_socket = send(
        &daemon.unix(),
        "POST",
        &[json_type, accept],
        initialize.as_bytes(),
    );
    assert_eq!(over_socket.status, 401);

    let authorized = ("Authorization", bearer.as_str());
    let foreign_origin = post(
        &[
            authorized,
            json_type,
            accept,
            ("Origin", "http://attacker.example"),
        ],
        initialize.as_bytes(),
    );
    assert_eq!(foreign_origin.status, 403, "{}", foreign_origin.text());
    let rebound_host = post(
        &[
            authorized,
            json_type,
            accept,
            ("Host", "attacker.example:80"),
        ],
        initialize.as_bytes(),
    );
    assert_eq!(rebound_host.status, 403, "{}", rebound_host.text());
    let own_origin = format!("http://{}", daemon.address());
    let same_origin = post(
        &[
            authorized,
            json_type,
            accept,
            ("Origin", own_origin.as_str()),
        ],
        initialize.as_bytes(),
    );
    assert_eq!(same_origin.status, 200, "{}", same_origin.text());

    let oversized = vec![b' '; 2 << 20];
    let too_large = post(&[authorized, json_type, accept], &oversized);
    assert_eq!(too_large.status, 413, "{}", too_large.text());

    let malformed = post(
        &[authorized, json_type, accept],
        b"{\"jsonrpc\": \"2.0\", \"id\": 4,",
    );
    assert_eq!(malformed.status, 400);
    let error: Value = serde_json::from_slice(&malformed.body).unwrap();
    assert_eq!(error["id"], Value::Null, "{error}");
    assert_eq!(error["error"]["code"], -32700, "{error}");
    let not_json_rpc = post(
        &[authorized, json_type, accept],
        br#"{"jsonrpc": "2.0", "id": 9, "params": {}}"#,
    );
    let error: Value = serde_json::from_slice(&not_json_rpc.body).unwrap();
    assert_eq!(
        (error["id"].clone(), error["error"]["code"].clone()),
        (json!(9), json!(-32600))
    );

    // The daemon still answers a well-formed client after all of that.
    let mut session = daemon.session(daemon.tcp());
    assert_eq!(
        session.ok("find_symbol", json!({"name": "Existing"}))["total"],
        1
    );
}

#[test]
fn a_second_daemon_and_a_remote_bind_without_consent_are_refused() {
    let dir = indexed_live();
    let daemon = Daemon::start(dir.path());
    let second = run(dir.path(), &["daemon", "--addr", "127.0.0.1:0"]);
    assert!(!second.status.success());
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(
        said.contains(&format!(
            "a daemon (pid {}) already serves",
            daemon.child.id()
        )),
        "{said}"
    );
    drop(daemon);

    let remote = run(dir.path(), &["daemon", "--addr", "0.0.0.0:0"]);
    assert!(!remote.status.success());
    let said = String::from_utf8_lossy(&remote.stderr);
    assert!(
        said.contains("0.0.0.0:0 is not a loopback address") && said.contains("--allow-remote"),
        "{said}"
    );
}

#[test]
fn a_killed_daemon_leaves_the_store_serving_and_a_restarted_one_catches_up() {
    let dir = indexed_live();
    let mut daemon = Daemon::start(dir.path());
    let killed_pid = daemon.child.id();
    daemon.child.kill().unwrap();
    daemon.child.wait().unwrap();
    drop(daemon);

    // The generation stays published: a plain serve answers, and says the daemon is gone.
    let mut client = Client::start(dir.path());
    assert_eq!(
        client.ok("find_symbol", json!({"name": "Existing"}))["total"],
        1
    );
    let section = client.ok("graph_status", json!({}))["results"]["daemon"].clone();
    assert_eq!(section["state"], "not_running", "{section}");
    assert_eq!(section["pid"], killed_pid, "{section}");

    // A change made while no daemon ran is published by the next one's first pass.
    save(
        &dir.path().join("live/offline.go"),
        "package live\n\nfunc Offline() int { return 2 }\n",
    );
    let daemon = Daemon::start(dir.path());
    let mut session = daemon.session(daemon.unix());
    eventually(30, "the restarted daemon's first pass", || {
        session.ok("find_symbol", json!({"name": "Offline"}))["total"] == 1
    });
    let section = client.ok("graph_status", json!({}))["results"]["daemon"].clone();
    assert_eq!(section["state"], "running", "{section}");
    assert_eq!(section["pid"], daemon.child.id(), "{section}");
    assert!(
        section.get("clients").is_none(),
        "only the daemon counts its clients: {section}"
    );
}

#[test]
fn install_without_a_reachable_supervisor_says_so_and_writes_nothing() {
    let dir = indexed_live();
    let config_home = dir.path().join("xdg-config");
    let out = command(dir.path(), &["daemon", "install"])
        .env("XDG_CONFIG_HOME", &config_home)
        // No user manager: what a container or an ssh session without lingering has.
        .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
        .env("XDG_RUNTIME_DIR", dir.path().join("no-runtime"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("nothing was installed"), "{said}");
    assert!(!config_home.exists(), "no unit was written");
    let status = run(dir.path(), &["daemon", "status", "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["installed"], false, "{status}");
    assert_eq!(status["daemon"]["running"], false, "{status}");
}

#[test]
fn claude_code_reports_the_daemon_connected() {
    let Some(claude) = common::clients_dir().map(|d| d.join("node_modules/.bin/claude")) else {
        panic!(
            "KIVGRAPH_CLIENTS_DIR is not set: run the suite with cargo xtask test, which installs the MCP clients"
        );
    };
    let dir = indexed_live();
    let daemon = Daemon::start(dir.path());
    let home = dir.path().join("claude-home");
    std::fs::create_dir_all(&home).unwrap();
    let claude = |args: &[&str]| {
        Command::new(&claude)
            .args(args)
            .env("HOME", &home)
            .env_remove("ANTHROPIC_API_KEY")
            .current_dir(&home)
            .output()
            .unwrap()
    };
    let authorization = format!("Authorization: Bearer {}", daemon.token());
    let add = |extra: &[&str]| {
        let mut args = vec![
            "mcp",
            "add",
            "--transport",
            "http",
            "--scope",
            "user",
            "kivgraph",
        ];
        args.push(daemon.url());
        args.extend_from_slice(extra);
        claude(&args)
    };
    let added = add(&["--header", &authorization]);
    assert!(added.status.success(), "{added:?}");
    let listed = claude(&["mcp", "list"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(
        text.lines()
            .any(|l| l.starts_with("kivgraph: ") && l.contains("Connected")),
        "{text}\n{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    // Without the token, the same client is refused.
    claude(&["mcp", "remove", "--scope", "user", "kivgraph"]);
    add(&[]);
    let refused = claude(&["mcp", "list"]);
    let text = String::from_utf8_lossy(&refused.stdout);
    assert!(
        text.lines().any(|l| l.starts_with("kivgraph: ")
            && l.contains("Failed to connect")
            && l.contains("401")),
        "{text}"
    );
}

#[test]
fn an_edit_then_ask_loop_waits_for_its_own_save() {
    let dir = indexed_live();
    let daemon = Daemon::start(dir.path());
    let mut session = daemon.session(daemon.tcp());
    // Saved, then asked at once: the wait covers the debounce and the pass.
    for round in 0..3 {
        let name = format!("Saved{round}");
        save(
            &dir.path().join(format!("live/saved{round}.go")),
            &format!("package live\n\nfunc {name}() int {{ return Existing() }}\n"),
        );
        let answer = session.ok(
            "find_symbol",
            json!({"name": name, "fresh_within_ms": 20000}),
        );
        assert_eq!(answer["total"], 1, "round {round}: {answer}");
        assert_eq!(answer["freshness"]["watcher"], "settled", "{answer}");
    }
    // Out of bounds, or on a tool that reads the watcher itself, the argument is refused.
    let (refused, error) = session.call(
        "find_symbol",
        json!({"name": "Existing", "fresh_within_ms": 60000}),
    );
    assert!(
        error && refused.starts_with("INVALID_ARGUMENT"),
        "{refused}"
    );
    let (refused, error) = session.call("graph_status", json!({"fresh_within_ms": 10}));
    assert!(error && refused.contains("fresh_within_ms"), "{refused}");
}

/// A caller asking for its own save does not wait out the debounce: its request closes the
/// watcher's batch at once (here a debounce of 4 s, answered in far less), and leaves no
/// request behind. The file is held open after writing, so the watcher cannot see the write
/// finish: only the request closes the batch.
#[test]
fn asking_for_a_save_closes_the_watcher_s_batch_without_waiting_out_the_debounce() {
    let dir = indexed_live();
    append_config(
        &dir.path().join("config.yaml"),
        "watcher:\n  debounce_ms: 4000\n  maximum_batch_ms: 8000\n",
    );
    let daemon = Daemon::start(dir.path());
    let mut session = daemon.session(daemon.unix());
    // The first pass done, the watcher waits for changes.
    eventually(60, "the watcher's first pass", || {
        std::fs::read(dir.path().join("state/watch.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .is_some_and(|w| w["batches"].as_array().is_some_and(|b| !b.is_empty()))
    });
    for round in 0..2 {
        let name = format!("Flushed{round}");
        let mut held =
            std::fs::File::create(dir.path().join(format!("live/flushed{round}.go"))).unwrap();
        write!(
            held,
            "package live\n\nfunc {name}() int {{ return Existing() }}\n"
        )
        .unwrap();
        held.flush().unwrap();
        let asked = Instant::now();
        let answer = session.ok(
            "find_symbol",
            json!({"name": name, "fresh_within_ms": 20000}),
        );
        let took = asked.elapsed();
        assert_eq!(answer["total"], 1, "round {round}: {answer}");
        assert_eq!(answer["freshness"]["watcher"], "settled", "{answer}");
        assert!(
            took < Duration::from_millis(3000),
            "round {round}: {took:?}"
        );
    }
    let left = std::fs::read_dir(dir.path().join("state/flush"))
        .unwrap()
        .count();
    assert_eq!(left, 0);
}

#[test]
fn without_a_watcher_an_edited_file_s_rows_are_marked_stale() {
    let dir = indexed_live();
    let mut client = Client::start(dir.path());
    assert!(
        client
            .ok("find_symbol", json!({"name": "Existing"}))
            .get("freshness")
            .is_none()
    );
    save(
        &dir.path().join("live/main.go"),
        "package live\n\n// moved down\n\nfunc Existing() int { return 1 }\n",
    );
    let answer = client.ok(
        "find_symbol",
        json!({"name": "Existing", "fresh_within_ms": 100}),
    );
    let freshness = &answer["freshness"];
    assert_eq!(
        freshness["stale"],
        json!([{"repository": "live", "path": "main.go", "change": "modified"}]),
        "{answer}"
    );
    assert_eq!(freshness["watcher"], "no_watcher", "{answer}");
    // Saved back as it was indexed: touched, not changed.
    save(
        &dir.path().join("live/main.go"),
        "package live\n\nfunc Existing() int { return 1 }\n",
    );
    let answer = client.ok("find_symbol", json!({"name": "Existing"}));
    assert!(answer.get("freshness").is_none(), "{answer}");
    std::fs::remove_file(dir.path().join("live/main.go")).unwrap();
    let answer = client.ok(
        "get_symbol",
        json!({"repository": "live", "path": "main.go", "qualified_name": "Existing"}),
    );
    assert_eq!(
        answer["freshness"]["stale"][0]["change"], "deleted",
        "{answer}"
    );
}

/// The id of the generation `CURRENT` names.
fn current(dir: &Path) -> u64 {
    std::fs::read_to_string(dir.join("state/CURRENT"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// The generations published on disk (not a candidate being written).
fn generations(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("state/generations"))
        .unwrap()
        .filter(|entry| {
            !entry
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with('.')
        })
        .count()
}

#[test]
fn a_burst_of_a_thousand_writes_is_a_few_generations_and_a_branch_switch_one() {
    let dir = indexed_live();
    let repository = dir.path().join("live");
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(&repository)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "main"]);
    let daemon = Daemon::start(dir.path());
    let mut session = daemon.session(daemon.unix());
    session.ok(
        "find_symbol",
        json!({"name": "Existing", "fresh_within_ms": 20000}),
    );
    let before = current(dir.path());

    std::fs::create_dir_all(repository.join("gen")).unwrap();
    for i in 0..1000 {
        std::fs::write(
            repository.join(format!("gen/f{i}.go")),
            format!("package gen\n\nfunc Generated{i}() int {{ return {i} }}\n"),
        )
        .unwrap();
    }
    let answer = session.ok(
        "find_symbol",
        json!({"name": "Generated999", "fresh_within_ms": 30000}),
    );
    assert_eq!(answer["total"], 1, "{answer}");
    assert_eq!(
        session.ok("find_symbol", json!({"name": "Generated0"}))["total"],
        1
    );
    let burst = current(dir.path()) - before;
    assert!(
        (1..=4).contains(&burst),
        "1,000 writes made {burst} generations"
    );

    // A branch that rewrites the tree: one checkout, answered from one batch's generation.
    git(&["checkout", "-qb", "feature"]);
    git(&["add", "."]);
    git(&["commit", "-qm", "generated"]);
    git(&["checkout", "-q", "main"]);
    let answer = session.ok(
        "find_symbol",
        json!({"name": "Generated5", "fresh_within_ms": 30000}),
    );
    assert_eq!(
        answer["total"], 0,
        "back on main, the generated files are gone: {answer}"
    );
    git(&["checkout", "-q", "feature"]);
    let answer = session.ok(
        "find_symbol",
        json!({"name": "Generated5", "fresh_within_ms": 30000}),
    );
    assert_eq!(answer["total"], 1, "{answer}");
    let status = session.ok("graph_status", json!({}))["results"].clone();
    assert_eq!(
        status["repository_freshness"][0]["indexed_branch"], "feature",
        "{status}"
    );
    // Generations do not pile up: the active one and the backup stay, and, while the active
    // one is a save's (published without a database), the last one that carries a database,
    // which the database's own pass derives its from.
    assert!(current(dir.path()) >= before + 3);
    let kept = generations(dir.path());
    assert!((2..=3).contains(&kept), "{kept} generations kept");
    // Once saves pause, the database's pass publishes, and the older database goes.
    let deadline = Instant::now() + Duration::from_secs(60);
    while generations(dir.path()) != 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(generations(dir.path()), 2);
}
