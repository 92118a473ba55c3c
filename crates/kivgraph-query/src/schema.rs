//! What the argument types' schemas take from the vocabulary rather than restate: the
//! confidence levels and the relations a filter accepts.

use kivgraph_facts::{Confidence, EdgeKind};
use schemars::{Schema, SchemaGenerator, json_schema};

/// One confidence level, by its wire name.
pub(crate) fn confidence(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = Confidence::ALL.iter().map(|c| c.as_str()).collect();
    json_schema!({"type": "string", "enum": names})
}

/// Reference relations by wire name, or `["*"]` for every one.
pub(crate) fn edge_kinds(_: &mut SchemaGenerator) -> Schema {
    let mut names: Vec<&str> = EdgeKind::ALL
        .iter()
        .filter(|k| k.is_reference())
        .map(|k| k.as_str())
        .collect();
    names.push("*");
    json_schema!({"type": "array", "items": {"type": "string", "enum": names}})
}

/// Sets the `limit` property of a paged tool whose page size is its own.
pub(crate) fn limit(schema: &mut Schema, default: i64, maximum: i64) {
    if let Some(limit) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut("limit"))
        .and_then(|l| l.as_object_mut())
    {
        limit.insert("default".into(), default.into());
        limit.insert("maximum".into(), maximum.into());
    }
}
