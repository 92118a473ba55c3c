//! The term index `find_by_intent` reads: every term (`crate::terms`) of the symbols'
//! names, qualified names, kinds and file paths, sorted, each with its run of postings —
//! symbol positions ascending, `TERM_IN_NAME` set when the symbol's own name carries it.

use kivgraph_facts::FactSet;
use rustc_hash::FxHashMap;

use crate::bytes::{Fields, Out, read_u32};
use crate::error::{SnapshotError, WriteError};
use crate::fields::run_name;
use crate::format::SectionKind;
use crate::page::{Page, TERMS};
use crate::tables::{Arena, first_error, first_error_in_runs, invalid, row_number};
use crate::terms::{TERM_IN_NAME, chunk_terms, chunks};

/// The term index `find_by_intent` reads: per term of a symbol's name, qualified name, kind
/// or file path, the symbols carrying it, ascending, flagged when the symbol's own name does.
/// Terms in byte order. Terms are numbered as met (a hash lookup by `&str`, no allocation per
/// occurrence) and sorted once at the end: a map keyed by owned strings cost a third of the
/// layout of a 550 k-symbol graph.
pub(crate) fn postings(facts: &FactSet, symbol_files: &[u32]) -> Vec<(String, Vec<u32>)> {
    let mut terms = TermNumbers::default();
    let mut path_terms: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    let mut kind_terms: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    let mut postings: Vec<Vec<u32>> = Vec::new();
    let mut carried: Vec<u32> = Vec::new();
    for (position, symbol) in facts.symbols.iter().enumerate() {
        carried.clear();
        terms.of(&symbol.name, &mut carried);
        let in_name = carried.len();
        terms.of(&symbol.qualified_name, &mut carried);
        let kind = symbol.kind.as_str();
        if !kind_terms.contains_key(kind) {
            let mut numbers = Vec::new();
            terms.of(kind, &mut numbers);
            kind_terms.insert(kind, numbers);
        }
        let file = symbol_files[position];
        if let std::collections::hash_map::Entry::Vacant(entry) = path_terms.entry(file) {
            let mut numbers = Vec::new();
            terms.of(&facts.files[file as usize].path, &mut numbers);
            entry.insert(numbers);
        }
        for number in kind_terms[kind].iter().chain(&path_terms[&file]) {
            if !carried.contains(number) {
                carried.push(*number);
            }
        }
        postings.resize_with(terms.numbers.len(), Vec::new);
        for (at, number) in carried.iter().enumerate() {
            let flag = if at < in_name { TERM_IN_NAME } else { 0 };
            postings[*number as usize].push(position as u32 | flag);
        }
    }
    let mut table: Vec<(String, Vec<u32>)> = terms
        .numbers
        .into_iter()
        .map(|(term, number)| (term, std::mem::take(&mut postings[number as usize])))
        .collect();
    table.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    table
}

/// Terms numbered as met, and the terms of each run of letters and digits already split:
/// most names repeat, and a qualified name repeats its container's runs.
#[derive(Default)]
struct TermNumbers<'a> {
    numbers: FxHashMap<String, u32>,
    chunks: FxHashMap<&'a str, Vec<u32>>,
}

impl<'a> TermNumbers<'a> {
    /// Appends to `out` the numbers of `text`'s terms that `out` does not hold yet, in order.
    fn of(&mut self, text: &'a str, out: &mut Vec<u32>) {
        for chunk in chunks(text) {
            if !self.chunks.contains_key(chunk) {
                let numbers = chunk_terms(chunk)
                    .into_iter()
                    .map(|term| {
                        let next = self.numbers.len() as u32;
                        *self.numbers.entry(term).or_insert(next)
                    })
                    .collect();
                self.chunks.insert(chunk, numbers);
            }
            for number in &self.chunks[chunk] {
                if !out.contains(number) {
                    out.push(*number);
                }
            }
        }
    }
}

/// `TermNames` and `TermPostings`.
pub(crate) fn write<'a>(
    postings: &'a [(String, Vec<u32>)],
    arena: &mut Arena<'a>,
) -> Result<(Out, Out), WriteError> {
    let mut names = Out::default();
    let mut entries = Out::default();
    let mut start = 0usize;
    for (term, positions) in postings {
        names.record(
            Fields::<{ run_name::LEN }>::new()
                .str(run_name::NAME, arena.add(term)?)
                .u32(run_name::RUN_START, row_number(start, "term postings")?),
        );
        for position in positions {
            entries.u32(*position);
        }
        start += positions.len();
    }
    Ok((names, entries))
}

pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let terms = page.count(SectionKind::TermNames);
    let postings = page.count(SectionKind::TermPostings);
    first_error_in_runs(terms, |run| {
        let name =
            |i: usize| page.str_bytes_at(page.record(SectionKind::TermNames, i), run_name::NAME);
        let mut previous: Option<&[u8]> = (run.start > 0).then(|| name(run.start - 1));
        for i in run {
            let r = page.record(SectionKind::TermNames, i);
            page.check_str("term", i, r, run_name::NAME)?;
            let (start, end) = (
                read_u32(r, run_name::RUN_START) as usize,
                page.run_end(TERMS, i),
            );
            if start > end || end > postings {
                return Err(invalid("term", i, "posting run out of range"));
            }
            if previous.is_some_and(|p| p >= name(i)) {
                return Err(invalid("term", i, "terms out of order"));
            }
            previous = Some(name(i));
        }
        Ok(())
    })?;
    let symbols = page.count(SectionKind::Symbols);
    first_error(postings, |i| {
        let position = page.entry(SectionKind::TermPostings, i) & !TERM_IN_NAME;
        if position as usize >= symbols {
            return Err(invalid("term posting", i, "symbol out of range"));
        }
        Ok(())
    })
}
