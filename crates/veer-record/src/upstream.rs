//! The HTTP client that talks to the providers: HTTP/1.1 over plain TCP (local test servers)
//! or TLS with the system's root certificates (the public APIs).

use bytes::Bytes;
use http_body_util::Full;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::sync::Arc;

/// The client type used for every upstream request.
pub(crate) type UpstreamClient = Client<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// Builds the client. `need_tls` (an `https://` upstream is configured) makes a missing set of
/// system root certificates an error; without it an empty root store is used, since no TLS
/// connection will be made.
pub fn client(need_tls: bool) -> Result<UpstreamClient, String> {
    let mut roots = rustls::RootCertStore::empty();
    let found = rustls_native_certs::load_native_certs();
    let (added, _ignored) = roots.add_parsable_certificates(found.certs);
    if need_tls && added == 0 {
        return Err(format!(
            "no system root certificates could be loaded ({} error(s))",
            found.errors.len()
        ));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS set-up failed: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    Ok(Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(64)
        .build(connector))
}
