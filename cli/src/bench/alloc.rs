//! One allocator setting for every measurement: mimalloc keeps freed memory
//! for a second before handing it back to the OS, instead of 10 ms.
//!
//! A benchmark frees each decoded tree and at once decodes the next. With
//! the default delay, a decode that takes longer than 10 ms finds the
//! memory it is about to reuse already returned and faults it back in
//! (~1,800 page faults, a quarter of the time, for the 2,000-instance
//! fleet), while a shorter decode does not: a step at 10 ms that belongs
//! to the allocator's policy, not to the decoder, and that would read as
//! non-linear scaling. With a second, every size reuses its memory alike.

/// `mi_option_purge_delay`'s place in mimalloc.h's `mi_option_e` (15 in
/// mimalloc 2 and 3 alike: the enum is part of its ABI).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

pub fn hold_freed_memory() {
    #[allow(unsafe_code)]
    // SAFETY: mimalloc allows options to be set at any time; this one is
    // read whenever freed memory is considered for purging.
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 1000)
    }
}
