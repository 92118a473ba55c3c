//! The fact model: the tables a pass produces and a generation publishes.
//!
//! Every table is kept in a canonical order (`FactSet::canonicalize`) so that the same input
//! produces byte-identical serialized facts whatever the scheduler did.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use serde::{Deserialize, Serialize};

use crate::key::{KeyMap, StableKey};
use crate::vocabulary::{Confidence, EdgeKind, Language, Provenance, Reason, SymbolKind};

/// BLAKE3-256 of a file's bytes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
pub struct Fingerprint(pub [u8; 32]);

impl Fingerprint {
    pub fn of(bytes: &[u8]) -> Self {
        Fingerprint(*blake3::hash(bytes).as_bytes())
    }

    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The fingerprint [`Fingerprint::to_hex`] spelled; `None` for anything else.
    pub fn from_hex(text: &str) -> Option<Self> {
        blake3::Hash::from_hex(text)
            .ok()
            .map(|hash| Fingerprint(*hash.as_bytes()))
    }
}

impl std::fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fingerprint({})", &self.to_hex()[..16])
    }
}

/// A 1-based, inclusive line range plus the byte range it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LineSpan {
    pub start_line: u32,
    pub end_line: u32,
    pub start_byte: u32,
    pub end_byte: u32,
}

impl LineSpan {
    /// Where a declaration starts: its first line, empty in bytes. What a fact observed at
    /// the declaration as a whole (an implementation, an override) points to.
    pub fn start(self) -> LineSpan {
        LineSpan {
            end_line: self.start_line,
            end_byte: self.start_byte,
            ..self
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RepositoryFact {
    pub key: StableKey,
    pub name: String,
    /// Absolute path of the checkout when it was indexed.
    pub root: String,
    pub languages: Vec<Language>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PackageFact {
    pub key: StableKey,
    pub repository: String,
    pub language: Language,
    /// The package identity: Go `<module> <import path>`, npm name, crate name, dotted Python package.
    pub name: String,
    /// Repository-relative directory of the package ("" for the root).
    pub path: String,
}

/// Where tree-sitter had to recover from a syntax error.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ParseIssue {
    pub line: u32,
    pub column: u32,
    pub message: String,
    /// Names the unreadable region spells where declarations stand (not inside a function
    /// body): a declaration of one of them may be missing. Empty when the error sits inside a
    /// body, where no declaration can hide.
    pub hidden_names: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FileFact {
    pub key: StableKey,
    pub repository: String,
    /// Repository-relative, `/`-separated.
    pub path: String,
    pub language: Language,
    pub package: StableKey,
    pub fingerprint: Fingerprint,
    pub line_count: u32,
    pub byte_len: u64,
    pub parse_issues: Vec<ParseIssue>,
    /// Every identifier the file spells outside comments and strings, with how often, sorted
    /// by name: what a `\bname\b` search would find, so a reference answer can prove that no
    /// use of a name went unbound.
    pub mentions: Vec<Mention>,
}

/// One identifier of a file's census.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Mention {
    pub name: String,
    pub count: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SymbolFact {
    pub key: StableKey,
    pub repository: String,
    pub language: Language,
    pub package: StableKey,
    pub file_path: String,
    pub name: String,
    pub qualified_name: String,
    pub kind: SymbolKind,
    /// The declaration's signature as the source spells it (whitespace collapsed).
    pub signature: String,
    pub exported: bool,
    pub span: LineSpan,
    /// First sentence of the attached doc comment.
    pub doc: Option<String>,
    /// The containing declaration (a member's type, a method's receiver or impl type).
    pub parent: Option<StableKey>,
    /// The `module` and `discriminator` fields of the key's canonical identity, exactly as
    /// hashed, so anyone can recompute the key from what the graph publishes.
    pub key_module: String,
    pub key_discriminator: String,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Evidence {
    pub key: StableKey,
    pub repository: String,
    pub file_path: String,
    pub span: LineSpan,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Edge {
    pub kind: EdgeKind,
    pub source: StableKey,
    pub target: StableKey,
    pub confidence: Confidence,
    pub provenance: Provenance,
    pub evidence: Option<StableKey>,
}

/// A reference the pass could not resolve. Kept, with its reason: a declared hole is a fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnresolvedReference {
    pub repository: String,
    pub language: Language,
    pub reason: Reason,
    pub file_path: Option<String>,
    pub span: Option<LineSpan>,
    pub requested_symbol: Option<String>,
    pub requested_package: Option<String>,
    pub detail: String,
}

/// Rows sort by their reason's wire name, as they did when the reason was a string: the
/// canonical order of a fact set does not move with the codes.
impl Ord for UnresolvedReference {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        fn key(u: &UnresolvedReference) -> impl Ord + '_ {
            (
                u.repository.as_str(),
                u.language,
                u.reason.as_str(),
                u.file_path.as_deref(),
                u.span,
                u.requested_symbol.as_deref(),
                u.requested_package.as_deref(),
                u.detail.as_str(),
            )
        }
        key(self).cmp(&key(other))
    }
}

impl PartialOrd for UnresolvedReference {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Everything one pass asserts, in canonical order.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FactSet {
    pub repositories: Vec<RepositoryFact>,
    pub packages: Vec<PackageFact>,
    pub files: Vec<FileFact>,
    pub symbols: Vec<SymbolFact>,
    pub evidence: Vec<Evidence>,
    pub edges: Vec<Edge>,
    pub unresolved: Vec<UnresolvedReference>,
}

/// One broken invariant, with up to twenty samples.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvariantViolation {
    pub rule: &'static str,
    pub count: usize,
    pub samples: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the candidate graph breaks {} invariant(s): {}", .0.len(), .0.iter().map(|v| format!("{} ({}; e.g. {})", v.rule, v.count, v.samples.first().map(String::as_str).unwrap_or("-"))).collect::<Vec<_>>().join(", "))]
pub struct FactSetError(pub Vec<InvariantViolation>);

/// The rules a publishable graph satisfies, in the order `doctor graph` prints them.
pub const INVARIANTS: &[&str] = &[
    "exact_edge_without_source",
    "exact_edge_without_target",
    "missing_evidence_file",
    "duplicate_stable_key",
    "unknown_confidence",
    "invalid_repository_ownership",
    "symbol_without_single_definition",
];

const MAX_SAMPLES: usize = 20;

impl FactSet {
    /// Sorts every table into its canonical order: repositories by name, then within a
    /// repository packages by key, files by (package, path) and declarations by (package,
    /// file, position). A file's declarations are contiguous and in source order, and so
    /// are a package's files. Sorting already-canonical tables costs one linear pass.
    pub fn canonicalize(&mut self) {
        self.repositories.sort_by(|a, b| a.name.cmp(&b.name));
        self.packages
            .sort_by(|a, b| (&a.repository, a.key).cmp(&(&b.repository, b.key)));
        self.files.sort_by(|a, b| {
            (&a.repository, a.package, &a.path).cmp(&(&b.repository, b.package, &b.path))
        });
        self.symbols.sort_by(|a, b| {
            (
                &a.repository,
                a.package,
                &a.file_path,
                a.span.start_byte,
                a.span.end_byte,
                a.key,
            )
                .cmp(&(
                    &b.repository,
                    b.package,
                    &b.file_path,
                    b.span.start_byte,
                    b.span.end_byte,
                    b.key,
                ))
        });
        self.evidence.sort();
        self.edges.sort();
        self.edges.dedup();
        self.unresolved.sort();
    }

    /// Checks every invariant; `Ok` only when all hold.
    pub fn validate(&self) -> Result<(), FactSetError> {
        self.validate_page(&|_| false, &|_, _| false)
    }

    /// One report per rule of [`INVARIANTS`], passing or not.
    pub fn check_invariants(&self) -> Vec<InvariantViolation> {
        self.check_invariants_beside(&|_| false, &|_, _| false)
    }

    /// Checks one page of a fact set ([`crate::page_of`]): a node another page holds
    /// (`elsewhere`) is an edge's endpoint like one of its own, and so is a file of another
    /// page an observation was made in (`file_elsewhere`, by repository and path).
    pub fn validate_page(
        &self,
        elsewhere: &dyn Fn(&StableKey) -> bool,
        file_elsewhere: &dyn Fn(&str, &str) -> bool,
    ) -> Result<(), FactSetError> {
        let violations: Vec<_> = self
            .check_invariants_beside(elsewhere, file_elsewhere)
            .into_iter()
            .filter(|v| v.count > 0)
            .collect();
        if violations.is_empty() {
            Ok(())
        } else {
            Err(FactSetError(violations))
        }
    }

    fn check_invariants_beside(
        &self,
        elsewhere: &dyn Fn(&StableKey) -> bool,
        file_elsewhere: &dyn Fn(&str, &str) -> bool,
    ) -> Vec<InvariantViolation> {
        let mut reports: HashMap<&'static str, InvariantViolation> = INVARIANTS
            .iter()
            .map(|rule| {
                (
                    *rule,
                    InvariantViolation {
                        rule,
                        count: 0,
                        samples: Vec::new(),
                    },
                )
            })
            .collect();
        let mut fail = |rule: &'static str, sample: String| {
            let report = reports.get_mut(rule).expect("rule is listed in INVARIANTS");
            report.count += 1;
            if report.samples.len() < MAX_SAMPLES {
                report.samples.push(sample);
            }
        };

        // Node ownership: which repository every key belongs to, and which table declared it.
        let mut owner: KeyMap<(&'static str, &str)> = KeyMap::default();
        let repositories: rustc_hash::FxHashSet<&str> =
            self.repositories.iter().map(|r| r.name.as_str()).collect();
        let mut nodes: Vec<(&'static str, StableKey, &str)> = Vec::new();
        nodes.extend(
            self.repositories
                .iter()
                .map(|r| ("Repository", r.key, r.name.as_str())),
        );
        nodes.extend(
            self.packages
                .iter()
                .map(|p| ("Package", p.key, p.repository.as_str())),
        );
        nodes.extend(
            self.files
                .iter()
                .map(|f| ("File", f.key, f.repository.as_str())),
        );
        nodes.extend(
            self.symbols
                .iter()
                .map(|s| ("Symbol", s.key, s.repository.as_str())),
        );
        nodes.extend(
            self.evidence
                .iter()
                .map(|e| ("Evidence", e.key, e.repository.as_str())),
        );
        for (table, key, repository) in nodes {
            if let Some((other, _)) = owner.insert(key, (table, repository)) {
                fail("duplicate_stable_key", format!("{table}/{other} {key}"));
            }
            if !repositories.contains(repository) {
                fail(
                    "invalid_repository_ownership",
                    format!("{table} {key}: unknown repository {repository:?}"),
                );
            }
        }

        let package_repo: KeyMap<&str> = self
            .packages
            .iter()
            .map(|p| (p.key, p.repository.as_str()))
            .collect();
        for file in &self.files {
            match package_repo.get(&file.package) {
                Some(repo) if *repo == file.repository => {}
                _ => fail(
                    "invalid_repository_ownership",
                    format!(
                        "File {} {}: package not in its repository",
                        file.key, file.path
                    ),
                ),
            }
        }
        let file_repo: FxHashMap<(&str, &str), StableKey> = self
            .files
            .iter()
            .map(|f| ((f.repository.as_str(), f.path.as_str()), f.key))
            .collect();
        for symbol in &self.symbols {
            if !file_repo.contains_key(&(symbol.repository.as_str(), symbol.file_path.as_str())) {
                fail(
                    "invalid_repository_ownership",
                    format!(
                        "Symbol {} {}: declared in no file of {}",
                        symbol.key, symbol.qualified_name, symbol.repository
                    ),
                );
            }
        }
        for evidence in &self.evidence {
            if !file_repo.contains_key(&(evidence.repository.as_str(), evidence.file_path.as_str()))
                && !file_elsewhere(&evidence.repository, &evidence.file_path)
            {
                fail(
                    "missing_evidence_file",
                    format!(
                        "Evidence {} observed in no file ({})",
                        evidence.key, evidence.file_path
                    ),
                );
            }
        }

        let evidence_keys: KeyMap<()> = self.evidence.iter().map(|e| (e.key, ())).collect();
        let mut definitions: KeyMap<usize> = KeyMap::default();
        for edge in &self.edges {
            if edge.kind == EdgeKind::Defines {
                *definitions.entry(edge.target).or_default() += 1;
            }
        }
        for edge in &self.edges {
            let label = format!("{} {} -> {}", edge.kind, edge.source, edge.target);
            if edge.confidence.is_exact() {
                if !owner.contains_key(&edge.source) && !elsewhere(&edge.source) {
                    fail("exact_edge_without_source", label.clone());
                }
                if !owner.contains_key(&edge.target) && !elsewhere(&edge.target) {
                    fail("exact_edge_without_target", label.clone());
                }
            }
            if let Some(evidence) = edge.evidence
                && !evidence_keys.contains_key(&evidence)
            {
                fail(
                    "missing_evidence_file",
                    format!("{label}: evidence {evidence} does not exist"),
                );
            }
            let exact_claim = matches!(
                edge.confidence,
                Confidence::ExactTypechecked
                    | Confidence::ExactDeclarationMapped
                    | Confidence::ExactPackageMapped
            );
            if exact_claim && !edge.provenance.is_exact() {
                fail(
                    "unknown_confidence",
                    format!("{label}: {} backed by {}", edge.confidence, edge.provenance),
                );
            }
        }
        for symbol in &self.symbols {
            let count = definitions.get(&symbol.key).copied().unwrap_or(0);
            if count != 1 {
                fail(
                    "symbol_without_single_definition",
                    format!(
                        "Symbol {} {} has {count} DEFINES",
                        symbol.key, symbol.qualified_name
                    ),
                );
            }
        }
        INVARIANTS
            .iter()
            .map(|rule| reports.remove(rule).expect("every rule has a report"))
            .collect()
    }
}
