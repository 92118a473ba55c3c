//! `get_symbol`: one symbol's package, signature, visibility and line range.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::args::{ResponseFormat, View};
use crate::envelope::{Coverage, Page};
use crate::error::QueryError;
use crate::packages::package_and_module;
use crate::published::{Published, canonical_identity};
use crate::selector::SelectorArgs;

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct GetSymbolArgs {
    #[serde(flatten)]
    pub selector: SelectorArgs,
    #[schemars(extend("enum" = ["concise", "detailed"], "default" = "concise"))]
    pub response_format: Option<String>,
}

pub fn get_symbol(published: &Published, args: &GetSymbolArgs) -> Result<(Page, View), QueryError> {
    let format = ResponseFormat::parse(args.response_format.as_deref())?;
    let symbol = args.selector.parse()?.resolve(published)?;
    let file = symbol.file();
    let repository = file.repository();
    let span = symbol.span();
    let (package_name, module_path) = package_and_module(symbol.language(), file.package().name());
    let mut row = Map::new();
    row.insert("stable_key".into(), json!(symbol.key().to_string()));
    row.insert("repository".into(), json!(repository.name()));
    row.insert("repository_path".into(), json!(repository.root()));
    row.insert("package_name".into(), json!(package_name));
    if let Some(module) = module_path {
        row.insert("module_path".into(), json!(module));
    }
    row.insert("file_path".into(), json!(file.path()));
    row.insert("name".into(), json!(symbol.name()));
    row.insert("qualified_name".into(), json!(symbol.qualified_name()));
    row.insert("kind".into(), json!(symbol.kind().as_str()));
    row.insert("signature".into(), json!(symbol.signature()));
    row.insert("exported".into(), json!(symbol.exported()));
    row.insert("start_line".into(), json!(span.start_line));
    row.insert("end_line".into(), json!(span.end_line));
    if let Some(parent) = symbol.parent() {
        row.insert("parent".into(), json!(parent.qualified_name()));
    }
    if let Some(doc) = symbol.doc() {
        row.insert("doc".into(), json!(doc));
    }
    if format == ResponseFormat::Detailed {
        row.insert(
            "canonical_identity".into(),
            json!(canonical_identity(&symbol)),
        );
        row.insert("repository_key".into(), json!(repository.key().to_string()));
    }
    let page = Page {
        total: 1,
        returned: 1,
        next_cursor: None,
        coverage: Coverage::default(),
        guidance: None,
        completeness: None,
        results: Value::Object(row),
    };
    // One symbol has nothing to hoist: the answer is always written in full.
    Ok((page, View::Full))
}
