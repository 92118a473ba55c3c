pub mod disk;

pub struct Handle;

pub fn open() -> Handle {
    Handle
}

pub fn close(_handle: Handle) {
    self::disk::flush();
}
