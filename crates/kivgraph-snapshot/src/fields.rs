//! Every record's layout, one list of fields per table: each field's byte offset and the
//! record's length follow from the list, and the writer puts, the validator checks and the
//! reader reads fields by these names only. A string field is its offset in the string
//! section and its length (u32 each); `pad N` is N zero bytes. Each list states its length,
//! checked when the crate compiles: lengths are part of the format version.

/// `LEN` and one offset constant per field, in order.
macro_rules! layout {
    (@at $at:expr;) => {
        pub(crate) const LEN: usize = $at;
    };
    (@at $at:expr; pad $n:literal $(, $($rest:tt)*)?) => {
        layout!(@at $at + $n; $($($rest)*)?);
    };
    (@at $at:expr; $field:ident: $ty:ident $(, $($rest:tt)*)?) => {
        pub(crate) const $field: usize = $at;
        layout!(@at $at + layout!(@size $ty); $($($rest)*)?);
    };
    (@size u8) => { 1 };
    (@size u32) => { 4 };
    (@size u64) => { 8 };
    (@size str) => { 8 };
    (@size key) => { 32 };
    (@size magic) => { 8 };
    ($len:literal bytes: $($fields:tt)*) => {
        layout!(@at 0; $($fields)*);
        const _: () = assert!(LEN == $len, "a record's length changed: bump FORMAT_VERSION");
    };
}

/// A root's or a page's header: `COUNT` is a page's sections or a root's pages, `FIELD` a
/// page's number or a root's generation; the digest is the payload's (all that follows).
pub(crate) mod header {
    layout!(64 bytes: MAGIC: magic, VERSION: u32, COUNT: u32, FIELD: u64, PAYLOAD_LEN: u64,
        DIGEST: key);
}

/// A page's section directory entry.
pub(crate) mod directory_entry {
    layout!(32 bytes: KIND: u32, ELEMENT_SIZE: u32, OFFSET: u64, LENGTH: u64, COUNT: u64);
}

/// A root's entry: one page, by number and payload digest.
pub(crate) mod root_entry {
    layout!(40 bytes: NUMBER: u32, pad 4, DIGEST: key);
}

pub(crate) mod repository {
    layout!(64 bytes: NAME: str, ROOT: str, KEY: key, LANGUAGES: u32, FILE_START: u32,
        FILE_COUNT: u32, pad 4);
}

pub(crate) mod package {
    layout!(56 bytes: KEY: key, REPOSITORY: u32, LANGUAGE: u8, pad 3, NAME: str, PATH: str);
}

pub(crate) mod file {
    layout!(112 bytes: KEY: key, FINGERPRINT: key, REPOSITORY: u32, PACKAGE: u32, PATH: str,
        LANGUAGE: u8, pad 3, LINE_COUNT: u32, BYTE_LEN: u64, SYMBOL_START: u32,
        SYMBOL_COUNT: u32, PARSE_ISSUES: u32, pad 4);
}

pub(crate) mod symbol {
    layout!(112 bytes: KEY: key, FILE: u32, PACKAGE: u32, PARENT: u32, KIND: u8, LANGUAGE: u8,
        FLAGS: u8, pad 1, NAME: str, QUALIFIED_NAME: str, SIGNATURE: str, DOC: str,
        KEY_MODULE: str, KEY_DISCRIMINATOR: str, START_LINE: u32, END_LINE: u32,
        START_BYTE: u32, END_BYTE: u32);
    pub(crate) const FLAG_EXPORTED: u8 = 1;
    pub(crate) const FLAG_HAS_DOC: u8 = 2;
}

pub(crate) mod edge {
    layout!(24 bytes: KIND: u8, CONFIDENCE: u8, PROVENANCE: u8, SOURCE_TABLE: u8,
        TARGET_TABLE: u8, pad 3, SOURCE: u32, TARGET: u32, EVIDENCE: u32, pad 4);

    /// Where one endpoint sits in the record: its table byte and its row.
    #[derive(Clone, Copy)]
    pub(crate) struct Endpoint {
        pub(crate) table: usize,
        pub(crate) row: usize,
    }
    pub(crate) const FROM: Endpoint = Endpoint {
        table: SOURCE_TABLE,
        row: SOURCE,
    };
    pub(crate) const TO: Endpoint = Endpoint {
        table: TARGET_TABLE,
        row: TARGET,
    };
}

pub(crate) mod unresolved {
    layout!(56 bytes: REPOSITORY: u32, LANGUAGE: u8, FLAGS: u8, pad 2, REASON: str, FILE: str,
        REQUESTED_SYMBOL: str, REQUESTED_PACKAGE: str, DETAIL: str, START_LINE: u32,
        END_LINE: u32);
    /// Which optional fields are present.
    pub(crate) const HAS_FILE: u8 = 1;
    pub(crate) const HAS_SPAN: u8 = 2;
    pub(crate) const HAS_SYMBOL: u8 = 4;
    pub(crate) const HAS_PACKAGE: u8 = 8;
}

pub(crate) mod evidence {
    layout!(56 bytes: KEY: key, REPOSITORY: u32, FILE: u32, START_LINE: u32, END_LINE: u32,
        START_BYTE: u32, END_BYTE: u32);
    /// Set in the file field when the file is a row of `ExternalFiles`.
    pub(crate) const EXTERNAL_FILE: u32 = 1 << 31;
}

/// A name that starts a run of another table's entries: the run ends where the next name's
/// starts (see `Page::run_end`).
pub(crate) mod run_name {
    layout!(12 bytes: NAME: str, RUN_START: u32);
}

/// A mention name: a run name with the run's total count.
pub(crate) mod mention_name {
    layout!(16 bytes: NAME: str, RUN_START: u32, TOTAL: u32);
}

pub(crate) mod mention_entry {
    layout!(8 bytes: FILE: u32, COUNT: u32);
}

pub(crate) mod external_node {
    layout!(40 bytes: KEY: key, TABLE: u8, pad 3, PAGE: u32);
}

pub(crate) mod external_file {
    layout!(16 bytes: REPOSITORY: u32, pad 4, PATH: str);
}

/// The entries of index, offset and posting sections: one row number.
pub(crate) mod entry {
    layout!(4 bytes: ROW: u32);
}

/// A word of the external-node filter.
pub(crate) mod filter_word {
    layout!(8 bytes: BITS: u64);
}

// The run tables share where a run starts, which `Page::run_end` reads for all of them.
const _: () = assert!(run_name::NAME == mention_name::NAME);
const _: () = assert!(run_name::RUN_START == mention_name::RUN_START);
