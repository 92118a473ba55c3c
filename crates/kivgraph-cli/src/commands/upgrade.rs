//! `kivgraph upgrade`: after a change of the canonical schema, the active generation is
//! verified and kept as the backup, and a full pass publishes a generation this build's schema
//! describes. Only a candidate that passes validation changes `CURRENT`.

use std::process::ExitCode;

use anyhow::anyhow;
use kivgraph_facts::GRAPH_SCHEMA_VERSION;

use crate::context::ConfigArg;
use crate::pass::{OnUnchanged, PassResult, Toolchains, index_and_publish};

#[derive(clap::Args, Debug)]
pub struct UpgradeArgs {
    #[command(flatten)]
    config: ConfigArg,
}

pub fn run(args: UpgradeArgs) -> anyhow::Result<ExitCode> {
    let loaded = args.config.load()?;
    let store = loaded.store(None);
    let Some(active) = store.current()? else {
        println!(
            "upgrade: nothing is published; kivgraph index --full publishes schema {GRAPH_SCHEMA_VERSION}"
        );
        return Ok(ExitCode::SUCCESS);
    };
    let schema = store
        .manifest(active)?
        .graph
        .map(|graph| graph.counts.schema_version);
    if schema == Some(GRAPH_SCHEMA_VERSION) {
        println!(
            "upgrade: generation {active} is at schema {GRAPH_SCHEMA_VERSION}, which this build writes; nothing to do"
        );
        return Ok(ExitCode::SUCCESS);
    }
    let from = schema.map_or("none".to_string(), |v| v.to_string());
    // The backup is the active generation, proven whole before anything is rebuilt.
    store.verify(active).map_err(|e| {
        anyhow!("the active generation {active} does not verify, so it cannot be the backup: {e}")
    })?;
    println!("upgrade: generation {active} (schema {from}) verified; it stays as the backup");
    let result = index_and_publish(
        &loaded,
        &Toolchains::default(),
        &|_| {},
        OnUnchanged::Republish,
        None,
    )?;
    let PassResult::Published { report, .. } = result else {
        return Err(anyhow!(
            "the pass kept generation {active} instead of rebuilding it"
        ));
    };
    println!(
        "upgrade: published generation {} at schema {GRAPH_SCHEMA_VERSION} (backup: {active})",
        report["generation_id"].as_str().unwrap_or("?")
    );
    Ok(ExitCode::SUCCESS)
}
