//! Argument checks every tool shares, with the surface's messages.

use kivgraph_facts::{Confidence, EdgeKind, Language};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::QueryError;

/// The granularity of an answer; never a different answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Compact,
    Full,
    Files,
}

impl View {
    /// `allow_files` is false for tools whose answer is not a set of files.
    pub fn parse(value: Option<&str>, allow_files: bool) -> Result<Self, QueryError> {
        match value {
            None | Some("compact") => Ok(View::Compact),
            Some("full") => Ok(View::Full),
            Some("files") if allow_files => Ok(View::Files),
            Some("files") => Err(QueryError::invalid(
                "view \"files\" is not available here: this tool answers about declarations, not files; use compact or full",
            )),
            Some(other) => Err(QueryError::invalid(format!(
                "view {other:?} is not one of compact, full{}",
                if allow_files { ", files" } else { "" }
            ))),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseFormat {
    Concise,
    Detailed,
}

impl ResponseFormat {
    pub fn parse(value: Option<&str>) -> Result<Self, QueryError> {
        match value {
            None | Some("concise") => Ok(ResponseFormat::Concise),
            Some("detailed") => Ok(ResponseFormat::Detailed),
            Some(other) => Err(QueryError::invalid(format!(
                "response_format {other:?} is not one of concise, detailed"
            ))),
        }
    }
}

/// The page sizes a deployment allows: `mcp.default_limit` and `mcp.maximum_limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLimits {
    pub default: usize,
    pub maximum: usize,
}

impl Default for PageLimits {
    fn default() -> Self {
        PageLimits {
            default: 50,
            maximum: 500,
        }
    }
}

/// Rows per page: 1 to the configured maximum, rejected rather than clamped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit(pub usize);

impl Limit {
    /// `default` overrides the configured default for tools with their own (an outline's 200).
    pub fn parse(
        value: Option<i64>,
        limits: &PageLimits,
        default: Option<usize>,
    ) -> Result<Self, QueryError> {
        let maximum = limits.maximum as i64;
        match value {
            None => Ok(Limit(default.unwrap_or(limits.default).min(limits.maximum))),
            Some(n) if (1..=maximum).contains(&n) => Ok(Limit(n as usize)),
            Some(n) => Err(QueryError::invalid(format!(
                "limit must be between 1 and {maximum}, got {n}"
            ))),
        }
    }
}

/// A string argument that must not be empty or carry surrounding whitespace.
pub fn trimmed<'a>(field: &str, value: Option<&'a str>) -> Result<Option<&'a str>, QueryError> {
    match value {
        Some(text) if text.trim() != text => Err(QueryError::invalid(format!(
            "{field} must not carry surrounding whitespace"
        ))),
        Some("") => Err(QueryError::invalid(format!("{field} must not be empty"))),
        other => Ok(other),
    }
}

/// A repository-relative path: no absolute path, no `..` segment; a trailing `/` is trimmed.
pub fn relative_path<'a>(
    field: &str,
    value: Option<&'a str>,
) -> Result<Option<&'a str>, QueryError> {
    let Some(path) = trimmed(field, value)? else {
        return Ok(None);
    };
    if path.starts_with('/')
        || path.contains('\\') && path.starts_with("\\\\")
        || path.split('/').any(|c| c == "..")
    {
        return Err(QueryError::invalid(format!(
            "{field} {path:?} must be repository-relative, without \"..\" segments"
        )));
    }
    Ok(Some(path.trim_end_matches('/')))
}

/// Paging and verbosity, as every paged tool takes them. The bounds in the schema are the
/// defaults of `mcp.default_limit` and `mcp.maximum_limit`; a tool with its own says so.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct PageArgs {
    #[schemars(range(min = 1, max = 500), extend("default" = 50))]
    pub limit: Option<i64>,
    /// The `next_cursor` of the previous page, with every other argument unchanged.
    pub cursor: Option<String>,
    #[schemars(extend("enum" = ["concise", "detailed"], "default" = "concise"))]
    pub response_format: Option<String>,
}

pub(crate) const DEFAULT_EXCLUDED: [EdgeKind; 2] = [EdgeKind::Exports, EdgeKind::Reexports];

/// The relations a filter keeps, and whether the default exclusion ran.
pub(crate) fn edge_kinds(value: Option<&[String]>) -> Result<(Vec<EdgeKind>, bool), QueryError> {
    let every = || EdgeKind::ALL.iter().copied().filter(|k| k.is_reference());
    let Some(list) = value else {
        return Ok((
            every().filter(|k| !DEFAULT_EXCLUDED.contains(k)).collect(),
            true,
        ));
    };
    if list.is_empty() {
        return Err(QueryError::invalid(
            "edge_kinds must name at least one relation, or [\"*\"] for all of them",
        ));
    }
    if list.iter().any(|k| k == "*") {
        if list.len() > 1 {
            return Err(QueryError::invalid(
                "edge_kinds \"*\" stands alone: it asks for no filter, so it cannot be mixed with names",
            ));
        }
        return Ok((every().collect(), false));
    }
    let mut kinds = Vec::new();
    for text in list {
        trimmed("edge_kinds entry", Some(text))?;
        let kind = EdgeKind::parse(text)
            .ok()
            .filter(|k| k.is_reference())
            .ok_or_else(|| {
                let accepted: Vec<&str> = every().map(EdgeKind::as_str).collect();
                QueryError::invalid(format!(
                    "edge_kinds entry {text:?} is not a reference relation; accepted: {}",
                    accepted.join(", ")
                ))
            })?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    kinds.sort();
    Ok((kinds, false))
}

pub(crate) fn confidence(value: Option<&str>) -> Result<Option<Confidence>, QueryError> {
    value
        .map(|text| {
            Confidence::parse(text).map_err(|_| {
                let accepted: Vec<&str> = Confidence::ALL.iter().map(|c| c.as_str()).collect();
                QueryError::invalid(format!(
                    "confidence {text:?} is not one of {}",
                    accepted.join(", ")
                ))
            })
        })
        .transpose()
}

pub(crate) fn language(value: Option<&str>) -> Result<Option<Language>, QueryError> {
    trimmed("language", value)?
        .map(|text| {
            Language::parse(text).map_err(|_| {
                let accepted: Vec<&str> = Language::ALL.iter().map(|l| l.as_str()).collect();
                QueryError::invalid(format!(
                    "language {text:?} is not one of {}",
                    accepted.join(", ")
                ))
            })
        })
        .transpose()
}
