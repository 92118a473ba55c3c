//! What bounds an answer: the scopes the index could not read, and the `completeness` block
//! that names them.

use serde_json::{Map, Value, json};

use crate::published::Published;

const MAX_LISTED: usize = 20;

/// What the index could not read inside the search's scope: repositories or packages that
/// could not be read at all, and files the parser had to recover (declarations may be missing
/// there).
pub struct Scope {
    pub reason: String,
    pub repository: String,
    pub path: Option<String>,
    pub requested_package: Option<String>,
    pub detail: String,
    pub absolute: Option<String>,
}

/// Scopes that could not be read at all (rows without a file), and regions where a
/// declaration whose name `hides` accepts may be missing (parse errors outside function
/// bodies). One entry per place.
pub fn invisible_scopes(
    published: &Published,
    repo: Option<&str>,
    path_prefix: Option<&str>,
    hides: &dyn Fn(&str) -> bool,
) -> Vec<Scope> {
    let mut seen: std::collections::HashSet<(String, Option<String>, String)> =
        std::collections::HashSet::new();
    published
        .snapshot
        .unresolved()
        .filter(|u| match u.file_path() {
            None => true,
            Some(_) => u.reason() == "PARSE_ERROR" && u.requested_symbol().is_some_and(hides),
        })
        .filter(|u| {
            let place = (
                u.repository()
                    .map(|r| r.name().to_string())
                    .unwrap_or_default(),
                u.file_path().map(str::to_string),
                u.reason().to_string(),
            );
            seen.insert(place)
        })
        .filter_map(|u| {
            let repository = u.repository()?.name().to_string();
            if repo.is_some_and(|r| r != repository) {
                return None;
            }
            if let (Some(prefix), Some(file)) = (path_prefix, u.file_path())
                && !file.starts_with(prefix)
            {
                return None;
            }
            let absolute = u.file_path().and_then(|f| {
                published
                    .repository_root(&repository)
                    .map(|root| root.join(f).display().to_string())
            });
            Some(Scope {
                reason: u.reason().to_string(),
                repository,
                path: u.file_path().map(str::to_string),
                requested_package: u.requested_package().map(str::to_string),
                detail: u.detail().to_string(),
                absolute,
            })
        })
        .collect()
}

/// The `completeness` block: `COMPLETE`, or `LOWER_BOUND` naming what could not be read, with
/// a `\bname\b` fallback over the unread files when the question names a symbol.
pub fn completeness(name: Option<&str>, scopes: &[Scope]) -> Value {
    if scopes.is_empty() {
        return json!({"verdict": "COMPLETE"});
    }
    let listed: Vec<Value> = scopes
        .iter()
        .take(MAX_LISTED)
        .map(|s| {
            let mut entry = Map::new();
            entry.insert("reason".into(), json!(s.reason));
            entry.insert("repository".into(), json!(s.repository));
            if let Some(path) = &s.path {
                entry.insert("path".into(), json!(path));
            }
            if let Some(package) = &s.requested_package {
                entry.insert("requested_package".into(), json!(package));
            }
            entry.insert("detail".into(), json!(s.detail));
            Value::Object(entry)
        })
        .collect();
    let mut block = Map::new();
    block.insert("verdict".into(), json!("LOWER_BOUND"));
    block.insert("invisible_scopes".into(), Value::Array(listed));
    if scopes.len() > MAX_LISTED {
        block.insert(
            "more_invisible_scopes".into(),
            json!(scopes.len() - MAX_LISTED),
        );
    }
    let paths: Vec<&String> = scopes.iter().filter_map(|s| s.absolute.as_ref()).collect();
    if let Some(name) = name
        && !paths.is_empty()
    {
        let mut fallback = Map::new();
        fallback.insert(
            "pattern".into(),
            json!(format!("\\b{}\\b", escape_regex(name))),
        );
        fallback.insert(
            "paths".into(),
            json!(paths.iter().take(MAX_LISTED).collect::<Vec<_>>()),
        );
        if paths.len() > MAX_LISTED {
            fallback.insert("more_paths".into(), json!(paths.len() - MAX_LISTED));
        }
        block.insert("fallback".into(), Value::Object(fallback));
    }
    Value::Object(block)
}

fn escape_regex(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if "\\.+*?()|[]{}^$#&-~".contains(c) {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect()
}
