//! TypeScript that the TypeScript compiler accepts and tree-sitter-typescript 0.23 does not,
//! rewritten so the grammar reads it — without moving a byte.
//!
//! Three constructs make the grammar give up on whole files of real packages (effect's
//! `Function.ts`, and with it every declaration after its first overload list):
//!
//! - call signatures of an object type separated by a line break only, the second generic
//!   (`(a: A): B⏎  <C>(c: C): D`; tree-sitter-typescript issue 335): the grammar reads the
//!   `<` as a type argument list of the member before. A `;` in the indentation separates
//!   them, as TypeScript's automatic semicolon does;
//! - variance annotations of type parameters (`<in out F, out A = never>`, TypeScript 4.7):
//!   the modifiers are blanked;
//! - `export type * from` (TypeScript 5.0): `type` is blanked.
//!
//! Each rewrite keeps every offset, so the tree of the rewritten text is read against the
//! original text: names, signatures and spans are as spelled. A rewrite is kept only when it
//! leaves less of the file in error nodes than the parse before it.

use tree_sitter::{Node, Parser, Tree};

/// Rounds of separating call signatures: each round sees the errors the last one left.
const ROUNDS: usize = 4;

/// A tree of `source` with fewer errors, when rewriting finds one; `None` keeps the first.
pub fn recover(parser: &mut Parser, source: &str, tree: &Tree) -> Option<Tree> {
    let first_errors = error_bytes(tree.root_node());
    let mut text = source.as_bytes().to_vec();
    let mut best = blank_modifiers(&mut text)
        .then(|| parser.parse(&text, None))
        .flatten();
    for _ in 0..ROUNDS {
        let current = best.as_ref().unwrap_or(tree);
        let errors = error_bytes(current.root_node());
        let mut next = text.clone();
        if errors == 0 || !separate_call_signatures(&mut next, current.root_node()) {
            break;
        }
        let Some(rewritten) = parser.parse(&next, None) else {
            break;
        };
        if error_bytes(rewritten.root_node()) >= errors {
            break;
        }
        text = next;
        best = Some(rewritten);
    }
    best.filter(|better| error_bytes(better.root_node()) < first_errors)
}

/// Bytes inside error and missing nodes: how much of the file the grammar lost.
fn error_bytes(node: Node) -> usize {
    if node.is_error() || node.is_missing() {
        return (node.end_byte() - node.start_byte()).max(1);
    }
    if !node.has_error() {
        return 0;
    }
    let mut cursor = node.walk();
    node.children(&mut cursor).map(error_bytes).sum()
}

/// The byte ranges of the nodes that hold an error node: where a lost separator may be.
fn error_parents(node: Node, ranges: &mut Vec<(usize, usize)>) {
    if node.is_error() {
        let parent = node.parent().unwrap_or(node);
        ranges.push((parent.start_byte(), parent.end_byte()));
        return;
    }
    if node.has_error() {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            error_parents(child, ranges);
        }
    }
}

/// Puts a `;` in the indentation of every line inside an erroneous node that starts with
/// `<` after something a type member can end with. Whether anything changed.
fn separate_call_signatures(text: &mut [u8], root: Node) -> bool {
    let mut ranges = Vec::new();
    error_parents(root, &mut ranges);
    let mut changed = false;
    let mut line_start = 0;
    while line_start < text.len() {
        let line_end = text[line_start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| line_start + i + 1);
        let indent = text[line_start..line_end]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        let at = line_start + indent;
        if indent > 0
            && text.get(at) == Some(&b'<')
            && ranges.iter().any(|&(from, to)| from <= at && at < to)
            && ends_member(&text[..line_start])
        {
            text[at - 1] = b';';
            changed = true;
        }
        line_start = line_end;
    }
    changed
}

/// Whether text ends, comments aside, as a type member can: a name, a closing bracket or
/// quote — not `<`, `,`, `(`, `=>` or an operator, after which a `<` opens a generic arrow.
fn ends_member(before: &[u8]) -> bool {
    let mut text = trim_end(before);
    loop {
        if text.ends_with(b"*/") {
            let Some(open) = find_last(text, b"/*") else {
                return false;
            };
            text = trim_end(&text[..open]);
            continue;
        }
        let last_line = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if let Some(comment) = find_last(&text[last_line..], b"//") {
            text = trim_end(&text[..last_line + comment]);
            continue;
        }
        break;
    }
    let Some(&last) = text.last() else {
        return false;
    };
    !text.ends_with(b"=>")
        && (last.is_ascii_alphanumeric()
            || matches!(last, b'_' | b'$' | b')' | b']' | b'}' | b'>' | b'"' | b'\''))
}

fn trim_end(text: &[u8]) -> &[u8] {
    let end = text
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    &text[..end]
}

fn find_last(text: &[u8], needle: &[u8]) -> Option<usize> {
    text.windows(needle.len()).rposition(|w| w == needle)
}

/// Blanks variance modifiers (`in`, `out`, `in out` before a type parameter that `extends`,
/// `,`, `>` or `=` follows) and the `type` of `export type * from`. Whether anything changed.
fn blank_modifiers(text: &mut [u8]) -> bool {
    let mut changed = false;
    for at in 0..text.len() {
        if text[at..].starts_with(b"export type * from") {
            text[at + 7..at + 11].fill(b' ');
            changed = true;
        }
        if text[at] != b'<' && text[at] != b',' {
            continue;
        }
        let first = skip_whitespace(text, at + 1);
        let mut name = first;
        while let Some(width) = modifier_at(text, name) {
            name = skip_whitespace(text, name + width);
        }
        if name == first {
            continue;
        }
        let name_end = name
            + text[name..]
                .iter()
                .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
                .count();
        let after = &text[skip_whitespace(text, name_end)..];
        let parameter = name_end > name
            && (after.starts_with(b"extends")
                || after
                    .first()
                    .is_some_and(|b| matches!(b, b',' | b'>' | b'=')));
        if parameter {
            for byte in &mut text[first..name] {
                if !byte.is_ascii_whitespace() {
                    *byte = b' ';
                }
            }
            changed = true;
        }
    }
    changed
}

/// The width of an `in` or `out` keyword at `at`, followed by whitespace.
fn modifier_at(text: &[u8], at: usize) -> Option<usize> {
    [&b"in"[..], &b"out"[..]].into_iter().find_map(|keyword| {
        let rest = &text[at..];
        (rest.starts_with(keyword)
            && rest
                .get(keyword.len())
                .is_some_and(|b| b.is_ascii_whitespace()))
        .then_some(keyword.len())
    })
}

fn skip_whitespace(text: &[u8], from: usize) -> usize {
    from + text[from.min(text.len())..]
        .iter()
        .take_while(|b| b.is_ascii_whitespace())
        .count()
}
