//! Sorted indexes: a table's row numbers ordered by a key (a name, a qualified name, a
//! stable key, a repository and path), so a lookup is one binary search. What each index
//! orders by is `Page::index_key`.

use rayon::slice::ParallelSliceMut;

use crate::bytes::Out;
use crate::error::SnapshotError;
use crate::format::SectionKind;
use crate::page::Page;
use crate::tables::{first_error_in_runs, invalid};

/// Table positions ordered by `key`, ties by position.
pub(crate) fn write<'a>(len: usize, key: impl Fn(usize) -> (&'a [u8], &'a [u8]) + Sync) -> Out {
    // The key's first eight bytes (zero-padded, so a prefix sorts first), held beside the
    // position: most comparisons end there, without chasing the strings.
    let head = |bytes: &[u8]| {
        let mut head = [0u8; 8];
        let n = bytes.len().min(8);
        head[..n].copy_from_slice(&bytes[..n]);
        u64::from_be_bytes(head)
    };
    let mut order: Vec<(u64, u32)> = (0..len as u32)
        .map(|i| (head(key(i as usize).0), i))
        .collect();
    // Ties break by position, so the unstable sort is deterministic.
    order.par_sort_unstable_by(|(head_a, a), (head_b, b)| {
        head_a
            .cmp(head_b)
            .then_with(|| key(*a as usize).cmp(&key(*b as usize)))
            .then(a.cmp(b))
    });
    let mut out = Out::new(len * 4);
    for (_, i) in order {
        out.u32(i);
    }
    out
}

/// Every index: covering its table, every entry in range and in order, so binary search
/// is sound.
pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let symbols = page.count(SectionKind::Symbols);
    for (kind, table, limit) in [
        (SectionKind::NameIndex, "name index", symbols),
        (
            SectionKind::QualifiedNameIndex,
            "qualified name index",
            symbols,
        ),
        (SectionKind::KeyIndex, "key index", symbols),
        (
            SectionKind::PackageKeyIndex,
            "package key index",
            page.count(SectionKind::Packages),
        ),
        (
            SectionKind::FileKeyIndex,
            "file key index",
            page.count(SectionKind::Files),
        ),
        (
            SectionKind::FilePathIndex,
            "file path index",
            page.count(SectionKind::Files),
        ),
        (
            SectionKind::UnresolvedFileIndex,
            "unresolved file index",
            page.count(SectionKind::Unresolved),
        ),
    ] {
        if page.count(kind) != limit {
            return Err(invalid(table, 0, "does not cover its table"));
        }
        let entry = |i: usize| page.entry(kind, i);
        // In runs, each carrying the previous key: every key is read once per run.
        first_error_in_runs(limit, |run| {
            let mut previous = None;
            if run.start > 0 && (entry(run.start - 1) as usize) < limit {
                previous = Some(page.index_key(kind, entry(run.start - 1)));
            }
            for i in run {
                if entry(i) as usize >= limit {
                    return Err(invalid(table, i, "entry out of range"));
                }
                let key = page.index_key(kind, entry(i));
                if previous.is_some_and(|previous| previous > key) {
                    return Err(invalid(table, i, "entries out of order"));
                }
                previous = Some(key);
            }
            Ok(())
        })?;
    }
    Ok(())
}
