//! Rust: functions, structs with their fields, enums with their variants, unions, traits with
//! their items, impl blocks' associated items (under their self type), constants, statics,
//! type aliases, macros and modules (inline modules are descended). Qualified names use `::`
//! and start at the file's module; the engine prefixes the module path.

use kivgraph_facts::SymbolKind;
use tree_sitter::Node;

use crate::common::{
    Builder, DeclarationId, NewDeclaration, collapse, doc_above, named_children, qualify, signature,
};

fn rust_doc(b: &Builder, node: Node) -> Option<String> {
    doc_above(b.src, node, |comment| {
        if let Some(line) = comment
            .strip_prefix("///")
            .filter(|_| !comment.starts_with("////"))
        {
            Some(line.trim().to_string())
        } else {
            comment
                .strip_prefix("/**")
                .and_then(|c| c.strip_suffix("*/"))
                .map(|c| {
                    c.lines()
                        .map(|l| l.trim().trim_start_matches('*').trim())
                        .collect::<Vec<_>>()
                        .join("\n")
                })
        }
    })
}

/// `pub` without a restriction; `pub(crate)` and friends stay inside the crate.
fn is_public(b: &Builder, node: Node) -> bool {
    named_children(node)
        .iter()
        .any(|c| c.kind() == "visibility_modifier" && b.text(*c).trim() == "pub")
}

#[derive(Clone, Copy)]
struct Scope<'a> {
    prefix: &'a str,
    parent: Option<DeclarationId>,
    /// Members of a trait or a trait impl take their visibility from it.
    inherited_public: Option<bool>,
    in_trait: bool,
    /// The trait a trait impl implements: it separates `fmt` of `Display` from `fmt` of `Debug`.
    implemented_trait: Option<&'a str>,
    in_impl: bool,
}

pub fn extract(b: &mut Builder, root: Node) {
    items(
        b,
        root,
        Scope {
            prefix: "",
            parent: None,
            inherited_public: None,
            in_trait: false,
            implemented_trait: None,
            in_impl: false,
        },
    );
}

fn items(b: &mut Builder, parent: Node, scope: Scope) {
    for node in named_children(parent) {
        item(b, node, scope);
    }
}

fn push(
    b: &mut Builder,
    node: Node,
    scope: Scope,
    name: String,
    kind: SymbolKind,
    signature: String,
) -> DeclarationId {
    let exported = scope.inherited_public.unwrap_or_else(|| is_public(b, node));
    let doc = rust_doc(b, node);
    b.push(
        node,
        NewDeclaration {
            qualified_name: qualify(Some(scope.prefix), "::", &name),
            name,
            kind,
            signature,
            exported,
            doc,
            parent: scope.parent,
            receiver: None,
            discriminator: scope.implemented_trait.map(str::to_string),
        },
    )
}

fn name_of(b: &Builder, node: Node) -> Option<String> {
    node.child_by_field_name("name")
        .map(|n| b.text(n).to_string())
}

fn item(b: &mut Builder, node: Node, scope: Scope) {
    let body = node.child_by_field_name("body");
    match node.kind() {
        "function_item" | "function_signature_item" => {
            let Some(name) = name_of(b, node) else { return };
            let has_self = node.child_by_field_name("parameters").is_some_and(|p| {
                named_children(p)
                    .iter()
                    .any(|c| c.kind() == "self_parameter")
            });
            let kind = if scope.in_trait {
                SymbolKind::TraitMethod
            } else if scope.in_impl {
                if has_self {
                    SymbolKind::Method
                } else {
                    SymbolKind::StaticMethod
                }
            } else {
                SymbolKind::Function
            };
            push(b, node, scope, name, kind, signature(b.src, node, body));
        }
        "struct_item" | "union_item" => {
            let Some(name) = name_of(b, node) else { return };
            let kind = if node.kind() == "struct_item" {
                SymbolKind::Struct
            } else {
                SymbolKind::Union
            };
            let index = push(b, node, scope, name, kind, signature(b.src, node, body));
            let Some(body) = body.filter(|b| b.kind() == "field_declaration_list") else {
                return;
            };
            let prefix = b[index].qualified_name.clone();
            for field in named_children(body)
                .into_iter()
                .filter(|f| f.kind() == "field_declaration")
            {
                let Some(field_name) = name_of(b, field) else {
                    continue;
                };
                let member = Scope {
                    prefix: &prefix,
                    parent: Some(index),
                    inherited_public: None,
                    in_trait: false,
                    implemented_trait: None,
                    in_impl: false,
                };
                push(
                    b,
                    field,
                    member,
                    field_name,
                    SymbolKind::Field,
                    collapse(b.text(field)),
                );
            }
        }
        "enum_item" => {
            let Some(name) = name_of(b, node) else { return };
            let index = push(
                b,
                node,
                scope,
                name,
                SymbolKind::Enum,
                signature(b.src, node, body),
            );
            let Some(body) = body else { return };
            let prefix = b[index].qualified_name.clone();
            let public = b[index].exported;
            for variant in named_children(body)
                .into_iter()
                .filter(|v| v.kind() == "enum_variant")
            {
                let Some(variant_name) = name_of(b, variant) else {
                    continue;
                };
                let member = Scope {
                    prefix: &prefix,
                    parent: Some(index),
                    inherited_public: Some(public),
                    in_trait: false,
                    implemented_trait: None,
                    in_impl: false,
                };
                push(
                    b,
                    variant,
                    member,
                    variant_name,
                    SymbolKind::EnumMember,
                    collapse(b.text(variant)),
                );
            }
        }
        "trait_item" => {
            let Some(name) = name_of(b, node) else { return };
            let index = push(
                b,
                node,
                scope,
                name,
                SymbolKind::Trait,
                signature(b.src, node, body),
            );
            let Some(body) = body else { return };
            let prefix = b[index].qualified_name.clone();
            let public = b[index].exported;
            let member = Scope {
                prefix: &prefix,
                parent: Some(index),
                inherited_public: Some(public),
                in_trait: true,
                implemented_trait: None,
                in_impl: false,
            };
            items(b, body, member);
        }
        "impl_item" => impl_block(b, node, scope),
        "macro_invocation" => macro_items(b, node, scope),
        // `name![ .. ];` at item level.
        "expression_statement" => {
            if let Some(invocation) = named_children(node)
                .into_iter()
                .find(|c| c.kind() == "macro_invocation")
            {
                macro_items(b, invocation, scope);
            }
        }
        "const_item" => named_item(b, node, scope, SymbolKind::Constant),
        "static_item" => named_item(b, node, scope, SymbolKind::Static),
        "type_item" => named_item(b, node, scope, SymbolKind::TypeAlias),
        "associated_type" => named_item(b, node, scope, SymbolKind::AssociatedType),
        "macro_definition" => {
            let Some(name) = name_of(b, node) else { return };
            // `#[macro_export]` is what makes a macro_rules! macro visible outside its crate.
            let exported = attributes_above(b, node)
                .iter()
                .any(|a| a.contains("macro_export"));
            let index = push(
                b,
                node,
                scope,
                name.clone(),
                SymbolKind::Macro,
                format!("macro_rules! {name}"),
            );
            if exported {
                b[index].exported = true;
            }
        }
        "mod_item" => {
            let Some(name) = name_of(b, node) else { return };
            let index = push(
                b,
                node,
                scope,
                name,
                SymbolKind::Module,
                signature(b.src, node, body),
            );
            if let Some(body) = body {
                let prefix = b[index].qualified_name.clone();
                items(
                    b,
                    body,
                    Scope {
                        prefix: &prefix,
                        parent: None,
                        inherited_public: None,
                        in_trait: false,
                        implemented_trait: None,
                        in_impl: false,
                    },
                );
            }
        }
        _ => {}
    }
}

fn named_item(b: &mut Builder, node: Node, scope: Scope, kind: SymbolKind) {
    let Some(name) = name_of(b, node) else { return };
    let value_start = node
        .child_by_field_name("value")
        .map(|v| v.start_byte())
        .unwrap_or(node.end_byte());
    let header = collapse(&b.src[node.start_byte()..value_start]);
    push(
        b,
        node,
        scope,
        name,
        kind,
        header.trim_end_matches([';', '=', ' ']).to_string(),
    );
}

fn attributes_above<'s>(b: &Builder<'s>, node: Node) -> Vec<&'s str> {
    let mut attributes = Vec::new();
    let mut current = node.prev_sibling();
    while let Some(sibling) = current.filter(|s| {
        matches!(
            s.kind(),
            "attribute_item" | "line_comment" | "block_comment"
        )
    }) {
        if sibling.kind() == "attribute_item" {
            attributes.push(b.text(sibling));
        }
        current = sibling.prev_sibling();
    }
    attributes
}

/// The simple name of a type as written: `crate::a::Foo<T>` → `Foo`, `&mut Foo` → `Foo`.
fn type_name(b: &Builder, ty: Node) -> Option<String> {
    match ty.kind() {
        "type_identifier" => Some(b.text(ty).to_string()),
        "generic_type" => type_name(b, ty.child_by_field_name("type")?),
        "scoped_type_identifier" => type_name(b, ty.child_by_field_name("name")?),
        "reference_type" | "pointer_type" => type_name(b, ty.child_by_field_name("type")?),
        _ => None,
    }
}

fn impl_block(b: &mut Builder, node: Node, scope: Scope) {
    let Some(self_type) = node
        .child_by_field_name("type")
        .and_then(|t| type_name(b, t))
    else {
        return;
    };
    let implemented_trait = node
        .child_by_field_name("trait")
        .and_then(|t| type_name(b, t));
    let Some(body) = node.child_by_field_name("body") else {
        return;
    };
    // The self type declared in the same scope of this file is the container; otherwise the
    // engine looks it up in the crate.
    let prefix = qualify(Some(scope.prefix), "::", &self_type);
    let container = b
        .declarations()
        .find(|(_, d)| {
            d.qualified_name == prefix
                && matches!(
                    d.kind,
                    SymbolKind::Struct | SymbolKind::Enum | SymbolKind::Union | SymbolKind::Trait
                )
        })
        .map(|(id, _)| id);
    let first_member = b.mark();
    let member = Scope {
        prefix: &prefix,
        parent: container,
        inherited_public: implemented_trait.as_ref().map(|_| true),
        in_trait: false,
        implemented_trait: implemented_trait.as_deref(),
        in_impl: true,
    };
    items(b, body, member);
    if container.is_none() {
        for declaration in b.since(first_member) {
            declaration.receiver = Some(self_type.clone());
        }
    }
}

/// Items a macro invocation at item level spells out (syn's `ast_struct! { pub struct
/// DeriveInput { .. } }`, quote's `__quote![ macro_rules! quote { .. } ]`, a
/// `thread_local!` static): the macro's input, when it parses as Rust items without an error,
/// declares them as written.
fn macro_items(b: &mut Builder, node: Node, scope: Scope) {
    let Some(input) = named_children(node)
        .into_iter()
        .find(|c| c.kind() == "token_tree")
    else {
        return;
    };
    // Inside the delimiters, parsed alone but in place: tree-sitter reads only that range
    // of the file, so every offset is the file's own and the file is not copied.
    let start = input.start_position();
    let end = input.end_position();
    let range = tree_sitter::Range {
        start_byte: input.start_byte() + 1,
        end_byte: input.end_byte().saturating_sub(1),
        start_point: tree_sitter::Point::new(start.row, start.column + 1),
        end_point: tree_sitter::Point::new(end.row, end.column.saturating_sub(1)),
    };
    if range.start_byte >= range.end_byte {
        return;
    }
    let mut parser = tree_sitter::Parser::new();
    if parser
        .set_language(&tree_sitter_rust::LANGUAGE.into())
        .is_err()
        || parser.set_included_ranges(&[range]).is_err()
    {
        return;
    }
    let Some(tree) = parser.parse(b.src, None) else {
        return;
    };
    let root = tree.root_node();
    if root.has_error() || root.named_child_count() == 0 {
        return;
    }
    items(b, root, scope);
}
