//! Rust types as Terraform models: [`Model`] (a struct whose fields are a
//! block's attributes and nested blocks, written by `#[derive(Model)]`)
//! and [`AttributeType`] (the cty type a field's Rust type stands for).

use ctywire::Type;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::schema::{Block, Validator};

/// A Rust type that is the body of a resource, data source, ephemeral
/// resource, provider configuration, function's arguments or nested block:
/// its fields are the block's attributes and nested blocks. Written by
/// `#[derive(Model)]`, which reads serde's field names.
pub trait Model: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// The block: each field's name, type, presence and behaviour.
    fn block() -> Block;
}

/// The cty type a Rust type stands for, when it is an attribute's type.
pub trait AttributeType {
    /// The cty type.
    fn cty_type() -> Type;
    /// Whether the Rust type holds a null (`Option<T>`): such a field is
    /// optional unless declared otherwise; any other is required.
    const NULLABLE: bool = false;
    /// Rules the Rust type itself implies: an integer type's range, so a
    /// value out of it is refused at validation, in Terraform's terms.
    fn validators() -> Vec<Validator> {
        Vec::new()
    }
}

/// The cty type a model's block implies: what its values are encoded at.
pub fn type_of<M: Model>() -> ctywire::Result<Type> {
    M::block().to_schema_block().implied_type()
}
