//! A generation's pages: laying out the ones a pass changed, linking the ones it did not,
//! and checking that the pages, new and old, still make one graph.
//!
//! A page whose identity (what the pass built it from) equals the previous generation's is
//! a hard link to the previous generation's files: unchanged pages cost neither layout nor
//! writing. A changed page is laid out beside the others: the nodes its edges reach in
//! other pages are looked up in the changed pages' facts, then in the previous generation's
//! unchanged pages, which are this generation's too.

use std::collections::HashSet;
use std::path::Path;

use kivgraph_facts::{FactPage, FactSet, KeyMap, StableKey};
use kivgraph_snapshot::{
    ExternalNode, ExternalTable, PAGES_DIRECTORY, Snapshot, page_file_name, write_page,
};
use rayon::prelude::*;

use crate::GenerationId;
use crate::decoded::Decoded;
use crate::error::{StoreError, io};
use crate::layout::{SNAPSHOT_FILE, write_synced};
use crate::manifest::{Counts, PageEntry};

/// Where each page's facts sit, beside the pages.
pub(crate) const FACTS_DIRECTORY: &str = "facts";

pub(crate) fn hex(digest: &[u8; 32]) -> String {
    blake3::Hash::from_bytes(*digest).to_hex().to_string()
}

/// `<number>-<digest>.bin`, like the page's own file (two pages may hold the same facts).
pub(crate) fn facts_file_name(number: u32, digest_hex: &str) -> String {
    format!("{number:02}-{digest_hex}.bin")
}

pub(crate) fn page_counts(facts: &FactSet) -> Counts {
    Counts {
        repositories: facts.repositories.len(),
        packages: facts.packages.len(),
        files: facts.files.len(),
        symbols: facts.symbols.len(),
        edges: facts.edges.len(),
        unresolved: facts.unresolved.len(),
        evidence: facts.evidence.len(),
    }
}

/// The generation's counts: every page lists every repository; the rest add up.
pub(crate) fn total_counts(pages: &[PageEntry]) -> Counts {
    let mut total = Counts {
        repositories: pages.first().map_or(0, |p| p.counts.repositories),
        ..Counts::default()
    };
    for page in pages {
        let c = &page.counts;
        total.packages += c.packages;
        total.files += c.files;
        total.symbols += c.symbols;
        total.edges += c.edges;
        total.unresolved += c.unresolved;
        total.evidence += c.evidence;
    }
    total
}

/// The previous generation, as far as this publication reuses it.
pub(crate) struct Previous<'a> {
    pub directory: &'a Path,
    pub pages: &'a [PageEntry],
    /// A snapshot validated before (the last this store published), whose pages its
    /// snapshot shares by digest instead of validating them again.
    pub kept: Option<&'a Snapshot>,
}

/// Links `name` under `subdirectory` of `from` into the same place under `to` (copies it
/// where a link cannot be made).
pub(crate) fn link(
    from: &Path,
    to: &Path,
    subdirectory: &str,
    name: &str,
) -> Result<(), StoreError> {
    let (source, copy) = (
        from.join(subdirectory).join(name),
        to.join(subdirectory).join(name),
    );
    if std::fs::hard_link(&source, &copy).is_err() {
        std::fs::copy(&source, &copy).map_err(io("copy", &source))?;
    }
    Ok(())
}

/// Links a page and its facts from the generation in `from` into `to`.
fn link_page(from: &Path, to: &Path, page: &PageEntry) -> Result<(), StoreError> {
    link(
        from,
        to,
        PAGES_DIRECTORY,
        &page_file_name(page.number, &unhex(&page.snapshot)),
    )?;
    link(
        from,
        to,
        FACTS_DIRECTORY,
        &facts_file_name(page.number, &page.facts),
    )
}

/// Links every page of `pages` (and its facts) from the generation in `from` into `to`.
pub(crate) fn link_pages(from: &Path, to: &Path, pages: &[PageEntry]) -> Result<(), StoreError> {
    create_directories(to)?;
    pages.iter().try_for_each(|page| link_page(from, to, page))
}

fn create_directories(directory: &Path) -> Result<(), StoreError> {
    for sub in [PAGES_DIRECTORY, FACTS_DIRECTORY] {
        let path = directory.join(sub);
        std::fs::create_dir_all(&path).map_err(io("create", &path))?;
    }
    Ok(())
}

/// A manifest's hex digest (zeros for one that is not: it then names no file).
pub(crate) fn unhex(text: &str) -> [u8; 32] {
    blake3::Hash::from_hex(text).map_or([0; 32], |hash| *hash.as_bytes())
}

/// What [`write_pages`] wrote.
pub(crate) struct WrittenPages {
    /// Every page's entry, by page number.
    pub entries: Vec<PageEntry>,
    /// The numbers of the pages laid out (the others are linked).
    pub laid_out: HashSet<u32>,
    /// The previous generation's snapshot, open, when its pages were shared.
    pub previous: Option<Snapshot>,
}

/// Writes the pages of a pass into `directory`: the unchanged ones linked from `previous`,
/// the others validated and laid out. `lap` closes each step's timing.
pub(crate) fn write_pages<P: FactPage>(
    directory: &Path,
    id: GenerationId,
    decoded: &Decoded<'_, P>,
    previous: Option<&Previous>,
    lap: &mut dyn FnMut(&'static str),
) -> Result<WrittenPages, StoreError> {
    create_directories(directory)?;
    let invalid = |reason: String| StoreError::Invalid { id, reason };
    let previous_entry =
        |number: u32| previous.and_then(|p| p.pages.iter().find(|entry| entry.number == number));
    // Each page's position and identity, computed once.
    let identified: Vec<(usize, &P, Option<[u8; 32]>)> = decoded
        .pages()
        .iter()
        .enumerate()
        .map(|(index, page)| (index, page, page.identity()))
        .collect();
    let (mut reused, changed): (Vec<_>, Vec<_>) =
        identified.iter().partition(|(_, page, identity)| {
            let identity = identity.map(|i| hex(&i));
            identity.is_some()
                && previous_entry(page.number()).is_some_and(|entry| entry.identity == identity)
        });
    let build =
        |pages: &[&(usize, &P, Option<[u8; 32]>)]| -> Vec<(u32, Option<[u8; 32]>, &FactSet)> {
            pages
                .par_iter()
                .map(|(index, page, identity)| (page.number(), *identity, decoded.facts(*index)))
                .collect()
        };
    // The changed pages decoded while the previous snapshot, whose pages this generation
    // keeps, is opened and validated.
    let (mut built, snapshot) = rayon::join(
        || build(&changed),
        || {
            previous
                .filter(|_| !reused.is_empty())
                .map(|p| Snapshot::open_after(&p.directory.join(SNAPSHOT_FILE), p.kept))
        },
    );
    let opened = match snapshot {
        Some(Err(error)) => {
            // Nothing is shared with a generation that does not read back whole.
            tracing::warn!(%error, "the served generation's snapshot is unreadable; every page is laid out again");
            built.extend(build(&reused));
            reused.clear();
            None
        }
        Some(Ok(snapshot)) => Some(snapshot),
        None => None,
    };
    let snapshot = opened.as_ref();
    lap("decode_changed_pages");
    let mut entries = Vec::with_capacity(decoded.pages().len());
    if let Some(previous) = previous {
        for (_, page, _) in &reused {
            let entry = previous_entry(page.number()).expect("a reused page has an entry");
            link_page(previous.directory, directory, entry)?;
            entries.push(entry.clone());
        }
    }
    let changed_numbers: HashSet<u32> = built.iter().map(|(n, _, _)| *n).collect();
    // The pages the previous generation shares with this one.
    let unchanged = |number: u32| !changed_numbers.contains(&number);
    // What the changed pages hold, by key.
    let mut held: KeyMap<ExternalNode> = KeyMap::default();
    let mut files: HashSet<(&str, &str)> = HashSet::new();
    for (number, _, facts) in &built {
        let node = |table, name| ExternalNode {
            table,
            page: *number,
            name,
        };
        let rows = facts
            .packages
            .iter()
            .map(|p| (p.key, node(ExternalTable::Package, "")))
            .chain(
                facts
                    .files
                    .iter()
                    .map(|f| (f.key, node(ExternalTable::File, ""))),
            )
            .chain(
                facts
                    .symbols
                    .iter()
                    .map(|s| (s.key, node(ExternalTable::Symbol, s.name.as_str()))),
            );
        for (key, node) in rows {
            if let Some(other) = held.insert(key, node) {
                return Err(invalid(format!(
                    "{key} is held twice (pages {} and {number})",
                    other.page
                )));
            }
        }
        files.extend(
            facts
                .files
                .iter()
                .map(|f| (f.repository.as_str(), f.path.as_str())),
        );
    }
    // Where the changed pages' nodes of other pages were: a page laid out again mostly
    // reaches what it reached before, and asking that page is one search, not one per page.
    let homes: KeyMap<u32> = snapshot.map_or_else(KeyMap::default, |snapshot| {
        changed_numbers
            .iter()
            .flat_map(|number| snapshot.reached_homes(*number))
            .filter(|(_, home)| unchanged(*home))
            .collect()
    });
    // A page's edges reach the same nodes of other pages again and again (every call of a
    // common function), and finding one may search every kept page: each is searched once.
    let searched: std::sync::Mutex<KeyMap<Option<ExternalNode>>> = Default::default();
    let lookup = |key: &StableKey| -> Option<ExternalNode> {
        if let Some(node) = held.get(key) {
            return Some(*node);
        }
        let snapshot = snapshot?;
        if let Some(node) = homes
            .get(key)
            .and_then(|home| snapshot.node_on_page(*home, key))
        {
            return Some(node);
        }
        if let Some(known) = searched.lock().expect("lookup memo").get(key) {
            return *known;
        }
        let node = snapshot.node_by_key(key, unchanged);
        searched.lock().expect("lookup memo").insert(*key, node);
        node
    };
    let file_elsewhere = |repository: &str, path: &str| {
        files.contains(&(repository, path))
            || snapshot.is_some_and(|s| s.holds_file(repository, path, unchanged))
    };
    if let Some(snapshot) = snapshot {
        check_against_previous(snapshot, &built, &held, &unchanged)
            .map_err(|e| invalid(e.to_string()))?;
    }
    lap("link_and_check_kept_pages");
    let laid_out: Vec<PageEntry> = built
        .par_iter()
        .map(|(number, identity, facts)| {
            let elsewhere = |key: &StableKey| lookup(key).is_some();
            facts.validate_page(&elsewhere, &file_elsewhere)?;
            let (page, encoded) = rayon::join(
                || write_page(*number, facts, &lookup),
                || postcard::to_stdvec(facts),
            );
            let page = page.map_err(|e| StoreError::Snapshot(e.to_string()))?;
            let encoded = encoded.map_err(|e| StoreError::Snapshot(e.to_string()))?;
            let facts_digest = blake3::hash(&encoded).to_hex().to_string();
            write_synced(
                &directory.join(PAGES_DIRECTORY).join(page.file_name()),
                &page.bytes,
            )?;
            write_synced(
                &directory
                    .join(FACTS_DIRECTORY)
                    .join(facts_file_name(*number, &facts_digest)),
                &encoded,
            )?;
            Ok(PageEntry {
                number: *number,
                identity: identity.map(|i| hex(&i)),
                snapshot: hex(&page.digest),
                facts: facts_digest,
                counts: page_counts(facts),
            })
        })
        .collect::<Result<_, StoreError>>()?;
    entries.extend(laid_out);
    entries.sort_by_key(|entry| entry.number);
    lap("validate_lay_out_and_write");
    Ok(WrittenPages {
        entries,
        laid_out: changed_numbers,
        previous: opened,
    })
}

/// What the changed pages dropped or added against the pages they share with the previous
/// generation: a node one of those pages still points at must not have gone, and a node
/// added must not be one they already hold.
fn check_against_previous(
    snapshot: &Snapshot,
    built: &[(u32, Option<[u8; 32]>, &FactSet)],
    held: &KeyMap<ExternalNode>,
    unchanged: &(dyn Fn(u32) -> bool + Sync),
) -> Result<(), PageConflict> {
    let before: HashSet<StableKey> = built
        .iter()
        .flat_map(|(number, _, _)| snapshot.page_keys(*number))
        .collect();
    if let Some(gone) = before
        .par_iter()
        .filter(|key| !held.contains_key(key))
        .find_first(|key| snapshot.reaches(key, unchanged))
    {
        return Err(PageConflict::Gone(*gone));
    }
    if let Some(added) = held
        .par_iter()
        .filter(|(key, _)| !before.contains(key))
        .find_first(|(key, _)| snapshot.node_by_key(key, unchanged).is_some())
    {
        return Err(PageConflict::HeldTwice {
            key: *added.0,
            page: added.1.page,
        });
    }
    Ok(())
}

/// A facts file that is not what its manifest says.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FactsFileError {
    #[error("{name}: {source}")]
    Unreadable {
        name: String,
        source: std::io::Error,
    },
    #[error("{name} does not match the digest in its manifest")]
    Digest { name: String },
    #[error("{name}: {source}")]
    Undecodable {
        name: String,
        source: postcard::Error,
    },
}

/// A changed page at odds with the pages the generation keeps from the served one.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PageConflict {
    #[error("{0} is gone, and a page this generation keeps points at it")]
    Gone(StableKey),
    #[error("{key} is held by page {page} and by a page this generation keeps")]
    HeldTwice { key: StableKey, page: u32 },
}

/// One facts file's bytes, checked against its digest in `entry`.
fn facts_bytes(directory: &Path, entry: &PageEntry) -> Result<(String, Vec<u8>), FactsFileError> {
    let name = facts_file_name(entry.number, &entry.facts);
    let bytes = match std::fs::read(directory.join(FACTS_DIRECTORY).join(&name)) {
        Ok(bytes) => bytes,
        Err(source) => return Err(FactsFileError::Unreadable { name, source }),
    };
    if blake3::hash(&bytes).to_hex().as_str() != entry.facts {
        return Err(FactsFileError::Digest { name });
    }
    Ok((name, bytes))
}

/// The generation's facts, page by page, each checked against its digest in `entries`.
pub(crate) fn read_facts(
    directory: &Path,
    entries: &[PageEntry],
) -> Result<FactSet, FactsFileError> {
    let pages: Vec<FactSet> = entries
        .par_iter()
        .map(|entry| read_page_facts(directory, entry))
        .collect::<Result<_, FactsFileError>>()?;
    Ok(FactSet::from_pages(pages))
}

/// One page's facts, checked against its digest in `entry`.
pub(crate) fn read_page_facts(
    directory: &Path,
    entry: &PageEntry,
) -> Result<FactSet, FactsFileError> {
    let (name, bytes) = facts_bytes(directory, entry)?;
    postcard::from_bytes(&bytes).map_err(|source| FactsFileError::Undecodable { name, source })
}

/// Checks the facts files of `entries` against their digests without decoding them.
pub(crate) fn check_facts_files(
    directory: &Path,
    entries: &[PageEntry],
) -> Result<(), FactsFileError> {
    entries
        .par_iter()
        .try_for_each(|entry| facts_bytes(directory, entry).map(|_| ()))
}

/// A whole fact set as one page (page 0): for callers that hold a fact set rather than a
/// pass's pages (tests, tools). It is laid out again on every publication.
pub struct SinglePage<'a>(pub &'a FactSet);

impl FactPage for SinglePage<'_> {
    fn number(&self) -> u32 {
        0
    }
    fn identity(&self) -> Option<[u8; 32]> {
        None
    }
    fn facts(&self) -> FactSet {
        self.0.clone()
    }
}

/// The root's entries: each page's number and payload digest.
pub(crate) fn root_entries(entries: &[PageEntry]) -> Vec<(u32, [u8; 32])> {
    entries
        .iter()
        .map(|entry| (entry.number, unhex(&entry.snapshot)))
        .collect()
}

/// The generation's facts digest: over its pages' facts digests, in page order.
pub(crate) fn facts_digest(entries: &[PageEntry]) -> String {
    let mut hasher = blake3::Hasher::new();
    for entry in entries {
        hasher.update(entry.facts.as_bytes());
    }
    hasher.finalize().to_hex().to_string()
}
