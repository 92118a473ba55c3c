//! A pass's facts as the store publishes them: each package on its page ([`Placement`]).
//!
//! A page is its packages' memo values, not yet decoded: its identity is the digest of
//! those values (and of the repositories every page lists), which the fact cache knows
//! without decoding anything, so the store tells an unchanged page from a changed one for
//! the price of a hash, and decodes and lays out only the pages a pass changed.

use std::sync::Arc;

use kivgraph_facts::{
    FactPage, FactSet, PAGE_COUNT, Placement, RepositoryFact, UnresolvedReference,
};

use crate::keys::repository_key;
use crate::merge::gather;
use crate::merge::{RepositoryFacts, WorkspaceFacts};
use crate::stored::Stored;

/// One page of a pass: every repository, the packages whose key falls on it, and the
/// pass-wide rows of the repositories whose key does (a repository nobody could read).
#[derive(Debug, Clone)]
pub struct EnginePage {
    number: u32,
    /// The build that lays the page out (the fact cache's identity): a new build lays out
    /// every page again, whatever its facts.
    build: Arc<str>,
    repositories: Arc<Vec<Arc<RepositoryFacts>>>,
    /// (repository position, package position) in `repositories`.
    packages: Vec<(usize, usize)>,
    pass_wide: Vec<UnresolvedReference>,
}

impl WorkspaceFacts {
    /// The workspace in [`PAGE_COUNT`] pages laid out by `build`, with `pass_wide` rows
    /// (about a repository as a whole) on their repository's page.
    pub fn pages(&self, build: &str, pass_wide: &[UnresolvedReference]) -> Vec<EnginePage> {
        let repositories = Arc::new(self.repositories.clone());
        let build: Arc<str> = Arc::from(build);
        let mut pages: Vec<EnginePage> = (0..PAGE_COUNT)
            .map(|number| EnginePage {
                number,
                build: Arc::clone(&build),
                repositories: Arc::clone(&repositories),
                packages: Vec::new(),
                pass_wide: Vec::new(),
            })
            .collect();
        let placement = Placement::new(
            self.repositories
                .iter()
                .flat_map(|r| &r.packages)
                .map(|package| (package.key, package.source_bytes)),
        );
        for (r, repository) in self.repositories.iter().enumerate() {
            for (p, package) in repository.packages.iter().enumerate() {
                pages[placement.page(&package.key) as usize]
                    .packages
                    .push((r, p));
            }
        }
        for row in pass_wide {
            pages[placement.page(&repository_key(&row.repository)) as usize]
                .pass_wide
                .push(row.clone());
        }
        pages
    }
}

impl EnginePage {
    fn parts(&self) -> Vec<(&RepositoryFacts, &Stored<FactSet>)> {
        self.packages
            .iter()
            .map(|(r, p)| {
                let repository = self.repositories[*r].as_ref();
                (repository, &repository.packages[*p].facts)
            })
            .collect()
    }

    fn repository_rows(&self) -> Vec<RepositoryFact> {
        self.repositories
            .iter()
            .map(|r| r.repository.clone())
            .collect()
    }
}

impl FactPage for EnginePage {
    fn number(&self) -> u32 {
        self.number
    }

    fn identity(&self) -> Option<[u8; 32]> {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&self.number.to_le_bytes());
        hasher.update(self.build.as_bytes());
        hasher.update(&postcard::to_stdvec(&self.repository_rows()).ok()?);
        hasher.update(&postcard::to_stdvec(&self.pass_wide).ok()?);
        for (repository, facts) in self.parts() {
            hasher.update(repository.repository.name.as_bytes());
            hasher.update(&facts.digest_or_encode()?);
        }
        Some(*hasher.finalize().as_bytes())
    }

    fn facts(&self) -> FactSet {
        gather(
            self.repository_rows(),
            &self.parts(),
            self.pass_wide.clone(),
        )
    }
}
