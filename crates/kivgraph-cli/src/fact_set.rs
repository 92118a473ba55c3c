//! A fact set on disk: one repository recorded by `index --facts-only`, for `rebuild
//! --facts` to merge anywhere. Three parts: a header line naming the format and what
//! recorded it (`record_identity`: release and grammars), a line holding the BLAKE3 of the
//! body, and the body (`postcard`). A file whose body does not match its digest, or that
//! another build recorded, is refused whole.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, bail};
use kivgraph_engine::{RecordedRepository, record_identity};
use serde::{Deserialize, Serialize};

use crate::publication::Checkout;

const FORMAT: &str = "kivgraph-fact-set/1";

/// What one fact set holds.
#[derive(Debug, Serialize, Deserialize)]
pub struct FactSetFile {
    /// Where the recorded checkout stood.
    pub checkout: Checkout,
    pub repository: RecordedRepository,
}

fn header() -> String {
    format!("{FORMAT};{}", record_identity())
}

impl FactSetFile {
    /// Writes the fact set to `path` whole or not at all (a temporary file beside it,
    /// renamed over it); its size in bytes.
    pub fn write(&self, path: &Path) -> anyhow::Result<u64> {
        let body = postcard::to_allocvec(self).context("encoding the fact set")?;
        let directory = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        std::fs::create_dir_all(directory)
            .with_context(|| format!("creating {}", directory.display()))?;
        let mut file = tempfile::NamedTempFile::new_in(directory)
            .with_context(|| format!("writing in {}", directory.display()))?;
        writeln!(file, "{}", header())?;
        writeln!(file, "{}", blake3::hash(&body).to_hex())?;
        file.write_all(&body)?;
        file.as_file().sync_all()?;
        file.persist(path)
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(std::fs::metadata(path)?.len())
    }

    pub fn read(path: &Path) -> anyhow::Result<FactSetFile> {
        let bytes = std::fs::read(path)
            .with_context(|| format!("fact set {}: cannot be read", path.display()))?;
        let mut parts = bytes.splitn(3, |b| *b == b'\n');
        let (Some(head), Some(digest), Some(body)) = (parts.next(), parts.next(), parts.next())
        else {
            bail!(
                "fact set {}: not a fact set (write one with kivgraph index --facts-only)",
                path.display()
            );
        };
        let head = String::from_utf8_lossy(head);
        let Some(recorded_by) = head.strip_prefix(&format!("{FORMAT};")) else {
            bail!(
                "fact set {}: not a fact set of format {FORMAT} (write one with kivgraph index --facts-only)",
                path.display()
            );
        };
        if recorded_by != record_identity() {
            bail!(
                "fact set {}: recorded by {recorded_by}, and this build is {}: record it again with this release",
                path.display(),
                record_identity()
            );
        }
        if digest != blake3::hash(body).to_hex().as_bytes() {
            bail!(
                "fact set {}: damaged (its body does not match its digest): record it again",
                path.display()
            );
        }
        postcard::from_bytes(body)
            .with_context(|| format!("fact set {}: damaged body", path.display()))
    }
}
