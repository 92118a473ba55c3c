//! `read_symbol`: one symbol's verbatim body, from its doc comment, by name in one file as it
//! is now.

use kivgraph_facts::Language;
use kivgraph_syntax::Declaration;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::checkout::{Roots, open};
use crate::error::{ErrorCode, QueryError};
use crate::tools::module_report::short_kind;

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadSymbolArgs {
    /// Absolute, or relative to a registered repository's root.
    #[schemars(required)]
    pub file: Option<String>,
    /// A name, or Parent.member.
    #[schemars(required)]
    pub symbol: Option<String>,
    /// Chooses among same-named symbols, e.g. function, interface.
    pub kind: Option<String>,
    pub repository: Option<String>,
}

/// Normalized Levenshtein similarity in 0..=1.
fn similarity(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (
        a.to_lowercase().chars().collect(),
        b.to_lowercase().chars().collect(),
    );
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 1.0;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(current + 1);
            previous = current;
        }
    }
    1.0 - row[b.len()] as f64 / longest as f64
}

/// Where the comment block directly above line `start` begins (a blank line detaches it).
fn attached_comment_start(lines: &[&str], start: u32, language: Language) -> u32 {
    let mut first = start;
    while first > 1 {
        let previous = lines
            .get(first as usize - 2)
            .map(|l| l.trim())
            .unwrap_or("");
        let is_comment = match language {
            Language::Python => previous.starts_with('#'),
            Language::Rust => {
                previous.starts_with("//")
                    || previous.starts_with("/*")
                    || previous.starts_with('*')
                    || previous.starts_with("#[")
            }
            _ => {
                previous.starts_with("//")
                    || previous.starts_with("/*")
                    || previous.starts_with('*')
            }
        };
        if previous.is_empty() || !is_comment {
            break;
        }
        first -= 1;
    }
    first
}

pub fn read_symbol(roots: &Roots, args: &ReadSymbolArgs) -> Result<String, QueryError> {
    let wanted = args
        .symbol
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| QueryError::invalid("symbol is required"))?;
    let file = open(
        roots,
        args.file.as_deref().unwrap_or(""),
        args.repository.as_deref(),
    )?;
    let facts = kivgraph_syntax::extract(file.language, &file.path, &file.text);
    let declarations = &facts.declarations;
    let kind_ok = |d: &Declaration| {
        args.kind
            .as_deref()
            .is_none_or(|k| d.kind.as_str() == k || short_kind(d.kind) == k)
    };
    // `Parent.member` (or `Parent::member`) resolves by containment first.
    let qualified: Option<(&str, &str)> =
        wanted.rsplit_once("::").or_else(|| wanted.rsplit_once('.'));
    let mut matches: Vec<&Declaration> = match qualified {
        Some((parent, member)) => declarations
            .iter()
            .filter(|d| d.name == member && kind_ok(d))
            .filter(|d| {
                d.parent.is_some_and(|p| {
                    declarations[p as usize].name == parent
                        || declarations[p as usize].qualified_name == parent
                }) || d.qualified_name == wanted
            })
            .collect(),
        None => Vec::new(),
    };
    if matches.is_empty() {
        let name = qualified.map(|(_, member)| member).unwrap_or(wanted);
        let top: Vec<&Declaration> = declarations
            .iter()
            .filter(|d| d.name == name && kind_ok(d))
            .collect();
        matches = if qualified.is_some() {
            top.into_iter().filter(|d| d.parent.is_none()).collect()
        } else {
            top
        };
    }
    let Some(found) = matches.first() else {
        let mut scored: Vec<(f64, &str)> = declarations
            .iter()
            .map(|d| {
                (
                    similarity(wanted, &d.name).max(similarity(wanted, &d.qualified_name)),
                    d.qualified_name.as_str(),
                )
            })
            .filter(|(score, _)| *score >= 0.45)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        scored.dedup_by(|a, b| a.1 == b.1);
        let suggestions: Vec<&str> = scored.iter().take(3).map(|(_, n)| *n).collect();
        let hint = if suggestions.is_empty() {
            String::new()
        } else {
            format!("; did you mean: {}?", suggestions.join(", "))
        };
        return Err(QueryError::new(
            ErrorCode::SymbolNotFound,
            format!("symbol {wanted:?} was not found in {}{hint}", file.path),
        ));
    };
    let lines: Vec<&str> = file.text.lines().collect();
    let first = attached_comment_start(&lines, found.span.start_line, file.language);
    let body = lines
        .get(first as usize - 1..(found.span.end_line as usize).min(lines.len()))
        .unwrap_or(&[])
        .join("\n");
    let basename = file.path.rsplit('/').next().unwrap_or(&file.path);
    let mut out = format!(
        "{} {}  {}:{}-{}  {}\n",
        found.kind, found.qualified_name, basename, first, found.span.end_line, found.signature
    );
    if matches.len() > 1 {
        let mut kinds: Vec<&str> = matches.iter().map(|d| d.kind.as_str()).collect();
        kinds.dedup();
        out.push_str(&format!("ambiguous: {{count: {}, kinds: [{}]}} — {} matches, returned the first {}; pass kind to disambiguate\n", matches.len(), kinds.join(", "), matches.len(), found.kind));
    }
    out.push('\n');
    out.push_str(&body);
    out.push('\n');
    Ok(out)
}
