//! Applying a [`RowDiff`] to a database in place, in one transaction: each row removed,
//! changed or added by one prepared statement that names it by primary key, each statement
//! checked to touch exactly one row. In one transaction a statement costs ~0.05 ms against
//! ~0.3 ms on its own (docs/benchmarks.md), so a one-file edit's few hundred rows take
//! milliseconds where replacing its page's rows took seconds.

use std::collections::{BTreeMap, HashMap};

use kivgraph_facts::StableKey;
use lbug::{Connection, PreparedStatement, Value};

use crate::bulk::Field;
use crate::diff::{EdgeRow, RowDiff};
use crate::error::GraphDbError;
use crate::rows::value;
use crate::schema::{self, Column, ColumnType, EDGE_PROPERTIES, Node};
use crate::session;

/// Applies `diff`; `table_of` says which table holds a key an edge names, and new unresolved
/// references are numbered from `first_unresolved`. The rows each table gained (negative
/// where it lost). On an error nothing is committed.
pub(crate) fn amend(
    connection: &Connection<'_>,
    diff: &RowDiff<'_>,
    table_of: &dyn Fn(&StableKey) -> Option<Node>,
    unresolved_ordinals: &[i64],
    first_unresolved: i64,
) -> Result<BTreeMap<String, i64>, GraphDbError> {
    session::run(connection, "BEGIN TRANSACTION")?;
    let mut statements = Statements {
        connection,
        prepared: HashMap::new(),
    };
    let applied = apply(
        &mut statements,
        diff,
        table_of,
        unresolved_ordinals,
        first_unresolved,
    );
    match applied {
        Ok(gained) => {
            session::run(connection, "COMMIT")?;
            Ok(gained)
        }
        Err(err) => {
            // The error is what the caller needs; a failed rollback adds nothing to it.
            let _ = session::run(connection, "ROLLBACK");
            Err(err)
        }
    }
}

fn apply(
    statements: &mut Statements<'_, '_>,
    diff: &RowDiff<'_>,
    table_of: &dyn Fn(&StableKey) -> Option<Node>,
    unresolved_ordinals: &[i64],
    first_unresolved: i64,
) -> Result<BTreeMap<String, i64>, GraphDbError> {
    let mut gained: BTreeMap<String, i64> = BTreeMap::new();
    let mut count = |table: &str, by: i64| *gained.entry(table.to_string()).or_default() += by;
    // Edges first, so that no removed node still has one; then nodes, the tables edges
    // point into last; then what comes, nodes before the edges joining them.
    for edge in &diff.edges_removed {
        let (from, to) = ends(edge, table_of)?;
        // `e.evidence = $evidence` is never true of a null: an edge without one is matched so.
        let without_evidence = edge.evidence() == &Field::Null;
        let match_evidence = if without_evidence {
            "e.evidence IS NULL"
        } else {
            "e.evidence = $evidence"
        };
        let statement = format!(
            "MATCH (a:{} {{id: $source}})-[e:{}]->(b:{} {{id: $target}}) \
             WHERE e.page = $page AND e.confidence = $confidence AND e.provenance = $provenance \
             AND {match_evidence} DELETE e RETURN count(*)",
            from.name(),
            edge.kind.as_str(),
            to.name()
        );
        let mut parameters = edge_parameters(edge);
        if without_evidence {
            parameters.retain(|(name, _)| *name != "evidence");
        }
        statements.one(&statement, parameters)?;
        count(edge.kind.as_str(), -1);
    }
    for table in diff.nodes.iter().rev() {
        let name = table.table.node.name();
        let key = &table.table.columns[0];
        let statement = format!(
            "MATCH (n:{name} {{{0}: ${0}}}) DELETE n RETURN count(*)",
            key.name
        );
        for removed in &table.removed {
            statements.one(&statement, vec![(key.name, value(removed, key.kind))])?;
            count(name, -1);
        }
    }
    let unresolved = schema::UNRESOLVED.node.name();
    for ordinal in unresolved_ordinals {
        statements.one(
            "MATCH (n:Unresolved {ordinal: $ordinal}) DELETE n RETURN count(*)",
            vec![("ordinal", Value::Int64(*ordinal))],
        )?;
        count(unresolved, -1);
    }
    for table in &diff.nodes {
        let columns = table.table.columns;
        let id = &columns[0];
        for changed in &table.changed {
            // Only the columns that changed (the key is the id's: the same for the row).
            let set: Vec<&Column> = changed
                .columns
                .iter()
                .map(|&i| &columns[i])
                .filter(|c| c.name != schema::KEY.name)
                .collect();
            if set.is_empty() {
                continue;
            }
            let assignments: Vec<String> = set
                .iter()
                .map(|c| format!("n.{0} = ${0}", c.name))
                .collect();
            let statement = format!(
                "MATCH (n:{} {{{1}: ${1}}}) SET {2} RETURN count(*)",
                table.table.node.name(),
                id.name,
                assignments.join(", ")
            );
            let parameters = parameters(columns, &changed.row)
                .into_iter()
                .enumerate()
                .filter(|(i, (name, _))| *i == 0 || set.iter().any(|c| c.name == *name))
                .map(|(_, parameter)| parameter)
                .collect();
            statements.one(&statement, parameters)?;
        }
    }
    for table in &diff.nodes {
        let name = table.table.node.name();
        let create = create_statement(name, table.table.columns);
        for row in &table.added {
            statements.run(&create, parameters(table.table.columns, row))?;
            count(name, 1);
        }
    }
    let create = create_statement(unresolved, schema::UNRESOLVED.columns);
    for (ordinal, row) in (first_unresolved..).zip(&diff.unresolved_added) {
        let mut fields = vec![Field::Integer(ordinal)];
        fields.extend(row.iter().cloned());
        statements.run(&create, parameters(schema::UNRESOLVED.columns, &fields))?;
        count(unresolved, 1);
    }
    for edge in &diff.edges_added {
        let (from, to) = ends(edge, table_of)?;
        let properties: Vec<String> = EDGE_PROPERTIES
            .iter()
            .map(|c| format!("{0}: ${0}", c.name))
            .collect();
        let statement = format!(
            "MATCH (a:{} {{id: $source}}), (b:{} {{id: $target}}) \
             CREATE (a)-[e:{} {{{}}}]->(b) RETURN count(*)",
            from.name(),
            to.name(),
            edge.kind.as_str(),
            properties.join(", ")
        );
        statements.one(&statement, edge_parameters(edge))?;
        count(edge.kind.as_str(), 1);
    }
    Ok(gained)
}

/// The tables an edge joins, checked against the schema.
fn ends(
    edge: &EdgeRow<'_>,
    table_of: &dyn Fn(&StableKey) -> Option<Node>,
) -> Result<(Node, Node), GraphDbError> {
    let [source, target] = &edge.ends;
    let table = |key: &StableKey| {
        table_of(key).ok_or_else(|| {
            GraphDbError::Schema(format!(
                "a {} edge names {key}, which no node table holds",
                edge.kind
            ))
        })
    };
    let pair = (table(source)?, table(target)?);
    schema::check_joins(edge.kind, pair)?;
    Ok(pair)
}

fn create_statement(table: &str, columns: &[Column]) -> String {
    let properties: Vec<String> = columns
        .iter()
        .map(|c| format!("{0}: ${0}", c.name))
        .collect();
    format!("CREATE (n:{table} {{{}}})", properties.join(", "))
}

fn parameters<'c>(columns: &'c [Column], row: &[Field<'_>]) -> Vec<(&'c str, Value)> {
    columns
        .iter()
        .zip(row)
        .map(|(column, field)| (column.name, value(field, column.kind)))
        .collect()
}

fn edge_parameters(edge: &EdgeRow<'_>) -> Vec<(&'static str, Value)> {
    let [source, target, properties @ ..] = &edge.fields;
    let mut parameters = vec![
        ("source", value(source, ColumnType::Integer)),
        ("target", value(target, ColumnType::Integer)),
    ];
    parameters.extend(
        EDGE_PROPERTIES
            .iter()
            .zip(properties)
            .map(|(column, field)| (column.name, value(field, column.kind))),
    );
    parameters
}

/// Statements prepared once each, run in the open transaction.
struct Statements<'c, 'd> {
    connection: &'c Connection<'d>,
    prepared: HashMap<String, PreparedStatement>,
}

impl Statements<'_, '_> {
    fn rows(
        &mut self,
        statement: &str,
        parameters: Vec<(&str, Value)>,
    ) -> Result<Vec<Vec<Value>>, GraphDbError> {
        let failed = |e| GraphDbError::statement(statement, e);
        if !self.prepared.contains_key(statement) {
            let prepared = self.connection.prepare(statement).map_err(failed)?;
            self.prepared.insert(statement.to_string(), prepared);
        }
        let prepared = self.prepared.get_mut(statement).expect("prepared above");
        Ok(self
            .connection
            .execute(prepared, parameters)
            .map_err(failed)?
            .collect())
    }

    fn run(&mut self, statement: &str, parameters: Vec<(&str, Value)>) -> Result<(), GraphDbError> {
        self.rows(statement, parameters).map(|_| ())
    }

    /// Runs a statement that must touch exactly one row (it returns `count(*)`).
    fn one(&mut self, statement: &str, parameters: Vec<(&str, Value)>) -> Result<(), GraphDbError> {
        let first = parameters.first().map(|(_, value)| value.clone());
        match self.rows(statement, parameters)?.as_slice() {
            [row] if row.as_slice() == [Value::Int64(1)] => Ok(()),
            other => Err(GraphDbError::Mismatch(format!(
                "{} ({first:?}, …) touched {other:?} rows where one was meant",
                statement.chars().take(120).collect::<String>(),
            ))),
        }
    }
}
