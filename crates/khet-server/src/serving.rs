//! The connections: hyper's HTTP/1 under the router, with the two bounds a stop needs, which
//! `axum::serve` does not set. A request's headers must arrive within [`HEADER_WAIT`], so a client
//! that sends half a request (by accident or to hold the server) is closed; and a stop waits
//! [`STOP_WAIT`] at most for the requests under way. Idle connections are closed at once on a
//! stop; WebSockets, once upgraded, are the sessions' own and end with the process (clients
//! reconnect, to another node if there is one).

use crate::tls::Tls;
use axum::Router;
use axum::extract::ConnectInfo;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// How long a request's headers may take to arrive, from the connection's opening or the end of
/// its last request.
pub const HEADER_WAIT: Duration = Duration::from_secs(5);

/// How long a stop waits for the requests under way before it closes their connections.
pub const STOP_WAIT: Duration = Duration::from_secs(5);

/// After a failed accept (out of file descriptors, say), how long before the next: without a
/// pause the loop would spin on the same error.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// Serves `app` on `listener` (over TLS with `tls`) until `stop` completes, then closes the
/// connections: idle ones at once, the others when their request is answered or [`STOP_WAIT`]
/// has passed.
pub async fn run(
    listener: TcpListener,
    app: Router,
    tls: Option<Tls>,
    stop: impl Future<Output = ()>,
) {
    let (stopping_tx, stopping) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, addr)) => {
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

/// One connection over TLS: its handshake must end within [`HEADER_WAIT`] too.
async fn secured(
    tls: Tls,
    stream: TcpStream,
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
