//! What replacing pages changes, row by row: the rows the replaced pages held before and
//! hold after, compared by primary key — and, for unresolved references, whose ordinal is
//! only a number the database gave them, by everything else. A one-file edit changes a few
//! hundred rows of a page that holds tens of thousands; an update that changes only those
//! keeps every other row, and every edge reaching it, where it is.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use kivgraph_facts::{Edge, EdgeKind, FactSet, StableKey};

use crate::bulk::Field;
use crate::error::GraphDbError;
use crate::rows;
use crate::schema::{self, NodeTable};
use crate::stage::{Pages, rows_of};

/// One table's changes: the rows that go (by primary key), the rows whose columns changed
/// and the rows that come (whole, in the schema's column order).
pub(crate) struct TableDiff<'a> {
    pub(crate) table: &'static NodeTable,
    pub(crate) removed: Vec<Field<'a>>,
    pub(crate) changed: Vec<ChangedRow<'a>>,
    pub(crate) added: Vec<Vec<Field<'a>>>,
}

/// A row that stays with some of its columns changed: the whole row, and the positions of the
/// columns that differ from the row it replaces. Only those are set: setting a text column
/// makes the engine write that column's whole chunk anew (tens of megabytes on a large table).
pub(crate) struct ChangedRow<'a> {
    pub(crate) row: Vec<Field<'a>>,
    pub(crate) columns: Vec<usize>,
}

impl TableDiff<'_> {
    /// The changed rows removed and added again instead of set: for a table no edge joins.
    fn replacing_changed(mut self) -> Self {
        for changed in self.changed.drain(..) {
            self.removed.push(changed.row[0].clone());
            self.added.push(changed.row);
        }
        self
    }
}

/// An edge's row (`rows::edge`), its kind, and the keys of its ends (the row holds their
/// ids; which table holds each end is looked up by key).
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct EdgeRow<'a> {
    pub(crate) kind: EdgeKind,
    pub(crate) ends: [StableKey; 2],
    pub(crate) fields: [Field<'a>; 6],
}

impl<'a> EdgeRow<'a> {
    fn of(page: u32, edge: &'a Edge) -> Self {
        let evidence = edge.evidence.as_ref().map(schema::key_id);
        EdgeRow {
            kind: edge.kind,
            ends: [edge.source, edge.target],
            fields: rows::edge(edge, page, evidence),
        }
    }

    /// Its evidence's id, or null.
    pub(crate) fn evidence(&self) -> &Field<'_> {
        &self.fields[5]
    }
}

/// Every change between two versions of the same pages.
pub(crate) struct RowDiff<'a> {
    /// `Package`, `File`, `Mentions`, `Symbol`, `Evidence`, in load order.
    pub(crate) nodes: Vec<TableDiff<'a>>,
    /// Unresolved references, without their ordinal (`rows::unresolved`'s other columns).
    pub(crate) unresolved_removed: Vec<Vec<Field<'a>>>,
    pub(crate) unresolved_added: Vec<Vec<Field<'a>>>,
    pub(crate) edges_removed: Vec<EdgeRow<'a>>,
    pub(crate) edges_added: Vec<EdgeRow<'a>>,
}

impl<'a> RowDiff<'a> {
    /// The changes from `before` (the previous generation's facts of some pages) to `after`
    /// (the same pages' facts now).
    pub(crate) fn of(before: Pages<'a>, after: Pages<'a>) -> Result<Self, GraphDbError> {
        let nodes = vec![
            keyed(
                &schema::PACKAGE,
                [before, after].map(|p| rows_of(p, |f: &FactSet| &f.packages)),
                |p| p.key,
                |page, p| Ok(rows::package(page, p).to_vec()),
            )?,
            keyed(
                &schema::FILE,
                [before, after].map(|p| rows_of(p, |f: &FactSet| &f.files)),
                |f| f.key,
                |page, f| Ok(rows::file(page, f)?.to_vec()),
            )?,
            // Setting its text would rewrite the column's whole chunk; a row is appended.
            keyed_by(
                &schema::MENTIONS,
                [before, after].map(|p| rows_of(p, |f: &FactSet| &f.files)),
                |f| f.key,
                |a, b| a.mentions == b.mentions,
                |page, f| Ok(rows::mentions(page, f).to_vec()),
            )?
            .replacing_changed(),
            keyed(
                &schema::SYMBOL,
                [before, after].map(|p| rows_of(p, |f: &FactSet| &f.symbols)),
                |s| s.key,
                |page, s| Ok(rows::symbol(page, s).to_vec()),
            )?,
            keyed(
                &schema::EVIDENCE,
                [before, after].map(|p| rows_of(p, |f: &FactSet| &f.evidence)),
                |e| e.key,
                |page, e| Ok(rows::evidence(page, e)?.to_vec()),
            )?,
        ];
        // Without the ordinal: two equal references are two rows, so they are counted.
        let unresolved = |pages: Pages<'a>| -> Vec<Vec<Field<'a>>> {
            rows_of(pages, |f: &FactSet| &f.unresolved)
                .map(|(page, u)| rows::unresolved(0, page, u)[1..].to_vec())
                .collect()
        };
        let (unresolved_removed, unresolved_added) = counted(unresolved(before), unresolved(after));
        let edges = |pages: Pages<'a>| -> Vec<EdgeRow<'a>> {
            rows_of(pages, |f: &FactSet| &f.edges)
                .map(|(page, e)| EdgeRow::of(page, e))
                .collect()
        };
        // A page's edges are distinct (canonical facts drop repeats): a set.
        let (edges_removed, edges_added) = counted(edges(before), edges(after));
        Ok(RowDiff {
            nodes,
            unresolved_removed,
            unresolved_added,
            edges_removed,
            edges_added,
        })
    }

    /// How many statements applying the changes takes.
    pub(crate) fn len(&self) -> usize {
        let nodes: usize = self
            .nodes
            .iter()
            .map(|t| t.removed.len() + t.changed.len() + t.added.len())
            .sum();
        nodes
            + self.unresolved_removed.len()
            + self.unresolved_added.len()
            + self.edges_removed.len()
            + self.edges_added.len()
    }

    /// Every key an edge removed or added names.
    pub(crate) fn edge_ends(&self) -> impl Iterator<Item = &StableKey> {
        self.edges_removed
            .iter()
            .chain(&self.edges_added)
            .flat_map(|edge| &edge.ends)
    }
}

/// Rows keyed by their fact's key (whose id is the first field of its `row`): those
/// only `before` has go, those that differ change, those only `after` has come — only
/// those turned into rows. In the order the pages list them, so the same change is applied
/// the same way every time.
fn keyed<'a, T: PartialEq + 'a, K: Hash + Eq>(
    table: &'static NodeTable,
    pages: [impl Iterator<Item = (u32, &'a T)>; 2],
    key: impl Fn(&T) -> K,
    row: impl Fn(u32, &'a T) -> Result<Vec<Field<'a>>, GraphDbError>,
) -> Result<TableDiff<'a>, GraphDbError> {
    keyed_by(table, pages, key, T::eq, row)
}

/// `keyed`, two facts holding the same row when `same` says so.
fn keyed_by<'a, T: 'a, K: Hash + Eq>(
    table: &'static NodeTable,
    [before, after]: [impl Iterator<Item = (u32, &'a T)>; 2],
    key: impl Fn(&T) -> K,
    same: impl Fn(&T, &T) -> bool,
    row: impl Fn(u32, &'a T) -> Result<Vec<Field<'a>>, GraphDbError>,
) -> Result<TableDiff<'a>, GraphDbError> {
    let before: Vec<(u32, &'a T)> = before.collect();
    let after: Vec<(u32, &'a T)> = after.collect();
    let then: HashMap<K, (u32, &T)> = before.iter().map(|&(n, t)| (key(t), (n, t))).collect();
    let now: HashSet<K> = after.iter().map(|(_, t)| key(t)).collect();
    let mut diff = TableDiff {
        table,
        removed: Vec::new(),
        changed: Vec::new(),
        added: Vec::new(),
    };
    for &(page, fact) in &before {
        if !now.contains(&key(fact)) {
            diff.removed.push(row(page, fact)?.swap_remove(0));
        }
    }
    for &(page, fact) in &after {
        match then.get(&key(fact)) {
            Some(&(was, previous)) if was == page && same(previous, fact) => {}
            Some(&(was, previous)) => {
                let (then, now) = (row(was, previous)?, row(page, fact)?);
                let columns: Vec<usize> = (1..now.len()).filter(|&i| then[i] != now[i]).collect();
                // Facts that differ only in what no column holds change no row.
                if !columns.is_empty() {
                    diff.changed.push(ChangedRow { row: now, columns });
                }
            }
            None => diff.added.push(row(page, fact)?),
        }
    }
    Ok(diff)
}

/// Rows compared whole, each counted: what `before` has more of, and what `after` has more
/// of, in the order each lists them.
fn counted<T: Eq + Hash>(before: Vec<T>, after: Vec<T>) -> (Vec<T>, Vec<T>) {
    let mut held: HashMap<&T, isize> = HashMap::new();
    for row in &after {
        *held.entry(row).or_default() += 1;
    }
    let mut gone = vec![false; before.len()];
    for (i, row) in before.iter().enumerate() {
        match held.get_mut(row) {
            Some(n) if *n > 0 => *n -= 1,
            _ => gone[i] = true,
        }
    }
    let mut kept: HashMap<&T, isize> = HashMap::new();
    for (row, _) in before.iter().zip(&gone).filter(|(_, gone)| !**gone) {
        *kept.entry(row).or_default() += 1;
    }
    let mut new = vec![false; after.len()];
    for (i, row) in after.iter().enumerate() {
        match kept.get_mut(row) {
            Some(n) if *n > 0 => *n -= 1,
            _ => new[i] = true,
        }
    }
    drop(held);
    drop(kept);
    let pick = |rows: Vec<T>, flags: Vec<bool>| {
        rows.into_iter()
            .zip(flags)
            .filter_map(|(row, picked)| picked.then_some(row))
            .collect()
    };
    (pick(before, gone), pick(after, new))
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn counted_rows_keep_what_both_sides_hold_as_often_as_both_hold_it() {
        let (removed, added) = counted(vec![1, 2, 2, 3], vec![2, 3, 3, 4]);
        assert_eq!(removed, vec![1, 2]);
        assert_eq!(added, vec![3, 4]);
    }
}
