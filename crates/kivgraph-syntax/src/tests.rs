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
