use kivgraph_facts::{Language, SymbolKind};

use crate::{SyntaxFacts, extract};

/// `qualified_name kind exported parent-qualified-name lines` per declaration.
fn outline(facts: &SyntaxFacts) -> Vec<String> {
    facts
        .declarations
        .iter()
        .map(|d| {
            let parent = d
                .parent
                .map(|p| facts.declarations[p as usize].qualified_name.as_str())
                .unwrap_or("-");
            let receiver = d
                .receiver
                .as_deref()
                .map(|r| format!(" recv={r}"))
                .unwrap_or_default();
            format!(
                "{} {} {} {} {}-{}{}",
                d.qualified_name,
                d.kind,
                d.exported,
                parent,
                d.span.start_line,
                d.span.end_line,
                receiver
            )
        })
        .collect()
}

#[test]
fn go_declarations() {
    let src = "package acme\n\n// Server serves. More text.\ntype Server struct {\n\tAddr string\n\tio.Reader\n}\n\n// Start starts it.\nfunc (s *Server) Start(port int) error {\n\treturn nil\n}\n\nfunc (c Client) Do() {}\n\ntype Store interface {\n\tGet(key string) string\n}\n\ntype ID = string\n\nconst (\n\tA = 1\n\tb = 2\n)\n\nvar X, Y int\n\nfunc helper() {}\n";
    let facts = extract(Language::Go, "a.go", src);
    assert_eq!(facts.package_clause.as_deref(), Some("acme"));
    assert_eq!(
        outline(&facts),
        vec![
            "Server type true - 4-7",
            "Server.Addr field true Server 5-5",
            "Server.Reader field true Server 6-6",
            "Server.Start method true Server 10-12",
            "Client.Do method true - 14-14 recv=Client",
            "Store type true - 16-18",
            "Store.Get method true Store 17-17",
            "ID alias true - 20-20",
            "A const true - 23-23",
            "b const false - 24-24",
            "X var true - 27-27",
            "Y var true - 27-27",
            "helper func false - 29-29",
        ]
    );
    let server = &facts.declarations[0];
    assert_eq!(server.doc.as_deref(), Some("Server serves."));
    assert_eq!(server.signature, "type Server struct");
    assert_eq!(
        facts.declarations[3].signature,
        "func (s *Server) Start(port int) error"
    );
    assert_eq!(
        facts.declarations[3].doc.as_deref(),
        Some("Start starts it.")
    );
    assert!(facts.issues.is_empty());
}

#[test]
fn typescript_declarations() {
    let src = "/** Parses configs. Really. */\nexport class Parser {\n  private cache = 1;\n  /** Parse one. */\n  parseConfig(input: Config): AST { return x; }\n}\ninterface Config { name: string; load(): void }\nexport type AST = {};\nexport enum Color { Red, Green = 2 }\nexport function overload(a: string): void;\nexport function overload(a: number): void;\nexport function overload(a: any) {}\nconst arrow = (x: number) => x * 2;\nnamespace NS { export function inner() {} }\nexport { arrow };\nexport default function () {}\n";
    let facts = extract(Language::TypeScript, "p.ts", src);
    assert_eq!(
        outline(&facts),
        vec![
            "Parser class true - 2-6",
            "Parser.cache property false Parser 3-3",
            "Parser.parseConfig method true Parser 5-5",
            "Config interface false - 7-7",
            "Config.name property false Config 7-7",
            "Config.load method false Config 7-7",
            "AST type true - 8-8",
            "Color enum true - 9-9",
            "Color.Red enum_member true Color 9-9",
            "Color.Green enum_member true Color 9-9",
            "overload function true - 10-10",
            "overload function true - 11-11",
            "overload function true - 12-12",
            "arrow function true - 13-13",
            "NS namespace false - 14-14",
            "NS.inner function true NS 14-14",
            "default function true - 16-16",
        ]
    );
    assert_eq!(
        facts.declarations[0].doc.as_deref(),
        Some("Parses configs.")
    );
    assert_eq!(
        facts.declarations[2].discriminator.as_deref(),
        Some("(input: Config): AST")
    );
    assert_eq!(facts.declarations[2].doc.as_deref(), Some("Parse one."));
    assert_eq!(
        facts.declarations[10].discriminator.as_deref(),
        Some("(a: string): void")
    );
    assert_eq!(
        facts.declarations[13].signature,
        "const arrow = (x: number)"
    );
}

#[test]
fn javascript_and_jsx() {
    let src = "export class View { render() { return <div/>; } }\nfunction helper() {}\nmodule.exports = helper;\nclass Kept { #secret() {} shown() {} }\nmodule.exports = { Kept };\n";
    let facts = extract(Language::JavaScript, "v.jsx", src);
    assert_eq!(
        outline(&facts),
        vec![
            "View class true - 1-1",
            "View.render method true View 1-1",
            "helper function true - 2-2",
            "Kept class true - 4-4",
            "Kept.#secret method false Kept 4-4",
            "Kept.shown method true Kept 4-4",
        ]
    );
    assert!(facts.issues.is_empty(), "{:?}", facts.issues);
}

/// What a module binds under a condition it binds at module level (certifi's `where`, one
/// definition per Python version): the first definition declares the name; `try`, `with`
/// and a class's conditional methods likewise.
#[test]
fn python_names_bound_under_a_condition() {
    let src = "import sys\n\nif sys.version_info >= (3, 11):\n    def where() -> str:\n        return 'a'\nelif sys.platform == 'x':\n    def where() -> str:\n        return 'b'\nelse:\n    LIMIT = 1\n    def where() -> str:\n        return 'c'\n\ntry:\n    from fast import parse\nexcept ImportError:\n    def parse(text):\n        return text\n\nclass Box:\n    if sys.version_info >= (3, 12):\n        def open(self):\n            pass\n";
    let facts = extract(Language::Python, "core.py", src);
    assert_eq!(
        outline(&facts),
        vec![
            "where function true - 4-5",
            "LIMIT variable true - 10-10",
            "parse function true - 17-18",
            "Box class true - 20-23",
            "Box.open method true Box 22-23",
        ]
    );
}

#[test]
fn python_declarations() {
    let src = "\"\"\"Module doc.\"\"\"\nLIMIT: int = 10\n\nclass Loader(Base):\n    \"\"\"Loads things. Fast.\"\"\"\n    kind = 'x'\n\n    @staticmethod\n    def load(path):\n        return path\n\n    def _private(self):\n        pass\n\nasync def fetch(url: str) -> bytes:\n    pass\n";
    let facts = extract(Language::Python, "m.py", src);
    assert_eq!(
        outline(&facts),
        vec![
            "LIMIT variable true - 2-2",
            "Loader class true - 4-13",
            "Loader.kind variable true Loader 6-6",
            "Loader.load method true Loader 8-10",
            "Loader._private method false Loader 12-13",
            "fetch function true - 15-16",
        ]
    );
    assert_eq!(facts.declarations[1].doc.as_deref(), Some("Loads things."));
    assert_eq!(facts.declarations[1].signature, "class Loader(Base)");
    assert_eq!(
        facts.declarations[5].signature,
        "async def fetch(url: str) -> bytes"
    );
}

#[test]
fn rust_declarations() {
    let src = "/// A parser. Second.\n#[derive(Debug)]\npub struct Parser {\n    pub input: String,\n    pos: usize,\n}\n\nimpl Parser {\n    pub fn new() -> Self { todo!() }\n    pub fn next(&mut self) {}\n}\n\nimpl std::fmt::Display for Parser {\n    fn fmt(&self, f: &mut Formatter) -> Result { Ok(()) }\n}\n\nimpl Remote { fn go(&self) {} }\n\npub enum Token { Word(String), End }\n\npub trait Lex { type Item; fn lex(&self) -> Self::Item; }\n\npub(crate) const MAX: usize = 3;\n\nmod inner { pub fn f() {} }\n\n#[macro_export]\nmacro_rules! m { () => {} }\n";
    let facts = extract(Language::Rust, "lib.rs", src);
    assert_eq!(
        outline(&facts),
        vec![
            "Parser struct true - 3-6",
            "Parser::input field true Parser 4-4",
            "Parser::pos field false Parser 5-5",
            "Parser::new static_method true Parser 9-9",
            "Parser::next method true Parser 10-10",
            "Parser::fmt method true Parser 14-14",
            "Remote::go method false - 17-17 recv=Remote",
            "Token enum true - 19-19",
            "Token::Word enum_member true Token 19-19",
            "Token::End enum_member true Token 19-19",
            "Lex trait true - 21-21",
            "Lex::Item associated_type true Lex 21-21",
            "Lex::lex trait_method true Lex 21-21",
            "MAX constant false - 23-23",
            "inner module false - 25-25",
            "inner::f function true - 25-25",
            "m macro true - 28-28",
        ]
    );
    assert_eq!(facts.declarations[0].doc.as_deref(), Some("A parser."));
    assert_eq!(
        facts.declarations[5].discriminator.as_deref(),
        Some("Display")
    );
    assert_eq!(facts.declarations[3].signature, "pub fn new() -> Self");
}

/// Items a macro invocation spells out are declared where they are written; an input that
/// does not parse as items (a macro's own grammar) declares nothing.
#[test]
fn rust_items_inside_item_level_macro_invocations() {
    let src = "ast_struct! {\n    /// Data of a derive input.\n    pub struct DeriveInput {\n        pub ident: Ident,\n    }\n}\n\n__quote![\n    #[macro_export]\n    macro_rules! quote { () => {} }\n];\n\nbitflags! {\n    pub struct Flags: u32 { const A = 1; }\n}\n\nthread_local! { static CÅCHE: u8 = 0; }\n";
    let facts = extract(Language::Rust, "lib.rs", src);
    assert_eq!(
        outline(&facts),
        vec![
            "DeriveInput struct true - 3-5",
            "DeriveInput::ident field true DeriveInput 4-4",
            "quote macro true - 10-10",
            "CÅCHE static false - 17-17",
        ]
    );
    assert_eq!(
        facts.declarations[0].doc.as_deref(),
        Some("Data of a derive input.")
    );
}

#[test]
fn broken_files_are_extracted_as_far_as_recovered() {
    let src = "package x\n\nfunc Good() {}\n\nfunc Broken( {\n\nfunc Later() {}\n";
    let facts = extract(Language::Go, "b.go", src);
    assert!(!facts.issues.is_empty());
    assert!(facts.declarations.iter().any(|d| d.name == "Good"));
    let facts = extract(
        Language::Python,
        "b.py",
        "def ok():\n    pass\n\ndef broken(:\n",
    );
    assert!(!facts.issues.is_empty());
    assert_eq!(facts.declarations[0].kind, SymbolKind::Function);
}

/// TypeScript the compiler accepts and tree-sitter-typescript 0.23 loses whole files to:
/// generic call signatures separated by a line break (effect's `dual`), variance
/// annotations, `export type *`. Every declaration is found, spelled as written, and nothing
/// is reported broken; a JavaScript-like generic arrow on its own line is left alone.
#[test]
fn typescript_the_grammar_cannot_read_is_recovered_as_spelled() {
    let src = "export const dual: {\n  /** data-last */\n  <A, B>(f: (a: A) => B): (self: A) => B\n  // data-first\n  <A, B>(self: A, f: (a: A) => B): B\n} = function() {\n  return undefined as any\n}\n\nexport interface Variance<in out F, out A = never> {\n  readonly a: A\n}\n\nexport type * from \"./types\"\n\nexport const id = dual<\n  <A>(a: A) => A,\n  <A>(a: A) => A\n>(1, (a) => a)\n\nexport function later(): number {\n  return 1\n}\n";
    let facts = extract(Language::TypeScript, "src/Function.ts", src);
    assert_eq!(facts.issues, vec![]);
    assert_eq!(
        outline(&facts),
        [
            "dual function true - 1-8",
            "Variance interface true - 10-12",
            "Variance.a property true Variance 11-11",
            "id variable true - 16-19",
            "later function true - 21-23",
        ]
    );
    assert_eq!(
        facts.declarations[1].signature,
        "interface Variance<in out F, out A = never>"
    );
}

/// `KIND name [via qualifier] [as alias] @line in enclosing-qualified-name` per site.
fn sites(language: Language, path: &str, src: &str) -> Vec<String> {
    let (facts, sites) = crate::extract_with_references(language, path, src);
    sites
        .iter()
        .map(|s| {
            let mut line = format!("{} {}", s.kind, s.name);
            if let Some(q) = &s.qualifier {
                line.push_str(&format!(" via {q}"));
            }
            if let Some(a) = &s.alias {
                line.push_str(&format!(" as {a}"));
            }
            let enclosing = s
                .enclosing
                .map(|e| facts.declarations[e as usize].qualified_name.as_str())
                .unwrap_or("-");
            line.push_str(&format!(" @{} in {enclosing}", s.span.start_line));
            line
        })
        .collect()
}

#[test]
fn go_reference_sites() {
    let src = "package api\n\nimport (\n\t\"fmt\"\n\tcache \"example.com/store/cache\"\n)\n\ntype Server struct {\n\tstore cache.Store\n}\n\nfunc (s *Server) Start() error {\n\ts.store.Open()\n\tfmt.Println(helper(1))\n\treturn nil\n}\n\nfunc helper(n int) Server { return Server{} }\n";
    assert_eq!(
        sites(Language::Go, "api.go", src),
        vec![
            "IMPORTS_SYMBOL * via fmt @4 in -",
            "IMPORTS_SYMBOL * via example.com/store/cache as cache @5 in -",
            "TYPE_USES Store via cache @9 in Server.store",
            "TYPE_USES Server @12 in Server.Start",
            "TYPE_USES error @12 in Server.Start",
            "CALLS_DIRECT Open via s.store @13 in Server.Start",
            "CALLS_DIRECT Println via fmt @14 in Server.Start",
            "CALLS_DIRECT helper @14 in Server.Start",
            "TYPE_USES int @18 in helper",
            "TYPE_USES Server @18 in helper",
            "TYPE_USES Server @18 in helper",
        ]
    );
}

#[test]
fn typescript_reference_sites() {
    let src = "import Cache, { load as fetchAll, Entry } from \"./cache\";\nimport * as path from \"node:path\";\nimport \"./polyfill\";\nexport { Entry as Row } from \"./cache\";\nexport * from \"./all\";\n\nexport class Store extends Base implements Reader<Entry> {\n  read(key: string): Entry {\n    this.cache.get(key);\n    return new Cache().get(path.join(key));\n  }\n}\n\nconst boot = () => fetchAll();\nexport { boot as start, Store };\n";
    assert_eq!(
        sites(Language::TypeScript, "store.ts", src),
        vec![
            "IMPORTS_SYMBOL default via ./cache as Cache @1 in -",
            "IMPORTS_SYMBOL load via ./cache as fetchAll @1 in -",
            "IMPORTS_SYMBOL Entry via ./cache @1 in -",
            "IMPORTS_SYMBOL * via node:path as path @2 in -",
            "IMPORTS_SYMBOL * via ./polyfill @3 in -",
            "REEXPORTS Entry via ./cache as Row @4 in -",
            "REEXPORTS * via ./all @5 in -",
            "EXTENDS Base @7 in Store",
            "IMPLEMENTS Reader @7 in Store",
            "TYPE_USES Entry @7 in Store",
            "TYPE_USES Entry @8 in Store.read",
            "CALLS_DIRECT get via this.cache @9 in Store.read",
            "PASSES_AS_CALLBACK key @9 in Store.read",
            "CALLS_DIRECT get via new Cache() @10 in Store.read",
            "CALLS_DIRECT Cache @10 in Store.read",
            "CALLS_DIRECT join via path @10 in Store.read",
            "PASSES_AS_CALLBACK key @10 in Store.read",
            "CALLS_DIRECT fetchAll @14 in boot",
            "EXPORTS boot as start @15 in -",
            "EXPORTS Store @15 in -",
        ]
    );
}

#[test]
fn rust_reference_sites() {
    let src = "use crate::store::{self, Cache as Memo, disk::*};\nuse std::sync::Arc;\n\npub struct Pool {\n    inner: Arc<Memo>,\n}\n\nimpl Drop for Pool {\n    fn drop(&mut self) {\n        self.inner.flush();\n        store::close::<u8>(Vec::new());\n    }\n}\n\nimpl Pool {\n    fn open() -> Self { helper(); Pool { inner: Arc::new(Memo::default()) } }\n}\n";
    assert_eq!(
        sites(Language::Rust, "src/pool.rs", src),
        vec![
            "IMPORTS_SYMBOL self via crate::store @1 in -",
            "IMPORTS_SYMBOL Cache via crate::store as Memo @1 in -",
            "IMPORTS_SYMBOL * via crate::store::disk @1 in -",
            "IMPORTS_SYMBOL Arc via std::sync @2 in -",
            "TYPE_USES Arc @5 in Pool::inner",
            "TYPE_USES Memo @5 in Pool::inner",
            "IMPLEMENTS Drop @8 in -",
            "CALLS_DIRECT flush via self.inner @10 in Pool::drop",
            "CALLS_DIRECT close via store @11 in Pool::drop",
            "CALLS_DIRECT new via Vec @11 in Pool::drop",
            "CALLS_DIRECT helper @16 in Pool::open",
            // A struct expression names its type.
            "TYPE_USES Pool @16 in Pool::open",
            "CALLS_DIRECT new via Arc @16 in Pool::open",
            "CALLS_DIRECT default via Memo @16 in Pool::open",
        ]
    );
}

#[test]
fn python_reference_sites() {
    let src = "import os.path as osp, json\nfrom ..models import User as Account, load\nfrom .util import *\n\nclass Repo(Base, abc.ABC):\n    def get(self, key: str) -> Optional[Account]:\n        self.cache.clear()\n        return load(osp.join(key))\n\nrun()\n";
    assert_eq!(
        sites(Language::Python, "pkg/repo.py", src),
        vec![
            "IMPORTS_SYMBOL * via os.path as osp @1 in -",
            "IMPORTS_SYMBOL * via json as json @1 in -",
            "IMPORTS_SYMBOL User via ..models as Account @2 in -",
            "IMPORTS_SYMBOL load via ..models @2 in -",
            "IMPORTS_SYMBOL * via .util @3 in -",
            "EXTENDS Base @5 in Repo",
            "EXTENDS ABC via abc @5 in Repo",
            "TYPE_USES str @6 in Repo.get",
            "TYPE_USES Optional @6 in Repo.get",
            "TYPE_USES Account @6 in Repo.get",
            "CALLS_DIRECT clear via self.cache @7 in Repo.get",
            "CALLS_DIRECT load @8 in Repo.get",
            "CALLS_DIRECT join via osp @8 in Repo.get",
            // A name passed as an argument is a value use.
            "PASSES_AS_CALLBACK key @8 in Repo.get",
            "CALLS_DIRECT run @10 in -",
        ]
    );
}

#[test]
fn go_sites_know_which_bare_names_a_declaration_binds_locally() {
    let src = "package p\n\nvar build = func(parse func()) { parse(); setup() }\n\nfunc run(log func(string)) {\n\tlog(\"x\")\n\tsetup()\n\tif ok := check(); ok {\n\t\tvar check = 1\n\t\t_ = check\n\t}\n\tfor _, step := range steps() {\n\t\tstep()\n\t}\n\tfmt.Println()\n}\n";
    let (_, sites) = crate::extract_with_references(Language::Go, "p.go", src);
    let bound: Vec<String> = sites
        .iter()
        .filter(|s| s.kind == kivgraph_facts::EdgeKind::CallsDirect)
        .map(|s| format!("{} {:?}", s.name, s.locally_bound))
        .collect();
    assert_eq!(
        bound,
        vec![
            "parse Some(true)",
            "setup Some(false)",
            "log Some(true)",
            "setup Some(false)",
            // Bound in a nested block only, still counted: certainty is never over-claimed.
            "check Some(true)",
            "steps Some(false)",
            "step Some(true)",
            "Println Some(false)",
        ]
    );
}

#[test]
fn go_sites_through_the_receiver_are_marked_unless_rebound() {
    let src = "package p\n\nfunc (s *Server) Start() {\n\ts.listen()\n\tother.listen()\n}\n\nfunc (s *Server) Stop() {\n\ts.close()\n\tif s := next(); s != nil {\n\t\ts.close()\n\t}\n}\n";
    let (_, sites) = crate::extract_with_references(Language::Go, "p.go", src);
    let marked: Vec<String> = sites
        .iter()
        .filter(|s| s.kind == kivgraph_facts::EdgeKind::CallsDirect)
        .map(|s| format!("{}@{} {}", s.name, s.span.start_line, s.through_receiver))
        .collect();
    assert_eq!(
        marked,
        vec![
            "listen@4 true",
            "listen@5 false",
            // `Stop` rebinds `s` in a nested block: no call through it is proven.
            "close@9 false",
            "next@10 false",
            "close@11 false",
        ]
    );
}

#[test]
fn typescript_sites_know_which_bare_names_a_declaration_binds_locally() {
    let src = "import { load } from './load';\nconst run = (parse) => { parse(); load(); };\nfunction main(opts = {}) {\n  const { save, log: write } = opts;\n  save(); write(); load();\n  try { go(); } catch (fail) { fail(); }\n  for (const step of steps()) { step(); }\n  function helper() {}\n  helper();\n}\nmain();\n";
    let (_, sites) = crate::extract_with_references(Language::TypeScript, "m.ts", src);
    let bound: Vec<String> = sites
        .iter()
        .filter(|s| s.kind == kivgraph_facts::EdgeKind::CallsDirect)
        .map(|s| format!("{} {:?}", s.name, s.locally_bound))
        .collect();
    assert_eq!(
        bound,
        vec![
            "parse Some(true)",
            "load Some(false)",
            "save Some(true)",
            "write Some(true)",
            "load Some(false)",
            "go Some(false)",
            "fail Some(true)",
            "steps Some(false)",
            "step Some(true)",
            "helper Some(true)",
            // The module's own top-level function is not a local binding.
            "main Some(false)",
        ]
    );
}

#[test]
fn python_sites_know_which_bare_names_a_function_binds_locally() {
    let src = "from .db import connect\n\ndef handler(request, parse=None):\n    parse()\n    connect()\n    for row in rows():\n        row()\n    with open_it() as fh:\n        fh()\n    def inner():\n        pass\n    inner()\n    cb = lambda x: x()\n\nsetup = configure()\nsetup()\n";
    let (_, sites) = crate::extract_with_references(Language::Python, "m.py", src);
    let bound: Vec<String> = sites
        .iter()
        .filter(|s| s.kind == kivgraph_facts::EdgeKind::CallsDirect)
        .map(|s| format!("{} {:?}", s.name, s.locally_bound))
        .collect();
    assert_eq!(
        bound,
        vec![
            "parse Some(true)",
            "connect Some(false)",
            "rows Some(false)",
            "row Some(true)",
            "open_it Some(false)",
            "fh Some(true)",
            "inner Some(true)",
            "x Some(true)",
            "configure Some(false)",
            // A module-level assignment binds the module's name, not a local one.
            "setup Some(false)",
        ]
    );
}

#[test]
fn rust_supertraits_are_extended() {
    let src = "pub trait Summary: Labelled + other::Describe + Clone + Iterator<Item = u8> + 'static {\n    fn f(&self) -> Labelled;\n}\n";
    assert_eq!(
        sites(Language::Rust, "src/lib.rs", src),
        vec![
            "EXTENDS Labelled @1 in Summary",
            "EXTENDS Describe via other @1 in Summary",
            "EXTENDS Clone @1 in Summary",
            "EXTENDS Iterator @1 in Summary",
            "TYPE_USES Labelled @2 in Summary::f",
        ]
    );
}

#[test]
fn rust_sites_know_which_names_a_function_binds_locally() {
    let src = "use crate::store::open;\nfn run<T: Default>(cb: impl Fn()) {\n    let f = |x: u32| x;\n    f(1);\n    cb();\n    open();\n    T::default();\n    store::open();\n    if let Some(g) = maybe() { g(); }\n    fn inner() {}\n    inner();\n}\n";
    let (_, sites) = crate::extract_with_references(Language::Rust, "lib.rs", src);
    let bound: Vec<String> = sites
        .iter()
        .filter(|s| s.kind == kivgraph_facts::EdgeKind::CallsDirect)
        .map(|s| format!("{} {:?}", s.name, s.locally_bound))
        .collect();
    assert_eq!(
        bound,
        vec![
            "f Some(true)",
            "cb Some(true)",
            "open Some(false)",
            // A generic parameter rebinds the path's first segment.
            "default Some(true)",
            "open Some(false)",
            "maybe Some(false)",
            "g Some(true)",
            "inner Some(true)",
        ]
    );
}
