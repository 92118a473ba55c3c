//! The envelope every query tool wraps its `results` in, and the compact view's hoisting and
//! grouping of columns.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::args::View;
use crate::freshness::{Freshness, Wait};
use crate::published::Published;

/// Four disjoint counters over the whole answer, not the page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Coverage {
    pub exact: usize,
    pub candidate: usize,
    pub unresolved_related: usize,
    pub package_level: usize,
}

/// The compact view of [`Coverage`]: only the counters above zero.
#[derive(Serialize)]
struct CompactCoverage {
    #[serde(skip_serializing_if = "is_zero")]
    exact: usize,
    #[serde(skip_serializing_if = "is_zero")]
    candidate: usize,
    #[serde(skip_serializing_if = "is_zero")]
    unresolved_related: usize,
    #[serde(skip_serializing_if = "is_zero")]
    package_level: usize,
}

fn is_zero(value: &usize) -> bool {
    *value == 0
}

impl Coverage {
    /// `None` when all four counters are zero.
    fn compact(&self) -> Option<CompactCoverage> {
        (*self != Coverage::default()).then_some(CompactCoverage {
            exact: self.exact,
            candidate: self.candidate,
            unresolved_related: self.unresolved_related,
            package_level: self.package_level,
        })
    }
}

/// One page of an answer, with its results already spelled for the requested view.
#[derive(Debug, Clone)]
pub struct Page {
    pub total: usize,
    pub returned: usize,
    pub next_cursor: Option<String>,
    pub coverage: Coverage,
    pub guidance: Option<String>,
    pub completeness: Option<Value>,
    pub results: Value,
    /// The snapshot files the rows come from, for the staleness check.
    pub files: Vec<usize>,
}

/// The envelope as it is written, in field order. The compact view omits what carries no
/// information (`None` fields); the full view writes every field, `null` included.
#[derive(Serialize)]
struct Envelope<'a> {
    snapshot_id: Option<u64>,
    /// Full view only.
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot_age_ms: Option<Option<u64>>,
    total: usize,
    returned: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<Option<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    coverage: Option<Counters>,
    #[serde(skip_serializing_if = "Option::is_none")]
    guidance: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    completeness: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    freshness: Option<Freshness<'a>>,
    results: &'a Value,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Counters {
    Full(Coverage),
    Compact(CompactCoverage),
}

impl Page {
    /// The answer as the text block carries it; `wait` is what the caller's
    /// `fresh_within_ms` came to, when it asked.
    pub fn render(&self, published: Option<&Published>, view: View, wait: Option<&Wait>) -> String {
        // A page is truncated when there is more to fetch; a filtered page can hold fewer rows
        // than it matched and still be complete.
        let truncated = self.next_cursor.is_some();
        let full = view == View::Full;
        let envelope = Envelope {
            snapshot_id: published.map(Published::snapshot_id),
            snapshot_age_ms: full.then(|| published.map(Published::age_ms)),
            total: self.total,
            returned: self.returned,
            truncated: (full || truncated).then_some(truncated),
            next_cursor: (full || truncated).then_some(self.next_cursor.as_deref()),
            coverage: if full {
                Some(Counters::Full(self.coverage))
            } else {
                self.coverage.compact().map(Counters::Compact)
            },
            guidance: self.guidance.as_deref(),
            completeness: self.completeness.as_ref(),
            freshness: Freshness::of(
                published
                    .map(|p| p.stale_files(&self.files))
                    .unwrap_or_default(),
                published
                    .map(|p| p.exact_layer_owed(&self.files))
                    .unwrap_or_default(),
                wait,
            ),
            results: &self.results,
        };
        // Strings, numbers and JSON values: nothing here can fail to serialize.
        serde_json::to_string(&envelope).expect("an envelope serializes")
    }
}

/// A typed answer as the JSON value the envelope carries.
pub(crate) fn to_value(answer: &impl Serialize) -> Value {
    // Answers are strings, numbers, lists and JSON values: nothing can fail to serialize.
    serde_json::to_value(answer).expect("an answer serializes")
}

/// A typed row as the map the compact view hoists and groups columns of.
pub(crate) fn to_map(row: &impl Serialize) -> Map<String, Value> {
    match to_value(row) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The columns of `columns` on which every row agrees, moved from the rows into a header.
/// Rows that lack a column keep it absent; a column only hoists when all rows carry the same
/// value.
pub fn hoist(rows: &mut [Map<String, Value>], columns: &[&str]) -> Map<String, Value> {
    let mut header = Map::new();
    let Some(first) = rows.first() else {
        return header;
    };
    for column in columns {
        let Some(value) = first.get(*column) else {
            continue;
        };
        if rows.iter().all(|row| row.get(*column) == Some(value)) {
            header.insert((*column).to_string(), value.clone());
        }
    }
    for row in rows.iter_mut() {
        for column in header.keys() {
            row.shift_remove(column);
        }
    }
    header
}

/// The values a group shares, and its rows.
type Group = (Vec<Option<Value>>, Vec<Map<String, Value>>);

/// The flat page (`header` + `list_field: rows`) or, when it serializes smaller, the page
/// grouped by the tuple of `group_columns` each row still carries. A group states its tuple
/// once and holds its rows without it; a column of `group_hoist` on which a group's rows all
/// agree is stated by the group too.
pub fn flat_or_grouped(
    header: Map<String, Value>,
    rows: Vec<Map<String, Value>>,
    list_field: &str,
    group_columns: &[&str],
    group_hoist: &[&str],
) -> Value {
    let mut flat = header.clone();
    flat.insert(
        list_field.into(),
        Value::Array(rows.iter().cloned().map(Value::Object).collect()),
    );
    let flat = Value::Object(flat);
    let present: Vec<&str> = group_columns
        .iter()
        .copied()
        .filter(|c| rows.iter().any(|r| r.contains_key(*c)))
        .collect();
    if present.is_empty() || rows.len() < 2 {
        return flat;
    }
    // Groups in order of first appearance, so the rows keep their order within a group.
    let mut groups: Vec<Group> = Vec::new();
    for mut row in rows {
        let tuple: Vec<Option<Value>> = present.iter().map(|c| row.shift_remove(*c)).collect();
        match groups.iter_mut().find(|(t, _)| *t == tuple) {
            Some((_, members)) => members.push(row),
            None => groups.push((tuple, vec![row])),
        }
    }
    let groups: Vec<Value> = groups
        .into_iter()
        .map(|(tuple, mut members)| {
            let mut group = Map::new();
            for (column, value) in present.iter().zip(tuple) {
                if let Some(value) = value {
                    group.insert((*column).to_string(), value);
                }
            }
            hoist_agreed(&mut members, group_hoist, &mut group);
            group.insert(
                list_field.into(),
                Value::Array(members.into_iter().map(Value::Object).collect()),
            );
            Value::Object(group)
        })
        .collect();
    smaller_of(header, groups, flat)
}

/// Columns of `columns` on which every row that carries them agrees, moved into `header`
/// (rows without the column do not vote).
pub fn hoist_agreed(
    rows: &mut [Map<String, Value>],
    columns: &[&str],
    header: &mut Map<String, Value>,
) {
    for column in columns {
        let mut values = rows.iter().filter_map(|r| r.get(*column));
        let Some(first) = values.next().cloned() else {
            continue;
        };
        if values.all(|v| *v == first) {
            for row in rows.iter_mut() {
                row.shift_remove(*column);
            }
            header.insert((*column).to_string(), first);
        }
    }
}

/// The grouped shape (`header` plus `groups`) when it serializes shorter than `flat`, else
/// `flat`: grouping is offered only where it saves tokens.
pub(crate) fn smaller_of(mut header: Map<String, Value>, groups: Vec<Value>, flat: Value) -> Value {
    header.insert("groups".into(), Value::Array(groups));
    let grouped = Value::Object(header);
    if grouped.to_string().len() < flat.to_string().len() {
        grouped
    } else {
        flat
    }
}

/// The rows `offset..offset + limit` of `rows` in the order of `key` (unique per row, so the
/// order is total and a cursor never skips or repeats a row), without sorting the rest: the
/// rows before the page's end are selected, then only they are sorted.
pub fn ordered_page<T, K: Ord>(
    rows: Vec<T>,
    offset: usize,
    limit: usize,
    key: impl Fn(&T) -> K,
) -> Vec<T> {
    let end = offset.saturating_add(limit).min(rows.len());
    if offset >= end {
        return Vec::new();
    }
    let mut keyed: Vec<(K, T)> = rows.into_iter().map(|row| (key(&row), row)).collect();
    if end < keyed.len() {
        keyed.select_nth_unstable_by(end, |a, b| a.0.cmp(&b.0));
        keyed.truncate(end);
    }
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    keyed.drain(offset..).map(|(_, row)| row).collect()
}

#[cfg(test)]
mod ordered_page_tests {
    use super::ordered_page;

    #[test]
    fn pages_in_order_without_sorting_everything() {
        let rows: Vec<u32> = (0..1000).rev().collect();
        assert_eq!(ordered_page(rows.clone(), 0, 3, |r| *r), [0, 1, 2]);
        assert_eq!(ordered_page(rows.clone(), 998, 5, |r| *r), [998, 999]);
        assert!(ordered_page(rows.clone(), 1000, 5, |r| *r).is_empty());
        let all: Vec<u32> = (0..10)
            .flat_map(|page| ordered_page(rows.clone(), page * 100, 100, |r| *r))
            .collect();
        assert_eq!(all, (0..1000).collect::<Vec<u32>>());
    }
}

#[cfg(test)]
mod envelope_tests {
    use serde_json::json;

    use super::*;

    fn page(next_cursor: Option<&str>, exact: usize) -> Page {
        Page {
            total: 3,
            returned: 1,
            next_cursor: next_cursor.map(str::to_string),
            coverage: Coverage {
                exact,
                ..Coverage::default()
            },
            guidance: None,
            completeness: Some(json!({"verdict": "COMPLETE"})),
            results: json!([1]),
            files: Vec::new(),
        }
    }

    #[test]
    fn the_compact_view_omits_what_carries_no_information() {
        assert_eq!(
            page(None, 0).render(None, View::Compact, None),
            r#"{"snapshot_id":null,"total":3,"returned":1,"completeness":{"verdict":"COMPLETE"},"results":[1]}"#
        );
        assert_eq!(
            page(Some("c1"), 2).render(None, View::Compact, None),
            r#"{"snapshot_id":null,"total":3,"returned":1,"truncated":true,"next_cursor":"c1","coverage":{"exact":2},"completeness":{"verdict":"COMPLETE"},"results":[1]}"#
        );
    }

    #[test]
    fn the_full_view_writes_every_field() {
        assert_eq!(
            page(None, 2).render(None, View::Full, None),
            r#"{"snapshot_id":null,"snapshot_age_ms":null,"total":3,"returned":1,"truncated":false,"next_cursor":null,"coverage":{"exact":2,"candidate":0,"unresolved_related":0,"package_level":0},"completeness":{"verdict":"COMPLETE"},"results":[1]}"#
        );
    }
}
