//! What bounds an answer: the scopes the index could not read, and the `completeness` block
//! that names them.

use std::collections::HashSet;

use kivgraph_facts::EdgeKind;
use kivgraph_snapshot::SymbolView;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value, json};

use crate::published::Published;

const MAX_LISTED: usize = 20;

/// What the index could not read inside the search's scope: repositories or packages that
/// could not be read at all, and files the parser had to recover (declarations may be missing
/// there).
pub struct Scope {
    pub reason: String,
    pub repository: String,
    pub path: Option<String>,
    pub requested_package: Option<String>,
    pub detail: String,
    pub absolute: Option<String>,
}

/// Scopes that could not be read at all (rows without a file), and regions where a
/// declaration whose name `hides` accepts may be missing (parse errors outside function
/// bodies). One entry per place.
pub fn invisible_scopes(
    published: &Published,
    repo: Option<&str>,
    path_prefix: Option<&str>,
    hides: &dyn Fn(&str) -> bool,
) -> Vec<Scope> {
    let mut seen: HashSet<(String, Option<String>, String)> = HashSet::new();
    published
        .snapshot
        .unresolved_scopes()
        .filter(|u| u.file_path().is_none() || u.requested_symbol().is_some_and(hides))
        .filter(|u| {
            let place = (
                u.repository()
                    .map(|r| r.name().to_string())
                    .unwrap_or_default(),
                u.file_path().map(str::to_string),
                u.reason().to_string(),
            );
            seen.insert(place)
        })
        .filter_map(|u| {
            let repository = u.repository()?.name().to_string();
            if repo.is_some_and(|r| r != repository) {
                return None;
            }
            if let (Some(prefix), Some(file)) = (path_prefix, u.file_path())
                && !file.starts_with(prefix)
            {
                return None;
            }
            let absolute = u
                .file_path()
                .and_then(|f| absolute(published, &repository, f));
            Some(Scope {
                reason: u.reason().to_string(),
                repository,
                path: u.file_path().map(str::to_string),
                requested_package: u.requested_package().map(str::to_string),
                detail: u.detail().to_string(),
                absolute,
            })
        })
        .collect()
}

fn absolute(published: &Published, repository: &str, path: &str) -> Option<String> {
    published
        .repository_root(repository)
        .map(|root| root.join(path).display().to_string())
}

/// One reference the resolver recorded and could not follow.
pub struct BlindSpot {
    pub reason: String,
    pub repository: String,
    pub path: String,
    pub line: Option<u32>,
    pub requested_symbol: String,
    pub requested_package: Option<String>,
    pub detail: String,
    pub absolute: Option<String>,
}

/// The failures, anywhere in the graph, that asked for `name` (the last segment of what they
/// requested), in table order.
pub fn blind_spots(published: &Published, name: &str) -> Vec<BlindSpot> {
    published
        .snapshot
        .unresolved_requesting(name)
        .into_iter()
        .filter_map(|u| {
            let repository = u.repository()?.name().to_string();
            let path = u.file_path()?.to_string();
            Some(BlindSpot {
                absolute: absolute(published, &repository, &path),
                reason: u.reason().to_string(),
                repository,
                path,
                line: u.lines().map(|(start, _)| start),
                requested_symbol: u.requested_symbol().unwrap_or(name).to_string(),
                requested_package: u.requested_package().map(str::to_string),
                detail: u.detail().to_string(),
            })
        })
        .collect()
}

/// A file where the name is spelled more often than the graph explains, or where the subject
/// is bound under an import whose uses the syntax layer does not follow.
pub struct UnboundFile {
    pub absolute: Option<String>,
    /// Occurrences of the name no declaration, edge or recorded failure accounts for.
    pub unexplained: u32,
}

/// The files whose spelling of `name` the graph does not fully explain. Every occurrence of
/// the identifier is accounted for by a declaration of that name, by one observation backing
/// an edge into a declaration of that name, or by a recorded failure that asked for it; a file
/// with more occurrences than that holds a use nobody bound. Importers of `subject` are
/// listed too when `imports_hide_uses`: after an import the syntax layer binds no use, and an
/// alias spells the uses under another name.
pub fn unbound_mentions(
    published: &Published,
    name: &str,
    subject: Option<&SymbolView>,
    imports_hide_uses: bool,
) -> Vec<UnboundFile> {
    let snapshot = &published.snapshot;
    let census = snapshot.mentions(name);
    let mut explained: FxHashMap<usize, u32> = FxHashMap::default();
    let mut observations: FxHashSet<usize> = FxHashSet::default();
    for declaration in snapshot.symbols_named(name) {
        *explained.entry(declaration.file().index).or_default() += 1;
        for edge in snapshot.incoming(declaration.index) {
            if let Some(evidence) = edge.evidence()
                && observations.insert(evidence.index)
            {
                *explained.entry(evidence.file().index).or_default() += 1;
            }
        }
    }
    for failure in snapshot.unresolved_requesting(name) {
        if let (Some(repository), Some(path)) = (failure.repository(), failure.file_path())
            && let Some(file) = snapshot.file_by_path(repository.name(), path)
        {
            *explained.entry(file.index).or_default() += 1;
        }
    }
    let mut importers: Vec<usize> = Vec::new();
    if imports_hide_uses && let Some(subject) = subject {
        for edge in snapshot.incoming(subject.index) {
            if edge.kind() == EdgeKind::ImportsSymbol
                && let Some(evidence) = edge.evidence()
            {
                importers.push(evidence.file().index);
            }
        }
    }
    let mut unbound: Vec<(usize, u32)> = census
        .into_iter()
        .filter_map(|(file, count)| {
            let excess = count.saturating_sub(explained.get(&file).copied().unwrap_or(0));
            (excess > 0).then_some((file, excess))
        })
        .collect();
    for file in importers {
        if !unbound.iter().any(|(f, _)| *f == file) {
            unbound.push((file, 0));
        }
    }
    unbound.sort_unstable();
    unbound
        .into_iter()
        .filter_map(|(file, unexplained)| {
            let file = snapshot.file(file)?;
            Some(UnboundFile {
                absolute: absolute(published, file.repository().name(), file.path()),
                unexplained,
            })
        })
        .collect()
}

/// Everything that bounds one answer.
#[derive(Default)]
pub struct Bounds {
    pub scopes: Vec<Scope>,
    pub blind_spots: Vec<BlindSpot>,
    pub unbound: Vec<UnboundFile>,
    /// Why uses of the subject may exist that no file spells under its name.
    pub not_followed: Option<&'static str>,
    /// Per language the walk crossed, the relations it was asked to follow that the pass did
    /// not extract there (the manifest's `resolved_relations`).
    pub unextracted: Vec<(String, Vec<String>)>,
}

impl Bounds {
    pub fn is_complete(&self) -> bool {
        self.scopes.is_empty()
            && self.blind_spots.is_empty()
            && self.unbound.is_empty()
            && self.not_followed.is_none()
            && self.unextracted.is_empty()
    }
}

/// The `completeness` block: `COMPLETE`, or `LOWER_BOUND` naming what could not be read, with
/// a `\bname\b` fallback over the unread files when the question names a symbol.
pub fn completeness(name: Option<&str>, scopes: Vec<Scope>) -> Value {
    bounded(
        name,
        &Bounds {
            scopes,
            ..Bounds::default()
        },
    )
}

/// [`completeness`] for an answer bounded by failures and unexplained spellings too.
pub fn bounded(name: Option<&str>, bounds: &Bounds) -> Value {
    if bounds.is_complete() {
        return json!({"verdict": "COMPLETE"});
    }
    let mut block = Map::new();
    block.insert("verdict".into(), json!("LOWER_BOUND"));
    if !bounds.scopes.is_empty() {
        let listed = bounds
            .scopes
            .iter()
            .take(MAX_LISTED)
            .map(scope_entry)
            .collect();
        block.insert("invisible_scopes".into(), Value::Array(listed));
        if bounds.scopes.len() > MAX_LISTED {
            block.insert(
                "more_invisible_scopes".into(),
                json!(bounds.scopes.len() - MAX_LISTED),
            );
        }
    }
    if !bounds.blind_spots.is_empty() {
        let listed = bounds
            .blind_spots
            .iter()
            .take(MAX_LISTED)
            .map(blind_spot_entry)
            .collect();
        block.insert("blind_spots".into(), Value::Array(listed));
        if bounds.blind_spots.len() > MAX_LISTED {
            block.insert(
                "more_blind_spots".into(),
                json!(bounds.blind_spots.len() - MAX_LISTED),
            );
        }
    }
    if !bounds.unbound.is_empty() {
        let occurrences: u32 = bounds.unbound.iter().map(|u| u.unexplained).sum();
        block.insert(
            "unbound_uses".into(),
            json!({"files": bounds.unbound.len(), "occurrences": occurrences}),
        );
    }
    if let Some(reason) = bounds.not_followed {
        block.insert("not_followed".into(), json!(reason));
    }
    if !bounds.unextracted.is_empty() {
        let entries: Vec<Value> = bounds
            .unextracted
            .iter()
            .map(|(language, relations)| json!({"language": language, "relations": relations}))
            .collect();
        block.insert("unextracted_relations".into(), Value::Array(entries));
    }
    let mut paths: Vec<&String> = Vec::new();
    let candidates = bounds
        .scopes
        .iter()
        .filter_map(|s| s.absolute.as_ref())
        .chain(
            bounds
                .blind_spots
                .iter()
                .filter_map(|b| b.absolute.as_ref()),
        )
        .chain(bounds.unbound.iter().filter_map(|u| u.absolute.as_ref()));
    for path in candidates {
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    if let Some(name) = name
        && !paths.is_empty()
    {
        let mut fallback = Map::new();
        fallback.insert(
            "pattern".into(),
            json!(format!("\\b{}\\b", escape_regex(name))),
        );
        fallback.insert(
            "paths".into(),
            json!(paths.iter().take(MAX_LISTED).collect::<Vec<_>>()),
        );
        if paths.len() > MAX_LISTED {
            fallback.insert("more_paths".into(), json!(paths.len() - MAX_LISTED));
        }
        block.insert("fallback".into(), Value::Object(fallback));
    }
    Value::Object(block)
}

fn scope_entry(scope: &Scope) -> Value {
    let mut entry = Map::new();
    entry.insert("reason".into(), json!(scope.reason));
    entry.insert("repository".into(), json!(scope.repository));
    if let Some(path) = &scope.path {
        entry.insert("path".into(), json!(path));
    }
    if let Some(package) = &scope.requested_package {
        entry.insert("requested_package".into(), json!(package));
    }
    entry.insert("detail".into(), json!(scope.detail));
    Value::Object(entry)
}

fn blind_spot_entry(spot: &BlindSpot) -> Value {
    let mut entry = Map::new();
    entry.insert("reason".into(), json!(spot.reason));
    entry.insert("repository".into(), json!(spot.repository));
    entry.insert("path".into(), json!(spot.path));
    if let Some(line) = spot.line {
        entry.insert("line".into(), json!(line));
    }
    entry.insert("requested_symbol".into(), json!(spot.requested_symbol));
    if let Some(package) = &spot.requested_package {
        entry.insert("requested_package".into(), json!(package));
    }
    entry.insert("detail".into(), json!(spot.detail));
    Value::Object(entry)
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
