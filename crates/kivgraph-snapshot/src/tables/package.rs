//! Packages: the page's packages, each in its repository.

use kivgraph_facts::{FactSet, Language};

use crate::bytes::{Fields, Out, read_u8, read_u32};
use crate::error::{SnapshotError, WriteError};
use crate::fields::package::*;
use crate::format::SectionKind;
use crate::page::Page;
use crate::tables::{Arena, Positions, invalid};

pub(crate) fn write<'a>(
    facts: &'a FactSet,
    positions: &Positions<'a>,
    arena: &mut Arena<'a>,
) -> Result<Out, WriteError> {
    let mut out = Out::new(facts.packages.len() * LEN);
    for package in &facts.packages {
        out.record(
            Fields::<LEN>::new()
                .key(KEY, &package.key.0)
                .u32(REPOSITORY, positions.repository(&package.repository))
                .u8(LANGUAGE, package.language.code())
                .str(NAME, arena.add(&package.name)?)
                .str(PATH, arena.add(&package.path)?),
        );
    }
    Ok(out)
}

pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let repositories = page.count(SectionKind::Repositories);
    for i in 0..page.count(SectionKind::Packages) {
        let r = page.record(SectionKind::Packages, i);
        if read_u32(r, REPOSITORY) as usize >= repositories {
            return Err(invalid("package", i, "repository out of range"));
        }
        Language::from_code(read_u8(r, LANGUAGE))
            .map_err(|e| invalid("package", i, &e.to_string()))?;
        page.check_str("package", i, r, NAME)?;
        page.check_str("package", i, r, PATH)?;
    }
    Ok(())
}
