//! Provider functions (protocol 6.5): signatures and calls.

use ctywire::schema::StringKind;
use ctywire::{Type, Value};

/// A provider function's signature (`Function`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Function {
    /// The positional parameters.
    pub parameters: Vec<Parameter>,
    /// The parameter any further arguments are of.
    pub variadic_parameter: Option<Parameter>,
    /// The result's type.
    pub return_type: Type,
    /// A one-line summary.
    pub summary: String,
    /// Documentation.
    pub description: String,
    /// How `description` is written.
    pub description_kind: StringKind,
    /// Non-empty when deprecated: why.
    pub deprecation_message: String,
}

/// A function parameter (`Function.Parameter`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parameter {
    /// Its name, for documentation and errors.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Whether a null may be passed.
    pub allow_null_value: bool,
    /// Whether an unknown may be passed (otherwise Terraform does not call
    /// the function and the result is unknown).
    pub allow_unknown_values: bool,
    /// Documentation.
    pub description: String,
    /// How `description` is written.
    pub description_kind: StringKind,
}

impl Parameter {
    /// A parameter of type `ty`.
    pub fn new(name: impl Into<String>, ty: Type) -> Self {
        Parameter {
            name: name.into(),
            ty,
            ..Default::default()
        }
    }
}

/// `CallFunction`.
#[derive(Clone, Debug)]
pub struct CallFunctionRequest {
    /// The function's name.
    pub name: String,
    /// The arguments, each at its parameter's type (variadic ones at the
    /// variadic parameter's).
    pub arguments: Vec<Value>,
}

/// A function's failure (`FunctionError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionError {
    /// What went wrong.
    pub text: String,
    /// The argument at fault, counting from 0.
    pub function_argument: Option<i64>,
}

impl FunctionError {
    /// A failure not tied to one argument.
    pub fn new(text: impl Into<String>) -> Self {
        FunctionError {
            text: text.into(),
            function_argument: None,
        }
    }
}
