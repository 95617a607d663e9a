//! The listening side: a loopback HTTP/1.1 server whose every request goes to
//! [`proxy::handle`](crate::proxy::handle), and a graceful stop that lets calls in flight
//! finish (and be recorded) before it returns.

use crate::proxy::{handle, Shared};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// A running proxy.
pub struct Server {
    /// The address it listens on (always 127.0.0.1).
    pub addr: SocketAddr,
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl Server {
    /// Binds 127.0.0.1:`port` (0 = a free port) and starts serving.
    pub async fn start(port: u16, shared: Arc<Shared>, grace: Duration) -> std::io::Result<Server> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let (stop, mut stopped) = watch::channel(false);
        let task = tokio::spawn(async move {
            let graceful = GracefulShutdown::new();
            loop {
                tokio::select! {
                    _ = stopped.changed() => break,
                    accepted = listener.accept() => {
                        let Ok((stream, _)) = accepted else { continue };
                        let _ = stream.set_nodelay(true);
                        let shared = shared.clone();
                        let service = service_fn(move |req| {
                            let shared = shared.clone();
                            async move { Ok::<_, std::convert::Infallible>(handle(shared, req).await) }
                        });
                        let conn = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service);
                        let watched = graceful.watch(conn);
                        tokio::spawn(async move {
                            let _ = watched.await;
                        });
                    }
                }
            }
            drop(listener);
            let _ = tokio::time::timeout(grace, graceful.shutdown()).await;
        });
        Ok(Server { addr, stop, task })
    }

    /// The base URLs an agent's SDKs should use: (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`).
    pub fn base_urls(&self) -> (String, String) {
        (
            format!("http://{}/openai/v1", self.addr),
            format!("http://{}/anthropic", self.addr),
        )
    }

    /// The endpoint an Azure OpenAI client should use (`AZURE_OPENAI_ENDPOINT`).
    pub fn azure_endpoint(&self) -> String {
        format!("http://{}/azure", self.addr)
    }

    /// Stops accepting, lets calls in flight finish (up to the grace period) and returns.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}
