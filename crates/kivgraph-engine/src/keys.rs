//! Stable keys: how each node's identity (`docs/stable-keys.md`) is derived from its
//! repository, package, file and declaration.

use kivgraph_facts::{
    Confidence, Edge, EdgeKind, Language, LineSpan, Provenance, StableKey, StableKeyIdentity,
    SymbolKind,
};

use crate::inputs::UnitInput;

pub(crate) fn stable_key(identity: StableKeyIdentity) -> StableKey {
    identity
        .key()
        .expect("identity fields are non-empty by construction")
}

/// Node keys share the symbol key algorithm, with the node table as the kind.
pub fn repository_key(name: &str) -> StableKey {
    stable_key(StableKeyIdentity {
        language: "*",
        repository: name,
        package: name,
        module: "",
        qualified_name: name,
        kind: "repository",
        discriminator: "none",
    })
}

pub fn package_key(language: Language, repository: &str, package: &str) -> StableKey {
    stable_key(StableKeyIdentity {
        language: language.as_str(),
        repository,
        package,
        module: "",
        qualified_name: package,
        kind: "package",
        discriminator: "none",
    })
}

pub fn file_key(repository: &str, path: &str) -> StableKey {
    path_key(repository, path, "file", "none")
}

/// An observation's key: the file and the byte range it was seen at.
pub fn evidence_key(repository: &str, path: &str, span: LineSpan) -> StableKey {
    let range = format!("{}-{}", span.start_byte, span.end_byte);
    path_key(repository, path, "evidence", &range)
}

/// Keys of what a repository-relative path identifies, outside any language or package.
fn path_key(repository: &str, path: &str, kind: &str, discriminator: &str) -> StableKey {
    stable_key(StableKeyIdentity {
        language: "*",
        repository,
        package: "*",
        module: "",
        qualified_name: path,
        kind,
        discriminator,
    })
}

pub(crate) fn structural(
    kind: EdgeKind,
    source: StableKey,
    target: StableKey,
    provenance: Provenance,
) -> Edge {
    Edge {
        kind,
        source,
        target,
        confidence: Confidence::StructuralCertain,
        provenance,
        evidence: None,
    }
}

/// The package identity and module that enter a symbol's key, per language.
pub(crate) fn key_scope(language: Language, unit: &UnitInput) -> (&str, &str) {
    match language {
        Language::Go | Language::Rust => (&unit.package, ""),
        Language::TypeScript | Language::JavaScript | Language::Python => {
            (&unit.package, &unit.module)
        }
    }
}

pub(crate) fn symbol_key(
    language: Language,
    repository: &str,
    unit: &UnitInput,
    qualified_name: &str,
    kind: SymbolKind,
    discriminator: &str,
) -> StableKey {
    let (package, module) = key_scope(language, unit);
    stable_key(StableKeyIdentity {
        language: language.as_str(),
        repository,
        package,
        module,
        qualified_name,
        kind: kind.as_str(),
        discriminator,
    })
}
