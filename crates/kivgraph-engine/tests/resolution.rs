//! Syntax-level resolution on the fixtures under `testdata/resolution`: every edge and every
//! unresolved row, exactly.

mod support;

use kivgraph_config::{LanguageToken, RepositoryEntry};
use kivgraph_engine::{AnalyzerOptions, Engine, load_repository};
use kivgraph_facts::{EdgeKind, FactSet, StableKey};
use support::{copy_tree, evidence_of, index_at, relations, unresolved_rows};

fn index(fixtures: &[&str], language: LanguageToken) -> FactSet {
    let root = support::manifest_dir().join("../../testdata/resolution");
    index_at(&root, fixtures, language, AnalyzerOptions::default())
}

/// `source-file#qualified-name -> target-file#qualified-name CONFIDENCE file:line` per call edge.
fn calls(facts: &FactSet) -> Vec<String> {
    relations(facts, EdgeKind::CallsDirect)
}

/// `TYPE_USES` edges in the same shape as [`calls`].
fn type_uses(facts: &FactSet) -> Vec<String> {
    relations(facts, EdgeKind::TypeUses)
}

#[test]
fn go_calls_bind_by_package_block_and_imports_and_nowhere_else() {
    // With the tests, so that an external test package shares a directory with its package.
    let root = support::manifest_dir().join("../../testdata/resolution");
    let mut options = AnalyzerOptions::default();
    options.go_build.include_tests = true;
    let facts = index_at(
        &root,
        &["gocalls", "goconsumer"],
        LanguageToken::Go,
        options,
    );
    facts.validate().unwrap();
    assert_eq!(
        calls(&facts),
        vec![
            // Another repository, through the provider's import path and package clause.
            "app/dot.go#dotted -> server/server.go#Run STRUCTURAL_CERTAIN app/dot.go:6",
            "app/main.go#main -> server/server.go#Run STRUCTURAL_CERTAIN app/main.go:8",
            // Rule G11 across packages: `s *server.Server`; `b *strings.Builder` is the
            // standard library's, neither an edge nor a failure.
            "app/typed.go#typed -> server/server.go#Server.Start STRUCTURAL_CERTAIN app/typed.go:11",
            "client/client.go#Dial -> client/client.go#NewServer STRUCTURAL_CERTAIN client/client.go:14",
            // Through the alias `srv`; the homonym client.NewServer is never the target.
            "client/client.go#Start -> server/server.go#NewServer STRUCTURAL_CERTAIN client/client.go:19",
            "client/client.go#Start -> server/server.go#Run STRUCTURAL_CERTAIN client/client.go:22",
            // Rule G11: `shadowed` calls srv.NewServer on a parameter named `srv` declared
            // `fakeServer`, whose method it is — never the imported package's function.
            "client/client.go#shadowed -> client/client.go#fakeServer.NewServer STRUCTURAL_CERTAIN client/client.go:25",
            "client/client.go#withLiteral -> client/client.go#fakeServer.NewServer STRUCTURAL_CERTAIN client/client.go:34",
            // Through the method's own receiver; `p.hook()` calls a field, `p.Lock()` a
            // promoted method (a row below).
            "server/pool.go#Pool.Drain -> server/pool.go#Pool.reset STRUCTURAL_CERTAIN server/pool.go:14",
            "server/report.go#register -> server/server.go#retry STRUCTURAL_CERTAIN server/report.go:13",
            "server/report.go#report -> server/report.go#cleanup STRUCTURAL_CERTAIN server/report.go:6",
            "server/server.go#Run -> server/report.go#report STRUCTURAL_CERTAIN server/server.go:17",
            "server/server.go#Run -> server/server.go#NewServer STRUCTURAL_CERTAIN server/server.go:13",
            "server/server.go#retry -> server/report.go#report CANDIDATE server/server.go:28",
            // `package server_test` shares the directory, not the package block.
            "server/server_ext_test.go#TestRun -> server/server_ext_test.go#report STRUCTURAL_CERTAIN server/server_ext_test.go:6",
            "util/util.go#a -> util/util.go#b STRUCTURAL_CERTAIN util/util.go:4",
        ]
    );
    let unresolved = unresolved_rows(&facts);
    assert_eq!(
        unresolved,
        vec![
            // Charged once, to the import, not to every call through it; `strings` is the
            // standard library and charged nothing.
            "MODULE_PROVIDER_NOT_FOUND - example.com/nobody/pkg client/client.go:7",
            "NAME_NOT_RESOLVED Gone example.com/gocalls/server client/client.go:21",
            "NAME_NOT_RESOLVED Pool.Lock - server/pool.go:12",
            "NAME_NOT_RESOLVED missing - server/server.go:19",
            // From another repository, a provider definition no unit published.
            "PROVIDER_DEFINITION_NOT_INDEXED Shutdown example.com/gocalls/server app/typed.go:17",
            // A call on a value whose type the syntax does not spell: `s` holds a call's
            // result.
            "RECEIVER_TYPE_UNKNOWN Start - server/server.go:14",
        ]
    );
    // Rule G10: type names bind like called names; `NewServer` spells `Server` twice (its
    // result and a composite literal), each its own observation.
    assert_eq!(
        type_uses(&facts),
        vec![
            "app/typed.go#typed -> server/server.go#Server STRUCTURAL_CERTAIN app/typed.go:10",
            "client/client.go#Dial -> client/client.go#Server STRUCTURAL_CERTAIN client/client.go:14",
            "client/client.go#NewServer -> client/client.go#Server STRUCTURAL_CERTAIN client/client.go:12",
            "client/client.go#NewServer -> client/client.go#Server STRUCTURAL_CERTAIN client/client.go:12",
            "client/client.go#fakeServer.NewServer -> client/client.go#fakeServer STRUCTURAL_CERTAIN client/client.go:29",
            "client/client.go#shadowed -> client/client.go#fakeServer STRUCTURAL_CERTAIN client/client.go:25",
            "client/client.go#withLiteral -> client/client.go#fakeServer STRUCTURAL_CERTAIN client/client.go:33",
            "server/pool.go#Pool.Drain -> server/pool.go#Pool STRUCTURAL_CERTAIN server/pool.go:11",
            "server/pool.go#Pool.reset -> server/pool.go#Pool STRUCTURAL_CERTAIN server/pool.go:17",
            "server/server.go#ID -> server/server.go#Server STRUCTURAL_CERTAIN server/server.go:32",
            "server/server.go#NewServer -> server/server.go#Server STRUCTURAL_CERTAIN server/server.go:9",
            "server/server.go#NewServer -> server/server.go#Server STRUCTURAL_CERTAIN server/server.go:9",
            "server/server.go#Server.Start -> server/server.go#Server STRUCTURAL_CERTAIN server/server.go:24",
        ]
    );
    // Rule G12: names used as values, by where they stand; the local `handlers` is no edge.
    let mut values: Vec<String> = [
        EdgeKind::PassesAsCallback,
        EdgeKind::AssignsFunction,
        EdgeKind::ReturnsFunction,
        EdgeKind::References,
    ]
    .into_iter()
    .flat_map(|kind| {
        relations(&facts, kind)
            .into_iter()
            .map(move |row| format!("{kind} {row}"))
    })
    .collect();
    values.sort();
    assert_eq!(
        values,
        vec![
            "ASSIGNS_FUNCTION server/report.go#register -> server/report.go#cleanup STRUCTURAL_CERTAIN server/report.go:14",
            "PASSES_AS_CALLBACK server/report.go#register -> server/report.go#report STRUCTURAL_CERTAIN server/report.go:13",
            "RETURNS_FUNCTION server/report.go#register -> server/report.go#cleanup STRUCTURAL_CERTAIN server/report.go:16",
        ]
    );
    // Package dependencies come from resolved imports only, one per import site: the
    // standard library and the import nobody provides give none.
    assert_eq!(
        package_dependencies(&facts),
        vec![
            "example.com/gocalls/client -> example.com/gocalls/server STRUCTURAL_CERTAIN client/client.go:6",
            "example.com/goconsumer/app -> example.com/gocalls/server STRUCTURAL_CERTAIN app/dot.go:3",
            "example.com/goconsumer/app -> example.com/gocalls/server STRUCTURAL_CERTAIN app/main.go:3",
            "example.com/goconsumer/app -> example.com/gocalls/server STRUCTURAL_CERTAIN app/typed.go:6",
        ]
    );
}

/// `PACKAGE_DEPENDS_ON` edges as `importer -> provider CONFIDENCE file:line`, by import path.
fn package_dependencies(facts: &FactSet) -> Vec<String> {
    let path = |key: &StableKey| {
        let name = &facts.packages.iter().find(|p| p.key == *key).unwrap().name;
        name.rsplit_once(' ')
            .map_or(name.clone(), |(_, p)| p.to_string())
    };
    let mut rows: Vec<String> = facts
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::PackageDependsOn)
        .map(|e| {
            let seen = evidence_of(facts, e);
            format!(
                "{} -> {} {} {}:{}",
                path(&e.source),
                path(&e.target),
                e.confidence,
                seen.file_path,
                seen.span.start_line
            )
        })
        .collect();
    rows.sort();
    rows
}

/// A body edit re-resolves its own package only; an exported declaration added re-resolves
/// its package and its importers, and no one else (salsa's execution log).
#[test]
fn resolution_reruns_only_where_the_names_it_read_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = support::manifest_dir().join("../../testdata/resolution");
    let entries: Vec<RepositoryEntry> = ["gocalls", "goconsumer"]
        .iter()
        .map(|name| {
            copy_tree(&root.join(name), &dir.path().join(name));
            RepositoryEntry {
                name: name.to_string(),
                path: dir.path().join(name),
                languages: vec![LanguageToken::Go],
                manifests: vec![],
                roots: vec![],
                exclusions: vec![],
            }
        })
        .collect();
    let load = || -> Vec<_> {
        entries
            .iter()
            .map(|e| {
                load_repository(
                    kivgraph_discovery::discover_repository(e, &Default::default()).unwrap(),
                )
            })
            .collect()
    };
    let mut engine = Engine::new();
    engine.update(&load());
    engine.facts(&|_| {});
    engine.execution_log().take();

    let report = dir.path().join("gocalls/server/report.go");
    let text = std::fs::read_to_string(&report).unwrap();
    std::fs::write(
        &report,
        text.replace("validate(addr)", "validate(addr + \"!\")"),
    )
    .unwrap();
    engine.update(&load());
    engine.facts(&|_| {});
    let log = engine.execution_log();
    assert_eq!(log.count("file_facts"), 1);
    assert_eq!(
        log.count("go_package_names"),
        1,
        "recomputed, found unchanged"
    );
    assert_eq!(log.count("package_facts"), 1, "the edited package only");
    log.take();

    let server = dir.path().join("gocalls/server/server.go");
    let text = std::fs::read_to_string(&server).unwrap();
    std::fs::write(&server, format!("{text}\nfunc Extra() {{}}\n")).unwrap();
    engine.update(&load());
    engine.facts(&|_| {});
    let log = engine.execution_log();
    // server itself, client (imports it) and app (another repository, imports it); util
    // imports nothing and is not re-resolved.
    assert_eq!(log.count("package_facts"), 3);
}

/// `IMPORTS_SYMBOL` edges as `importing-file -> declaring-file#name CONFIDENCE line`.
fn imports(facts: &FactSet) -> Vec<String> {
    let mut rows: Vec<String> = facts
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::ImportsSymbol)
        .map(|e| {
            let file = facts.files.iter().find(|f| f.key == e.source).unwrap();
            let target = facts.symbols.iter().find(|s| s.key == e.target).unwrap();
            let evidence = evidence_of(facts, e);
            format!(
                "{} -> {}#{} {} {}",
                file.path,
                target.file_path,
                target.qualified_name,
                e.confidence,
                evidence.span.start_line
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn typescript_imports_bind_through_barrels_to_the_declaration() {
    let facts = index(&["tsmodules"], LanguageToken::Typescript);
    facts.validate().unwrap();
    assert_eq!(
        imports(&facts),
        vec![
            // `./cache.js` is the emitted name of cache.ts; `reveal` is `hidden` renamed;
            // `Entry` is a class and a namespace merged, and the import binds both.
            "src/app.ts -> src/cache.ts#Entry STRUCTURAL_CERTAIN 2",
            "src/app.ts -> src/cache.ts#Entry STRUCTURAL_CERTAIN 2",
            "src/app.ts -> src/cache.ts#hidden STRUCTURAL_CERTAIN 2",
            // Through the barrel's renamed re-export and its `export *`: credited to the
            // declarations, never to src/index.ts.
            "src/app.ts -> src/cache.ts#load STRUCTURAL_CERTAIN 1",
            "src/app.ts -> src/store.ts#save STRUCTURAL_CERTAIN 1",
        ]
    );
    let unresolved = unresolved_rows(&facts);
    // Default and namespace imports are not bound yet, and charged nothing.
    assert_eq!(
        unresolved,
        vec![
            "EXPORT_NOT_FOUND nothing ./cache src/app.ts:3",
            "MODULE_NOT_RESOLVED - ./missing src/app.ts:4",
            // Rule T5: no registered package.json is named zod; charged once, to the import.
            "PACKAGE_PROVIDER_NOT_FOUND - zod src/app.ts:7",
        ]
    );
    // Type names bind like called names (T4, T6): the file's own interface is certain;
    // `useLocal`'s type parameter `Entry` hides the import (a candidate), and `ns.Entry`
    // reaches a class and a namespace merged (candidates).
    assert_eq!(
        type_uses(&facts),
        vec![
            // A class inside a function is no declaration of the pass: its base is a use.
            "src/app.ts#local -> src/app.ts#Base STRUCTURAL_CERTAIN src/app.ts:27",
            "src/app.ts#useLocal -> src/app.ts#Local STRUCTURAL_CERTAIN src/app.ts:19",
            "src/app.ts#useLocal -> src/app.ts#Local STRUCTURAL_CERTAIN src/app.ts:19",
            "src/app.ts#useLocal -> src/cache.ts#Entry CANDIDATE src/app.ts:19",
            "src/app.ts#useLocal -> src/cache.ts#Entry CANDIDATE src/app.ts:19",
            "src/app.ts#viaNsType -> src/cache.ts#Entry CANDIDATE src/app.ts:20",
            "src/app.ts#viaNsType -> src/cache.ts#Entry CANDIDATE src/app.ts:20",
            "src/app.ts#viaType -> src/app.ts#Runner STRUCTURAL_CERTAIN src/app.ts:33",
        ]
    );
    // Names used as values (T4, T6): references from the object that holds them.
    assert_eq!(
        relations(&facts, EdgeKind::References),
        vec![
            "src/app.ts#handlers -> src/app.ts#helper STRUCTURAL_CERTAIN src/app.ts:21",
            "src/app.ts#handlers -> src/cache.ts#load STRUCTURAL_CERTAIN src/app.ts:21",
        ]
    );
    assert_eq!(
        calls(&facts),
        vec![
            // Rule T4: a top-level call is held by the module; `helper` is the file's own
            // function, which TypeScript forbids reassigning.
            "src/app.ts#<module> -> src/app.ts#helper STRUCTURAL_CERTAIN src/app.ts:13",
            // A `let` can be reassigned: only a candidate.
            "src/app.ts#<module> -> src/app.ts#swap CANDIDATE src/app.ts:15",
            // Rule T9 (asserted in the heritage test).
            "src/app.ts#Runner.start -> src/app.ts#Base.run STRUCTURAL_CERTAIN src/app.ts:29",
            "src/app.ts#Runner.start -> src/app.ts#Runner.start STRUCTURAL_CERTAIN src/app.ts:29",
            "src/app.ts#Runner.start -> src/app.ts#Runner.stop STRUCTURAL_CERTAIN src/app.ts:29",
            // Rule T10: `new Runner().start()` — the constructor, then the method of the
            // object the language guarantees.
            "src/app.ts#fresh -> src/app.ts#Runner STRUCTURAL_CERTAIN src/app.ts:32",
            "src/app.ts#fresh -> src/app.ts#Runner.start STRUCTURAL_CERTAIN src/app.ts:32",
            // Through the barrel's renamed re-export, to the declaration.
            "src/app.ts#main -> src/cache.ts#load STRUCTURAL_CERTAIN src/app.ts:8",
            // `new Entry()` reaches a class and a namespace merged: neither alone is proven.
            "src/app.ts#make -> src/cache.ts#Entry CANDIDATE src/app.ts:12",
            "src/app.ts#make -> src/cache.ts#Entry CANDIDATE src/app.ts:12",
            "src/app.ts#run -> src/app.ts#helper STRUCTURAL_CERTAIN src/app.ts:10",
            "src/app.ts#run -> src/cache.ts#hidden STRUCTURAL_CERTAIN src/app.ts:10",
            // `run`'s parameter `save` hides the import: only a candidate.
            "src/app.ts#run -> src/store.ts#save CANDIDATE src/app.ts:10",
            // Rule T6: through the namespace import `ns`; `shadow`'s parameter `ns` is
            // another object, and gives no edge.
            "src/app.ts#viaNamespace -> src/cache.ts#load STRUCTURAL_CERTAIN src/app.ts:16",
            // Rule T11: `r: Runner` and `const again = new Runner()` are Runners for good.
            "src/app.ts#viaType -> src/app.ts#Runner STRUCTURAL_CERTAIN src/app.ts:33",
            "src/app.ts#viaType -> src/app.ts#Runner.start STRUCTURAL_CERTAIN src/app.ts:33",
            "src/app.ts#viaType -> src/app.ts#Runner.stop STRUCTURAL_CERTAIN src/app.ts:33",
        ]
    );
}

#[test]
fn python_from_imports_are_candidates_to_module_level_declarations() {
    let facts = index(&["pymodules"], LanguageToken::Python);
    facts.validate().unwrap();
    assert_eq!(
        imports(&facts),
        vec![
            "shop/models/__init__.py -> shop/models/user.py#User CANDIDATE 1",
            // Rule P7: `Account` is what shop.models imports `User` as: credited to the
            // declaration, never to the package that re-exports it.
            "shop/views.py -> shop/models/user.py#User CANDIDATE 2",
            "shop/views.py -> shop/models/user.py#load CANDIDATE 3",
            // Absolute within the repository, renamed.
            "shop/views.py -> shop/util.py#helper CANDIDATE 7",
        ]
    );
    assert_eq!(
        unresolved_rows(&facts),
        vec![
            // `save`, `user` (a submodule) and `anything` (maybe through util's star import)
            // are not charged: Python's bindings are not all declarations; `json` and
            // `os.path` are the standard library's.
            "IMPORT_NOT_RESOLVED - .missing shop/views.py:5",
            // Rule P6: a top-level package nobody registered.
            "PACKAGE_PROVIDER_NOT_FOUND - numpy shop/views.py:47",
            "PACKAGE_PROVIDER_NOT_FOUND - vendored shop/views.py:48",
        ]
    );
    // Rule P6: two repositories hold `vendored`, and the importer's is neither.
    let facts = index(
        &["pymodules", "pyvendora", "pyvendorb"],
        LanguageToken::Python,
    );
    assert!(
        unresolved_rows(&facts)
            .contains(&"AMBIGUOUS_PACKAGE_PROVIDER - vendored shop/views.py:48".to_string())
    );
    // A name used as a value (a dict entry) is a reference, a candidate like the import.
    assert_eq!(
        relations(&facts, EdgeKind::References),
        vec!["shop/views.py#registry -> shop/util.py#helper CANDIDATE shop/views.py:30"]
    );
    // Rule P3: calls bind the module's names, always as candidates (Python rebinds them).
    assert_eq!(
        calls(&facts),
        vec![
            "shop/models/user.py#load -> shop/models/user.py#User CANDIDATE shop/models/user.py:6",
            // Rule P8 (asserted in the heritage test).
            "shop/views.py#Greeter.greet -> shop/views.py#Base.render CANDIDATE shop/views.py:53",
            "shop/views.py#Greeter.greet -> shop/views.py#Greeter.name CANDIDATE shop/views.py:53",
            "shop/views.py#again -> shop/models/user.py#load CANDIDATE shop/views.py:15",
            "shop/views.py#again -> shop/views.py#render CANDIDATE shop/views.py:15",
            // Rule P4: through a module bound by `from .models import user` (a submodule),
            // and by `import shop.util as tools`; `through_modules`' parameter `user` hides
            // the module and gives no edge.
            "shop/views.py#by_submodule -> shop/models/user.py#load CANDIDATE shop/views.py:27",
            "shop/views.py#render -> shop/models/user.py#load CANDIDATE shop/views.py:11",
            "shop/views.py#render -> shop/util.py#helper CANDIDATE shop/views.py:11",
            "shop/views.py#through_modules -> shop/util.py#helper CANDIDATE shop/views.py:22",
        ]
    );
}

/// Rule T5: a package specifier binds the registered package whose package.json carries the
/// name — in another repository here — as a candidate; built-ins are charged nothing.
#[test]
fn typescript_package_specifiers_reach_the_registered_package() {
    let facts = index(&["tsmodules", "tsconsumer"], LanguageToken::Typescript);
    facts.validate().unwrap();
    let imports: Vec<String> = imports(&facts)
        .into_iter()
        .filter(|row| row.starts_with("src/main.ts"))
        .collect();
    assert_eq!(
        imports,
        vec![
            // Through the provider's barrel, credited to the declarations.
            "src/main.ts -> src/cache.ts#load CANDIDATE 1",
            "src/main.ts -> src/store.ts#save CANDIDATE 2",
        ]
    );
    let calls: Vec<String> = calls(&facts)
        .into_iter()
        .filter(|row| row.starts_with("src/main.ts"))
        .collect();
    assert_eq!(
        calls,
        vec![
            "src/main.ts#main -> src/cache.ts#load CANDIDATE src/main.ts:7",
            "src/main.ts#main -> src/store.ts#save CANDIDATE src/main.ts:7",
        ]
    );
    let unresolved: Vec<String> = unresolved_rows(&facts)
        .into_iter()
        .filter(|row| row.contains("src/main.ts"))
        .collect();
    assert_eq!(
        unresolved,
        vec![
            "PACKAGE_PROVIDER_NOT_FOUND - left-pad src/main.ts:5",
            // The registered provider's module exports no such name.
            "PROVIDER_DEFINITION_NOT_INDEXED retired tsmodules/src/store src/main.ts:8",
        ]
    );
}

/// Rules R1–R3: `use` trees, bare names and paths walk the crate's module tree.
#[test]
fn rust_paths_walk_the_crate_module_tree() {
    let facts = index(&["rsmods"], LanguageToken::Rust);
    facts.validate().unwrap();
    // R1: a `use` list through `crate::`, one entry renamed; a glob binds no name itself.
    assert_eq!(
        imports(&facts),
        vec![
            "src/lib.rs -> src/store/mod.rs#store::Handle STRUCTURAL_CERTAIN 3",
            "src/lib.rs -> src/store/mod.rs#store::open STRUCTURAL_CERTAIN 3",
        ]
    );
    assert_eq!(
        calls(&facts),
        vec![
            // R6 (asserted with the trait impls).
            "src/lib.rs#Config::deeper -> src/lib.rs#Config::depth_plus STRUCTURAL_CERTAIN src/lib.rs:70",
            "src/lib.rs#Config::deeper -> src/lib.rs#Config::describe CANDIDATE src/lib.rs:69",
            // R3: `Type::new` walks through the type; `util::helper` into an inline module.
            "src/lib.rs#run -> src/lib.rs#Config::new STRUCTURAL_CERTAIN src/lib.rs:29",
            "src/lib.rs#run -> src/lib.rs#util::helper STRUCTURAL_CERTAIN src/lib.rs:26",
            // R2: only a glob import opens `flush`: a candidate. `std::mem::drop` leaves the
            // crate and is not bound.
            "src/lib.rs#run -> src/store/disk.rs#store::disk::flush CANDIDATE src/lib.rs:27",
            "src/lib.rs#run -> src/store/mod.rs#store::close STRUCTURAL_CERTAIN src/lib.rs:25",
            "src/lib.rs#run -> src/store/mod.rs#store::open STRUCTURAL_CERTAIN src/lib.rs:24",
            // `shadowed`'s parameter `open` rebinds the name: a candidate; its closure
            // `helper` is no item of the module.
            "src/lib.rs#shadowed -> src/store/mod.rs#store::open CANDIDATE src/lib.rs:33",
            // Inside `mod tests`, `Config` is only reached through `use super::*`.
            "src/lib.rs#tests::builds -> src/lib.rs#Config::new CANDIDATE src/lib.rs:43",
            // `super::` from the inline module `util`.
            "src/lib.rs#util::helper -> src/lib.rs#Config::new STRUCTURAL_CERTAIN src/lib.rs:19",
            "src/store/mod.rs#store::close -> src/store/disk.rs#store::disk::flush STRUCTURAL_CERTAIN src/store/mod.rs:10",
        ]
    );
    assert_eq!(
        type_uses(&facts),
        vec![
            "src/lib.rs#Config::new -> src/lib.rs#Config STRUCTURAL_CERTAIN src/lib.rs:13",
            // Through the renamed `use … Handle as StoreHandle`.
            "src/lib.rs#run -> src/lib.rs#Config STRUCTURAL_CERTAIN src/lib.rs:23",
            "src/lib.rs#run -> src/store/mod.rs#store::Handle STRUCTURAL_CERTAIN src/lib.rs:23",
            "src/lib.rs#tests::builds -> src/lib.rs#Config CANDIDATE src/lib.rs:42",
            "src/lib.rs#util::helper -> src/lib.rs#Config STRUCTURAL_CERTAIN src/lib.rs:18",
            "src/store/mod.rs#store::close -> src/store/mod.rs#store::Handle STRUCTURAL_CERTAIN src/store/mod.rs:9",
            "src/store/mod.rs#store::open -> src/store/mod.rs#store::Handle STRUCTURAL_CERTAIN src/store/mod.rs:5",
        ]
    );
}

#[test]
fn go_types_implement_interfaces_whose_resolved_signatures_they_declare() {
    let facts = index(&["godispatch"], LanguageToken::Go);
    facts.validate().unwrap();
    assert_eq!(
        relations(&facts, EdgeKind::Implements),
        [
            "app/app.go#SlackNotifier -> store/notify.go#Notifier STRUCTURAL_CERTAIN app/app.go:10",
            "app/app.go#SlackNotifier.Notify -> store/notify.go#Notifier.Notify STRUCTURAL_CERTAIN app/app.go:12",
            // Promoted across packages: the method-level edges stay with MemoryStore's.
            "app/app.go#Wrapped -> store/store.go#Closer STRUCTURAL_CERTAIN app/app.go:44",
            "app/app.go#Wrapped -> store/store.go#Store STRUCTURAL_CERTAIN app/app.go:44",
            "store/notify.go#EmailNotifier -> store/notify.go#Notifier STRUCTURAL_CERTAIN store/notify.go:8",
            "store/notify.go#EmailNotifier.Notify -> store/notify.go#Notifier.Notify STRUCTURAL_CERTAIN store/notify.go:10",
            // An unexported method name belongs to its package: app's buffer.flush is
            // another name.
            "store/notify.go#diskFlusher -> store/notify.go#flusher STRUCTURAL_CERTAIN store/notify.go:22",
            "store/notify.go#diskFlusher.flush -> store/notify.go#flusher.flush STRUCTURAL_CERTAIN store/notify.go:24",
            // Rule G14: Audit gets Get, Put and Close promoted from its *MemoryStore.
            "store/store.go#Audit -> store/store.go#Closer STRUCTURAL_CERTAIN store/store.go:46",
            "store/store.go#Audit -> store/store.go#Reporter STRUCTURAL_CERTAIN store/store.go:46",
            "store/store.go#Audit -> store/store.go#Store STRUCTURAL_CERTAIN store/store.go:46",
            "store/store.go#Audit.Report -> store/store.go#Reporter.Report STRUCTURAL_CERTAIN store/store.go:53",
            "store/store.go#MemoryStore -> store/store.go#Closer STRUCTURAL_CERTAIN store/store.go:30",
            "store/store.go#MemoryStore -> store/store.go#Store STRUCTURAL_CERTAIN store/store.go:30",
            "store/store.go#MemoryStore.Close -> store/store.go#Closer.Close STRUCTURAL_CERTAIN store/store.go:43",
            "store/store.go#MemoryStore.Get -> store/store.go#Store.Get STRUCTURAL_CERTAIN store/store.go:34",
            "store/store.go#MemoryStore.Put -> store/store.go#Store.Put STRUCTURAL_CERTAIN store/store.go:38",
        ]
    );
    assert_eq!(
        relations(&facts, EdgeKind::Embeds),
        [
            "app/app.go#Wrapped -> store/store.go#MemoryStore STRUCTURAL_CERTAIN app/app.go:44",
            "app/hide.go#Logged -> store/store.go#MemoryStore STRUCTURAL_CERTAIN app/hide.go:6",
            "store/hide.go#Pair -> store/hide.go#Mirror STRUCTURAL_CERTAIN store/hide.go:22",
            "store/hide.go#Pair -> store/store.go#MemoryStore STRUCTURAL_CERTAIN store/hide.go:21",
            "store/hide.go#ReadOnly -> store/store.go#MemoryStore STRUCTURAL_CERTAIN store/hide.go:6",
            "store/notify.go#Both -> store/notify.go#Left STRUCTURAL_CERTAIN store/notify.go:28",
            "store/notify.go#Both -> store/notify.go#Right STRUCTURAL_CERTAIN store/notify.go:29",
            "store/store.go#Audit -> store/store.go#MemoryStore STRUCTURAL_CERTAIN store/store.go:47",
            "store/store.go#Closer -> store/store.go#Store STRUCTURAL_CERTAIN store/store.go:13",
        ]
    );
    // Rule G15: a method hides the one its embedded types would promote under its name,
    // whatever its signature, across packages too; both, where two offer it at one depth.
    // Audit declares none of MemoryStore's names: nothing hidden.
    assert_eq!(
        relations(&facts, EdgeKind::Overrides),
        [
            "app/hide.go#Logged.Put -> store/store.go#MemoryStore.Put STRUCTURAL_CERTAIN app/hide.go:8",
            "store/hide.go#Pair.Close -> store/hide.go#Mirror.Close STRUCTURAL_CERTAIN store/hide.go:25",
            "store/hide.go#Pair.Close -> store/store.go#MemoryStore.Close STRUCTURAL_CERTAIN store/hide.go:25",
            "store/hide.go#ReadOnly.Put -> store/store.go#MemoryStore.Put STRUCTURAL_CERTAIN store/hide.go:10",
        ]
    );
    // An anonymous struct inside a function embeds for nobody: the function uses the type.
    assert!(
        type_uses(&facts).contains(
            &"app/app.go#anonymous -> store/store.go#Entry STRUCTURAL_CERTAIN app/app.go:36"
                .to_string()
        )
    );
    // Calls through an interface bind to the interface's method (G11), never to a type
    // that happens to declare the name.
    assert_eq!(
        calls(&facts),
        [
            "app/app.go#Alert -> store/notify.go#Notifier.Notify STRUCTURAL_CERTAIN app/app.go:23",
            "app/app.go#Count -> store/notify.go#Counter.Notify STRUCTURAL_CERTAIN app/app.go:27",
            "app/app.go#Load -> store/store.go#Store.Get STRUCTURAL_CERTAIN app/app.go:15",
            "app/app.go#Save -> store/store.go#Store.Put STRUCTURAL_CERTAIN app/app.go:19",
            // Rule G14: promoted from the embedded *MemoryStore, through a parameter of
            // another package's type and through a receiver.
            "app/app.go#inspect -> store/store.go#MemoryStore.Get STRUCTURAL_CERTAIN app/app.go:40",
            "store/store.go#Audit.Flush -> store/store.go#MemoryStore.Put STRUCTURAL_CERTAIN store/store.go:57",
        ]
    );
    // Two embedded types at one depth declare Reset: ambiguous, a declared hole.
    assert_eq!(
        unresolved_rows(&facts),
        ["NAME_NOT_RESOLVED Both.Reset - store/notify.go:41"]
    );
}

#[test]
fn class_heritage_binds_like_a_type_name_and_methods_override_their_bases() {
    let facts = index(&["tsmodules"], LanguageToken::Typescript);
    facts.validate().unwrap();
    assert_eq!(
        relations(&facts, EdgeKind::Extends),
        [
            "src/app.ts#Cached -> src/app.ts#Base STRUCTURAL_CERTAIN src/app.ts:24",
            "src/app.ts#Named -> src/app.ts#Local STRUCTURAL_CERTAIN src/app.ts:25",
            "src/app.ts#Runner -> src/app.ts#Base STRUCTURAL_CERTAIN src/app.ts:28",
            // The class and the namespace merged under `Entry`: the import binds both.
            "src/app.ts#Stored -> src/cache.ts#Entry CANDIDATE src/app.ts:26",
            "src/app.ts#Stored -> src/cache.ts#Entry CANDIDATE src/app.ts:26",
        ]
    );
    assert_eq!(
        relations(&facts, EdgeKind::Implements),
        ["src/app.ts#Cached -> src/app.ts#Local STRUCTURAL_CERTAIN src/app.ts:24"]
    );
    assert_eq!(
        relations(&facts, EdgeKind::Overrides),
        ["src/app.ts#Cached.run -> src/app.ts#Base.run STRUCTURAL_CERTAIN src/app.ts:24"]
    );
    // Rule T9: `this.m()` in a member calls the class's member, else its base's; an arrow
    // function keeps `this`, a `function` expression binds its own (no edge).
    let this_calls: Vec<String> = calls(&facts)
        .into_iter()
        .filter(|c| c.starts_with("src/app.ts#Runner"))
        .collect();
    assert_eq!(
        this_calls,
        [
            "src/app.ts#Runner.start -> src/app.ts#Base.run STRUCTURAL_CERTAIN src/app.ts:29",
            "src/app.ts#Runner.start -> src/app.ts#Runner.start STRUCTURAL_CERTAIN src/app.ts:29",
            "src/app.ts#Runner.start -> src/app.ts#Runner.stop STRUCTURAL_CERTAIN src/app.ts:29",
        ]
    );
    // Python: a module-level class can be rebound, so heritage is a candidate.
    let facts = index(&["pymodules"], LanguageToken::Python);
    facts.validate().unwrap();
    assert_eq!(
        relations(&facts, EdgeKind::Extends),
        [
            "shop/views.py#Greeter -> shop/views.py#Base CANDIDATE shop/views.py:51",
            "shop/views.py#Guest -> shop/models/user.py#User CANDIDATE shop/views.py:43",
            "shop/views.py#Member -> shop/views.py#Base CANDIDATE shop/views.py:38",
        ]
    );
    assert_eq!(
        relations(&facts, EdgeKind::Overrides),
        ["shop/views.py#Member.render -> shop/views.py#Base.render CANDIDATE shop/views.py:39"]
    );
    // Rule P8: `self.m()` in a method calls the class's member, else its base's — as a
    // candidate; a `@staticmethod`'s first parameter is no receiver.
    let self_calls: Vec<String> = calls(&facts)
        .into_iter()
        .filter(|c| c.starts_with("shop/views.py#Greeter"))
        .collect();
    assert_eq!(
        self_calls,
        [
            "shop/views.py#Greeter.greet -> shop/views.py#Base.render CANDIDATE shop/views.py:53",
            "shop/views.py#Greeter.greet -> shop/views.py#Greeter.name CANDIDATE shop/views.py:53",
        ]
    );
}

/// Rules T5 and T8: workspace packages by name through their manifests' `exports` and
/// `types`, sources through the root `tsconfig.json`'s `paths`.
#[test]
fn workspace_packages_resolve_through_their_manifests_and_tsconfig_paths() {
    let facts = index(&["tsworkspace"], LanguageToken::Typescript);
    facts.validate().unwrap();
    assert_eq!(
        imports(&facts),
        [
            // `types` of a manifest without `exports`.
            "packages/app/src/main.ts -> packages/legacy/types/entry.d.ts#legacy CANDIDATE 5",
            // The `./format` subpath of the `exports` map, and `@shared/*` of `paths`.
            "packages/app/src/main.ts -> packages/shared/src/format.ts#format CANDIDATE 2",
            "packages/app/src/main.ts -> packages/shared/src/format.ts#format CANDIDATE 4",
            // `.` under the `types` condition, before `default`'s unbuilt `dist`.
            "packages/app/src/main.ts -> packages/shared/src/index.ts#greet CANDIDATE 1",
        ]
    );
    assert_eq!(calls(&facts).len(), 4);
    // `./internal/*` is excluded by the map: `secret` stays unbound, and the provider is
    // found, so nothing is charged.
    assert!(unresolved_rows(&facts).is_empty());
}

/// Rule R4: a path whose first segment is a `Cargo.toml` dependency walks the registered
/// crate that provides it, as candidates; a dependency nobody registered is declared.
#[test]
fn rust_paths_reach_dependencies_through_cargo_names() {
    let facts = index(&["rsmods", "rsconsumer"], LanguageToken::Rust);
    facts.validate().unwrap();
    let consumer = |rows: Vec<String>| -> Vec<String> {
        rows.into_iter()
            .filter(|r| r.starts_with("src/lib.rs#consume"))
            .collect()
    };
    for expected in [
        "src/lib.rs -> src/lib.rs#Config CANDIDATE 2",
        "src/lib.rs -> src/store/mod.rs#store::Handle CANDIDATE 1",
        "src/lib.rs -> src/store/mod.rs#store::open CANDIDATE 1",
    ] {
        assert!(
            imports(&facts).contains(&expected.to_string()),
            "{expected}"
        );
    }
    assert_eq!(
        consumer(calls(&facts)),
        [
            "src/lib.rs#consume -> src/lib.rs#Config::new CANDIDATE src/lib.rs:11",
            "src/lib.rs#consume -> src/store/mod.rs#store::close CANDIDATE src/lib.rs:9",
            "src/lib.rs#consume -> src/store/mod.rs#store::open CANDIDATE src/lib.rs:8",
            "src/lib.rs#consume -> src/store/mod.rs#store::open CANDIDATE src/lib.rs:9",
        ]
    );
    assert_eq!(
        consumer(type_uses(&facts)),
        [
            "src/lib.rs#consume -> src/lib.rs#Config CANDIDATE src/lib.rs:7",
            "src/lib.rs#consume -> src/store/mod.rs#store::Handle CANDIDATE src/lib.rs:8",
        ]
    );
    // `serde` is a dependency no registered crate provides; `std` is known, and so is
    // `core` even where the manifest renames a package to it (`rustc-std-workspace-core`).
    // `Generated` is declared by a macro: its impl's methods belong to no declaration.
    assert_eq!(
        unresolved_rows(&facts),
        [
            "CRATE_PROVIDER_NOT_FOUND - serde src/lib.rs:3",
            "DEFINITION_NOT_INDEXED Generated rsconsumer src/lib.rs:37"
        ]
    );
    // Rule D1: each resolved `use` leaf of the dependency is an observed package dependency.
    assert_eq!(
        package_dependencies(&facts),
        [
            "rsconsumer -> rsmods CANDIDATE src/lib.rs:1",
            "rsconsumer -> rsmods CANDIDATE src/lib.rs:1",
            "rsconsumer -> rsmods CANDIDATE src/lib.rs:2",
        ]
    );
}

/// Rule R5: `impl Trait for Type` implements the trait, method by method; across crates as
/// candidates (R4); a standard-library trait (`Display`) gives nothing.
#[test]
fn rust_trait_impls_implement() {
    let facts = index(&["rsmods", "rsconsumer"], LanguageToken::Rust);
    facts.validate().unwrap();
    assert_eq!(
        relations(&facts, EdgeKind::Implements),
        [
            "src/lib.rs#Config -> src/lib.rs#Describe STRUCTURAL_CERTAIN src/lib.rs:55",
            "src/lib.rs#Config::describe -> src/lib.rs#Describe::describe STRUCTURAL_CERTAIN src/lib.rs:56",
            "src/lib.rs#Local -> src/lib.rs#Describe CANDIDATE src/lib.rs:16",
            "src/lib.rs#Local::describe -> src/lib.rs#Describe::describe CANDIDATE src/lib.rs:17",
        ]
    );
    // Rule R7: supertraits are extended, as certain as the path to them.
    assert_eq!(
        relations(&facts, EdgeKind::Extends),
        [
            "src/lib.rs#Summary -> src/lib.rs#Describe CANDIDATE src/lib.rs:25",
            "src/lib.rs#Summary -> src/lib.rs#Labelled STRUCTURAL_CERTAIN src/lib.rs:25",
        ]
    );
    // Rule R6: `self.m()` in an impl: the inherent method is certain; a trait's method of
    // the type only a candidate.
    let self_calls: Vec<String> = calls(&facts)
        .into_iter()
        .filter(|c| c.starts_with("src/lib.rs#Config::deeper"))
        .collect();
    assert_eq!(
        self_calls,
        [
            "src/lib.rs#Config::deeper -> src/lib.rs#Config::depth_plus STRUCTURAL_CERTAIN src/lib.rs:70",
            "src/lib.rs#Config::deeper -> src/lib.rs#Config::describe CANDIDATE src/lib.rs:69",
        ]
    );
}
