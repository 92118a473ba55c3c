//! A publication's pages, decoded for both the snapshot's layout and the canonical database,
//! which read the same pages on two threads: a page one has decoded the other reuses. Neither
//! ever waits for the other's decoding — a decoding runs rayon work of its own, and a rayon
//! worker blocked on it could be the one that work waits for (a deadlock, seen) — so two
//! writers reaching the same page at once both decode it and the first kept wins. They walk
//! the pages from opposite ends, so that is rare.

use std::sync::OnceLock;

use kivgraph_facts::{FactPage, FactSet};

pub(crate) struct Decoded<'a, P> {
    pages: &'a [P],
    facts: Vec<OnceLock<FactSet>>,
}

impl<'a, P: FactPage> Decoded<'a, P> {
    pub(crate) fn new(pages: &'a [P]) -> Self {
        Decoded {
            pages,
            facts: pages.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    pub(crate) fn pages(&self) -> &'a [P] {
        self.pages
    }

    /// The facts of the page at `index` in the publication's order.
    pub(crate) fn facts(&self, index: usize) -> &FactSet {
        if let Some(facts) = self.facts[index].get() {
            return facts;
        }
        let decoded = self.pages[index].facts();
        // Lost to the other writer: its decoding, equal to this one, is kept.
        let _ = self.facts[index].set(decoded);
        self.facts[index]
            .get()
            .expect("set above, by one writer or the other")
    }
}
