//! Symbols: the page's declarations, sorted by file, each with its file, package, enclosing
//! declaration, kind, flags, strings and span.

use kivgraph_facts::{FactSet, Language, SymbolKind};

use crate::bytes::{Fields, Out, read_u8, read_u32};
use crate::error::{SnapshotError, WriteError};
use crate::fields::symbol::*;
use crate::format::{NONE, SectionKind};
use crate::page::Page;
use crate::tables::{Arena, Positions, first_error, invalid};

pub(crate) fn write<'a>(
    facts: &'a FactSet,
    positions: &Positions<'a>,
    arena: &mut Arena<'a>,
) -> Result<Out, WriteError> {
    let mut out = Out::new(facts.symbols.len() * LEN);
    for (symbol, file) in facts.symbols.iter().zip(&positions.symbol_files) {
        let parent = match symbol.parent {
            Some(parent) => *positions
                .symbols
                .get(&parent)
                .ok_or(WriteError::DanglingEdge {
                    kind: "parent",
                    key: parent,
                })?,
            None => NONE,
        };
        let mut flags = 0;
        if symbol.exported {
            flags |= FLAG_EXPORTED;
        }
        if symbol.doc.is_some() {
            flags |= FLAG_HAS_DOC;
        }
        out.record(
            Fields::<LEN>::new()
                .key(KEY, &symbol.key.0)
                .u32(FILE, *file)
                .u32(PACKAGE, positions.package(&symbol.package))
                .u32(PARENT, parent)
                .u8(KIND, symbol.kind.code())
                .u8(LANGUAGE, symbol.language.code())
                .u8(FLAGS, flags)
                .str(NAME, arena.add(&symbol.name)?)
                .str(QUALIFIED_NAME, arena.add(&symbol.qualified_name)?)
                .str(SIGNATURE, arena.add(&symbol.signature)?)
                .str(DOC, arena.add(symbol.doc.as_deref().unwrap_or(""))?)
                .str(KEY_MODULE, arena.add(&symbol.key_module)?)
                .str(KEY_DISCRIMINATOR, arena.add(&symbol.key_discriminator)?)
                .u32(START_LINE, symbol.span.start_line)
                .u32(END_LINE, symbol.span.end_line)
                .u32(START_BYTE, symbol.span.start_byte)
                .u32(END_BYTE, symbol.span.end_byte),
        );
    }
    Ok(out)
}

pub(crate) fn validate(page: &Page) -> Result<(), SnapshotError> {
    let files = page.count(SectionKind::Files);
    let packages = page.count(SectionKind::Packages);
    let symbols = page.count(SectionKind::Symbols);
    first_error(symbols, |i| {
        let r = page.record(SectionKind::Symbols, i);
        let parent = read_u32(r, PARENT);
        if read_u32(r, FILE) as usize >= files
            || read_u32(r, PACKAGE) as usize >= packages
            || (parent != NONE && parent as usize >= symbols)
        {
            return Err(invalid("symbol", i, "file, package or parent out of range"));
        }
        SymbolKind::from_code(read_u8(r, KIND))
            .map_err(|e| invalid("symbol", i, &e.to_string()))?;
        Language::from_code(read_u8(r, LANGUAGE))
            .map_err(|e| invalid("symbol", i, &e.to_string()))?;
        for at in [
            NAME,
            QUALIFIED_NAME,
            SIGNATURE,
            DOC,
            KEY_MODULE,
            KEY_DISCRIMINATOR,
        ] {
            page.check_str("symbol", i, r, at)?;
        }
        if read_u32(r, START_LINE) > read_u32(r, END_LINE)
            || read_u32(r, START_BYTE) > read_u32(r, END_BYTE)
        {
            return Err(invalid("symbol", i, "span ends before it starts"));
        }
        Ok(())
    })
}
