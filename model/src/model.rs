//! Rust types as Terraform models: [`Model`] (a struct whose fields are a
//! block's attributes and nested blocks, written by `#[derive(Model)]`)
//! and [`AttributeType`] (the cty type a field's Rust type stands for).
//!
//! | Rust | cty type | implied rules |
//! |---|---|---|
//! | `String` | string | |
//! | `bool` | bool | |
//! | `i8`…`i128`, `u8`…`u128`, `isize`, `usize` | number | a whole number within the type's range |
//! | `f32`, `f64`, [`Number`] | number | |
//! | `Option<T>` | `T`'s (null when `None`) | `T`'s |
//! | `Vec<T>` | list of `T` | `T`'s, on each element |
//! | `BTreeSet<T>`, `HashSet<T>` | set of `T` | `T`'s, on each element |
//! | `BTreeMap<String, T>`, `HashMap<String, T>` | map of `T` | `T`'s, on each element |
//! | [`Unknowable<T>`], `Box<T>` | `T`'s | `T`'s |
//! | [`Value`] | dynamic | |
//! | a `#[derive(Model)]` struct | the object its block implies | |

use std::borrow::Borrow;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::{Arc, OnceLock};

use ctywire::schema::NestingMode;
use ctywire::{Number, Type, Unknowable, Value};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::schema::{Block, SemanticEquality, Validator};

/// A Rust type that is the body of a resource, data source, ephemeral
/// resource, provider configuration, function's arguments or nested block:
/// its fields are the block's attributes and nested blocks. Written by
/// `#[derive(Model)]`, which reads serde's field names.
///
/// The schema and the model are one thing: each field's Rust type gives
/// its cty type ([`AttributeType`]), serde gives its name, doc comments
/// give descriptions, and `#[model(..)]` declares the rest. Values go in
/// and out through [`ctywire::to_value`] and [`ctywire::from_value`] with
/// the type the block implies (the model's own [`AttributeType`]).
///
/// ```
/// use std::collections::{BTreeMap, BTreeSet};
/// use ctywire_model::{AttributeType, Model};
/// use ctywire_model::schema::Presence;
/// use serde::{Deserialize, Serialize};
///
/// fn a_file_name(key: &str) -> Result<(), String> {
///     if key.contains('/') { Err("must not contain \"/\"".into()) } else { Ok(()) }
/// }
///
/// /// An entry of the store.
/// #[derive(Model, Serialize, Deserialize)]
/// struct Entry {
///     /// The entry's key.
///     #[model(requires_replace, length(min = 1), validate = a_file_name)]
///     key: String,
///     #[model(sensitive)]
///     value: String,
///     tags: Option<BTreeMap<String, String>>,
///     #[model(each(range(1, 65535)))]
///     ports: Option<BTreeSet<u16>>,
///     #[model(block)]
///     rule: Vec<Rule>,
///     #[model(computed, same_as = "key")]
///     id: Option<String>,
/// }
///
/// #[derive(Model, Serialize, Deserialize)]
/// struct Rule {
///     port: u16,
///     note: Option<String>,
/// }
///
/// let block = Entry::block();
/// assert_eq!(block.description, "An entry of the store.");
/// assert_eq!(block.attribute("tags").unwrap().presence, Presence::Optional);
/// assert_eq!(block.attribute("id").unwrap().presence, Presence::Computed);
/// assert_eq!(block.check(), Ok(()));
/// assert_eq!(
///     Entry::cty_type().to_string(),
///     ctywire_model::ctywire::Type::parse(r#"["object",{"key":"string","value":"string",
///         "tags":["map","string"],"ports":["set","number"],"id":"string",
///         "rule":["list",["object",{"port":"number","note":"string"}]]}]"#)?.to_string()
/// );
/// # Ok::<(), ctywire_model::ctywire::Error>(())
/// ```
///
/// # The struct
/// A struct with named fields and no generics. Its doc comment is the
/// block's description (or `#[model(description = "..")]`);
/// `#[model(deprecated = "why")]` deprecates it. serde's `rename_all`
/// applies; `#[serde(skip)]` fields (or both `skip_serializing` and
/// `skip_deserializing`) are not in the schema. Refused at compile time:
/// `flatten`, `transparent`, `from`/`into`, `tag`, a field skipped in one
/// direction only, two fields with one name.
///
/// Rules across its fields (plugin-framework's config validators), by
/// their Rust names, checked at compile time: `#[model(exactly_one_of(a,
/// b, ..))]` and `#[model(at_least_one_of(a, b, ..))]` on the struct,
/// `conflicts_with(..)` and `also_requires(..)` on a field. Configured
/// means neither null nor unknown (a nested block: with an element); an
/// unknown defers the rule, and each failure is at the attribute's path
/// ([`Combination`](crate::schema::Combination)). A set attribute or block
/// that is `deprecated` warns where the configuration sets it.
///
/// # A field's `#[model(..)]`
/// | key | meaning |
/// |---|---|
/// | *(none)* | an attribute: required, or optional when its type is an `Option` |
/// | `required`, `optional`, `computed`, `optional, computed` | its presence; `computed` with `required` is refused, and an optional or computed field's type must take a null (`Option`, [`Value`]) |
/// | `sensitive`, `write_only` | Terraform's flags |
/// | `description = ".."` | instead of the doc comment |
/// | `deprecated = "why"` | deprecated, with the reason |
/// | `requires_replace` | a change replaces the object |
/// | `requires_replace(if_values_not_null)`, `requires_replace(empty_as_null)`, `requires_replace(if = path::to::f)` | a change replaces the object only when a non-null value of a map changes (plugin-framework's `RequiresReplaceIfValuesNotNull`); not between `""` (or an empty collection) and null; when `f(prior: &Value, planned: &Value) -> bool` says so ([`ReplaceIf`](crate::schema::ReplaceIf)) |
/// | `identity`, `identity(optional)` | part of the resource's identity (protocol 6.9): see `ctywire_provider::Resource`; `optional` lets an import by identity leave it out |
/// | `keep_state` | a computed attribute keeps its prior value when the object changes (needs `computed`) |
/// | `default = expr` | planned when the configuration leaves it null: an expression of the field's type without its `Option` (a string literal for a `String`); needs `computed` |
/// | `semantic_equality = f` | `f(&T) -> T` (or `f(&str) -> String` for a `String`) gives a value's canonical form, `T` the field's type without its `Option`: a configured value of the prior value's form plans the prior ([`SemanticEquality`]); without it, the type's own rule ([`AttributeType::semantic_equality`]) |
/// | `timeouts(create = "20m", read, ..)` | on a field `timeouts: Option<Timeouts>` ([`crate::timeouts`]): a single `timeouts` block with these operations (create, read, update, delete), each with its default duration or none; with `nested`, a single nested attribute |
/// | `default_from(sibling)` | the default is the sibling attribute's configured value, or its own default when it is not set; unknown while that is unknown (Rust name, checked at compile time); needs `computed` |
/// | `same_as = "sibling"` | a computed attribute planned as a sibling attribute's value (serde's name; checked at compile time) |
/// | `as = Type` | the schema follows `Type` instead of the field's type (for a field with a serde `with` adapter: `#[model(as = Number)]` on a `BigInt`) |
/// | `block`, `block(set, min_items = n, max_items = n)` | a nested block; the nesting comes from the type: a model is `Group`, `Option<M>` `Single`, `Vec<M>` `List` (`set` makes it `Set`), `BTreeSet<M>`/`HashSet<M>` `Set`, `BTreeMap<String, M>`/`HashMap<String, M>` `Map` ([`BlockContainer`]) |
/// | `nested`, `nested(set)` | nested attributes, from the same types (a bare model is `Single`); presence as for attributes |
/// | `range(lo, hi)`, `range(min = lo)`, `range(max = hi)` | a number within bounds (number literals); on an integer field it narrows the type's own range ([`merge_validators`]) |
/// | `length(min = n, max = n)`, `length(n, m)` | a string's or collection's length |
/// | `pattern(r"regex", "what it means")` | a string matching the expression (checked at compile time); the words are for the error |
/// | `one_of(a, b, ..)` | one of these literals (strings, numbers, bools) |
/// | `each(rule, ..)` | rules for each element of a list, set or map (nest `each` for deeper levels) |
/// | `variadic` | a function's last parameter, a `Vec<T>`: takes the trailing arguments, each a `T` (`ctywire_provider::Function`) |
/// | `conflicts_with(a, ..)`, `also_requires(a, ..)` | when this field is configured, those fields must not be / must be too (Rust names) |
/// | `validate = path::to::f` | `f(&T) -> Result<(), E>`, `E` a `String` (the detail) or an [`Invalid`](crate::schema::Invalid) (summary and detail), `T` the field's type without its `Option` (or what it borrows as: `&str`); inside `each`, the element's type ([`custom_validator`]) |
///
/// A nested block takes `length`, `validate`, `description`,
/// `conflicts_with`, `also_requires` and `deprecated` (which then describe the block where it is used), and
/// `computed` (protocol 6.11, Terraform 1.16: the provider fills the block
/// in; its type must take a null, an `Option`, and everything in it must
/// be computed, which `build()` checks with core's other refusals); the
/// rest is refused at compile time. What can only be seen when the block
/// is built (a name Terraform refuses, a recursive model, a rule that
/// cannot apply to the type) is recorded, never a panic:
/// [`Block::check`](crate::schema::Block::check) reports it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a model",
    label = "not a model",
    note = "a nested block or nested attribute is a struct with #[derive(Model)]"
)]
pub trait Model: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// The block: each field's name, type, presence and behaviour.
    fn block() -> Block;

    /// The model as a value of the object type its block implies (what
    /// the framework sends Terraform for it). No import beyond the
    /// `Model` a derive already names.
    ///
    /// ```
    /// use ctywire_model::{ctywire::Value, Model};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Serialize, Deserialize, Model, Debug, PartialEq)]
    /// struct Entry {
    ///     key: String,
    ///     note: Option<String>,
    /// }
    ///
    /// let entry = Entry { key: "a".into(), note: None };
    /// let value = entry.to_value()?;
    /// assert_eq!(value.attr("key"), Some(&Value::string("a")));
    /// assert_eq!(Entry::from_value(&value)?, entry);
    /// # Ok::<(), ctywire_model::ctywire::Error>(())
    /// ```
    fn to_value(&self) -> ctywire::Result<Value> {
        ctywire::to_value(self, &type_of::<Self>()?)
    }

    /// The model read from a value of its type (the other way from
    /// [`to_value`](Self::to_value)); an error names the path of what
    /// does not fit.
    fn from_value(value: &Value) -> ctywire::Result<Self> {
        ctywire::from_value(value)
    }
}

/// The cty type a Rust type stands for, when it is an attribute's type.
pub trait AttributeType {
    /// The cty type.
    fn cty_type() -> Type;
    /// Whether the Rust type holds a null (`Option<T>`): such a field is
    /// optional unless declared otherwise; any other is required.
    const NULLABLE: bool = false;
    /// Whether a null can be read into it: an optional or computed
    /// attribute is null in a configuration that leaves it out, so its
    /// field must take one. `Option<T>` does, and so does [`Value`]
    /// (which is required unless declared otherwise).
    const ACCEPTS_NULL: bool = Self::NULLABLE;
    /// Rules the Rust type itself implies: an integer type's range, so a
    /// value out of it is refused at validation, in Terraform's terms.
    fn validators() -> Vec<Validator> {
        Vec::new()
    }
    /// When two values of the type mean the same (a JSON document
    /// however it is spaced, a name in any case): the plan then keeps the
    /// prior value ([`SemanticEquality`]). A collection of such a type
    /// has its rule on each element.
    ///
    /// ```
    /// use ctywire_model::schema::SemanticEquality;
    /// use ctywire_model::{AttributeType, Type};
    /// use serde::{Deserialize, Serialize};
    ///
    /// /// A host name: DNS compares names without regard to case.
    /// #[derive(Serialize, Deserialize, Clone)]
    /// #[serde(transparent)]
    /// struct HostName(String);
    ///
    /// impl AttributeType for HostName {
    ///     fn cty_type() -> Type {
    ///         Type::String
    ///     }
    ///     fn semantic_equality() -> Option<SemanticEquality> {
    ///         Some(SemanticEquality::of::<HostName, HostName, _>(|h| HostName(h.0.to_lowercase())))
    ///     }
    /// }
    /// ```
    fn semantic_equality() -> Option<SemanticEquality> {
        None
    }
}

macro_rules! plain {
    ($($t:ty => $cty:expr),* $(,)?) => {$(
        impl AttributeType for $t {
            fn cty_type() -> Type {
                $cty
            }
        }
    )*};
}

plain!(String => Type::String, bool => Type::Bool, f32 => Type::Number,
    f64 => Type::Number, Number => Type::Number);

macro_rules! integers {
    ($($t:ty),* $(,)?) => {$(
        impl AttributeType for $t {
            fn cty_type() -> Type {
                Type::Number
            }
            fn validators() -> Vec<Validator> {
                vec![Validator::Range {
                    min: Some(Number::from(<$t>::MIN)),
                    max: Some(Number::from(<$t>::MAX)),
                    whole: true,
                }]
            }
        }
    )*};
}

integers!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl AttributeType for Value {
    fn cty_type() -> Type {
        Type::Dynamic
    }
    const ACCEPTS_NULL: bool = true;
}

impl<T: AttributeType> AttributeType for Option<T> {
    fn cty_type() -> Type {
        T::cty_type()
    }
    const NULLABLE: bool = true;
    fn validators() -> Vec<Validator> {
        T::validators()
    }
    fn semantic_equality() -> Option<SemanticEquality> {
        T::semantic_equality()
    }
}

impl<T: AttributeType> AttributeType for Unknowable<T> {
    fn cty_type() -> Type {
        T::cty_type()
    }
    const NULLABLE: bool = T::NULLABLE;
    const ACCEPTS_NULL: bool = T::ACCEPTS_NULL;
    fn validators() -> Vec<Validator> {
        T::validators()
    }
    fn semantic_equality() -> Option<SemanticEquality> {
        T::semantic_equality()
    }
}

impl<T: AttributeType> AttributeType for Box<T> {
    fn cty_type() -> Type {
        T::cty_type()
    }
    const NULLABLE: bool = T::NULLABLE;
    const ACCEPTS_NULL: bool = T::ACCEPTS_NULL;
    fn validators() -> Vec<Validator> {
        T::validators()
    }
    fn semantic_equality() -> Option<SemanticEquality> {
        T::semantic_equality()
    }
}

/// A collection's implied rules: its element's, on each element, and
/// [`NotNull`](Validator::NotNull) when the element's Rust type cannot
/// hold a null.
fn each<T: AttributeType>() -> Vec<Validator> {
    let mut inner = T::validators();
    if !T::ACCEPTS_NULL {
        let rust_type = rust_name(std::any::type_name::<T>());
        inner.push(Validator::NotNull { rust_type });
    }
    if inner.is_empty() {
        Vec::new()
    } else {
        vec![Validator::Each(inner)]
    }
}

/// A Rust type's name as its author writes it, without module paths:
/// `BTreeMap<String, u32>` for
/// `alloc::collections::btree::map::BTreeMap<alloc::string::String, u32>`.
fn rust_name(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut word = String::new();
    for c in full.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            word.push(c);
        } else {
            out.push_str(word.rsplit("::").next().unwrap_or_default());
            word.clear();
            out.push(c);
        }
    }
    out.push_str(word.rsplit("::").next().unwrap_or_default());
    out
}

impl<T: AttributeType> AttributeType for Vec<T> {
    fn cty_type() -> Type {
        Type::list(T::cty_type())
    }
    fn validators() -> Vec<Validator> {
        each::<T>()
    }
    fn semantic_equality() -> Option<SemanticEquality> {
        T::semantic_equality().map(SemanticEquality::each)
    }
}

impl<T: AttributeType> AttributeType for BTreeSet<T> {
    fn cty_type() -> Type {
        Type::set(T::cty_type())
    }
    fn validators() -> Vec<Validator> {
        each::<T>()
    }
    fn semantic_equality() -> Option<SemanticEquality> {
        T::semantic_equality().map(SemanticEquality::each)
    }
}

impl<T: AttributeType, S: BuildHasher> AttributeType for HashSet<T, S> {
    fn cty_type() -> Type {
        Type::set(T::cty_type())
    }
    fn validators() -> Vec<Validator> {
        each::<T>()
    }
    fn semantic_equality() -> Option<SemanticEquality> {
        T::semantic_equality().map(SemanticEquality::each)
    }
}

impl<T: AttributeType> AttributeType for BTreeMap<String, T> {
    fn cty_type() -> Type {
        Type::map(T::cty_type())
    }
    fn validators() -> Vec<Validator> {
        each::<T>()
    }
    fn semantic_equality() -> Option<SemanticEquality> {
        T::semantic_equality().map(SemanticEquality::each)
    }
}

impl<T: AttributeType, S: BuildHasher> AttributeType for HashMap<String, T, S> {
    fn cty_type() -> Type {
        Type::map(T::cty_type())
    }
    fn validators() -> Vec<Validator> {
        each::<T>()
    }
    fn semantic_equality() -> Option<SemanticEquality> {
        T::semantic_equality().map(SemanticEquality::each)
    }
}

/// A Rust type that holds nested blocks (a `#[model(block)]` field) or
/// nested attributes (`#[model(nested)]`): a model, or a collection of
/// one. The collection gives the nesting mode.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold nested blocks or nested attributes",
    label = "not a model or a collection of one",
    note = "use a struct that derives Model, or an Option, Vec, BTreeSet, HashSet, BTreeMap<String, _> or HashMap<String, _> of one"
)]
pub trait BlockContainer {
    /// `Group` for a model itself (always present), `Single` for an
    /// `Option` (null when absent), `List`, `Set` or `Map`. Nested
    /// attributes have no `Group`: a bare model is `Single` there.
    const NESTING: NestingMode;
    /// Whether a null can be read into it: a computed block is null
    /// until the provider sets it, so its field must take one (an
    /// `Option`).
    const ACCEPTS_NULL: bool = false;
    /// The model each block (or object) is.
    type Element: Model;
}

/// A [`BlockContainer`] whose elements may be a set: `#[model(block(set))]`
/// makes a `Vec` of blocks a set.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a set of blocks or objects",
    label = "`set` needs a Vec or a set of models",
    note = "a set of blocks or objects is a Vec, BTreeSet or HashSet of a struct that derives Model"
)]
pub trait SetContainer: BlockContainer {}

/// `Option<Model>` is a `Single` block (null when absent); an `Option` of
/// a collection is that collection (as a nested attribute, null when the
/// configuration leaves it out).
impl<C: BlockContainer> BlockContainer for Option<C> {
    const NESTING: NestingMode = match C::NESTING {
        NestingMode::Group => NestingMode::Single,
        other => other,
    };
    const ACCEPTS_NULL: bool = true;
    type Element = C::Element;
}

impl<T: Model> BlockContainer for Vec<T> {
    const NESTING: NestingMode = NestingMode::List;
    type Element = T;
}

impl<T: Model> BlockContainer for BTreeSet<T> {
    const NESTING: NestingMode = NestingMode::Set;
    type Element = T;
}

impl<T: Model, S: BuildHasher> BlockContainer for HashSet<T, S> {
    const NESTING: NestingMode = NestingMode::Set;
    type Element = T;
}

impl<T: Model> BlockContainer for BTreeMap<String, T> {
    const NESTING: NestingMode = NestingMode::Map;
    type Element = T;
}

impl<T: Model, S: BuildHasher> BlockContainer for HashMap<String, T, S> {
    const NESTING: NestingMode = NestingMode::Map;
    type Element = T;
}

/// A whole collection of blocks may be unknown during plan (a `dynamic`
/// block over a value known only after apply).
impl<C: BlockContainer> BlockContainer for Unknowable<C> {
    const NESTING: NestingMode = C::NESTING;
    const ACCEPTS_NULL: bool = C::ACCEPTS_NULL;
    type Element = C::Element;
}

impl<T: Model> SetContainer for Vec<T> {}
impl<C: SetContainer> SetContainer for Option<C> {}
impl<T: Model> SetContainer for BTreeSet<T> {}
impl<T: Model, S: BuildHasher> SetContainer for HashSet<T, S> {}
impl<C: SetContainer> SetContainer for Unknowable<C> {}

/// A collection whose elements `#[model(each(..))]` rules apply to; its
/// `Element` is the type an `each(validate = f)` function receives.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no elements for `each` to check",
    label = "`each` needs a list, set or map",
    note = "`each(..)` applies to the elements of a Vec, BTreeSet, HashSet, BTreeMap<String, _> or HashMap<String, _> (also inside an Option)"
)]
pub trait Collection {
    /// Each element's Rust type (a map's value type).
    type Element;
}

impl<T> Collection for Vec<T> {
    type Element = T;
}
impl<T> Collection for BTreeSet<T> {
    type Element = T;
}
impl<T, S> Collection for HashSet<T, S> {
    type Element = T;
}
impl<T> Collection for BTreeMap<String, T> {
    type Element = T;
}
impl<T, S> Collection for HashMap<String, T, S> {
    type Element = T;
}
impl<C: Collection> Collection for Option<C> {
    type Element = C::Element;
}
impl<C: Collection> Collection for Unknowable<C> {
    type Element = C::Element;
}
impl<C: Collection> Collection for Box<C> {
    type Element = C::Element;
}

/// The rules a field ends up with: those its Rust type implies and those
/// declared on it, at each level (the value itself, then `Each` for its
/// elements, and so on down).
///
/// A declared range narrows the implied one instead of adding a second
/// check: `#[model(range(1, 65535))]` on a `u16` is one rule, "a whole
/// number from 1 to 65535" (the intersection of the two, whole because
/// the type is). A declared range wider than the type is narrowed to the
/// type, so a value the field cannot hold is never let through. Other
/// declared rules are added after the implied ones; the `Each` rules of
/// both sides merge into one `Each`, by the same rule.
///
/// ```
/// use ctywire_model::model::merge_validators;
/// use ctywire_model::schema::Validator;
/// use ctywire_model::ctywire::Number;
/// use ctywire_model::AttributeType;
///
/// let declared = vec![Validator::Each(vec![Validator::Range {
///     min: Some(Number::from(1)),
///     max: None,
///     whole: false,
/// }])];
/// let merged = merge_validators(<Option<Vec<u16>>>::validators(), declared);
/// let [Validator::Each(inner)] = &merged[..] else { panic!("{merged:?}") };
/// // A u16 cannot hold a null either, which the type implies too.
/// let [Validator::Range { min, max, whole }, Validator::NotNull { rust_type }] = &inner[..] else {
///     panic!("{inner:?}")
/// };
/// assert_eq!(rust_type, "u16");
/// assert_eq!((min, max, whole), (&Some(Number::from(1)), &Some(Number::from(65535)), &true));
/// ```
pub fn merge_validators(implied: Vec<Validator>, declared: Vec<Validator>) -> Vec<Validator> {
    let (implied_ranges, implied_each, implied_other) = split(implied);
    let (declared_ranges, declared_each, declared_other) = split(declared);
    let mut out: Vec<Validator> = if declared_ranges.is_empty() {
        implied_ranges
    } else {
        declared_ranges
            .into_iter()
            .map(|d| implied_ranges.iter().fold(d, intersect))
            .collect()
    };
    out.extend(implied_other);
    out.extend(declared_other);
    match (implied_each.is_empty(), declared_each.is_empty()) {
        (true, true) => {}
        (false, true) => out.push(Validator::Each(implied_each)),
        (true, false) => out.push(Validator::Each(declared_each)),
        (false, false) => out.push(Validator::Each(merge_validators(
            implied_each,
            declared_each,
        ))),
    }
    out
}

/// Ranges, the contents of every `Each` (flattened into one list), and the
/// rest, each in order.
fn split(validators: Vec<Validator>) -> (Vec<Validator>, Vec<Validator>, Vec<Validator>) {
    let (mut ranges, mut each, mut other) = (Vec::new(), Vec::new(), Vec::new());
    for v in validators {
        match v {
            Validator::Range { .. } => ranges.push(v),
            Validator::Each(inner) => each.extend(inner),
            _ => other.push(v),
        }
    }
    (ranges, each, other)
}

/// The range both allow (`declared` is a `Range`; anything else passes
/// through unchanged).
fn intersect(declared: Validator, implied: &Validator) -> Validator {
    let (
        Validator::Range { min, max, whole },
        Validator::Range {
            min: imin,
            max: imax,
            whole: iwhole,
        },
    ) = (declared.clone(), implied)
    else {
        return declared;
    };
    let pick = |a: Option<Number>, b: &Option<Number>, keep: Ordering| match (a, b) {
        (Some(a), Some(b)) => Some(if b.numeric_cmp(&a) == keep {
            b.clone()
        } else {
            a
        }),
        (a, None) => a,
        (None, b) => b.clone(),
    };
    Validator::Range {
        min: pick(min, imin, Ordering::Greater),
        max: pick(max, imax, Ordering::Less),
        whole: whole || *iwhole,
    }
}

/// A rule in code over the field's Rust type, failing in its own words
/// (an [`Invalid`](crate::schema::Invalid), or a `String` detail under the
/// framework's summary): `f` receives the value read
/// with [`ctywire::from_value`] as a `T`, or anything `T` borrows as (a
/// `String` field's function may take `&str`, a `Vec<T>`'s `&[T]`). A null
/// passes (presence is the schema's job), and so does a value that cannot
/// be read into `T` (the typed layer reports that one itself, where it is
/// read).
///
/// ```
/// use ctywire_model::model::custom_validator;
/// use ctywire_model::schema::Validator;
/// use ctywire_model::ctywire::{Type, Value};
///
/// fn no_slash(key: &str) -> Result<(), String> {
///     if key.contains('/') { Err("must not contain \"/\"".into()) } else { Ok(()) }
/// }
/// let Validator::Custom(check) = custom_validator::<String, _, _, _>(no_slash) else { unreachable!() };
/// assert_eq!(check(&Value::string("a/b")), Err("must not contain \"/\"".into()));
/// assert_eq!(check(&Value::string("ab")), Ok(()));
/// assert_eq!(check(&Value::null(Type::String)), Ok(()));
/// ```
pub fn custom_validator<T, U, E, F>(f: F) -> Validator
where
    T: DeserializeOwned + Borrow<U> + 'static,
    U: ?Sized,
    E: Into<crate::schema::Invalid>,
    F: Fn(&U) -> Result<(), E> + Send + Sync + 'static,
{
    Validator::Custom(Arc::new(move |value: &Value| {
        if value.is_null() {
            return Ok(());
        }
        match ctywire::from_value::<T>(value) {
            Ok(t) => f(t.borrow()).map_err(Into::into),
            Err(_) => Ok(()),
        }
    }))
}

/// What `#[derive(Model)]`'s code calls. Not a stable interface.
#[doc(hidden)]
pub mod __derive {
    use super::*;
    use crate::schema::{Nested, Validator};

    /// Collects what goes wrong while a block is built, for
    /// [`Block::check`](crate::schema::Block::check) to report.
    #[derive(Default)]
    pub struct Builder {
        /// Each defect: the attribute's path, a colon, what is wrong.
        pub defects: Vec<String>,
    }

    impl Builder {
        /// A number from a Rust literal's decimal text.
        pub fn number(&mut self, text: &str, at: &str) -> Option<Number> {
            match Number::parse(text) {
                Ok(n) => Some(n),
                Err(e) => {
                    self.defects
                        .push(format!("{at}: the bound {text} is not a number: {e}"));
                    None
                }
            }
        }

        /// A number literal as a value (for `one_of`).
        pub fn number_value(&mut self, text: &str, at: &str) -> Value {
            match self.number(text, at) {
                Some(n) => Value::number(n),
                None => Value::null(Type::Number),
            }
        }

        /// A `pattern(..)` rule.
        pub fn pattern(&mut self, regex: &str, description: &str, at: &str) -> Option<Validator> {
            match regex_lite::Regex::new(regex) {
                Ok(r) => Some(Validator::Pattern {
                    regex: Arc::new(r),
                    description: description.to_string(),
                }),
                Err(e) => {
                    self.defects
                        .push(format!("{at}: the pattern {regex:?} is not valid: {e}"));
                    None
                }
            }
        }

        /// A `default = ..` value, written as the attribute's type.
        pub fn default_value<T: Serialize>(
            &mut self,
            value: &T,
            ty: &Type,
            at: &str,
        ) -> Option<Value> {
            match ctywire::to_value(value, ty) {
                Ok(v) => Some(v),
                Err(e) => {
                    self.defects
                        .push(format!("{at}: the default cannot be a {ty}: {e}"));
                    None
                }
            }
        }
    }

    /// The nesting of nested attributes held in `C`: a bare model is a
    /// `Single` object there (nested attributes have no `Group`).
    pub const fn attribute_nesting(mode: NestingMode) -> NestingMode {
        match mode {
            NestingMode::Group => NestingMode::Single,
            other => other,
        }
    }

    /// The type nested attributes imply (`dynamic` when they imply none,
    /// which [`Block::check`](crate::schema::Block::check) reports).
    pub fn nested_type(nested: &Nested) -> Type {
        nested.implied_type().unwrap_or(Type::Dynamic)
    }

    thread_local! {
        /// The models whose blocks are being built on this thread, and
        /// what was found wrong while the outermost was.
        static BUILDING: RefCell<(Vec<&'static str>, Vec<String>)> =
            const { RefCell::new((Vec::new(), Vec::new())) };
    }

    /// `T::block()`, built once. A model that contains itself (directly or
    /// through others) has no Terraform schema: instead of recursing
    /// forever, the inner occurrence is an empty block and the outermost
    /// block records the defect.
    pub fn cached_block(
        cache: &OnceLock<Block>,
        name: &'static str,
        build: impl FnOnce() -> Block,
    ) -> Block {
        if let Some(b) = cache.get() {
            return b.clone();
        }
        let entered = BUILDING.with(|b| {
            let mut b = b.borrow_mut();
            if b.0.contains(&name) {
                let path = b.0.join(" > ");
                b.1.push(format!(
                    "{name} contains itself ({path} > {name}): a schema cannot be recursive"
                ));
                false
            } else {
                b.0.push(name);
                true
            }
        });
        if !entered {
            return Block::default();
        }
        let mut block = build();
        let outermost = BUILDING.with(|b| {
            let mut b = b.borrow_mut();
            b.0.pop();
            if b.0.is_empty() {
                block.defects.append(&mut b.1);
                true
            } else {
                false
            }
        });
        // Only a block built from the top is complete: one built inside a
        // recursion holds an empty stand-in.
        if outermost {
            let _ = cache.set(block.clone());
        }
        block
    }

    /// A model's object type, worked out once from its block.
    pub fn cached_type(cache: &OnceLock<Type>, block: impl FnOnce() -> Block) -> Type {
        if let Some(t) = cache.get() {
            return t.clone();
        }
        let t = block().implied_type().unwrap_or(Type::Dynamic);
        // Inside a recursion the block is a stand-in: keep it out.
        if BUILDING.with(|b| b.borrow().0.is_empty()) {
            let _ = cache.set(t.clone());
        }
        t
    }
}

/// The cty type a model's block implies: what its values are encoded at.
pub fn type_of<M: Model>() -> ctywire::Result<Type> {
    M::block().to_schema_block().implied_type()
}
