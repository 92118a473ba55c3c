//! A publication's pages, each decoded once: the snapshot's layout and the canonical
//! database read the same pages on two threads, and whichever asks for a page first decodes
//! it while the other waits for that one decoding instead of repeating it.

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
        self.facts[index].get_or_init(|| self.pages[index].facts())
    }
}
