//! veer never touches the network: no HTTP client is in the dependency graph, and the binary
//! does not even import the C library's socket functions.

use std::path::Path;
use std::process::Command;

const HTTP_CLIENTS: [&str; 10] = [
    "reqwest",
    "hyper",
    "ureq",
    "curl",
    "isahc",
    "attohttpc",
    "surf",
    "h2",
    "rustls",
    "native-tls",
];

#[test]
fn no_http_client_in_the_lockfile() {
    let lock =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock"))
            .unwrap();
    let names: Vec<&str> = lock
        .lines()
        .filter_map(|l| l.strip_prefix("name = \""))
        .map(|l| l.trim_end_matches('"'))
        .collect();
    assert!(names.contains(&"serde_json"), "parsed the lockfile");
    for client in HTTP_CLIENTS {
        assert!(!names.contains(&client), "{client} is in Cargo.lock");
    }
}

#[test]
fn the_binary_imports_no_socket_functions() {
    let out = Command::new("nm")
        .args(["-D", "--undefined-only", env!("CARGO_BIN_EXE_veer")])
        .output()
        .expect("nm (binutils) is installed");
    assert!(out.status.success());
    let symbols = String::from_utf8_lossy(&out.stdout);
    assert!(
        symbols.lines().count() > 10,
        "nm listed the imports: {symbols}"
    );
    // (`sendmsg` is imported by the standard library for process spawning, over a socketpair.)
    for f in ["socket", "connect", "getaddrinfo", "gethostbyname"] {
        let imported = symbols.lines().any(|l| {
            let name = l.split_whitespace().last().unwrap_or("");
            name == f || name.starts_with(&format!("{f}@"))
        });
        assert!(!imported, "the veer binary imports {f}");
    }
}
