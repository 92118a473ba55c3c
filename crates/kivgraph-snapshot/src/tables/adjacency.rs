//! Adjacency: compressed sparse rows of the edges whose endpoint is a row of one table —
//! `rows + 1` ascending offsets, then the edge positions grouped by that row, in edge
//! order. By source and by target over symbols, by target over packages, and by target
//! and by source over other pages' nodes.

use kivgraph_facts::Edge;

use crate::bytes::{Out, read_u8, read_u32};
use crate::error::SnapshotError;
use crate::fields::edge::{self, Endpoint};
use crate::format::*;
use crate::page::Page;
use crate::tables::{first_error, invalid};

/// Offsets and entries over `rows` rows, the row of each edge as `endpoint` picks it.
pub(crate) fn write<'a>(
    rows: usize,
    edges: &'a [Edge],
    endpoint: impl Fn(&'a Edge) -> Option<&'a u32>,
) -> (Out, Out) {
    let edge_rows: Vec<Option<u32>> = edges.iter().map(|e| endpoint(e).copied()).collect();
    let mut offsets = vec![0u32; rows + 1];
    for row in edge_rows.iter().flatten() {
        offsets[*row as usize + 1] += 1;
    }
    for i in 0..rows {
        offsets[i + 1] += offsets[i];
    }
    let mut next = offsets.clone();
    let mut entries = vec![0u32; offsets[rows] as usize];
    for (edge, row) in edge_rows.iter().enumerate() {
        if let Some(row) = row {
            entries[next[*row as usize] as usize] = edge as u32;
            next[*row as usize] += 1;
        }
    }
    let mut offset_out = Out::new(offsets.len() * 4);
    for offset in offsets {
        offset_out.u32(offset);
    }
    let mut entry_out = Out::new(entries.len() * 4);
    for entry in entries {
        entry_out.u32(entry);
    }
    (offset_out, entry_out)
}

pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let symbols = (TABLE_SYMBOL, page.count(SectionKind::Symbols));
    let externals = (TABLE_EXTERNAL, page.count(SectionKind::ExternalNodes));
    for (sections, rows, end) in [
        (
            (SectionKind::ForwardOffsets, SectionKind::ForwardEdges),
            symbols,
            edge::FROM,
        ),
        (
            (SectionKind::ReverseOffsets, SectionKind::ReverseEdges),
            symbols,
            edge::TO,
        ),
        (
            (
                SectionKind::PackageReverseOffsets,
                SectionKind::PackageReverseEdges,
            ),
            (TABLE_PACKAGE, page.count(SectionKind::Packages)),
            edge::TO,
        ),
        (
            (SectionKind::ExternalOffsets, SectionKind::ExternalEdges),
            externals,
            edge::TO,
        ),
        (
            (
                SectionKind::ExternalSourceOffsets,
                SectionKind::ExternalSourceEdges,
            ),
            externals,
            edge::FROM,
        ),
    ] {
        validate_one(page, sections, rows, end)?;
    }
    Ok(())
}

/// Ascending offsets covering every entry, and each entry an edge whose endpoint `end` is
/// the row it is listed under.
fn validate_one(
    page: &Page,
    (offsets, entries): (SectionKind, SectionKind),
    (table, rows): (u8, usize),
    end: Endpoint,
) -> Result<(), SnapshotError> {
    let edges = page.count(SectionKind::Edges);
    let offset = |i: usize| page.entry(offsets, i) as usize;
    if page.count(offsets) != rows + 1 || offset(0) != 0 || offset(rows) != page.count(entries) {
        return Err(invalid(
            "adjacency",
            0,
            "offsets do not cover their table and entries",
        ));
    }
    first_error(rows, |row| {
        if offset(row) > offset(row + 1) {
            return Err(invalid("adjacency", row, "offsets descend"));
        }
        for at in offset(row)..offset(row + 1) {
            let edge = page.entry(entries, at) as usize;
            let record = page.record(SectionKind::Edges, edge);
            if edge >= edges
                || read_u8(record, end.table) != table
                || read_u32(record, end.row) as usize != row
            {
                return Err(invalid("adjacency", row, "entry is not an edge of its row"));
            }
        }
        Ok(())
    })
}
