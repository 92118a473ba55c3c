//! The validating, zero-copy reader.
//!
//! `Snapshot::open` maps the file and checks everything once — magic, version, digest,
//! section bounds, alignment, overlaps, element sizes, every record's references and every
//! index's order. After that, accessors read little-endian fields out of the mapped bytes with
//! bounds-checked slices: no unchecked cast, no `unsafe` beyond the mapping itself, no panic.

use std::ops::Range;
use std::path::{Path, PathBuf};

use kivgraph_facts::{
    Confidence, EdgeKind, Fingerprint, Language, LineSpan, Provenance, StableKey, SymbolKind,
};

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

/// A validated, read-only snapshot.
pub struct Snapshot {
    backing: Backing,
    generation: u64,
    digest: [u8; 32],
    sections: Vec<Section>,
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .unwrap_or(0)
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..at + 8)
        .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .unwrap_or(0)
}

fn read_key(bytes: &[u8], at: usize) -> [u8; 32] {
    let mut key = [0u8; 32];
    if let Some(slice) = bytes.get(at..at + 32) {
        key.copy_from_slice(slice);
    }
    key
}

impl Snapshot {
    /// Maps `path` read-only and validates it.
    pub fn open(path: &Path) -> Result<Self, SnapshotError> {
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

    /// Validates an in-memory snapshot (tests, fuzzing, tools).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, SnapshotError> {
        Self::validate(Backing::Owned(bytes))
    }

    fn bytes(&self) -> &[u8] {
        match &self.backing {
            Backing::Mapped(map) => map,
            Backing::Owned(bytes) => bytes,
        }
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// BLAKE3-256 of the payload: equal for equal facts whatever the generation.
    pub fn payload_digest(&self) -> [u8; 32] {
        self.digest
    }

    pub fn len_bytes(&self) -> usize {
        self.bytes().len()
    }

    fn section(&self, kind: SectionKind) -> &Section {
        &self.sections[kind as usize]
    }

    fn count(&self, kind: SectionKind) -> usize {
        self.section(kind).count
    }

    fn record(&self, kind: SectionKind, index: usize) -> &[u8] {
        let section = self.section(kind);
        let size = kind.element_size();
        let start = section.range.start + index * size;
        self.bytes().get(start..start + size).unwrap_or(&[])
    }

    fn str_at(&self, record: &[u8], at: usize) -> &str {
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
        if bytes.len() < HEADER_LEN {
            return Err(SnapshotError::TooSmall(bytes.len()));
        }
        if &bytes[..8] != MAGIC {
            return Err(SnapshotError::BadMagic);
        }
        let version = read_u32(bytes, 8);
        if version != FORMAT_VERSION {
            return Err(SnapshotError::UnsupportedVersion(version));
        }
        let section_count = read_u32(bytes, 12) as usize;
        let generation = read_u64(bytes, 16);
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
        let snapshot = Snapshot {
            backing,
            generation,
            digest,
            sections,
        };
        snapshot.validate_records()?;
        Ok(snapshot)
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
        let table_len = |table: u8| match table {
            TABLE_REPOSITORY => Some(repositories),
            TABLE_PACKAGE => Some(packages),
            TABLE_FILE => Some(files),
            TABLE_SYMBOL => Some(symbols),
            TABLE_EVIDENCE => Some(evidence),
            _ => None,
        };
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
            if read_u32(r, 32) as usize >= repositories || read_u32(r, 36) as usize >= files {
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
        let unresolved = self.count(SectionKind::Unresolved);
        let requested = |i: usize| {
            let row = read_u32(self.record(SectionKind::UnresolvedNameIndex, i), 0) as usize;
            (
                row,
                self.unresolved_row(row)
                    .requested_symbol()
                    .map(requested_name),
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
        first_error(self.count(SectionKind::UnresolvedScopeIndex), |i| {
            let row = read_u32(self.record(SectionKind::UnresolvedScopeIndex, i), 0) as usize;
            let view = self.unresolved_row(row);
            if row >= unresolved || !is_scope_row(view.file_path(), view.reason()) {
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
            let end = self.mention_run_end(i);
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
                let (start, end) = (read_u32(r, 8) as usize, self.term_run_end(i));
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

    fn term_run_end(&self, i: usize) -> usize {
        if i + 1 < self.count(SectionKind::TermNames) {
            read_u32(self.record(SectionKind::TermNames, i + 1), 8) as usize
        } else {
            self.count(SectionKind::TermPostings)
        }
    }

    /// The symbols carrying `term` (see [`crate::terms`]), ascending, each with
    /// [`TERM_IN_NAME`] set when the symbol's own name carries it; `None` for a term no
    /// symbol carries.
    pub fn term_postings(&self, term: &str) -> Option<Vec<u32>> {
        let count = self.count(SectionKind::TermNames);
        let at = partition_point(count, |i| {
            self.str_bytes_at(self.record(SectionKind::TermNames, i), 0) < term.as_bytes()
        });
        if at == count
            || self.str_bytes_at(self.record(SectionKind::TermNames, at), 0) != term.as_bytes()
        {
            return None;
        }
        let start = read_u32(self.record(SectionKind::TermNames, at), 8) as usize;
        Some(
            (start..self.term_run_end(at))
                .map(|i| read_u32(self.record(SectionKind::TermPostings, i), 0))
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

    /// One past the last mention entry of name row `i`.
    fn mention_run_end(&self, i: usize) -> usize {
        if i + 1 < self.count(SectionKind::MentionNames) {
            read_u32(self.record(SectionKind::MentionNames, i + 1), 8) as usize
        } else {
            self.count(SectionKind::MentionEntries)
        }
    }

    fn unresolved_row(&self, index: usize) -> UnresolvedView<'_> {
        UnresolvedView {
            snapshot: self,
            index,
        }
    }

    /// The bytes an index orders by, for entry `i` of its table.
    fn index_key(&self, kind: SectionKind, i: u32) -> (&[u8], &[u8]) {
        match kind {
            SectionKind::NameIndex => (
                self.str_bytes_at(self.record(SectionKind::Symbols, i as usize), 48),
                b"",
            ),
            SectionKind::QualifiedNameIndex => (
                self.str_bytes_at(self.record(SectionKind::Symbols, i as usize), 56),
                b"",
            ),
            SectionKind::KeyIndex => (
                self.record(SectionKind::Symbols, i as usize)
                    .get(..32)
                    .unwrap_or(&[]),
                b"",
            ),
            SectionKind::FilePathIndex => {
                let file = self.record(SectionKind::Files, i as usize);
                let repository = read_u32(file, 64) as usize;
                (
                    self.str_bytes_at(self.record(SectionKind::Repositories, repository), 0),
                    self.str_bytes_at(file, 72),
                )
            }
            SectionKind::UnresolvedFileIndex => {
                let row = self.unresolved_row(i as usize);
                (
                    row.repository().map_or("", |r| r.name()).as_bytes(),
                    row.file_path().unwrap_or("").as_bytes(),
                )
            }
            _ => (b"", b""),
        }
    }

    /// Table positions whose index key equals `probe`, via binary search on `kind`.
    fn lookup(&self, kind: SectionKind, probe: (&[u8], &[u8])) -> Vec<u32> {
        let len = self.count(kind);
        let entry = |i: usize| read_u32(self.record(kind, i), 0);
        let start = partition_point(len, |i| self.index_key(kind, entry(i)) < probe);
        let end = start
            + partition_point(len - start, |i| {
                self.index_key(kind, entry(start + i)) <= probe
            });
        (start..end).map(entry).collect()
    }

    pub fn repository_count(&self) -> usize {
        self.count(SectionKind::Repositories)
    }
    pub fn package_count(&self) -> usize {
        self.count(SectionKind::Packages)
    }
    pub fn file_count(&self) -> usize {
        self.count(SectionKind::Files)
    }
    pub fn symbol_count(&self) -> usize {
        self.count(SectionKind::Symbols)
    }
    pub fn edge_count(&self) -> usize {
        self.count(SectionKind::Edges)
    }
    pub fn unresolved_count(&self) -> usize {
        self.count(SectionKind::Unresolved)
    }
    pub fn evidence_count(&self) -> usize {
        self.count(SectionKind::Evidence)
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
        (index < self.package_count()).then_some(PackageView {
            snapshot: self,
            index,
        })
    }
    pub fn file(&self, index: usize) -> Option<FileView<'_>> {
        (index < self.file_count()).then_some(FileView {
            snapshot: self,
            index,
        })
    }
    pub fn files(&self) -> impl Iterator<Item = FileView<'_>> {
        (0..self.file_count()).map(|index| FileView {
            snapshot: self,
            index,
        })
    }
    pub fn symbol(&self, index: usize) -> Option<SymbolView<'_>> {
        (index < self.symbol_count()).then_some(SymbolView {
            snapshot: self,
            index,
        })
    }
    pub fn symbols(&self) -> impl Iterator<Item = SymbolView<'_>> {
        (0..self.symbol_count()).map(|index| SymbolView {
            snapshot: self,
            index,
        })
    }
    pub fn edges(&self) -> impl Iterator<Item = EdgeView<'_>> {
        (0..self.edge_count()).map(|index| EdgeView {
            snapshot: self,
            index,
        })
    }
    pub fn unresolved(&self) -> impl Iterator<Item = UnresolvedView<'_>> {
        (0..self.unresolved_count()).map(|index| self.unresolved_row(index))
    }

    /// Symbols whose simple name is exactly `name`, in name-index order.
    pub fn symbols_named(&self, name: &str) -> Vec<SymbolView<'_>> {
        self.lookup(SectionKind::NameIndex, (name.as_bytes(), b""))
            .into_iter()
            .map(|i| SymbolView {
                snapshot: self,
                index: i as usize,
            })
            .collect()
    }

    /// Symbols whose qualified name is exactly `qualified_name`.
    pub fn symbols_qualified(&self, qualified_name: &str) -> Vec<SymbolView<'_>> {
        self.lookup(
            SectionKind::QualifiedNameIndex,
            (qualified_name.as_bytes(), b""),
        )
        .into_iter()
        .map(|i| SymbolView {
            snapshot: self,
            index: i as usize,
        })
        .collect()
    }

    pub fn symbol_by_key(&self, key: &StableKey) -> Option<SymbolView<'_>> {
        self.lookup(SectionKind::KeyIndex, (&key.0, b""))
            .first()
            .map(|i| SymbolView {
                snapshot: self,
                index: *i as usize,
            })
    }

    pub fn file_by_path(&self, repository: &str, path: &str) -> Option<FileView<'_>> {
        self.lookup(
            SectionKind::FilePathIndex,
            (repository.as_bytes(), path.as_bytes()),
        )
        .first()
        .map(|i| FileView {
            snapshot: self,
            index: *i as usize,
        })
    }

    /// Edges whose source is symbol `symbol`, in edge order.
    pub fn outgoing(&self, symbol: usize) -> impl Iterator<Item = EdgeView<'_>> {
        self.adjacent(
            SectionKind::ForwardOffsets,
            SectionKind::ForwardEdges,
            symbol,
        )
    }

    /// Edges whose target is symbol `symbol`, in edge order.
    pub fn incoming(&self, symbol: usize) -> impl Iterator<Item = EdgeView<'_>> {
        self.adjacent(
            SectionKind::ReverseOffsets,
            SectionKind::ReverseEdges,
            symbol,
        )
    }

    /// Edges whose target is package `package`: who depends on it, in edge order.
    pub fn package_incoming(&self, package: usize) -> impl Iterator<Item = EdgeView<'_>> {
        self.adjacent(
            SectionKind::PackageReverseOffsets,
            SectionKind::PackageReverseEdges,
            package,
        )
    }

    fn adjacent(
        &self,
        offsets: SectionKind,
        entries: SectionKind,
        row: usize,
    ) -> impl Iterator<Item = EdgeView<'_>> {
        let offset = |i: usize| read_u32(self.record(offsets, i), 0) as usize;
        let range = if row + 1 < self.count(offsets) {
            offset(row)..offset(row + 1)
        } else {
            0..0
        };
        range.map(move |at| EdgeView {
            snapshot: self,
            index: read_u32(self.record(entries, at), 0) as usize,
        })
    }

    /// Unresolved rows whose requested symbol's last segment is `name`
    /// ([`requested_name`](crate::format::requested_name)), in table order.
    pub fn unresolved_requesting(&self, name: &str) -> Vec<UnresolvedView<'_>> {
        let kind = SectionKind::UnresolvedNameIndex;
        let len = self.count(kind);
        let row = |i: usize| read_u32(self.record(kind, i), 0) as usize;
        let key = |i: usize| {
            self.unresolved_row(row(i))
                .requested_symbol()
                .map(requested_name)
                .unwrap_or("")
        };
        let start = partition_point(len, |i| key(i) < name);
        let end = start + partition_point(len - start, |i| key(start + i) <= name);
        (start..end).map(|i| self.unresolved_row(row(i))).collect()
    }

    /// The unresolved rows recorded in one file of one repository, in table order.
    pub fn unresolved_in_file(&self, repository: &str, path: &str) -> Vec<UnresolvedView<'_>> {
        let mut rows = self.lookup(
            SectionKind::UnresolvedFileIndex,
            (repository.as_bytes(), path.as_bytes()),
        );
        rows.sort_unstable();
        rows.into_iter()
            .map(|i| self.unresolved_row(i as usize))
            .collect()
    }

    /// The unresolved rows that describe unreadable scopes ([`is_scope_row`]), in table order;
    /// only one repository's when `repository` names it (the table is sorted by repository).
    pub fn unresolved_scopes(
        &self,
        repository: Option<&str>,
    ) -> impl Iterator<Item = UnresolvedView<'_>> {
        let kind = SectionKind::UnresolvedScopeIndex;
        let row = move |i: usize| self.unresolved_row(read_u32(self.record(kind, i), 0) as usize);
        let owner = move |i: usize| row(i).repository().map_or("", |r| r.name());
        let len = self.count(kind);
        let range = match repository {
            None => 0..len,
            Some(name) => {
                let start = partition_point(len, |i| owner(i) < name);
                start..start + partition_point(len - start, |i| owner(start + i) <= name)
            }
        };
        range.map(row)
    }

    /// The files spelling identifier `name` more often than the graph explains (file
    /// position, unexplained occurrences), in file order; empty when every occurrence is a
    /// declaration, a resolved use or a recorded failure.
    pub fn unexplained_mentions(&self, name: &str) -> Vec<(usize, u32)> {
        let names = self.count(SectionKind::MentionNames);
        let at = partition_point(names, |i| {
            self.str_at(self.record(SectionKind::MentionNames, i), 0) < name
        });
        if at == names || self.str_at(self.record(SectionKind::MentionNames, at), 0) != name {
            return Vec::new();
        }
        let start = read_u32(self.record(SectionKind::MentionNames, at), 8) as usize;
        (start..self.mention_run_end(at))
            .map(|i| {
                let r = self.record(SectionKind::MentionEntries, i);
                (read_u32(r, 0) as usize, read_u32(r, 4))
            })
            .collect()
    }

    pub fn repository_named(&self, name: &str) -> Option<RepositoryView<'_>> {
        self.repositories().find(|r| r.name() == name)
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
fn partition_point(len: usize, before: impl Fn(usize) -> bool) -> usize {
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

#[derive(Clone, Copy)]
pub struct RepositoryView<'a> {
    snapshot: &'a Snapshot,
    pub index: usize,
}

impl<'a> RepositoryView<'a> {
    fn record(&self) -> &'a [u8] {
        self.snapshot.record(SectionKind::Repositories, self.index)
    }
    pub fn name(&self) -> &'a str {
        self.snapshot.str_at(self.record(), 0)
    }
    pub fn root(&self) -> &'a str {
        self.snapshot.str_at(self.record(), 8)
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
    pub fn files(&self) -> impl Iterator<Item = FileView<'a>> + use<'a> {
        let start = read_u32(self.record(), 52) as usize;
        let count = read_u32(self.record(), 56) as usize;
        let snapshot = self.snapshot;
        (start..start + count).map(move |index| FileView { snapshot, index })
    }
}

#[derive(Clone, Copy)]
pub struct PackageView<'a> {
    snapshot: &'a Snapshot,
    pub index: usize,
}

impl<'a> PackageView<'a> {
    fn record(&self) -> &'a [u8] {
        self.snapshot.record(SectionKind::Packages, self.index)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), 0))
    }
    pub fn repository(&self) -> RepositoryView<'a> {
        RepositoryView {
            snapshot: self.snapshot,
            index: read_u32(self.record(), 32) as usize,
        }
    }
    pub fn language(&self) -> Language {
        Language::from_code(self.record().get(36).copied().unwrap_or(0)).unwrap_or(Language::Go)
    }
    pub fn name(&self) -> &'a str {
        self.snapshot.str_at(self.record(), 40)
    }
    pub fn path(&self) -> &'a str {
        self.snapshot.str_at(self.record(), 48)
    }
}

#[derive(Clone, Copy)]
pub struct FileView<'a> {
    snapshot: &'a Snapshot,
    pub index: usize,
}

impl<'a> FileView<'a> {
    fn record(&self) -> &'a [u8] {
        self.snapshot.record(SectionKind::Files, self.index)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), 0))
    }
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint(read_key(self.record(), 32))
    }
    pub fn repository(&self) -> RepositoryView<'a> {
        RepositoryView {
            snapshot: self.snapshot,
            index: read_u32(self.record(), 64) as usize,
        }
    }
    pub fn package(&self) -> PackageView<'a> {
        PackageView {
            snapshot: self.snapshot,
            index: read_u32(self.record(), 68) as usize,
        }
    }
    pub fn path(&self) -> &'a str {
        self.snapshot.str_at(self.record(), 72)
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
        let start = read_u32(self.record(), 96) as usize;
        let count = read_u32(self.record(), 100) as usize;
        let snapshot = self.snapshot;
        (start..start + count).map(move |index| SymbolView { snapshot, index })
    }
}

#[derive(Clone, Copy)]
pub struct SymbolView<'a> {
    snapshot: &'a Snapshot,
    pub index: usize,
}

impl<'a> SymbolView<'a> {
    fn record(&self) -> &'a [u8] {
        self.snapshot.record(SectionKind::Symbols, self.index)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), 0))
    }
    pub fn file(&self) -> FileView<'a> {
        FileView {
            snapshot: self.snapshot,
            index: read_u32(self.record(), 32) as usize,
        }
    }
    pub fn package(&self) -> PackageView<'a> {
        PackageView {
            snapshot: self.snapshot,
            index: read_u32(self.record(), 36) as usize,
        }
    }
    pub fn parent(&self) -> Option<SymbolView<'a>> {
        let parent = read_u32(self.record(), 40);
        (parent != NONE).then_some(SymbolView {
            snapshot: self.snapshot,
            index: parent as usize,
        })
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
        self.snapshot.str_at(self.record(), 48)
    }
    pub fn qualified_name(&self) -> &'a str {
        self.snapshot.str_at(self.record(), 56)
    }
    pub fn signature(&self) -> &'a str {
        self.snapshot.str_at(self.record(), 64)
    }
    pub fn doc(&self) -> Option<&'a str> {
        let has_doc = self.record().get(46).is_some_and(|f| f & FLAG_HAS_DOC != 0);
        has_doc.then(|| self.snapshot.str_at(self.record(), 72))
    }
    /// The `module` field of this symbol's key identity ("" when it has none).
    pub fn key_module(&self) -> &'a str {
        self.snapshot.str_at(self.record(), 80)
    }
    /// The `discriminator` field of this symbol's key identity.
    pub fn key_discriminator(&self) -> &'a str {
        self.snapshot.str_at(self.record(), 88)
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
}

#[derive(Clone, Copy)]
pub struct EdgeView<'a> {
    snapshot: &'a Snapshot,
    pub index: usize,
}

impl<'a> EdgeView<'a> {
    fn record(&self) -> &'a [u8] {
        self.snapshot.record(SectionKind::Edges, self.index)
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
        let index = read_u32(self.record(), index_at) as usize;
        match self.record().get(table_at).copied().unwrap_or(0) {
            TABLE_REPOSITORY => NodeRef::Repository(index),
            TABLE_PACKAGE => NodeRef::Package(index),
            TABLE_FILE => NodeRef::File(index),
            TABLE_EVIDENCE => NodeRef::Evidence(index),
            _ => NodeRef::Symbol(index),
        }
    }
    pub fn source(&self) -> NodeRef {
        self.node(3, 8)
    }
    /// Where the relation was observed, when it was.
    pub fn evidence(&self) -> Option<EvidenceView<'a>> {
        let index = read_u32(self.record(), 16);
        (index != NONE).then_some(EvidenceView {
            snapshot: self.snapshot,
            index: index as usize,
        })
    }
    pub fn target(&self) -> NodeRef {
        self.node(4, 12)
    }
}

/// One observation: a span of a file.
#[derive(Clone, Copy)]
pub struct EvidenceView<'a> {
    snapshot: &'a Snapshot,
    pub index: usize,
}

impl<'a> EvidenceView<'a> {
    fn record(&self) -> &'a [u8] {
        self.snapshot.record(SectionKind::Evidence, self.index)
    }
    pub fn key(&self) -> StableKey {
        StableKey(read_key(self.record(), 0))
    }
    pub fn file(&self) -> FileView<'a> {
        FileView {
            snapshot: self.snapshot,
            index: read_u32(self.record(), 36) as usize,
        }
    }
    pub fn lines(&self) -> (u32, u32) {
        (read_u32(self.record(), 40), read_u32(self.record(), 44))
    }
}

#[derive(Clone, Copy)]
pub struct UnresolvedView<'a> {
    snapshot: &'a Snapshot,
    pub index: usize,
}

impl<'a> UnresolvedView<'a> {
    fn record(&self) -> &'a [u8] {
        self.snapshot.record(SectionKind::Unresolved, self.index)
    }
    fn flag(&self, flag: u8) -> bool {
        self.record().get(5).is_some_and(|f| f & flag != 0)
    }
    pub fn repository(&self) -> Option<RepositoryView<'a>> {
        self.snapshot
            .repository(read_u32(self.record(), 0) as usize)
    }
    pub fn language(&self) -> Language {
        Language::from_code(self.record().get(4).copied().unwrap_or(0)).unwrap_or(Language::Go)
    }
    pub fn reason(&self) -> &'a str {
        self.snapshot.str_at(self.record(), 8)
    }
    pub fn file_path(&self) -> Option<&'a str> {
        self.flag(UNRESOLVED_HAS_FILE)
            .then(|| self.snapshot.str_at(self.record(), 16))
    }
    pub fn requested_symbol(&self) -> Option<&'a str> {
        self.flag(UNRESOLVED_HAS_SYMBOL)
            .then(|| self.snapshot.str_at(self.record(), 24))
    }
    pub fn requested_package(&self) -> Option<&'a str> {
        self.flag(UNRESOLVED_HAS_PACKAGE)
            .then(|| self.snapshot.str_at(self.record(), 32))
    }
    pub fn detail(&self) -> &'a str {
        self.snapshot.str_at(self.record(), 40)
    }
    pub fn lines(&self) -> Option<(u32, u32)> {
        self.flag(UNRESOLVED_HAS_SPAN)
            .then(|| (read_u32(self.record(), 48), read_u32(self.record(), 52)))
    }
}
