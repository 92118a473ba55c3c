//! One row of each table, its fields in the schema's column order (`schema.rs`), built in
//! one place: what a bulk file writes, and what an update compares and sets; and a field as
//! the engine takes it and gives it back.

use kivgraph_facts::{
    Edge, Evidence, FileFact, PackageFact, RepositoryFact, StableKey, SymbolFact,
    UnresolvedReference, evidence_key,
};

use lbug::{LogicalType, Value};

use crate::bulk::Field;
use crate::census;
use crate::error::GraphDbError;
use crate::schema::{self, ColumnType};

pub(crate) fn repository(r: &RepositoryFact) -> [Field<'_>; 5] {
    let languages: Vec<&str> = r.languages.iter().map(|l| l.as_str()).collect();
    [
        id(&r.key),
        key(&r.key),
        r.name.as_str().into(),
        r.root.as_str().into(),
        Field::Owned(languages.join(",")),
    ]
}

pub(crate) fn package(page: u32, p: &PackageFact) -> [Field<'_>; 7] {
    [
        id(&p.key),
        key(&p.key),
        page.into(),
        p.repository.as_str().into(),
        p.language.as_str().into(),
        p.name.as_str().into(),
        p.path.as_str().into(),
    ]
}

pub(crate) fn file(page: u32, f: &FileFact) -> Result<[Field<'_>; 12], GraphDbError> {
    Ok([
        id(&f.key),
        key(&f.key),
        page.into(),
        f.repository.as_str().into(),
        f.path.as_str().into(),
        f.language.as_str().into(),
        id(&f.package),
        Field::Owned(f.fingerprint.to_hex()),
        f.line_count.into(),
        Field::Integer(f.byte_len as i64),
        Field::Integer(f.parse_issues.len() as i64),
        json(&f.parse_issues)?,
    ])
}

/// A file's mentions, in their own table (`schema::MENTIONS`).
pub(crate) fn mentions(page: u32, f: &FileFact) -> [Field<'_>; 3] {
    [
        id(&f.key),
        page.into(),
        Field::Owned(census::to_json(&f.mentions)),
    ]
}

pub(crate) fn symbol(page: u32, s: &SymbolFact) -> [Field<'_>; 20] {
    [
        id(&s.key),
        key(&s.key),
        page.into(),
        s.repository.as_str().into(),
        s.language.as_str().into(),
        id(&s.package),
        s.file_path.as_str().into(),
        s.name.as_str().into(),
        s.qualified_name.as_str().into(),
        s.kind.as_str().into(),
        s.signature.as_str().into(),
        Field::Boolean(s.exported),
        s.span.start_line.into(),
        s.span.end_line.into(),
        s.span.start_byte.into(),
        s.span.end_byte.into(),
        s.doc.as_deref().into(),
        s.parent.as_ref().map_or(Field::Null, id),
        s.key_module.as_str().into(),
        s.key_discriminator.as_str().into(),
    ]
}

/// An evidence's row, keyed by its key's id. Its key is not stored: whoever reads the row
/// derives it from its place, so a key that is not its place's is refused here.
pub(crate) fn evidence(page: u32, e: &Evidence) -> Result<[Field<'_>; 8], GraphDbError> {
    if e.key != evidence_key(&e.repository, &e.file_path, e.span) {
        return Err(GraphDbError::Schema(format!(
            "evidence {} is not the key of its place ({}/{} bytes {}-{})",
            e.key, e.repository, e.file_path, e.span.start_byte, e.span.end_byte
        )));
    }
    Ok([
        id(&e.key),
        page.into(),
        e.repository.as_str().into(),
        e.file_path.as_str().into(),
        e.span.start_line.into(),
        e.span.end_line.into(),
        e.span.start_byte.into(),
        e.span.end_byte.into(),
    ])
}

/// An unresolved reference's row under the number `ordinal`.
pub(crate) fn unresolved(ordinal: i64, page: u32, u: &UnresolvedReference) -> [Field<'_>; 13] {
    [
        Field::Integer(ordinal),
        page.into(),
        u.repository.as_str().into(),
        u.language.as_str().into(),
        u.reason.as_str().into(),
        u.file_path.as_deref().into(),
        u.span.map_or(Field::Null, |s| s.start_line.into()),
        u.span.map_or(Field::Null, |s| s.end_line.into()),
        u.span.map_or(Field::Null, |s| s.start_byte.into()),
        u.span.map_or(Field::Null, |s| s.end_byte.into()),
        u.requested_symbol.as_deref().into(),
        u.requested_package.as_deref().into(),
        u.detail.as_str().into(),
    ]
}

/// An edge's row: its ends' ids, then `EDGE_PROPERTIES`; `evidence` is its evidence's id
/// (`edge.evidence` is not read, so an edge read back from a database needs no key).
pub(crate) fn edge(edge: &Edge, page: u32, evidence: Option<i64>) -> [Field<'_>; 6] {
    [
        id(&edge.source),
        id(&edge.target),
        page.into(),
        edge.confidence.as_str().into(),
        edge.provenance.as_str().into(),
        evidence.map_or(Field::Null, Field::Integer),
    ]
}

/// A field as the engine takes it: a null typed by its column.
pub(crate) fn value(field: &Field<'_>, kind: ColumnType) -> Value {
    match field {
        Field::Text(text) => Value::String(text.to_string()),
        Field::Owned(text) => Value::String(text.clone()),
        Field::Key(key) => Value::String(key.to_string()),
        Field::Integer(n) => Value::Int64(*n),
        Field::Boolean(b) => Value::Bool(*b),
        Field::Null => Value::Null(match kind {
            ColumnType::Text => LogicalType::String,
            ColumnType::Integer => LogicalType::Int64,
            ColumnType::Boolean => LogicalType::Bool,
        }),
    }
}

/// A value the engine gives back, as a field (`None` for a type no column has).
pub(crate) fn field_of(value: &Value) -> Option<Field<'static>> {
    match value {
        Value::String(text) => Some(Field::Owned(text.clone())),
        Value::Int64(n) => Some(Field::Integer(*n)),
        Value::Bool(b) => Some(Field::Boolean(*b)),
        Value::Null(_) => Some(Field::Null),
        _ => None,
    }
}

/// A list the schema keeps as JSON text.
fn json(value: &impl serde::Serialize) -> Result<Field<'static>, GraphDbError> {
    serde_json::to_string(value)
        .map(Field::Owned)
        .map_err(|e| GraphDbError::Schema(e.to_string()))
}

/// The primary key of the node `key` names (`schema::key_id`).
pub(crate) fn id(key: &StableKey) -> Field<'static> {
    Field::Integer(schema::key_id(key))
}

fn key(key: &StableKey) -> Field<'static> {
    Field::Key(*key)
}
