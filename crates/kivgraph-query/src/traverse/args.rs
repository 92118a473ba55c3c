//! The arguments both walks take, their bounds and defaults, and what they share once
//! validated.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use kivgraph_facts::{Confidence, EdgeKind};
use kivgraph_snapshot::SymbolView;

use crate::args::{
    Limit, PageArgs, PageLimits, ResponseFormat, View, confidence, edge_kinds, trimmed,
};
use crate::cursor::QueryIdentity;
use crate::error::QueryError;
use crate::published::Published;
use crate::selector::SelectorArgs;

const DEFAULT_DEPTH: i64 = 3;

const MAX_DEPTH: i64 = 5;

const DEFAULT_MAX_NODES: i64 = 5000;

const MAX_MAX_NODES: i64 = 25_000;

/// Kinds a backwards walk crosses on its way to the consumers a reviewer looks for.
const BLAST_DEFAULT_EXCLUDED: [&str; 2] = ["field", "variable"];

/// The symbol kinds `kinds` accepts: every kind a loader publishes.
const ACCEPTED_KINDS: &[&str] = &[
    "alias",
    "associated_type",
    "attribute",
    "class",
    "const",
    "constant",
    "enum",
    "enum_member",
    "export",
    "field",
    "func",
    "function",
    "implementation",
    "import",
    "interface",
    "macro",
    "method",
    "module",
    "namespace",
    "parameter",
    "property",
    "self_parameter",
    "static",
    "static_method",
    "struct",
    "trait",
    "trait_method",
    "type",
    "type_alias",
    "type_parameter",
    "union",
    "var",
    "variable",
];

/// How far a walk goes and what it follows, as both walks take it.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct WalkArgs {
    #[schemars(range(min = 1, max = 5), extend("default" = 3))]
    pub depth: Option<i64>,
    /// Ceiling on symbols the walk may discover, root included; hitting it sets
    /// traversal_truncated.
    #[schemars(range(min = 1, max = 25000), extend("default" = 5000))]
    pub max_nodes: Option<i64>,
    /// Relations the walk may follow; default every reference kind.
    #[serde(default)]
    #[schemars(schema_with = "crate::schema::edge_kinds")]
    pub edge_kinds: Option<Vec<String>>,
    /// Edges the walk may follow.
    #[serde(default)]
    #[schemars(schema_with = "crate::schema::confidence")]
    pub confidence: Option<String>,
    #[schemars(extend("default" = false))]
    pub include_derived: Option<bool>,
    #[serde(flatten)]
    pub page: PageArgs,
    #[schemars(extend("enum" = ["compact", "full"], "default" = "compact"))]
    pub view: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct TraceDependenciesArgs {
    #[serde(flatten)]
    pub selector: SelectorArgs,
    #[serde(flatten)]
    pub walk: WalkArgs,
    /// Keeps reached rows of this language; never changes the walk.
    pub language: Option<String>,
    /// Keeps reached rows of this repository; never changes the walk.
    pub repo: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct BlastRadiusArgs {
    #[serde(flatten)]
    pub selector: SelectorArgs,
    #[serde(flatten)]
    pub walk: WalkArgs,
    /// Symbol kinds that count as affected; default every kind but field and variable;
    /// ["*"] for all.
    pub kinds: Option<Vec<String>>,
}

fn bounded_integer(
    field: &str,
    value: Option<i64>,
    default: i64,
    max: i64,
) -> Result<usize, QueryError> {
    match value {
        None => Ok(default as usize),
        Some(n) if (1..=max).contains(&n) => Ok(n as usize),
        Some(n) => Err(QueryError::invalid(format!(
            "{field} must be between 1 and {max}, got {n}"
        ))),
    }
}

pub(crate) struct Common<'a> {
    pub(crate) root: SymbolView<'a>,
    pub(crate) kinds: Vec<EdgeKind>,
    pub(crate) confidence: Option<Confidence>,
    pub(crate) depth: usize,
    pub(crate) max_nodes: usize,
    pub(crate) view: View,
    pub(crate) format: ResponseFormat,
    pub(crate) limit: Limit,
}

pub(crate) fn common<'a>(
    published: &'a Published,
    selector: &SelectorArgs,
    walk: &WalkArgs,
    limits: &PageLimits,
) -> Result<Common<'a>, QueryError> {
    let depth = bounded_integer("depth", walk.depth, DEFAULT_DEPTH, MAX_DEPTH)?;
    let max_nodes = bounded_integer(
        "max_nodes",
        walk.max_nodes,
        DEFAULT_MAX_NODES,
        MAX_MAX_NODES,
    )?;
    let view = match walk.view.as_deref() {
        Some("files") => {
            return Err(QueryError::invalid(
                "view \"files\" is not available here: the answer is a set of reached symbols, not files; use compact or full",
            ));
        }
        other => View::parse(other, false)?,
    };
    let format = ResponseFormat::parse(walk.page.response_format.as_deref())?;
    let limit = Limit::parse(walk.page.limit, limits, None)?;
    let edge_kinds_arg = walk.edge_kinds.as_deref();
    let (kinds, _) = edge_kinds(edge_kinds_arg)?;
    // A walk follows every reference kind by default, forwarding bindings included.
    let kinds = if edge_kinds_arg.is_none() {
        EdgeKind::ALL
            .iter()
            .copied()
            .filter(|k| k.is_reference())
            .collect()
    } else {
        kinds
    };
    let confidence = confidence(walk.confidence.as_deref())?;
    let root = selector.parse()?.resolve(published)?;
    Ok(Common {
        root,
        kinds,
        confidence,
        depth,
        max_nodes,
        view,
        format,
        limit,
    })
}

impl Common<'_> {
    /// A walk's query identity, which its cursors carry: the root and the bounds, the tool's
    /// own `filters`, then the relations and confidence it follows.
    pub(crate) fn identity(
        &self,
        tool: &str,
        sorting: &str,
        filters: &[(&str, &str)],
    ) -> QueryIdentity {
        let root = self.root.key().to_string();
        let (depth, max_nodes) = (self.depth.to_string(), self.max_nodes.to_string());
        let kinds: Vec<&str> = self.kinds.iter().map(|k| k.as_str()).collect();
        let kinds = kinds.join(",");
        let mut fields = vec![
            ("root", root.as_str()),
            ("depth", depth.as_str()),
            ("max_nodes", max_nodes.as_str()),
        ];
        fields.extend_from_slice(filters);
        fields.push(("edge_kinds", &kinds));
        fields.push(("confidence", self.confidence.map_or("", |c| c.as_str())));
        QueryIdentity::new(tool, sorting, &fields)
    }
}

/// The `kinds` filter of the blast radius: which symbol kinds count as affected.
pub(crate) enum KindFilter {
    Default,
    Only(Vec<String>),
    Every,
}

impl KindFilter {
    pub(crate) fn parse(value: Option<&[String]>) -> Result<Self, QueryError> {
        let Some(list) = value else {
            return Ok(KindFilter::Default);
        };
        if list.is_empty() {
            return Err(QueryError::invalid(
                "kinds must name at least one kind, or [\"*\"] for every kind",
            ));
        }
        if list.iter().any(|k| k == "*") {
            if list.len() > 1 {
                return Err(QueryError::invalid(
                    "kinds \"*\" stands alone: it asks for no filter, so it cannot be mixed with names",
                ));
            }
            return Ok(KindFilter::Every);
        }
        let mut kinds = BTreeSet::new();
        for kind in list {
            trimmed("kinds entry", Some(kind))?;
            if !ACCEPTED_KINDS.contains(&kind.as_str()) {
                return Err(QueryError::invalid(format!(
                    "kinds entry {kind:?} is not a symbol kind; accepted: {}",
                    ACCEPTED_KINDS.join(", ")
                )));
            }
            kinds.insert(kind.clone());
        }
        Ok(KindFilter::Only(kinds.into_iter().collect()))
    }

    pub(crate) fn keeps(&self, kind: &str) -> bool {
        match self {
            KindFilter::Default => !BLAST_DEFAULT_EXCLUDED.contains(&kind),
            KindFilter::Only(kinds) => kinds.iter().any(|k| k == kind),
            KindFilter::Every => true,
        }
    }

    pub(crate) fn identity(&self) -> String {
        match self {
            KindFilter::Default => "default".into(),
            KindFilter::Only(kinds) => kinds.join(","),
            KindFilter::Every => "*".into(),
        }
    }

    /// Exactly one of `kinds_default_excluded` or `kinds`, so a count always says its filter.
    pub(crate) fn echo(&self) -> KindsEcho<'_> {
        match self {
            KindFilter::Default => {
                let mut excluded = BLAST_DEFAULT_EXCLUDED.to_vec();
                excluded.sort();
                KindsEcho {
                    kinds_default_excluded: Some(excluded),
                    kinds: None,
                }
            }
            KindFilter::Only(kinds) => KindsEcho {
                kinds_default_excluded: None,
                kinds: Some(kinds.iter().map(String::as_str).collect()),
            },
            KindFilter::Every => KindsEcho {
                kinds_default_excluded: None,
                kinds: Some(vec!["*"]),
            },
        }
    }
}

/// The kind filter as an answer states it.
#[derive(Serialize)]
pub(crate) struct KindsEcho<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kinds_default_excluded: Option<Vec<&'static str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kinds: Option<Vec<&'a str>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_filter_refuses_unknown_kinds_and_mixed_wildcards() {
        assert!(KindFilter::parse(Some(&["*".into(), "func".into()])).is_err());
        assert!(KindFilter::parse(Some(&["fucn".into()])).is_err());
        assert!(KindFilter::parse(Some(&[])).is_err());
        let filter = KindFilter::parse(Some(&["method".into(), "func".into()])).unwrap();
        assert_eq!(filter.identity(), "func,method");
        assert!(filter.keeps("func") && !filter.keeps("class"));
        assert!(!KindFilter::parse(None).unwrap().keeps("variable"));
    }
}
