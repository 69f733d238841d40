// The crate documentation is its README, the page crates.io shows: one text,
// and its examples run as doctests.
#![doc = include_str!("README.md")]
// One audited block (ASCII text in strings.rs) and nothing else.
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "serde")]
/// serde's three sequence traits for a type whose `element` and `finish`
/// do the work: the typed serializers (`to_value`'s and each format's)
/// take sequences, tuples and tuple structs alike.
macro_rules! sequence_traits {
    ($ty:ty, $ok:ty) => {
        sequence_traits!($ty, $ok, SerializeSeq serialize_element, SerializeTuple
            serialize_element, SerializeTupleStruct serialize_field);
    };
    ($ty:ty, $ok:ty, $($tr:ident $method:ident),*) => {$(
        impl serde::ser::$tr for $ty {
            type Ok = $ok;
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.element(value)
            }
            fn end(self) -> Result<$ok> {
                self.finish()
            }
        }
    )*};
}

#[cfg(feature = "serde")]
/// The serializer methods a capture of private content (see
/// `typed::private`) does not take: each an error, as only ctywire's own
/// content comes to a capture.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*);)*) => {$(
        fn $method(self, $(_: $arg),*) -> Result<Self::Ok> {
            Err(Error::data(concat!("internal error: private content written with ", stringify!($method))))
        }
    )*};
}

/// The rest of a capture's serializer methods, refused.
#[cfg(feature = "serde")]
macro_rules! refuse_compound {
    () => {
        refuse! {
            serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
            serialize_i128(i128); serialize_u8(u8); serialize_u16(u16); serialize_u32(u32);
            serialize_u128(u128); serialize_f32(f32); serialize_char(char);
            serialize_bytes(&[u8]); serialize_none(); serialize_unit();
            serialize_unit_struct(&'static str);
            serialize_unit_variant(&'static str, u32, &'static str);
        }
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Self::Ok> {
            Err(Error::data(
                "internal error: private content written as an option",
            ))
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok> {
            Err(Error::data(
                "internal error: private content written as a newtype",
            ))
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok> {
            Err(Error::data(
                "internal error: private content written as a variant",
            ))
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
            Err(Error::data(
                "internal error: private content written as a sequence",
            ))
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
            Err(Error::data(
                "internal error: private content written as a tuple",
            ))
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct> {
            Err(Error::data(
                "internal error: private content written as a tuple",
            ))
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant> {
            Err(Error::data(
                "internal error: private content written as a variant",
            ))
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
            Err(Error::data(
                "internal error: private content written as a map",
            ))
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant> {
            Err(Error::data(
                "internal error: private content written as a variant",
            ))
        }
    };
}

mod convert;
mod decode;
mod error;
mod gostr;
pub mod json;
mod mismatch;
pub mod msgpack;
mod number;
mod path;
pub mod protocol;
mod refinements;
pub mod schema;
mod set;
mod strings;
#[cfg(feature = "serde")]
mod typed;
mod types;
mod value;
mod walk;

pub use error::{Category, Error, Result};
pub use number::{Number, DEFAULT_MAX_NUMBER_EXPONENT};
pub use path::{Path, PathStep};
pub use refinements::{Bound, Refinements};
#[cfg(feature = "serde")]
pub use typed::{from_value, to_value, with, IgnoredAttributes, Unknowable};
pub use types::{ObjectType, Type};
pub use value::Value;

/// Not part of the API, and may change in any release: ctywire-bridge's
/// JSON document and ctywire-provider's test harness (its documents with
/// exact numbers) read with the codec's own tokenizer, so that JSON has one
/// grammar (escapes, number syntax, UTF-8 checks) in every ctywire crate.
#[doc(hidden)]
pub mod __private {
    pub use crate::json::read::{Peek, Reader};
}

/// The default nesting limit, in collections and dynamic wrappers.
pub const DEFAULT_MAX_DEPTH: usize = 256;

/// Limits a decoder enforces, so that bytes from outside cannot exhaust
/// memory or the stack. Exceeding one is an error of category
/// [`Category::Limit`] naming the limit.
///
/// ```
/// use ctywire::{msgpack, DecodeOptions, Type};
/// let opts = DecodeOptions::new().max_collection_len(2);
/// let err = msgpack::decode_with(&[0x93, 1, 2, 3], &Type::list(Type::Number), &opts).unwrap_err();
/// assert!(err.to_string().contains("max_collection_len"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeOptions {
    max_depth: usize,
    max_collection_len: usize,
    max_input_len: usize,
    max_number_exponent: u32,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            max_depth: DEFAULT_MAX_DEPTH,
            max_collection_len: 1 << 20,
            max_input_len: 256 << 20,
            max_number_exponent: DEFAULT_MAX_NUMBER_EXPONENT,
        }
    }
}

impl DecodeOptions {
    /// The defaults: depth 256, 1,048,576 elements per collection, 256 MiB
    /// of input (Terraform's own message limit), decimal exponents up to
    /// ±10,000.
    pub fn new() -> Self {
        Self::default()
    }

    /// How deeply collections, structures and dynamic wrappers may nest.
    pub fn max_depth(mut self, n: usize) -> Self {
        self.max_depth = n;
        self
    }

    /// How many elements one list, set, map or tuple may have. This also
    /// bounds the known lists that a length refinement collapses into.
    pub fn max_collection_len(mut self, n: usize) -> Self {
        self.max_collection_len = n;
        self
    }

    /// How many bytes of input a decoder accepts.
    pub fn max_input_len(mut self, n: usize) -> Self {
        self.max_input_len = n;
        self
    }

    /// How large a decimal exponent a number written as text may have
    /// (`1e400` has 400). Bounds the digits one short number can expand to.
    pub fn max_number_exponent(mut self, n: u32) -> Self {
        self.max_number_exponent = n;
        self
    }

    /// No limits: for reading back bytes ctywire itself just wrote from
    /// values already in memory.
    #[cfg(feature = "serde")]
    pub(crate) fn unlimited() -> Self {
        DecodeOptions {
            max_depth: usize::MAX,
            max_collection_len: usize::MAX,
            max_input_len: usize::MAX,
            max_number_exponent: u32::MAX,
        }
    }

    /// An error unless `len` bytes of input are within `max_input_len`.
    pub fn check_input_len(&self, len: usize) -> Result<()> {
        if len > self.max_input_len {
            return Err(Error::limit(format!(
                "input of {len} bytes exceeds max_input_len ({})",
                self.max_input_len
            )));
        }
        Ok(())
    }

    /// An error unless a collection of `len` elements is within
    /// `max_collection_len`.
    pub fn check_collection_len(&self, len: u64) -> Result<()> {
        if len > self.max_collection_len as u64 {
            return Err(Error::limit(format!(
                "collection of {len} elements exceeds max_collection_len ({})",
                self.max_collection_len
            )));
        }
        Ok(())
    }

    /// An error unless nesting `depth` levels deep is within `max_depth`.
    pub fn check_depth(&self, depth: usize) -> Result<()> {
        if depth > self.max_depth {
            return Err(Error::limit(format!(
                "value nests deeper than max_depth ({})",
                self.max_depth
            )));
        }
        Ok(())
    }
}
