//! Python's reference sites: imports, calls, annotations, base classes and `self`.

use kivgraph_facts::EdgeKind;

use tree_sitter::Node;

use crate::common::text;
use crate::sites::{Sites, WHOLE_MODULE};

impl<'s> Sites<'s> {
    pub(crate) fn python(&mut self, node: Node) -> bool {
        match node.kind() {
            "call" => {
                let callee = node.child_by_field_name("function");
                let before = self.found.len();
                self.callee(
                    node,
                    callee,
                    &["identifier"],
                    &[("attribute", "object", "attribute")],
                );
                self.mark_receiver_call(before, callee, "object", |this, object| {
                    object.kind() == "identifier"
                        && python_receiver(this.src, node) == Some(this.text(object))
                });
            }
            "import_statement" => {
                let mut cursor = node.walk();
                for imported in node.children_by_field_name("name", &mut cursor) {
                    let (module, alias) = self.python_aliased(imported);
                    // `import a.b` binds `a`: the bound name is always spelled, so a whole
                    // module without one is a star import (`from m import *`).
                    let bound = module.split('.').next().unwrap_or_default().to_string();
                    let alias = alias.or(Some(bound));
                    self.push_spelled(
                        EdgeKind::ImportsSymbol,
                        imported,
                        WHOLE_MODULE,
                        Some(module),
                        alias,
                    );
                }
                return false;
            }
            "import_from_statement" => {
                let Some(module) = node.child_by_field_name("module_name") else {
                    return false;
                };
                let module = self.text(module).to_string();
                let mut cursor = node.walk();
                let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
                for imported in &names {
                    let (name, alias) = self.python_aliased(*imported);
                    self.push_spelled(
                        EdgeKind::ImportsSymbol,
                        *imported,
                        &name,
                        Some(module.clone()),
                        alias,
                    );
                }
                if names.is_empty() {
                    // `from m import *`.
                    self.push_spelled(
                        EdgeKind::ImportsSymbol,
                        node,
                        WHOLE_MODULE,
                        Some(module),
                        None,
                    );
                }
                return false;
            }
            "class_definition" => {
                if let Some(bases) = node.child_by_field_name("superclasses") {
                    for base in crate::common::named_children(bases) {
                        match base.kind() {
                            "identifier" => {
                                let name = self.text(base);
                                self.push(EdgeKind::Extends, base, name, None);
                            }
                            "attribute" => self.push_reached(
                                EdgeKind::Extends,
                                base,
                                base,
                                "object",
                                "attribute",
                            ),
                            _ => {}
                        }
                    }
                }
                if let Some(body) = node.child_by_field_name("body") {
                    self.descend_into(body, Self::python);
                }
                return false;
            }
            "type" => {
                self.descend_into(node, Self::annotation);
                return false;
            }
            "argument_list" => self.values(node, EdgeKind::PassesAsCallback),
            "return_statement" => {
                if let Some(value) = crate::common::named_children(node).first() {
                    self.values(*value, EdgeKind::ReturnsFunction);
                }
            }
            "assignment" | "pair" => {
                let value = node
                    .child_by_field_name("right")
                    .or_else(|| node.child_by_field_name("value"));
                if let Some(value) = value {
                    self.values(value, EdgeKind::AssignsFunction);
                }
            }
            _ => {}
        }
        true
    }

    fn python_aliased(&self, node: Node) -> (String, Option<String>) {
        match node.kind() {
            "aliased_import" => self.name_and_alias(node).unwrap_or_default(),
            _ => (self.text(node).to_string(), None),
        }
    }

    /// One node of an annotation: every name in it is a type use (`Optional[Session]`).
    fn annotation(&mut self, node: Node) -> bool {
        match node.kind() {
            "identifier" => {
                let name = self.text(node);
                if name != "None" {
                    self.push(EdgeKind::TypeUses, node, name, None);
                }
                false
            }
            "attribute" => {
                self.push_reached(EdgeKind::TypeUses, node, node, "object", "attribute");
                false
            }
            // A string annotation is a forward reference the syntax does not read.
            "string" => false,
            _ => true,
        }
    }
}

/// Python: the name of the receiver parameter (`self`, `cls`) of the method that holds
/// `node` directly — the first parameter of a `def` in a class body that is no
/// `@staticmethod` — when no nested function or lambda stands between.
fn python_receiver<'s>(src: &'s str, node: Node) -> Option<&'s str> {
    let mut current = node.parent();
    let method = loop {
        let ancestor = current?;
        match ancestor.kind() {
            "function_definition" => break ancestor,
            "lambda" | "class_definition" => return None,
            _ => current = ancestor.parent(),
        }
    };
    let mut holder = method.parent()?;
    if holder.kind() == "decorated_definition" {
        let decorators = crate::common::named_children(holder);
        if decorators
            .iter()
            .any(|d| d.kind() == "decorator" && text(src, *d).trim() == "@staticmethod")
        {
            return None;
        }
        holder = holder.parent()?;
    }
    if holder.kind() != "block" || holder.parent()?.kind() != "class_definition" {
        return None;
    }
    let first = crate::common::named_children(method.child_by_field_name("parameters")?)
        .into_iter()
        .next()?;
    (first.kind() == "identifier").then(|| text(src, first))
}
