//! Python: module-level functions, classes with their methods and class attributes, and
//! module-level variables, those bound under a condition included. A name starting with `_`
//! is not exported.

use kivgraph_facts::SymbolKind;
use tree_sitter::Node;

use crate::common::{
    Builder, DeclarationId, NewDeclaration, collapse, first_sentence, named_children, qualify,
    signature,
};

fn exported(name: &str) -> bool {
    !name.starts_with('_') || (name.starts_with("__") && name.ends_with("__"))
}

/// The docstring: the first statement of a body when it is a string literal.
fn docstring(b: &Builder, body: Option<Node>) -> Option<String> {
    let first = named_children(body?).into_iter().next()?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let string = named_children(first)
        .into_iter()
        .next()
        .filter(|n| n.kind() == "string")?;
    let content: String = named_children(string)
        .into_iter()
        .filter(|n| n.kind() == "string_content")
        .map(|n| b.text(n).to_string())
        .collect();
    first_sentence(&content)
}

pub fn extract(b: &mut Builder, root: Node) {
    block(b, root, None);
}

fn block(b: &mut Builder, parent: Node, container: Option<DeclarationId>) {
    for node in named_children(parent) {
        statement(b, node, node, container);
    }
}

fn statement(b: &mut Builder, node: Node, outer: Node, container: Option<DeclarationId>) {
    let prefix = container.map(|id| b[id].qualified_name.clone());
    match node.kind() {
        "decorated_definition" => {
            if let Some(definition) = node.child_by_field_name("definition") {
                statement(b, definition, outer, container);
            }
        }
        "function_definition" | "class_definition" => {
            let Some(name) = node
                .child_by_field_name("name")
                .map(|n| b.text(n).to_string())
            else {
                return;
            };
            let is_class = node.kind() == "class_definition";
            let kind = match (is_class, container.is_some()) {
                (true, _) => SymbolKind::Class,
                (false, true) => SymbolKind::Method,
                (false, false) => SymbolKind::Function,
            };
            let body = node.child_by_field_name("body");
            let doc = docstring(b, body);
            let index = b.push(
                outer,
                NewDeclaration {
                    qualified_name: qualify(prefix.as_deref(), ".", &name),
                    exported: exported(&name),
                    name,
                    kind,
                    signature: signature(b.src, node, body)
                        .trim_end_matches(':')
                        .to_string(),
                    doc,
                    parent: container,
                    receiver: None,
                    discriminator: None,
                },
            );
            // A class's body declares its members; a function's body is not descended.
            if is_class && let Some(body) = body {
                block(b, body, Some(index));
            }
        }
        "expression_statement" => {
            for assignment in named_children(node)
                .into_iter()
                .filter(|n| n.kind() == "assignment")
            {
                let Some(left) = assignment
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "identifier")
                else {
                    continue;
                };
                let name = b.text(left).to_string();
                if b.declarations().any(|(_, d)| {
                    b.is_in(d, container) && d.name == name && d.kind == SymbolKind::Variable
                }) {
                    continue; // a rebinding, not a second declaration
                }
                let header_end = assignment
                    .child_by_field_name("right")
                    .map(|r| r.start_byte())
                    .unwrap_or(assignment.end_byte());
                let header = collapse(&b.src[assignment.start_byte()..header_end]);
                b.push(
                    node,
                    NewDeclaration {
                        qualified_name: qualify(prefix.as_deref(), ".", &name),
                        exported: exported(&name),
                        name,
                        kind: SymbolKind::Variable,
                        signature: header.trim_end_matches('=').trim_end().to_string(),
                        doc: None,
                        parent: container,
                        receiver: None,
                        discriminator: None,
                    },
                );
            }
        }
        // Names bound under a condition (`if sys.version_info >= ...:`, `try: ... except
        // ImportError:`, `with ...:`) are bound in the enclosing scope.
        "if_statement" | "try_statement" | "with_statement" => conditional(b, node, container),
        _ => {}
    }
}

/// The blocks of a conditional statement, its clauses' included. A function or class a later
/// branch defines again under a name an earlier one declared is the same name's other
/// definition, not a second declaration.
fn conditional(b: &mut Builder, node: Node, container: Option<DeclarationId>) {
    let mut blocks = Vec::new();
    for child in named_children(node) {
        if child.kind() == "block" {
            blocks.push(child);
        } else if child.kind().ends_with("_clause") {
            blocks.extend(
                named_children(child)
                    .into_iter()
                    .filter(|c| c.kind() == "block"),
            );
        }
    }
    for block in blocks {
        for statement_node in named_children(block) {
            if let Some(name) = defined_name(b, statement_node)
                && b.declarations().any(|(_, d)| {
                    b.is_in(d, container)
                        && d.name == name
                        && matches!(
                            d.kind,
                            SymbolKind::Function | SymbolKind::Method | SymbolKind::Class
                        )
                })
            {
                continue;
            }
            statement(b, statement_node, statement_node, container);
        }
    }
}

/// The name a (decorated) function or class definition defines.
fn defined_name(b: &Builder, node: Node) -> Option<String> {
    let definition = if node.kind() == "decorated_definition" {
        node.child_by_field_name("definition")?
    } else {
        node
    };
    matches!(
        definition.kind(),
        "function_definition" | "class_definition"
    )
    .then(|| definition.child_by_field_name("name"))
    .flatten()
    .map(|n| b.text(n).to_string())
}
