//! Adapters for `#[serde(with = "...")]` that carry other crates' exact
//! number types through cty without rounding. Each has an `option`
//! submodule for nullable fields.
//!
//! | feature | module | Rust type |
//! |---|---|---|
//! | `bigint` | [`bigint`] | `num_bigint::BigInt` (integers only) |
//! | `bigdecimal` | [`bigdecimal`] | `bigdecimal::BigDecimal` |
//!
//! (`Number` and `String` need no adapter; `indexmap::IndexMap` needs
//! only the `indexmap` feature.)

/// Both adapters: a value written through its decimal text, read back
/// from a [`Number`](crate::Number)'s exact text.
#[cfg(any(feature = "bigint", feature = "bigdecimal"))]
macro_rules! through_number_text {
    ($t:ty, $what:literal, $accept:expr) => {
        use serde::de::Error as _;
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        use crate::Number;

        /// Writes the value as an exact cty number.
        pub fn serialize<S: Serializer>(v: &$t, s: S) -> Result<S::Ok, S::Error> {
            let n: Number = v
                .to_string()
                .parse()
                .map_err(<S::Error as serde::ser::Error>::custom)?;
            n.serialize(s)
        }

        /// Reads an exact cty number.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
            let n = Number::deserialize(d)?;
            let accept: fn(&Number) -> bool = $accept;
            if !accept(&n) {
                return Err(D::Error::custom(format!("{} is required (got {n})", $what)));
            }
            n.to_string().parse().map_err(D::Error::custom)
        }

        /// The same for `Option<_>` fields: null is `None`.
        pub mod option {
            use serde::{Deserialize, Deserializer, Serializer};

            /// Writes `None` as null, `Some` as an exact number.
            pub fn serialize<S: Serializer>(v: &Option<$t>, s: S) -> Result<S::Ok, S::Error> {
                match v {
                    Some(v) => s.serialize_some(&Wrap(v)),
                    None => s.serialize_none(),
                }
            }

            /// Reads null as `None`, a number as `Some`.
            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<$t>, D::Error> {
                Ok(Option::<Unwrap>::deserialize(d)?.map(|u| u.0))
            }

            struct Wrap<'a>(&'a $t);

            impl serde::Serialize for Wrap<'_> {
                fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    super::serialize(self.0, s)
                }
            }

            struct Unwrap($t);

            impl<'de> Deserialize<'de> for Unwrap {
                fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    super::deserialize(d).map(Unwrap)
                }
            }
        }
    };
}

/// `#[serde(with = "ctywire::with::bigint")]` for `num_bigint::BigInt`
/// fields: any integer, exactly; a fraction is an error.
/// *Needs the `bigint` feature.*
///
/// ```
/// use ctywire::{from_value, to_value, Number, Type, Value};
/// use num_bigint::BigInt;
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Big { #[serde(with = "ctywire::with::bigint")] n: BigInt }
/// let ty = Type::parse(r#"["object",{"n":"number"}]"#)?;
/// let n: Number = "123456789012345678901234567890".parse()?;
/// let v = Value::object([("n", Value::number(n))]);
/// let big: Big = from_value(&v)?;
/// assert_eq!(big.n.to_string(), "123456789012345678901234567890");
/// assert_eq!(to_value(&big, &ty)?, v);
/// let half = Value::object([("n", Value::number("0.5".parse::<Number>()?))]);
/// assert_eq!(from_value::<Big>(&half).err().unwrap().to_string(), ".n: an integer is required (got 0.5)");
/// # Ok::<(), ctywire::Error>(())
/// ```
#[cfg(feature = "bigint")]
pub mod bigint {
    through_number_text!(num_bigint::BigInt, "an integer", |n| n.is_integer());
}

/// `#[serde(with = "ctywire::with::bigdecimal")]` for
/// `bigdecimal::BigDecimal` fields: any finite number, exactly.
/// *Needs the `bigdecimal` feature.*
///
/// ```
/// use ctywire::{from_value, to_value, Number, Type, Value};
/// use bigdecimal::BigDecimal;
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Price { #[serde(with = "ctywire::with::bigdecimal::option")] p: Option<BigDecimal> }
/// let ty = Type::parse(r#"["object",{"p":"number"}]"#)?;
/// let n: Number = "0.10000000000000000000000000001".parse()?;
/// let v = Value::object([("p", Value::number(n))]);
/// let price: Price = from_value(&v)?;
/// assert_eq!(to_value(&price, &ty)?, v);
/// let none: Price = from_value(&Value::object([("p", Value::null(Type::Number))]))?;
/// assert!(none.p.is_none());
/// # Ok::<(), ctywire::Error>(())
/// ```
#[cfg(feature = "bigdecimal")]
pub mod bigdecimal {
    through_number_text!(::bigdecimal::BigDecimal, "a finite number", |n| !n
        .is_infinite());
}
