//! `kivgraph-bench watch --kivgraph BIN [--corpus DIR]`: save-to-publish latency of
//! `kivgraph watch` on the Go, TypeScript and Python parts of the corpus (syntax layer, fact
//! cache on): editors' atomic saves of one file, a checkout rewriting 200 files at once, and
//! a file the graph does not read. Every file is restored afterwards.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::{Analyzers, corpus_workspace, run_index};

/// The watcher, killed when dropped.
struct Watcher {
    child: Child,
    events: Receiver<Value>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Watcher {
    fn next(&self, kind: &str) -> anyhow::Result<Value> {
        loop {
            let event = self
                .events
                .recv_timeout(Duration::from_secs(300))
                .context("the watcher fell silent")?;
            if event["event"] == "error" {
                bail!("the watcher reported {event}");
            }
            if event["event"] == kind {
                return Ok(event);
            }
        }
    }
}

/// Files changed for one case, put back as they were whatever happens.
struct Restore(Vec<(PathBuf, Option<Vec<u8>>)>);

impl Drop for Restore {
    fn drop(&mut self) {
        for (path, bytes) in &self.0 {
            let _ = match bytes {
                Some(bytes) => std::fs::write(path, bytes),
                None => std::fs::remove_file(path),
            };
        }
    }
}

/// An editor's save: a temporary file renamed over the original.
fn atomic_save(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let temporary = path.with_extension("tmp~");
    std::fs::write(&temporary, bytes)?;
    std::fs::rename(&temporary, path)?;
    Ok(())
}

fn go_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            go_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "go") {
            out.push(path);
        }
    }
}

pub fn watch_benchmark(args: &[String]) -> anyhow::Result<()> {
    let (kivgraph, corpus, work, config) = corpus_workspace(args, "watch", "on")?;
    let (cold_seconds, _) = run_index(&kivgraph, &config, Analyzers::SyntaxOnly)?;
    let mut child = Command::new(&kivgraph)
        .args(["watch", "--json", "--config"])
        .arg(&config)
        .env("KIVGRAPH_ANALYZERS_DIR", "/nonexistent/kivgraph-analyzers")
        .env("PATH", "/usr/bin:/bin")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let stdout = BufReader::new(child.stdout.take().context("stdout")?);
    let (send, events) = channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            if let Ok(event) = serde_json::from_str::<Value>(&line)
                && send.send(event).is_err()
            {
                break;
            }
        }
    });
    let watcher = Watcher { child, events };
    let started = Instant::now();
    let start = watcher.next("pass")?;
    let watching = watcher.next("watching")?;
    let ready_ms = started.elapsed().as_millis() as u64;

    let go = corpus.join("go/src/github.com/spf13/cobra/command.go");
    let ts = corpus.join("ts/zod/src/v3/types.ts");
    let mut checkout = Vec::new();
    go_files(&corpus.join("go/src/golang.org/x/tools/go"), &mut checkout);
    checkout.truncate(200);
    let original = |path: &Path| std::fs::read(path).with_context(|| path.display().to_string());
    let (go_text, ts_text) = (original(&go)?, original(&ts)?);
    let checkout_texts: Vec<Vec<u8>> = checkout
        .iter()
        .map(|p| original(p))
        .collect::<Result<_, _>>()?;
    let _restore = Restore(
        [
            (go.clone(), Some(go_text.clone())),
            (ts.clone(), Some(ts_text.clone())),
        ]
        .into_iter()
        .chain(
            checkout
                .iter()
                .cloned()
                .zip(checkout_texts.iter().cloned().map(Some)),
        )
        .collect(),
    );
    let appended = |text: &[u8], tail: &str| [text, tail.as_bytes()].concat();
    let mut cases = Vec::new();
    let mut measure =
        |label: &str, change: &dyn Fn() -> anyhow::Result<()>| -> anyhow::Result<()> {
            let saved = Instant::now();
            change()?;
            let event = watcher.next("pass")?;
            cases.push(json!({
                "case": label,
                "result": event["result"],
                "events": event["events"],
                "paths": event["paths"],
                "latency_ms": event["latency_ms"],
                "pass_ms": event["duration_ms"],
                "phases_ms": event["phases_ms"],
                "save_to_event_ms": saved.elapsed().as_millis() as u64,
            }));
            Ok(())
        };
    for i in 0..3 {
        measure("go: a comment appended", &|| {
            atomic_save(&go, &appended(&go_text, &format!("\n// edit {i}\n")))
        })?;
    }
    measure("go: a function added", &|| {
        atomic_save(
            &go,
            &appended(&go_text, "\nfunc WatchBenchAdded() int { return 1 }\n"),
        )
    })?;
    measure("go: restored", &|| atomic_save(&go, &go_text))?;
    measure("typescript: a function added", &|| {
        atomic_save(
            &ts,
            &appended(
                &ts_text,
                "\nexport function watchBenchAdded(): number { return 1 }\n",
            ),
        )
    })?;
    measure("typescript: restored", &|| atomic_save(&ts, &ts_text))?;
    measure("go: 200 files rewritten at once (a checkout)", &|| {
        for (path, text) in checkout.iter().zip(&checkout_texts) {
            std::fs::write(path, appended(text, "\n// checkout\n"))?;
        }
        Ok(())
    })?;
    measure("go: the 200 restored", &|| {
        for (path, text) in checkout.iter().zip(&checkout_texts) {
            std::fs::write(path, text)?;
        }
        Ok(())
    })?;
    let unread = corpus.join("go/src/WATCH-BENCH.txt");
    measure("a file the graph does not read", &|| {
        Ok(std::fs::write(&unread, "nothing to index\n")?)
    })?;
    let _ = std::fs::remove_file(&unread);
    drop(watcher);
    let _ = std::fs::remove_dir_all(&work);
    let report = json!({
        "cold_index_seconds": cold_seconds,
        "start": {"result": start["result"], "pass_ms": start["duration_ms"], "ready_ms": ready_ms},
        "repositories_watched": watching["repositories"].as_array().map_or(0, |r| r.len()),
        "cases": cases,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}
