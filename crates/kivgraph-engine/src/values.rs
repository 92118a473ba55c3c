//! The fact cache's value file: the encoding of every stored memo value, once, named by its
//! BLAKE3, in records appended as new values appear.
//!
//! The database file (`engine.cache`) names a value by digest, so a pass after a one-file
//! edit appends the few values it computed and rewrites only the database, not the hundreds
//! of megabytes of values no edit reached; a new process maps the file and decodes a value
//! only when a query reads it. The file is `fsync`ed before the database that names its new
//! records is written, so a database that loads never names a value that is not on disk.
//! When the records no database names outweigh the live ones, the live ones are copied to a
//! new file.
//!
//! Layout: `MAGIC`, then records of (length: u64 LE, digest: 32 bytes, encoding). A torn
//! last record (a writer killed mid-append) is ignored; every record is checked against its
//! digest when the file is opened, and one that fails makes the whole cache `Corrupt`.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

pub(crate) const FILE_NAME: &str = "values.bin";
const MAGIC: &[u8; 8] = b"KGVALS01";
const RECORD_HEADER: usize = 8 + 32;

pub(crate) type Digest = [u8; 32];

/// A value file opened for reading: mapped, every record checked.
pub(crate) struct Values {
    map: Arc<memmap2::Mmap>,
    records: HashMap<Digest, Range<usize>>,
}

/// Where one value's encoding lies in a mapped value file.
#[derive(Clone)]
pub(crate) struct Mapped {
    map: Arc<memmap2::Mmap>,
    range: Range<usize>,
}

impl Mapped {
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.map[self.range.clone()]
    }
}

impl Values {
    /// Maps the value file in `directory`; `Ok(None)` when there is none.
    pub(crate) fn open(directory: &Path) -> Result<Option<Values>, String> {
        let path = directory.join(FILE_NAME);
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(error.to_string()),
        };
        // SAFETY: the file is only ever appended to (or replaced by a rename) by the one pass
        // holding the store's publish lock, so the mapped bytes do not change under us.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| e.to_string())?;
        let records = scan(&map)?;
        let damaged = records
            .par_iter()
            .find_any(|(digest, range)| blake3::hash(&map[(*range).clone()]).as_bytes() != *digest);
        if let Some((digest, _)) = damaged {
            return Err(format!(
                "{FILE_NAME}: the record {} does not match its digest",
                blake3::Hash::from_bytes(*digest).to_hex()
            ));
        }
        Ok(Some(Values {
            map: Arc::new(map),
            records,
        }))
    }

    pub(crate) fn get(&self, digest: &Digest) -> Option<Mapped> {
        self.records.get(digest).map(|range| Mapped {
            map: Arc::clone(&self.map),
            range: range.clone(),
        })
    }
}

/// The records of a value file, by digest; a torn last record is left out.
fn scan(bytes: &[u8]) -> Result<HashMap<Digest, Range<usize>>, String> {
    if bytes.get(..MAGIC.len()) != Some(MAGIC.as_slice()) {
        return Err(format!("{FILE_NAME}: not a value file"));
    }
    let mut records = HashMap::new();
    let mut at = MAGIC.len();
    while let Some(header) = bytes.get(at..at + RECORD_HEADER) {
        let length = u64::from_le_bytes(header[..8].try_into().expect("eight bytes"));
        let start = at + RECORD_HEADER;
        let Some(end) = usize::try_from(length)
            .ok()
            .and_then(|length| start.checked_add(length))
            .filter(|end| *end <= bytes.len())
        else {
            break;
        };
        let digest: Digest = header[8..].try_into().expect("thirty-two bytes");
        records.insert(digest, start..end);
        at = end;
    }
    Ok(records)
}

/// The value file as a save writes it: new records appended, the live ones counted.
pub(crate) struct Appender {
    path: PathBuf,
    /// The new file being written in place of one that could not be appended to.
    replacing: Option<PathBuf>,
    writer: BufWriter<File>,
    /// Every record the file holds, with its length.
    held: HashMap<Digest, u64>,
    /// The records the database being written names.
    live: HashSet<Digest>,
    length: u64,
    /// The first write that failed, for the error message.
    pub(crate) failure: Option<std::io::Error>,
}

impl Appender {
    /// Opens the value file in `directory` for appending; a file that is not ours, or whose
    /// tail is torn, is started again beside it and replaces it when the save finishes (never
    /// truncated in place: this process may have it mapped).
    pub(crate) fn open(directory: &Path) -> std::io::Result<Appender> {
        let path = directory.join(FILE_NAME);
        let held = match File::open(&path) {
            Ok(file) => {
                // SAFETY: as in `Values::open`; only the lock holder writes the file.
                let map = unsafe { memmap2::Mmap::map(&file) }?;
                scan(&map).ok().and_then(|records| {
                    let end = records.values().map(|r| r.end).max().unwrap_or(MAGIC.len());
                    (end == map.len()).then_some((records, end))
                })
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
            Err(error) => return Err(error),
        };
        let (file, replacing, held, length) = match held {
            Some((records, end)) => {
                let file = std::fs::OpenOptions::new().append(true).open(&path)?;
                let held = records
                    .into_iter()
                    .map(|(digest, range)| (digest, range.len() as u64))
                    .collect();
                (file, None, held, end as u64)
            }
            None => {
                let started = path.with_extension("started");
                let mut file = File::create(&started)?;
                file.write_all(MAGIC)?;
                (file, Some(started), HashMap::new(), MAGIC.len() as u64)
            }
        };
        Ok(Appender {
            path,
            replacing,
            writer: BufWriter::with_capacity(1 << 20, file),
            held,
            live: HashSet::new(),
            length,
            failure: None,
        })
    }

    /// Names the value with this digest as live, appending its encoding when the file does
    /// not hold it yet.
    pub(crate) fn put(&mut self, digest: Digest, encoding: &[u8]) -> std::io::Result<()> {
        self.live.insert(digest);
        if self.held.contains_key(&digest) {
            return Ok(());
        }
        let written = self
            .writer
            .write_all(&(encoding.len() as u64).to_le_bytes())
            .and_then(|()| self.writer.write_all(&digest))
            .and_then(|()| self.writer.write_all(encoding));
        if let Err(error) = written {
            let kept = std::io::Error::new(error.kind(), error.to_string());
            self.failure.get_or_insert(kept);
            return Err(error);
        }
        self.held.insert(digest, encoding.len() as u64);
        self.length += (RECORD_HEADER + encoding.len()) as u64;
        Ok(())
    }

    /// Whether the file already holds this value.
    pub(crate) fn holds(&self, digest: &Digest) -> bool {
        self.held.contains_key(digest)
    }

    /// Makes the appended records durable, then, when the records no database names
    /// outweigh the live ones, copies the live ones to a new file. Returns the file's size.
    pub(crate) fn finish(mut self) -> std::io::Result<u64> {
        self.writer.flush()?;
        self.writer.get_ref().sync_all()?;
        if let Some(started) = self.replacing.take() {
            std::fs::rename(&started, &self.path)?;
        }
        let live: u64 = self
            .live
            .iter()
            .map(|digest| RECORD_HEADER as u64 + self.held[digest])
            .sum();
        let dead = self.length - MAGIC.len() as u64 - live;
        if dead <= live {
            return Ok(self.length);
        }
        drop(self.writer);
        // SAFETY: as in `Values::open`.
        let old = unsafe { memmap2::Mmap::map(&File::open(&self.path)?) }?;
        let records = scan(&old).map_err(std::io::Error::other)?;
        let temporary = self.path.with_extension("compacting");
        let mut writer = BufWriter::with_capacity(1 << 20, File::create(&temporary)?);
        writer.write_all(MAGIC)?;
        // In file order, so that a compaction is deterministic.
        let mut kept: Vec<(&Digest, &Range<usize>)> = records
            .iter()
            .filter(|(digest, _)| self.live.contains(*digest))
            .collect();
        kept.sort_by_key(|(_, range)| range.start);
        for (digest, range) in kept {
            writer.write_all(&(range.len() as u64).to_le_bytes())?;
            writer.write_all(digest)?;
            writer.write_all(&old[range.clone()])?;
        }
        let file = writer.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&temporary, &self.path)?;
        Ok(MAGIC.len() as u64 + live)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(appender: &mut Appender, text: &str) -> Digest {
        let digest = *blake3::hash(text.as_bytes()).as_bytes();
        appender.put(digest, text.as_bytes()).unwrap();
        digest
    }

    #[test]
    fn values_are_appended_once_read_back_and_compacted_when_mostly_dead() {
        let dir = tempfile::tempdir().unwrap();
        let mut appender = Appender::open(dir.path()).unwrap();
        let a = put(&mut appender, "alpha");
        let b = put(&mut appender, "beta");
        put(&mut appender, "alpha");
        let size = appender.finish().unwrap();
        assert_eq!(size, (8 + 2 * 40 + 5 + 4) as u64);
        let values = Values::open(dir.path()).unwrap().unwrap();
        assert_eq!(values.get(&a).unwrap().bytes(), b"alpha");
        assert_eq!(values.get(&b).unwrap().bytes(), b"beta");

        // Only "beta" stays live, with a new, larger value: the dead "alpha" is kept while
        // it weighs less than the live records.
        let mut appender = Appender::open(dir.path()).unwrap();
        assert!(appender.holds(&a));
        put(&mut appender, "beta");
        let c = put(&mut appender, "a longer value than alpha");
        appender.finish().unwrap();
        let values = Values::open(dir.path()).unwrap().unwrap();
        assert!(values.get(&a).is_some());

        // Now only "beta" is live: the file is rewritten without the others, and the
        // mapping of the old file stays valid.
        let mut appender = Appender::open(dir.path()).unwrap();
        put(&mut appender, "beta");
        let size = appender.finish().unwrap();
        assert_eq!(size, (8 + 40 + 4) as u64);
        assert_eq!(
            values.get(&c).unwrap().bytes(),
            b"a longer value than alpha"
        );
        let compacted = Values::open(dir.path()).unwrap().unwrap();
        assert!(compacted.get(&a).is_none() && compacted.get(&c).is_none());
        assert_eq!(compacted.get(&b).unwrap().bytes(), b"beta");
    }

    #[test]
    fn a_torn_tail_is_ignored_and_a_damaged_record_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut appender = Appender::open(dir.path()).unwrap();
        let a = put(&mut appender, "alpha");
        appender.finish().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut bytes = std::fs::read(&path).unwrap();
        // A writer killed in the middle of its next record.
        bytes.extend_from_slice(&100u64.to_le_bytes());
        bytes.extend_from_slice(&[7; 20]);
        std::fs::write(&path, &bytes).unwrap();
        assert!(Values::open(dir.path()).unwrap().unwrap().get(&a).is_some());
        // The next save starts the file again rather than appending after the tear.
        let appender = Appender::open(dir.path()).unwrap();
        assert!(!appender.holds(&a));
        drop(appender);
        // A flipped byte inside a record.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.truncate(8);
        bytes.extend_from_slice(&5u64.to_le_bytes());
        bytes.extend_from_slice(&a);
        bytes.extend_from_slice(b"alphA");
        std::fs::write(&path, &bytes).unwrap();
        assert!(Values::open(dir.path()).is_err());
        std::fs::write(&path, b"not ours").unwrap();
        assert!(Values::open(dir.path()).is_err());
    }
}
