//! Stable keys: how each node's identity (`docs/stable-keys.md`) is derived from its
//! repository, package, file and declaration.

use kivgraph_facts::{
    Confidence, Edge, EdgeKind, Language, Provenance, StableKey, StableKeyIdentity, SymbolKind,
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

pub use kivgraph_facts::{evidence_key, file_key};

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
