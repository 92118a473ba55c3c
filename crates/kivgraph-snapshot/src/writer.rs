//! Lays a page's canonical `FactSet` out in the snapshot format, and a root over pages: the
//! order of the tables and of the string arena's entries, the section directory and the
//! header. Each table's records are laid out by its module in `crate::tables`.

use kivgraph_facts::FactSet;

use crate::bytes::{Fields, Out};
use crate::error::WriteError;
use crate::fields::{directory_entry, header, root_entry};
use crate::format::*;
use crate::tables::external::{Endpoints, Externals, external_files};
use crate::tables::{
    Arena, Positions, adjacency, edge, evidence, external, file, index, mentions, package,
    repository, requested, row_number, symbol, term_index, unresolved,
};

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

/// Lays out page `number` over `facts` (canonical, and only this page's packages with their
/// rows, and every repository); `external` says where the nodes its edges reach in other
/// pages live.
pub fn write_page<'a>(
    number: u32,
    facts: &'a FactSet,
    external: &Externals<'a>,
) -> Result<PageFile, WriteError> {
    let positions = Positions::of(facts)?;
    // Tables that hold strings are written in this order, which fixes the string section.
    let mut arena = Arena::default();
    let repositories = repository::write(facts, &positions, &mut arena)?;
    let packages = package::write(facts, &positions, &mut arena)?;
    let files = file::write(facts, &positions, &mut arena)?;
    let symbols = symbol::write(facts, &positions, &mut arena)?;
    let endpoints = Endpoints::of(facts, &positions, external)?;
    let edges = edge::write(facts, &positions, &endpoints)?;
    let (external_nodes, external_filter) = endpoints.write();
    let unresolved = unresolved::write(facts, &positions, &mut arena)?;
    let external_files = external_files(facts, &positions);
    let evidence = evidence::write(facts, &positions, &external_files)?;

    let symbol_rows = facts.symbols.len();
    let name_index = index::write(symbol_rows, |i| (facts.symbols[i].name.as_bytes(), b""));
    let qualified_index = index::write(symbol_rows, |i| {
        (facts.symbols[i].qualified_name.as_bytes(), b"")
    });
    let key_index = index::write(symbol_rows, |i| (&facts.symbols[i].key.0, b""));
    let path_index = index::write(facts.files.len(), |i| {
        (
            facts.files[i].repository.as_bytes(),
            facts.files[i].path.as_bytes(),
        )
    });
    let (forward_offsets, forward_edges) = adjacency::write(symbol_rows, &facts.edges, |e| {
        positions.symbols.get(&e.source)
    });
    let (reverse_offsets, reverse_edges) = adjacency::write(symbol_rows, &facts.edges, |e| {
        positions.symbols.get(&e.target)
    });
    let (package_offsets, package_edges) =
        adjacency::write(facts.packages.len(), &facts.edges, |e| {
            positions.packages.get(&e.target)
        });
    let externals = endpoints.external_count();
    let (external_offsets, external_edges) = adjacency::write(externals, &facts.edges, |e| {
        endpoints.external_row(&e.target)
    });
    let (external_source_offsets, external_source_edges) =
        adjacency::write(externals, &facts.edges, |e| {
            endpoints.external_row(&e.source)
        });
    let package_key_index = index::write(facts.packages.len(), |i| (&facts.packages[i].key.0, b""));
    let file_key_index = index::write(facts.files.len(), |i| (&facts.files[i].key.0, b""));
    let external_file_rows = external::write_files(&external_files, &mut arena)?;
    let (unresolved_name_index, requested_names) = requested::write(facts, &mut arena)?;
    let scope_index = requested::write_scopes(facts);
    // The two heaviest tables, one per core.
    let (mentions, term_table) = rayon::join(
        || mentions::write(facts, &mut arena, &positions, external),
        || term_index::postings(facts, &positions.symbol_files),
    );
    let (mention_names, mention_entries) = mentions?;
    let (term_names, term_postings) = term_index::write(&term_table, &mut arena)?;
    let unresolved_file_index = index::write(facts.unresolved.len(), |i| {
        let row = &facts.unresolved[i];
        (
            row.repository.as_bytes(),
            row.file_path.as_deref().unwrap_or("").as_bytes(),
        )
    });
    row_number(facts.symbols.len(), "symbols")?;
    row_number(facts.files.len(), "files")?;
    row_number(facts.edges.len(), "edges")?;

    let sections: Vec<(SectionKind, Out)> = vec![
        (SectionKind::Repositories, repositories),
        (SectionKind::Packages, packages),
        (SectionKind::Files, files),
        (SectionKind::Symbols, symbols),
        (SectionKind::NameIndex, name_index),
        (SectionKind::QualifiedNameIndex, qualified_index),
        (SectionKind::KeyIndex, key_index),
        (SectionKind::FilePathIndex, path_index),
        (SectionKind::Edges, edges),
        (SectionKind::Unresolved, unresolved),
        (SectionKind::Evidence, evidence),
        (SectionKind::ForwardOffsets, forward_offsets),
        (SectionKind::ForwardEdges, forward_edges),
        (SectionKind::ReverseOffsets, reverse_offsets),
        (SectionKind::ReverseEdges, reverse_edges),
        (SectionKind::PackageReverseOffsets, package_offsets),
        (SectionKind::PackageReverseEdges, package_edges),
        (SectionKind::UnresolvedNameIndex, unresolved_name_index),
        (SectionKind::MentionNames, mention_names),
        (SectionKind::MentionEntries, mention_entries),
        (SectionKind::UnresolvedScopeIndex, scope_index),
        (SectionKind::UnresolvedFileIndex, unresolved_file_index),
        (SectionKind::TermNames, term_names),
        (SectionKind::TermPostings, term_postings),
        (SectionKind::ExternalNodes, external_nodes),
        (SectionKind::ExternalOffsets, external_offsets),
        (SectionKind::ExternalEdges, external_edges),
        (SectionKind::ExternalSourceOffsets, external_source_offsets),
        (SectionKind::ExternalSourceEdges, external_source_edges),
        (SectionKind::RequestedNames, requested_names),
        (SectionKind::ExternalFilter, external_filter),
        (SectionKind::PackageKeyIndex, package_key_index),
        (SectionKind::FileKeyIndex, file_key_index),
        (SectionKind::ExternalFiles, external_file_rows),
        (SectionKind::Strings, Out(arena.bytes)),
    ];
    let payload = page_payload(&sections);
    let digest = *blake3::hash(&payload).as_bytes();
    let bytes = framed(
        PAGE_MAGIC,
        sections.len(),
        u64::from(number),
        &payload,
        &digest,
    );
    Ok(PageFile {
        number,
        digest,
        bytes,
    })
}

/// A page's payload: the section directory, then each section 8-byte aligned (offsets count
/// from the start of the file).
fn page_payload(sections: &[(SectionKind, Out)]) -> Vec<u8> {
    let directory_len = sections.len() * DIRECTORY_ENTRY_LEN;
    let mut offset = (HEADER_LEN + directory_len).next_multiple_of(ALIGN);
    let mut payload = Out::new(directory_len);
    for (kind, section) in sections {
        let length = section.0.len();
        payload.record(
            Fields::<DIRECTORY_ENTRY_LEN>::new()
                .u32(directory_entry::KIND, *kind as u32)
                .u32(directory_entry::ELEMENT_SIZE, kind.element_size() as u32)
                .u64(directory_entry::OFFSET, offset as u64)
                .u64(directory_entry::LENGTH, length as u64)
                .u64(
                    directory_entry::COUNT,
                    (length / kind.element_size()) as u64,
                ),
        );
        offset = (offset + length).next_multiple_of(ALIGN);
    }
    let mut payload = payload.0;
    for (_, section) in sections {
        let aligned = (HEADER_LEN + payload.len()).next_multiple_of(ALIGN) - HEADER_LEN;
        payload.resize(aligned, 0);
        payload.extend_from_slice(&section.0);
    }
    let aligned = (HEADER_LEN + payload.len()).next_multiple_of(ALIGN) - HEADER_LEN;
    payload.resize(aligned, 0);
    payload
}

/// A root's or a page's bytes: the header over `payload`, then `payload`.
fn framed(magic: &[u8; 8], count: usize, field: u64, payload: &[u8], digest: &[u8; 32]) -> Vec<u8> {
    let mut out = Out::new(HEADER_LEN + payload.len());
    out.record(
        Fields::<HEADER_LEN>::new()
            .bytes(header::MAGIC, magic)
            .u32(header::VERSION, FORMAT_VERSION)
            .u32(header::COUNT, count as u32)
            .u64(header::FIELD, field)
            .u64(header::PAYLOAD_LEN, payload.len() as u64)
            .key(header::DIGEST, digest),
    );
    out.bytes(payload);
    out.0
}

/// The root of generation `generation` over its pages, `(number, payload digest)` by
/// ascending number.
pub fn write_root(generation: u64, pages: &[(u32, [u8; 32])]) -> Vec<u8> {
    let mut payload = Out::new(pages.len() * ROOT_ENTRY_LEN);
    for (number, digest) in pages {
        payload.record(
            Fields::<ROOT_ENTRY_LEN>::new()
                .u32(root_entry::NUMBER, *number)
                .key(root_entry::DIGEST, digest),
        );
    }
    let digest = *blake3::hash(&payload.0).as_bytes();
    framed(MAGIC, pages.len(), generation, &payload.0, &digest)
}
