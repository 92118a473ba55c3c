//! One command on a fresh machine: install the analyzers, build kivgraph, register this
//! checkout and the bundled fixture repositories, index them, check the result, and answer
//! where a name is declared from the published snapshot. Idempotent: run it again and it
//! publishes the next generation.

use crate::analyzers;
use crate::ladybug;
use crate::locations::Locations;
use crate::run::{Step, cargo};

pub fn run(locations: &Locations, name: &str) -> anyhow::Result<()> {
    analyzers::setup(locations)?;
    ladybug::setup(locations)?;
    cargo(locations)
        .args(["build", "--release", "--locked", "-p", "kivgraph-cli"])
        .args(["-p", "kivgraph-store", "--examples", "--bins"])
        .succeed()?;
    let release = locations.target.join("release");
    let demo = std::env::var_os("KIVGRAPH_DEMO_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| locations.cache.join("demo"));
    let config = demo.join("config.yaml");
    let root = locations.root.canonicalize()?;
    let fixture = |name: &str, dir: &str| {
        format!("{name}={}", root.join("testdata/repos").join(dir).display())
    };
    let kivgraph =
        || Step::new(release.join("kivgraph")).env("KIVGRAPH_ANALYZERS_DIR", &locations.analyzers);
    kivgraph()
        .args(["init", "--config"])
        .arg(&config)
        .arg("--repository")
        .arg(format!("kivgraph={}", root.display()))
        .arg("--repository")
        .arg(fixture("fixture-go", "gosvc"))
        .arg("--repository")
        .arg(fixture("fixture-ts", "tsweb"))
        .arg("--repository")
        .arg(fixture("fixture-rust", "rscore"))
        .arg("--repository")
        .arg(fixture("fixture-python", "pytools"))
        .args(["--languages", "go,typescript,rust,python"])
        .succeed()?;
    kivgraph()
        .args(["index", "--full", "--config"])
        .arg(&config)
        .succeed()?;
    // The doctor's verdict is the user's to read: this checkout's own test fixtures include
    // deliberately broken modules (a Go module asking for a Go release that does not exist),
    // which it reports as they are.
    if !kivgraph()
        .args(["doctor", "--config"])
        .arg(&config)
        .report()?
    {
        eprintln!(
            "xtask quickstart: doctor lists a FAIL above; the generation is published and answers"
        );
    }
    println!("\nWhere is {name} declared?");
    Step::new(release.join("examples/where_is"))
        .arg(demo.join("state"))
        .arg(name)
        .show()
}
