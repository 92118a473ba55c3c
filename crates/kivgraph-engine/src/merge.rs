//! The merges above the packages: a repository's facts and the workspace's, which share
//! the packages' analysed facts by `Arc` and are recomputed by every process.

use std::sync::Arc;

use rayon::prelude::*;

use kivgraph_facts::{
    Edge, EdgeKind, FactSet, Provenance, RepositoryFact, StableKey, UnresolvedReference,
};

use crate::analysis::analyzed_package_facts;
use crate::database::Db;
use crate::inputs::{RepositoryInput, Workspace, analyzers_deferred};
use crate::keys::{repository_key, structural};
use crate::packages::package_facts;
use crate::stored::Stored;

/// One repository's merged facts: its own node and containment edges, and its packages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepositoryFacts {
    pub repository: RepositoryFact,
    /// Sorted by package key.
    pub packages: Vec<PackageFacts>,
}

/// One package of a repository, as the pages take it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageFacts {
    pub key: StableKey,
    /// What its files hold, in bytes: what decides whether it has a page of its own.
    pub source_bytes: u64,
    /// Decoded when read.
    pub facts: Stored<FactSet>,
}

impl RepositoryFacts {
    /// `CONTAINS_PACKAGE` from the repository to a package whose facts hold it.
    pub(crate) fn contains(&self, package: &FactSet) -> Option<Edge> {
        package.packages.first().map(|p| {
            structural(
                EdgeKind::ContainsPackage,
                self.repository.key,
                p.key,
                Provenance::PackageManifest,
            )
        })
    }
}

/// The whole workspace, shared structurally: a one-file edit rebuilds one package's facts
/// and a couple of vectors of pointers, nothing else.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorkspaceFacts {
    /// Sorted by repository name.
    pub repositories: Vec<Arc<RepositoryFacts>>,
}

impl WorkspaceFacts {
    pub fn symbol_count(&self) -> usize {
        self.repositories
            .iter()
            .flat_map(|r| &r.packages)
            .map(|package| package.facts.symbols.len())
            .sum()
    }

    /// The canonical fact set: repositories by name, packages by key, files by path,
    /// declarations in source order. Decodes every package: a publication reads pages
    /// instead ([`crate::pages`], through [`gather`]).
    pub fn to_fact_set(&self) -> FactSet {
        let parts: Vec<(&RepositoryFacts, &Stored<FactSet>)> = self
            .repositories
            .iter()
            .flat_map(|r| {
                r.packages
                    .iter()
                    .map(move |package| (r.as_ref(), &package.facts))
            })
            .collect();
        let repositories = self
            .repositories
            .iter()
            .map(|r| r.repository.clone())
            .collect();
        gather(repositories, &parts, Vec::new())
    }
}

/// One repository: its packages, in key order, and the edges that contain them.
#[salsa::tracked(returns(clone))]
pub fn repository_facts(db: &dyn Db, repository: RepositoryInput) -> Arc<RepositoryFacts> {
    let name = repository.name(db);
    let deferred = analyzers_deferred(db, name);
    let packages = repository
        .packages(db)
        .iter()
        .map(|p| {
            let facts = if deferred {
                package_facts(db, *p)
            } else {
                analyzed_package_facts(db, *p)
            };
            PackageFacts {
                key: p.key(db),
                source_bytes: p.files(db).iter().map(|f| f.byte_len(db)).sum(),
                facts,
            }
        })
        .collect();
    Arc::new(RepositoryFacts {
        repository: RepositoryFact {
            key: repository_key(name),
            name: name.clone(),
            root: repository.root(db).clone(),
            languages: repository.languages(db).clone(),
        },
        packages,
    })
}

/// Every repository, sorted by name. Structural sharing: nothing is copied.
#[salsa::tracked(returns(clone))]
pub fn workspace_facts(db: &dyn Db, workspace: Workspace) -> Arc<WorkspaceFacts> {
    let mut repositories: Vec<Arc<RepositoryFacts>> = workspace
        .repositories(db)
        .iter()
        .map(|r| repository_facts(db, *r))
        .collect();
    repositories.sort_by(|a, b| a.repository.name.cmp(&b.repository.name));
    Arc::new(WorkspaceFacts { repositories })
}

/// The canonical fact set of `parts` (each a package's facts in its repository), with every
/// repository and the `pass_wide` rows: the packages decoded on both cores, each table
/// gathered in package order.
pub(crate) fn gather(
    repositories: Vec<RepositoryFact>,
    parts: &[(&RepositoryFacts, &Stored<FactSet>)],
    pass_wide: Vec<UnresolvedReference>,
) -> FactSet {
    let decoded: Vec<(&RepositoryFacts, Arc<FactSet>)> = parts
        .par_iter()
        .map(|(repository, facts)| (*repository, facts.arc()))
        .collect();
    let packages: Vec<&FactSet> = decoded.iter().map(|(_, facts)| facts.as_ref()).collect();
    fn table<T: Clone + Send>(packages: &[&FactSet], rows: impl Fn(&FactSet) -> &Vec<T>) -> Vec<T> {
        let mut out = Vec::with_capacity(packages.iter().map(|p| rows(p).len()).sum());
        for package in packages {
            out.extend(rows(package).iter().cloned());
        }
        out
    }
    let ((symbols, evidence), (edges, (files, mut unresolved))) = rayon::join(
        || {
            rayon::join(
                || table(&packages, |p| &p.symbols),
                || table(&packages, |p| &p.evidence),
            )
        },
        || {
            rayon::join(
                || {
                    let mut edges =
                        Vec::with_capacity(decoded.iter().map(|(_, p)| p.edges.len() + 1).sum());
                    for (repository, package) in &decoded {
                        edges.extend(repository.contains(package));
                        edges.extend(package.edges.iter().cloned());
                    }
                    edges
                },
                || {
                    (
                        table(&packages, |p| &p.files),
                        table(&packages, |p| &p.unresolved),
                    )
                },
            )
        },
    );
    unresolved.extend(pass_wide);
    let mut facts = FactSet {
        repositories,
        packages: table(&packages, |p| &p.packages),
        files,
        symbols,
        evidence,
        edges,
        unresolved,
    };
    facts.canonicalize();
    facts
}
