//! `kivgraph report FILE` and `kivgraph read FILE SYMBOL`: the navigator and the fetch, from the
//! command line. Pure syntax on the file as it is now; the published graph, when there is one,
//! only says whether the file is the one it indexed.

use std::path::PathBuf;
use std::process::ExitCode;

use kivgraph_query::{
    ModuleReportArgs, Published, ReadSymbolArgs, Roots, module_report, read_symbol,
};

use crate::context::ConfigArg;

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    #[command(flatten)]
    config: ConfigArg,
    /// Absolute, or relative to a registered repository's root.
    file: String,
    #[arg(long)]
    repository: Option<String>,
    /// json (default) or compact.
    #[arg(long)]
    view: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct ReadArgs {
    #[command(flatten)]
    config: ConfigArg,
    file: String,
    /// A name, or Parent.member.
    symbol: String,
    #[arg(long)]
    kind: Option<String>,
    #[arg(long)]
    repository: Option<String>,
}

fn roots(config: &ConfigArg) -> anyhow::Result<(Roots, Option<Published>)> {
    let loaded = config.load()?;
    let roots = Roots(
        loaded
            .registry
            .repositories
            .iter()
            .map(|r| (r.name.clone(), PathBuf::from(&r.path)))
            .collect(),
    );
    let published = Published::open_current(&loaded.store(None)).ok();
    Ok((roots, published))
}

fn print(result: Result<String, kivgraph_query::QueryError>) -> ExitCode {
    match result {
        Ok(text) => {
            println!("{}", text.trim_end());
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("kivgraph: {err}");
            ExitCode::FAILURE
        }
    }
}

pub fn run_report(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let (roots, published) = roots(&args.config)?;
    let request = ModuleReportArgs {
        file: Some(args.file),
        repository: args.repository,
        max_refs_per_symbol: None,
        view: args.view,
    };
    Ok(print(module_report(published.as_ref(), &roots, &request)))
}

pub fn run_read(args: ReadArgs) -> anyhow::Result<ExitCode> {
    let (roots, _) = roots(&args.config)?;
    let request = ReadSymbolArgs {
        file: Some(args.file),
        symbol: Some(args.symbol),
        kind: args.kind,
        repository: args.repository,
    };
    Ok(print(read_symbol(&roots, &request)))
}
