//! Directory mode's pooled fingerprint test for a front end that reads the pairs itself (the
//! Spark job, docs/spark.md): each pair's response fingerprints are computed where the pair is
//! read ([`fingerprint_rows`], the engine's `pair_rows`, as `veer diff DIR DIR` computes them)
//! and handed to one [`FingerprintPool`] in path order, which is the engine's own pool
//! (`veer_engine::directory::Pool`): it holds the rows while they are few (4,096 per side) and
//! keeps only sums past that, then asks for the rows a second time, exactly as the CLI reads
//! the pairs twice. So the pooled block has the CLI's doubles, and its verdict is the engine's.
//! Rows travel as bytes: each row `DIM` (12) little-endian `f64`s, rows one after another.

use crate::error::ApiError;
use std::path::Path;
use veer_engine::directory::{PairRows, Pool, DIM};
use veer_engine::options::FingerprintOptions;
use veer_trace::ReadOptions;

/// Bytes of one fingerprint row: `DIM` little-endian `f64`s (96 bytes).
pub const ROW_BYTES: usize = DIM * 8;

/// One side's rows as bytes (see the module doc).
fn encode(rows: &[[f64; DIM]]) -> Vec<u8> {
    rows.iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect()
}

/// One side's rows from bytes; an input error when the length is not a whole number of rows.
fn decode(bytes: &[u8], side: &str) -> Result<Vec<[f64; DIM]>, ApiError> {
    if !bytes.len().is_multiple_of(ROW_BYTES) {
        return Err(crate::error::input(
            format!(
                "{side} rows: {} bytes is not a whole number of {ROW_BYTES}-byte fingerprint rows",
                bytes.len()
            ),
            "pass the bytes veer.fingerprint_rows returned, unchanged",
        ));
    }
    Ok(bytes
        .chunks_exact(ROW_BYTES)
        .map(|row| {
            std::array::from_fn(|d| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&row[d * 8..d * 8 + 8]);
                f64::from_le_bytes(b)
            })
        })
        .collect())
}

/// One pair's rows decoded from bytes.
pub fn decode_pair(baseline: &[u8], candidate: &[u8]) -> Result<PairRows, ApiError> {
    Ok((
        decode(baseline, "baseline")?,
        decode(candidate, "candidate")?,
    ))
}

/// The response fingerprints of one pair (baseline bytes, candidate bytes), read and checked
/// as `veer diff DIR DIR` reads a pair (default read options and fingerprint scales).
pub fn fingerprint_rows(baseline: &str, candidate: &str) -> Result<(Vec<u8>, Vec<u8>), ApiError> {
    let (b, c) = veer_engine::directory::pair_rows(
        Path::new(baseline),
        Path::new(candidate),
        &ReadOptions::default(),
        &FingerprintOptions::default(),
    )?;
    Ok((encode(&b), encode(&c)))
}

/// The pooled test over pairs pushed in path order (the engine's pool).
#[derive(Debug, Default)]
pub struct FingerprintPool {
    pool: Pool,
    pairs: usize,
}

impl FingerprintPool {
    /// An empty pool.
    pub fn new() -> FingerprintPool {
        FingerprintPool::default()
    }

    /// Adds the next pair's rows (bytes as [`fingerprint_rows`] returns them).
    pub fn push(&mut self, baseline: &[u8], candidate: &[u8]) -> Result<(), ApiError> {
        self.pool.push(decode_pair(baseline, candidate)?);
        self.pairs += 1;
        Ok(())
    }

    /// Pairs pushed so far.
    pub fn pairs(&self) -> usize {
        self.pairs
    }

    /// Whether [`FingerprintPool::finish`] will ask for every pair's rows again (past 4,096
    /// rows on a side the pool keeps only sums).
    pub fn needs_second_pass(&self) -> bool {
        self.pool.needs_second_pass()
    }

    /// The pooled test: the directory report's `fingerprint` block as JSON (`null` when a
    /// side has too few responses) and the engine's verdict on it at `fail_on`
    /// ([`crate::api::verdict_json`]: a powered rejection is `moderate`). `second_pass` is
    /// called only when [`Self::needs_second_pass`]: it must hand every pair's rows again, in
    /// the order they were pushed (an error when they differ).
    pub fn finish(
        self,
        second_pass: impl FnOnce(&mut dyn FnMut(PairRows)) -> Result<(), ApiError>,
        fail_on: &str,
    ) -> Result<(String, String), ApiError> {
        let level = super::fail_on(fail_on)?;
        let block = self
            .pool
            .test_with(second_pass, &FingerprintOptions::default())?;
        let verdict = veer_contract::verdict::Verdict::decide(
            level,
            veer_engine::verdict::fingerprint_signal(block.as_ref(), true)
                .into_iter()
                .collect(),
        );
        let json = match &block {
            Some(b) => serde_json::to_string(b).map_err(|e| {
                crate::error::input(
                    format!("cannot encode the pooled block: {e}"),
                    "report this as a bug",
                )
            })?,
            None => "null".to_string(),
        };
        Ok((json, super::verdict_json(&verdict, 10, true)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_through_bytes_bit_for_bit() {
        let rows = vec![
            std::array::from_fn(|d| d as f64 / 7.0),
            std::array::from_fn(|d| if d == 0 { -0.0 } else { f64::MIN_POSITIVE }),
        ];
        let bytes = encode(&rows);
        assert_eq!(bytes.len(), 2 * ROW_BYTES);
        let back = decode(&bytes, "baseline").unwrap();
        for (a, b) in rows.iter().zip(&back) {
            for (x, y) in a.iter().zip(b) {
                assert_eq!(x.to_bits(), y.to_bits());
            }
        }
        let e = decode(&bytes[1..], "baseline").unwrap_err();
        assert!(e.message.contains("whole number"), "{}", e.message);
    }
}
