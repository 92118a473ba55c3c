//! One page, validated and read in place.
//!
//! `Page::map` maps the file and checks its frame — magic, version, digest, section bounds,
//! alignment, overlaps, element sizes, the strings' encoding; `crate::tables` then checks
//! every record's references and every index's order. After that, accessors read little-endian fields out of the mapped bytes with
//! bounds-checked slices: no unchecked cast, no `unsafe` beyond the mapping itself, no panic.
//! Everything here speaks in the page's own row numbers; `crate::reader` composes pages.

use std::ops::Range;
use std::path::Path;

use kivgraph_facts::StableKey;

use crate::bytes::{read_key, read_u8, read_u32, read_u64};
use crate::error::SnapshotError;
use crate::fields::file;
use crate::fields::{
    directory_entry, entry, external_node, filter_word, header, mention_entry, repository,
    run_name, symbol, unresolved,
};
use crate::format::*;

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
pub(crate) const MENTIONS: (SectionKind, SectionKind) =
    (SectionKind::MentionNames, SectionKind::MentionEntries);
pub(crate) const TERMS: (SectionKind, SectionKind) =
    (SectionKind::TermNames, SectionKind::TermPostings);
pub(crate) const REQUESTED: (SectionKind, SectionKind) = (
    SectionKind::RequestedNames,
    SectionKind::UnresolvedNameIndex,
);

/// A read-only page, validated whole before anything reads it.
pub(crate) struct Page {
    backing: Backing,
    number: u64,
    digest: [u8; 32],
    sections: Vec<Section>,
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
        if &bytes[header::MAGIC..header::MAGIC + 8] != magic {
            return Err(SnapshotError::BadMagic);
        }
        let version = read_u32(bytes, header::VERSION);
        if version != FORMAT_VERSION {
            return Err(SnapshotError::UnsupportedVersion(version));
        }
        let payload_len = read_u64(bytes, header::PAYLOAD_LEN);
        let actual = (bytes.len() - HEADER_LEN) as u64;
        if payload_len != actual {
            return Err(SnapshotError::Truncated {
                expected: payload_len,
                actual,
            });
        }
        let digest = read_key(bytes, header::DIGEST);
        if blake3::Hasher::new()
            .update_rayon(&bytes[HEADER_LEN..])
            .finalize()
            .as_bytes()
            != &digest
        {
            return Err(SnapshotError::DigestMismatch);
        }
        Ok(Header {
            count: read_u32(bytes, header::COUNT) as usize,
            field: read_u64(bytes, header::FIELD),
            digest,
        })
    }
}

impl Page {
    /// Maps `path` read-only and checks its header, directory and strings; its records are
    /// checked by `tables::validate`, which every page goes through before it is read
    /// (`tables::open_page`).
    pub(crate) fn map(path: &Path) -> Result<Self, SnapshotError> {
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
        Self::frame(Backing::Mapped(map))
    }

    /// [`Page::map`] for an in-memory page.
    pub(crate) fn own(bytes: Vec<u8>) -> Result<Self, SnapshotError> {
        Self::frame(Backing::Owned(bytes))
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

    /// Entry `i` of an index, offset or posting section: a row number.
    pub(crate) fn entry(&self, kind: SectionKind, i: usize) -> u32 {
        read_u32(self.record(kind, i), entry::ROW)
    }

    pub(crate) fn str_at(&self, record: &[u8], at: usize) -> &str {
        std::str::from_utf8(self.str_bytes_at(record, at)).unwrap_or("")
    }

    /// A string's bytes, without checking them again: indexes order by bytes, which for
    /// UTF-8 is the order of the strings, and every string was checked once at open.
    pub(crate) fn str_bytes_at(&self, record: &[u8], at: usize) -> &[u8] {
        let offset = read_u32(record, at) as usize;
        let len = read_u32(record, at + 4) as usize;
        let strings = &self.section(SectionKind::Strings).range;
        self.bytes()
            .get(strings.start + offset..strings.start + offset + len)
            .unwrap_or(&[])
    }

    fn frame(backing: Backing) -> Result<Self, SnapshotError> {
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
        Ok(Page {
            backing,
            number,
            digest,
            sections,
        })
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
            let code = read_u32(bytes, at + directory_entry::KIND);
            let kind = SectionKind::from_code(code)
                .ok_or_else(|| bad(format!("unknown section kind {code}")))?;
            let element_size = read_u32(bytes, at + directory_entry::ELEMENT_SIZE) as usize;
            if element_size != kind.element_size() {
                return Err(bad(format!(
                    "{kind:?} elements are {element_size} bytes, expected {}",
                    kind.element_size()
                )));
            }
            let offset = usize::try_from(read_u64(bytes, at + directory_entry::OFFSET))
                .map_err(|_| bad("offset overflows".into()))?;
            let length = usize::try_from(read_u64(bytes, at + directory_entry::LENGTH))
                .map_err(|_| bad("length overflows".into()))?;
            let count = usize::try_from(read_u64(bytes, at + directory_entry::COUNT))
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

    pub(crate) fn check_str(
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

    /// The symbol rows carrying `term` (see [`crate::terms`]), ascending, each with
    /// [`TERM_IN_NAME`] set when the symbol's own name carries it; `None` for a term no
    /// symbol of the page carries.
    pub(crate) fn term_postings(&self, term: &str) -> Option<Vec<u32>> {
        let run = self.run_of(TERMS, term)?;
        Some(
            run.map(|i| self.entry(SectionKind::TermPostings, i))
                .collect(),
        )
    }

    /// One past the last entry of name row `i` of `names`, whose rows start runs of
    /// `entries` (the next row's start at byte 8, or the end of `entries`): mention names
    /// and their entries, terms and their postings, requested names and the unresolved
    /// rows asking for them.
    pub(crate) fn run_end(&self, (names, entries): (SectionKind, SectionKind), i: usize) -> usize {
        if i + 1 < self.count(names) {
            read_u32(self.record(names, i + 1), run_name::RUN_START) as usize
        } else {
            self.count(entries)
        }
    }

    /// The run of `entries` that `name`'s row of `names` starts (names are sorted), if
    /// `names` holds it.
    fn run_of(&self, tables: (SectionKind, SectionKind), name: &str) -> Option<Range<usize>> {
        let names = tables.0;
        let count = self.count(names);
        let name_at = |i: usize| self.str_bytes_at(self.record(names, i), run_name::NAME);
        let at = partition_point(count, |i| name_at(i) < name.as_bytes());
        if at == count || name_at(at) != name.as_bytes() {
            return None;
        }
        let start = read_u32(self.record(names, at), run_name::RUN_START) as usize;
        Some(start..self.run_end(tables, at))
    }

    /// An unresolved row's field: its repository, its flags, its strings.
    pub(crate) fn unresolved_repository(&self, row: usize) -> u32 {
        read_u32(
            self.record(SectionKind::Unresolved, row),
            unresolved::REPOSITORY,
        )
    }
    fn unresolved_flag(&self, row: usize, flag: u8) -> bool {
        read_u8(self.record(SectionKind::Unresolved, row), unresolved::FLAGS) & flag != 0
    }
    pub(crate) fn unresolved_str(&self, row: usize, at: usize) -> &str {
        self.str_at(self.record(SectionKind::Unresolved, row), at)
    }
    pub(crate) fn unresolved_reason(&self, row: usize) -> &str {
        self.unresolved_str(row, unresolved::REASON)
    }
    pub(crate) fn unresolved_file_path(&self, row: usize) -> Option<&str> {
        self.unresolved_flag(row, unresolved::HAS_FILE)
            .then(|| self.unresolved_str(row, unresolved::FILE))
    }
    pub(crate) fn unresolved_requested_symbol(&self, row: usize) -> Option<&str> {
        self.unresolved_flag(row, unresolved::HAS_SYMBOL)
            .then(|| self.unresolved_str(row, unresolved::REQUESTED_SYMBOL))
    }
    pub(crate) fn unresolved_requested_package(&self, row: usize) -> Option<&str> {
        self.unresolved_flag(row, unresolved::HAS_PACKAGE)
            .then(|| self.unresolved_str(row, unresolved::REQUESTED_PACKAGE))
    }
    pub(crate) fn unresolved_lines(&self, row: usize) -> Option<(u32, u32)> {
        let r = self.record(SectionKind::Unresolved, row);
        self.unresolved_flag(row, unresolved::HAS_SPAN).then(|| {
            (
                read_u32(r, unresolved::START_LINE),
                read_u32(r, unresolved::END_LINE),
            )
        })
    }
    /// The name of repository row `row` ("" for none).
    pub(crate) fn repository_name(&self, row: u32) -> &str {
        if (row as usize) < self.count(SectionKind::Repositories) {
            self.str_at(
                self.record(SectionKind::Repositories, row as usize),
                repository::NAME,
            )
        } else {
            ""
        }
    }
    /// [`Page::repository_name`]'s bytes, for ordering (checked as UTF-8 once, at open).
    fn repository_name_bytes(&self, row: u32) -> &[u8] {
        if (row as usize) < self.count(SectionKind::Repositories) {
            self.str_bytes_at(
                self.record(SectionKind::Repositories, row as usize),
                repository::NAME,
            )
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
    pub(crate) fn index_key(&self, kind: SectionKind, i: u32) -> (&[u8], &[u8]) {
        // Every keyed table starts with its key.
        let key_of = |table: SectionKind| self.record(table, i as usize).get(..32).unwrap_or(&[]);
        match kind {
            SectionKind::NameIndex => (
                self.str_bytes_at(self.record(SectionKind::Symbols, i as usize), symbol::NAME),
                b"",
            ),
            SectionKind::QualifiedNameIndex => (
                self.str_bytes_at(
                    self.record(SectionKind::Symbols, i as usize),
                    symbol::QUALIFIED_NAME,
                ),
                b"",
            ),
            SectionKind::KeyIndex => (key_of(SectionKind::Symbols), b""),
            SectionKind::PackageKeyIndex => (key_of(SectionKind::Packages), b""),
            SectionKind::FileKeyIndex => (key_of(SectionKind::Files), b""),
            SectionKind::FilePathIndex => {
                let file = self.record(SectionKind::Files, i as usize);
                (
                    self.repository_name_bytes(read_u32(file, file::REPOSITORY)),
                    self.str_bytes_at(file, file::PATH),
                )
            }
            SectionKind::UnresolvedFileIndex => (
                self.repository_name_bytes(self.unresolved_repository(i as usize)),
                self.unresolved_bytes(i as usize, unresolved::HAS_FILE, unresolved::FILE),
            ),
            _ => (b"", b""),
        }
    }

    /// Table rows whose index key equals `probe`, via binary search on `kind`.
    pub(crate) fn lookup(&self, kind: SectionKind, probe: (&[u8], &[u8])) -> Vec<u32> {
        let len = self.count(kind);
        let entry = |i: usize| self.entry(kind, i);
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
        let offset = move |i: usize| self.entry(offsets, i) as usize;
        let range = if row + 1 < self.count(offsets) {
            offset(row)..offset(row + 1)
        } else {
            0..0
        };
        range.map(move |at| self.entry(entries, at))
    }

    /// The row of `ExternalNodes` holding `key`, if this page's edges reach it.
    pub(crate) fn external_row(&self, key: &StableKey) -> Option<usize> {
        if !self.may_reach(key) {
            return None;
        }
        let len = self.count(SectionKind::ExternalNodes);
        let key_at = |i: usize| {
            let r = self.record(SectionKind::ExternalNodes, i);
            r.get(external_node::KEY..external_node::KEY + 32)
                .unwrap_or(&[])
        };
        let at = partition_point(len, |i| key_at(i) < &key.0[..]);
        (at < len && key_at(at) == &key.0[..]).then_some(at)
    }

    /// Whether this page's external-node filter lets `key` through (never false for a key
    /// the page holds: open checked every one).
    pub(crate) fn may_reach(&self, key: &StableKey) -> bool {
        let words = self.count(SectionKind::ExternalFilter);
        filter_bits(&key.0, words).iter().all(|bit| {
            read_u64(
                self.record(SectionKind::ExternalFilter, bit / 64),
                filter_word::BITS,
            ) & (1 << (bit % 64))
                != 0
        })
    }

    /// External node `row`: its key, its table and the page that holds it.
    pub(crate) fn external_node(&self, row: usize) -> (StableKey, u8, u32) {
        let r = self.record(SectionKind::ExternalNodes, row);
        (
            StableKey(read_key(r, external_node::KEY)),
            read_u8(r, external_node::TABLE),
            read_u32(r, external_node::PAGE),
        )
    }

    /// Unresolved rows whose requested symbol's last segment is `name`, in table order.
    pub(crate) fn unresolved_requesting(&self, name: &str) -> Vec<u32> {
        self.run_of(REQUESTED, name)
            .into_iter()
            .flatten()
            .map(|i| self.entry(SectionKind::UnresolvedNameIndex, i))
            .collect()
    }

    /// The rows of `UnresolvedScopeIndex`, only one repository's when `repository` names it
    /// (the table is sorted by repository).
    pub(crate) fn unresolved_scopes(&self, repository: Option<&str>) -> Vec<u32> {
        let kind = SectionKind::UnresolvedScopeIndex;
        let row = |i: usize| self.entry(kind, i);
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
                (
                    read_u32(r, mention_entry::FILE),
                    read_u32(r, mention_entry::COUNT),
                )
            })
            .collect()
    }
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
