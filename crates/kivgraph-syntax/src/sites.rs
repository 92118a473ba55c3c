//! The shared site model: one use of a name as the syntax spells it, the walker's state that
//! records sites, and where each site sits among the file's declarations.

use kivgraph_facts::{EdgeKind, LineSpan};

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use crate::Declaration;
use crate::common::{collapse, span, text, truncate};

/// Longest qualifier kept, in bytes: a receiver spelled as a long chain is cut, not dropped.
const MAX_QUALIFIER: usize = 120;

/// The whole module, for imports that bind a module rather than one of its names.
pub const WHOLE_MODULE: &str = "*";

/// One use of a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferenceSite {
    /// `CALLS_DIRECT`, `TYPE_USES`, `IMPORTS_SYMBOL`, `EXPORTS` (a local export clause),
    /// `REEXPORTS`, `EXTENDS` or `IMPLEMENTS`.
    pub kind: EdgeKind,
    /// The name used, as spelled: the last segment of a path; for imports the imported name,
    /// `default`, or [`WHOLE_MODULE`].
    pub name: String,
    /// What the name is reached through, as spelled: a receiver or operand expression, a
    /// path (`crate::store`), or an import's module specifier (`./cache`, `net/http`,
    /// `..models`). `None` for a bare name.
    pub qualifier: Option<String>,
    /// The local name an import or re-export binds, when it renames; for a Python
    /// `import a.b`, the name it binds (`a`). A whole module with no alias is a glob
    /// (`from m import *`, `export * from`, `use m::*`) or, in TS/JS and Go, an import that
    /// binds nothing the syntax can name.
    pub alias: Option<String>,
    pub span: LineSpan,
    /// Index of the innermost declaration holding the site; `None` at the file's top level.
    pub enclosing: Option<u32>,
    /// For a bare name, or for `x.name` with `x` an identifier, whether the top-level
    /// declaration holding the site binds that name (or `x`) locally anywhere (a parameter or type parameter, a local variable, constant or type, a
    /// range or type-switch variable), so the syntax cannot prove it denotes a package-level
    /// declaration. Over-approximated on purpose: a binding in a sibling block counts too.
    /// `None` for sites whose scopes are not read (imports, re-exports, export clauses).
    pub locally_bound: Option<bool>,
    /// `x.name` where `x` is the enclosing method's receiver and nothing else in the method
    /// binds `x`: the syntax proves the operand's type (Go's receiver; later `self`/`this`).
    pub through_receiver: bool,
    /// Rust: the qualifier is a path (`a::b` in `a::b::name`), not a value the name is
    /// reached through (`x` in `x.name()`).
    pub through_path: bool,
    /// The type the operand is known to have, by name. Go: `x.name` where `x` is bound once
    /// in the enclosing declaration with a type the syntax spells — a parameter `x *T`,
    /// `var x T`, `x := T{…}` or `x := &T{…}` — that type (`T`, or `pkg.T`). TypeScript and
    /// JavaScript: `new C(…).name(…)`, `C`.
    pub operand_type: Option<String>,
    /// Rust: the implementing type of an `impl Trait for Type` site, by name.
    pub implementer: Option<String>,
}

/// Sets each site's innermost enclosing declaration in one sweep over both lists in byte
/// order, keeping the chain of declarations open at the current position on a stack.
pub(crate) fn assign_enclosing(sites: &mut [ReferenceSite], declarations: &[Declaration]) {
    let mut order: Vec<usize> = (0..declarations.len()).collect();
    order.sort_by_key(|&i| {
        let span = declarations[i].span;
        (span.start_byte, std::cmp::Reverse(span.end_byte))
    });
    let mut open: Vec<usize> = Vec::new();
    let mut next = 0;
    for site in sites {
        let at = site.span.start_byte;
        while next < order.len() && declarations[order[next]].span.start_byte <= at {
            let start = declarations[order[next]].span.start_byte;
            while open
                .last()
                .is_some_and(|&top| declarations[top].span.end_byte <= start)
            {
                open.pop();
            }
            open.push(order[next]);
            next += 1;
        }
        while open
            .last()
            .is_some_and(|&top| declarations[top].span.end_byte <= at)
        {
            open.pop();
        }
        site.enclosing = open.last().map(|&i| i as u32);
    }
}

pub(crate) struct Sites<'s> {
    pub(crate) src: &'s str,
    pub(crate) found: Vec<ReferenceSite>,
}

impl<'s> Sites<'s> {
    pub(crate) fn text(&self, node: Node) -> &'s str {
        text(self.src, node)
    }

    pub(crate) fn push(&mut self, kind: EdgeKind, at: Node, name: &str, qualifier: Option<Node>) {
        let qualifier = qualifier.map(|q| truncate(collapse(self.text(q)), MAX_QUALIFIER));
        self.push_spelled(kind, at, name, qualifier, None);
    }

    pub(crate) fn push_spelled(
        &mut self,
        kind: EdgeKind,
        at: Node,
        name: &str,
        qualifier: Option<String>,
        alias: Option<String>,
    ) {
        if name.is_empty() {
            return;
        }
        self.found.push(ReferenceSite {
            kind,
            name: name.to_string(),
            qualifier,
            alias,
            span: span(at),
            enclosing: None,
            locally_bound: None,
            through_receiver: false,
            through_path: false,
            operand_type: None,
            implementer: None,
        });
    }

    /// An `operand.name`-shaped node (selector, member, attribute, scoped path): its `name`
    /// field reached through its `operand` field, observed at `at`.
    pub(crate) fn push_reached(
        &mut self,
        kind: EdgeKind,
        at: Node,
        path: Node,
        operand: &str,
        name: &str,
    ) {
        if let Some(field) = path.child_by_field_name(name) {
            let name = self.text(field);
            self.push(kind, at, name, path.child_by_field_name(operand));
        }
    }

    /// An import or export specifier's name and the name it binds, quotes removed.
    pub(crate) fn name_and_alias(&self, specifier: Node) -> Option<(String, Option<String>)> {
        let name = unquote(self.text(specifier.child_by_field_name("name")?));
        let alias = specifier
            .child_by_field_name("alias")
            .map(|a| unquote(self.text(a)));
        Some((name, alias))
    }

    /// A call's callee: a bare name, or a name reached through an operand.
    pub(crate) fn callee(
        &mut self,
        call: Node,
        callee: Option<Node>,
        bare: &[&str],
        reached: &[(&str, &str, &str)],
    ) {
        let Some(callee) = callee else { return };
        if bare.contains(&callee.kind()) {
            let name = self.text(callee);
            self.push(EdgeKind::CallsDirect, call, name, None);
            return;
        }
        for (kind, operand, field) in reached {
            if callee.kind() == *kind {
                self.push_reached(EdgeKind::CallsDirect, call, callee, operand, field);
            }
        }
    }

    /// A type name where it is used, not where it is declared.
    pub(crate) fn type_name(&mut self, node: Node) {
        // A declaration's own name is not a use of it; a Rust struct expression's `name`
        // (`Config { depth: 0 }`) is.
        let declared_here = node
            .parent()
            .filter(|parent| parent.kind() != "struct_expression")
            .and_then(|parent| parent.child_by_field_name("name"))
            .is_some_and(|name| name == node);
        let name = self.text(node);
        if !declared_here && name != "Self" {
            self.push(EdgeKind::TypeUses, node, name, None);
        }
    }
}

/// A string literal's contents: quotes and backticks removed.
pub(crate) fn unquote(literal: &str) -> String {
    literal
        .trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_string()
}
