//! The MCP server over graphs the exact analyzers and the resolution fixtures built: what
//! go/types, rust-analyzer and the SCIP indexers decide that the syntax layer could not,
//! across repositories laid out as users have them.

#[path = "common/mod.rs"]
mod common;

use std::path::Path;

use common::client::{Client, index_with, init, reindex};
use common::{command, copy_tree, fixtures, run, succeed};
use serde_json::{Value, json};

/// Registers one Go repository.
fn init_go_fixture(dir: &Path, name: &str, repository: &Path) {
    init(dir, "go", &[(name, repository)]);
}

fn index_resolution_fixtures(dir: &Path, names: &[&str]) {
    let root = fixtures().join("../resolution");
    let paths: Vec<_> = names.iter().map(|name| root.join(name)).collect();
    let repositories: Vec<(&str, &Path)> = names
        .iter()
        .zip(&paths)
        .map(|(name, path)| (*name, path.as_path()))
        .collect();
    init(dir, "go", &repositories);
    index_with(dir, false);
}

/// The same fixtures with go/types: what the syntax layer could not prove (a method called
/// on a value, a caller in another repository through a module nobody `require`s) becomes
/// an exact edge, and the answers say which analyzer produced them.
#[test]
fn go_types_decides_what_the_syntax_layer_could_not() {
    let dir = tempfile::tempdir().unwrap();
    let root = fixtures().join("../resolution");
    init(
        dir.path(),
        "go",
        &[
            ("gocalls", &root.join("gocalls")),
            ("goconsumer", &root.join("goconsumer")),
        ],
    );
    index_with(dir.path(), true);
    let mut client = Client::start(dir.path());
    // `s.Start()` on `s := NewServer(addr)`: the syntax layer left it a blind spot. The
    // consumer's `s.Start()` on a parameter of the provider's type comes with it.
    assert_eq!(
        client.ok(
            "find_references",
            json!({"qualified_name": "Server.Start", "repository": "gocalls", "path": "server"})
        )["results"],
        json!({"subject": "gocalls:server/server.go:24", "qn": "Server.Start", "direction": "incoming",
        "edge_kinds_default_excluded": ["EXPORTS", "REEXPORTS"], "repository": "gocalls",
        "edge_kind": "CALLS_DIRECT", "kind": "func", "confidence": "EXACT_TYPECHECKED",
        "provenance": "GO_TYPES_USE", "files": [
            {"file": "server/server.go", "at": ["Run@12-21"]},
            {"file": "app/typed.go", "repo": "goconsumer", "at": ["typed@10-13"]}
        ]})
    );
    // goconsumer imports gocalls without a `require`: the synthetic go.work loads both.
    let consumers = client.ok(
        "find_cross_repo_consumers",
        json!({"qualified_name": "Run", "repository": "gocalls"}),
    );
    // Its package dependency says nothing its calls do not: only the calls are listed.
    assert_eq!(
        consumers["results"]["confidence"], "EXACT_TYPECHECKED",
        "{consumers}"
    );
    assert_eq!(consumers["coverage"], json!({"exact": 2}), "{consumers}");
    assert_eq!(consumers["completeness"]["verdict"], "COMPLETE");
    let repositories = client.ok("list_repositories", json!({}));
    let text = repositories.to_string();
    assert!(text.contains("kivgraph-go-worker 3 go1.27"), "{text}");
}

#[test]
fn cross_repo_consumers_keep_uses_dependencies_and_failures_apart() {
    let dir = tempfile::tempdir().unwrap();
    index_resolution_fixtures(dir.path(), &["gocalls", "goconsumer"]);
    let mut client = Client::start(dir.path());
    // goconsumer calls Run twice (once through a dot import) and imports its package from
    // three files; gocalls' own client is not an outside consumer. Its package dependency
    // adds nothing to the calls: only the calls are listed.
    assert_eq!(
        client.ok(
            "find_cross_repo_consumers",
            json!({"qualified_name": "Run", "repository": "gocalls"})
        ),
        json!({"snapshot_id": 1, "total": 2, "returned": 2, "coverage": {"exact": 2}, "completeness": {"verdict": "COMPLETE"}, "results": {
        "subject": {"qualified_name": "Run", "at": "gocalls:server/server.go:12", "pkg": "example.com/gocalls/server", "module_path": "example.com/gocalls", "end_line": 21},
        "category": "exact_symbol", "edge_kind": "CALLS_DIRECT", "confidence": "STRUCTURAL_CERTAIN", "provenance": "TREE_SITTER_SYNTAX",
        "consumers": [
            {"repo": "goconsumer", "pkg": "example.com/goconsumer/app", "at": "app/dot.go:6", "qualified_name": "dotted"},
            {"repo": "goconsumer", "pkg": "example.com/goconsumer/app", "at": "app/main.go:7", "end_line": 9, "qualified_name": "main"}
        ]}})
    );
    // Nobody outside calls NewServer: the package dependency is all there is, counted apart,
    // saying why it is all the graph knows.
    let new_server = client.ok("find_cross_repo_consumers", json!({"qualified_name": "NewServer", "repository": "gocalls", "path": "server", "view": "full"}));
    assert_eq!(
        new_server["coverage"],
        json!({"exact": 0, "candidate": 0, "unresolved_related": 0, "package_level": 3})
    );
    assert_eq!(new_server["results"]["consumers"][0]["category"], "package");
    assert_eq!(
        new_server["results"]["consumers"][0]["detail"],
        "every spelling of this symbol's name in it is accounted for, none as a use of it: it depends on the package only"
    );
    // A proven absence.
    let dial = client.ok(
        "find_cross_repo_consumers",
        json!({"qualified_name": "Dial", "repository": "gocalls", "view": "full"}),
    );
    assert_eq!(
        (
            dial["total"].clone(),
            dial["results"]["consumers"].clone(),
            dial["completeness"].clone()
        ),
        (json!(0), Value::Null, json!({"verdict": "COMPLETE"}))
    );
    assert!(
        client
            .refused(
                "find_cross_repo_consumers",
                json!({"qualified_name": "Run", "repository": "gocalls", "view": "files"})
            )
            .starts_with("INVALID_ARGUMENT")
    );
    drop(client);

    // Two repositories claiming the provider's import path: the consumer's imports bind
    // neither, and each is kept as a failed request about the package, never a use.
    let dir = tempfile::tempdir().unwrap();
    index_resolution_fixtures(dir.path(), &["gocalls", "goconsumer", "gofork"]);
    let mut client = Client::start(dir.path());
    let forked = client.ok(
        "find_cross_repo_consumers",
        json!({"qualified_name": "Run", "repository": "gocalls"}),
    );
    // One failed request per import of the claimed path: main.go, dot.go and typed.go.
    assert_eq!(forked["coverage"], json!({"unresolved_related": 3}));
    assert_eq!(
        (
            forked["results"]["category"].clone(),
            forked["results"]["reason"].clone(),
            forked["results"]["requested_package"].clone()
        ),
        (
            json!("unresolved"),
            json!("AMBIGUOUS_MODULE_PROVIDER"),
            json!("example.com/gocalls/server")
        )
    );
    assert_eq!(forked["completeness"]["verdict"], "LOWER_BOUND");
    assert_eq!(
        forked["completeness"]["blind_spots"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn calls_through_an_interface_reach_its_one_implementation_and_no_other() {
    let dir = tempfile::tempdir().unwrap();
    index_resolution_fixtures(dir.path(), &["godispatch"]);
    let mut client = Client::start(dir.path());
    // MemoryStore is Store's only implementation: Load's call through Store.Get can reach
    // nothing else, so it is MemoryStore.Get's reference too, marked with the bridge;
    // inspect calls it directly (promoted through Audit), and its `via` is null.
    assert_eq!(
        client.ok(
            "find_references",
            json!({"qualified_name": "MemoryStore.Get", "repository": "godispatch"})
        ),
        json!({"snapshot_id": 1, "total": 2, "returned": 2, "coverage": {"exact": 2}, "completeness": {"verdict": "COMPLETE"}, "results": {
            "subject": "godispatch:store/store.go:34", "qn": "MemoryStore.Get", "direction": "incoming",
            "dispatch_through": "godispatch:store/store.go:7",
            "edge_kinds_default_excluded": ["EXPORTS", "REEXPORTS"], "repository": "godispatch",
            "edge_kind": "CALLS_DIRECT", "kind": "func", "confidence": "STRUCTURAL_CERTAIN", "provenance": "TREE_SITTER_SYNTAX",
            "files": [{"file": "app/app.go", "at": [["Load@14-16", "Store.Get"], ["inspect@39-41", null]]}]}})
    );
    let full = client.ok(
        "find_references",
        json!({"qualified_name": "MemoryStore.Get", "repository": "godispatch", "view": "full"}),
    );
    assert_eq!(
        (
            full["results"]["dispatch_through"]["qualified_name"].clone(),
            full["results"]["references"][0]["qualified_name"].clone(),
            full["results"]["references"][0]["via"].clone()
        ),
        (json!("Store.Get"), json!("Load"), json!("Store.Get"))
    );
    // Notifier has two implementations (one in another package; Counter.Notify takes an
    // int and is none): nothing is bridged, and the empty answer says why it is a floor.
    assert_eq!(
        client.ok(
            "find_references",
            json!({"qualified_name": "EmailNotifier.Notify", "repository": "godispatch"})
        ),
        json!({"snapshot_id": 1, "total": 0, "returned": 0,
            "guidance": "no reference was resolved, but this is a floor: completeness.not_followed names uses that may reach this symbol and that the index does not credit to it; follow them before concluding nobody uses it",
            "completeness": {"verdict": "LOWER_BOUND", "not_followed": "calls through the interface method Notifier.Notify may dispatch here, but it has 2 implementations, so none of them is credited with those calls; ask find_references about Notifier.Notify for them"},
            "results": {"subject": "godispatch:store/notify.go:10", "qn": "EmailNotifier.Notify", "direction": "incoming", "edge_kinds_default_excluded": ["EXPORTS", "REEXPORTS"], "repository": "godispatch", "files": []}})
    );
    assert_eq!(
        client.ok(
            "find_references",
            json!({"qualified_name": "Notifier.Notify", "repository": "godispatch", "edge_kinds": ["IMPLEMENTS"]})
        )["results"]["files"],
        json!([{"file": "app/app.go", "at": ["SlackNotifier.Notify@12"]}, {"file": "store/notify.go", "at": ["EmailNotifier.Notify@10"]}])
    );
    // The reverse walk crosses IMPLEMENTS towards the interface, then reaches its callers;
    // Audit.Flush calls Put promoted through Audit's embedded *MemoryStore; the two methods
    // that hide it (rule G15) are affected too.
    let blast = client.ok(
        "get_blast_radius",
        json!({"qualified_name": "MemoryStore.Put", "repository": "godispatch"}),
    );
    assert_eq!(
        blast["results"]["files"],
        json!([{"file": "store/store.go", "at": [["Audit.Flush@56-58", "method", "1", "MemoryStore.Put", "CALLS_DIRECT"], ["Store.Put@8", "method", "1", "MemoryStore.Put", "IMPLEMENTS"]]},
               {"file": "app/hide.go", "at": [["Logged.Put@8", "method", "1", "MemoryStore.Put", "OVERRIDES"]]},
               {"file": "store/hide.go", "at": [["ReadOnly.Put@10", "method", "1", "MemoryStore.Put", "OVERRIDES"]]},
               {"file": "app/app.go", "at": [["Save@18-20", "func", "2", "Store.Put", "CALLS_DIRECT"]]}])
    );
    // module_report lists who uses each declaration, from the published graph.
    let report = client.ok(
        "module_report",
        json!({"file": "store/store.go", "repository": "godispatch", "maxRefsPerSymbol": 3}),
    );
    let store = report["api"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "Store")
        .unwrap()
        .clone();
    assert_eq!(
        (store["usedBy"].clone(), store["usedByTotal"].clone()),
        (
            json!([
                {"file": "app/app.go", "symbol": "Load", "line": 14, "relation": "uses type"},
                {"file": "app/app.go", "symbol": "Save", "line": 18, "relation": "uses type"},
                {"file": "app/app.go", "symbol": "Wrapped", "line": 44, "relation": "implements"}
            ]),
            json!(6)
        )
    );
    assert_eq!(
        report["semantic"],
        json!({"source": "published graph", "references": true, "implementations": true})
    );
    // find_by_intent credits Save, which only says "save", for calling Store.Put.
    let intent = client.ok(
        "find_by_intent",
        json!({"intent": "save with put", "view": "full"}),
    );
    let save = intent["results"]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["qualified_name"] == "Save")
        .unwrap()
        .clone();
    assert_eq!(save["match"], "lexical+calls", "{intent}");
    // Changing Store (its methods are seeds too) reaches what implements it, embeds it,
    // uses it and calls through it.
    let store = client.ok(
        "get_blast_radius",
        json!({"qualified_name": "Store", "repository": "godispatch", "depth": 1}),
    );
    assert_eq!(
        store["results"]["by_kind"],
        json!({"CALLS_DIRECT": 2, "EMBEDS": 1, "IMPLEMENTS": 5, "TYPE_USES": 2})
    );
}

/// `rust.index_sysroot`: the standard library of the analyzer's toolchain is published as
/// the derived repository `rust:<release>`, so a registered crate's `Vec::new()` and
/// `Box::new()` are exact edges into it. Read tools withhold it unless asked; `graph_status`
/// breaks it out; `list_repositories` marks its row, which has no commit.
#[test]
fn the_standard_library_is_a_derived_provider_withheld_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let exact = fixtures().join("../exact");
    for name in ["rsprovider", "rsconsumer"] {
        copy_tree(&exact.join(name), &dir.path().join(name));
    }
    init(
        dir.path(),
        "rust",
        &[
            ("rsprovider", &dir.path().join("rsprovider")),
            ("rsconsumer", &dir.path().join("rsconsumer")),
        ],
    );
    let config = dir.path().join("config.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}rust:\n  index_sysroot: true\n")).unwrap();
    let out = succeed(dir.path(), &["index", "--full", "--json"]);
    let result: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let derived = result["result"]["standard_library"]["repository"]
        .as_str()
        .expect("the standard library is published")
        .to_string();
    assert!(derived.starts_with("rust:1."), "{derived}");

    let mut client = Client::start(dir.path());
    let callees = |client: &mut Client, arguments: Value| -> Vec<String> {
        let page = client.ok("trace_dependencies", arguments);
        page["results"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|file| {
                let repo = file["repo"].as_str().unwrap_or("").to_string();
                let path = file["file"].as_str().unwrap().to_string();
                file["at"].as_array().unwrap().iter().map(move |at| {
                    let label = at.as_str().or(at[0].as_str()).unwrap_or("");
                    format!("{repo} {path} {label}")
                })
            })
            .collect()
    };
    let subject = json!({"repository": "rsconsumer", "path": "src/lib.rs", "qualified_name": "summary", "depth": 1});
    let own = callees(&mut client, subject.clone());
    assert!(own.iter().all(|row| !row.contains("rust:")), "{own:?}");
    let mut asked = subject;
    asked["include_derived"] = json!(true);
    let all = callees(&mut client, asked);
    for expected in [
        format!("{derived} alloc/src/vec/mod.rs vec::Vec::new@463-465"),
        format!("{derived} alloc/src/boxed.rs boxed::Box::new@284-292"),
    ] {
        let line = expected.rsplit_once('@').unwrap().0.to_string();
        assert!(
            all.iter().any(|row| row.starts_with(&line)),
            "{line} in {all:?}"
        );
    }
    assert_eq!(all.len(), own.len() + 5, "{all:?}");

    // Naming the provider in `repo` is a request for it.
    let named = client.ok(
        "find_symbol",
        json!({"name": "Vec", "kind": "struct", "repo": derived}),
    );
    assert_eq!(
        named["results"]["symbols"][0]["at"], "alloc/src/vec/mod.rs:438",
        "{named}"
    );
    let withheld = client.ok("find_symbol", json!({"name": "Vec", "kind": "struct"}));
    assert_eq!(withheld["total"], 0, "{withheld}");

    let status = client.ok("graph_status", json!({}));
    let breakdown = &status["results"]["derived"];
    assert_eq!(breakdown["repositories"], json!([derived]));
    assert_eq!(breakdown["packages"], 36, "{breakdown}");
    assert!(
        breakdown["edges_inbound"].as_u64().unwrap() >= 5,
        "{breakdown}"
    );
    assert!(
        breakdown["symbols"].as_u64().unwrap() > 10_000,
        "{breakdown}"
    );

    let repositories = client.ok("list_repositories", json!({}));
    let row = repositories["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == derived.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["derived"], true);
    assert!(row.get("indexed_commit").is_none() && row.get("current_commit").is_none());
}

/// A repository of `testdata/exact`, by its directory's name.
/// The exact fixtures named, registered as repositories of `language` and indexed with the
/// installed analyzers.
fn index_exact_fixtures(dir: &Path, language: &str, names: &[&str]) {
    let paths: Vec<_> = names.iter().map(|name| exact_fixture(name)).collect();
    let repositories: Vec<(&str, &Path)> = names
        .iter()
        .zip(&paths)
        .map(|(name, path)| (*name, path.as_path()))
        .collect();
    init(dir, language, &repositories);
    reindex(dir);
}

fn exact_fixture(name: &str) -> std::path::PathBuf {
    fixtures()
        .join("../exact")
        .join(name)
        .canonicalize()
        .unwrap()
}

/// `doctor repositories --json` of the configuration in `dir`: each finding's code and
/// message.
fn audit_findings(dir: &Path) -> Vec<(String, String)> {
    let out = run(dir, &["doctor", "repositories", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["repositories"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The files of `find_references` on `New`, with their test label.
fn callers_of_new(client: &mut Client) -> Vec<Value> {
    let answer = client.ok(
        "find_references",
        json!({"qualified_name": "New", "repository": "gotests"}),
    );
    answer["results"]["files"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|mut file| {
            file.as_object_mut().unwrap().remove("at");
            file
        })
        .collect()
}

/// What the graph holds of a Go package is what the configured build compiles: its tests
/// only with `go.include_tests`, a tagged file only with its tag, another system's file
/// never — in both layers; `doctor repositories` counts what each rule left out.
#[test]
fn go_files_are_those_the_configured_build_compiles() {
    let dir = tempfile::tempdir().unwrap();
    init_go_fixture(dir.path(), "gotests", &exact_fixture("gotests"));
    let audit = audit_findings(dir.path());
    assert_eq!(
        audit,
        [
            ("GO_FILES_NOT_BUILT", "2 .go files left out (GO_TEST_FILE): go.include_tests is false; for example counter/counter_test.go"),
            ("GO_FILES_NOT_BUILT", "1 .go files left out (GO_FILE_NAME_CONSTRAINT): the file name names another GOOS or GOARCH than the build's; for example counter/counter_windows.go"),
            ("GO_FILES_NOT_BUILT", "1 .go files left out (GO_BUILD_CONSTRAINT): its build constraint is not satisfied by go.build_tags, GOOS, GOARCH and cgo; for example counter/tagged.go"),
        ]
        .map(|(code, message)| (code.to_string(), message.to_string()))
    );
    for analyzers in [false, true] {
        index_with(dir.path(), analyzers);
        let mut client = Client::start(dir.path());
        assert_eq!(callers_of_new(&mut client), Vec::<Value>::new());
        let tests = client.ok("find_symbol", json!({"name": "TestAdd"}));
        assert_eq!(tests["total"], 0, "{tests}");
    }
    let config = dir.path().join("config.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}go:\n  include_tests: true\n  build_tags: [ladybug]\n"),
    )
    .unwrap();
    assert_eq!(
        audit_findings(dir.path()),
        [(
            "GO_FILES_NOT_BUILT".to_string(),
            "1 .go files left out (GO_FILE_NAME_CONSTRAINT): the file name names another GOOS or GOARCH than the build's; for example counter/counter_windows.go".to_string()
        )]
    );
    reindex(dir.path());
    let mut client = Client::start(dir.path());
    assert_eq!(
        callers_of_new(&mut client),
        [
            json!({"file": "counter/counter_test.go", "test": true}),
            json!({"file": "counter/external_test.go", "test": true}),
            json!({"file": "counter/tagged.go"}),
        ]
    );
}

/// A consumer whose `Cargo.lock` pins a crates.io release of a crate registered at a
/// compatible release is loaded against the registered source: its uses are exact edges to
/// it, across repositories, and `list_repositories` says which dependency was patched in
/// from which repository.
#[test]
fn a_pinned_rust_dependency_is_answered_from_the_registered_source() {
    let dir = tempfile::tempdir().unwrap();
    index_exact_fixtures(dir.path(), "rust", &["rsitoanext", "rspinned"]);
    let mut client = Client::start(dir.path());
    let consumers = client.ok(
        "find_cross_repo_consumers",
        json!({"qualified_name": "Buffer::new", "repository": "rsitoanext"}),
    );
    assert_eq!(
        (
            consumers["results"]["edge_kind"].clone(),
            consumers["results"]["confidence"].clone(),
            consumers["results"]["consumers"].clone(),
            consumers["completeness"].clone()
        ),
        (
            json!("CALLS_DIRECT"),
            json!("EXACT_TYPECHECKED"),
            json!([{"repo": "rspinned", "pkg": "rspinned", "at": "src/lib.rs:1", "end_line": 4, "qualified_name": "render"}]),
            json!({"verdict": "COMPLETE"})
        ),
        "{consumers}"
    );
    let repositories = client.ok("list_repositories", json!({}));
    let pinned = repositories["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "rspinned")
        .cloned()
        .unwrap();
    assert_eq!(
        pinned["analyzers"][0]["patched"],
        json!([".: itoa from rsitoanext"]),
        "{pinned}"
    );
}

/// Code the configured Rust build does not compile is no consumer: `rsfeatures` calls
/// `Circle::new` and `total_area` only in a module behind its off-by-default `extras`
/// feature and in an item behind it; the answers hold no row of them and say so as
/// provably as of any other file, and `list_repositories` and `doctor repositories` say how
/// many files the build left out.
#[test]
fn rust_code_behind_an_inactive_feature_is_no_consumer() {
    let dir = tempfile::tempdir().unwrap();
    // First registered: `doctor repositories` reports it first.
    index_exact_fixtures(dir.path(), "rust", &["rsfeatures", "rsprovider"]);
    let mut client = Client::start(dir.path());
    for name in ["shapes::circle::Circle::new", "total_area"] {
        let consumers = client.ok(
            "find_cross_repo_consumers",
            json!({"qualified_name": name, "repository": "rsprovider"}),
        );
        assert_eq!(
            (
                consumers["results"]["consumers"].clone(),
                consumers["completeness"].clone()
            ),
            (
                json!([{"repo": "rsfeatures", "detail": "every spelling of this symbol's name in it is accounted for, none as a use of it: it depends on the package only", "pkg": "rsfeatures"}]),
                json!({"verdict": "COMPLETE"})
            ),
            "{consumers}"
        );
    }
    // What the default build compiles is a consumer as ever; an item behind a cfg only a
    // build script could set stays the syntax layer's candidate.
    let square = client.ok(
        "find_cross_repo_consumers",
        json!({"qualified_name": "shapes::square::Square::new", "repository": "rsprovider"}),
    );
    assert_eq!(
        square["results"]["groups"],
        json!([
            {"category": "exact_symbol", "confidence": "EXACT_TYPECHECKED", "provenance": "RUST_ANALYZER_USE", "consumers": [
                {"repo": "rsfeatures", "pkg": "rsfeatures", "at": "src/metric.rs:4", "end_line": 6, "qualified_name": "metric::square_area"},
                {"repo": "rsfeatures", "pkg": "rsfeatures", "at": "src/metric.rs:16", "end_line": 18, "qualified_name": "metric::unit_side"}
            ]},
            {"category": "candidate", "confidence": "CANDIDATE", "provenance": "TREE_SITTER_SYNTAX", "consumers": [
                {"repo": "rsfeatures", "pkg": "rsfeatures", "at": "src/metric.rs:23", "end_line": 25, "qualified_name": "metric::probed"}
            ]}
        ]),
        "{square}"
    );
    let repositories = client.ok("list_repositories", json!({}));
    let features = repositories["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "rsfeatures")
        .cloned()
        .unwrap();
    assert_eq!(
        features["analyzers"][0]["not_built"],
        json!([
            ".: 3 of its files no crate of the configured build compiles (a module behind an inactive feature or cfg, or one no module declares), e.g. src/extras.rs"
        ]),
        "{features}"
    );
    let findings = audit_findings(dir.path());
    assert!(
        findings
            .iter()
            .any(|(code, message)| code == "RUST_FILES_NOT_BUILT"
                && message.ends_with("e.g. src/extras.rs")),
        "{findings:?}"
    );
}

/// An older copy of a registered Python provider on the consumer's `PYTHONPATH` (no
/// `largest` yet, another `Square`) does not compete with the registered source: pyright
/// runs hermetically, the registered repositories' import roots are its only providers, and
/// every use is an exact edge to the registered declaration.
#[test]
fn an_installed_older_copy_of_a_python_provider_does_not_compete() {
    let dir = tempfile::tempdir().unwrap();
    let installed = dir.path().join("site-packages/geometry");
    std::fs::create_dir_all(&installed).unwrap();
    for (file, text) in [
        ("__init__.py", "from .shapes import Square as Square\n"),
        (
            "shapes.py",
            "class Square:\n    def area(self) -> float:\n        return 0.0\n\n\ndef biggest(shapes: list) -> float:\n    return 0.0\n",
        ),
        (
            "units.py",
            "def area(value: float) -> str:\n    return \"\"\n",
        ),
    ] {
        std::fs::write(installed.join(file), text).unwrap();
    }
    init(
        dir.path(),
        "python",
        &[
            ("pyprovider", &exact_fixture("pyprovider")),
            ("pyconsumer", &exact_fixture("pyconsumer")),
        ],
    );
    let out = command(dir.path(), &["index", "--full"])
        .env("PYTHONPATH", dir.path().join("site-packages"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut client = Client::start(dir.path());
    let uses = |client: &mut Client, name: &str, path: &str| {
        let answer = client.ok(
            "find_cross_repo_consumers",
            json!({"qualified_name": name, "repository": "pyprovider", "path": path}),
        );
        let rows: Vec<String> = answer["results"]["consumers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                format!(
                    "{} {}:{} {}",
                    row["edge_kind"].as_str().unwrap_or(""),
                    row["repo"].as_str().unwrap_or(""),
                    row["at"].as_str().unwrap_or(""),
                    row["qualified_name"].as_str().unwrap_or("")
                )
            })
            .collect();
        (
            answer["results"]["confidence"].clone(),
            answer["completeness"]["verdict"].clone(),
            rows,
        )
    };
    assert_eq!(
        uses(&mut client, "largest", "geometry/shapes.py"),
        (
            json!("EXACT_TYPECHECKED"),
            json!("COMPLETE"),
            vec![
                "IMPORTS_SYMBOL pyconsumer:app/report.py:1 <module>".to_string(),
                "CALLS_DIRECT pyconsumer:app/report.py:7 report".to_string(),
            ]
        )
    );
}

/// A type of another repository that has an interface's method set implements it (Go says
/// so, and find_references keeps the relation), but a repository that cannot import the
/// interface relies on nothing of it: it is no consumer.
#[test]
fn a_type_satisfying_an_interface_it_cannot_import_is_no_consumer() {
    let dir = tempfile::tempdir().unwrap();
    index_resolution_fixtures(dir.path(), &["godispatch", "gostranger"]);
    let mut client = Client::start(dir.path());
    let subject = json!({"qualified_name": "Notifier.Notify", "repository": "godispatch"});
    let mut implementations = subject.clone();
    implementations["edge_kinds"] = json!(["IMPLEMENTS"]);
    assert_eq!(
        client.ok("find_references", implementations)["results"]["files"],
        json!([{"file": "app/app.go", "at": ["SlackNotifier.Notify@12"]},
               {"file": "store/notify.go", "at": ["EmailNotifier.Notify@10"]},
               {"file": "pager/pager.go", "repo": "gostranger", "at": ["Pager.Notify@7"]}])
    );
    assert_eq!(
        client.ok("find_cross_repo_consumers", subject),
        json!({"snapshot_id": 1, "total": 0, "returned": 0,
            "guidance": "no repository in the published graph consumes this symbol. Check graph_status if a consumer is registered but was not indexed, and find_references for uses inside its own repository",
            "completeness": {"verdict": "COMPLETE"},
            "results": {"subject": {"qualified_name": "Notifier.Notify", "at": "godispatch:store/notify.go:5",
                "pkg": "example.com/godispatch/store", "module_path": "example.com/godispatch"},
                "consumers": []}})
    );
}

/// A consumer whose go.mod replaces a registered module with a fork nobody registered uses
/// the fork: its import is a REPLACE_CONFLICT, never a consumer of the registered module,
/// counted in graph_status and named in the completeness of the answer it could add to.
#[test]
fn a_replace_conflict_is_counted_and_named_where_it_hides_a_consumer() {
    let dir = tempfile::tempdir().unwrap();
    index_exact_fixtures(dir.path(), "go", &["goprovider", "goforked"]);
    let mut client = Client::start(dir.path());
    let status = client.ok("graph_status", json!({}));
    let reasons = status["results"]["unresolved_by_reason"].clone();
    assert_eq!(
        reasons,
        json!([{"key": "PACKAGE_NOT_BUILDABLE", "count": 1}, {"key": "REPLACE_CONFLICT", "count": 1}])
    );
    let answer = client.ok(
        "find_cross_repo_consumers",
        json!({"qualified_name": "Total", "repository": "goprovider"}),
    );
    let provider = exact_fixture("goprovider");
    let detail = format!(
        "go.mod replaces example.com/goprovider with {}-fork, so the build does not use the registered example.com/goprovider/shapes ({})",
        provider.display(),
        provider.join("shapes").display()
    );
    // The fork's import is the blind spot; goprovider/legacy, which the build excludes,
    // can hold no use and bounds nothing.
    assert_eq!(
        answer["completeness"],
        json!({"verdict": "LOWER_BOUND",
            "blind_spots": [{"reason": "REPLACE_CONFLICT", "repository": "goforked", "path": "forked.go", "line": 4,
                "requested_symbol": "", "requested_package": "example.com/goprovider/shapes", "detail": detail}],
            "unbound_uses": {"files": 1, "occurrences": 1},
            "fallback": {"pattern": "\\bTotal\\b", "paths": [exact_fixture("goforked").join("forked.go")]}})
    );
    assert_eq!(
        (
            answer["coverage"].clone(),
            answer["results"]["reason"].clone()
        ),
        (json!({"unresolved_related": 1}), json!("REPLACE_CONFLICT"))
    );
}

/// A consumer's build turns on a feature of a registered crate that the crate's own build
/// leaves off: no load defines the gated function, so its use is `CRATE_SYMBOL_NOT_MATCHED`,
/// counted in graph_status, and the answer about the function is a floor naming it — with
/// the syntax layer's candidate — never a complete answer that found nobody.
#[test]
fn a_rust_use_no_load_defines_bounds_the_answer_about_its_name() {
    let dir = tempfile::tempdir().unwrap();
    index_exact_fixtures(dir.path(), "rust", &["rsgated", "rsgateduser"]);
    let mut client = Client::start(dir.path());
    let status = client.ok("graph_status", json!({}));
    assert_eq!(
        status["results"]["unresolved_by_reason"],
        json!([{"key": "CRATE_SYMBOL_NOT_MATCHED", "count": 1}])
    );
    let answer = client.ok(
        "find_references",
        json!({"qualified_name": "fast_sum", "repository": "rsgated"}),
    );
    assert_eq!(
        (
            answer["results"]["files"].clone(),
            answer["results"]["confidence"].clone()
        ),
        (
            json!([{"file": "src/lib.rs", "at": ["total@1-3"]}]),
            json!("CANDIDATE")
        ),
        "{answer}"
    );
    assert_eq!(
        answer["completeness"],
        json!({"verdict": "LOWER_BOUND",
            "blind_spots": [{"reason": "CRATE_SYMBOL_NOT_MATCHED", "repository": "rsgateduser", "path": "src/lib.rs", "line": 2,
                "requested_symbol": "fast_sum", "requested_package": "rsgated 0.1.0",
                "detail": "the analyzer resolved this use into rsgated 0.1.0, whose load defines no `fast_sum`"}],
            "fallback": {"pattern": "\\bfast_sum\\b", "paths": [exact_fixture("rsgateduser").join("src/lib.rs")]}})
    );
}
