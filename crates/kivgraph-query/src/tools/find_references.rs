//! `find_references`: who references one symbol, or what it references — one hop over the
//! snapshot's adjacency, with a completeness verdict charged with the naming question.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use kivgraph_facts::{Confidence, EdgeKind, SymbolKind};
use kivgraph_snapshot::{EdgeView, NodeRef, SymbolView};

use crate::args::{
    DEFAULT_EXCLUDED, Limit, PageArgs, PageLimits, ResponseFormat, View, confidence, edge_kinds,
    language, relative_path, trimmed,
};
use crate::cursor::QueryIdentity;
use crate::envelope::{Coverage, Page, ordered_page, to_map, to_value};
use crate::error::QueryError;
use crate::holder::{Holder, HolderFields, bound_under_other_names, subject_triple};
use crate::labelled::{LabelledRow, compact_rows, file_counts};
use crate::published::Published;
use crate::scopes::{Bounds, Hidden, blind_spots, bounded, invisible_scopes, unbound_mentions};
use crate::selector::{SelectorArgs, resolve_name};

const SORTING: &str = "references-v1";
const FILES_VIEW_LIMIT: usize = 500;

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct FindReferencesArgs {
    /// Unqualified name of the declaration; exclusive with qualified_name and stable_key.
    /// repository (and path) narrow it.
    pub name: Option<String>,
    #[serde(flatten)]
    pub selector: SelectorArgs,
    #[schemars(extend("enum" = ["incoming", "outgoing"], "default" = "incoming"))]
    pub direction: Option<String>,
    /// Relations to keep; default every reference kind except EXPORTS and REEXPORTS; ["*"]
    /// for all.
    #[serde(default)]
    #[schemars(schema_with = "crate::schema::edge_kinds")]
    pub edge_kinds: Option<Vec<String>>,
    #[serde(default)]
    #[schemars(schema_with = "crate::schema::confidence")]
    pub confidence: Option<String>,
    /// Keeps rows of this language: go, typescript, javascript, rust, python.
    pub language: Option<String>,
    /// Keeps rows of this repository (filters the answer; repository selects the subject).
    pub repo: Option<String>,
    #[schemars(extend("default" = false))]
    pub include_derived: Option<bool>,
    #[serde(flatten)]
    pub page: PageArgs,
    #[schemars(extend("enum" = ["compact", "full", "files"], "default" = "compact"))]
    pub view: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Incoming,
    Outgoing,
}

impl Direction {
    fn parse(value: Option<&str>) -> Result<Self, QueryError> {
        match value {
            None | Some("incoming") => Ok(Direction::Incoming),
            Some("outgoing") => Ok(Direction::Outgoing),
            Some(other) => Err(QueryError::invalid(format!(
                "direction {other:?} is not one of incoming, outgoing"
            ))),
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Direction::Incoming => "incoming",
            Direction::Outgoing => "outgoing",
        }
    }
}

/// The subject: a selector, or a bare `name` narrowed by `repository` and `path`.
pub(crate) fn subject<'a>(
    published: &'a Published,
    name: Option<&str>,
    selector: SelectorArgs,
) -> Result<SymbolView<'a>, QueryError> {
    let Some(name) = trimmed("name", name)? else {
        return selector.parse()?.resolve(published);
    };
    if selector.stable_key.is_some() || selector.qualified_name.is_some() {
        return Err(QueryError::invalid(
            "pass one of name, qualified_name or stable_key, not several",
        ));
    }
    let repository = trimmed("repository", selector.repository.as_deref())?;
    if selector.path.is_some() && repository.is_none() {
        return Err(QueryError::invalid(
            "path is repository-relative, so it requires repository",
        ));
    }
    let path = relative_path("path", selector.path.as_deref())?;
    resolve_name(published, name, repository, path)
}

/// The subject as the full view states it.
#[derive(Serialize)]
struct SubjectFields<'a> {
    stable_key: String,
    name: &'a str,
    qualified_name: &'a str,
    kind: &'static str,
    repository: &'a str,
    file_path: &'a str,
    start_line: u32,
}

/// The subject: its fields in the full view, `repository:path:line` in the others.
#[derive(Serialize)]
#[serde(untagged)]
enum Subject<'a> {
    Fields(SubjectFields<'a>),
    Triple(String),
}

impl<'a> Subject<'a> {
    fn of(subject: &SymbolView<'a>, view: View) -> Self {
        match view {
            View::Full => Subject::Fields(SubjectFields {
                stable_key: subject.key().to_string(),
                name: subject.name(),
                qualified_name: subject.qualified_name(),
                kind: subject.kind().as_str(),
                repository: subject.file().repository().name(),
                file_path: subject.file().path(),
                start_line: subject.span().start_line,
            }),
            _ => Subject::Triple(subject_triple(subject)),
        }
    }
}

/// One, or a list when there are several.
#[derive(Serialize)]
#[serde(untagged)]
enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

/// What a reference answer states before its rows.
#[derive(Serialize)]
struct ReferencesHeader<'a> {
    subject: Subject<'a>,
    /// Compact views: the subject's qualified name beside its place.
    #[serde(skip_serializing_if = "Option::is_none")]
    qn: Option<&'a str>,
    direction: &'static str,
    /// The interface methods a call through them reaches this one by.
    #[serde(skip_serializing_if = "Option::is_none")]
    dispatch_through: Option<OneOrMany<Subject<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edge_kinds_default_excluded: Option<[&'static str; 2]>,
}

/// What bounds a reference answer about `subject`: failures anywhere that asked for its name,
/// unreadable scopes of its repository, spellings of its name the graph does not explain,
/// and uses through bindings the syntax layer does not follow.
pub(crate) fn reference_bounds<'a>(
    published: &'a Published,
    subject: &SymbolView,
    shared: &[Dispatch],
) -> Bounds<'a> {
    let name = subject.name();
    let repository = subject.file().repository().name();
    let shared = shared.iter().map(|d| {
        format!(
            "calls through the interface method {} may dispatch here, but it has {} implementations, so none of them is credited with those calls; ask find_references about {} for them",
            d.interface_method.qualified_name(),
            d.implementations,
            d.interface_method.qualified_name()
        )
    });
    let reasons: Vec<String> = bound_under_other_names(published, subject)
        .map(str::to_string)
        .into_iter()
        .chain(shared)
        .collect();
    Bounds {
        scopes: invisible_scopes(published, Some(repository), None, Hidden::Named(&[name])),
        blind_spots: blind_spots(published, name, subject.language()),
        unbound: unbound_mentions(published, Some(name), Some(subject)),
        not_followed: (!reasons.is_empty()).then(|| reasons.join("; ")),
        unextracted: Vec::new(),
    }
}

/// An interface method a method implements, with how many implementations it has.
pub(crate) struct Dispatch<'a> {
    pub(crate) interface_method: SymbolView<'a>,
    pub(crate) implementations: usize,
}

/// The interface methods `subject` implements (`IMPLEMENTS` edges from a method).
pub(crate) fn dispatches<'a>(published: &'a Published, subject: &SymbolView) -> Vec<Dispatch<'a>> {
    if subject.kind() != SymbolKind::Method {
        return Vec::new();
    }
    let snapshot = &published.snapshot;
    let implements = |e: &EdgeView| e.kind() == EdgeKind::Implements;
    snapshot
        .outgoing(subject.index)
        .filter(implements)
        .filter_map(|edge| match edge.target() {
            NodeRef::Symbol(i) => snapshot.symbol(i),
            _ => None,
        })
        .map(|interface_method| Dispatch {
            implementations: snapshot
                .incoming(interface_method.index)
                .filter(implements)
                .count(),
            interface_method,
        })
        .collect()
}

struct Row<'a> {
    holder: Holder<'a>,
    edge: EdgeView<'a>,
    /// The interface method the reference was made to, for a row bridged to its one
    /// implementation.
    via: Option<SymbolView<'a>>,
}

pub fn find_references(
    published: &Published,
    args: &FindReferencesArgs,
    limits: &PageLimits,
) -> Result<(Page, View), QueryError> {
    let direction = Direction::parse(args.direction.as_deref())?;
    let view = View::parse(args.view.as_deref(), true)?;
    let format = ResponseFormat::parse(args.page.response_format.as_deref())?;
    let limit = Limit::parse(
        args.page.limit,
        limits,
        (view == View::Files).then_some(FILES_VIEW_LIMIT),
    )?;
    let (kinds, default_excluded) = edge_kinds(args.edge_kinds.as_deref())?;
    let confidence = confidence(args.confidence.as_deref())?;
    let language = language(args.language.as_deref())?;
    let repo = trimmed("repo", args.repo.as_deref())?;
    if let Some(repo) = repo
        && published.snapshot.repository_named(repo).is_none()
    {
        return Err(QueryError::repository_not_found(repo));
    }
    let include_derived =
        args.include_derived.unwrap_or(false) || repo.is_some_and(kivgraph_facts::is_derived);
    let subject = subject(published, args.name.as_deref(), args.selector.clone())?;
    let kind_names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    let subject_key = subject.key().to_string();
    let identity = QueryIdentity::new(
        "find_references",
        SORTING,
        &[
            ("subject", &subject_key),
            ("direction", direction.as_str()),
            ("repo", repo.unwrap_or("")),
            ("language", language.map_or("", |l| l.as_str())),
            ("edge_kinds", &kind_names.join(",")),
            ("confidence", confidence.map_or("", |c| c.as_str())),
        ],
    );
    let offset = match &args.page.cursor {
        Some(cursor) => identity.resume(cursor, published.snapshot_id())?,
        None => 0,
    };

    let snapshot = &published.snapshot;
    let (sole, shared): (Vec<Dispatch>, Vec<Dispatch>) = dispatches(published, &subject)
        .into_iter()
        .partition(|d| d.implementations == 1);
    // A call through an interface method with one implementation can reach nothing else:
    // its references are the implementation's too, each marked with the bridge.
    let adjacent: Vec<(EdgeView, NodeRef, Option<SymbolView>)> = match direction {
        Direction::Incoming => snapshot
            .incoming(subject.index)
            .map(|e| (e, e.source(), None))
            .chain(sole.iter().flat_map(|d| {
                snapshot
                    .incoming(d.interface_method.index)
                    .filter(|e| e.kind() != EdgeKind::Implements)
                    .map(|e| (e, e.source(), Some(d.interface_method)))
            }))
            .collect(),
        Direction::Outgoing => snapshot
            .outgoing(subject.index)
            .map(|e| (e, e.target(), None))
            .collect(),
    };
    let bridged = direction == Direction::Incoming && !sole.is_empty();
    let rows: Vec<Row> = adjacent
        .into_iter()
        .filter(|(edge, ..)| kinds.contains(&edge.kind()))
        .filter(|(edge, ..)| confidence.is_none_or(|c| edge.confidence() == c))
        .filter_map(|(edge, node, via)| {
            Some(Row {
                holder: Holder::of(published, node)?,
                edge,
                via,
            })
        })
        .filter(|row| language.is_none_or(|l| row.holder.file().language() == l))
        .filter(|row| {
            let owner = row.holder.repository();
            repo.is_none_or(|r| owner == r)
                && (include_derived || !kivgraph_facts::is_derived(owner))
        })
        .collect();
    let total = rows.len();
    let bounds = reference_bounds(published, &subject, &shared);
    let coverage = Coverage {
        exact: rows
            .iter()
            .filter(|r| r.edge.confidence().is_exact())
            .count(),
        candidate: rows
            .iter()
            .filter(|r| r.edge.confidence() == Confidence::Candidate)
            .count(),
        unresolved_related: bounds.blind_spots.len(),
        package_level: 0,
    };
    // Each row's key is read once: the holder's fields are records of the mapped file.
    let page = ordered_page(rows, offset, limit.0, |row| {
        (
            row.holder.repository(),
            row.holder.file().path(),
            row.holder.lines().0,
            row.holder.qualified_name(),
            row.edge.kind(),
            row.edge.confidence(),
            row.edge.provenance().code(),
            row.via.map(|v| v.qualified_name()),
            row.edge.index,
        )
    });
    let page: &[Row] = &page;
    let returned = page.len();
    let next_cursor = (offset + returned < total)
        .then(|| identity.cursor(published.snapshot_id(), offset + returned));
    let floor = if bounds.is_complete() {
        None
    } else if bounds.blind_spots.is_empty() && bounds.scopes.is_empty() && bounds.unbound.is_empty()
    {
        Some(Floor::NotFollowed)
    } else {
        Some(Floor::Unbound)
    };
    let guidance = guidance(direction, total, returned, floor);
    let completeness = bounded(published, Some(subject.name()), &bounds);

    let mut through: Vec<Subject> = if bridged {
        sole.iter()
            .map(|d| Subject::of(&d.interface_method, view))
            .collect()
    } else {
        Vec::new()
    };
    let mut results = to_map(&ReferencesHeader {
        subject: Subject::of(&subject, view),
        qn: (view != View::Full).then(|| subject.qualified_name()),
        direction: direction.as_str(),
        dispatch_through: match through.len() {
            0 => None,
            1 => through.pop().map(OneOrMany::One),
            _ => Some(OneOrMany::Many(through)),
        },
        edge_kinds_default_excluded: default_excluded
            .then(|| DEFAULT_EXCLUDED.map(EdgeKind::as_str)),
    });
    let labelled = || -> Vec<LabelledRow> {
        page.iter()
            .map(|row| LabelledRow {
                repository: row.holder.repository().to_string(),
                file: row.holder.file().path().to_string(),
                label: row.holder.label(),
                columns: [
                    Value::from(row.edge.kind().as_str()),
                    Value::from(row.holder.kind()),
                    Value::from(row.edge.confidence().as_str()),
                    Value::from(row.edge.provenance().as_str()),
                ]
                .into_iter()
                .chain(bridged.then(|| Value::from(row.via.map(|v| v.qualified_name()))))
                .collect(),
            })
            .collect()
    };
    let results = match view {
        View::Full => {
            let references: Vec<FullRow> = page
                .iter()
                .map(|row| FullRow {
                    holder: row.holder.full_fields(format),
                    edge_kind: row.edge.kind().as_str(),
                    confidence: row.edge.confidence().as_str(),
                    provenance: row.edge.provenance().as_str(),
                    via: row.via.map(|via| via.qualified_name()),
                    evidence_kind: (format == ResponseFormat::Detailed).then(|| {
                        if row.edge.evidence().is_some() {
                            "OBSERVED_IN_FILE"
                        } else {
                            "NONE"
                        }
                    }),
                })
                .collect();
            results.insert("references".into(), to_value(&references));
            Value::Object(results)
        }
        View::Files => {
            results.insert("files".into(), file_counts(&labelled()));
            Value::Object(results)
        }
        View::Compact => compact_rows(
            results,
            &["edge_kind", "kind", "confidence", "provenance", "via"]
                [..if bridged { 5 } else { 4 }],
            &labelled(),
            subject.file().repository().name(),
        ),
    };
    Ok((
        Page {
            total,
            returned,
            next_cursor,
            coverage,
            guidance,
            completeness: Some(completeness),
            results,
            files: std::iter::once(subject.file().index)
                .chain(page.iter().map(|row| row.holder.file().index))
                .collect(),
        },
        view,
    ))
}

/// Why an answer is a floor: uses the index recorded and could not bind, or only uses it
/// does not follow to this symbol (`not_followed`).
enum Floor {
    Unbound,
    NotFollowed,
}

fn guidance(
    direction: Direction,
    total: usize,
    returned: usize,
    floor: Option<Floor>,
) -> Option<String> {
    if total == 0 {
        return Some(match (direction, floor) {
            (Direction::Incoming, None) => "nobody references this symbol: every spelling of its name in the indexed graph is its declaration or a resolved use, so this is an absence rather than a miss. find_cross_repo_consumers and graph_status show what was indexed".into(),
            (Direction::Incoming, Some(Floor::Unbound)) => "no reference was resolved, but this is a floor: the index holds uses of this name it could not bind; see completeness.blind_spots and run the fallback pattern over its paths before concluding nobody uses it".into(),
            (Direction::Incoming, Some(Floor::NotFollowed)) => "no reference was resolved, but this is a floor: completeness.not_followed names uses that may reach this symbol and that the index does not credit to it; follow them before concluding nobody uses it".into(),
            (Direction::Outgoing, _) => "this symbol reaches nothing the index resolved; ask direction incoming for who references it".into(),
        });
    }
    (returned < total).then(|| {
        format!(
            "showing {returned} of {total}; narrow with edge_kinds, confidence, repo or language, or pass the cursor for the next page"
        )
    })
}

/// A reference as the full view writes it: the declaration at the other end, then the
/// relation.
#[derive(Serialize)]
struct FullRow<'a> {
    #[serde(flatten)]
    holder: HolderFields<'a>,
    edge_kind: &'static str,
    confidence: &'static str,
    provenance: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    via: Option<&'a str>,
    /// Detailed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence_kind: Option<&'static str>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{facts, published, rendered};

    fn references(published: &Published, arguments: serde_json::Value) -> serde_json::Value {
        let args: FindReferencesArgs = serde_json::from_value(arguments).unwrap();
        rendered(
            published,
            find_references(published, &args, &PageLimits::default()),
        )
    }

    #[test]
    fn the_exact_caller_from_another_repository_is_found_with_its_evidence() {
        let published = published(&facts());
        assert_eq!(
            references(&published, serde_json::json!({"name": "Parse"})),
            serde_json::json!({
                "snapshot_id": 1, "total": 1, "returned": 1,
                "coverage": {"exact": 1},
                "completeness": {"verdict": "COMPLETE"},
                "results": {"subject": "core:parse.go:3", "qn": "Parse",
                    "direction": "incoming",
                    "edge_kinds_default_excluded": ["EXPORTS", "REEXPORTS"],
                    "repository": "app", "edge_kind": "CALLS_DIRECT", "kind": "func",
                    "confidence": "EXACT_TYPECHECKED", "provenance": "GO_TYPES_USE",
                    "files": [{"file": "main.go", "at": ["main@5-7"]}]}
            })
        );
    }

    #[test]
    fn a_spelling_the_graph_does_not_explain_makes_the_answer_a_floor_naming_its_file() {
        // parse.go spells Parse twice: its declaration explains one.
        let mut facts = facts();
        let parse = facts
            .files
            .iter_mut()
            .find(|f| f.path == "parse.go")
            .unwrap();
        parse
            .mentions
            .iter_mut()
            .find(|m| m.name == "Parse")
            .unwrap()
            .count = 2;
        let published = published(&facts);
        let answer = references(&published, serde_json::json!({"name": "Parse"}));
        assert_eq!(answer["total"], 1, "{answer}");
        assert_eq!(
            answer["completeness"],
            serde_json::json!({
                "verdict": "LOWER_BOUND",
                "unbound_uses": {"files": 1, "occurrences": 1},
                "fallback": {"pattern": "\\bParse\\b", "paths": ["/src/core/parse.go"]}
            })
        );
    }

    #[test]
    fn an_unknown_argument_value_is_refused_with_the_accepted_ones() {
        let published = published(&facts());
        let args: FindReferencesArgs =
            serde_json::from_value(serde_json::json!({"name": "Parse", "direction": "up"}))
                .unwrap();
        let refused = find_references(&published, &args, &PageLimits::default()).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "INVALID_ARGUMENT: direction \"up\" is not one of incoming, outgoing"
        );
    }

    #[test]
    fn a_failure_that_asked_for_the_name_is_a_blind_spot_of_the_answer() {
        let mut facts = facts();
        facts.unresolved.push(kivgraph_facts::UnresolvedReference {
            repository: "app".into(),
            language: kivgraph_facts::Language::Go,
            reason: kivgraph_facts::Reason::ReceiverTypeUnknown,
            file_path: Some("main.go".into()),
            span: Some(kivgraph_facts::LineSpan {
                start_line: 9,
                end_line: 9,
                start_byte: 90,
                end_byte: 99,
            }),
            requested_symbol: Some("cfg.Config".into()),
            requested_package: None,
            detail: "the receiver's type is unknown".into(),
        });
        facts.canonicalize();
        let published = published(&facts);
        let answer = references(&published, serde_json::json!({"name": "Config"}));
        assert_eq!(
            answer["completeness"].to_string(),
            r#"{"verdict":"LOWER_BOUND","blind_spots":[{"reason":"RECEIVER_TYPE_UNKNOWN","repository":"app","path":"main.go","line":9,"requested_symbol":"cfg.Config","detail":"the receiver's type is unknown"}],"fallback":{"pattern":"\\bConfig\\b","paths":["/src/app/main.go"]}}"#
        );
    }
}
