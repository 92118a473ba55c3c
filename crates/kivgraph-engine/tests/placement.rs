//! The pages a pass hands the store, as a workspace with one large package lays them out:
//! the large package holds its page alone, the small packages whose key falls in that page
//! go to other pages, and an edit of one of them changes that one's page, not the large one.

use std::collections::BTreeMap;
use std::path::Path;

use kivgraph_config::{FactCacheMode, LanguageToken, RepositoryEntry};
use kivgraph_engine::{AnalyzerOptions, CacheIdentity, PassGraph, PassOptions, run_pass};
use kivgraph_facts::{FactPage, OWN_PAGE_BYTES, StableKey, page_of};

fn write(root: &Path, path: &str, text: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

/// Each package's page and key, by name.
type Placed = BTreeMap<String, (u32, StableKey)>;

/// Each page's identity, and where each package went.
fn pass(repository: &RepositoryEntry, dir: &Path) -> (Vec<[u8; 32]>, Placed) {
    let options = PassOptions {
        fact_cache: FactCacheMode::On,
        cache_directory: dir.join("cache"),
        identity: CacheIdentity("test-build".into()),
        analyzers: AnalyzerOptions::default(),
        published_generation: None,
    };
    let outcome = run_pass(std::slice::from_ref(repository), &options, &|_| {}).unwrap();
    let PassGraph::Computed(pages) = &outcome.graph else {
        panic!("the pass computed its graph");
    };
    let mut placed = BTreeMap::new();
    for page in pages {
        for package in page.facts().packages {
            placed.insert(package.name, (page.number(), package.key));
        }
    }
    let identities = pages.iter().map(|p| p.identity().unwrap()).collect();
    (identities, placed)
}

#[test]
fn a_package_of_a_megabyte_holds_its_page_alone_and_a_small_one_of_that_page_moves() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let mut large = String::new();
    let mut n = 0;
    while (large.len() as u64) < OWN_PAGE_BYTES {
        large.push_str(&format!(
            "def handler_{n}(request):\n    return request\n\n"
        ));
        n += 1;
    }
    write(&root, "large/handlers.py", &large);
    for n in 0..300 {
        write(
            &root,
            &format!("small{n}/views.py"),
            "def view():\n    pass\n",
        );
    }
    let repository = RepositoryEntry {
        name: "site".into(),
        path: root.clone(),
        languages: vec![LanguageToken::Python],
        manifests: vec![],
        roots: vec![],
        exclusions: vec![],
    };
    let (before, placed) = pass(&repository, dir.path());
    let (large_page, _) = placed["large"];
    let sharing: Vec<&String> = placed
        .iter()
        .filter(|(name, (page, _))| *name != "large" && *page == large_page)
        .map(|(name, _)| name)
        .collect();
    assert!(
        sharing.is_empty(),
        "{sharing:?} share the large package's page"
    );
    // Small packages whose key falls in the large package's page: placed elsewhere.
    let moved: Vec<&String> = placed
        .iter()
        .filter(|(name, (_, key))| *name != "large" && page_of(key) == large_page)
        .map(|(name, _)| name)
        .collect();
    assert!(
        !moved.is_empty(),
        "some small package's key falls in page {large_page}"
    );

    let edited = moved[0];
    write(
        &root,
        &format!("{edited}/views.py"),
        "def view():\n    pass\n\ndef added():\n    pass\n",
    );
    let (after, _) = pass(&repository, dir.path());
    let changed: Vec<u32> = (0..before.len() as u32)
        .filter(|page| before[*page as usize] != after[*page as usize])
        .collect();
    assert_eq!(changed, vec![placed[edited].0]);
}
