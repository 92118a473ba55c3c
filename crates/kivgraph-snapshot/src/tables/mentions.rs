//! Unexplained mentions: every name some file of the page spells more often than the graph
//! explains, sorted, each with its total and its run of (file, excess) entries by file —
//! what bounds an answer that found fewer uses of a name than its files spell.

use kivgraph_facts::FactSet;
use rayon::slice::ParallelSliceMut;
use rustc_hash::FxHashMap;

use crate::bytes::{Fields, Out, read_u32};
use crate::error::{SnapshotError, WriteError};
use crate::fields::{mention_entry, mention_name};
use crate::format::{SectionKind, requested_name};
use crate::page::{MENTIONS, Page};
use crate::tables::external::{ExternalTable, Externals};
use crate::tables::{Arena, Positions, first_error, invalid, row_number};

/// What the graph leaves unexplained of the files' identifier censuses, inverted: for every
/// name a file of the page spells, the files that spell it more often than the graph
/// explains — one occurrence per declaration of that name in the file, per observation
/// backing an edge into a declaration of that name (of any page), and per failure that
/// asked for the name there — with the excess. Names in byte order, each with its total
/// excess and its run of (file, excess) entries in file order.
pub(crate) fn write<'l, 'a: 'l>(
    facts: &'a FactSet,
    arena: &mut Arena<'l>,
    positions: &Positions<'a>,
    external: &Externals<'a>,
) -> Result<(Out, Out), WriteError> {
    // Every name numbered, so that the counts below are keyed by integers.
    let mut numbers: FxHashMap<&'a str, u32> = FxHashMap::default();
    let mut number = |name: &'a str| {
        let next = numbers.len() as u32;
        *numbers.entry(name).or_insert(next)
    };
    let symbol_names: Vec<u32> = facts.symbols.iter().map(|s| number(&s.name)).collect();
    let pair = |name: u32, file: u32| (u64::from(name) << 32) | u64::from(file);
    let mut explained: FxHashMap<u64, u32> = FxHashMap::default();
    for (name, file) in symbol_names.iter().zip(&positions.symbol_files) {
        *explained.entry(pair(*name, *file)).or_default() += 1;
    }
    // Each observation's file, looked up once.
    let mut evidence_files: Vec<Option<Option<u32>>> = vec![None; facts.evidence.len()];
    // One observation explains one occurrence per name, however many homonyms it backs.
    let mut observed: rustc_hash::FxHashSet<u64> = Default::default();
    for edge in &facts.edges {
        let Some(evidence) = edge.evidence else {
            continue;
        };
        let name = match positions.symbols.get(&edge.target) {
            Some(target) => symbol_names[*target as usize],
            None => match external(&edge.target) {
                Some(node) if node.table == ExternalTable::Symbol => number(node.name),
                _ => continue,
            },
        };
        let Some(seen) = positions.evidence.get(&evidence) else {
            continue;
        };
        if observed.insert(pair(name, *seen)) {
            let file = *evidence_files[*seen as usize].get_or_insert_with(|| {
                let row = &facts.evidence[*seen as usize];
                positions
                    .files
                    .get(&(row.repository.as_str(), row.file_path.as_str()))
                    .copied()
            });
            if let Some(file) = file {
                *explained.entry(pair(name, file)).or_default() += 1;
            }
        }
    }
    for row in &facts.unresolved {
        if let (Some(requested), Some(path)) = (&row.requested_symbol, &row.file_path)
            && let Some(file) = positions
                .files
                .get(&(row.repository.as_str(), path.as_str()))
        {
            let name = number(requested_name(requested));
            *explained.entry(pair(name, *file)).or_default() += 1;
        }
    }
    for file in &facts.files {
        for mention in &file.mentions {
            number(&mention.name);
        }
    }
    // Names in byte order: each number's rank.
    let mut by_name: Vec<(&'a str, u32)> = numbers.iter().map(|(n, i)| (*n, *i)).collect();
    by_name.par_sort_unstable();
    let mut ranks = vec![0u32; by_name.len()];
    for (rank, (_, number)) in by_name.iter().enumerate() {
        ranks[*number as usize] = rank as u32;
    }
    let mut pairs: Vec<(u32, u32, u32)> = facts
        .files
        .iter()
        .enumerate()
        .flat_map(|(file, f)| {
            let file = file as u32;
            let (explained, numbers, ranks) = (&explained, &numbers, &ranks);
            f.mentions.iter().filter_map(move |m| {
                let name = numbers[m.name.as_str()];
                let excess = m
                    .count
                    .saturating_sub(explained.get(&pair(name, file)).copied().unwrap_or(0));
                (excess > 0).then_some((ranks[name as usize], file, excess))
            })
        })
        .collect();
    pairs.par_sort_unstable();
    let mut names = Out::default();
    let mut entries = Out::new(pairs.len() * mention_entry::LEN);
    let mut start = 0;
    while start < pairs.len() {
        let rank = pairs[start].0;
        let end = start + pairs[start..].partition_point(|p| p.0 == rank);
        let total = pairs[start..end]
            .iter()
            .fold(0u32, |sum, p| sum.saturating_add(p.2));
        names.record(
            Fields::<{ mention_name::LEN }>::new()
                .str(mention_name::NAME, arena.add(by_name[rank as usize].0)?)
                .u32(
                    mention_name::RUN_START,
                    row_number(start, "mention entries")?,
                )
                .u32(mention_name::TOTAL, total),
        );
        for (_, file, count) in &pairs[start..end] {
            entries.record(
                Fields::<{ mention_entry::LEN }>::new()
                    .u32(mention_entry::FILE, *file)
                    .u32(mention_entry::COUNT, *count),
            );
        }
        start = end;
    }
    Ok((names, entries))
}

pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let entries = page.count(SectionKind::MentionEntries);
    first_error(page.count(SectionKind::MentionNames), |i| {
        let r = page.record(SectionKind::MentionNames, i);
        page.check_str("mention name", i, r, mention_name::NAME)?;
        let end = page.run_end(MENTIONS, i);
        if read_u32(r, mention_name::RUN_START) as usize >= end || end > entries {
            return Err(invalid("mention name", i, "entry run out of range"));
        }
        let name = |r: &[u8]| page.str_bytes_at(r, mention_name::NAME);
        if i > 0 && name(page.record(SectionKind::MentionNames, i - 1)) >= name(r) {
            return Err(invalid("mention name", i, "names out of order"));
        }
        Ok(())
    })?;
    let files = page.count(SectionKind::Files);
    first_error(entries, |i| {
        let r = page.record(SectionKind::MentionEntries, i);
        if read_u32(r, mention_entry::FILE) as usize >= files {
            return Err(invalid("mention entry", i, "file out of range"));
        }
        Ok(())
    })
}
