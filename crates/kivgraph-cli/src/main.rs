//! The `kivgraph` binary: the command line over the engine, the store and the snapshot.
//!
//! Owns: argument parsing, the human and `--json` reports, logging setup, exit codes.
//! Must not know about: anything a library crate can own. Errors become `anyhow` here, at the
//! edge, and nowhere else.

mod allocator;
mod analyzers;
mod canonical_graph;
mod commands;
mod context;
mod fact_set;
mod logging;
mod pass;
mod progress;
mod publication;
mod watch;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// The command table printed by `kivgraph`, `kivgraph --help`, `-h` and `help`.
const COMMAND_TABLE: &str = "\
kivgraph — local cross-repository code intelligence for AI coding agents

Usage: kivgraph <command> [--config PATH] [options]

Getting started
  init [--repository NAME=PATH]... [--languages LIST]   Write the configuration and register repositories
  index --full [--json]                                 Index every registered repository and publish a generation
  serve                                                 Run the MCP server over stdio
  daemon [--addr HOST:PORT] [--allow-remote]            Serve MCP to many clients from one process, over HTTP and a unix socket
  daemon install [--addr HOST:PORT] [--allow-remote]    Give the daemon an owner, so the platform starts it and restarts it
  daemon remove                                         Stop the daemon and take its supervisor entry out
  stop [--dry-run]                                      Stop every running serve, daemon and watch of this user
  watch [--json]                                        Keep the published graph in step with the checkouts while it runs

Integrations
  mcp install --target T [--scope S] [--stdio]          Register with an MCP client, against the daemon where it has an owner
  mcp status --target T [--scope S]                     Say whether a client's registration is ours, absent or another's
  mcp remove --target T [--scope S]                     Remove only kivgraph's registration from the client's file
  skill install|status|remove --target T [--scope S]    The Agent Skill: when to ask the graph, which tool answers what
  hook install|status|remove [--target T] [--scope S]   The search gate (Claude Code, Codex, OpenCode): a shared identifier goes to the graph
  completion bash|zsh|fish                              Print the shell completion stub for one shell

Reading code
  report FILE [--view compact]                          A file's shape: imports, declarations, what to read first
  read FILE SYMBOL [--kind K]                           One symbol's verbatim body, from its doc comment

Diagnostics
  doctor                                                Check configuration, state, repositories and the published graph
  doctor graph [--generation ID]                        Validate the graph invariants of a published generation
  doctor repositories [--repository NAME] [--json]      Audit whether each repository can be indexed, and what to change
  graph status [--root PATH]                            Report the active, next and backup generations
  graph query CYPHER [--param NAME=VALUE]... [--json]   Ask the active generation's canonical database (read-only Cypher)
  graph schema                                          Describe the canonical database's tables and relationships
  doctor storage [--database PATH]                      Inspect one canonical database read-only
  daemon status [--json]                                Report whether the daemon has an owner, and where its unit lives
  version [--json]                                      Print the release, with --json for full provenance
  logs [--follow] [--kind K] [--tool T] [--since D] [--failures] [--json]
                                                        What this machine indexed, served and answered (the event log)
  tool-stats [--tool T] [--since D] [--json]            Calls, p50/p95, bytes out and failures of every tool
  stats [--interval D] [--once] [--json]                What every kivgraph process of this user costs: memory, CPU, generation

Maintenance
  clean [--keep-active] [--yes]                         Remove published graph generations
  rollback [--root PATH] [--generation ID]              Return to the previous generation
  snapshot [--root PATH] [--generation ID]              Rebuild a generation's hot snapshot from its canonical database
  upgrade                                               Rebuild the graph after a change of the canonical schema

Pipeline
  index --facts-only --repository NAME --out PATH       Record one repository as a fact set, publishing nothing
  rebuild --facts PATH... [--root PATH] [--json]        Publish a generation from fact sets recorded anywhere

Every command accepts --config PATH (default ~/.config/kivgraph/config.yaml).
";

#[derive(Parser)]
#[command(
    name = "kivgraph",
    disable_help_subcommand = true,
    disable_version_flag = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write the configuration and register repositories.
    Init(commands::init::InitArgs),
    /// Index every registered repository and publish a generation, or record one as a fact set.
    Index(commands::index::IndexArgs),
    /// Run the MCP server over stdio.
    Serve(commands::serve::ServeArgs),
    /// A file's shape: imports, declarations, what to read first.
    Report(commands::navigate::ReportArgs),
    /// One symbol's verbatim body, from its doc comment.
    Read(commands::navigate::ReadArgs),
    /// Check configuration, state, repositories and the published graph.
    Doctor(commands::doctor::DoctorArgs),
    /// The published generations and their canonical database.
    Graph(commands::graph::GraphArgs),
    /// Print the release, with --json for full provenance.
    Version(commands::version::VersionArgs),
    /// Remove published graph generations.
    Clean(commands::graph::CleanArgs),
    /// Return to the previous generation.
    Rollback(commands::graph::RollbackArgs),
    /// Rebuild a generation's hot snapshot from its canonical database.
    Snapshot(commands::snapshot::SnapshotArgs),
    /// Rebuild the graph after a change of the canonical schema.
    Upgrade(commands::upgrade::UpgradeArgs),
    /// Publish a generation from fact sets recorded anywhere.
    Rebuild(commands::rebuild::RebuildArgs),
    /// Keep the published graph in step with the checkouts while it runs.
    Watch(watch::WatchArgs),
    /// Serve MCP to many clients from one process, over HTTP and a unix socket.
    Daemon(commands::daemon::DaemonArgs),
    /// Stop every running serve, daemon and watch of this user.
    Stop(commands::stop::StopArgs),
    /// Register with MCP clients, inspect or remove the registration.
    Mcp(commands::integrations::mcp::McpArgs),
    /// The Agent Skill: when to ask the graph, which tool answers what.
    Skill(commands::integrations::skill::SkillArgs),
    /// The search gate (Claude Code, Codex, OpenCode): a search for a shared identifier goes to the graph.
    Hook(commands::integrations::hook::HookArgs),
    /// What this machine indexed, served and answered (the event log).
    Logs(commands::events::LogsArgs),
    /// Calls, p50/p95, bytes out and failures of every tool.
    ToolStats(commands::events::ToolStatsArgs),
    /// What every kivgraph process of this user costs: memory, CPU, generation.
    Stats(commands::stats::StatsArgs),
    /// Print the shell completion stub for one shell.
    Completion(commands::completion::CompletionArgs),
}

fn main() -> ExitCode {
    // Asked by the completion stub: answer with candidates and exit, before anything else.
    clap_complete::CompleteEnv::with_factory(Cli::command)
        .var(commands::completion::COMPLETE_VAR)
        .complete();
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        None | Some("--help" | "-h" | "help") => {
            print!("{COMMAND_TABLE}");
            return ExitCode::SUCCESS;
        }
        Some(command)
            if !Cli::command()
                .get_subcommands()
                .any(|c| c.get_name() == command) =>
        {
            eprintln!(
                "kivgraph: unknown command {command:?}; run \"kivgraph --help\" for the command table"
            );
            return ExitCode::from(2);
        }
        _ => {}
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(err) => err.exit(),
    };
    // A server's logs follow its configuration's `logging` section; a one-shot command's are
    // for the person or pipeline that ran it.
    let server = match &cli.command {
        Command::Serve(args) => Some(args.config()),
        Command::Daemon(args) => args.serving(),
        _ => None,
    }
    .map(commands::serve::ServerConfig::read);
    logging::init(server.as_ref().map(logging::Server::of));
    let result = match cli.command {
        Command::Init(args) => commands::init::run(args),
        Command::Index(args) => commands::index::run(args),
        Command::Serve(args) => commands::serve::run(args, server),
        Command::Report(args) => commands::navigate::run_report(args),
        Command::Read(args) => commands::navigate::run_read(args),
        Command::Doctor(args) => commands::doctor::run(args),
        Command::Graph(args) => commands::graph::run_graph(args),
        Command::Version(args) => commands::version::run(args),
        Command::Clean(args) => commands::graph::run_clean(args),
        Command::Rollback(args) => commands::graph::run_rollback(args),
        Command::Snapshot(args) => commands::snapshot::run(args),
        Command::Upgrade(args) => commands::upgrade::run(args),
        Command::Rebuild(args) => commands::rebuild::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Daemon(args) => commands::daemon::run(args, server),
        Command::Stop(args) => commands::stop::run(args),
        Command::Mcp(args) => commands::integrations::mcp::run(args),
        Command::Skill(args) => commands::integrations::skill::run(args),
        Command::Hook(args) => commands::integrations::hook::run(args),
        Command::Logs(args) => commands::events::run_logs(args),
        Command::ToolStats(args) => commands::events::run_tool_stats(args),
        Command::Stats(args) => commands::stats::run(args),
        Command::Completion(args) => commands::completion::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("kivgraph: {err:#}");
            ExitCode::FAILURE
        }
    }
}
