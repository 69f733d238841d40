//! State stores (protocol 6.11; experimental in Terraform 1.15–1.16):
//! a provider that keeps Terraform's state files, as a `state_store`
//! block in a `terraform` block configures it. Terraform configures the
//! store once per run (agreeing on a chunk size), then reads and writes
//! whole state files as streams of chunks, locks them, lists and deletes
//! them (core's `internal/backend/pluggable`).

use ctywire::Value;

use crate::diagnostics::Diagnostics;

/// `ValidateStateStoreConfig`.
#[derive(Clone, Debug)]
pub struct ValidateStateStoreConfigRequest {
    /// The state store type.
    pub type_name: String,
    /// The `state_store` block (may hold unknowns).
    pub config: Value,
}

/// `ConfigureStateStore`.
#[derive(Clone, Debug)]
pub struct ConfigureStateStoreRequest {
    /// The state store type.
    pub type_name: String,
    /// The `state_store` block.
    pub config: Value,
    /// What Terraform proposes.
    pub capabilities: StateStoreClientCapabilities,
}

/// `StateStoreClientCapabilities`: what Terraform proposes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StateStoreClientCapabilities {
    /// The chunk size Terraform proposes, in bytes (8 MiB: core's
    /// `chunks.DefaultStateStoreChunkSize`); 0 when not sent.
    pub chunk_size: i64,
}

/// `StateStoreServerCapabilities`: what the provider chose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StateStoreServerCapabilities {
    /// The chunk size the provider chose, in bytes: Terraform refuses 0
    /// and anything over 128 MiB (`chunks.MaxStateStoreChunkSize`). Every
    /// chunk of a read or write but the last is exactly this long.
    pub chunk_size: i64,
}

/// The answer to `ConfigureStateStore`.
#[derive(Clone, Debug, Default)]
pub struct ConfigureStateStoreResponse {
    /// The chunk size chosen.
    pub capabilities: StateStoreServerCapabilities,
    /// Warnings.
    pub diagnostics: Diagnostics,
}

/// `StateRange`: where a chunk sits in the whole state, both ends
/// included (a chunk of `n` bytes at `start` ends at `start + n - 1`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StateRange {
    /// The index of the chunk's first byte.
    pub start: i64,
    /// The index of its last byte.
    pub end: i64,
}

/// One chunk of a state file, read or written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateChunk {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// The length of the whole state file.
    pub total_length: i64,
    /// Where the chunk sits in it; `None` when the message had none.
    pub range: Option<StateRange>,
}

/// `ReadStateBytes`.
#[derive(Clone, Debug)]
pub struct ReadStateBytesRequest {
    /// The state store type.
    pub type_name: String,
    /// The state (a workspace's name).
    pub state_id: String,
}

/// `WriteStateBytes`: what the first chunk's `meta` names (the chunks
/// themselves come through [`StateChunkStream`](crate::StateChunkStream)).
#[derive(Clone, Debug)]
pub struct WriteStateBytesRequest {
    /// The state store type.
    pub type_name: String,
    /// The state (a workspace's name).
    pub state_id: String,
}

/// `LockState`.
#[derive(Clone, Debug)]
pub struct LockStateRequest {
    /// The state store type.
    pub type_name: String,
    /// The state to lock.
    pub state_id: String,
    /// What Terraform is doing (`OperationTypeApply`, say), for the lock's
    /// information.
    pub operation: String,
}

/// The answer to `LockState`.
#[derive(Clone, Debug, Default)]
pub struct LockStateResponse {
    /// The lock's id: Terraform hands it back to unlock.
    pub lock_id: String,
    /// Warnings.
    pub diagnostics: Diagnostics,
}

/// `UnlockState`.
#[derive(Clone, Debug)]
pub struct UnlockStateRequest {
    /// The state store type.
    pub type_name: String,
    /// The state to unlock.
    pub state_id: String,
    /// The id the lock was answered with.
    pub lock_id: String,
}

/// `GetStates`.
#[derive(Clone, Debug)]
pub struct GetStatesRequest {
    /// The state store type.
    pub type_name: String,
}

/// The answer to `GetStates`.
#[derive(Clone, Debug, Default)]
pub struct GetStatesResponse {
    /// The states the store holds (workspaces).
    pub state_ids: Vec<String>,
    /// Warnings.
    pub diagnostics: Diagnostics,
}

/// `DeleteState`.
#[derive(Clone, Debug)]
pub struct DeleteStateRequest {
    /// The state store type.
    pub type_name: String,
    /// The state to delete.
    pub state_id: String,
}
