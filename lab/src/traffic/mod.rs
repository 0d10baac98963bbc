//! Real TCP traffic through the emulated link. The server, in the server namespace,
//! listens on one port per congestion control (SERVER_PORT + i), with TCP_CONGESTION
//! set on the listener, so that each accepted connection runs its controller from the
//! handshake on, as under a system-wide or per-route setting (a controller's `init`
//! then runs before the request arrives, and the receive-window override already
//! applies to the request's ACK). It reads a one-line request `<bytes> <congestion
//! control>`, sends that many bytes and closes its side; once the client has read
//! everything and closed, the server records TCP_INFO (all data is acked then).
//! The client measures the flow completion time from just before connect() (the SYN)
//! to the arrival of the last byte.
//!
//! By role: server.rs (the sender), client.rs (the receiver), http.rs (nginx and
//! curl instead of both), keepalive.rs (nginx and one persistent connection idling
//! between responses), browser.rs (nginx and headless Chromium loading pages),
//! tcp_info.rs (what is read of a socket).

mod browser;
mod client;
mod http;
mod keepalive;
mod server;
mod tcp_info;

pub use client::{client_flow, client_upload, ClientFlow};
pub use browser::{page_load, PageLayout, PageLoad};
pub use http::{curl_flow, HttpServer, PageProtocol, HTTP_PORT};
pub use keepalive::KeepAlive;
pub use server::{Server, ServerFlowInfo, SERVER_PORT};
pub use tcp_info::{set_congestion, slow_start_exit, CwndSample, TcpInfo};
