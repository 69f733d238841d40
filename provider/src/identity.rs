//! An identity Terraform sent (an `import` block's `identity`), read
//! typed.

use ctywire::Value;
use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use serde::de::DeserializeOwned;

/// An object's identity as Terraform sent it, at the resource's identity
/// type (see [`Resource`](crate::Resource#identity)). Attributes declared
/// `identity(optional)` may be null.
///
/// ```
/// use ctywire_provider::{Identity, Value};
/// use serde::Deserialize;
///
/// #[derive(Deserialize)]
/// struct EntryId {
///     key: String,
/// }
///
/// let identity = Identity::new(Value::object([("key", Value::string("a"))]));
/// assert_eq!(identity.read::<EntryId>().unwrap().key, "a");
/// assert_eq!(identity.get::<String>("key").unwrap(), "a");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Identity {
    value: Value,
}

impl Identity {
    /// An identity with this value (an object).
    pub fn new(value: Value) -> Self {
        Identity { value }
    }

    /// The identity as a value.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The whole identity read into `T` (a struct with the identity's
    /// attributes as fields): a typed identity model.
    pub fn read<T: DeserializeOwned>(&self) -> Result<T, Diagnostics> {
        ctywire::from_value(&self.value).map_err(|e| invalid(e.message(), e.path().clone()))
    }

    /// One attribute, read into `T`; an error at the attribute when it is
    /// missing or of another type.
    pub fn get<T: DeserializeOwned>(&self, name: &str) -> Result<T, Diagnostics> {
        let at = ctywire::Path::root().attr(name);
        match self.value.attr(name) {
            Some(v) => ctywire::from_value(v).map_err(|e| invalid(e.message(), at)),
            None => Err(invalid("the identity has no such attribute", at)),
        }
    }

    /// The value of its one attribute as text (a string as it is, a
    /// number or bool as written), or why there is none: for a null or
    /// not wholly known identity, one with other than one attribute, or
    /// one whose attribute is not set.
    pub(crate) fn single_as_text(&self) -> Result<String, String> {
        if self.value.is_null() {
            return Err("the identity is null".into());
        }
        let Some(mut attrs) = self.value.attributes().filter(|_| self.value.is_known()) else {
            return Err(format!("the identity {} is not a known object", self.value));
        };
        let Some((name, v)) = attrs.next() else {
            return Err("the identity has no attributes".into());
        };
        if attrs.next().is_some() {
            return Err("the identity has more than one attribute".into());
        }
        if v.is_null() || !v.is_known() {
            let what = if v.is_null() { "null" } else { "unknown" };
            return Err(format!("the identity's attribute {name:?} is {what}"));
        }
        if let Some(s) = v.as_str() {
            return Ok(s.to_owned());
        }
        v.as_number()
            .map(ToString::to_string)
            .or_else(|| v.as_bool().map(|b| b.to_string()))
            .ok_or_else(|| {
                format!("the identity's attribute {name:?} is not a string, number or bool")
            })
    }
}

fn invalid(message: &str, at: ctywire::Path) -> Diagnostics {
    Diagnostic::error("Invalid identity")
        .with_detail(message.to_owned())
        .at(at)
        .into()
}
