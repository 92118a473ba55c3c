//! Helpers shared by the language extractors.

use kivgraph_facts::{LineSpan, Mention, ParseIssue, SymbolKind};
use la_arena::{Arena, Idx};
use rustc_hash::FxHashMap;
use tree_sitter::Node;

use crate::Declaration;

const MAX_SIGNATURE: usize = 240;
const MAX_DOC: usize = 240;
const MAX_ISSUES: usize = 20;

pub fn line_count(source: &str) -> u32 {
    if source.is_empty() {
        return 0;
    }
    let newlines = source.bytes().filter(|b| *b == b'\n').count();
    (newlines + usize::from(!source.ends_with('\n'))) as u32
}

pub fn span(node: Node) -> LineSpan {
    LineSpan {
        start_line: node.start_position().row as u32 + 1,
        end_line: node.end_position().row as u32 + 1,
        start_byte: node.start_byte() as u32,
        end_byte: node.end_byte() as u32,
    }
}

/// Collapses runs of whitespace to one space.
pub fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Cuts `text` at `max` bytes on a character boundary, marking the cut.
pub fn truncate(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

/// The first sentence of a doc text: up to the first `.` followed by whitespace or the end,
/// or the first blank line.
pub fn first_sentence(doc: &str) -> Option<String> {
    let paragraph = doc.split("\n\n").next().unwrap_or("");
    let text = collapse(paragraph);
    if text.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    let mut end = text.len();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'.' && (i + 1 == bytes.len() || bytes[i + 1] == b' ') {
            end = i + 1;
            break;
        }
    }
    Some(truncate(text[..end].to_string(), MAX_DOC))
}

/// The node that precedes `node` among its parent's children, skipping nothing.
pub fn previous_sibling(node: Node) -> Option<Node> {
    node.prev_sibling()
}

/// Doc text from the comments directly above `node` (no blank line between), using `strip`
/// to remove each comment's markers; `None` when a comment is not a doc comment.
pub fn doc_above(src: &str, node: Node, strip: impl Fn(&str) -> Option<String>) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut expected_end_row = node.start_position().row;
    let mut current = previous_sibling(node);
    while let Some(comment) = current {
        if comment.kind() != "comment"
            && comment.kind() != "line_comment"
            && comment.kind() != "block_comment"
        {
            // Attributes sit between a Rust doc comment and its item.
            if comment.kind() == "attribute_item"
                && comment.end_position().row + 1 >= expected_end_row
            {
                expected_end_row = comment.start_position().row;
                current = comment.prev_sibling();
                continue;
            }
            break;
        }
        if comment.end_position().row + 1 < expected_end_row {
            break;
        }
        let text = text(src, comment);
        match strip(text) {
            Some(stripped) => lines.push(stripped),
            None => break,
        }
        expected_end_row = comment.start_position().row;
        current = comment.prev_sibling();
    }
    if lines.is_empty() {
        return None;
    }
    lines.reverse();
    first_sentence(&lines.join("\n"))
}

pub fn text<'s>(src: &'s str, node: Node) -> &'s str {
    &src[node.byte_range()]
}

/// The declaration's header: its text up to where `body` starts, whitespace collapsed.
pub fn signature(src: &str, node: Node, body: Option<Node>) -> String {
    let end = body
        .map(|b| b.start_byte())
        .unwrap_or(node.end_byte())
        .max(node.start_byte());
    // A parameter list broken over lines collapses to `( a, b, )`; spell it `(a, b)`.
    let header = collapse(&src[node.start_byte()..end])
        .replace("( ", "(")
        .replace(", )", ")")
        .replace(" )", ")");
    truncate(
        header.trim_end_matches(['{', ' ', ';']).to_string(),
        MAX_SIGNATURE,
    )
}

/// The file's identifier census: every named leaf whose kind is an identifier (plain, type,
/// field, property, package, shorthand), with how often it occurs, sorted by name. Comments
/// and string literals are not identifiers, so a name spelled only there is not counted.
pub fn mentions(src: &str, root: Node) -> Vec<Mention> {
    let mut counts: FxHashMap<&str, u32> = FxHashMap::default();
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        if node.child_count() == 0 {
            if node.is_named()
                && node.kind().ends_with("identifier")
                && let Some(text) = src.get(node.byte_range())
            {
                *counts.entry(text).or_default() += 1;
            }
        } else if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    let mut census: Vec<Mention> = counts
        .into_iter()
        .map(|(name, count)| Mention {
            name: name.to_string(),
            count,
        })
        .collect();
    census.sort_unstable();
    census
}

/// Where tree-sitter recovered: `ERROR` and missing nodes, at most twenty per file.
pub fn parse_issues(src: &str, root: Node) -> Vec<ParseIssue> {
    let mut issues = Vec::new();
    // Only subtrees that contain an error are entered, so a clean file costs nothing. Each
    // entry carries where the innermost enclosing function body starts, if any.
    let mut stack: Vec<(Node, Option<usize>)> = vec![(root, None)];
    while let Some((node, body_start)) = stack.pop() {
        if node.is_error() || node.is_missing() {
            let position = node.start_position();
            let message = if node.is_missing() {
                format!("missing {}", node.kind())
            } else {
                "syntax error".to_string()
            };
            let inside_body = body_start.is_some_and(|start| node.start_byte() >= start);
            let hidden_names = if inside_body {
                Vec::new()
            } else {
                identifiers(src, node)
            };
            issues.push(ParseIssue {
                line: position.row as u32 + 1,
                column: position.column as u32 + 1,
                message,
                hidden_names,
            });
            if issues.len() >= MAX_ISSUES {
                break;
            }
        } else if node.has_error() {
            let body = if FUNCTION_KINDS.contains(&node.kind()) {
                node.child_by_field_name("body")
                    .map(|b| b.start_byte())
                    .or(body_start)
            } else {
                body_start
            };
            let mut cursor = node.walk();
            let children: Vec<Node> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev().map(|child| (child, body)));
        }
    }
    issues
}

/// Nodes whose `body` holds statements, where no declaration of the outline can hide.
const FUNCTION_KINDS: &[&str] = &[
    "function_declaration",
    "method_declaration",
    "func_literal",
    "generator_function_declaration",
    "method_definition",
    "arrow_function",
    "function_expression",
    "function",
    "function_definition",
    "function_item",
    "closure_expression",
];

/// Words of the five grammars that never name a declaration.
const KEYWORDS: &[&str] = &[
    "async",
    "await",
    "class",
    "const",
    "def",
    "enum",
    "export",
    "extends",
    "fn",
    "from",
    "func",
    "function",
    "impl",
    "implements",
    "import",
    "interface",
    "let",
    "mod",
    "new",
    "package",
    "private",
    "protected",
    "pub",
    "public",
    "return",
    "self",
    "static",
    "struct",
    "this",
    "trait",
    "type",
    "use",
    "var",
];

/// The identifier-like words inside an unreadable region, deduplicated, at most fifty.
fn identifiers(src: &str, node: Node) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for word in src[node.byte_range()].split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let starts_like_a_name = word
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_');
        if starts_like_a_name && !KEYWORDS.contains(&word) && !names.iter().any(|n| n == word) {
            names.push(word.to_string());
            if names.len() >= 50 {
                break;
            }
        }
    }
    names
}

/// A declaration of the file being built: its place in the builder's arena, which is its
/// index in [`SyntaxFacts::declarations`](crate::SyntaxFacts) once built.
pub type DeclarationId = Idx<Declaration>;

/// The number a declaration's children carry as their `parent`.
fn number(id: DeclarationId) -> u32 {
    id.into_raw().into_u32()
}

/// Collects declarations in source order, each addressed by its [`DeclarationId`].
pub struct Builder<'s> {
    pub src: &'s str,
    declarations: Arena<Declaration>,
}

pub struct NewDeclaration {
    pub name: String,
    pub qualified_name: String,
    pub kind: SymbolKind,
    pub signature: String,
    pub exported: bool,
    pub doc: Option<String>,
    pub parent: Option<DeclarationId>,
    pub receiver: Option<String>,
    pub discriminator: Option<String>,
}

impl<'s> Builder<'s> {
    pub fn new(src: &'s str) -> Self {
        Builder {
            src,
            declarations: Arena::new(),
        }
    }

    pub fn text(&self, node: Node) -> &'s str {
        text(self.src, node)
    }

    pub fn push(&mut self, node: Node, declaration: NewDeclaration) -> DeclarationId {
        self.declarations.alloc(Declaration {
            name: declaration.name,
            qualified_name: declaration.qualified_name,
            kind: declaration.kind,
            signature: declaration.signature,
            exported: declaration.exported,
            span: span(node),
            doc: declaration.doc,
            parent: declaration.parent.map(number),
            receiver: declaration.receiver,
            discriminator: declaration.discriminator,
            method_shape: None,
        })
    }

    /// The declarations so far, in source order.
    pub fn declarations(&self) -> impl Iterator<Item = (DeclarationId, &Declaration)> {
        self.declarations.iter()
    }

    /// Whether `declaration` sits directly in `container` (`None`: at the top of the file).
    pub fn is_in(&self, declaration: &Declaration, container: Option<DeclarationId>) -> bool {
        declaration.parent == container.map(number)
    }

    /// The declarations pushed from now on: pass the mark to [`Builder::since`].
    pub fn mark(&self) -> usize {
        self.declarations.len()
    }

    /// The declarations pushed since `mark`.
    pub fn since(&mut self, mark: usize) -> &mut [Declaration] {
        &mut self.declarations.as_mut()[mark..]
    }

    pub fn finish(self) -> Vec<Declaration> {
        self.declarations.into_iter().map(|(_, d)| d).collect()
    }
}

impl std::ops::Index<DeclarationId> for Builder<'_> {
    type Output = Declaration;
    fn index(&self, id: DeclarationId) -> &Declaration {
        &self.declarations[id]
    }
}

impl std::ops::IndexMut<DeclarationId> for Builder<'_> {
    fn index_mut(&mut self, id: DeclarationId) -> &mut Declaration {
        &mut self.declarations[id]
    }
}

/// Joins a container's qualified name and a member name.
pub fn qualify(container: Option<&str>, separator: &str, name: &str) -> String {
    match container {
        Some(prefix) if !prefix.is_empty() => format!("{prefix}{separator}{name}"),
        _ => name.to_string(),
    }
}

pub fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentence_stops_at_period_or_paragraph() {
        assert_eq!(
            first_sentence("Parses the config. Then more.").as_deref(),
            Some("Parses the config.")
        );
        assert_eq!(
            first_sentence("No period here\n\nSecond paragraph.").as_deref(),
            Some("No period here")
        );
        assert_eq!(
            first_sentence("Version 1.2 is fine. Next").as_deref(),
            Some("Version 1.2 is fine.")
        );
        assert_eq!(first_sentence("   ").as_deref(), None);
    }
}
