//! The one error type of ctywire.

use std::borrow::Cow;
use std::fmt;

use crate::path::{Path, PathStep};

/// What kind of failure an [`Error`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Category {
    /// The input ended in the middle of a value.
    Eof,
    /// The bytes are not well-formed msgpack or JSON, or there are bytes
    /// after the value.
    Syntax,
    /// The input is well-formed but does not fit the type it is decoded
    /// as (a string where a number belongs, a missing attribute...), or a
    /// value does not fit the type it is encoded as.
    Data,
    /// A type constraint (type JSON, or a type built in code) is malformed.
    Type,
    /// The value cannot be written in the requested format, such as an
    /// unknown value or an infinity in JSON.
    Unrepresentable,
    /// A configured limit ([`DecodeOptions`](crate::DecodeOptions)) was exceeded.
    Limit,
}

/// A failure to decode, encode or build a value, with the [`Path`] of the
/// offending element and, when decoding, the byte offset where it was found.
///
/// Its `Display` form is Terraform's: `path: message`, or just the message
/// at the root.
///
/// ```
/// use ctywire::{msgpack, Type};
/// let ty = Type::parse(r#"["object",{"tags":["map",["list","number"]]}]"#).unwrap();
/// // {"tags": {"k": ["x"]}}: a string where a number belongs.
/// let err = msgpack::decode(&hex("81a47461677381a16b91a178"), &ty).unwrap_err();
/// assert_eq!(err.to_string(), r#".tags["k"][0]: a number is required"#);
/// assert_eq!(err.offset(), Some(10));
/// # fn hex(s: &str) -> Vec<u8> { (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i+2], 16).unwrap()).collect() }
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    inner: Box<Inner>,
}

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    category: Category,
    message: Cow<'static, str>,
    path: Path,
    offset: Option<usize>,
}

impl Error {
    /// An error of `category` with `message`, at the root path and no
    /// offset: for layers built on ctywire that report in its terms.
    pub fn new(category: Category, message: impl Into<Cow<'static, str>>) -> Self {
        Error {
            inner: Box::new(Inner {
                category,
                message: message.into(),
                path: Path::root(),
                offset: None,
            }),
        }
    }

    /// A [`Category::Data`] error: well-formed input that does not fit.
    pub fn data(message: impl Into<Cow<'static, str>>) -> Self {
        Error::new(Category::Data, message)
    }

    /// A [`Category::Syntax`] error: input that is not well-formed.
    pub fn syntax(message: impl Into<Cow<'static, str>>) -> Self {
        Error::new(Category::Syntax, message)
    }

    /// A [`Category::Eof`] error: the input ended inside a value.
    pub fn eof() -> Self {
        Error::new(Category::Eof, "unexpected end of input")
    }

    /// A [`Category::Type`] error: a type that is not valid here.
    pub fn type_error(message: impl Into<Cow<'static, str>>) -> Self {
        Error::new(Category::Type, message)
    }

    /// A [`Category::Limit`] error: a limit on hostile input was reached.
    pub fn limit(message: impl Into<Cow<'static, str>>) -> Self {
        Error::new(Category::Limit, message)
    }

    /// A [`Category::Unrepresentable`] error: a value the target format
    /// cannot hold.
    pub fn unrepresentable(message: impl Into<Cow<'static, str>>) -> Self {
        Error::new(Category::Unrepresentable, message)
    }

    /// Records where in the input the error was found, keeping the first
    /// (innermost) offset when called again while unwinding.
    pub fn at_offset(mut self, offset: usize) -> Self {
        self.inner.offset.get_or_insert(offset);
        self
    }

    /// A tuple of the wrong length: `given` elements, or, where `None`, more
    /// than the type has (seen on reaching one past its end).
    pub(crate) fn wrong_tuple_length(expected: usize, given: Option<usize>) -> Self {
        Error::data(match given {
            Some(n) => format!("a tuple of {expected} elements is required ({n} given)"),
            None => format!("a tuple of {expected} elements is required (more given)"),
        })
    }

    /// A value that reached a writer without conforming to the type it is
    /// written as: conversion makes every value conform first, so this is
    /// a broken invariant, reported rather than panicking.
    pub(crate) fn nonconforming(v: &crate::Value, ty: &crate::Type) -> Self {
        Error::data(format!(
            "internal error: a value of type {} reached the writer for {}",
            v.ty().to_json(),
            ty.to_json()
        ))
    }

    /// Sets the offset, replacing one already recorded: for errors found
    /// in a slice of the input, whose offsets were relative to it.
    pub(crate) fn relocated(mut self, offset: usize) -> Self {
        self.inner.offset = Some(offset);
        self
    }

    /// Puts `context` in front of the message (`invalid map key: ...`),
    /// keeping the category, path and offset.
    pub(crate) fn in_context(mut self, context: &str) -> Self {
        self.inner.message = format!("{context}: {}", self.inner.message).into();
        self
    }

    /// Puts `step` in front of the path (errors are built innermost first,
    /// and each level adds its own step while unwinding).
    pub fn under(mut self, step: PathStep) -> Self {
        self.inner.path.push_front(step);
        self
    }

    /// An error of the user's own, for checks a provider makes on a value
    /// (category [`Category::Data`]); give it a path with
    /// [`within`](Self::within).
    ///
    /// ```
    /// use ctywire::{Error, Path};
    /// let e = Error::custom("must be a multiple of 8").within(&Path::root().attr("size"));
    /// assert_eq!(e.to_string(), ".size: must be a multiple of 8");
    /// ```
    pub fn custom(message: impl fmt::Display) -> Self {
        Error::data(message.to_string())
    }

    /// This error, found in the value at `path`: the path is put in front
    /// of the one the error has (a check run on a part reports the whole's
    /// path).
    ///
    /// ```
    /// use ctywire::{Error, Path};
    /// let inner = Error::custom("too long").within(&Path::root().index(2));
    /// let e = inner.within(&Path::root().attr("names"));
    /// assert_eq!(e.to_string(), ".names[2]: too long");
    /// ```
    pub fn within(self, path: &Path) -> Self {
        path.steps()
            .iter()
            .rev()
            .fold(self, |e, step| e.under(step.clone()))
    }

    /// What kind of failure this is.
    pub fn category(&self) -> Category {
        self.inner.category
    }

    /// The message without the path.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The path of the offending element (the root when the whole value
    /// is at fault).
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The byte offset in the input where decoding failed, if known.
    pub fn offset(&self) -> Option<usize> {
        self.inner.offset
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.inner.path.is_root() {
            f.write_str(&self.inner.message)
        } else {
            write!(f, "{}: {}", self.inner.path, self.inner.message)
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Error");
        d.field("category", &self.inner.category)
            .field("message", &self.inner.message)
            .field("path", &self.inner.path.to_string());
        if let Some(offset) = self.inner.offset {
            d.field("offset", &offset);
        }
        d.finish()
    }
}

impl std::error::Error for Error {}

/// Shorthand used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
