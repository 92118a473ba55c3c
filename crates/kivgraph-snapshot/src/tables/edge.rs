//! Edges: kind, confidence and provenance codes, each endpoint as (table, row) — a row of
//! `ExternalNodes` for a node another page holds — and the observation backing it.

use kivgraph_facts::{Confidence, EdgeKind, FactSet, Provenance};

use crate::bytes::{Fields, Out, read_u8, read_u32};
use crate::error::{SnapshotError, WriteError};
use crate::fields::edge::*;
use crate::format::*;
use crate::page::Page;
use crate::tables::external::{Endpoints, dangling};
use crate::tables::{Positions, first_error, invalid};

pub(crate) fn write(
    facts: &FactSet,
    positions: &Positions<'_>,
    endpoints: &Endpoints,
) -> Result<Out, WriteError> {
    let mut out = Out::new(facts.edges.len() * LEN);
    for edge in &facts.edges {
        let (source_table, source) = endpoints
            .of_key(&edge.source)
            .ok_or_else(|| dangling(edge, edge.source))?;
        let (target_table, target) = endpoints
            .of_key(&edge.target)
            .ok_or_else(|| dangling(edge, edge.target))?;
        let evidence = match edge.evidence {
            Some(key) => *positions
                .evidence
                .get(&key)
                .ok_or_else(|| dangling(edge, key))?,
            None => NONE,
        };
        out.record(
            Fields::<LEN>::new()
                .u8(KIND, edge.kind.code())
                .u8(CONFIDENCE, edge.confidence.code())
                .u8(PROVENANCE, edge.provenance.code())
                .u8(SOURCE_TABLE, source_table)
                .u8(TARGET_TABLE, target_table)
                .u32(SOURCE, source)
                .u32(TARGET, target)
                .u32(EVIDENCE, evidence),
        );
    }
    Ok(out)
}

pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let table_len = |table: u8| match table {
        TABLE_REPOSITORY => Some(page.count(SectionKind::Repositories)),
        TABLE_PACKAGE => Some(page.count(SectionKind::Packages)),
        TABLE_FILE => Some(page.count(SectionKind::Files)),
        TABLE_SYMBOL => Some(page.count(SectionKind::Symbols)),
        TABLE_EVIDENCE => Some(page.count(SectionKind::Evidence)),
        TABLE_EXTERNAL => Some(page.count(SectionKind::ExternalNodes)),
        _ => None,
    };
    let evidence = page.count(SectionKind::Evidence);
    first_error(page.count(SectionKind::Edges), |i| {
        let r = page.record(SectionKind::Edges, i);
        EdgeKind::from_code(read_u8(r, KIND)).map_err(|e| invalid("edge", i, &e.to_string()))?;
        Confidence::from_code(read_u8(r, CONFIDENCE))
            .map_err(|e| invalid("edge", i, &e.to_string()))?;
        Provenance::from_code(read_u8(r, PROVENANCE))
            .map_err(|e| invalid("edge", i, &e.to_string()))?;
        let in_range = |end: Endpoint| {
            table_len(read_u8(r, end.table))
                .is_some_and(|len| (read_u32(r, end.row) as usize) < len)
        };
        let evidence_row = read_u32(r, EVIDENCE);
        if !in_range(FROM)
            || !in_range(TO)
            || (evidence_row != NONE && evidence_row as usize >= evidence)
        {
            return Err(invalid("edge", i, "endpoint or evidence out of range"));
        }
        Ok(())
    })
}
