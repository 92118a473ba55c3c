//! `find_cross_repo_consumers`: who, outside a symbol's repository, uses it or depends on the
//! package that declares it — uses, candidates, package dependencies and failed requests kept
//! in separate categories, never summed.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use kivgraph_facts::{Confidence, EdgeKind, Language};
use kivgraph_snapshot::{EdgeView, NodeRef, PackageView, SymbolView, UnresolvedView};
use rustc_hash::FxHashSet;

use crate::args::language;
use crate::args::{Limit, PageArgs, PageLimits, ResponseFormat, View, trimmed};
use crate::cursor::QueryIdentity;
use crate::envelope::{Coverage, Page, flat_or_grouped, hoist_agreed, to_map};
use crate::error::QueryError;
use crate::holder::{Holder, bound_under_other_names};
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

    fn edge_columns(edge: &EdgeView, row: &mut Map<String, Value>) {
        row.insert("edge_kind".into(), json!(edge.kind().as_str()));
        row.insert("confidence".into(), json!(edge.confidence().as_str()));
        row.insert("provenance".into(), json!(edge.provenance().as_str()));
    }

    fn compact(&self, format: ResponseFormat) -> Map<String, Value> {
        let mut row = Map::new();
        row.insert("category".into(), json!(self.category().as_str()));
        match self {
            Consumer::Use { holder, edge } => {
                Self::edge_columns(edge, &mut row);
                row.insert("repo".into(), json!(holder.repository()));
                row.insert("pkg".into(), json!(package_of(holder)));
                let (start, end) = holder.lines();
                row.insert(
                    "at".into(),
                    json!(format!("{}:{start}", holder.file().path())),
                );
                if end != start {
                    row.insert("end_line".into(), json!(end));
                }
                row.insert("qualified_name".into(), json!(holder.qualified_name()));
                if format == ResponseFormat::Detailed
                    && let Holder::Symbol(symbol) = holder
                {
                    row.insert("stable_key".into(), json!(symbol.key().to_string()));
                }
            }
            Consumer::Dependency { package, edge, why } => {
                Self::edge_columns(edge, &mut row);
                row.insert("repo".into(), json!(package.repository().name()));
                row.insert("pkg".into(), json!(display_package(package)));
                row.insert("detail".into(), json!(why));
            }
            Consumer::Failure(failure) => {
                failure_columns(failure, &mut row);
                row.insert("repo".into(), json!(self.repository()));
                if let Some(path) = failure.file_path() {
                    let line = failure.lines().map_or(0, |(start, _)| start);
                    row.insert("at".into(), json!(format!("{path}:{line}")));
                }
            }
        }
        row
    }

    fn full(&self, format: ResponseFormat) -> Value {
        let mut row = Map::new();
        row.insert("category".into(), json!(self.category().as_str()));
        match self {
            Consumer::Use { holder, edge } => {
                Self::edge_columns(edge, &mut row);
                row.insert("evidence_kind".into(), json!(evidence_kind(edge)));
                row.insert("package_name".into(), json!(package_of(holder)));
                row.extend(to_map(&holder.full_fields(format)));
            }
            Consumer::Dependency { package, edge, why } => {
                Self::edge_columns(edge, &mut row);
                row.insert("detail".into(), json!(why));
                row.insert("evidence_kind".into(), json!(evidence_kind(edge)));
                row.insert("repository".into(), json!(package.repository().name()));
                row.insert("package_name".into(), json!(display_package(package)));
                if let Some(evidence) = edge.evidence()
                    && let Some(file) = evidence.file()
                {
                    row.insert("file_path".into(), json!(file.path()));
                    row.insert("start_line".into(), json!(evidence.lines().0));
                }
                if format == ResponseFormat::Detailed {
                    row.insert("package_key".into(), json!(package.key().to_string()));
                }
            }
            Consumer::Failure(failure) => {
                failure_columns(failure, &mut row);
                row.insert("repository".into(), json!(self.repository()));
                row.insert("language".into(), json!(self.language()));
                if let Some(path) = failure.file_path() {
                    row.insert("file_path".into(), json!(path));
                }
                if let Some((start, _)) = failure.lines() {
                    row.insert("start_line".into(), json!(start));
                }
            }
        }
        Value::Object(row)
    }
}

fn evidence_kind(edge: &EdgeView) -> &'static str {
    if edge.evidence().is_some() {
        "OBSERVED_IN_FILE"
    } else {
        "NONE"
    }
}

fn failure_columns(failure: &UnresolvedView, row: &mut Map<String, Value>) {
    row.insert("reason".into(), json!(failure.reason()));
    if let Some(package) = failure.requested_package() {
        row.insert("requested_package".into(), json!(package));
    }
    if let Some(symbol) = failure.requested_symbol() {
        row.insert("requested_symbol".into(), json!(symbol));
    }
    row.insert("detail".into(), json!(failure.detail()));
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
    let mut results = Map::new();
    let span = subject.span();
    let (package_name, module_path) =
        package_and_module(subject.language(), subject.package().name());
    if view == View::Full {
        let mut fields = Map::new();
        fields.insert("qualified_name".into(), json!(subject.qualified_name()));
        fields.insert("repository".into(), json!(home));
        fields.insert("package_name".into(), json!(package_name));
        if let Some(module) = module_path {
            fields.insert("module_path".into(), json!(module));
        }
        fields.insert("file_path".into(), json!(subject.file().path()));
        fields.insert("start_line".into(), json!(span.start_line));
        fields.insert("end_line".into(), json!(span.end_line));
        results.insert("subject".into(), Value::Object(fields));
        results.insert(
            "consumers".into(),
            if page.is_empty() {
                Value::Null
            } else {
                Value::Array(page.iter().map(|c| c.full(format)).collect())
            },
        );
    } else {
        let mut fields = Map::new();
        fields.insert("qualified_name".into(), json!(subject.qualified_name()));
        fields.insert(
            "at".into(),
            json!(format!(
                "{home}:{}:{}",
                subject.file().path(),
                span.start_line
            )),
        );
        fields.insert("pkg".into(), json!(package_name));
        if let Some(module) = module_path {
            fields.insert("module_path".into(), json!(module));
        }
        if span.end_line != span.start_line {
            fields.insert("end_line".into(), json!(span.end_line));
        }
        results.insert("subject".into(), Value::Object(fields));
        compact_consumers(&mut results, page, format);
    }
    Ok((
        Page {
            total,
            returned: page.len(),
            next_cursor,
            coverage,
            guidance,
            completeness: Some(bounded(published, Some(subject.name()), &bounds)),
            results: Value::Object(results),
        },
        view,
    ))
}

/// A repository's package dependencies become one entry: `pkg` names the one package, or
/// lists the several, that carry them.
fn merge_dependencies(rows: Vec<Map<String, Value>>) -> Vec<Map<String, Value>> {
    let mut merged: Vec<Map<String, Value>> = Vec::new();
    for row in rows {
        let is_package = row.get("category") == Some(&json!("package"));
        let same = merged.iter_mut().find(|m| {
            is_package
                && m.get("category") == Some(&json!("package"))
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
