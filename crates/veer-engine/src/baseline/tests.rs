use super::manifest::{Approval, CaseLayout, Source};
use super::*;
use std::fs;
use std::path::Path;

fn fixture_runs(dir: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/refund-agent");
    let mut found = Vec::new();
    for entry in fs::read_dir(&src).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "agentlog") {
            found.push(p);
        }
    }
    found.sort();
    assert!(!found.is_empty(), "examples/*.agentlog exist");
    fs::create_dir_all(dir.join("refund")).unwrap();
    fs::copy(&found[0], dir.join("refund/t1.agentlog")).unwrap();
    fs::copy(&found[0], dir.join("refund/t2.agentlog")).unwrap();
    fs::copy(&found[0], dir.join("top.agentlog")).unwrap();
}

fn options(update: bool) -> CreateOptions {
    CreateOptions {
        name: "main".into(),
        veer_version: "0.1.0".into(),
        created_at: "2026-01-01T00:00:00.000Z".into(),
        source: Source {
            runs_dir: "runs".into(),
            commit: Some("abc".into()),
            ..Source::default()
        },
        policy: None,
        read: veer_trace::ReadOptions::default(),
        update,
    }
}

#[test]
fn create_verify_approve_update() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    fixture_runs(&runs);
    let dir = tmp.path().join(".veer/baselines/main");
    let created = create(&dir, &runs, &options(false)).unwrap();
    let m = &created.manifest;
    assert_eq!(m.version, 1);
    assert_eq!(m.files.len(), 3);
    assert!(m
        .files
        .iter()
        .all(|f| f.compression == "gzip" && f.bytes < f.source_bytes));
    let cases: Vec<_> = m
        .layout
        .cases
        .iter()
        .map(|c| (c.case.as_str(), c.trials.len()))
        .collect();
    assert_eq!(cases, [("refund", 2), ("top", 1)]);
    // The stored traces read back as the same traces.
    let stored =
        veer_trace::load_trace(&dir.join("v1/traces/top.agentlog"), &Default::default()).unwrap();
    let original = veer_trace::load_trace(&runs.join("top.agentlog"), &Default::default()).unwrap();
    assert_eq!(stored.records.len(), original.records.len());

    let v = verify(&dir, None).unwrap();
    assert_eq!(v.traces, dir.join("v1/traces"));

    // Creating again is refused; the first version stays.
    let e = create(&dir, &runs, &options(false)).unwrap_err();
    assert!(e.message.contains("already exists"), "{}", e.message);

    let approved = approve(
        &dir,
        None,
        Approval {
            by: "ana".into(),
            at: "t".into(),
            reason: "ok".into(),
        },
    )
    .unwrap();
    assert_eq!(approved.revision, 2);
    assert_eq!(open(&dir, None).unwrap().manifest.approvals.len(), 1);
    assert!(dir.join("v1/manifests/0001.json").exists());

    let updated = create(&dir, &runs, &options(true)).unwrap();
    assert_eq!(updated.manifest.version, 2);
    assert_eq!(updated.manifest.previous_version, Some(1));
    assert_eq!(open(&dir, Some(1)).unwrap().manifest.approvals.len(), 1);
    assert!(open(&dir, None).unwrap().manifest.approvals.is_empty());
    let listed = list(&tmp.path().join(".veer/baselines")).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].versions, [1, 2]);
}

#[test]
fn the_same_runs_give_the_same_manifest_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    fixture_runs(&runs);
    let a = create(&tmp.path().join("a"), &runs, &options(false)).unwrap();
    let b = create(&tmp.path().join("b"), &runs, &options(false)).unwrap();
    assert_eq!(a.manifest.to_bytes(), b.manifest.to_bytes());
    assert_eq!(
        fs::read(tmp.path().join("a/v1/manifests/0001.json")).unwrap(),
        a.manifest.to_bytes()
    );
}

fn make_writable(p: &Path) {
    let mut perms = fs::metadata(p).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    fs::set_permissions(p, perms).unwrap();
}

#[test]
fn tampering_is_found_and_named() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    fixture_runs(&runs);
    let dir = tmp.path().join("b");
    create(&dir, &runs, &options(false)).unwrap();
    let victim = dir.join("v1/traces/refund/t2.agentlog");
    make_writable(&victim);
    let mut bytes = fs::read(&victim).unwrap();
    let last = bytes.len() - 9;
    bytes[last] ^= 1;
    fs::write(&victim, &bytes).unwrap();
    let e = verify(&dir, None).unwrap_err();
    assert!(
        e.message.starts_with(&victim.display().to_string()),
        "{}",
        e.message
    );
    assert!(e.message.contains("sha256 mismatch"), "{}", e.message);

    // An added file, a removed file, an edited manifest.
    let dir2 = tmp.path().join("c");
    create(&dir2, &runs, &options(false)).unwrap();
    fs::write(dir2.join("v1/traces/extra.agentlog"), "x").unwrap();
    assert!(verify(&dir2, None)
        .unwrap_err()
        .message
        .contains("extra.agentlog: not in the manifest"));
    fs::remove_file(dir2.join("v1/traces/extra.agentlog")).unwrap();
    fs::remove_file(dir2.join("v1/traces/top.agentlog")).unwrap();
    assert!(verify(&dir2, None)
        .unwrap_err()
        .message
        .contains("top.agentlog: missing"));

    let dir3 = tmp.path().join("d");
    create(&dir3, &runs, &options(false)).unwrap();
    approve(
        &dir3,
        None,
        Approval {
            by: "a".into(),
            at: "t".into(),
            reason: "r".into(),
        },
    )
    .unwrap();
    let rev1 = dir3.join("v1/manifests/0001.json");
    make_writable(&rev1);
    let text = fs::read_to_string(&rev1)
        .unwrap()
        .replace("\"runs\"", "\"elsewhere\"");
    fs::write(&rev1, text).unwrap();
    let e = verify(&dir3, None).unwrap_err();
    assert!(
        e.message.contains("0002.json: (previous_revision_sha256)"),
        "{}",
        e.message
    );
    fs::write(&rev1, "{").unwrap();
    assert!(verify(&dir3, None)
        .unwrap_err()
        .message
        .contains("0001.json: ("));
}

#[test]
fn names_and_specs() {
    assert!(check_name("main").is_ok());
    assert!(check_name("release-1.2_x").is_ok());
    for bad in ["", ".hidden", "a/b", "a b", &"x".repeat(101)] {
        assert!(check_name(bad).is_err(), "{bad}");
    }
    let root = Path::new(".veer/baselines");
    assert_eq!(resolve(root, "main").unwrap(), (root.join("main"), None));
    assert_eq!(
        resolve(root, "main@2").unwrap(),
        (root.join("main"), Some(2))
    );
    assert_eq!(
        resolve(root, "./b/main@3").unwrap(),
        (Path::new("./b/main").to_path_buf(), Some(3))
    );
    assert!(resolve(root, "main@0").is_err());
    assert!(resolve(root, "no way").is_err());
    assert_eq!(
        manifest::infer_layout(&[
            "a.json".into(),
            "c/1.agentlog".into(),
            "c/0.agentlog".into()
        ])
        .cases,
        [
            CaseLayout {
                case: "a".into(),
                trials: vec!["a.json".into()]
            },
            CaseLayout {
                case: "c".into(),
                trials: vec!["c/0.agentlog".into(), "c/1.agentlog".into()]
            },
        ]
    );
}

#[test]
fn unreadable_runs_store_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    fs::create_dir_all(&runs).unwrap();
    fs::write(runs.join("bad.agentlog"), "not json\n").unwrap();
    let dir = tmp.path().join("b");
    let e = create(&dir, &runs, &options(false)).unwrap_err();
    assert!(e.message.contains("bad.agentlog"), "{}", e.message);
    assert!(versions(&dir).unwrap().is_empty());
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        0,
        "no temporary directory left"
    );
}
