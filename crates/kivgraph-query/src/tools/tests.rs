//! Tools' answers over a generation built in memory, in each view, pinned byte for byte:
//! a change to how an answer is written shows here first.

use crate::args::PageLimits;
use crate::testing::{facts, published, rendered};
use crate::{BlastRadiusArgs, TraceDependenciesArgs, get_blast_radius, trace_dependencies};

fn answer<A: serde::de::DeserializeOwned>(
    arguments: serde_json::Value,
    run: impl Fn(&crate::Published, &A) -> Result<(crate::Page, crate::View), crate::QueryError>,
) -> String {
    let published = published(&facts());
    let args: A = serde_json::from_value(arguments).unwrap();
    let mut answer = rendered(&published, run(&published, &args));
    // The age of the generation moves with the clock.
    answer
        .as_object_mut()
        .unwrap()
        .shift_remove("snapshot_age_ms");
    answer.to_string()
}

fn trace(arguments: serde_json::Value) -> String {
    answer(arguments, |p, a: &TraceDependenciesArgs| {
        trace_dependencies(p, a, &PageLimits::default(), None)
    })
}

fn blast(arguments: serde_json::Value) -> String {
    answer(arguments, |p, a: &BlastRadiusArgs| {
        get_blast_radius(p, a, &PageLimits::default(), None)
    })
}

#[test]
fn the_trace_reaches_the_callee_in_another_repository() {
    let compact = trace(serde_json::json!({"qualified_name": "main", "repository": "app"}));
    assert_eq!(
        compact,
        r#"{"snapshot_id":1,"total":1,"returned":1,"coverage":{"exact":1,"unresolved_related":1},"completeness":{"verdict":"LOWER_BOUND","blind_spots":[{"reason":"NAME_NOT_RESOLVED","repository":"app","path":"main.go","line":7,"requested_symbol":"Missing","detail":"no declaration of Missing"}],"unextracted_relations":[{"language":"go","relations":["ASSIGNS_FUNCTION","CALLS_DIRECT","EMBEDS","EXPORTS","EXTENDS","IMPLEMENTS","IMPORTS_SYMBOL","OVERRIDES","PASSES_AS_CALLBACK","REEXPORTS","REFERENCES","RETURNS_FUNCTION","TYPE_USES"]}],"fallback":{"pattern":"\\bmain\\b","paths":["/src/app/main.go"]}},"results":{"root_key":"PLQRRU533IN7RS2L2M65C72CR5B4LDRUHP4WSJ7HNCRTFWHLGYSQ","root_repository":"app","depth":3,"max_nodes":5000,"reached":1,"deepest_depth":1,"repository":"core","kind":"func","hop_depth":1,"reached_from":"main","via_kind":"CALLS_DIRECT","via_confidence":"EXACT_TYPECHECKED","via_provenance":"GO_TYPES_USE","files":[{"file":"parse.go","at":["Parse@3-5"]}]}}"#
    );
    let full = trace(
        serde_json::json!({"qualified_name": "main", "repository": "app",
        "view": "full", "response_format": "detailed"}),
    );
    assert_eq!(
        full,
        r#"{"snapshot_id":1,"total":1,"returned":1,"truncated":false,"next_cursor":null,"coverage":{"exact":1,"candidate":0,"unresolved_related":1,"package_level":0},"completeness":{"verdict":"LOWER_BOUND","blind_spots":[{"reason":"NAME_NOT_RESOLVED","repository":"app","path":"main.go","line":7,"requested_symbol":"Missing","detail":"no declaration of Missing"}],"unextracted_relations":[{"language":"go","relations":["ASSIGNS_FUNCTION","CALLS_DIRECT","EMBEDS","EXPORTS","EXTENDS","IMPLEMENTS","IMPORTS_SYMBOL","OVERRIDES","PASSES_AS_CALLBACK","REEXPORTS","REFERENCES","RETURNS_FUNCTION","TYPE_USES"]}],"fallback":{"pattern":"\\bmain\\b","paths":["/src/app/main.go"]}},"results":{"root_key":"PLQRRU533IN7RS2L2M65C72CR5B4LDRUHP4WSJ7HNCRTFWHLGYSQ","root_repository":"app","depth":3,"max_nodes":5000,"reached":1,"deepest_depth":1,"traversal_truncated":false,"nodes":[{"name":"Parse","qualified_name":"Parse","kind":"func","repository":"core","file_path":"parse.go","start_line":3,"end_line":5,"language":"go","stable_key":"E3YMC2WEY5YR4QW5U36KZH2HJLIS4OZG3EVPR2ZGWEFDF45UV6UA","file_key":"567WNLHPA7K4FFMZHTH3XJUYXLSLKEOBPNEFDPBPDYPJ3UG2FZYQ","repository_key":"ENDAE4NZ5JII2HDNQ2S2IWQALFGRPSLLA6K5JUAODQO5LUHZZ6VA","depth":1,"reached_from":"main","via_kind":"CALLS_DIRECT","via_confidence":"EXACT_TYPECHECKED","via_provenance":"GO_TYPES_USE","reached_from_key":"PLQRRU533IN7RS2L2M65C72CR5B4LDRUHP4WSJ7HNCRTFWHLGYSQ"}]}}"#
    );
}

#[test]
fn the_blast_radius_reaches_the_caller_in_another_repository() {
    let compact = blast(serde_json::json!({"qualified_name": "Parse", "repository": "core"}));
    assert_eq!(
        compact,
        r#"{"snapshot_id":1,"total":1,"returned":1,"coverage":{"exact":1},"completeness":{"verdict":"LOWER_BOUND","unextracted_relations":[{"language":"go","relations":["ASSIGNS_FUNCTION","CALLS_DIRECT","EMBEDS","EXPORTS","EXTENDS","IMPLEMENTS","IMPORTS_SYMBOL","OVERRIDES","PASSES_AS_CALLBACK","REEXPORTS","REFERENCES","RETURNS_FUNCTION","TYPE_USES"]}]},"results":{"root":"core:parse.go:3","depth":3,"max_nodes":5000,"kinds_default_excluded":["field","variable"],"affected":1,"deepest_depth":1,"by_depth":{"1":1},"by_kind":{"CALLS_DIRECT":1},"by_repository":{"app":1},"by_package":[{"package":"example.com/app","repository":"app","count":1}],"repository":"app","kind":"func","hop_depth":1,"reached_from":"Parse","via_kind":"CALLS_DIRECT","via_confidence":"EXACT_TYPECHECKED","via_provenance":"GO_TYPES_USE","files":[{"file":"main.go","at":["main@5-7"]}]}}"#
    );
    let full = blast(
        serde_json::json!({"qualified_name": "Parse", "repository": "core",
        "view": "full", "response_format": "detailed", "kinds": ["*"]}),
    );
    assert_eq!(
        full,
        r#"{"snapshot_id":1,"total":1,"returned":1,"truncated":false,"next_cursor":null,"coverage":{"exact":1,"candidate":0,"unresolved_related":0,"package_level":0},"completeness":{"verdict":"LOWER_BOUND","unextracted_relations":[{"language":"go","relations":["ASSIGNS_FUNCTION","CALLS_DIRECT","EMBEDS","EXPORTS","EXTENDS","IMPLEMENTS","IMPORTS_SYMBOL","OVERRIDES","PASSES_AS_CALLBACK","REEXPORTS","REFERENCES","RETURNS_FUNCTION","TYPE_USES"]}]},"results":{"root_key":"E3YMC2WEY5YR4QW5U36KZH2HJLIS4OZG3EVPR2ZGWEFDF45UV6UA","root_repository":"core","depth":3,"max_nodes":5000,"kinds":["*"],"affected":1,"deepest_depth":1,"traversal_truncated":false,"symbols":[{"name":"main","qualified_name":"main","kind":"func","repository":"app","file_path":"main.go","start_line":5,"end_line":7,"language":"go","stable_key":"PLQRRU533IN7RS2L2M65C72CR5B4LDRUHP4WSJ7HNCRTFWHLGYSQ","file_key":"XYYIJO5J3BDER6SKQEAPJG7HJQ3OKDK6J52MWMBT2G65KKMCHNWA","repository_key":"QQDSVWLLYA6RV7PAVTTYBKGMFCBHD3PXR732SYUWC73D35BFTYPA","depth":1,"reached_from":"Parse","via_kind":"CALLS_DIRECT","via_confidence":"EXACT_TYPECHECKED","via_provenance":"GO_TYPES_USE","reached_from_key":"E3YMC2WEY5YR4QW5U36KZH2HJLIS4OZG3EVPR2ZGWEFDF45UV6UA"}],"by_repository":[{"key":"app","count":1}],"by_depth":[{"depth":1,"count":1}],"by_kind":[{"key":"CALLS_DIRECT","count":1}],"by_package":[{"package_key":"package:go:app:example.com/app","package_name":"example.com/app","repository":"app","count":1}]}}"#
    );
}

#[test]
fn a_reference_answer_in_its_full_and_files_views() {
    let published = published(&facts());
    let run = |arguments: serde_json::Value| {
        let args: crate::FindReferencesArgs = serde_json::from_value(arguments).unwrap();
        let mut answer = rendered(
            &published,
            crate::find_references(&published, &args, &PageLimits::default()),
        );
        answer
            .as_object_mut()
            .unwrap()
            .shift_remove("snapshot_age_ms");
        answer.to_string()
    };
    let full =
        run(serde_json::json!({"name": "Parse", "view": "full", "response_format": "detailed"}));
    assert_eq!(
        full,
        r#"{"snapshot_id":1,"total":1,"returned":1,"truncated":false,"next_cursor":null,"coverage":{"exact":1,"candidate":0,"unresolved_related":0,"package_level":0},"completeness":{"verdict":"COMPLETE"},"results":{"subject":{"stable_key":"E3YMC2WEY5YR4QW5U36KZH2HJLIS4OZG3EVPR2ZGWEFDF45UV6UA","name":"Parse","qualified_name":"Parse","kind":"func","repository":"core","file_path":"parse.go","start_line":3},"direction":"incoming","edge_kinds_default_excluded":["EXPORTS","REEXPORTS"],"references":[{"name":"main","qualified_name":"main","kind":"func","repository":"app","file_path":"main.go","start_line":5,"end_line":7,"language":"go","stable_key":"PLQRRU533IN7RS2L2M65C72CR5B4LDRUHP4WSJ7HNCRTFWHLGYSQ","file_key":"XYYIJO5J3BDER6SKQEAPJG7HJQ3OKDK6J52MWMBT2G65KKMCHNWA","repository_key":"QQDSVWLLYA6RV7PAVTTYBKGMFCBHD3PXR732SYUWC73D35BFTYPA","edge_kind":"CALLS_DIRECT","confidence":"EXACT_TYPECHECKED","provenance":"GO_TYPES_USE","evidence_kind":"OBSERVED_IN_FILE"}]}}"#
    );
    let files = run(serde_json::json!({"name": "Parse", "view": "files"}));
    assert_eq!(
        files,
        r#"{"snapshot_id":1,"total":1,"returned":1,"coverage":{"exact":1},"completeness":{"verdict":"COMPLETE"},"results":{"subject":"core:parse.go:3","qn":"Parse","direction":"incoming","edge_kinds_default_excluded":["EXPORTS","REEXPORTS"],"files":[{"file":"app/main.go","count":1}]}}"#
    );
    let outgoing =
        run(serde_json::json!({"name": "main", "direction": "outgoing", "view": "full"}));
    assert_eq!(
        outgoing,
        r#"{"snapshot_id":1,"total":1,"returned":1,"truncated":false,"next_cursor":null,"coverage":{"exact":1,"candidate":0,"unresolved_related":0,"package_level":0},"completeness":{"verdict":"COMPLETE"},"results":{"subject":{"stable_key":"PLQRRU533IN7RS2L2M65C72CR5B4LDRUHP4WSJ7HNCRTFWHLGYSQ","name":"main","qualified_name":"main","kind":"func","repository":"app","file_path":"main.go","start_line":5},"direction":"outgoing","edge_kinds_default_excluded":["EXPORTS","REEXPORTS"],"references":[{"name":"Parse","qualified_name":"Parse","kind":"func","repository":"core","file_path":"parse.go","start_line":3,"end_line":5,"language":"go","edge_kind":"CALLS_DIRECT","confidence":"EXACT_TYPECHECKED","provenance":"GO_TYPES_USE"}]}}"#
    );
}

#[test]
fn intent_candidates_in_each_view() {
    let published = published(&facts());
    let run = |arguments: serde_json::Value| {
        let args: crate::FindByIntentArgs = serde_json::from_value(arguments).unwrap();
        let mut answer = rendered(&published, crate::find_by_intent(&published, &args));
        answer
            .as_object_mut()
            .unwrap()
            .shift_remove("snapshot_age_ms");
        answer.to_string()
    };
    let compact = run(serde_json::json!({"intent": "parse the config"}));
    assert_eq!(
        compact,
        r#"{"snapshot_id":1,"total":2,"returned":2,"results":{"unmatched_terms":["the"],"repository":"core","match":"lexical","symbols":[{"qualified_name":"Config","kind":"type","file_path":"parse.go","start_line":8,"end_line":10,"terms":2},{"qualified_name":"Parse","kind":"func","file_path":"parse.go","start_line":3,"end_line":5,"terms":1}]}}"#
    );
    let full = run(
        serde_json::json!({"intent": "parse the configuration zebra", "view": "full", "response_format": "detailed"}),
    );
    assert_eq!(
        full,
        r#"{"snapshot_id":1,"total":2,"returned":2,"truncated":false,"next_cursor":null,"coverage":{"exact":0,"candidate":0,"unresolved_related":0,"package_level":0},"results":{"unmatched_terms":["the","configuration","zebra"],"symbols":[{"qualified_name":"Parse","kind":"func","repository":"core","file_path":"parse.go","start_line":3,"end_line":5,"terms":1,"match":"lexical","stable_key":"E3YMC2WEY5YR4QW5U36KZH2HJLIS4OZG3EVPR2ZGWEFDF45UV6UA"},{"qualified_name":"Config","kind":"type","repository":"core","file_path":"parse.go","start_line":8,"end_line":10,"terms":1,"match":"lexical","stable_key":"M45TSQRZLPQCHK7WM4UKSQI423BWNAJ6THKBOASAE4HKKPFVG4XQ"}]}}"#
    );
    let files = run(serde_json::json!({"intent": "parse", "view": "files"}));
    assert_eq!(
        files,
        r#"{"snapshot_id":1,"total":1,"returned":1,"results":{"files":[{"file":"parse.go","repo":"core","symbols":2}]}}"#
    );
}

#[test]
fn a_module_report_of_a_file_nobody_indexed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("parse.go"),
        "package core\n\nimport \"strings\"\n\n// Parse reads a config.\nfunc Parse(s string) Config {\n\tif s == \"\" {\n\t\treturn Config{}\n\t}\n\treturn Config{Name: strings.TrimSpace(s)}\n}\n\ntype Config struct {\n\tName string\n}\n\nfunc helper() {}\n",
    )
    .unwrap();
    let roots = crate::Roots(vec![("core".into(), dir.path().to_path_buf())]);
    let run = |arguments: serde_json::Value| {
        let args: crate::ModuleReportArgs = serde_json::from_value(arguments).unwrap();
        crate::module_report(None, &roots, &args).unwrap()
    };
    let json = run(serde_json::json!({"file": "parse.go", "repository": "core"}));
    assert_eq!(
        json,
        r#"{"available":true,"staleness":"not indexed","repository":"core","path":"parse.go","language":"go","lineCount":17,"summary":{"imports":1,"exports":2,"symbols":3},"imports":{"external":["strings"],"internal":[]},"api":[{"name":"Parse","kind":"func","startLine":6,"endLine":11,"exported":true,"signature":"func Parse(s string) Config","doc":"Parse reads a config.","fanout":1,"complexity":2},{"name":"Config","kind":"type","startLine":13,"endLine":15,"exported":true,"signature":"type Config struct","fanout":0,"complexity":1}],"internal":[{"name":"helper","kind":"func","startLine":17,"endLine":17,"exported":false,"signature":"func helper()","fanout":0,"complexity":1}],"recommendedReads":[{"reason":"complexity 2, exported","symbol":"Parse","startLine":6,"endLine":11},{"reason":"complexity 1","symbol":"helper","startLine":17,"endLine":17}],"semantic":{"source":"syntax","references":false,"implementations":false}}"#
    );
    let compact =
        run(serde_json::json!({"file": "parse.go", "repository": "core", "view": "compact"}));
    assert_eq!(
        compact,
        "parse.go go 17L — 3 symbols, 2 exported | imports: strings\n(not indexed: answered from the file's syntax)\nAPI:\n  6-11 fn Parse(s string) Config  — Parse reads a config.\n  13-15 type Config struct\nINTERNAL:\n  17-17 fn helper()\nREAD FIRST: Parse@6-11 (complexity 2), helper@17-17 (complexity 1)\n"
    );
}

#[test]
fn consumers_of_each_category_in_each_view() {
    use kivgraph_facts::*;
    let mut facts = facts();
    let package = |name: &str| {
        facts
            .packages
            .iter()
            .find(|p| p.repository == name)
            .unwrap()
            .key
    };
    let (app, core) = (package("app"), package("core"));
    facts.edges.push(Edge {
        kind: EdgeKind::PackageDependsOn,
        source: app,
        target: core,
        confidence: Confidence::StructuralCertain,
        provenance: Provenance::TreeSitterSyntax,
        evidence: None,
    });
    facts.unresolved.push(UnresolvedReference {
        repository: "app".into(),
        language: Language::Go,
        reason: Reason::NameNotResolved,
        file_path: Some("main.go".into()),
        span: Some(LineSpan {
            start_line: 12,
            end_line: 12,
            start_byte: 120,
            end_byte: 129,
        }),
        requested_symbol: Some("core.Parse".into()),
        requested_package: Some("example.com/core".into()),
        detail: "core.Parse is not declared where the import points".into(),
    });
    facts.canonicalize();
    let published = published(&facts);
    let run = |arguments: serde_json::Value| {
        let args: crate::CrossRepoConsumersArgs = serde_json::from_value(arguments).unwrap();
        let mut answer = rendered(
            &published,
            crate::find_cross_repo_consumers(&published, &args, &PageLimits::default()),
        );
        answer
            .as_object_mut()
            .unwrap()
            .shift_remove("snapshot_age_ms");
        answer.to_string()
    };
    let compact = run(serde_json::json!({"qualified_name": "Parse", "repository": "core"}));
    assert_eq!(
        compact,
        r#"{"snapshot_id":1,"total":2,"returned":2,"coverage":{"exact":1,"unresolved_related":1},"completeness":{"verdict":"LOWER_BOUND","blind_spots":[{"reason":"NAME_NOT_RESOLVED","repository":"app","path":"main.go","line":12,"requested_symbol":"core.Parse","requested_package":"example.com/core","detail":"core.Parse is not declared where the import points"}],"fallback":{"pattern":"\\bParse\\b","paths":["/src/app/main.go"]}},"results":{"subject":{"qualified_name":"Parse","at":"core:parse.go:3","pkg":"example.com/core","module_path":"example.com/core","end_line":5},"edge_kind":"CALLS_DIRECT","confidence":"EXACT_TYPECHECKED","provenance":"GO_TYPES_USE","reason":"NAME_NOT_RESOLVED","requested_package":"example.com/core","requested_symbol":"core.Parse","consumers":[{"category":"exact_symbol","repo":"app","pkg":"example.com/app","at":"main.go:5","end_line":7,"qualified_name":"main"},{"category":"unresolved","detail":"core.Parse is not declared where the import points","repo":"app","at":"main.go:12"}]}}"#
    );
    let full = run(
        serde_json::json!({"qualified_name": "Parse", "repository": "core",
        "view": "full", "response_format": "detailed"}),
    );
    assert_eq!(
        full,
        r#"{"snapshot_id":1,"total":2,"returned":2,"truncated":false,"next_cursor":null,"coverage":{"exact":1,"candidate":0,"unresolved_related":1,"package_level":0},"completeness":{"verdict":"LOWER_BOUND","blind_spots":[{"reason":"NAME_NOT_RESOLVED","repository":"app","path":"main.go","line":12,"requested_symbol":"core.Parse","requested_package":"example.com/core","detail":"core.Parse is not declared where the import points"}],"fallback":{"pattern":"\\bParse\\b","paths":["/src/app/main.go"]}},"results":{"subject":{"qualified_name":"Parse","repository":"core","package_name":"example.com/core","module_path":"example.com/core","file_path":"parse.go","start_line":3,"end_line":5},"consumers":[{"category":"exact_symbol","edge_kind":"CALLS_DIRECT","confidence":"EXACT_TYPECHECKED","provenance":"GO_TYPES_USE","evidence_kind":"OBSERVED_IN_FILE","package_name":"example.com/app","name":"main","qualified_name":"main","kind":"func","repository":"app","file_path":"main.go","start_line":5,"end_line":7,"language":"go","stable_key":"PLQRRU533IN7RS2L2M65C72CR5B4LDRUHP4WSJ7HNCRTFWHLGYSQ","file_key":"XYYIJO5J3BDER6SKQEAPJG7HJQ3OKDK6J52MWMBT2G65KKMCHNWA","repository_key":"QQDSVWLLYA6RV7PAVTTYBKGMFCBHD3PXR732SYUWC73D35BFTYPA"},{"category":"unresolved","reason":"NAME_NOT_RESOLVED","requested_package":"example.com/core","requested_symbol":"core.Parse","detail":"core.Parse is not declared where the import points","repository":"app","language":"go","file_path":"main.go","start_line":12}]}}"#
    );
    let detailed = run(
        serde_json::json!({"qualified_name": "Parse", "repository": "core",
        "response_format": "detailed"}),
    );
    assert_eq!(
        detailed,
        r#"{"snapshot_id":1,"total":2,"returned":2,"coverage":{"exact":1,"unresolved_related":1},"completeness":{"verdict":"LOWER_BOUND","blind_spots":[{"reason":"NAME_NOT_RESOLVED","repository":"app","path":"main.go","line":12,"requested_symbol":"core.Parse","requested_package":"example.com/core","detail":"core.Parse is not declared where the import points"}],"fallback":{"pattern":"\\bParse\\b","paths":["/src/app/main.go"]}},"results":{"subject":{"qualified_name":"Parse","at":"core:parse.go:3","pkg":"example.com/core","module_path":"example.com/core","end_line":5},"edge_kind":"CALLS_DIRECT","confidence":"EXACT_TYPECHECKED","provenance":"GO_TYPES_USE","reason":"NAME_NOT_RESOLVED","requested_package":"example.com/core","requested_symbol":"core.Parse","consumers":[{"category":"exact_symbol","repo":"app","pkg":"example.com/app","at":"main.go:5","end_line":7,"qualified_name":"main","stable_key":"PLQRRU533IN7RS2L2M65C72CR5B4LDRUHP4WSJ7HNCRTFWHLGYSQ"},{"category":"unresolved","detail":"core.Parse is not declared where the import points","repo":"app","at":"main.go:12"}]}}"#
    );
}
