//! Layout constants shared by the writer and the reader.
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

pub const MAGIC: &[u8; 8] = b"KIVGSNAP";
pub const PAGE_MAGIC: &[u8; 8] = b"KIVGPAGE";
pub const FORMAT_VERSION: u32 = 5;
/// page number u32 · pad u32 · page payload digest 32
pub const ROOT_ENTRY_LEN: usize = 40;
pub const HEADER_LEN: usize = 64;
pub const DIRECTORY_ENTRY_LEN: usize = 32;
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
    Repositories = 2, REPOSITORY_LEN;
    Packages = 3, PACKAGE_LEN;
    Files = 4, FILE_LEN;
    Symbols = 5, SYMBOL_LEN;
    NameIndex = 6, 4;
    QualifiedNameIndex = 7, 4;
    KeyIndex = 8, 4;
    FilePathIndex = 9, 4;
    Edges = 10, EDGE_LEN;
    Unresolved = 11, UNRESOLVED_LEN;
    Evidence = 12, EVIDENCE_LEN;
    ForwardOffsets = 13, 4;
    ForwardEdges = 14, 4;
    ReverseOffsets = 15, 4;
    ReverseEdges = 16, 4;
    UnresolvedNameIndex = 17, 4;
    MentionNames = 18, MENTION_NAME_LEN;
    MentionEntries = 19, MENTION_ENTRY_LEN;
    UnresolvedScopeIndex = 20, 4;
    UnresolvedFileIndex = 21, 4;
    PackageReverseOffsets = 22, 4;
    PackageReverseEdges = 23, 4;
    TermNames = 24, TERM_NAME_LEN;
    TermPostings = 25, 4;
    ExternalNodes = 26, EXTERNAL_NODE_LEN;
    ExternalOffsets = 27, 4;
    ExternalEdges = 28, 4;
    PackageKeyIndex = 29, 4;
    FileKeyIndex = 30, 4;
    ExternalFiles = 31, EXTERNAL_FILE_LEN;
    ExternalSourceOffsets = 32, 4;
    ExternalSourceEdges = 33, 4;
    RequestedNames = 34, REQUESTED_NAME_LEN;
    ExternalFilter = 35, 8;
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

/// name str · root str · key 32 · languages bitmask u32 · file start u32 · file count u32 · pad u32
pub const REPOSITORY_LEN: usize = 64;
/// key 32 · repository u32 · language u8 + pad 3 · name str · path str
pub const PACKAGE_LEN: usize = 56;
/// key 32 · fingerprint 32 · repository u32 · package u32 · path str · language u8 + pad 3 ·
/// line count u32 · byte length u64 · symbol start u32 · symbol count u32 · parse issues u32 · pad u32
pub const FILE_LEN: usize = 112;
/// key 32 · file u32 · package u32 · parent u32 · kind u8 · language u8 · flags u8 · pad u8 ·
/// name str · qualified name str · signature str · doc str · key module str · key
/// discriminator str · start line · end line · start byte · end byte (u32 each)
pub const SYMBOL_LEN: usize = 112;
/// kind u8 · confidence u8 · provenance u8 · source table u8 · target table u8 · pad 3 ·
/// source u32 · target u32 · evidence u32 · pad u32
pub const EDGE_LEN: usize = 24;
/// repository u32 · language u8 · flags u8 · pad 2 · reason str · file str · requested symbol str ·
/// requested package str · detail str · start line u32 · end line u32
pub const UNRESOLVED_LEN: usize = 56;
/// key 32 · repository u32 · file u32 · start line · end line · start byte · end byte
pub const EVIDENCE_LEN: usize = 56;

/// name str · entry start u32 · total count u32
pub const MENTION_NAME_LEN: usize = 16;
/// file u32 · count u32
pub const MENTION_ENTRY_LEN: usize = 8;

/// term str · posting start u32
pub const TERM_NAME_LEN: usize = 12;

/// name str · start of its run in `UnresolvedNameIndex` u32
pub const REQUESTED_NAME_LEN: usize = 12;

/// key 32 · table u8 (`TABLE_SYMBOL`, `TABLE_PACKAGE` or `TABLE_FILE`) · pad 3 · owning page u32
pub const EXTERNAL_NODE_LEN: usize = 40;
/// repository u32 · pad u32 · path str
pub const EXTERNAL_FILE_LEN: usize = 16;
/// Set in an evidence row's file field when the file is a row of `ExternalFiles`.
pub const EXTERNAL_FILE: u32 = 1 << 31;

/// Symbol flags.
pub const FLAG_EXPORTED: u8 = 1;
pub const FLAG_HAS_DOC: u8 = 2;

/// Unresolved flags: which optional fields are present.
pub const UNRESOLVED_HAS_FILE: u8 = 1;
pub const UNRESOLVED_HAS_SPAN: u8 = 2;
pub const UNRESOLVED_HAS_SYMBOL: u8 = 4;
pub const UNRESOLVED_HAS_PACKAGE: u8 = 8;

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
