//! The files `COPY` loads: CSV, one per table (and per endpoint pair of a relationship),
//! with every text quoted so that an empty text and a null (an empty, unquoted field) stay
//! apart, and a row's width checked against its table's declaration.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use kivgraph_facts::StableKey;

use crate::error::GraphDbError;

/// One field of a row.
pub(crate) enum Field<'a> {
    Text(&'a str),
    Owned(String),
    Key(StableKey),
    Integer(i64),
    Boolean(bool),
    Null,
}

impl<'a> From<&'a str> for Field<'a> {
    fn from(text: &'a str) -> Self {
        Field::Text(text)
    }
}

impl<'a> From<Option<&'a str>> for Field<'a> {
    fn from(text: Option<&'a str>) -> Self {
        text.map_or(Field::Null, Field::Text)
    }
}

impl From<u32> for Field<'_> {
    fn from(value: u32) -> Self {
        Field::Integer(i64::from(value))
    }
}

/// A CSV file being written for one `COPY`.
pub(crate) struct BulkFile {
    path: PathBuf,
    out: BufWriter<File>,
    width: usize,
    rows: usize,
}

impl BulkFile {
    pub(crate) fn create(path: PathBuf, width: usize) -> Result<Self, GraphDbError> {
        let file = File::create(&path).map_err(|e| GraphDbError::io("create", &path, e))?;
        Ok(BulkFile {
            path,
            out: BufWriter::new(file),
            width,
            rows: 0,
        })
    }

    pub(crate) fn row(&mut self, fields: &[Field<'_>]) -> Result<(), GraphDbError> {
        if fields.len() != self.width {
            return Err(GraphDbError::Schema(format!(
                "a row of {} has {} fields where its table declares {}",
                self.path.display(),
                fields.len(),
                self.width
            )));
        }
        let out = &mut self.out;
        let written = fields
            .iter()
            .enumerate()
            .try_for_each(|(i, field)| {
                if i > 0 {
                    out.write_all(b",")?;
                }
                match field {
                    Field::Text(text) => quote(out, text),
                    Field::Owned(text) => quote(out, text),
                    // A key is base32: nothing in it needs escaping.
                    Field::Key(key) => write!(out, "\"{key}\""),
                    Field::Integer(value) => write!(out, "{value}"),
                    Field::Boolean(value) => out.write_all(if *value { b"true" } else { b"false" }),
                    Field::Null => Ok(()),
                }
            })
            .and_then(|()| out.write_all(b"\n"));
        written.map_err(|e| GraphDbError::io("write", &self.path, e))?;
        self.rows += 1;
        Ok(())
    }

    /// Flushes the file; its path and how many rows it holds.
    pub(crate) fn finish(mut self) -> Result<(PathBuf, usize), GraphDbError> {
        self.out
            .flush()
            .map_err(|e| GraphDbError::io("write", &self.path, e))?;
        Ok((self.path, self.rows))
    }
}

/// `text` quoted, a quote inside it doubled; written straight into the file, with no copy.
fn quote(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    out.write_all(b"\"")?;
    for (i, part) in text.split('"').enumerate() {
        if i > 0 {
            out.write_all(b"\"\"")?;
        }
        out.write_all(part.as_bytes())?;
    }
    out.write_all(b"\"")
}

/// The `COPY` statement that loads `file` into `table` (`pair` names the endpoints of a
/// relationship table that joins more than one pair).
pub(crate) fn copy_statement(table: &str, file: &Path, pair: Option<(&str, &str)>) -> String {
    let mut options = String::new();
    if let Some((from, to)) = pair {
        options.push_str(&format!("from='{from}', to='{to}', "));
    }
    // Serial and without detection: a quoted text may hold a newline, and every column's
    // type is the schema's.
    options.push_str(
        "header=false, parallel=false, auto_detect=false, delim=',', quote='\"', escape='\"'",
    );
    format!(
        "COPY {table} FROM '{}' ({options})",
        file.display().to_string().replace('\'', "\\'")
    )
}
