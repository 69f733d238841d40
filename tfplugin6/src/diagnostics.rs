//! Errors and warnings for Terraform, each at an optional attribute path.

use std::fmt;

use ctywire::Path;

/// How bad a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The operation failed.
    Error,
    /// The operation went ahead; Terraform shows the warning.
    Warning,
}

/// One error or warning (`Diagnostic` in the protocol). With an
/// `attribute` path, Terraform points at that part of the configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A short summary.
    pub summary: String,
    /// More detail (may be empty).
    pub detail: String,
    /// The attribute the diagnostic is about, if any.
    pub attribute: Option<Path>,
}

impl Diagnostic {
    /// An error with a summary.
    pub fn error(summary: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            summary: summary.into(),
            detail: String::new(),
            attribute: None,
        }
    }

    /// A warning with a summary.
    pub fn warning(summary: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(summary)
        }
    }

    /// This diagnostic with `detail`.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = detail.into();
        self
    }

    /// This diagnostic about the attribute at `path` (the root path means
    /// no attribute: the diagnostic is about the whole value).
    pub fn at(mut self, path: Path) -> Self {
        self.attribute = (!path.is_root()).then_some(path);
        self
    }

    /// Whether it is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A ctywire error becomes an error at its path: the summary is its
/// message, the detail names the path too, since Terraform cannot point
/// at every path in the configuration (a path into state, say).
impl From<&ctywire::Error> for Diagnostic {
    fn from(e: &ctywire::Error) -> Self {
        let d = Diagnostic::error(e.message()).at(e.path().clone());
        if d.attribute.is_some() {
            d.with_detail(e.to_string())
        } else {
            d
        }
    }
}

impl From<ctywire::Error> for Diagnostic {
    fn from(e: ctywire::Error) -> Self {
        Diagnostic::from(&e)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{kind}: {}", self.summary)?;
        if let Some(p) = &self.attribute {
            write!(f, " (at {p})")?;
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

/// The diagnostics of one answer, in order.
///
/// It is also the error type of every [`Provider`](crate::Provider)
/// method, so `?` works on ctywire errors (each becomes an error at its
/// path) and on strings (an error with that summary):
///
/// ```
/// use ctywire_tfplugin6::{Diagnostics, Diagnostic};
/// fn check(size: i64) -> Result<(), Diagnostics> {
///     if size % 8 != 0 {
///         return Err(Diagnostic::error("size must be a multiple of 8")
///             .at(ctywire::Path::root().attr("size"))
///             .into());
///     }
///     Ok(())
/// }
/// let diags = check(7).unwrap_err();
/// assert!(diags.has_errors());
/// assert_eq!(diags.to_string(), "error: size must be a multiple of 8 (at .size)");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    /// No diagnostics.
    pub fn new() -> Self {
        Diagnostics::default()
    }

    /// One error with `summary`.
    pub fn error(summary: impl Into<String>) -> Self {
        Diagnostics(vec![Diagnostic::error(summary)])
    }

    /// One warning with `summary`.
    pub fn warning(summary: impl Into<String>) -> Self {
        Diagnostics(vec![Diagnostic::warning(summary)])
    }

    /// Adds a diagnostic (or a ctywire error, as an error at its path).
    pub fn push(&mut self, d: impl Into<Diagnostic>) {
        self.0.push(d.into());
    }

    /// Whether any of them is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The diagnostics, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }

    /// The diagnostics as a vector.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.0
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

impl From<Vec<Diagnostic>> for Diagnostics {
    fn from(v: Vec<Diagnostic>) -> Self {
        Diagnostics(v)
    }
}

impl From<ctywire::Error> for Diagnostics {
    fn from(e: ctywire::Error) -> Self {
        Diagnostics(vec![e.into()])
    }
}

impl From<String> for Diagnostics {
    fn from(summary: String) -> Self {
        Diagnostics::error(summary)
    }
}

impl From<&str> for Diagnostics {
    fn from(summary: &str) -> Self {
        Diagnostics::error(summary)
    }
}

impl<D: Into<Diagnostic>> FromIterator<D> for Diagnostics {
    fn from_iter<I: IntoIterator<Item = D>>(iter: I) -> Self {
        Diagnostics(iter.into_iter().map(Into::into).collect())
    }
}

impl<D: Into<Diagnostic>> Extend<D> for Diagnostics {
    fn extend<I: IntoIterator<Item = D>>(&mut self, iter: I) {
        self.0.extend(iter.into_iter().map(Into::into));
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl fmt::Display for Diagnostics {
    /// One diagnostic per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
