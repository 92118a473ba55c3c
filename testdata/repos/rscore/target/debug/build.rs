pub fn in_target() {}
