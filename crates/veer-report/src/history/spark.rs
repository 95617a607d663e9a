//! Sparklines: a series drawn as one line of bars, in Unicode blocks for a terminal and in
//! ASCII otherwise. Presentation only: the series and their level words come in the document.

use veer_base::Level;

/// The rank of a severity word: `none` 0, `minor` 1, `moderate` 2, `severe` 3; unknown words 0.
pub(crate) fn level_rank(level: &str) -> u8 {
    Level::parse(level).map_or(0, Level::rank)
}

/// The bars of a sparkline, lowest first: Unicode blocks for a terminal, ASCII otherwise.
fn ramp(unicode: bool) -> &'static [char] {
    if unicode {
        &['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█']
    } else {
        &['_', '.', '-', '~', '=', '+', '*', '#']
    }
}

/// A sparkline of `values` (the last `width` of them), scaled from their minimum to their
/// maximum; a missing value is a space, a constant series the lowest bar.
pub(crate) fn sparkline(values: &[Option<f64>], width: usize, unicode: bool) -> String {
    let bars = ramp(unicode);
    let start = values.len().saturating_sub(width);
    let shown = &values[start..];
    let finite = shown.iter().flatten().filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
        (lo.min(v), hi.max(v))
    });
    let top = (bars.len() - 1) as f64;
    shown
        .iter()
        .map(|v| match v {
            Some(v) if v.is_finite() => {
                let k = if hi > lo {
                    ((v - lo) / (hi - lo) * top).round()
                } else {
                    0.0
                };
                bars[(k as usize).min(bars.len() - 1)]
            }
            _ => ' ',
        })
        .collect()
}

/// A sparkline of counts on a scale from 0 to their maximum (so a steady non-zero count is a
/// steady high bar, and 0 is always the lowest), the last `width` of them.
pub(crate) fn count_sparkline(counts: &[u64], width: usize, unicode: bool) -> String {
    let bars = ramp(unicode);
    let start = counts.len().saturating_sub(width);
    let shown = &counts[start..];
    let max = shown.iter().copied().max().unwrap_or(0).max(1) as f64;
    let top = (bars.len() - 1) as f64;
    shown
        .iter()
        .map(|&n| bars[((n as f64 / max * top).round() as usize).min(bars.len() - 1)])
        .collect()
}

/// A sparkline of severity words: `none` lowest, `severe` highest (fixed scale), the last
/// `width` of them.
pub(crate) fn level_sparkline(levels: &[String], width: usize, unicode: bool) -> String {
    let bars = ramp(unicode);
    let start = levels.len().saturating_sub(width);
    levels[start..]
        .iter()
        .map(|l| bars[[0, 2, 5, 7][usize::from(level_rank(l))]])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparklines_scale_and_keep_the_last_values() {
        let v = [Some(0.0), Some(1.0), None, Some(0.5)];
        assert_eq!(sparkline(&v, 10, true), "▁█ ▅");
        assert_eq!(sparkline(&v, 2, false), " _");
        assert_eq!(sparkline(&[Some(3.0), Some(3.0)], 10, true), "▁▁");
        assert_eq!(sparkline(&[Some(f64::NAN)], 10, true), " ");
        let levels: Vec<String> = ["none", "severe", "minor"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(level_sparkline(&levels, 10, true), "▁█▃");
        assert_eq!(count_sparkline(&[1, 1, 0, 2], 10, true), "▅▅▁█");
        assert_eq!(count_sparkline(&[], 10, true), "");
    }

    #[test]
    fn level_words_rank_from_none_to_severe() {
        assert_eq!(level_rank("none"), 0);
        assert_eq!(level_rank("minor"), 1);
        assert_eq!(level_rank("moderate"), 2);
        assert_eq!(level_rank("severe"), 3);
        assert_eq!(level_rank("bogus"), 0);
        assert_eq!(level_rank("never"), 0);
    }
}
