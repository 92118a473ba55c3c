//! A client's configuration file, edited in place: the entry named `kivgraph` under one
//! section read, set or removed, and every other byte left as it was (JSON with comments
//! through a concrete syntax tree, TOML through `toml_edit`), written as `safe_file` writes.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use serde_json::Value;

use super::clients::Format;
use super::safe_file;

/// The server's name in every client.
pub const NAME: &str = "kivgraph";

/// A configuration file as read: its text (empty when absent) and format.
pub struct ConfigFile {
    pub path: PathBuf,
    format: Format,
    text: String,
}

impl ConfigFile {
    /// Reads `path`, refusing a symlink or a non-regular file, and checks it parses with
    /// its section a table.
    pub fn read(path: &Path, format: Format, section: &str) -> anyhow::Result<Self> {
        let text = safe_file::read_regular(path)?;
        let file = ConfigFile {
            path: path.to_path_buf(),
            format,
            text: text.unwrap_or_default(),
        };
        file.section_value(section)?;
        Ok(file)
    }

    /// The whole document as JSON values (TOML converted), checked: the top level and the
    /// section must be tables.
    fn section_value(&self, section: &str) -> anyhow::Result<Option<Value>> {
        let document: Value = if self.text.trim().is_empty() {
            Value::Object(Default::default())
        } else {
            match self.format {
                Format::Json => jsonc_parser::parse_to_serde_value::<Value>(
                    &self.text,
                    &ParseOptions::default(),
                )
                .with_context(|| {
                    format!("{} does not parse as JSON: left alone", self.path.display())
                })?,
                Format::Toml => {
                    let table: toml::Table = toml::from_str(&self.text).with_context(|| {
                        format!("{} does not parse as TOML: left alone", self.path.display())
                    })?;
                    serde_json::to_value(table)?
                }
            }
        };
        let Value::Object(top) = document else {
            bail!(
                "{}: the top level is not an object: left alone",
                self.path.display()
            );
        };
        match top.get(section) {
            None => Ok(None),
            Some(value @ Value::Object(_)) => Ok(Some(value.clone())),
            Some(_) => bail!(
                "{}: `{section}` is not a table: left alone",
                self.path.display()
            ),
        }
    }

    /// The entry named `kivgraph` in `section`, as JSON.
    pub fn entry(&self, section: &str) -> anyhow::Result<Option<Value>> {
        Ok(self
            .section_value(section)?
            .and_then(|table| table.get(NAME).cloned()))
    }

    /// The text with the entry set to `entry` (or removed, for `None`).
    pub fn edited(&self, section: &str, entry: Option<&Value>) -> anyhow::Result<String> {
        match self.format {
            Format::Json => {
                let text = if self.text.trim().is_empty() {
                    "{}\n"
                } else {
                    &self.text
                };
                let root = CstRootNode::parse(text, &ParseOptions::default())
                    .with_context(|| format!("{} does not parse as JSON", self.path.display()))?;
                let top = root.object_value_or_set();
                match entry {
                    Some(entry) => {
                        let servers = top.object_value_or_set(section);
                        match servers.get(NAME) {
                            Some(existing) => existing.set_value(cst_value(entry)),
                            None => {
                                servers.append(NAME, cst_value(entry));
                            }
                        }
                    }
                    None => {
                        if let Some(existing) = top.object_value(section).and_then(|s| s.get(NAME))
                        {
                            existing.remove();
                        }
                    }
                }
                Ok(root.to_string())
            }
            Format::Toml => {
                let mut document: toml_edit::DocumentMut = self.text.parse()?;
                let servers = document
                    .entry(section)
                    .or_insert_with(|| {
                        let mut table = toml_edit::Table::new();
                        table.set_implicit(true);
                        toml_edit::Item::Table(table)
                    })
                    .as_table_mut()
                    .context("the section is not a table")?;
                match entry {
                    Some(entry) => {
                        servers.insert(NAME, toml_edit::Item::Table(toml_table(entry)?));
                    }
                    None => {
                        servers.remove(NAME);
                    }
                }
                Ok(document.to_string())
            }
        }
    }

    /// Writes `text` over the file (see [`safe_file::write`]).
    pub fn write(&self, text: &str) -> anyhow::Result<()> {
        safe_file::write(&self.path, text)
    }
}

/// A JSON value as the syntax tree takes it.
fn cst_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_value).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), cst_value(v))).collect())
        }
    }
}

/// A JSON object as a TOML table (strings, arrays of strings and inline tables of strings:
/// what an entry holds).
fn toml_table(entry: &Value) -> anyhow::Result<toml_edit::Table> {
    let mut table = toml_edit::Table::new();
    for (key, value) in entry.as_object().context("an entry is an object")? {
        table.insert(key, toml_edit::value(toml_value(value)?));
    }
    Ok(table)
}

fn toml_value(value: &Value) -> anyhow::Result<toml_edit::Value> {
    Ok(match value {
        Value::String(s) => s.as_str().into(),
        Value::Bool(b) => (*b).into(),
        Value::Array(items) => {
            let mut array = toml_edit::Array::new();
            for item in items {
                array.push(toml_value(item)?);
            }
            toml_edit::Value::Array(array)
        }
        Value::Object(map) => {
            let mut inline = toml_edit::InlineTable::new();
            for (key, value) in map {
                inline.insert(key, toml_value(value)?);
            }
            toml_edit::Value::InlineTable(inline)
        }
        other => bail!("{other} has no place in a TOML entry"),
    })
}
