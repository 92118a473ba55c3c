//! Repositories: every page carries all of them, in one order, each with its run of the
//! page's files.

use kivgraph_facts::{FactSet, Language};

use crate::bytes::{Fields, Out, read_u32};
use crate::error::{SnapshotError, WriteError};
use crate::fields::repository::*;
use crate::format::SectionKind;
use crate::page::Page;
use crate::tables::{Arena, Positions, invalid, run_fits, runs};

pub(crate) fn write<'a>(
    facts: &'a FactSet,
    positions: &Positions<'a>,
    arena: &mut Arena<'a>,
) -> Result<Out, WriteError> {
    let file_runs = runs(
        facts.repositories.len(),
        facts
            .files
            .iter()
            .map(|f| positions.repositories.get(f.repository.as_str()).copied()),
    );
    let mut out = Out::new(facts.repositories.len() * LEN);
    for (repository, (file_start, file_count)) in facts.repositories.iter().zip(file_runs) {
        let languages = repository
            .languages
            .iter()
            .fold(0, |mask, l| mask | language_bit(*l));
        out.record(
            Fields::<LEN>::new()
                .str(NAME, arena.add(&repository.name)?)
                .str(ROOT, arena.add(&repository.root)?)
                .key(KEY, &repository.key.0)
                .u32(LANGUAGES, languages)
                .u32(FILE_START, file_start)
                .u32(FILE_COUNT, file_count),
        );
    }
    Ok(out)
}

pub(crate) fn language_bit(language: Language) -> u32 {
    1 << language.code()
}

pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let files = page.count(SectionKind::Files);
    for i in 0..page.count(SectionKind::Repositories) {
        let r = page.record(SectionKind::Repositories, i);
        page.check_str("repository", i, r, NAME)?;
        page.check_str("repository", i, r, ROOT)?;
        if !run_fits(read_u32(r, FILE_START), read_u32(r, FILE_COUNT), files) {
            return Err(invalid("repository", i, "file run out of range"));
        }
    }
    Ok(())
}
