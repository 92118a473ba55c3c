//! A small graph written and read back through a real LadybugDB: `lib` declares `Parse`
//! (with a doc comment full of quotes, commas and line breaks) and `Empty` (an empty doc,
//! which must not come back null), `cmd` calls `Parse` and asks for a `Gone` nobody declares.

use std::collections::BTreeSet;
use std::time::Duration;

use kivgraph_facts::*;
use serde_json::json;

use crate::*;

fn key(text: &str) -> StableKey {
    StableKey(*blake3::hash(text.as_bytes()).as_bytes())
}

fn span(line: u32) -> LineSpan {
    LineSpan {
        start_line: line,
        end_line: line + 1,
        start_byte: line * 8,
        end_byte: line * 8 + 7,
    }
}

fn graph() -> FactSet {
    let mut facts = FactSet::default();
    for repo in ["lib", "cmd"] {
        let package = key(&format!("{repo}/package"));
        facts.repositories.push(RepositoryFact {
            key: key(repo),
            name: repo.into(),
            root: format!("/src/{repo}"),
            languages: vec![Language::Go, Language::Python],
        });
        facts.packages.push(PackageFact {
            key: package,
            repository: repo.into(),
            language: Language::Go,
            name: format!("example.com/{repo}"),
            path: String::new(),
        });
        facts.files.push(FileFact {
            key: key(&format!("{repo}/main.go")),
            repository: repo.into(),
            path: "main.go".into(),
            language: Language::Go,
            package,
            fingerprint: Fingerprint::of(repo.as_bytes()),
            line_count: 30,
            byte_len: 240,
            parse_issues: vec![],
            mentions: vec![],
        });
        facts.edges.push(Edge {
            kind: EdgeKind::ContainsPackage,
            source: key(repo),
            target: package,
            confidence: Confidence::StructuralCertain,
            provenance: Provenance::PackageManifest,
            evidence: None,
        });
    }
    let declare = |repo: &str, name: &str, line: u32, doc: Option<&str>| SymbolFact {
        key: key(&format!("{repo}:{name}")),
        repository: repo.into(),
        language: Language::Go,
        package: key(&format!("{repo}/package")),
        file_path: "main.go".into(),
        name: name.into(),
        qualified_name: name.into(),
        kind: SymbolKind::Func,
        signature: format!("func {name}()"),
        exported: true,
        span: span(line),
        doc: doc.map(str::to_string),
        parent: None,
        key_module: String::new(),
        key_discriminator: String::new(),
    };
    facts.symbols = vec![
        declare("lib", "Parse", 3, Some("Parses \"a, b\"\nand more.")),
        declare("lib", "Empty", 9, Some("")),
        declare("cmd", "main", 4, None),
    ];
    facts.symbols[1].parent = Some(key("lib:Parse"));
    let observed = Evidence {
        key: evidence_key("cmd", "main.go", span(5)),
        repository: "cmd".into(),
        file_path: "main.go".into(),
        span: span(5),
    };
    facts.edges.push(Edge {
        kind: EdgeKind::CallsDirect,
        source: key("cmd:main"),
        target: key("lib:Parse"),
        confidence: Confidence::ExactTypechecked,
        provenance: Provenance::GoTypesUse,
        evidence: Some(observed.key),
    });
    facts.evidence.push(observed);
    facts.unresolved.push(UnresolvedReference {
        repository: "cmd".into(),
        language: Language::Go,
        reason: Reason::NameNotResolved,
        file_path: Some("main.go".into()),
        span: Some(span(6)),
        requested_symbol: Some("Gone".into()),
        requested_package: None,
        detail: "no declaration of Gone".into(),
    });
    facts.canonicalize();
    facts
}

fn written() -> (tempfile::TempDir, std::path::PathBuf, GraphCounts) {
    let dir = tempfile::tempdir().expect("scratch");
    let database = dir.path().join(DATABASE_FILE);
    let counts =
        write_database(&[(0, &graph())], &database, dir.path()).expect("the graph is written");
    (dir, database, counts)
}

const LIMITS: QueryLimits = QueryLimits {
    rows: 100,
    time: Duration::from_secs(10),
};

fn ask(reader: &GraphReader, cypher: &str) -> QueryAnswer {
    reader
        .query(cypher, &serde_json::Map::new(), LIMITS)
        .unwrap_or_else(|e| panic!("{cypher}: {e}"))
}

#[test]
fn the_database_holds_exactly_the_facts_written() {
    let (_dir, database, counts) = written();
    let expected = [
        ("Repository", 2),
        ("Package", 2),
        ("File", 2),
        ("Symbol", 3),
        ("Evidence", 1),
        ("Unresolved", 1),
        ("Meta", 1),
        ("CONTAINS_PACKAGE", 2),
        ("CALLS_DIRECT", 1),
        ("REFERENCES", 0),
    ];
    for (table, rows) in expected {
        assert_eq!(counts.of(table), rows, "{table} as written");
    }
    verify_database(&database, &counts).expect("read back equal");
    let reader = GraphReader::open(&database).expect("opens read-only");
    assert_eq!(reader.counts().expect("counts"), counts);

    let mut off = counts.clone();
    off.tables.insert("Symbol".into(), 4);
    let refused = verify_database(&database, &off).expect_err("a count differs");
    assert!(
        refused.to_string().contains("Symbol: 3 rows, 4 written"),
        "{refused}"
    );
}

#[test]
fn a_package_or_parent_no_row_holds_is_refused() {
    let dir = tempfile::tempdir().expect("scratch");
    let mut orphan = graph();
    orphan.symbols[0].package = key("nowhere/package");
    let mut adopted = graph();
    adopted.symbols[2].parent = Some(key("lib/package"));
    for (facts, named) in [(orphan, "a Package"), (adopted, "a Symbol")] {
        let database = dir.path().join(format!("{named}.lbdb"));
        let refused = write_database(&[(0, &facts)], &database, dir.path())
            .expect_err("a row names what the database would not hold");
        assert!(
            refused
                .to_string()
                .contains(&format!("is named as {named} where no")),
            "{refused}"
        );
    }
}

#[test]
fn texts_and_nulls_come_back_as_written() {
    let (_dir, database, _) = written();
    let reader = GraphReader::open(&database).expect("opens");
    let answer = ask(
        &reader,
        "MATCH (s:Symbol) OPTIONAL MATCH (p:Symbol {id: s.parent_id}) \
         RETURN s.name, s.doc, p.name ORDER BY s.name",
    );
    assert_eq!(answer.columns, ["s.name", "s.doc", "p.name"]);
    assert_eq!(
        json!(answer.rows),
        json!([
            ["Empty", "", "Parse"],
            ["Parse", "Parses \"a, b\"\nand more.", null],
            ["main", null, null]
        ])
    );
    let languages = ask(
        &reader,
        "MATCH (r:Repository {name: 'lib'}) RETURN r.languages",
    );
    assert_eq!(json!(languages.rows), json!([["go,python"]]));
}

#[test]
fn a_cross_repository_caller_is_one_query_away() {
    let (_dir, database, _) = written();
    let reader = GraphReader::open(&database).expect("opens");
    let mut parameters = serde_json::Map::new();
    parameters.insert("name".into(), json!("Parse"));
    let answer = reader
        .query(
            "MATCH (caller:Symbol)-[e:CALLS_DIRECT]->(callee:Symbol {name: $name}) \
             MATCH (ev:Evidence {id: e.evidence}) \
             MATCH (f:File {repository: ev.repository, path: ev.file_path}) \
             RETURN caller.repository, caller.name, e.confidence, f.path, ev.start_line",
            &parameters,
            LIMITS,
        )
        .expect("answers");
    assert_eq!(
        json!(answer.rows),
        json!([["cmd", "main", "EXACT_TYPECHECKED", "main.go", 5]])
    );
    assert!(!answer.truncated);
    let holes = ask(
        &reader,
        "MATCH (u:Unresolved) RETURN u.reason, u.requested_symbol, u.start_line",
    );
    assert_eq!(json!(holes.rows), json!([["NAME_NOT_RESOLVED", "Gone", 6]]));
}

#[test]
fn a_node_named_by_its_key_is_found_by_the_id_bound_beside_it() {
    let (_dir, database, _) = written();
    let reader = GraphReader::open(&database).expect("opens");
    let parse = key("lib:Parse");
    let ask_with = |query: &str, parameters: serde_json::Value| {
        let parameters = parameters.as_object().expect("an object").clone();
        reader.query(query, &parameters, LIMITS).expect(query)
    };
    let one = ask_with(
        "MATCH (s:Symbol {id: $k_id}) RETURN s.name, s.key = $k",
        json!({"k": parse.to_string()}),
    );
    assert_eq!(json!(one.rows), json!([["Parse", true]]));
    let many = ask_with(
        "MATCH (s:Symbol) WHERE s.id IN $ks_id RETURN s.name ORDER BY s.name",
        json!({"ks": [parse.to_string(), key("cmd:main").to_string()]}),
    );
    assert_eq!(json!(many.rows), json!([["Parse"], ["main"]]));
    // What the query binds itself is left as it is; text that is not a key binds nothing.
    let own = ask_with(
        "MATCH (s:Symbol {id: $k_id}) RETURN s.name",
        json!({"k": parse.to_string(), "k_id": 7}),
    );
    assert!(own.rows.is_empty());
    let parameters = json!({"k": "Parse"})
        .as_object()
        .expect("an object")
        .clone();
    let unbound = reader.query(
        "MATCH (s:Symbol {id: $k_id}) RETURN s.name",
        &parameters,
        LIMITS,
    );
    assert!(
        matches!(unbound, Err(QueryRefusal::Invalid(_))),
        "{unbound:?}"
    );
}

#[test]
fn writing_statements_are_refused_before_they_run() {
    let (dir, database, counts) = written();
    let reader = GraphReader::open(&database).expect("opens");
    let export = dir.path().join("out.csv");
    for statement in [
        "CREATE (:Meta {name: 'x', value: 'y'})".to_string(),
        "MATCH (s:Symbol) SET s.name = 'renamed'".to_string(),
        "MATCH (s:Symbol) DETACH DELETE s".to_string(),
        format!(
            "COPY (MATCH (s:Symbol) RETURN s.name) TO '{}'",
            export.display()
        ),
        "LOAD FROM '/etc/passwd' RETURN *".to_string(),
        "  drop table Symbol".to_string(),
    ] {
        let refused = reader
            .query(&statement, &serde_json::Map::new(), LIMITS)
            .expect_err(&statement);
        assert!(
            matches!(refused, QueryRefusal::Writes(_)),
            "{statement}: {refused}"
        );
    }
    assert!(!export.exists());
    drop(reader);
    verify_database(&database, &counts).expect("nothing changed");
}

#[test]
fn a_runaway_query_is_stopped_and_rows_are_bounded() {
    let (_dir, database, _) = written();
    let reader = GraphReader::open(&database).expect("opens");
    let started = std::time::Instant::now();
    let refused = reader
        .query(
            "UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b WITH a, b WHERE (a * b) % 7 = 3 RETURN count(*)",
            &serde_json::Map::new(),
            QueryLimits {
                rows: 10,
                time: Duration::from_millis(200),
            },
        )
        .expect_err("runs past its limit");
    assert!(matches!(refused, QueryRefusal::TimedOut(200)), "{refused}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let bounded = reader
        .query(
            "UNWIND range(1, 10) AS x RETURN x",
            &serde_json::Map::new(),
            QueryLimits {
                rows: 3,
                time: Duration::from_secs(5),
            },
        )
        .expect("answers");
    assert_eq!(json!(bounded.rows), json!([[1], [2], [3]]));
    assert!(bounded.truncated);
    let invalid = reader
        .query(
            "MATCH (n:Nothing) RETURN n",
            &serde_json::Map::new(),
            LIMITS,
        )
        .expect_err("no such table");
    assert!(matches!(invalid, QueryRefusal::Invalid(_)), "{invalid}");
}

#[test]
fn a_database_is_written_once() {
    let (dir, database, _) = written();
    let again = write_database(&[(0, &graph())], &database, dir.path()).expect_err("exists");
    assert!(matches!(again, GraphDbError::Exists(_)), "{again}");
}

#[test]
fn the_pages_read_back_are_the_pages_written() {
    let dir = tempfile::tempdir().expect("scratch");
    let database = dir.path().join(DATABASE_FILE);
    let mut other = graph();
    other.files[0].parse_issues.push(ParseIssue {
        line: 2,
        column: 7,
        message: "unexpected `}`, \"here\"".into(),
        hidden_names: vec!["Hidden".into()],
    });
    other.files[0].mentions = vec![
        Mention {
            name: "Parse".into(),
            count: 2,
        },
        Mention {
            name: "main".into(),
            count: 1,
        },
    ];
    other.canonicalize();
    write_database(&[(2, &other)], &database, dir.path()).expect("written");
    let pages = GraphReader::open(&database)
        .expect("opens")
        .pages(4)
        .expect("reads back");
    let only_repositories = FactSet {
        repositories: other.repositories.clone(),
        ..FactSet::default()
    };
    assert_eq!(
        pages,
        vec![
            (0, only_repositories.clone()),
            (1, only_repositories.clone()),
            (2, other),
            (3, only_repositories)
        ]
    );
}

#[test]
fn pages_are_read_back_whichever_read_holds_them() {
    // Eight pages a read: pages 2 and 9 come back from two reads, and so does the edge
    // between them.
    let dir = tempfile::tempdir().expect("scratch");
    let database = dir.path().join(DATABASE_FILE);
    let halves = split(&graph());
    let placed = [(2, halves[0].1.clone()), (9, halves[1].1.clone())];
    write_database(&borrowed(&placed), &database, dir.path()).expect("written");
    let mut pages = GraphReader::open(&database)
        .expect("opens")
        .pages(12)
        .expect("reads back");
    assert_eq!(pages.len(), 12);
    assert_eq!(pages.remove(9), placed[1]);
    assert_eq!(pages.remove(2), placed[0]);
    assert!(
        pages
            .iter()
            .all(|(_, facts)| facts.symbols.is_empty() && facts.edges.is_empty())
    );
}

/// The graph in two pages, as a pass publishes it: `lib`'s rows on page 0, `cmd`'s on page 1
/// (an edge on the page of the repository that asserts it), every page listing both
/// repositories.
/// Pages as the store hands them over: borrowed.
fn borrowed(pages: &[(u32, FactSet)]) -> Vec<(u32, &FactSet)> {
    pages
        .iter()
        .map(|(number, facts)| (*number, facts))
        .collect()
}

fn split(facts: &FactSet) -> Vec<(u32, FactSet)> {
    let page_of = |repository: &str| u32::from(repository == "cmd");
    let mut owner: std::collections::HashMap<StableKey, String> = Default::default();
    owner.extend(facts.repositories.iter().map(|r| (r.key, r.name.clone())));
    owner.extend(facts.symbols.iter().map(|s| (s.key, s.repository.clone())));
    let mut pages: Vec<(u32, FactSet)> = (0..2)
        .map(|n| {
            let page = FactSet {
                repositories: facts.repositories.clone(),
                ..FactSet::default()
            };
            (n, page)
        })
        .collect();
    for p in &facts.packages {
        pages[page_of(&p.repository) as usize]
            .1
            .packages
            .push(p.clone());
    }
    for f in &facts.files {
        pages[page_of(&f.repository) as usize]
            .1
            .files
            .push(f.clone());
    }
    for s in &facts.symbols {
        pages[page_of(&s.repository) as usize]
            .1
            .symbols
            .push(s.clone());
    }
    for e in &facts.evidence {
        pages[page_of(&e.repository) as usize]
            .1
            .evidence
            .push(e.clone());
    }
    for u in &facts.unresolved {
        pages[page_of(&u.repository) as usize]
            .1
            .unresolved
            .push(u.clone());
    }
    for e in &facts.edges {
        pages[page_of(&owner[&e.source]) as usize]
            .1
            .edges
            .push(e.clone());
    }
    for (_, page) in &mut pages {
        page.canonicalize();
    }
    pages
}

/// A graph, and the same graph after `cmd/main.go` was edited: the file longer and spelling
/// `helper`, `main` documented, `helper` declared, `Old` gone, the call moved to another place, the unresolved `Gone` replaced by
/// `Lost`. `lib` refers to `cmd`'s main: an edge page 0 owns into a node page 1 changes.
fn edited() -> (FactSet, FactSet) {
    let mut before = graph();
    before.edges.push(Edge {
        kind: EdgeKind::References,
        source: key("lib:Parse"),
        target: key("cmd:main"),
        confidence: Confidence::Candidate,
        provenance: Provenance::TreeSitterSyntax,
        evidence: None,
    });
    let mut old = before
        .symbols
        .iter()
        .find(|s| s.name == "main")
        .unwrap()
        .clone();
    old.key = key("cmd:Old");
    old.name = "Old".into();
    old.qualified_name = "Old".into();
    old.span = span(25);
    before.symbols.push(old);
    before.canonicalize();
    let mut after = before.clone();
    after.symbols.retain(|s| s.name != "Old");
    let main = after.symbols.iter_mut().find(|s| s.name == "main").unwrap();
    main.doc = Some("Runs.".into());
    let mut helper = main.clone();
    helper.key = key("cmd:helper");
    helper.name = "helper".into();
    helper.qualified_name = "helper".into();
    helper.span = span(20);
    after.symbols.push(helper);
    let moved = Evidence {
        key: evidence_key("cmd", "main.go", span(7)),
        repository: "cmd".into(),
        file_path: "main.go".into(),
        span: span(7),
    };
    let call = after
        .edges
        .iter_mut()
        .find(|e| e.kind == EdgeKind::CallsDirect)
        .unwrap();
    call.evidence = Some(moved.key);
    after.evidence = vec![moved];
    after.unresolved[0].requested_symbol = Some("Lost".into());
    let file = after
        .files
        .iter_mut()
        .find(|f| f.repository == "cmd")
        .unwrap();
    file.line_count += 3;
    file.mentions = vec![Mention {
        name: "helper".into(),
        count: 2,
    }];
    after.canonicalize();
    (before, after)
}

#[test]
fn an_update_brings_the_changed_pages_up_to_date_row_by_row_or_by_replacing_them() {
    let (before, after) = edited();
    let (before_pages, after_pages) = (split(&before), split(&after));
    let only_page_1 = |pages| -> Vec<(u32, &FactSet)> {
        borrowed(pages)
            .into_iter()
            .filter(|(n, _)| *n == 1)
            .collect()
    };
    let (was, changed) = (only_page_1(&before_pages), only_page_1(&after_pages));
    for (limit, how) in [
        (usize::MAX, update::Updated::Amended),
        (0, update::Updated::Replaced),
    ] {
        let dir = tempfile::tempdir().expect("scratch");
        let (first, second, whole) = (
            dir.path().join("1.lbdb"),
            dir.path().join("2.lbdb"),
            dir.path().join("whole.lbdb"),
        );
        let counts = write_database(&borrowed(&before_pages), &first, dir.path()).expect("written");
        update::copy_database(&first, &second).expect("copied");
        let (updated, went) = update::update_with(
            &first,
            &counts,
            [&was, &changed],
            &second,
            dir.path(),
            limit,
        )
        .expect("updated");
        assert_eq!(went, how);
        let expected =
            write_database(&borrowed(&after_pages), &whole, dir.path()).expect("written whole");
        assert_eq!(updated.counts, expected, "{how:?}");
        verify_database(&second, &updated.counts).expect("the update holds what it says");
        match how {
            update::Updated::Amended => {
                let tables = updated.changed_tables.clone().expect("the tables amended");
                for (table, rows) in &expected.tables {
                    if counts.of(table) != *rows {
                        assert!(tables.contains(table), "{table} changed: {tables:?}");
                    }
                }
                verify_tables(&second, &updated.counts, Some(&tables)).expect("as amended");
                // Only the tables named are counted.
                let mut wrong = updated.counts.clone();
                *wrong.tables.get_mut("Symbol").expect("symbols") += 1;
                let symbols = BTreeSet::from(["Symbol".to_string()]);
                assert!(verify_tables(&second, &wrong, Some(&symbols)).is_err());
                let others = BTreeSet::from(["DEFINES".to_string()]);
                verify_tables(&second, &wrong, Some(&others)).expect("symbols not counted");
            }
            update::Updated::Replaced => assert_eq!(updated.changed_tables, None),
        }
        let read_back = GraphReader::open(&second).unwrap().pages(2).unwrap();
        assert_eq!(read_back, split(&after), "{how:?}");
        // The previous database is untouched.
        verify_database(&first, &counts).expect("the previous database is as it was");
    }
}

#[test]
fn rows_the_database_does_not_hold_are_not_amended_but_replaced() {
    let (before, after) = edited();
    let (before_pages, after_pages) = (split(&before), split(&after));
    let dir = tempfile::tempdir().expect("scratch");
    let (first, second) = (dir.path().join("1.lbdb"), dir.path().join("2.lbdb"));
    // Written from the edited facts: the rows the edit removes are not there to remove.
    let counts = write_database(&borrowed(&after_pages), &first, dir.path()).expect("written");
    update::copy_database(&first, &second).expect("copied");
    let page = |pages| -> Vec<(u32, &FactSet)> {
        borrowed(pages)
            .into_iter()
            .filter(|(n, _)| *n == 1)
            .collect()
    };
    let (updated, went) = update::update_with(
        &first,
        &counts,
        [&page(&before_pages), &page(&after_pages)],
        &second,
        dir.path(),
        usize::MAX,
    )
    .expect("updated");
    assert_eq!(went, update::Updated::Replaced);
    assert_eq!(updated.counts, counts);
    verify_database(&second, &updated.counts).expect("the update holds what it says");
}
