//! The framework's schema: Terraform's schema (what `GetProviderSchema`
//! sends) plus the behaviour declared on each attribute: how it plans
//! (requires replace, keeps its state, a default) and how it is validated.
//!
//! `#[derive(Model)]` writes a [`Block`] from a Rust type; nothing else
//! needs to. [`Block::to_schema_block`] gives the protocol's part.

use std::fmt;
use std::sync::Arc;

use ctywire::schema::{self as tf, NestingMode, StringKind};
use ctywire::{Number, Type, Value};

/// A block: the body of a resource, data source, provider configuration,
/// nested block or nested-attribute object.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// Its attributes, in declaration order.
    pub attributes: Vec<Attribute>,
    /// Its nested block types, in declaration order.
    pub blocks: Vec<NestedBlock>,
    /// Documentation (a doc comment on the Rust type).
    pub description: String,
    /// Why it is deprecated, when it is.
    pub deprecation_message: Option<String>,
}

/// How an attribute is set: by the configuration, the provider, or either.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Presence {
    /// Must be set in configuration.
    #[default]
    Required,
    /// May be set in configuration; null when it is not.
    Optional,
    /// Set by the provider only.
    Computed,
    /// May be set in configuration; the provider decides when it is not.
    OptionalComputed,
}

impl Presence {
    /// Whether a configuration must set it.
    pub fn is_required(self) -> bool {
        self == Presence::Required
    }
    /// Whether a configuration may set it.
    pub fn is_optional(self) -> bool {
        matches!(self, Presence::Optional | Presence::OptionalComputed)
    }
    /// Whether the provider may set it.
    pub fn is_computed(self) -> bool {
        matches!(self, Presence::Computed | Presence::OptionalComputed)
    }
}

/// An attribute and its behaviour.
#[derive(Clone, Debug)]
pub struct Attribute {
    /// Its name in configuration (serde's name for the field).
    pub name: String,
    /// Its cty type. For nested attributes, the type their object implies.
    pub ty: Type,
    /// Nested attributes, when the attribute is made of attributes.
    pub nested: Option<Nested>,
    /// Required, optional, computed or both.
    pub presence: Presence,
    /// Hidden in Terraform's output.
    pub sensitive: bool,
    /// Only in configuration: never in a plan or state.
    pub write_only: bool,
    /// Documentation (the field's doc comment).
    pub description: String,
    /// Why it is deprecated, when it is.
    pub deprecation_message: Option<String>,
    /// How it plans.
    pub plan: PlanBehaviour,
    /// What a configured value must satisfy.
    pub validators: Vec<Validator>,
}

impl Attribute {
    /// A required attribute of type `ty`, with no behaviour declared.
    pub fn new(name: impl Into<String>, ty: Type) -> Attribute {
        Attribute {
            name: name.into(),
            ty,
            nested: None,
            presence: Presence::Required,
            sensitive: false,
            write_only: false,
            description: String::new(),
            deprecation_message: None,
            plan: PlanBehaviour::default(),
            validators: Vec::new(),
        }
    }
}

/// Nested attributes: an attribute whose value is one object or a
/// collection of objects, each with attributes of its own.
#[derive(Clone, Debug)]
pub struct Nested {
    /// `Single`, `List`, `Set` or `Map`.
    pub nesting: NestingMode,
    /// The object's attributes (a block without nested blocks).
    pub block: Block,
}

/// A nested block type.
#[derive(Clone, Debug)]
pub struct NestedBlock {
    /// The block type's name.
    pub name: String,
    /// How many there may be and how they are keyed.
    pub nesting: NestingMode,
    /// Each block's body.
    pub block: Block,
    /// At least this many (0: none required).
    pub min_items: u64,
    /// At most this many (0: no limit).
    pub max_items: u64,
    /// What the collection of blocks must satisfy (its length, say).
    pub validators: Vec<Validator>,
}

/// How an attribute plans, beyond Terraform's defaults (see the crate
/// documentation, "Planning").
#[derive(Clone, Debug, Default)]
pub struct PlanBehaviour {
    /// A change to it replaces the object (`RequiresReplace`).
    pub requires_replace: bool,
    /// A computed attribute keeps its prior value when the object changes,
    /// instead of becoming unknown (`UseStateForUnknown`).
    pub keep_state: bool,
    /// The value planned when the configuration leaves it null.
    pub default: Option<Value>,
    /// A computed attribute planned as the value of this sibling attribute
    /// (known whenever the sibling is).
    pub same_as: Option<String>,
}

/// A rule a configured value must satisfy. Validators see values as
/// Terraform sends them: a null passes (presence is the schema's job), an
/// unknown is left for later, and a rule on a collection's elements names
/// the offending element's path.
#[derive(Clone)]
pub enum Validator {
    /// A number within bounds, inclusive; `whole` also requires an integer.
    Range {
        /// The least value allowed.
        min: Option<Number>,
        /// The greatest value allowed.
        max: Option<Number>,
        /// Only whole numbers.
        whole: bool,
    },
    /// A length within bounds, inclusive: characters (Unicode scalar values
    /// after NFC, as Terraform's `length` counts) for a string, elements
    /// for a collection.
    Length {
        /// The least length allowed.
        min: Option<u64>,
        /// The greatest length allowed.
        max: Option<u64>,
    },
    /// A string matching a regular expression, with the rule in words for
    /// the error ("must be ...").
    Pattern {
        /// The expression (`regex-lite` syntax).
        regex: Arc<regex_lite::Regex>,
        /// What it means, for the error message.
        description: String,
    },
    /// One of these values.
    OneOf(Vec<Value>),
    /// Every element of a list, set or map (or attribute of an object)
    /// satisfies each of these.
    Each(Vec<Validator>),
    /// A rule in code: `Err` is the message, shown at the value's path.
    Custom(Arc<dyn Fn(&Value) -> Result<(), String> + Send + Sync>),
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Validator::Range { min, max, whole } => f
                .debug_struct("Range")
                .field("min", min)
                .field("max", max)
                .field("whole", whole)
                .finish(),
            Validator::Length { min, max } => f
                .debug_struct("Length")
                .field("min", min)
                .field("max", max)
                .finish(),
            Validator::Pattern { regex, description } => f
                .debug_struct("Pattern")
                .field("regex", &regex.as_str())
                .field("description", description)
                .finish(),
            Validator::OneOf(values) => f.debug_tuple("OneOf").field(values).finish(),
            Validator::Each(inner) => f.debug_tuple("Each").field(inner).finish(),
            Validator::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

impl Block {
    /// The protocol's block: names, types, flags and documentation.
    pub fn to_schema_block(&self) -> tf::Block {
        tf::Block {
            version: 0,
            attributes: self.attributes.iter().map(Attribute::to_schema).collect(),
            block_types: self.blocks.iter().map(NestedBlock::to_schema).collect(),
            description: self.description.clone(),
            description_kind: StringKind::Plain,
            deprecated: self.deprecation_message.is_some(),
            deprecation_message: self.deprecation_message.clone().unwrap_or_default(),
            computed: false,
        }
    }

    /// The attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// The nested block type named `name`.
    pub fn block(&self, name: &str) -> Option<&NestedBlock> {
        self.blocks.iter().find(|b| b.name == name)
    }
}

impl Attribute {
    /// The protocol's attribute.
    pub fn to_schema(&self) -> tf::Attribute {
        let (ty, nested_type) = match &self.nested {
            Some(n) => (
                None,
                Some(tf::Object::new(
                    n.nesting,
                    n.block
                        .attributes
                        .iter()
                        .map(Attribute::to_schema)
                        .collect(),
                )),
            ),
            None => (Some(self.ty.clone()), None),
        };
        tf::Attribute {
            name: self.name.clone(),
            ty,
            nested_type,
            description: self.description.clone(),
            description_kind: StringKind::Plain,
            required: self.presence.is_required(),
            optional: self.presence.is_optional(),
            computed: self.presence.is_computed(),
            sensitive: self.sensitive,
            deprecated: self.deprecation_message.is_some(),
            write_only: self.write_only,
            deprecation_message: self.deprecation_message.clone().unwrap_or_default(),
        }
    }
}

impl NestedBlock {
    /// The protocol's nested block.
    pub fn to_schema(&self) -> tf::NestedBlock {
        tf::NestedBlock {
            type_name: self.name.clone(),
            block: self.block.to_schema_block(),
            nesting: self.nesting,
            // The protocol's counts are signed; ours cannot be negative.
            min_items: i64::try_from(self.min_items).unwrap_or(i64::MAX),
            max_items: i64::try_from(self.max_items).unwrap_or(i64::MAX),
        }
    }
}
