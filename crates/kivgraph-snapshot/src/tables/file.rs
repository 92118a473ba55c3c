//! Files: the page's files, each in its repository and package, with its run of
//! declarations (symbols are sorted by file, so each file's are consecutive).

use kivgraph_facts::{FactSet, Language};

use crate::bytes::{Fields, Out, read_u8, read_u32};
use crate::error::{SnapshotError, WriteError};
use crate::fields::file::*;
use crate::format::SectionKind;
use crate::page::Page;
use crate::tables::{Arena, Positions, invalid, run_fits, runs};

pub(crate) fn write<'a>(
    facts: &'a FactSet,
    positions: &Positions<'a>,
    arena: &mut Arena<'a>,
) -> Result<Out, WriteError> {
    let symbol_runs = runs(
        facts.files.len(),
        positions.symbol_files.iter().map(|file| Some(*file)),
    );
    let mut out = Out::new(facts.files.len() * LEN);
    for (file, (symbol_start, symbol_count)) in facts.files.iter().zip(symbol_runs) {
        out.record(
            Fields::<LEN>::new()
                .key(KEY, &file.key.0)
                .key(FINGERPRINT, &file.fingerprint.0)
                .u32(REPOSITORY, positions.repository(&file.repository))
                .u32(PACKAGE, positions.package(&file.package))
                .str(PATH, arena.add(&file.path)?)
                .u8(LANGUAGE, file.language.code())
                .u32(LINE_COUNT, file.line_count)
                .u64(BYTE_LEN, file.byte_len)
                .u32(SYMBOL_START, symbol_start)
                .u32(SYMBOL_COUNT, symbol_count)
                .u32(PARSE_ISSUES, file.parse_issues.len() as u32),
        );
    }
    Ok(out)
}

pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let repositories = page.count(SectionKind::Repositories);
    let packages = page.count(SectionKind::Packages);
    let symbols = page.count(SectionKind::Symbols);
    for i in 0..page.count(SectionKind::Files) {
        let r = page.record(SectionKind::Files, i);
        if read_u32(r, REPOSITORY) as usize >= repositories
            || read_u32(r, PACKAGE) as usize >= packages
        {
            return Err(invalid("file", i, "repository or package out of range"));
        }
        page.check_str("file", i, r, PATH)?;
        Language::from_code(read_u8(r, LANGUAGE))
            .map_err(|e| invalid("file", i, &e.to_string()))?;
        if !run_fits(
            read_u32(r, SYMBOL_START),
            read_u32(r, SYMBOL_COUNT),
            symbols,
        ) {
            return Err(invalid("file", i, "symbol run out of range"));
        }
    }
    Ok(())
}
