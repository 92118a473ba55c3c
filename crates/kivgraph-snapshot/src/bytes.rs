//! Little-endian integers read out of and written into records: reads never panic (a field
//! past the end reads as zero, which validation has already ruled out), writes go into a
//! growable section or one fixed-size record.

pub(crate) fn read_u32(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .unwrap_or(0)
}

pub(crate) fn read_u64(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..at + 8)
        .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .unwrap_or(0)
}

pub(crate) fn read_key(bytes: &[u8], at: usize) -> [u8; 32] {
    let mut key = [0u8; 32];
    if let Some(slice) = bytes.get(at..at + 32) {
        key.copy_from_slice(slice);
    }
    key
}

pub(crate) fn read_u8(bytes: &[u8], at: usize) -> u8 {
    bytes.get(at).copied().unwrap_or(0)
}

/// A section, or a header, appended to in order.
#[derive(Default)]
pub(crate) struct Out(pub(crate) Vec<u8>);

impl Out {
    pub(crate) fn new(capacity: usize) -> Self {
        Out(Vec::with_capacity(capacity))
    }
    pub(crate) fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.0.extend_from_slice(v);
        self
    }
    /// Appends one record.
    pub(crate) fn record<const LEN: usize>(&mut self, record: &Fields<LEN>) -> &mut Self {
        self.bytes(&record.0)
    }
}

/// One record of `LEN` bytes, its fields put at their offsets (`crate::fields`); what no
/// field covers is padding and stays zero.
pub(crate) struct Fields<const LEN: usize>([u8; LEN]);

impl<const LEN: usize> Fields<LEN> {
    pub(crate) fn new() -> Self {
        Fields([0; LEN])
    }
    pub(crate) fn u8(&mut self, at: usize, v: u8) -> &mut Self {
        self.0[at] = v;
        self
    }
    pub(crate) fn u32(&mut self, at: usize, v: u32) -> &mut Self {
        self.0[at..at + 4].copy_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn u64(&mut self, at: usize, v: u64) -> &mut Self {
        self.0[at..at + 8].copy_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn bytes(&mut self, at: usize, v: &[u8]) -> &mut Self {
        self.0[at..at + v.len()].copy_from_slice(v);
        self
    }
    pub(crate) fn key(&mut self, at: usize, v: &[u8; 32]) -> &mut Self {
        self.bytes(at, v)
    }
    /// A string field: its offset in the string section, then its length.
    pub(crate) fn str(&mut self, at: usize, (offset, len): (u32, u32)) -> &mut Self {
        self.u32(at, offset).u32(at + 4, len)
    }
}
