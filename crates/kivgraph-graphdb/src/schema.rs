//! The canonical schema, declared once: the node tables with their columns, a relationship
//! table per edge kind with the endpoints it joins. The DDL, the bulk
//! files' column order and the description agents read are all generated from here.

use kivgraph_facts::EdgeKind;

use crate::error::GraphDbError;

/// The version of the canonical schema this build writes (declared beside the counts every
/// layer exchanges, so the serving side knows it without linking the database).
pub use kivgraph_facts::GRAPH_SCHEMA_VERSION as SCHEMA_VERSION;

/// A column's type in the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Text,
    Integer,
    Boolean,
}

impl ColumnType {
    fn ddl(self) -> &'static str {
        match self {
            ColumnType::Text => "STRING",
            ColumnType::Integer => "INT64",
            ColumnType::Boolean => "BOOLEAN",
        }
    }
}

/// A column and what it holds, for the description.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub name: &'static str,
    pub kind: ColumnType,
    pub about: &'static str,
}

const fn text(name: &'static str, about: &'static str) -> Column {
    Column {
        name,
        kind: ColumnType::Text,
        about,
    }
}

const fn integer(name: &'static str, about: &'static str) -> Column {
    Column {
        name,
        kind: ColumnType::Integer,
        about,
    }
}

/// A node table; its first column is the primary key.
#[derive(Debug, Clone, Copy)]
pub struct NodeTable {
    pub node: Node,
    pub columns: &'static [Column],
}

/// The node tables an edge can join, and the two that only hang off files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    Repository,
    Package,
    File,
    Mentions,
    Symbol,
    Evidence,
    Unresolved,
    Meta,
}

impl Node {
    pub const fn name(self) -> &'static str {
        match self {
            Node::Repository => "Repository",
            Node::Package => "Package",
            Node::File => "File",
            Node::Mentions => "Mentions",
            Node::Symbol => "Symbol",
            Node::Evidence => "Evidence",
            Node::Unresolved => "Unresolved",
            Node::Meta => "Meta",
        }
    }
}

/// A span: its lines, then the bytes they cover (kept so the snapshot can be rebuilt from the
/// database alone).
const SPAN: [Column; 4] = [
    integer("start_line", "1-based first line"),
    integer("end_line", "1-based last line, inclusive"),
    integer("start_byte", "0-based first byte"),
    integer("end_byte", "byte after the last"),
];

pub const REPOSITORY: NodeTable = NodeTable {
    node: Node::Repository,
    columns: &[
        ID,
        KEY,
        text("name", "registered name"),
        text("root", "absolute path of the checkout"),
        text("languages", "comma-separated: go, typescript, rust, python"),
    ],
};

/// The primary key of a node a stable key names (`key_id`): what relationships join on.
const ID: Column = integer(
    "id",
    "the first 63 bits of its key: the primary key, what relationships join on",
);
pub(crate) const KEY: Column = text("key", "stable key (not indexed: look a node up by id)");

/// The page of the generation a row was published in (a package's rows share its page):
/// what rebuilding the snapshot, and replacing one page's rows, select by.
const PAGE: Column = integer("page", "the snapshot page holding it (0-63)");

pub const PACKAGE: NodeTable = NodeTable {
    node: Node::Package,
    columns: &[
        ID,
        KEY,
        PAGE,
        text("repository", "repository name"),
        text("language", "go, typescript, rust or python"),
        text(
            "name",
            "Go import path, npm name, crate name or dotted Python package",
        ),
        text("path", "repository-relative directory"),
    ],
};

pub const FILE: NodeTable = NodeTable {
    node: Node::File,
    columns: &[
        ID,
        KEY,
        PAGE,
        text("repository", "repository name"),
        text("path", "repository-relative, /-separated"),
        text("language", "go, typescript, rust or python"),
        integer("package_id", "its Package's id"),
        text("fingerprint", "BLAKE3 of its bytes, hex"),
        integer("line_count", "lines"),
        integer("byte_len", "bytes"),
        integer("parse_issues", "syntax errors tree-sitter recovered from"),
        text(
            "parse_issues_json",
            "those errors: [{line, column, message, hidden_names}]",
        ),
    ],
};

/// What a file spells, beside the file rather than a column of it: an edit changes it with
/// every save, and LadybugDB rewrites a changed text column's whole chunk (39 MB of these on
/// the benchmark corpus, 0.7 s a save), where it only appends a new row.
pub const MENTIONS: NodeTable = NodeTable {
    node: Node::Mentions,
    columns: &[
        integer("file_id", "its File's id"),
        PAGE,
        text(
            "mentions_json",
            "identifiers the file spells, with counts: {name: count, …}",
        ),
    ],
};

pub const SYMBOL: NodeTable = NodeTable {
    node: Node::Symbol,
    columns: &[
        ID,
        KEY,
        PAGE,
        text("repository", "repository name"),
        text("language", "go, typescript, rust or python"),
        integer("package_id", "its Package's id"),
        text("file_path", "repository-relative path of its file"),
        text("name", "the declared name"),
        text("qualified_name", "e.g. Type.method"),
        text(
            "kind",
            "func, method, type, class, interface, struct, trait, enum, field, …",
        ),
        text("signature", "as the source spells it"),
        Column {
            name: "exported",
            kind: ColumnType::Boolean,
            about: "visible outside its package",
        },
        SPAN[0],
        SPAN[1],
        SPAN[2],
        SPAN[3],
        text("doc", "first sentence of its doc comment, or null"),
        integer(
            "parent_id",
            "the containing declaration's (a Symbol's) id, or null",
        ),
        text("key_module", "the module field of its key's identity"),
        text(
            "key_discriminator",
            "the discriminator field of its key's identity",
        ),
    ],
};

pub const EVIDENCE: NodeTable = NodeTable {
    node: Node::Evidence,
    columns: &[
        integer(
            "id",
            "the first 63 bits of its key (derived from its place, not stored): what relationships' evidence holds",
        ),
        PAGE,
        text("repository", "repository name"),
        text("file_path", "where it was observed"),
        SPAN[0],
        SPAN[1],
        SPAN[2],
        SPAN[3],
    ],
};

pub const UNRESOLVED: NodeTable = NodeTable {
    node: Node::Unresolved,
    columns: &[
        integer("ordinal", "a number no other row of the table holds"),
        PAGE,
        text("repository", "repository name"),
        text("language", "go, typescript, rust or python"),
        text(
            "reason",
            "e.g. DECLARATION_NOT_RESOLVED, MODULE_PROVIDER_NOT_FOUND",
        ),
        text("file_path", "where it was spelled, or null"),
        integer("start_line", "or null"),
        integer("end_line", "or null"),
        integer("start_byte", "or null"),
        integer("end_byte", "or null"),
        text("requested_symbol", "the name asked for, or null"),
        text("requested_package", "the package asked for, or null"),
        text("detail", "what the pass observed"),
    ],
};

pub const META: NodeTable = NodeTable {
    node: Node::Meta,
    columns: &[text("name", "setting"), text("value", "its value")],
};

/// Every node table, in the order they are created and loaded.
pub const NODE_TABLES: [NodeTable; 8] = [
    REPOSITORY, PACKAGE, FILE, MENTIONS, SYMBOL, EVIDENCE, UNRESOLVED, META,
];

/// The properties every edge relationship carries, after its endpoints.
pub const EDGE_PROPERTIES: [Column; 4] = [
    PAGE,
    text("confidence", "EXACT_TYPECHECKED … CANDIDATE"),
    text("provenance", "which observation produced it"),
    integer(
        "evidence",
        "the id of the Evidence it was observed at, or null",
    ),
];

/// The id a stable key's node is stored and joined by: the first 63 bits of the key, a
/// BLAKE3 digest. `COPY` hashes each relationship's two ends into the key index, and an
/// integer is stored inline where a 52-character key was stored apart and hashed as text,
/// which made the ends most of what loading a relationship cost (docs/benchmarks.md). It
/// needs no lookup, so an update names a node of a page it keeps as readily as one it
/// writes. Two keys sharing it would be refused by the primary key; readers check each row's
/// id against its key. An evidence's key is not stored at all: it is derived from its place.
pub fn key_id(key: &kivgraph_facts::StableKey) -> i64 {
    let mut prefix = [0u8; 8];
    prefix.copy_from_slice(&key.0[..8]);
    (u64::from_le_bytes(prefix) >> 1) as i64
}

/// What one edge kind can join, source table to target table. A pass's edges outside these
/// are refused when the database is written, so the schema cannot silently drop one.
pub fn endpoints(kind: EdgeKind) -> &'static [(Node, Node)] {
    use Node::*;
    const REFERENCE: &[(Node, Node)] = &[
        (File, Symbol),
        (Symbol, Symbol),
        (File, Package),
        (Symbol, Package),
        (File, File),
        (Symbol, File),
    ];
    match kind {
        EdgeKind::ContainsPackage => &[(Repository, Package)],
        EdgeKind::ContainsFile => &[(Package, File)],
        EdgeKind::Defines => &[(File, Symbol)],
        EdgeKind::PackageDependsOn | EdgeKind::ModuleDependsOn => {
            &[(Package, Package), (Repository, Repository)]
        }
        EdgeKind::PartOf | EdgeKind::MethodOf => &[(Symbol, Symbol)],
        _ => REFERENCE,
    }
}

/// Refuses an edge of `kind` between tables the schema does not join that way.
pub(crate) fn check_joins(kind: EdgeKind, pair: (Node, Node)) -> Result<(), GraphDbError> {
    if endpoints(kind).contains(&pair) {
        return Ok(());
    }
    Err(GraphDbError::Schema(format!(
        "the schema has no {kind} from {} to {}",
        pair.0.name(),
        pair.1.name()
    )))
}

/// Every table's name: the node tables, a relationship table per edge kind.
pub fn table_names() -> impl Iterator<Item = String> {
    NODE_TABLES
        .iter()
        .map(|t| t.node.name().to_string())
        .chain(EdgeKind::ALL.iter().map(|k| k.as_str().to_string()))
}

/// The statements that create the schema in an empty database.
pub fn ddl() -> Vec<String> {
    let mut statements: Vec<String> = NODE_TABLES
        .iter()
        .map(|table| {
            let columns: Vec<String> = table
                .columns
                .iter()
                .map(|c| format!("{} {}", c.name, c.kind.ddl()))
                .collect();
            format!(
                "CREATE NODE TABLE {}({}, PRIMARY KEY({}))",
                table.node.name(),
                columns.join(", "),
                table.columns[0].name
            )
        })
        .collect();
    let properties: Vec<String> = EDGE_PROPERTIES
        .iter()
        .map(|c| format!("{} {}", c.name, c.kind.ddl()))
        .collect();
    for kind in EdgeKind::ALL {
        let pairs: Vec<String> = endpoints(*kind)
            .iter()
            .map(|(from, to)| format!("FROM {} TO {}", from.name(), to.name()))
            .collect();
        statements.push(format!(
            "CREATE REL TABLE {}({}, {})",
            kind.as_str(),
            pairs.join(", "),
            properties.join(", ")
        ));
    }
    statements
}

/// The schema as an agent reads it before writing a query: every table, column and
/// relationship, generated from the declarations above.
pub fn describe() -> String {
    let mut out = String::from("Node tables (the first column is the primary key):\n");
    for table in NODE_TABLES.iter().filter(|t| t.node != Node::Meta) {
        let columns: Vec<String> = table
            .columns
            .iter()
            .map(|c| format!("{} ({})", c.name, c.about))
            .collect();
        out.push_str(&format!(
            "- {}: {}\n",
            table.node.name(),
            columns.join(", ")
        ));
    }
    let properties: Vec<&str> = EDGE_PROPERTIES.iter().map(|c| c.name).collect();
    out.push_str(&format!(
        "Relationships, each with {} (join it: MATCH (a)-[e:CALLS_DIRECT]->(b), (v:Evidence {{id: e.evidence}})):\n",
        properties.join(", ")
    ));
    for kind in EdgeKind::ALL {
        let pairs: Vec<String> = endpoints(*kind)
            .iter()
            .map(|(from, to)| format!("{}->{}", from.name(), to.name()))
            .collect();
        out.push_str(&format!("- {}: {}\n", kind.as_str(), pairs.join(", ")));
    }
    out.push_str(
        "An Evidence names the file it was observed in by repository and file_path: MATCH (f:File {repository: v.repository, path: v.file_path}).\n",
    );
    out.push_str("A File's mentions: MATCH (m:Mentions {file_id: f.id}); a File's or Symbol's package: MATCH (p:Package {id: s.package_id}); a Symbol's container: MATCH (c:Symbol {id: s.parent_id}).\n");
    out.push_str(
        "A node named by a stable key: pass the key as a parameter, say k, and match {id: $k_id}: every parameter holding a key also binds <name>_id, its id, which is indexed ({key: $k} scans the table).\n",
    );
    out
}
