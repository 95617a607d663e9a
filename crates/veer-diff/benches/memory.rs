//! Where `veer diff`'s memory goes, stage by stage, on the harness inputs (`bench/run.sh` writes
//! them under `target/bench/inputs/<kind>-<turns>/`). A counting wrapper around mimalloc tracks
//! the live heap; each stage runs once, on one thread so transient peaks do not overlap, and is
//! printed as TSV: `input  stage  live-MB-after  peak-MB-during` (MB = 10^6 bytes; peak = the
//! highest live heap while the stage ran, everything held before it included). What `veer diff`
//! holds at once is roughly the traces and features plus the largest transient peak above them
//! (stages run side by side on 2 cores, so two transient peaks can overlap).
//!
//! After the stages, the kept per-turn features are freed field by field: what each field holds.
//!
//! RAYON_NUM_THREADS=1 cargo bench -p veer-diff --bench memory -- $PWD/target/bench/inputs/near-100000

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::alloc::{GlobalAlloc, Layout};
use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use veer_diff::axes::{compute_axes, TurnPair};
use veer_diff::turn::diff_turn_pair;
use veer_diff::{divergences_anchored, fingerprint, Pricing};
use veer_trace::{load_trace, ReadOptions};

/// mimalloc, counting the bytes live now and the most live since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is forwarded to mimalloc unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { mimalloc::MiMalloc.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { mimalloc::MiMalloc.alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        // SAFETY: `p` was allocated by mimalloc with layout `l`.
        unsafe { mimalloc::MiMalloc.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new >= l.size() {
            grew(new - l.size());
        } else {
            LIVE.fetch_sub(l.size() - new, Relaxed);
        }
        // SAFETY: `p` was allocated by mimalloc with layout `l`.
        unsafe { mimalloc::MiMalloc.realloc(p, l, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn mb(n: usize) -> f64 {
    n as f64 / 1e6
}

/// Runs `f`, prints the live heap after it and the peak while it ran; keeps its result when
/// the caller decides whether its result stays live (as in `veer diff`) or is dropped.
fn stage<T>(name: &str, label: &str, f: impl FnOnce() -> T) -> T {
    PEAK.store(LIVE.load(Relaxed), Relaxed);
    let out = black_box(f());
    println!(
        "{name}\t{label}\t{:.0}\t{:.0}",
        mb(LIVE.load(Relaxed)),
        mb(PEAK.load(Relaxed))
    );
    out
}

fn main() {
    let dirs: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    for dir in dirs {
        let d = Path::new(&dir);
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        let (bp, cp) = (d.join("baseline.agentlog"), d.join("candidate.agentlog"));
        let opts = ReadOptions::default();
        let base = LIVE.load(Relaxed);
        let b = stage(&name, "read baseline", || load_trace(&bp, &opts).unwrap());
        let c = stage(&name, "read candidate", || load_trace(&cp, &opts).unwrap());
        let (tb, tc) = stage(&name, "features (kept)", || diff_turn_pair(&b, &c));
        let pairs: Vec<TurnPair<'_>> = tb.iter().zip(tc.iter()).collect();
        drop(stage(&name, "axes + bootstrap", || {
            compute_axes(&pairs, &Pricing::none(), 42)
        }));
        drop(stage(&name, "fingerprint rows", || {
            let s = fingerprint::FingerprintScales::default();
            (
                fingerprint::trace_matrix(&b, &s),
                fingerprint::trace_matrix(&c, &s),
            )
        }));
        drop(stage(&name, "  align: interned", || {
            veer_diff::align::cost::intern(&tb, &tc)
        }));
        drop(stage(&name, "  align: interned + shingle index", || {
            let (ab, ac) = veer_diff::align::cost::intern(&tb, &tc);
            let index = veer_diff::align::shingle_index::ShingleIndex::new(&ac);
            (ab, ac, index)
        }));
        drop(stage(&name, "turn alignment", || {
            divergences_anchored(&tb, &tc, 5, 1 << 26)
        }));
        drop(stage(&name, "structural", || {
            veer_experiment::structural_within(&b, &c, 1 << 26)
        }));
        drop(pairs);
        let (mut tb, mut tc) = (tb, tc);
        // The kept features, field by field: the heap each field's values free when dropped.
        let mut field = |label: &str, take: &dyn Fn(&mut veer_diff::turn::DiffTurn<'_>)| {
            let before = LIVE.load(Relaxed);
            tb.iter_mut().chain(tc.iter_mut()).for_each(take);
            println!(
                "{name}\tfeatures: {label}\t{:.0}\t-",
                mb(before - LIVE.load(Relaxed))
            );
        };
        field("shingle ids", &|t| t.shingle_ids = Box::default());
        field("text (joined, owned)", &|t| {
            t.features.text = std::borrow::Cow::Borrowed("")
        });
        field("normalized text", &|t| t.features.normalized = None);
        field("newline-joined text", &|t| t.text_nl_if_other = None);
        field("tool inputs (canonical bytes)", &|t| {
            t.features.inputs = Vec::new()
        });
        field("tool tokens", &|t| t.features.tool_tokens = Vec::new());
        field("shapes", &|t| t.features.shape = Vec::new());
        field("shape order", &|t| t.shape_order = Box::default());
        let before = LIVE.load(Relaxed);
        drop((tb, tc));
        println!(
            "{name}\tfeatures: the rest\t{:.0}\t-",
            mb(before - LIVE.load(Relaxed))
        );
        drop((b, c));
        println!(
            "{name}\tleft after freeing all\t{:.0}\t-",
            mb(LIVE.load(Relaxed) - base)
        );
    }
}
