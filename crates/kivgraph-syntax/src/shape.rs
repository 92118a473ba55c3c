//! A file's shape for a reader: its declarations with how much each one calls and branches,
//! and what the file imports. Computed live on one file, never stored.

use kivgraph_facts::Language;
use tree_sitter::Node;

use crate::{SyntaxFacts, common, extract_with_tree};

/// What one declaration's body does, counted from syntax.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SymbolMetrics {
    /// Distinct names it calls.
    pub fanout: u32,
    /// One plus the branches it takes (conditions, loops, cases, handlers, `&&`/`||`).
    pub complexity: u32,
    pub is_async: bool,
}

#[derive(Debug, Clone, Default)]
pub struct FileShape {
    pub facts: SyntaxFacts,
    /// Parallel to `facts.declarations`.
    pub metrics: Vec<SymbolMetrics>,
    /// Import specifiers as the source spells them, in order, deduplicated.
    pub imports: Vec<String>,
}

const CALL_KINDS: &[&str] = &[
    "call_expression",
    "call",
    "method_call_expression",
    "macro_invocation",
    "new_expression",
];
const BRANCH_KINDS: &[&str] = &[
    "if_statement",
    "if_expression",
    "elif_clause",
    "for_statement",
    "for_in_statement",
    "for_expression",
    "while_statement",
    "while_expression",
    "loop_expression",
    "do_statement",
    "expression_case",
    "type_case",
    "communication_case",
    "switch_case",
    "match_arm",
    "case_clause",
    "except_clause",
    "catch_clause",
    "conditional_expression",
    "ternary_expression",
];

/// The callee's last name segment: `a.b.c()` → `c`, `x::y!()` → `y`.
fn callee(src: &str, call: Node) -> Option<String> {
    let target = ["function", "method", "macro", "constructor"]
        .iter()
        .find_map(|f| call.child_by_field_name(f))?;
    let text = common::text(src, target);
    let last = text.rsplit(['.', ':']).next().unwrap_or(text).trim();
    (!last.is_empty()).then(|| last.to_string())
}

/// `a && b`, `a || b`, `a and b`, `a or b`: each is a branch.
fn is_short_circuit(src: &str, node: Node) -> bool {
    matches!(node.kind(), "binary_expression" | "boolean_operator")
        && node
            .child_by_field_name("operator")
            .is_some_and(|op| matches!(common::text(src, op), "&&" | "||" | "and" | "or"))
}

fn metrics(src: &str, node: Node, signature: &str) -> SymbolMetrics {
    let mut callees: Vec<String> = Vec::new();
    let mut branches = 0;
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(current) = stack.pop() {
        let kind = current.kind();
        if CALL_KINDS.contains(&kind) {
            if let Some(name) = callee(src, current)
                && !callees.contains(&name)
            {
                callees.push(name);
            }
        } else if BRANCH_KINDS.contains(&kind) || is_short_circuit(src, current) {
            branches += 1;
        }
        stack.extend(current.children(&mut cursor));
    }
    let is_async = signature.split_whitespace().any(|w| w == "async");
    SymbolMetrics {
        fanout: callees.len() as u32,
        complexity: 1 + branches,
        is_async,
    }
}

fn imports(language: Language, src: &str, root: Node) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |text: &str| {
        let text = text.trim().trim_matches(['"', '\'', '`']).to_string();
        if !text.is_empty() && !out.contains(&text) {
            out.push(text);
        }
    };
    let mut stack = vec![root];
    let mut cursor = root.walk();
    while let Some(node) = stack.pop() {
        match (language, node.kind()) {
            (Language::Go, "import_spec") => {
                if let Some(path) = node.child_by_field_name("path") {
                    push(common::text(src, path));
                }
            }
            (
                Language::TypeScript | Language::JavaScript,
                "import_statement" | "export_statement",
            ) => {
                if let Some(source) = node.child_by_field_name("source") {
                    push(common::text(src, source));
                }
            }
            (Language::Python, "import_statement") => {
                for name in common::named_children(node) {
                    let target = if name.kind() == "aliased_import" {
                        name.child_by_field_name("name").unwrap_or(name)
                    } else {
                        name
                    };
                    push(common::text(src, target));
                }
            }
            (Language::Python, "import_from_statement") => {
                if let Some(module) = node.child_by_field_name("module_name") {
                    push(common::text(src, module));
                }
            }
            (Language::Rust, "use_declaration") => {
                if let Some(argument) = node.child_by_field_name("argument") {
                    let text = common::text(src, argument);
                    push(text.split("::{").next().unwrap_or(text));
                }
            }
            (Language::Rust, "extern_crate_declaration") => {
                if let Some(name) = node.child_by_field_name("name") {
                    push(common::text(src, name));
                }
            }
            _ => {
                // Imports sit at module level (and in Rust modules); bodies are not walked.
                if node.id() == root.id()
                    || matches!(
                        node.kind(),
                        "import_declaration" | "import_spec_list" | "mod_item" | "declaration_list"
                    )
                {
                    // Reversed onto the stack, so imports come out in source order.
                    let children: Vec<Node> = node.children(&mut cursor).collect();
                    stack.extend(children.into_iter().rev());
                }
            }
        }
    }
    out
}

/// Declarations, their metrics and the file's imports, from one parse.
pub fn shape(language: Language, path: &str, source: &str) -> FileShape {
    let (facts, tree) = extract_with_tree(language, path, source);
    let Some(tree) = tree else {
        return FileShape {
            metrics: vec![SymbolMetrics::default(); facts.declarations.len()],
            facts,
            imports: Vec::new(),
        };
    };
    let root = tree.root_node();
    let metrics = facts
        .declarations
        .iter()
        .map(|d| {
            match root
                .descendant_for_byte_range(d.span.start_byte as usize, d.span.end_byte as usize)
            {
                Some(node) => metrics(source, node, &d.signature),
                None => SymbolMetrics {
                    complexity: 1,
                    ..SymbolMetrics::default()
                },
            }
        })
        .collect();
    let imports = imports(language, source, root);
    FileShape {
        facts,
        metrics,
        imports,
    }
}
