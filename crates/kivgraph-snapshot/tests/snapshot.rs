//! Round trip, lookups, and refusal of corrupt files.

use kivgraph_facts::*;
use kivgraph_snapshot::{
    ExternalNode, ExternalTable, NodeRef, PageFile, Snapshot, SnapshotError, TERM_IN_NAME,
    write_page, write_root,
};
use proptest::prelude::*;

fn key(text: &str) -> StableKey {
    StableKey(*blake3::hash(text.as_bytes()).as_bytes())
}

fn span(start: u32, end: u32) -> LineSpan {
    LineSpan {
        start_line: start,
        end_line: end,
        start_byte: start * 10,
        end_byte: end * 10 + 9,
    }
}

fn sample() -> FactSet {
    let repo = RepositoryFact {
        key: key("repo"),
        name: "acme".into(),
        root: "/src/acme".into(),
        languages: vec![Language::Go],
    };
    let package = PackageFact {
        key: key("pkg"),
        repository: "acme".into(),
        language: Language::Go,
        name: "m m/x".into(),
        path: "x".into(),
    };
    let file = |path: &str| FileFact {
        key: key(path),
        repository: "acme".into(),
        path: path.into(),
        language: Language::Go,
        package: package.key,
        fingerprint: Fingerprint::of(path.as_bytes()),
        line_count: 10,
        byte_len: 100,
        parse_issues: vec![],
        mentions: ["Server", "Start"]
            .iter()
            .map(|name| Mention {
                name: name.to_string(),
                count: if path.ends_with("a.go") { 2 } else { 1 },
            })
            .collect(),
    };
    let symbol =
        |path: &str, name: &str, qualified: &str, kind, start, parent: Option<StableKey>| {
            SymbolFact {
                key: key(&format!("{path}:{qualified}")),
                repository: "acme".into(),
                language: Language::Go,
                package: package.key,
                file_path: path.into(),
                name: name.into(),
                qualified_name: qualified.into(),
                kind,
                signature: format!("sig {qualified}"),
                exported: true,
                span: span(start, start + 1),
                doc: (name == "Server").then(|| "Serves.".to_string()),
                parent,
                key_module: String::new(),
                key_discriminator: "none".into(),
            }
        };
    let server = symbol("x/a.go", "Server", "Server", SymbolKind::Type, 1, None);
    let start = symbol(
        "x/a.go",
        "Start",
        "Server.Start",
        SymbolKind::Method,
        4,
        Some(server.key),
    );
    let other = symbol("x/b.go", "Start", "Start", SymbolKind::Func, 1, None);
    let mut facts = FactSet {
        repositories: vec![repo.clone()],
        packages: vec![package.clone()],
        files: vec![file("x/a.go"), file("x/b.go")],
        edges: vec![
            Edge {
                kind: EdgeKind::MethodOf,
                source: start.key,
                target: server.key,
                confidence: Confidence::StructuralCertain,
                provenance: Provenance::TreeSitterSyntax,
                evidence: None,
            },
            Edge {
                kind: EdgeKind::CallsDirect,
                source: other.key,
                target: start.key,
                confidence: Confidence::StructuralCertain,
                provenance: Provenance::TreeSitterSyntax,
                evidence: Some(key("call")),
            },
        ],
        symbols: vec![server, start, other],
        evidence: vec![Evidence {
            key: key("call"),
            repository: "acme".into(),
            file_path: "x/b.go".into(),
            span: span(2, 2),
        }],
        unresolved: vec![
            UnresolvedReference {
                repository: "acme".into(),
                language: Language::Go,
                reason: Reason::ReceiverTypeUnknown,
                file_path: Some("x/b.go".into()),
                span: Some(span(2, 2)),
                requested_symbol: Some("Start".into()),
                requested_package: None,
                detail: "s.Start()".into(),
            },
            UnresolvedReference {
                repository: "acme".into(),
                language: Language::Go,
                reason: Reason::ParseError,
                file_path: Some("x/b.go".into()),
                span: Some(span(3, 3)),
                requested_symbol: None,
                requested_package: None,
                detail: "1 syntax error".into(),
            },
        ],
    };
    facts.canonicalize();
    facts
}

/// `facts` laid out as one page (page 0): its root for `generation`, and the page.
fn one_page(facts: &FactSet, generation: u64) -> (Vec<u8>, PageFile) {
    let page = write_page(0, facts, &|_| None).unwrap();
    (write_root(generation, &[(0, page.digest)]), page)
}

fn open_one_page(facts: &FactSet, generation: u64) -> Snapshot {
    let (root, page) = one_page(facts, generation);
    Snapshot::from_parts(root, vec![page.bytes]).unwrap()
}

#[test]
fn round_trip_and_lookups() {
    let facts = sample();
    let (_, page) = one_page(&facts, 7);
    let snapshot = open_one_page(&facts, 7);
    assert_eq!(snapshot.generation(), 7);
    assert_eq!(
        (
            snapshot.symbol_count(),
            snapshot.file_count(),
            snapshot.edge_count()
        ),
        (3, 2, 2)
    );
    let starts: Vec<_> = snapshot
        .symbols_named("Start")
        .iter()
        .map(|s| s.qualified_name().to_string())
        .collect();
    assert_eq!(starts, vec!["Server.Start", "Start"]);
    let method = snapshot.symbols_qualified("Server.Start")[0];
    assert_eq!(method.parent().unwrap().name(), "Server");
    assert_eq!(method.file().path(), "x/a.go");
    assert_eq!(method.span(), span(4, 5));
    assert_eq!(
        snapshot.symbols_qualified("Server")[0].doc(),
        Some("Serves.")
    );
    assert_eq!(method.doc(), None);
    assert!(snapshot.symbols_named("Nope").is_empty());
    assert_eq!(
        snapshot.symbol_by_key(&method.key()).unwrap().index,
        method.index
    );
    let file = snapshot.file_by_path("acme", "x/b.go").unwrap();
    assert_eq!(
        file.symbols()
            .map(|s| s.qualified_name())
            .collect::<Vec<_>>(),
        vec!["Start"]
    );
    assert!(snapshot.file_by_path("acme", "x/c.go").is_none());
    let edge = snapshot
        .edges()
        .find(|e| e.kind() == EdgeKind::MethodOf)
        .unwrap();
    assert_eq!(
        (edge.kind(), edge.source(), edge.target()),
        (
            EdgeKind::MethodOf,
            NodeRef::Symbol(method.index),
            NodeRef::Symbol(method.parent().unwrap().index)
        )
    );
    // Adjacency: the method has one incoming call and one outgoing METHOD_OF.
    let caller = snapshot.symbols_qualified("Start")[0];
    let incoming: Vec<_> = snapshot
        .incoming(method.index)
        .map(|e| (e.kind(), e.source()))
        .collect();
    assert_eq!(
        incoming,
        vec![(EdgeKind::CallsDirect, NodeRef::Symbol(caller.index))]
    );
    let outgoing: Vec<_> = snapshot.outgoing(method.index).map(|e| e.kind()).collect();
    assert_eq!(outgoing, vec![EdgeKind::MethodOf]);
    assert_eq!(snapshot.incoming(caller.index).count(), 0);
    assert_eq!(snapshot.outgoing(99).count(), 0);
    // What the census leaves unexplained: a.go spells `Start` twice and declares it once;
    // b.go's one spelling is its declaration (and the call and the failure recorded there
    // explain more than it spells). `Server` is declared in a.go only.
    let a = snapshot.file_by_path("acme", "x/a.go").unwrap().index;
    let b = snapshot.file_by_path("acme", "x/b.go").unwrap().index;
    assert_eq!(snapshot.unexplained_mentions("Start"), vec![(a, 1)]);
    assert_eq!(
        snapshot.unexplained_mentions("Server"),
        vec![(a, 1), (b, 1)]
    );
    assert!(snapshot.unexplained_mentions("Stop").is_empty());
    // The term index: `start` is the own name of Server.Start (position 1 in layout order)
    // and of Start, and `server` the own name of Server and the container of Server.Start.
    let named = |term: &str| -> Vec<(String, bool)> {
        snapshot
            .term_postings(term)
            .unwrap_or_default()
            .into_iter()
            .map(|p| {
                let symbol = snapshot.symbol((p & !TERM_IN_NAME) as usize).unwrap();
                (symbol.qualified_name().to_string(), p & TERM_IN_NAME != 0)
            })
            .collect()
    };
    assert_eq!(
        named("start"),
        [
            ("Server.Start".to_string(), true),
            ("Start".to_string(), true)
        ]
    );
    assert_eq!(
        named("server"),
        [
            ("Server".to_string(), true),
            ("Server.Start".to_string(), false)
        ]
    );
    assert!(snapshot.term_postings("nothing").is_none());
    // Failures by the name they asked for.
    let asked: Vec<_> = snapshot
        .unresolved_requesting("Start")
        .iter()
        .map(|u| u.reason())
        .collect();
    assert_eq!(asked, vec!["RECEIVER_TYPE_UNKNOWN"]);
    assert!(snapshot.unresolved_requesting("Server").is_empty());
    let in_b: Vec<_> = snapshot
        .unresolved_in_file("acme", "x/b.go")
        .iter()
        .map(|u| u.reason())
        .collect();
    assert_eq!(in_b.len(), 2);
    assert!(snapshot.unresolved_in_file("acme", "x/a.go").is_empty());
    let unresolved = snapshot
        .unresolved()
        .find(|u| u.reason() == "PARSE_ERROR")
        .unwrap();
    assert_eq!(
        (
            unresolved.reason(),
            unresolved.file_path(),
            unresolved.lines()
        ),
        ("PARSE_ERROR", Some("x/b.go"), Some((3, 3)))
    );
    // A page does not depend on the generation.
    assert_eq!(one_page(&facts, 8).1, page);
}

/// The sample split in two packages on two pages: `Server` and `Server.Start` (x/a.go) on
/// page 3, the caller `Start` (x/b.go) on page 9, whose call was observed in x/a.go.
fn two_pages() -> (FactSet, FactSet) {
    let mut facts = sample();
    let second = PackageFact {
        key: key("pkg2"),
        path: "y".into(),
        ..facts.packages[0].clone()
    };
    facts.packages.push(second.clone());
    for file in facts.files.iter_mut().filter(|f| f.path == "x/b.go") {
        file.package = second.key;
    }
    for symbol in facts.symbols.iter_mut().filter(|s| s.file_path == "x/b.go") {
        symbol.package = second.key;
    }
    facts.evidence[0].file_path = "x/a.go".into();
    let on = |page: bool| {
        let package = if page {
            second.key
        } else {
            facts.packages[0].key
        };
        let mut part = FactSet {
            repositories: facts.repositories.clone(),
            packages: facts
                .packages
                .iter()
                .filter(|p| p.key == package)
                .cloned()
                .collect(),
            files: facts
                .files
                .iter()
                .filter(|f| f.package == package)
                .cloned()
                .collect(),
            symbols: facts
                .symbols
                .iter()
                .filter(|s| s.package == package)
                .cloned()
                .collect(),
            ..FactSet::default()
        };
        let held: std::collections::BTreeSet<StableKey> =
            part.symbols.iter().map(|s| s.key).collect();
        part.edges = facts
            .edges
            .iter()
            .filter(|e| held.contains(&e.source))
            .cloned()
            .collect();
        if !page {
            // An edge the first page's analysis found starting at the second page's `Start`.
            let server = part
                .symbols
                .iter()
                .find(|s| s.name == "Server")
                .unwrap()
                .key;
            let caller = facts
                .symbols
                .iter()
                .find(|s| s.qualified_name == "Start")
                .unwrap()
                .key;
            part.edges.push(Edge {
                kind: EdgeKind::References,
                source: caller,
                target: server,
                confidence: Confidence::StructuralCertain,
                provenance: Provenance::TreeSitterSyntax,
                evidence: None,
            });
        }
        if page {
            part.evidence = facts.evidence.clone();
            part.unresolved = facts.unresolved.clone();
        }
        part.canonicalize();
        part
    };
    (on(false), on(true))
}

#[test]
fn pages_read_as_one_graph() {
    let (first, second) = two_pages();
    let server_start = first
        .symbols
        .iter()
        .find(|s| s.qualified_name == "Server.Start")
        .unwrap()
        .clone();
    let caller_key = second.symbols[0].key;
    // An edge reaching a node no page holds is refused.
    assert!(write_page(3, &first, &|_| None).is_err());
    assert!(write_page(9, &second, &|_| None).is_err());
    let page_a = write_page(3, &first, &|key: &StableKey| {
        (*key == caller_key).then_some(ExternalNode {
            table: ExternalTable::Symbol,
            page: 9,
            name: "Start",
        })
    })
    .unwrap();
    let external = |key: &StableKey| {
        (*key == server_start.key).then_some(ExternalNode {
            table: ExternalTable::Symbol,
            page: 3,
            name: "Start",
        })
    };
    let page_b = write_page(9, &second, &external).unwrap();
    let root = write_root(5, &[(3, page_a.digest), (9, page_b.digest)]);
    let snapshot = Snapshot::from_parts(
        root.clone(),
        vec![page_b.bytes.clone(), page_a.bytes.clone()],
    )
    .unwrap();
    assert_eq!(
        (
            snapshot.page_count(),
            snapshot.symbol_count(),
            snapshot.edge_count()
        ),
        (2, 3, 3)
    );
    let method = snapshot.symbols_qualified("Server.Start")[0];
    let caller = snapshot.symbols_qualified("Start")[0];
    // The call crosses pages: its target is found by key in the page that holds it, and the
    // method's callers are asked of every page.
    let server = snapshot.symbols_qualified("Server")[0];
    let outgoing: Vec<_> = snapshot
        .outgoing(caller.index)
        .map(|e| (e.kind(), e.source(), e.target()))
        .collect();
    // Its own page's call, and the reference the other page holds, which starts here.
    assert_eq!(
        outgoing,
        vec![
            (
                EdgeKind::References,
                NodeRef::Symbol(caller.index),
                NodeRef::Symbol(server.index)
            ),
            (
                EdgeKind::CallsDirect,
                NodeRef::Symbol(caller.index),
                NodeRef::Symbol(method.index)
            ),
        ]
    );
    let call = snapshot
        .outgoing(caller.index)
        .find(|e| e.kind() == EdgeKind::CallsDirect)
        .unwrap();
    let incoming: Vec<_> = snapshot
        .incoming(method.index)
        .map(|e| (e.kind(), e.source()))
        .collect();
    assert_eq!(
        incoming,
        vec![(EdgeKind::CallsDirect, NodeRef::Symbol(caller.index))]
    );
    assert_eq!(
        call.evidence().unwrap().file().unwrap().path(),
        "x/a.go",
        "an observation in another page's file"
    );
    // Names come in page order; rows are numbered across pages.
    let starts: Vec<_> = snapshot
        .symbols_named("Start")
        .iter()
        .map(|s| (s.qualified_name().to_string(), s.index))
        .collect();
    assert_eq!(
        starts,
        vec![("Server.Start".to_string(), 1), ("Start".to_string(), 2)]
    );
    assert_eq!(
        snapshot.repositories().next().unwrap().files().count(),
        2,
        "a repository's files are gathered from every page"
    );
    // A page is missing, or not the one the root names: refused.
    assert!(Snapshot::from_parts(root.clone(), vec![page_a.bytes.clone()]).is_err());
    let other_root = write_root(5, &[(4, page_a.digest), (9, page_b.digest)]);
    assert!(Snapshot::from_parts(other_root, vec![page_a.bytes, page_b.bytes]).is_err());
}

#[test]
fn a_mapped_file_is_read_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("snapshot.kgs");
    let (root, page) = one_page(&sample(), 1);
    std::fs::write(&path, root).unwrap();
    std::fs::create_dir(dir.path().join("pages")).unwrap();
    std::fs::write(dir.path().join("pages").join(page.file_name()), &page.bytes).unwrap();
    let snapshot = Snapshot::open(&path).unwrap();
    assert_eq!(snapshot.symbols_named("Server").len(), 1);
    std::fs::write(&path, [b'x'; 200]).unwrap();
    assert!(matches!(
        Snapshot::open(&path),
        Err(SnapshotError::BadMagic)
    ));
}

/// Opens one page's bytes under a root that names it as page 0 by `digest`.
fn open_page(bytes: Vec<u8>, digest: [u8; 32]) -> Result<Snapshot, SnapshotError> {
    Snapshot::from_parts(write_root(1, &[(0, digest)]), vec![bytes])
}

/// Rewrites the digest so that corruption reaches the structural checks; the root names
/// the page by its new digest.
fn reseal(mut bytes: Vec<u8>) -> Result<Snapshot, SnapshotError> {
    let mut digest = [0; 32];
    if bytes.len() >= 64 {
        let payload_len = (bytes.len() - 64) as u64;
        bytes[24..32].copy_from_slice(&payload_len.to_le_bytes());
        digest = *blake3::hash(&bytes[64..]).as_bytes();
        bytes[32..64].copy_from_slice(&digest);
    }
    open_page(bytes, digest)
}

/// Every accessor, so that a snapshot that validated is proven panic-free to read.
fn read_everything(snapshot: &Snapshot) {
    for term in ["start", "server", "x", "acme", "zzz"] {
        let _ = snapshot.term_postings(term);
    }
    for repository in snapshot.repositories() {
        let _ = (
            repository.name(),
            repository.root(),
            repository.languages(),
            repository.files().count(),
        );
    }
    for file in snapshot.files() {
        let _ = (
            file.path(),
            file.package().name(),
            file.repository().name(),
            file.symbols().count(),
        );
    }
    for symbol in snapshot.symbols() {
        let _ = (
            symbol.name(),
            symbol.qualified_name(),
            symbol.signature(),
            symbol.doc(),
            symbol.kind(),
            symbol.span(),
        );
        let _ = symbol.parent().map(|p| p.name());
        let _ = snapshot.symbols_named(symbol.name());
        let _ = snapshot.incoming(symbol.index).count() + snapshot.outgoing(symbol.index).count();
        let _ = (
            snapshot.unexplained_mentions(symbol.name()),
            snapshot.unresolved_requesting(symbol.name()).len(),
        );
    }
    for edge in snapshot.edges() {
        let _ = (
            edge.kind(),
            edge.source(),
            edge.target(),
            edge.confidence(),
            edge.provenance(),
        );
    }
    for row in snapshot.unresolved() {
        let _ = (
            row.reason(),
            row.file_path(),
            row.detail(),
            row.lines(),
            row.repository().map(|r| r.name()),
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn truncated_files_are_refused(cut in 0usize..4000) {
        let (root, page) = one_page(&sample(), 1);
        let cut_page = cut % page.bytes.len();
        prop_assert!(open_page(page.bytes[..cut_page].to_vec(), page.digest).is_err());
        let cut_root = cut % root.len();
        prop_assert!(Snapshot::from_parts(root[..cut_root].to_vec(), vec![page.bytes]).is_err());
    }

    #[test]
    fn flipped_bits_are_refused(position in 0usize..6000, bit in 0u8..8) {
        let (root, page) = one_page(&sample(), 1);
        let mut bytes = page.bytes.clone();
        let at = position % bytes.len();
        bytes[at] ^= 1 << bit;
        prop_assert!(open_page(bytes, page.digest).is_err());
        // The root's generation field is not covered by its digest; the rest is.
        let mut root = root;
        let at = position % root.len();
        prop_assume!(!(16..24).contains(&at));
        root[at] ^= 1 << bit;
        prop_assert!(Snapshot::from_parts(root, vec![page.bytes]).is_err());
    }

    #[test]
    fn resealed_corruption_never_panics(position in 64usize..6000, value: u8, cut in 0usize..64) {
        let (_, page) = one_page(&sample(), 1);
        let mut bytes = page.bytes;
        let position = 64 + position % (bytes.len() - 64);
        bytes[position] = value;
        let keep = bytes.len() - cut.min(bytes.len() - 64);
        bytes.truncate(keep);
        if let Ok(snapshot) = reseal(bytes) {
            read_everything(&snapshot);
        }
    }
}

/// The same facts on one page or on two: every answer that merges pages is the same, in
/// the same order, named by keys (row numbers differ with the layout).
#[test]
fn answers_do_not_depend_on_the_pages() {
    let (first, second) = two_pages();
    let whole = FactSet::from_pages([first.clone(), second.clone()]);
    let single = open_one_page(&whole, 1);
    let held: std::collections::BTreeMap<StableKey, (u32, String)> = first
        .symbols
        .iter()
        .map(|s| (s.key, (3, s.name.clone())))
        .chain(second.symbols.iter().map(|s| (s.key, (9, s.name.clone()))))
        .collect();
    let external = |key: &StableKey| {
        held.get(key).map(|(page, name)| ExternalNode {
            table: ExternalTable::Symbol,
            page: *page,
            name,
        })
    };
    let (a, b) = (
        write_page(3, &first, &external).unwrap(),
        write_page(9, &second, &external).unwrap(),
    );
    let paged = Snapshot::from_parts(
        write_root(1, &[(3, a.digest), (9, b.digest)]),
        vec![a.bytes, b.bytes],
    )
    .unwrap();
    let node_key = |snapshot: &Snapshot, node: NodeRef| match node {
        NodeRef::Symbol(i) => snapshot.symbol(i).map(|s| s.key()),
        NodeRef::File(i) => snapshot.file(i).map(|f| f.key()),
        NodeRef::Package(i) => snapshot.package(i).map(|p| p.key()),
        _ => None,
    };
    let answers = |snapshot: &Snapshot| {
        let mut lines = Vec::new();
        for name in ["Start", "Server", "Stop"] {
            let named: Vec<StableKey> = snapshot
                .symbols_named(name)
                .iter()
                .map(|s| s.key())
                .collect();
            lines.push(format!("{name}: {named:?}"));
            let asked: Vec<&str> = snapshot
                .unresolved_requesting(name)
                .iter()
                .map(|u| u.reason())
                .collect();
            lines.push(format!("{name} asked by {asked:?}"));
        }
        for symbol in snapshot.symbols() {
            for (direction, edges) in [
                ("in", snapshot.incoming(symbol.index).collect::<Vec<_>>()),
                ("out", snapshot.outgoing(symbol.index).collect::<Vec<_>>()),
            ] {
                let edges: Vec<_> = edges
                    .iter()
                    .map(|e| {
                        (
                            e.kind(),
                            node_key(snapshot, e.source()),
                            node_key(snapshot, e.target()),
                        )
                    })
                    .collect();
                lines.push(format!("{} {direction} {edges:?}", symbol.key()));
            }
        }
        lines.sort();
        lines
    };
    assert_eq!(answers(&paged), answers(&single));
}
