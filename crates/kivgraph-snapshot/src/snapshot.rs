//! The snapshot as one graph: a root naming its pages, each validated when opened, and the
//! numbering of rows across them.
//!
//! Rows are numbered across pages in page order — page 0's symbols, then page 1's — so a
//! row's `index` is the graph's row number and answers come in that order. A row also
//! carries its page and its row there. An edge endpoint another page holds is stored by key
//! with the page that holds it, and found there by one binary search. What the graph says of
//! its rows is read through `crate::views`; its lookups are `crate::reader`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use kivgraph_facts::StableKey;
use rayon::prelude::*;

use crate::bytes::{read_key, read_u32};
use crate::error::SnapshotError;
use crate::fields::{repository, root_entry, symbol};
use crate::format::*;
use crate::page::{Header, Page, partition_point};
use crate::tables::external::{ExternalNode, ExternalTable};
use crate::tables::{open_page, page_from_bytes};
use crate::terms::TERM_IN_NAME;
use crate::writer::page_file_name;

/// Where a generation's pages sit, beside its root file.
pub const PAGES_DIRECTORY: &str = "pages";

/// The paged tables, numbered across pages.
#[derive(Clone, Copy)]
pub(crate) enum Table {
    Packages,
    Files,
    Symbols,
    Edges,
    Unresolved,
    Evidence,
}

pub(crate) const TABLES: [SectionKind; 6] = [
    SectionKind::Packages,
    SectionKind::Files,
    SectionKind::Symbols,
    SectionKind::Edges,
    SectionKind::Unresolved,
    SectionKind::Evidence,
];

/// A validated, read-only snapshot.
pub struct Snapshot {
    generation: u64,
    digest: [u8; 32],
    root_len: usize,
    /// By ascending page number. Shared: a generation that keeps a page of the one before
    /// it reads the same mapping (`open_after`).
    pub(crate) pages: Vec<Arc<Page>>,
    /// Per table, each page's first row in the graph's numbering, then the total.
    starts: [Vec<usize>; 6],
}

/// One page named by the root: its number and its payload's digest.
struct RootEntry {
    number: u32,
    digest: [u8; 32],
}

impl RootEntry {
    /// Whether `page` is the page this entry names.
    fn names(&self, page: &Page) -> Result<(), SnapshotError> {
        if page.payload_digest() == self.digest && page.number() == u64::from(self.number) {
            Ok(())
        } else {
            Err(SnapshotError::Root(format!(
                "page {} is not the one the root names",
                self.number
            )))
        }
    }

    /// Maps and validates the page this entry names, from `directory`.
    fn open(&self, directory: &Path) -> Result<Page, SnapshotError> {
        let page = open_page(&directory.join(page_file_name(self.number, &self.digest)))?;
        self.names(&page)?;
        Ok(page)
    }
}

/// The root file's bytes, and the directory its pages are in.
fn read_root(path: &Path) -> Result<(Vec<u8>, PathBuf), SnapshotError> {
    let root = std::fs::read(path).map_err(|source| SnapshotError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let directory = path.parent().map_or_else(
        || PathBuf::from(PAGES_DIRECTORY),
        |d| d.join(PAGES_DIRECTORY),
    );
    Ok((root, directory))
}

fn parse_root(bytes: &[u8]) -> Result<(u64, [u8; 32], Vec<RootEntry>), SnapshotError> {
    let Header {
        count,
        field: generation,
        digest,
    } = Header::check(bytes, MAGIC)?;
    if count.checked_mul(ROOT_ENTRY_LEN) != Some(bytes.len() - HEADER_LEN) || count == 0 {
        return Err(SnapshotError::Root(format!(
            "{count} pages do not fill {} bytes of entries",
            bytes.len() - HEADER_LEN
        )));
    }
    let entries: Vec<RootEntry> = (0..count)
        .map(|i| {
            let at = HEADER_LEN + i * ROOT_ENTRY_LEN;
            RootEntry {
                number: read_u32(bytes, at + root_entry::NUMBER),
                digest: read_key(bytes, at + root_entry::DIGEST),
            }
        })
        .collect();
    if entries.windows(2).any(|w| w[0].number >= w[1].number) {
        return Err(SnapshotError::Root("pages out of order".into()));
    }
    Ok((generation, digest, entries))
}

/// What [`Snapshot::validate_pages`] proved of a root and some of its pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidatedRoot {
    pub generation: u64,
    pub payload_digest: [u8; 32],
    /// The pages validated: number, symbols, files, edges.
    pub pages: Vec<(u32, usize, usize, usize)>,
}

impl Snapshot {
    /// Validates the root at `path` and the pages `among` accepts, and that every other
    /// page it names is there: what a publication proves of the pages it wrote, beside
    /// pages it linked from a generation that proved them.
    pub fn validate_pages(
        path: &Path,
        among: impl Fn(u32) -> bool + Sync,
    ) -> Result<ValidatedRoot, SnapshotError> {
        let (root, directory) = read_root(path)?;
        let (generation, payload_digest, entries) = parse_root(&root)?;
        let pages = entries
            .par_iter()
            .map(|entry| {
                if !among(entry.number) {
                    let file = directory.join(page_file_name(entry.number, &entry.digest));
                    return std::fs::metadata(&file)
                        .map(|_| None)
                        .map_err(|source| SnapshotError::Io { path: file, source });
                }
                let page = entry.open(&directory)?;
                Ok(Some((
                    entry.number,
                    page.count(SectionKind::Symbols),
                    page.count(SectionKind::Files),
                    page.count(SectionKind::Edges),
                )))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ValidatedRoot {
            generation,
            payload_digest,
            pages: pages.into_iter().flatten().collect(),
        })
    }

    /// Reads the root at `path`, then maps each page it names from the `pages` directory
    /// beside it and validates it.
    pub fn open(path: &Path) -> Result<Self, SnapshotError> {
        Self::open_after(path, None)
    }

    /// Opens the snapshot at `path`, taking from `previous` every page its root names by the
    /// same number and payload digest: those bytes were mapped and validated already (a
    /// generation links the pages it keeps), so only the pages a pass changed are read.
    pub fn open_after(path: &Path, previous: Option<&Snapshot>) -> Result<Self, SnapshotError> {
        let (root, directory) = read_root(path)?;
        let (generation, digest, entries) = parse_root(&root)?;
        let kept = |entry: &RootEntry| {
            previous?
                .pages
                .iter()
                .find(|page| {
                    page.number() == u64::from(entry.number)
                        && page.payload_digest() == entry.digest
                })
                .cloned()
        };
        let pages: Vec<Arc<Page>> = entries
            .par_iter()
            .map(|entry| match kept(entry) {
                Some(page) => Ok(page),
                None => entry.open(&directory).map(Arc::new),
            })
            .collect::<Result<_, _>>()?;
        Self::assemble(generation, digest, root.len(), &entries, pages)
    }

    /// Validates an in-memory snapshot: a root and its pages, in any order (tests, fuzzing,
    /// tools).
    pub fn from_parts(root: Vec<u8>, pages: Vec<Vec<u8>>) -> Result<Self, SnapshotError> {
        let (generation, digest, entries) = parse_root(&root)?;
        let mut opened = pages
            .into_iter()
            .map(page_from_bytes)
            .collect::<Result<Vec<_>, _>>()?;
        let mut pages = Vec::with_capacity(entries.len());
        for entry in &entries {
            let at = opened
                .iter()
                .position(|p| p.payload_digest() == entry.digest)
                .ok_or_else(|| SnapshotError::Root(format!("page {} is missing", entry.number)))?;
            pages.push(Arc::new(opened.swap_remove(at)));
        }
        Self::assemble(generation, digest, root.len(), &entries, pages)
    }

    fn assemble(
        generation: u64,
        digest: [u8; 32],
        root_len: usize,
        entries: &[RootEntry],
        pages: Vec<Arc<Page>>,
    ) -> Result<Self, SnapshotError> {
        for (entry, page) in entries.iter().zip(&pages) {
            entry.names(page)?;
        }
        // Every page carries every repository, in one order: rows are numbered alike.
        let first = &pages[0];
        let repositories = first.count(SectionKind::Repositories);
        for page in &pages[1..] {
            let same = page.count(SectionKind::Repositories) == repositories
                && (0..repositories).all(|r| {
                    let (a, b) = (
                        first.record(SectionKind::Repositories, r),
                        page.record(SectionKind::Repositories, r),
                    );
                    a.get(repository::KEY..repository::FILE_START)
                        == b.get(repository::KEY..repository::FILE_START)
                        && first.str_at(a, repository::NAME) == page.str_at(b, repository::NAME)
                        && first.str_at(a, repository::ROOT) == page.str_at(b, repository::ROOT)
                });
            if !same {
                return Err(SnapshotError::Root(format!(
                    "page {} lists other repositories than page {}",
                    page.number(),
                    first.number()
                )));
            }
        }
        let starts = TABLES.map(|kind| {
            let mut starts = Vec::with_capacity(pages.len() + 1);
            let mut total = 0;
            for page in &pages {
                starts.push(total);
                total += page.count(kind);
            }
            starts.push(total);
            starts
        });
        Ok(Snapshot {
            generation,
            digest,
            root_len,
            pages,
            starts,
        })
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// BLAKE3-256 of the root's payload, which names every page by its digest: equal for
    /// equal facts whatever the generation.
    pub fn payload_digest(&self) -> [u8; 32] {
        self.digest
    }

    /// The root's and the pages' bytes.
    pub fn len_bytes(&self) -> usize {
        self.root_len
            + self
                .pages
                .iter()
                .map(|page| page.len_bytes())
                .sum::<usize>()
    }

    /// How many pages the graph is laid out in.
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    pub(crate) fn total(&self, table: Table) -> usize {
        *self.starts[table as usize].last().unwrap_or(&0)
    }

    /// The page and the row there of row `index` of `table`.
    pub(crate) fn locate(&self, table: Table, index: usize) -> Option<(usize, usize)> {
        let starts = &self.starts[table as usize];
        if index >= self.total(table) {
            return None;
        }
        let page = partition_point(self.pages.len(), |p| starts[p + 1] <= index);
        Some((page, index - starts[page]))
    }

    pub(crate) fn global(&self, table: Table, page: usize, local: usize) -> usize {
        self.starts[table as usize][page] + local
    }

    pub(crate) fn page_numbered(&self, number: u32) -> Option<usize> {
        let at = partition_point(self.pages.len(), |p| {
            self.pages[p].number() < u64::from(number)
        });
        (at < self.pages.len() && self.pages[at].number() == u64::from(number)).then_some(at)
    }

    pub fn repository_count(&self) -> usize {
        self.pages[0].count(SectionKind::Repositories)
    }
    pub fn package_count(&self) -> usize {
        self.total(Table::Packages)
    }
    pub fn file_count(&self) -> usize {
        self.total(Table::Files)
    }
    pub fn symbol_count(&self) -> usize {
        self.total(Table::Symbols)
    }
    pub fn edge_count(&self) -> usize {
        self.total(Table::Edges)
    }
    pub fn unresolved_count(&self) -> usize {
        self.total(Table::Unresolved)
    }
    pub fn evidence_count(&self) -> usize {
        self.total(Table::Evidence)
    }

    pub(crate) fn row(&self, table: Table, page: usize, local: usize) -> Row<'_> {
        Row {
            snapshot: self,
            page: page as u32,
            local: local as u32,
            index: self.global(table, page, local),
        }
    }

    pub(crate) fn row_at(&self, table: Table, index: usize) -> Option<Row<'_>> {
        let (page, local) = self.locate(table, index)?;
        Some(self.row(table, page, local))
    }

    /// Every row of `table`, in the graph's order.
    pub(crate) fn rows(&self, table: Table) -> impl Iterator<Item = Row<'_>> {
        let kind = TABLES[table as usize];
        (0..self.pages.len()).flat_map(move |page| {
            (0..self.pages[page].count(kind)).map(move |local| self.row(table, page, local))
        })
    }

    /// The row of the file at `path` in `repository`.
    pub(crate) fn file_row(&self, repository: &str, path: &str) -> Option<Row<'_>> {
        self.lookup(
            Table::Files,
            SectionKind::FilePathIndex,
            (repository.as_bytes(), path.as_bytes()),
        )
        .first()
        .copied()
    }

    /// The rows of `table` each page's index `kind` finds equal to `probe`, page by page.
    pub(crate) fn lookup(
        &self,
        table: Table,
        kind: SectionKind,
        probe: (&[u8], &[u8]),
    ) -> Vec<Row<'_>> {
        let mut rows = Vec::new();
        for (p, page) in self.pages.iter().enumerate() {
            rows.extend(
                page.lookup(kind, probe)
                    .into_iter()
                    .map(|local| self.row(table, p, local as usize)),
            );
        }
        rows
    }

    /// The files spelling identifier `name` more often than the graph explains (file
    /// position, unexplained occurrences), in file order; empty when every occurrence is a
    /// declaration, a resolved use or a recorded failure.
    pub fn unexplained_mentions(&self, name: &str) -> Vec<(usize, u32)> {
        let mut mentions = Vec::new();
        for (p, page) in self.pages.iter().enumerate() {
            mentions.extend(
                page.unexplained_mentions(name)
                    .into_iter()
                    .map(|(file, count)| (self.global(Table::Files, p, file as usize), count)),
            );
        }
        mentions
    }

    /// The symbols carrying `term` (see [`crate::terms`]), ascending, each with
    /// [`TERM_IN_NAME`] set when the symbol's own name carries it; `None` for a term no
    /// symbol carries.
    pub fn term_postings(&self, term: &str) -> Option<Vec<u32>> {
        let mut postings: Option<Vec<u32>> = None;
        for (p, page) in self.pages.iter().enumerate() {
            if let Some(found) = page.term_postings(term) {
                let start = self.starts[Table::Symbols as usize][p] as u32;
                postings.get_or_insert_with(Vec::new).extend(
                    found.into_iter().map(|posting| {
                        (start + (posting & !TERM_IN_NAME)) | (posting & TERM_IN_NAME)
                    }),
                );
            }
        }
        postings
    }

    /// The page numbers, ascending.
    pub fn page_numbers(&self) -> Vec<u32> {
        self.pages.iter().map(|p| p.number() as u32).collect()
    }

    /// The keys of the packages, files and declarations page `number` holds.
    pub fn page_keys(&self, number: u32) -> Vec<StableKey> {
        let Some(page) = self.page_numbered(number) else {
            return Vec::new();
        };
        let page = &self.pages[page];
        [
            SectionKind::Packages,
            SectionKind::Files,
            SectionKind::Symbols,
        ]
        .iter()
        .flat_map(|kind| {
            // Every keyed table starts with its key.
            (0..page.count(*kind)).map(|row| StableKey(read_key(page.record(*kind, row), 0)))
        })
        .collect()
    }

    /// Where the pages `among` accepts hold `key`: its table, its page and (a
    /// declaration's) name — what a page laid out beside them says of a node it reaches.
    pub fn node_by_key(
        &self,
        key: &StableKey,
        among: impl Fn(u32) -> bool,
    ) -> Option<ExternalNode<'_>> {
        self.pages
            .iter()
            .filter(|page| among(page.number() as u32))
            .find_map(|page| node_in(page, key))
    }

    /// Where page `number` holds `key` (see [`Snapshot::node_by_key`]).
    pub fn node_on_page(&self, number: u32, key: &StableKey) -> Option<ExternalNode<'_>> {
        node_in(&self.pages[self.page_numbered(number)?], key)
    }

    /// The nodes of other pages that page `number`'s edges reach, each with the page that
    /// held it: where a page laid out again looks first for the nodes it reaches.
    pub fn reached_homes(&self, number: u32) -> Vec<(StableKey, u32)> {
        let Some(page) = self.page_numbered(number) else {
            return Vec::new();
        };
        let page = &self.pages[page];
        (0..page.count(SectionKind::ExternalNodes))
            .map(|row| {
                let (key, _, home) = page.external_node(row);
                (key, home)
            })
            .collect()
    }

    /// Whether one of the pages `among` accepts holds the file at `path` in `repository`.
    pub fn holds_file(&self, repository: &str, path: &str, among: impl Fn(u32) -> bool) -> bool {
        self.pages.iter().any(|page| {
            among(page.number() as u32)
                && !page
                    .lookup(
                        SectionKind::FilePathIndex,
                        (repository.as_bytes(), path.as_bytes()),
                    )
                    .is_empty()
        })
    }

    /// Whether an edge of one of the pages `among` accepts reaches `key` in another page.
    pub fn reaches(&self, key: &StableKey, among: impl Fn(u32) -> bool) -> bool {
        self.pages
            .iter()
            .any(|page| among(page.number() as u32) && page.external_row(key).is_some())
    }

    /// The node another page holds, found by key in that page.
    pub(crate) fn external(&self, page: usize, row: usize) -> NodeRef {
        let (key, table, number) = self.pages[page].external_node(row);
        let Some(home) = self.page_numbered(number) else {
            return NodeRef::Missing(key);
        };
        let table = match table {
            TABLE_PACKAGE => ExternalTable::Package,
            TABLE_FILE => ExternalTable::File,
            _ => ExternalTable::Symbol,
        };
        let node = keyed_row(&self.pages[home], table, &key).map(|row| match table {
            ExternalTable::Package => NodeRef::Package(self.global(Table::Packages, home, row)),
            ExternalTable::File => NodeRef::File(self.global(Table::Files, home, row)),
            ExternalTable::Symbol => NodeRef::Symbol(self.global(Table::Symbols, home, row)),
        });
        node.unwrap_or(NodeRef::Missing(key))
    }
}

/// Where `page` holds `key`: its table and (a declaration's) name.
fn node_in<'a>(page: &'a Page, key: &StableKey) -> Option<ExternalNode<'a>> {
    let number = page.number() as u32;
    let tables = [
        ExternalTable::Symbol,
        ExternalTable::Package,
        ExternalTable::File,
    ];
    tables.into_iter().find_map(|table| {
        let row = keyed_row(page, table, key)?;
        let name = match table {
            ExternalTable::Symbol => {
                page.str_at(page.record(SectionKind::Symbols, row), symbol::NAME)
            }
            ExternalTable::Package | ExternalTable::File => "",
        };
        Some(ExternalNode {
            table,
            page: number,
            name,
        })
    })
}

/// The row of `page`'s table `table` whose key is `key`, by that table's key index.
pub(crate) fn keyed_row(page: &Page, table: ExternalTable, key: &StableKey) -> Option<usize> {
    let index = match table {
        ExternalTable::Package => SectionKind::PackageKeyIndex,
        ExternalTable::File => SectionKind::FileKeyIndex,
        ExternalTable::Symbol => SectionKind::KeyIndex,
    };
    page.lookup(index, (&key.0, b""))
        .first()
        .map(|row| *row as usize)
}

/// A row of a paged table: its page, its row there, and its number in the graph.
#[derive(Clone, Copy)]
pub(crate) struct Row<'a> {
    pub(crate) snapshot: &'a Snapshot,
    pub(crate) page: u32,
    pub(crate) local: u32,
    pub(crate) index: usize,
}

impl<'a> Row<'a> {
    pub(crate) fn page(&self) -> &'a Page {
        &self.snapshot.pages[self.page as usize]
    }
    pub(crate) fn record(&self, kind: SectionKind) -> &'a [u8] {
        self.page().record(kind, self.local as usize)
    }
    pub(crate) fn str_at(&self, kind: SectionKind, at: usize) -> &'a str {
        self.page().str_at(self.record(kind), at)
    }
    /// Row `local` of `table` in the same page.
    pub(crate) fn sibling(&self, table: Table, local: u32) -> Row<'a> {
        self.snapshot.row(table, self.page as usize, local as usize)
    }
}

/// One endpoint of an edge: which table, which row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeRef {
    Repository(usize),
    Package(usize),
    File(usize),
    Symbol(usize),
    Evidence(usize),
    /// A node another page should hold and does not: never in a snapshot the store
    /// published (it checks every page's external nodes before it publishes).
    Missing(StableKey),
}
