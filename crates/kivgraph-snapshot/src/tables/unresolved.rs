//! Unresolved references: every failure, with its reason, where it happened when known and
//! what it asked for; flags say which optional fields are present.

use kivgraph_facts::{FactSet, Language};

use crate::bytes::{Fields, Out, read_u8, read_u32};
use crate::error::{SnapshotError, WriteError};
use crate::fields::unresolved::*;
use crate::format::{NONE, SectionKind};
use crate::page::Page;
use crate::tables::{Arena, Positions, first_error, invalid};

pub(crate) fn write<'a>(
    facts: &'a FactSet,
    positions: &Positions<'a>,
    arena: &mut Arena<'a>,
) -> Result<Out, WriteError> {
    let mut out = Out::new(facts.unresolved.len() * LEN);
    for row in &facts.unresolved {
        let mut flags = 0;
        for (present, flag) in [
            (row.file_path.is_some(), HAS_FILE),
            (row.span.is_some(), HAS_SPAN),
            (row.requested_symbol.is_some(), HAS_SYMBOL),
            (row.requested_package.is_some(), HAS_PACKAGE),
        ] {
            if present {
                flags |= flag;
            }
        }
        let text = |field: &'a Option<String>| field.as_deref().unwrap_or("");
        out.record(
            Fields::<LEN>::new()
                .u32(REPOSITORY, positions.repository(&row.repository))
                .u8(LANGUAGE, row.language.code())
                .u8(FLAGS, flags)
                .str(REASON, arena.add(row.reason.as_str())?)
                .str(FILE, arena.add(text(&row.file_path))?)
                .str(REQUESTED_SYMBOL, arena.add(text(&row.requested_symbol))?)
                .str(REQUESTED_PACKAGE, arena.add(text(&row.requested_package))?)
                .str(DETAIL, arena.add(&row.detail)?)
                .u32(START_LINE, row.span.map(|s| s.start_line).unwrap_or(0))
                .u32(END_LINE, row.span.map(|s| s.end_line).unwrap_or(0)),
        );
    }
    Ok(out)
}

pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let repositories = page.count(SectionKind::Repositories);
    first_error(page.count(SectionKind::Unresolved), |i| {
        let r = page.record(SectionKind::Unresolved, i);
        let repository = read_u32(r, REPOSITORY);
        if repository != NONE && repository as usize >= repositories {
            return Err(invalid("unresolved", i, "repository out of range"));
        }
        Language::from_code(read_u8(r, LANGUAGE))
            .map_err(|e| invalid("unresolved", i, &e.to_string()))?;
        for at in [REASON, FILE, REQUESTED_SYMBOL, REQUESTED_PACKAGE, DETAIL] {
            page.check_str("unresolved", i, r, at)?;
        }
        Ok(())
    })
}
