//! The root and page headers, the section kinds and their element sizes (records' layouts
//! are in `crate::fields`), and the rules the writer and the reader share.
//!
//! A snapshot is a root file and the pages it names. The root:
//!
//! ```text
//! header (64 bytes)   magic "KIVGSNAP" · format version u32 · page count u32 ·
//!                     generation u64 · payload length u64 · payload BLAKE3-256 (32 bytes)
//! entries             page count × 40 bytes: page number u32 · pad u32 ·
//!                     the page's payload BLAKE3-256 (32 bytes), by ascending page number
//! ```
//!
//! A page (`pages/<digest>.kgp`, named by its payload digest) holds the packages whose key
//! falls in its page number, with their files, declarations, edges, observations and
//! failures, and every repository:
//!
//! ```text
//! header (64 bytes)   magic "KIVGPAGE" · format version u32 · section count u32 ·
//!                     page number u64 · payload length u64 · payload BLAKE3-256 (32 bytes)
//! directory           section count × 32 bytes: kind u32 · element size u32 ·
//!                     offset u64 · length u64 · element count u64
//! sections            each 8-byte aligned, `length == count × element size`, no overlap
//! ```
//! A payload is everything after its header: a page's bytes do not depend on the
//! generation, so a generation links the pages it shares with the one before, and two
//! generations of the same facts have byte-identical payloads and digests. All integers are
//! little-endian.

use crate::fields;

pub const MAGIC: &[u8; 8] = b"KIVGSNAP";
pub const PAGE_MAGIC: &[u8; 8] = b"KIVGPAGE";
pub const FORMAT_VERSION: u32 = 5;
pub const ROOT_ENTRY_LEN: usize = fields::root_entry::LEN;
pub const HEADER_LEN: usize = fields::header::LEN;
pub const DIRECTORY_ENTRY_LEN: usize = fields::directory_entry::LEN;
pub const ALIGN: usize = 8;
pub const NONE: u32 = u32::MAX;

macro_rules! sections {
    ($($variant:ident = $code:literal, $size:expr;)*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
        pub enum SectionKind { $($variant = $code,)* }

        impl SectionKind {
            pub const ALL: &'static [SectionKind] = &[$(SectionKind::$variant,)*];

            pub fn from_code(code: u32) -> Option<Self> {
                match code { $($code => Some(SectionKind::$variant),)* _ => None }
            }

            /// Bytes per element.
            pub const fn element_size(self) -> usize {
                match self { $(SectionKind::$variant => $size,)* }
            }
        }
    };
}

sections! {
    Strings = 1, 1;
    Repositories = 2, fields::repository::LEN;
    Packages = 3, fields::package::LEN;
    Files = 4, fields::file::LEN;
    Symbols = 5, fields::symbol::LEN;
    NameIndex = 6, fields::entry::LEN;
    QualifiedNameIndex = 7, fields::entry::LEN;
    KeyIndex = 8, fields::entry::LEN;
    FilePathIndex = 9, fields::entry::LEN;
    Edges = 10, fields::edge::LEN;
    Unresolved = 11, fields::unresolved::LEN;
    Evidence = 12, fields::evidence::LEN;
    ForwardOffsets = 13, fields::entry::LEN;
    ForwardEdges = 14, fields::entry::LEN;
    ReverseOffsets = 15, fields::entry::LEN;
    ReverseEdges = 16, fields::entry::LEN;
    UnresolvedNameIndex = 17, fields::entry::LEN;
    MentionNames = 18, fields::mention_name::LEN;
    MentionEntries = 19, fields::mention_entry::LEN;
    UnresolvedScopeIndex = 20, fields::entry::LEN;
    UnresolvedFileIndex = 21, fields::entry::LEN;
    PackageReverseOffsets = 22, fields::entry::LEN;
    PackageReverseEdges = 23, fields::entry::LEN;
    TermNames = 24, fields::run_name::LEN;
    TermPostings = 25, fields::entry::LEN;
    ExternalNodes = 26, fields::external_node::LEN;
    ExternalOffsets = 27, fields::entry::LEN;
    ExternalEdges = 28, fields::entry::LEN;
    PackageKeyIndex = 29, fields::entry::LEN;
    FileKeyIndex = 30, fields::entry::LEN;
    ExternalFiles = 31, fields::external_file::LEN;
    ExternalSourceOffsets = 32, fields::entry::LEN;
    ExternalSourceEdges = 33, fields::entry::LEN;
    RequestedNames = 34, fields::run_name::LEN;
    ExternalFilter = 35, fields::filter_word::LEN;
}

// Adjacency is compressed sparse rows over the symbol table: `ForwardOffsets` holds
// `symbols + 1` ascending offsets into `ForwardEdges`, whose entries are edge positions whose
// source is that symbol, in edge order; `Reverse*` is the same by target. Edges with a
// non-symbol endpoint (containment, DEFINES) are reached through their tables instead.
// `PackageReverse*` is the same by target over the package table: who depends on a package.
//
// `UnresolvedNameIndex` orders the unresolved rows that request a symbol by the last segment
// of the requested name (after the final `.` or `::`), so "failures that asked for this
// name" is one binary search.
//
// `ExternalFilter` is a Bloom filter over the keys of `ExternalNodes` (`filter_bits`): a walk
// asks each other page whether its edges reach a node, and most pages answer no without a
// binary search.
//
// `RequestedNames` is each distinct requested name of `UnresolvedNameIndex`, sorted, with the
// start of its run there: "failures that asked for this name" is one binary search on plain
// strings.
//
// `UnresolvedScopeIndex` lists, in table order, the rows that describe a scope rather than
// a site: those without a file (a repository or package nobody could read) and PARSE_ERROR
// rows (a region of a file that was recovered).
//
// `UnresolvedFileIndex` orders every unresolved row by (repository name, file path), rows
// without a file first, so "the failures one declaration made" is a binary search and a
// line filter.
//
// `MentionNames` is every name some file of the page spells more often than the graph
// explains (declarations, observations backing edges into declarations of that name,
// failures that asked for it), sorted; each row points at its run of `MentionEntries` (file position,
// unexplained occurrences), by file.
//
// `ExternalNodes` are the endpoints of this page's edges that other pages hold, by key
// ascending (each once): an edge endpoint in table `TABLE_EXTERNAL` is a row of it.
// `ExternalOffsets`/`ExternalEdges` are compressed sparse rows over them, by target: which
// edges of this page point into another page at that node — what `incoming` asks every
// other page for; `ExternalSourceOffsets`/`ExternalSourceEdges` the same by source (an
// edge a package's analysis found starting at another package's declaration, a type
// implementing its interface), what `outgoing` asks. `PackageKeyIndex` and `FileKeyIndex` order those tables by key, so a
// node another page names is one binary search away. `ExternalFiles` are the files of
// observations made in another page's file (an evidence row's file with
// `EXTERNAL_FILE` set is a row of it).
//
// `TermNames` is every term (`terms`) of the symbols' names, qualified names, kinds and file
// paths, sorted; each row points at its run of `TermPostings`: symbol positions ascending,
// with `TERM_IN_NAME` set when the symbol's own name carries the term.

/// The table an edge endpoint lives in.
pub const TABLE_REPOSITORY: u8 = 1;
pub const TABLE_PACKAGE: u8 = 2;
pub const TABLE_FILE: u8 = 3;
pub const TABLE_SYMBOL: u8 = 4;
pub const TABLE_EVIDENCE: u8 = 5;
pub const TABLE_EXTERNAL: u8 = 6;

/// The words of an external-node filter for `nodes` keys: about ten bits a key, a power of two.
pub fn filter_words(nodes: usize) -> usize {
    (nodes * 10).div_ceil(64).next_power_of_two().max(1)
}

/// The three bits of a filter of `words` words a key sets: keys are BLAKE3 digests, so
/// their bytes are already uniformly spread.
pub fn filter_bits(key: &[u8; 32], words: usize) -> [usize; 3] {
    let bits = (words * 64) as u64;
    [0, 8, 16].map(|at| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&key[at..at + 8]);
        (u64::from_le_bytes(word) % bits) as usize
    })
}

/// The simple name an unresolved row asks for: the last segment of its requested symbol
/// (`Type.Method` asks for `Method`, `crate::m::f` for `f`).
pub fn requested_name(requested: &str) -> &str {
    let after_path = requested.rsplit("::").next().unwrap_or(requested);
    after_path.rsplit('.').next().unwrap_or(after_path)
}

/// Whether an unresolved row describes an unreadable scope rather than one failed site.
pub fn is_scope_row(file_path: Option<&str>, reason: &str) -> bool {
    file_path.is_none() || reason == "PARSE_ERROR"
}
