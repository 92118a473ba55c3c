//! Prints what an analyzer's SCIP index says, one occurrence per line, as the engine reads
//! it: `line:column-line:column DEF|ref symbol`, then each `is_implementation`
//! relationship. Useful to see why a use did or did not become an exact edge.
//!
//! `cargo run -p kivgraph-analyzers --example dump_scip -- index.scip`

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: dump_scip INDEX.scip")?;
    let index = kivgraph_analyzers::decode(&std::fs::read(path)?)?;
    println!("{} {}", index.tool, index.tool_version);
    for document in &index.documents {
        println!("== {}", document.relative_path);
        for o in &document.occurrences {
            let role = if o.definition { "DEF" } else { "ref" };
            println!(
                "{}:{}-{}:{} {role} {}",
                o.start_line + 1,
                o.start_column,
                o.end_line + 1,
                o.end_column,
                o.symbol
            );
        }
        for (implementing, implemented) in &document.implementations {
            println!("implements {implementing} -> {implemented}");
        }
        for (typed, type_symbol) in &document.type_definitions {
            println!("has type {typed} -> {type_symbol}");
        }
    }
    Ok(())
}
