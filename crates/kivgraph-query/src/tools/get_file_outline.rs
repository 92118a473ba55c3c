//! `get_file_outline`: the declarations under a path, grouped by file.

use std::collections::BTreeSet;

use kivgraph_facts::SymbolKind;
use kivgraph_snapshot::{FileView, SymbolView};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::args::{Limit, PageArgs, PageLimits, ResponseFormat, View, relative_path, trimmed};
use crate::cursor::QueryIdentity;
use crate::envelope::{Coverage, Page, smaller_of, to_map, to_value};
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
            files: page.iter().map(|(_, symbol)| symbol.file().index).collect(),
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

/// A declaration as the full view writes it.
#[derive(Serialize)]
struct FullRow<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    qualified_name: Option<&'a str>,
    kind: &'static str,
    signature: &'a str,
    exported: bool,
    start_line: u32,
    end_line: u32,
    /// Detailed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    stable_key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    canonical_identity: Option<String>,
}

/// One file's rows.
#[derive(Serialize)]
struct FileRows<'a, T> {
    path: &'a str,
    symbols: Vec<T>,
}

#[derive(Serialize)]
struct FullOutline<'a> {
    repository: &'a str,
    path: &'a str,
    packages: &'a BTreeSet<&'a str>,
    languages: BTreeSet<&'static str>,
    files: Vec<FileRows<'a, FullRow<'a>>>,
}

fn full(
    repository: &str,
    path: &str,
    packages: &BTreeSet<&str>,
    page: &[&(String, SymbolView)],
    format: ResponseFormat,
) -> Value {
    let detailed = format == ResponseFormat::Detailed;
    let files = by_file(page.iter().map(|(key, s)| {
        let span = s.span();
        let row = FullRow {
            name: s.name(),
            qualified_name: (s.qualified_name() != s.name()).then(|| s.qualified_name()),
            kind: s.kind().as_str(),
            signature: s.signature(),
            exported: s.exported(),
            start_line: span.start_line,
            end_line: span.end_line,
            stable_key: detailed.then_some(key.as_str()),
            canonical_identity: detailed.then(|| canonical_identity(s)),
        };
        (s.file().path(), row)
    }))
    .into_iter()
    .map(|(path, symbols)| FileRows { path, symbols })
    .collect();
    to_value(&FullOutline {
        repository,
        path,
        packages,
        languages: page.iter().map(|(_, s)| s.language().as_str()).collect(),
        files,
    })
}

/// How many declarations each file of the page holds.
#[derive(Serialize)]
struct FileCount<'a> {
    file: &'a str,
    declarations: usize,
}

#[derive(Serialize)]
struct FilesOutline<'a> {
    repository: &'a str,
    path: &'a str,
    files: Vec<FileCount<'a>>,
}

fn files_view(repository: &str, path: &str, page: &[&(String, SymbolView)]) -> Value {
    let files = by_file(page.iter().map(|(_, s)| (s.file().path(), ())))
        .into_iter()
        .map(|(file, rows)| FileCount {
            file,
            declarations: rows.len(),
        })
        .collect();
    to_value(&FilesOutline {
        repository,
        path,
        files,
    })
}

/// What the compact view states once for the whole page.
#[derive(Serialize)]
struct CompactHeader<'a> {
    repository: &'a str,
    path: &'a str,
    /// The one package, or all of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    package: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    packages: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exported: Option<bool>,
}

fn compact(
    repository: &str,
    path: &str,
    packages: &BTreeSet<&str>,
    page: &[&(String, SymbolView)],
    format: ResponseFormat,
) -> Value {
    let kinds: BTreeSet<&str> = page.iter().map(|(_, s)| s.kind().as_str()).collect();
    let visibilities: BTreeSet<bool> = page.iter().map(|(_, s)| s.exported()).collect();
    let kind_hoisted = kinds.len() == 1;
    let exported_hoisted = visibilities.len() == 1;
    let (package, packages) = match packages.iter().copied().collect::<Vec<_>>().as_slice() {
        [one] => (Some(*one), None),
        many => (None, Some(many.to_vec())),
    };
    let header = to_map(&CompactHeader {
        repository,
        path,
        package,
        packages,
        kind: kinds.first().copied().filter(|_| kind_hoisted),
        exported: visibilities.first().copied().filter(|_| exported_hoisted),
    });
    // A label, or an array when the row carries columns the header could not state: kind,
    // visibility, then under `detailed` the signature and the key.
    let entry = |(key, s): &(String, SymbolView), with_kind: bool, with_exported: bool| {
        let mut tail: Vec<String> = Vec::new();
        if with_kind {
            tail.push(s.kind().as_str().to_string());
        }
        if with_exported {
            let visibility = if s.exported() {
                "exported"
            } else {
                "unexported"
            };
            tail.push(visibility.to_string());
        }
        if format == ResponseFormat::Detailed {
            tail.push(s.signature().to_string());
            tail.push(key.clone());
            tail.push(canonical_identity(s));
        }
        if tail.is_empty() {
            Entry::Label(label(s))
        } else {
            tail.insert(0, label(s));
            Entry::Columns(tail)
        }
    };
    let file_groups = |rows: &[&&Row], with_kind: bool, with_exported: bool| -> Vec<FileAt> {
        by_file(
            rows.iter()
                .map(|r| (r.1.file().path(), entry(r, with_kind, with_exported))),
        )
        .into_iter()
        .map(|(file, at)| FileAt {
            file: file.to_string(),
            at,
        })
        .collect()
    };
    let rows: Vec<&&Row> = page.iter().collect();
    let mut flat = header.clone();
    flat.insert(
        "files".into(),
        to_value(&file_groups(&rows, !kind_hoisted, !exported_hoisted)),
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
            to_value(&KindGroup {
                kind: (!kind_hoisted).then_some(kind),
                exported: (!exported_hoisted).then_some(exported),
                files: file_groups(&members, false, false),
            })
        })
        .collect();
    smaller_of(header, groups, flat)
}

/// A row of the compact view: its label, or the label and the columns the header could not
/// state.
#[derive(Serialize)]
#[serde(untagged)]
enum Entry {
    Label(String),
    Columns(Vec<String>),
}

/// One file's rows in the compact view.
#[derive(Serialize)]
struct FileAt {
    file: String,
    at: Vec<Entry>,
}

/// The rows sharing a (kind, visibility) pair the header could not state.
#[derive(Serialize)]
struct KindGroup<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exported: Option<bool>,
    files: Vec<FileAt>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{facts, published, rendered};

    fn outline(published: &Published, arguments: serde_json::Value) -> serde_json::Value {
        let args: FileOutlineArgs = serde_json::from_value(arguments).unwrap();
        rendered(
            published,
            get_file_outline(published, &args, &PageLimits::default()),
        )
    }

    #[test]
    fn every_view_of_a_file_s_declarations() {
        let published = published(&facts());
        let at = |view: &str, format: &str| {
            outline(
                &published,
                serde_json::json!({"repository": "core", "path": "parse.go",
                    "view": view, "response_format": format}),
            )
            .to_string()
        };
        assert_eq!(
            at("compact", "concise"),
            r#"{"snapshot_id":1,"total":2,"returned":2,"results":{"repository":"core","path":"parse.go","package":"example.com/core example.com/core","exported":true,"files":[{"file":"parse.go","at":[["Parse@3-5","func"],["Config@8-10","type"]]}]}}"#
        );
        assert_eq!(
            at("files", "concise"),
            r#"{"snapshot_id":1,"total":2,"returned":2,"results":{"repository":"core","path":"parse.go","files":[{"file":"parse.go","declarations":2}]}}"#
        );
        let full = at("full", "concise");
        assert!(
            full.contains(r#""results":{"repository":"core","path":"parse.go","packages":["example.com/core example.com/core"],"languages":["go"],"files":[{"path":"parse.go","symbols":[{"name":"Parse","kind":"func","signature":"func Parse()","exported":true,"start_line":3,"end_line":5}"#),
            "{full}"
        );
    }
}
