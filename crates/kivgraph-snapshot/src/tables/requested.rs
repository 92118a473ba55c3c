//! The failures by what they asked for and by scope: `UnresolvedNameIndex` orders the rows
//! that request a symbol by the requested name's last segment, `RequestedNames` lists each
//! such name once with the start of its run there, and `UnresolvedScopeIndex` lists the rows
//! that describe a scope rather than a site.

use kivgraph_facts::FactSet;
use rayon::slice::ParallelSliceMut;

use crate::bytes::{Fields, Out, read_u32};
use crate::error::{SnapshotError, WriteError};
use crate::fields::run_name;
use crate::format::*;
use crate::page::{Page, REQUESTED};
use crate::tables::{Arena, first_error, invalid, row_number};

/// `UnresolvedNameIndex` and `RequestedNames`.
pub(crate) fn write<'a>(
    facts: &'a FactSet,
    arena: &mut Arena<'a>,
) -> Result<(Out, Out), WriteError> {
    let name = |i: u32| {
        requested_name(
            facts.unresolved[i as usize]
                .requested_symbol
                .as_deref()
                .unwrap_or(""),
        )
    };
    let mut rows: Vec<u32> = (0..facts.unresolved.len() as u32)
        .filter(|i| facts.unresolved[*i as usize].requested_symbol.is_some())
        .collect();
    rows.par_sort_unstable_by(|a, b| name(*a).cmp(name(*b)).then(a.cmp(b)));
    let mut index = Out::new(rows.len() * 4);
    let mut names = Out::default();
    let mut previous: Option<&str> = None;
    for (at, row) in rows.iter().enumerate() {
        index.u32(*row);
        let name = name(*row);
        if previous != Some(name) {
            names.record(
                Fields::<{ run_name::LEN }>::new()
                    .str(run_name::NAME, arena.add(name)?)
                    .u32(run_name::RUN_START, row_number(at, "requested names")?),
            );
            previous = Some(name);
        }
    }
    Ok((index, names))
}

/// `UnresolvedScopeIndex`, in table order.
pub(crate) fn write_scopes(facts: &FactSet) -> Out {
    let mut out = Out::default();
    for (i, row) in facts.unresolved.iter().enumerate() {
        if is_scope_row(row.file_path.as_deref(), row.reason.as_str()) {
            out.u32(i as u32);
        }
    }
    out
}

pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let unresolved = page.count(SectionKind::Unresolved);
    let requested = |i: usize| {
        let row = page.entry(SectionKind::UnresolvedNameIndex, i) as usize;
        (
            row,
            page.unresolved_requested_symbol(row).map(requested_name),
        )
    };
    first_error(page.count(SectionKind::UnresolvedNameIndex), |i| {
        let (row, name) = requested(i);
        if row >= unresolved || name.is_none() {
            return Err(invalid(
                "unresolved name index",
                i,
                "entry out of range or without a requested symbol",
            ));
        }
        if i > 0 && requested(i - 1).1 > name {
            return Err(invalid("unresolved name index", i, "entries out of order"));
        }
        Ok(())
    })?;
    // Each requested name once, ascending, its run naming it: the entry that starts a run
    // asks for its name, and the entry before it for a smaller one.
    let index_len = page.count(SectionKind::UnresolvedNameIndex);
    first_error(page.count(SectionKind::RequestedNames), |i| {
        let r = page.record(SectionKind::RequestedNames, i);
        page.check_str("requested name", i, r, run_name::NAME)?;
        let start = read_u32(r, run_name::RUN_START) as usize;
        let name = page.str_bytes_at(r, run_name::NAME);
        let named = |entry: usize| requested(entry).1.map(str::as_bytes);
        let end = page.run_end(REQUESTED, i);
        let fits = start < end
            && end <= index_len
            && (i > 0 || start == 0)
            && named(start) == Some(name)
            && (start == 0 || named(start - 1).is_some_and(|before| before < name));
        if !fits {
            return Err(invalid(
                "requested name",
                i,
                "run out of range or of another name",
            ));
        }
        Ok(())
    })?;
    if index_len > 0 && page.count(SectionKind::RequestedNames) == 0 {
        return Err(invalid("requested name", 0, "the name index has no names"));
    }
    first_error(page.count(SectionKind::UnresolvedScopeIndex), |i| {
        let row = page.entry(SectionKind::UnresolvedScopeIndex, i) as usize;
        if row >= unresolved
            || !is_scope_row(page.unresolved_file_path(row), page.unresolved_reason(row))
        {
            return Err(invalid(
                "unresolved scope index",
                i,
                "entry out of range or not a scope",
            ));
        }
        Ok(())
    })
}
