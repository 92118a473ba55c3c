//! `get_file_outline`: the declarations under a path, grouped by file.

use std::collections::BTreeSet;

use kivgraph_facts::SymbolKind;
use kivgraph_snapshot::{FileView, SymbolView};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::args::{Limit, PageArgs, PageLimits, ResponseFormat, View, relative_path, trimmed};
use crate::cursor::QueryIdentity;
use crate::envelope::{Coverage, Page, smaller_of};
use crate::error::{ErrorCode, QueryError};
use crate::published::{Published, canonical_identity};
use crate::scopes::{Hidden, completeness, invisible_scopes};
use crate::selector::under_path;

const SORTING: &str = "stable-key-v1";
const DEFAULT_LIMIT: usize = 200;

/// A page row: the symbol's key text and the symbol.
type Row<'a> = (String, SymbolView<'a>);

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(transform = outline_page)]
pub struct FileOutlineArgs {
    #[schemars(required)]
    pub repository: Option<String>,
    /// Repository-relative file or directory.
    #[schemars(required)]
    pub path: Option<String>,
    pub kind: Option<String>,
    /// Adds fields, properties and enum members.
    #[schemars(extend("default" = false))]
    pub include_members: Option<bool>,
    #[serde(flatten)]
    pub page: PageArgs,
    #[schemars(extend("enum" = ["compact", "full", "files"], "default" = "compact"))]
    pub view: Option<String>,
}

/// An outline's page holds 200 rows unless asked otherwise.
fn outline_page(schema: &mut schemars::Schema) {
    crate::schema::limit(schema, DEFAULT_LIMIT as i64, 500);
}

/// Rows that belong to the declaration above them; off by default.
fn is_member(kind: SymbolKind) -> bool {
    matches!(
        kind,
        SymbolKind::Field | SymbolKind::Property | SymbolKind::EnumMember
    )
}

fn label(symbol: &SymbolView) -> String {
    let span = symbol.span();
    if span.start_line == span.end_line {
        format!("{}@{}", symbol.qualified_name(), span.start_line)
    } else {
        format!(
            "{}@{}-{}",
            symbol.qualified_name(),
            span.start_line,
            span.end_line
        )
    }
}

pub fn get_file_outline(
    published: &Published,
    args: &FileOutlineArgs,
    limits: &PageLimits,
) -> Result<(Page, View), QueryError> {
    let repository = trimmed("repository", args.repository.as_deref())?
        .ok_or_else(|| QueryError::invalid("repository is required"))?;
    let path = relative_path("path", args.path.as_deref())?
        .ok_or_else(|| QueryError::invalid("path is required"))?;
    let view = View::parse(args.view.as_deref(), true)?;
    let format = ResponseFormat::parse(args.page.response_format.as_deref())?;
    let limit = Limit::parse(args.page.limit, limits, Some(DEFAULT_LIMIT))?;
    let include_members = args.include_members.unwrap_or(false);
    let kind = args.kind.as_deref();
    let snapshot = &published.snapshot;
    let repo = snapshot
        .repository_named(repository)
        .ok_or_else(|| QueryError::repository_not_found(repository))?;
    let files: Vec<FileView> = repo
        .files()
        .filter(|f| path.is_empty() || under_path(f.path(), path))
        .collect();
    if files.is_empty() {
        return Err(QueryError::new(
            ErrorCode::SymbolNotFound,
            format!("path {path:?} is not in repository {repository:?} in the published graph"),
        ));
    }
    let identity = QueryIdentity::new(
        "get_file_outline",
        SORTING,
        &[
            ("repository", repository),
            ("path", path),
            ("kind", kind.unwrap_or("")),
            (
                "include_members",
                if include_members { "true" } else { "false" },
            ),
        ],
    );
    let offset = match &args.page.cursor {
        Some(cursor) => identity.resume(cursor, published.snapshot_id())?,
        None => 0,
    };
    let mut all: Vec<(String, SymbolView)> = files
        .iter()
        .flat_map(|f| f.symbols())
        .map(|s| (s.key().to_string(), s))
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    let total = all.len();
    let taken: Vec<&(String, SymbolView)> = all.iter().skip(offset).take(limit.0).collect();
    let next_cursor = (offset + taken.len() < total)
        .then(|| identity.cursor(published.snapshot_id(), offset + taken.len()));
    // `kind` and `include_members` filter the page after it is taken.
    let page: Vec<&(String, SymbolView)> = taken
        .iter()
        .copied()
        .filter(|(_, s)| kind.is_none_or(|k| s.kind().as_str() == k))
        .filter(|(_, s)| include_members || !is_member(s.kind()))
        .collect();
    let returned = page.len();
    let truncated = next_cursor.is_some();
    let scopes: Vec<_> = invisible_scopes(
        published,
        Some(repository),
        Some(path),
        Hidden::Matching(&|_| true),
    )
    .into_iter()
    .filter(|s| {
        s.path
            .as_deref()
            .is_none_or(|p| path.is_empty() || under_path(p, path))
    })
    .collect();
    let completeness = (returned == 0 || truncated || !scopes.is_empty())
        .then(|| completeness(published, None, scopes));
    let packages: BTreeSet<&str> = files.iter().map(|f| f.package().name()).collect();
    let results = match view {
        View::Full => full(repository, path, &packages, &page, format),
        View::Files => files_view(repository, path, &page),
        View::Compact => compact(repository, path, &packages, &page, format),
    };
    Ok((
        Page {
            total,
            returned,
            next_cursor,
            coverage: Coverage::default(),
            guidance: None,
            completeness,
            results,
        },
        view,
    ))
}

/// Files in the order the page first mentions them, each with its rows.
fn by_file<'a, T>(rows: impl IntoIterator<Item = (&'a str, T)>) -> Vec<(&'a str, Vec<T>)> {
    let mut files: Vec<(&str, Vec<T>)> = Vec::new();
    for (file, row) in rows {
        match files.iter_mut().find(|(f, _)| *f == file) {
            Some((_, members)) => members.push(row),
            None => files.push((file, vec![row])),
        }
    }
    files
}

fn full(
    repository: &str,
    path: &str,
    packages: &BTreeSet<&str>,
    page: &[&(String, SymbolView)],
    format: ResponseFormat,
) -> Value {
    let languages: BTreeSet<&str> = page.iter().map(|(_, s)| s.language().as_str()).collect();
    let files: Vec<Value> = by_file(page.iter().map(|(key, s)| {
        let span = s.span();
        let mut row = Map::new();
        row.insert("name".into(), json!(s.name()));
        if s.qualified_name() != s.name() {
            row.insert("qualified_name".into(), json!(s.qualified_name()));
        }
        row.insert("kind".into(), json!(s.kind().as_str()));
        row.insert("signature".into(), json!(s.signature()));
        row.insert("exported".into(), json!(s.exported()));
        row.insert("start_line".into(), json!(span.start_line));
        row.insert("end_line".into(), json!(span.end_line));
        if format == ResponseFormat::Detailed {
            row.insert("stable_key".into(), json!(key));
            row.insert("canonical_identity".into(), json!(canonical_identity(s)));
        }
        (s.file().path(), Value::Object(row))
    }))
    .into_iter()
    .map(|(file, symbols)| json!({"path": file, "symbols": symbols}))
    .collect();
    json!({"repository": repository, "path": path, "packages": packages, "languages": languages, "files": files})
}

fn files_view(repository: &str, path: &str, page: &[&(String, SymbolView)]) -> Value {
    let files: Vec<Value> = by_file(page.iter().map(|(_, s)| (s.file().path(), ())))
        .into_iter()
        .map(|(file, rows)| json!({"file": file, "declarations": rows.len()}))
        .collect();
    json!({"repository": repository, "path": path, "files": files})
}

fn compact(
    repository: &str,
    path: &str,
    packages: &BTreeSet<&str>,
    page: &[&(String, SymbolView)],
    format: ResponseFormat,
) -> Value {
    let mut header = Map::new();
    header.insert("repository".into(), json!(repository));
    header.insert("path".into(), json!(path));
    match packages.iter().collect::<Vec<_>>().as_slice() {
        [one] => header.insert("package".into(), json!(one)),
        many => header.insert("packages".into(), json!(many)),
    };
    let kinds: BTreeSet<&str> = page.iter().map(|(_, s)| s.kind().as_str()).collect();
    let visibilities: BTreeSet<bool> = page.iter().map(|(_, s)| s.exported()).collect();
    let kind_hoisted = kinds.len() == 1;
    let exported_hoisted = visibilities.len() == 1;
    if kind_hoisted && let Some(kind) = kinds.first() {
        header.insert("kind".into(), json!(kind));
    }
    if exported_hoisted && let Some(exported) = visibilities.first() {
        header.insert("exported".into(), json!(exported));
    }
    // A label, or an array when the row carries columns the header could not state: kind,
    // visibility, then under `detailed` the signature and the key.
    let entry = |(key, s): &(String, SymbolView), with_kind: bool, with_exported: bool| -> Value {
        let mut tail: Vec<Value> = Vec::new();
        if with_kind {
            tail.push(json!(s.kind().as_str()));
        }
        if with_exported {
            tail.push(json!(if s.exported() {
                "exported"
            } else {
                "unexported"
            }));
        }
        if format == ResponseFormat::Detailed {
            tail.push(json!(s.signature()));
            tail.push(json!(key));
            tail.push(json!(canonical_identity(s)));
        }
        if tail.is_empty() {
            json!(label(s))
        } else {
            let mut array = vec![json!(label(s))];
            array.extend(tail);
            Value::Array(array)
        }
    };
    let file_groups =
        |rows: &[&&(String, SymbolView)], with_kind: bool, with_exported: bool| -> Value {
            Value::Array(
                by_file(
                    rows.iter()
                        .map(|r| (r.1.file().path(), entry(r, with_kind, with_exported))),
                )
                .into_iter()
                .map(|(file, at)| json!({"file": file, "at": at}))
                .collect(),
            )
        };
    let rows: Vec<&&(String, SymbolView)> = page.iter().collect();
    let mut flat = header.clone();
    flat.insert(
        "files".into(),
        file_groups(&rows, !kind_hoisted, !exported_hoisted),
    );
    let flat = Value::Object(flat);
    if kind_hoisted && exported_hoisted {
        return flat;
    }
    // Second tier: group by the (kind, exported) pair the header could not state.
    let mut groups: Vec<((&str, bool), Vec<&&Row>)> = Vec::new();
    for row in &rows {
        let pair = (row.1.kind().as_str(), row.1.exported());
        match groups.iter_mut().find(|(p, _)| *p == pair) {
            Some((_, members)) => members.push(row),
            None => groups.push((pair, vec![row])),
        }
    }
    let groups: Vec<Value> = groups
        .into_iter()
        .map(|((kind, exported), members)| {
            let mut group = Map::new();
            if !kind_hoisted {
                group.insert("kind".into(), json!(kind));
            }
            if !exported_hoisted {
                group.insert("exported".into(), json!(exported));
            }
            group.insert("files".into(), file_groups(&members, false, false));
            Value::Object(group)
        })
        .collect();
    smaller_of(header, groups, flat)
}
