//! `veer history report --format html` in headless Chromium (as html.rs: skipped loudly when
//! no browser is installed, unless `VEER_REQUIRE_BROWSER` is set): the page renders with no
//! console output, an SVG line chart and level strip per axis, a verdict strip per case.

use super::baseline::ok_in;
use super::history_drift::{add, report};
use super::html::{artifacts, browser_or_skip, open_in_browser};

#[test]
fn the_trend_page_renders_in_a_browser() {
    let Some(browser) = browser_or_skip("the_trend_page_renders_in_a_browser") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for i in 0..12 {
        let verdict = if i % 4 == 3 { "regressed" } else { "pass" };
        let json = report(
            0.1 * i as f64,
            &[("refund", verdict), ("cancel <b>&", "pass")],
        );
        add(d, i, &json, &format!("c{i}"), "main");
    }
    ok_in(
        d,
        &["history", "report", "--format", "html", "-o", "trend.html"],
        0,
    );
    let html = std::fs::read_to_string(d.join("trend.html")).unwrap();
    let dir = artifacts();
    let page = dir.join("history-trend.html");
    std::fs::write(&page, &html).unwrap();
    let (dom, console) = open_in_browser(&browser, &page, &dir.join("history-trend.png"));
    assert_eq!(console, Vec::<String>::new(), "console output");
    // one axis (a line chart and a level strip) and two cases (a strip each)
    assert_eq!(dom.matches("<svg").count(), 4, "{dom}");
    assert!(dom.contains("aria-label=\"cost delta\""), "{dom}");
    assert!(dom.contains("aria-label=\"cost level\""), "{dom}");
    assert!(dom.contains("aria-label=\"refund verdicts\""), "{dom}");
    assert!(dom.contains("<polyline"), "{dom}");
    // the case name was escaped, not parsed as markup
    assert!(dom.contains("cancel &lt;b&gt;&amp;"), "{dom}");
    assert!(!dom.contains("<b>&amp;"), "{dom}");
    assert!(
        dom.contains("<h2>Axes</h2>") && dom.contains("<h2>Cases</h2>"),
        "{dom}"
    );
    eprintln!("history trend page and screenshot in {}", dir.display());
}
