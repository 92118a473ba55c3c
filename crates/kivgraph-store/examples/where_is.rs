//! Library use: answer "where is NAME declared?" from the published generation, the way a
//! server does — follow `CURRENT`, map the snapshot, binary-search its name index.
//!
//! ```text
//! cargo run -p kivgraph-store --example where_is -- STATE_DIR NAME
//! ```
//! `STATE_DIR` is the generation store (`state/` beside a self-contained `config.yaml`).

use std::process::ExitCode;
use std::time::Instant;

use kivgraph_snapshot::Snapshot;
use kivgraph_store::GenerationStore;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [state, name] = args.as_slice() else {
        eprintln!("usage: where_is STATE_DIR NAME");
        return ExitCode::from(2);
    };
    let started = Instant::now();
    let store = GenerationStore::new(state);
    let current = match store.current() {
        Ok(Some(current)) => current,
        Ok(None) => {
            eprintln!("no published generation under {state}: run kivgraph index --full");
            return ExitCode::FAILURE;
        }
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    };
    let snapshot = match Snapshot::open(&store.snapshot_path(current)) {
        Ok(snapshot) => snapshot,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    };
    let mut found = snapshot.symbols_named(name);
    if found.is_empty() {
        found = snapshot.symbols_qualified(name);
    }
    let elapsed = started.elapsed();
    println!(
        "{} declaration(s) of {name:?} in generation {current} ({} symbols, answered in {:.2} ms):",
        found.len(),
        snapshot.symbol_count(),
        elapsed.as_secs_f64() * 1000.0
    );
    for symbol in found {
        let span = symbol.span();
        println!(
            "  {} {}  {}:{}:{}-{}  {}",
            symbol.kind(),
            symbol.qualified_name(),
            symbol.file().repository().name(),
            symbol.file().path(),
            span.start_line,
            span.end_line,
            symbol.signature()
        );
    }
    ExitCode::SUCCESS
}
