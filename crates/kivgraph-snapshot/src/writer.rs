//! Lays a page's canonical `FactSet` out in the snapshot format, and a root over pages.

use std::collections::BTreeMap;

use kivgraph_facts::{Edge, FactSet, KeyMap, Language, StableKey};
use rayon::slice::ParallelSliceMut;
use rustc_hash::FxHashMap;

use crate::format::*;
use crate::terms::{TERM_IN_NAME, chunk_terms, chunks};

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("edge {kind} points at {key}, which no table declares")]
    DanglingEdge { kind: &'static str, key: StableKey },
    #[error("symbol {0} is declared in a file the fact set does not hold")]
    OrphanSymbol(StableKey),
    #[error("the fact set is too large for 32-bit offsets ({0})")]
    TooLarge(&'static str),
}

/// A node of another page that this page's edges reach, as whoever lays the page out knows
/// it: which table, which page, and (a declaration's) name, which the census reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExternalNode<'a> {
    pub table: ExternalTable,
    pub page: u32,
    pub name: &'a str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExternalTable {
    Package,
    File,
    Symbol,
}

impl ExternalTable {
    fn code(self) -> u8 {
        match self {
            ExternalTable::Package => TABLE_PACKAGE,
            ExternalTable::File => TABLE_FILE,
            ExternalTable::Symbol => TABLE_SYMBOL,
        }
    }
}

/// Where the keys a page does not hold live: `None` for a key no page holds.
pub type Externals<'a> = dyn Fn(&StableKey) -> Option<ExternalNode<'a>> + Sync + 'a;

/// One laid-out page: its number, its payload's digest (its name on disk) and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageFile {
    pub number: u32,
    pub digest: [u8; 32],
    pub bytes: Vec<u8>,
}

impl PageFile {
    /// `<number>-<digest>.kgp`: pages are named by where they go and what they hold (two
    /// pages may hold the same, every repository and nothing else).
    pub fn file_name(&self) -> String {
        page_file_name(self.number, &self.digest)
    }
}

/// The file name of page `number` whose payload digest is `digest`.
pub fn page_file_name(number: u32, digest: &[u8; 32]) -> String {
    format!(
        "{number:02}-{}.kgp",
        blake3::Hash::from_bytes(*digest).to_hex()
    )
}

/// Deduplicating string arena, borrowing from the facts; insertion order is deterministic.
#[derive(Default)]
struct Arena<'a> {
    bytes: Vec<u8>,
    seen: FxHashMap<&'a str, (u32, u32)>,
}

impl<'a> Arena<'a> {
    fn add(&mut self, text: &'a str) -> Result<(u32, u32), WriteError> {
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

struct Record(Vec<u8>);

impl Record {
    fn new(capacity: usize) -> Self {
        Record(Vec::with_capacity(capacity))
    }
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.0.extend_from_slice(v);
        self
    }
    fn str(&mut self, (offset, len): (u32, u32)) -> &mut Self {
        self.u32(offset).u32(len)
    }
    fn pad(&mut self, n: usize) -> &mut Self {
        self.0.extend(std::iter::repeat_n(0, n));
        self
    }
}

fn index(value: usize, what: &'static str) -> Result<u32, WriteError> {
    u32::try_from(value)
        .ok()
        .filter(|v| *v != NONE)
        .ok_or(WriteError::TooLarge(what))
}

/// Table positions ordered by `key`, ties by position.
fn sorted_index<'a>(len: usize, key: impl Fn(usize) -> (&'a [u8], &'a [u8]) + Sync) -> Record {
    // The key's first eight bytes (zero-padded, so a prefix sorts first), held beside the
    // position: most comparisons end there, without chasing the strings.
    let head = |bytes: &[u8]| {
        let mut head = [0u8; 8];
        let n = bytes.len().min(8);
        head[..n].copy_from_slice(&bytes[..n]);
        u64::from_be_bytes(head)
    };
    let mut order: Vec<(u64, u32)> = (0..len as u32)
        .map(|i| (head(key(i as usize).0), i))
        .collect();
    // Ties break by position, so the unstable sort is deterministic.
    order.par_sort_unstable_by(|(head_a, a), (head_b, b)| {
        head_a
            .cmp(head_b)
            .then_with(|| key(*a as usize).cmp(&key(*b as usize)))
            .then(a.cmp(b))
    });
    let mut record = Record::new(len * 4);
    for (_, i) in order {
        record.u32(i);
    }
    record
}

/// Compressed sparse rows of the edges whose endpoint (as `endpoint` picks it) is a row of
/// one table: `rows + 1` offsets, then the edge positions grouped by that row, in edge order.
fn adjacency<'a>(
    symbols: usize,
    edges: &'a [kivgraph_facts::Edge],
    endpoint: impl Fn(&'a kivgraph_facts::Edge) -> Option<&'a u32>,
) -> (Record, Record) {
    let rows: Vec<Option<u32>> = edges.iter().map(|e| endpoint(e).copied()).collect();
    let mut offsets = vec![0u32; symbols + 1];
    for row in rows.iter().flatten() {
        offsets[*row as usize + 1] += 1;
    }
    for i in 0..symbols {
        offsets[i + 1] += offsets[i];
    }
    let mut next = offsets.clone();
    let mut entries = vec![0u32; offsets[symbols] as usize];
    for (edge, row) in rows.iter().enumerate() {
        if let Some(row) = row {
            entries[next[*row as usize] as usize] = edge as u32;
            next[*row as usize] += 1;
        }
    }
    let mut offset_record = Record::new(offsets.len() * 4);
    for offset in offsets {
        offset_record.u32(offset);
    }
    let mut entry_record = Record::new(entries.len() * 4);
    for entry in entries {
        entry_record.u32(entry);
    }
    (offset_record, entry_record)
}

/// The tables `mention_index` reads to tell which occurrences the graph explains.
struct Explained<'t, 'e, 'a> {
    symbol_files: &'t [u32],
    file_index: &'t FxHashMap<(&'t str, &'t str), u32>,
    symbol_index: &'t KeyMap<u32>,
    evidence_index: &'t KeyMap<u32>,
    /// The name of a declaration another page holds.
    external: &'e Externals<'a>,
}

/// What the graph leaves unexplained of the files' identifier censuses, inverted: for every
/// name a file of the page spells, the files that spell it more often than the graph
/// explains — one occurrence per declaration of that name in the file, per observation
/// backing an edge into a declaration of that name (of any page), and per failure that
/// asked for the name there — with the excess. Names in byte order, each with its total
/// excess and its run of (file, excess) entries in file order.
fn mention_index<'l, 'a: 'l>(
    facts: &'a FactSet,
    arena: &mut Arena<'l>,
    tables: &Explained<'_, '_, 'a>,
) -> Result<(Record, Record), WriteError> {
    // Every name numbered, so that the counts below are keyed by integers.
    let mut numbers: FxHashMap<&'a str, u32> = FxHashMap::default();
    let mut number = |name: &'a str| {
        let next = numbers.len() as u32;
        *numbers.entry(name).or_insert(next)
    };
    let symbol_names: Vec<u32> = facts.symbols.iter().map(|s| number(&s.name)).collect();
    let pair = |name: u32, file: u32| (u64::from(name) << 32) | u64::from(file);
    let mut explained: FxHashMap<u64, u32> = FxHashMap::default();
    for (name, file) in symbol_names.iter().zip(tables.symbol_files) {
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
        let name = match tables.symbol_index.get(&edge.target) {
            Some(target) => symbol_names[*target as usize],
            None => match (tables.external)(&edge.target) {
                Some(node) if node.table == ExternalTable::Symbol => number(node.name),
                _ => continue,
            },
        };
        let Some(seen) = tables.evidence_index.get(&evidence) else {
            continue;
        };
        if observed.insert(pair(name, *seen)) {
            let file = *evidence_files[*seen as usize].get_or_insert_with(|| {
                let row = &facts.evidence[*seen as usize];
                tables
                    .file_index
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
            && let Some(file) = tables
                .file_index
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
    let mut names = Record::new(0);
    let mut entries = Record::new(pairs.len() * MENTION_ENTRY_LEN);
    let mut start = 0;
    while start < pairs.len() {
        let rank = pairs[start].0;
        let end = start + pairs[start..].partition_point(|p| p.0 == rank);
        let total = pairs[start..end]
            .iter()
            .fold(0u32, |sum, p| sum.saturating_add(p.2));
        names
            .str(arena.add(by_name[rank as usize].0)?)
            .u32(index(start, "mention entries")?)
            .u32(total);
        for (_, file, count) in &pairs[start..end] {
            entries.u32(*file).u32(*count);
        }
        start = end;
    }
    Ok((names, entries))
}

/// The term index `find_by_intent` reads: per term of a symbol's name, qualified name, kind
/// or file path, the symbols carrying it, ascending, flagged when the symbol's own name does.
/// Terms in byte order. Terms are numbered as met (a hash lookup by `&str`, no allocation per
/// occurrence) and sorted once at the end: a map keyed by owned strings cost a third of the
/// layout of a 550 k-symbol graph.
fn term_postings(facts: &FactSet, symbol_files: &[u32]) -> Vec<(String, Vec<u32>)> {
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

fn term_records<'a>(
    postings: &'a [(String, Vec<u32>)],
    arena: &mut Arena<'a>,
) -> Result<(Record, Record), WriteError> {
    let mut names = Record::new(0);
    let mut entries = Record::new(0);
    let mut start = 0usize;
    for (term, positions) in postings {
        names
            .str(arena.add(term)?)
            .u32(index(start, "term postings")?);
        for position in positions {
            entries.u32(*position);
        }
        start += positions.len();
    }
    Ok((names, entries))
}

fn language_bit(language: Language) -> u32 {
    1 << language.code()
}

/// Lays out page `number` over `facts` (canonical, and only this page's packages with their
/// rows, and every repository); `external` says where the nodes its edges reach in other
/// pages live.
pub fn write_page<'a>(
    number: u32,
    facts: &'a FactSet,
    external: &Externals<'a>,
) -> Result<PageFile, WriteError> {
    let mut arena = Arena::default();
    let repository_index: FxHashMap<&str, u32> = facts
        .repositories
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.as_str(), i as u32))
        .collect();
    let package_index: KeyMap<u32> = facts
        .packages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.key, i as u32))
        .collect();
    let file_index: FxHashMap<(&str, &str), u32> = facts
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| ((f.repository.as_str(), f.path.as_str()), i as u32))
        .collect();
    let symbol_index: KeyMap<u32> = facts
        .symbols
        .iter()
        .enumerate()
        .map(|(i, s)| (s.key, i as u32))
        .collect();
    let evidence_index: KeyMap<u32> = facts
        .evidence
        .iter()
        .enumerate()
        .map(|(i, e)| (e.key, i as u32))
        .collect();

    // Symbols are sorted by file, so each file's symbols are one contiguous run.
    let mut file_runs: Vec<(u32, u32)> = vec![(0, 0); facts.files.len()];
    let mut symbol_files = Vec::with_capacity(facts.symbols.len());
    for (i, symbol) in facts.symbols.iter().enumerate() {
        let file = *file_index
            .get(&(symbol.repository.as_str(), symbol.file_path.as_str()))
            .ok_or(WriteError::OrphanSymbol(symbol.key))?;
        let run = &mut file_runs[file as usize];
        if run.1 == 0 {
            run.0 = i as u32;
        }
        run.1 += 1;
        symbol_files.push(file);
    }
    let mut repository_runs: Vec<(u32, u32)> = vec![(0, 0); facts.repositories.len()];
    for (i, file) in facts.files.iter().enumerate() {
        if let Some(r) = repository_index.get(file.repository.as_str()) {
            let run = &mut repository_runs[*r as usize];
            if run.1 == 0 {
                run.0 = i as u32;
            }
            run.1 += 1;
        }
    }

    let mut repositories = Record::new(facts.repositories.len() * REPOSITORY_LEN);
    for (i, repository) in facts.repositories.iter().enumerate() {
        let languages = repository
            .languages
            .iter()
            .fold(0, |mask, l| mask | language_bit(*l));
        repositories
            .str(arena.add(&repository.name)?)
            .str(arena.add(&repository.root)?)
            .bytes(&repository.key.0)
            .u32(languages)
            .u32(repository_runs[i].0)
            .u32(repository_runs[i].1)
            .pad(4);
    }
    let mut packages = Record::new(facts.packages.len() * PACKAGE_LEN);
    for package in &facts.packages {
        packages
            .bytes(&package.key.0)
            .u32(
                repository_index
                    .get(package.repository.as_str())
                    .copied()
                    .unwrap_or(NONE),
            )
            .u8(package.language.code())
            .pad(3)
            .str(arena.add(&package.name)?)
            .str(arena.add(&package.path)?);
    }
    let mut files = Record::new(facts.files.len() * FILE_LEN);
    for (i, file) in facts.files.iter().enumerate() {
        files
            .bytes(&file.key.0)
            .bytes(&file.fingerprint.0)
            .u32(
                repository_index
                    .get(file.repository.as_str())
                    .copied()
                    .unwrap_or(NONE),
            )
            .u32(package_index.get(&file.package).copied().unwrap_or(NONE))
            .str(arena.add(&file.path)?)
            .u8(file.language.code())
            .pad(3)
            .u32(file.line_count)
            .u64(file.byte_len)
            .u32(file_runs[i].0)
            .u32(file_runs[i].1)
            .u32(file.parse_issues.len() as u32)
            .pad(4);
    }
    let mut symbols = Record::new(facts.symbols.len() * SYMBOL_LEN);
    for (i, symbol) in facts.symbols.iter().enumerate() {
        let parent = match symbol.parent {
            Some(parent) => *symbol_index.get(&parent).ok_or(WriteError::DanglingEdge {
                kind: "parent",
                key: parent,
            })?,
            None => NONE,
        };
        let mut flags = 0;
        if symbol.exported {
            flags |= FLAG_EXPORTED;
        }
        if symbol.doc.is_some() {
            flags |= FLAG_HAS_DOC;
        }
        symbols
            .bytes(&symbol.key.0)
            .u32(symbol_files[i])
            .u32(package_index.get(&symbol.package).copied().unwrap_or(NONE))
            .u32(parent)
            .u8(symbol.kind.code())
            .u8(symbol.language.code())
            .u8(flags)
            .pad(1)
            .str(arena.add(&symbol.name)?)
            .str(arena.add(&symbol.qualified_name)?)
            .str(arena.add(&symbol.signature)?)
            .str(arena.add(symbol.doc.as_deref().unwrap_or(""))?)
            .str(arena.add(&symbol.key_module)?)
            .str(arena.add(&symbol.key_discriminator)?)
            .u32(symbol.span.start_line)
            .u32(symbol.span.end_line)
            .u32(symbol.span.start_byte)
            .u32(symbol.span.end_byte);
    }
    let mut nodes: KeyMap<(u8, u32)> = KeyMap::default();
    nodes.extend(
        facts
            .repositories
            .iter()
            .enumerate()
            .map(|(i, r)| (r.key, (TABLE_REPOSITORY, i as u32))),
    );
    nodes.extend(
        facts
            .packages
            .iter()
            .enumerate()
            .map(|(i, p)| (p.key, (TABLE_PACKAGE, i as u32))),
    );
    nodes.extend(
        facts
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.key, (TABLE_FILE, i as u32))),
    );
    nodes.extend(
        facts
            .symbols
            .iter()
            .enumerate()
            .map(|(i, s)| (s.key, (TABLE_SYMBOL, i as u32))),
    );
    nodes.extend(
        facts
            .evidence
            .iter()
            .enumerate()
            .map(|(i, e)| (e.key, (TABLE_EVIDENCE, i as u32))),
    );
    // The nodes other pages hold, by key, each numbered once in key order.
    let mut externals: BTreeMap<StableKey, (u8, u32)> = BTreeMap::new();
    let dangling = |edge: &Edge, key: StableKey| WriteError::DanglingEdge {
        kind: edge.kind.as_str(),
        key,
    };
    for edge in &facts.edges {
        for key in [edge.source, edge.target] {
            if !nodes.contains_key(&key) && !externals.contains_key(&key) {
                let node = external(&key).ok_or_else(|| dangling(edge, key))?;
                externals.insert(key, (node.table.code(), node.page));
            }
        }
    }
    let external_rows: KeyMap<u32> = externals
        .keys()
        .enumerate()
        .map(|(i, key)| (*key, i as u32))
        .collect();
    let endpoint = |key: &StableKey| match nodes.get(key) {
        Some(local) => Some(*local),
        None => external_rows.get(key).map(|row| (TABLE_EXTERNAL, *row)),
    };
    let mut edges = Record::new(facts.edges.len() * EDGE_LEN);
    for edge in &facts.edges {
        let (source_table, source) =
            endpoint(&edge.source).ok_or_else(|| dangling(edge, edge.source))?;
        let (target_table, target) =
            endpoint(&edge.target).ok_or_else(|| dangling(edge, edge.target))?;
        let evidence = match edge.evidence {
            Some(key) => *evidence_index
                .get(&key)
                .ok_or_else(|| dangling(edge, key))?,
            None => NONE,
        };
        edges
            .u8(edge.kind.code())
            .u8(edge.confidence.code())
            .u8(edge.provenance.code())
            .u8(source_table)
            .u8(target_table)
            .pad(3)
            .u32(source)
            .u32(target)
            .u32(evidence)
            .pad(4);
    }
    let mut external_nodes = Record::new(externals.len() * EXTERNAL_NODE_LEN);
    let mut filter = vec![0u64; filter_words(externals.len())];
    for (key, (table, page)) in &externals {
        external_nodes.bytes(&key.0).u8(*table).pad(3).u32(*page);
        for bit in filter_bits(&key.0, filter.len()) {
            filter[bit / 64] |= 1 << (bit % 64);
        }
    }
    let mut external_filter = Record::new(filter.len() * 8);
    for word in &filter {
        external_filter.u64(*word);
    }
    let mut unresolved = Record::new(facts.unresolved.len() * UNRESOLVED_LEN);
    for row in &facts.unresolved {
        let mut flags = 0;
        for (present, flag) in [
            (row.file_path.is_some(), UNRESOLVED_HAS_FILE),
            (row.span.is_some(), UNRESOLVED_HAS_SPAN),
            (row.requested_symbol.is_some(), UNRESOLVED_HAS_SYMBOL),
            (row.requested_package.is_some(), UNRESOLVED_HAS_PACKAGE),
        ] {
            if present {
                flags |= flag;
            }
        }
        unresolved
            .u32(
                repository_index
                    .get(row.repository.as_str())
                    .copied()
                    .unwrap_or(NONE),
            )
            .u8(row.language.code())
            .u8(flags)
            .pad(2)
            .str(arena.add(row.reason.as_str())?)
            .str(arena.add(row.file_path.as_deref().unwrap_or(""))?)
            .str(arena.add(row.requested_symbol.as_deref().unwrap_or(""))?)
            .str(arena.add(row.requested_package.as_deref().unwrap_or(""))?)
            .str(arena.add(&row.detail)?)
            .u32(row.span.map(|s| s.start_line).unwrap_or(0))
            .u32(row.span.map(|s| s.end_line).unwrap_or(0));
    }
    // Observations made in a file of another page (a Go test package's, say) name it by
    // repository and path, each once, in order.
    let mut external_files: BTreeMap<(u32, &str), u32> = BTreeMap::new();
    for row in &facts.evidence {
        if !file_index.contains_key(&(row.repository.as_str(), row.file_path.as_str())) {
            let repository = repository_index
                .get(row.repository.as_str())
                .copied()
                .unwrap_or(NONE);
            external_files.insert((repository, row.file_path.as_str()), 0);
        }
    }
    for (row, number) in external_files.values_mut().enumerate() {
        *number = row as u32;
    }
    let mut evidence = Record::new(facts.evidence.len() * EVIDENCE_LEN);
    for row in &facts.evidence {
        let repository = repository_index
            .get(row.repository.as_str())
            .copied()
            .unwrap_or(NONE);
        let file = match file_index.get(&(row.repository.as_str(), row.file_path.as_str())) {
            Some(file) => *file,
            None => EXTERNAL_FILE | external_files[&(repository, row.file_path.as_str())],
        };
        evidence
            .bytes(&row.key.0)
            .u32(repository)
            .u32(file)
            .u32(row.span.start_line)
            .u32(row.span.end_line)
            .u32(row.span.start_byte)
            .u32(row.span.end_byte);
    }

    let name_index = sorted_index(facts.symbols.len(), |i| {
        (facts.symbols[i].name.as_bytes(), b"")
    });
    let qualified_index = sorted_index(facts.symbols.len(), |i| {
        (facts.symbols[i].qualified_name.as_bytes(), b"")
    });
    let key_index = sorted_index(facts.symbols.len(), |i| (&facts.symbols[i].key.0, b""));
    let path_index = sorted_index(facts.files.len(), |i| {
        (
            facts.files[i].repository.as_bytes(),
            facts.files[i].path.as_bytes(),
        )
    });
    let (forward_offsets, forward_edges) = adjacency(facts.symbols.len(), &facts.edges, |e| {
        symbol_index.get(&e.source)
    });
    let (reverse_offsets, reverse_edges) = adjacency(facts.symbols.len(), &facts.edges, |e| {
        symbol_index.get(&e.target)
    });
    let (package_offsets, package_edges) = adjacency(facts.packages.len(), &facts.edges, |e| {
        package_index.get(&e.target)
    });
    let (external_offsets, external_edges) = adjacency(externals.len(), &facts.edges, |e| {
        external_rows.get(&e.target)
    });
    let (external_source_offsets, external_source_edges) =
        adjacency(externals.len(), &facts.edges, |e| {
            external_rows.get(&e.source)
        });
    let package_key_index = sorted_index(facts.packages.len(), |i| (&facts.packages[i].key.0, b""));
    let file_key_index = sorted_index(facts.files.len(), |i| (&facts.files[i].key.0, b""));
    let mut external_file_rows = Record::new(external_files.len() * EXTERNAL_FILE_LEN);
    for (repository, path) in external_files.keys() {
        external_file_rows
            .u32(*repository)
            .pad(4)
            .str(arena.add(path)?);
    }
    let mut unresolved_names: Vec<u32> = (0..facts.unresolved.len() as u32)
        .filter(|i| facts.unresolved[*i as usize].requested_symbol.is_some())
        .collect();
    unresolved_names.par_sort_unstable_by(|a, b| {
        let name = |i: &u32| {
            requested_name(
                facts.unresolved[*i as usize]
                    .requested_symbol
                    .as_deref()
                    .unwrap_or(""),
            )
        };
        name(a).cmp(name(b)).then(a.cmp(b))
    });
    let mut unresolved_name_index = Record::new(unresolved_names.len() * 4);
    let mut requested_names = Record::new(0);
    let mut previous: Option<&str> = None;
    for (at, i) in unresolved_names.iter().enumerate() {
        unresolved_name_index.u32(*i);
        let name = requested_name(
            facts.unresolved[*i as usize]
                .requested_symbol
                .as_deref()
                .unwrap_or(""),
        );
        if previous != Some(name) {
            requested_names
                .str(arena.add(name)?)
                .u32(index(at, "requested names")?);
            previous = Some(name);
        }
    }
    let mut scope_index = Record::new(0);
    for (i, row) in facts.unresolved.iter().enumerate() {
        if is_scope_row(row.file_path.as_deref(), row.reason.as_str()) {
            scope_index.u32(i as u32);
        }
    }
    // The two heaviest tables, one per core.
    let (mentions, term_table) = rayon::join(
        || {
            mention_index(
                facts,
                &mut arena,
                &Explained {
                    symbol_files: &symbol_files,
                    file_index: &file_index,
                    symbol_index: &symbol_index,
                    evidence_index: &evidence_index,
                    external,
                },
            )
        },
        || term_postings(facts, &symbol_files),
    );
    let (mention_names, mention_entries) = mentions?;
    let (term_names, term_postings) = term_records(&term_table, &mut arena)?;
    let unresolved_file_index = sorted_index(facts.unresolved.len(), |i| {
        let row = &facts.unresolved[i];
        (
            row.repository.as_bytes(),
            row.file_path.as_deref().unwrap_or("").as_bytes(),
        )
    });
    index(facts.symbols.len(), "symbols")?;
    index(facts.files.len(), "files")?;
    index(facts.edges.len(), "edges")?;

    let sections: Vec<(SectionKind, Vec<u8>, usize)> = vec![
        (
            SectionKind::Repositories,
            repositories.0,
            facts.repositories.len(),
        ),
        (SectionKind::Packages, packages.0, facts.packages.len()),
        (SectionKind::Files, files.0, facts.files.len()),
        (SectionKind::Symbols, symbols.0, facts.symbols.len()),
        (SectionKind::NameIndex, name_index.0, facts.symbols.len()),
        (
            SectionKind::QualifiedNameIndex,
            qualified_index.0,
            facts.symbols.len(),
        ),
        (SectionKind::KeyIndex, key_index.0, facts.symbols.len()),
        (SectionKind::FilePathIndex, path_index.0, facts.files.len()),
        (SectionKind::Edges, edges.0, facts.edges.len()),
        (
            SectionKind::Unresolved,
            unresolved.0,
            facts.unresolved.len(),
        ),
        (SectionKind::Evidence, evidence.0, facts.evidence.len()),
        (
            SectionKind::ForwardOffsets,
            forward_offsets.0,
            facts.symbols.len() + 1,
        ),
        (SectionKind::ForwardEdges, forward_edges.0, 0),
        (
            SectionKind::ReverseOffsets,
            reverse_offsets.0,
            facts.symbols.len() + 1,
        ),
        (SectionKind::ReverseEdges, reverse_edges.0, 0),
        (
            SectionKind::PackageReverseOffsets,
            package_offsets.0,
            facts.packages.len() + 1,
        ),
        (SectionKind::PackageReverseEdges, package_edges.0, 0),
        (
            SectionKind::UnresolvedNameIndex,
            unresolved_name_index.0,
            unresolved_names.len(),
        ),
        (SectionKind::MentionNames, mention_names.0, 0),
        (SectionKind::MentionEntries, mention_entries.0, 0),
        (SectionKind::UnresolvedScopeIndex, scope_index.0, 0),
        (
            SectionKind::UnresolvedFileIndex,
            unresolved_file_index.0,
            facts.unresolved.len(),
        ),
        (SectionKind::TermNames, term_names.0, 0),
        (SectionKind::TermPostings, term_postings.0, 0),
        (
            SectionKind::ExternalNodes,
            external_nodes.0,
            externals.len(),
        ),
        (
            SectionKind::ExternalOffsets,
            external_offsets.0,
            externals.len() + 1,
        ),
        (SectionKind::ExternalEdges, external_edges.0, 0),
        (
            SectionKind::ExternalSourceOffsets,
            external_source_offsets.0,
            externals.len() + 1,
        ),
        (SectionKind::ExternalSourceEdges, external_source_edges.0, 0),
        (SectionKind::RequestedNames, requested_names.0, 0),
        (SectionKind::ExternalFilter, external_filter.0, filter.len()),
        (
            SectionKind::PackageKeyIndex,
            package_key_index.0,
            facts.packages.len(),
        ),
        (
            SectionKind::FileKeyIndex,
            file_key_index.0,
            facts.files.len(),
        ),
        (
            SectionKind::ExternalFiles,
            external_file_rows.0,
            external_files.len(),
        ),
        (SectionKind::Strings, arena.bytes.clone(), arena.bytes.len()),
    ];
    let directory_len = sections.len() * DIRECTORY_ENTRY_LEN;
    let mut offset = (HEADER_LEN + directory_len).next_multiple_of(ALIGN);
    let mut directory = Record::new(directory_len);
    for (kind, bytes, count) in &sections {
        // A count of zero above stands for "as many elements as the bytes hold".
        let count = if *count == 0 {
            bytes.len() / kind.element_size()
        } else {
            *count
        };
        directory
            .u32(*kind as u32)
            .u32(kind.element_size() as u32)
            .u64(offset as u64)
            .u64(bytes.len() as u64)
            .u64(count as u64);
        offset = (offset + bytes.len()).next_multiple_of(ALIGN);
    }
    let mut payload = directory.0;
    payload.resize(
        (HEADER_LEN + directory_len).next_multiple_of(ALIGN) - HEADER_LEN,
        0,
    );
    for (_, bytes, _) in &sections {
        payload.extend_from_slice(bytes);
        let aligned = (HEADER_LEN + payload.len()).next_multiple_of(ALIGN) - HEADER_LEN;
        payload.resize(aligned, 0);
    }
    let digest = *blake3::hash(&payload).as_bytes();
    let mut out = Record::new(HEADER_LEN + payload.len());
    out.bytes(PAGE_MAGIC)
        .u32(FORMAT_VERSION)
        .u32(sections.len() as u32)
        .u64(u64::from(number))
        .u64(payload.len() as u64)
        .bytes(&digest);
    out.bytes(&payload);
    Ok(PageFile {
        number,
        digest,
        bytes: out.0,
    })
}

/// The root of generation `generation` over its pages, `(number, payload digest)` by
/// ascending number.
pub fn write_root(generation: u64, pages: &[(u32, [u8; 32])]) -> Vec<u8> {
    let mut payload = Record::new(pages.len() * ROOT_ENTRY_LEN);
    for (number, digest) in pages {
        payload.u32(*number).pad(4).bytes(digest);
    }
    let mut out = Record::new(HEADER_LEN + payload.0.len());
    out.bytes(MAGIC)
        .u32(FORMAT_VERSION)
        .u32(pages.len() as u32)
        .u64(generation)
        .u64(payload.0.len() as u64)
        .bytes(blake3::hash(&payload.0).as_bytes())
        .bytes(&payload.0);
    out.0
}
