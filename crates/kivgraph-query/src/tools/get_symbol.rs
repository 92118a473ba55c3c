//! `get_symbol`: one symbol's package, signature, visibility and line range.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::args::{ResponseFormat, View};
use crate::envelope::{Coverage, Page, to_value};
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

/// One symbol, as `get_symbol` answers it.
#[derive(Serialize)]
struct SymbolAnswer<'a> {
    stable_key: String,
    repository: &'a str,
    repository_path: &'a str,
    package_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    module_path: Option<String>,
    file_path: &'a str,
    name: &'a str,
    qualified_name: &'a str,
    kind: &'static str,
    signature: &'a str,
    exported: bool,
    start_line: u32,
    end_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    doc: Option<&'a str>,
    /// Detailed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    canonical_identity: Option<String>,
    /// Detailed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    repository_key: Option<String>,
}

pub fn get_symbol(published: &Published, args: &GetSymbolArgs) -> Result<(Page, View), QueryError> {
    let format = ResponseFormat::parse(args.response_format.as_deref())?;
    let symbol = args.selector.parse()?.resolve(published)?;
    let file = symbol.file();
    let repository = file.repository();
    let span = symbol.span();
    let (package_name, module_path) = package_and_module(symbol.language(), file.package().name());
    let detailed = format == ResponseFormat::Detailed;
    let answer = SymbolAnswer {
        stable_key: symbol.key().to_string(),
        repository: repository.name(),
        repository_path: repository.root(),
        package_name,
        module_path,
        file_path: file.path(),
        name: symbol.name(),
        qualified_name: symbol.qualified_name(),
        kind: symbol.kind().as_str(),
        signature: symbol.signature(),
        exported: symbol.exported(),
        start_line: span.start_line,
        end_line: span.end_line,
        parent: symbol.parent().map(|parent| parent.qualified_name()),
        doc: symbol.doc(),
        canonical_identity: detailed.then(|| canonical_identity(&symbol)),
        repository_key: detailed.then(|| repository.key().to_string()),
    };
    let page = Page {
        total: 1,
        returned: 1,
        next_cursor: None,
        coverage: Coverage::default(),
        guidance: None,
        completeness: None,
        results: to_value(&answer),
        files: vec![file.index],
    };
    // One symbol has nothing to hoist: the answer is always written in full.
    Ok((page, View::Full))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{facts, published, rendered};

    #[test]
    fn one_symbol_is_answered_in_full() {
        let published = published(&facts());
        let args: GetSymbolArgs = serde_json::from_value(
            serde_json::json!({"qualified_name": "Parse", "repository": "core"}),
        )
        .unwrap();
        let answer = rendered(&published, get_symbol(&published, &args));
        let mut results = answer["results"].clone();
        assert_eq!(results["stable_key"].as_str().map(str::len), Some(52));
        results.as_object_mut().unwrap().remove("stable_key");
        assert_eq!(
            results,
            serde_json::json!({"repository": "core", "repository_path": "/src/core",
                "package_name": "example.com/core", "module_path": "example.com/core",
                "file_path": "parse.go", "name": "Parse", "qualified_name": "Parse",
                "kind": "func", "signature": "func Parse()", "exported": true,
                "start_line": 3, "end_line": 5})
        );
    }
}
