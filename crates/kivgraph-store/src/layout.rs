//! A generation directory's file names, and how a file in it is written: synced before it
//! is named anywhere.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::error::{StoreError, io};

pub const SNAPSHOT_FILE: &str = "snapshot.kgs";

pub const MANIFEST_FILE: &str = "manifest.json";

pub(crate) fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let mut file = File::create(path).map_err(io("create", path))?;
    file.write_all(bytes).map_err(io("write", path))?;
    file.sync_all().map_err(io("sync", path))
}

pub(crate) fn sync_dir(path: &Path) -> Result<(), StoreError> {
    File::open(path)
        .and_then(|dir| dir.sync_all())
        .map_err(io("sync", path))
}
