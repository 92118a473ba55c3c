//! The fact cache: salsa's memo tables persisted between processes, in two files.
//!
//! `engine.cache`, the database, starts with a header line naming the cache identity — the
//! kivgraph release, a digest of the running executable (its build id) and the grammar
//! versions — so a new binary never trusts an old cache; a second line holds the BLAKE3 of
//! the body, the serialized database, in which each stored memo value is named by digest.
//! `values.bin` holds those values (`values.rs`), appended and `fsync`ed before the database
//! that names them is written. A database whose body does not match its digest, or that
//! names a value the value file lacks, is `Corrupt` and ignored: it is written without
//! `fsync` (a cache, rebuilt when lost), so a crash may leave it torn, never trusted.

use std::io::{BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::database::EngineDatabase;
use crate::values::{self, Appender, Values};

const FORMAT: &str = "kivgraph-fact-cache/2";
const FILE_NAME: &str = "engine.cache";

/// What a cache entry must match to be served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheIdentity(pub String);

impl CacheIdentity {
    /// The identity of the running build: release, executable digest, grammars. The
    /// digest is the linker's GNU build id when the executable carries one (reading it costs
    /// a page, where hashing a release binary costs a tenth of a second), else a BLAKE3 of
    /// the whole file.
    pub fn of_this_build() -> Self {
        let executable = std::env::current_exe()
            .ok()
            .and_then(|path| {
                let head = read_head(&path, 64 * 1024).ok()?;
                match gnu_build_id(&head) {
                    Some(id) => Some(format!("build-id:{id}")),
                    None => std::fs::read(path)
                        .ok()
                        .map(|bytes| blake3::hash(&bytes).to_hex().to_string()),
                }
            })
            .unwrap_or_else(|| "unknown-executable".to_string());
        CacheIdentity(format!(
            "{FORMAT};kivgraph={};exe={executable};{}",
            env!("CARGO_PKG_VERSION"),
            kivgraph_syntax::GRAMMAR_VERSIONS
        ))
    }
}

fn read_head(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)?
        .take(limit)
        .read_to_end(&mut head)?;
    Ok(head)
}

/// The `NT_GNU_BUILD_ID` note of a little-endian ELF64 image, hex-encoded, when its program
/// headers and notes lie within `image` (they sit at the start of every linked executable).
fn gnu_build_id(image: &[u8]) -> Option<String> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(image.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(image.get(at..at + 4)?.try_into().ok()?));
    let u64_at = |at: usize| {
        let value = u64::from_le_bytes(image.get(at..at + 8)?.try_into().ok()?);
        usize::try_from(value).ok()
    };
    // Magic, ELFCLASS64, little-endian.
    if image.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    const PT_NOTE: u32 = 4;
    const NT_GNU_BUILD_ID: u32 = 3;
    let program_headers = u64_at(0x20)?;
    let entry_size = usize::from(u16_at(0x36)?);
    let entries = usize::from(u16_at(0x38)?);
    let align4 = |n: usize| n.checked_add(3).map(|n| n & !3);
    for index in 0..entries {
        let header = program_headers.checked_add(index.checked_mul(entry_size)?)?;
        if u32_at(header)? != PT_NOTE {
            continue;
        }
        let start = u64_at(header + 0x08)?;
        let end = start.checked_add(u64_at(header + 0x20)?)?;
        let mut note = start;
        while note.checked_add(12)? <= end {
            let name_size = u32_at(note)? as usize;
            let description_size = u32_at(note + 4)? as usize;
            let kind = u32_at(note + 8)?;
            let name = note + 12;
            let description = name.checked_add(align4(name_size)?)?;
            if kind == NT_GNU_BUILD_ID && image.get(name..name + name_size)? == b"GNU\0" {
                let id = image.get(description..description.checked_add(description_size)?)?;
                return Some(id.iter().map(|b| format!("{b:02x}")).collect());
            }
            note = description.checked_add(align4(description_size)?)?;
        }
    }
    None
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
    /// Not loaded: the pass's inputs are those of the published generation, which is
    /// republished.
    NotNeeded,
    /// Not loaded: the memos of the last pass, kept in this process, were used.
    Kept,
}

pub fn cache_file(directory: &Path) -> PathBuf {
    directory.join(FILE_NAME)
}

/// The bytes the fact cache in `directory` takes: its database and its value file.
pub fn size_on_disk(directory: &Path) -> Option<u64> {
    let database = std::fs::metadata(cache_file(directory)).ok()?.len();
    let values = std::fs::metadata(directory.join(values::FILE_NAME))
        .map(|m| m.len())
        .unwrap_or(0);
    Some(database + values)
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
    let mut digest = String::new();
    if let Err(err) = reader.read_line(&mut digest) {
        return CacheLoad::Corrupt(err.to_string());
    }
    let mut body = Vec::new();
    if let Err(err) = std::io::Read::read_to_end(&mut reader, &mut body) {
        return CacheLoad::Corrupt(err.to_string());
    }
    if blake3::Hasher::new()
        .update_rayon(&body)
        .finalize()
        .to_hex()
        .as_str()
        != digest.trim_end()
    {
        return CacheLoad::Corrupt("the body does not match its digest".into());
    }
    let values = match Values::open(directory) {
        Ok(Some(values)) => values,
        Ok(None) => return CacheLoad::Corrupt(format!("{} is missing", values::FILE_NAME)),
        Err(reason) => {
            // Its damaged records would pass for held ones: the next save starts it again.
            let _ = std::fs::remove_file(directory.join(values::FILE_NAME));
            return CacheLoad::Corrupt(reason);
        }
    };
    let mut deserializer = postcard::Deserializer::from_bytes(&body);
    let mut candidate = EngineDatabase::default();
    let restored = crate::stored::reading(values, || {
        <dyn salsa::Database>::deserialize(&mut candidate, &mut deserializer)
    });
    match restored {
        Ok(()) => {
            crate::persisted::attach_restored_queries(&mut candidate);
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

/// Appends the values no save wrote yet to the value file and makes them durable, then
/// writes the database atomically (temporary file, then rename), streaming its body through
/// its digest. Returns the bytes the cache takes on disk.
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
    let temporary = directory.join(format!("{FILE_NAME}.tmp-{}", std::process::id()));
    let mut file = std::fs::File::create(&temporary).map_err(io)?;
    let header = format!("{}\n", identity.0);
    file.write_all(header.as_bytes()).map_err(io)?;
    file.write_all(format!("{}\n", "0".repeat(64)).as_bytes())
        .map_err(io)?;
    // Buffered in front of the digest, so that it hashes large blocks.
    let mut body = BufWriter::with_capacity(
        1 << 20,
        Digesting {
            inner: file,
            hasher: blake3::Hasher::new(),
            written: 0,
            failure: None,
        },
    );
    let appender = Appender::open(directory).map_err(io)?;
    let (written, mut appender) = crate::stored::writing(appender, || {
        postcard::to_io(&<dyn salsa::Database>::as_serialize(db), &mut body).map(|_| ())
    });
    if let Err(error) = written {
        // postcard reports any failed write as a full buffer: say what the disk said.
        let failure = body.get_mut().failure.take().or(appender.failure.take());
        return Err(match failure {
            Some(source) => io(source),
            None => CacheWriteError::Serialize(error.to_string()),
        });
    }
    let values_bytes = appender.finish().map_err(io)?;
    let Digesting {
        inner: mut file,
        hasher,
        written,
        ..
    } = body.into_inner().map_err(|e| io(e.into_error()))?;
    file.seek(SeekFrom::Start(header.len() as u64))
        .map_err(io)?;
    file.write_all(hasher.finalize().to_hex().as_bytes())
        .map_err(io)?;
    drop(file);
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
    Ok(written + values_bytes)
}

/// A writer that hashes what passes through it.
struct Digesting<W> {
    inner: W,
    hasher: blake3::Hasher,
    written: u64,
    /// The first write that failed, kept for the error message.
    failure: Option<std::io::Error>,
}

impl<W: Write> Write for Digesting<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes).inspect_err(|error| {
            self.failure
                .get_or_insert_with(|| std::io::Error::new(error.kind(), error.to_string()));
        })?;
        self.hasher.update(&bytes[..written]);
        self.written += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_id_of_a_linked_executable_is_read_from_its_first_pages() {
        let exe = std::env::current_exe().unwrap();
        let head = read_head(&exe, 64 * 1024).unwrap();
        if cfg!(target_os = "linux") {
            let id = gnu_build_id(&head).expect("the linker wrote a build id");
            assert!(id.len() >= 16 && id.chars().all(|c| c.is_ascii_hexdigit()));
            // Every prefix of the image either finds the same note or none: no panic, no
            // out-of-bounds read, whatever the cut.
            for cut in (0..head.len()).step_by(97) {
                let found = gnu_build_id(&head[..cut]);
                assert!(found.is_none() || found.as_deref() == Some(id.as_str()));
            }
        }
        assert_eq!(gnu_build_id(b"not an executable"), None);
    }
}
