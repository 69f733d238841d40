//! A state store's client, as Terraform's pluggable backend drives one
//! (core's `internal/backend/pluggable` through `GRPCProvider`'s
//! state-store methods): `ConfigureStateStore` with the chunk size
//! negotiated, states read and written in chunks with their ranges and
//! total length, locks, listing and deletion.
//!
//! It speaks protobuf through the generated gRPC client, over any
//! transport: a real connection (`tonic::transport::Channel`) or the
//! provider's service in-process (its `into_service()`), which is how
//! [`Harness::state_store`](crate::Harness::state_store) keeps its state.

use ctywire::{Type, Value};
use ctywire_tfplugin6::client::{diagnostic_from_proto, encode_dynamic_value, schema_from_proto};
use ctywire_tfplugin6::pb::tfplugin6 as pb;
use ctywire_tfplugin6::pb::tfplugin6::provider_client::ProviderClient;
use ctywire_tfplugin6::{Diagnostic, Diagnostics, Provider, ProviderService};
use serde_json::Value as Json;
use tonic::codegen::{Body, Bytes, StdError};

use crate::client::{status, TERRAFORM_VERSION};

/// A provider's gRPC service in-process: protobuf through the generated
/// server, no socket.
pub type InProcess<P> = pb::provider_server::ProviderServer<ProviderService<P>>;

/// The chunk size Terraform proposes (core's `chunks.DefaultStateStoreChunkSize`).
pub const DEFAULT_CHUNK_SIZE: usize = 8 << 20;
/// The largest chunk size Terraform accepts from a store
/// (`chunks.MaxStateStoreChunkSize`).
pub const MAX_CHUNK_SIZE: usize = 128 << 20;

/// A configured state store of a provider. Every answer's diagnostics are
/// returned whole as the error when any of them is an error; a gRPC
/// failure is one error diagnostic, as core reports it.
#[derive(Clone, Debug)]
pub struct StateStoreClient<T> {
    grpc: ProviderClient<T>,
    type_name: String,
    chunk_size: usize,
}

/// One chunk of a state as `ReadStateBytes` streamed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadChunk {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// The whole state's length it announced.
    pub total_length: i64,
    /// Its range, first and last byte (inclusive), when it has one.
    pub range: Option<(i64, i64)>,
}

/// The answer's diagnostics, as an error when one is an error.
fn checked(ds: &[pb::Diagnostic]) -> Result<(), Diagnostics> {
    let ds: Diagnostics = ds.iter().map(diagnostic_from_proto).collect();
    if ds.has_errors() {
        Err(ds)
    } else {
        Ok(())
    }
}

/// A unary call's answer, or core's error for a failed call.
async fn unary<R>(
    call: &str,
    sent: impl std::future::Future<Output = Result<tonic::Response<R>, tonic::Status>>,
) -> Result<R, Diagnostics> {
    sent.await
        .map(tonic::Response::into_inner)
        .map_err(|s| status(call, s))
}

/// A JSON configuration body as a value of `ty`: attributes left out are
/// null, as in Terraform's JSON syntax.
fn config_value(what: &str, body: &Json, ty: &Type) -> Result<Value, Diagnostics> {
    let mut body = body.clone();
    if let (Json::Object(m), Type::Object(attrs)) = (&mut body, ty) {
        for (name, _) in attrs.attributes() {
            m.entry(name.to_string()).or_insert(Json::Null);
        }
    }
    let text = serde_json::to_vec(&body).unwrap_or_default();
    ctywire::json::decode(&text, ty).map_err(|e| {
        Diagnostics::from(
            Diagnostic::error(format!("Invalid {what} configuration")).with_detail(format!("{e}.")),
        )
    })
}

/// The store `type_name` in `schemas`, its configuration's type.
fn store_type(
    schemas: &pb::get_provider_schema::Response,
    type_name: &str,
) -> Result<Type, Diagnostics> {
    let schema = schemas.state_store_schemas.get(type_name).ok_or_else(|| {
        Diagnostics::from(
            Diagnostic::error("State store not supported by the provider").with_detail(format!(
                "The provider has no state store named {type_name:?}."
            )),
        )
    })?;
    schema_from_proto(schema)
        .and_then(|s| s.implied_type())
        .map_err(|e| Diagnostics::error(format!("the schema of {type_name} is invalid: {e}")))
}

impl<P: Provider> StateStoreClient<InProcess<P>> {
    /// `provider` served in-process and configured as Terraform configures
    /// the provider of a `state_store "TYPE" { provider "NAME" { … } … }`
    /// block: `ConfigureProvider` with `provider_config`, then
    /// [`configure`](Self::configure) of `type_name` with `config` (both
    /// attributes in Terraform's JSON syntax, those left out null) at
    /// Terraform's proposed chunk size.
    pub async fn in_process(
        provider: P,
        type_name: &str,
        provider_config: &Json,
        config: &Json,
    ) -> Result<Self, Diagnostics> {
        let mut grpc = ProviderClient::new(ProviderService::new(provider).into_service())
            .max_decoding_message_size(usize::MAX)
            .max_encoding_message_size(usize::MAX);
        let schemas = unary(
            "GetProviderSchema",
            grpc.get_provider_schema(pb::get_provider_schema::Request {}),
        )
        .await?;
        checked(&schemas.diagnostics)?;
        let provider_ty = match &schemas.provider {
            Some(s) => schema_from_proto(s)?.implied_type()?,
            None => Type::object([] as [(&str, Type); 0]),
        };
        let provider_value = config_value("provider", provider_config, &provider_ty)?;
        let answer = unary(
            "ConfigureProvider",
            grpc.configure_provider(pb::configure_provider::Request {
                terraform_version: TERRAFORM_VERSION.into(),
                config: Some(encode_dynamic_value(&provider_value, &provider_ty)?),
                client_capabilities: None,
            }),
        )
        .await?;
        checked(&answer.diagnostics)?;
        let value = config_value("state store", config, &store_type(&schemas, type_name)?)?;
        StateStoreClient::configure(grpc, type_name, &value, DEFAULT_CHUNK_SIZE).await
    }
}

/// A chunk of a read that does not continue the state where the last one
/// ended, or disagrees with it on the length.
fn bad_chunk(detail: String) -> Diagnostics {
    Diagnostics::from(
        Diagnostic::error("Invalid state chunk from the provider").with_detail(detail),
    )
}

impl<T> StateStoreClient<T>
where
    T: tonic::client::GrpcService<tonic::body::Body> + Send + 'static,
    T::Error: Into<StdError>,
    T::ResponseBody: Body<Data = Bytes> + Send + 'static,
    <T::ResponseBody as Body>::Error: Into<StdError> + Send,
    T::Future: Send,
{
    /// `ConfigureStateStore` of the store `type_name` with `config` (a
    /// value of its schema's type, which is asked for with
    /// `GetProviderSchema`), proposing `chunk_size` bytes a chunk (0: no
    /// proposal). The provider must have been configured
    /// (`ConfigureProvider`), as core configures it first. A chunk size
    /// outside 1 byte to [`MAX_CHUNK_SIZE`] in the answer is refused.
    pub async fn configure(
        mut grpc: ProviderClient<T>,
        type_name: &str,
        config: &Value,
        chunk_size: usize,
    ) -> Result<StateStoreClient<T>, Diagnostics> {
        let schemas = unary(
            "GetProviderSchema",
            grpc.get_provider_schema(pb::get_provider_schema::Request {}),
        )
        .await?;
        checked(&schemas.diagnostics)?;
        let ty = store_type(&schemas, type_name)?;
        let config = encode_dynamic_value(config, &ty).map_err(|e| {
            Diagnostics::error(format!(
                "the configuration of {type_name} does not fit its schema: {e}"
            ))
        })?;
        let answer = unary(
            "ConfigureStateStore",
            grpc.configure_state_store(pb::configure_state_store::Request {
                type_name: type_name.to_owned(),
                config: Some(config),
                capabilities: Some(pb::StateStoreClientCapabilities {
                    chunk_size: i64::try_from(chunk_size).unwrap_or(i64::MAX),
                }),
            }),
        )
        .await?;
        checked(&answer.diagnostics)?;
        let chosen = answer.capabilities.map_or(0, |c| c.chunk_size);
        let chunk_size = usize::try_from(chosen)
            .ok()
            .filter(|n| (1..=MAX_CHUNK_SIZE).contains(n))
            .ok_or_else(|| {
                Diagnostics::from(Diagnostic::error("Invalid state store chunk size").with_detail(
                    format!("The state store {type_name} chose a chunk size of {chosen} bytes; Terraform accepts 1 to {MAX_CHUNK_SIZE}."),
                ))
            })?;
        Ok(StateStoreClient {
            grpc,
            type_name: type_name.to_owned(),
            chunk_size,
        })
    }

    /// The chunk size agreed.
    pub fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// `ReadStateBytes`: each chunk with bytes handed to `each` as it
    /// arrives (a large state is never gathered here).
    pub async fn read_chunks(
        &mut self,
        state_id: &str,
        mut each: impl FnMut(ReadChunk),
    ) -> Result<(), Diagnostics> {
        let call = "ReadStateBytes";
        let mut stream = self
            .grpc
            .read_state_bytes(pb::read_state_bytes::Request {
                type_name: self.type_name.clone(),
                state_id: state_id.to_owned(),
            })
            .await
            .map_err(|s| status(call, s))?
            .into_inner();
        while let Some(chunk) = stream.message().await.map_err(|s| status(call, s))? {
            checked(&chunk.diagnostics)?;
            if !chunk.bytes.is_empty() {
                each(ReadChunk {
                    bytes: chunk.bytes,
                    total_length: chunk.total_length,
                    range: chunk.range.map(|r| (r.start, r.end)),
                });
            }
        }
        Ok(())
    }

    /// The state `state_id` whole, `None` when the store has none. Each
    /// chunk must start where the last ended and announce the same total
    /// length, which the bytes must reach, as core's reader checks them.
    pub async fn read(&mut self, state_id: &str) -> Result<Option<Vec<u8>>, Diagnostics> {
        let mut bytes: Vec<u8> = Vec::new();
        let mut total = None;
        let mut problem = None;
        self.read_chunks(state_id, |chunk| {
            if problem.is_some() {
                return;
            }
            let start = bytes.len() as i64;
            let end = start + chunk.bytes.len() as i64 - 1;
            if chunk.range != Some((start, end)) {
                problem = Some(format!(
                    "A chunk of state {state_id:?} has the range {:?} where bytes {start} to {end} come next.",
                    chunk.range
                ));
            } else if *total.get_or_insert(chunk.total_length) != chunk.total_length
                || end >= chunk.total_length
            {
                problem = Some(format!(
                    "A chunk of state {state_id:?} ends at byte {end} of a state of {} bytes.",
                    chunk.total_length
                ));
            } else {
                bytes.extend_from_slice(&chunk.bytes);
            }
        })
        .await?;
        if let Some(p) = problem {
            return Err(bad_chunk(p));
        }
        match total {
            None => Ok(None),
            Some(t) if t == bytes.len() as i64 => Ok(Some(bytes)),
            Some(t) => Err(bad_chunk(format!(
                "State {state_id:?} ended after {} of its {t} bytes.",
                bytes.len()
            ))),
        }
    }

    /// `WriteStateBytes` of `bytes`, cut at the agreed chunk size.
    pub async fn write(&mut self, state_id: &str, bytes: &[u8]) -> Result<(), Diagnostics> {
        let bytes = bytes.to_vec();
        self.write_with(state_id, bytes.len(), move |start, n| {
            bytes[start as usize..start as usize + n].to_vec()
        })
        .await
    }

    /// `WriteStateBytes` of a state of `len` bytes, each chunk's bytes made
    /// by `make(start, n)` only when the chunk is sent (so a large state
    /// is never held whole).
    pub async fn write_with(
        &mut self,
        state_id: &str,
        len: usize,
        make: impl FnMut(u64, usize) -> Vec<u8> + Send + 'static,
    ) -> Result<(), Diagnostics> {
        let chunks = self.request_chunks(state_id, len, make);
        self.write_chunks(tokio_stream::iter(chunks)).await
    }

    /// The requests of a write of `len` bytes, as core cuts them: chunks
    /// of the agreed size, each with its inclusive range and the total
    /// length, the first naming the store and the state. For a test
    /// that sends only some of them ([`write_chunks`](Self::write_chunks)).
    pub fn request_chunks(
        &self,
        state_id: &str,
        len: usize,
        mut make: impl FnMut(u64, usize) -> Vec<u8> + Send + 'static,
    ) -> impl Iterator<Item = pb::write_state_bytes::RequestChunk> + Send + 'static {
        let (type_name, state_id) = (self.type_name.clone(), state_id.to_owned());
        let size = self.chunk_size;
        (0..len).step_by(size).map(move |start| {
            let n = size.min(len - start);
            pb::write_state_bytes::RequestChunk {
                meta: (start == 0).then(|| pb::RequestChunkMeta {
                    type_name: type_name.clone(),
                    state_id: state_id.clone(),
                }),
                bytes: make(start as u64, n),
                total_length: len as i64,
                range: Some(pb::StateRange {
                    start: start as i64,
                    end: (start + n - 1) as i64,
                }),
            }
        })
    }

    /// `WriteStateBytes` of the requests `chunks` as they are.
    pub async fn write_chunks(
        &mut self,
        chunks: impl tokio_stream::Stream<Item = pb::write_state_bytes::RequestChunk> + Send + 'static,
    ) -> Result<(), Diagnostics> {
        let answer = unary("WriteStateBytes", self.grpc.write_state_bytes(chunks)).await?;
        checked(&answer.diagnostics)
    }

    /// `LockState` for `operation` (core's names: `OperationTypeApply`,
    /// `OperationTypePlan`, …): the lock's id. The store makes the lock
    /// information; a lock already held is its error.
    pub async fn lock(&mut self, state_id: &str, operation: &str) -> Result<String, Diagnostics> {
        let answer = unary(
            "LockState",
            self.grpc.lock_state(pb::lock_state::Request {
                type_name: self.type_name.clone(),
                state_id: state_id.to_owned(),
                operation: operation.to_owned(),
            }),
        )
        .await?;
        checked(&answer.diagnostics)?;
        Ok(answer.lock_id)
    }

    /// `UnlockState` of the lock `lock_id`.
    pub async fn unlock(&mut self, state_id: &str, lock_id: &str) -> Result<(), Diagnostics> {
        let answer = unary(
            "UnlockState",
            self.grpc.unlock_state(pb::unlock_state::Request {
                type_name: self.type_name.clone(),
                state_id: state_id.to_owned(),
                lock_id: lock_id.to_owned(),
            }),
        )
        .await?;
        checked(&answer.diagnostics)
    }

    /// `GetStates`: the ids of the states kept.
    pub async fn states(&mut self) -> Result<Vec<String>, Diagnostics> {
        let answer = unary(
            "GetStates",
            self.grpc.get_states(pb::get_states::Request {
                type_name: self.type_name.clone(),
            }),
        )
        .await?;
        checked(&answer.diagnostics)?;
        Ok(answer.state_id)
    }

    /// `DeleteState` of `state_id`.
    pub async fn delete(&mut self, state_id: &str) -> Result<(), Diagnostics> {
        let answer = unary(
            "DeleteState",
            self.grpc.delete_state(pb::delete_state::Request {
                type_name: self.type_name.clone(),
                state_id: state_id.to_owned(),
            }),
        )
        .await?;
        checked(&answer.diagnostics)
    }
}
