//! `find_symbol`: where a symbol is declared, by name, qualified name, prefix or substring.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use kivgraph_snapshot::SymbolView;

use crate::args::{Limit, PageArgs, PageLimits, ResponseFormat, View, trimmed};
use crate::cursor::QueryIdentity;
use crate::envelope::{Coverage, Page, flat_or_grouped, hoist, to_map, to_value};
use crate::error::QueryError;
use crate::published::{Published, canonical_identity};
use crate::scopes::{Hidden, completeness, invisible_scopes};

const SORTING: &str = "stable-key-v1";

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct FindSymbolArgs {
    /// The text to search for.
    #[schemars(required)]
    pub name: Option<String>,
    #[schemars(extend(
        "enum" = ["exact", "qualified_exact", "prefix", "substring"],
        "default" = "exact"
    ))]
    pub mode: Option<String>,
    /// Exact kind, e.g. func, method, class, struct.
    pub kind: Option<String>,
    pub repo: Option<String>,
    /// Repository-relative path prefix (plain prefix, not a glob).
    pub path_prefix: Option<String>,
    #[schemars(extend("default" = false))]
    pub include_derived: Option<bool>,
    #[serde(flatten)]
    pub page: PageArgs,
    #[schemars(extend("enum" = ["compact", "full"], "default" = "compact"))]
    pub view: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Exact,
    QualifiedExact,
    Prefix,
    Substring,
}

impl Mode {
    fn parse(value: Option<&str>) -> Result<Self, QueryError> {
        Ok(match value {
            None | Some("exact") => Mode::Exact,
            Some("qualified_exact") => Mode::QualifiedExact,
            Some("prefix") => Mode::Prefix,
            Some("substring") => Mode::Substring,
            Some(other) => {
                return Err(QueryError::invalid(format!(
                    "mode {other:?} is not one of exact, qualified_exact, prefix, substring"
                )));
            }
        })
    }

    fn as_str(self) -> &'static str {
        match self {
            Mode::Exact => "exact",
            Mode::QualifiedExact => "qualified_exact",
            Mode::Prefix => "prefix",
            Mode::Substring => "substring",
        }
    }
}

/// Kinds whose signature tells a caller how to call them: the compact view keeps `sig` for
/// these alone.
fn callable(kind: &str) -> bool {
    matches!(kind, "function" | "func" | "method" | "class")
}

pub fn find_symbol(
    published: &Published,
    args: &FindSymbolArgs,
    limits: &PageLimits,
) -> Result<(Page, View), QueryError> {
    let name = trimmed("name", args.name.as_deref())?
        .ok_or_else(|| QueryError::invalid("name is required"))?;
    let mode = Mode::parse(args.mode.as_deref())?;
    let view = View::parse(args.view.as_deref(), false)?;
    let format = ResponseFormat::parse(args.page.response_format.as_deref())?;
    let limit = Limit::parse(args.page.limit, limits, None)?;
    let kind = args.kind.as_deref();
    let repo = args.repo.as_deref();
    let path_prefix = args.path_prefix.as_deref();
    let snapshot = &published.snapshot;
    if let Some(repo) = repo
        && snapshot.repository_named(repo).is_none()
    {
        return Err(QueryError::repository_not_found(repo));
    }
    // Naming a derived repository in `repo` is a request for it.
    let include_derived =
        args.include_derived.unwrap_or(false) || repo.is_some_and(kivgraph_facts::is_derived);
    let identity = QueryIdentity::new(
        "find_symbol",
        SORTING,
        &[
            ("name", name),
            ("mode", mode.as_str()),
            ("kind", kind.unwrap_or("")),
            ("repo", repo.unwrap_or("")),
            ("path_prefix", path_prefix.unwrap_or("")),
            (
                "include_derived",
                if include_derived { "true" } else { "false" },
            ),
        ],
    );
    let offset = match &args.page.cursor {
        Some(cursor) => identity.resume(cursor, published.snapshot_id())?,
        None => 0,
    };

    let candidates: Vec<SymbolView> = match mode {
        Mode::Exact => snapshot.symbols_named(name),
        Mode::QualifiedExact => snapshot.symbols_qualified(name),
        Mode::Prefix => snapshot
            .symbols()
            .filter(|s| s.name().starts_with(name))
            .collect(),
        Mode::Substring => snapshot
            .symbols()
            .filter(|s| s.name().contains(name))
            .collect(),
    };
    let mut matches: Vec<(String, SymbolView)> = candidates
        .into_iter()
        .filter(|s| kind.is_none_or(|k| s.kind().as_str() == k))
        .filter(|s| {
            let repository = s.file().repository().name();
            repo.is_none_or(|r| repository == r)
                && (include_derived || !kivgraph_facts::is_derived(repository))
        })
        .filter(|s| path_prefix.is_none_or(|p| s.file().path().starts_with(p)))
        .map(|s| (s.key().to_string(), s))
        .collect();
    matches.sort_by(|a, b| a.0.cmp(&b.0));

    let total = matches.len();
    let page: Vec<&(String, SymbolView)> = matches.iter().skip(offset).take(limit.0).collect();
    let returned = page.len();
    let next_cursor = (offset + returned < total)
        .then(|| identity.cursor(published.snapshot_id(), offset + returned));
    let unresolved_related = snapshot
        .unresolved_requesting(name)
        .into_iter()
        .filter(|u| u.requested_symbol() == Some(name))
        .filter(|u| repo.is_none_or(|r| u.repository().is_some_and(|x| x.name() == r)))
        .count();
    // A region the parser could not read hides a declaration only if it spells a name this
    // search would have matched.
    let hides = |hidden: &str| match mode {
        Mode::Exact => hidden == name,
        Mode::QualifiedExact => name.rsplit(['.', ':']).next() == Some(hidden),
        Mode::Prefix => hidden.starts_with(name),
        Mode::Substring => hidden.contains(name),
    };
    let scopes = invisible_scopes(published, repo, path_prefix, Hidden::Matching(&hides));
    let truncated = returned < total;
    let unread = !scopes.is_empty();
    let completeness =
        (total == 0 || truncated || unread).then(|| completeness(published, Some(name), scopes));
    let guidance = if total == 0 {
        Some(if !unread {
            format!(
                "no symbol named {name:?} is declared in the published graph within these filters; graph_status shows what was indexed"
            )
        } else {
            format!(
                "no symbol named {name:?} was found, but the index could not read all of what this search covers; see completeness"
            )
        })
    } else if truncated {
        Some(format!(
            "showing {returned} of {total}; narrow with kind, repo or path_prefix, or pass the cursor for the next page"
        ))
    } else {
        None
    };
    let results = match view {
        View::Full => to_value(
            &page
                .iter()
                .map(|(key, s)| full_row(key, s, format))
                .collect::<Vec<_>>(),
        ),
        _ => compact_results(&page, format),
    };
    Ok((
        Page {
            total,
            returned,
            next_cursor,
            coverage: Coverage {
                unresolved_related,
                ..Coverage::default()
            },
            guidance,
            completeness,
            results,
            files: page.iter().map(|(_, symbol)| symbol.file().index).collect(),
        },
        view,
    ))
}

/// A declaration as the full view writes it.
#[derive(Serialize)]
struct FullRow<'a> {
    stable_key: &'a str,
    name: &'a str,
    qualified_name: &'a str,
    kind: &'static str,
    signature: &'a str,
    exported: bool,
    repository: &'a str,
    file_path: &'a str,
    start_line: u32,
    end_line: u32,
    /// Detailed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    canonical_identity: Option<String>,
}

fn full_row<'a>(key: &'a str, symbol: &SymbolView<'a>, format: ResponseFormat) -> FullRow<'a> {
    let span = symbol.span();
    FullRow {
        stable_key: key,
        name: symbol.name(),
        qualified_name: symbol.qualified_name(),
        kind: symbol.kind().as_str(),
        signature: symbol.signature(),
        exported: symbol.exported(),
        repository: symbol.file().repository().name(),
        file_path: symbol.file().path(),
        start_line: span.start_line,
        end_line: span.end_line,
        canonical_identity: (format == ResponseFormat::Detailed)
            .then(|| canonical_identity(symbol)),
    }
}

/// The columns the compact view hoists when every row agrees on them.
#[derive(Serialize)]
struct Shared<'a> {
    name: &'a str,
    kind: &'static str,
    exported: bool,
    repository: &'a str,
}

/// A declaration as the compact view writes it, once the shared columns are hoisted.
#[derive(Serialize)]
struct CompactRow<'a> {
    at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qn: Option<&'a str>,
    /// Left on the row when the rows disagree on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exported: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sig: Option<&'a str>,
    /// Detailed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    stable_key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    canonical_identity: Option<String>,
}

fn compact_results(page: &[&(String, SymbolView)], format: ResponseFormat) -> Value {
    let mut shared: Vec<Map<String, Value>> = page
        .iter()
        .map(|(_, s)| {
            to_map(&Shared {
                name: s.name(),
                kind: s.kind().as_str(),
                exported: s.exported(),
                repository: s.file().repository().name(),
            })
        })
        .collect();
    let header = hoist(&mut shared, &["name", "kind", "exported", "repository"]);
    let name_hoisted = header.contains_key("name");
    let detailed = format == ResponseFormat::Detailed;
    let rows: Vec<Map<String, Value>> = page
        .iter()
        .zip(&shared)
        .map(|((key, s), rest)| {
            let span = s.span();
            let at = match rest.get("repository").and_then(Value::as_str) {
                Some(repository) => {
                    format!("{repository}:{}:{}", s.file().path(), span.start_line)
                }
                None => format!("{}:{}", s.file().path(), span.start_line),
            };
            let (name, qualified) = (s.name(), s.qualified_name());
            // The name is spelled when it is not hoisted and the qualified name does not
            // already end with it.
            let spelled = !name_hoisted && (qualified == name || !qualified.ends_with(name));
            to_map(&CompactRow {
                at,
                end: (span.end_line != span.start_line).then_some(span.end_line),
                name: spelled.then_some(name),
                qn: (qualified != name).then_some(qualified),
                kind: rest.get("kind"),
                exported: rest.get("exported"),
                sig: (callable(s.kind().as_str()) && !s.signature().is_empty())
                    .then(|| s.signature()),
                stable_key: detailed.then_some(key.as_str()),
                canonical_identity: detailed.then(|| canonical_identity(s)),
            })
        })
        .collect();
    flat_or_grouped(header, rows, "symbols", &["kind", "exported"], &[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{facts, published, rendered};

    fn find(published: &Published, arguments: serde_json::Value) -> serde_json::Value {
        let args: FindSymbolArgs = serde_json::from_value(arguments).unwrap();
        rendered(
            published,
            find_symbol(published, &args, &PageLimits::default()),
        )
    }

    #[test]
    fn an_exact_name_finds_its_one_declaration_and_an_absent_one_is_provably_absent() {
        let published = published(&facts());
        assert_eq!(
            find(&published, serde_json::json!({"name": "Parse"})),
            serde_json::json!({
                "snapshot_id": 1, "total": 1, "returned": 1,
                "results": {"name": "Parse", "kind": "func", "exported": true,
                    "repository": "core",
                    "symbols": [{"at": "parse.go:3", "end": 5, "sig": "func Parse()"}]}
            })
        );
        let nothing = find(&published, serde_json::json!({"name": "Missing"}));
        assert_eq!(
            nothing["completeness"],
            serde_json::json!({"verdict": "COMPLETE"})
        );
        assert_eq!(nothing["results"], serde_json::json!({"symbols": []}));
    }

    #[test]
    fn a_repository_filter_keeps_only_its_declarations() {
        let published = published(&facts());
        let in_core = find(
            &published,
            serde_json::json!({"name": "main", "repo": "core"}),
        );
        assert_eq!(in_core["total"], 0, "{in_core}");
        let in_app = find(
            &published,
            serde_json::json!({"name": "main", "repo": "app"}),
        );
        assert_eq!(in_app["total"], 1, "{in_app}");
        assert_eq!(in_app["results"]["repository"], "app", "{in_app}");
    }
}
