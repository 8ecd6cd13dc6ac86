//! A hint to the CPU that a value will be read soon, so a pipelined loop (the content
//! cache's trace replay) can overlap the memory latency of several lookups instead of
//! waiting for each in turn. A hint only: it never changes what any code computes, and
//! it does nothing on targets without a prefetch instruction we use.

/// Starts loading the cache line holding `value` into every cache level.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, part of every x86_64 target; a prefetch reads
    // nothing into the program and cannot fault, and `value` is a valid reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
