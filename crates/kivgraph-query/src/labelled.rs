//! The compact view of answers whose rows are declarations with relation columns: rows
//! grouped by file, each a `qualified_name@start-end` label, what every row shares hoisted
//! into the header, and a second tier of groups when that is shorter.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::envelope::{smaller_of, to_value};

/// One row as the compact view spells it.
pub struct LabelledRow {
    pub repository: String,
    pub file: String,
    pub label: String,
    /// Values of the hoistable columns, in the order of the `columns` passed alongside.
    pub columns: Vec<Value>,
}

/// `qualified_name@start`, or `qualified_name@start-end` for a multi-line declaration.
pub fn label(qualified_name: &str, start: u32, end: u32) -> String {
    if start == end {
        format!("{qualified_name}@{start}")
    } else {
        format!("{qualified_name}@{start}-{end}")
    }
}

/// Fills `header` with the repository and the columns every row agrees on, then lists the
/// rows by file: the flat shape, or groups by the columns still on the rows when that
/// serializes shorter. A file outside the header's repository carries its own `repo`;
/// `home_repository` is the header's repository when the rows span several.
pub fn compact_rows(
    mut header: Map<String, Value>,
    columns: &[&str],
    rows: &[LabelledRow],
    home_repository: &str,
) -> Value {
    let repository = match rows.first() {
        Some(first) if rows.iter().all(|r| r.repository == first.repository) => {
            first.repository.as_str()
        }
        _ => home_repository,
    };
    header.insert("repository".into(), Value::from(repository));
    let hoisted: Vec<bool> = (0..columns.len())
        .map(|i| match rows.first() {
            Some(first) => rows.iter().all(|r| r.columns[i] == first.columns[i]),
            None => false,
        })
        .collect();
    for (i, column) in columns.iter().enumerate() {
        if hoisted[i] {
            header.insert((*column).to_string(), rows[0].columns[i].clone());
        }
    }
    let all: Vec<&LabelledRow> = rows.iter().collect();
    let mut flat = header.clone();
    flat.insert(
        "files".into(),
        by_file(&all, repository, |row| {
            let tail: Vec<Value> = row
                .columns
                .iter()
                .zip(&hoisted)
                .filter(|(_, hoisted)| !**hoisted)
                .map(|(value, _)| value.clone())
                .collect();
            if tail.is_empty() {
                Value::from(row.label.as_str())
            } else {
                let mut entry = vec![Value::from(row.label.as_str())];
                entry.extend(tail);
                Value::Array(entry)
            }
        }),
    );
    let flat = Value::Object(flat);
    if hoisted.iter().all(|h| *h) || rows.len() < 2 {
        return flat;
    }
    // Second tier: one group per tuple of the columns the header could not state, in order
    // of first appearance.
    let mut groups: Vec<(Vec<&Value>, Vec<&LabelledRow>)> = Vec::new();
    for row in rows {
        let tuple: Vec<&Value> = row
            .columns
            .iter()
            .zip(&hoisted)
            .filter(|(_, hoisted)| !**hoisted)
            .map(|(value, _)| value)
            .collect();
        match groups.iter_mut().find(|(t, _)| *t == tuple) {
            Some((_, members)) => members.push(row),
            None => groups.push((tuple, vec![row])),
        }
    }
    let remaining: Vec<&str> = columns
        .iter()
        .zip(&hoisted)
        .filter(|(_, hoisted)| !**hoisted)
        .map(|(column, _)| *column)
        .collect();
    let groups: Vec<Value> = groups
        .into_iter()
        .map(|(tuple, members)| {
            let mut group = Map::new();
            for (column, value) in remaining.iter().zip(tuple) {
                group.insert((*column).to_string(), value.clone());
            }
            group.insert(
                "files".into(),
                by_file(&members, repository, |row| Value::from(row.label.as_str())),
            );
            Value::Object(group)
        })
        .collect();
    smaller_of(header, groups, flat)
}

/// Rows by file, in order of first appearance, each file with its entries.
fn by_file(
    rows: &[&LabelledRow],
    repository: &str,
    entry: impl Fn(&LabelledRow) -> Value,
) -> Value {
    let mut files: Vec<((&str, &str), Vec<Value>)> = Vec::new();
    for row in rows {
        let place = (row.repository.as_str(), row.file.as_str());
        match files.iter_mut().find(|(p, _)| *p == place) {
            Some((_, entries)) => entries.push(entry(row)),
            None => files.push((place, vec![entry(row)])),
        }
    }
    let files: Vec<FileGroup> = files
        .into_iter()
        .map(|((repo, file), at)| FileGroup {
            file,
            repo: (repo != repository).then_some(repo),
            test: crate::test_files::is_test_file(file),
            at,
        })
        .collect();
    to_value(&files)
}

/// One file's entries: a label, or a label with the columns the header could not state.
#[derive(Serialize)]
struct FileGroup<'a> {
    file: &'a str,
    /// Only when it is not the header's repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    repo: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    test: bool,
    at: Vec<Value>,
}

/// How many rows one file holds.
#[derive(Serialize)]
struct FileCount {
    file: String,
    count: usize,
}

/// The `files` view: each file holding rows, prefixed with its repository, and how many.
pub fn file_counts(rows: &[LabelledRow]) -> Value {
    let mut files: Vec<(String, usize)> = Vec::new();
    for row in rows {
        let file = format!("{}/{}", row.repository, row.file);
        match files.iter_mut().find(|(f, _)| *f == file) {
            Some((_, count)) => *count += 1,
            None => files.push((file, 1)),
        }
    }
    to_value(
        &files
            .into_iter()
            .map(|(file, count)| FileCount { file, count })
            .collect::<Vec<_>>(),
    )
}
