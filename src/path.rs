//! Paths to a value inside a larger value, as Terraform renders them.

use std::fmt;

use crate::gostr;

/// One step of a [`Path`].
///
/// The three kinds mirror the plugin protocol's `AttributePath.Step`
/// (`attribute_name`, `element_key_string`, `element_key_int`), so a path
/// found by ctywire can be sent back to Terraform in a diagnostic as-is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum PathStep {
    /// An object attribute: renders as `.name`.
    Attr(String),
    /// A map key: renders as `["key"]`.
    Key(String),
    /// A list, tuple or set position: renders as `[3]`. For sets this is
    /// the position on the wire, since set elements have no stable index.
    Index(u64),
}

/// A path from the root of a value to one of its parts, such as
/// `.tags["Name"]` or `.ebs_block_device[2].iops`.
///
/// ```
/// use ctywire::{Path, PathStep};
/// let path = Path::root().attr("tags").key("Name").index(0);
/// assert_eq!(path.to_string(), r#".tags["Name"][0]"#);
/// assert_eq!(path.steps()[1], PathStep::Key("Name".into()));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct Path {
    steps: Vec<PathStep>,
}

impl Path {
    /// The empty path, naming the whole value.
    pub fn root() -> Self {
        Path::default()
    }

    /// This path extended by an attribute step.
    pub fn attr(mut self, name: impl Into<String>) -> Self {
        self.steps.push(PathStep::Attr(name.into()));
        self
    }

    /// This path extended by a map-key step.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.steps.push(PathStep::Key(key.into()));
        self
    }

    /// This path extended by an index step.
    pub fn index(mut self, index: u64) -> Self {
        self.steps.push(PathStep::Index(index));
        self
    }

    /// The steps, outermost first.
    pub fn steps(&self) -> &[PathStep] {
        &self.steps
    }

    /// Whether this is the root path.
    pub fn is_root(&self) -> bool {
        self.steps.is_empty()
    }

    /// Appends a step at the end.
    pub fn push(&mut self, step: PathStep) {
        self.steps.push(step);
    }

    /// Removes the last step.
    pub fn pop(&mut self) -> Option<PathStep> {
        self.steps.pop()
    }

    /// Puts a step in front: errors are built innermost-first as the
    /// decoder unwinds, so the outer step arrives last.
    pub(crate) fn push_front(&mut self, step: PathStep) {
        self.steps.insert(0, step);
    }
}

impl From<Vec<PathStep>> for Path {
    fn from(steps: Vec<PathStep>) -> Self {
        Path { steps }
    }
}

impl fmt::Display for Path {
    /// Terraform's `FormatCtyPath` rendering: `.attr`, `["key"]` (Go-quoted), `[N]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for step in &self.steps {
            match step {
                PathStep::Attr(name) => write!(f, ".{name}")?,
                PathStep::Key(key) => {
                    let mut quoted = String::with_capacity(key.len() + 2);
                    gostr::quote_into(&mut quoted, key);
                    write!(f, "[{quoted}]")?
                }
                PathStep::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}
