//! The query tools: names, descriptions, input schemas (generated from their argument
//! types, `crate::schema`), and dispatch into `kivgraph-query`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use kivgraph_config::{LoadedConfig, Registry};
use kivgraph_query::{
    BlastRadiusArgs, CrossRepoConsumersArgs, FileOutlineArgs, FindByIntentArgs, FindReferencesArgs,
    FindSymbolArgs, GetSourceArgs, GetSymbolArgs, GraphStatusArgs, ListRepositoriesArgs,
    LiveProcesses, ModuleReportArgs, Page, PageLimits, Published, QueryError, ReadSymbolArgs,
    Roots, TraceDependenciesArgs, View, Wait,
};
use kivgraph_store::{DaemonRecord, GenerationStore, WatcherStatus};
use rmcp::model::{Tool, ToolAnnotations};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::cypher::{OpenDatabase, QueryGraphArgs};
use crate::freshness::FreshnessArgs;
use crate::host::Host;
use crate::schema::{input_schema, unknown_field, with_properties_of};

/// How long one traversal may run before it fails with `TRAVERSAL_LIMIT_REACHED` instead of
/// answering partially. Far above what the bounds allow on a healthy graph.
const TRAVERSAL_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);

/// A tool's semantics: validated arguments in, the answer's text out.
type Runner = fn(&Context, Map<String, Value>) -> Result<String, QueryError>;

/// What a tool may consult: the published generation, if any, and the configuration that
/// names the registered repositories.
pub struct Context<'a> {
    pub published: Option<&'a Published>,
    pub config_path: &'a Path,
    /// The generation store this server follows (the configuration's, or `serve --root`).
    pub store_root: &'a Path,
    pub limits: PageLimits,
    /// The process answering: the daemon counts its sessions for `graph_status`.
    pub host: &'a Host,
    /// What the caller's `fresh_within_ms` came to, when it asked.
    pub wait: Option<Wait>,
    /// The served generation's canonical database, for `query_graph`.
    pub database: &'a OpenDatabase,
    /// Why the generation `CURRENT` names could not be mapped, when it could not.
    pub unreadable: Option<&'a str>,
}

impl Context<'_> {
    /// What the watcher of the store this server follows last said of itself, if one ever
    /// ran there: one small file read.
    fn watcher(&self) -> Option<WatcherStatus> {
        GenerationStore::new(self.store_root).watcher_status()
    }

    /// The MCP sessions open in this process, when it is the daemon. Read on the blocking
    /// thread a tool runs on, and only by the tool that reports it.
    fn daemon_clients(&self) -> Option<usize> {
        match self.host {
            Host::Stdio => None,
            Host::Daemon { sessions } => Some(sessions.sessions.blocking_read().len()),
        }
    }

    /// What the daemon of the store this server follows wrote of itself, if one ever ran
    /// there.
    fn daemon(&self) -> Option<DaemonRecord> {
        GenerationStore::new(self.store_root).daemon_record()
    }

    /// Registered repositories and their checkouts: the registry, then whatever the
    /// published graph holds that the registry no longer names.
    fn roots(&self) -> Roots {
        let mut roots: Vec<(String, PathBuf)> = LoadedConfig::load(self.config_path)
            .ok()
            .and_then(|config| Registry::load(&config.repositories_file).ok())
            .map(|registry| {
                registry
                    .repositories
                    .into_iter()
                    .map(|r| (r.name, r.path))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(published) = self.published {
            for repository in published.snapshot.repositories() {
                if !roots.iter().any(|(name, _)| name == repository.name()) {
                    roots.push((
                        repository.name().to_string(),
                        PathBuf::from(repository.root()),
                    ));
                }
            }
        }
        Roots(roots)
    }
}

/// A read-only tool of the query surface.
pub struct QueryTool {
    pub name: &'static str,
    description: &'static str,
    /// Generated text the description ends with (`query_graph`'s schema).
    appendix: Option<fn() -> String>,
    schema: fn() -> Map<String, Value>,
    run: Runner,
    /// Whether it answers from the graph, so a caller may wait for the watcher first
    /// (`fresh_within_ms`); `graph_status` reports the watcher itself, and the navigator
    /// pair reads files as they are now.
    pub waits: bool,
}

/// The arguments as `T` (their fields already checked against the tool's schema by
/// [`QueryTool::call`]), refused with serde's words when they do not fit.
fn parse<T: DeserializeOwned>(arguments: Map<String, Value>) -> Result<T, QueryError> {
    serde_json::from_value(Value::Object(arguments))
        .map_err(|e| QueryError::invalid(format!("arguments: {e}")))
}

/// Every tool's input schema, generated once per process: `tools/list` hands them out and
/// every call checks its arguments against its tool's.
fn schemas() -> &'static HashMap<&'static str, Arc<Map<String, Value>>> {
    static SCHEMAS: OnceLock<HashMap<&'static str, Arc<Map<String, Value>>>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        QUERY_TOOLS
            .iter()
            .map(|tool| {
                let mut schema = (tool.schema)();
                if tool.waits {
                    with_properties_of(&mut schema, input_schema::<FreshnessArgs>());
                }
                (tool.name, Arc::new(schema))
            })
            .collect()
    })
}

fn render(
    context: &Context,
    published: &Published,
    page: Result<(Page, View), QueryError>,
) -> Result<String, QueryError> {
    page.map(|(page, view)| page.render(Some(published), view, context.wait.as_ref()))
}

/// A paged query over the published graph: its arguments parsed, its page rendered.
fn paged<A: DeserializeOwned>(
    context: &Context,
    arguments: Map<String, Value>,
    query: impl FnOnce(&Published, &A, &PageLimits) -> Result<(Page, View), QueryError>,
) -> Result<String, QueryError> {
    let published = graph(context)?;
    render(
        context,
        published,
        query(published, &parse::<A>(arguments)?, &context.limits),
    )
}

/// The signature both walks share: a deadline after which they give up.
type Walk<A> =
    fn(&Published, &A, &PageLimits, Option<std::time::Instant>) -> Result<(Page, View), QueryError>;

/// A walk, paged, given up when it runs past the traversal deadline.
fn walked<A: DeserializeOwned>(
    context: &Context,
    arguments: Map<String, Value>,
    walk: Walk<A>,
) -> Result<String, QueryError> {
    let deadline = std::time::Instant::now() + TRAVERSAL_DEADLINE;
    paged(context, arguments, |published, args, limits| {
        walk(published, args, limits, Some(deadline))
    })
}

/// Every tool but `graph_status` needs a published generation: without one, `INDEX_NOT_READY`,
/// saying why when the generation exists but could not be read.
fn graph<'a>(context: &Context<'a>) -> Result<&'a Published, QueryError> {
    context.published.ok_or_else(|| match context.unreadable {
        Some(reason) => QueryError::snapshot_unreadable(reason),
        None => QueryError::index_not_ready(),
    })
}

pub const QUERY_TOOLS: &[QueryTool] = &[
    QueryTool {
        name: "graph_status",
        description: "The published generation: counts, edges by kind, unresolved by reason, per repository whether its checkout moved since it was indexed, and whether kivgraph watch keeps it current (its last batches with their save-to-publish latency). Call it when an answer looks stale or a tool says INDEX_NOT_READY.",
        appendix: None,
        schema: input_schema::<GraphStatusArgs>,
        waits: false,
        run: |context, arguments| {
            let (page, view) = kivgraph_query::graph_status(
                context.published,
                &parse::<GraphStatusArgs>(arguments)?,
                &LiveProcesses {
                    watcher: context.watcher().as_ref(),
                    daemon: context.daemon().as_ref(),
                    daemon_clients: context.daemon_clients(),
                    snapshot_unreadable: context.unreadable,
                },
            )?;
            Ok(page.render(context.published, view, None))
        },
    },
    QueryTool {
        name: "find_symbol",
        description: "Where a symbol is declared, by name, qualified name, prefix or substring; narrow with kind, repo and path_prefix. An empty answer proves no declaration of that name in the graph. Loses to grep on a rare name in one small repository.",
        appendix: None,
        schema: input_schema::<FindSymbolArgs>,
        waits: true,
        run: |context, arguments| paged(context, arguments, kivgraph_query::find_symbol),
    },
    QueryTool {
        name: "find_references",
        description: "Who calls or references a symbol (direction incoming), or what it reaches (outgoing): one hop. A bare name suffices; an ambiguous one is refused with its candidates. Rows carry confidence: STRUCTURAL_CERTAIN is proven by the language's rules from syntax, CANDIDATE is plausible. Read completeness: COMPLETE proves the absence of other uses, LOWER_BOUND names the uses it could not bind and a grep fallback. view files lists only the files.",
        appendix: None,
        schema: input_schema::<FindReferencesArgs>,
        waits: true,
        run: |context, arguments| paged(context, arguments, kivgraph_query::find_references),
    },
    QueryTool {
        name: "trace_dependencies",
        description: "What a symbol reaches outward, breadth-first up to depth hops (default 3, at most 5): each reached symbol once, with the edge that first reached it. A container's members walk with it. completeness says whether the walk is whole or a floor (calls it could not bind, relations not extracted).",
        appendix: None,
        schema: input_schema::<TraceDependenciesArgs>,
        waits: true,
        run: |context, arguments| walked(context, arguments, kivgraph_query::trace_dependencies),
    },
    QueryTool {
        name: "get_blast_radius",
        description: "What a change to a symbol reaches: the walk backwards over who references it, up to depth hops, with counts by depth, relation, repository and package over the whole walk. kinds picks what counts as affected (default all but field and variable). completeness says whether the impact is whole or a floor.",
        appendix: None,
        schema: input_schema::<BlastRadiusArgs>,
        waits: true,
        run: |context, arguments| walked(context, arguments, kivgraph_query::get_blast_radius),
    },
    QueryTool {
        name: "find_cross_repo_consumers",
        description: "Who outside a symbol's repository uses it (exact_symbol, candidate), depends on its package (package: a dependency, never a proven use), or asked for it and failed (unresolved). Categories are never summed. completeness checks unreadable scopes anywhere in the graph; uses inside the symbol's own repository belong to find_references.",
        appendix: None,
        schema: input_schema::<CrossRepoConsumersArgs>,
        waits: true,
        run: |context, arguments| {
            paged(
                context,
                arguments,
                kivgraph_query::find_cross_repo_consumers,
            )
        },
    },
    QueryTool {
        name: "get_symbol",
        description: "One symbol's package, signature, visibility and line range, by stable_key or by repository + path + qualified_name. Not worth a call when a row from find_symbol already holds what you need.",
        appendix: None,
        schema: input_schema::<GetSymbolArgs>,
        waits: true,
        run: |context, arguments| {
            paged(context, arguments, |published, args, _| {
                kivgraph_query::get_symbol(published, args)
            })
        },
    },
    QueryTool {
        name: "get_source",
        description: "The code of up to 20 symbols in one call, as text: no line numbers, files read once, a changed file re-anchored or refused per row. Prefer it to reading ranges across files; for one small file, read the file.",
        appendix: None,
        schema: input_schema::<GetSourceArgs>,
        waits: true,
        run: |context, arguments| {
            kivgraph_query::get_source(graph(context)?, &parse::<GetSourceArgs>(arguments)?)
        },
    },
    QueryTool {
        name: "get_file_outline",
        description: "Declarations under a repository path (file or directory), grouped by file, as name@start-end with kind; views compact, full and files. Use it for a package or directory: one small file is cheaper to read.",
        appendix: None,
        schema: input_schema::<FileOutlineArgs>,
        waits: true,
        run: |context, arguments| paged(context, arguments, kivgraph_query::get_file_outline),
    },
    QueryTool {
        name: "find_by_intent",
        description: "Which symbols a plain-language question likely names, and the files to open, when you do not know the name: ranked by rare terms of names, qualified names, kinds and paths (no prose). Rows are text candidates, never resolved edges. If you can spell the name, find_symbol or grep is cheaper.",
        appendix: None,
        schema: input_schema::<FindByIntentArgs>,
        waits: true,
        run: |context, arguments| {
            paged(context, arguments, |published, args, _| {
                kivgraph_query::find_by_intent(published, args)
            })
        },
    },
    QueryTool {
        name: "module_report",
        description: "The shape of one file without reading it: imports, exported and internal declarations with signature, range, first doc sentence, fanout and complexity, and the three most worth reading. view compact is a quarter of the tokens. Pure syntax on the file as it is now. A file of ten lines is cheaper to read.",
        appendix: None,
        schema: input_schema::<ModuleReportArgs>,
        waits: false,
        run: |context, arguments| {
            kivgraph_query::module_report(
                context.published,
                &context.roots(),
                &parse::<ModuleReportArgs>(arguments)?,
            )
        },
    },
    QueryTool {
        name: "read_symbol",
        description: "The verbatim body of one named symbol of a file (Class.method resolves by containment), starting at its attached doc comment, with a one-line header; near-miss names get did-you-mean suggestions. Pure syntax on the file as it is now. For a file that is one giant symbol, read the file.",
        appendix: None,
        schema: input_schema::<ReadSymbolArgs>,
        waits: false,
        run: |context, arguments| {
            kivgraph_query::read_symbol(&context.roots(), &parse::<ReadSymbolArgs>(arguments)?)
        },
    },
    QueryTool {
        name: "list_repositories",
        description: "The repositories the published graph covers, with the commit each was indexed at and whether its checkout has moved since.",
        appendix: None,
        schema: input_schema::<ListRepositoriesArgs>,
        waits: true,
        run: |context, arguments| paged(context, arguments, kivgraph_query::list_repositories),
    },
    QueryTool {
        name: "query_graph",
        description: crate::cypher::DESCRIPTION,
        appendix: Some(crate::cypher::schema_description),
        schema: input_schema::<QueryGraphArgs>,
        waits: true,
        run: |context, arguments| {
            let published = graph(context)?;
            let page = crate::cypher::query_graph(
                published,
                context.database,
                context.store_root,
                &parse::<QueryGraphArgs>(arguments)?,
            );
            render(
                context,
                published,
                page.map(|page| (page, crate::cypher::VIEW)),
            )
        },
    },
];

impl QueryTool {
    pub fn find(name: &str) -> Option<&'static QueryTool> {
        QUERY_TOOLS.iter().find(|t| t.name == name)
    }

    fn input_schema(&self) -> Arc<Map<String, Value>> {
        match schemas().get(self.name) {
            Some(schema) => schema.clone(),
            None => Arc::new((self.schema)()),
        }
    }

    pub fn definition(&self) -> Tool {
        let description = match self.appendix {
            Some(appendix) => format!("{}\n{}", self.description, appendix()),
            None => self.description.to_string(),
        };
        Tool::new(self.name, description, self.input_schema())
            .with_annotations(ToolAnnotations::new().read_only(true))
    }

    /// The answer text, or the refusal `CODE: message`.
    pub fn call(
        &self,
        context: &Context,
        arguments: Map<String, Value>,
    ) -> Result<String, QueryError> {
        if let Some(unknown) = unknown_field(&arguments, &self.input_schema()) {
            return Err(QueryError::invalid(format!("arguments: {unknown}")));
        }
        (self.run)(context, arguments)
    }
}
