//! Go: functions, methods (under their receiver type), types and aliases with their fields
//! and interface methods, constants and variables.

use kivgraph_facts::SymbolKind;
use tree_sitter::Node;

use crate::common::{
    Builder, DeclarationId, NewDeclaration, collapse, doc_above, named_children, signature, text,
    truncate,
};

fn exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// A `//` comment block directly above a declaration is its doc comment.
fn go_doc(b: &Builder, node: Node) -> Option<String> {
    doc_above(b.src, node, |comment| {
        if let Some(line) = comment.strip_prefix("//") {
            Some(line.strip_prefix(' ').unwrap_or(line).to_string())
        } else {
            comment
                .strip_prefix("/*")
                .and_then(|c| c.strip_suffix("*/"))
                .map(str::to_string)
        }
    })
}

/// Returns the package clause.
pub fn extract(b: &mut Builder, root: Node) -> Option<String> {
    let mut package = None;
    for node in named_children(root) {
        match node.kind() {
            "package_clause" => {
                package = named_children(node).first().map(|n| b.text(*n).to_string());
            }
            "function_declaration" => function(b, node),
            "method_declaration" => method(b, node),
            "type_declaration" => {
                for spec in named_children(node) {
                    if matches!(spec.kind(), "type_spec" | "type_alias") {
                        type_spec(b, node, spec);
                    }
                }
            }
            "const_declaration" => value_specs(b, node, SymbolKind::Const),
            "var_declaration" => value_specs(b, node, SymbolKind::Var),
            _ => {}
        }
    }
    package
}

fn function(b: &mut Builder, node: Node) {
    let Some(name_node) = node.child_by_field_name("name") else {
        return;
    };
    let name = b.text(name_node).to_string();
    let doc = go_doc(b, node);
    b.push(
        node,
        NewDeclaration {
            exported: exported(&name),
            qualified_name: name.clone(),
            name,
            kind: SymbolKind::Func,
            signature: signature(b.src, node, node.child_by_field_name("body")),
            doc,
            parent: None,
            receiver: None,
            discriminator: None,
        },
    );
}

/// The receiver's type name: `(s *Server[T])` → `Server`.
fn receiver_type(b: &Builder, receiver: Node) -> Option<String> {
    let parameter = named_children(receiver)
        .into_iter()
        .find(|n| n.kind() == "parameter_declaration")?;
    let mut ty = parameter.child_by_field_name("type")?;
    loop {
        match ty.kind() {
            "pointer_type" => ty = named_children(ty).into_iter().next()?,
            "generic_type" => ty = ty.child_by_field_name("type")?,
            "parenthesized_type" => ty = named_children(ty).into_iter().next()?,
            "type_identifier" => return Some(b.text(ty).to_string()),
            _ => return None,
        }
    }
}

fn method(b: &mut Builder, node: Node) {
    let Some(name_node) = node.child_by_field_name("name") else {
        return;
    };
    let name = b.text(name_node).to_string();
    let receiver = node
        .child_by_field_name("receiver")
        .and_then(|r| receiver_type(b, r));
    let qualified_name = match &receiver {
        Some(ty) => format!("{ty}.{name}"),
        None => name.clone(),
    };
    // The receiver type is resolved within the package by the engine; in-file, link it now.
    let parent = receiver.as_ref().and_then(|ty| {
        b.declarations()
            .find(|(_, d)| d.parent.is_none() && d.kind == SymbolKind::Type && d.name == *ty)
            .map(|(id, _)| id)
    });
    let doc = go_doc(b, node);
    let generic = node
        .child_by_field_name("receiver")
        .is_some_and(|r| b.text(r).contains('['));
    let index = b.push(
        node,
        NewDeclaration {
            exported: exported(&name),
            name,
            qualified_name,
            kind: SymbolKind::Method,
            signature: signature(b.src, node, node.child_by_field_name("body")),
            doc,
            parent,
            receiver: if parent.is_none() { receiver } else { None },
            discriminator: None,
        },
    );
    if !generic {
        b[index].method_shape = Some(method_shape(b.src, node));
    }
}

/// A method's signature as interface satisfaction compares it: the parameter and result
/// types, parameter names dropped (`(a, b int)` is `int , int`), type names marked so the
/// engine can say which declaration each denotes.
fn method_shape(src: &str, node: Node) -> String {
    let mut shape = String::new();
    if let Some(parameters) = node.child_by_field_name("parameters") {
        list_shape(src, parameters, &mut shape);
    }
    shape.push_str(" ->");
    // `string`, `(string)` and `(s string)` are one result list.
    match node.child_by_field_name("result") {
        Some(result) if result.kind() == "parameter_list" => list_shape(src, result, &mut shape),
        Some(result) => {
            shape.push_str(" (");
            type_shape(src, result, &mut shape);
            shape.push_str(" , )");
        }
        None => shape.push_str(" ( )"),
    }
    shape
}

fn list_shape(src: &str, list: Node, shape: &mut String) {
    shape.push_str(" (");
    for parameter in named_children(list) {
        let Some(ty) = parameter.child_by_field_name("type") else {
            continue;
        };
        let mut cursor = parameter.walk();
        let names = parameter
            .children_by_field_name("name", &mut cursor)
            .count();
        let variadic = parameter.kind() == "variadic_parameter_declaration";
        for _ in 0..names.max(1) {
            if variadic {
                shape.push_str(" ...");
            }
            type_shape(src, ty, shape);
            shape.push_str(" ,");
        }
    }
    shape.push_str(" )");
}

fn type_shape(src: &str, node: Node, shape: &mut String) {
    match node.kind() {
        "type_identifier" => {
            shape.push_str(" #");
            shape.push_str(text(src, node));
        }
        "qualified_type" => {
            shape.push_str(" @");
            shape.push_str(&collapse(text(src, node)).replace(' ', ""));
        }
        "parameter_list" => list_shape(src, node, shape),
        "comment" => {}
        _ if node.child_count() == 0 => {
            shape.push(' ');
            shape.push_str(text(src, node));
        }
        _ => {
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                type_shape(src, child, shape);
            }
        }
    }
}

fn type_spec(b: &mut Builder, declaration: Node, spec: Node) {
    let Some(name_node) = spec.child_by_field_name("name") else {
        return;
    };
    let name = b.text(name_node).to_string();
    let kind = if spec.kind() == "type_alias" {
        SymbolKind::Alias
    } else {
        SymbolKind::Type
    };
    // A lone spec is documented above `type`; a grouped one above itself.
    let doc_node = if named_children(declaration).len() == 1 {
        declaration
    } else {
        spec
    };
    let doc = go_doc(b, doc_node);
    let ty = spec.child_by_field_name("type");
    let type_parameters = spec
        .child_by_field_name("type_parameters")
        .map(|t| b.text(t))
        .unwrap_or("");
    let shape = match ty.map(|t| (t.kind(), t)) {
        Some(("struct_type", _)) => "struct".to_string(),
        Some(("interface_type", _)) => "interface".to_string(),
        Some((_, t)) => collapse(b.text(t)),
        None => String::new(),
    };
    let equals = if kind == SymbolKind::Alias { " =" } else { "" };
    let spelled = truncate(format!("type {name}{type_parameters}{equals} {shape}"), 240);
    let span_node = if named_children(declaration).len() == 1 {
        declaration
    } else {
        spec
    };
    let index = b.push(
        span_node,
        NewDeclaration {
            exported: exported(&name),
            qualified_name: name.clone(),
            name: name.clone(),
            kind,
            signature: spelled,
            doc,
            parent: None,
            receiver: None,
            discriminator: None,
        },
    );
    let Some(ty) = ty else { return };
    match ty.kind() {
        "struct_type" => {
            let Some(list) = named_children(ty)
                .into_iter()
                .find(|n| n.kind() == "field_declaration_list")
            else {
                return;
            };
            for field in named_children(list)
                .into_iter()
                .filter(|n| n.kind() == "field_declaration")
            {
                let mut cursor = field.walk();
                let names: Vec<String> = field
                    .children_by_field_name("name", &mut cursor)
                    .map(|n| b.text(n).to_string())
                    .collect();
                // An embedded field is named after its type.
                let names = if names.is_empty() {
                    field
                        .child_by_field_name("type")
                        .map(|t| {
                            b.text(t)
                                .trim_start_matches('*')
                                .rsplit('.')
                                .next()
                                .unwrap_or("")
                                .to_string()
                        })
                        .into_iter()
                        .filter(|n| !n.is_empty())
                        .collect()
                } else {
                    names
                };
                let doc = go_doc(b, field);
                for field_name in names {
                    let signature = collapse(b.text(field));
                    member(
                        b,
                        field,
                        (index, &name),
                        field_name,
                        SymbolKind::Field,
                        signature,
                        doc.clone(),
                    );
                }
            }
        }
        "interface_type" => {
            // A constraint (`~int | string`) or a generic interface is no method set the
            // syntax can compare; a type name alone is an embedded interface.
            let comparable = type_parameters.is_empty()
                && named_children(ty).into_iter().all(|element| {
                    element.kind() != "type_elem"
                        || matches!(
                            named_children(element)
                                .iter()
                                .map(|n| n.kind())
                                .collect::<Vec<_>>()
                                .as_slice(),
                            ["type_identifier" | "qualified_type"]
                        )
                });
            for element in named_children(ty)
                .into_iter()
                .filter(|n| n.kind() == "method_elem")
            {
                let Some(method_name) = element
                    .child_by_field_name("name")
                    .map(|n| b.text(n).to_string())
                else {
                    continue;
                };
                let doc = go_doc(b, element);
                let signature = collapse(b.text(element));
                let member_index = member(
                    b,
                    element,
                    (index, &name),
                    method_name,
                    SymbolKind::Method,
                    signature,
                    doc,
                );
                if comparable {
                    b[member_index].method_shape = Some(method_shape(b.src, element));
                }
            }
        }
        _ => {}
    }
}

/// A field or interface method under its type.
fn member(
    b: &mut Builder,
    node: Node,
    (container, container_name): (DeclarationId, &str),
    name: String,
    kind: SymbolKind,
    signature: String,
    doc: Option<String>,
) -> DeclarationId {
    b.push(
        node,
        NewDeclaration {
            exported: exported(&name),
            qualified_name: format!("{container_name}.{name}"),
            name,
            kind,
            signature,
            doc,
            parent: Some(container),
            receiver: None,
            discriminator: None,
        },
    )
}

fn value_specs(b: &mut Builder, declaration: Node, kind: SymbolKind) {
    let mut specs = Vec::new();
    for child in named_children(declaration) {
        match child.kind() {
            "const_spec" | "var_spec" => specs.push(child),
            "var_spec_list" => specs.extend(
                named_children(child)
                    .into_iter()
                    .filter(|n| n.kind() == "var_spec"),
            ),
            _ => {}
        }
    }
    let single = specs.len() == 1;
    let keyword = if kind == SymbolKind::Const {
        "const"
    } else {
        "var"
    };
    for spec in specs {
        let span_node = if single { declaration } else { spec };
        let doc = go_doc(b, span_node);
        let mut cursor = spec.walk();
        let names: Vec<String> = spec
            .children_by_field_name("name", &mut cursor)
            .map(|n| b.text(n).to_string())
            .collect();
        let spelled = format!("{keyword} {}", collapse(b.text(spec)));
        for name in names.into_iter().filter(|n| n != "_") {
            b.push(
                span_node,
                NewDeclaration {
                    exported: exported(&name),
                    qualified_name: name.clone(),
                    name,
                    kind,
                    signature: truncate(spelled.clone(), 240),
                    doc: doc.clone(),
                    parent: None,
                    receiver: None,
                    discriminator: None,
                },
            );
        }
    }
}
