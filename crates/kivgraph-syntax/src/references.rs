//! Reference sites: where a file uses a name, as the syntax spells it.
//!
//! A site says *how* a name is used (called, used as a type, imported, extended) and *through
//! what* (`pkg` in `pkg.Run()`, `self` in `self.save()`, the module specifier of an import).
//! It never says what the name denotes: binding a site to a declaration is resolution's job,
//! which alone may decide a confidence. Call sites whose callee has no name (a call of a call,
//! of a closure, of an index) are not sites: there is no name to resolve.

use kivgraph_facts::{EdgeKind, Language, LineSpan};
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use crate::Declaration;
use crate::common::{collapse, span, text, truncate};

/// Longest qualifier kept, in bytes: a receiver spelled as a long chain is cut, not dropped.
const MAX_QUALIFIER: usize = 120;

/// The whole module, for imports that bind a module rather than one of its names.
pub const WHOLE_MODULE: &str = "*";

/// One use of a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferenceSite {
    /// `CALLS_DIRECT`, `TYPE_USES`, `IMPORTS_SYMBOL`, `EXPORTS` (a local export clause),
    /// `REEXPORTS`, `EXTENDS` or `IMPLEMENTS`.
    pub kind: EdgeKind,
    /// The name used, as spelled: the last segment of a path; for imports the imported name,
    /// `default`, or [`WHOLE_MODULE`].
    pub name: String,
    /// What the name is reached through, as spelled: a receiver or operand expression, a
    /// path (`crate::store`), or an import's module specifier (`./cache`, `net/http`,
    /// `..models`). `None` for a bare name.
    pub qualifier: Option<String>,
    /// The local name an import or re-export binds, when it renames; for a Python
    /// `import a.b`, the name it binds (`a`). A whole module with no alias is a glob
    /// (`from m import *`, `export * from`, `use m::*`) or, in TS/JS and Go, an import that
    /// binds nothing the syntax can name.
    pub alias: Option<String>,
    pub span: LineSpan,
    /// Index of the innermost declaration holding the site; `None` at the file's top level.
    pub enclosing: Option<u32>,
    /// For a bare name, or for `x.name` with `x` an identifier, whether the top-level
    /// declaration holding the site binds that name (or `x`) locally anywhere (a parameter or type parameter, a local variable, constant or type, a
    /// range or type-switch variable), so the syntax cannot prove it denotes a package-level
    /// declaration. Over-approximated on purpose: a binding in a sibling block counts too.
    /// `None` for sites whose scopes are not read (imports, re-exports, export clauses).
    pub locally_bound: Option<bool>,
    /// `x.name` where `x` is the enclosing method's receiver and nothing else in the method
    /// binds `x`: the syntax proves the operand's type (Go's receiver; later `self`/`this`).
    pub through_receiver: bool,
    /// Rust: the qualifier is a path (`a::b` in `a::b::name`), not a value the name is
    /// reached through (`x` in `x.name()`).
    pub through_path: bool,
    /// The type the operand is known to have, by name. Go: `x.name` where `x` is bound once
    /// in the enclosing declaration with a type the syntax spells — a parameter `x *T`,
    /// `var x T`, `x := T{…}` or `x := &T{…}` — that type (`T`, or `pkg.T`). TypeScript and
    /// JavaScript: `new C(…).name(…)`, `C`.
    pub operand_type: Option<String>,
    /// Rust: the implementing type of an `impl Trait for Type` site, by name.
    pub implementer: Option<String>,
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

/// Sets `locally_bound` (and, in Go, `through_receiver`) on a file's sites from the names
/// each top-level declaration or statement binds inside itself.
fn mark_local_bindings(language: Language, src: &str, root: Node, sites: &mut [ReferenceSite]) {
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
    fn go(src: &'s str, unit: Node) -> Self {
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
    fn typescript(src: &'s str, unit: Node) -> Self {
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
    fn rust(src: &'s str, unit: Node) -> Self {
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
    fn python(src: &'s str, unit: Node) -> Self {
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

/// Sets each site's innermost enclosing declaration in one sweep over both lists in byte
/// order, keeping the chain of declarations open at the current position on a stack.
fn assign_enclosing(sites: &mut [ReferenceSite], declarations: &[Declaration]) {
    let mut order: Vec<usize> = (0..declarations.len()).collect();
    order.sort_by_key(|&i| {
        let span = declarations[i].span;
        (span.start_byte, std::cmp::Reverse(span.end_byte))
    });
    let mut open: Vec<usize> = Vec::new();
    let mut next = 0;
    for site in sites {
        let at = site.span.start_byte;
        while next < order.len() && declarations[order[next]].span.start_byte <= at {
            let start = declarations[order[next]].span.start_byte;
            while open
                .last()
                .is_some_and(|&top| declarations[top].span.end_byte <= start)
            {
                open.pop();
            }
            open.push(order[next]);
            next += 1;
        }
        while open
            .last()
            .is_some_and(|&top| declarations[top].span.end_byte <= at)
        {
            open.pop();
        }
        site.enclosing = open.last().map(|&i| i as u32);
    }
}

struct Sites<'s> {
    src: &'s str,
    found: Vec<ReferenceSite>,
}

impl<'s> Sites<'s> {
    fn text(&self, node: Node) -> &'s str {
        text(self.src, node)
    }

    fn push(&mut self, kind: EdgeKind, at: Node, name: &str, qualifier: Option<Node>) {
        let qualifier = qualifier.map(|q| truncate(collapse(self.text(q)), MAX_QUALIFIER));
        self.push_spelled(kind, at, name, qualifier, None);
    }

    fn push_spelled(
        &mut self,
        kind: EdgeKind,
        at: Node,
        name: &str,
        qualifier: Option<String>,
        alias: Option<String>,
    ) {
        if name.is_empty() {
            return;
        }
        self.found.push(ReferenceSite {
            kind,
            name: name.to_string(),
            qualifier,
            alias,
            span: span(at),
            enclosing: None,
            locally_bound: None,
            through_receiver: false,
            through_path: false,
            operand_type: None,
            implementer: None,
        });
    }

    /// An `operand.name`-shaped node (selector, member, attribute, scoped path): its `name`
    /// field reached through its `operand` field, observed at `at`.
    fn push_reached(&mut self, kind: EdgeKind, at: Node, path: Node, operand: &str, name: &str) {
        if let Some(field) = path.child_by_field_name(name) {
            let name = self.text(field);
            self.push(kind, at, name, path.child_by_field_name(operand));
        }
    }

    /// An import or export specifier's name and the name it binds, quotes removed.
    fn name_and_alias(&self, specifier: Node) -> Option<(String, Option<String>)> {
        let name = unquote(self.text(specifier.child_by_field_name("name")?));
        let alias = specifier
            .child_by_field_name("alias")
            .map(|a| unquote(self.text(a)));
        Some((name, alias))
    }

    /// A call's callee: a bare name, or a name reached through an operand.
    fn callee(
        &mut self,
        call: Node,
        callee: Option<Node>,
        bare: &[&str],
        reached: &[(&str, &str, &str)],
    ) {
        let Some(callee) = callee else { return };
        if bare.contains(&callee.kind()) {
            let name = self.text(callee);
            self.push(EdgeKind::CallsDirect, call, name, None);
            return;
        }
        for (kind, operand, field) in reached {
            if callee.kind() == *kind {
                self.push_reached(EdgeKind::CallsDirect, call, callee, operand, field);
            }
        }
    }

    /// A type name where it is used, not where it is declared.
    fn type_name(&mut self, node: Node) {
        // A declaration's own name is not a use of it; a Rust struct expression's `name`
        // (`Config { depth: 0 }`) is.
        let declared_here = node
            .parent()
            .filter(|parent| parent.kind() != "struct_expression")
            .and_then(|parent| parent.child_by_field_name("name"))
            .is_some_and(|name| name == node);
        let name = self.text(node);
        if !declared_here && name != "Self" {
            self.push(EdgeKind::TypeUses, node, name, None);
        }
    }

    fn go(&mut self, node: Node) -> bool {
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
    fn mark_receiver_call(
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

    fn typescript(&mut self, node: Node) -> bool {
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
    fn values(&mut self, list: Node, kind: EdgeKind) {
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

    fn rust(&mut self, node: Node) -> bool {
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
    fn descend_into(&mut self, node: Node, visit: fn(&mut Self, Node) -> bool) {
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

    fn python(&mut self, node: Node) -> bool {
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

fn is_identifier(text: &str) -> bool {
    text.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !text.starts_with(|c: char| c.is_ascii_digit())
}

/// A string literal's contents: quotes and backticks removed.
fn unquote(literal: &str) -> String {
    literal
        .trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_string()
}
