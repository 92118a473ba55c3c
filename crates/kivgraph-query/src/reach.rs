//! Which code could hold a use of a declaration: the files of its own repository, and in
//! another repository only files that can import its package — the repository depends on
//! that package (directly, or through registered packages, as a consumer of a barrel
//! re-exporting it does), or the file asked for the package and failed. A spelling of the
//! name anywhere else is no use of it, and no reason to call an answer a floor.

use kivgraph_facts::{EdgeKind, Language};
use kivgraph_snapshot::{FileView, NodeRef, PackageView, SymbolView};
use rustc_hash::FxHashSet;

use crate::packages::package_and_module;
use crate::published::Published;

/// The repositories that can reach a declaration's package, and that package's name as
/// importers spell it.
pub struct Reach {
    repositories: FxHashSet<usize>,
    package: String,
    /// Whether importing needs a declared dependency in the subject's language: Python code
    /// imports whatever its environment holds, declared or not.
    declared: bool,
}

impl Reach {
    pub fn of(published: &Published, subject: &SymbolView) -> Reach {
        let package = subject.file().package();
        let snapshot = &published.snapshot;
        let mut repositories = FxHashSet::default();
        repositories.insert(package.repository().index);
        let mut seen: FxHashSet<usize> = FxHashSet::from_iter([package.index]);
        let mut queue: Vec<usize> = vec![package.index];
        while let Some(next) = queue.pop() {
            for edge in snapshot.package_incoming(next) {
                if edge.kind() == EdgeKind::PackageDependsOn
                    && let NodeRef::Package(source) = edge.source()
                    && seen.insert(source)
                    && let Some(dependent) = snapshot.package(source)
                {
                    repositories.insert(dependent.repository().index);
                    queue.push(source);
                }
            }
        }
        Reach {
            repositories,
            package: display_package(&package),
            declared: subject.language() != Language::Python,
        }
    }

    /// Whether a repository can import the subject's package.
    pub fn repository(&self, repository: usize) -> bool {
        !self.declared || self.repositories.contains(&repository)
    }

    /// Whether `file` could hold a use: its repository reaches the package, or one of its
    /// imports asked for the package and failed.
    pub fn file(&self, published: &Published, file: &FileView) -> bool {
        let repository = file.repository();
        self.repository(repository.index)
            || published
                .snapshot
                .unresolved_in_file(repository.name(), file.path())
                .iter()
                .any(|row| row.requested_package() == Some(self.package.as_str()))
    }
}

/// A package as its language names it to an importer (a Go import path, not the module pair).
pub(crate) fn display_package(package: &PackageView) -> String {
    package_and_module(package.language(), package.name()).0
}
