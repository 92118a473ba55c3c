//! A SCIP index, decoded into what the engine joins with the syntax layer.

use protobuf::Message;
use serde::{Deserialize, Serialize};

use crate::AnalyzerError;

/// What one analyzer run said, document by document, in the order it wrote them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct ScipIndex {
    /// The indexer's name and version as its metadata states them.
    pub tool: String,
    pub tool_version: String,
    pub documents: Vec<ScipDocument>,
    /// Files the analyzer was made to leave out because it crashed on them, relative to
    /// where it ran: their uses keep the syntax layer's facts.
    pub skipped: Vec<String>,
    /// What the analyzer could not load and said so (a Cargo workspace whose dependencies
    /// are not available offline): its answers hold, but only for what it did load.
    pub not_loaded: Vec<String>,
    /// `(package, detail)` of packages the build configuration excludes entirely: nothing
    /// of theirs was checked.
    pub unbuildable: Vec<(String, String)>,
    /// `(package, detail)` of packages not checked because what they import could not be
    /// loaded; `module/...` names every package of a module that could not be listed.
    pub unloaded: Vec<(String, String)>,
    /// Dependencies the unit was loaded against a registered source for (a `[patch]`), by
    /// package name: what the answers say of them is that source's, not the lockfile's
    /// release.
    pub patched: Vec<String>,
    /// Rust: `(crate directory relative to the repository, features)` for each member of
    /// the loaded workspace, as cargo resolved them for the load; empty when cargo could
    /// not say.
    #[serde(default)]
    pub member_features: Vec<(String, Vec<String>)>,
}

/// One source file the analyzer read, by its path relative to the directory it ran in.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct ScipDocument {
    pub relative_path: String,
    pub occurrences: Vec<Occurrence>,
    /// `(symbol, implemented)`: the analyzer's `is_implementation` relationships of the
    /// symbols this document defines (a class member implementing an interface member).
    pub implementations: Vec<(String, String)>,
    /// `(symbol, its type)`: the analyzer's `is_type_definition` relationships of the
    /// symbols this document defines (a variable, a field, a function and the type it has).
    pub type_definitions: Vec<(String, String)>,
}

/// A symbol string at a position. Lines are zero-based as SCIP writes them; columns are
/// already byte offsets from the line's start when the text was at hand (see
/// [`Occurrence::to_bytes`]), otherwise the document's own code units.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Occurrence {
    pub start_line: u32,
    pub start_column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub symbol: String,
    pub definition: bool,
    /// How the document counts columns: UTF-8 bytes, UTF-16 code units, or characters.
    pub encoding: ColumnEncoding,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ColumnEncoding {
    Utf8,
    Utf16,
    Utf32,
}

/// SCIP's `SymbolRole.Definition` bit.
const DEFINITION_ROLE: i32 = 1;

impl Occurrence {
    /// A symbol local to one document (a parameter, a local variable): it names no
    /// declaration of the graph.
    pub fn is_local(&self) -> bool {
        self.symbol.starts_with("local ")
    }

    /// The occurrence's byte range in the document as it was analysed, or `None` when the
    /// position lies outside it.
    pub fn to_bytes(&self, lines: &LineIndex) -> Option<(usize, usize)> {
        let start = byte_offset(lines, self.start_line, self.start_column, self.encoding)?;
        let end = byte_offset(lines, self.end_line, self.end_column, self.encoding)?;
        (start <= end).then_some((start, end))
    }
}

/// Where each line of a document starts: positions become byte offsets without rescanning
/// the text for every occurrence.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        LineIndex { text, starts }
    }
}

fn byte_offset(
    lines: &LineIndex,
    line: u32,
    column: u32,
    encoding: ColumnEncoding,
) -> Option<usize> {
    let text = lines.text;
    let line_start = *lines.starts.get(line as usize)?;
    let rest = &text[line_start..];
    let line_text = rest.split('\n').next().unwrap_or(rest);
    let column = column as usize;
    let within = match encoding {
        ColumnEncoding::Utf8 => (column <= line_text.len()).then_some(column)?,
        ColumnEncoding::Utf16 | ColumnEncoding::Utf32 => {
            let mut units = 0;
            let mut at = None;
            for (offset, character) in line_text.char_indices() {
                if units == column {
                    at = Some(offset);
                    break;
                }
                units += match encoding {
                    ColumnEncoding::Utf16 => character.len_utf16(),
                    _ => 1,
                };
            }
            match at {
                Some(offset) => offset,
                None if units == column => line_text.len(),
                None => return None,
            }
        }
    };
    Some(line_start + within)
}

/// Decodes a SCIP index as an indexer wrote it.
pub fn decode(bytes: &[u8]) -> Result<ScipIndex, AnalyzerError> {
    let index = scip::types::Index::parse_from_bytes(bytes)
        .map_err(|e| AnalyzerError::Output(format!("not a SCIP index: {e}")))?;
    let (tool, tool_version) = index
        .metadata
        .as_ref()
        .and_then(|m| m.tool_info.as_ref())
        .map(|t| (t.name.clone(), t.version.clone()))
        .unwrap_or_default();
    let mut documents = Vec::with_capacity(index.documents.len());
    for document in &index.documents {
        let encoding = match document.position_encoding.value() {
            1 => ColumnEncoding::Utf8,
            3 => ColumnEncoding::Utf32,
            // UTF-16 is what the TypeScript and Python indexers count in, and the default.
            _ => ColumnEncoding::Utf16,
        };
        let mut occurrences = Vec::with_capacity(document.occurrences.len());
        for occurrence in &document.occurrences {
            let (start_line, start_column, end_line, end_column) = match occurrence.range[..] {
                [line, start, end] => (line, start, line, end),
                [start_line, start, end_line, end] => (start_line, start, end_line, end),
                _ => {
                    return Err(AnalyzerError::Output(format!(
                        "{}: an occurrence of {} has a range of {} numbers",
                        document.relative_path,
                        occurrence.symbol,
                        occurrence.range.len()
                    )));
                }
            };
            let position = |n: i32| u32::try_from(n).ok();
            let (Some(start_line), Some(start_column), Some(end_line), Some(end_column)) = (
                position(start_line),
                position(start_column),
                position(end_line),
                position(end_column),
            ) else {
                return Err(AnalyzerError::Output(format!(
                    "{}: a negative position for {}",
                    document.relative_path, occurrence.symbol
                )));
            };
            occurrences.push(Occurrence {
                start_line,
                start_column,
                end_line,
                end_column,
                symbol: occurrence.symbol.clone(),
                definition: occurrence.symbol_roles & DEFINITION_ROLE != 0,
                encoding,
            });
        }
        let related = |pick: fn(&scip::types::Relationship) -> bool| {
            document
                .symbols
                .iter()
                .flat_map(|information| {
                    information
                        .relationships
                        .iter()
                        .filter(move |r| pick(r))
                        .map(|r| (information.symbol.clone(), r.symbol.clone()))
                })
                .collect()
        };
        documents.push(ScipDocument {
            relative_path: document.relative_path.clone(),
            occurrences,
            implementations: related(|r| r.is_implementation),
            type_definitions: related(|r| r.is_type_definition),
        });
    }
    Ok(ScipIndex {
        tool,
        tool_version,
        documents,
        ..ScipIndex::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, column: u32, encoding: ColumnEncoding) -> Option<usize> {
        byte_offset(&LineIndex::new("ab\né😀x\n"), line, column, encoding)
    }

    #[test]
    fn columns_become_byte_offsets_in_every_encoding() {
        assert_eq!(at(0, 1, ColumnEncoding::Utf16), Some(1));
        // `é` is two bytes and one UTF-16 unit; `😀` four bytes and two units.
        assert_eq!(at(1, 1, ColumnEncoding::Utf16), Some(5));
        assert_eq!(at(1, 3, ColumnEncoding::Utf16), Some(9));
        assert_eq!(at(1, 2, ColumnEncoding::Utf32), Some(9));
        assert_eq!(at(1, 6, ColumnEncoding::Utf8), Some(9));
        assert_eq!(at(1, 4, ColumnEncoding::Utf16), Some(10));
        assert_eq!(at(1, 5, ColumnEncoding::Utf16), None);
        assert_eq!(at(5, 0, ColumnEncoding::Utf16), None);
    }

    #[test]
    fn garbage_is_refused_with_a_typed_error() {
        assert!(matches!(
            decode(&[0xff, 0xff, 0xff]),
            Err(AnalyzerError::Output(_))
        ));
    }
}
