//! The connections: hyper's HTTP/1 under the router, with the two bounds a stop needs, which
//! `axum::serve` does not set. A request's headers must arrive within [`HEADER_WAIT`], so a client
//! that sends half a request (by accident or to hold the server) is closed; and a stop waits
//! [`STOP_WAIT`] at most for the requests under way. Idle connections are closed at once on a
//! stop; WebSockets, once upgraded, are the sessions' own and end with the process (clients
//! reconnect, to another node if there is one).
//!
//! And the cap on connections open at once, all addresses together (`--max-connections`): each
//! connection holds a place until its socket closes, a WebSocket's included (the place goes with
//! the stream into the upgrade); past the cap a new connection is answered 503 and closed, and
//! past [`REFUSING_AT_ONCE`] refusals under way, closed unanswered.
//!
//! And an address whose request budget is spent (the edge refused it, and the time it gave has
//! not passed) is refused as its connection is accepted, before hyper or the router see it:
//! its request read up to the end of its headers (or [`HEADER_WAIT`]) and answered with a fixed
//! 429, written to the socket, with `Retry-After` and the edge's security headers, and closed.
//! A flood from one address then costs the server little more than its sockets. Only a peer
//! that is not a trusted proxy is checked so (a proxy's clients are known from its headers, which
//! the edge reads); past [`REFUSING_AT_ONCE`] such refusals under way, closed unanswered.

use crate::edge::Edge;
use crate::tls::Tls;
use axum::Router;
use axum::extract::ConnectInfo;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

/// How long a request's headers may take to arrive, from the connection's opening or the end of
/// its last request.
pub const HEADER_WAIT: Duration = Duration::from_secs(5);

/// How long a stop waits for the requests under way before it closes their connections.
pub const STOP_WAIT: Duration = Duration::from_secs(5);

/// After a failed accept (out of file descriptors, say), how long before the next: without a
/// pause the loop would spin on the same error.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// Connections past the cap answered 503 at once; more are closed unanswered, so that a flood
/// of connections costs the server no more than this.
pub const REFUSING_AT_ONCE: usize = 64;

/// A connection's place under the cap, given back when its stream is dropped.
struct Place(Arc<AtomicUsize>);

impl Drop for Place {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A stream holding its place: it travels with the stream through TLS and into a WebSocket.
struct Counted<S> {
    stream: S,
    _place: Place,
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Serves `app` on `listener` (over TLS with `tls`), at most `max_connections` open at once,
/// until `stop` completes, then closes the connections: idle ones at once, the others when
/// their request is answered or [`STOP_WAIT`] has passed.
pub async fn run(
    listener: TcpListener,
    app: Router,
    edge: Arc<Edge>,
    tls: Option<Tls>,
    max_connections: usize,
    stop: impl Future<Output = ()>,
) {
    let (stopping_tx, stopping) = watch::channel(false);
    let mut connections = JoinSet::new();
    let open = Arc::new(AtomicUsize::new(0));
    let refusing = Arc::new(Semaphore::new(REFUSING_AT_ONCE));
    let refusing_spent = Arc::new(Semaphore::new(REFUSING_AT_ONCE));
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, addr)) => {
                    if let Some(wait) = spent(&edge, addr) {
                        crate::metrics::turned_away();
                        if let Ok(turn) = Arc::clone(&refusing_spent).try_acquire_owned() {
                            let tls = tls.clone();
                            connections.spawn(async move {
                                refuse_spent(stream, tls, wait).await;
                                drop(turn);
                            });
                        }
                        continue;
                    }
                    if open.load(Ordering::Relaxed) >= max_connections {
                        crate::metrics::turned_away();
                        if let Ok(turn) = Arc::clone(&refusing).try_acquire_owned() {
                            let tls = tls.clone();
                            connections.spawn(async move {
                                refuse(stream, tls).await;
                                drop(turn);
                            });
                        }
                        continue;
                    }
                    open.fetch_add(1, Ordering::Relaxed);
                    let stream = Counted { stream, _place: Place(Arc::clone(&open)) };
                    let (app, stopping) = (app.clone(), stopping.clone());
                    match tls.clone() {
                        None => connections.spawn(connection(stream, addr, app, stopping)),
                        Some(tls) => connections.spawn(secured(tls, stream, addr, app, stopping)),
                    };
                }
                Err(e) => {
                    tracing::warn!("accepting a connection: {e}");
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                }
            },
            // Connections that ended are forgotten as they end.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let _ = stopping_tx.send(true);
    let drained = tokio::time::timeout(STOP_WAIT, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            "stopping: {} request(s) still under way after {} s; closed",
            connections.len(),
            STOP_WAIT.as_secs()
        );
        connections.abort_all();
    }
}

/// A connection past the cap: its request read (within [`HEADER_WAIT`]) and answered 503, then
/// closed.
async fn refuse(stream: TcpStream, tls: Option<Tls>) {
    let hsts = tls.is_some();
    let _ = tokio::time::timeout(HEADER_WAIT + STOP_WAIT, async {
        match tls {
            None => busy(stream, hsts).await,
            Some(tls) => {
                if let Ok(stream) = tls.acceptor.accept(stream).await {
                    busy(stream, hsts).await;
                }
            }
        }
    })
    .await;
}

/// Answers a connection's request with 503, and no more.
async fn busy<S: AsyncRead + AsyncWrite + Unpin + Send + 'static>(stream: S, hsts: bool) {
    let service = hyper::service::service_fn(move |_request: hyper::Request<_>| async move {
        let mut answer = axum::response::IntoResponse::into_response((
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            [(axum::http::header::RETRY_AFTER, "10")],
            "the server has all the connections it can take; try again in a little while\n",
        ));
        crate::edge::secure(answer.headers_mut(), hsts);
        Ok::<_, std::convert::Infallible>(answer)
    });
    let _ = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_WAIT)
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), service)
        .await;
}

/// Whether the peer at `addr` is an address whose request budget is spent (and for how long):
/// never for a trusted proxy, whose clients the edge tells apart by their headers.
fn spent(edge: &Edge, addr: SocketAddr) -> Option<Duration> {
    let peer = addr.ip().to_canonical();
    if edge.trusted.iter().any(|p| p.contains(peer)) {
        return None;
    }
    edge.limits.spent(peer)
}

/// A spent address's connection: over TLS its handshake first; its request read to the end of
/// its headers, then answered 429 and closed.
async fn refuse_spent(stream: TcpStream, tls: Option<Tls>, wait: Duration) {
    let hsts = tls.is_some();
    let _ = tokio::time::timeout(HEADER_WAIT, async {
        match tls {
            None => too_many(stream, hsts, wait).await,
            Some(tls) => {
                if let Ok(stream) = tls.acceptor.accept(stream).await {
                    too_many(stream, hsts, wait).await;
                }
            }
        }
    })
    .await;
}

/// The whole answer to a spent address: `HTTP/1.1 429`, `Retry-After` in whole seconds (at
/// least one), the edge's security headers, and `Connection: close`.
fn too_many_answer(hsts: bool, wait: Duration) -> Vec<u8> {
    let seconds = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
    let mut headers = axum::http::HeaderMap::new();
    crate::edge::secure(&mut headers, hsts);
    let mut answer = format!(
        "HTTP/1.1 429 Too Many Requests\r\nretry-after: {seconds}\r\n\
         content-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\n\
         connection: close\r\n",
        crate::edge::TOO_MANY_REQUESTS.len()
    )
    .into_bytes();
    for (name, value) in &headers {
        answer.extend_from_slice(name.as_str().as_bytes());
        answer.extend_from_slice(b": ");
        answer.extend_from_slice(value.as_bytes());
        answer.extend_from_slice(b"\r\n");
    }
    answer.extend_from_slice(b"\r\n");
    answer.extend_from_slice(crate::edge::TOO_MANY_REQUESTS.as_bytes());
    answer
}

/// Reads a request's head (its body, if any, is not waited for), answers 429 and closes. The
/// head is read first so that the client is not reset with its request unread, which could
/// lose it the answer.
async fn too_many<S: AsyncRead + AsyncWrite + Unpin>(mut stream: S, hsts: bool, wait: Duration) {
    let mut head = [0u8; 4096];
    let mut read = 0;
    while read < head.len() {
        match stream.read(&mut head[read..]).await {
            Ok(0) | Err(_) => return,
            Ok(n) => read += n,
        }
        if head[..read].windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    if stream.write_all(&too_many_answer(hsts, wait)).await.is_ok() {
        let _ = stream.shutdown().await;
    }
}

/// One connection over TLS: its handshake must end within [`HEADER_WAIT`] too.
async fn secured<S: AsyncRead + AsyncWrite + Unpin + Send + 'static>(
    tls: Tls,
    stream: S,
    addr: SocketAddr,
    app: Router,
    stopping: watch::Receiver<bool>,
) {
    match tokio::time::timeout(HEADER_WAIT, tls.acceptor.accept(stream)).await {
        Ok(Ok(stream)) => connection(stream, addr, app, stopping).await,
        // A client that does not speak TLS, or does not trust the certificate, says so itself.
        Ok(Err(e)) => tracing::debug!("TLS handshake with {addr}: {e}"),
        Err(_) => tracing::debug!("TLS handshake with {addr}: too slow"),
    }
}

/// One connection, until it closes or the server stops.
async fn connection<S>(
    stream: S,
    addr: SocketAddr,
    app: Router,
    mut stopping: watch::Receiver<bool>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |mut request: hyper::Request<_>| {
        // What `ConnectInfo` reads: the limits are per address.
        request.extensions_mut().insert(ConnectInfo(addr));
        let mut app = app.clone();
        async move { tower_service::Service::call(&mut app, request).await }
    });
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_WAIT)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        () = async { drop(stopping.wait_for(|stopping| *stopping).await) } => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}
