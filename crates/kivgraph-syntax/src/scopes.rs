//! Local scopes: which sites spell a name the file binds locally (a parameter, a variable, a
//! pattern), and the declared type a local carries where the syntax spells it.

use kivgraph_facts::{EdgeKind, Language};
use std::collections::HashMap;

use tree_sitter::Node;

use crate::common::text;
use crate::sites::ReferenceSite;

/// Sets `locally_bound` (and, in Go, `through_receiver`) on a file's sites from the names
/// each top-level declaration or statement binds inside itself.
pub(crate) fn mark_local_bindings(
    language: Language,
    src: &str,
    root: Node,
    sites: &mut [ReferenceSite],
) {
    let units: Vec<(u32, u32, LocalScope)> = crate::common::named_children(root)
        .into_iter()
        .map(|unit| {
            let scope = match language {
                Language::Go => LocalScope::go(src, unit),
                Language::Python => LocalScope::python(src, unit),
                Language::Rust => LocalScope::rust(src, unit),
                Language::TypeScript | Language::JavaScript => LocalScope::typescript(src, unit),
            };
            (unit.start_byte() as u32, unit.end_byte() as u32, scope)
        })
        .collect();
    let uses = |s: &&mut ReferenceSite| {
        matches!(
            s.kind,
            EdgeKind::CallsDirect
                | EdgeKind::TypeUses
                | EdgeKind::Embeds
                | EdgeKind::Extends
                | EdgeKind::Implements
                | EdgeKind::PassesAsCallback
                | EdgeKind::AssignsFunction
                | EdgeKind::ReturnsFunction
        )
    };
    for site in sites.iter_mut().filter(uses) {
        // TypeScript's `new C(…).m()`: the class name is what a scope can rebind.
        let constructed = match (&site.qualifier, &site.operand_type) {
            (Some(operand), Some(class)) if !is_identifier(operand) => Some(class.clone()),
            _ => None,
        };
        // The name a scope can rebind: the bare name, or the operand of `operand.name`, or
        // the first segment of a Rust path.
        let bindable = match &site.qualifier {
            None => site.name.as_str(),
            Some(operand) if is_identifier(operand) => operand.as_str(),
            // A Rust path's first segment: a generic parameter (`T::new()`) rebinds it.
            Some(path) if language == Language::Rust && path.contains("::") => {
                path.split("::").next().unwrap_or(path)
            }
            Some(_) => match &constructed {
                Some(class) => class.as_str(),
                None => continue,
            },
        };
        let at = site.span.start_byte;
        let scope = units
            .partition_point(|(start, ..)| *start <= at)
            .checked_sub(1)
            .map(|i| &units[i])
            .filter(|(_, end, _)| at < *end)
            .map(|(.., scope)| scope);
        let bindings = scope.map_or(0, |scope| scope.bindings(bindable));
        site.locally_bound = Some(bindings > 0);
        // TypeScript's `this` was marked where the site was read.
        site.through_receiver |= site.qualifier.is_some()
            && bindings == 1
            && scope.is_some_and(|scope| scope.receiver == Some(bindable));
        if constructed.is_none() && site.qualifier.is_some() && bindings == 1 {
            // A local type of the same name would be another type: then no claim.
            site.operand_type = scope
                .and_then(|scope| {
                    let ty = *scope.types.get(bindable)?;
                    (ty.contains('.') || scope.bindings(ty) == 0).then_some(ty)
                })
                .map(str::to_string);
        }
    }
}

/// The names one top-level declaration binds locally, counted, and (Go) a method's receiver
/// and the types its bindings are declared with.
struct LocalScope<'s> {
    names: HashMap<&'s str, u32>,
    receiver: Option<&'s str>,
    types: HashMap<&'s str, &'s str>,
}

impl<'s> LocalScope<'s> {
    /// A top-level `var`, `const` or `type` spec binds at package level, so specs count only
    /// inside a block (a function body).
    pub(crate) fn go(src: &'s str, unit: Node) -> Self {
        let mut names: HashMap<&str, u32> = HashMap::new();
        let mut types: HashMap<&str, &str> = HashMap::new();
        let mut stack = vec![(unit, false)];
        while let Some((node, in_block)) = stack.pop() {
            if let Some((name, ty)) = go_declared_type(src, node) {
                types.insert(name, ty);
            }
            let bound: &[&str] = match node.kind() {
                "parameter_declaration"
                | "variadic_parameter_declaration"
                | "type_parameter_declaration" => &["name"],
                "short_var_declaration" | "range_clause" | "receive_statement" => &["left"],
                "type_switch_statement" => &["alias"],
                "var_spec" | "const_spec" | "type_spec" | "type_alias" if in_block => &["name"],
                _ => &[],
            };
            for field in bound {
                let mut cursor = node.walk();
                for target in node.children_by_field_name(field, &mut cursor) {
                    let targets = match target.kind() {
                        "expression_list" => crate::common::named_children(target)
                            .into_iter()
                            .filter(|n| n.kind() == "identifier")
                            .collect(),
                        _ => vec![target],
                    };
                    for target in targets {
                        *names.entry(text(src, target)).or_default() += 1;
                    }
                }
            }
            let in_block = in_block || node.kind() == "block";
            stack.extend(
                crate::common::named_children(node)
                    .into_iter()
                    .map(|n| (n, in_block)),
            );
        }
        let receiver = unit
            .child_by_field_name("receiver")
            .and_then(|list| crate::common::named_children(list).into_iter().next())
            .and_then(|parameter| parameter.child_by_field_name("name"))
            .map(|name| text(src, name));
        LocalScope {
            names,
            receiver,
            types,
        }
    }

    /// TypeScript/JavaScript: parameters, and declarations nested in a function, block or
    /// class body (a top-level `const f` or `function f` is the module's binding, not a
    /// local one).
    pub(crate) fn typescript(src: &'s str, unit: Node) -> Self {
        let mut names: HashMap<&str, u32> = HashMap::new();
        let mut types: HashMap<&str, &str> = HashMap::new();
        let mut stack = vec![(unit, false)];
        while let Some((node, nested)) = stack.pop() {
            if let Some((name, ty)) = typescript_declared_type(src, node) {
                types.insert(name, ty);
            }
            let bound: Option<Node> = match node.kind() {
                "variable_declarator" if nested => node.child_by_field_name("name"),
                "function_declaration" | "generator_function_declaration" | "class_declaration"
                    if nested =>
                {
                    node.child_by_field_name("name")
                }
                // A named function expression binds its name inside itself; a type
                // parameter binds inside the declaration that has it.
                "function_expression" | "type_parameter" => node.child_by_field_name("name"),
                "formal_parameters" => Some(node),
                "arrow_function" => node.child_by_field_name("parameter"),
                "catch_clause" => node.child_by_field_name("parameter"),
                "for_in_statement" => node.child_by_field_name("left"),
                _ => None,
            };
            if let Some(pattern) = bound {
                for name in pattern_names(src, pattern) {
                    *names.entry(name).or_default() += 1;
                }
            }
            let nested = nested
                || matches!(
                    node.kind(),
                    "statement_block"
                        | "formal_parameters"
                        | "arrow_function"
                        | "function_expression"
                        | "class_body"
                        | "catch_clause"
                        | "for_in_statement"
                        | "for_statement"
                );
            stack.extend(
                crate::common::named_children(node)
                    .into_iter()
                    .map(|n| (n, nested)),
            );
        }
        LocalScope {
            names,
            receiver: None,
            types,
        }
    }

    /// Rust: every pattern a `let`, a parameter, a closure, a `for`, a `match` arm or an
    /// `if let` binds, generic parameters, and items nested in a function body (a top-level
    /// item is the module's binding, not a local one).
    pub(crate) fn rust(src: &'s str, unit: Node) -> Self {
        let mut names: HashMap<&str, u32> = HashMap::new();
        let mut stack = vec![(unit, false)];
        while let Some((node, nested)) = stack.pop() {
            let bound: Option<Node> = match node.kind() {
                "let_declaration" | "parameter" | "for_expression" | "match_arm"
                | "let_condition" => node.child_by_field_name("pattern"),
                "closure_parameters" | "type_parameters" => Some(node),
                "function_item" | "struct_item" | "enum_item" | "const_item" | "static_item"
                    if nested =>
                {
                    node.child_by_field_name("name")
                }
                _ => None,
            };
            if let Some(pattern) = bound {
                for name in rust_pattern_names(src, pattern) {
                    *names.entry(name).or_default() += 1;
                }
            }
            let nested = nested || node.kind() == "block";
            stack.extend(
                crate::common::named_children(node)
                    .into_iter()
                    .map(|n| (n, nested)),
            );
        }
        LocalScope {
            names,
            receiver: None,
            types: HashMap::new(),
        }
    }

    /// Python: parameters, and every name a function or lambda body binds (assignment and
    /// loop targets, `with … as`, `except … as`, `:=`, nested `def`/`class`, imports); at the
    /// module's top level those are the module's bindings, not local ones.
    pub(crate) fn python(src: &'s str, unit: Node) -> Self {
        let mut names: HashMap<&str, u32> = HashMap::new();
        let mut stack = vec![(unit, false)];
        while let Some((node, nested)) = stack.pop() {
            let bound: Vec<Node> = match node.kind() {
                "parameters" | "lambda_parameters" => vec![node],
                "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause"
                    if nested =>
                {
                    node.child_by_field_name("left").into_iter().collect()
                }
                "named_expression" if nested => {
                    node.child_by_field_name("name").into_iter().collect()
                }
                "function_definition" | "class_definition" if nested => {
                    node.child_by_field_name("name").into_iter().collect()
                }
                "as_pattern_target" if nested => vec![node],
                "aliased_import" if nested => {
                    node.child_by_field_name("alias").into_iter().collect()
                }
                "dotted_name"
                    if nested
                        && node
                            .parent()
                            .is_some_and(|p| p.kind() == "import_statement") =>
                {
                    node.named_child(0).into_iter().collect()
                }
                _ => Vec::new(),
            };
            for pattern in bound {
                for name in pattern_names(src, pattern) {
                    *names.entry(name).or_default() += 1;
                }
            }
            let nested = nested || matches!(node.kind(), "block" | "parameters" | "lambda");
            stack.extend(
                crate::common::named_children(node)
                    .into_iter()
                    .map(|n| (n, nested)),
            );
        }
        LocalScope {
            names,
            receiver: None,
            types: HashMap::new(),
        }
    }

    fn bindings(&self, name: &str) -> u32 {
        self.names.get(name).copied().unwrap_or(0)
    }
}

/// Go: the type a single binding is declared with, where the syntax spells it: a parameter
/// or `var` with one name (`c *Conn`, `var b bytes.Buffer`), or `x := T{…}` / `x := &T{…}`.
/// TypeScript/JavaScript: a parameter or variable with the class or interface it is
/// declared as — `(store: Store)`, `let s: Store`, `const s = new Store(…)` — by name.
fn typescript_declared_type<'s>(src: &'s str, node: Node) -> Option<(&'s str, &'s str)> {
    let annotated = |holder: Node| -> Option<&'s str> {
        let annotation = holder.child_by_field_name("type")?;
        let ty = crate::common::named_children(annotation)
            .into_iter()
            .next()?;
        (ty.kind() == "type_identifier").then(|| text(src, ty))
    };
    match node.kind() {
        "required_parameter" | "optional_parameter" => {
            let name = node.child_by_field_name("pattern")?;
            (name.kind() == "identifier").then_some(())?;
            Some((text(src, name), annotated(node)?))
        }
        "variable_declarator" => {
            let name = node.child_by_field_name("name")?;
            (name.kind() == "identifier").then_some(())?;
            let constructed = || {
                let value = node.child_by_field_name("value")?;
                let class = (value.kind() == "new_expression")
                    .then(|| value.child_by_field_name("constructor"))??;
                (class.kind() == "identifier").then(|| text(src, class))
            };
            Some((text(src, name), annotated(node).or_else(constructed)?))
        }
        _ => None,
    }
}

fn go_declared_type<'s>(src: &'s str, node: Node) -> Option<(&'s str, &'s str)> {
    let named = |ty: Node| -> Option<&'s str> {
        let ty = match ty.kind() {
            "pointer_type" => crate::common::named_children(ty).into_iter().next()?,
            _ => ty,
        };
        matches!(ty.kind(), "type_identifier" | "qualified_type").then(|| text(src, ty))
    };
    match node.kind() {
        "parameter_declaration" | "var_spec" => {
            let mut cursor = node.walk();
            let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
            let [name] = names.as_slice() else {
                return None;
            };
            Some((text(src, *name), named(node.child_by_field_name("type")?)?))
        }
        "short_var_declaration" => {
            let left = crate::common::named_children(node.child_by_field_name("left")?);
            let right = crate::common::named_children(node.child_by_field_name("right")?);
            let ([name], [value]) = (left.as_slice(), right.as_slice()) else {
                return None;
            };
            let literal = match value.kind() {
                "unary_expression" if text(src, *value).starts_with('&') => {
                    value.child_by_field_name("operand")?
                }
                _ => *value,
            };
            (literal.kind() == "composite_literal")
                .then(|| named(literal.child_by_field_name("type")?))
                .flatten()
                .map(|ty| (text(src, *name), ty))
        }
        _ => None,
    }
}

/// The names a binding pattern introduces: every identifier in it, except property keys,
/// default values, type annotations and attribute or subscript targets, which bind nothing.
fn pattern_names<'s>(src: &'s str, pattern: Node) -> Vec<&'s str> {
    let mut found = Vec::new();
    let mut stack = vec![pattern];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "identifier" | "shorthand_property_identifier_pattern" => found.push(text(src, node)),
            "attribute"
            | "subscript"
            | "member_expression"
            | "subscript_expression"
            | "type_annotation"
            | "type" => {}
            "pair_pattern" => stack.extend(node.child_by_field_name("value")),
            "assignment_pattern"
            | "object_assignment_pattern"
            | "default_parameter"
            | "typed_default_parameter" => {
                stack.extend(
                    node.child_by_field_name("left")
                        .or_else(|| node.child_by_field_name("name")),
                );
            }
            _ => stack.extend(crate::common::named_children(node)),
        }
    }
    found
}

/// The names a Rust pattern (or generic parameter list) binds: its identifiers, except the
/// paths naming a struct or variant being matched and the types of closure parameters.
fn rust_pattern_names<'s>(src: &'s str, pattern: Node) -> Vec<&'s str> {
    let mut found = Vec::new();
    let mut stack = vec![pattern];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "identifier" | "type_identifier" | "shorthand_field_identifier" => {
                found.push(text(src, node))
            }
            "tuple_struct_pattern" | "struct_pattern" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if node.child_by_field_name("type") != Some(child) {
                        stack.push(child);
                    }
                }
            }
            "scoped_identifier" | "scoped_type_identifier" | "lifetime" | "trait_bounds" => {}
            "parameter" => stack.extend(node.child_by_field_name("pattern")),
            "constrained_type_parameter" => stack.extend(node.child_by_field_name("left")),
            _ => stack.extend(crate::common::named_children(node)),
        }
    }
    found
}

fn is_identifier(text: &str) -> bool {
    text.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !text.starts_with(|c: char| c.is_ascii_digit())
}
