//! What bounds an answer: the scopes the index could not read, and the `completeness` block
//! that names them.

use kivgraph_facts::{EdgeKind, Language, Reason};
use kivgraph_snapshot::{FileView, SymbolView, UnresolvedView};
use rustc_hash::FxHashSet;
use serde::Serialize;
use serde_json::Value;

use crate::envelope::to_value;
use crate::published::Published;
use crate::reach::Reach;

const MAX_LISTED: usize = 20;

/// What the index could not read inside the search's scope: repositories or packages that
/// could not be read at all, and files the parser had to recover (declarations may be missing
/// there).
pub struct Scope {
    pub reason: String,
    pub language: Language,
    pub repository: String,
    pub path: Option<String>,
    pub requested_package: Option<String>,
    pub detail: String,
}

/// Which declaration names a recovered region matters for.
pub enum Hidden<'h> {
    /// Exactly these names (the failures index finds their regions directly).
    Named(&'h [&'h str]),
    /// Any name the predicate accepts (every recovered region is read).
    Matching(&'h dyn Fn(&str) -> bool),
}

/// Scopes that could not be read at all (rows without a file), and regions where a
/// declaration whose name `hidden` covers may be missing (parse errors outside function
/// bodies). One entry per place.
pub fn invisible_scopes(
    published: &Published,
    repo: Option<&str>,
    path_prefix: Option<&str>,
    hidden: Hidden,
) -> Vec<Scope> {
    let snapshot = &published.snapshot;
    let regions: Vec<UnresolvedView> = match hidden {
        Hidden::Named(names) => snapshot
            .unresolved_scopes(repo)
            .filter(|u| u.file_path().is_none())
            .chain(names.iter().flat_map(|name| {
                snapshot
                    .unresolved_requesting(name)
                    .into_iter()
                    .filter(|u| u.reason() == "PARSE_ERROR")
            }))
            .collect(),
        Hidden::Matching(hides) => snapshot
            .unresolved_scopes(repo)
            .filter(|u| u.file_path().is_none() || u.requested_symbol().is_some_and(hides))
            .collect(),
    };
    let mut seen: FxHashSet<(&str, Option<&str>, &str)> = FxHashSet::default();
    let mut scopes = Vec::new();
    for u in regions {
        // A package the configured build excludes holds no code of that build: no use can
        // hide there (it is counted in graph_status all the same).
        if u.reason() == Reason::PackageNotBuildable.as_str() {
            continue;
        }
        let Some(repository) = u.repository().map(|r| r.name()) else {
            continue;
        };
        let file = u.file_path();
        if repo.is_some_and(|r| r != repository)
            || file.is_some_and(|f| path_prefix.is_some_and(|p| !f.starts_with(p)))
            || !seen.insert((repository, file, u.reason()))
        {
            continue;
        }
        scopes.push(Scope {
            reason: u.reason().to_string(),
            language: u.language(),
            repository: repository.to_string(),
            path: file.map(str::to_string),
            requested_package: u.requested_package().map(str::to_string),
            detail: u.detail().to_string(),
        });
    }
    scopes.sort_by(|a, b| {
        (&a.repository, &a.path, &a.reason).cmp(&(&b.repository, &b.path, &b.reason))
    });
    scopes
}

fn absolute(published: &Published, repository: &str, path: &str) -> Option<String> {
    published
        .repository_root(repository)
        .map(|root| root.join(path).display().to_string())
}

/// Whether code of `consumer` can use a declaration of `subject`'s language: TypeScript and
/// JavaScript use each other; no other language crosses. What could not be read or bound in
/// another language bounds no answer about the subject.
pub fn could_use(subject: Language, consumer: Language) -> bool {
    subject.analyzed_as() == consumer.analyzed_as()
}

/// The failures, anywhere in the graph, that asked for `name` (the last segment of what they
/// requested) in code that could use a declaration of `language`, by repository, file and
/// line. Rows without a file are scopes, not sites.
pub fn blind_spots<'a>(
    published: &'a Published,
    name: &str,
    language: Language,
) -> Vec<UnresolvedView<'a>> {
    let mut spots: Vec<UnresolvedView> = published
        .snapshot
        .unresolved_requesting(name)
        .into_iter()
        .filter(|u| u.file_path().is_some() && could_use(language, u.language()))
        .collect();
    spots.sort_by_cached_key(|u| {
        (
            u.repository().map(|r| r.index),
            u.file_path(),
            u.lines(),
            u.reason(),
            u.requested_symbol(),
            u.index,
        )
    });
    spots
}

/// A file where the name is spelled more often than the graph explains (how many times), or
/// where the subject is bound under an import whose uses the syntax layer does not follow (0).
pub type UnboundFile<'a> = (FileView<'a>, u32);

/// The files whose spelling of `name` (when given) the graph does not fully explain (the
/// snapshot's unexplained census: every occurrence must be a declaration of that name, one
/// observation backing an edge into a declaration of that name, or a recorded failure that
/// asked for it); a file with more occurrences than that holds a use nobody bound.
/// Importers of `subject` are listed too unless an exact analyzer read its language
/// everywhere: after an import the syntax layer binds no use, and an alias spells the uses
/// under another name.
pub fn unbound_mentions<'a>(
    published: &'a Published,
    name: Option<&str>,
    subject: Option<&SymbolView>,
) -> Vec<UnboundFile<'a>> {
    let snapshot = &published.snapshot;
    let mut unbound: Vec<(usize, u32)> =
        name.map_or_else(Vec::new, |name| snapshot.unexplained_mentions(name));
    // An exact analyzer binds the uses after an import, aliases included.
    let imports_hide_uses = subject.is_some_and(|s| !published.analyzed_everywhere(s.language()));
    if imports_hide_uses && let Some(subject) = subject {
        let mut listed: FxHashSet<usize> = unbound.iter().map(|(f, _)| *f).collect();
        for edge in snapshot.incoming(subject.index) {
            if edge.kind() == EdgeKind::ImportsSymbol
                && let Some(file) = edge.evidence().and_then(|e| e.file())
                && listed.insert(file.index)
            {
                unbound.push((file.index, 0));
            }
        }
    }
    // A file that cannot use the subject's language, or cannot import its package, holds
    // no use of it; a file listed for importing the subject can.
    let reach = subject.map(|s| Reach::of(published, s));
    let mut unbound: Vec<UnboundFile> = unbound
        .into_iter()
        .filter_map(|(file, unexplained)| Some((snapshot.file(file)?, unexplained)))
        .filter(|(file, unexplained)| {
            subject.is_none_or(|s| could_use(s.language(), file.language()))
                && reach
                    .as_ref()
                    .is_none_or(|r| *unexplained == 0 || r.file(published, file))
        })
        .collect();
    // In the fact set's file order (repository, package, path), whatever page a file is on.
    unbound.sort_by_cached_key(|(file, _)| {
        (file.repository().index, file.package().key(), file.path())
    });
    unbound
}

/// Everything that bounds one answer, as views into the snapshot: only what the block lists
/// is spelled out.
#[derive(Default)]
pub struct Bounds<'a> {
    pub scopes: Vec<Scope>,
    pub blind_spots: Vec<UnresolvedView<'a>>,
    pub unbound: Vec<UnboundFile<'a>>,
    /// Why uses of the subject may exist that no file spells under its name.
    pub not_followed: Option<String>,
    /// Per language the walk crossed, the relations it was asked to follow that the pass did
    /// not extract there (the manifest's `resolved_relations`).
    pub unextracted: Vec<(String, Vec<String>)>,
}

impl Bounds<'_> {
    pub fn is_complete(&self) -> bool {
        self.scopes.is_empty()
            && self.blind_spots.is_empty()
            && self.unbound.is_empty()
            && self.not_followed.is_none()
            && self.unextracted.is_empty()
    }
}

/// The `completeness` block: `COMPLETE`, or `LOWER_BOUND` naming what could not be read, with
/// a `\\bname\\b` fallback over the unread files when the question names a symbol.
pub fn completeness(published: &Published, name: Option<&str>, scopes: Vec<Scope>) -> Value {
    bounded(
        published,
        name,
        &Bounds {
            scopes,
            ..Bounds::default()
        },
    )
}

/// The `completeness` block, as it is written: absent lists and counts are left out.
#[derive(Serialize)]
struct Completeness<'a> {
    verdict: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    invisible_scopes: Vec<ScopeEntry<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    more_invisible_scopes: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    blind_spots: Vec<BlindSpot<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    more_blind_spots: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unbound_uses: Option<UnboundUses>,
    #[serde(skip_serializing_if = "Option::is_none")]
    not_followed: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unextracted_relations: Vec<Unextracted<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fallback: Option<Fallback>,
}

/// A scope the pass could not read.
#[derive(Serialize)]
struct ScopeEntry<'a> {
    reason: &'a str,
    repository: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    requested_package: Option<&'a str>,
    detail: &'a str,
}

/// A failure that asked for the name.
#[derive(Serialize)]
struct BlindSpot<'a> {
    reason: &'a str,
    repository: &'a str,
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    requested_symbol: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    requested_package: Option<&'a str>,
    detail: &'a str,
}

#[derive(Serialize)]
struct UnboundUses {
    files: usize,
    occurrences: u32,
}

/// Relations a language's pass did not extract.
#[derive(Serialize)]
struct Unextracted<'a> {
    language: &'a str,
    relations: &'a [String],
}

/// What to grep, and where.
#[derive(Serialize)]
struct Fallback {
    pattern: String,
    paths: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    more_paths: Option<usize>,
}

/// Beyond the first `MAX_LISTED`, how many more there are.
fn more(len: usize) -> Option<usize> {
    (len > MAX_LISTED).then(|| len - MAX_LISTED)
}

/// [`completeness`] for an answer bounded by failures and unexplained spellings too.
pub fn bounded(published: &Published, name: Option<&str>, bounds: &Bounds) -> Value {
    if bounds.is_complete() {
        return to_value(&Completeness {
            verdict: "COMPLETE",
            ..Completeness::lower_bound()
        });
    }
    let block = Completeness {
        invisible_scopes: bounds
            .scopes
            .iter()
            .take(MAX_LISTED)
            .map(|scope| ScopeEntry {
                reason: &scope.reason,
                repository: &scope.repository,
                path: scope.path.as_deref(),
                requested_package: scope.requested_package.as_deref(),
                detail: &scope.detail,
            })
            .collect(),
        more_invisible_scopes: more(bounds.scopes.len()),
        blind_spots: bounds
            .blind_spots
            .iter()
            .take(MAX_LISTED)
            .map(|spot| BlindSpot {
                reason: spot.reason(),
                repository: spot.repository().map_or("", |r| r.name()),
                path: spot.file_path().unwrap_or(""),
                line: spot.lines().map(|(line, _)| line),
                requested_symbol: spot.requested_symbol().unwrap_or(""),
                requested_package: spot.requested_package(),
                detail: spot.detail(),
            })
            .collect(),
        more_blind_spots: more(bounds.blind_spots.len()),
        unbound_uses: (!bounds.unbound.is_empty()).then(|| UnboundUses {
            files: bounds.unbound.len(),
            occurrences: bounds.unbound.iter().map(|(_, n)| n).sum(),
        }),
        not_followed: bounds.not_followed.as_deref(),
        unextracted_relations: bounds
            .unextracted
            .iter()
            .map(|(language, relations)| Unextracted {
                language,
                relations,
            })
            .collect(),
        fallback: name.and_then(|name| fallback(published, name, bounds)),
        ..Completeness::lower_bound()
    };
    to_value(&block)
}

impl Completeness<'_> {
    fn lower_bound() -> Self {
        Completeness {
            verdict: "LOWER_BOUND",
            invisible_scopes: Vec::new(),
            more_invisible_scopes: None,
            blind_spots: Vec::new(),
            more_blind_spots: None,
            unbound_uses: None,
            not_followed: None,
            unextracted_relations: Vec::new(),
            fallback: None,
        }
    }
}

/// The files to grep for `name`: unread files, then the sites of failures, then the files
/// whose spelling of the name is unexplained; each once, only the listed ones spelled out.
fn fallback(published: &Published, name: &str, bounds: &Bounds) -> Option<Fallback> {
    let places = bounds
        .scopes
        .iter()
        .filter_map(|s| Some((s.repository.as_str(), s.path.as_deref()?)))
        .chain(
            bounds
                .blind_spots
                .iter()
                .filter_map(|u| Some((u.repository()?.name(), u.file_path()?))),
        )
        .chain(
            bounds
                .unbound
                .iter()
                .map(|(file, _)| (file.repository().name(), file.path())),
        );
    let mut seen: FxHashSet<(&str, &str)> = FxHashSet::default();
    let mut paths: Vec<String> = Vec::new();
    for (repository, path) in places {
        if seen.insert((repository, path))
            && paths.len() < MAX_LISTED
            && let Some(absolute) = absolute(published, repository, path)
        {
            paths.push(absolute);
        }
    }
    (!paths.is_empty()).then(|| Fallback {
        pattern: format!("\\b{}\\b", escape_regex(name)),
        paths,
        more_paths: more(seen.len()),
    })
}

fn escape_regex(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if "\\.+*?()|[]{}^$#&-~".contains(c) {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect()
}

/// For each language among `languages` (with the repository it was indexed in), the
/// relations of `asked` the manifest does not list as resolved there. A repository the
/// manifest does not describe resolved nothing it can vouch for.
pub fn unextracted_relations(
    published: &Published,
    languages: &std::collections::BTreeSet<(String, String)>,
    asked: &[EdgeKind],
) -> Vec<(String, Vec<String>)> {
    let mut missing: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        std::collections::BTreeMap::new();
    for (repository, language) in languages {
        let resolved = published
            .manifest
            .repositories
            .iter()
            .find(|r| &r.name == repository)
            .and_then(|r| r.resolved_relations.get(language));
        for kind in asked {
            if !resolved.is_some_and(|list| list.iter().any(|k| k == kind.as_str())) {
                missing
                    .entry(language.clone())
                    .or_default()
                    .insert(kind.as_str().to_string());
            }
        }
    }
    missing
        .into_iter()
        .map(|(language, kinds)| (language, kinds.into_iter().collect()))
        .collect()
}
