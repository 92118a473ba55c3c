use kivgraph_facts::*;
use kivgraph_store::{GenerationId, GenerationStore, SinglePage, StoreError};

fn key(text: &str) -> StableKey {
    StableKey(*blake3::hash(text.as_bytes()).as_bytes())
}

fn facts(symbol_name: &str) -> FactSet {
    let package = key("pkg");
    let file = key("file");
    let symbol = key(symbol_name);
    let mut facts = FactSet {
        repositories: vec![RepositoryFact {
            key: key("repo"),
            name: "r".into(),
            root: "/r".into(),
            languages: vec![Language::Go],
        }],
        packages: vec![PackageFact {
            key: package,
            repository: "r".into(),
            language: Language::Go,
            name: "m m".into(),
            path: "".into(),
        }],
        files: vec![FileFact {
            key: file,
            repository: "r".into(),
            path: "a.go".into(),
            language: Language::Go,
            package,
            fingerprint: Fingerprint::default(),
            line_count: 1,
            byte_len: 1,
            parse_issues: vec![],
            mentions: vec![],
        }],
        symbols: vec![SymbolFact {
            key: symbol,
            repository: "r".into(),
            language: Language::Go,
            package,
            file_path: "a.go".into(),
            name: symbol_name.into(),
            qualified_name: symbol_name.into(),
            kind: SymbolKind::Func,
            signature: String::new(),
            exported: true,
            span: LineSpan {
                start_line: 1,
                end_line: 1,
                start_byte: 0,
                end_byte: 1,
            },
            doc: None,
            parent: None,
            key_module: String::new(),
            key_discriminator: "none".into(),
        }],
        edges: vec![Edge {
            kind: EdgeKind::Defines,
            source: file,
            target: symbol,
            confidence: Confidence::StructuralCertain,
            provenance: Provenance::TreeSitterSyntax,
            evidence: None,
        }],
        ..FactSet::default()
    };
    facts.canonicalize();
    facts
}

#[test]
fn publish_rollback_and_clean() {
    let dir = tempfile::tempdir().unwrap();
    let store = GenerationStore::new(dir.path());
    assert_eq!(store.current().unwrap(), None);
    let lock = store.lock().unwrap();
    // A second writer fails at once.
    assert!(matches!(store.lock(), Err(StoreError::Locked)));
    assert_eq!(
        store.lock().unwrap_err().to_string(),
        "another process is publishing into this generation store"
    );

    let first = store
        .publish(&lock, &[SinglePage(&facts("F"))], vec![])
        .unwrap();
    let second = store
        .publish(&lock, &[SinglePage(&facts("F"))], vec![])
        .unwrap();
    assert_eq!((first.id, second.id), (GenerationId(1), GenerationId(2)));
    assert_eq!(second.previous, Some(GenerationId(1)));
    let read =
        |id: GenerationId, file: &str| std::fs::read(store.generation_dir(id).join(file)).unwrap();
    assert_eq!(first.manifest.digests, second.manifest.digests);
    assert_eq!(first.manifest.pages, second.manifest.pages);
    assert_eq!(store.facts(second.id).unwrap(), facts("F"));
    assert_eq!(
        read(first.id, "snapshot.kgs")[64..],
        read(second.id, "snapshot.kgs")[64..]
    );
    assert_eq!(store.backup().unwrap(), Some(GenerationId(1)));

    // A candidate that breaks an invariant never becomes CURRENT.
    let mut broken = facts("G");
    broken.edges.clear();
    assert!(matches!(
        store.publish(&lock, &[SinglePage(&broken)], vec![]),
        Err(StoreError::Invariants(_))
    ));
    assert_eq!(store.current().unwrap(), Some(GenerationId(2)));

    // A dead writer's temporary generation is removed by the next publication.
    std::fs::create_dir_all(dir.path().join("generations/.tmp-000009-1")).unwrap();
    let third = store
        .publish(&lock, &[SinglePage(&facts("H"))], vec![])
        .unwrap();
    assert_eq!(third.id, GenerationId(3));
    assert!(!dir.path().join("generations/.tmp-000009-1").exists());

    let (from, to) = store.rollback(&lock, None).unwrap();
    assert_eq!((from, to), (Some(GenerationId(3)), GenerationId(2)));
    let (_, to) = store.rollback(&lock, Some(GenerationId(1))).unwrap();
    assert_eq!(to, GenerationId(1));

    // A corrupted generation is refused by rollback and CURRENT stays.
    let snapshot = store.snapshot_path(GenerationId(3));
    let mut bytes = std::fs::read(&snapshot).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&snapshot, bytes).unwrap();
    assert!(matches!(
        store.rollback(&lock, Some(GenerationId(3))),
        Err(StoreError::Invalid { .. })
    ));
    assert_eq!(store.current().unwrap(), Some(GenerationId(1)));

    let listed = store.clean(&lock, true, false).unwrap();
    assert_eq!(listed.generations, vec![GenerationId(2), GenerationId(3)]);
    assert_eq!(
        store.list().unwrap().len(),
        3,
        "without --yes nothing is removed"
    );
    store.clean(&lock, true, true).unwrap();
    assert_eq!(store.list().unwrap(), vec![GenerationId(1)]);
    assert_eq!(store.backup().unwrap(), None);
    store.clean(&lock, false, true).unwrap();
    assert_eq!(store.current().unwrap(), None);
    assert_eq!(store.next_id().unwrap(), GenerationId(1));
    assert!(matches!(
        store.rollback(&lock, None),
        Err(StoreError::NothingToRollBack)
    ));
}

/// A page of a test pass: its facts and the identity a pass would give them.
struct TestPage {
    number: u32,
    identity: [u8; 32],
    facts: FactSet,
}

impl FactPage for TestPage {
    fn number(&self) -> u32 {
        self.number
    }
    fn identity(&self) -> Option<[u8; 32]> {
        Some(self.identity)
    }
    fn facts(&self) -> FactSet {
        self.facts.clone()
    }
}

/// Page `number` holding package `package` with one file declaring `symbols`; `calls`
/// adds an edge from its first declaration to a declaration of another page.
/// Package `a` declaring `Sa` on page 1, and package `b` declaring `second` on page 2 and
/// calling `Sa`.
fn pages(second: &[&str]) -> [TestPage; 2] {
    [
        page(1, "a", &["Sa"], None),
        page(2, "b", second, Some("Sa")),
    ]
}

fn page(number: u32, package: &str, symbols: &[&str], calls: Option<&str>) -> TestPage {
    let mut facts = facts(symbols[0]);
    let template = facts.clone();
    let package_key = key(package);
    let file_key = key(&format!("{package}.go"));
    facts.packages[0].key = package_key;
    facts.packages[0].name = package.into();
    facts.files[0].key = file_key;
    facts.files[0].package = package_key;
    facts.files[0].path = format!("{package}.go");
    facts.symbols.clear();
    facts.edges.clear();
    for name in symbols {
        let symbol = SymbolFact {
            key: key(name),
            name: name.to_string(),
            qualified_name: name.to_string(),
            package: package_key,
            file_path: format!("{package}.go"),
            ..template.symbols[0].clone()
        };
        facts.edges.push(Edge {
            target: symbol.key,
            source: file_key,
            ..template.edges[0].clone()
        });
        facts.symbols.push(symbol);
    }
    if let Some(callee) = calls {
        facts.edges.push(Edge {
            kind: EdgeKind::CallsDirect,
            source: key(symbols[0]),
            target: key(callee),
            confidence: Confidence::StructuralCertain,
            provenance: Provenance::TreeSitterSyntax,
            evidence: None,
        });
    }
    facts.canonicalize();
    let identity = *blake3::hash(format!("{package}{symbols:?}{calls:?}").as_bytes()).as_bytes();
    TestPage {
        number,
        identity,
        facts,
    }
}

#[test]
fn unchanged_pages_are_linked_and_kept_pages_stay_whole() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let store = GenerationStore::new(dir.path());
    let lock = store.lock().unwrap();
    let first = store
        .publish(
            &lock,
            &[
                page(1, "a", &["Sa"], None),
                page(2, "b", &["Sb"], Some("Sa")),
            ],
            vec![],
        )
        .unwrap();
    // Page 2 changes: page 1 is the same file in both generations.
    let second = store
        .publish(
            &lock,
            &[
                page(1, "a", &["Sa"], None),
                page(2, "b", &["Sb", "Sc"], Some("Sa")),
            ],
            vec![],
        )
        .unwrap();
    let inode = |generation: &kivgraph_store::Published, number: u32| {
        let entry = generation
            .manifest
            .pages
            .iter()
            .find(|p| p.number == number)
            .unwrap()
            .clone();
        std::fs::read_dir(generation.directory.join("pages"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .contains(&entry.snapshot)
            })
            .map(|p| std::fs::metadata(p).unwrap().ino())
            .unwrap()
    };
    assert_eq!(inode(&first, 1), inode(&second, 1));
    assert_ne!(inode(&first, 2), inode(&second, 2));
    assert_eq!(second.manifest.counts.symbols, 3);
    let snapshot = kivgraph_snapshot::Snapshot::open(&store.snapshot_path(second.id)).unwrap();
    let callee = snapshot.symbols_named("Sa")[0];
    assert_eq!(
        snapshot.incoming(callee.index).count(),
        2,
        "DEFINES and the call"
    );
    // Opened after the first generation (a server following CURRENT), the kept page is taken
    // from it: the same answers as a cold open.
    let before = kivgraph_snapshot::Snapshot::open(&store.snapshot_path(first.id)).unwrap();
    let after =
        kivgraph_snapshot::Snapshot::open_after(&store.snapshot_path(second.id), Some(&before))
            .unwrap();
    assert_eq!(after.symbol_count(), snapshot.symbol_count());
    assert_eq!(after.symbols_named("Sc").len(), 1);
    let callee = after.symbols_named("Sa")[0];
    assert_eq!(after.incoming(callee.index).count(), 2);
    // A changed page may not drop a declaration a kept page points at.
    let refused = store.publish(
        &lock,
        &[
            page(1, "a", &["Sz"], None),
            page(2, "b", &["Sb", "Sc"], Some("Sa")),
        ],
        vec![],
    );
    assert!(
        matches!(&refused, Err(StoreError::Invalid { reason, .. }) if reason.contains("is gone, and a page this generation keeps points at it")),
        "{refused:?}"
    );
    assert_eq!(store.current().unwrap(), Some(second.id));
}

#[test]
fn pruning_keeps_the_active_and_backup_generations_and_an_open_snapshot_keeps_reading() {
    let dir = tempfile::tempdir().unwrap();
    let store = GenerationStore::new(dir.path());
    let lock = store.lock().unwrap();
    let mut published = Vec::new();
    for n in 0..4 {
        let facts = facts(&format!("S{n}"));
        published.push(
            store
                .publish(&lock, &[SinglePage(&facts)], vec![])
                .unwrap()
                .id,
        );
    }
    // A server mapped the oldest before it was removed.
    let mapped = kivgraph_snapshot::Snapshot::open(&store.snapshot_path(published[0])).unwrap();
    let removed = store.prune(&lock).unwrap();
    assert_eq!(removed, published[..2]);
    assert_eq!(store.list().unwrap(), published[2..]);
    assert_eq!(store.current().unwrap(), Some(published[3]));
    assert_eq!(store.backup().unwrap(), Some(published[2]));
    assert_eq!(mapped.symbols_named("S0").len(), 1);
    assert!(store.prune(&lock).unwrap().is_empty());
}

/// A database engine that records what the store asks of it, and refuses its own writes
/// when told to.
#[derive(Debug, Default)]
struct RecordingGraph {
    refuse: std::sync::atomic::AtomicBool,
    asked: std::sync::Mutex<Vec<String>>,
    copies: std::sync::atomic::AtomicUsize,
}

impl RecordingGraph {
    fn asked(&self) -> Vec<String> {
        std::mem::take(&mut *self.asked.lock().unwrap())
    }
}

impl kivgraph_store::CanonicalGraph for RecordingGraph {
    fn file_name(&self) -> &'static str {
        "graph.test"
    }
    fn write(
        &self,
        pages: &[(u32, &FactSet)],
        path: &std::path::Path,
        _scratch: &std::path::Path,
    ) -> Result<GraphCounts, String> {
        let numbers: Vec<u32> = pages.iter().map(|(n, _)| *n).collect();
        self.asked
            .lock()
            .unwrap()
            .push(format!("write {numbers:?}"));
        // A whole write is 1,000 bytes; each update grows the file by 300 (see below).
        std::fs::write(path, format!("{:<1000}", format!("{numbers:?}")))
            .map_err(|e| e.to_string())?;
        Ok(GraphCounts {
            schema_version: GRAPH_SCHEMA_VERSION,
            ..GraphCounts::default()
        })
    }
    fn copy(&self, previous: &std::path::Path, path: &std::path::Path) -> Result<(), String> {
        self.copies
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::fs::copy(previous, path)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
    fn update(
        &self,
        _previous: &std::path::Path,
        counts: &GraphCounts,
        _before: &[(u32, &FactSet)],
        changed: &[(u32, &FactSet)],
        path: &std::path::Path,
        _scratch: &std::path::Path,
    ) -> Result<Option<kivgraph_facts::GraphUpdate>, String> {
        let numbers: Vec<u32> = changed.iter().map(|(n, _)| *n).collect();
        self.asked
            .lock()
            .unwrap()
            .push(format!("update {numbers:?}"));
        let mut grown = std::fs::read(path).map_err(|e| e.to_string())?;
        grown.extend([b' '; 300]);
        std::fs::write(path, grown).map_err(|e| e.to_string())?;
        Ok(Some(kivgraph_facts::GraphUpdate {
            counts: counts.clone(),
            changed_tables: None,
        }))
    }
    fn verify(
        &self,
        _path: &std::path::Path,
        _counts: &GraphCounts,
        _only: Option<&std::collections::BTreeSet<String>>,
    ) -> Result<(), String> {
        if self.refuse.load(std::sync::atomic::Ordering::Relaxed) {
            Err("it does not hold what was written".into())
        } else {
            Ok(())
        }
    }
}

#[test]
fn after_saves_published_without_a_database_the_next_is_derived_from_the_last_one_that_had_it() {
    let dir = tempfile::tempdir().unwrap();
    let graph = std::sync::Arc::new(RecordingGraph::default());
    let store = GenerationStore::new(dir.path()).with_graph(graph.clone());
    let saves = store.without_graph();
    let lock = store.lock().unwrap();
    let first = store.publish(&lock, &pages(&["Sb"]), vec![]).unwrap();
    assert_eq!(graph.asked(), ["write [1, 2]"]);
    for second in [&["Sb", "Sc"][..], &["Sb", "Sd"]] {
        let save = saves.publish(&lock, &pages(second), vec![]).unwrap();
        assert_eq!(save.manifest.graph, None);
    }
    // The first generation is neither active nor the backup, yet kept: its database is
    // what the next one is derived from.
    assert!(store.prune(&lock).unwrap().is_empty());
    let database = store.publish(&lock, &pages(&["Sb", "Sd"]), vec![]).unwrap();
    assert_eq!(graph.asked(), ["update [2]"], "derived from {}", first.id);
    assert!(database.manifest.graph.is_some());
    // Once the active generation carries one, the older database goes.
    assert_eq!(store.prune(&lock).unwrap(), [first.id, GenerationId(2)]);
}

#[test]
fn a_database_its_updates_grew_by_half_is_written_whole_again() {
    let dir = tempfile::tempdir().unwrap();
    let graph = std::sync::Arc::new(RecordingGraph::default());
    let store = GenerationStore::new(dir.path()).with_graph(graph.clone());
    let lock = store.lock().unwrap();
    let mut sizes = Vec::new();
    for second in [&["Sb"][..], &["Sb", "Sc"], &["Sb"], &["Sb", "Sc"], &["Sb"]] {
        let published = store.publish(&lock, &pages(second), vec![]).unwrap();
        let entry = published.manifest.graph.clone().unwrap();
        sizes.push((entry.bytes, entry.whole_bytes));
    }
    assert_eq!(
        graph.asked(),
        [
            "write [1, 2]",
            "update [2]",
            "update [2]",
            "write [1, 2]",
            "update [2]"
        ]
    );
    assert_eq!(
        sizes,
        [
            (1000, 1000),
            (1300, 1000),
            (1600, 1000),
            (1000, 1000),
            (1300, 1000)
        ]
    );
}

#[test]
fn the_database_is_written_whole_then_updated_by_page_then_linked_and_a_refused_one_never_publishes()
 {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let graph = std::sync::Arc::new(RecordingGraph::default());
    let store = GenerationStore::new(dir.path()).with_graph(graph.clone());
    let lock = store.lock().unwrap();
    let first = store.publish(&lock, &pages(&["Sb"]), vec![]).unwrap();
    assert_eq!(graph.asked(), ["write [1, 2]"]);
    let database = |published: &kivgraph_store::Published| {
        let entry = published.manifest.graph.clone().expect("a database");
        published.directory.join(entry.file)
    };
    assert!(database(&first).is_file());
    let second = store.publish(&lock, &pages(&["Sb", "Sc"]), vec![]).unwrap();
    assert_eq!(graph.asked(), ["update [2]"]);
    let third = store.publish(&lock, &pages(&["Sb", "Sc"]), vec![]).unwrap();
    assert!(graph.asked().is_empty(), "nothing changed: linked");
    let inode = |path: std::path::PathBuf| std::fs::metadata(path).unwrap().ino();
    assert_eq!(inode(database(&second)), inode(database(&third)));

    graph
        .refuse
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let refused = store.publish(&lock, &pages(&["Sb"]), vec![]);
    assert!(
        matches!(&refused, Err(StoreError::Invalid { reason, .. }) if reason == "its canonical database: it does not hold what was written"),
        "{refused:?}"
    );
    assert_eq!(store.current().unwrap(), Some(third.id));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("generations"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|name| name.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_copy_made_while_the_pass_computes_is_the_one_updated_and_none_is_left_behind() {
    use std::sync::atomic::Ordering::Relaxed;
    let dir = tempfile::tempdir().unwrap();
    let graph = std::sync::Arc::new(RecordingGraph::default());
    let store = GenerationStore::new(dir.path()).with_graph(graph.clone());
    let lock = store.lock().unwrap();
    assert!(store.prepare_database(&lock).is_none(), "no database yet");
    store.publish(&lock, &pages(&["Sb"]), vec![]).unwrap();
    let generations = dir.path().join("generations");
    let leftovers = || -> Vec<String> {
        // A copy nobody used is removed by the thread making it once it is done.
        for _ in 0..200 {
            let names: Vec<String> = std::fs::read_dir(&generations)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
                .filter(|name| name.starts_with('.'))
                .collect();
            if names.is_empty() {
                return names;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::fs::read_dir(&generations)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|name| name.starts_with('.'))
            .collect()
    };
    let bytes =
        |published: &kivgraph_store::Published| published.manifest.graph.as_ref().unwrap().bytes;
    // What a process that died while copying left behind goes with the next publication.
    std::fs::create_dir(generations.join(".prepared-4194305-0")).unwrap();

    let prepared = store
        .prepare_database(&lock)
        .expect("the active generation's");
    let second = store
        .publish_prepared(&lock, &pages(&["Sb", "Sc"]), vec![], Some(prepared))
        .unwrap();
    assert_eq!(graph.asked(), ["write [1, 2]", "update [2]"]);
    assert_eq!(
        graph.copies.load(Relaxed),
        1,
        "the copy made ahead, not another"
    );
    assert_eq!(bytes(&second), 1300);
    assert_eq!(leftovers(), Vec::<String>::new());

    // Nothing changed: the database is linked, and the copy made for nothing removed.
    let unused = store.prepare_database(&lock).unwrap();
    store
        .publish_prepared(&lock, &pages(&["Sb", "Sc"]), vec![], Some(unused))
        .unwrap();
    assert!(graph.asked().is_empty());
    assert_eq!(leftovers(), Vec::<String>::new());

    // A copy of a database the publication no longer derives from is not used.
    store.publish(&lock, &pages(&["Sb"]), vec![]).unwrap(); // 1,600 bytes: the next is whole
    let whole = store.publish(&lock, &pages(&["Sb", "Sc"]), vec![]).unwrap();
    assert_eq!(bytes(&whole), 1000);
    graph.copies.store(0, Relaxed);
    let stale = store.prepare_database(&lock).unwrap();
    let derived = store.publish(&lock, &pages(&["Sb"]), vec![]).unwrap();
    assert_eq!(bytes(&derived), 1300);
    let from_derived = store
        .publish_prepared(&lock, &pages(&["Sb", "Sc"]), vec![], Some(stale))
        .unwrap();
    assert_eq!(
        bytes(&from_derived),
        1600,
        "derived from the active generation's"
    );
    assert_eq!(
        graph.copies.load(Relaxed),
        3,
        "the stale copy and one for each update"
    );
    assert_eq!(leftovers(), Vec::<String>::new());
}
