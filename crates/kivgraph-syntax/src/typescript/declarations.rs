//! TypeScript, TSX and JavaScript: functions, classes with their methods and properties,
//! interfaces with their members, type aliases, enums with their members, namespaces, and
//! module-level variables (an arrow function or function expression bound to a name is a
//! function).

use kivgraph_facts::SymbolKind;
use tree_sitter::Node;

use crate::common::{
    Builder, DeclarationId, NewDeclaration, collapse, doc_above, named_children, qualify, signature,
};

fn ts_doc(b: &Builder, node: Node) -> Option<String> {
    doc_above(b.src, node, |comment| {
        if let Some(block) = comment
            .strip_prefix("/**")
            .and_then(|c| c.strip_suffix("*/"))
        {
            let lines: Vec<&str> = block
                .lines()
                .map(|l| l.trim().trim_start_matches('*').trim())
                .filter(|l| !l.starts_with('@'))
                .collect();
            Some(lines.join("\n").trim().to_string())
        } else {
            comment
                .strip_prefix("//")
                .map(|line| line.trim().to_string())
        }
    })
}

/// The parameter list and return type as spelled: what separates overloads.
fn callable_discriminator(b: &Builder, node: Node) -> Option<String> {
    let parameters = node
        .child_by_field_name("parameters")
        .map(|p| b.text(p))
        .unwrap_or("()");
    let type_parameters = node
        .child_by_field_name("type_parameters")
        .map(|p| b.text(p))
        .unwrap_or("");
    let returns = node
        .child_by_field_name("return_type")
        .map(|r| b.text(r))
        .unwrap_or("");
    Some(collapse(&format!("{type_parameters}{parameters}{returns}")))
}

struct Scope<'a> {
    container: Option<(&'a str, DeclarationId)>,
    exported: bool,
}

pub fn extract(b: &mut Builder, root: Node) {
    statements(
        b,
        root,
        &Scope {
            container: None,
            exported: false,
        },
    );
    mark_commonjs_exports(b, root);
    // `export { a, b as c }` and `export default a` mark module-level declarations exported.
    for node in named_children(root)
        .into_iter()
        .filter(|n| n.kind() == "export_statement")
    {
        let mut names = Vec::new();
        for child in named_children(node) {
            match child.kind() {
                "export_clause" => {
                    for specifier in named_children(child)
                        .into_iter()
                        .filter(|n| n.kind() == "export_specifier")
                    {
                        if let Some(name) = specifier.child_by_field_name("name") {
                            names.push(b.text(name).to_string());
                        }
                    }
                }
                "identifier" => names.push(b.text(child).to_string()),
                _ => {}
            }
        }
        if node.child_by_field_name("source").is_some() {
            continue; // a re-export names another module's declarations
        }
        for name in names {
            mark_exported(b, &name);
        }
    }
}

/// Marks a module-level declaration exported after the fact (an export clause, CommonJS), with
/// its members that are not private, as `export class` would have.
fn mark_exported(b: &mut Builder, name: &str) {
    let matches: Vec<DeclarationId> = b
        .declarations()
        .filter(|(_, d)| d.parent.is_none() && d.name == name)
        .map(|(id, _)| id)
        .collect();
    for index in matches {
        b[index].exported = true;
        let members: Vec<DeclarationId> = b
            .declarations()
            .filter(|(_, d)| b.is_in(d, Some(index)))
            .filter(|(_, d)| {
                !d.name.starts_with('#')
                    && !d.signature.starts_with("private")
                    && !d.signature.starts_with("protected")
            })
            .map(|(id, _)| id)
            .collect();
        for member in members {
            b[member].exported = true;
        }
    }
}

/// CommonJS: `module.exports = name`, `module.exports = { a, b: c }` and `exports.a = a`.
fn mark_commonjs_exports(b: &mut Builder, root: Node) {
    for statement in named_children(root)
        .into_iter()
        .filter(|n| n.kind() == "expression_statement")
    {
        let Some(assignment) = named_children(statement)
            .into_iter()
            .find(|n| n.kind() == "assignment_expression")
        else {
            continue;
        };
        let (Some(left), Some(right)) = (
            assignment.child_by_field_name("left"),
            assignment.child_by_field_name("right"),
        ) else {
            continue;
        };
        let target = b.text(left);
        let mut names: Vec<String> = Vec::new();
        if target == "module.exports" {
            match right.kind() {
                "identifier" => names.push(b.text(right).to_string()),
                "object" => {
                    for property in named_children(right) {
                        match property.kind() {
                            "shorthand_property_identifier" => {
                                names.push(b.text(property).to_string())
                            }
                            "pair" => {
                                if let Some(value) = property
                                    .child_by_field_name("value")
                                    .filter(|v| v.kind() == "identifier")
                                {
                                    names.push(b.text(value).to_string());
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        } else if (target.starts_with("exports.") || target.starts_with("module.exports."))
            && right.kind() == "identifier"
        {
            names.push(b.text(right).to_string());
        }
        for name in names {
            mark_exported(b, &name);
        }
    }
}

fn statements(b: &mut Builder, parent: Node, scope: &Scope) {
    for node in named_children(parent) {
        statement(b, node, node, scope);
    }
}

/// `outer` is the node that carries the doc comment and the span (an `export` wrapper).
fn statement(b: &mut Builder, node: Node, outer: Node, scope: &Scope) {
    match node.kind() {
        "export_statement" => {
            let inner = Scope {
                container: scope.container,
                exported: true,
            };
            if let Some(declaration) = node.child_by_field_name("declaration") {
                statement(b, declaration, outer, &inner);
            } else if let Some(value) = node.child_by_field_name("value") {
                // `export default function () {}` / `export default class {}`
                if matches!(
                    value.kind(),
                    "function_expression" | "class" | "arrow_function"
                ) {
                    default_export(b, value, outer, scope);
                }
            } else {
                for child in named_children(node) {
                    if matches!(
                        child.kind(),
                        "function_declaration" | "class_declaration" | "abstract_class_declaration"
                    ) {
                        statement(b, child, outer, &inner);
                    }
                }
            }
        }
        "ambient_declaration" => {
            for child in named_children(node) {
                statement(b, child, outer, scope);
            }
        }
        "expression_statement" => {
            for child in named_children(node)
                .into_iter()
                .filter(|n| n.kind() == "internal_module")
            {
                statement(b, child, outer, scope);
            }
        }
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            let body = node.child_by_field_name("body");
            named(
                b,
                node,
                outer,
                scope,
                SymbolKind::Function,
                signature(b.src, node, body),
                callable_discriminator(b, node),
            );
        }
        "class_declaration" | "abstract_class_declaration" | "class" | "interface_declaration" => {
            let kind = if node.kind() == "interface_declaration" {
                SymbolKind::Interface
            } else {
                SymbolKind::Class
            };
            let body = node.child_by_field_name("body");
            let Some(index) = named(
                b,
                node,
                outer,
                scope,
                kind,
                signature(b.src, node, body),
                None,
            ) else {
                return;
            };
            if let Some(body) = body {
                members(b, body, index, scope.exported);
            }
        }
        "type_alias_declaration" => {
            named(
                b,
                node,
                outer,
                scope,
                SymbolKind::Type,
                collapse(b.text(node)).trim_end_matches(';').to_string(),
                None,
            );
        }
        "enum_declaration" => {
            let body = node.child_by_field_name("body");
            let Some(index) = named(
                b,
                node,
                outer,
                scope,
                SymbolKind::Enum,
                signature(b.src, node, body),
                None,
            ) else {
                return;
            };
            let Some(body) = body else { return };
            let container = b[index].qualified_name.clone();
            for member in named_children(body) {
                let name_node = match member.kind() {
                    "property_identifier" | "string" => Some(member),
                    "enum_assignment" => member.child_by_field_name("name"),
                    _ => None,
                };
                let Some(name_node) = name_node else { continue };
                let name = b.text(name_node).trim_matches(['"', '\'']).to_string();
                let doc = ts_doc(b, member);
                b.push(
                    member,
                    NewDeclaration {
                        qualified_name: qualify(Some(&container), ".", &name),
                        name,
                        kind: SymbolKind::EnumMember,
                        signature: collapse(b.text(member)),
                        exported: scope.exported,
                        doc,
                        parent: Some(index),
                        receiver: None,
                        discriminator: None,
                    },
                );
            }
        }
        "internal_module" | "module" => {
            let body = node.child_by_field_name("body");
            let Some(index) = named(
                b,
                node,
                outer,
                scope,
                SymbolKind::Namespace,
                signature(b.src, node, body),
                None,
            ) else {
                return;
            };
            if let Some(body) = body {
                let container = b[index].qualified_name.clone();
                statements(
                    b,
                    body,
                    &Scope {
                        container: Some((&container, index)),
                        exported: false,
                    },
                );
            }
        }
        "lexical_declaration" | "variable_declaration" => {
            for declarator in named_children(node)
                .into_iter()
                .filter(|n| n.kind() == "variable_declarator")
            {
                let Some(name_node) = declarator
                    .child_by_field_name("name")
                    .filter(|n| n.kind() == "identifier")
                else {
                    continue;
                };
                let value = declarator.child_by_field_name("value");
                let is_function = value.is_some_and(|v| {
                    matches!(
                        v.kind(),
                        "arrow_function" | "function_expression" | "function"
                    )
                });
                let (kind, discriminator) = match value.filter(|_| is_function) {
                    Some(function) => (SymbolKind::Function, callable_discriminator(b, function)),
                    None => (SymbolKind::Variable, None),
                };
                let keyword = node.child(0).map(|k| b.text(k)).unwrap_or("var");
                let header = match value {
                    Some(v) if is_function => {
                        let body = v.child_by_field_name("body");
                        format!(
                            "{keyword} {}",
                            signature(b.src, declarator, body)
                                .trim_end_matches("=>")
                                .trim_end()
                        )
                    }
                    Some(v) => format!(
                        "{keyword} {}",
                        collapse(&b.src[declarator.start_byte()..v.start_byte()])
                            .trim_end_matches('=')
                            .trim_end()
                    ),
                    None => format!("{keyword} {}", collapse(b.text(declarator))),
                };
                let name = b.text(name_node).to_string();
                let span_node = if named_children(node).len() == 1 {
                    outer
                } else {
                    declarator
                };
                push_named(
                    b,
                    span_node,
                    outer,
                    scope,
                    name,
                    kind,
                    header,
                    discriminator,
                );
            }
        }
        _ => {}
    }
}

fn default_export(b: &mut Builder, value: Node, outer: Node, scope: &Scope) {
    let name = value
        .child_by_field_name("name")
        .map(|n| b.text(n).to_string())
        .unwrap_or_else(|| "default".to_string());
    let kind = if value.kind() == "class" {
        SymbolKind::Class
    } else {
        SymbolKind::Function
    };
    let body = value.child_by_field_name("body");
    let discriminator = (kind == SymbolKind::Function)
        .then(|| callable_discriminator(b, value))
        .flatten();
    let inner = Scope {
        container: scope.container,
        exported: true,
    };
    let index = push_named(
        b,
        outer,
        outer,
        &inner,
        name,
        kind,
        signature(b.src, outer, body),
        discriminator,
    );
    if kind == SymbolKind::Class
        && let Some(body) = body
    {
        members(b, body, index, true);
    }
}

fn named(
    b: &mut Builder,
    node: Node,
    outer: Node,
    scope: &Scope,
    kind: SymbolKind,
    signature: String,
    discriminator: Option<String>,
) -> Option<DeclarationId> {
    let name = b
        .text(node.child_by_field_name("name")?)
        .trim_matches(['"', '\''])
        .to_string();
    Some(push_named(
        b,
        outer,
        outer,
        scope,
        name,
        kind,
        signature,
        discriminator,
    ))
}

#[allow(clippy::too_many_arguments)]
fn push_named(
    b: &mut Builder,
    span_node: Node,
    doc_node: Node,
    scope: &Scope,
    name: String,
    kind: SymbolKind,
    signature: String,
    discriminator: Option<String>,
) -> DeclarationId {
    let doc = ts_doc(b, doc_node);
    b.push(
        span_node,
        NewDeclaration {
            qualified_name: qualify(scope.container.map(|(q, _)| q), ".", &name),
            name,
            kind,
            signature,
            exported: scope.exported,
            doc,
            parent: scope.container.map(|(_, i)| i),
            receiver: None,
            discriminator,
        },
    )
}

/// Members of a class or interface body.
fn members(b: &mut Builder, body: Node, container: DeclarationId, container_exported: bool) {
    let prefix = b[container].qualified_name.clone();
    for member in named_children(body) {
        let (kind, name_field) = match member.kind() {
            "method_definition" | "method_signature" | "abstract_method_signature" => {
                (SymbolKind::Method, "name")
            }
            "public_field_definition" | "property_signature" => (SymbolKind::Property, "name"),
            "field_definition" => (SymbolKind::Property, "property"),
            _ => continue,
        };
        let Some(name_node) = member.child_by_field_name(name_field) else {
            continue;
        };
        let name = b.text(name_node).trim_matches(['"', '\'']).to_string();
        let private = name.starts_with('#')
            || named_children(member).iter().any(|c| {
                c.kind() == "accessibility_modifier"
                    && matches!(b.text(*c), "private" | "protected")
            });
        let (signature, discriminator) = if kind == SymbolKind::Method {
            (
                signature(b.src, member, member.child_by_field_name("body")),
                callable_discriminator(b, member),
            )
        } else {
            let value_start = member
                .child_by_field_name("value")
                .map(|v| v.start_byte())
                .unwrap_or(member.end_byte());
            (
                collapse(&b.src[member.start_byte()..value_start])
                    .trim_end_matches(['=', ';', ' '])
                    .to_string(),
                None,
            )
        };
        let doc = ts_doc(b, member);
        b.push(
            member,
            NewDeclaration {
                qualified_name: format!("{prefix}.{name}"),
                name,
                kind,
                signature,
                exported: container_exported && !private,
                doc,
                parent: Some(container),
                receiver: None,
                discriminator,
            },
        );
    }
}
