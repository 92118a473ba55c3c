//! `kivgraph version [--json]`.

use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct VersionArgs {
    #[arg(long)]
    json: bool,
}

pub fn run(args: VersionArgs) -> anyhow::Result<ExitCode> {
    let version = env!("CARGO_PKG_VERSION");
    if args.json {
        let value = serde_json::json!({
            "version": version,
            "snapshot_format": kivgraph_snapshot::FORMAT_VERSION,
            "grammars": kivgraph_syntax::GRAMMAR_VERSIONS,
            "languages": ["go", "typescript", "javascript", "rust", "python"],
            "analyzers": {"syntax": "tree-sitter"},
            "target": format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS),
        });
        println!("{value}");
    } else {
        println!("kivgraph {version}");
    }
    Ok(ExitCode::SUCCESS)
}
