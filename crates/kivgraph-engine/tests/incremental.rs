//! The fact cache is salsa's memoization: a second pass after a one-file edit re-executes only
//! that file's extraction, and its result equals a cold pass over the edited tree.

use std::path::Path;

use kivgraph_config::{FactCacheMode, LanguageToken, RepositoryEntry};
use kivgraph_engine::{
    AnalyzerOptions, CacheIdentity, CacheLoad, EngineError, PassGraph, PassOptions, PassOutcome,
    run_pass,
};
use kivgraph_facts::FactSet;

mod support;

fn write(root: &Path, path: &str, text: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

fn fixture() -> (tempfile::TempDir, Vec<RepositoryEntry>) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    write(&repo, "go.mod", "module example.com/acme\n");
    write(&repo, "a.go", "package acme\n\ntype Server struct{}\n");
    write(
        &repo,
        "b.go",
        "package acme\n\nfunc (s *Server) Start() {}\n",
    );
    write(&repo, "lib/util.py", "def helper():\n    pass\n");
    write(&repo, "web/app.ts", "export function main(): void {}\n");
    let entry = RepositoryEntry {
        name: "acme".into(),
        path: repo,
        languages: vec![
            LanguageToken::Go,
            LanguageToken::Python,
            LanguageToken::Typescript,
        ],
        manifests: vec![],
        roots: vec![],
        exclusions: vec![],
    };
    (dir, vec![entry])
}

fn options(dir: &Path, mode: FactCacheMode, identity: &str) -> PassOptions {
    PassOptions {
        fact_cache: mode,
        cache_directory: dir.join("cache"),
        identity: CacheIdentity(identity.into()),
        analyzers: AnalyzerOptions::default(),
        published_generation: None,
    }
}

fn facts(outcome: &PassOutcome) -> FactSet {
    outcome.computed().expect("the pass computed its graph")
}

#[test]
fn warm_pass_reexecutes_only_the_edited_file() {
    let (dir, entries) = fixture();
    let on = options(dir.path(), FactCacheMode::On, "test-build");
    let cold = run_pass(&entries, &on, &|_| {}).unwrap();
    assert_eq!(cold.cache, CacheLoad::Absent);
    assert_eq!(cold.files_analyzed, 4);
    // The receiver declared in another file of the package is linked.
    let cold_facts = facts(&cold);
    let start = cold_facts
        .symbols
        .iter()
        .find(|s| s.qualified_name == "Server.Start")
        .unwrap();
    let server = cold_facts
        .symbols
        .iter()
        .find(|s| s.qualified_name == "Server")
        .unwrap();
    assert_eq!(start.parent, Some(server.key));

    let unchanged = run_pass(&entries, &on, &|_| {}).unwrap();
    assert_eq!(unchanged.cache, CacheLoad::Loaded);
    assert_eq!(unchanged.files_analyzed, 0);
    assert_eq!(facts(&unchanged), facts(&cold));

    write(
        &entries[0].path,
        "lib/util.py",
        "def helper():\n    pass\n\ndef added():\n    pass\n",
    );
    let warm = run_pass(&entries, &on, &|_| {}).unwrap();
    assert_eq!(warm.files_analyzed, 1);
    let fresh = run_pass(
        &entries,
        &options(dir.path(), FactCacheMode::Off, "test-build"),
        &|_| {},
    )
    .unwrap();
    assert_eq!(facts(&warm), facts(&fresh));
    assert!(
        facts(&warm)
            .symbols
            .iter()
            .any(|s| s.qualified_name == "added")
    );

    // Verify recomputes everything and agrees with an honest cache.
    let verified = run_pass(
        &entries,
        &options(dir.path(), FactCacheMode::Verify, "test-build"),
        &|_| {},
    )
    .unwrap();
    assert_eq!(facts(&verified), facts(&fresh));

    // Another build never trusts this cache.
    let foreign = run_pass(
        &entries,
        &options(dir.path(), FactCacheMode::On, "other-build"),
        &|_| {},
    )
    .unwrap();
    assert_eq!(foreign.cache, CacheLoad::Foreign);
    assert_eq!(foreign.files_analyzed, 4);
}

#[test]
fn unchanged_inputs_answer_with_the_generation_they_were_published_as() {
    let (dir, entries) = fixture();
    let served = |generation| PassOptions {
        published_generation: generation,
        ..options(dir.path(), FactCacheMode::On, "test-build")
    };
    let cold = run_pass(&entries, &served(None), &|_| {}).unwrap();
    assert!(cold.computed().is_some());
    cold.record_published(&served(None), 7).unwrap();

    let again = run_pass(&entries, &served(Some(7)), &|_| {}).unwrap();
    assert!(matches!(
        again.graph,
        PassGraph::Unchanged { generation: 7 }
    ));
    assert_eq!(again.cache, CacheLoad::NotNeeded);
    assert_eq!(again.inputs_digest, cold.inputs_digest);
    assert_eq!(again.repositories, cold.repositories);
    assert_eq!(again.files_total, cold.files_total);

    let computes = |options: &PassOptions| {
        run_pass(&entries, options, &|_| {})
            .unwrap()
            .computed()
            .is_some()
    };
    // Another generation is served (a rollback, a pass with the cache off): recompute.
    assert!(computes(&served(Some(6))));
    // `verify` and `off` never take the shortcut.
    for mode in [FactCacheMode::Verify, FactCacheMode::Off] {
        assert!(computes(&PassOptions {
            fact_cache: mode,
            ..served(Some(7))
        }));
    }
    // Another build, or another analyzer configuration, is another input.
    assert!(computes(&PassOptions {
        identity: CacheIdentity("other-build".into()),
        ..served(Some(7))
    }));
    assert!(computes(&PassOptions {
        analyzers: AnalyzerOptions {
            maximum_workers: 9,
            ..AnalyzerOptions::default()
        },
        ..served(Some(7))
    }));

    // One byte of one file changes the inputs.
    write(
        &entries[0].path,
        "lib/util.py",
        "def helper():\n    pass\n# edited\n",
    );
    let edited = run_pass(&entries, &served(Some(7)), &|_| {}).unwrap();
    assert_ne!(edited.inputs_digest, cold.inputs_digest);
    assert_eq!(edited.files_analyzed, 1);
    assert!(edited.computed().is_some());
}

#[test]
fn verify_names_the_first_disagreement() {
    let (dir, entries) = fixture();
    let on = options(dir.path(), FactCacheMode::On, "test-build");
    run_pass(&entries, &on, &|_| {}).unwrap();
    // Rewrite the cache so that it lies: restore the memos, then swap a file's content behind
    // the fingerprint's back (same fingerprint recorded, different text analysed now).
    let cache = dir.path().join("cache/engine.cache");
    let original = std::fs::read(&cache).unwrap();
    // A damaged file is refused whole: the database's body no longer matches its digest, a
    // value no longer matches its record's.
    let refused_once_damaged = |file: &Path| {
        let mut damaged = std::fs::read(file).unwrap();
        let last = damaged.len() - 1;
        damaged[last] ^= 1;
        std::fs::write(file, &damaged).unwrap();
        let refused = run_pass(&entries, &on, &|_| {}).unwrap();
        assert!(
            matches!(refused.cache, CacheLoad::Corrupt(_)),
            "{:?}",
            refused.cache
        );
    };
    refused_once_damaged(&cache);
    std::fs::write(&cache, &original).unwrap();
    // After a damaged value file the next save writes the values again.
    refused_once_damaged(&dir.path().join("cache/values.bin"));
    let reloaded = run_pass(&entries, &on, &|_| {}).unwrap();
    assert_eq!(reloaded.cache, CacheLoad::Loaded);
    support::cache_lie::make_cache_lie(&cache, b"Server", b"Z");
    let err = run_pass(
        &entries,
        &options(dir.path(), FactCacheMode::Verify, "test-build"),
        &|_| {},
    )
    .unwrap_err();
    match err {
        EngineError::VerifyMismatch {
            repository, path, ..
        } => {
            assert_eq!(repository, "acme");
            assert_eq!(path, "a.go");
        }
        other => panic!("unexpected {other}"),
    }
}

/// Watch mode through the engine API: one edited file costs one extraction and one package
/// merge; every other package is shared with the previous result.
#[test]
fn in_process_edit_reexecutes_one_file_and_one_package() {
    use kivgraph_engine::{Engine, load_repository};

    let (_dir, entries) = fixture();
    let load = || {
        vec![load_repository(
            kivgraph_discovery::discover_repository(&entries[0], &Default::default()).unwrap(),
        )]
    };
    let mut engine = Engine::new();
    engine.update(&load());
    let before = engine.facts(&|_| {});
    engine.execution_log().take();

    write(
        &entries[0].path,
        "b.go",
        "package acme\n\nfunc (s *Server) Start() {}\n\nfunc Added() {}\n",
    );
    engine.update(&load());
    let after = engine.facts(&|_| {});
    let log = engine.execution_log();
    assert_eq!(log.count("file_facts"), 1);
    assert_eq!(log.count("package_facts"), 1);
    assert_eq!(after.symbol_count(), before.symbol_count() + 1);
    // The packages the edit did not touch are the same values as before.
    let shared = before.repositories[0]
        .packages
        .iter()
        .zip(&after.repositories[0].packages)
        .filter(|(a, b)| a == b)
        .count();
    assert_eq!(shared, before.repositories[0].packages.len() - 1);
    // And the result is what a cold engine computes.
    let mut cold = Engine::new();
    cold.update(&load());
    assert_eq!(cold.facts(&|_| {}).to_fact_set(), after.to_fact_set());
}

/// A new process after a one-file edit: the engine restored from the fact cache re-executes
/// the edited file's extraction and the package queries that read it, and no query of any
/// other package (their memos are verified without being decoded).
#[test]
fn a_restored_engine_reexecutes_only_what_the_edit_reaches() {
    use kivgraph_engine::{Engine, load_repository};

    let (dir, entries) = fixture();
    let on = options(dir.path(), FactCacheMode::On, "test-build");
    run_pass(&entries, &on, &|_| {}).unwrap();
    write(
        &entries[0].path,
        "b.go",
        "package acme\n\nfunc (s *Server) Start() {}\n\nfunc Added() {}\n",
    );
    let load = || {
        vec![load_repository(
            kivgraph_discovery::discover_repository(&entries[0], &Default::default()).unwrap(),
        )]
    };
    let (mut engine, restored) = Engine::from_cache(&on.cache_directory, &on.identity);
    assert_eq!(restored, CacheLoad::Loaded);
    engine.execution_log().take();
    engine.update(&load());
    let after = engine.facts(&|_| {}).to_fact_set();
    let log = engine.execution_log();
    // One file, its package's queries, and the merges above: the Python and TypeScript
    // packages are not touched.
    assert_eq!(log.count("file_facts"), 1);
    for per_package in ["package_symbols", "package_facts", "analyzed_package_facts"] {
        assert_eq!(
            log.count(per_package),
            1,
            "{per_package}: {:?}",
            log.names()
        );
    }
    assert_eq!(log.count("repository_facts"), 1);
    let mut cold = Engine::new();
    cold.update(&load());
    assert_eq!(cold.facts(&|_| {}).to_fact_set(), after);
}

/// What a pass hands the store: pages whose identity moves with their facts alone. After an
/// edit of one package, that package's page alone has a new identity (the store lays out
/// that page and links the others); another build gives every page a new one.
#[test]
fn an_edit_changes_the_identity_of_its_page_alone() {
    use kivgraph_facts::{FactPage, page_of};

    let (dir, entries) = fixture();
    let identities = |identity: &str| -> Vec<Option<[u8; 32]>> {
        let outcome = run_pass(
            &entries,
            &options(dir.path(), FactCacheMode::On, identity),
            &|_| {},
        )
        .unwrap();
        match &outcome.graph {
            PassGraph::Computed(pages) => pages.iter().map(FactPage::identity).collect(),
            PassGraph::Unchanged { .. } => panic!("no generation was recorded"),
        }
    };
    let before = identities("test-build");
    assert!(before.iter().all(Option::is_some));
    write(
        &entries[0].path,
        "lib/util.py",
        "def helper():\n    pass\n\ndef added():\n    pass\n",
    );
    let after = identities("test-build");
    let python_page = fixture_package_key(&entries, "lib");
    let changed: Vec<usize> = (0..before.len())
        .filter(|page| before[*page] != after[*page])
        .collect();
    assert_eq!(changed, vec![page_of(&python_page) as usize]);
    let rebuilt = identities("other-build");
    assert!(rebuilt.iter().zip(&after).all(|(a, b)| a != b));
}

/// The key of the fixture's package at directory `path`, from a cold pass's facts.
fn fixture_package_key(entries: &[RepositoryEntry], path: &str) -> kivgraph_facts::StableKey {
    let dir = tempfile::tempdir().unwrap();
    let outcome = run_pass(
        entries,
        &options(dir.path(), FactCacheMode::Off, "test-build"),
        &|_| {},
    )
    .unwrap();
    facts(&outcome)
        .packages
        .iter()
        .find(|p| p.path == path)
        .expect("the fixture has the package")
        .key
}

/// The qualified names a pass declares, sorted.
fn names(outcome: &PassOutcome) -> Vec<String> {
    let mut names: Vec<String> = facts(outcome)
        .symbols
        .iter()
        .map(|s| s.qualified_name.clone())
        .collect();
    names.sort();
    names
}

/// A watcher's engine: kept between passes (the cache read once), a batch's repositories
/// read again and the others kept as read, the cache written only when asked — and the
/// facts those of a cold pass over the same tree, page identities included.
#[test]
fn a_warm_engine_reads_again_only_what_a_batch_touched() {
    use kivgraph_engine::{Reread, WarmEngine};
    use kivgraph_facts::FactPage;

    let (dir, mut entries) = fixture();
    let other = dir.path().join("other");
    write(&other, "go.mod", "module example.com/other\n");
    write(&other, "o.go", "package other\n\nfunc Other() {}\n");
    entries.push(RepositoryEntry {
        name: "other".into(),
        path: other.clone(),
        languages: vec![LanguageToken::Go],
        ..entries[0].clone()
    });
    let on = options(dir.path(), FactCacheMode::On, "test-build");
    let mut warm = WarmEngine::default();
    let first = warm
        .pass(&entries, &on, &|_| {}, Reread::All, true)
        .unwrap();
    assert_eq!(first.cache, CacheLoad::Absent);
    assert_eq!(first.files_analyzed, 5);
    let cache_file = dir.path().join("cache");
    let saved = std::fs::read_dir(&cache_file).unwrap().count();
    assert!(saved > 0);

    write(
        &entries[0].path,
        "lib/util.py",
        "def helper():\n    pass\n\ndef added():\n    pass\n",
    );
    // Changed too, but outside the batch: the warm pass keeps `other` as it was read.
    write(&other, "o.go", "package other\n\nfunc Renamed() {}\n");
    let touched = Reread::Touched(vec![entries[0].path.join("lib/util.py")]);
    let second = warm.pass(&entries, &on, &|_| {}, touched, false).unwrap();
    assert_eq!(second.cache, CacheLoad::Kept);
    assert_eq!(second.files_analyzed, 1);
    assert!(names(&second).contains(&"added".to_string()));
    assert!(names(&second).contains(&"Other".to_string()));

    let third = warm
        .pass(&entries, &on, &|_| {}, Reread::All, false)
        .unwrap();
    assert_eq!(third.files_analyzed, 1);
    let cold = run_pass(
        &entries,
        &options(dir.path(), FactCacheMode::Off, "test-build"),
        &|_| {},
    )
    .unwrap();
    assert_eq!(facts(&third), facts(&cold));
    // Pages of values computed in this process, never saved, have the identity a cold
    // pass's pages have.
    let identities = |outcome: &PassOutcome| -> Vec<Option<[u8; 32]>> {
        match &outcome.graph {
            PassGraph::Computed(pages) => pages.iter().map(FactPage::identity).collect(),
            PassGraph::Unchanged { .. } => panic!("computed"),
        }
    };
    assert!(identities(&third).iter().all(Option::is_some));
    assert_eq!(identities(&third), identities(&cold));
}

/// A batch of saves reads again the saved files alone; anything discovery decides — a file
/// added, a Go build constraint that now leaves a file out — reads the repository again.
#[test]
fn a_save_reads_again_the_saved_files_and_a_new_file_the_whole_repository() {
    use kivgraph_engine::{Reread, WarmEngine};

    let (dir, entries) = fixture();
    let repo = entries[0].path.clone();
    let on = options(dir.path(), FactCacheMode::On, "test-build");
    let mut warm = WarmEngine::default();
    // Persisted, as a watcher's first pass is: the source texts are dropped with the save.
    warm.pass(&entries, &on, &|_| {}, Reread::All, true)
        .unwrap();
    // What the pass superseded is freed between passes.
    warm.settle();

    // An editor's save: the text written to a temporary file renamed over the original.
    // A change the batch did not report (`web/app.ts`) is proof of what was not read again.
    write(
        &repo,
        "lib/util.py",
        "def helper():\n    pass\n\ndef saved():\n    pass\n",
    );
    write(
        &repo,
        "web/app.ts",
        "export function unreported(): void {}\n",
    );
    let saved = Reread::Touched(vec![
        repo.join("lib/util.py"),
        repo.join("lib/.util.py.swp"),
    ]);
    let second = warm.pass(&entries, &on, &|_| {}, saved, false).unwrap();
    warm.settle();
    assert_eq!(second.files_analyzed, 1);
    let after_save = names(&second);
    assert!(after_save.contains(&"saved".to_string()), "{after_save:?}");
    assert!(after_save.contains(&"main".to_string()), "{after_save:?}");
    assert!(!after_save.contains(&"unreported".to_string()));

    // A new file is discovery's: the repository is read again, the unreported change with it.
    write(&repo, "lib/added.py", "def added():\n    pass\n");
    let added = Reread::Touched(vec![repo.join("lib/added.py")]);
    let third = warm.pass(&entries, &on, &|_| {}, added, false).unwrap();
    let after_add = names(&third);
    assert!(after_add.contains(&"added".to_string()), "{after_add:?}");
    assert!(
        after_add.contains(&"unreported".to_string()),
        "{after_add:?}"
    );

    // A build constraint the build does not satisfy leaves the saved file out.
    write(
        &repo,
        "b.go",
        "//go:build ignore\n\npackage acme\n\nfunc (s *Server) Start() {}\n",
    );
    let constrained = Reread::Touched(vec![repo.join("b.go")]);
    let fourth = warm
        .pass(&entries, &on, &|_| {}, constrained, false)
        .unwrap();
    assert!(!names(&fourth).iter().any(|name| name.ends_with("Start")));
    let cold = run_pass(
        &entries,
        &options(dir.path(), FactCacheMode::Off, "test-build"),
        &|_| {},
    )
    .unwrap();
    assert_eq!(facts(&fourth), facts(&cold));
}
