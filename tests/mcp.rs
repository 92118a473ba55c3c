//! The MCP server driven over stdio JSON-RPC, as a client would, on the fixture repositories.

#[path = "common/mod.rs"]
mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::client::{Client, index_with, init, reindex};
use common::{binary, copy_tree, fixtures, succeed};
use serde_json::{Value, json};

/// A temporary configuration registering the four fixture repositories.
fn workspace(index: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = fixtures();
    let out = Command::new(binary())
        .arg("init")
        .arg("--config")
        .arg(dir.path().join("config.yaml"))
        .args(
            [
                ("go", "gosvc"),
                ("ts", "tsweb"),
                ("rs", "rscore"),
                ("py", "pytools"),
            ]
            .map(|(n, d)| format!("--repository={n}={}", root.join(d).display())),
        )
        .output()
        .unwrap();
    assert!(out.status.success());
    if index {
        reindex(dir.path());
    }
    dir
}

/// The `gocalls` fixture of `testdata/resolution`, registered and indexed alone: the
/// workspace and the fixture's path.
fn gocalls() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let fixture = fixtures().join("../resolution/gocalls");
    init_and_index(dir.path(), "gocalls", &fixture);
    (dir, fixture)
}

/// A workspace of one Go repository, indexed once.
/// Registers one Go fixture of `testdata/resolution` and indexes it with the syntax layer
/// alone: these fixtures exercise the syntax layer's Go rules (G1–G12), which an exact
/// analyzer would otherwise decide; what go/types adds is asserted by
/// `go_types_decides_what_the_syntax_layer_could_not`.
fn init_and_index(dir: &Path, name: &str, repository: &Path) {
    init_go(dir, name, repository);
    index_with(dir, false);
}

fn init_go(dir: &Path, name: &str, repository: &Path) {
    init(dir, "go", &[(name, repository)]);
}

#[test]
fn before_a_generation_only_index_project_is_offered() {
    let dir = workspace(false);
    let mut client = Client::start(dir.path());
    assert!(
        client
            .instructions
            .starts_with("Kivgraph has no published graph to answer from"),
        "{}",
        client.instructions
    );
    assert_eq!(client.tool_names(), vec!["index_project"]);
    let refusal = client.refused(
        "index_project",
        json!({"name": "go", "path": fixtures().join("gosvc"), "languages": ["go"]}),
    );
    assert_eq!(
        refusal,
        "PERMISSION_REQUIRED: user approval is required; confirm the operation before setting confirmed=true"
    );
    let refusal = client.refused(
        "index_project",
        json!({"projects": [], "name": "x", "path": "/", "languages": ["go"], "confirmed": true}),
    );
    assert!(
        refusal.starts_with("INVALID_ARGUMENT: pass either projects or name"),
        "{refusal}"
    );
    let refusal = client.refused("index_project", json!({"name": "go", "path": fixtures().join("gosvc"), "languages": ["go", "cobol"], "confirmed": true}));
    assert!(refusal.contains("unknown language \"cobol\""), "{refusal}");

    // Approved: the projects are registered, one pass publishes, and the query tools appear.
    let (text, error) = client.call(
        "index_project",
        json!({"projects": [{"name": "go", "path": fixtures().join("gosvc"), "languages": ["go"]}], "confirmed": true}),
    );
    assert!(!error, "{text}");
    let result: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(result["generation_id"], "000001");
    assert_eq!(result["registered"], json!(["go"]));
    let mut names = client.tool_names();
    names.sort();
    assert_eq!(
        names,
        vec![
            "find_by_intent",
            "find_cross_repo_consumers",
            "find_references",
            "find_symbol",
            "get_blast_radius",
            "get_file_outline",
            "get_source",
            "get_symbol",
            "graph_status",
            "index_project",
            "list_repositories",
            "module_report",
            "query_graph",
            "read_symbol",
            "trace_dependencies"
        ]
    );
}

#[test]
fn tools_are_read_only_without_output_schema() {
    let dir = workspace(true);
    let mut client = Client::start(dir.path());
    assert!(
        client
            .instructions
            .starts_with("Kivgraph answers where code is declared")
    );
    let tools = client.request("tools/list", json!({}));
    for tool in tools["tools"].as_array().unwrap() {
        assert!(tool.get("outputSchema").is_none(), "{tool}");
        let read_only = tool["annotations"]["readOnlyHint"] == true;
        assert_eq!(read_only, tool["name"] != "index_project", "{tool}");
    }
}

#[test]
fn find_symbol_answers_exactly() {
    let dir = workspace(true);
    let mut client = Client::start(dir.path());
    let (text, _) = client.call(
        "find_symbol",
        json!({"name": "NewServer", "repo": "go", "path_prefix": "server/"}),
    );
    assert_eq!(
        text,
        r#"{"snapshot_id":1,"total":1,"returned":1,"results":{"name":"NewServer","kind":"func","exported":true,"repository":"go","symbols":[{"at":"server/server.go:29","end":31,"sig":"func NewServer(addr string) *Server"}]}}"#
    );
    let full = client.ok(
        "find_symbol",
        json!({"name": "NewServer", "repo": "go", "path_prefix": "server/", "view": "full"}),
    );
    assert_eq!(full["truncated"], false);
    assert_eq!(full["next_cursor"], Value::Null);
    assert_eq!(
        full["coverage"],
        json!({"exact": 0, "candidate": 0, "unresolved_related": 0, "package_level": 0})
    );
    let row = &full["results"][0];
    assert_eq!(row["stable_key"].as_str().unwrap().len(), 52);
    assert_eq!(row["file_path"], "server/server.go");
    assert_eq!(
        (row["start_line"].as_u64(), row["end_line"].as_u64()),
        (Some(29), Some(31))
    );

    // Homonyms across packages and repositories are separate rows, never merged.
    let page = client.ok("find_symbol", json!({"name": "Server"}));
    assert_eq!(page["total"], 4);
    assert_eq!(page["results"]["name"], "Server");
    let at: Vec<&str> = page["results"]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["at"].as_str().unwrap())
        .collect();
    let mut sorted = at.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        vec![
            "go:client/client.go:4",
            "go:server/server.go:7",
            "rs:src/parser/mod.rs:13",
            "ts:src/server.ts:2"
        ]
    );

    // An absence is an empty list, with the floor the index can prove.
    let empty = client.ok(
        "find_symbol",
        json!({"name": "ThisSymbolDoesNotExistAnywhere", "repo": "rs"}),
    );
    assert_eq!(empty["results"], json!({"symbols": []}));
    assert_eq!(empty["completeness"], json!({"verdict": "COMPLETE"}));
    let bounded = client.ok("find_symbol", json!({"name": "After", "repo": "go"}));
    assert_eq!(bounded["total"], 0);
    assert_eq!(bounded["completeness"]["verdict"], "LOWER_BOUND");
    assert_eq!(
        bounded["completeness"]["invisible_scopes"][0]["path"],
        "broken/broken.go"
    );
    assert_eq!(
        bounded["completeness"]["fallback"]["pattern"],
        "\\bAfter\\b"
    );

    for (arguments, message) in [
        (
            json!({"name": " Server"}),
            "INVALID_ARGUMENT: name must not carry surrounding whitespace",
        ),
        (
            json!({"name": "Server", "mode": "fuzzy"}),
            "INVALID_ARGUMENT: mode \"fuzzy\" is not one of exact, qualified_exact, prefix, substring",
        ),
        (
            json!({"name": "Server", "limit": 0}),
            "INVALID_ARGUMENT: limit must between",
        ),
        (
            json!({"name": "Server", "view": "files"}),
            "INVALID_ARGUMENT: view \"files\" is not available here",
        ),
        (
            json!({"name": "Server", "repo": "nope"}),
            "REPOSITORY_NOT_FOUND: repository \"nope\" is not in the published graph",
        ),
    ] {
        let refusal = client.refused("find_symbol", arguments);
        let expected = message.replace("must between", "must be between");
        assert!(refusal.starts_with(&expected), "{refusal}");
    }
}

#[test]
fn pagination_walks_the_whole_answer_and_cursors_fail_closed() {
    let dir = workspace(true);
    let mut client = Client::start(dir.path());
    let whole = client.ok(
        "find_symbol",
        json!({"name": "e", "mode": "substring", "limit": 500, "view": "full"}),
    );
    let expected: Vec<Value> = whole["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["stable_key"].clone())
        .collect();
    assert!(expected.len() > 20);
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut arguments = json!({"name": "e", "mode": "substring", "limit": 7, "view": "full"});
        if let Some(cursor) = &cursor {
            arguments["cursor"] = json!(cursor);
        }
        let page = client.ok("find_symbol", arguments);
        seen.extend(
            page["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["stable_key"].clone()),
        );
        match page["next_cursor"].as_str() {
            Some(next) => {
                assert_eq!(page["truncated"], true);
                assert!(next.len() <= 32, "{next}");
                cursor = Some(next.to_string());
            }
            None => break,
        }
    }
    assert_eq!(seen, expected, "no row skipped or repeated");

    let first = client.ok(
        "find_symbol",
        json!({"name": "e", "mode": "substring", "limit": 7}),
    );
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    assert!(
        first["guidance"]
            .as_str()
            .unwrap()
            .starts_with("showing 7 of")
    );
    // The view is not part of the identity; the query is.
    client.ok(
        "find_symbol",
        json!({"name": "e", "mode": "substring", "limit": 3, "view": "full", "cursor": cursor}),
    );
    let other = client.refused(
        "find_symbol",
        json!({"name": "e", "mode": "prefix", "cursor": cursor}),
    );
    assert!(other.starts_with("CURSOR_INVALID:"), "{other}");
    let mut edited = cursor.clone().into_bytes();
    edited[10] = if edited[10] == b'A' { b'B' } else { b'A' };
    let edited = String::from_utf8(edited).unwrap();
    assert!(
        client
            .refused(
                "find_symbol",
                json!({"name": "e", "mode": "substring", "cursor": edited})
            )
            .starts_with("CURSOR_INVALID:")
    );

    // A generation published by another process is served without a restart, and the old
    // cursor has expired.
    reindex(dir.path());
    let expired = client.refused(
        "find_symbol",
        json!({"name": "e", "mode": "substring", "cursor": cursor}),
    );
    assert!(expired.starts_with("CURSOR_SNAPSHOT_EXPIRED:"), "{expired}");
    let page = client.ok("find_symbol", json!({"name": "Server"}));
    assert_eq!(page["snapshot_id"], 2);
}

#[test]
fn get_symbol_selectors_and_their_errors() {
    let dir = workspace(true);
    let mut client = Client::start(dir.path());
    let answer = client.ok(
        "get_symbol",
        json!({"repository": "go", "path": "server/server.go", "qualified_name": "Server.Start"}),
    );
    let row = &answer["results"];
    assert_eq!(row["package_name"], "example.com/gosvc/server");
    assert_eq!(row["module_path"], "example.com/gosvc");
    assert_eq!(row["signature"], "func (s *Server) Start() error");
    assert_eq!(row["parent"], "Server");
    assert_eq!(
        (answer["total"].as_u64(), answer["returned"].as_u64()),
        (Some(1), Some(1))
    );
    let key = row["stable_key"].as_str().unwrap().to_string();
    let by_key = client.ok("get_symbol", json!({"stable_key": key}));
    assert_eq!(by_key["results"], answer["results"]);
    // The published identity is exactly what the key hashes.
    let detailed = client.ok(
        "get_symbol",
        json!({"stable_key": key, "response_format": "detailed"}),
    );
    let identity = detailed["results"]["canonical_identity"].as_str().unwrap();
    assert!(
        identity.starts_with("luque-stable-key\u{0}version=1\u{0}language=2:go"),
        "{identity:?}"
    );
    assert_eq!(
        kivgraph_facts::encode_base32(blake3::hash(identity.as_bytes()).as_bytes()),
        key
    );
    // A directory narrows too.
    client.ok(
        "get_symbol",
        json!({"repository": "go", "path": "server/", "qualified_name": "Server.Start"}),
    );

    let cases = [
        (
            json!({}),
            "INVALID_ARGUMENT: one of stable_key or qualified_name is required",
        ),
        (
            json!({"stable_key": key, "qualified_name": "Server"}),
            "INVALID_ARGUMENT: pass either stable_key or qualified_name, not both",
        ),
        (
            json!({"stable_key": key, "repository": "go"}),
            "INVALID_ARGUMENT: repository and path narrow a qualified_name; a stable_key already names one symbol",
        ),
        (
            json!({"qualified_name": "Server", "path": "server/server.go"}),
            "INVALID_ARGUMENT: path is repository-relative, so it requires repository",
        ),
        (
            json!({"stable_key": format!(" {key}")}),
            "INVALID_ARGUMENT: stable_key must not carry surrounding whitespace",
        ),
        (
            json!({"qualified_name": "Server", "repository": "go", "path": "/etc"}),
            "INVALID_ARGUMENT: path \"/etc\" must be repository-relative",
        ),
        (
            json!({"qualified_name": "Server", "repository": "go", "path": "a/../b"}),
            "INVALID_ARGUMENT: path \"a/../b\" must be repository-relative",
        ),
        (
            json!({"qualified_name": "NoSuchThing", "repository": "go"}),
            "SYMBOL_NOT_FOUND: qualified name \"NoSuchThing\" was not found under go; call it without repository and path to search the whole graph",
        ),
        (
            json!({"qualified_name": "NoSuchThing"}),
            "SYMBOL_NOT_FOUND: qualified name \"NoSuchThing\" was not found",
        ),
        (
            json!({"qualified_name": "Server", "repository": "nope"}),
            "REPOSITORY_NOT_FOUND: repository \"nope\" is not in the published graph",
        ),
        (
            json!({"qualified_name": "Server"}),
            "AMBIGUOUS_SYMBOL: qualified name \"Server\" names 3 symbols; narrow with repository and path: go client/client.go:4-6, go server/server.go:7-12, ts src/server.ts:2-4",
        ),
    ];
    for (arguments, expected) in cases {
        let refusal = client.refused("get_symbol", arguments);
        assert!(
            refusal.starts_with(expected),
            "{refusal}\n  expected {expected}"
        );
    }
    // Three overloads in one file: only the keys can separate them.
    let refusal = client.refused(
        "get_symbol",
        json!({"repository": "ts", "path": "src/parser.ts", "qualified_name": "format"}),
    );
    assert!(refusal.starts_with("AMBIGUOUS_SYMBOL: qualified name \"format\" names 3 symbols in ts src/parser.ts, so only a stable_key separates them: "), "{refusal}");
}

#[test]
fn oversized_arguments_are_refused_without_being_quoted_back() {
    let dir = workspace(true);
    let mut client = Client::start(dir.path());
    let long = "a".repeat(100_000);
    let refusal = client.refused("find_symbol", json!({ "name": long }));
    assert_eq!(
        refusal,
        "INVALID_ARGUMENT: argument `name` holds a string of 100000 bytes; the longest accepted is 4096"
    );
    // Nested (index_project's list of projects) and as a name, shortened on a character
    // boundary.
    let refusal = client.refused(
        "index_project",
        json!({"projects": [{"name": "x", "path": long}]}),
    );
    assert!(
        refusal.starts_with("INVALID_ARGUMENT: argument `projects` holds a string of 100000 bytes"),
        "{refusal}"
    );
    let key = "é".repeat(3000);
    let refusal = client.refused("get_file_outline", json!({ key: 1 }));
    assert_eq!(
        refusal,
        format!(
            "INVALID_ARGUMENT: argument `{}…` holds a string of 6000 bytes; the longest accepted is 4096",
            "é".repeat(64)
        )
    );
    // At the bound, an argument is read as usual: nothing is declared under that name.
    let answer = client.ok("find_symbol", json!({ "name": "a".repeat(4096) }));
    assert_eq!(answer["total"], 0);
    // And the server answers on.
    assert_eq!(
        client.ok(
            "find_symbol",
            json!({"name": "NewServer", "repo": "go", "path_prefix": "server/"})
        )["total"],
        1
    );
}

#[test]
fn list_repositories_reports_positions() {
    let dir = workspace(true);
    let mut client = Client::start(dir.path());
    let answer = client.ok("list_repositories", json!({}));
    assert_eq!(answer["total"], 4);
    let names: Vec<&str> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["go", "ts", "rs", "py"]);
    let first = &answer["results"][0];
    assert_eq!(first["moved"], false);
    // The fixtures are not checkouts: no commit is claimed, and the row says why.
    assert!(first.get("indexed_commit").is_none());
    assert!(
        first["moved_detail"]
            .as_str()
            .unwrap()
            .contains("no commit was recorded"),
        "{first}"
    );
    let page = client.ok("list_repositories", json!({"limit": 3}));
    let rest = client.ok(
        "list_repositories",
        json!({"limit": 3, "cursor": page["next_cursor"]}),
    );
    assert_eq!(rest["results"][0]["name"], "py");
}

#[test]
fn get_file_outline_views() {
    let dir = workspace(true);
    let mut client = Client::start(dir.path());
    let (text, _) = client.call(
        "get_file_outline",
        json!({"repository": "go", "path": "server/lifecycle.go"}),
    );
    assert_eq!(
        text,
        r#"{"snapshot_id":1,"total":2,"returned":2,"results":{"repository":"go","path":"server/lifecycle.go","package":"example.com/gosvc example.com/gosvc/server","kind":"method","files":[{"file":"server/lifecycle.go","at":[["Server.Stop@4","exported"],["Server.status@6","unexported"]]}]}}"#
    );
    // A directory: members are off by default, counted in total, and the page is complete.
    let directory = client.ok(
        "get_file_outline",
        json!({"repository": "go", "path": "server"}),
    );
    assert_eq!(
        (directory["total"].as_u64(), directory["returned"].as_u64()),
        (Some(15), Some(12))
    );
    assert!(directory.get("truncated").is_none() && directory.get("next_cursor").is_none());
    let with_members = client.ok(
        "get_file_outline",
        json!({"repository": "go", "path": "server/", "include_members": true, "view": "full"}),
    );
    assert_eq!(with_members["returned"], 15);
    assert_eq!(with_members["results"]["languages"], json!(["go"]));
    let files = client.ok(
        "get_file_outline",
        json!({"repository": "go", "path": "server", "view": "files"}),
    );
    assert_eq!(
        files["results"]["files"],
        json!([{"file": "server/server.go", "declarations": 10}, {"file": "server/lifecycle.go", "declarations": 2}])
    );
    let kinds = client.ok(
        "get_file_outline",
        json!({"repository": "go", "path": "server", "kind": "method"}),
    );
    assert_eq!(kinds["results"]["kind"], "method");
    // Paging by two walks every row once.
    let mut seen = 0;
    let mut cursor = Value::Null;
    loop {
        let mut arguments =
            json!({"repository": "go", "path": "server", "include_members": true, "limit": 2});
        if !cursor.is_null() {
            arguments["cursor"] = cursor.clone();
        }
        let page = client.ok("get_file_outline", arguments);
        seen += page["returned"].as_u64().unwrap();
        cursor = page.get("next_cursor").cloned().unwrap_or(Value::Null);
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(seen, 15);
    let missing = client.refused(
        "get_file_outline",
        json!({"repository": "go", "path": "nowhere"}),
    );
    assert_eq!(
        missing,
        "SYMBOL_NOT_FOUND: path \"nowhere\" is not in repository \"go\" in the published graph"
    );
    assert!(
        client
            .refused(
                "get_file_outline",
                json!({"repository": "go", "path": "../x"})
            )
            .starts_with("INVALID_ARGUMENT: path \"../x\" must be repository-relative")
    );
    let bounded = client.ok(
        "get_file_outline",
        json!({"repository": "go", "path": "broken"}),
    );
    assert_eq!(bounded["completeness"]["verdict"], "LOWER_BOUND");
    assert!(
        bounded["completeness"].get("fallback").is_none(),
        "no name, nothing to grep for"
    );
}

#[test]
fn get_source_reads_once_reanchors_and_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let repository = dir.path().join("gosvc");
    copy_tree(&fixtures().join("gosvc"), &repository);
    init_and_index(dir.path(), "go", &repository);
    let mut client = Client::start(dir.path());
    let select = |qualified: &str, path: &str| json!({"repository": "go", "path": path, "qualified_name": qualified});
    let (text, error) = client.call(
        "get_source",
        json!({"symbols": [select("NewServer", "server/server.go"), select("Server.Stop", "server/lifecycle.go")]}),
    );
    assert!(!error);
    assert_eq!(
        text,
        "snapshot 1 · 2 bodies · context 0\n@ go server/server.go:29-31 func NewServer\nfunc NewServer(addr string) *Server {\n\treturn &Server{Addr: addr}\n}\n@ go server/lifecycle.go:4-4 method Server.Stop\nfunc (s *Server) Stop() {}\n"
    );
    let (text, _) = client.call(
        "get_source",
        json!({"symbols": [select("Server.Stop", "server/lifecycle.go")], "context_lines": 1}),
    );
    assert!(text.contains("// Stop closes the listener. Declared apart from the type.\nfunc (s *Server) Stop() {}\n\n"), "{text}");

    // The file moved under the index: the declaration is found again, or its row is refused.
    let server = repository.join("server/server.go");
    let original = std::fs::read_to_string(&server).unwrap();
    std::fs::write(
        &server,
        original.replacen("import \"io\"", "import \"io\"\n\n// Two more lines.", 1),
    )
    .unwrap();
    let (text, _) = client.call(
        "get_source",
        json!({"symbols": [select("NewServer", "server/server.go"), select("Server.Stop", "server/lifecycle.go")]}),
    );
    assert!(text.starts_with("snapshot 1 · 2 bodies · context 0\n@ go server/server.go:29-31 func NewServer [file changed, re-anchored +2]\nfunc NewServer(addr string) *Server {"), "{text}");
    std::fs::write(
        &server,
        original.replace(
            "func NewServer(addr string) *Server {\n\treturn &Server{Addr: addr}\n}",
            "",
        ),
    )
    .unwrap();
    let (text, error) = client.call(
        "get_source",
        json!({"symbols": [select("NewServer", "server/server.go"), select("Server.Stop", "server/lifecycle.go")]}),
    );
    assert!(!error);
    assert!(text.starts_with("snapshot 1 · 1 of 2 bodies · context 0\n! go server/server.go:29-31 func NewServer: the declaration no longer exists in the file\n@ go server/lifecycle.go:4-4"), "{text}");

    // A path that now crosses a symbolic link yields no bytes, even to a file that exists.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::rename(repository.join("server"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, repository.join("server")).unwrap();
    let (text, _) = client.call(
        "get_source",
        json!({"symbols": [select("Server.Stop", "server/lifecycle.go")]}),
    );
    assert!(
        text.contains(
            "! go server/lifecycle.go:4-4 method Server.Stop: the path crosses a symbolic link"
        ),
        "{text}"
    );

    for (arguments, expected) in [
        (
            json!({"symbols": []}),
            "INVALID_ARGUMENT: symbols must hold between 1 and 20 entries, got 0",
        ),
        (
            json!({"symbols": [select("NewServer", "server/server.go")], "context_lines": 101}),
            "INVALID_ARGUMENT: context_lines must be between 0 and 100, got 101",
        ),
        (
            json!({"symbols": [{"qualified_name": "Nope"}]}),
            "SYMBOL_NOT_FOUND: qualified name \"Nope\" was not found",
        ),
    ] {
        assert_eq!(client.refused("get_source", arguments), expected);
    }
}

#[test]
fn graph_status_counts_resolved_calls_and_declared_holes() {
    let (dir, _) = gocalls();
    let mut client = Client::start(dir.path());
    let results = client.ok("graph_status", json!({}))["results"].clone();
    // `server/server_ext_test.go` is not compiled without `go.include_tests`: not counted.
    assert_eq!(
        results["edges_by_kind"],
        json!([
            {"key": "ASSIGNS_FUNCTION", "count": 1},
            {"key": "CALLS_DIRECT", "count": 11},
            {"key": "CONTAINS_FILE", "count": 4},
            {"key": "CONTAINS_PACKAGE", "count": 2},
            {"key": "DEFINES", "count": 24},
            {"key": "METHOD_OF", "count": 4},
            {"key": "PACKAGE_DEPENDS_ON", "count": 1},
            {"key": "PASSES_AS_CALLBACK", "count": 1},
            {"key": "RETURNS_FUNCTION", "count": 1},
            {"key": "TYPE_USES", "count": 12}
        ])
    );
    assert_eq!(
        results["evidence"], 27,
        "one observation per call site, type use and value use, and the import client makes of server"
    );
    assert_eq!(
        results["unresolved_by_reason"],
        json!([
            {"key": "MODULE_PROVIDER_NOT_FOUND", "count": 1},
            {"key": "NAME_NOT_RESOLVED", "count": 3},
            {"key": "RECEIVER_TYPE_UNKNOWN", "count": 1}
        ])
    );
}

#[test]
fn graph_status_reports_what_was_published() {
    let dir = workspace(true);
    let mut client = Client::start(dir.path());
    let status = client.ok("graph_status", json!({}));
    let results = &status["results"];
    assert_eq!(results["status"], "ready");
    assert_eq!(results["snapshot_id"], 1);
    assert_eq!(
        (results["repositories"].as_u64(), results["files"].as_u64()),
        (Some(4), Some(18))
    );
    assert_eq!(
        results["unresolved_by_reason"],
        json!([{"key": "PARSE_ERROR", "count": 4}])
    );
    let kinds: Vec<&str> = results["edges_by_kind"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["key"].as_str().unwrap())
        .collect();
    // The exact analyzers add what syntax alone does not bind: a property read
    // (`input.name`, a reference: a property is data, never a function assigned), a local
    // export clause, calls on values.
    assert_eq!(
        kinds,
        vec![
            "CALLS_DIRECT",
            "CONTAINS_FILE",
            "CONTAINS_PACKAGE",
            "DEFINES",
            "EXPORTS",
            "IMPORTS_SYMBOL",
            "METHOD_OF",
            "PACKAGE_DEPENDS_ON",
            "REFERENCES",
            "TYPE_USES"
        ]
    );
    let defines = &results["edges_by_kind"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["key"] == "DEFINES")
        .unwrap()["count"];
    assert_eq!(
        defines, &results["symbols"],
        "every symbol has exactly one DEFINES"
    );
    assert_eq!(results["repositories_moved"], 0);
    assert_eq!(results["repository_freshness"].as_array().unwrap().len(), 4);
    assert_eq!(results["storage"]["state"], "read_only");
    assert_eq!(
        results["schema_version"],
        kivgraph_facts::GRAPH_SCHEMA_VERSION
    );
    assert_eq!(results["schema_outdated"], false);
    assert!(results.get("schema_version_expected").is_none());
    assert!(
        results.get("metrics").is_none(),
        "nothing measured, nothing reported"
    );
    assert!(
        client
            .refused("graph_status", json!({"verbose": true}))
            .starts_with("INVALID_ARGUMENT: arguments: unknown field `verbose`")
    );
}

#[test]
fn index_project_consent_progress_and_failure() {
    let project = || json!({"name": "go", "path": fixtures().join("gosvc"), "languages": ["go"]});
    // A client that can ask its user is asked, naming the project; a refusal stops everything.
    let dir = workspace(false);
    let mut client = Client::start_with(dir.path(), json!({"elicitation": {}}));
    let mut asked = Vec::new();
    let declined = client.exchange(
        "tools/call",
        json!({"name": "index_project", "arguments": {"projects": [project()]}}),
        &mut |request| {
            asked.push(
                request["params"]["message"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            );
            json!({"action": "decline"})
        },
        &mut Vec::new(),
    );
    assert_eq!(
        declined["content"][0]["text"],
        "PERMISSION_DENIED: project indexing was not approved"
    );
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0].contains("go (") && asked[0].contains("gosvc"),
        "{}",
        asked[0]
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("repositories.yaml"))
            .unwrap()
            .matches("name:")
            .count(),
        4,
        "nothing registered"
    );

    // Accepted, with a progress token: progress arrives, then the generation.
    let mut notifications = Vec::new();
    let accepted = client.exchange(
        "tools/call",
        json!({"name": "index_project", "arguments": {"projects": [project()]}, "_meta": {"progressToken": "p1"}}),
        &mut |_| json!({"action": "accept", "content": {}}),
        &mut notifications,
    );
    assert_eq!(accepted["isError"], false, "{accepted}");
    let progress: Vec<f64> = notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .map(|n| n["params"]["progress"].as_f64().unwrap())
        .collect();
    assert!(!progress.is_empty());
    assert!(
        progress.windows(2).all(|w| w[0] < w[1]),
        "progress counts up: {progress:?}"
    );

    // A pass that fails restores the registry and reports why.
    let dir = workspace(true);
    let registry = std::fs::read(dir.path().join("repositories.yaml")).unwrap();
    let store = kivgraph_store::GenerationStore::new(dir.path().join("state"));
    let lock = store.lock().unwrap();
    let mut client = Client::start(dir.path());
    let other = json!({"name": "extra", "path": fixtures().join("rscore"), "languages": ["rust"]});
    let refusal = client.refused(
        "index_project",
        json!({"projects": [other], "confirmed": true}),
    );
    assert_eq!(
        refusal,
        "INDEXING_FAILED: another process is publishing into this generation store"
    );
    assert_eq!(
        std::fs::read(dir.path().join("repositories.yaml")).unwrap(),
        registry,
        "the registry is restored"
    );
    drop(lock);
    let conflict = client.refused("index_project", json!({"projects": [{"name": "go", "path": fixtures().join("rscore"), "languages": ["rust"]}], "confirmed": true}));
    assert!(
        conflict.starts_with("INVALID_ARGUMENT: project \"go\" is already registered at"),
        "{conflict}"
    );
}

#[test]
fn index_not_ready_snapshot_unavailable_and_a_rewound_store() {
    // No generation: a query tool called anyway answers INDEX_NOT_READY; graph_status reports
    // the empty store instead of failing.
    let dir = workspace(false);
    let mut client = Client::start(dir.path());
    assert_eq!(
        client.refused("find_symbol", json!({"name": "Server"})),
        "INDEX_NOT_READY: no graph is published yet: index a project with index_project, or run \"kivgraph index --full\""
    );
    let empty = client.ok("graph_status", json!({}));
    assert_eq!(
        (
            empty["results"]["status"].as_str(),
            empty["snapshot_id"].as_u64()
        ),
        (Some("empty"), None)
    );
    drop(client);

    // A generation whose snapshot cannot be read is not a crash, nor «never indexed»: every
    // tool says INDEX_NOT_READY with the reason and the remedies.
    reindex(dir.path());
    let snapshot = dir.path().join("state/generations/000001/snapshot.kgs");
    let bytes = std::fs::read(&snapshot).unwrap();
    std::fs::write(&snapshot, &bytes[..bytes.len() / 2]).unwrap();
    let mut client = Client::start(dir.path());
    let refusal = client.refused("find_symbol", json!({"name": "Server"}));
    assert!(
        refusal.starts_with("INDEX_NOT_READY: the published generation could not be read (generation 000001: snapshot is truncated"),
        "{refusal}"
    );
    drop(client);

    // A store rewound by clean: the server keeps answering from the graph it holds and says
    // so once in its log.
    std::fs::write(&snapshot, &bytes).unwrap();
    reindex(dir.path());
    let log = dir.path().join("serve.log");
    let mut client = Client::spawn(
        dir.path(),
        json!({}),
        Stdio::from(std::fs::File::create(&log).unwrap()),
    );
    assert_eq!(
        client.ok("find_symbol", json!({"name": "Server"}))["snapshot_id"],
        2
    );
    let clean = Command::new(binary())
        .args(["clean", "--yes", "--config"])
        .arg(dir.path().join("config.yaml"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&clean.stdout).contains("restart any running serve"));
    reindex(dir.path());
    assert_eq!(
        client.ok("find_symbol", json!({"name": "Server"}))["snapshot_id"],
        2
    );
    assert_eq!(
        client.ok("find_symbol", json!({"name": "Server"}))["snapshot_id"],
        2
    );
    drop(client);
    let log = std::fs::read_to_string(&log).unwrap();
    assert_eq!(log.matches("generation store was rewound to 000001 while serving 000002: restart to follow it again").count(), 1, "{log}");
}

#[test]
fn module_report_and_read_symbol_read_the_file_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let repository = dir.path().join("nav");
    std::fs::create_dir_all(repository.join("pkg")).unwrap();
    std::fs::write(repository.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(
        repository.join("pkg/a.py"),
        "import os\nfrom .util import helper\n\n# Attached comment.\ndef attached():\n    return 1\n\n# Detached comment.\n\ndef detached(x, y):\n    if x and y:\n        return 2\n    return 3\n\nclass Box:\n    def open(self):\n        return helper()\n",
    )
    .unwrap();
    std::fs::write(
        repository.join("b.ts"),
        "export function pick(a: string): string;\nexport function pick(a: number): number;\nexport function pick(a: any) { return a; }\n\nexport interface Shape { area(): number }\nexport function Shape() {}\n",
    )
    .unwrap();
    std::fs::write(repository.join("go.mod"), "module example.com/nav\n").unwrap();
    std::fs::write(repository.join("c.go"), "package nav\n\n// Run runs.\nfunc Run() {}\n\ntype S struct{}\n\n// Run runs S.\nfunc (s *S) Run() {}\n").unwrap();
    std::fs::write(
        repository.join("d.rs"),
        "/// Goes.\n#[inline]\npub fn go() {}\n",
    )
    .unwrap();
    let out = Command::new(binary())
        .args(["init", "--config"])
        .arg(dir.path().join("config.yaml"))
        .arg(format!("--repository=nav={}", repository.display()))
        .output()
        .unwrap();
    assert!(out.status.success());
    reindex(dir.path());
    let mut client = Client::start(dir.path());

    let report = client.ok("module_report", json!({"file": "pkg/a.py"}));
    assert_eq!(report["staleness"], "fresh");
    assert_eq!(report["semantic"]["source"], "published graph");
    assert_eq!(
        report["imports"],
        json!({"external": ["os"], "internal": [".util"]})
    );
    assert_eq!(
        report["summary"],
        json!({"imports": 2, "exports": 4, "symbols": 4})
    );
    let detached = report["api"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "detached")
        .unwrap();
    assert_eq!(
        (
            detached["complexity"].as_u64(),
            detached["startLine"].as_u64()
        ),
        (Some(3), Some(10))
    );
    assert_eq!(report["recommendedReads"][0]["symbol"], "detached");
    let (compact, _) = client.call(
        "module_report",
        json!({"file": repository.join("pkg/a.py"), "view": "compact"}),
    );
    assert!(
        compact
            .starts_with("pkg/a.py python 17L — 4 symbols, 4 exported | imports: os, util\nAPI:\n"),
        "{compact}"
    );

    let (attached, _) = client.call(
        "read_symbol",
        json!({"file": "pkg/a.py", "symbol": "attached"}),
    );
    assert_eq!(
        attached,
        "function attached  a.py:4-6  def attached()\n\n# Attached comment.\ndef attached():\n    return 1\n"
    );
    let (text, _) = client.call(
        "read_symbol",
        json!({"file": "pkg/a.py", "symbol": "detached"}),
    );
    assert!(
        text.starts_with("function detached  a.py:10-13"),
        "a blank line detaches the comment: {text}"
    );
    let (open, _) = client.call(
        "read_symbol",
        json!({"file": "pkg/a.py", "symbol": "Box.open"}),
    );
    assert!(open.starts_with("method Box.open  a.py:16-17"), "{open}");
    let (run, _) = client.call("read_symbol", json!({"file": "c.go", "symbol": "S.Run"}));
    assert!(
        run.starts_with("method S.Run  c.go:8-9") && run.contains("// Run runs S."),
        "{run}"
    );
    let (run, _) = client.call("read_symbol", json!({"file": "c.go", "symbol": "Run"}));
    assert!(
        run.starts_with("func Run  c.go:3-4") && run.contains("ambiguous: {count: 2"),
        "{run}"
    );
    let (go, _) = client.call("read_symbol", json!({"file": "d.rs", "symbol": "go"}));
    assert!(go.contains("/// Goes.\n#[inline]\npub fn go() {}"), "{go}");
    let (pick, _) = client.call("read_symbol", json!({"file": "b.ts", "symbol": "pick"}));
    assert!(
        pick.contains("ambiguous: {count: 3, kinds: [function]}"),
        "{pick}"
    );
    let (shape, _) = client.call(
        "read_symbol",
        json!({"file": "b.ts", "symbol": "Shape", "kind": "function"}),
    );
    assert!(
        shape.starts_with("function Shape  b.ts:6-6") && !shape.contains("ambiguous"),
        "{shape}"
    );
    assert_eq!(
        client.refused(
            "read_symbol",
            json!({"file": "pkg/a.py", "symbol": "atached"})
        ),
        "SYMBOL_NOT_FOUND: symbol \"atached\" was not found in pkg/a.py; did you mean: attached, detached?"
    );
    assert_eq!(
        client.refused(
            "read_symbol",
            json!({"file": "pkg/a.py", "symbol": "qqqqzzzzwww"})
        ),
        "SYMBOL_NOT_FOUND: symbol \"qqqqzzzzwww\" was not found in pkg/a.py"
    );
    assert!(
        client
            .refused(
                "read_symbol",
                json!({"file": "/etc/passwd", "symbol": "root"})
            )
            .contains("is outside every registered repository")
    );
    assert!(
        client
            .refused("module_report", json!({"file": "../nav/b.ts"}))
            .contains("is outside every registered repository")
    );

    // Edited after the index: still answered, from syntax, and said so.
    std::fs::write(repository.join("pkg/a.py"), "def fresh():\n    return 0\n").unwrap();
    let stale = client.ok("module_report", json!({"file": "pkg/a.py"}));
    assert_eq!(
        (
            stale["staleness"].as_str(),
            stale["semantic"]["source"].as_str()
        ),
        (Some("stale"), Some("syntax"))
    );
    assert_eq!(stale["api"][0]["name"], "fresh");
}

#[test]
fn find_by_intent_ranks_candidates_and_explains_empty_answers() {
    let dir = workspace(true);
    let mut client = Client::start(dir.path());
    let answer = client.ok(
        "find_by_intent",
        json!({"intent": "start the server listening", "limit": 3}),
    );
    // The two homonymous start methods, in Go and in TypeScript, carry both terms and lead.
    let mut leading: Vec<&str> = answer["results"]["symbols"].as_array().unwrap()[..2]
        .iter()
        .map(|r| r["file_path"].as_str().unwrap())
        .collect();
    leading.sort();
    assert_eq!(
        leading,
        vec!["server/server.go", "src/server.ts"],
        "{answer}"
    );
    assert_eq!(
        answer["results"]["unmatched_terms"],
        json!(["the", "listen"])
    );
    // Every row is a text candidate, and says so.
    assert_eq!(answer["results"]["match"], "lexical");
    assert!(
        answer["truncated"] == true
            && answer["guidance"]
                .as_str()
                .unwrap()
                .starts_with("showing 3 of")
    );

    let files = client.ok(
        "find_by_intent",
        json!({"intent": "start the server listening", "view": "files", "limit": 2}),
    );
    let mut opened: Vec<&str> = files["results"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    opened.sort();
    assert_eq!(
        opened,
        vec!["server/server.go", "src/server.ts"],
        "limit counts files"
    );

    let keywords = client.ok(
        "find_by_intent",
        json!({"intent": "where is the thing", "keywords": ["loader"], "kind": "class"}),
    );
    assert_eq!(
        keywords["results"]["symbols"][0]["qualified_name"],
        "Loader"
    );

    let nothing = client.ok("find_by_intent", json!({"intent": "quux zyzzyva"}));
    assert_eq!(nothing["total"], 0);
    assert!(
        nothing["guidance"]
            .as_str()
            .unwrap()
            .starts_with("no word of this question appears")
    );
    assert_eq!(
        nothing["results"]["unmatched_terms"],
        json!(["quux", "zyzzyva"])
    );
    let excluded = client.ok("find_by_intent", json!({"intent": "server", "repo": "py"}));
    assert_eq!(excluded["total"], 0);
    assert!(
        excluded["guidance"]
            .as_str()
            .unwrap()
            .starts_with("the terms matched symbols, but every one of them was excluded")
    );

    // Pages of one question never skip or repeat, whatever the page size.
    let mut walk = |limit: u64| {
        let mut seen = Vec::new();
        let mut cursor = Value::Null;
        loop {
            let mut arguments =
                json!({"intent": "server config parser", "limit": limit, "view": "full"});
            if !cursor.is_null() {
                arguments["cursor"] = cursor.clone();
            }
            let page = client.ok("find_by_intent", arguments);
            seen.extend(
                page["results"]["symbols"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| {
                        json!([
                            r["repository"],
                            r["file_path"],
                            r["qualified_name"],
                            r["start_line"]
                        ])
                    }),
            );
            cursor = page["next_cursor"].clone();
            if cursor.is_null() {
                return seen;
            }
        }
    };
    let (by_four, by_fifty) = (walk(4), walk(50));
    assert!(by_fifty.len() > 50);
    assert_eq!(by_four, by_fifty);
    assert!(
        client
            .refused("find_by_intent", json!({"intent": "x".repeat(401)}))
            .contains("longer than 400 characters")
    );
    assert!(
        client
            .refused("find_by_intent", json!({"intent": "x", "keywords": [" "]}))
            .starts_with("INVALID_ARGUMENT")
    );
    assert!(
        client
            .refused("find_by_intent", json!({"intent": "x", "limit": 51}))
            .starts_with("INVALID_ARGUMENT: limit must be between 1 and 50")
    );
}

#[test]
fn page_limits_come_from_the_configuration() {
    let dir = workspace(true);
    let config = dir.path().join("config.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}mcp:\n  default_limit: 2\n  maximum_limit: 3\n"),
    )
    .unwrap();
    let mut client = Client::start(dir.path());
    let page = client.ok("find_symbol", json!({"name": "e", "mode": "substring"}));
    assert_eq!(page["returned"], 2);
    assert_eq!(
        client.refused(
            "find_symbol",
            json!({"name": "e", "mode": "substring", "limit": 4})
        ),
        "INVALID_ARGUMENT: limit must be between 1 and 3, got 4"
    );
    let outline = client.ok(
        "get_file_outline",
        json!({"repository": "go", "path": "server"}),
    );
    assert!(
        outline["returned"].as_u64().unwrap() <= 3,
        "an outline's own default is capped by the maximum"
    );
}

#[test]
fn query_graph_answers_cypher_from_the_generations_database() {
    let (dir, _) = gocalls();
    let mut client = Client::start(dir.path());
    // The callers find_references proves, asked in Cypher: the same two, never the client's
    // homonym.
    let callers = client.ok(
        "query_graph",
        json!({"query": "MATCH (c:Symbol)-[e:CALLS_DIRECT]->(s:Symbol {name: $name, file_path: $path}) RETURN c.qualified_name, c.file_path, e.confidence ORDER BY c.qualified_name", "parameters": {"name": "NewServer", "path": "server/server.go"}}),
    );
    assert_eq!(
        callers,
        json!({"snapshot_id": 1, "total": 2, "returned": 2, "results": {
            "columns": ["c.qualified_name", "c.file_path", "e.confidence"],
            "rows": [["Run", "server/server.go", "STRUCTURAL_CERTAIN"], ["Start", "client/client.go", "STRUCTURAL_CERTAIN"]],
            "truncated": false}})
    );
    // The database holds what the snapshot serves: the same counts graph_status reports.
    let status = client.ok("graph_status", json!({}))["results"].clone();
    let count = |client: &mut Client, query: &str| {
        client.ok("query_graph", json!({ "query": query }))["results"]["rows"][0][0].clone()
    };
    for (label, field) in [
        ("Symbol", "symbols"),
        ("File", "files"),
        ("Package", "packages"),
        ("Evidence", "evidence"),
        ("Unresolved", "unresolved"),
    ] {
        let rows = count(&mut client, &format!("MATCH (n:{label}) RETURN count(n)"));
        assert_eq!(rows, status[field], "{label}");
    }
    let edges = count(&mut client, "MATCH ()-[r]->() RETURN count(r)");
    assert_eq!(edges, status["edges"]);
    let hole = client.ok(
        "query_graph",
        json!({"query": "MATCH (u:Unresolved {reason: 'RECEIVER_TYPE_UNKNOWN', requested_symbol: 'Start'}) RETURN u.file_path, u.start_line"}),
    );
    assert_eq!(hole["results"]["rows"], json!([["server/server.go", 14]]));
    // Bounded: rows by limit (the page says it is a floor), time by timeout_ms; writes refused.
    let page = client.ok(
        "query_graph",
        json!({"query": "UNWIND range(1, 5) AS x RETURN x", "limit": 2}),
    );
    assert_eq!(page["results"]["rows"], json!([[1], [2]]));
    assert_eq!(page["results"]["truncated"], true);
    assert!(
        page["guidance"]
            .as_str()
            .unwrap()
            .starts_with("more than 2 rows matched: this page is a floor")
    );
    assert_eq!(
        client.refused("query_graph", json!({"query": "UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b WITH a, b WHERE (a * b) % 7 = 3 RETURN count(*)", "timeout_ms": 100})),
        "TRAVERSAL_LIMIT_REACHED: the query ran past its time limit of 100 ms and was stopped"
    );
    assert_eq!(
        client.refused(
            "query_graph",
            json!({"query": "MATCH (s:Symbol) SET s.name = 'x' RETURN s"})
        ),
        "PERMISSION_DENIED: only reading queries are answered (MATCH, OPTIONAL MATCH, WITH, UNWIND, RETURN, CALL): the engine says this statement writes"
    );
    assert_eq!(
        client.refused(
            "query_graph",
            json!({"query": "CREATE (:Meta {name: 'a', value: 'b'})"})
        ),
        "PERMISSION_DENIED: only reading queries are answered (MATCH, OPTIONAL MATCH, WITH, UNWIND, RETURN, CALL): a statement starting with \"CREATE\" is not answered"
    );
    let invalid = client.refused(
        "query_graph",
        json!({"query": "MATCH (n:Nothing) RETURN n"}),
    );
    assert!(
        invalid.starts_with("INVALID_ARGUMENT: the query is not valid Cypher for this schema"),
        "{invalid}"
    );
    assert!(
        client
            .refused("query_graph", json!({"query": "RETURN 1", "limit": 5000}))
            .starts_with("INVALID_ARGUMENT: limit 5000")
    );
    // Nothing was written: the database still holds what publication proved.
    let callers = succeed(
        dir.path(),
        &[
            "graph",
            "query",
            "--param",
            "name=NewServer",
            "--param",
            "path=server/server.go",
            "MATCH (c:Symbol)-[:CALLS_DIRECT]->(s:Symbol {name: $name, file_path: $path}) RETURN DISTINCT c.name ORDER BY c.name",
        ],
    );
    assert_eq!(callers, "c.name\nRun\nStart\n");
}

#[test]
fn an_unreadable_snapshot_says_so_and_is_rebuilt_from_the_database() {
    let (dir, _) = gocalls();
    let root = dir.path().join("state/generations/000001/snapshot.kgs");
    let published = std::fs::read(&root).unwrap();
    std::fs::write(&root, b"not a snapshot").unwrap();
    let mut client = Client::start(dir.path());
    let refused = client.refused("find_symbol", json!({"name": "NewServer"}));
    assert!(
        refused.starts_with("INDEX_NOT_READY: the published generation could not be read (")
            && refused.ends_with("\"kivgraph snapshot\" rebuilds its snapshot from its canonical database, \"kivgraph rollback\" returns to the backup generation"),
        "{refused}"
    );
    let status = client.ok("graph_status", json!({}))["results"].clone();
    assert_eq!(status["status"], "empty");
    assert!(status["snapshot_unreadable"].is_string(), "{status}");

    succeed(dir.path(), &["snapshot"]);
    assert_eq!(std::fs::read(&root).unwrap(), published);
    // The same server answers again, from the rebuilt snapshot.
    let found = client.ok("find_symbol", json!({"name": "NewServer"}));
    assert_eq!(found["total"], 3);
}

#[test]
fn find_references_answers_one_hop_with_a_proven_verdict() {
    let (dir, fixture) = gocalls();
    let mut client = Client::start(dir.path());
    let fixture = fixture.canonicalize().unwrap();
    // Three declarations are named NewServer: a bare name is refused with their triples.
    assert_eq!(
        client.refused("find_references", json!({"name": "NewServer"})),
        "AMBIGUOUS_SYMBOL: name \"NewServer\" declares 3 symbols; repeat with the repository and path of the one you mean: gocalls:client/client.go:12, gocalls:client/client.go:29, gocalls:server/server.go:9"
    );
    // The server's NewServer: two resolved callers, never the client's homonym, and every
    // spelling of the name explained — `srv.NewServer` on a parameter declared `fakeServer`
    // is that type's method (rule G11) — so the answer is proven whole.
    let subject = json!({"name": "NewServer", "repository": "gocalls", "path": "server"});
    assert_eq!(
        client.ok("find_references", subject.clone()),
        json!({"snapshot_id": 1, "total": 2, "returned": 2, "coverage": {"exact": 2}, "completeness": {"verdict": "COMPLETE"}, "results": {
            "subject": "gocalls:server/server.go:9", "qn": "NewServer", "direction": "incoming",
            "edge_kinds_default_excluded": ["EXPORTS", "REEXPORTS"], "repository": "gocalls",
            "edge_kind": "CALLS_DIRECT", "kind": "func", "confidence": "STRUCTURAL_CERTAIN", "provenance": "TREE_SITTER_SYNTAX",
            "files": [{"file": "client/client.go", "at": ["Start@18-23"]}, {"file": "server/server.go", "at": ["Run@12-21"]}]}})
    );
    // Server.Start is called on `s`, which holds a call's result: no edge, a blind spot, and
    // an empty page that says it is a floor.
    let blind_spot = json!({"reason": "RECEIVER_TYPE_UNKNOWN", "repository": "gocalls", "path": "server/server.go", "line": 14, "requested_symbol": "Start", "detail": "the operand is a value whose type the syntax layer does not infer; only a type checker can bind this call"});
    let start = client.ok(
        "find_references",
        json!({"qualified_name": "Server.Start", "repository": "gocalls"}),
    );
    assert_eq!(start["total"], 0);
    assert_eq!(start["coverage"], json!({"unresolved_related": 1}));
    assert_eq!(
        start["completeness"],
        json!({"verdict": "LOWER_BOUND", "blind_spots": [blind_spot], "fallback": {"pattern": "\\bStart\\b", "paths": [fixture.join("server/server.go").display().to_string()]}})
    );
    assert!(
        start["guidance"]
            .as_str()
            .unwrap()
            .starts_with("no reference was resolved, but this is a floor")
    );
    let mut files = subject.clone();
    files["view"] = json!("files");
    assert_eq!(
        client.ok("find_references", files)["results"]["files"],
        json!([{"file": "gocalls/client/client.go", "count": 1}, {"file": "gocalls/server/server.go", "count": 1}])
    );
    let mut full = subject.clone();
    full["view"] = json!("full");
    full["limit"] = json!(1);
    let page = client.ok("find_references", full.clone());
    assert_eq!(
        (
            page["total"].clone(),
            page["truncated"].clone(),
            page["results"]["references"][0]["qualified_name"].clone()
        ),
        (json!(2), json!(true), json!("Start"))
    );
    full["cursor"] = page["next_cursor"].clone();
    let rest = client.ok("find_references", full.clone());
    assert_eq!(rest["results"]["references"][0]["qualified_name"], "Run");
    assert_eq!(rest["next_cursor"], Value::Null);
    // A cursor is bound to its query: another direction is another query.
    full["direction"] = json!("outgoing");
    assert!(
        client
            .refused("find_references", full)
            .starts_with("CURSOR_INVALID")
    );
    // Nobody calls Dial, and every spelling of the name is its declaration: a proven absence.
    assert_eq!(
        client.ok("find_references", json!({"name": "Dial"})),
        json!({"snapshot_id": 1, "total": 0, "returned": 0,
            "guidance": "nobody references this symbol: every spelling of its name in the indexed graph is its declaration or a resolved use, so this is an absence rather than a miss. find_cross_repo_consumers and graph_status show what was indexed",
            "completeness": {"verdict": "COMPLETE"},
            "results": {"subject": "gocalls:client/client.go:14", "qn": "Dial", "direction": "incoming", "edge_kinds_default_excluded": ["EXPORTS", "REEXPORTS"], "repository": "gocalls", "files": []}})
    );
    // A method called through its own receiver, and what Run reaches.
    assert_eq!(
        client.ok("find_references", json!({"name": "reset"}))["results"]["files"],
        json!([{"file": "server/pool.go", "at": ["Pool.Drain@11-15"]}])
    );
    let reached = client.ok(
        "find_references",
        json!({"name": "Run", "direction": "outgoing"}),
    );
    assert_eq!(reached["completeness"], json!({"verdict": "COMPLETE"}));
    assert_eq!(
        reached["results"]["files"],
        json!([{"file": "server/report.go", "at": ["report@3-7"]}, {"file": "server/server.go", "at": ["NewServer@9"]}])
    );
    // Filters that exclude everything leave an empty page, still charged with the name.
    assert_eq!(
        client.ok(
            "find_references",
            json!({"name": "Run", "direction": "outgoing", "confidence": "CANDIDATE"})
        )["total"],
        0
    );
    for (arguments, message) in [
        (
            json!({"name": "Run", "direction": "sideways"}),
            "INVALID_ARGUMENT: direction \"sideways\" is not one of incoming, outgoing",
        ),
        (
            json!({"name": "Run", "edge_kinds": ["*", "CALLS_DIRECT"]}),
            "INVALID_ARGUMENT: edge_kinds \"*\" stands alone: it asks for no filter, so it cannot be mixed with names",
        ),
        (
            json!({"name": "Run", "confidence": "EXACT"}),
            "INVALID_ARGUMENT: confidence \"EXACT\" is not one of EXACT_TYPECHECKED, EXACT_DECLARATION_MAPPED, EXACT_PACKAGE_MAPPED, STRUCTURAL_CERTAIN, CANDIDATE, UNRESOLVED",
        ),
        (
            json!({"name": "Run", "qualified_name": "Run"}),
            "INVALID_ARGUMENT: pass one of name, qualified_name or stable_key, not several",
        ),
        (
            json!({"name": "Run", "repo": "elsewhere"}),
            "REPOSITORY_NOT_FOUND",
        ),
        (
            json!({"name": "Nowhere"}),
            "SYMBOL_NOT_FOUND: no declaration named \"Nowhere\"; a name the graph knows only as an import or a re-export is not a declaration: name the repository and path that declares it",
        ),
    ] {
        let error = client.refused("find_references", arguments);
        assert!(error.starts_with(message), "{error}");
    }
    assert!(
        client
            .refused(
                "find_references",
                json!({"name": "Run", "edge_kinds": ["DEFINES"]})
            )
            .starts_with(
                "INVALID_ARGUMENT: edge_kinds entry \"DEFINES\" is not a reference relation"
            )
    );
}

#[test]
fn trace_and_blast_radius_walk_the_resolved_graph() {
    let (dir, fixture) = gocalls();
    let mut client = Client::start(dir.path());
    let fixture = fixture.canonicalize().unwrap();
    let server_go = fixture.join("server/server.go").display().to_string();
    // What Start reaches over calls: through the aliased import into the server package,
    // then across its files; the calls it could not bind on the way bound the answer.
    let trace = client.ok(
        "trace_dependencies",
        json!({"qualified_name": "Start", "repository": "gocalls", "path": "client", "edge_kinds": ["CALLS_DIRECT"]}),
    );
    assert_eq!(
        trace["results"]["files"],
        json!([
            {"file": "server/server.go", "at": [["NewServer@9", "1", "Start"], ["Run@12-21", "1", "Start"]]},
            {"file": "server/report.go", "at": [["report@3-7", "2", "Run"], ["cleanup@9", "3", "report"]]}
        ])
    );
    assert_eq!(
        (
            trace["results"]["reached"].clone(),
            trace["results"]["deepest_depth"].clone(),
            trace["results"]["via_confidence"].clone()
        ),
        (json!(4), json!(3), json!("STRUCTURAL_CERTAIN"))
    );
    let reasons: Vec<&str> = trace["completeness"]["blind_spots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["requested_symbol"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, vec!["Gone", "missing", "Start"]);
    assert_eq!(trace["completeness"]["verdict"], "LOWER_BOUND");
    // Over every relation, the ones the syntax layer does not extract for Go are named.
    let every = client.ok(
        "trace_dependencies",
        json!({"qualified_name": "Run", "repository": "gocalls", "depth": 1}),
    );
    assert_eq!(
        every["completeness"]["unextracted_relations"][0]["relations"][0],
        "ASSIGNS_FUNCTION"
    );
    assert_eq!(every["results"]["hop_depth"], 1);
    // A depth-one walk from report stops at the bound.
    let bounded = client.ok("trace_dependencies", json!({"qualified_name": "report", "repository": "gocalls", "path": "server/report.go", "depth": 1, "edge_kinds": ["CALLS_DIRECT"]}));
    assert_eq!(bounded["completeness"], json!({"verdict": "COMPLETE"}));
    assert_eq!(
        bounded["results"]["files"],
        json!([{"file": "server/report.go", "at": ["cleanup@9"]}])
    );
    // Who a change to cleanup reaches, three hops back, with the four axes.
    let blast = client.ok(
        "get_blast_radius",
        json!({"qualified_name": "cleanup", "repository": "gocalls", "edge_kinds": ["CALLS_DIRECT"]}),
    );
    assert_eq!(
        blast["results"],
        json!({
            "root": "gocalls:server/report.go:9", "depth": 3, "max_nodes": 5000,
            "kinds_default_excluded": ["field", "variable"], "affected": 5, "deepest_depth": 3,
            "by_depth": {"1": 1, "2": 2, "3": 2}, "by_kind": {"CALLS_DIRECT": 5}, "by_repository": {"gocalls": 5},
            "by_package": [{"package": "example.com/gocalls/client", "count": 1}, {"package": "example.com/gocalls/server", "count": 4}],
            "repository": "gocalls", "kind": "func", "via_kind": "CALLS_DIRECT", "via_provenance": "TREE_SITTER_SYNTAX",
            "files": [
                {"file": "server/report.go", "at": [["report@3-7", "1", "cleanup", "STRUCTURAL_CERTAIN"], ["register@12-17", "3", "retry", "STRUCTURAL_CERTAIN"]]},
                {"file": "server/server.go", "at": [["retry@27-29", "2", "report", "CANDIDATE"], ["Run@12-21", "2", "report", "STRUCTURAL_CERTAIN"]]},
                {"file": "client/client.go", "at": [["Start@18-23", "3", "Run", "STRUCTURAL_CERTAIN"]]}
            ]
        })
    );
    // retry's parameter spells `report` without a declaration or edge behind it.
    assert_eq!(
        blast["completeness"],
        json!({"verdict": "LOWER_BOUND", "unbound_uses": {"files": 1, "occurrences": 1}, "fallback": {"pattern": "\\bcleanup\\b", "paths": [server_go]}})
    );
    assert_eq!(blast["coverage"], json!({"exact": 4, "candidate": 1}));
    // kinds narrows what counts, echoed sorted; the walk itself is unchanged.
    let methods = client.ok("get_blast_radius", json!({"qualified_name": "cleanup", "repository": "gocalls", "kinds": ["method"], "edge_kinds": ["CALLS_DIRECT"], "view": "full"}));
    assert_eq!(
        (
            methods["results"]["kinds"].clone(),
            methods["results"]["affected"].clone()
        ),
        (json!(["method"]), json!(0))
    );
    // max_nodes bounds discovery, root included, and says so.
    let capped = client.ok("get_blast_radius", json!({"qualified_name": "cleanup", "repository": "gocalls", "max_nodes": 2, "edge_kinds": ["CALLS_DIRECT"]}));
    assert_eq!(
        (
            capped["results"]["affected"].clone(),
            capped["results"]["traversal_truncated"].clone()
        ),
        (json!(1), json!(true))
    );
    for (tool, arguments, message) in [
        (
            "trace_dependencies",
            json!({"qualified_name": "Run", "repository": "gocalls", "depth": 6}),
            "INVALID_ARGUMENT: depth must be between 1 and 5, got 6",
        ),
        (
            "trace_dependencies",
            json!({"qualified_name": "Run", "repository": "gocalls", "view": "files"}),
            "INVALID_ARGUMENT: view \"files\" is not available here",
        ),
        (
            "get_blast_radius",
            json!({"qualified_name": "Run", "repository": "gocalls", "max_nodes": 25001}),
            "INVALID_ARGUMENT: max_nodes must be between 1 and 25000, got 25001",
        ),
        (
            "get_blast_radius",
            json!({"qualified_name": "Run", "repository": "gocalls", "kinds": ["*", "func"]}),
            "INVALID_ARGUMENT: kinds \"*\" stands alone",
        ),
        (
            "get_blast_radius",
            json!({"qualified_name": "NewServer"}),
            "AMBIGUOUS_SYMBOL",
        ),
    ] {
        let error = client.refused(tool, arguments);
        assert!(error.starts_with(message), "{error}");
    }
}

/// Registers the named fixtures of `testdata/resolution` as Go repositories and indexes them
/// with the syntax layer alone (see `init_and_index`).
/// A walk that expands two declarations of one name counts that name's unexplained
/// spellings once: the files and occurrences a reader must still grep are the census's, not
/// a multiple of it.
#[test]
fn a_walk_counts_the_unbound_uses_of_each_name_once() {
    let dir = tempfile::tempdir().unwrap();
    let repository = dir.path().join("repeat");
    std::fs::create_dir_all(repository.join("lib")).unwrap();
    std::fs::write(
        repository.join("go.mod"),
        "module example.com/repeat\n\ngo 1.21\n",
    )
    .unwrap();
    std::fs::write(
        repository.join("lib/lib.go"),
        "package lib\n\ntype A struct{}\ntype B struct{}\n\nfunc helper() {}\n\nfunc (A) Close() { helper() }\nfunc (B) Close() { helper() }\n\n// The interface's Close is declared by no symbol: spelled, unexplained.\nfunc Shut(x interface{ Close() }) { x.Close() }\n",
    )
    .unwrap();
    init_and_index(dir.path(), "repeat", &repository);
    let mut client = Client::start(dir.path());
    let answer = client.ok(
        "get_blast_radius",
        json!({"repository": "repeat", "path": "lib/lib.go", "qualified_name": "helper", "kinds": ["*"]}),
    );
    assert_eq!(
        answer["completeness"]["unbound_uses"],
        json!({"files": 1, "occurrences": 1}),
        "{answer}"
    );
}
