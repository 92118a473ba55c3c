//! One page, validated and read in place.
//!
//! `Page::open` maps the file and checks everything once — magic, version, digest, section
//! bounds, alignment, overlaps, element sizes, every record's references and every index's
//! order. After that, accessors read little-endian fields out of the mapped bytes with
//! bounds-checked slices: no unchecked cast, no `unsafe` beyond the mapping itself, no panic.
//! Everything here speaks in the page's own row numbers; `crate::reader` composes pages.

use std::ops::Range;
use std::path::{Path, PathBuf};

use kivgraph_facts::{Confidence, EdgeKind, Language, Provenance, StableKey, SymbolKind};

use crate::format::*;
use crate::terms::TERM_IN_NAME;

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("cannot read snapshot {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("snapshot is {0} bytes, shorter than its header")]
    TooSmall(usize),
    #[error("not a kivgraph snapshot (bad magic)")]
    BadMagic,
    #[error("snapshot format version {0} is not supported by this build (reads {FORMAT_VERSION})")]
    UnsupportedVersion(u32),
    #[error(
        "snapshot is truncated or padded: header says {expected} payload bytes, file has {actual}"
    )]
    Truncated { expected: u64, actual: u64 },
    #[error("snapshot payload digest does not match its header: the file is corrupt")]
    DigestMismatch,
    #[error("snapshot section directory is invalid: {0}")]
    Directory(String),
    #[error("snapshot {table} record {index} is invalid: {reason}")]
    Record {
        table: &'static str,
        index: usize,
        reason: String,
    },
    #[error("snapshot root is invalid: {0}")]
    Root(String),
}

enum Backing {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

/// Where each section's elements are, by `SectionKind` code.
#[derive(Clone, Default)]
struct Section {
    range: Range<usize>,
    count: usize,
}

/// The name tables whose rows start runs of an entry table: see [`Page::run_end`].
const MENTIONS: (SectionKind, SectionKind) =
    (SectionKind::MentionNames, SectionKind::MentionEntries);
const TERMS: (SectionKind, SectionKind) = (SectionKind::TermNames, SectionKind::TermPostings);
const REQUESTED: (SectionKind, SectionKind) = (
    SectionKind::RequestedNames,
    SectionKind::UnresolvedNameIndex,
);

/// A validated, read-only page.
pub(crate) struct Page {
    backing: Backing,
    number: u64,
    digest: [u8; 32],
    sections: Vec<Section>,
}

pub(crate) fn read_u32(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .unwrap_or(0)
}

pub(crate) fn read_u64(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..at + 8)
        .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .unwrap_or(0)
}

pub(crate) fn read_key(bytes: &[u8], at: usize) -> [u8; 32] {
    let mut key = [0u8; 32];
    if let Some(slice) = bytes.get(at..at + 32) {
        key.copy_from_slice(slice);
    }
    key
}

/// What the 64-byte header of a root or a page says, once checked.
pub(crate) struct Header {
    /// Sections of a page, pages of a root.
    pub count: usize,
    /// A page's number, a root's generation.
    pub field: u64,
    pub digest: [u8; 32],
}

impl Header {
    /// Checks length, `magic`, version, payload length and payload digest.
    pub(crate) fn check(bytes: &[u8], magic: &[u8; 8]) -> Result<Header, SnapshotError> {
        if bytes.len() < HEADER_LEN {
            return Err(SnapshotError::TooSmall(bytes.len()));
        }
        if &bytes[..8] != magic {
            return Err(SnapshotError::BadMagic);
        }
        let version = read_u32(bytes, 8);
        if version != FORMAT_VERSION {
            return Err(SnapshotError::UnsupportedVersion(version));
        }
        let payload_len = read_u64(bytes, 24);
        let actual = (bytes.len() - HEADER_LEN) as u64;
        if payload_len != actual {
            return Err(SnapshotError::Truncated {
                expected: payload_len,
                actual,
            });
        }
        let digest = read_key(bytes, 32);
        if blake3::Hasher::new()
            .update_rayon(&bytes[HEADER_LEN..])
            .finalize()
            .as_bytes()
            != &digest
        {
            return Err(SnapshotError::DigestMismatch);
        }
        Ok(Header {
            count: read_u32(bytes, 12) as usize,
            field: read_u64(bytes, 16),
            digest,
        })
    }
}

impl Page {
    /// Maps `path` read-only and validates it.
    pub(crate) fn open(path: &Path) -> Result<Self, SnapshotError> {
        let io = |source| SnapshotError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        // SAFETY: the mapping is read-only and generations are immutable once published: the
        // store never rewrites a file in place (it writes a new generation directory), so the
        // bytes cannot change under the reader. Every byte is validated before use.
        // Every page is read by the validation below: populating the mapping in one call
        // costs far less than faulting the pages in one by one.
        let map = unsafe { memmap2::MmapOptions::new().populate().map(&file) }.map_err(io)?;
        Self::validate(Backing::Mapped(map))
    }

    /// Validates an in-memory page.
    pub(crate) fn from_bytes(bytes: Vec<u8>) -> Result<Self, SnapshotError> {
        Self::validate(Backing::Owned(bytes))
    }

    fn bytes(&self) -> &[u8] {
        match &self.backing {
            Backing::Mapped(map) => map,
            Backing::Owned(bytes) => bytes,
        }
    }

    pub(crate) fn number(&self) -> u64 {
        self.number
    }

    /// BLAKE3-256 of the payload: the page's name.
    pub(crate) fn payload_digest(&self) -> [u8; 32] {
        self.digest
    }

    pub(crate) fn len_bytes(&self) -> usize {
        self.bytes().len()
    }

    fn section(&self, kind: SectionKind) -> &Section {
        &self.sections[kind as usize]
    }

    pub(crate) fn count(&self, kind: SectionKind) -> usize {
        self.section(kind).count
    }

    pub(crate) fn record(&self, kind: SectionKind, index: usize) -> &[u8] {
        let section = self.section(kind);
        let size = kind.element_size();
        let start = section.range.start + index * size;
        self.bytes().get(start..start + size).unwrap_or(&[])
    }

    pub(crate) fn str_at(&self, record: &[u8], at: usize) -> &str {
        std::str::from_utf8(self.str_bytes_at(record, at)).unwrap_or("")
    }

    /// A string's bytes, without checking them again: indexes order by bytes, which for
    /// UTF-8 is the order of the strings, and every string was checked once at open.
    fn str_bytes_at(&self, record: &[u8], at: usize) -> &[u8] {
        let offset = read_u32(record, at) as usize;
        let len = read_u32(record, at + 4) as usize;
        let strings = &self.section(SectionKind::Strings).range;
        self.bytes()
            .get(strings.start + offset..strings.start + offset + len)
            .unwrap_or(&[])
    }

    fn validate(backing: Backing) -> Result<Self, SnapshotError> {
        let bytes: &[u8] = match &backing {
            Backing::Mapped(map) => map,
            Backing::Owned(bytes) => bytes,
        };
        let Header {
            count: section_count,
            field: number,
            digest,
        } = Header::check(bytes, PAGE_MAGIC)?;
        let sections = Self::validate_directory(bytes, section_count)?;
        if std::str::from_utf8(&bytes[sections[SectionKind::Strings as usize].range.clone()])
            .is_err()
        {
            return Err(SnapshotError::Record {
                table: "strings",
                index: 0,
                reason: "the string section is not UTF-8".into(),
            });
        }
        let page = Page {
            backing,
            number,
            digest,
            sections,
        };
        page.validate_records()?;
        Ok(page)
    }

    fn validate_directory(
        bytes: &[u8],
        section_count: usize,
    ) -> Result<Vec<Section>, SnapshotError> {
        let bad = |reason: String| SnapshotError::Directory(reason);
        if section_count != SectionKind::ALL.len() {
            return Err(bad(format!(
                "{section_count} sections, expected {}",
                SectionKind::ALL.len()
            )));
        }
        let directory_end = HEADER_LEN + section_count * DIRECTORY_ENTRY_LEN;
        if directory_end > bytes.len() {
            return Err(bad("directory runs past the end of the file".into()));
        }
        let max_code = SectionKind::ALL
            .iter()
            .map(|k| *k as usize)
            .max()
            .unwrap_or(0);
        let mut sections: Vec<Option<Section>> = vec![None; max_code + 1];
        let mut ranges: Vec<Range<usize>> = Vec::new();
        for entry in 0..section_count {
            let at = HEADER_LEN + entry * DIRECTORY_ENTRY_LEN;
            let code = read_u32(bytes, at);
            let kind = SectionKind::from_code(code)
                .ok_or_else(|| bad(format!("unknown section kind {code}")))?;
            let element_size = read_u32(bytes, at + 4) as usize;
            if element_size != kind.element_size() {
                return Err(bad(format!(
                    "{kind:?} elements are {element_size} bytes, expected {}",
                    kind.element_size()
                )));
            }
            let offset = usize::try_from(read_u64(bytes, at + 8))
                .map_err(|_| bad("offset overflows".into()))?;
            let length = usize::try_from(read_u64(bytes, at + 16))
                .map_err(|_| bad("length overflows".into()))?;
            let count = usize::try_from(read_u64(bytes, at + 24))
                .map_err(|_| bad("count overflows".into()))?;
            if offset % ALIGN != 0 {
                return Err(bad(format!("{kind:?} is not {ALIGN}-byte aligned")));
            }
            if offset < directory_end {
                return Err(bad(format!("{kind:?} overlaps the header or directory")));
            }
            let end = offset.checked_add(length).filter(|end| *end <= bytes.len());
            let Some(end) = end else {
                return Err(bad(format!("{kind:?} runs past the end of the file")));
            };
            if count.checked_mul(element_size) != Some(length) {
                return Err(bad(format!(
                    "{kind:?} holds {length} bytes, not {count} elements of {element_size}"
                )));
            }
            if kind != SectionKind::Strings && count >= NONE as usize {
                return Err(bad(format!("{kind:?} has too many elements")));
            }
            let slot = &mut sections[code as usize];
            if slot.is_some() {
                return Err(bad(format!("{kind:?} appears twice")));
            }
            *slot = Some(Section {
                range: offset..end,
                count,
            });
            ranges.push(offset..end);
        }
        ranges.sort_by_key(|r| r.start);
        if ranges.windows(2).any(|w| w[0].end > w[1].start) {
            return Err(bad("sections overlap".into()));
        }
        Ok(sections
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect())
    }

    fn check_str(
        &self,
        table: &'static str,
        index: usize,
        record: &[u8],
        at: usize,
    ) -> Result<(), SnapshotError> {
        let offset = read_u32(record, at) as usize;
        let len = read_u32(record, at + 4) as usize;
        let strings = &self.section(SectionKind::Strings).range;
        let section = &self.bytes()[strings.clone()];
        // The section was checked as UTF-8 whole: a slice of it is UTF-8 exactly when both of
        // its ends fall on character boundaries.
        let boundary = |at: usize| section.get(at).is_none_or(|byte| (*byte as i8) >= -0x40);
        let valid = offset
            .checked_add(len)
            .is_some_and(|end| end <= section.len() && boundary(offset) && boundary(end));
        if valid {
            Ok(())
        } else {
            Err(SnapshotError::Record {
                table,
                index,
                reason: format!("string at byte {at} is out of bounds or not UTF-8"),
            })
        }
    }

    fn validate_records(&self) -> Result<(), SnapshotError> {
        let repositories = self.count(SectionKind::Repositories);
        let packages = self.count(SectionKind::Packages);
        let files = self.count(SectionKind::Files);
        let symbols = self.count(SectionKind::Symbols);
        let evidence = self.count(SectionKind::Evidence);
        let fail = |table, index, reason: &str| SnapshotError::Record {
            table,
            index,
            reason: reason.to_string(),
        };
        let run_ok = |start: u32, count: u32, limit: usize| {
            (start as usize)
                .checked_add(count as usize)
                .is_some_and(|end| end <= limit)
        };

        for i in 0..repositories {
            let r = self.record(SectionKind::Repositories, i);
            self.check_str("repository", i, r, 0)?;
            self.check_str("repository", i, r, 8)?;
            if !run_ok(read_u32(r, 52), read_u32(r, 56), files) {
                return Err(fail("repository", i, "file run out of range"));
            }
        }
        for i in 0..packages {
            let r = self.record(SectionKind::Packages, i);
            if read_u32(r, 32) as usize >= repositories {
                return Err(fail("package", i, "repository out of range"));
            }
            Language::from_code(r[36]).map_err(|e| fail("package", i, &e.to_string()))?;
            self.check_str("package", i, r, 40)?;
            self.check_str("package", i, r, 48)?;
        }
        for i in 0..files {
            let r = self.record(SectionKind::Files, i);
            if read_u32(r, 64) as usize >= repositories || read_u32(r, 68) as usize >= packages {
                return Err(fail("file", i, "repository or package out of range"));
            }
            self.check_str("file", i, r, 72)?;
            Language::from_code(r[80]).map_err(|e| fail("file", i, &e.to_string()))?;
            if !run_ok(read_u32(r, 96), read_u32(r, 100), symbols) {
                return Err(fail("file", i, "symbol run out of range"));
            }
        }
        first_error(symbols, |i| {
            let r = self.record(SectionKind::Symbols, i);
            let parent = read_u32(r, 40);
            if read_u32(r, 32) as usize >= files
                || read_u32(r, 36) as usize >= packages
                || (parent != NONE && parent as usize >= symbols)
            {
                return Err(fail("symbol", i, "file, package or parent out of range"));
            }
            SymbolKind::from_code(r[44]).map_err(|e| fail("symbol", i, &e.to_string()))?;
            Language::from_code(r[45]).map_err(|e| fail("symbol", i, &e.to_string()))?;
            for at in [48, 56, 64, 72, 80, 88] {
                self.check_str("symbol", i, r, at)?;
            }
            if read_u32(r, 96) > read_u32(r, 100) || read_u32(r, 104) > read_u32(r, 108) {
                return Err(fail("symbol", i, "span ends before it starts"));
            }
            Ok(())
        })?;
        // Indexes: every entry in range and in order, so binary search is sound.
        for (kind, table, limit) in [
            (SectionKind::NameIndex, "name index", symbols),
            (
                SectionKind::QualifiedNameIndex,
                "qualified name index",
                symbols,
            ),
            (SectionKind::KeyIndex, "key index", symbols),
            (SectionKind::PackageKeyIndex, "package key index", packages),
            (SectionKind::FileKeyIndex, "file key index", files),
            (SectionKind::FilePathIndex, "file path index", files),
            (
                SectionKind::UnresolvedFileIndex,
                "unresolved file index",
                self.count(SectionKind::Unresolved),
            ),
        ] {
            if self.count(kind) != limit {
                return Err(fail(table, 0, "does not cover its table"));
            }
            let entry = |i: usize| read_u32(self.record(kind, i), 0);
            // In runs, each carrying the previous key: every key is read once per run.
            first_error_in_runs(limit, |run| {
                let mut previous = None;
                if run.start > 0 && (entry(run.start - 1) as usize) < limit {
                    previous = Some(self.index_key(kind, entry(run.start - 1)));
                }
                for i in run {
                    if entry(i) as usize >= limit {
                        return Err(fail(table, i, "entry out of range"));
                    }
                    let key = self.index_key(kind, entry(i));
                    if previous.is_some_and(|previous| previous > key) {
                        return Err(fail(table, i, "entries out of order"));
                    }
                    previous = Some(key);
                }
                Ok(())
            })?;
        }
        let externals = self.count(SectionKind::ExternalNodes);
        let table_len = |table: u8| match table {
            TABLE_REPOSITORY => Some(repositories),
            TABLE_PACKAGE => Some(packages),
            TABLE_FILE => Some(files),
            TABLE_SYMBOL => Some(symbols),
            TABLE_EVIDENCE => Some(evidence),
            TABLE_EXTERNAL => Some(externals),
            _ => None,
        };
        // Other pages' nodes: each a node table, by key strictly ascending, let through by
        // the filter.
        if self.count(SectionKind::ExternalFilter) != filter_words(externals) {
            return Err(fail(
                "external filter",
                0,
                "not sized for the external nodes",
            ));
        }
        first_error(externals, |i| {
            let (key, table, _) = self.external_node(i);
            if !matches!(table, TABLE_PACKAGE | TABLE_FILE | TABLE_SYMBOL) {
                return Err(fail("external node", i, "not a node table"));
            }
            if !self.may_reach(&key) {
                return Err(fail(
                    "external node",
                    i,
                    "the filter does not let it through",
                ));
            }
            if i > 0 && self.external_node(i - 1).0 >= key {
                return Err(fail("external node", i, "keys out of order"));
            }
            Ok(())
        })?;
        let external_files = self.count(SectionKind::ExternalFiles);
        for i in 0..external_files {
            let r = self.record(SectionKind::ExternalFiles, i);
            if read_u32(r, 0) as usize >= repositories {
                return Err(fail("external file", i, "repository out of range"));
            }
            self.check_str("external file", i, r, 8)?;
        }
        // Every table is checked on both cores: a serial loop between parallel ones leaves
        // the pool's idle workers spinning against it.
        first_error(self.count(SectionKind::Edges), |i| {
            let r = self.record(SectionKind::Edges, i);
            EdgeKind::from_code(r[0]).map_err(|e| fail("edge", i, &e.to_string()))?;
            Confidence::from_code(r[1]).map_err(|e| fail("edge", i, &e.to_string()))?;
            Provenance::from_code(r[2]).map_err(|e| fail("edge", i, &e.to_string()))?;
            let in_range = |table: u8, at: usize| {
                table_len(table).is_some_and(|len| (read_u32(r, at) as usize) < len)
            };
            let evidence_index = read_u32(r, 16);
            if !in_range(r[3], 8)
                || !in_range(r[4], 12)
                || (evidence_index != NONE && evidence_index as usize >= evidence)
            {
                return Err(fail("edge", i, "endpoint or evidence out of range"));
            }
            Ok(())
        })?;
        first_error(self.count(SectionKind::Unresolved), |i| {
            let r = self.record(SectionKind::Unresolved, i);
            let repository = read_u32(r, 0);
            if repository != NONE && repository as usize >= repositories {
                return Err(fail("unresolved", i, "repository out of range"));
            }
            Language::from_code(r[4]).map_err(|e| fail("unresolved", i, &e.to_string()))?;
            for at in [8, 16, 24, 32, 40] {
                self.check_str("unresolved", i, r, at)?;
            }
            Ok(())
        })?;
        first_error(evidence, |i| {
            let r = self.record(SectionKind::Evidence, i);
            let file = read_u32(r, 36);
            let file_in_range = if file & EXTERNAL_FILE != 0 {
                ((file & !EXTERNAL_FILE) as usize) < external_files
            } else {
                (file as usize) < files
            };
            if read_u32(r, 32) as usize >= repositories || !file_in_range {
                return Err(fail("evidence", i, "repository or file out of range"));
            }
            Ok(())
        })?;
        let symbol_rows = (TABLE_SYMBOL, symbols);
        self.validate_adjacency(
            (SectionKind::ForwardOffsets, SectionKind::ForwardEdges),
            symbol_rows,
            (3, 8),
        )?;
        self.validate_adjacency(
            (SectionKind::ReverseOffsets, SectionKind::ReverseEdges),
            symbol_rows,
            (4, 12),
        )?;
        self.validate_adjacency(
            (
                SectionKind::PackageReverseOffsets,
                SectionKind::PackageReverseEdges,
            ),
            (TABLE_PACKAGE, packages),
            (4, 12),
        )?;
        self.validate_adjacency(
            (SectionKind::ExternalOffsets, SectionKind::ExternalEdges),
            (TABLE_EXTERNAL, externals),
            (4, 12),
        )?;
        self.validate_adjacency(
            (
                SectionKind::ExternalSourceOffsets,
                SectionKind::ExternalSourceEdges,
            ),
            (TABLE_EXTERNAL, externals),
            (3, 8),
        )?;
        let unresolved = self.count(SectionKind::Unresolved);
        let requested = |i: usize| {
            let row = read_u32(self.record(SectionKind::UnresolvedNameIndex, i), 0) as usize;
            (
                row,
                self.unresolved_requested_symbol(row).map(requested_name),
            )
        };
        first_error(self.count(SectionKind::UnresolvedNameIndex), |i| {
            let (row, name) = requested(i);
            if row >= unresolved || name.is_none() {
                return Err(fail(
                    "unresolved name index",
                    i,
                    "entry out of range or without a requested symbol",
                ));
            }
            if i > 0 && requested(i - 1).1 > name {
                return Err(fail("unresolved name index", i, "entries out of order"));
            }
            Ok(())
        })?;
        // Each requested name once, ascending, its run naming it: the entry that starts a
        // run asks for its name, and the entry before it for a smaller one.
        let index_len = self.count(SectionKind::UnresolvedNameIndex);
        first_error(self.count(SectionKind::RequestedNames), |i| {
            let r = self.record(SectionKind::RequestedNames, i);
            self.check_str("requested name", i, r, 0)?;
            let start = read_u32(r, 8) as usize;
            let name = self.str_bytes_at(r, 0);
            let named = |entry: usize| requested(entry).1.map(str::as_bytes);
            let end = self.run_end(REQUESTED, i);
            let fits = start < end
                && end <= index_len
                && (i > 0 || start == 0)
                && named(start) == Some(name)
                && (start == 0 || named(start - 1).is_some_and(|before| before < name));
            if !fits {
                return Err(fail(
                    "requested name",
                    i,
                    "run out of range or of another name",
                ));
            }
            Ok(())
        })?;
        if index_len > 0 && self.count(SectionKind::RequestedNames) == 0 {
            return Err(fail("requested name", 0, "the name index has no names"));
        }
        first_error(self.count(SectionKind::UnresolvedScopeIndex), |i| {
            let row = read_u32(self.record(SectionKind::UnresolvedScopeIndex, i), 0) as usize;
            if row >= unresolved
                || !is_scope_row(self.unresolved_file_path(row), self.unresolved_reason(row))
            {
                return Err(fail(
                    "unresolved scope index",
                    i,
                    "entry out of range or not a scope",
                ));
            }
            Ok(())
        })?;
        let entries = self.count(SectionKind::MentionEntries);
        let names = self.count(SectionKind::MentionNames);
        first_error(names, |i| {
            let r = self.record(SectionKind::MentionNames, i);
            self.check_str("mention name", i, r, 0)?;
            let end = self.run_end(MENTIONS, i);
            if read_u32(r, 8) as usize >= end || end > entries {
                return Err(fail("mention name", i, "entry run out of range"));
            }
            if i > 0
                && self.str_at(self.record(SectionKind::MentionNames, i - 1), 0)
                    >= self.str_at(r, 0)
            {
                return Err(fail("mention name", i, "names out of order"));
            }
            Ok(())
        })?;
        first_error(entries, |i| {
            if read_u32(self.record(SectionKind::MentionEntries, i), 0) as usize >= files {
                return Err(fail("mention entry", i, "file out of range"));
            }
            Ok(())
        })?;
        let terms = self.count(SectionKind::TermNames);
        let postings = self.count(SectionKind::TermPostings);
        first_error_in_runs(terms, |run| {
            let mut previous: Option<&[u8]> = None;
            if run.start > 0 {
                previous =
                    Some(self.str_bytes_at(self.record(SectionKind::TermNames, run.start - 1), 0));
            }
            for i in run {
                let r = self.record(SectionKind::TermNames, i);
                self.check_str("term", i, r, 0)?;
                let (start, end) = (read_u32(r, 8) as usize, self.run_end(TERMS, i));
                if start > end || end > postings {
                    return Err(fail("term", i, "posting run out of range"));
                }
                let name = self.str_bytes_at(r, 0);
                if previous.is_some_and(|p| p >= name) {
                    return Err(fail("term", i, "terms out of order"));
                }
                previous = Some(name);
            }
            Ok(())
        })?;
        first_error(postings, |i| {
            let position = read_u32(self.record(SectionKind::TermPostings, i), 0) & !TERM_IN_NAME;
            if position as usize >= symbols {
                return Err(fail("term posting", i, "symbol out of range"));
            }
            Ok(())
        })
    }

    /// The symbol rows carrying `term` (see [`crate::terms`]), ascending, each with
    /// [`TERM_IN_NAME`] set when the symbol's own name carries it; `None` for a term no
    /// symbol of the page carries.
    pub(crate) fn term_postings(&self, term: &str) -> Option<Vec<u32>> {
        let run = self.run_of(TERMS, term)?;
        Some(
            run.map(|i| read_u32(self.record(SectionKind::TermPostings, i), 0))
                .collect(),
        )
    }

    /// Checks one compressed-sparse-row adjacency over the rows of one table: ascending
    /// offsets covering every entry, and each entry an edge whose endpoint (table byte, row
    /// offset in the edge record) is the row it is listed under.
    fn validate_adjacency(
        &self,
        (offsets, entries): (SectionKind, SectionKind),
        (table, rows): (u8, usize),
        (table_at, row_at): (usize, usize),
    ) -> Result<(), SnapshotError> {
        let fail = |index, reason: &str| SnapshotError::Record {
            table: "adjacency",
            index,
            reason: reason.to_string(),
        };
        let edges = self.count(SectionKind::Edges);
        let offset = |i: usize| read_u32(self.record(offsets, i), 0) as usize;
        if self.count(offsets) != rows + 1 || offset(0) != 0 || offset(rows) != self.count(entries)
        {
            return Err(fail(0, "offsets do not cover their table and entries"));
        }
        first_error(rows, |row| {
            if offset(row) > offset(row + 1) {
                return Err(fail(row, "offsets descend"));
            }
            for at in offset(row)..offset(row + 1) {
                let edge = read_u32(self.record(entries, at), 0) as usize;
                let record = self.record(SectionKind::Edges, edge);
                if edge >= edges
                    || record[table_at] != table
                    || read_u32(record, row_at) as usize != row
                {
                    return Err(fail(row, "entry is not an edge of its row"));
                }
            }
            Ok(())
        })
    }

    /// One past the last entry of name row `i` of `names`, whose rows start runs of
    /// `entries` (the next row's start at byte 8, or the end of `entries`): mention names
    /// and their entries, terms and their postings, requested names and the unresolved
    /// rows asking for them.
    fn run_end(&self, (names, entries): (SectionKind, SectionKind), i: usize) -> usize {
        if i + 1 < self.count(names) {
            read_u32(self.record(names, i + 1), 8) as usize
        } else {
            self.count(entries)
        }
    }

    /// The run of `entries` that `name`'s row of `names` starts (names are sorted), if
    /// `names` holds it.
    fn run_of(&self, tables: (SectionKind, SectionKind), name: &str) -> Option<Range<usize>> {
        let names = tables.0;
        let count = self.count(names);
        let name_at = |i: usize| self.str_bytes_at(self.record(names, i), 0);
        let at = partition_point(count, |i| name_at(i) < name.as_bytes());
        if at == count || name_at(at) != name.as_bytes() {
            return None;
        }
        let start = read_u32(self.record(names, at), 8) as usize;
        Some(start..self.run_end(tables, at))
    }

    /// An unresolved row's field: its repository, its flags, its strings.
    pub(crate) fn unresolved_repository(&self, row: usize) -> u32 {
        read_u32(self.record(SectionKind::Unresolved, row), 0)
    }
    fn unresolved_flag(&self, row: usize, flag: u8) -> bool {
        self.record(SectionKind::Unresolved, row)
            .get(5)
            .is_some_and(|f| f & flag != 0)
    }
    pub(crate) fn unresolved_str(&self, row: usize, at: usize) -> &str {
        self.str_at(self.record(SectionKind::Unresolved, row), at)
    }
    pub(crate) fn unresolved_reason(&self, row: usize) -> &str {
        self.unresolved_str(row, 8)
    }
    pub(crate) fn unresolved_file_path(&self, row: usize) -> Option<&str> {
        self.unresolved_flag(row, UNRESOLVED_HAS_FILE)
            .then(|| self.unresolved_str(row, 16))
    }
    pub(crate) fn unresolved_requested_symbol(&self, row: usize) -> Option<&str> {
        self.unresolved_flag(row, UNRESOLVED_HAS_SYMBOL)
            .then(|| self.unresolved_str(row, 24))
    }
    pub(crate) fn unresolved_requested_package(&self, row: usize) -> Option<&str> {
        self.unresolved_flag(row, UNRESOLVED_HAS_PACKAGE)
            .then(|| self.unresolved_str(row, 32))
    }
    pub(crate) fn unresolved_lines(&self, row: usize) -> Option<(u32, u32)> {
        let r = self.record(SectionKind::Unresolved, row);
        self.unresolved_flag(row, UNRESOLVED_HAS_SPAN)
            .then(|| (read_u32(r, 48), read_u32(r, 52)))
    }
    /// The name of repository row `row` ("" for none).
    pub(crate) fn repository_name(&self, row: u32) -> &str {
        if (row as usize) < self.count(SectionKind::Repositories) {
            self.str_at(self.record(SectionKind::Repositories, row as usize), 0)
        } else {
            ""
        }
    }
    /// [`Page::repository_name`]'s bytes, for ordering (checked as UTF-8 once, at open).
    fn repository_name_bytes(&self, row: u32) -> &[u8] {
        if (row as usize) < self.count(SectionKind::Repositories) {
            self.str_bytes_at(self.record(SectionKind::Repositories, row as usize), 0)
        } else {
            b""
        }
    }
    /// A string field of an unresolved row as bytes, when its flag says it is there.
    fn unresolved_bytes(&self, row: usize, flag: u8, at: usize) -> &[u8] {
        if self.unresolved_flag(row, flag) {
            self.str_bytes_at(self.record(SectionKind::Unresolved, row), at)
        } else {
            b""
        }
    }

    /// The bytes an index orders by, for entry `i` of its table.
    fn index_key(&self, kind: SectionKind, i: u32) -> (&[u8], &[u8]) {
        let key_of = |table: SectionKind| self.record(table, i as usize).get(..32).unwrap_or(&[]);
        match kind {
            SectionKind::NameIndex => (
                self.str_bytes_at(self.record(SectionKind::Symbols, i as usize), 48),
                b"",
            ),
            SectionKind::QualifiedNameIndex => (
                self.str_bytes_at(self.record(SectionKind::Symbols, i as usize), 56),
                b"",
            ),
            SectionKind::KeyIndex => (key_of(SectionKind::Symbols), b""),
            SectionKind::PackageKeyIndex => (key_of(SectionKind::Packages), b""),
            SectionKind::FileKeyIndex => (key_of(SectionKind::Files), b""),
            SectionKind::FilePathIndex => {
                let file = self.record(SectionKind::Files, i as usize);
                (
                    self.repository_name_bytes(read_u32(file, 64)),
                    self.str_bytes_at(file, 72),
                )
            }
            SectionKind::UnresolvedFileIndex => (
                self.repository_name_bytes(self.unresolved_repository(i as usize)),
                self.unresolved_bytes(i as usize, UNRESOLVED_HAS_FILE, 16),
            ),
            _ => (b"", b""),
        }
    }

    /// Table rows whose index key equals `probe`, via binary search on `kind`.
    pub(crate) fn lookup(&self, kind: SectionKind, probe: (&[u8], &[u8])) -> Vec<u32> {
        let len = self.count(kind);
        let entry = |i: usize| read_u32(self.record(kind, i), 0);
        let start = partition_point(len, |i| self.index_key(kind, entry(i)) < probe);
        let end = start
            + partition_point(len - start, |i| {
                self.index_key(kind, entry(start + i)) <= probe
            });
        (start..end).map(entry).collect()
    }

    /// The entries of one row of a compressed-sparse-row adjacency: edge rows.
    pub(crate) fn adjacent(
        &self,
        offsets: SectionKind,
        entries: SectionKind,
        row: usize,
    ) -> impl Iterator<Item = u32> + '_ {
        let offset = move |i: usize| read_u32(self.record(offsets, i), 0) as usize;
        let range = if row + 1 < self.count(offsets) {
            offset(row)..offset(row + 1)
        } else {
            0..0
        };
        range.map(move |at| read_u32(self.record(entries, at), 0))
    }

    /// The row of `ExternalNodes` holding `key`, if this page's edges reach it.
    pub(crate) fn external_row(&self, key: &StableKey) -> Option<usize> {
        if !self.may_reach(key) {
            return None;
        }
        let len = self.count(SectionKind::ExternalNodes);
        let key_at = |i: usize| {
            self.record(SectionKind::ExternalNodes, i)
                .get(..32)
                .unwrap_or(&[])
        };
        let at = partition_point(len, |i| key_at(i) < &key.0[..]);
        (at < len && key_at(at) == &key.0[..]).then_some(at)
    }

    /// Whether this page's external-node filter lets `key` through (never false for a key
    /// the page holds: open checked every one).
    fn may_reach(&self, key: &StableKey) -> bool {
        let words = self.count(SectionKind::ExternalFilter);
        filter_bits(&key.0, words).iter().all(|bit| {
            read_u64(self.record(SectionKind::ExternalFilter, bit / 64), 0) & (1 << (bit % 64)) != 0
        })
    }

    /// External node `row`: its key, its table and the page that holds it.
    pub(crate) fn external_node(&self, row: usize) -> (StableKey, u8, u32) {
        let r = self.record(SectionKind::ExternalNodes, row);
        (
            StableKey(read_key(r, 0)),
            r.get(32).copied().unwrap_or(0),
            read_u32(r, 36),
        )
    }

    /// Unresolved rows whose requested symbol's last segment is `name`, in table order.
    pub(crate) fn unresolved_requesting(&self, name: &str) -> Vec<u32> {
        self.run_of(REQUESTED, name)
            .into_iter()
            .flatten()
            .map(|i| read_u32(self.record(SectionKind::UnresolvedNameIndex, i), 0))
            .collect()
    }

    /// The rows of `UnresolvedScopeIndex`, only one repository's when `repository` names it
    /// (the table is sorted by repository).
    pub(crate) fn unresolved_scopes(&self, repository: Option<&str>) -> Vec<u32> {
        let kind = SectionKind::UnresolvedScopeIndex;
        let row = |i: usize| read_u32(self.record(kind, i), 0);
        let owner =
            |i: usize| self.repository_name_bytes(self.unresolved_repository(row(i) as usize));
        let len = self.count(kind);
        let range = match repository.map(str::as_bytes) {
            None => 0..len,
            Some(name) => {
                let start = partition_point(len, |i| owner(i) < name);
                start..start + partition_point(len - start, |i| owner(start + i) <= name)
            }
        };
        range.map(row).collect()
    }

    /// (file row, unexplained occurrences) of the files spelling `name` more often than the
    /// graph explains, in file order.
    pub(crate) fn unexplained_mentions(&self, name: &str) -> Vec<(u32, u32)> {
        self.run_of(MENTIONS, name)
            .into_iter()
            .flatten()
            .map(|i| {
                let r = self.record(SectionKind::MentionEntries, i);
                (read_u32(r, 0), read_u32(r, 4))
            })
            .collect()
    }
}

/// Runs `check` over `0..len` in parallel and returns the error of the lowest failing
/// position, so that a corrupt file is always reported the same way.
fn first_error(
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
fn first_error_in_runs(
    len: usize,
    check: impl Fn(std::ops::Range<usize>) -> Result<(), SnapshotError> + Sync,
) -> Result<(), SnapshotError> {
    const RUN: usize = 4096;
    first_error(len.div_ceil(RUN), |run| {
        check(run * RUN..((run + 1) * RUN).min(len))
    })
}

/// The first `i` in `0..len` for which `before(i)` is false (`before` must be monotone).
pub(crate) fn partition_point(len: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let mid = low + (high - low) / 2;
        if before(mid) {
            low = mid + 1
        } else {
            high = mid
        }
    }
    low
}
