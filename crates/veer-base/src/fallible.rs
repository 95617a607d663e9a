//! Fallible sections: code that reserves room whose size comes from the input marks the
//! reservation with [`fallibly`], and an allocator that otherwise ends the process on a refused
//! allocation (the `veer` binary's, `crates/veer/src/alloc_guard.rs`) asks
//! [`in_fallible_section`] and hands the refusal back as `try_reserve`'s error instead. It lives
//! here, below every crate, because both the trace readers and [`crate::capped`] reserve this way.

thread_local! {
    /// Depth of [`fallibly`] sections on this thread.
    static FALLIBLE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Runs `f` as a fallible section: an allocation refused inside it is handed back to the
/// caller (as `try_reserve`'s error) by an allocator that otherwise ends the process with an
/// error (the `veer` binary's, `crates/veer/src/alloc_guard.rs`). Keep `f` to the fallible
/// reservation itself.
pub fn fallibly<T>(f: impl FnOnce() -> T) -> T {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            let _ = FALLIBLE.try_with(|c| c.set(c.get().saturating_sub(1)));
        }
    }
    let _ = FALLIBLE.try_with(|c| c.set(c.get() + 1));
    let _leave = Leave;
    f()
}

/// Whether this thread is inside [`fallibly`] (asked by an allocator whose allocation failed;
/// never allocates).
pub fn in_fallible_section() -> bool {
    FALLIBLE.try_with(|c| c.get() > 0).unwrap_or(false)
}
