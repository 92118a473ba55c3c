//! scip-typescript and scip-python, pinned by `pins/package-lock.json`, with the machine's npm.

use crate::locations::Locations;
use crate::run::{Step, on_path};

pub fn install(locations: &Locations) -> anyhow::Result<()> {
    if !on_path("npm") {
        super::absent("scip-typescript and scip-python", "npm not found");
        return Ok(());
    }
    let dir = &locations.analyzers;
    let lock = std::fs::read(locations.pin("package-lock.json"))?;
    let installed = ["scip-typescript", "scip-python"]
        .iter()
        .all(|tool| dir.join("node_modules/.bin").join(tool).is_file());
    if installed && std::fs::read(dir.join("package-lock.json")).ok() == Some(lock) {
        return Ok(());
    }
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(locations.pin(file), dir.join(file))?;
    }
    Step::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(dir)
        .succeed()?;
    eprintln!(
        "xtask setup: scip-typescript and scip-python installed under {}",
        dir.display()
    );
    Ok(())
}
