//! The `ServerHandler`: handshake, tool listing and dispatch.

use std::path::PathBuf;
use std::sync::Arc;

use kivgraph_query::{ErrorCode, QueryError};
use kivgraph_store::{Event, EventKind, EventLog, GenerationStore, argument_shape};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    ElicitationAction, ElicitationSchema, Implementation, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};

use crate::cypher::OpenDatabase;
use crate::follow::Follower;
use crate::freshness;
use crate::host::Host;
use crate::index_project;
use crate::schema::input_schema;
use crate::tools::{Context, QUERY_TOOLS, QueryTool};

const INSTRUCTIONS: &str = "Kivgraph answers where code is declared, from a published code graph over Go, TypeScript/JavaScript, Rust and Python repositories. Before grepping or reading files to locate a declaration, call find_symbol (exact, qualified, prefix or substring); get_symbol gives one symbol's package, signature and line range; list_repositories says which repositories the graph covers and whether their checkouts moved since indexing. Declarations come from the tree-sitter syntax layer of every registered repository, so an empty find_symbol answer means no declaration of that name exists in the graph within your filters; check completeness, which says where the index could not read everything. Rows are addressable: every one carries a repository, a repository-relative path, a qualified name and a line range, and every tool accepts that triple instead of a stable key. Where it loses: a rare name in a single small repository is cheaper to grep, and one small file is cheaper to read than to outline.";

const NO_GRAPH_INSTRUCTIONS: &str = "Kivgraph has no published graph to answer from, so it exposes no query tools. Run \"kivgraph index --full\" to build one, then restart this server. Until then, use the host's own search and file tools.";

/// Where the server finds its graph and how it starts an index.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The generation store (the state directory).
    pub store_root: PathBuf,
    /// The configuration `index_project` passes to the child pass.
    pub config_path: PathBuf,
    /// The `kivgraph` executable that runs a pass.
    pub executable: PathBuf,
    /// `mcp.default_limit` and `mcp.maximum_limit`.
    pub limits: kivgraph_query::PageLimits,
    /// `logging.event_log_path`: where each tool call is recorded.
    pub event_log: PathBuf,
}

#[derive(Clone)]
pub struct KivgraphServer {
    follower: Arc<Follower>,
    host: Host,
    options: Arc<ServeOptions>,
    /// One index at a time inside this process.
    indexing: Arc<tokio::sync::Mutex<()>>,
    /// The served generation's canonical database, opened by the first `query_graph`.
    database: Arc<OpenDatabase>,
}

impl KivgraphServer {
    pub fn new(options: ServeOptions) -> Self {
        KivgraphServer {
            follower: Arc::new(Follower::new(GenerationStore::new(&options.store_root))),
            host: Host::Stdio,
            options: Arc::new(options),
            indexing: Arc::new(tokio::sync::Mutex::new(())),
            database: Arc::default(),
        }
    }

    /// The generation this server answers from, as every client of it shares it.
    pub(crate) fn follower(&self) -> Arc<Follower> {
        self.follower.clone()
    }

    /// The same server, answering in `host`.
    pub fn hosted(self, host: Host) -> Self {
        KivgraphServer { host, ..self }
    }

    fn tools(&self) -> Vec<Tool> {
        let index_project = Tool::new(
            "index_project",
            index_project::DESCRIPTION,
            Arc::new(input_schema::<index_project::IndexProjectArgs>()),
        )
        .with_annotations(ToolAnnotations::new().read_only(false));
        if !self.follower.has_generation() {
            return vec![index_project];
        }
        let mut tools: Vec<Tool> = QUERY_TOOLS.iter().map(QueryTool::definition).collect();
        tools.push(index_project);
        tools
    }

    async fn call_query(
        &self,
        tool: &'static QueryTool,
        mut arguments: Map<String, Value>,
    ) -> Result<String, QueryError> {
        let wait = match tool.waits.then(|| freshness::take(&mut arguments)) {
            Some(Err(refusal)) => return Err(refusal),
            Some(Ok(Some(bound))) => {
                Some(freshness::wait(&GenerationStore::new(&self.options.store_root), bound).await)
            }
            Some(Ok(None)) | None => None,
        };
        let follower = self.follower.clone();
        let config_path = self.options.config_path.clone();
        let store_root = self.options.store_root.clone();
        let limits = self.options.limits;
        let host = self.host.clone();
        let database = self.database.clone();
        // Mapping and validating a new generation, and walking a large snapshot, are
        // blocking work: keep them off the protocol's threads.
        tokio::task::spawn_blocking(move || {
            // A generation that cannot be mapped is not a failure of every tool: they answer
            // INDEX_NOT_READY with the reason, and graph_status reports it.
            let (published, unreadable) = match follower.current() {
                Ok(published) => (Some(published), None),
                Err(err) if err.code == ErrorCode::IndexNotReady => (None, None),
                Err(err) => (None, Some(err.message)),
            };
            tool.call(
                &Context {
                    published: published.as_deref(),
                    config_path: &config_path,
                    store_root: &store_root,
                    limits,
                    host: &host,
                    wait,
                    database: &database,
                    unreadable: unreadable.as_deref(),
                },
                arguments,
            )
        })
        .await
        .map_err(|e| {
            QueryError::new(
                ErrorCode::SnapshotUnavailable,
                format!("the query did not complete: {e}"),
            )
        })?
    }

    async fn call_index_project(
        &self,
        arguments: Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<String, QueryError> {
        let Ok(_guard) = self.indexing.try_lock() else {
            return Err(QueryError::new(
                ErrorCode::IndexingFailed,
                "an index is already running in this server; let it finish, then retry",
            ));
        };
        // Without a token nobody reads progress, so no channel is installed. With one, a
        // single forwarder sends the events in order, counting up.
        let (sender, forwarder) = match context.meta.get_progress_token() {
            Some(token) => {
                let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<String>();
                let peer = context.peer.clone();
                let forwarder = tokio::spawn(async move {
                    let mut progress = 0.0;
                    while let Some(message) = receiver.recv().await {
                        progress += 1.0;
                        let mut param = ProgressNotificationParam::new(token.clone(), progress);
                        param.message = Some(message);
                        // A notification that cannot be delivered is dropped, never a failed index.
                        let _ = peer.notify_progress(param).await;
                    }
                });
                (Some(sender), Some(forwarder))
            }
            None => (None, None),
        };
        let progress = move |message: String| {
            if let Some(sender) = &sender {
                let _ = sender.send(message);
            }
        };
        let (entries, confirmed) = index_project::parse(arguments)?;
        if !confirmed {
            approve(&context.peer, index_project::approval_prompt(&entries)).await?;
        }
        let result = index_project::register_and_index(
            entries,
            &self.options.config_path,
            &self.options.executable,
            progress,
        )
        .await;
        if let Some(forwarder) = forwarder {
            let _ = forwarder.await;
        }
        if result.is_ok() {
            let _ = context.peer.notify_tool_list_changed().await;
        }
        result
    }
}

/// Asks the user through MCP elicitation when the client can ask; a client that cannot must
/// obtain approval itself and send `confirmed: true`.
async fn approve(peer: &rmcp::Peer<RoleServer>, message: String) -> Result<(), QueryError> {
    let can_ask = peer
        .peer_info()
        .is_some_and(|info| info.capabilities.elicitation.is_some());
    if !can_ask {
        return Err(index_project::permission_required());
    }
    let request = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: ElicitationSchema::new(std::collections::BTreeMap::new()),
    };
    match peer.create_elicitation(request).await {
        Ok(result) if result.action == ElicitationAction::Accept => Ok(()),
        Ok(_) => Err(QueryError::new(
            ErrorCode::PermissionDenied,
            "project indexing was not approved",
        )),
        // An elicitation the client cannot deliver is no approval.
        Err(_) => Err(index_project::permission_required()),
    }
}

fn answer(result: Result<String, QueryError>) -> CallToolResponse {
    match result {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]).into(),
        Err(err) => CallToolResult::error(vec![ContentBlock::text(err.to_string())]).into(),
    }
}

impl ServerHandler for KivgraphServer {
    fn get_info(&self) -> ServerConfig {
        let mut config = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        );
        config.server_info = Implementation::new("kivgraph", env!("CARGO_PKG_VERSION"));
        // A pointer read: nothing slow stands before the handshake.
        let instructions = if self.follower.has_generation() {
            INSTRUCTIONS
        } else {
            NO_GRAPH_INSTRUCTIONS
        };
        config.instructions = Some(instructions.to_string());
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arguments = request.arguments.unwrap_or_default();
        let shape = argument_shape(&arguments);
        let started = std::time::Instant::now();
        let tool = QueryTool::find(&request.name);
        if tool.is_none() && request.name != "index_project" {
            return Err(McpError::invalid_params(
                format!("unknown tool {:?}", echoed(&request.name)),
                None,
            ));
        }
        let result = match (oversized_argument(&arguments), tool) {
            (Some(refusal), _) => Err(refusal),
            (None, Some(tool)) => self.call_query(tool, arguments).await,
            (None, None) => self.call_index_project(arguments, &context).await,
        };
        let (answer_bytes, error) = match &result {
            Ok(text) => {
                tracing::info!(tool = %request.name, elapsed_ms = started.elapsed().as_millis() as u64, "tool answered");
                (text.len(), None)
            }
            Err(err) => {
                tracing::info!(tool = %request.name, code = err.code.as_str(), "tool refused");
                (err.to_string().len(), Some(err.code.as_str().to_string()))
            }
        };
        let call = EventKind::ToolCall {
            tool: echoed(&request.name),
            arguments: shape,
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            answer_bytes,
            error,
        };
        EventLog::new(&self.options.event_log).record(&Event::now(self.host.role(), call));
        Ok(answer(result))
    }
}

/// The longest string a tool accepts as an argument or an argument's name, in bytes.
/// Identifiers, paths, cursors and intents are far shorter; the bound keeps an answer that
/// quotes what it was asked from growing with it.
pub const MAXIMUM_ARGUMENT_BYTES: usize = 4096;

/// How much of a name nothing answers to is quoted back.
const MAXIMUM_ECHOED_BYTES: usize = 128;

/// `INVALID_ARGUMENT` for the first argument holding a string longer than
/// [`MAXIMUM_ARGUMENT_BYTES`] (in an array or object too), named by its top-level key.
fn oversized_argument(arguments: &Map<String, Value>) -> Option<QueryError> {
    fn longest(value: &Value) -> usize {
        match value {
            Value::String(text) => text.len(),
            Value::Array(items) => items.iter().map(longest).max().unwrap_or(0),
            Value::Object(fields) => fields
                .iter()
                .map(|(key, value)| key.len().max(longest(value)))
                .max()
                .unwrap_or(0),
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
    }
    arguments.iter().find_map(|(key, value)| {
        let length = key.len().max(longest(value));
        (length > MAXIMUM_ARGUMENT_BYTES).then(|| {
            QueryError::invalid(format!(
                "argument `{}` holds a string of {length} bytes; the longest accepted is {MAXIMUM_ARGUMENT_BYTES}",
                echoed(key)
            ))
        })
    })
}

/// `text` as an answer quotes it: its first [`MAXIMUM_ECHOED_BYTES`] (on a character
/// boundary) and an ellipsis when it is longer.
fn echoed(text: &str) -> String {
    if text.len() <= MAXIMUM_ECHOED_BYTES {
        return text.to_string();
    }
    let end = (0..=MAXIMUM_ECHOED_BYTES)
        .rev()
        .find(|at| text.is_char_boundary(*at))
        .unwrap_or(0);
    format!("{}…", &text[..end])
}

/// Serves MCP over stdio until the client closes stdin.
pub async fn serve_stdio(
    options: ServeOptions,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let server = KivgraphServer::new(options);
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_quoted_by_a_prefix_that_ends_on_a_character() {
        assert_eq!(echoed("find_symbol"), "find_symbol");
        let name = format!("a{}", "é".repeat(100));
        assert_eq!(echoed(&name), format!("a{}…", "é".repeat(63)));
        assert!(oversized_argument(&Map::new()).is_none());
    }
}
