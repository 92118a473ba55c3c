//! Frozen codes. A code is never renumbered or reused: new values are appended.

use serde::{Deserialize, Serialize};

/// A code or name that is not part of the vocabulary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} {value:?} is not part of the vocabulary")]
pub struct UnknownCode {
    pub what: &'static str,
    pub value: String,
}

/// Declares a vocabulary enum with frozen `u8` codes and stable wire names.
macro_rules! vocabulary {
    ($(#[$meta:meta])* $name:ident, $what:literal { $($variant:ident = $code:literal, $text:literal;)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(into = "u8", try_from = "u8")]
        #[repr(u8)]
        pub enum $name { $($variant = $code,)* }

        impl $name {
            /// Every value, in code order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            pub const fn code(self) -> u8 { self as u8 }

            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            pub fn from_code(code: u8) -> Result<Self, UnknownCode> {
                match code {
                    $($code => Ok($name::$variant),)*
                    other => Err(UnknownCode { what: $what, value: other.to_string() }),
                }
            }

            pub fn parse(text: &str) -> Result<Self, UnknownCode> {
                match text {
                    $($text => Ok($name::$variant),)*
                    other => Err(UnknownCode { what: $what, value: other.to_string() }),
                }
            }
        }

        impl From<$name> for u8 {
            fn from(value: $name) -> u8 { value.code() }
        }

        impl TryFrom<u8> for $name {
            type Error = UnknownCode;
            fn try_from(code: u8) -> Result<Self, UnknownCode> { $name::from_code(code) }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

vocabulary! {
    /// What relates two nodes of the graph.
    EdgeKind, "edge kind" {
        ContainsPackage = 1, "CONTAINS_PACKAGE";
        ContainsFile = 2, "CONTAINS_FILE";
        Defines = 3, "DEFINES";
        PackageDependsOn = 4, "PACKAGE_DEPENDS_ON";
        ModuleDependsOn = 5, "MODULE_DEPENDS_ON";
        ImportsSymbol = 6, "IMPORTS_SYMBOL";
        Exports = 7, "EXPORTS";
        Reexports = 8, "REEXPORTS";
        References = 9, "REFERENCES";
        CallsDirect = 10, "CALLS_DIRECT";
        PassesAsCallback = 11, "PASSES_AS_CALLBACK";
        AssignsFunction = 12, "ASSIGNS_FUNCTION";
        ReturnsFunction = 13, "RETURNS_FUNCTION";
        TypeUses = 14, "TYPE_USES";
        Implements = 15, "IMPLEMENTS";
        Extends = 16, "EXTENDS";
        Embeds = 17, "EMBEDS";
        Overrides = 18, "OVERRIDES";
        PartOf = 19, "PART_OF";
        MethodOf = 20, "METHOD_OF";
    }
}

impl EdgeKind {
    /// The relations a reference question is about: a use of one declaration by another.
    /// Containment, ownership and package dependencies are not references.
    pub const fn is_reference(self) -> bool {
        (self as u8) >= EdgeKind::ImportsSymbol as u8 && (self as u8) <= EdgeKind::Overrides as u8
    }
}

vocabulary! {
    /// How sure the graph is of an edge, strongest first.
    Confidence, "confidence" {
        ExactTypechecked = 1, "EXACT_TYPECHECKED";
        ExactDeclarationMapped = 2, "EXACT_DECLARATION_MAPPED";
        ExactPackageMapped = 3, "EXACT_PACKAGE_MAPPED";
        StructuralCertain = 4, "STRUCTURAL_CERTAIN";
        Candidate = 5, "CANDIDATE";
        Unresolved = 6, "UNRESOLVED";
    }
}

impl Confidence {
    /// Codes 1–4 count as exact in `coverage.exact`.
    pub const fn is_exact(self) -> bool {
        (self as u8) <= 4
    }
}

vocabulary! {
    /// Which observation produced an edge.
    Provenance, "provenance" {
        TypescriptChecker = 1, "TYPESCRIPT_CHECKER";
        TypescriptModuleResolution = 2, "TYPESCRIPT_MODULE_RESOLUTION";
        TypescriptDeclarationMap = 3, "TYPESCRIPT_DECLARATION_MAP";
        TypescriptProjectReference = 4, "TYPESCRIPT_PROJECT_REFERENCE";
        GoTypesDef = 5, "GO_TYPES_DEF";
        GoTypesUse = 6, "GO_TYPES_USE";
        GoTypesSelection = 7, "GO_TYPES_SELECTION";
        GoAstCall = 8, "GO_AST_CALL";
        GoAstCallback = 9, "GO_AST_CALLBACK";
        GoObjectPath = 10, "GO_OBJECT_PATH";
        TreeSitterSyntax = 11, "TREE_SITTER_SYNTAX";
        PackageManifest = 12, "PACKAGE_MANIFEST";
        RustAnalyzerDef = 13, "RUST_ANALYZER_DEF";
        RustAnalyzerUse = 14, "RUST_ANALYZER_USE";
        RustAnalyzerMoniker = 15, "RUST_ANALYZER_MONIKER";
        RustSyntaxCall = 16, "RUST_SYNTAX_CALL";
        RustSyntaxType = 17, "RUST_SYNTAX_TYPE";
        RustSyntaxImpl = 18, "RUST_SYNTAX_IMPL";
        RustSyntaxCallback = 19, "RUST_SYNTAX_CALLBACK";
        PythonIndexerDef = 20, "PYTHON_INDEXER_DEF";
        PythonIndexerUse = 21, "PYTHON_INDEXER_USE";
        PythonSyntaxCall = 22, "PYTHON_SYNTAX_CALL";
        ScipIndexer = 23, "SCIP_INDEXER";
    }
}

impl Provenance {
    /// Only the syntax layer is not an exact source. A manifest is exact about what it declares.
    pub const fn is_exact(self) -> bool {
        !matches!(self, Provenance::TreeSitterSyntax)
    }
}

vocabulary! {
    /// The kind of a declaration, spelled the way its language's analyzer spells it.
    SymbolKind, "symbol kind" {
        Func = 1, "func";
        Method = 2, "method";
        Type = 3, "type";
        Alias = 4, "alias";
        Const = 5, "const";
        Var = 6, "var";
        Field = 7, "field";
        Function = 8, "function";
        Class = 9, "class";
        Interface = 10, "interface";
        Variable = 11, "variable";
        Property = 12, "property";
        Enum = 13, "enum";
        Namespace = 14, "namespace";
        EnumMember = 15, "enum_member";
        Parameter = 16, "parameter";
        TypeParameter = 17, "type_parameter";
        Struct = 18, "struct";
        Trait = 19, "trait";
        TraitMethod = 20, "trait_method";
        StaticMethod = 21, "static_method";
        Constant = 22, "constant";
        Static = 23, "static";
        Macro = 24, "macro";
        Module = 25, "module";
        TypeAlias = 26, "type_alias";
        AssociatedType = 27, "associated_type";
        Union = 28, "union";
    }
}

impl SymbolKind {
    /// Kinds that hold members (fields, methods, variants) in an outline.
    pub const fn is_container(self) -> bool {
        matches!(
            self,
            SymbolKind::Type
                | SymbolKind::Class
                | SymbolKind::Interface
                | SymbolKind::Enum
                | SymbolKind::Namespace
                | SymbolKind::Struct
                | SymbolKind::Trait
                | SymbolKind::Union
        )
    }
}

vocabulary! {
    /// Why a reference or a scope stayed `UNRESOLVED`: the reasons this build's passes
    /// declare. The wire carries the name; the vocabulary stays open to reasons other
    /// producers declare (an unknown one is kept, never rejected).
    Reason, "unresolved reason" {
        ParseError = 1, "PARSE_ERROR";
        RepositoryNotReadable = 2, "REPOSITORY_NOT_READABLE";
        NameNotResolved = 3, "NAME_NOT_RESOLVED";
        ReceiverTypeUnknown = 4, "RECEIVER_TYPE_UNKNOWN";
        ModuleNotResolved = 5, "MODULE_NOT_RESOLVED";
        ExportNotFound = 6, "EXPORT_NOT_FOUND";
        PackageProviderNotFound = 7, "PACKAGE_PROVIDER_NOT_FOUND";
        AmbiguousPackageProvider = 8, "AMBIGUOUS_PACKAGE_PROVIDER";
        PackageVersionMismatch = 9, "PACKAGE_VERSION_MISMATCH";
        DeclarationSourceNotMapped = 10, "DECLARATION_SOURCE_NOT_MAPPED";
        ProviderSourceUnavailable = 11, "PROVIDER_SOURCE_UNAVAILABLE";
        ProviderDefinitionNotIndexed = 12, "PROVIDER_DEFINITION_NOT_INDEXED";
        ModuleProviderNotFound = 13, "MODULE_PROVIDER_NOT_FOUND";
        AmbiguousModuleProvider = 14, "AMBIGUOUS_MODULE_PROVIDER";
        ReplaceConflict = 15, "REPLACE_CONFLICT";
        ModuleNotLoaded = 16, "MODULE_NOT_LOADED";
        PackageNotBuildable = 17, "PACKAGE_NOT_BUILDABLE";
        CrateProviderNotFound = 18, "CRATE_PROVIDER_NOT_FOUND";
        AmbiguousCrateProvider = 19, "AMBIGUOUS_CRATE_PROVIDER";
        CrateVersionMismatch = 20, "CRATE_VERSION_MISMATCH";
        ImportNotResolved = 21, "IMPORT_NOT_RESOLVED";
        DefinitionNotIndexed = 22, "DEFINITION_NOT_INDEXED";
        CrateSymbolNotMatched = 23, "CRATE_SYMBOL_NOT_MATCHED";
    }
}

vocabulary! {
    /// A source language the syntax layer extracts.
    Language, "language" {
        Go = 1, "go";
        TypeScript = 2, "typescript";
        JavaScript = 3, "javascript";
        Rust = 4, "rust";
        Python = 5, "python";
    }
}

impl Language {
    /// The language whose exact analyzer checks this one's files: JavaScript is read by the
    /// TypeScript checker, in the same programs.
    pub fn analyzed_as(self) -> Language {
        match self {
            Language::JavaScript => Language::TypeScript,
            other => other,
        }
    }

    /// The language of a source path, by its extension.
    pub fn from_path(path: &str) -> Option<Language> {
        let extension = path.rsplit_once('.').map(|(_, e)| e)?;
        Some(match extension {
            "go" => Language::Go,
            "ts" | "tsx" | "mts" | "cts" => Language::TypeScript,
            "js" | "jsx" | "mjs" | "cjs" => Language::JavaScript,
            "rs" => Language::Rust,
            "py" | "pyi" => Language::Python,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_frozen() {
        for kind in EdgeKind::ALL {
            assert_eq!(EdgeKind::from_code(kind.code()).unwrap(), *kind);
            assert_eq!(EdgeKind::parse(kind.as_str()).unwrap(), *kind);
        }
        assert_eq!(EdgeKind::MethodOf.code(), 20);
        assert_eq!(Confidence::StructuralCertain.code(), 4);
        assert!(Confidence::ExactPackageMapped.is_exact());
        assert!(!Confidence::Candidate.is_exact());
        assert_eq!(
            SymbolKind::parse("enum_member").unwrap(),
            SymbolKind::EnumMember
        );
        assert!(EdgeKind::from_code(0).is_err());
        assert!(!Provenance::TreeSitterSyntax.is_exact());
    }
}
