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
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
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
    tls: Option<Tls>,
    max_connections: usize,
    stop: impl Future<Output = ()>,
) {
    let (stopping_tx, stopping) = watch::channel(false);
    let mut connections = JoinSet::new();
    let open = Arc::new(AtomicUsize::new(0));
    let refusing = Arc::new(Semaphore::new(REFUSING_AT_ONCE));
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, addr)) => {
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
