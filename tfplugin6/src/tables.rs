//! What the conversions read and the service builds once: each kind's
//! schemas with their implied types, the identity types, and the observer
//! of received values. Its own module so that `fromproto`, `toproto` and
//! the service all look down at it, never at each other.

use std::collections::BTreeMap;
use std::sync::Arc;

use ctywire::schema::{IdentitySchema, Schema};
use ctywire::{Type, Value};

use crate::diagnostics::Diagnostic;
use crate::provider::*;

/// A schema with its implied type, computed once.
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) schema: Schema,
    pub(crate) ty: Type,
    /// Whether the schema has write-only attributes (to null in states).
    pub(crate) write_only: bool,
}

/// The schemas of one kind, by type name.
#[derive(Debug, Default)]
pub(crate) struct Table {
    kind: &'static str,
    entries: BTreeMap<String, Result<Entry, Diagnostic>>,
}

impl Table {
    pub(crate) fn new(kind: &'static str, schemas: &BTreeMap<String, Schema>) -> Table {
        Table {
            kind,
            entries: schemas
                .iter()
                .map(|(name, s)| (name.clone(), entry(kind, name, s)))
                .collect(),
        }
    }

    /// The entry of `name`, or an error diagnostic naming what exists.
    pub(crate) fn get(&self, name: &str) -> Result<&Entry, Diagnostic> {
        match self.entries.get(name) {
            Some(Ok(e)) => Ok(e),
            Some(Err(d)) => Err(d.clone()),
            None => Err(
                Diagnostic::error(format!("unknown {} type {name:?}", self.kind)).with_detail(
                    format!(
                        "this provider's {} types are: {}",
                        self.kind,
                        self.entries
                            .keys()
                            .map(|k| format!("{k:?}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ),
            ),
        }
    }

    pub(crate) fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.entries.values().filter_map(|e| e.as_ref().err())
    }
}

/// The identity schemas' types (protocol 6.9), by resource type name.
#[derive(Debug, Default)]
pub(crate) struct Identities {
    entries: BTreeMap<String, Result<Type, Diagnostic>>,
}

impl Identities {
    pub(crate) fn new(schemas: &Schemas) -> Identities {
        let entries = (schemas.identities.iter())
            .map(|(name, s)| (name.clone(), identity_type(schemas, name, s)))
            .collect();
        Identities { entries }
    }

    /// The identity type of the resource type `name`: `None` when it has
    /// no identity schema.
    pub(crate) fn get(&self, name: &str) -> Result<Option<&Type>, Diagnostic> {
        match self.entries.get(name) {
            None => Ok(None),
            Some(Ok(ty)) => Ok(Some(ty)),
            Some(Err(d)) => Err(d.clone()),
        }
    }

    /// The identity type of `name`, which must have one.
    pub(crate) fn required(&self, rpc: &str, name: &str) -> Result<&Type, Diagnostic> {
        self.get(name)?.ok_or_else(|| {
            Diagnostic::error(format!("{rpc}: the resource type has no identity"))
                .with_detail(format!("{name:?} has no identity schema"))
        })
    }

    pub(crate) fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.entries.values().filter_map(|e| e.as_ref().err())
    }
}

fn identity_type(schemas: &Schemas, name: &str, s: &IdentitySchema) -> Result<Type, Diagnostic> {
    let invalid = |detail: String| {
        Diagnostic::error(format!(
            "the identity schema of resource {name:?} is invalid"
        ))
        .with_detail(detail)
    };
    if !schemas.resources.contains_key(name) {
        return Err(invalid(
            "there is no managed resource type of that name".into(),
        ));
    }
    s.implied_type().map_err(|e| invalid(e.to_string()))
}

/// Every list resource type must be a managed resource type with an
/// identity schema: Terraform reads each result at both.
pub(crate) fn list_errors(schemas: &Schemas) -> Vec<Diagnostic> {
    (schemas.list_resources.keys())
        .filter(|name| !schemas.identities.contains_key(*name))
        .map(|name| {
            Diagnostic::error(format!("the list resource {name:?} lists nothing Terraform can read"))
                .with_detail(
                    "a list resource type is named after a managed resource type with an identity schema, \
                     whose objects it lists",
                )
        })
        .collect()
}

pub(crate) fn entry(kind: &str, name: &str, schema: &Schema) -> Result<Entry, Diagnostic> {
    match schema.implied_type() {
        Ok(ty) => Ok(Entry {
            write_only: schema.block.has_write_only(),
            schema: schema.clone(),
            ty,
        }),
        Err(e) => Err(
            Diagnostic::error(format!("the schema of {kind} {name:?} is invalid"))
                .with_detail(e.to_string()),
        ),
    }
}

/// A value Terraform sent, as received and as decoded, for a
/// [`ValueObserver`].
#[derive(Debug)]
pub struct ReceivedValue<'a> {
    /// The RPC, such as `"PlanResourceChange"`.
    pub rpc: &'a str,
    /// The request field, such as `"proposed_new_state"`.
    pub field: &'a str,
    /// The `DynamicValue`'s msgpack bytes (empty when it was sent as JSON
    /// or not at all).
    pub msgpack: &'a [u8],
    /// The `DynamicValue`'s JSON bytes.
    pub json: &'a [u8],
    /// The type it was decoded at.
    pub ty: &'a Type,
    /// The decoded value.
    pub value: &'a Value,
}

/// Sees every request value after it is decoded and before the provider
/// does: for recording what Terraform sends, or checking it. An `Err`
/// fails the call with that diagnostic.
pub type ValueObserver =
    Arc<dyn Fn(&ReceivedValue<'_>) -> Result<(), Diagnostic> + Send + Sync + 'static>;
