//! TypeScript's and JavaScript's reference sites: imports and exports, calls, type names,
//! values, heritage clauses, and `this`.

use kivgraph_facts::EdgeKind;

use tree_sitter::Node;

use crate::sites::{Sites, WHOLE_MODULE, unquote};

impl<'s> Sites<'s> {
    pub(crate) fn typescript(&mut self, node: Node) -> bool {
        match node.kind() {
            "call_expression" => {
                let callee = node.child_by_field_name("function");
                let before = self.found.len();
                self.callee(
                    node,
                    callee,
                    &["identifier"],
                    &[("member_expression", "object", "property")],
                );
                // `this.m()` where `this` is the enclosing class's object (or, in a static
                // member, the class): the receiver the syntax proves.
                self.mark_receiver_call(before, callee, "object", |_, object| {
                    object.kind() == "this" && this_is_the_class(node)
                });
                // `new C(…).m()`: the operand is a `C` the language guarantees.
                let constructed = callee
                    .and_then(|c| c.child_by_field_name("object"))
                    .filter(|object| object.kind() == "new_expression")
                    .and_then(|object| object.child_by_field_name("constructor"))
                    .filter(|class| class.kind() == "identifier")
                    .map(|class| self.text(class).to_string());
                if let (Some(class), Some(site)) = (constructed, self.found.get_mut(before)) {
                    site.operand_type = Some(class);
                }
            }
            "new_expression" => {
                let callee = node.child_by_field_name("constructor");
                self.callee(
                    node,
                    callee,
                    &["identifier"],
                    &[("member_expression", "object", "property")],
                );
            }
            "import_statement" => {
                self.typescript_import(node, EdgeKind::ImportsSymbol);
                return false;
            }
            "export_statement" if node.child_by_field_name("source").is_some() => {
                self.typescript_import(node, EdgeKind::Reexports);
                return false;
            }
            // `export { a, b as c }`: module-level names exported, possibly under another name.
            "export_clause" => {
                for specifier in crate::common::named_children(node) {
                    if let Some((name, alias)) = self.name_and_alias(specifier) {
                        self.push_spelled(EdgeKind::Exports, specifier, &name, None, alias);
                    }
                }
                return false;
            }
            "extends_clause" => {
                let mut cursor = node.walk();
                for value in node.children_by_field_name("value", &mut cursor) {
                    self.heritage(EdgeKind::Extends, value);
                }
                return false;
            }
            "implements_clause" | "extends_type_clause" => {
                let kind = if node.kind() == "implements_clause" {
                    EdgeKind::Implements
                } else {
                    EdgeKind::Extends
                };
                for child in crate::common::named_children(node) {
                    self.heritage(kind, child);
                }
                return false;
            }
            "nested_type_identifier" => {
                self.push_reached(EdgeKind::TypeUses, node, node, "module", "name");
                return false;
            }
            "type_identifier" => self.type_name(node),
            "arguments" => self.values(node, EdgeKind::PassesAsCallback),
            "return_statement" => {
                if let Some(value) = crate::common::named_children(node).first() {
                    self.values(*value, EdgeKind::ReturnsFunction);
                }
            }
            "variable_declarator" | "assignment_expression" | "pair" => {
                let value = node
                    .child_by_field_name("value")
                    .or_else(|| node.child_by_field_name("right"));
                if let Some(value) = value {
                    self.values(value, EdgeKind::AssignsFunction);
                }
            }
            _ => {}
        }
        true
    }

    /// TypeScript/JavaScript and Python: a name used as a value where the syntax shows how
    /// — passed as an argument, returned, assigned — when the expression is the name itself
    /// or a member of a name (`ns.f`, `module.f`). The resolver makes each a `REFERENCES`
    /// edge where the name is bound to a declaration.
    pub(crate) fn values(&mut self, list: Node, kind: EdgeKind) {
        let values = match list.kind() {
            "arguments" | "argument_list" | "expression_list" => {
                crate::common::named_children(list)
            }
            _ => vec![list],
        };
        for value in values {
            let value = match value.kind() {
                // `f(key=value)`: the value is what is passed.
                "keyword_argument" => match value.child_by_field_name("value") {
                    Some(inner) => inner,
                    None => continue,
                },
                _ => value,
            };
            match value.kind() {
                "identifier" => {
                    let name = self.text(value);
                    if !matches!(name, "undefined" | "None" | "True" | "False" | "self") {
                        self.push(kind, value, name, None);
                    }
                }
                "member_expression" | "attribute"
                    if value
                        .child_by_field_name("object")
                        .is_some_and(|o| o.kind() == "identifier") =>
                {
                    let field = if value.kind() == "attribute" {
                        "attribute"
                    } else {
                        "property"
                    };
                    self.push_reached(kind, value, value, "object", field);
                }
                _ => {}
            }
        }
    }

    /// A class's `extends`/`implements` entry: a name, a dotted name, or a generic of either.
    fn heritage(&mut self, kind: EdgeKind, node: Node) {
        let node = match node.kind() {
            "generic_type" => {
                // `Reader<Entry>`: the arguments are type uses of the class.
                if let Some(arguments) = node.child_by_field_name("type_arguments") {
                    self.descend_into(arguments, Self::typescript);
                }
                match node.child_by_field_name("name") {
                    Some(inner) => inner,
                    None => return,
                }
            }
            _ => node,
        };
        match node.kind() {
            "identifier" | "type_identifier" => {
                let name = self.text(node);
                self.push(kind, node, name, None);
            }
            "member_expression" => self.push_reached(kind, node, node, "object", "property"),
            "nested_type_identifier" => self.push_reached(kind, node, node, "module", "name"),
            _ => {}
        }
    }

    /// `import … from "m"` and `export … from "m"`: one site per bound name, or one for the
    /// module when nothing is bound by name.
    fn typescript_import(&mut self, statement: Node, kind: EdgeKind) {
        let Some(source) = statement.child_by_field_name("source") else {
            return;
        };
        let module = unquote(self.text(source));
        let before = self.found.len();
        let mut stack = crate::common::named_children(statement);
        stack.reverse();
        while let Some(node) = stack.pop() {
            match node.kind() {
                "import_clause" | "named_imports" | "export_clause" => {
                    let mut children = crate::common::named_children(node);
                    children.reverse();
                    stack.extend(children);
                }
                // The default import: `import Cache from "./cache"`.
                "identifier" if node.parent().is_some_and(|p| p.kind() == "import_clause") => {
                    let alias = Some(self.text(node).to_string());
                    self.push_spelled(kind, node, "default", Some(module.clone()), alias);
                }
                "namespace_import" | "namespace_export" => {
                    let alias = crate::common::named_children(node)
                        .last()
                        .map(|n| unquote(self.text(*n)));
                    self.push_spelled(kind, node, WHOLE_MODULE, Some(module.clone()), alias);
                }
                "import_specifier" | "export_specifier" => {
                    if let Some((name, alias)) = self.name_and_alias(node) {
                        self.push_spelled(kind, node, &name, Some(module.clone()), alias);
                    }
                }
                _ => {}
            }
        }
        // `import "./polyfill"`, `export * from "./all"`: the module itself.
        if self.found.len() == before {
            self.push_spelled(kind, statement, WHOLE_MODULE, Some(module), None);
        }
    }
}

/// TypeScript/JavaScript: whether `this` at `node` is the object of the class whose member
/// holds it. An arrow function keeps the `this` it was written in; any other function
/// binds its own.
fn this_is_the_class(node: Node) -> bool {
    let mut current = node.parent();
    while let Some(ancestor) = current {
        match ancestor.kind() {
            "method_definition"
            | "public_field_definition"
            | "field_definition"
            | "class_static_block" => return true,
            "function_declaration"
            | "function_expression"
            | "function"
            | "generator_function_declaration"
            | "generator_function"
            | "class_declaration"
            | "class"
            | "abstract_class_declaration"
            | "program" => return false,
            _ => {}
        }
        current = ancestor.parent();
    }
    false
}
