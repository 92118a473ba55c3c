//! What a canonical database holds: its schema version and its rows by table, exchanged
//! between the engine that writes it (as written, and as read back) and the store that
//! records it in a generation's manifest.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// The version of the canonical schema this build writes. A generation whose database was
/// written with another is outdated: `upgrade` rebuilds it.
pub const GRAPH_SCHEMA_VERSION: u32 = 5;

/// Rows by table (node tables by label, relationships by edge kind).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphCounts {
    pub schema_version: u32,
    pub tables: BTreeMap<String, u64>,
}

/// What an update of a database leaves: its rows by table, and the tables whose rows it
/// changed (`None`: any of them). The others hold the previous database's rows, which were
/// proven when it was published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphUpdate {
    pub counts: GraphCounts,
    pub changed_tables: Option<BTreeSet<String>>,
}

impl GraphCounts {
    /// The rows of one table; zero for a table that holds none.
    pub fn of(&self, table: &str) -> u64 {
        self.tables.get(table).copied().unwrap_or(0)
    }
}
