//! `find_cross_repo_consumers`: who, outside a symbol's repository, uses it or depends on the
//! package that declares it — uses, candidates, package dependencies and failed requests kept
//! in separate categories, never summed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use kivgraph_facts::{Confidence, EdgeKind, Language};
use kivgraph_snapshot::{EdgeView, NodeRef, PackageView, SymbolView, UnresolvedView};
use rustc_hash::FxHashSet;

use crate::args::{Limit, PageArgs, PageLimits, ResponseFormat, View, language, trimmed};
use crate::cursor::QueryIdentity;
use crate::envelope::{Coverage, Page, flat_or_grouped, hoist_agreed, to_map, to_value};
use crate::error::QueryError;
use crate::holder::{Holder, HolderFields, bound_under_other_names};
use crate::packages::package_and_module;
use crate::published::Published;
use crate::reach::{Reach, display_package};
use crate::scopes::{Bounds, Hidden, bounded, could_use, invisible_scopes, unbound_mentions};
use crate::selector::SelectorArgs;

const SORTING: &str = "consumers-v1";
/// The columns that rise into the header when every row carrying them agrees, and (the
/// first six) that build the groups of the second tier.
const HOISTED: [&str; 8] = [
    "category",
    "edge_kind",
    "confidence",
    "provenance",
    "evidence_kind",
    "reason",
    "requested_package",
    "requested_symbol",
];
const GROUPED: usize = 6;

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct CrossRepoConsumersArgs {
    #[serde(flatten)]
    pub selector: SelectorArgs,
    /// Keeps consumers in this repository.
    pub repo: Option<String>,
    /// Keeps consumers of this language.
    pub language: Option<String>,
    #[serde(flatten)]
    pub page: PageArgs,
    #[schemars(extend("enum" = ["compact", "full"], "default" = "compact"))]
    pub view: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Category {
    ExactSymbol,
    Candidate,
    Package,
    Unresolved,
}

impl Category {
    fn as_str(self) -> &'static str {
        match self {
            Category::ExactSymbol => "exact_symbol",
            Category::Candidate => "candidate",
            Category::Package => "package",
            Category::Unresolved => "unresolved",
        }
    }
}

/// One consumer fact.
enum Consumer<'a> {
    /// A reference from a declaration of another repository.
    Use {
        holder: Holder<'a>,
        edge: EdgeView<'a>,
    },
    /// A package of another repository depending on the subject's package, and why the
    /// graph knows no more of it than that.
    Dependency {
        package: PackageView<'a>,
        edge: EdgeView<'a>,
        why: &'static str,
    },
    /// A failed request another repository made for the symbol or its package.
    Failure(UnresolvedView<'a>),
}

impl<'a> Consumer<'a> {
    fn category(&self) -> Category {
        match self {
            Consumer::Use { edge, .. } if edge.confidence().is_exact() => Category::ExactSymbol,
            Consumer::Use { edge, .. } if edge.confidence() == Confidence::Unresolved => {
                Category::Unresolved
            }
            Consumer::Use { .. } => Category::Candidate,
            Consumer::Dependency { .. } => Category::Package,
            Consumer::Failure(_) => Category::Unresolved,
        }
    }

    fn repository(&self) -> &'a str {
        match self {
            Consumer::Use { holder, .. } => holder.repository(),
            Consumer::Dependency { package, .. } => package.repository().name(),
            Consumer::Failure(row) => row.repository().map_or("", |r| r.name()),
        }
    }

    fn language(&self) -> &'static str {
        match self {
            Consumer::Use { holder, .. } => holder.file().language().as_str(),
            Consumer::Dependency { package, .. } => package.language().as_str(),
            Consumer::Failure(row) => row.language().as_str(),
        }
    }

    /// (category, repository, path, line, name, edge position) for `consumers-v1`.
    fn sort_key(&self) -> (Category, &'a str, &'a str, u32, &'a str, usize) {
        match self {
            Consumer::Use { holder, edge } => (
                self.category(),
                self.repository(),
                holder.file().path(),
                holder.lines().0,
                holder.qualified_name(),
                edge.index,
            ),
            Consumer::Dependency { package, edge, .. } => (
                self.category(),
                self.repository(),
                package.path(),
                edge.evidence().map_or(0, |e| e.lines().0),
                package.name(),
                edge.index,
            ),
            Consumer::Failure(row) => (
                self.category(),
                self.repository(),
                row.file_path().unwrap_or(""),
                row.lines().map_or(0, |(start, _)| start),
                row.requested_symbol().unwrap_or(""),
                row.index,
            ),
        }
    }

    fn compact(&self, format: ResponseFormat) -> Map<String, Value> {
        let category = self.category().as_str();
        match self {
            Consumer::Use { holder, edge } => {
                let (start, end) = holder.lines();
                to_map(&CompactUse {
                    category,
                    edge: EdgeColumns::of(edge),
                    repo: holder.repository(),
                    pkg: package_of(holder),
                    at: format!("{}:{start}", holder.file().path()),
                    end_line: (end != start).then_some(end),
                    qualified_name: holder.qualified_name(),
                    stable_key: match holder {
                        Holder::Symbol(symbol) if format == ResponseFormat::Detailed => {
                            Some(symbol.key().to_string())
                        }
                        _ => None,
                    },
                })
            }
            Consumer::Dependency { package, edge, why } => to_map(&CompactDependency {
                category,
                edge: EdgeColumns::of(edge),
                repo: package.repository().name(),
                pkg: display_package(package),
                detail: why,
            }),
            Consumer::Failure(failure) => to_map(&CompactFailure {
                category,
                failure: FailureColumns::of(failure),
                repo: self.repository(),
                at: failure.file_path().map(|path| {
                    let line = failure.lines().map_or(0, |(start, _)| start);
                    format!("{path}:{line}")
                }),
            }),
        }
    }

    fn full(&self, format: ResponseFormat) -> Value {
        let category = self.category().as_str();
        match self {
            Consumer::Use { holder, edge } => to_value(&FullUse {
                category,
                edge: EdgeColumns::of(edge),
                evidence_kind: evidence_kind(edge),
                package_name: package_of(holder),
                holder: holder.full_fields(format),
            }),
            Consumer::Dependency { package, edge, why } => {
                let observed = edge
                    .evidence()
                    .and_then(|evidence| Some((evidence.file()?, evidence.lines().0)));
                to_value(&FullDependency {
                    category,
                    edge: EdgeColumns::of(edge),
                    detail: why,
                    evidence_kind: evidence_kind(edge),
                    repository: package.repository().name(),
                    package_name: display_package(package),
                    file_path: observed.map(|(file, _)| file.path()),
                    start_line: observed.map(|(_, line)| line),
                    package_key: (format == ResponseFormat::Detailed)
                        .then(|| package.key().to_string()),
                })
            }
            Consumer::Failure(failure) => to_value(&FullFailure {
                category,
                failure: FailureColumns::of(failure),
                repository: self.repository(),
                language: self.language(),
                file_path: failure.file_path(),
                start_line: failure.lines().map(|(start, _)| start),
            }),
        }
    }
}

/// The relation a consumer is known by.
#[derive(Serialize)]
struct EdgeColumns {
    edge_kind: &'static str,
    confidence: &'static str,
    provenance: &'static str,
}

impl EdgeColumns {
    fn of(edge: &EdgeView) -> Self {
        EdgeColumns {
            edge_kind: edge.kind().as_str(),
            confidence: edge.confidence().as_str(),
            provenance: edge.provenance().as_str(),
        }
    }
}

/// Why a failure is one, and what it asked for.
#[derive(Serialize)]
struct FailureColumns<'a> {
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    requested_package: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    requested_symbol: Option<&'a str>,
    detail: &'a str,
}

impl<'a> FailureColumns<'a> {
    fn of(failure: &UnresolvedView<'a>) -> Self {
        FailureColumns {
            reason: failure.reason(),
            requested_package: failure.requested_package(),
            requested_symbol: failure.requested_symbol(),
            detail: failure.detail(),
        }
    }
}

/// A use, as the compact view writes it before hoisting.
#[derive(Serialize)]
struct CompactUse<'a> {
    category: &'static str,
    #[serde(flatten)]
    edge: EdgeColumns,
    repo: &'a str,
    pkg: String,
    at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<u32>,
    qualified_name: &'a str,
    /// Detailed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    stable_key: Option<String>,
}

/// A package dependency, as the compact view writes it before merging and hoisting.
#[derive(Serialize)]
struct CompactDependency<'a> {
    category: &'static str,
    #[serde(flatten)]
    edge: EdgeColumns,
    repo: &'a str,
    pkg: String,
    detail: &'a str,
}

/// A failure, as the compact view writes it before hoisting.
#[derive(Serialize)]
struct CompactFailure<'a> {
    category: &'static str,
    #[serde(flatten)]
    failure: FailureColumns<'a>,
    repo: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<String>,
}

#[derive(Serialize)]
struct FullUse<'a> {
    category: &'static str,
    #[serde(flatten)]
    edge: EdgeColumns,
    evidence_kind: &'static str,
    package_name: String,
    #[serde(flatten)]
    holder: HolderFields<'a>,
}

#[derive(Serialize)]
struct FullDependency<'a> {
    category: &'static str,
    #[serde(flatten)]
    edge: EdgeColumns,
    detail: &'a str,
    evidence_kind: &'static str,
    repository: &'a str,
    package_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_line: Option<u32>,
    /// Detailed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    package_key: Option<String>,
}

#[derive(Serialize)]
struct FullFailure<'a> {
    category: &'static str,
    #[serde(flatten)]
    failure: FailureColumns<'a>,
    repository: &'a str,
    language: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_line: Option<u32>,
}

fn evidence_kind(edge: &EdgeView) -> &'static str {
    if edge.evidence().is_some() {
        "OBSERVED_IN_FILE"
    } else {
        "NONE"
    }
}

fn package_of(holder: &Holder) -> String {
    match holder {
        Holder::Symbol(symbol) => display_package(&symbol.package()),
        Holder::Module(file) => display_package(&file.package()),
    }
}

/// The facts about `subject` recorded in repositories other than its own.
fn consumers<'a>(
    published: &'a Published,
    subject: &SymbolView<'a>,
    reach: &Reach,
) -> Vec<Consumer<'a>> {
    let snapshot = &published.snapshot;
    let home = subject.file().repository().name();
    let mut found: Vec<Consumer> = snapshot
        .incoming(subject.index)
        .filter(|edge| edge.kind().is_reference())
        .filter_map(|edge| {
            let holder = Holder::of(published, edge.source())?;
            let structural = matches!(edge.kind(), EdgeKind::Implements | EdgeKind::Overrides);
            // A Go type that satisfies an interface its repository cannot import (implements
            // is implicit in Go) relies on nothing of it: a relation, not a consumer. Every
            // other language names what it implements, where the impl is written: an impl
            // the subject's own repository writes for another's type (quote's `impl ToTokens
            // for proc_macro2::Ident`) is that repository's code, not a consumer's.
            let consumes = !structural
                || if holder.file().language() == Language::Go {
                    reach.repository(holder.file().repository().index)
                } else {
                    edge.evidence()
                        .and_then(|e| e.file())
                        .is_none_or(|file| file.repository().name() != home)
                };
            (holder.repository() != home && consumes).then_some(Consumer::Use { holder, edge })
        })
        .collect();
    let package = subject.package();
    for edge in snapshot.package_incoming(package.index) {
        if edge.kind() == EdgeKind::PackageDependsOn
            && let NodeRef::Package(source) = edge.source()
            && let Some(consumer) = snapshot.package(source)
            && consumer.repository().name() != home
        {
            found.push(Consumer::Dependency {
                package: consumer,
                edge,
                why: "",
            });
        }
    }
    // Failures elsewhere that asked for this symbol of this package, or for the package
    // itself without naming a symbol (those belong to the package, not to every symbol).
    let import_path = display_package(&package);
    let asks_for_package =
        |row: &UnresolvedView| row.requested_package() == Some(import_path.as_str());
    let elsewhere = |row: &UnresolvedView| row.repository().is_some_and(|r| r.name() != home);
    for row in snapshot.unresolved_requesting(subject.name()) {
        if elsewhere(&row) && asks_for_package(&row) {
            found.push(Consumer::Failure(row));
        }
    }
    for row in snapshot.unresolved() {
        if row.requested_symbol().is_none() && elsewhere(&row) && asks_for_package(&row) {
            found.push(Consumer::Failure(row));
        }
    }
    found
}

/// The facts with the package dependencies of packages that also use the subject left out
/// (their symbol-level rows say more), and each remaining dependency saying why the graph
/// knows no more of that package than that it depends on the subject's.
fn package_level_only<'a>(
    published: &'a Published,
    found: Vec<Consumer<'a>>,
    unbound: &[crate::scopes::UnboundFile<'a>],
) -> Vec<Consumer<'a>> {
    let mut using: FxHashSet<usize> = FxHashSet::default();
    let mut failing: FxHashSet<&str> = FxHashSet::default();
    for consumer in &found {
        match consumer {
            Consumer::Use { holder, edge } if edge.confidence() != Confidence::Unresolved => {
                using.insert(holder.file().package().index);
            }
            Consumer::Failure(row) => {
                failing.extend(row.repository().map(|r| r.name()));
            }
            _ => {}
        }
    }
    let unbound_in: FxHashSet<usize> = unbound.iter().map(|(f, _)| f.package().index).collect();
    found
        .into_iter()
        .filter_map(|consumer| match consumer {
            Consumer::Dependency { package, .. } if using.contains(&package.index) => None,
            Consumer::Dependency { package, edge, .. } => {
                let repository = package.repository().name();
                let why = if unbound_in.contains(&package.index) {
                    "it spells this symbol's name where no use was bound: see completeness.unbound_uses"
                } else if failing.contains(repository) {
                    "its uses of this symbol did not resolve: see its unresolved rows"
                } else if matches!(package.language(), Language::TypeScript | Language::JavaScript)
                    && !published.analyzed_in(repository, package.language())
                {
                    "only the syntax layer read it, which does not follow a use under another name (an alias, a namespace or default import): it depends on the package, and the graph knows no more"
                } else {
                    "every spelling of this symbol's name in it is accounted for, none as a use of it: it depends on the package only"
                };
                Some(Consumer::Dependency { package, edge, why })
            }
            other => Some(other),
        })
        .collect()
}

pub fn find_cross_repo_consumers(
    published: &Published,
    args: &CrossRepoConsumersArgs,
    limits: &PageLimits,
) -> Result<(Page, View), QueryError> {
    let view = match args.view.as_deref() {
        Some("files") => {
            return Err(QueryError::invalid(
                "view \"files\" is not available here: the answer is a set of consuming repositories, not files; use compact or full",
            ));
        }
        other => View::parse(other, false)?,
    };
    let format = ResponseFormat::parse(args.page.response_format.as_deref())?;
    let limit = Limit::parse(args.page.limit, limits, None)?;
    let language = language(args.language.as_deref())?;
    let repo = trimmed("repo", args.repo.as_deref())?;
    if let Some(repo) = repo
        && published.snapshot.repository_named(repo).is_none()
    {
        return Err(QueryError::repository_not_found(repo));
    }
    let subject = args.selector.parse()?.resolve(published)?;
    let subject_key = subject.key().to_string();
    let identity = QueryIdentity::new(
        "find_cross_repo_consumers",
        SORTING,
        &[
            ("subject", &subject_key),
            ("repo", repo.unwrap_or("")),
            ("language", language.map_or("", |l| l.as_str())),
        ],
    );
    let offset = match &args.page.cursor {
        Some(cursor) => identity.resume(cursor, published.snapshot_id())?,
        None => 0,
    };
    let reach = Reach::of(published, &subject);
    let found = consumers(published, &subject, &reach);
    let home = subject.file().repository().name();
    let unbound: Vec<_> = unbound_mentions(published, Some(subject.name()), Some(&subject))
        .into_iter()
        .filter(|(file, _)| file.repository().name() != home)
        .collect();
    let mut rows: Vec<Consumer> = package_level_only(published, found, &unbound)
        .into_iter()
        .filter(|c| repo.is_none_or(|r| c.repository() == r))
        .filter(|c| language.is_none_or(|l| c.language() == l.as_str()))
        .collect();
    rows.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let total = rows.len();
    let page = &rows[offset.min(total)..(offset + limit.0).min(total)];
    let next_cursor = (offset + page.len() < total)
        .then(|| identity.cursor(published.snapshot_id(), offset + page.len()));
    let count = |category| rows.iter().filter(|c| c.category() == category).count();
    let coverage = Coverage {
        exact: count(Category::ExactSymbol),
        candidate: count(Category::Candidate),
        unresolved_related: count(Category::Unresolved),
        package_level: count(Category::Package),
    };
    // Scopes unread anywhere: a package nobody could read is where an outside consumer hides.
    let bounds = Bounds {
        scopes: invisible_scopes(published, None, None, Hidden::Named(&[subject.name()]))
            .into_iter()
            .filter(|scope| {
                could_use(subject.language(), scope.language)
                    && published
                        .snapshot
                        .repository_named(&scope.repository)
                        .is_some_and(|r| reach.repository(r.index))
            })
            .collect(),
        blind_spots: rows
            .iter()
            .filter_map(|c| match c {
                Consumer::Failure(row) if row.file_path().is_some() => Some(*row),
                _ => None,
            })
            .collect(),
        unbound,
        not_followed: bound_under_other_names(published, &subject).map(str::to_string),
        unextracted: Vec::new(),
    };
    let guidance = if total == 0 {
        Some(if bounds.is_complete() {
            "no repository in the published graph consumes this symbol. Check graph_status if a consumer is registered but was not indexed, and find_references for uses inside its own repository".to_string()
        } else {
            "no consumer was resolved, but this is a floor: the index recorded places outside this repository it could not read or bind that may hold one; see completeness before concluding nobody outside uses it".to_string()
        })
    } else if page.len() < total {
        Some(format!(
            "showing {} of {total}; narrow with repo or language, or pass the cursor for the next page",
            page.len()
        ))
    } else {
        None
    };
    let span = subject.span();
    let (package_name, module_path) =
        package_and_module(subject.language(), subject.package().name());
    let results = if view == View::Full {
        to_value(&FullAnswer {
            subject: FullSubject {
                qualified_name: subject.qualified_name(),
                repository: home,
                package_name,
                module_path,
                file_path: subject.file().path(),
                start_line: span.start_line,
                end_line: span.end_line,
            },
            consumers: (!page.is_empty()).then(|| page.iter().map(|c| c.full(format)).collect()),
        })
    } else {
        let subject = CompactSubject {
            qualified_name: subject.qualified_name(),
            at: format!("{home}:{}:{}", subject.file().path(), span.start_line),
            pkg: package_name,
            module_path,
            end_line: (span.end_line != span.start_line).then_some(span.end_line),
        };
        let mut results = Map::new();
        results.insert("subject".into(), to_value(&subject));
        compact_consumers(&mut results, page, format);
        Value::Object(results)
    };
    Ok((
        Page {
            total,
            returned: page.len(),
            next_cursor,
            coverage,
            guidance,
            completeness: Some(bounded(published, Some(subject.name()), &bounds)),
            results,
            files: std::iter::once(subject.file().index)
                .chain(page.iter().filter_map(|consumer| match consumer {
                    Consumer::Use { holder, .. } => Some(holder.file().index),
                    Consumer::Dependency { .. } | Consumer::Failure(_) => None,
                }))
                .collect(),
        },
        view,
    ))
}

/// The full view: the subject, then every consumer (`null` for none).
#[derive(Serialize)]
struct FullAnswer<'a> {
    subject: FullSubject<'a>,
    consumers: Option<Vec<Value>>,
}

#[derive(Serialize)]
struct FullSubject<'a> {
    qualified_name: &'a str,
    repository: &'a str,
    package_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    module_path: Option<String>,
    file_path: &'a str,
    start_line: u32,
    end_line: u32,
}

#[derive(Serialize)]
struct CompactSubject<'a> {
    qualified_name: &'a str,
    at: String,
    pkg: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    module_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<u32>,
}

/// A repository's package dependencies become one entry: `pkg` names the one package, or
/// lists the several, that carry them.
fn merge_dependencies(rows: Vec<Map<String, Value>>) -> Vec<Map<String, Value>> {
    let mut merged: Vec<Map<String, Value>> = Vec::new();
    for row in rows {
        let package_row = |row: &Map<String, Value>| {
            row.get("category").and_then(Value::as_str) == Some(Category::Package.as_str())
        };
        let is_package = package_row(&row);
        let same = merged.iter_mut().find(|m| {
            is_package
                && package_row(m)
                && m.get("repo") == row.get("repo")
                && m.get("edge_kind") == row.get("edge_kind")
                && m.get("confidence") == row.get("confidence")
                && m.get("detail") == row.get("detail")
        });
        match same {
            Some(entry) => {
                let package = row.get("pkg").cloned().unwrap_or(Value::Null);
                let names = match entry.shift_remove("pkg") {
                    Some(Value::Array(mut names)) => {
                        if !names.contains(&package) {
                            names.push(package);
                        }
                        names
                    }
                    Some(one) if one == package => vec![one],
                    Some(one) => vec![one, package],
                    None => vec![package],
                };
                let value = if names.len() == 1 {
                    names.into_iter().next().unwrap_or(Value::Null)
                } else {
                    Value::Array(names)
                };
                entry.insert("pkg".into(), value);
            }
            None => merged.push(row),
        }
    }
    merged
}

fn compact_consumers(results: &mut Map<String, Value>, page: &[Consumer], format: ResponseFormat) {
    let mut rows = merge_dependencies(page.iter().map(|c| c.compact(format)).collect());
    let mut header = Map::new();
    hoist_agreed(&mut rows, &HOISTED, &mut header);
    let grouping: Vec<&str> = HOISTED[..GROUPED]
        .iter()
        .copied()
        .filter(|c| !header.contains_key(*c))
        .collect();
    // A failure's detail is a template keyed by its reason: a group often shares it.
    if let Value::Object(map) = flat_or_grouped(header, rows, "consumers", &grouping, &["detail"]) {
        results.extend(map);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testing::{facts, published, rendered};

    #[test]
    fn a_use_from_another_repository_is_an_exact_consumer() {
        let published = published(&facts());
        let args: CrossRepoConsumersArgs =
            serde_json::from_value(json!({"qualified_name": "Parse", "repository": "core"}))
                .unwrap();
        let answer = rendered(
            &published,
            find_cross_repo_consumers(&published, &args, &PageLimits::default()),
        );
        assert_eq!(
            answer,
            json!({
                "snapshot_id": 1, "total": 1, "returned": 1,
                "coverage": {"exact": 1},
                "completeness": {"verdict": "COMPLETE"},
                "results": {
                    "subject": {"qualified_name": "Parse", "at": "core:parse.go:3",
                        "pkg": "example.com/core", "module_path": "example.com/core",
                        "end_line": 5},
                    "category": "exact_symbol", "edge_kind": "CALLS_DIRECT",
                    "confidence": "EXACT_TYPECHECKED", "provenance": "GO_TYPES_USE",
                    "consumers": [{"repo": "app", "pkg": "example.com/app", "at": "main.go:5",
                        "end_line": 7, "qualified_name": "main"}]
                }
            })
        );
    }

    #[test]
    fn dependencies_of_one_repository_merge_into_one_entry() {
        let row = |repo: &str, pkg: &str| {
            let mut map = Map::new();
            map.insert("category".into(), json!("package"));
            map.insert("edge_kind".into(), json!("PACKAGE_DEPENDS_ON"));
            map.insert("confidence".into(), json!("STRUCTURAL_CERTAIN"));
            map.insert("repo".into(), json!(repo));
            map.insert("pkg".into(), json!(pkg));
            map
        };
        let merged = merge_dependencies(vec![
            row("a", "x"),
            row("a", "x"),
            row("a", "y"),
            row("b", "x"),
        ]);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0]["pkg"], json!(["x", "y"]));
        assert_eq!(merged[1]["pkg"], json!("x"));
    }
}
