//! The plugin protocol's value containers, as plain Rust: `DynamicValue`
//! and `AttributePath`. A provider copies these to and from its generated
//! protobuf types; ctywire itself depends on no protobuf library.

use crate::error::{Error, Result};
use crate::path::{Path, PathStep};
use crate::types::Type;
use crate::value::Value;
use crate::{json, msgpack, DecodeOptions};

/// A `DynamicValue`: a value encoded as msgpack or as JSON.
///
/// ```
/// use ctywire::protocol::DynamicValue;
/// use ctywire::{Type, Value};
/// let ty = Type::object([("id", Type::String)]);
/// // Terraform answers in msgpack; a provider may be sent JSON.
/// let from_json = DynamicValue { msgpack: vec![], json: br#"{"id":"x"}"#.to_vec() };
/// assert_eq!(from_json.decode(&ty)?.attr("id").unwrap().as_str(), Some("x"));
/// assert!(DynamicValue::default().decode(&ty)?.is_null());
/// let out = DynamicValue::encode(&Value::object([("id", Value::string("x"))]), &ty)?;
/// assert_eq!(out.msgpack, b"\x81\xa2id\xa1x");
/// # Ok::<(), ctywire::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DynamicValue {
    /// `msgpack = 1`.
    pub msgpack: Vec<u8>,
    /// `json = 2`.
    pub json: Vec<u8>,
}

impl DynamicValue {
    /// Decodes as Terraform does: msgpack when present, else JSON when
    /// present, else a null of `ty`.
    pub fn decode(&self, ty: &Type) -> Result<Value> {
        self.decode_with(ty, &DecodeOptions::default())
    }

    /// [`decode`](Self::decode) with explicit limits.
    pub fn decode_with(&self, ty: &Type, opts: &DecodeOptions) -> Result<Value> {
        Self::decode_parts(&self.msgpack, &self.json, ty, opts)
    }

    /// [`decode_with`](Self::decode_with) on a `DynamicValue`'s two fields
    /// where they are, such as in a generated protobuf message, without
    /// copying them into a `DynamicValue` first: the one place the rule
    /// "msgpack, else JSON, else null" is written.
    pub fn decode_parts(
        msgpack: &[u8],
        json: &[u8],
        ty: &Type,
        opts: &DecodeOptions,
    ) -> Result<Value> {
        if !msgpack.is_empty() {
            msgpack::decode_with(msgpack, ty, opts)
        } else if !json.is_empty() {
            json::decode_with(json, ty, opts)
        } else {
            Ok(Value::null(ty.clone()))
        }
    }

    /// Encodes as msgpack, the form Terraform prefers.
    pub fn encode(value: &Value, ty: &Type) -> Result<DynamicValue> {
        Ok(DynamicValue {
            msgpack: msgpack::encode(value, ty)?,
            json: Vec::new(),
        })
    }
}

/// One step of an `AttributePath` (the `selector` oneof of `Step`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AttributePathStep {
    /// `attribute_name = 1`.
    AttributeName(String),
    /// `element_key_string = 2`: a map key.
    ElementKeyString(String),
    /// `element_key_int = 3`: a list, tuple or set position.
    ElementKeyInt(i64),
}

impl From<&PathStep> for AttributePathStep {
    fn from(step: &PathStep) -> Self {
        match step {
            PathStep::Attr(a) => AttributePathStep::AttributeName(a.clone()),
            PathStep::Key(k) => AttributePathStep::ElementKeyString(k.clone()),
            PathStep::Index(i) => {
                AttributePathStep::ElementKeyInt(i64::try_from(*i).unwrap_or(i64::MAX))
            }
        }
    }
}

impl Path {
    /// This path as protocol `AttributePath` steps, for a diagnostic.
    pub fn to_attribute_path(&self) -> Vec<AttributePathStep> {
        self.steps().iter().map(AttributePathStep::from).collect()
    }

    /// A path from protocol `AttributePath` steps. A negative index is an
    /// error.
    pub fn from_attribute_path(steps: &[AttributePathStep]) -> Result<Path> {
        let mut path = Path::root();
        for (n, step) in steps.iter().enumerate() {
            path.push(match step {
                AttributePathStep::AttributeName(a) => PathStep::Attr(a.clone()),
                AttributePathStep::ElementKeyString(k) => PathStep::Key(k.clone()),
                AttributePathStep::ElementKeyInt(i) => {
                    PathStep::Index(u64::try_from(*i).map_err(|_| {
                        Error::data(format!(
                            "step {n} of the attribute path is a negative index ({i})"
                        ))
                    })?)
                }
            });
        }
        Ok(path)
    }
}
