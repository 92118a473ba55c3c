//! Reference sites: where a file uses a name, as the syntax spells it.
//!
//! A site says *how* a name is used (called, used as a type, imported, extended) and *through
//! what* (`pkg` in `pkg.Run()`, `self` in `self.save()`, the module specifier of an import).
//! It never says what the name denotes: binding a site to a declaration is resolution's job,
//! which alone may decide a confidence. Call sites whose callee has no name (a call of a call,
//! of a closure, of an index) are not sites: there is no name to resolve.

use kivgraph_facts::Language;

use tree_sitter::Node;

use crate::Declaration;
use crate::scopes::mark_local_bindings;
use crate::sites::{ReferenceSite, Sites, assign_enclosing};

/// The reference sites of one parsed file, in source order.
pub(crate) fn collect(
    language: Language,
    src: &str,
    root: Node,
    declarations: &[Declaration],
) -> Vec<ReferenceSite> {
    let mut sites = Sites {
        src,
        found: Vec::new(),
    };
    // Preorder over the tree, iteratively: generated files nest deeper than a thread's stack.
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let descend = match language {
            Language::Go => sites.go(node),
            Language::TypeScript | Language::JavaScript => sites.typescript(node),
            Language::Rust => sites.rust(node),
            Language::Python => sites.python(node),
        };
        if descend && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    let mut found = sites.found;
    // Outer before inner where two sites start together (`new C().get()`), as a preorder.
    found.sort_by_key(|site| (site.span.start_byte, std::cmp::Reverse(site.span.end_byte)));
    assign_enclosing(&mut found, declarations);
    mark_local_bindings(language, src, root, &mut found);
    found
}
