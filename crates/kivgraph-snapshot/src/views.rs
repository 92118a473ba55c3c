//! A row of the graph read through its record's layout (`crate::fields`): a repository,
//! package, file, declaration, edge, observation or failure, and the rows it points at.

use kivgraph_facts::{
    Confidence, EdgeKind, Fingerprint, Language, LineSpan, Provenance, StableKey, SymbolKind,
};

use crate::bytes::{read_key, read_u8, read_u32, read_u64};
use crate::fields::{edge, evidence, external_file, file, package, repository, symbol, unresolved};
use crate::format::*;
use crate::snapshot::{NodeRef, Row, Snapshot, Table};

/// `Edge`'s order: kind, source key, target key, confidence, provenance, observation key.
type EdgeOrder = (u8, [u8; 32], [u8; 32], u8, u8, Option<[u8; 32]>);

#[derive(Clone, Copy)]
pub struct RepositoryView<'a> {
    pub(crate) snapshot: &'a Snapshot,
    pub index: usize,
}

impl<'a> RepositoryView<'a> {
    /// Repository row `index`, if there is one.
    pub(crate) fn at(snapshot: &'a Snapshot, index: usize) -> Option<Self> {
        (index < snapshot.repository_count()).then_some(RepositoryView { snapshot, index })
    }
    fn record(&self) -> &'a [u8] {
        self.snapshot.pages[0].record(SectionKind::Repositories, self.index)
    }
    pub fn name(&self) -> &'a str {
        self.snapshot.pages[0].str_at(self.record(), repository::NAME)
    }
    pub fn root(&self) -> &'a str {
        self.snapshot.pages[0].str_at(self.record(), repository::ROOT)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), repository::KEY))
    }
    pub fn languages(&self) -> Vec<Language> {
        let mask = read_u32(self.record(), repository::LANGUAGES);
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
            let start = read_u32(record, repository::FILE_START) as usize;
            let count = read_u32(record, repository::FILE_COUNT) as usize;
            (start..start + count)
                .map(move |local| FileView::new(snapshot.row(Table::Files, page, local)))
        })
    }
}

#[derive(Clone, Copy)]
pub struct PackageView<'a> {
    pub(crate) row: Row<'a>,
    pub index: usize,
}

impl<'a> PackageView<'a> {
    pub(crate) fn new(row: Row<'a>) -> Self {
        PackageView {
            index: row.index,
            row,
        }
    }
    fn record(&self) -> &'a [u8] {
        self.row.record(SectionKind::Packages)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), package::KEY))
    }
    pub fn repository(&self) -> RepositoryView<'a> {
        RepositoryView {
            snapshot: self.row.snapshot,
            index: read_u32(self.record(), package::REPOSITORY) as usize,
        }
    }
    pub fn language(&self) -> Language {
        Language::from_code(read_u8(self.record(), package::LANGUAGE)).unwrap_or(Language::Go)
    }
    pub fn name(&self) -> &'a str {
        self.row.str_at(SectionKind::Packages, package::NAME)
    }
    pub fn path(&self) -> &'a str {
        self.row.str_at(SectionKind::Packages, package::PATH)
    }
}

#[derive(Clone, Copy)]
pub struct FileView<'a> {
    pub(crate) row: Row<'a>,
    pub index: usize,
}

impl<'a> FileView<'a> {
    pub(crate) fn new(row: Row<'a>) -> Self {
        FileView {
            index: row.index,
            row,
        }
    }
    fn record(&self) -> &'a [u8] {
        self.row.record(SectionKind::Files)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), file::KEY))
    }
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint(read_key(self.record(), file::FINGERPRINT))
    }
    pub fn repository(&self) -> RepositoryView<'a> {
        RepositoryView {
            snapshot: self.row.snapshot,
            index: read_u32(self.record(), file::REPOSITORY) as usize,
        }
    }
    pub fn package(&self) -> PackageView<'a> {
        PackageView::new(
            self.row
                .sibling(Table::Packages, read_u32(self.record(), file::PACKAGE)),
        )
    }
    pub fn path(&self) -> &'a str {
        self.row.str_at(SectionKind::Files, file::PATH)
    }
    pub fn language(&self) -> Language {
        Language::from_code(read_u8(self.record(), file::LANGUAGE)).unwrap_or(Language::Go)
    }
    pub fn line_count(&self) -> u32 {
        read_u32(self.record(), file::LINE_COUNT)
    }
    pub fn byte_len(&self) -> u64 {
        read_u64(self.record(), file::BYTE_LEN)
    }
    pub fn parse_issue_count(&self) -> u32 {
        read_u32(self.record(), file::PARSE_ISSUES)
    }
    /// The file's declarations in source order.
    pub fn symbols(&self) -> impl Iterator<Item = SymbolView<'a>> + use<'a> {
        let start = read_u32(self.record(), file::SYMBOL_START);
        let count = read_u32(self.record(), file::SYMBOL_COUNT);
        let row = self.row;
        (start..start + count).map(move |local| SymbolView::new(row.sibling(Table::Symbols, local)))
    }
}

#[derive(Clone, Copy)]
pub struct SymbolView<'a> {
    pub(crate) row: Row<'a>,
    pub index: usize,
}

impl<'a> SymbolView<'a> {
    pub(crate) fn new(row: Row<'a>) -> Self {
        SymbolView {
            index: row.index,
            row,
        }
    }
    fn record(&self) -> &'a [u8] {
        self.row.record(SectionKind::Symbols)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), symbol::KEY))
    }
    pub fn file(&self) -> FileView<'a> {
        FileView::new(
            self.row
                .sibling(Table::Files, read_u32(self.record(), symbol::FILE)),
        )
    }
    pub fn package(&self) -> PackageView<'a> {
        PackageView::new(
            self.row
                .sibling(Table::Packages, read_u32(self.record(), symbol::PACKAGE)),
        )
    }
    pub fn parent(&self) -> Option<SymbolView<'a>> {
        let parent = read_u32(self.record(), symbol::PARENT);
        (parent != NONE).then(|| SymbolView::new(self.row.sibling(Table::Symbols, parent)))
    }
    pub fn kind(&self) -> SymbolKind {
        SymbolKind::from_code(read_u8(self.record(), symbol::KIND)).unwrap_or(SymbolKind::Var)
    }
    pub fn language(&self) -> Language {
        Language::from_code(read_u8(self.record(), symbol::LANGUAGE)).unwrap_or(Language::Go)
    }
    pub fn exported(&self) -> bool {
        read_u8(self.record(), symbol::FLAGS) & symbol::FLAG_EXPORTED != 0
    }
    pub fn name(&self) -> &'a str {
        self.row.str_at(SectionKind::Symbols, symbol::NAME)
    }
    pub fn qualified_name(&self) -> &'a str {
        self.row
            .str_at(SectionKind::Symbols, symbol::QUALIFIED_NAME)
    }
    pub fn signature(&self) -> &'a str {
        self.row.str_at(SectionKind::Symbols, symbol::SIGNATURE)
    }
    pub fn doc(&self) -> Option<&'a str> {
        let has_doc = read_u8(self.record(), symbol::FLAGS) & symbol::FLAG_HAS_DOC != 0;
        has_doc.then(|| self.row.str_at(SectionKind::Symbols, symbol::DOC))
    }
    /// The `module` field of this symbol's key identity ("" when it has none).
    pub fn key_module(&self) -> &'a str {
        self.row.str_at(SectionKind::Symbols, symbol::KEY_MODULE)
    }
    /// The `discriminator` field of this symbol's key identity.
    pub fn key_discriminator(&self) -> &'a str {
        self.row
            .str_at(SectionKind::Symbols, symbol::KEY_DISCRIMINATOR)
    }
    pub fn span(&self) -> LineSpan {
        let r = self.record();
        LineSpan {
            start_line: read_u32(r, symbol::START_LINE),
            end_line: read_u32(r, symbol::END_LINE),
            start_byte: read_u32(r, symbol::START_BYTE),
            end_byte: read_u32(r, symbol::END_BYTE),
        }
    }
}

#[derive(Clone, Copy)]
pub struct EdgeView<'a> {
    pub(crate) row: Row<'a>,
    pub index: usize,
}

impl<'a> EdgeView<'a> {
    pub(crate) fn new(row: Row<'a>) -> Self {
        EdgeView {
            index: row.index,
            row,
        }
    }
    fn record(&self) -> &'a [u8] {
        self.row.record(SectionKind::Edges)
    }
    pub fn kind(&self) -> EdgeKind {
        EdgeKind::from_code(read_u8(self.record(), edge::KIND)).unwrap_or(EdgeKind::References)
    }
    pub fn confidence(&self) -> Confidence {
        Confidence::from_code(read_u8(self.record(), edge::CONFIDENCE))
            .unwrap_or(Confidence::Unresolved)
    }
    pub fn provenance(&self) -> Provenance {
        Provenance::from_code(read_u8(self.record(), edge::PROVENANCE))
            .unwrap_or(Provenance::TreeSitterSyntax)
    }
    fn node(&self, end: edge::Endpoint) -> NodeRef {
        let local = read_u32(self.record(), end.row) as usize;
        let (snapshot, page) = (self.row.snapshot, self.row.page as usize);
        match read_u8(self.record(), end.table) {
            TABLE_REPOSITORY => NodeRef::Repository(local),
            TABLE_PACKAGE => NodeRef::Package(snapshot.global(Table::Packages, page, local)),
            TABLE_FILE => NodeRef::File(snapshot.global(Table::Files, page, local)),
            TABLE_EVIDENCE => NodeRef::Evidence(snapshot.global(Table::Evidence, page, local)),
            TABLE_EXTERNAL => snapshot.external(page, local),
            _ => NodeRef::Symbol(snapshot.global(Table::Symbols, page, local)),
        }
    }
    pub fn source(&self) -> NodeRef {
        self.node(edge::FROM)
    }
    /// Where the relation was observed, when it was.
    pub fn evidence(&self) -> Option<EvidenceView<'a>> {
        let local = read_u32(self.record(), edge::EVIDENCE);
        (local != NONE).then(|| EvidenceView::new(self.row.sibling(Table::Evidence, local)))
    }
    pub fn target(&self) -> NodeRef {
        self.node(edge::TO)
    }

    /// The key of the node an endpoint names.
    fn endpoint_key(&self, end: edge::Endpoint) -> [u8; 32] {
        let local = read_u32(self.record(), end.row) as usize;
        let page = self.row.page();
        let key_of = |kind: SectionKind, at: usize| read_key(page.record(kind, local), at);
        match read_u8(self.record(), end.table) {
            TABLE_REPOSITORY => key_of(SectionKind::Repositories, repository::KEY),
            TABLE_PACKAGE => key_of(SectionKind::Packages, package::KEY),
            TABLE_FILE => key_of(SectionKind::Files, file::KEY),
            TABLE_EVIDENCE => key_of(SectionKind::Evidence, evidence::KEY),
            TABLE_EXTERNAL => page.external_node(local).0.0,
            _ => key_of(SectionKind::Symbols, symbol::KEY),
        }
    }

    /// Where the edge sorts in the fact set.
    pub(crate) fn canonical_key(&self) -> EdgeOrder {
        let code = |at: usize| read_u8(self.record(), at);
        (
            code(edge::KIND),
            self.endpoint_key(edge::FROM),
            self.endpoint_key(edge::TO),
            code(edge::CONFIDENCE),
            code(edge::PROVENANCE),
            self.evidence().map(|e| e.key().0),
        )
    }
}

/// One observation: a span of a file.
#[derive(Clone, Copy)]
pub struct EvidenceView<'a> {
    pub(crate) row: Row<'a>,
    pub index: usize,
}

impl<'a> EvidenceView<'a> {
    pub(crate) fn new(row: Row<'a>) -> Self {
        EvidenceView {
            index: row.index,
            row,
        }
    }
    fn record(&self) -> &'a [u8] {
        self.row.record(SectionKind::Evidence)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), evidence::KEY))
    }
    /// The file observed: in the edge's page, or (a Go test package's observation of the
    /// package it tests, say) in another, found by repository and path.
    pub fn file(&self) -> Option<FileView<'a>> {
        let file = read_u32(self.record(), evidence::FILE);
        if file & evidence::EXTERNAL_FILE == 0 {
            return Some(FileView::new(self.row.sibling(Table::Files, file)));
        }
        let page = self.row.page();
        let row = page.record(
            SectionKind::ExternalFiles,
            (file & !evidence::EXTERNAL_FILE) as usize,
        );
        let repository = page.repository_name(read_u32(row, external_file::REPOSITORY));
        let path = page.str_at(row, external_file::PATH);
        self.row
            .snapshot
            .file_row(repository, path)
            .map(FileView::new)
    }
    pub fn lines(&self) -> (u32, u32) {
        (
            read_u32(self.record(), evidence::START_LINE),
            read_u32(self.record(), evidence::END_LINE),
        )
    }
}

#[derive(Clone, Copy)]
pub struct UnresolvedView<'a> {
    pub(crate) row: Row<'a>,
    pub index: usize,
}

impl<'a> UnresolvedView<'a> {
    pub(crate) fn new(row: Row<'a>) -> Self {
        UnresolvedView {
            index: row.index,
            row,
        }
    }
    fn local(&self) -> usize {
        self.row.local as usize
    }
    pub fn repository(&self) -> Option<RepositoryView<'a>> {
        let row = self.row.page().unresolved_repository(self.local());
        RepositoryView::at(self.row.snapshot, row as usize)
    }
    pub fn language(&self) -> Language {
        Language::from_code(read_u8(
            self.row.record(SectionKind::Unresolved),
            unresolved::LANGUAGE,
        ))
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
        self.row
            .page()
            .unresolved_str(self.local(), unresolved::DETAIL)
    }
    pub fn lines(&self) -> Option<(u32, u32)> {
        self.row.page().unresolved_lines(self.local())
    }
}
