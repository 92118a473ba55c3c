//! The page's tables, one file each (or one file per group of tables written together):
//! how a table is laid out from the facts and how it is checked when a page opens, side by
//! side, both through the record layouts of `crate::fields`.
//!
//! A page is read only after [`validate`] has checked every record's references and every
//! index's order ([`open_page`], [`page_from_bytes`]): the reader then trusts what it reads.

pub(crate) mod adjacency;
pub(crate) mod edge;
pub(crate) mod evidence;
pub(crate) mod external;
pub(crate) mod file;
pub(crate) mod index;
pub(crate) mod mentions;
pub(crate) mod package;
pub(crate) mod repository;
pub(crate) mod requested;
pub(crate) mod symbol;
pub(crate) mod term_index;
pub(crate) mod unresolved;

use std::path::Path;

use kivgraph_facts::{FactSet, KeyMap};
use rustc_hash::FxHashMap;

use crate::error::{SnapshotError, WriteError};
use crate::format::NONE;
use crate::page::Page;

/// Maps the page at `path` and validates it whole.
pub(crate) fn open_page(path: &Path) -> Result<Page, SnapshotError> {
    let page = Page::map(path)?;
    validate(&page)?;
    Ok(page)
}

/// Validates an in-memory page whole.
pub(crate) fn page_from_bytes(bytes: Vec<u8>) -> Result<Page, SnapshotError> {
    let page = Page::own(bytes)?;
    validate(&page)?;
    Ok(page)
}

/// Every table's check, in one fixed order, so a corrupt page is always reported the same
/// way: the node tables, the indexes over them, the other pages' nodes, the edges and the
/// rows that point into all of those.
fn validate(page: &Page) -> Result<(), SnapshotError> {
    repository::validate(page)?;
    package::validate(page)?;
    file::validate(page)?;
    symbol::validate(page)?;
    index::validate(page)?;
    external::validate(page)?;
    edge::validate(page)?;
    unresolved::validate(page)?;
    evidence::validate(page)?;
    adjacency::validate(page)?;
    requested::validate(page)?;
    mentions::validate(page)?;
    term_index::validate(page)
}

/// The error for row `index` of `table`.
pub(crate) fn invalid(table: &'static str, index: usize, reason: &str) -> SnapshotError {
    SnapshotError::Record {
        table,
        index,
        reason: reason.to_string(),
    }
}

/// Whether the run `start..start + count` fits a table of `limit` rows.
pub(crate) fn run_fits(start: u32, count: u32, limit: usize) -> bool {
    (start as usize)
        .checked_add(count as usize)
        .is_some_and(|end| end <= limit)
}

/// Runs `check` over `0..len` in parallel and returns the error of the lowest failing
/// position, so that a corrupt file is always reported the same way. Every table is checked
/// on both cores: a serial loop between parallel ones leaves the pool's idle workers
/// spinning against it.
pub(crate) fn first_error(
    len: usize,
    check: impl Fn(usize) -> Result<(), SnapshotError> + Sync,
) -> Result<(), SnapshotError> {
    use rayon::prelude::*;
    match (0..len)
        .into_par_iter()
        .map(&check)
        .find_first(Result::is_err)
    {
        Some(err) => err,
        None => Ok(()),
    }
}

/// Like [`first_error`], over runs of consecutive positions checked in order: for checks
/// that compare a position with the one before it.
pub(crate) fn first_error_in_runs(
    len: usize,
    check: impl Fn(std::ops::Range<usize>) -> Result<(), SnapshotError> + Sync,
) -> Result<(), SnapshotError> {
    const RUN: usize = 4096;
    first_error(len.div_ceil(RUN), |run| {
        check(run * RUN..((run + 1) * RUN).min(len))
    })
}

/// Deduplicating string arena, borrowing from the facts; insertion order is deterministic,
/// so the order in which tables are written fixes the section's bytes.
#[derive(Default)]
pub(crate) struct Arena<'a> {
    pub(crate) bytes: Vec<u8>,
    seen: FxHashMap<&'a str, (u32, u32)>,
}

impl<'a> Arena<'a> {
    /// `text`'s (offset, length) in the section.
    pub(crate) fn add(&mut self, text: &'a str) -> Result<(u32, u32), WriteError> {
        if let Some(found) = self.seen.get(text) {
            return Ok(*found);
        }
        let offset =
            u32::try_from(self.bytes.len()).map_err(|_| WriteError::TooLarge("string arena"))?;
        let len = u32::try_from(text.len()).map_err(|_| WriteError::TooLarge("string"))?;
        self.bytes.extend_from_slice(text.as_bytes());
        self.seen.insert(text, (offset, len));
        Ok((offset, len))
    }
}

/// `value` as a row number, which `NONE` may not be.
pub(crate) fn row_number(value: usize, what: &'static str) -> Result<u32, WriteError> {
    u32::try_from(value)
        .ok()
        .filter(|v| *v != NONE)
        .ok_or(WriteError::TooLarge(what))
}

/// Where each node of the page's facts is in its table: what records point at.
pub(crate) struct Positions<'a> {
    pub(crate) repositories: FxHashMap<&'a str, u32>,
    pub(crate) packages: KeyMap<u32>,
    pub(crate) files: FxHashMap<(&'a str, &'a str), u32>,
    pub(crate) symbols: KeyMap<u32>,
    pub(crate) evidence: KeyMap<u32>,
    /// Each symbol's file row, by symbol position.
    pub(crate) symbol_files: Vec<u32>,
}

impl<'a> Positions<'a> {
    pub(crate) fn of(facts: &'a FactSet) -> Result<Self, WriteError> {
        let files: FxHashMap<(&str, &str), u32> = facts
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| ((f.repository.as_str(), f.path.as_str()), i as u32))
            .collect();
        let symbol_files = facts
            .symbols
            .iter()
            .map(|symbol| {
                files
                    .get(&(symbol.repository.as_str(), symbol.file_path.as_str()))
                    .copied()
                    .ok_or(WriteError::OrphanSymbol(symbol.key))
            })
            .collect::<Result<_, _>>()?;
        Ok(Positions {
            repositories: facts
                .repositories
                .iter()
                .enumerate()
                .map(|(i, r)| (r.name.as_str(), i as u32))
                .collect(),
            packages: facts
                .packages
                .iter()
                .enumerate()
                .map(|(i, p)| (p.key, i as u32))
                .collect(),
            files,
            symbols: facts
                .symbols
                .iter()
                .enumerate()
                .map(|(i, s)| (s.key, i as u32))
                .collect(),
            evidence: facts
                .evidence
                .iter()
                .enumerate()
                .map(|(i, e)| (e.key, i as u32))
                .collect(),
            symbol_files,
        })
    }

    /// The row of the repository named `name` (`NONE` for none).
    pub(crate) fn repository(&self, name: &str) -> u32 {
        self.repositories.get(name).copied().unwrap_or(NONE)
    }

    /// The row of the package keyed `key` (`NONE` for none).
    pub(crate) fn package(&self, key: &kivgraph_facts::StableKey) -> u32 {
        self.packages.get(key).copied().unwrap_or(NONE)
    }
}

/// The runs `(start, count)` of consecutive positions each of `len` groups holds, when
/// `group_of` lists the group of each position in ascending order.
pub(crate) fn runs(len: usize, group_of: impl Iterator<Item = Option<u32>>) -> Vec<(u32, u32)> {
    let mut runs = vec![(0, 0); len];
    for (i, group) in group_of.enumerate() {
        if let Some(group) = group {
            let run = &mut runs[group as usize];
            if run.1 == 0 {
                run.0 = i as u32;
            }
            run.1 += 1;
        }
    }
    runs
}
