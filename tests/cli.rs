//! End-to-end tests of the real `kivgraph` binary on the fixture repositories in `testdata/`.
//! Every test works in its own temporary configuration, so nothing touches the user's state.

#[path = "common/mod.rs"]
mod common;

#[path = "../crates/kivgraph-engine/tests/support/cache_lie.rs"]
mod cache_lie;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{binary, copy_tree, fixtures};
use kivgraph_facts::GRAPH_SCHEMA_VERSION;
use kivgraph_snapshot::Snapshot;
use kivgraph_store::{GenerationId, GenerationStore, Manifest};

struct Workspace {
    dir: tempfile::TempDir,
}

impl Workspace {
    /// A configuration registering the four fixture repositories.
    fn new() -> Self {
        let workspace = Workspace {
            dir: tempfile::tempdir().unwrap(),
        };
        let root = fixtures();
        let repositories: Vec<String> = [
            ("go", "gosvc"),
            ("ts", "tsweb"),
            ("rs", "rscore"),
            ("py", "pytools"),
        ]
        .iter()
        .map(|(name, dir)| format!("--repository={name}={}", root.join(dir).display()))
        .collect();
        let mut args = vec!["init".to_string()];
        args.extend(repositories);
        args.push("--languages=go,typescript,rust,python".into());
        let out = workspace.run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(out.status.success(), "{}", stderr(&out));
        // `third_party` is excluded in the registry, as a user would write it.
        let registry = workspace.dir.path().join("repositories.yaml");
        let text = std::fs::read_to_string(&registry).unwrap();
        std::fs::write(
            &registry,
            text.replacen(
                "- name: go\n",
                "- name: go\n  exclusions:\n  - third_party\n",
                1,
            ),
        )
        .unwrap();
        workspace
    }

    fn config(&self) -> PathBuf {
        self.dir.path().join("config.yaml")
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    fn store(&self) -> GenerationStore {
        GenerationStore::new(self.state())
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(binary());
        command
            .args(args)
            .arg("--config")
            .arg(self.config())
            .env("HOME", self.dir.path().join("home"))
            .env("KIVGRAPH_ANALYZERS_DIR", common::analyzers_dir());
        command
    }

    /// The command on a machine where no exact analyzer is installed.
    fn without_analyzers(&self, args: &[&str]) -> Command {
        let mut command = self.command(args);
        command
            .env(
                "KIVGRAPH_ANALYZERS_DIR",
                self.dir.path().join("no-analyzers"),
            )
            .env("PATH", "/usr/bin:/bin");
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn index(&self) -> Output {
        let out = self.run(&["index", "--full"]);
        assert!(out.status.success(), "index failed: {}", stderr(&out));
        out
    }

    fn set_fact_cache(&self, mode: &str) {
        let text = std::fs::read_to_string(self.config()).unwrap();
        std::fs::write(
            self.config(),
            format!("{text}indexing:\n  fact_cache: {mode}\n"),
        )
        .unwrap();
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn read(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn bare_help_and_unknown_commands() {
    for args in [&[][..], &["--help"], &["-h"], &["help"]] {
        let out = Command::new(binary()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(
            stdout(&out).contains("index --full [--json]"),
            "{}",
            stdout(&out)
        );
    }
    let out = Command::new(binary()).arg("indx").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty());
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("unknown command \"indx\""));
}

/// Every command the table lists opens its `--help` with its own description: never a
/// bare usage line, never the description of an option group it shares with others.
#[test]
fn every_command_describes_itself() {
    let table = stdout(&Command::new(binary()).output().unwrap());
    let mut commands: Vec<&str> = table
        .lines()
        .filter_map(|line| line.strip_prefix("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|word| word.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        .collect();
    commands.dedup();
    assert!(commands.len() >= 20, "{commands:?}");
    for command in commands {
        let out = Command::new(binary())
            .args([command, "--help"])
            .output()
            .unwrap();
        let help = stdout(&out);
        let first = help.lines().next().unwrap_or_default();
        assert!(
            !first.is_empty() && !first.starts_with("Usage:") && !first.contains('`'),
            "kivgraph {command} --help opens with {first:?}"
        );
    }
}

#[test]
fn init_validates_names_languages_and_paths() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yaml");
    let root = fixtures().join("gosvc");
    let cases: [(&[String], &str); 4] = [
        (
            &[format!("--repository=a/b={}", root.display())],
            "must be an identifier",
        ),
        (
            &[format!("--repository=rust:std={}", root.display())],
            "reserved \"rust:\" namespace",
        ),
        (
            &[
                format!("--repository=ok={}", root.display()),
                "--languages=go,cobol".into(),
            ],
            "unknown language \"cobol\"",
        ),
        (
            &["--repository=ok=/does/not/exist".into()],
            "is not an existing directory",
        ),
    ];
    for (args, message) in cases {
        let out = Command::new(binary())
            .arg("init")
            .arg("--config")
            .arg(&config)
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(
            stderr(&out).contains(message),
            "{message}: {}",
            stderr(&out)
        );
    }
    assert!(!config.exists(), "a refused init writes nothing");
    std::fs::write(&config, "version: 1\nmcp:\n  maximum_depth: 9\n").unwrap();
    let out = Command::new(binary())
        .args(["doctor", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("config: FAIL")
            && stdout(&out).contains("mcp.maximum_depth: must be between 1 and 5"),
        "{}",
        stdout(&out)
    );
    std::fs::write(&config, "version: 1\nstorage:\n  snapshots_path: /old\n").unwrap();
    let out = Command::new(binary())
        .args(["doctor", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains("config.retired: WARN (storage.snapshots_path"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn two_passes_publish_identical_generations_and_rollback_returns() {
    let workspace = Workspace::new();
    let store = workspace.store();
    assert!(stdout(&workspace.index()).contains("published generation 000001"));
    let second = stdout(&workspace.index());
    assert!(second.contains("published generation 000002 (previous: 000001)"));
    // Nothing changed: the pass proves it from the inputs and republishes 000001's facts
    // without loading a memo.
    assert!(
        second.contains(
            "fact cache: on (unchanged (the published generation's inputs; republished)); 0 of"
        ),
        "{second}"
    );
    // Byte-identical facts and snapshot pages, each page a link to the same file.
    let generation = |id| store.generation_dir(GenerationId(id));
    let digests = |id| store.manifest(GenerationId(id)).unwrap().digests;
    assert_eq!(digests(1), digests(2));
    assert_eq!(
        read(generation(1).join("snapshot.kgs"))[64..],
        read(generation(2).join("snapshot.kgs"))[64..]
    );
    for page in store.manifest(GenerationId(2)).unwrap().pages {
        let name = kivgraph_snapshot::page_file_name(page.number, &digest_bytes(&page.snapshot));
        use std::os::unix::fs::MetadataExt;
        let inode = |id| {
            std::fs::metadata(generation(id).join("pages").join(&name))
                .unwrap()
                .ino()
        };
        assert_eq!(inode(1), inode(2), "page {} is shared", page.number);
    }
    // Each generation carries its canonical database, holding what the snapshot holds; a
    // republished generation links the same file.
    let manifest = store.manifest(GenerationId(1)).unwrap();
    let database = manifest.graph.clone().expect("a canonical database");
    assert_eq!(
        store.manifest(GenerationId(2)).unwrap().graph,
        Some(database.clone())
    );
    let counts = &manifest.counts;
    let tables = &database.counts;
    assert_eq!(
        [
            "Repository",
            "Package",
            "File",
            "Mentions",
            "Symbol",
            "Evidence",
            "Unresolved"
        ]
        .map(|t| tables.of(t)),
        [
            counts.repositories,
            counts.packages,
            counts.files,
            counts.files,
            counts.symbols,
            counts.evidence,
            counts.unresolved
        ]
        .map(|n| n as u64)
    );
    let edges: u64 = tables
        .tables
        .iter()
        .filter(|(t, _)| t.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(edges, counts.edges as u64);
    {
        use std::os::unix::fs::MetadataExt;
        let inode = |id| {
            std::fs::metadata(generation(id).join("graph.lbdb"))
                .unwrap()
                .ino()
        };
        assert_eq!(inode(1), inode(2), "the database is shared");
    }

    let status = stdout(&workspace.run(&["graph", "status"]));
    assert!(status.contains("graph.active: 000002"), "{status}");
    assert!(status.contains("graph.next: 000003"), "{status}");
    assert!(status.contains("graph.backup: 000001"), "{status}");

    let out = workspace.run(&["rollback"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(store.current().unwrap(), Some(GenerationId(1)));
    let out = workspace.run(&["rollback", "--generation", "000002"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(store.current().unwrap(), Some(GenerationId(2)));
    let out = workspace.run(&["rollback", "--generation", "000042"]);
    assert!(
        stderr(&out).contains("generation 000042 does not exist"),
        "{}",
        stderr(&out)
    );
    assert_eq!(store.current().unwrap(), Some(GenerationId(2)));

    // Served from another generation than the last pass published, a pass recomputes.
    let out = workspace.run(&["rollback", "--generation", "000001"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let third = stdout(&workspace.index());
    assert!(
        third.contains("published generation 000003 (previous: 000001)"),
        "{third}"
    );
    assert!(third.contains("fact cache: on (loaded)"), "{third}");
    assert_eq!(digests(1), digests(3));
    let out = workspace.run(&["doctor"]);
    assert!(out.status.success(), "{}", stdout(&out));

    let out = workspace.run(&["doctor", "storage"]);
    let report = stdout(&out);
    assert!(out.status.success(), "{report}");
    for line in [
        "digest: PASS (the BLAKE3 its manifest records)",
        &format!("schema: PASS (version {GRAPH_SCHEMA_VERSION})"),
        "engine: PASS (LadybugDB 0.22.1, opened read-only)",
        "doctor: PASS",
    ] {
        assert!(report.contains(line), "{line}: {report}");
    }
    assert!(
        report.contains(&format!("Symbol {}", counts.symbols)),
        "{report}"
    );
    let database = generation(1).join("graph.lbdb");
    let out = workspace.run(&["doctor", "graph", "--database", database.to_str().unwrap()]);
    let report = stdout(&out);
    assert!(out.status.success(), "{report}");
    assert!(
        report.contains("duplicate_stable_key: PASS (0)"),
        "{report}"
    );
    assert!(
        report.ends_with(&format!("doctor graph: PASS ({})\n", database.display())),
        "{report}"
    );

    // A damaged database is never reactivated: its digest no longer matches. (Generation 3
    // holds the same facts as 1, so it links the same file: the damaged copy is its own.)
    let recomputed = generation(3).join("graph.lbdb");
    let mut bytes = read(recomputed.clone());
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::remove_file(&recomputed).unwrap();
    std::fs::write(&recomputed, bytes).unwrap();
    workspace.run(&["rollback", "--generation", "000001"]);
    let out = workspace.run(&["rollback", "--generation", "000003"]);
    assert!(
        stderr(&out).contains("graph.lbdb does not have the digest its manifest records"),
        "{}",
        stderr(&out)
    );
    assert_eq!(store.current().unwrap(), Some(GenerationId(1)));
    let out = workspace.run(&[
        "doctor",
        "storage",
        "--database",
        recomputed.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("digest: FAIL (differs from its manifest's"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_damaged_snapshot_is_rebuilt_from_the_database_byte_for_byte() {
    let workspace = Workspace::new();
    assert!(workspace.index().status.success());
    let store = workspace.store();
    let directory = store.generation_dir(GenerationId(1));
    let manifest = store.manifest(GenerationId(1)).unwrap();
    let page = manifest
        .pages
        .iter()
        .find(|p| p.counts.symbols > 0)
        .unwrap();
    let page_file = directory
        .join("pages")
        .join(kivgraph_snapshot::page_file_name(
            page.number,
            &digest_bytes(&page.snapshot),
        ));
    let (original_page, original_root) = (
        read(page_file.clone()),
        read(directory.join("snapshot.kgs")),
    );
    std::fs::write(&page_file, b"damaged").unwrap();
    std::fs::remove_file(directory.join("snapshot.kgs")).unwrap();
    let out = workspace.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));

    rebuilt_byte_for_byte(&workspace, &["snapshot"], &manifest);
    assert_eq!(read(page_file), original_page);
    assert_eq!(read(directory.join("snapshot.kgs")), original_root);
    let out = workspace.run(&["doctor"]);
    assert!(out.status.success(), "{}", stdout(&out));

    // An unknown generation is refused.
    let out = workspace.run(&["snapshot", "--generation", "000009"]);
    assert!(
        stderr(&out).contains("generation 000009 does not exist"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_edit_amends_the_database_which_still_rebuilds_the_snapshot_byte_for_byte() {
    let workspace = Workspace {
        dir: tempfile::tempdir().unwrap(),
    };
    let repository = workspace.dir.path().join("pytools");
    copy_tree(&fixtures().join("pytools"), &repository);
    let registered = format!("--repository=py={}", repository.display());
    let out = workspace.run(&["init", &registered, "--languages=python"]);
    assert!(out.status.success(), "{}", stderr(&out));
    workspace.index();
    // A declaration added, a documented one changed, a file deleted (its symbols, mentions
    // and edges go; what referred to them no longer resolves).
    let loader = repository.join("pytools/loader.py");
    let text = std::fs::read_to_string(&loader).unwrap();
    common::save(
        &loader,
        &format!(
            "{}\n\ndef amended():\n    return helper(fetch)\n",
            text.replace("Read one file.", "Read one whole file.")
        ),
    );
    std::fs::remove_file(repository.join("pytools/sub/util.py")).unwrap();
    let out = workspace
        .command(&["index", "--full"])
        .env("KIVGRAPH_LOG", "kivgraph_graphdb=debug")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(r#""how":"Amended""#),
        "the database was not amended: {}",
        stderr(&out)
    );
    let store = workspace.store();
    let manifest = store.manifest(GenerationId(2)).unwrap();
    let database = store
        .generation_dir(GenerationId(2))
        .join(&manifest.graph.as_ref().unwrap().file);
    let out = workspace.run(&["doctor", "graph", "--database", database.to_str().unwrap()]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    rebuilt_byte_for_byte(
        &workspace,
        &["snapshot", "--generation", "000002"],
        &manifest,
    );
}

/// `snapshot` (with `args`) rebuilt a generation's snapshot from its database, and says it
/// is byte for byte the one `manifest` published.
fn rebuilt_byte_for_byte(workspace: &Workspace, args: &[&str], manifest: &Manifest) {
    let out = workspace.run(args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!(
            "byte-identical to the published snapshot (payload {})",
            &manifest.digests.snapshot_payload[..16]
        )),
        "{}",
        stdout(&out)
    );
}

#[test]
fn upgrade_rebuilds_a_generation_of_an_older_schema_and_keeps_it_as_the_backup() {
    let workspace = Workspace::new();
    assert!(workspace.index().status.success());
    let out = workspace.run(&["upgrade"]);
    assert_eq!(
        stdout(&out),
        format!(
            "upgrade: generation 000001 is at schema {GRAPH_SCHEMA_VERSION}, which this build writes; nothing to do\n"
        )
    );
    // As an older build would have left it: its database written with schema 0.
    let manifest_path = workspace
        .store()
        .generation_dir(GenerationId(1))
        .join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&read(manifest_path.clone())).unwrap();
    manifest["graph"]["schema_version"] = serde_json::json!(0);
    std::fs::write(
        &manifest_path,
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();

    let out = workspace.run(&["upgrade"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "upgrade: generation 000001 (schema 0) verified; it stays as the backup\n\
             upgrade: published generation 000002 at schema {GRAPH_SCHEMA_VERSION} (backup: 000001)\n"
        )
    );
    let store = workspace.store();
    assert_eq!(store.current().unwrap(), Some(GenerationId(2)));
    assert_eq!(store.backup().unwrap(), Some(GenerationId(1)));
    let upgraded = store.manifest(GenerationId(2)).unwrap().graph.unwrap();
    assert_eq!(upgraded.counts.schema_version, GRAPH_SCHEMA_VERSION);
    assert_eq!(
        stdout(&workspace.run(&["upgrade"])),
        format!(
            "upgrade: generation 000002 is at schema {GRAPH_SCHEMA_VERSION}, which this build writes; nothing to do\n"
        )
    );
}

#[test]
fn json_mode_prints_only_events() {
    let workspace = Workspace::new();
    let out = workspace.run(&["index", "--full", "--json"]);
    assert!(out.status.success());
    let events: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect();
    let results: Vec<_> = events.iter().filter(|e| e["event"] == "result").collect();
    assert_eq!(results.len(), 1);
    assert_eq!(events.last().unwrap()["event"], "result");
    assert!(
        events
            .iter()
            .all(|e| e["event"] == "result" || e["event"] == "progress")
    );
    let result = &results[0]["result"];
    assert_eq!(result["passed"], true);
    assert_eq!(result["generation_id"], "000001");
    assert_eq!(result["counts"]["repositories"], 4);
    assert_eq!(
        result["index"]["files_analyzed"],
        result["index"]["files_total"]
    );
    // A second pass finds its inputs unchanged and republishes.
    let out = workspace.run(&["index", "--full", "--json"]);
    let last: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
    assert_eq!(last["result"]["index"]["files_analyzed"], 0);
    assert_eq!(
        last["result"]["index"]["fact_cache_state"],
        "unchanged (the published generation's inputs; republished)"
    );
    assert_eq!(last["result"]["counts"], result["counts"]);
}

#[test]
fn a_held_lock_fails_the_second_writer_at_once() {
    let workspace = Workspace::new();
    workspace.index();
    let store = workspace.store();
    let lock = store.lock().unwrap();
    let out = workspace.run(&["index", "--full"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("another process is publishing into this generation store"),
        "{}",
        stderr(&out)
    );
    drop(lock);
    assert_eq!(store.current().unwrap(), Some(GenerationId(1)));

    // Two real passes overlapping: the second starts while the first holds the lock, so
    // exactly one publishes and the other is told why at once.
    let before = store.list().unwrap().len();
    let mut attempts = 0;
    loop {
        attempts += 1;
        let mut first = workspace
            .command(&["index", "--full"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let held = loop {
            if lock_is_held(&workspace.state().join("publish.lock")) {
                break true;
            }
            if first.try_wait().unwrap().is_some() {
                break false;
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        };
        if !held {
            assert!(first.wait_with_output().unwrap().status.success());
            assert!(
                attempts < 20,
                "never observed the first pass holding the lock"
            );
            continue;
        }
        let second = workspace.run(&["index", "--full"]);
        let first = first.wait_with_output().unwrap();
        assert!(first.status.success(), "{}", stderr(&first));
        assert!(!second.status.success());
        assert!(
            stderr(&second).contains("another process is publishing into this generation store"),
            "{}",
            stderr(&second)
        );
        break;
    }
    // Every attempt that completed published one generation; the loser published none.
    assert_eq!(store.list().unwrap().len(), before + attempts);
    let doctor = workspace.run(&["doctor"]);
    assert!(doctor.status.success(), "{}", stdout(&doctor));
}

/// Whether some process holds a flock on `path`, read from `/proc/locks` so that looking
/// never takes the lock itself.
fn lock_is_held(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    let needle = format!(":{} ", meta.ino());
    std::fs::read_to_string("/proc/locks")
        .unwrap_or_default()
        .lines()
        .any(|line| line.contains("FLOCK") && line.contains(&needle))
}

#[test]
fn corruption_is_refused_and_a_killed_pass_leaves_the_previous_generation() {
    let workspace = Workspace::new();
    workspace.index();
    let store = workspace.store();

    // A pass killed at any moment: CURRENT still names a valid generation.
    let mut child = workspace.command(&["index", "--full"]).spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(15));
    let _ = child.kill();
    let _ = child.wait();
    let current = store.current().unwrap().unwrap();
    store.verify(current).unwrap();
    // What a dead writer leaves is removed by the next pass.
    std::fs::create_dir_all(workspace.state().join("generations/.tmp-000077-99999")).unwrap();
    workspace.index();
    assert!(
        !workspace
            .state()
            .join("generations/.tmp-000077-99999")
            .exists()
    );

    let current = store.current().unwrap().unwrap();
    let snapshot = store.snapshot_path(current);
    let original = read(snapshot.clone());
    let mut flipped = original.clone();
    flipped[original.len() / 2] ^= 0x10;
    std::fs::write(&snapshot, &flipped).unwrap();
    let err = Snapshot::open(&snapshot)
        .err()
        .expect("a flipped byte is refused");
    assert_eq!(
        err.to_string(),
        "snapshot payload digest does not match its header: the file is corrupt"
    );
    let doctor = workspace.run(&["doctor"]);
    assert_eq!(doctor.status.code(), Some(1));
    let report = stdout(&doctor);
    assert!(
        report.contains("snapshot: FAIL (snapshot payload digest does not match"),
        "{report}"
    );
    assert!(report.contains("doctor: FAIL"), "{report}");

    std::fs::write(&snapshot, &original[..original.len() - 100]).unwrap();
    assert!(stdout(&workspace.run(&["doctor"])).contains("snapshot: FAIL (snapshot is truncated"));
    std::fs::write(&snapshot, &original).unwrap();
    assert!(workspace.run(&["doctor"]).status.success());

    // The same of a page the root names: its bytes hold the graph.
    let largest_page = std::fs::read_dir(store.generation_dir(current).join("pages"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let page = read(largest_page.clone());
    let mut flipped = page.clone();
    flipped[page.len() / 2] ^= 0x10;
    std::fs::write(&largest_page, &flipped).unwrap();
    assert!(matches!(
        Snapshot::open(&snapshot),
        Err(kivgraph_snapshot::SnapshotError::DigestMismatch)
    ));
    let report = stdout(&workspace.run(&["doctor"]));
    assert!(
        report.contains("snapshot: FAIL (snapshot payload digest does not match"),
        "{report}"
    );
    std::fs::write(&largest_page, &page[..page.len() - 100]).unwrap();
    assert!(stdout(&workspace.run(&["doctor"])).contains("snapshot: FAIL (snapshot is truncated"));
    std::fs::remove_file(&largest_page).unwrap();
    assert!(stdout(&workspace.run(&["doctor"])).contains("snapshot: FAIL (cannot read snapshot"));
    std::fs::write(&largest_page, &page).unwrap();
    assert!(workspace.run(&["doctor"]).status.success());
    let graph = workspace.run(&["doctor", "graph"]);
    assert!(graph.status.success(), "{}", stdout(&graph));
    assert!(stdout(&graph).contains("duplicate_stable_key: PASS (0)"));
}

#[test]
fn doctor_reports_each_analyzer_and_an_absent_one_only_warns() {
    let workspace = Workspace::new();
    let report = stdout(&workspace.run(&["doctor"]));
    for line in [
        "toolchain.typescript: PASS (scip-typescript 0.4.0 at ",
        "toolchain.python: PASS (scip-python 0.6.6 at ",
        "toolchain.rust: PASS (rust-analyzer 1.95.0 (",
        "toolchain.rust_src: PASS (standard library sources under ",
        "toolchain.cargo: PASS (cargo ",
        "toolchain.go: PASS (kivgraph-go-worker 3 go1.27.4 at ",
        "toolchain.typecheck: PASS (go1.27 (highest registered module: go 1.22))",
    ] {
        assert!(report.contains(line), "{report}");
    }
    assert!(!report.contains("rust.index_sysroot"), "{report}");
    // With the key set, doctor says which derived provider a pass would publish.
    let config = workspace.dir.path().join("config.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}rust:\n  index_sysroot: true\n")).unwrap();
    let report = stdout(&workspace.run(&["doctor"]));
    assert!(
        report.contains("rust.index_sysroot: PASS (publishes rust:1.")
            && report.contains(
                "/lib/rustlib/src/rust/library (withheld by the read tools unless asked)"
            ),
        "{report}"
    );
    std::fs::write(&config, text).unwrap();
    let absent = workspace.without_analyzers(&["doctor"]).output().unwrap();
    let report = stdout(&absent);
    assert!(
        report.contains("toolchain.typescript: WARN (scip-typescript is not available")
            && report.contains(
                "run cargo xtask setup; TypeScript and JavaScript keep syntax-layer facts"
            ),
        "{report}"
    );
    assert!(
        report.contains("toolchain.python: WARN (scip-python is not available")
            && report.contains("toolchain.rust: WARN (rust-analyzer is not available")
            && report.contains("toolchain.go: WARN (kivgraph-go-worker is not available"),
        "{report}"
    );
    // An absence is reported, never a failure: the pass indexes without it.
    assert!(absent.status.success(), "{report}");
    let index = workspace
        .without_analyzers(&["index", "--full", "--json"])
        .output()
        .unwrap();
    assert!(index.status.success(), "{}", stderr(&index));
    let result: serde_json::Value =
        serde_json::from_str(stdout(&index).lines().last().unwrap()).unwrap();
    let ts = result["result"]["repositories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "ts")
        .unwrap();
    assert_eq!(ts["analyzers"][0]["language"], "typescript");
    assert_eq!(ts["analyzers"][0]["analyzer"], serde_json::Value::Null);
    assert!(
        ts["analyzers"][0]["absent"]
            .as_str()
            .unwrap()
            .starts_with("scip-typescript is not available")
    );
}

#[test]
fn configured_scip_indexers_are_reported_run_and_survived() {
    use std::os::unix::fs::PermissionsExt;
    let workspace = Workspace::new();
    let scip_python = common::analyzers_dir().join("node_modules/.bin/scip-python");
    let environment = workspace.dir.path().join("environment.json");
    std::fs::write(&environment, "[]").unwrap();
    // Answers its version, then fails on whatever it is asked to index.
    let broken = workspace.dir.path().join("scip-broken");
    std::fs::write(
        &broken,
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'scip-broken 2'; exit 0; }\necho 'no build configuration found' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&broken, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = workspace.config();
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!(
            "{text}scip:
  indexers:
  - name: pyright-scip
    command: [{}, index, --output, '{{output}}', --quiet, --project-name, tools, --project-version, '1', --environment, {}]
    languages: [python]
    repositories: [py]
  - name: broken
    command: [{}, '{{output}}']
    languages: [go]
  - name: gone
    command: [/nonexistent/scip-gone, '{{output}}']
    languages: [typescript]
",
            scip_python.display(),
            environment.display(),
            broken.display()
        ),
    )
    .unwrap();
    let report = stdout(&workspace.run(&["doctor"]));
    for line in [
        "toolchain.scip.pyright-scip: PASS (pyright-scip 0.6.6 (",
        "toolchain.scip.broken: PASS (broken scip-broken 2 (",
        "toolchain.scip.gone: WARN (gone is not available: /nonexistent/scip-gone could not be started",
    ] {
        assert!(report.contains(line), "{report}");
    }
    let index = workspace.run(&["index", "--full", "--json"]);
    // A configured indexer failing on a repository is reported, never a failed pass.
    assert!(index.status.success(), "{}", stderr(&index));
    let result: serde_json::Value =
        serde_json::from_str(stdout(&index).lines().last().unwrap()).unwrap();
    let analyzers = |name: &str| {
        result["result"]["repositories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap()["analyzers"]
            .clone()
    };
    assert_eq!(
        analyzers("py"),
        serde_json::json!([{"language": "python", "analyzer": "pyright-scip 0.6.6", "units": 1, "failures": [], "absent": null, "patched": [], "not_built": []}])
    );
    let go = analyzers("go");
    assert_eq!(go[0]["analyzer"], "broken scip-broken 2");
    let failure = go[0]["failures"][0].as_str().unwrap();
    assert!(
        failure.starts_with("go: broken failed on ")
            && failure.contains("no build configuration found"),
        "{go}"
    );
    // The absent one leaves TypeScript to the built-in checker.
    assert_eq!(analyzers("ts")[0]["analyzer"], "scip-typescript 0.4.0");
    // `doctor repositories` says what the published pass could not analyse, and how to
    // acknowledge it; a partial finding does not fail it.
    let audit = workspace.run(&["doctor", "repositories", "--json", "--repository", "go"]);
    assert!(audit.status.success(), "{}", stdout(&audit));
    let report: serde_json::Value = serde_json::from_str(&stdout(&audit)).unwrap();
    let failed: Vec<&serde_json::Value> = report["repositories"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "ANALYZER_UNIT_FAILED")
        .collect();
    assert_eq!(failed.len(), 1, "{report}");
    let message = failed[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "the go analyzer, in the pass that published generation 000001: go: broken failed on "
        ) && message.contains("no build configuration found"),
        "{message}"
    );
    assert_eq!(failed[0]["remedy"]["key"], "repositories[go].exclusions");
}

#[test]
fn doctor_repositories_audits_without_indexing_and_fails_only_when_blocked() {
    let workspace = Workspace::new();
    let audit = workspace.run(&["doctor", "repositories", "--json"]);
    assert!(audit.status.success(), "{}", stdout(&audit));
    let report: serde_json::Value = serde_json::from_str(&stdout(&audit)).unwrap();
    assert_eq!(
        (report["blocking"].as_u64(), report["partial"].as_u64()),
        (Some(0), Some(1))
    );
    // The Go fixture's symlink out of the repository is a hole its owner should know of.
    let go = &report["repositories"][0];
    assert_eq!(go["findings"][0]["code"], "ENTRIES_SKIPPED");
    assert!(!workspace.state().exists(), "an audit indexes nothing");

    // Files no manifest claims, and a repository registered for a language it does not hold.
    let loose = workspace.dir.path().join("loose");
    std::fs::create_dir_all(loose.join("cmd")).unwrap();
    std::fs::write(loose.join("cmd/main.go"), "package main\n").unwrap();
    std::fs::write(loose.join("lib.rs"), "pub fn f() {}\n").unwrap();
    std::fs::write(loose.join("index.ts"), "export const x = 1;\n").unwrap();
    // A library crate named `name` with one dependency, in its own directory.
    let library = |name: &str, dependency: &str| {
        let directory = workspace.dir.path().join(name);
        std::fs::create_dir_all(directory.join("src")).unwrap();
        std::fs::write(
            directory.join("Cargo.toml"),
            format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{dependency}\n"),
        )
        .unwrap();
        std::fs::write(directory.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
        directory
    };
    // One whose dependency cargo's local registry does not hold: asked offline, as a pass
    // asks, cargo cannot resolve it; one whose path dependency is not checked out: said
    // once, for that reason.
    let needs = library("needs", "kivgraph-nowhere-to-be-found = \"1\"");
    let pathless = library("pathless", "sibling = { path = \"../sibling\" }");
    let config = workspace.dir.path().join("loose.yaml");
    let init = Command::new(binary())
        .args(["init", "--config"])
        .arg(&config)
        .arg(format!("--repository=loose={}", loose.display()))
        .arg(format!("--repository=needs={}", needs.display()))
        .arg(format!("--repository=pathless={}", pathless.display()))
        .arg("--languages=go,typescript,rust")
        .output()
        .unwrap();
    assert!(init.status.success(), "{}", stderr(&init));
    let audit = |repository: &str| {
        let out = Command::new(binary())
            .args([
                "doctor",
                "repositories",
                "--json",
                "--repository",
                repository,
                "--config",
            ])
            .arg(&config)
            .env("KIVGRAPH_ANALYZERS_DIR", common::analyzers_dir())
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        (out.status.code(), report)
    };
    let codes = |report: &serde_json::Value| -> Vec<String> {
        report["repositories"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect()
    };
    let (code, report) = audit("loose");
    assert_eq!(code, Some(0), "partial findings do not fail: {report}");
    assert_eq!(
        codes(&report),
        vec![
            "GO_PACKAGE_WITHOUT_MODULE",
            "RUST_FILES_WITHOUT_CRATE",
            "MODULE_FILES_WITHOUT_PACKAGE_JSON"
        ]
    );
    let go_mod = &report["repositories"][0]["findings"][0]["remedy"];
    assert_eq!(go_mod["kind"], "file");
    assert_eq!(go_mod["path"], "cmd/go.mod");
    assert!(
        !loose.join("cmd/go.mod").exists(),
        "a remedy is a proposal, never written"
    );
    let (code, report) = audit("needs");
    assert_eq!(code, Some(0), "{report}");
    let finding = &report["repositories"][0]["findings"][0];
    assert_eq!(finding["code"], "WORKSPACE_NOT_LOADED", "{report}");
    assert_eq!(finding["path"], ".");
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("no matching package named `kivgraph-nowhere-to-be-found` found"),
        "{finding}"
    );
    assert_eq!(
        finding["remedy"]["command"],
        format!("cargo fetch --manifest-path {}/Cargo.toml", needs.display())
    );
    assert!(
        !needs.join("Cargo.lock").exists() && !needs.join("target").exists(),
        "cargo was asked without writing inside the repository"
    );
    let (_, report) = audit("pathless");
    assert_eq!(
        codes(&report),
        vec!["CARGO_PATH_DEPENDENCY_MISSING"],
        "{report}"
    );
}

#[test]
fn fact_cache_modes_from_the_configuration() {
    let workspace = Workspace::new();
    workspace.set_fact_cache("verify");
    let json = |out: Output| -> serde_json::Value {
        serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap()
    };
    // Syntax facts only: the corrupted bytes below must belong to a file's memo, not to an
    // analyzer unit's (which spells the same names; that case has its own engine test).
    let index = || {
        workspace
            .without_analyzers(&["index", "--full", "--json"])
            .output()
            .unwrap()
    };
    let first = json(index());
    assert_eq!(first["result"]["passed"], true);
    let second = json(index());
    assert_eq!(second["result"]["passed"], true, "{second}");
    assert_eq!(second["result"]["index"]["fact_cache"], "verify");
    // A cache that lies about a file (with a digest that matches) is caught by verify,
    // naming the file.
    let cache = workspace.state().join("factcache/engine.cache");
    cache_lie::make_cache_lie(&cache, b"Handler", b"Handlex");
    let out = index();
    assert_eq!(out.status.code(), Some(1));
    let failed = json(out);
    assert_eq!(failed["result"]["passed"], false);
    let error = failed["result"]["error"].as_str().unwrap();
    assert!(
        error.contains("fact cache verification failed: go:server/server.go"),
        "{error}"
    );
    assert_eq!(
        workspace.store().current().unwrap(),
        Some(GenerationId(2)),
        "a failed pass publishes nothing"
    );
}

#[test]
fn clean_lists_without_yes_and_restarts_numbering() {
    let workspace = Workspace::new();
    workspace.index();
    workspace.index();
    let out = stdout(&workspace.run(&["clean"]));
    assert!(
        out.contains("would remove generation 000001") && out.contains("nothing changed"),
        "{out}"
    );
    assert_eq!(workspace.store().list().unwrap().len(), 2);
    let out = stdout(&workspace.run(&["clean", "--keep-active", "--yes"]));
    assert!(
        out.contains("removed generation 000001")
            && out.contains("kept the active generation 000002"),
        "{out}"
    );
    let out = stdout(&workspace.run(&["clean", "--yes"]));
    assert!(
        out.contains("restart any running serve or ui before the next index --full"),
        "{out}"
    );
    assert!(stdout(&workspace.run(&["graph", "status"])).contains("graph.active: none"));
    assert!(
        stdout(&workspace.run(&["doctor"])).contains("graph.store: PASS (no published generation)")
    );
    assert!(stdout(&workspace.index()).contains("published generation 000001"));
}

/// The whole fixture corpus as the snapshot holds it, one line per declaration, compared with
/// `testdata/expected/declarations.txt`.
#[test]
fn fixture_declarations_are_exact() {
    let workspace = Workspace::new();
    workspace.index();
    let store = workspace.store();
    let snapshot = Snapshot::open(&store.snapshot_path(store.current().unwrap().unwrap())).unwrap();
    let mut lines = Vec::new();
    // In the fact set's canonical order (repository, package, path), whatever the pages.
    let mut files: Vec<_> = snapshot.files().collect();
    files.sort_by_key(|f| (f.repository().index, f.package().key(), f.path()));
    for file in files {
        lines.push(format!(
            "{}:{} [{}] package={:?} lines={} parse_issues={}",
            file.repository().name(),
            file.path(),
            file.language(),
            file.package().name(),
            file.line_count(),
            file.parse_issue_count()
        ));
        for symbol in file.symbols() {
            let parent = symbol
                .parent()
                .map(|p| format!(" in={}", p.qualified_name()))
                .unwrap_or_default();
            let doc = symbol
                .doc()
                .map(|d| format!(" doc={d:?}"))
                .unwrap_or_default();
            lines.push(format!(
                "  {}@{}-{} {}{} sig={:?}{parent}{doc}",
                symbol.qualified_name(),
                symbol.span().start_line,
                symbol.span().end_line,
                symbol.kind(),
                if symbol.exported() { " exported" } else { "" },
                symbol.signature(),
            ));
        }
    }
    let mut unresolved: Vec<String> = snapshot
        .unresolved()
        .map(|row| {
            format!(
                "unresolved {} {} {:?} {:?} requested={:?}",
                row.repository().map(|r| r.name()).unwrap_or("?"),
                row.reason(),
                row.file_path(),
                row.lines(),
                row.requested_symbol()
            )
        })
        .collect();
    unresolved.sort();
    lines.extend(unresolved);
    let actual = lines.join("\n") + "\n";
    let expected_path = common::manifest_dir().join("../../testdata/expected/declarations.txt");
    if std::env::var_os("KIVGRAPH_BLESS").is_some() {
        std::fs::create_dir_all(expected_path.parent().unwrap()).unwrap();
        std::fs::write(&expected_path, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(&expected_path)
        .expect("run with KIVGRAPH_BLESS=1 once to write the expectation");
    assert_eq!(actual, expected);
    // What discovery must never let in.
    for forbidden in [
        "outside/",
        "vendor/",
        "gen/",
        "node_modules/",
        "target/",
        ".venv/",
        "third_party/",
    ] {
        assert!(!actual.contains(forbidden), "{forbidden} was indexed");
    }
}

fn init_single(dir: &Path, repository: &Path, mode: &str) -> PathBuf {
    let config = dir.join("config.yaml");
    let out = Command::new(binary())
        .arg("init")
        .arg("--config")
        .arg(&config)
        .arg(format!("--repository=go={}", repository.display()))
        .arg("--languages=go")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}indexing:\n  fact_cache: {mode}\n")).unwrap();
    config
}

fn index_with(config: &Path, threads: &str) -> serde_json::Value {
    let out = Command::new(binary())
        .args(["index", "--full", "--json", "--config"])
        .arg(config)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap()
}

/// The published generation's facts and snapshot digests.
fn published_digests(config: &Path) -> kivgraph_store::Digests {
    let store = GenerationStore::new(config.parent().unwrap().join("state"));
    store
        .manifest(store.current().unwrap().unwrap())
        .unwrap()
        .digests
}

fn digest_bytes(hex: &str) -> [u8; 32] {
    *blake3::Hash::from_hex(hex).unwrap().as_bytes()
}

/// After a one-file edit, a warm pass re-analyses that file alone and publishes exactly what
/// a cold pass over the edited tree publishes — whatever the thread count.
#[test]
fn warm_pass_after_an_edit_equals_a_cold_pass() {
    let scratch = tempfile::tempdir().unwrap();
    let repository = scratch.path().join("gosvc");
    copy_tree(&fixtures().join("gosvc"), &repository);
    let warm = init_single(&scratch.path().join("warm"), &repository, "on");
    index_with(&warm, "2");
    std::fs::write(
        repository.join("server/lifecycle.go"),
        // The new function calls across the package: resolution's edges and evidence are
        // part of what must match.
        "package server\n\n// Stop closes.\nfunc (s *Server) Stop() {}\n\nfunc Restart() { _ = NewServer(\"\") }\n",
    )
    .unwrap();
    let result = index_with(&warm, "2");
    assert_eq!(result["result"]["index"]["files_analyzed"], 1);
    let cold = init_single(&scratch.path().join("cold"), &repository, "off");
    let cold_result = index_with(&cold, "1");
    assert_eq!(
        cold_result["result"]["index"]["files_analyzed"],
        result["result"]["index"]["files_total"]
    );
    assert_eq!(published_digests(&warm), published_digests(&cold));
    let store = |config: &Path| GenerationStore::new(config.parent().unwrap().join("state"));
    let warm_store = store(&warm);
    let published =
        Snapshot::open(&warm_store.snapshot_path(warm_store.current().unwrap().unwrap())).unwrap();
    let calls = published
        .edges()
        .filter(|e| e.kind().as_str() == "CALLS_DIRECT")
        .count();
    assert_eq!(calls, 1, "Restart -> NewServer, resolved in the warm pass");
    let snapshot = |config: &Path| {
        let store = store(config);
        read(store.snapshot_path(store.current().unwrap().unwrap()))[64..].to_vec()
    };
    assert_eq!(snapshot(&warm), snapshot(&cold));
}

/// `version --json` says which commit and profile built the binary and, for this
/// configuration, each exact analyzer it would run or why none would.
#[test]
fn version_json_carries_the_commit_the_profile_and_the_analyzers() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(binary())
        .args(["version", "--json", "--config"])
        .arg(dir.path().join("config.yaml"))
        .env("KIVGRAPH_ANALYZERS_DIR", dir.path().join("no-analyzers"))
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let version: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    // Built from this checkout: its commit is HEAD or, when a commit was made since the
    // build, one of HEAD's ancestors.
    let commit = version["commit"].as_str().unwrap();
    let in_a_checkout = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(common::manifest_dir())
        .output()
        .unwrap()
        .status
        .success();
    if in_a_checkout {
        assert!(
            commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
            "{version}"
        );
        let ancestor = Command::new("git")
            .args(["merge-base", "--is-ancestor", commit, "HEAD"])
            .current_dir(common::manifest_dir())
            .status()
            .unwrap();
        assert!(ancestor.success(), "{version}");
    }
    assert_eq!(version["profile"], "debug", "{version}");
    assert!(
        version["compiler"].as_str().unwrap().starts_with("rustc "),
        "{version}"
    );
    assert_eq!(version["snapshot_format"], 5);
    let analyzers = version["analyzers"].as_object().unwrap();
    assert_eq!(
        analyzers.keys().collect::<Vec<_>>(),
        [
            "scip-typescript",
            "scip-python",
            "rust-analyzer",
            "kivgraph-go-worker"
        ]
    );
    assert!(
        analyzers.values().all(|a| a["absent"].is_string()),
        "{version}"
    );
    // Without --json, one line.
    let out = Command::new(binary()).arg("version").output().unwrap();
    assert_eq!(
        stdout(&out),
        format!("kivgraph {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// At a terminal (`script` gives the command one), `index --full` draws a bar per phase
/// with its count, rate and time left; in a pipe it writes lines.
#[test]
fn index_draws_progress_bars_at_a_terminal_and_lines_in_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let repository = dir.path().join("live");
    common::go_repository(&repository);
    let config = dir.path().join("config.yaml");
    let registered = format!("live={}", repository.display());
    let init = Command::new(binary())
        .args(["init", "--config"])
        .arg(&config)
        .args(["--repository", &registered, "--languages", "go"])
        .output()
        .unwrap();
    assert!(init.status.success(), "{}", stderr(&init));
    let command = format!("{} index --full --config {}", binary(), config.display());
    let at_terminal = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("KIVGRAPH_ANALYZERS_DIR", dir.path().join("no-analyzers"))
        .output()
        .unwrap();
    assert!(at_terminal.status.success(), "{}", stderr(&at_terminal));
    let drawn = stdout(&at_terminal);
    assert!(drawn.contains("index: parse live"), "{drawn}");
    assert!(drawn.contains('█') && drawn.contains("/s ETA"), "{drawn}");
    let piped = Command::new(binary())
        .args(["index", "--full", "--config"])
        .arg(&config)
        .env("KIVGRAPH_ANALYZERS_DIR", dir.path().join("no-analyzers"))
        .output()
        .unwrap();
    assert!(
        stderr(&piped)
            .lines()
            .any(|l| l == "index: discover live 0/1"),
        "{}",
        stderr(&piped)
    );
    assert!(!stderr(&piped).contains('█'));
}
