//! Go's reference sites: calls, type names, composite literals, embedding, names used as
//! values, and the receivers and operands they are reached through.

use kivgraph_facts::EdgeKind;

use tree_sitter::Node;

use crate::sites::{Sites, WHOLE_MODULE, unquote};

impl<'s> Sites<'s> {
    pub(crate) fn go(&mut self, node: Node) -> bool {
        match node.kind() {
            "call_expression" => {
                let callee = node.child_by_field_name("function");
                self.callee(
                    node,
                    callee,
                    &["identifier"],
                    &[("selector_expression", "operand", "field")],
                );
            }
            "import_spec" => {
                if let Some(path) = node.child_by_field_name("path") {
                    let module = unquote(self.text(path));
                    let alias = node
                        .child_by_field_name("name")
                        .map(|n| self.text(n).to_string());
                    self.push_spelled(
                        EdgeKind::ImportsSymbol,
                        node,
                        WHOLE_MODULE,
                        Some(module),
                        alias,
                    );
                }
                return false;
            }
            "qualified_type" => {
                let kind = go_use_of_type(node);
                self.push_reached(kind, node, node, "package", "name");
                return false;
            }
            "type_identifier" if go_use_of_type(node) == EdgeKind::Embeds => {
                let name = self.text(node);
                self.push(EdgeKind::Embeds, node, name, None);
            }
            "type_identifier" => self.type_name(node),
            "argument_list" => self.go_values(node, EdgeKind::PassesAsCallback),
            "return_statement" => {
                if let Some(list) = crate::common::named_children(node).first() {
                    self.go_values(*list, EdgeKind::ReturnsFunction);
                }
            }
            "assignment_statement" | "short_var_declaration" => {
                if let Some(right) = node.child_by_field_name("right") {
                    self.go_values(right, EdgeKind::AssignsFunction);
                }
            }
            "var_spec" | "const_spec" => {
                if let Some(value) = node.child_by_field_name("value") {
                    self.go_values(value, EdgeKind::AssignsFunction);
                }
            }
            "keyed_element" => {
                // `{Key: value}`: the value is assigned to a field or a map entry.
                if let Some(value) = crate::common::named_children(node).get(1) {
                    self.go_values(*value, EdgeKind::AssignsFunction);
                }
            }
            _ => {}
        }
        true
    }

    /// Go: a name used as a value where the syntax shows how — passed as an argument,
    /// returned, assigned — when the expression is the name itself (`handler`) or a name of
    /// an imported package (`pkg.Handler`). The resolver keeps the kind when the name
    /// denotes a function, and makes it `REFERENCES` otherwise.
    fn go_values(&mut self, list: Node, kind: EdgeKind) {
        let values = match list.kind() {
            "expression_list" | "argument_list" => crate::common::named_children(list),
            _ => vec![list],
        };
        for value in values {
            let value = match value.kind() {
                "literal_element" => match crate::common::named_children(value).first() {
                    Some(inner) => *inner,
                    None => continue,
                },
                _ => value,
            };
            match value.kind() {
                "identifier" => {
                    let name = self.text(value);
                    if !matches!(name, "nil" | "true" | "false" | "iota" | "_") {
                        self.push(kind, value, name, None);
                    }
                }
                "selector_expression" => {
                    let operand = value.child_by_field_name("operand");
                    if operand.is_some_and(|o| o.kind() == "identifier") {
                        self.push_reached(kind, value, value, "operand", "field");
                    }
                }
                _ => {}
            }
        }
    }

    /// Marks the call site recorded at `before` as made through the enclosing type's own
    /// receiver when the callee's `field` operand is that receiver (`this`, `self`).
    pub(crate) fn mark_receiver_call(
        &mut self,
        before: usize,
        callee: Option<Node>,
        field: &str,
        is_receiver: impl FnOnce(&Self, Node) -> bool,
    ) {
        let operand = callee.and_then(|c| c.child_by_field_name(field));
        if operand.is_some_and(|operand| is_receiver(self, operand))
            && let Some(site) = self.found.get_mut(before)
        {
            site.through_receiver = true;
        }
    }
}

/// Go: a type name standing alone as a struct's field (`struct { Base }`, `*Base`) or as an
/// interface element (`interface { Reader }`) is embedded; anywhere else it is a use.
fn go_use_of_type(node: Node) -> EdgeKind {
    let Some(parent) = node.parent() else {
        return EdgeKind::TypeUses;
    };
    let embedded = match parent.kind() {
        "field_declaration" => {
            parent.child_by_field_name("name").is_none()
                && parent.child_by_field_name("type") == Some(node)
        }
        "type_elem" => {
            parent.named_child_count() == 1
                && parent
                    .parent()
                    .is_some_and(|p| p.kind() == "interface_type")
        }
        _ => false,
    };
    if embedded {
        EdgeKind::Embeds
    } else {
        EdgeKind::TypeUses
    }
}
