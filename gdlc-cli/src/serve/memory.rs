//! How `gdlc serve` hands the memory it freed back to the system. glibc's allocator raises its
//! thresholds as large blocks are freed (up to 32 MB for serving a block by `mmap`, 64 MB for
//! giving back the top of a heap), and then keeps that much free memory in each of its arenas,
//! of which it makes up to eight per core. After a grounding that was refused, or a match whose
//! game exploded in the interpreter, the player kept hundreds of MB it no longer used. Fixed
//! thresholds (glibc's own starting values) map large blocks on their own and free them at
//! once, and a trim after such work gives back the free pages inside the heaps.

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod glibc {
    use std::ffi::c_int;

    extern "C" {
        fn mallopt(param: c_int, value: c_int) -> c_int;
        fn malloc_trim(pad: usize) -> c_int;
    }

    /// glibc's `M_TRIM_THRESHOLD` and `M_MMAP_THRESHOLD`.
    const M_TRIM_THRESHOLD: c_int = -1;
    const M_MMAP_THRESHOLD: c_int = -3;
    /// glibc's starting value of both thresholds, 128 KiB.
    const THRESHOLD: c_int = 128 * 1024;

    pub(crate) fn fix_thresholds() {
        // SAFETY: mallopt only sets two of the allocator's parameters to values it accepts;
        // it is called before the server starts its threads.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, THRESHOLD);
            mallopt(M_TRIM_THRESHOLD, THRESHOLD);
        }
    }

    pub(crate) fn trim() {
        // SAFETY: malloc_trim takes the allocator's own locks and only gives back free pages.
        unsafe {
            malloc_trim(0);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod glibc {
    pub(crate) fn fix_thresholds() {}

    pub(crate) fn trim() {}
}

/// Keeps the allocator from raising its thresholds as large blocks are freed; called once,
/// before the server starts.
pub(super) fn fix_thresholds() {
    glibc::fix_thresholds();
}

/// Gives the free pages of the allocator's heaps back to the system, on a thread of its own so
/// that no caller waits for it (a match may be dropped while its table is locked).
pub(super) fn trim_soon() {
    let _ = std::thread::Builder::new().name("trim".to_string()).spawn(glibc::trim);
}
