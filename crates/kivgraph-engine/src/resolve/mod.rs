//! Binding reference sites to declarations from syntax alone, where the language's rules
//! decide the binding. Each rule is written down in `docs/resolution.md`; a site no rule
//! binds stays unbound or becomes an `UNRESOLVED` row with its reason — never an edge from a
//! matching name.
//!
//! By language: Go calls, type names, values, embedding, promoted methods and implicit
//! interface satisfaction (`go/`; rules G1–G15); TypeScript and
//! JavaScript imports through barrels and package maps, calls, type names, values, heritage
//! and receivers (`typescript/`; T1–T11, H1); Python imports and re-exports, calls through
//! modules and `self`, providers (`python/`; P1–P8); Rust `use` trees and paths within a
//! crate and across `Cargo.toml` dependencies, trait impls and `self` (`rust/`; R1–R6);
//! overrides along `EXTENDS` chains (`overrides.rs`; H2). Each language's directory holds
//! its resolver beside the provider queries the package merges read.

pub mod go;
mod overrides;
pub mod python;
pub mod rust;
pub mod typescript;

use kivgraph_facts::{
    Confidence, Edge, EdgeKind, Evidence, FactSet, FileFact, Language, LineSpan, Provenance,
    Reason, StableKey, UnresolvedReference,
};

use crate::keys::evidence_key;

pub(crate) use overrides::class_overrides;

/// The reference relations this layer resolves for a language: every site of these kinds is
/// an edge or an `UNRESOLVED` row. Go's `IMPLEMENTS` is not among them: a method promoted
/// from an embedded type, or an interface embedding the standard library's, escapes it. A relation absent here is not extracted at all, so an
/// answer about it is a floor; the manifest publishes this per repository.
pub fn resolved_relations(language: Language) -> &'static [EdgeKind] {
    match language {
        Language::Go => &[EdgeKind::CallsDirect, EdgeKind::TypeUses, EdgeKind::Embeds],
        Language::TypeScript | Language::JavaScript | Language::Python => {
            &[EdgeKind::ImportsSymbol]
        }
        Language::Rust => &[],
    }
}

/// What one package's resolution adds to its facts.
#[derive(Default)]
pub(crate) struct Resolved {
    edges: Vec<Edge>,
    evidence: Vec<Evidence>,
    unresolved: Vec<UnresolvedReference>,
}

impl Resolved {
    /// One edge per target, all observed at one site: `STRUCTURAL_CERTAIN` when the rule
    /// proved every target bound, `CANDIDATE` otherwise.
    pub(crate) fn edges(
        &mut self,
        kind: EdgeKind,
        file: &FileFact,
        source: StableKey,
        span: LineSpan,
        targets: &[StableKey],
        certain: bool,
    ) {
        let confidence = if certain {
            Confidence::StructuralCertain
        } else {
            Confidence::Candidate
        };
        self.record(
            kind,
            (&file.repository, &file.path, span),
            source,
            targets,
            confidence,
        );
    }

    /// Certain edges observed at a declaration of `repository`/`path` rather than at a site.
    pub(crate) fn observed(
        &mut self,
        kind: EdgeKind,
        repository: &str,
        path: &str,
        source: StableKey,
        span: LineSpan,
        targets: &[StableKey],
    ) {
        let at = (repository, path, span);
        self.record(kind, at, source, targets, Confidence::StructuralCertain);
    }

    fn record(
        &mut self,
        kind: EdgeKind,
        (repository, path, span): (&str, &str, LineSpan),
        source: StableKey,
        targets: &[StableKey],
        confidence: Confidence,
    ) {
        let observed = evidence_key(repository, path, span);
        self.evidence.push(Evidence {
            key: observed,
            repository: repository.to_string(),
            file_path: path.to_string(),
            span,
        });
        self.edges.extend(targets.iter().map(|target| Edge {
            kind,
            source,
            target: *target,
            confidence,
            provenance: Provenance::TreeSitterSyntax,
            evidence: Some(observed),
        }));
    }

    /// `PACKAGE_DEPENDS_ON` from the importing file's package to the package an import
    /// resolved into, observed at the import: never from a manifest alone, never to itself.
    pub(crate) fn depends(
        &mut self,
        file: &FileFact,
        provider: StableKey,
        span: LineSpan,
        certain: bool,
    ) {
        if provider != file.package {
            self.edges(
                EdgeKind::PackageDependsOn,
                file,
                file.package,
                span,
                &[provider],
                certain,
            );
        }
    }

    /// A declared hole: a site no rule could bind, with its reason.
    pub(crate) fn hole(
        &mut self,
        file: &FileFact,
        reason: Reason,
        span: LineSpan,
        symbol: Option<&str>,
        package: Option<&str>,
        detail: String,
    ) {
        self.unresolved.push(UnresolvedReference {
            repository: file.repository.clone(),
            language: file.language,
            reason,
            file_path: Some(file.path.clone()),
            span: Some(span),
            requested_symbol: symbol.map(str::to_string),
            requested_package: package.map(str::to_string),
            detail,
        });
    }

    pub(crate) fn append_to(mut self, facts: &mut FactSet) {
        // One site can back several edges (an import binds a name and a package dependency):
        // its observation is one row.
        self.evidence.sort_by_key(|e| e.key);
        self.evidence.dedup_by_key(|e| e.key);
        facts.edges.extend(self.edges);
        facts.evidence.extend(self.evidence);
        facts.unresolved.extend(self.unresolved);
    }
}
