//! `kivgraph completion bash|zsh|fish`: a fixed stub that hands the words typed so far back
//! to this executable (clap_complete's dynamic completion), so completion never goes out of
//! date when a flag is added, and values come from the machine — the generations on disk for
//! `--generation` (here), the clients present for `--target` (`integrations`), the tools called
//! for `--tool` (`events`).

use std::ffi::OsStr;
use std::process::ExitCode;

use clap_complete::engine::CompletionCandidate;
use clap_complete::env::{Bash, EnvCompleter, Fish, Zsh};

use crate::commands::serve::store_of;
use crate::context::ConfigArg;

/// The variable the stub sets when it asks this executable for candidates.
pub const COMPLETE_VAR: &str = "KIVGRAPH_COMPLETE";

#[derive(clap::Args, Debug)]
pub struct CompletionArgs {
    #[arg(value_enum)]
    shell: Shell,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Shell {
    Bash,
    Zsh,
    Fish,
}

pub fn run(args: CompletionArgs) -> anyhow::Result<ExitCode> {
    let completer = std::env::current_exe()?.display().to_string();
    let shell: &dyn EnvCompleter = match args.shell {
        Shell::Bash => &Bash,
        Shell::Zsh => &Zsh,
        Shell::Fish => &Fish,
    };
    shell.write_registration(
        COMPLETE_VAR,
        "kivgraph",
        "kivgraph",
        &completer,
        &mut std::io::stdout(),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The generations published under the default configuration's state directory, newest
/// first, that start with what was typed.
pub fn generations(typed: &OsStr) -> Vec<CompletionCandidate> {
    let typed = typed.to_string_lossy();
    let Ok(store) = store_of(&ConfigArg { config: None }) else {
        return Vec::new();
    };
    let mut ids = store.list().unwrap_or_default();
    ids.reverse();
    ids.into_iter()
        .map(|id| id.to_string())
        .filter(|id| id.starts_with(typed.as_ref()))
        .map(CompletionCandidate::new)
        .collect()
}
