//! The syntax layer: declarations of one source file, from tree-sitter.
//!
//! Owns: parsing Go, TypeScript/TSX, JavaScript, Rust and Python, and turning each file into
//! its declarations — kind, name, file-local qualified name, signature as spelled, visibility,
//! line and byte range, first sentence of the attached doc comment, containment — plus where
//! tree-sitter had to recover from errors, and the reference sites that use names (what a site
//! denotes is resolution's job, not this crate's). One file in, facts out: a pure function.
//!
//! Must not know about: packages, repositories, stable keys, salsa or storage. Qualification
//! beyond the file (Go package, Rust module path) is the engine's job.
//!
//! One directory a language (`go/`, `typescript/`, `rust/`, `python/`), each with the
//! declarations a file makes and the reference sites it spells (Rust also its `cfg`
//! regions); shared by all of them: the site model (`sites.rs`), local scopes
//! (`scopes.rs`), the walk that collects a file's sites (`references.rs`), the declaration
//! builder (`common.rs`), recovery of what the grammar cannot read (`recovery.rs`) and a
//! file's shape for the navigator (`shape.rs`).

mod common;
mod go;
mod python;
mod recovery;
mod references;
mod rust;
mod scopes;
mod shape;
mod sites;
mod typescript;

use std::cell::RefCell;

pub use rust::{CfgPredicate, CfgRegion};
pub use shape::{FileShape, SymbolMetrics, shape};
pub use sites::{ReferenceSite, WHOLE_MODULE};

use kivgraph_facts::{Language, LineSpan, Mention, ParseIssue, SymbolKind};
use serde::{Deserialize, Serialize};

/// One declaration, qualified within its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declaration {
    pub name: String,
    /// `Type.Method` (Go, TS, JS, Python) or `Type::method` (Rust), without package or module.
    pub qualified_name: String,
    pub kind: SymbolKind,
    pub signature: String,
    pub exported: bool,
    pub span: LineSpan,
    pub doc: Option<String>,
    /// Index of the containing declaration in the same file.
    pub parent: Option<u32>,
    /// A Go method's receiver type or a Rust impl's self type, by name, when the container is
    /// not declared in this file: the engine resolves it within the package.
    pub receiver: Option<String>,
    /// Distinguishes same-named declarations the language allows (TypeScript overloads):
    /// the parameter list as spelled.
    pub discriminator: Option<String>,
    /// Go: a method's parameter and result types with the parameter names dropped, for
    /// interface satisfaction: tokens separated by spaces, `#T` a type name as spelled bare,
    /// `@pkg.T` a qualified one, everything else verbatim. `None` where it cannot be
    /// compared (a generic receiver or interface, a constraint interface).
    #[serde(default)]
    pub method_shape: Option<String>,
}

/// Everything the syntax layer says about one file.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SyntaxFacts {
    pub declarations: Vec<Declaration>,
    /// Go's `package` clause.
    pub package_clause: Option<String>,
    pub issues: Vec<ParseIssue>,
    pub line_count: u32,
    /// The identifier census ([`common::mentions`]).
    pub mentions: Vec<Mention>,
    /// Rust: the code each `cfg` gates, for the build to keep or leave out.
    #[serde(default)]
    pub cfg_regions: Vec<CfgRegion>,
}

/// Grammar versions, part of every cache identity: a new grammar never trusts old facts.
pub const GRAMMAR_VERSIONS: &str = "tree-sitter=0.27.1;go=0.25.0;typescript=0.23.2;javascript=0.25.0;rust=0.24.2;python=0.25.0;extractor=17";

/// The grammar for a path: TSX for `.tsx`, the JavaScript grammar (which reads JSX) for JS.
fn grammar(language: Language, path: &str) -> tree_sitter::Language {
    match language {
        Language::Go => tree_sitter_go::LANGUAGE.into(),
        Language::TypeScript if path.ends_with(".tsx") => {
            tree_sitter_typescript::LANGUAGE_TSX.into()
        }
        Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        Language::Rust => tree_sitter_rust::LANGUAGE.into(),
        Language::Python => tree_sitter_python::LANGUAGE.into(),
    }
}

thread_local! {
    static PARSER: RefCell<tree_sitter::Parser> = RefCell::new(tree_sitter::Parser::new());
}

/// Parses one file. Never fails: what tree-sitter recovered is extracted and the rest is
/// reported in `issues`.
pub fn extract(language: Language, path: &str, source: &str) -> SyntaxFacts {
    extract_with_tree(language, path, source).0
}

/// [`extract`], plus every reference site of the file in source order, each with its
/// innermost enclosing declaration (an index into `declarations`).
pub fn extract_with_references(
    language: Language,
    path: &str,
    source: &str,
) -> (SyntaxFacts, Vec<ReferenceSite>) {
    let (facts, tree) = extract_with_tree(language, path, source);
    let sites = match &tree {
        Some(tree) => references::collect(language, source, tree.root_node(), &facts.declarations),
        None => Vec::new(),
    };
    (facts, sites)
}

/// [`extract`], keeping the tree for callers that look further.
fn extract_with_tree(
    language: Language,
    path: &str,
    source: &str,
) -> (SyntaxFacts, Option<tree_sitter::Tree>) {
    let tree = PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser
            .set_language(&grammar(language, path))
            .expect("bundled grammars match the tree-sitter ABI");
        let tree = parser.parse(source, None)?;
        // The tree of a rewrite keeps every offset of the original: it is read against
        // `source` itself.
        let recovered = (language == Language::TypeScript && tree.root_node().has_error())
            .then(|| recovery::recover(&mut parser, source, &tree))
            .flatten();
        Some(recovered.unwrap_or(tree))
    });
    let line_count = common::line_count(source);
    let Some(tree) = tree else {
        let facts = SyntaxFacts {
            line_count,
            issues: vec![ParseIssue {
                line: 1,
                column: 1,
                message: "the parser produced no tree".into(),
                hidden_names: Vec::new(),
            }],
            ..SyntaxFacts::default()
        };
        return (facts, None);
    };
    let root = tree.root_node();
    let mut builder = common::Builder::new(source);
    let mut package_clause = None;
    match language {
        Language::Go => package_clause = go::extract(&mut builder, root),
        Language::TypeScript | Language::JavaScript => typescript::extract(&mut builder, root),
        Language::Rust => rust::extract(&mut builder, root),
        Language::Python => python::extract(&mut builder, root),
    }
    let issues = common::parse_issues(source, root);
    let facts = SyntaxFacts {
        declarations: builder.finish(),
        package_clause,
        issues,
        line_count,
        mentions: common::mentions(source, root),
        cfg_regions: match language {
            Language::Rust => rust::regions(source, root),
            _ => Vec::new(),
        },
    };
    (facts, Some(tree))
}

#[cfg(test)]
mod tests;
