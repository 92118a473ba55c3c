//! Analyzers' answers recorded elsewhere. A fact set carries a repository's units as its
//! analyzers answered them where it was indexed (`index --facts-only`); a pass that merges
//! fact sets (`rebuild --facts`) serves those answers from the unit queries and runs no
//! analyzer, since the checkouts and toolchains they read are not on its machine.

use std::collections::BTreeMap;

use kivgraph_facts::StableKey;
use serde::{Deserialize, Serialize};

use super::unit::UnitAnalysis;
use crate::database::Db;
use crate::inputs::PackageInput;

/// One repository's units as its analyzers answered them: what each unit query returned.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct RecordedUnits {
    /// By the key of the package that owns the program.
    pub typescript: BTreeMap<StableKey, UnitAnalysis>,
    pub python: Option<UnitAnalysis>,
    /// By the key of the package that owns the Cargo workspace.
    pub rust: BTreeMap<StableKey, UnitAnalysis>,
    /// By the key of the package that owns the Go module.
    pub go: BTreeMap<StableKey, UnitAnalysis>,
    /// In the configuration's order of indexers.
    pub configured: Vec<Option<UnitAnalysis>>,
}

impl RecordedUnits {
    /// How many units answered.
    pub fn len(&self) -> usize {
        self.typescript.len()
            + usize::from(self.python.is_some())
            + self.rust.len()
            + self.go.len()
            + self.configured.iter().flatten().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The recorded units of every repository a merge of fact sets holds, by name. Present
/// only in such a pass (never persisted): elsewhere each unit runs its analyzer.
#[salsa::input(singleton)]
pub struct Recorded {
    #[returns(ref)]
    pub repositories: BTreeMap<String, RecordedUnits>,
}

static NOTHING_RECORDED: RecordedUnits = RecordedUnits {
    typescript: BTreeMap::new(),
    python: None,
    rust: BTreeMap::new(),
    go: BTreeMap::new(),
    configured: Vec::new(),
};

/// The units recorded for the repository of `package` (see [`recorded_units`]).
pub(super) fn recorded_for_package(db: &dyn Db, package: PackageInput) -> Option<&RecordedUnits> {
    Recorded::try_get(db)?;
    let repository = package.files(db).first()?.repository(db);
    recorded_units(db, repository)
}

/// The units recorded for `repository` when this pass merges fact sets (none recorded is
/// an empty record: its units answered nothing), `None` when its analyzers run here.
pub(super) fn recorded_units<'db>(db: &'db dyn Db, repository: &str) -> Option<&'db RecordedUnits> {
    let recorded = Recorded::try_get(db)?;
    Some(
        recorded
            .repositories(db)
            .get(repository)
            .unwrap_or(&NOTHING_RECORDED),
    )
}
