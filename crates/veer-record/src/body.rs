//! The body the proxy answers an agent with: bytes known in full, or a stream fed chunk by
//! chunk from the upstream through a small bounded channel (so a slow agent slows the upstream
//! read instead of growing a buffer). Dropping the body — the agent went away — closes the
//! channel, which the pumping task notices and cancels the upstream request.

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// A chunk for a streamed body, or the error that aborts it (the agent then sees a cut
/// stream, as it would from the provider).
pub type Chunk = Result<Bytes, std::io::Error>;

/// An answer body.
#[derive(Debug)]
pub enum ProxyBody {
    /// Everything at once (`None` once sent).
    Full(Option<Bytes>),
    /// Chunks as they arrive.
    Stream(mpsc::Receiver<Chunk>),
}

impl ProxyBody {
    /// A body of these bytes.
    pub fn full(bytes: impl Into<Bytes>) -> ProxyBody {
        ProxyBody::Full(Some(bytes.into()))
    }

    /// A streamed body and the sender that feeds it (`depth` chunks of buffering).
    pub fn channel(depth: usize) -> (mpsc::Sender<Chunk>, ProxyBody) {
        let (tx, rx) = mpsc::channel(depth);
        (tx, ProxyBody::Stream(rx))
    }
}

impl Body for ProxyBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.get_mut() {
            ProxyBody::Full(b) => Poll::Ready(b.take().map(|b| Ok(Frame::data(b)))),
            ProxyBody::Stream(rx) => rx.poll_recv(cx).map(|c| c.map(|r| r.map(Frame::data))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, ProxyBody::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            ProxyBody::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            ProxyBody::Full(None) => SizeHint::with_exact(0),
            ProxyBody::Stream(_) => SizeHint::default(),
        }
    }
}
