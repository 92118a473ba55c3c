//! Rust's reference sites: `use` trees, paths, calls, type names, trait impls and `self`.

use kivgraph_facts::EdgeKind;

use tree_sitter::Node;

use crate::sites::{Sites, WHOLE_MODULE};

impl<'s> Sites<'s> {
    pub(crate) fn rust(&mut self, node: Node) -> bool {
        match node.kind() {
            "call_expression" => {
                let mut callee = node.child_by_field_name("function");
                // `parse::<u32>(…)`: the generic's function is the callee.
                if let Some(generic) = callee.filter(|c| c.kind() == "generic_function") {
                    callee = generic.child_by_field_name("function");
                }
                let before = self.found.len();
                self.callee(
                    node,
                    callee,
                    &["identifier"],
                    &[
                        ("scoped_identifier", "path", "name"),
                        ("field_expression", "value", "field"),
                    ],
                );
                if callee.is_some_and(|c| c.kind() == "scoped_identifier") {
                    self.mark_paths(before);
                }
                // `self.m()` in a method of an `impl` block: the receiver is the impl's type.
                let field = callee.filter(|c| c.kind() == "field_expression");
                self.mark_receiver_call(before, field, "value", |_, value| {
                    value.kind() == "self" && rust_self_is_the_impl(node)
                });
            }
            "use_declaration" => {
                if let Some(argument) = node.child_by_field_name("argument") {
                    self.rust_use(argument, None);
                }
                return false;
            }
            "trait_item" => {
                // `trait T: A + b::B + Send`: each supertrait is extended, not used as a type.
                let bounds = node.child_by_field_name("bounds");
                if let Some(bounds) = bounds {
                    for bound in crate::common::named_children(bounds) {
                        self.rust_type_path(EdgeKind::Extends, bound);
                    }
                }
                for child in crate::common::named_children(node) {
                    if Some(child) != bounds {
                        self.descend_into(child, Self::rust);
                    }
                }
                return false;
            }
            "impl_item" => {
                if let Some(lead) = node.child_by_field_name("trait") {
                    let before = self.found.len();
                    self.rust_type_path(EdgeKind::Implements, lead);
                    // The implementing type, by name: `Type` in `impl Trait for Type<T>`.
                    let implementer = node.child_by_field_name("type").and_then(|ty| {
                        let ty = match ty.kind() {
                            "generic_type" => ty.child_by_field_name("type")?,
                            _ => ty,
                        };
                        (ty.kind() == "type_identifier").then(|| self.text(ty).to_string())
                    });
                    if let Some(site) = self.found.get_mut(before) {
                        site.implementer = implementer;
                    }
                }
                // The implementing type is the impl's container, not a use: skip it.
                if let Some(body) = node.child_by_field_name("body") {
                    self.descend_into(body, Self::rust);
                }
                return false;
            }
            "scoped_type_identifier" => {
                self.rust_type_path(EdgeKind::TypeUses, node);
                return false;
            }
            "type_identifier" => self.type_name(node),
            _ => {}
        }
        true
    }

    /// Walks `node`'s subtree with `visit`, for a construct whose other children are skipped.
    pub(crate) fn descend_into(&mut self, node: Node, visit: fn(&mut Self, Node) -> bool) {
        let mut stack = vec![node];
        while let Some(node) = stack.pop() {
            if visit(self, node) {
                let mut children = crate::common::named_children(node);
                children.reverse();
                stack.extend(children);
            }
        }
    }

    fn rust_type_path(&mut self, kind: EdgeKind, node: Node) {
        let node = match node.kind() {
            "generic_type" => match node.child_by_field_name("type") {
                Some(inner) => inner,
                None => return,
            },
            _ => node,
        };
        match node.kind() {
            "type_identifier" => {
                let name = self.text(node);
                self.push(kind, node, name, None);
            }
            "scoped_type_identifier" => {
                let before = self.found.len();
                self.push_reached(kind, node, node, "path", "name");
                self.mark_paths(before);
            }
            _ => {}
        }
    }

    /// Marks the sites pushed since `before` as reached through a path.
    fn mark_paths(&mut self, before: usize) {
        for site in &mut self.found[before..] {
            site.through_path = true;
        }
    }

    /// One `use` tree, flattened to one site per imported name with its full path.
    fn rust_use(&mut self, node: Node, prefix: Option<&str>) {
        let join = |rest: &str| match prefix {
            Some(prefix) => format!("{prefix}::{rest}"),
            None => rest.to_string(),
        };
        match node.kind() {
            "identifier" | "self" | "crate" | "super" => {
                let name = self.text(node);
                self.push_spelled(
                    EdgeKind::ImportsSymbol,
                    node,
                    name,
                    prefix.map(str::to_string),
                    None,
                );
            }
            "scoped_identifier" => {
                let path = node.child_by_field_name("path").map(|p| join(self.text(p)));
                if let Some(name) = node.child_by_field_name("name") {
                    let name = self.text(name);
                    let qualifier = path.or_else(|| prefix.map(str::to_string));
                    self.push_spelled(EdgeKind::ImportsSymbol, node, name, qualifier, None);
                }
            }
            "use_as_clause" => {
                let before = self.found.len();
                if let Some(path) = node.child_by_field_name("path") {
                    self.rust_use(path, prefix);
                }
                let alias = node
                    .child_by_field_name("alias")
                    .map(|a| self.text(a).to_string());
                if let Some(site) = self.found[before..].last_mut() {
                    site.alias = alias;
                }
            }
            "use_wildcard" => {
                let path = crate::common::named_children(node)
                    .first()
                    .map(|p| join(self.text(*p)))
                    .or_else(|| prefix.map(str::to_string));
                self.push_spelled(EdgeKind::ImportsSymbol, node, WHOLE_MODULE, path, None);
            }
            "use_list" => {
                for child in crate::common::named_children(node) {
                    self.rust_use(child, prefix);
                }
            }
            "scoped_use_list" => {
                let path = node.child_by_field_name("path").map(|p| join(self.text(p)));
                let prefix = path.as_deref().or(prefix);
                if let Some(list) = node.child_by_field_name("list") {
                    self.rust_use(list, prefix);
                }
            }
            _ => {}
        }
    }
}

/// Rust: whether `self` at `node` is the receiver of a method of an `impl` block — the
/// innermost function (closures capture `self`) has a `self` parameter and sits in an impl,
/// not in a trait's default body, where `Self` is any implementer.
fn rust_self_is_the_impl(node: Node) -> bool {
    let mut current = node.parent();
    while let Some(ancestor) = current {
        if ancestor.kind() == "function_item" {
            let has_self = ancestor.child_by_field_name("parameters").is_some_and(|p| {
                crate::common::named_children(p)
                    .iter()
                    .any(|n| n.kind() == "self_parameter")
            });
            let in_impl = ancestor
                .parent()
                .and_then(|list| list.parent())
                .is_some_and(|holder| holder.kind() == "impl_item");
            return has_self && in_impl;
        }
        current = ancestor.parent();
    }
    false
}
