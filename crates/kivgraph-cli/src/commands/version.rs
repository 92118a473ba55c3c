//! `kivgraph version [--json]`: the release, and with `--json` where it came from — the
//! commit and profile it was built from, its grammars and snapshot format, and the exact
//! analyzers this configuration would run (each one's version and where it was found).

use std::process::ExitCode;

use kivgraph_analyzers::Analyzer;
use serde_json::json;

use crate::context::ConfigArg;

#[derive(clap::Args, Debug)]
pub struct VersionArgs {
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    config: ConfigArg,
}

pub fn run(args: VersionArgs) -> anyhow::Result<ExitCode> {
    let version = env!("CARGO_PKG_VERSION");
    if !args.json {
        println!("kivgraph {version}");
        return Ok(ExitCode::SUCCESS);
    }
    let (config, _) = args.config.load_or_default()?;
    let located = crate::analyzers::locate(&config);
    let analyzers: serde_json::Map<String, serde_json::Value> = [
        Analyzer::Typescript,
        Analyzer::Python,
        Analyzer::Rust,
        Analyzer::Go,
    ]
    .into_iter()
    .map(|analyzer| {
        let found = match located.get(analyzer) {
            Ok(toolchain) => json!({
                "identity": toolchain.identity(),
                "program": toolchain.program,
                "source": toolchain.source,
            }),
            Err(why) => json!({"absent": why.to_string()}),
        };
        (analyzer.as_str().to_string(), found)
    })
    .collect();
    let value = json!({
        "version": version,
        "commit": env!("KIVGRAPH_COMMIT"),
        "profile": env!("KIVGRAPH_PROFILE"),
        "compiler": env!("KIVGRAPH_RUSTC"),
        "target": format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS),
        "executable": std::env::current_exe()?,
        "snapshot_format": kivgraph_snapshot::FORMAT_VERSION,
        "grammars": kivgraph_syntax::GRAMMAR_VERSIONS,
        "languages": ["go", "typescript", "javascript", "rust", "python"],
        "syntax": "tree-sitter",
        "analyzers": analyzers,
    });
    println!("{value}");
    Ok(ExitCode::SUCCESS)
}
