//! What this page's rows reach in other pages: the nodes its edges point at there (by key,
//! with the page that holds each, and a Bloom filter over their keys), and the files of
//! observations made in another page's file.

use std::collections::BTreeMap;

use kivgraph_facts::{Edge, FactSet, KeyMap, StableKey};

use crate::bytes::{Fields, Out, read_u32};
use crate::error::{SnapshotError, WriteError};
use crate::fields::{external_file, external_node, filter_word};
use crate::format::*;
use crate::page::Page;
use crate::tables::{Arena, Positions, first_error, invalid};

/// A node of another page that this page's edges reach, as whoever lays the page out knows
/// it: which table, which page, and (a declaration's) name, which the census reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExternalNode<'a> {
    pub table: ExternalTable,
    pub page: u32,
    pub name: &'a str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExternalTable {
    Package,
    File,
    Symbol,
}

impl ExternalTable {
    pub(crate) fn code(self) -> u8 {
        match self {
            ExternalTable::Package => TABLE_PACKAGE,
            ExternalTable::File => TABLE_FILE,
            ExternalTable::Symbol => TABLE_SYMBOL,
        }
    }
}

/// Where the keys a page does not hold live: `None` for a key no page holds.
pub type Externals<'a> = dyn Fn(&StableKey) -> Option<ExternalNode<'a>> + Sync + 'a;

/// Where every edge endpoint is: a row of one of the page's node tables, or a row of
/// `ExternalNodes`.
pub(crate) struct Endpoints {
    local: KeyMap<(u8, u32)>,
    /// The nodes other pages hold, by key: table and page, each numbered once in key order.
    external: BTreeMap<StableKey, (u8, u32)>,
    external_rows: KeyMap<u32>,
}

impl Endpoints {
    pub(crate) fn of<'a>(
        facts: &'a FactSet,
        positions: &Positions<'a>,
        external: &Externals<'a>,
    ) -> Result<Self, WriteError> {
        let mut local: KeyMap<(u8, u32)> = KeyMap::default();
        local.extend(
            facts
                .repositories
                .iter()
                .enumerate()
                .map(|(i, r)| (r.key, (TABLE_REPOSITORY, i as u32))),
        );
        local.extend(
            positions
                .packages
                .iter()
                .map(|(k, i)| (*k, (TABLE_PACKAGE, *i))),
        );
        local.extend(
            facts
                .files
                .iter()
                .enumerate()
                .map(|(i, f)| (f.key, (TABLE_FILE, i as u32))),
        );
        local.extend(
            positions
                .symbols
                .iter()
                .map(|(k, i)| (*k, (TABLE_SYMBOL, *i))),
        );
        local.extend(
            positions
                .evidence
                .iter()
                .map(|(k, i)| (*k, (TABLE_EVIDENCE, *i))),
        );
        let mut others: BTreeMap<StableKey, (u8, u32)> = BTreeMap::new();
        for edge in &facts.edges {
            for key in [edge.source, edge.target] {
                if !local.contains_key(&key) && !others.contains_key(&key) {
                    let node = external(&key).ok_or_else(|| dangling(edge, key))?;
                    others.insert(key, (node.table.code(), node.page));
                }
            }
        }
        let external_rows = others
            .keys()
            .enumerate()
            .map(|(i, key)| (*key, i as u32))
            .collect();
        Ok(Endpoints {
            local,
            external: others,
            external_rows,
        })
    }

    /// The table and row of the node keyed `key`.
    pub(crate) fn of_key(&self, key: &StableKey) -> Option<(u8, u32)> {
        match self.local.get(key) {
            Some(local) => Some(*local),
            None => self
                .external_rows
                .get(key)
                .map(|row| (TABLE_EXTERNAL, *row)),
        }
    }

    /// The row of `ExternalNodes` keyed `key`, if another page holds it.
    pub(crate) fn external_row(&self, key: &StableKey) -> Option<&u32> {
        self.external_rows.get(key)
    }

    pub(crate) fn external_count(&self) -> usize {
        self.external.len()
    }

    /// `ExternalNodes` and `ExternalFilter`.
    pub(crate) fn write(&self) -> (Out, Out) {
        let mut nodes = Out::new(self.external.len() * external_node::LEN);
        let mut filter = vec![0u64; filter_words(self.external.len())];
        for (key, (table, page)) in &self.external {
            nodes.record(
                Fields::<{ external_node::LEN }>::new()
                    .key(external_node::KEY, &key.0)
                    .u8(external_node::TABLE, *table)
                    .u32(external_node::PAGE, *page),
            );
            for bit in filter_bits(&key.0, filter.len()) {
                filter[bit / 64] |= 1 << (bit % 64);
            }
        }
        let mut words = Out::new(filter.len() * filter_word::LEN);
        for word in &filter {
            words.record(Fields::<{ filter_word::LEN }>::new().u64(filter_word::BITS, *word));
        }
        (nodes, words)
    }
}

/// The error for an edge whose endpoint no page holds.
pub(crate) fn dangling(edge: &Edge, key: StableKey) -> WriteError {
    WriteError::DanglingEdge {
        kind: edge.kind.as_str(),
        key,
    }
}

/// Observations made in a file of another page (a Go test package's, say) name it by
/// repository row and path, each once, numbered in that order.
pub(crate) fn external_files<'a>(
    facts: &'a FactSet,
    positions: &Positions<'a>,
) -> BTreeMap<(u32, &'a str), u32> {
    let mut files: BTreeMap<(u32, &str), u32> = BTreeMap::new();
    for row in &facts.evidence {
        let path = row.file_path.as_str();
        if !positions
            .files
            .contains_key(&(row.repository.as_str(), path))
        {
            files.insert((positions.repository(&row.repository), path), 0);
        }
    }
    for (row, number) in files.values_mut().enumerate() {
        *number = row as u32;
    }
    files
}

/// `ExternalFiles`.
pub(crate) fn write_files<'a>(
    files: &BTreeMap<(u32, &'a str), u32>,
    arena: &mut Arena<'a>,
) -> Result<Out, WriteError> {
    let mut out = Out::new(files.len() * external_file::LEN);
    for (repository, path) in files.keys() {
        out.record(
            Fields::<{ external_file::LEN }>::new()
                .u32(external_file::REPOSITORY, *repository)
                .str(external_file::PATH, arena.add(path)?),
        );
    }
    Ok(out)
}

/// Other pages' nodes: each a node table, by key strictly ascending, let through by the
/// filter; other pages' files: each in a repository.
pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let externals = page.count(SectionKind::ExternalNodes);
    if page.count(SectionKind::ExternalFilter) != filter_words(externals) {
        return Err(invalid(
            "external filter",
            0,
            "not sized for the external nodes",
        ));
    }
    first_error(externals, |i| {
        let (key, table, _) = page.external_node(i);
        if !matches!(table, TABLE_PACKAGE | TABLE_FILE | TABLE_SYMBOL) {
            return Err(invalid("external node", i, "not a node table"));
        }
        if !page.may_reach(&key) {
            return Err(invalid(
                "external node",
                i,
                "the filter does not let it through",
            ));
        }
        if i > 0 && page.external_node(i - 1).0 >= key {
            return Err(invalid("external node", i, "keys out of order"));
        }
        Ok(())
    })?;
    let repositories = page.count(SectionKind::Repositories);
    for i in 0..page.count(SectionKind::ExternalFiles) {
        let r = page.record(SectionKind::ExternalFiles, i);
        if read_u32(r, external_file::REPOSITORY) as usize >= repositories {
            return Err(invalid("external file", i, "repository out of range"));
        }
        page.check_str("external file", i, r, external_file::PATH)?;
    }
    Ok(())
}
