//! The fact cache: salsa's memo tables persisted between processes.
//!
//! The file starts with a header line naming the cache identity — the kivgraph release, a
//! digest of the running executable and the grammar versions — so a new binary never trusts
//! an old cache; the body is the serialized database.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::database::EngineDatabase;

const FORMAT: &str = "kivgraph-fact-cache/1";
const FILE_NAME: &str = "engine.cache";

/// What a cache entry must match to be served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheIdentity(pub String);

impl CacheIdentity {
    /// The identity of the running build: release, executable digest, grammars.
    pub fn of_this_build() -> Self {
        let executable = std::env::current_exe()
            .ok()
            .and_then(|path| std::fs::read(path).ok())
            .map(|bytes| blake3::hash(&bytes).to_hex().to_string())
            .unwrap_or_else(|| "unknown-executable".to_string());
        CacheIdentity(format!(
            "{FORMAT};kivgraph={};exe={executable};{}",
            env!("CARGO_PKG_VERSION"),
            kivgraph_syntax::GRAMMAR_VERSIONS
        ))
    }
}

/// How a cache load went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheLoad {
    /// Memos were restored.
    Loaded,
    /// No cache file yet.
    Absent,
    /// A cache from another build or format: ignored, replaced at the end of the pass.
    Foreign,
    /// Unreadable or corrupt: ignored, replaced at the end of the pass.
    Corrupt(String),
}

pub fn cache_file(directory: &Path) -> PathBuf {
    directory.join(FILE_NAME)
}

/// Restores `db` from the cache, or leaves it empty and says why.
pub fn load(db: &mut EngineDatabase, directory: &Path, identity: &CacheIdentity) -> CacheLoad {
    let path = cache_file(directory);
    let file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return CacheLoad::Absent,
        Err(err) => return CacheLoad::Corrupt(err.to_string()),
    };
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut header = String::new();
    if let Err(err) = reader.read_line(&mut header) {
        return CacheLoad::Corrupt(err.to_string());
    }
    if header.trim_end() != identity.0 {
        return CacheLoad::Foreign;
    }
    let mut body = Vec::new();
    if let Err(err) = std::io::Read::read_to_end(&mut reader, &mut body) {
        return CacheLoad::Corrupt(err.to_string());
    }
    let mut deserializer = postcard::Deserializer::from_bytes(&body);
    let mut candidate = EngineDatabase::default();
    match <dyn salsa::Database>::deserialize(&mut candidate, &mut deserializer) {
        Ok(()) => {
            *db = candidate;
            CacheLoad::Loaded
        }
        Err(err) => CacheLoad::Corrupt(err.to_string()),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CacheWriteError {
    #[error("cannot write the fact cache {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot serialize the fact cache: {0}")]
    Serialize(String),
}

/// Writes the database atomically (temporary file, then rename).
pub fn save(
    db: &mut EngineDatabase,
    directory: &Path,
    identity: &CacheIdentity,
) -> Result<u64, CacheWriteError> {
    let io = |source| CacheWriteError::Io {
        path: directory.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(directory).map_err(io)?;
    let body = postcard::to_stdvec(&<dyn salsa::Database>::as_serialize(db))
        .map_err(|e| CacheWriteError::Serialize(e.to_string()))?;
    let temporary = directory.join(format!("{FILE_NAME}.tmp-{}", std::process::id()));
    let mut writer = BufWriter::new(std::fs::File::create(&temporary).map_err(io)?);
    writer.write_all(identity.0.as_bytes()).map_err(io)?;
    writer.write_all(b"\n").map_err(io)?;
    writer.write_all(&body).map_err(io)?;
    let file = writer.into_inner().map_err(|e| io(e.into_error()))?;
    file.sync_all().map_err(io)?;
    std::fs::rename(&temporary, cache_file(directory)).map_err(io)?;
    // A writer killed between create and rename leaves its temporary behind.
    if let Ok(entries) = std::fs::read_dir(directory) {
        for entry in entries.flatten() {
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with(&format!("{FILE_NAME}.tmp-"))
            {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    Ok(body.len() as u64)
}
