//! Rust's conditional compilation as the source spells it: every `#[cfg(…)]` and
//! `#![cfg(…)]` with the code it gates, the predicate parsed, and the identifiers inside.
//! Whether a predicate holds is the build's business (features, target), so this module
//! only evaluates it against what the caller knows, in three values.

use kivgraph_facts::Mention;
use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use crate::common::mentions;

/// A `cfg` predicate: `name`, `key = "value"`, `all(…)`, `any(…)`, `not(…)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CfgPredicate {
    Name(String),
    KeyValue(String, String),
    All(Vec<CfgPredicate>),
    Any(Vec<CfgPredicate>),
    Not(Box<CfgPredicate>),
}

impl CfgPredicate {
    /// Whether the predicate holds, given what `known` says of each option (`None`: not
    /// known), `None` where the unknown options decide it.
    pub fn holds(&self, known: &dyn Fn(&str, Option<&str>) -> Option<bool>) -> Option<bool> {
        match self {
            CfgPredicate::Name(name) => known(name, None),
            CfgPredicate::KeyValue(key, value) => known(key, Some(value)),
            CfgPredicate::Not(inner) => inner.holds(known).map(|held| !held),
            CfgPredicate::All(all) => decide(all, false, known),
            CfgPredicate::Any(any) => decide(any, true, known),
        }
    }

    /// Parses the inside of `cfg(…)`; `None` for anything the grammar of `cfg` does not
    /// allow.
    fn parse(text: &str) -> Option<CfgPredicate> {
        let tokens = tokenize(text)?;
        let mut at = 0;
        let predicate = parse_predicate(&tokens, &mut at)?;
        (at == tokens.len()).then_some(predicate)
    }
}

/// `all(…)` (`decisive` false) or `any(…)` (`decisive` true) in three values: one decisive
/// operand decides; otherwise an unknown operand leaves it unknown.
fn decide(
    operands: &[CfgPredicate],
    decisive: bool,
    known: &dyn Fn(&str, Option<&str>) -> Option<bool>,
) -> Option<bool> {
    let values: Vec<Option<bool>> = operands.iter().map(|p| p.holds(known)).collect();
    if values.contains(&Some(decisive)) {
        Some(decisive)
    } else if values.iter().all(Option::is_some) {
        Some(!decisive)
    } else {
        None
    }
}

/// Code a `cfg` gates: a byte range of the file, the predicate, and the identifier census
/// of the range (what leaves the file's census when the build leaves the code out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CfgRegion {
    pub start_byte: u32,
    pub end_byte: u32,
    pub predicate: CfgPredicate,
    pub mentions: Vec<Mention>,
}

/// Every `cfg`-gated region of a Rust file, in source order: the item, field, variant,
/// statement or arm an outer `#[cfg]` stands before, and the whole enclosing body (the file,
/// for a crate or module root) of an inner `#![cfg]`.
pub fn regions(src: &str, root: Node) -> Vec<CfgRegion> {
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let gated = match node.kind() {
            "attribute_item" => gated_sibling(node),
            "inner_attribute_item" => node.parent(),
            _ => None,
        };
        if let Some(gated) = gated
            && let Some(predicate) = cfg_predicate(src, node)
        {
            found.push(CfgRegion {
                start_byte: gated.start_byte() as u32,
                end_byte: gated.end_byte() as u32,
                predicate,
                mentions: mentions(src, gated),
            });
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    found.sort_by_key(|r| (r.start_byte, std::cmp::Reverse(r.end_byte)));
    found
}

/// What an outer attribute applies to: the next named sibling that is neither another
/// attribute nor a comment.
fn gated_sibling(attribute: Node) -> Option<Node> {
    let mut next = attribute.next_named_sibling();
    while let Some(node) = next {
        match node.kind() {
            "attribute_item" | "line_comment" | "block_comment" => next = node.next_named_sibling(),
            _ => return Some(node),
        }
    }
    None
}

/// The predicate of a `cfg` attribute (not `cfg_attr`, which gates an attribute, not code).
fn cfg_predicate(src: &str, item: Node) -> Option<CfgPredicate> {
    let attribute = item.named_child(0)?;
    let path = attribute.named_child(0)?;
    if src.get(path.byte_range())? != "cfg" {
        return None;
    }
    let arguments = attribute.child_by_field_name("arguments")?;
    let text = src.get(arguments.byte_range())?;
    let inner = text.strip_prefix('(')?.strip_suffix(')')?;
    CfgPredicate::parse(inner)
}

#[derive(Debug, PartialEq)]
enum Token<'a> {
    Word(&'a str),
    Text(&'a str),
    Equals,
    Comma,
    Open,
    Close,
}

fn tokenize(text: &str) -> Option<Vec<Token<'_>>> {
    let mut tokens = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let (token, length) = match c {
            '=' => (Token::Equals, 1),
            ',' => (Token::Comma, 1),
            '(' => (Token::Open, 1),
            ')' => (Token::Close, 1),
            '"' => {
                let end = rest[1..].find('"')? + 1;
                (Token::Text(&rest[1..end]), end + 1)
            }
            c if c.is_alphanumeric() || c == '_' => {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                (Token::Word(&rest[..end]), end)
            }
            _ => return None,
        };
        tokens.push(token);
        rest = &rest[length..];
    }
    Some(tokens)
}

fn parse_predicate(tokens: &[Token], at: &mut usize) -> Option<CfgPredicate> {
    let Token::Word(word) = tokens.get(*at)? else {
        return None;
    };
    *at += 1;
    match tokens.get(*at) {
        Some(Token::Equals) => {
            let Token::Text(value) = tokens.get(*at + 1)? else {
                return None;
            };
            *at += 2;
            Some(CfgPredicate::KeyValue(word.to_string(), value.to_string()))
        }
        Some(Token::Open) => {
            *at += 1;
            let mut list = Vec::new();
            while tokens.get(*at) != Some(&Token::Close) {
                list.push(parse_predicate(tokens, at)?);
                match tokens.get(*at)? {
                    Token::Comma => *at += 1,
                    Token::Close => {}
                    _ => return None,
                }
            }
            *at += 1;
            match *word {
                "all" => Some(CfgPredicate::All(list)),
                "any" => Some(CfgPredicate::Any(list)),
                "not" if list.len() == 1 => Some(CfgPredicate::Not(Box::new(list.pop()?))),
                _ => None,
            }
        }
        _ => Some(CfgPredicate::Name(word.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_regions(src: &str) -> Vec<(String, CfgPredicate)> {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_rust::LANGUAGE.into())
            .unwrap();
        let tree = parser.parse(src, None).unwrap();
        regions(src, tree.root_node())
            .into_iter()
            .map(|r| {
                (
                    src[r.start_byte as usize..r.end_byte as usize].to_string(),
                    r.predicate,
                )
            })
            .collect()
    }

    fn feature(name: &str) -> CfgPredicate {
        CfgPredicate::KeyValue("feature".into(), name.into())
    }

    #[test]
    fn outer_and_inner_cfg_gate_the_code_they_stand_before_or_in() {
        let src = "#![cfg(unix)]\n#[cfg(feature = \"full\")]\n/// doc\n#[inline]\nfn f() {}\n#[cfg_attr(docsrs, doc(cfg(x)))]\nfn g() {\n    #[cfg(not(all(feature = \"a\", test)))]\n    let x = 1;\n}\nstruct S {\n    #[cfg(any(windows, target_os = \"linux\"))]\n    field: u8,\n}\n";
        let found = parse_regions(src);
        assert_eq!(found.len(), 4, "{found:#?}");
        assert_eq!(found[0].1, CfgPredicate::Name("unix".into()));
        assert_eq!(found[0].0.len(), src.len());
        assert_eq!(found[1], ("fn f() {}".into(), feature("full")));
        assert_eq!(
            found[2],
            (
                "let x = 1;".into(),
                CfgPredicate::Not(Box::new(CfgPredicate::All(vec![
                    feature("a"),
                    CfgPredicate::Name("test".into())
                ])))
            )
        );
        assert_eq!(
            found[3],
            (
                "field: u8".into(),
                CfgPredicate::Any(vec![
                    CfgPredicate::Name("windows".into()),
                    CfgPredicate::KeyValue("target_os".into(), "linux".into())
                ])
            )
        );
    }

    #[test]
    fn a_predicate_holds_in_three_values() {
        let known = |key: &str, value: Option<&str>| match (key, value) {
            ("feature", Some(f)) => Some(f == "std"),
            ("unix", None) => Some(true),
            _ => None,
        };
        let holds = |text: &str| CfgPredicate::parse(text).unwrap().holds(&known);
        assert_eq!(holds("feature = \"std\""), Some(true));
        assert_eq!(holds("feature = \"full\""), Some(false));
        assert_eq!(
            holds("all(feature = \"full\", some_build_cfg)"),
            Some(false)
        );
        assert_eq!(holds("all(feature = \"std\", some_build_cfg)"), None);
        assert_eq!(holds("any(feature = \"std\", some_build_cfg)"), Some(true));
        assert_eq!(holds("not(unix)"), Some(false));
        assert_eq!(CfgPredicate::parse("feature ="), None);
        assert_eq!(CfgPredicate::parse("nope(unix)"), None);
    }
}
