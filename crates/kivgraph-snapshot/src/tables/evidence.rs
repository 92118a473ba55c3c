//! Evidence: the observations backing edges, each a span of a file of the page or, flagged
//! `EXTERNAL_FILE`, of a row of `ExternalFiles`.

use std::collections::BTreeMap;

use kivgraph_facts::FactSet;

use crate::bytes::{Fields, Out, read_u32};
use crate::error::{SnapshotError, WriteError};
use crate::fields::evidence::*;
use crate::format::SectionKind;
use crate::page::Page;
use crate::tables::{Positions, first_error, invalid};

pub(crate) fn write<'a>(
    facts: &'a FactSet,
    positions: &Positions<'a>,
    external_files: &BTreeMap<(u32, &'a str), u32>,
) -> Result<Out, WriteError> {
    let mut out = Out::new(facts.evidence.len() * LEN);
    for row in &facts.evidence {
        let repository = positions.repository(&row.repository);
        let path = row.file_path.as_str();
        let file = match positions.files.get(&(row.repository.as_str(), path)) {
            Some(file) => *file,
            None => EXTERNAL_FILE | external_files[&(repository, path)],
        };
        out.record(
            Fields::<LEN>::new()
                .key(KEY, &row.key.0)
                .u32(REPOSITORY, repository)
                .u32(FILE, file)
                .u32(START_LINE, row.span.start_line)
                .u32(END_LINE, row.span.end_line)
                .u32(START_BYTE, row.span.start_byte)
                .u32(END_BYTE, row.span.end_byte),
        );
    }
    Ok(out)
}

pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let repositories = page.count(SectionKind::Repositories);
    let files = page.count(SectionKind::Files);
    let external_files = page.count(SectionKind::ExternalFiles);
    first_error(page.count(SectionKind::Evidence), |i| {
        let r = page.record(SectionKind::Evidence, i);
        let file = read_u32(r, FILE);
        let file_in_range = if file & EXTERNAL_FILE != 0 {
            ((file & !EXTERNAL_FILE) as usize) < external_files
        } else {
            (file as usize) < files
        };
        if read_u32(r, REPOSITORY) as usize >= repositories || !file_in_range {
            return Err(invalid("evidence", i, "repository or file out of range"));
        }
        Ok(())
    })
}
