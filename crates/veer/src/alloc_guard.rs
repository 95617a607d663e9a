//! The global allocator: mimalloc, with the one behaviour Rust's default lacks — an allocation
//! the machine refuses (an address-space limit, a size no machine has) ends veer with exit 2
//! and an error naming the size and the limits to lower, instead of
//! "memory allocation of N bytes failed" and an abort (exit 134).
//!
//! Readers reserve sizes that come from the input fallibly (`try_reserve`, inside
//! [`veer_base::fallible::fallibly`]) and turn a refusal into an error naming the file and line;
//! there the allocator hands the refusal back. Anywhere else a refusal is unrecoverable, and this
//! is where it ends: the message is written without allocating, then the process exits.

use std::alloc::{GlobalAlloc, Layout};

/// mimalloc, exiting with code 2 on an allocation refused outside a fallible section.
pub struct Guarded;

// SAFETY: every call is forwarded to mimalloc with the same arguments; a null result is
// returned as is (fallible section) or ends the process.
unsafe impl GlobalAlloc for Guarded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { mimalloc::MiMalloc.alloc(layout) };
        if p.is_null() {
            refused(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) };
        if p.is_null() {
            refused(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) };
        if p.is_null() {
            refused(new_size);
        }
        p
    }
}

/// A refused allocation of `size` bytes: handed back inside a fallible section, else the end.
fn refused(size: usize) {
    if veer_base::fallible::in_fallible_section() {
        return;
    }
    let mut message = [0u8; 512];
    let len = out_of_memory_message(size, &mut message);
    // SAFETY: writes `len` initialised bytes of a stack buffer to fd 2, then ends the process
    // without running destructors or allocating.
    unsafe {
        let _ = libc::write(2, message.as_ptr().cast(), len);
        libc::_exit(2);
    }
}

/// The error for a refused allocation of `size` bytes, written into `out`; its length.
fn out_of_memory_message(size: usize, out: &mut [u8]) -> usize {
    let mut w = Writer { out, len: 0 };
    w.push(b"error: out of memory: veer could not allocate ");
    w.number(size);
    w.push(b" bytes\nhint: an input needs more memory than veer can get; lower --max-trace-bytes, --max-records or --max-line-bytes (docs/limits.md), or split the input\n");
    w.len
}

/// Bytes appended to a fixed buffer (truncated when full), without allocating.
struct Writer<'a> {
    out: &'a mut [u8],
    len: usize,
}

impl Writer<'_> {
    fn push(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if let Some(slot) = self.out.get_mut(self.len) {
                *slot = b;
                self.len += 1;
            }
        }
    }

    fn number(&mut self, mut n: usize) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.push(&digits[i..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_size_and_the_limits() {
        let mut buf = [0u8; 512];
        let n = out_of_memory_message(52_000_000_000, &mut buf);
        let text = std::str::from_utf8(&buf[..n]).unwrap();
        assert!(text.starts_with(
            "error: out of memory: veer could not allocate 52000000000 bytes\nhint: "
        ));
        assert!(text.contains("--max-trace-bytes"));
        let n = out_of_memory_message(0, &mut buf);
        assert!(std::str::from_utf8(&buf[..n])
            .unwrap()
            .contains("allocate 0 bytes"));
        let mut small = [0u8; 8];
        assert_eq!(out_of_memory_message(1, &mut small), 8);
    }

    #[test]
    fn a_refusal_inside_a_fallible_section_is_handed_back() {
        // 4 EiB: below `isize::MAX`, so the request reaches the allocator, and beyond any
        // address space, so it is refused there (64 TiB may be granted lazily).
        let mut v: Vec<u8> = Vec::new();
        let r = veer_base::fallible::fallibly(|| v.try_reserve(1usize << 62));
        assert!(r.is_err());
    }
}
