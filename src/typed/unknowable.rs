//! [`Unknowable`]: a field that may be unknown during plan.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use super::private::{
    take_handover, RefinementsData, UnknownContent, UNKNOWABLE_TOKEN, UNKNOWN_TOKEN,
};
use crate::refinements::Refinements;

/// A value that may not be known yet: Terraform plans with unknowns
/// ("known after apply"), and an unknown may carry refinements (not null,
/// a string prefix, number bounds, collection lengths). They are kept when
/// read and written back as they were.
///
/// A null needs an `Option` inside: `Unknowable<Option<T>>` takes all three
/// states.
///
/// ```
/// use ctywire::{from_value, to_value, Refinements, Type, Unknowable, Value};
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Server { name: String, id: Unknowable<String> }
/// let ty = Type::parse(r#"["object",{"name":"string","id":"string"}]"#)?;
///
/// let prefix = Refinements { not_null: true, string_prefix: Some("i-".into()), ..Default::default() };
/// let planned = Value::object([
///     ("name", Value::string("web")),
///     ("id", Value::unknown(Type::String).refined(prefix.clone())?),
/// ]);
/// let s: Server = from_value(&planned)?;
/// assert_eq!(s.id, Unknowable::Unknown(prefix));
/// assert_eq!(to_value(&s, &ty)?, planned);
///
/// // A plain String field cannot take it, and says what to use instead.
/// #[derive(serde::Deserialize, Debug)]
/// struct Plain { name: String, id: String }
/// let err = from_value::<Plain>(&planned).unwrap_err();
/// assert!(err.to_string().starts_with(".id: the value is unknown"));
/// assert!(err.to_string().contains("Unknowable"));
/// # Ok::<(), ctywire::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Unknowable<T> {
    /// A known value (or a null, when `T` is an `Option`).
    Known(T),
    /// An unknown, with what is known about it.
    Unknown(Refinements),
}

impl<T> Unknowable<T> {
    /// An unknown with no refinements.
    pub fn unknown() -> Self {
        Unknowable::Unknown(Refinements::default())
    }

    /// The value, if known.
    pub fn known(&self) -> Option<&T> {
        match self {
            Unknowable::Known(t) => Some(t),
            Unknowable::Unknown(_) => None,
        }
    }

    /// The value, if known, by value.
    pub fn into_known(self) -> Option<T> {
        match self {
            Unknowable::Known(t) => Some(t),
            Unknowable::Unknown(_) => None,
        }
    }

    /// Whether the value is known.
    pub fn is_known(&self) -> bool {
        matches!(self, Unknowable::Known(_))
    }

    /// The refinements of an unknown.
    pub fn refinements(&self) -> Option<&Refinements> {
        match self {
            Unknowable::Known(_) => None,
            Unknowable::Unknown(r) => Some(r),
        }
    }
}

impl<T> From<T> for Unknowable<T> {
    fn from(t: T) -> Self {
        Unknowable::Known(t)
    }
}

impl<T: Default> Default for Unknowable<T> {
    /// A known default, so that `#[serde(default)]` fills in a known value.
    fn default() -> Self {
        Unknowable::Known(T::default())
    }
}

impl<T: Serialize> Serialize for Unknowable<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Unknowable::Known(t) => t.serialize(s),
            // In band: ctywire's serializers read the refinements back;
            // any other refuses the unknown (see `private`).
            Unknowable::Unknown(r) => s.serialize_newtype_struct(UNKNOWN_TOKEN, &UnknownContent(r)),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Unknowable<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(UNKNOWABLE_TOKEN, UnknowableVisitor(PhantomData))
    }
}

struct UnknowableVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for UnknowableVisitor<T> {
    type Value = Unknowable<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or an unknown")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        T::deserialize(d).map(Unknowable::Known)
    }

    // ctywire's deserializers hand an unknown over with its refinements.
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        let r: RefinementsData =
            de::VariantAccess::newtype_variant(take_handover(data, UNKNOWN_TOKEN)?)?;
        Ok(Unknowable::Unknown(r.into()))
    }

    // A unit from another deserializer is a known `()`-like value.
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        T::deserialize(de::value::UnitDeserializer::<E>::new()).map(Unknowable::Known)
    }
}
