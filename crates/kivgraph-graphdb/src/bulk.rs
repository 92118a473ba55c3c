//! The files `COPY` loads: CSV, one per table (and per endpoint pair of a relationship), and a
//! second one for the rows whose texts break lines, with every text quoted so that an empty
//! text and a null (an empty, unquoted field) stay apart, and a row's width checked against
//! its table's declaration.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use kivgraph_facts::StableKey;

use crate::error::GraphDbError;

/// One field of a row.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
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

/// One file `COPY` loads: its rows, and whether they may be read in parallel (no field holds
/// a line break, so every row is one line).
pub(crate) struct Staged {
    pub(crate) file: PathBuf,
    pub(crate) rows: usize,
    pub(crate) parallel: bool,
}

/// The CSV a table's rows are written to for `COPY`, as two files: the rows whose texts hold
/// no line break, which LadybugDB may read on every core, and the few that do, read serially
/// (a quoted line break is what a parallel read cannot split at).
pub(crate) struct BulkFile {
    path: PathBuf,
    plain: Part,
    multiline: Option<Part>,
    width: usize,
    /// The row being written, before it is known which file it goes to.
    row: Vec<u8>,
}

struct Part {
    path: PathBuf,
    out: BufWriter<File>,
    rows: usize,
}

impl Part {
    fn create(path: PathBuf) -> Result<Self, GraphDbError> {
        let file = File::create(&path).map_err(|e| GraphDbError::io("create", &path, e))?;
        Ok(Part {
            path,
            out: BufWriter::new(file),
            rows: 0,
        })
    }

    fn write(&mut self, row: &[u8]) -> Result<(), GraphDbError> {
        self.out
            .write_all(row)
            .map_err(|e| GraphDbError::io("write", &self.path, e))?;
        self.rows += 1;
        Ok(())
    }

    fn finish(mut self, parallel: bool) -> Result<Staged, GraphDbError> {
        self.out
            .flush()
            .map_err(|e| GraphDbError::io("write", &self.path, e))?;
        Ok(Staged {
            file: self.path,
            rows: self.rows,
            parallel,
        })
    }
}

impl BulkFile {
    pub(crate) fn create(path: PathBuf, width: usize) -> Result<Self, GraphDbError> {
        Ok(BulkFile {
            plain: Part::create(path.clone())?,
            path,
            multiline: None,
            width,
            row: Vec::new(),
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
        let out = &mut self.row;
        out.clear();
        let mut breaks = false;
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            // Writing into a vector cannot fail.
            let _ = match field {
                Field::Text(text) => quote(out, text, &mut breaks),
                Field::Owned(text) => quote(out, text, &mut breaks),
                // A key is base32: nothing in it needs escaping.
                Field::Key(key) => {
                    out.push(b'"');
                    out.extend_from_slice(&key.base32());
                    out.push(b'"');
                    Ok(())
                }
                Field::Integer(value) => {
                    out.write_all(itoa::Buffer::new().format(*value).as_bytes())
                }
                Field::Boolean(value) => out.write_all(if *value { b"true" } else { b"false" }),
                Field::Null => Ok(()),
            };
        }
        out.push(b'\n');
        if !breaks {
            return self.plain.write(&self.row);
        }
        if self.multiline.is_none() {
            let mut name = self.path.file_stem().unwrap_or_default().to_os_string();
            name.push("-multiline.csv");
            self.multiline = Some(Part::create(self.path.with_file_name(name))?);
        }
        self.multiline
            .as_mut()
            .expect("created above")
            .write(&self.row)
    }

    /// Flushes the files: the plain rows first, then those holding a line break, if any.
    pub(crate) fn finish(self) -> Result<Vec<Staged>, GraphDbError> {
        let mut staged = vec![self.plain.finish(true)?];
        if let Some(multiline) = self.multiline {
            staged.push(multiline.finish(false)?);
        }
        Ok(staged)
    }
}

/// `text` quoted, a quote inside it doubled; `breaks` set when it holds a line break.
fn quote(out: &mut Vec<u8>, text: &str, breaks: &mut bool) -> std::io::Result<()> {
    *breaks |= text.contains(['\n', '\r']);
    out.write_all(b"\"")?;
    for (i, part) in text.split('"').enumerate() {
        if i > 0 {
            out.write_all(b"\"\"")?;
        }
        out.write_all(part.as_bytes())?;
    }
    out.write_all(b"\"")
}

/// The `COPY` statement that loads `staged` into `table` (`pair` names the endpoints of a
/// relationship table that joins more than one pair).
pub(crate) fn copy_statement(table: &str, staged: &Staged, pair: Option<(&str, &str)>) -> String {
    let mut options = String::new();
    if let Some((from, to)) = pair {
        options.push_str(&format!("from='{from}', to='{to}', "));
    }
    // Without detection: every column's type is the schema's.
    options.push_str(&format!(
        "header=false, parallel={}, auto_detect=false, delim=',', quote='\"', escape='\"'",
        staged.parallel
    ));
    format!(
        "COPY {table} FROM '{}' ({options})",
        staged.file.display().to_string().replace('\'', "\\'")
    )
}
