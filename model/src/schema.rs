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

pub use crate::plan_rules::{ReplaceCondition, ReplaceIf};
pub use crate::semantic::SemanticEquality;

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
    /// Rules across its attributes and nested blocks, checked on each of
    /// its objects a configuration has (`#[model(exactly_one_of(..))]`
    /// and kin).
    pub combinations: Vec<Combination>,
    /// What was found wrong while the block was built from a Rust type
    /// (a default that is no value of its attribute's type, a pattern that
    /// does not compile, a model that contains itself), each as
    /// `.path: message`. Building never panics; [`Block::check`] reports
    /// these with every other defect.
    pub defects: Vec<String>,
    /// A nested block the provider fills in (protocol 6.11's
    /// `Block.computed`, core's `configschema.Block.Computed`): everything
    /// inside it must be computed too, and Terraform 1.16 or newer must be
    /// the client (it sends `computed_blocks_allowed`).
    pub computed: bool,
}

/// Root names Terraform reserves in a `resource`, `data` or `ephemeral`
/// block (its meta-arguments and meta-blocks: core's resource block
/// schemas), which terraform-plugin-framework also refuses for list
/// resources and actions.
pub const RESERVED_IN_RESOURCES: &[&str] = &[
    "connection",
    "count",
    "depends_on",
    "for_each",
    "lifecycle",
    "locals",
    "provider",
    "provisioner",
];

/// Root names Terraform reserves in a `provider` block: `alias` and
/// `version`, and those core keeps for future use.
pub const RESERVED_IN_PROVIDER: &[&str] = &[
    "alias",
    "count",
    "depends_on",
    "for_each",
    "lifecycle",
    "locals",
    "source",
    "version",
];

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
    /// Part of the resource's identity (protocol 6.9), and how an import
    /// by identity treats it; `None` when it is not.
    pub identity: Option<IdentityRole>,
    /// A function's last parameter only: it takes the trailing arguments,
    /// any number of them, its type a list of theirs
    /// (`#[model(variadic)]` on a `Vec<T>`).
    pub variadic: bool,
    /// An operation's duration in a `timeouts` block only: the timeout
    /// when the configuration leaves it null (`#[model(timeouts(create =
    /// "20m"))]`); `None`, no timeout then.
    pub timeout_default: Option<std::time::Duration>,
    /// An operation of a `timeouts` block `#[model(timeouts(..))]`
    /// declared: the framework runs the operation under its timeout. A
    /// block of a runtime schema that happens to be named `timeouts` is
    /// the provider's own (another grammar, another meaning) and is left
    /// alone unless its attributes say so.
    pub timed: bool,
}

/// An identity attribute's part in an import by identity (`#[model(identity)]`
/// or `#[model(identity(optional))]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdentityRole {
    /// An import block's `identity` must give it.
    RequiredForImport,
    /// An import block's `identity` may leave it out (the provider finds it).
    OptionalForImport,
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
            identity: None,
            variadic: false,
            timeout_default: None,
            timed: false,
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
    /// When a configured value means the same as the prior one, so that
    /// the plan keeps the prior (its field's or its type's rule).
    pub semantic_equality: Option<SemanticEquality>,
    /// With `requires_replace`: which changes replace (any, without one).
    pub replace_if: Option<ReplaceIf>,
    /// The default is this sibling attribute's configured value (or its
    /// own default, when the configuration leaves it null): unknown while
    /// that is unknown, none while that is null. terraform-provider-random's
    /// `numeric`, which defaults to `number`.
    pub default_from: Option<String>,
}

/// A rule a configured value must satisfy. Validators see values as
/// Terraform sends them: a null passes (presence is the schema's job)
/// except under [`NotNull`](Validator::NotNull), an unknown is left for
/// later, and a rule on a collection's elements names the offending
/// element's path.
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
    Custom(Arc<CustomRule>),
    /// Not null: what a collection's Rust element type implies when it
    /// cannot hold a null (a `String`, not an `Option<String>`).
    /// Terraform lets a configuration write `{"key" = null}`, which such a
    /// model could not be read from; this refuses it where the
    /// configuration is checked (validation and plan), not first at apply.
    /// It runs even where only presence is checked, since it is the
    /// model's shape rather than a declared rule.
    NotNull {
        /// The Rust type that cannot hold a null (`String`), for the fix
        /// the message names (`Option<String>`).
        rust_type: String,
    },
}

/// A rule across the attributes and nested blocks of one object, by their
/// names (terraform-plugin-framework's config validators). Configured
/// means neither null nor unknown (a nested block: with an element); an
/// unknown defers the rule until it is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Combination {
    /// Exactly one of these is configured.
    ExactlyOneOf(Vec<String>),
    /// At least one of these is configured.
    AtLeastOneOf(Vec<String>),
    /// When `attribute` is configured, none of `others` is.
    ConflictsWith {
        /// The attribute the rule is declared on.
        attribute: String,
        /// Those it excludes.
        others: Vec<String>,
    },
    /// When `attribute` is configured, each of `others` is too.
    AlsoRequires {
        /// The attribute the rule is declared on.
        attribute: String,
        /// Those it needs.
        others: Vec<String>,
    },
}

impl Combination {
    /// Its declaration's name, as `#[model(..)]` spells it.
    fn key(&self) -> &'static str {
        match self {
            Combination::ExactlyOneOf(_) => "exactly_one_of",
            Combination::AtLeastOneOf(_) => "at_least_one_of",
            Combination::ConflictsWith { .. } => "conflicts_with",
            Combination::AlsoRequires { .. } => "also_requires",
        }
    }

    /// Every name it mentions.
    fn names(&self) -> impl Iterator<Item = &String> {
        let (first, rest) = match self {
            Combination::ExactlyOneOf(n) | Combination::AtLeastOneOf(n) => (None, n),
            Combination::ConflictsWith { attribute, others }
            | Combination::AlsoRequires { attribute, others } => (Some(attribute), others),
        };
        first.into_iter().chain(rest)
    }
}

/// A rule in code ([`Validator::Custom`]): `Err` says why, in the
/// provider's words.
pub type CustomRule = dyn Fn(&Value) -> Result<(), Invalid> + Send + Sync;

/// Why a value fails a rule in code, in the provider's words: the detail,
/// and a summary of its own (plugin-framework's validators set both) or
/// else the framework's ("Invalid Attribute Value", for a block "Invalid
/// Block"). A `String` or `&str` is the detail alone.
///
/// ```
/// use ctywire_model::schema::Invalid;
///
/// fn mode(m: &str) -> Result<(), Invalid> {
///     if m.len() == 4 && m.chars().all(|c| ('0'..='7').contains(&c)) {
///         return Ok(());
///     }
///     Err(Invalid::new(
///         "Invalid File Permission String Value",
///         format!("{m:?} is not four octal digits, such as \"0644\"."),
///     ))
/// }
/// assert_eq!(mode("0644"), Ok(()));
/// assert_eq!(mode("rw").unwrap_err().summary.as_deref(), Some("Invalid File Permission String Value"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// The diagnostic's summary; `None`: the framework's.
    pub summary: Option<String>,
    /// The diagnostic's detail.
    pub detail: String,
}

impl Invalid {
    /// A failure with its own summary and detail.
    pub fn new(summary: impl Into<String>, detail: impl Into<String>) -> Invalid {
        Invalid {
            summary: Some(summary.into()),
            detail: detail.into(),
        }
    }
}

impl From<String> for Invalid {
    fn from(detail: String) -> Invalid {
        Invalid {
            summary: None,
            detail,
        }
    }
}

impl From<&str> for Invalid {
    fn from(detail: &str) -> Invalid {
        Invalid::from(detail.to_string())
    }
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
            Validator::NotNull { rust_type } => f
                .debug_struct("NotNull")
                .field("rust_type", rust_type)
                .finish(),
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
            computed: self.computed,
        }
    }

    /// The identity schema its `identity` attributes make (in declaration
    /// order, at `version`), or `None` when it has none: the resource has
    /// no identity.
    pub fn identity_schema(&self, version: i64) -> Option<tf::IdentitySchema> {
        let identity_attributes: Vec<_> = (self.attributes.iter())
            .filter_map(|a| {
                let role = a.identity?;
                Some(tf::IdentityAttribute {
                    name: a.name.clone(),
                    ty: a.ty.clone(),
                    required_for_import: role == IdentityRole::RequiredForImport,
                    optional_for_import: role == IdentityRole::OptionalForImport,
                    description: a.description.clone(),
                })
            })
            .collect();
        (!identity_attributes.is_empty()).then_some(tf::IdentitySchema {
            version,
            identity_attributes,
        })
    }

    /// The identity of an object whose state is `state`: the object of its
    /// `identity` attributes' values (null when the state is, or when the
    /// block has no identity attributes).
    pub fn identity_of(&self, state: &Value) -> Value {
        let attrs = self.attributes.iter().filter(|a| a.identity.is_some());
        let ty = self.identity_type();
        if state.is_null() || attrs.clone().next().is_none() {
            return Value::null(ty);
        }
        if !state.is_known() {
            return Value::unknown(ty);
        }
        Value::object(attrs.map(|a| {
            let v = (state.attr(&a.name).cloned()).unwrap_or_else(|| Value::null(a.ty.clone()));
            (a.name.clone(), v)
        }))
    }

    /// The type of its identity: the object of its `identity` attributes'
    /// types (an empty object when it has none).
    pub fn identity_type(&self) -> Type {
        Type::object(
            (self.attributes.iter())
                .filter(|a| a.identity.is_some())
                .map(|a| (a.name.clone(), a.ty.clone())),
        )
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

impl Nested {
    /// The type of an attribute with these nested attributes (the object
    /// of their types, wrapped by the nesting), as Terraform computes it.
    pub fn implied_type(&self) -> ctywire::Result<Type> {
        tf::Object::new(
            self.nesting,
            self.block
                .attributes
                .iter()
                .map(Attribute::to_schema)
                .collect(),
        )
        .implied_type()
    }
}

/// Terraform's rule for names (`configschema`'s `validName`).
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

impl Block {
    /// The type of this block's values, as Terraform computes it from the
    /// schema (the object of its attributes' and nested blocks' types);
    /// an error for a schema Terraform would refuse.
    pub fn implied_type(&self) -> ctywire::Result<Type> {
        self.to_schema_block().implied_type()
    }

    /// Every defect of the schema, one per line, each with the path of
    /// the attribute or block it is in: what Terraform would refuse
    /// (names, item limits per nesting mode, dynamic types or write-only
    /// attributes inside sets), behaviour that cannot work (a default,
    /// kept state or `same_as` on an attribute that is not computed, a
    /// write-only computed attribute, a default or `same_as` sibling of
    /// another type), validators that cannot apply to the attribute's
    /// type, and the [`defects`](Block::defects) recorded while the block
    /// was built. The framework calls it when a provider is built, so a
    /// defect is a clear error there instead of a failure at plan.
    ///
    /// ```
    /// use ctywire_model::schema::{Attribute, Block, Presence};
    /// use ctywire_model::ctywire::{Type, Value};
    ///
    /// let mut id = Attribute::new("id", Type::String);
    /// id.plan.default = Some(Value::number(1));
    /// let block = Block { attributes: vec![id], ..Default::default() };
    /// assert_eq!(
    ///     block.check().unwrap_err(),
    ///     ".id: a default is only planned for a computed attribute: mark it computed\n\
    ///      .id: the default is a number, not a value of the attribute's type (string)"
    /// );
    /// ```
    pub fn check(&self) -> Result<(), String> {
        let mut found = Vec::new();
        self.check_at("", &mut found);
        // Terraform's own refusals (dynamic types in sets, say), unless
        // the walk above has already named the cause.
        if found.is_empty() {
            if let Err(e) = self.implied_type() {
                found.push(e.to_string());
            }
        }
        if found.is_empty() {
            Ok(())
        } else {
            Err(found.join("\n"))
        }
    }

    /// The root names of this block that Terraform keeps for itself where
    /// the block is written (`reserved`: [`RESERVED_IN_RESOURCES`] or
    /// [`RESERVED_IN_PROVIDER`]), each as a problem to report. A nested
    /// block may use them: only the root shares Terraform's namespace.
    pub fn reserved_names(&self, reserved: &[&str]) -> Vec<String> {
        let names = self.attributes.iter().map(|a| a.name.as_str());
        names
            .chain(self.blocks.iter().map(|b| b.name.as_str()))
            .filter(|n| reserved.contains(n))
            .map(|n| {
                format!(
                    ".{n}: Reserved Root Attribute/Block Name: {n:?} is a reserved root attribute/block name; Terraform takes it for its own meta-argument or block here, so a configuration could not set it. Rename it (#[serde(rename = \"...\")])"
                )
            })
            .collect()
    }

    fn check_at(&self, prefix: &str, found: &mut Vec<String>) {
        found.extend(self.defects.iter().map(|d| {
            if d.starts_with('.') {
                format!("{prefix}{d}")
            } else {
                d.clone()
            }
        }));
        let mut seen = std::collections::HashSet::new();
        let names = self
            .attributes
            .iter()
            .map(|a| &a.name)
            .chain(self.blocks.iter().map(|b| &b.name));
        for name in names {
            let at = format!("{prefix}.{name}");
            if !valid_name(name) {
                found.push(format!(
                    "{at}: a name may contain only lowercase letters, digits and underscores"
                ));
            }
            if !seen.insert(name) {
                found.push(format!("{at}: the name is used twice in one block"));
            }
        }
        for a in &self.attributes {
            a.check_at(prefix, self, found);
            if self.computed && !a.presence.is_computed() {
                found.push(format!(
                    "{prefix}.{}: all attributes within computed blocks must also be computed",
                    a.name
                ));
            }
            // Only a resource's own attributes identify it: Terraform's
            // identity is one flat object.
            if a.identity.is_some() && !prefix.is_empty() {
                found.push(format!(
                    "{prefix}.{}: an identity attribute belongs to the resource itself, not to a nested block or object",
                    a.name
                ));
            }
        }
        for b in &self.blocks {
            if self.computed && !b.block.computed {
                found.push(format!(
                    "{prefix}.{}: all nested blocks within computed blocks must also be computed",
                    b.name
                ));
            }
            b.check_at(prefix, found);
        }
        for c in &self.combinations {
            for name in c.names() {
                if self.attribute(name).is_none() && self.block(name).is_none() {
                    found.push(format!(
                        "{prefix}.{name}: `{}` names it, but there is no attribute or block {name:?} beside it",
                        c.key()
                    ));
                }
            }
            if c.names().count() < 2 {
                let at = if prefix.is_empty() {
                    "the block"
                } else {
                    prefix
                };
                found.push(format!(
                    "{at}: `{}` needs two attributes or more to be a rule",
                    c.key()
                ));
            }
        }
    }

    /// Whether an attribute in it, or in any block or object inside it, is
    /// write-only.
    fn contains_write_only(&self) -> bool {
        self.attributes.iter().any(|a| {
            a.write_only
                || a.nested
                    .as_ref()
                    .is_some_and(|n| n.block.contains_write_only())
        }) || self.blocks.iter().any(|b| b.block.contains_write_only())
    }
}

impl Attribute {
    /// The attribute `name` beside this one in `parent`, which `key`
    /// (`same_as`, `default_from`) names to plan this one from: it must
    /// exist, be another, and have a type this one takes.
    fn sibling<'p>(
        &self,
        parent: &'p Block,
        key: &str,
        name: &str,
    ) -> Result<&'p Attribute, String> {
        match parent.attribute(name) {
            None => Err(format!(
                "`{key}` names {name:?}, which is no attribute beside it"
            )),
            Some(s) if s.name == self.name => Err(format!("`{key}` names the attribute itself")),
            Some(s) if !s.ty.conforms_to(&self.ty) => Err(format!(
                "`{key}` names {name:?}, a {}, but this attribute is a {}",
                s.ty, self.ty
            )),
            Some(s) => Ok(s),
        }
    }

    fn check_at(&self, prefix: &str, parent: &Block, found: &mut Vec<String>) {
        let at = format!("{prefix}.{}", self.name);
        let mut defect = |msg: String| found.push(format!("{at}: {msg}"));
        if self.write_only && self.presence.is_computed() {
            defect("a write-only attribute cannot be computed: the provider never sets it".into());
        }
        if self.identity.is_some() {
            if self.sensitive || self.write_only {
                defect("an identity attribute is stored and shown as it is: it cannot be sensitive or write-only".into());
            }
            if !identity_type(&self.ty) {
                defect(format!(
                    "an identity attribute is a string, number or bool, or a list of them, not a {}",
                    self.ty
                ));
            }
        }
        if self.variadic && !matches!(self.ty, Type::List(_)) {
            defect(format!(
                "a variadic parameter takes its arguments as a list, not as a {}",
                self.ty
            ));
        }
        if self.variadic && !prefix.is_empty() {
            defect("only a function's own last parameter can be variadic".into());
        }
        let plan = &self.plan;
        if !self.presence.is_computed() {
            let declared = [
                (plan.default.is_some(), "a default is only planned"),
                (plan.keep_state, "state is only kept"),
                (plan.same_as.is_some(), "`same_as` only plans"),
                (plan.default_from.is_some(), "a default is only planned"),
            ];
            for (set, what) in declared {
                if set {
                    defect(format!("{what} for a computed attribute: mark it computed"));
                }
            }
        }
        if let Some(d) = &plan.default {
            if d.is_null() || !d.is_wholly_known() {
                defect("a default must be a known value, not null or unknown".into());
            } else if !d.ty().conforms_to(&self.ty) {
                defect(format!(
                    "the default is a {}, not a value of the attribute's type ({})",
                    d.ty(),
                    self.ty
                ));
            }
        }
        if let Some(rule) = &plan.replace_if {
            if !plan.requires_replace {
                defect(format!(
                    "`requires_replace({})` is a condition on requires_replace, which is not set",
                    rule.key()
                ));
            }
            if matches!(rule, ReplaceIf::ValuesNotNull) && !matches!(self.ty, Type::Map(_)) {
                defect(format!(
                    "`requires_replace(if_values_not_null)` compares a map's values, but this attribute is a {}",
                    self.ty
                ));
            }
        }
        if let Some(source) = &plan.default_from {
            if plan.default.is_some() {
                defect(format!(
                    "the default is both a value and {source:?}'s: declare one"
                ));
            }
            match self.sibling(parent, "default_from", source) {
                Err(e) => defect(e),
                Ok(s) if s.write_only => defect(format!(
                    "`default_from` names {source:?}, which is write-only: its value would be kept in the state"
                )),
                Ok(s) if s.plan.default_from.is_some() => defect(format!(
                    "`default_from` names {source:?}, whose own default is another's: name that one"
                )),
                Ok(_) => {}
            }
        }
        if let Some(sibling) = &plan.same_as {
            if let Err(e) = self.sibling(parent, "same_as", sibling) {
                defect(e);
            }
        }
        check_validators(&self.ty, &self.validators, &mut defect);
        if let Some(n) = &self.nested {
            if !matches!(
                n.nesting,
                NestingMode::Single | NestingMode::List | NestingMode::Set | NestingMode::Map
            ) {
                defect(format!(
                    "nested attributes cannot have {:?} nesting",
                    n.nesting
                ));
            }
            if !n.block.blocks.is_empty() {
                defect(
                    "nested attributes cannot hold nested blocks: make them nested attributes too"
                        .into(),
                );
            }
            if n.nesting == NestingMode::Set && n.block.contains_write_only() {
                defect("a set of nested attributes cannot hold write-only attributes".into());
            }
            match n.implied_type() {
                Ok(t) if t != self.ty => defect(format!(
                    "the type {} is not the type its nested attributes imply ({t})",
                    self.ty
                )),
                Ok(_) => {}
                Err(e) => defect(e.to_string()),
            }
            n.block.check_at(&at, found);
        }
    }
}

impl NestedBlock {
    fn check_at(&self, prefix: &str, found: &mut Vec<String>) {
        let at = format!("{prefix}.{}", self.name);
        let mut defect = |msg: &str| found.push(format!("{at}: {msg}"));
        let (min, max) = (self.min_items, self.max_items);
        match self.nesting {
            NestingMode::Single if min != max || min > 1 => defect(
                "a single block's min_items and max_items are equal, 0 (optional) or 1 (required)",
            ),
            NestingMode::Group | NestingMode::Map if min != 0 || max != 0 => {
                defect("this nesting mode takes no min_items or max_items")
            }
            NestingMode::List | NestingMode::Set if max != 0 && min > max => {
                defect("min_items is greater than max_items")
            }
            NestingMode::Invalid => defect("a nested block needs a nesting mode"),
            _ => {}
        }
        // Core's refusals for computed blocks (`configschema`'s
        // `internalValidate`): a group is always there, so nothing could be
        // computed; a minimum is a demand on the configuration.
        if self.block.computed && self.nesting == NestingMode::Group {
            defect("NestingGroup blocks cannot be computed");
        }
        if self.block.computed && min > 0 {
            defect("Computed cannot be used when MinItems > 0");
        }
        if self.nesting == NestingMode::Set && self.block.contains_write_only() {
            defect("a set of blocks cannot hold write-only attributes");
        }
        match self.to_schema().implied_type() {
            Ok(Some(ty)) => check_validators(&ty, &self.validators, &mut |m| {
                found.push(format!("{at}: {m}"))
            }),
            Ok(None) => {}
            Err(e) => found.push(format!("{prefix}{e}")),
        }
        self.block.check_at(&at, found);
    }
}

/// The types an identity attribute may have (terraform-plugin-framework's
/// rule: what identifies an object is simple data).
fn identity_type(ty: &Type) -> bool {
    match ty {
        Type::String | Type::Number | Type::Bool => true,
        Type::List(e) => matches!(**e, Type::String | Type::Number | Type::Bool),
        _ => false,
    }
}

/// Whether each validator can apply to values of type `ty`.
fn check_validators(ty: &Type, validators: &[Validator], defect: &mut dyn FnMut(String)) {
    let dynamic = *ty == Type::Dynamic;
    for v in validators {
        match v {
            Validator::Range { min, max, .. } => {
                if !dynamic && *ty != Type::Number {
                    defect(format!("a range applies to numbers, not to a {ty}"));
                }
                if let (Some(lo), Some(hi)) = (min, max) {
                    if lo.numeric_cmp(hi) == std::cmp::Ordering::Greater {
                        defect(format!("the range {lo} to {hi} admits no number"));
                    }
                }
            }
            Validator::Length { min, max } => {
                let lengthy = matches!(
                    ty,
                    Type::String | Type::List(_) | Type::Set(_) | Type::Map(_) | Type::Dynamic
                );
                if !lengthy {
                    defect(format!(
                        "a length applies to strings and collections, not to a {ty}"
                    ));
                }
                if let (Some(lo), Some(hi)) = (min, max) {
                    if lo > hi {
                        defect(format!("the length {lo} to {hi} admits none"));
                    }
                }
            }
            Validator::Pattern { .. } => {
                if !dynamic && *ty != Type::String {
                    defect(format!("a pattern applies to strings, not to a {ty}"));
                }
            }
            Validator::OneOf(values) => {
                if values.is_empty() {
                    defect("`one_of` lists no value".into());
                }
                for value in values {
                    if !value.ty().conforms_to(ty) {
                        defect(format!("`one_of` lists {value}, which is not a {ty}"));
                    }
                }
            }
            Validator::Each(inner) => match ty {
                Type::List(e) | Type::Set(e) | Type::Map(e) => check_validators(e, inner, defect),
                Type::Dynamic => check_validators(&Type::Dynamic, inner, defect),
                Type::Object(o) => {
                    for (_, t) in o.attributes() {
                        check_validators(t, inner, defect);
                    }
                }
                Type::Tuple(ts) => {
                    for t in ts.iter() {
                        check_validators(t, inner, defect);
                    }
                }
                _ => defect(format!("`each` applies to collections, not to a {ty}")),
            },
            Validator::Custom(_) | Validator::NotNull { .. } => {}
        }
    }
}
