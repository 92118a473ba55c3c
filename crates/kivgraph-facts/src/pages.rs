//! How a fact set is laid out in pages: each package, with everything observed in it, on
//! the page its key falls in, so that a pass which changed one package rewrites one page.

use crate::{FactSet, StableKey};

/// How many pages every generation has. A package's page depends on its key alone, so a
/// package stays on its page from one generation to the next.
pub const PAGE_COUNT: u32 = 64;

/// The page of a package (or of a repository's pass-wide rows: by the repository's key).
pub fn page_of(key: &StableKey) -> u32 {
    u32::from(key.0[0]) % PAGE_COUNT
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
