//! `kivgraph-bench daemon --kivgraph BIN [--corpus DIR] [--edits N] [--saves N]
//! [--ask poll|fresh]`: the live graph through `kivgraph daemon` on the whole corpus (Go,
//! TypeScript, Python and Rust, each its own repository; syntax layer, fact cache on):
//!
//! - save-to-answer: an editor's save (a function appended, the file renamed over the
//!   original) to the first `find_symbol` answer over HTTP that holds the new function, for
//!   `--edits` files spread across the four languages and their file sizes, p50 and p95; side
//!   by side, `index --full` after the same edit. The client asks as an agent may: again and
//!   again without pause (`poll`, the default), or once with `fresh_within_ms` (`fresh`: the
//!   server waits for the watcher to publish the save, asked again only if it did not);
//! - the daemon's resident memory at start, after its first pass and after `--saves` saves
//!   (1,000 by default);
//! - eight clients at once, 1,000 queries each over five tools, p50/p99 per tool, and the
//!   daemon's memory against eight `serve` processes answering the same queries.
//!
//! Every file is restored afterwards.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::client::McpClient;
use crate::mcp_http::{Door, Session};
use crate::{Analyzers, corpus_dir, corpus_entries, flag, percentile, run_index, write_config};

/// A running daemon, killed when dropped.
struct Daemon {
    child: Child,
    token: String,
    address: String,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Daemon {
    fn start(kivgraph: &Path, config: &Path, work: &Path) -> anyhow::Result<Self> {
        let record_path = work.join("state/daemon.json");
        let _ = std::fs::remove_file(&record_path);
        let child = Command::new(kivgraph)
            .args(["daemon", "--addr", "127.0.0.1:0", "--config"])
            .arg(config)
            .env("KIVGRAPH_ANALYZERS_DIR", "/nonexistent/kivgraph-analyzers")
            .env("PATH", "/usr/bin:/bin")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(work.join("daemon.log"))?)
            .spawn()?;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(record) = std::fs::read(&record_path)
                .ok()
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                .filter(|r| r["pid"] == child.id())
            {
                let url = record["url"].as_str().context("url")?;
                return Ok(Daemon {
                    token: record["token"].as_str().context("token")?.to_string(),
                    address: url
                        .trim_start_matches("http://")
                        .trim_end_matches("/mcp")
                        .to_string(),
                    child,
                });
            }
            if Instant::now() > deadline {
                bail!("no daemon.json within a minute");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn session(&self) -> Session {
        Session::open(Door::Tcp(self.address.clone()), &self.token)
    }

    fn resident_mib(&self) -> f64 {
        resident_kib(self.child.id()) as f64 / 1024.0
    }

    fn private_mib(&self) -> f64 {
        private_kib(self.child.id()) as f64 / 1024.0
    }
}

/// `VmRSS` of a process, in KiB: its private memory and the pages of the snapshot it
/// maps, which every process mapping them counts again.
fn resident_kib(pid: u32) -> u64 {
    status_kib(pid, "VmRSS:")
}

/// `RssAnon`: what the process holds that no other process shares.
fn private_kib(pid: u32) -> u64 {
    status_kib(pid, "RssAnon:")
}

fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Waits until the daemon's watcher has finished its first pass.
fn first_pass(work: &Path) -> anyhow::Result<Value> {
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        if let Some(batch) = std::fs::read(work.join("state/watch.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .and_then(|s| {
                s["batches"]
                    .as_array()?
                    .iter()
                    .find(|b| b["trigger"] == "start")
                    .cloned()
            })
        {
            return Ok(batch);
        }
        if Instant::now() > deadline {
            bail!("the daemon's first pass did not end within ten minutes");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A file to edit and how its language declares a function.
struct Target {
    path: PathBuf,
    /// The repository and the path in it, as the graph names the file.
    repository: &'static str,
    relative: String,
    language: &'static str,
    original: Vec<u8>,
}

impl Target {
    fn declaration(&self, n: usize) -> (String, String) {
        match self.language {
            "go" => (
                format!("KgBench{n}"),
                format!("\nfunc KgBench{n}() int {{ return {n} }}\n"),
            ),
            "typescript" => (
                format!("kgBench{n}"),
                format!("\nexport function kgBench{n}(): number {{ return {n} }}\n"),
            ),
            "python" => (
                format!("kg_bench_{n}"),
                format!("\n\ndef kg_bench_{n}():\n    return {n}\n"),
            ),
            _ => (
                format!("kg_bench_{n}"),
                format!("\npub fn kg_bench_{n}() -> u32 {{ {n} }}\n"),
            ),
        }
    }
}

/// `count` files of `extension` under the repository at `dir`, spread over their sizes
/// (every size quantile).
fn spread(
    dir: &Path,
    repository: &'static str,
    extension: &str,
    language: &'static str,
    count: usize,
) -> Vec<Target> {
    let mut files = Vec::new();
    collect(dir, extension, &mut files);
    files.sort_by_key(|(path, size)| (*size, path.clone()));
    let step = (files.len() / count.max(1)).max(1);
    files
        .into_iter()
        .step_by(step)
        .take(count)
        .filter_map(|(path, _)| {
            Some(Target {
                original: std::fs::read(&path).ok()?,
                relative: path.strip_prefix(dir).ok()?.to_string_lossy().into_owned(),
                repository,
                path,
                language,
            })
        })
        .collect()
}

fn collect(dir: &Path, extension: &str, out: &mut Vec<(PathBuf, u64)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if kind.is_dir() {
            // What discovery leaves out, and test trees whose files may be excluded.
            if !name.starts_with('.')
                && ![
                    "node_modules",
                    "target",
                    "testdata",
                    "vendor",
                    "tests",
                    "test",
                ]
                .contains(&name.as_ref())
            {
                collect(&path, extension, out);
            }
        } else if name.ends_with(extension)
            && !name.ends_with(".d.ts")
            && !name.ends_with("_test.go")
            && let Ok(meta) = entry.metadata()
            && meta.len() > 200
        {
            out.push((path, meta.len()));
        }
    }
}

/// Restores every edited file, whatever happens.
struct Restore<'a>(&'a [Target]);

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        for target in self.0 {
            let _ = std::fs::write(&target.path, &target.original);
        }
    }
}

fn atomic_save(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let temporary = path.with_extension("kgbench~");
    std::fs::write(&temporary, bytes)?;
    std::fs::rename(&temporary, path)?;
    Ok(())
}

fn total(answer: &Value) -> u64 {
    answer["total"].as_u64().unwrap_or(0)
}

/// How the client asks after its save.
#[derive(Clone, Copy, PartialEq)]
enum Ask {
    /// Again and again, without pause.
    Poll,
    /// With `fresh_within_ms`: the server answers once the watcher has published.
    Fresh,
}

/// Saves `target` with function `n` appended and asks until an answer holds it: the
/// milliseconds from the save to that answer, or `None` when none did within a minute.
fn save_to_answer(
    session: &mut Session,
    target: &Target,
    n: usize,
    ask: Ask,
) -> anyhow::Result<Option<f64>> {
    let (name, declaration) = target.declaration(n);
    let arguments = match ask {
        Ask::Poll => json!({"name": name}),
        Ask::Fresh => json!({"name": name, "fresh_within_ms": 10000}),
    };
    let started = Instant::now();
    atomic_save(
        &target.path,
        &[&target.original[..], declaration.as_bytes()].concat(),
    )?;
    while started.elapsed() < Duration::from_secs(60) {
        if total(&session.ok("find_symbol", arguments.clone())) > 0 {
            return Ok(Some(started.elapsed().as_secs_f64() * 1000.0));
        }
    }
    Ok(None)
}

/// Puts `target` back and waits for the graph to say so.
fn restore(session: &mut Session, target: &Target, n: usize) -> anyhow::Result<()> {
    let (name, _) = target.declaration(n);
    atomic_save(&target.path, &target.original)?;
    let answer = session.ok(
        "find_symbol",
        json!({"name": name, "fresh_within_ms": 30000}),
    );
    if total(&answer) != 0 {
        bail!(
            "{} restored, but {name} is still answered: {answer}",
            target.path.display()
        );
    }
    Ok(())
}

/// The queries every client asks in turn: (tool, arguments).
fn queries(session: &mut Session) -> anyhow::Result<Vec<(&'static str, Value)>> {
    let found = session.ok("find_symbol", json!({"name": "ExecuteC", "view": "full"}));
    let key = found["results"][0]["stable_key"]
        .as_str()
        .with_context(|| format!("no ExecuteC in the corpus: {found}"))?
        .to_string();
    let queries = vec![
        ("find_symbol", json!({"name": "NewServer"})),
        ("get_symbol", json!({"stable_key": key})),
        ("find_references", json!({"stable_key": key})),
        (
            "get_file_outline",
            json!({"repository": "debian-go", "path": "github.com/spf13/cobra/command.go"}),
        ),
        (
            "find_by_intent",
            json!({"intent": "parse command line flags"}),
        ),
    ];
    // Each asked once before anything is timed: a refused query fails here, not in a thread.
    for (tool, arguments) in &queries {
        let (text, error) = session.call(tool, arguments.clone());
        if error {
            bail!("{tool} {arguments}: {text}");
        }
    }
    Ok(queries)
}

/// Latencies per tool, in milliseconds, for `clients` clients asking `each` queries at once.
fn concurrent<C: Send>(
    clients: &mut [C],
    each: usize,
    queries: &[(&'static str, Value)],
    ask: impl Fn(&mut C, &str, &Value) + Sync,
) -> Vec<Vec<f64>> {
    let per_client: Vec<Vec<(usize, f64)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = clients
            .iter_mut()
            .map(|client| {
                let ask = &ask;
                scope.spawn(move || {
                    (0..each)
                        .map(|i| {
                            let (tool, arguments) = &queries[i % queries.len()];
                            let started = Instant::now();
                            ask(client, tool, arguments);
                            (i % queries.len(), started.elapsed().as_secs_f64() * 1000.0)
                        })
                        .collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a client"))
            .collect()
    });
    let mut by_tool = vec![Vec::new(); queries.len()];
    for (tool, ms) in per_client.into_iter().flatten() {
        by_tool[tool].push(ms);
    }
    by_tool
}

fn latencies(queries: &[(&'static str, Value)], mut by_tool: Vec<Vec<f64>>) -> Value {
    queries
        .iter()
        .zip(by_tool.iter_mut())
        .map(|((tool, _), samples)| {
            json!({"tool": tool, "queries": samples.len(),
                "p50_ms": round(percentile(samples, 0.5)), "p99_ms": round(percentile(samples, 0.99))})
        })
        .collect()
}

fn round(ms: f64) -> f64 {
    (ms * 100.0).round() / 100.0
}

fn summary(samples: &mut [f64]) -> Value {
    json!({"count": samples.len(), "p50_ms": round(percentile(samples, 0.5)),
        "p95_ms": round(percentile(samples, 0.95)), "max_ms": round(percentile(samples, 1.0))})
}

pub fn daemon_benchmark(args: &[String]) -> anyhow::Result<()> {
    let kivgraph = PathBuf::from(flag(args, "--kivgraph").context("--kivgraph BIN is required")?);
    let edits: usize = flag(args, "--edits").map_or(Ok(100), |n| n.parse())?;
    let saves_wanted: usize = flag(args, "--saves").map_or(Ok(1000), |n| n.parse())?;
    let ask = match flag(args, "--ask").as_deref() {
        None | Some("poll") => Ask::Poll,
        Some("fresh") => Ask::Fresh,
        Some(other) => bail!("--ask takes poll or fresh, not {other}"),
    };
    let corpus = corpus_dir(args);
    let work = std::env::temp_dir().join(format!("kivgraph-daemon-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let config = write_config(&work, &corpus_entries(&corpus)?, "on")?;
    let per_language = edits.div_ceil(4);
    // Three candidates a slot: a file discovery leaves out (build output, a file outside
    // every package) changes nothing the graph answers, and is dropped below.
    let candidates: Vec<Vec<Target>> = [
        ("go/src", "debian-go", ".go", "go"),
        ("ts", "npm", ".ts", "typescript"),
        ("python", "pypi", ".py", "python"),
        ("rust/src", "crates", ".rs", "rust"),
    ]
    .into_iter()
    .map(|(dir, repository, extension, language)| {
        spread(
            &corpus.join(dir),
            repository,
            extension,
            language,
            per_language * 3,
        )
    })
    .collect();
    let (cold_seconds, cold) = run_index(&kivgraph, &config, Analyzers::SyntaxOnly)?;

    let daemon = Daemon::start(&kivgraph, &config, &work)?;
    let at_start = daemon.resident_mib();
    let started = Instant::now();
    let first = first_pass(&work)?;
    let first_pass_seconds = started.elapsed().as_secs_f64();
    let after_first_pass = daemon.resident_mib();
    let mut session = daemon.session();

    // The files the graph holds declarations of, spread over their sizes, the languages
    // interleaved.
    let held: Vec<Vec<Target>> = candidates
        .into_iter()
        .map(|targets| {
            let held: Vec<Target> = targets
                .into_iter()
                .filter(|t| {
                    let (text, error) = session.call(
                        "get_file_outline",
                        json!({"repository": t.repository, "path": t.relative}),
                    );
                    !error
                        && serde_json::from_str::<Value>(&text)
                            .is_ok_and(|answer| total(&answer) > 0)
                })
                .collect();
            let step = (held.len() / per_language.max(1)).max(1);
            held.into_iter().step_by(step).take(per_language).collect()
        })
        .collect();
    let mut targets: Vec<Target> = Vec::new();
    let mut order: Vec<usize> = Vec::new();
    let longest = held.iter().map(Vec::len).max().unwrap_or(0);
    let mut held: Vec<std::vec::IntoIter<Target>> = held.into_iter().map(Vec::into_iter).collect();
    for _ in 0..longest {
        for language in held.iter_mut() {
            if let Some(target) = language.next() {
                order.push(targets.len());
                targets.push(target);
            }
        }
    }
    let _restore = Restore(&targets);
    let mut by_language: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
    let mut all = Vec::new();
    let mut missed = Vec::new();
    let mut saves = 0;
    for (n, index) in order.iter().enumerate() {
        let target = &targets[*index];
        match save_to_answer(&mut session, target, n, ask)? {
            Some(ms) => {
                all.push(ms);
                by_language.entry(target.language).or_default().push(ms);
            }
            None => missed.push(target.path.display().to_string()),
        }
        restore(&mut session, target, n)?;
        saves += 2;
    }
    let after_edits = daemon.resident_mib();
    // Said at once: what follows takes minutes.
    eprintln!(
        "save to answer: {} (index --full follows at the end)",
        json!({"all": summary(&mut all.clone()), "missed": missed})
    );
    // On to 1,000 saves, four at a time, each four answered before the next.
    let mut n = targets.len();
    let mut memory = vec![json!({"saves": saves, "resident_mib": round(after_edits),
        "private_mib": round(daemon.private_mib())})];
    while saves < saves_wanted {
        let batch: Vec<&Target> = (0..4).map(|k| &targets[(n + k) % targets.len()]).collect();
        for (k, target) in batch.iter().enumerate() {
            let (_, declaration) = target.declaration(n + k);
            atomic_save(
                &target.path,
                &[&target.original[..], declaration.as_bytes()].concat(),
            )?;
        }
        session.ok(
            "find_symbol",
            json!({"name": "NewServer", "fresh_within_ms": 30000}),
        );
        for target in &batch {
            atomic_save(&target.path, &target.original)?;
        }
        session.ok(
            "find_symbol",
            json!({"name": "NewServer", "fresh_within_ms": 30000}),
        );
        saves += 8;
        n += 4;
        if saves % 200 < 8 {
            memory.push(
                json!({"saves": saves, "resident_mib": round(daemon.resident_mib()),
                "private_mib": round(daemon.private_mib())}),
            );
        }
    }
    let after_saves = daemon.resident_mib();

    // Eight clients at once, against the daemon.
    let queries = queries(&mut session)?;
    let mut clients: Vec<Session> = (0..8).map(|_| daemon.session()).collect();
    let daemon_latencies = concurrent(&mut clients, 1000, &queries, |client, tool, arguments| {
        let (text, error) = client.call(tool, arguments.clone());
        assert!(!error, "{tool}: {text}");
    });
    let daemon_resident = daemon.resident_mib();
    let daemon_private = daemon.private_mib();
    drop(session);
    drop(daemon);

    // The same eight clients, each with a `serve` of its own.
    let mut clients: Vec<McpClient> = (0..8)
        .map(|_| McpClient::start(&kivgraph, &config))
        .collect::<anyhow::Result<_>>()?;
    let serve_latencies = concurrent(&mut clients, 1000, &queries, |client, tool, arguments| {
        client.call(tool, arguments.clone()).expect("an answer");
    });
    let serve_resident: f64 = clients
        .iter()
        .map(|c| resident_kib(c.pid()) as f64 / 1024.0)
        .sum();
    let serve_private: f64 = clients
        .iter()
        .map(|c| private_kib(c.pid()) as f64 / 1024.0)
        .sum();
    drop(clients);

    // Side by side: `index --full` after the same kind of edit.
    let mut index_seconds = Vec::new();
    for (k, target) in targets
        .iter()
        .step_by(targets.len().div_ceil(5).max(1))
        .enumerate()
    {
        let (_, declaration) = target.declaration(10_000 + k);
        atomic_save(
            &target.path,
            &[&target.original[..], declaration.as_bytes()].concat(),
        )?;
        let (seconds, _) = run_index(&kivgraph, &config, Analyzers::SyntaxOnly)?;
        index_seconds.push(seconds * 1000.0);
        atomic_save(&target.path, &target.original)?;
        run_index(&kivgraph, &config, Analyzers::SyntaxOnly)?;
    }

    let report = json!({
        "corpus": {"files": cold["index"]["files_total"], "symbols": cold["counts"]["symbols"],
            "cold_index_seconds": round(cold_seconds)},
        "save_to_answer": {
            "asked": match ask { Ask::Poll => "poll", Ask::Fresh => "fresh" },
            "all": summary(&mut all),
            "by_language": by_language.iter_mut().map(|(language, samples)| {
                json!({"language": language, "summary": summary(samples)})
            }).collect::<Vec<_>>(),
            "missed": missed,
        },
        "index_full_after_one_edit": summary(&mut index_seconds),
        "daemon_memory_mib": {
            "at_start": round(at_start),
            "first_pass_seconds": round(first_pass_seconds),
            "first_pass": first,
            "after_first_pass": round(after_first_pass),
            "after_edits": round(after_edits),
            "during_saves": memory,
            "after_all_saves": {"saves": saves, "resident_mib": round(after_saves)},
            "after_eight_clients": round(daemon_resident),
            "eight_serve_processes_after_the_same_queries": round(serve_resident),
            "private_after_eight_clients": round(daemon_private),
            "eight_serve_processes_private": round(serve_private),
        },
        "eight_clients": {
            "daemon": latencies(&queries, daemon_latencies),
            "eight_serve": latencies(&queries, serve_latencies),
        },
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    // The daemon's log (each pass's phases) outlives the work directory, for reading.
    let kept = std::env::temp_dir().join("kivgraph-daemon-bench.log");
    if std::fs::copy(work.join("daemon.log"), &kept).is_ok() {
        eprintln!("the daemon's log: {}", kept.display());
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}
