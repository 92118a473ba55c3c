//! A published generation built in memory, for tests of a tool's semantics without a
//! process: two Go repositories, `core` declaring `Parse` and `Config`, and `app`, whose
//! `main` calls `Parse` (an exact edge, observed) and asks for a `Missing` nobody declares.

use kivgraph_facts::*;
use kivgraph_snapshot::{Snapshot, write_page, write_root};
use kivgraph_store::{Counts, Digests, GenerationId, Manifest, RepositoryState};

use crate::published::Published;

pub(crate) fn key(text: &str) -> StableKey {
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

struct Repo {
    name: &'static str,
    package: PackageFact,
}

impl Repo {
    fn new(name: &'static str) -> Self {
        Repo {
            name,
            package: PackageFact {
                key: key(&format!("{name}/pkg")),
                repository: name.into(),
                language: Language::Go,
                name: format!("example.com/{name} example.com/{name}"),
                path: String::new(),
            },
        }
    }

    fn repository(&self) -> RepositoryFact {
        RepositoryFact {
            key: key(self.name),
            name: self.name.into(),
            root: format!("/src/{}", self.name),
            languages: vec![Language::Go],
        }
    }

    fn file(&self, path: &str, mentions: &[(&str, u32)]) -> FileFact {
        FileFact {
            key: key(&format!("{}/{path}", self.name)),
            repository: self.name.into(),
            path: path.into(),
            language: Language::Go,
            package: self.package.key,
            fingerprint: Fingerprint::of(path.as_bytes()),
            line_count: 20,
            byte_len: 200,
            parse_issues: vec![],
            mentions: mentions
                .iter()
                .map(|(name, count)| Mention {
                    name: name.to_string(),
                    count: *count,
                })
                .collect(),
        }
    }

    fn symbol(&self, path: &str, name: &str, kind: SymbolKind, line: u32) -> SymbolFact {
        SymbolFact {
            key: key(&format!("{}/{path}:{name}", self.name)),
            repository: self.name.into(),
            language: Language::Go,
            package: self.package.key,
            file_path: path.into(),
            name: name.into(),
            qualified_name: name.into(),
            kind,
            signature: format!("func {name}()"),
            exported: name.starts_with(char::is_uppercase),
            span: span(line, line + 2),
            doc: None,
            parent: None,
            key_module: String::new(),
            key_discriminator: String::new(),
        }
    }
}

/// The two repositories' facts, canonical.
pub(crate) fn facts() -> FactSet {
    let (core, app) = (Repo::new("core"), Repo::new("app"));
    let parse = core.symbol("parse.go", "Parse", SymbolKind::Func, 3);
    let config = core.symbol("parse.go", "Config", SymbolKind::Type, 8);
    let main = app.symbol("main.go", "main", SymbolKind::Func, 5);
    let seen = Evidence {
        key: key("app/main.go:6"),
        repository: "app".into(),
        file_path: "main.go".into(),
        span: span(6, 6),
    };
    let mut facts = FactSet {
        repositories: vec![core.repository(), app.repository()],
        packages: vec![core.package.clone(), app.package.clone()],
        files: vec![
            core.file("parse.go", &[("Parse", 1), ("Config", 1)]),
            app.file("main.go", &[("main", 1), ("Parse", 1), ("Missing", 1)]),
        ],
        edges: vec![Edge {
            kind: EdgeKind::CallsDirect,
            source: main.key,
            target: parse.key,
            confidence: Confidence::ExactTypechecked,
            provenance: Provenance::GoTypesUse,
            evidence: Some(seen.key),
        }],
        symbols: vec![parse, config, main],
        evidence: vec![seen],
        unresolved: vec![UnresolvedReference {
            repository: "app".into(),
            language: Language::Go,
            reason: Reason::NameNotResolved,
            file_path: Some("main.go".into()),
            span: Some(span(7, 7)),
            requested_symbol: Some("Missing".into()),
            requested_package: None,
            detail: "no declaration of Missing".into(),
        }],
    };
    facts.canonicalize();
    facts
}

/// `facts` laid out as one page and published as generation 1.
pub(crate) fn published(facts: &FactSet) -> Published {
    let page = write_page(0, facts, &|_| None).expect("the facts lay out");
    let root = write_root(1, &[(0, page.digest)]);
    let snapshot = Snapshot::from_parts(root, vec![page.bytes]).expect("the snapshot opens");
    let manifest = Manifest {
        generation_id: GenerationId(1),
        format: 2,
        kivgraph_version: "test".into(),
        built_at: "2026-12-04T00:00:00Z".into(),
        built_at_unix_ms: 0,
        counts: Counts::default(),
        digests: Digests {
            facts: String::new(),
            snapshot_payload: String::new(),
        },
        repositories: facts
            .repositories
            .iter()
            .map(|r| RepositoryState {
                name: r.name.clone(),
                path: r.root.clone(),
                languages: vec!["go".into()],
                ..RepositoryState::default()
            })
            .collect(),
        pages: vec![],
        graph: None,
    };
    Published::from_parts(GenerationId(1), snapshot, manifest)
}

fn answer(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("answers are JSON")
}

/// What `query` answers over `published`, as its tool renders it.
pub(crate) fn rendered(
    published: &Published,
    query: Result<(crate::envelope::Page, crate::args::View), crate::error::QueryError>,
) -> serde_json::Value {
    let (page, view) = query.expect("the query answers");
    answer(&page.render(Some(published), view, None))
}
