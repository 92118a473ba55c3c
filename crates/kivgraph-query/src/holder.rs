//! The declaration at the other end of a reference, and how answers name a subject.

use kivgraph_facts::Language;
use kivgraph_snapshot::{FileView, NodeRef, SymbolView};
use serde::Serialize;

use crate::args::ResponseFormat;
use crate::labelled::label;
use crate::published::Published;

/// The declaration at the other end of a reference: a symbol, or a file's module scope for a
/// use outside every declaration (an import statement).
#[derive(Clone, Copy)]
pub(crate) enum Holder<'a> {
    Symbol(SymbolView<'a>),
    Module(FileView<'a>),
}

impl<'a> Holder<'a> {
    pub(crate) fn of(published: &'a Published, node: NodeRef) -> Option<Self> {
        let snapshot = &published.snapshot;
        match node {
            NodeRef::Symbol(i) => snapshot.symbol(i).map(Holder::Symbol),
            NodeRef::File(i) => snapshot.file(i).map(Holder::Module),
            _ => None,
        }
    }

    pub(crate) fn file(&self) -> FileView<'a> {
        match self {
            Holder::Symbol(s) => s.file(),
            Holder::Module(f) => *f,
        }
    }

    pub(crate) fn repository(&self) -> &'a str {
        self.file().repository().name()
    }

    pub(crate) fn name(&self) -> &'a str {
        match self {
            Holder::Symbol(s) => s.name(),
            Holder::Module(_) => "<module>",
        }
    }

    pub(crate) fn qualified_name(&self) -> &'a str {
        match self {
            Holder::Symbol(s) => s.qualified_name(),
            Holder::Module(_) => "<module>",
        }
    }

    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Holder::Symbol(s) => s.kind().as_str(),
            Holder::Module(_) => "module",
        }
    }

    pub(crate) fn lines(&self) -> (u32, u32) {
        match self {
            Holder::Symbol(s) => (s.span().start_line, s.span().end_line),
            Holder::Module(f) => (1, f.line_count().max(1)),
        }
    }

    pub(crate) fn label(&self) -> String {
        let (start, end) = self.lines();
        label(self.qualified_name(), start, end)
    }

    /// The full view's fields for this declaration.
    pub(crate) fn full_fields(&self, format: ResponseFormat) -> HolderFields<'a> {
        let (start, end) = self.lines();
        let file = self.file();
        let detailed = format == ResponseFormat::Detailed;
        HolderFields {
            name: self.name(),
            qualified_name: self.qualified_name(),
            kind: self.kind(),
            repository: self.repository(),
            file_path: file.path(),
            test: crate::test_files::is_test_file(file.path()),
            start_line: start,
            end_line: end,
            language: file.language().as_str(),
            stable_key: match self {
                Holder::Symbol(s) if detailed => Some(s.key().to_string()),
                _ => None,
            },
            file_key: detailed.then(|| file.key().to_string()),
            repository_key: detailed.then(|| file.repository().key().to_string()),
        }
    }
}

/// A declaration at the end of a relation, as full views write it.
#[derive(Serialize)]
pub(crate) struct HolderFields<'a> {
    name: &'a str,
    qualified_name: &'a str,
    kind: &'a str,
    repository: &'a str,
    file_path: &'a str,
    /// Set only for a test file.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    test: bool,
    start_line: u32,
    end_line: u32,
    language: &'static str,
    /// Detailed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    stable_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    repository_key: Option<String>,
}

/// The subject as the compact view states it once: `repository:path:line`.
pub(crate) fn subject_triple(subject: &SymbolView) -> String {
    format!(
        "{}:{}:{}",
        subject.file().repository().name(),
        subject.file().path(),
        subject.span().start_line
    )
}

/// Why `symbol` may be used under a name no file spells as its own: a default, namespace or
/// CommonJS import can bind an exported TypeScript/JavaScript declaration under any name, and
/// the syntax layer follows none of them.
pub(crate) fn bound_under_other_names(
    published: &Published,
    symbol: &SymbolView,
) -> Option<&'static str> {
    (matches!(
        symbol.language(),
        Language::TypeScript | Language::JavaScript
    ) && symbol.exported()
        && !published.analyzed_everywhere(symbol.language()))
    .then_some(
        "an exported TypeScript/JavaScript declaration can be bound by a default, namespace or CommonJS import under another name, which the syntax layer does not follow",
    )
}
