//! The graph's lookups: its rows as views, by position, name, qualified name, key and path,
//! the edges at a node across every page, and the failures by name, file and scope.

use kivgraph_facts::StableKey;

use crate::bytes::read_key;
use crate::format::*;
use crate::page::Page;
use crate::snapshot::{Row, Snapshot, TABLES, Table};
use crate::views::{EdgeView, FileView, PackageView, RepositoryView, SymbolView, UnresolvedView};

impl Snapshot {
    pub fn repository(&self, index: usize) -> Option<RepositoryView<'_>> {
        RepositoryView::at(self, index)
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
        self.file_row(repository, path).map(FileView::new)
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

    pub fn repository_named(&self, name: &str) -> Option<RepositoryView<'_>> {
        self.repositories().find(|r| r.name() == name)
    }
}

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
