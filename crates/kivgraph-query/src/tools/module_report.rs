//! `module_report`: a file's navigable shape. Pure syntax on the one file as it is now, so it
//! works before any index and on a file edited since; the published graph only adds what it
//! knows about the file.

use std::collections::BTreeMap;

use kivgraph_facts::{EdgeKind, Language, SymbolKind};
use kivgraph_snapshot::FileView;
use kivgraph_syntax::{Declaration, FileShape, SymbolMetrics};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::checkout::{Roots, open};
use crate::error::QueryError;
use crate::holder::Holder;
use crate::published::Published;

fn is_member(kind: SymbolKind) -> bool {
    matches!(
        kind,
        SymbolKind::Field | SymbolKind::Property | SymbolKind::EnumMember
    )
}

const HIGH_FANOUT: u32 = 8;
const HIGH_COMPLEXITY: u32 = 10;

pub(crate) fn short_kind(kind: SymbolKind) -> &'static str {
    match kind {
        SymbolKind::Func | SymbolKind::Function => "fn",
        other => other.as_str(),
    }
}

/// Whether an import names this repository's own code.
fn internal_import(language: Language, import: &str, package: Option<&str>) -> bool {
    match language {
        Language::Go => package
            .and_then(|p| p.split_once(' '))
            .is_some_and(|(module, _)| {
                import == module || import.starts_with(&format!("{module}/"))
            }),
        Language::TypeScript | Language::JavaScript => {
            import.starts_with('.') || import.starts_with('/')
        }
        Language::Python => {
            import.starts_with('.')
                || package.is_some_and(|p| import.split('.').next() == p.split('.').next())
        }
        Language::Rust => {
            import.starts_with("crate")
                || import.starts_with("self")
                || import.starts_with("super")
                || package.is_some_and(|p| import.split("::").next() == Some(&p.replace('-', "_")))
        }
    }
}

/// Words the kind column and the flags already say.
const SIGNATURE_PREFIXES: &[&str] = &[
    "export",
    "default",
    "declare",
    "pub",
    "pub(crate)",
    "pub(super)",
    "async",
    "static",
    "abstract",
    "readonly",
    "func",
    "fn",
    "def",
    "function",
    "const",
    "let",
    "var",
    "type",
    "class",
    "interface",
    "struct",
    "enum",
    "trait",
    "union",
    "mod",
    "macro_rules!",
    "unsafe",
    "extern",
];
const COMPACT_SIGNATURE: usize = 100;

/// A signature for the compact view: without the keywords the kind column states, cut at
/// about a hundred characters.
fn compact_signature(signature: &str) -> String {
    let mut rest = signature.trim();
    while let Some((word, tail)) = rest.split_once(' ') {
        if !SIGNATURE_PREFIXES.contains(&word) {
            break;
        }
        rest = tail.trim_start();
    }
    if rest.len() <= COMPACT_SIGNATURE {
        return rest.to_string();
    }
    let mut end = COMPACT_SIGNATURE;
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &rest[..end])
}

/// How many users of a symbol a report lists when the caller does not say.
const DEFAULT_REFS_PER_SYMBOL: i64 = 5;

/// The users of one declaration: the first few, and how many there are.
struct UsedBy<'a> {
    listed: Vec<UseRow<'a>>,
    total: usize,
}

/// One use of a declaration: where, by which declaration, how.
#[derive(Serialize)]
struct UseRow<'a> {
    file: &'a str,
    /// Only when it is another repository than the file's.
    #[serde(skip_serializing_if = "Option::is_none")]
    repository: Option<&'a str>,
    symbol: &'a str,
    line: u32,
    relation: &'static str,
}

/// What a reference edge's kind reads as in `usedBy[].relation`.
fn relation(kind: EdgeKind) -> Option<&'static str> {
    Some(match kind {
        EdgeKind::CallsDirect => "calls",
        EdgeKind::PassesAsCallback => "passes",
        EdgeKind::AssignsFunction => "assigns",
        EdgeKind::ReturnsFunction => "returns",
        EdgeKind::References => "references",
        EdgeKind::TypeUses => "uses type",
        EdgeKind::ImportsSymbol => "imports",
        EdgeKind::Implements => "implements",
        EdgeKind::Extends => "extends",
        EdgeKind::Embeds => "embeds",
        EdgeKind::Overrides => "overrides",
        _ => return None,
    })
}

/// Per declaration of `file` (by name and first line), who uses it: each user's
/// file (with its repository when another), declaration and the line of the use, in
/// file/line order, the first `cap` listed.
fn used_by<'a>(
    published: &'a Published,
    file: FileView<'a>,
    cap: usize,
) -> BTreeMap<(String, u32), UsedBy<'a>> {
    let snapshot = &published.snapshot;
    let home = file.repository().name();
    let mut found = BTreeMap::new();
    for symbol in file.symbols() {
        let mut uses: Vec<(&str, &str, u32, &str, &str)> = snapshot
            .incoming(symbol.index)
            .filter_map(|edge| {
                let relation = relation(edge.kind())?;
                let holder = Holder::of(published, edge.source())?;
                let line = edge
                    .evidence()
                    .map_or(holder.lines().0, |evidence| evidence.lines().0);
                let place = holder.file();
                Some((
                    place.repository().name(),
                    place.path(),
                    line,
                    holder.qualified_name(),
                    relation,
                ))
            })
            .collect();
        uses.sort_unstable();
        uses.dedup();
        if uses.is_empty() {
            continue;
        }
        let listed = uses
            .iter()
            .take(cap)
            .map(|(repository, path, line, holder, relation)| UseRow {
                file: path,
                repository: (*repository != home).then_some(*repository),
                symbol: holder,
                line: *line,
                relation,
            })
            .collect();
        // Keyed by name and line: the graph completes a Rust name with its module path.
        found.insert(
            (symbol.name().to_string(), symbol.span().start_line),
            UsedBy {
                listed,
                total: uses.len(),
            },
        );
    }
    found
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ModuleReportArgs {
    /// Absolute, or relative to a registered repository's root.
    #[schemars(required)]
    pub file: Option<String>,
    /// Disambiguates a relative path present in several repositories.
    pub repository: Option<String>,
    #[schemars(range(min = 0, max = 100))]
    pub max_refs_per_symbol: Option<i64>,
    #[schemars(extend("enum" = ["json", "compact"], "default" = "json"))]
    pub view: Option<String>,
}

pub fn module_report(
    published: Option<&Published>,
    roots: &Roots,
    args: &ModuleReportArgs,
) -> Result<String, QueryError> {
    let compact = match args.view.as_deref() {
        None | Some("json") | Some("full") => false,
        Some("compact") => true,
        Some(other) => {
            return Err(QueryError::invalid(format!(
                "view {other:?} is not one of json, compact"
            )));
        }
    };
    if let Some(n) = args.max_refs_per_symbol
        && !(0..=100).contains(&n)
    {
        return Err(QueryError::invalid(format!(
            "maxRefsPerSymbol must be between 0 and 100, got {n}"
        )));
    }
    let file = open(
        roots,
        args.file.as_deref().unwrap_or(""),
        args.repository.as_deref(),
    )?;
    let shape: FileShape = kivgraph_syntax::shape(file.language, &file.path, &file.text);
    // What backed the answer: the published graph only when it holds this exact file.
    let indexed = published.and_then(|p| p.snapshot.file_by_path(&file.repository, &file.path));
    let staleness = match indexed {
        Some(f) if f.fingerprint() == file.fingerprint => "fresh",
        Some(_) => "stale",
        None => "not indexed",
    };
    let package = indexed.map(|f| f.package().name().to_string());
    let (external, internal): (Vec<&String>, Vec<&String>) = shape
        .imports
        .iter()
        .partition(|i| !internal_import(file.language, i, package.as_deref()));
    let entries: Vec<(&Declaration, &SymbolMetrics)> = shape
        .facts
        .declarations
        .iter()
        .zip(&shape.metrics)
        .filter(|(d, _)| !is_member(d.kind))
        .collect();
    // Who uses each declaration, from the published graph — only when it holds this exact
    // file, so that lines and names agree with what the report shows.
    let cap = args.max_refs_per_symbol.unwrap_or(DEFAULT_REFS_PER_SYMBOL) as usize;
    let used_by: BTreeMap<(String, u32), UsedBy> = match (published, indexed) {
        (Some(published), Some(indexed)) if staleness == "fresh" => {
            used_by(published, indexed, cap)
        }
        _ => BTreeMap::new(),
    };
    let uses_of = |d: &Declaration| {
        used_by
            .get(&(d.name.clone(), d.span.start_line))
            .map_or(0, |u| u.total)
    };
    let score = |d: &Declaration, m: &SymbolMetrics| {
        uses_of(d) as u32 * 2
            + m.complexity
            + if d.exported { 2 } else { 0 }
            + if m.complexity >= HIGH_COMPLEXITY {
                3
            } else {
                0
            }
    };
    let mut ranked: Vec<&(&Declaration, &SymbolMetrics)> = entries
        .iter()
        .filter(|(d, _)| !d.kind.is_container() || d.kind == SymbolKind::Class)
        .collect();
    ranked.sort_by(|a, b| {
        score(b.0, b.1)
            .cmp(&score(a.0, a.1))
            .then(a.0.span.start_line.cmp(&b.0.span.start_line))
    });
    let recommended: Vec<(&Declaration, &SymbolMetrics)> =
        ranked.into_iter().take(3).map(|e| (e.0, e.1)).collect();
    let exported_count = entries.iter().filter(|(d, _)| d.exported).count();
    let lines = shape.facts.line_count;
    if compact {
        let mut out = format!(
            "{} {} {}L — {} symbols, {} exported | imports: {}\n",
            file.path,
            file.language,
            lines,
            entries.len(),
            exported_count,
            shape
                .imports
                .iter()
                .map(|i| i.rsplit(['/', '.', ':']).next().unwrap_or(i))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if staleness != "fresh" {
            out.push_str(&format!("({staleness}: answered from the file's syntax)\n"));
        }
        for (title, exported) in [("API", true), ("INTERNAL", false)] {
            let section: Vec<&(&Declaration, &SymbolMetrics)> = entries
                .iter()
                .filter(|(d, _)| d.exported == exported)
                .collect();
            if section.is_empty() {
                continue;
            }
            out.push_str(title);
            out.push_str(":\n");
            for (d, m) in section {
                let mut line = format!(
                    "  {}-{} {} {}",
                    d.span.start_line,
                    d.span.end_line,
                    short_kind(d.kind),
                    compact_signature(&d.signature)
                );
                let f = flags(m);
                if !f.is_empty() {
                    line.push_str(&format!("  [{}]", f.join(", ")));
                }
                if let Some(doc) = &d.doc {
                    line.push_str(&format!("  — {doc}"));
                }
                out.push_str(&line);
                out.push('\n');
            }
        }
        if !recommended.is_empty() {
            let picks: Vec<String> = recommended
                .iter()
                .map(|(d, m)| {
                    format!(
                        "{}@{}-{} (complexity {})",
                        d.qualified_name, d.span.start_line, d.span.end_line, m.complexity
                    )
                })
                .collect();
            out.push_str(&format!("READ FIRST: {}\n", picks.join(", ")));
        }
        return Ok(out);
    }
    let uses = |d: &Declaration| used_by.get(&(d.name.clone(), d.span.start_line));
    let fresh = staleness == "fresh";
    let report = Report {
        available: true,
        staleness,
        repository: &file.repository,
        path: &file.path,
        language: file.language.as_str(),
        line_count: lines,
        summary: Summary {
            imports: shape.imports.len(),
            exports: exported_count,
            symbols: entries.len(),
        },
        imports: Imports { external, internal },
        api: entries
            .iter()
            .filter(|(d, _)| d.exported)
            .map(|(d, m)| entry(d, m, uses(d)))
            .collect(),
        internal: entries
            .iter()
            .filter(|(d, _)| !d.exported)
            .map(|(d, m)| entry(d, m, uses(d)))
            .collect(),
        recommended_reads: recommended
            .iter()
            .map(|(d, m)| Recommended {
                reason: format!(
                    "{}complexity {}{}",
                    match uses_of(d) {
                        0 => String::new(),
                        n => format!("used by {n}, "),
                    },
                    m.complexity,
                    if d.exported { ", exported" } else { "" }
                ),
                symbol: &d.qualified_name,
                start_line: d.span.start_line,
                end_line: d.span.end_line,
            })
            .collect(),
        semantic: Semantic {
            source: if fresh { "published graph" } else { "syntax" },
            references: fresh,
            implementations: fresh,
        },
    };
    // Plain fields in order: nothing here can fail to serialize.
    Ok(serde_json::to_string(&report).expect("a report serializes"))
}

/// What stands out about a declaration.
fn flags(m: &SymbolMetrics) -> Vec<&'static str> {
    let mut flags = Vec::new();
    if m.is_async {
        flags.push("async");
    }
    if m.fanout >= HIGH_FANOUT {
        flags.push("high fanout");
    }
    if m.complexity >= HIGH_COMPLEXITY {
        flags.push("high complexity");
    }
    flags
}

/// One declaration's entry, with who uses it when the graph knows.
fn entry<'s>(d: &'s Declaration, m: &SymbolMetrics, uses: Option<&'s UsedBy<'s>>) -> Entry<'s> {
    Entry {
        name: &d.qualified_name,
        kind: d.kind.as_str(),
        start_line: d.span.start_line,
        end_line: d.span.end_line,
        exported: d.exported,
        signature: &d.signature,
        doc: d.doc.as_deref(),
        fanout: m.fanout,
        complexity: m.complexity,
        flags: flags(m),
        used_by: uses.map(|u| u.listed.as_slice()),
        used_by_total: uses.filter(|u| u.total > u.listed.len()).map(|u| u.total),
    }
}

/// The report, in the field names of the reference system's `module_report`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    available: bool,
    staleness: &'a str,
    repository: &'a str,
    path: &'a str,
    language: &'static str,
    line_count: u32,
    summary: Summary,
    imports: Imports<'a>,
    api: Vec<Entry<'a>>,
    internal: Vec<Entry<'a>>,
    recommended_reads: Vec<Recommended<'a>>,
    semantic: Semantic,
}

#[derive(Serialize)]
struct Summary {
    imports: usize,
    exports: usize,
    symbols: usize,
}

#[derive(Serialize)]
struct Imports<'a> {
    external: Vec<&'a String>,
    internal: Vec<&'a String>,
}

/// One declaration of the file.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry<'a> {
    name: &'a str,
    kind: &'static str,
    start_line: u32,
    end_line: u32,
    exported: bool,
    signature: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    doc: Option<&'a str>,
    fanout: u32,
    complexity: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    flags: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    used_by: Option<&'a [UseRow<'a>]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    used_by_total: Option<usize>,
}

/// A declaration worth reading first, and why.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Recommended<'a> {
    reason: String,
    symbol: &'a str,
    start_line: u32,
    end_line: u32,
}

/// Where the report's relations come from.
#[derive(Serialize)]
struct Semantic {
    source: &'static str,
    references: bool,
    implementations: bool,
}
