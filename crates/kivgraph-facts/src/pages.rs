//! How a fact set is laid out in pages: each package, with everything observed in it, on
//! one page, so that a pass which changed one package rewrites one page. A package's page
//! is the one its key falls in, unless a large package holds that page alone
//! ([`Placement`]): then a page nobody holds, which its key picks.

use crate::{FactSet, KeyMap, StableKey};

/// How many pages every generation has. A package's page depends on its key and on which
/// packages are large, so a package stays on its page from one generation to the next.
pub const PAGE_COUNT: u32 = 64;

/// A package whose files hold this many bytes has a page of its own: laying a page out
/// costs in proportion to all it holds, and a small package sharing a page with a crate of
/// 300,000 lines paid for that crate on each of its own edits.
pub const OWN_PAGE_BYTES: u64 = 1 << 20;

/// At most this many pages are large packages' own, so that the others still spread the
/// small packages thinly.
const OWN_PAGES_AT_MOST: usize = PAGE_COUNT as usize / 2;

/// The page a key falls in: where a package goes unless a large one holds that page.
pub fn page_of(key: &StableKey) -> u32 {
    u32::from(key.0[0]) % PAGE_COUNT
}

/// Which page each package of a pass goes on: a large package (its files hold
/// [`OWN_PAGE_BYTES`] or more) on a page of its own, the largest first, at most
/// [`OWN_PAGES_AT_MOST`] of them, from the page its key falls in to the next free one;
/// every other package (and a repository's pass-wide rows, by the repository's key) on the
/// page its key falls in, or, when a large package holds that page, on a free page its key
/// picks among all of them — not the next one, which would pile the small packages of a run
/// of held pages onto one. It depends on the packages alone, whatever order they come in.
#[derive(Debug, Clone)]
pub struct Placement {
    own: KeyMap<u32>,
    /// The pages no large package holds, ascending.
    free: Vec<u32>,
}

impl Placement {
    /// The placement of `packages`, each a package's key and its files' bytes.
    pub fn new(packages: impl IntoIterator<Item = (StableKey, u64)>) -> Placement {
        let mut large: Vec<(StableKey, u64)> = packages
            .into_iter()
            .filter(|(_, bytes)| *bytes >= OWN_PAGE_BYTES)
            .collect();
        large.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut own = KeyMap::default();
        let mut held = [false; PAGE_COUNT as usize];
        for (key, _) in large.into_iter().take(OWN_PAGES_AT_MOST) {
            let page = (0..PAGE_COUNT)
                .map(|step| (page_of(&key) + step) % PAGE_COUNT)
                .find(|page| !held[*page as usize])
                .expect("half the pages at most are held");
            held[page as usize] = true;
            own.insert(key, page);
        }
        let free = (0..PAGE_COUNT)
            .filter(|page| !held[*page as usize])
            .collect();
        Placement { own, free }
    }

    /// The page of the package (or the repository) whose key is `key`.
    pub fn page(&self, key: &StableKey) -> u32 {
        if let Some(page) = self.own.get(key) {
            return *page;
        }
        let home = page_of(key);
        if self.free.binary_search(&home).is_ok() {
            return home;
        }
        // Bytes of the key `page_of` does not read.
        let pick = u32::from_le_bytes([key.0[1], key.0[2], key.0[3], key.0[4]]);
        self.free[pick as usize % self.free.len()]
    }
}

/// One page of a pass's facts, as the pass hands it to the store.
pub trait FactPage: Sync {
    fn number(&self) -> u32;
    /// Equal for two pages exactly when their facts are (a digest of what they are built
    /// from); `None` when the pass cannot tell, and the page is laid out again.
    fn identity(&self) -> Option<[u8; 32]>;
    /// The page's facts, canonical: every repository, the page's packages with their rows.
    fn facts(&self) -> FactSet;
}

impl FactSet {
    /// One fact set from its pages: every page lists every repository; the rest add up.
    pub fn from_pages(pages: impl IntoIterator<Item = FactSet>) -> FactSet {
        let mut facts = FactSet::default();
        for (i, page) in pages.into_iter().enumerate() {
            if i == 0 {
                facts.repositories = page.repositories;
            }
            facts.packages.extend(page.packages);
            facts.files.extend(page.files);
            facts.symbols.extend(page.symbols);
            facts.evidence.extend(page.evidence);
            facts.edges.extend(page.edges);
            facts.unresolved.extend(page.unresolved);
        }
        facts.canonicalize();
        facts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key falling in page `page`, told apart by `tag` (every other byte).
    fn key(page: u8, tag: u8) -> StableKey {
        let mut bytes = [tag; 32];
        bytes[0] = page;
        StableKey(bytes)
    }

    #[test]
    fn a_large_package_holds_its_page_alone_and_the_small_ones_of_that_page_spread() {
        let large = key(5, 1);
        let mut packages = vec![(large, OWN_PAGE_BYTES), (key(6, 3), 10)];
        packages.extend((10..60).map(|tag| (key(5, tag), OWN_PAGE_BYTES - 1)));
        let placement = Placement::new(packages.iter().copied());
        assert_eq!(placement.page(&large), 5);
        assert_eq!(
            placement.page(&key(6, 3)),
            6,
            "a free page keeps its packages"
        );
        assert_eq!(placement.page(&key(5, 2)), 45);
        let moved: std::collections::BTreeSet<u32> =
            (10..60).map(|tag| placement.page(&key(5, tag))).collect();
        assert!(!moved.contains(&5));
        assert_eq!(moved.len(), 50, "fifty small packages on fifty pages");
        // A key no package has (a repository's) is placed like a small package.
        assert_eq!(placement.page(&key(5, 9)), 10);
        assert_eq!(placement.page(&key(63, 9)), 63);
    }

    #[test]
    fn two_large_packages_of_one_page_take_it_and_the_next_the_larger_first() {
        let (larger, large) = (key(63, 2), key(63, 1));
        let placement = Placement::new([(large, OWN_PAGE_BYTES), (larger, 2 * OWN_PAGE_BYTES)]);
        assert_eq!(placement.page(&larger), 63);
        assert_eq!(placement.page(&large), 0, "wraps");
        assert_eq!(placement.page(&key(63, 7)), 4);
    }

    #[test]
    fn at_most_half_the_pages_are_large_packages_own() {
        let packages: Vec<(StableKey, u64)> = (0..PAGE_COUNT as u8)
            .map(|n| (key(n, n), OWN_PAGE_BYTES + u64::from(n)))
            .collect();
        let placement = Placement::new(packages.iter().copied());
        let own: Vec<u32> = (32..64).map(|n| placement.page(&key(n, n))).collect();
        assert_eq!(own, (32..64).collect::<Vec<_>>(), "the 32 largest");
        // The others are placed like small packages, on the pages nobody holds.
        assert_eq!(placement.page(&key(0, 0)), 0);
        assert_eq!(placement.page(&key(40, 99)), 3);
    }

    #[test]
    fn the_placement_does_not_depend_on_the_order_packages_come_in() {
        let packages = [
            (key(9, 1), 3 * OWN_PAGE_BYTES),
            (key(9, 2), 3 * OWN_PAGE_BYTES),
            (key(10, 3), OWN_PAGE_BYTES),
            (key(9, 4), 1),
        ];
        let forward = Placement::new(packages);
        let backward = Placement::new(packages.iter().rev().copied());
        let pages = |placement: &Placement| packages.map(|(key, _)| placement.page(&key));
        assert_eq!(pages(&forward), pages(&backward));
        assert_eq!(pages(&forward), [9, 10, 11, 40], "equal sizes by key");
    }
}
