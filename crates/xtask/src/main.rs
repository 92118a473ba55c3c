//! The project's own automation, run as `cargo xtask <command>` (the alias is in
//! `.cargo/config.toml`), in the manner of rust-analyzer's xtask:
//!
//! - `quickstart [NAME]`: on a fresh machine, install the analyzers, build kivgraph, register
//!   this checkout and the bundled fixture repositories, index them, check the result and
//!   answer where `NAME` is declared from the published snapshot;
//! - `test`: the whole test suite (`.ci/run` calls exactly this), after installing the
//!   analyzers and the real MCP clients it drives (`clients/`, pinned);
//! - `setup`: install the exact analyzers, pinned by `crates/kivgraph-analyzers/pins`, and
//!   build LadybugDB once for this machine (`ladybug.rs`), both outside the checkout.
//!   Idempotent.
//!
//! Must not know about: the product's code. It drives cargo, npm, rustup and the Go toolchain
//! as a user would.

mod analyzers;
mod clients;
mod ladybug;
mod locations;
mod npm;
mod quickstart;
mod run;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "Kivgraph's setup, quickstart and test commands"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Set everything up and answer a real question from a fresh index.
    Quickstart {
        /// The declaration to look up.
        #[arg(default_value = "run_pass")]
        name: String,
    },
    /// Run the whole test suite, after installing what it needs.
    Test,
    /// Install the exact analyzers and build LadybugDB, outside the checkout.
    Setup,
}

fn main() -> anyhow::Result<()> {
    let locations = locations::Locations::from_environment()?;
    match Cli::parse().command {
        Command::Quickstart { name } => quickstart::run(&locations, &name),
        Command::Test => {
            let locations = locations.for_tests();
            analyzers::setup(&locations)?;
            ladybug::setup(&locations)?;
            let mut test = run::cargo(&locations);
            if let Some(clients) = clients::setup(&locations)? {
                test = test.env("KIVGRAPH_CLIENTS_DIR", clients);
            }
            // The fixture tests assert what the exact analyzers resolve, and what real MCP
            // clients make of the servers.
            test.args(["test", "--locked", "--workspace", "--all-targets"])
                .succeed()
        }
        Command::Setup => {
            analyzers::setup(&locations)?;
            ladybug::setup(&locations)
        }
    }
}
