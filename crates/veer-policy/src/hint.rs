//! Did-you-mean hints: the closest known name to a misspelt one.

/// Optimal-string-alignment (restricted Damerau–Levenshtein) distance between two strings,
/// counted in characters.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}

fn common_prefix_ci(a: &str, b: &str) -> usize {
    a.chars()
        .flat_map(char::to_lowercase)
        .zip(b.chars().flat_map(char::to_lowercase))
        .take_while(|(x, y)| x == y)
        .count()
}

/// The known name closest to `given`: within distance 2, or sharing a case-insensitive prefix
/// of at least 3 characters. Ties go to the smaller distance, then the first in `known`.
pub fn closest<'a>(given: &str, known: &[&'a str]) -> Option<&'a str> {
    let mut best: Option<(usize, &'a str)> = None;
    for &k in known {
        let d = distance(given, k);
        let ok = d <= 2 || common_prefix_ci(given, k) >= 3;
        if ok && !matches!(best, Some((bd, _)) if d >= bd) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}

/// The hint for an unknown name: `did you mean '<closest>'?`, else
/// `expected one of: <sorted list>`.
pub(crate) fn did_you_mean(given: &str, known: &[&str]) -> String {
    match closest(given, known) {
        Some(k) => format!("did you mean '{k}'?"),
        None => {
            let mut sorted: Vec<&str> = known.to_vec();
            sorted.sort_unstable();
            format!("expected one of: {}", sorted.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let keys = [
            "id",
            "kind",
            "params",
            "severity",
            "scope",
            "when",
            "description",
            "tags",
        ];
        assert_eq!(closest("sevrity", &keys), Some("severity"));
        assert_eq!(closest("when_", &keys), Some("when"));
        assert_eq!(closest("descr", &keys), Some("description"));
        assert_eq!(closest("zzzzzzzz", &keys), None);
        assert!(did_you_mean("zzzzzzzz", &keys).starts_with("expected one of: description, id"));
        assert_eq!(distance("ab", "ba"), 1);
    }
}
