//! The structural block's budgeted edit script against the exact one: within its budget it is
//! the bounded script of every route, and past the bit-parallel budget the anchored fallback
//! engages and stays valid (the anchored script itself is tested in `veer_base::edit_script`).

use crate::divergence::{bounded_script, budgeted_script, BITPARALLEL_WORDS};
use proptest::prelude::*;
use veer_base::edit_script::validate;

proptest! {
    /// Within its budget the structural block's script is the exact one of every route.
    #[test]
    fn budgeted_script_is_the_bounded_script_within_the_budget(
        a in proptest::collection::vec(0u32..4, 0..400),
        b in proptest::collection::vec(0u32..4, 0..400),
        max_cells in prop_oneof![Just(0u64), Just(64), Just(1 << 26)],
    ) {
        let (script, exact) = budgeted_script(&a, &b, max_cells);
        prop_assert!(exact);
        prop_assert_eq!(script, bounded_script(&a, &b, max_cells));
    }
}

#[test]
fn the_structural_fallback_engages_past_the_bit_parallel_budget() {
    // 140,000 events a side, every 3rd changed: 140,000² / 64 > 2^28 word operations.
    let a: Vec<u32> = (0..140_000u32).map(|k| k % 50).collect();
    let b: Vec<u32> = a
        .iter()
        .enumerate()
        .map(|(k, &x)| if k % 3 == 1 { 77 } else { x })
        .collect();
    assert!((a.len() as u64 * b.len() as u64) / 64 > BITPARALLEL_WORDS);
    let (script, exact) = budgeted_script(&a, &b, 1 << 26);
    assert!(!exact);
    validate(&a, &b, &script).unwrap();
    // The index-wise alignment is one of the candidates: never worse than it.
    assert!(script.distance <= 140_000 / 3 + 1, "{}", script.distance);
}
