pub fn render(n: u32) -> String {
    let mut buffer = itoa::Buffer::new();
    buffer.format(n).to_string()
}
