//! The snapshot as one graph: a root naming its pages, each validated when opened.
//!
//! Rows are numbered across pages in page order — page 0's symbols, then page 1's — so a
//! view's `index` is the graph's row number and answers come in that order. A view also
//! carries its page and its row there. An edge endpoint another page holds is stored by key
//! with the page that holds it, and found there by one binary search; who points at a node
//! from another page is one binary search in each other page's external nodes.

use std::path::{Path, PathBuf};

use kivgraph_facts::{
    Confidence, EdgeKind, Fingerprint, Language, LineSpan, Provenance, StableKey, SymbolKind,
};
use rayon::prelude::*;

use crate::format::*;
use crate::page::{Header, Page, partition_point, read_key, read_u32, read_u64};
use crate::terms::TERM_IN_NAME;
use crate::writer::{ExternalNode, ExternalTable, page_file_name};

pub use crate::page::SnapshotError;

/// Where a generation's pages sit, beside its root file.
pub const PAGES_DIRECTORY: &str = "pages";

/// The paged tables, numbered across pages.
#[derive(Clone, Copy)]
enum Table {
    Packages,
    Files,
    Symbols,
    Edges,
    Unresolved,
    Evidence,
}

const TABLES: [SectionKind; 6] = [
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
    /// By ascending page number.
    pages: Vec<Page>,
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
        let page = Page::open(&directory.join(page_file_name(self.number, &self.digest)))?;
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
                number: read_u32(bytes, at),
                digest: read_key(bytes, at + 8),
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
        let (root, directory) = read_root(path)?;
        let (generation, digest, entries) = parse_root(&root)?;
        let pages: Vec<Page> = entries
            .par_iter()
            .map(|entry| entry.open(&directory))
            .collect::<Result<_, _>>()?;
        Self::assemble(generation, digest, root.len(), &entries, pages)
    }

    /// Validates an in-memory snapshot: a root and its pages, in any order (tests, fuzzing,
    /// tools).
    pub fn from_parts(root: Vec<u8>, pages: Vec<Vec<u8>>) -> Result<Self, SnapshotError> {
        let (generation, digest, entries) = parse_root(&root)?;
        let mut opened = pages
            .into_iter()
            .map(Page::from_bytes)
            .collect::<Result<Vec<_>, _>>()?;
        let mut pages = Vec::with_capacity(entries.len());
        for entry in &entries {
            let at = opened
                .iter()
                .position(|p| p.payload_digest() == entry.digest)
                .ok_or_else(|| SnapshotError::Root(format!("page {} is missing", entry.number)))?;
            pages.push(opened.swap_remove(at));
        }
        Self::assemble(generation, digest, root.len(), &entries, pages)
    }

    fn assemble(
        generation: u64,
        digest: [u8; 32],
        root_len: usize,
        entries: &[RootEntry],
        pages: Vec<Page>,
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
                    a.get(16..52) == b.get(16..52)
                        && first.str_at(a, 0) == page.str_at(b, 0)
                        && first.str_at(a, 8) == page.str_at(b, 8)
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
        self.root_len + self.pages.iter().map(Page::len_bytes).sum::<usize>()
    }

    /// How many pages the graph is laid out in.
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    fn total(&self, table: Table) -> usize {
        *self.starts[table as usize].last().unwrap_or(&0)
    }

    /// The page and the row there of row `index` of `table`.
    fn locate(&self, table: Table, index: usize) -> Option<(usize, usize)> {
        let starts = &self.starts[table as usize];
        if index >= self.total(table) {
            return None;
        }
        let page = partition_point(self.pages.len(), |p| starts[p + 1] <= index);
        Some((page, index - starts[page]))
    }

    fn global(&self, table: Table, page: usize, local: usize) -> usize {
        self.starts[table as usize][page] + local
    }

    fn page_numbered(&self, number: u32) -> Option<usize> {
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

    fn row(&self, table: Table, page: usize, local: usize) -> Row<'_> {
        Row {
            snapshot: self,
            page: page as u32,
            local: local as u32,
            index: self.global(table, page, local),
        }
    }

    fn row_at(&self, table: Table, index: usize) -> Option<Row<'_>> {
        let (page, local) = self.locate(table, index)?;
        Some(self.row(table, page, local))
    }

    /// Every row of `table`, in the graph's order.
    fn rows(&self, table: Table) -> impl Iterator<Item = Row<'_>> {
        let kind = TABLES[table as usize];
        (0..self.pages.len()).flat_map(move |page| {
            (0..self.pages[page].count(kind)).map(move |local| self.row(table, page, local))
        })
    }

    pub fn repository(&self, index: usize) -> Option<RepositoryView<'_>> {
        (index < self.repository_count()).then_some(RepositoryView {
            snapshot: self,
            index,
        })
    }
    pub fn repositories(&self) -> impl Iterator<Item = RepositoryView<'_>> {
        (0..self.repository_count()).map(|index| RepositoryView {
            snapshot: self,
            index,
        })
    }
    pub fn package(&self, index: usize) -> Option<PackageView<'_>> {
        self.row_at(Table::Packages, index).map(PackageView::new)
    }
    pub fn file(&self, index: usize) -> Option<FileView<'_>> {
        self.row_at(Table::Files, index).map(FileView::new)
    }
    pub fn files(&self) -> impl Iterator<Item = FileView<'_>> {
        self.rows(Table::Files).map(FileView::new)
    }
    pub fn symbol(&self, index: usize) -> Option<SymbolView<'_>> {
        self.row_at(Table::Symbols, index).map(SymbolView::new)
    }
    pub fn symbols(&self) -> impl Iterator<Item = SymbolView<'_>> {
        self.rows(Table::Symbols).map(SymbolView::new)
    }
    pub fn edges(&self) -> impl Iterator<Item = EdgeView<'_>> {
        self.rows(Table::Edges).map(EdgeView::new)
    }
    pub fn unresolved(&self) -> impl Iterator<Item = UnresolvedView<'_>> {
        self.rows(Table::Unresolved).map(UnresolvedView::new)
    }

    /// The rows of `table` each page's index `kind` finds equal to `probe`, page by page.
    fn lookup(&self, table: Table, kind: SectionKind, probe: (&[u8], &[u8])) -> Vec<Row<'_>> {
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

    /// Symbols whose simple name is exactly `name`, in the fact set's order.
    pub fn symbols_named(&self, name: &str) -> Vec<SymbolView<'_>> {
        canonical_symbols(self.lookup(
            Table::Symbols,
            SectionKind::NameIndex,
            (name.as_bytes(), b""),
        ))
    }

    /// Symbols whose qualified name is exactly `qualified_name`, in the fact set's order.
    pub fn symbols_qualified(&self, qualified_name: &str) -> Vec<SymbolView<'_>> {
        canonical_symbols(self.lookup(
            Table::Symbols,
            SectionKind::QualifiedNameIndex,
            (qualified_name.as_bytes(), b""),
        ))
    }

    pub fn symbol_by_key(&self, key: &StableKey) -> Option<SymbolView<'_>> {
        (0..self.pages.len()).find_map(|page| self.symbol_in_page(page, key))
    }

    fn symbol_in_page(&self, page: usize, key: &StableKey) -> Option<SymbolView<'_>> {
        let local = *self.pages[page]
            .lookup(SectionKind::KeyIndex, (&key.0, b""))
            .first()?;
        Some(SymbolView::new(self.row(
            Table::Symbols,
            page,
            local as usize,
        )))
    }

    pub fn file_by_path(&self, repository: &str, path: &str) -> Option<FileView<'_>> {
        self.lookup(
            Table::Files,
            SectionKind::FilePathIndex,
            (repository.as_bytes(), path.as_bytes()),
        )
        .first()
        .copied()
        .map(FileView::new)
    }

    fn edges_of(&self, page: usize, locals: impl Iterator<Item = u32>) -> Vec<EdgeView<'_>> {
        locals
            .map(|local| EdgeView::new(self.row(Table::Edges, page, local as usize)))
            .collect()
    }

    /// Edges whose source is symbol `symbol`, in edge order.
    pub fn outgoing(&self, symbol: usize) -> impl Iterator<Item = EdgeView<'_>> {
        self.across_pages(
            Table::Symbols,
            symbol,
            (SectionKind::ForwardOffsets, SectionKind::ForwardEdges),
            (
                SectionKind::ExternalSourceOffsets,
                SectionKind::ExternalSourceEdges,
            ),
        )
        .into_iter()
    }

    /// Edges whose target is symbol `symbol`, in edge order.
    pub fn incoming(&self, symbol: usize) -> impl Iterator<Item = EdgeView<'_>> {
        self.across_pages(
            Table::Symbols,
            symbol,
            (SectionKind::ReverseOffsets, SectionKind::ReverseEdges),
            (SectionKind::ExternalOffsets, SectionKind::ExternalEdges),
        )
        .into_iter()
    }

    /// Edges whose target is package `package`: who depends on it, in edge order.
    pub fn package_incoming(&self, package: usize) -> impl Iterator<Item = EdgeView<'_>> {
        self.across_pages(
            Table::Packages,
            package,
            (
                SectionKind::PackageReverseOffsets,
                SectionKind::PackageReverseEdges,
            ),
            (SectionKind::ExternalOffsets, SectionKind::ExternalEdges),
        )
        .into_iter()
    }

    /// The edges of every page that start (or end, as the adjacencies say) at row `index`
    /// of `table`: its own page's by `own`, the others' by its key among their external
    /// nodes and `external`.
    fn across_pages(
        &self,
        table: Table,
        index: usize,
        own: (SectionKind, SectionKind),
        external: (SectionKind, SectionKind),
    ) -> Vec<EdgeView<'_>> {
        let Some((home, local)) = self.locate(table, index) else {
            return Vec::new();
        };
        let key = StableKey(read_key(
            self.pages[home].record(TABLES[table as usize], local),
            0,
        ));
        let mut edges = Vec::new();
        let mut pages = 0;
        for (p, page) in self.pages.iter().enumerate() {
            let before = edges.len();
            if p == home {
                edges.extend(self.edges_of(p, page.adjacent(own.0, own.1, local)));
            } else if let Some(row) = page.external_row(&key) {
                edges.extend(self.edges_of(p, page.adjacent(external.0, external.1, row)));
            }
            pages += usize::from(edges.len() > before);
        }
        // Each page lists its edges in the fact set's order: edges from several pages are
        // merged into it, so that an answer does not depend on which page an edge sits on.
        if pages > 1 {
            edges.sort_by_cached_key(EdgeView::canonical_key);
        }
        edges
    }

    /// Unresolved rows whose requested symbol's last segment is `name`
    /// ([`requested_name`](crate::format::requested_name)), page by page in table order.
    pub fn unresolved_requesting(&self, name: &str) -> Vec<UnresolvedView<'_>> {
        self.unresolved_rows(|page| page.unresolved_requesting(name))
    }

    /// The unresolved rows recorded in one file of one repository, in table order (one
    /// page holds a file and its rows).
    pub fn unresolved_in_file(&self, repository: &str, path: &str) -> Vec<UnresolvedView<'_>> {
        let mut rows = self.unresolved_rows(|page| {
            page.lookup(
                SectionKind::UnresolvedFileIndex,
                (repository.as_bytes(), path.as_bytes()),
            )
        });
        rows.sort_unstable_by_key(|row| row.index);
        rows
    }

    /// The unresolved rows that describe unreadable scopes ([`is_scope_row`]), page by page
    /// in table order; only one repository's when `repository` names it.
    pub fn unresolved_scopes(
        &self,
        repository: Option<&str>,
    ) -> impl Iterator<Item = UnresolvedView<'_>> {
        self.unresolved_rows(|page| page.unresolved_scopes(repository))
            .into_iter()
    }

    /// The unresolved rows each page's `rows` names, page by page.
    fn unresolved_rows(&self, rows: impl Fn(&Page) -> Vec<u32>) -> Vec<UnresolvedView<'_>> {
        let mut found: Vec<UnresolvedView<'_>> = Vec::new();
        for (p, page) in self.pages.iter().enumerate() {
            found.extend(
                rows(page).into_iter().map(|local| {
                    UnresolvedView::new(self.row(Table::Unresolved, p, local as usize))
                }),
            );
        }
        found
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

    pub fn repository_named(&self, name: &str) -> Option<RepositoryView<'_>> {
        self.repositories().find(|r| r.name() == name)
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
            .find_map(|page| {
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
                            page.str_at(page.record(SectionKind::Symbols, row), 48)
                        }
                        ExternalTable::Package | ExternalTable::File => "",
                    };
                    Some(ExternalNode {
                        table,
                        page: number,
                        name,
                    })
                })
            })
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
    fn external(&self, page: usize, row: usize) -> NodeRef {
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

/// The row of `page`'s table `table` whose key is `key`, by that table's key index.
fn keyed_row(page: &Page, table: ExternalTable, key: &StableKey) -> Option<usize> {
    let index = match table {
        ExternalTable::Package => SectionKind::PackageKeyIndex,
        ExternalTable::File => SectionKind::FileKeyIndex,
        ExternalTable::Symbol => SectionKind::KeyIndex,
    };
    page.lookup(index, (&key.0, b""))
        .first()
        .map(|row| *row as usize)
}

/// `Edge`'s order: kind, source key, target key, confidence, provenance, observation key.
type EdgeOrder = (u8, [u8; 32], [u8; 32], u8, u8, Option<[u8; 32]>);

/// `symbols` in the fact set's order (repository, package, file, position, key), which is
/// each page's table order, merged.
fn canonical_symbols(rows: Vec<Row<'_>>) -> Vec<SymbolView<'_>> {
    let mut symbols: Vec<SymbolView<'_>> = rows.into_iter().map(SymbolView::new).collect();
    if symbols.windows(2).any(|w| w[0].row.page != w[1].row.page) {
        symbols.sort_by_cached_key(|s| {
            let span = s.span();
            (
                s.file().repository().index,
                s.package().key(),
                s.file().path(),
                span.start_byte,
                span.end_byte,
                s.key(),
            )
        });
    }
    symbols
}

/// A row of a paged table: its page, its row there, and its number in the graph.
#[derive(Clone, Copy)]
struct Row<'a> {
    snapshot: &'a Snapshot,
    page: u32,
    local: u32,
    index: usize,
}

impl<'a> Row<'a> {
    fn page(&self) -> &'a Page {
        &self.snapshot.pages[self.page as usize]
    }
    fn record(&self, kind: SectionKind) -> &'a [u8] {
        self.page().record(kind, self.local as usize)
    }
    fn str_at(&self, kind: SectionKind, at: usize) -> &'a str {
        self.page().str_at(self.record(kind), at)
    }
    /// Row `local` of `table` in the same page.
    fn sibling(&self, table: Table, local: u32) -> Row<'a> {
        self.snapshot.row(table, self.page as usize, local as usize)
    }
}

#[derive(Clone, Copy)]
pub struct RepositoryView<'a> {
    snapshot: &'a Snapshot,
    pub index: usize,
}

impl<'a> RepositoryView<'a> {
    fn record(&self) -> &'a [u8] {
        self.snapshot.pages[0].record(SectionKind::Repositories, self.index)
    }
    pub fn name(&self) -> &'a str {
        self.snapshot.pages[0].str_at(self.record(), 0)
    }
    pub fn root(&self) -> &'a str {
        self.snapshot.pages[0].str_at(self.record(), 8)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), 16))
    }
    pub fn languages(&self) -> Vec<Language> {
        let mask = read_u32(self.record(), 48);
        Language::ALL
            .iter()
            .copied()
            .filter(|l| mask & (1 << l.code()) != 0)
            .collect()
    }
    /// The repository's files, page by page.
    pub fn files(&self) -> impl Iterator<Item = FileView<'a>> + use<'a> {
        let (snapshot, index) = (self.snapshot, self.index);
        (0..snapshot.pages.len()).flat_map(move |page| {
            let record = snapshot.pages[page].record(SectionKind::Repositories, index);
            let (start, count) = (read_u32(record, 52) as usize, read_u32(record, 56) as usize);
            (start..start + count)
                .map(move |local| FileView::new(snapshot.row(Table::Files, page, local)))
        })
    }
}

#[derive(Clone, Copy)]
pub struct PackageView<'a> {
    row: Row<'a>,
    pub index: usize,
}

impl<'a> PackageView<'a> {
    fn new(row: Row<'a>) -> Self {
        PackageView {
            index: row.index,
            row,
        }
    }
    fn record(&self) -> &'a [u8] {
        self.row.record(SectionKind::Packages)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), 0))
    }
    pub fn repository(&self) -> RepositoryView<'a> {
        RepositoryView {
            snapshot: self.row.snapshot,
            index: read_u32(self.record(), 32) as usize,
        }
    }
    pub fn language(&self) -> Language {
        Language::from_code(self.record().get(36).copied().unwrap_or(0)).unwrap_or(Language::Go)
    }
    pub fn name(&self) -> &'a str {
        self.row.str_at(SectionKind::Packages, 40)
    }
    pub fn path(&self) -> &'a str {
        self.row.str_at(SectionKind::Packages, 48)
    }
}

#[derive(Clone, Copy)]
pub struct FileView<'a> {
    row: Row<'a>,
    pub index: usize,
}

impl<'a> FileView<'a> {
    fn new(row: Row<'a>) -> Self {
        FileView {
            index: row.index,
            row,
        }
    }
    fn record(&self) -> &'a [u8] {
        self.row.record(SectionKind::Files)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), 0))
    }
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint(read_key(self.record(), 32))
    }
    pub fn repository(&self) -> RepositoryView<'a> {
        RepositoryView {
            snapshot: self.row.snapshot,
            index: read_u32(self.record(), 64) as usize,
        }
    }
    pub fn package(&self) -> PackageView<'a> {
        PackageView::new(
            self.row
                .sibling(Table::Packages, read_u32(self.record(), 68)),
        )
    }
    pub fn path(&self) -> &'a str {
        self.row.str_at(SectionKind::Files, 72)
    }
    pub fn language(&self) -> Language {
        Language::from_code(self.record().get(80).copied().unwrap_or(0)).unwrap_or(Language::Go)
    }
    pub fn line_count(&self) -> u32 {
        read_u32(self.record(), 84)
    }
    pub fn byte_len(&self) -> u64 {
        read_u64(self.record(), 88)
    }
    pub fn parse_issue_count(&self) -> u32 {
        read_u32(self.record(), 104)
    }
    /// The file's declarations in source order.
    pub fn symbols(&self) -> impl Iterator<Item = SymbolView<'a>> + use<'a> {
        let start = read_u32(self.record(), 96);
        let count = read_u32(self.record(), 100);
        let row = self.row;
        (start..start + count).map(move |local| SymbolView::new(row.sibling(Table::Symbols, local)))
    }
}

#[derive(Clone, Copy)]
pub struct SymbolView<'a> {
    row: Row<'a>,
    pub index: usize,
}

impl<'a> SymbolView<'a> {
    fn new(row: Row<'a>) -> Self {
        SymbolView {
            index: row.index,
            row,
        }
    }
    fn record(&self) -> &'a [u8] {
        self.row.record(SectionKind::Symbols)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), 0))
    }
    pub fn file(&self) -> FileView<'a> {
        FileView::new(self.row.sibling(Table::Files, read_u32(self.record(), 32)))
    }
    pub fn package(&self) -> PackageView<'a> {
        PackageView::new(
            self.row
                .sibling(Table::Packages, read_u32(self.record(), 36)),
        )
    }
    pub fn parent(&self) -> Option<SymbolView<'a>> {
        let parent = read_u32(self.record(), 40);
        (parent != NONE).then(|| SymbolView::new(self.row.sibling(Table::Symbols, parent)))
    }
    pub fn kind(&self) -> SymbolKind {
        SymbolKind::from_code(self.record().get(44).copied().unwrap_or(0))
            .unwrap_or(SymbolKind::Var)
    }
    pub fn language(&self) -> Language {
        Language::from_code(self.record().get(45).copied().unwrap_or(0)).unwrap_or(Language::Go)
    }
    pub fn exported(&self) -> bool {
        self.record()
            .get(46)
            .is_some_and(|f| f & FLAG_EXPORTED != 0)
    }
    pub fn name(&self) -> &'a str {
        self.row.str_at(SectionKind::Symbols, 48)
    }
    pub fn qualified_name(&self) -> &'a str {
        self.row.str_at(SectionKind::Symbols, 56)
    }
    pub fn signature(&self) -> &'a str {
        self.row.str_at(SectionKind::Symbols, 64)
    }
    pub fn doc(&self) -> Option<&'a str> {
        let has_doc = self.record().get(46).is_some_and(|f| f & FLAG_HAS_DOC != 0);
        has_doc.then(|| self.row.str_at(SectionKind::Symbols, 72))
    }
    /// The `module` field of this symbol's key identity ("" when it has none).
    pub fn key_module(&self) -> &'a str {
        self.row.str_at(SectionKind::Symbols, 80)
    }
    /// The `discriminator` field of this symbol's key identity.
    pub fn key_discriminator(&self) -> &'a str {
        self.row.str_at(SectionKind::Symbols, 88)
    }
    pub fn span(&self) -> LineSpan {
        let r = self.record();
        LineSpan {
            start_line: read_u32(r, 96),
            end_line: read_u32(r, 100),
            start_byte: read_u32(r, 104),
            end_byte: read_u32(r, 108),
        }
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

#[derive(Clone, Copy)]
pub struct EdgeView<'a> {
    row: Row<'a>,
    pub index: usize,
}

impl<'a> EdgeView<'a> {
    fn new(row: Row<'a>) -> Self {
        EdgeView {
            index: row.index,
            row,
        }
    }
    fn record(&self) -> &'a [u8] {
        self.row.record(SectionKind::Edges)
    }
    pub fn kind(&self) -> EdgeKind {
        EdgeKind::from_code(self.record().first().copied().unwrap_or(0))
            .unwrap_or(EdgeKind::References)
    }
    pub fn confidence(&self) -> Confidence {
        Confidence::from_code(self.record().get(1).copied().unwrap_or(0))
            .unwrap_or(Confidence::Unresolved)
    }
    pub fn provenance(&self) -> Provenance {
        Provenance::from_code(self.record().get(2).copied().unwrap_or(0))
            .unwrap_or(Provenance::TreeSitterSyntax)
    }
    fn node(&self, table_at: usize, index_at: usize) -> NodeRef {
        let local = read_u32(self.record(), index_at) as usize;
        let (snapshot, page) = (self.row.snapshot, self.row.page as usize);
        match self.record().get(table_at).copied().unwrap_or(0) {
            TABLE_REPOSITORY => NodeRef::Repository(local),
            TABLE_PACKAGE => NodeRef::Package(snapshot.global(Table::Packages, page, local)),
            TABLE_FILE => NodeRef::File(snapshot.global(Table::Files, page, local)),
            TABLE_EVIDENCE => NodeRef::Evidence(snapshot.global(Table::Evidence, page, local)),
            TABLE_EXTERNAL => snapshot.external(page, local),
            _ => NodeRef::Symbol(snapshot.global(Table::Symbols, page, local)),
        }
    }
    pub fn source(&self) -> NodeRef {
        self.node(3, 8)
    }
    /// Where the relation was observed, when it was.
    pub fn evidence(&self) -> Option<EvidenceView<'a>> {
        let local = read_u32(self.record(), 16);
        (local != NONE).then(|| EvidenceView::new(self.row.sibling(Table::Evidence, local)))
    }
    pub fn target(&self) -> NodeRef {
        self.node(4, 12)
    }

    /// The key of the node an endpoint names (`table_at`, `index_at`: where the endpoint's
    /// table and row sit in the record).
    fn endpoint_key(&self, table_at: usize, index_at: usize) -> [u8; 32] {
        let local = read_u32(self.record(), index_at) as usize;
        let page = self.row.page();
        let key_of = |kind: SectionKind, at: usize| read_key(page.record(kind, local), at);
        match self.record().get(table_at).copied().unwrap_or(0) {
            TABLE_REPOSITORY => key_of(SectionKind::Repositories, 16),
            TABLE_PACKAGE => key_of(SectionKind::Packages, 0),
            TABLE_FILE => key_of(SectionKind::Files, 0),
            TABLE_EVIDENCE => key_of(SectionKind::Evidence, 0),
            TABLE_EXTERNAL => page.external_node(local).0.0,
            _ => key_of(SectionKind::Symbols, 0),
        }
    }

    /// Where the edge sorts in the fact set.
    fn canonical_key(&self) -> EdgeOrder {
        let record = self.record();
        let code = |at: usize| record.get(at).copied().unwrap_or(0);
        (
            code(0),
            self.endpoint_key(3, 8),
            self.endpoint_key(4, 12),
            code(1),
            code(2),
            self.evidence().map(|e| e.key().0),
        )
    }
}

/// One observation: a span of a file.
#[derive(Clone, Copy)]
pub struct EvidenceView<'a> {
    row: Row<'a>,
    pub index: usize,
}

impl<'a> EvidenceView<'a> {
    fn new(row: Row<'a>) -> Self {
        EvidenceView {
            index: row.index,
            row,
        }
    }
    fn record(&self) -> &'a [u8] {
        self.row.record(SectionKind::Evidence)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), 0))
    }
    /// The file observed: in the edge's page, or (a Go test package's observation of the
    /// package it tests, say) in another, found by repository and path.
    pub fn file(&self) -> Option<FileView<'a>> {
        let file = read_u32(self.record(), 36);
        if file & EXTERNAL_FILE == 0 {
            return Some(FileView::new(self.row.sibling(Table::Files, file)));
        }
        let page = self.row.page();
        let row = page.record(SectionKind::ExternalFiles, (file & !EXTERNAL_FILE) as usize);
        let repository = page.repository_name(read_u32(row, 0));
        self.row
            .snapshot
            .file_by_path(repository, page.str_at(row, 8))
    }
    pub fn lines(&self) -> (u32, u32) {
        (read_u32(self.record(), 40), read_u32(self.record(), 44))
    }
}

#[derive(Clone, Copy)]
pub struct UnresolvedView<'a> {
    row: Row<'a>,
    pub index: usize,
}

impl<'a> UnresolvedView<'a> {
    fn new(row: Row<'a>) -> Self {
        UnresolvedView {
            index: row.index,
            row,
        }
    }
    fn local(&self) -> usize {
        self.row.local as usize
    }
    pub fn repository(&self) -> Option<RepositoryView<'a>> {
        self.row
            .snapshot
            .repository(self.row.page().unresolved_repository(self.local()) as usize)
    }
    pub fn language(&self) -> Language {
        Language::from_code(
            self.row
                .record(SectionKind::Unresolved)
                .get(4)
                .copied()
                .unwrap_or(0),
        )
        .unwrap_or(Language::Go)
    }
    pub fn reason(&self) -> &'a str {
        self.row.page().unresolved_reason(self.local())
    }
    pub fn file_path(&self) -> Option<&'a str> {
        self.row.page().unresolved_file_path(self.local())
    }
    pub fn requested_symbol(&self) -> Option<&'a str> {
        self.row.page().unresolved_requested_symbol(self.local())
    }
    pub fn requested_package(&self) -> Option<&'a str> {
        self.row.page().unresolved_requested_package(self.local())
    }
    pub fn detail(&self) -> &'a str {
        self.row.page().unresolved_str(self.local(), 40)
    }
    pub fn lines(&self) -> Option<(u32, u32)> {
        self.row.page().unresolved_lines(self.local())
    }
}
