//! Provider schemas and the types they imply.
//!
//! Providers never see bare types: Terraform encodes every value with the
//! type its schema implies. This module mirrors the plugin protocol's
//! `Schema`, `Block`, `Attribute`, `NestedBlock` and `Object` messages as
//! plain Rust (no protobuf dependency), computes implied types exactly as
//! Terraform core does, and builds and checks values by a schema.
//!
//! ```
//! use ctywire::schema::{Attribute, Block, NestedBlock, NestingMode};
//! use ctywire::Type;
//! let block = Block::new()
//!     .attribute(Attribute::new("id", Type::String).computed())
//!     .attribute(Attribute::new("name", Type::String).required())
//!     .block(NestedBlock::new("rule", NestingMode::List, Block::new().attribute(Attribute::new("port", Type::Number).required())));
//! assert_eq!(
//!     block.implied_type()?.to_json(),
//!     r#"["object",{"id":"string","name":"string","rule":["list",["object",{"port":"number"}]]}]"#
//! );
//! # Ok::<(), ctywire::Error>(())
//! ```
//!
//! ## Planning a resource
//!
//! `PlanResourceChange` sends the proposed new state as a `DynamicValue`
//! encoded with the resource schema's implied type; the provider answers
//! with the planned state, marking what it will compute as unknown:
//!
//! ```
//! use ctywire::protocol::DynamicValue;
//! use ctywire::schema::{Attribute, Block, Purpose, Schema};
//! use ctywire::{Type, Value};
//!
//! let schema = Schema::new(
//!     Block::new()
//!         .attribute(Attribute::new("id", Type::String).computed())
//!         .attribute(Attribute::new("name", Type::String).required())
//!         .attribute(Attribute::new("size", Type::Number).optional()),
//! );
//! let ty = schema.implied_type()?;
//!
//! // request.proposed_new_state, as Terraform encodes {id = null, name = "web", size = 2}:
//! let proposed = DynamicValue { msgpack: b"\x83\xa2id\xc0\xa4name\xa3web\xa4size\x02".to_vec(), json: vec![] };
//! let proposed = proposed.decode(&ty)?;
//! assert!(schema.block.validate_value(&proposed, Purpose::Config).is_empty());
//!
//! // The id is computed: unknown until apply.
//! let planned = proposed.with_attr("id", Value::unknown(Type::String))?;
//! let response = DynamicValue::encode(&planned, &ty)?; // response.planned_state
//! assert_eq!(response.msgpack, b"\x83\xa2id\xd4\x00\x00\xa4name\xa3web\xa4size\x02");
//! # Ok::<(), ctywire::Error>(())
//! ```

pub mod flatmap;
mod validate;
mod write_only;

use crate::error::{Error, Result};
use crate::path::PathStep;
use crate::types::Type;
use crate::value::Value;

pub use self::validate::Purpose;

/// A schema: a version and its root block (`Schema` in the protocol).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    /// The schema version, for state upgrades.
    pub version: i64,
    /// The root block.
    pub block: Block,
}

/// How documentation text is written (`StringKind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StringKind {
    /// Plain text.
    #[default]
    Plain,
    /// Markdown.
    Markdown,
}

/// A block of attributes and nested blocks (`Schema.Block`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// `version` (unused by Terraform core).
    pub version: i64,
    /// The attributes.
    pub attributes: Vec<Attribute>,
    /// The nested block types.
    pub block_types: Vec<NestedBlock>,
    /// Documentation.
    pub description: String,
    /// How `description` is written.
    pub description_kind: StringKind,
    /// Whether the block is deprecated.
    pub deprecated: bool,
    /// Why it is deprecated.
    pub deprecation_message: String,
    /// Whether the whole block is computed (protocol 6.11).
    pub computed: bool,
}

/// An attribute (`Schema.Attribute`): either a type or a nested type.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attribute {
    /// The attribute name.
    pub name: String,
    /// `type`: the attribute's type (the protocol sends its JSON form).
    pub ty: Option<Type>,
    /// `nested_type`: nested attributes (protocol 6 only).
    pub nested_type: Option<Object>,
    /// Documentation.
    pub description: String,
    /// How `description` is written.
    pub description_kind: StringKind,
    /// Must be set in configuration.
    pub required: bool,
    /// May be set in configuration.
    pub optional: bool,
    /// Set by the provider.
    pub computed: bool,
    /// Hidden in Terraform's output.
    pub sensitive: bool,
    /// Deprecated.
    pub deprecated: bool,
    /// Only in configuration, never stored in state or plan.
    pub write_only: bool,
    /// Why it is deprecated.
    pub deprecation_message: String,
}

/// A nested block type (`Schema.NestedBlock`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NestedBlock {
    /// The block type name (`type_name`).
    pub type_name: String,
    /// The block's content.
    pub block: Block,
    /// How many blocks of this type there may be and how they are keyed.
    pub nesting: NestingMode,
    /// `min_items`.
    pub min_items: i64,
    /// `max_items` (0: no limit).
    pub max_items: i64,
}

/// Nested attributes (`Schema.Object`): the type of an attribute made of
/// attributes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object {
    /// The nested attributes.
    pub attributes: Vec<Attribute>,
    /// `SINGLE`, `LIST`, `SET` or `MAP` (`GROUP` only exists for blocks).
    pub nesting: NestingMode,
    /// Deprecated in the protocol and never enforced.
    pub min_items: i64,
    /// Deprecated in the protocol and never enforced.
    pub max_items: i64,
}

/// `NestingMode`, with the protocol's numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NestingMode {
    /// 0: not set. A block of this mode is left out of the implied type;
    /// nested attributes of this mode imply `object({})`.
    #[default]
    Invalid = 0,
    /// 1: at most one, null when absent.
    Single = 1,
    /// 2: a list, in order.
    List = 2,
    /// 3: a set.
    Set = 3,
    /// 4: a map keyed by the block label.
    Map = 4,
    /// 5: exactly one, never null (blocks only).
    Group = 5,
}

impl NestingMode {
    /// The mode for a protocol number; unknown numbers are `Invalid`.
    pub fn from_i32(n: i32) -> NestingMode {
        match n {
            1 => NestingMode::Single,
            2 => NestingMode::List,
            3 => NestingMode::Set,
            4 => NestingMode::Map,
            5 => NestingMode::Group,
            _ => NestingMode::Invalid,
        }
    }
}

impl Attribute {
    /// An attribute of type `ty`, with no flags set.
    pub fn new(name: impl Into<String>, ty: Type) -> Attribute {
        Attribute {
            name: name.into(),
            ty: Some(ty),
            ..Default::default()
        }
    }

    /// An attribute made of nested attributes.
    pub fn nested(name: impl Into<String>, object: Object) -> Attribute {
        Attribute {
            name: name.into(),
            nested_type: Some(object),
            ..Default::default()
        }
    }

    /// Marks it required.
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Marks it optional.
    pub fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// Marks it computed.
    pub fn computed(mut self) -> Self {
        self.computed = true;
        self
    }

    /// Marks it sensitive.
    pub fn sensitive(mut self) -> Self {
        self.sensitive = true;
        self
    }

    /// Marks it write-only.
    pub fn write_only(mut self) -> Self {
        self.write_only = true;
        self
    }

    /// The type this attribute's values have: its `type` without optional
    /// markers, or the type its nested attributes imply. Setting both
    /// `type` and `nested_type`, or neither, is an error.
    pub fn implied_type(&self) -> Result<Type> {
        match (&self.ty, &self.nested_type) {
            (Some(t), None) => Ok(t.without_optional_attributes()),
            (None, Some(o)) => o.implied_type(),
            (Some(_), Some(_)) => Err(Error::type_error(
                "an attribute must not have both a type and a nested type",
            )),
            (None, None) => Err(Error::type_error(
                "an attribute needs a type or a nested type",
            )),
        }
    }
}

impl Object {
    /// Nested attributes with the given nesting.
    pub fn new(nesting: NestingMode, attributes: Vec<Attribute>) -> Object {
        Object {
            attributes,
            nesting,
            ..Default::default()
        }
    }

    /// The type of an attribute with these nested attributes: the object of
    /// their types, wrapped by the nesting. Unlike blocks, there is no
    /// fallback to `dynamic`: a list of objects with a dynamic attribute is
    /// `list(object({x: dynamic}))`.
    pub fn implied_type(&self) -> Result<Type> {
        let mut attrs = Vec::with_capacity(self.attributes.len());
        for a in &self.attributes {
            attrs.push((
                a.name.as_str(),
                a.implied_type()
                    .map_err(|e| e.under(PathStep::Attr(a.name.clone())))?,
            ));
        }
        let obj = Type::object(attrs);
        Ok(match self.nesting {
            NestingMode::Single | NestingMode::Group => obj,
            NestingMode::List => Type::list(obj),
            NestingMode::Set => {
                if obj.has_dynamic() {
                    return Err(Error::type_error(
                        "nested attributes with SET nesting cannot contain dynamic types",
                    ));
                }
                Type::set(obj)
            }
            NestingMode::Map => Type::map(obj),
            NestingMode::Invalid => Type::empty_object(),
        })
    }
}

impl NestedBlock {
    /// A nested block type with no item limits.
    pub fn new(type_name: impl Into<String>, nesting: NestingMode, block: Block) -> NestedBlock {
        NestedBlock {
            type_name: type_name.into(),
            block,
            nesting,
            ..Default::default()
        }
    }

    /// Sets `min_items` and `max_items`.
    pub fn items(mut self, min: i64, max: i64) -> Self {
        self.min_items = min;
        self.max_items = max;
        self
    }

    /// The type of this block type's value in its parent object, or `None`
    /// for an `INVALID` nesting (which Terraform leaves out).
    pub fn implied_type(&self) -> Result<Option<Type>> {
        let at = || PathStep::Attr(self.type_name.clone());
        if self.nesting == NestingMode::Group && (self.min_items != 0 || self.max_items != 0) {
            return Err(
                Error::type_error("a GROUP block cannot have min_items or max_items").under(at()),
            );
        }
        let inner = self.block.implied_type().map_err(|e| e.under(at()))?;
        Ok(Some(match self.nesting {
            NestingMode::Single | NestingMode::Group => inner,
            // A list or map of blocks whose content has dynamic parts holds
            // blocks of different concrete types, so it becomes a tuple or
            // an object of them: the type is `dynamic`.
            NestingMode::List if inner.has_dynamic() => Type::Dynamic,
            NestingMode::List => Type::list(inner),
            NestingMode::Map if inner.has_dynamic() => Type::Dynamic,
            NestingMode::Map => Type::map(inner),
            NestingMode::Set if inner.has_dynamic() => {
                return Err(
                    Error::type_error("a SET block cannot contain dynamic types").under(at()),
                );
            }
            NestingMode::Set => Type::set(inner),
            NestingMode::Invalid => return Ok(None),
        }))
    }
}

impl Block {
    /// An empty block.
    pub fn new() -> Block {
        Block::default()
    }

    /// Adds an attribute.
    pub fn attribute(mut self, a: Attribute) -> Self {
        self.attributes.push(a);
        self
    }

    /// Adds a nested block type.
    pub fn block(mut self, b: NestedBlock) -> Self {
        self.block_types.push(b);
        self
    }

    /// The type of this block's values, as Terraform core computes it
    /// (`configschema.Block.ImpliedType`): an object of the attributes'
    /// types and the nested blocks' types, with no optional markers.
    /// A schema Terraform would reject or crash on is an error: an
    /// attribute with both or neither of `type` and `nested_type`, a block
    /// type named like an attribute, a GROUP block with item limits, a SET
    /// of blocks or nested attributes with dynamic content.
    pub fn implied_type(&self) -> Result<Type> {
        let mut attrs: Vec<(&str, Type)> =
            Vec::with_capacity(self.attributes.len() + self.block_types.len());
        for a in &self.attributes {
            let t = a
                .implied_type()
                .map_err(|e| e.under(PathStep::Attr(a.name.clone())))?;
            attrs.push((&a.name, t));
        }
        for b in &self.block_types {
            if self.attributes.iter().any(|a| a.name == b.type_name) {
                return Err(Error::type_error(format!(
                    "block type {:?} has the same name as an attribute",
                    b.type_name
                )));
            }
            if let Some(t) = b.implied_type()? {
                attrs.push((&b.type_name, t));
            }
        }
        Ok(Type::object(attrs))
    }

    /// The value of this block when nothing is written in it (Terraform's
    /// `EmptyValue`): null attributes, null SINGLE blocks, GROUP blocks as
    /// their own empty value (never null), and empty LIST, SET and MAP
    /// blocks (never null; an empty tuple or object where the block type
    /// fell back to `dynamic`).
    pub fn empty_value(&self) -> Result<Value> {
        let mut attrs: Vec<(&str, Value)> = Vec::new();
        for a in &self.attributes {
            attrs.push((
                &a.name,
                Value::null(
                    a.implied_type()
                        .map_err(|e| e.under(PathStep::Attr(a.name.clone())))?,
                ),
            ));
        }
        for b in &self.block_types {
            let Some(t) = b.implied_type()? else { continue };
            let v = match (b.nesting, &t) {
                (NestingMode::Group, _) => b
                    .block
                    .empty_value()
                    .map_err(|e| e.under(PathStep::Attr(b.type_name.clone())))?,
                (NestingMode::List, Type::Dynamic) => Value::tuple(Vec::new()),
                (NestingMode::Map, Type::Dynamic) => Value::object(Vec::<(&str, Value)>::new()),
                (NestingMode::List, Type::List(e)) => Value::list((**e).clone(), Vec::new())?,
                (NestingMode::Set, Type::Set(e)) => Value::set((**e).clone(), Vec::new())?,
                (NestingMode::Map, Type::Map(e)) => {
                    Value::map((**e).clone(), Vec::<(String, Value)>::new())?
                }
                _ => Value::null(t),
            };
            attrs.push((&b.type_name, v));
        }
        Ok(Value::object(attrs))
    }

    /// Checks a value of this block's implied type against the schema's
    /// rules for `purpose`, returning every problem found, each at its
    /// path. See [`Purpose`] for what is checked.
    pub fn validate_value(&self, value: &Value, purpose: Purpose) -> Vec<Error> {
        let mut errors = Vec::new();
        validate::block(self, value, purpose, &mut crate::Path::root(), &mut errors);
        errors
    }

    /// The attribute called `name`.
    pub fn find_attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().rev().find(|a| a.name == name)
    }

    /// The nested block type called `name`.
    pub fn find_block_type(&self, name: &str) -> Option<&NestedBlock> {
        self.block_types.iter().find(|b| b.type_name == name)
    }
}

impl Schema {
    /// A schema of version 0.
    pub fn new(block: Block) -> Schema {
        Schema { version: 0, block }
    }

    /// The implied type of the root block.
    pub fn implied_type(&self) -> Result<Type> {
        self.block.implied_type()
    }
}

/// A resource identity schema (`ResourceIdentitySchema`, protocol 6.9).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IdentitySchema {
    /// The identity schema version.
    pub version: i64,
    /// The identity attributes.
    pub identity_attributes: Vec<IdentityAttribute>,
}

/// One identity attribute (`IdentityAttribute`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IdentityAttribute {
    /// The name.
    pub name: String,
    /// The type.
    pub ty: Type,
    /// Needed to import.
    pub required_for_import: bool,
    /// May be given to import.
    pub optional_for_import: bool,
    /// Documentation.
    pub description: String,
}

impl IdentitySchema {
    /// The flat block Terraform turns an identity schema into:
    /// `required_for_import` is required, `optional_for_import` optional.
    pub fn to_block(&self) -> Block {
        Block {
            attributes: self
                .identity_attributes
                .iter()
                .map(|a| Attribute {
                    name: a.name.clone(),
                    ty: Some(a.ty.clone()),
                    required: a.required_for_import,
                    optional: a.optional_for_import,
                    description: a.description.clone(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    /// `object({name: type, ...})`.
    pub fn implied_type(&self) -> Result<Type> {
        self.to_block().implied_type()
    }
}
