//! `get_source`: the code of several symbols in one call, in prose. Files are read once, only
//! inside their repository and never through a symbolic link; a file that changed since the
//! index is re-anchored by parsing it again, or the row is refused.

use std::collections::HashMap;
use std::path::Path;

use kivgraph_snapshot::SymbolView;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::args::ResponseFormat;
use crate::checkout::{Read, read_inside};
use crate::error::QueryError;
use crate::published::Published;
use crate::selector::SelectorArgs;

/// The size bound on the assembled bodies.
pub const CEILING: usize = 262_144;
const MAX_SYMBOLS: usize = 20;
const MAX_CONTEXT: i64 = 100;

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct GetSourceArgs {
    #[schemars(required, length(min = 1, max = 20))]
    pub symbols: Option<Vec<SelectorArgs>>,
    #[schemars(range(min = 0, max = 100), extend("default" = 0))]
    pub context_lines: Option<i64>,
    #[schemars(extend("enum" = ["concise", "detailed"], "default" = "concise"))]
    pub response_format: Option<String>,
}

/// Where the declaration is in the file as it is now: the lines it occupies and how far it
/// moved, or why it cannot be placed.
fn anchor(symbol: &SymbolView, text: &str, fresh: bool) -> Result<(u32, u32, Option<i64>), String> {
    let span = symbol.span();
    if span.start_line == 0 {
        return Err("the generation records no line range for it".into());
    }
    if fresh {
        return Ok((span.start_line, span.end_line, None));
    }
    let facts = kivgraph_syntax::extract(symbol.language(), symbol.file().path(), text);
    // The file's own qualified names; Rust's carry the module path in the graph, so compare
    // on the file-local suffix.
    let wanted = symbol.qualified_name();
    let mut matches: Vec<(u32, u32)> = facts
        .declarations
        .iter()
        .filter(|d| {
            d.kind == symbol.kind()
                && (wanted == d.qualified_name
                    || wanted.ends_with(&format!("::{}", d.qualified_name)))
        })
        .map(|d| (d.span.start_line, d.span.end_line))
        .collect();
    matches.sort_by_key(|(start, _)| (i64::from(*start) - i64::from(span.start_line)).abs());
    let Some(&(start, end)) = matches.first() else {
        return Err("the declaration no longer exists in the file".into());
    };
    let distance = |s: u32| (i64::from(s) - i64::from(span.start_line)).abs();
    if matches
        .get(1)
        .is_some_and(|(other, _)| distance(*other) == distance(start))
    {
        return Err("the declaration now appears twice, equally far from where it was".into());
    }
    if end - start != span.end_line - span.start_line {
        return Err("the declaration no longer spans as many lines".into());
    }
    Ok((
        start,
        end,
        Some(i64::from(start) - i64::from(span.start_line)),
    ))
}

pub fn get_source(published: &Published, args: &GetSourceArgs) -> Result<String, QueryError> {
    let entries = args
        .symbols
        .as_ref()
        .ok_or_else(|| QueryError::invalid("symbols is required"))?;
    if entries.is_empty() || entries.len() > MAX_SYMBOLS {
        return Err(QueryError::invalid(format!(
            "symbols must hold between 1 and {MAX_SYMBOLS} entries, got {}",
            entries.len()
        )));
    }
    let context = match args.context_lines {
        None => 0,
        Some(n) if (0..=MAX_CONTEXT).contains(&n) => n as u32,
        Some(n) => {
            return Err(QueryError::invalid(format!(
                "context_lines must be between 0 and {MAX_CONTEXT}, got {n}"
            )));
        }
    };
    let format = ResponseFormat::parse(args.response_format.as_deref())?;
    let symbols = entries
        .iter()
        .map(|e| e.parse()?.resolve(published))
        .collect::<Result<Vec<_>, _>>()?;

    let mut files: HashMap<usize, Read> = HashMap::new();
    let mut bodies = String::new();
    let mut served = 0;
    let mut trimmed = false;
    for symbol in &symbols {
        let file = symbol.file();
        let repository = file.repository();
        let read = files.entry(file.index).or_insert_with(|| {
            read_inside(
                Path::new(repository.root()),
                file.path(),
                file.fingerprint(),
            )
        });
        let span = symbol.span();
        let mut header = format!(
            "{} {}:{}-{} {} {}",
            repository.name(),
            file.path(),
            span.start_line,
            span.end_line,
            symbol.kind(),
            symbol.qualified_name()
        );
        let placed = match read {
            Ok((bytes, fresh)) => match std::str::from_utf8(bytes) {
                Ok(text) => anchor(symbol, text, *fresh).map(|placed| (text, placed)),
                Err(_) => Err("the file is not UTF-8".to_string()),
            },
            Err(reason) => Err(reason.clone()),
        };
        let body = match placed {
            Ok((text, (start, end, moved))) => {
                if let Some(offset) = moved {
                    header.push_str(&format!(" [file changed, re-anchored {offset:+}]"));
                }
                let lines: Vec<&str> = text.lines().collect();
                let first = start.saturating_sub(context).max(1) as usize;
                let last = ((end + context) as usize).min(lines.len());
                Ok(lines.get(first - 1..last).unwrap_or(&[]).join("\n"))
            }
            Err(reason) => Err(reason),
        };
        if format == ResponseFormat::Detailed {
            header.push_str(&format!(" {}", symbol.key()));
        }
        let block = match body {
            Ok(code) => format!("@ {header}\n{code}\n"),
            Err(reason) => format!("! {header}: {reason}\n"),
        };
        if bodies.len() + block.len() > CEILING {
            trimmed = true;
            break;
        }
        if block.starts_with('@') {
            served += 1;
        }
        bodies.push_str(&block);
    }
    let requested = symbols.len();
    let count = if served == requested {
        format!("{served} bodies")
    } else {
        format!("{served} of {requested} bodies")
    };
    let ceiling = if trimmed {
        format!(" · trimmed at the {CEILING} byte ceiling")
    } else {
        String::new()
    };
    Ok(format!(
        "snapshot {} · {count} · context {context}{ceiling}\n{bodies}",
        published.snapshot_id()
    ))
}
