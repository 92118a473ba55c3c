pub fn flush() {}
