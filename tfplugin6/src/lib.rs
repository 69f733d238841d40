// The crate documentation is its README, the page crates.io shows: one text,
// and its examples run as doctests.
#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

// Public for the fuzz target and the benchmark; not part of the API.
#[doc(hidden)]
pub mod authority;
// Both directions of each message: the server uses the one Terraform
// sends; the other (Terraform's side, as an in-process core needs it:
// `client`) is held to the first by the round-trip tests.
mod convert;
#[cfg(test)]
mod convert_tests;
mod diagnostics;
mod fromproto;
mod genconfig;
mod go_plugin;
mod go_plugin_client;
mod hclog;
mod huffman;
mod panic;
mod provider;
mod service;
mod stop;
mod stream;
mod tables;
mod tls;
mod toproto;

// The framework's state-store lock info writes its `Created` time as
// go-hclog writes `@timestamp`: one RFC 3339 writer.
pub use async_trait::async_trait;
pub use convert::MAX_DIAGNOSTICS;
pub use diagnostics::{Diagnostic, Diagnostics, Severity};
pub use genconfig::generated_config;
pub use go_plugin::{
    serve, serve_with, try_serve, HandshakeEnv, ServeError, ServeOptions, CORE_PROTOCOL_VERSION,
    MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, PROTOCOL_VERSION,
};
#[doc(hidden)]
pub use hclog::timestamp;
pub use provider::*;
pub use service::{
    InvokeActionStream, ListResourceStream, ProviderService, ReadStateBytesStream, ReceivedValue,
    ValueObserver,
};
pub use stop::StopSignal;
pub use stream::{
    ActionProgress, ListResourceResult, ListResults, StateChunkStream, StateChunks, StreamClosed,
    STREAM_BUFFER,
};

/// Terraform's side of the conversions: what a client of a
/// [`ProviderService`] (an in-process Terraform core, such as
/// `ctywire_provider_testing`) needs to read the provider's answers and
/// write its requests. They are the very functions the server uses in the
/// other direction, held to them by round-trip tests, so both sides read
/// the protocol by one rule.
///
/// And go-plugin's client side, as Terraform starts a provider process:
/// [`ClientCertificate`](client::ClientCertificate) for
/// `PLUGIN_CLIENT_CERT`, the [`Handshake`](client::Handshake) line, and
/// [`connect`](client::connect) for a gRPC channel to the plugin.
pub mod client {
    pub use crate::convert::{
        decode_dynamic_value, diagnostic_from_proto, encode_dynamic_value, function_from_proto,
        identity_from_proto, identity_schema_from_proto, identity_to_proto, path_from_proto,
        path_to_proto, schema_from_proto,
    };
    pub use crate::go_plugin_client::{
        connect, ClientCertificate, ConnectError, Handshake, Network, CONNECT_TIMEOUT,
    };
}

/// The raw protocol: the protobuf messages and tonic services generated
/// from `proto/` (protocol 6.11, what Terraform 1.16 speaks, state stores
/// included; and go-plugin's controller, stdio, broker and the gRPC
/// health service).
///
/// A provider works with [`Provider`] and its ctywire types instead; this
/// is for driving a [`ProviderService`] at the gRPC level (tests, an
/// in-process harness) and for go-plugin's side services.
pub mod pb {
    /// `tfplugin6`: the provider protocol, version 6.11.
    #[allow(missing_docs, clippy::all, clippy::pedantic)]
    pub mod tfplugin6 {
        tonic::include_proto!("tfplugin6");
    }
    /// `plugin`: go-plugin's broker, controller and stdio services.
    #[allow(missing_docs, clippy::all, clippy::pedantic)]
    pub mod plugin {
        tonic::include_proto!("plugin");
    }
    /// `grpc.health.v1`: the gRPC health service.
    #[allow(missing_docs, clippy::all, clippy::pedantic)]
    pub mod health {
        tonic::include_proto!("grpc.health.v1");
    }
}
