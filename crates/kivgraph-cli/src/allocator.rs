//! The process's heaps: Rust's in mimalloc, the C heap LadybugDB allocates from in glibc, and
//! how a long-lived process hands back what a pass freed.

/// A pass allocates and frees millions of small rows; glibc's allocator spent a sixth of a
/// save's pass in malloc and free, and grew the daemon's resident set save after save.
/// Built without transparent huge pages (`no_thp`), which made each `serve` 40 MiB larger.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Returns the pages the last pass freed in Rust's heap to the system, on every thread of
/// the pass. mimalloc gives a freed page back only a second after it is freed, and only when
/// an allocation comes by to do it: a daemon idle after a pass otherwise holds the pass's
/// peak until the next one.
pub fn return_freed_pages() {
    let started = std::time::Instant::now();
    // SAFETY: `mi_collect` only gives a thread's free pages back; it frees nothing in use.
    let collect = || unsafe { libmimalloc_sys::mi_collect(true) };
    rayon::broadcast(|_| collect());
    collect();
    tracing::debug!(
        ms = started.elapsed().as_secs_f64() * 1e3,
        "freed pages returned"
    );
}

/// Hands the C heap a pass freed back to the system. The C heap holds what LadybugDB
/// allocates, and glibc otherwise keeps its peak for the life of the process.
pub fn return_freed_c_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only returns free heap pages to the kernel.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// This process's resident set, in bytes (`/proc/self/statm` counts pages).
    fn resident_bytes() -> usize {
        let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
        let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
        // SAFETY: `sysconf` reads a constant of the system.
        pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize
    }

    #[test]
    fn the_rows_a_pass_freed_leave_the_resident_set_at_once() {
        // Rows allocated on the pool's threads and dropped on this one, as a pass's are.
        let rows: Vec<Vec<Box<[u8; 1024]>>> =
            rayon::broadcast(|_| (0..128 * 1024).map(|_| Box::new([1; 1024])).collect());
        let allocated: usize = rows.iter().map(|rows| rows.len() * 1024).sum();
        drop(rows);
        let freed = resident_bytes();
        return_freed_pages();
        let returned = freed.saturating_sub(resident_bytes());
        assert!(
            returned >= allocated / 2,
            "{returned} of {allocated} freed bytes left the resident set"
        );
    }
}
