//! Binding reference sites to declarations from syntax alone, where the language's rules
//! decide the binding. Each rule is written down in `docs/resolution.md`; a site no rule
//! binds stays unbound or becomes an `UNRESOLVED` row with its reason — never an edge from a
//! matching name.
//!
//! Resolved so far: Go calls of a bare name within the package.

use std::collections::{HashMap, HashSet};

use kivgraph_facts::{
    Confidence, Edge, EdgeKind, Evidence, FactSet, FileFact, LineSpan, Provenance, StableKey,
    SymbolKind, UnresolvedReference,
};
use kivgraph_syntax::ReferenceSite;
use serde::{Deserialize, Serialize};

use crate::queries::evidence_key;

/// A call of a bare name (`helper(x)`), as one file's memo keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BareCall {
    pub name: String,
    pub span: LineSpan,
    /// Index of the enclosing declaration among the file's symbols.
    pub enclosing: Option<u32>,
    /// The enclosing top-level declaration binds the name locally somewhere.
    pub locally_bound: bool,
}

/// The sites the resolver reads: bare-name calls whose scopes the syntax layer read.
pub fn bare_calls(sites: Vec<ReferenceSite>) -> Vec<BareCall> {
    sites
        .into_iter()
        .filter(|site| site.kind == EdgeKind::CallsDirect && site.qualifier.is_none())
        .filter_map(|site| {
            Some(BareCall {
                locally_bound: site.locally_bound?,
                name: site.name,
                span: site.span,
                enclosing: site.enclosing,
            })
        })
        .collect()
}

/// One Go file of the package: its bare calls and where its symbols sit in the package's
/// symbol table.
pub struct FileCalls<'a> {
    pub file: &'a FileFact,
    pub first_symbol: usize,
    pub symbol_count: usize,
    pub package_clause: &'a str,
    pub calls: &'a [BareCall],
}

/// Go's predeclared functions and types (a conversion `int(x)` is spelled as a call): one
/// that the package does not redeclare is neither an edge nor a failure.
const GO_UNIVERSE: &[&str] = &[
    "append",
    "cap",
    "clear",
    "close",
    "complex",
    "copy",
    "delete",
    "imag",
    "len",
    "make",
    "max",
    "min",
    "new",
    "panic",
    "print",
    "println",
    "real",
    "recover",
    "any",
    "bool",
    "byte",
    "comparable",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
];

/// Go's package block spans every file of the package, and a package-level name cannot be
/// declared twice in one build. So a bare call `f()` that no enclosing scope rebinds denotes
/// the package's function `f`: `STRUCTURAL_CERTAIN`. Where the enclosing declaration binds
/// `f` somewhere, or where several files declare `f` (build-constrained variants), each
/// package function `f` is only a `CANDIDATE`. A name that is not a package function is
/// another kind of value (a conversion, a function variable, a builtin, a local closure) and
/// yields no call edge; a name declared nowhere the pass can see is `NAME_NOT_RESOLVED`.
pub fn resolve_go_bare_calls(facts: &mut FactSet, files: &[FileCalls]) {
    // Keyed by package clause: one directory can hold `foo`, `foo_test` and a build-ignored
    // `main`, and a bare name only reaches its own package's block.
    let mut functions: HashMap<(&str, &str), Vec<StableKey>> = HashMap::new();
    let mut package_names: HashSet<(&str, &str)> = HashSet::new();
    for file in files {
        let declared = &facts.symbols[file.first_symbol..file.first_symbol + file.symbol_count];
        for symbol in declared.iter().filter(|s| s.parent.is_none()) {
            let name = (file.package_clause, symbol.name.as_str());
            package_names.insert(name);
            if symbol.kind == SymbolKind::Func {
                functions.entry(name).or_default().push(symbol.key);
            }
        }
    }
    let package_path = facts
        .packages
        .first()
        .map(|p| p.name.clone())
        .unwrap_or_default();
    let mut edges = Vec::new();
    let mut evidence = Vec::new();
    let mut unresolved = Vec::new();
    for FileCalls {
        file,
        first_symbol,
        package_clause,
        calls,
        ..
    } in files
    {
        for call in calls.iter() {
            let name = (*package_clause, call.name.as_str());
            let Some(enclosing) = call.enclosing else {
                continue;
            };
            let source = facts.symbols[first_symbol + enclosing as usize].key;
            match functions.get(&name) {
                Some(targets) => {
                    let certain = targets.len() == 1 && !call.locally_bound;
                    let observed = evidence_key(&file.repository, &file.path, call.span);
                    evidence.push(Evidence {
                        key: observed,
                        repository: file.repository.clone(),
                        file_path: file.path.clone(),
                        span: call.span,
                    });
                    edges.extend(targets.iter().map(|target| Edge {
                        kind: EdgeKind::CallsDirect,
                        source,
                        target: *target,
                        confidence: if certain {
                            Confidence::StructuralCertain
                        } else {
                            Confidence::Candidate
                        },
                        provenance: Provenance::TreeSitterSyntax,
                        evidence: Some(observed),
                    }));
                }
                None if call.locally_bound
                    || package_names.contains(&name)
                    || GO_UNIVERSE.contains(&call.name.as_str()) => {}
                None => unresolved.push(UnresolvedReference {
                    repository: file.repository.clone(),
                    language: file.language,
                    reason: "NAME_NOT_RESOLVED".into(),
                    file_path: Some(file.path.clone()),
                    span: Some(call.span),
                    requested_symbol: Some(call.name.clone()),
                    requested_package: None,
                    detail: format!(
                        "`{}` is declared nowhere in package {package_clause} ({package_path}) that this pass read, and is neither predeclared nor local; it may come from a dot import or a file the pass did not index",
                        call.name
                    ),
                }),
            }
        }
    }
    facts.edges.extend(edges);
    facts.evidence.extend(evidence);
    facts.unresolved.extend(unresolved);
}
