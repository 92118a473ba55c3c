pub fn total(values: &[u32]) -> u32 {
    rsgated::sum(values) + rsgated::fast_sum(values)
}
