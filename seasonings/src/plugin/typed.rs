//! What an author implements (functions, resources, data sources over
//! `Model` types) and the same with the types erased, as the dispatch
//! calls them: values in, values out, decoded and checked here once.

use std::sync::Arc;

use async_trait::async_trait;
use ctywire::{Path, PathStep, Type, Value};
use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_model::schema::{Block, RESERVED_IN_RESOURCES};
use ctywire_model::{AttributeType, Model};
use serde::Serialize;

use super::dispatch::{invalid_params, refused};
use super::Error;
use crate::protocol::{code, ErrorObject, FunctionSignature, Parameter};

/// A function, `provider::PLUGIN::NAME(...)` in configuration. Its
/// parameters are the fields of [`Args`](Self::Args), in order (an
/// `Option` field takes null; doc comments describe them); its result's
/// type is [`Output`](Self::Output)'s.
#[async_trait]
pub trait Function: Send + Sync + 'static {
    /// The arguments, one field per parameter, in order.
    type Args: Model;
    /// The result (an [`Unknowable`](ctywire::Unknowable) to answer unknown).
    type Output: Serialize + AttributeType + Send;

    /// The parameters whose unknown values reach the function: their
    /// fields are [`Unknowable`](ctywire::Unknowable). For any other, the
    /// host answers unknown without calling (as Terraform does).
    const ALLOW_UNKNOWN_VALUES: &'static [&'static str] = &[];

    /// The last field, a `Vec<T>`, taking any number of further arguments
    /// of type `T`: the signature's variadic parameter.
    const VARIADIC: Option<&'static str> = None;

    /// A one-line summary. Default: the first line of the doc comment on
    /// [`Args`](Self::Args).
    fn summary(&self) -> Option<&str> {
        None
    }

    /// Calls it. An error names the argument at fault with
    /// [`Error::argument`].
    async fn call(&self, args: Self::Args) -> Result<Self::Output, Error>;
}

/// A resource type's plan (for a type that [plans
/// itself](Resource::PLANS_ITSELF)): the planned state (unknown where the
/// apply decides) and the attribute paths whose change replaces the
/// object.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The planned new state.
    pub state: Value,
    /// Paths whose change forces a replacement.
    pub requires_replace: Vec<Path>,
    /// What Terraform shows with the plan without stopping it (an
    /// [`Error`]'s summary, detail and path, as a warning diagnostic).
    pub warnings: Vec<Error>,
}

impl Plan {
    /// `state` as planned: nothing replaced, no warnings.
    pub fn new(state: Value) -> Self {
        Plan {
            state,
            requires_replace: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// A state Terraform stored at another schema version than the
/// resource's [`VERSION`](Resource::VERSION), for
/// [`upgrade`](Resource::upgrade): the JSON Terraform stored, read raw or
/// at the model that version had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredState {
    version: u64,
    json: String,
}

impl StoredState {
    /// The schema version it was stored at.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The stored JSON text (Terraform's `attributes` object).
    pub fn json(&self) -> &str {
        &self.json
    }

    /// The state read at `M`, the model of the version it was stored at
    /// (a stored attribute `M` does not have is an error at its path).
    pub fn decode<M: Model>(&self) -> Result<M, Error> {
        let ty = M::block().implied_type().map_err(|e| {
            Error::new("Invalid model").detail(format!("{e}. This is a bug in the plugin."))
        })?;
        ctywire::json::from_slice(self.json.as_bytes(), &ty).map_err(|e| {
            Error::new("Cannot read the stored state")
                .detail(format!(
                    "stored at schema version {}: {}",
                    self.version,
                    e.message()
                ))
                .at(e.path().clone())
        })
    }
}

/// A failed apply, and the object's state when it exists all the same
/// (created or changed before the failure): Terraform keeps it (tainted
/// when it was just created) instead of losing it (§6.3). `?` on an
/// [`Error`] makes one with no state: nothing changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Failed<S> {
    /// The object as it now is, if the failure left one.
    pub state: Option<S>,
    /// What went wrong.
    pub error: Error,
}

impl<S> Failed<S> {
    /// The object `state` exists, but the apply failed with `error`.
    pub fn after(state: S, error: Error) -> Self {
        Failed {
            state: Some(state),
            error,
        }
    }
}

impl<S> From<Error> for Failed<S> {
    fn from(error: Error) -> Self {
        Failed { state: None, error }
    }
}

/// A managed resource type, `PLUGIN_NAME` in configuration: its model
/// (which is its schema) and the operations on it. The host plans it with
/// Terraform's rules unless it [plans itself](Self::PLANS_ITSELF).
///
/// The planned state reaches [`create`](Self::create) and
/// [`update`](Self::update) with its unknown values (what the apply
/// decides) as nulls; the answer must be wholly known.
#[async_trait]
pub trait Resource: Send + Sync + 'static {
    /// The attributes and blocks; a state is one.
    type State: Model;

    /// The schema version.
    const VERSION: u64 = 0;

    /// Whether the host asks [`plan`](Self::plan) (the schema's
    /// `plan_change: true`), instead of planning with Terraform's rules.
    const PLANS_ITSELF: bool = false;

    /// Checks beyond the schema's, on configuration that may hold
    /// unknowns. Default: none.
    fn validate(&self, config: &Value) -> Vec<Error> {
        let _ = config;
        Vec::new()
    }

    /// The plan, when [`PLANS_ITSELF`](Self::PLANS_ITSELF): `proposed` is
    /// Terraform's proposed new state, unknowns and all. Default: the
    /// proposal as it is.
    async fn plan(
        &self,
        prior: Option<Self::State>,
        proposed: Value,
        config: &Value,
    ) -> Result<Plan, Error> {
        let _ = (prior, config);
        Ok(Plan::new(proposed))
    }

    /// A state stored at an older schema version than
    /// [`VERSION`](Self::VERSION), answered as this version's (Terraform
    /// then stores it so). Default: refused, naming the version.
    async fn upgrade(&self, stored: StoredState) -> Result<Self::State, Error> {
        Err(Error::new("Cannot upgrade state").detail(format!(
            "this resource type has no upgrade from schema version {} to {}",
            stored.version,
            Self::VERSION
        )))
    }

    /// Creates the object the plan describes.
    async fn create(
        &self,
        planned: Self::State,
        config: &Value,
    ) -> Result<Self::State, Failed<Self::State>>;

    /// The object as it now is; `None` when it is gone.
    async fn read(&self, state: Self::State) -> Result<Option<Self::State>, Error>;

    /// Changes the object from `prior` to what the plan describes.
    async fn update(
        &self,
        prior: Self::State,
        planned: Self::State,
        config: &Value,
    ) -> Result<Self::State, Failed<Self::State>>;

    /// Deletes the object.
    async fn delete(&self, state: Self::State) -> Result<(), Error>;

    /// The object `id` names, for `terraform import`; `None` when there is
    /// none. Default: import is not supported.
    async fn import(&self, id: &str) -> Result<Option<Self::State>, Error> {
        let _ = id;
        Err(Error::new("Import not supported").detail("this resource type cannot be imported"))
    }
}

/// A data source type, `data.PLUGIN_NAME` in configuration: it reads its
/// configuration (the model with its computed attributes null) and
/// answers it with them filled in.
#[async_trait]
pub trait DataSource: Send + Sync + 'static {
    /// The attributes and blocks.
    type Model: Model;

    /// Checks beyond the schema's, on configuration that may hold
    /// unknowns. Default: none.
    fn validate(&self, config: &Value) -> Vec<Error> {
        let _ = config;
        Vec::new()
    }

    /// Reads.
    async fn read(&self, config: Self::Model) -> Result<Self::Model, Error>;
}

// ---------------------------------------------------------------------
// Erased

#[async_trait]
pub(super) trait AnyFunction: Send + Sync {
    fn signature(&self) -> &FunctionSignature;
    async fn call(&self, arguments: &[Raw]) -> Result<(Value, Type), ErrorObject>;
}

#[async_trait]
pub(super) trait AnyResource: Send + Sync {
    fn ty(&self) -> &Type;
    fn block(&self) -> &Block;
    fn version(&self) -> u64;
    fn plans_itself(&self) -> bool;
    fn validate(&self, config: &Value) -> Vec<Error>;
    async fn plan(&self, prior: Value, proposed: Value, config: Value) -> Result<Plan, Error>;
    async fn apply(
        &self,
        prior: Value,
        planned: Value,
        config: Value,
    ) -> Result<Value, Failed<Value>>;
    async fn read(&self, state: Value) -> Result<Value, Error>;
    async fn import(&self, id: &str) -> Result<Value, Error>;
    async fn upgrade(&self, version: u64, json: String) -> Result<Value, Error>;
}

#[async_trait]
pub(super) trait AnyDataSource: Send + Sync {
    fn ty(&self) -> &Type;
    fn block(&self) -> &Block;
    fn validate(&self, config: &Value) -> Vec<Error>;
    async fn read(&self, config: Value) -> Result<Value, Error>;
}

/// A model's block, refused when Terraform would refuse it.
fn checked_block<M: Model>(reserved: &[&str]) -> Result<(Block, Type), String> {
    let block = M::block();
    block.check()?;
    let problems = block.reserved_names(reserved);
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    let ty = block.implied_type().map_err(|e| e.to_string())?;
    Ok((block, ty))
}

/// A value (a plan, a configuration) read into a model, its unknown parts
/// as nulls; what does not fit is an error at its path.
fn read_model<M: Model>(value: &Value) -> Result<M, Error> {
    let known;
    let value = if value.is_wholly_known() {
        value
    } else {
        known = value
            .clone()
            .transform(|_, v| {
                Ok(if v.is_known() {
                    v
                } else {
                    Value::null(v.ty().clone())
                })
            })
            .map_err(|e| {
                Error::new("Value does not fit the plugin's model").detail(e.to_string())
            })?;
        &known
    };
    ctywire::from_value(value).map_err(|e| {
        Error::new("Value does not fit the plugin's model")
            .detail(format!(
                "{}. The plugin's schema and its model disagree: this is a bug in the plugin.",
                e.message()
            ))
            .at(e.path().clone())
    })
}

/// A model written as a value of its block's type.
fn write_model<M: Model>(model: &M, ty: &Type) -> Result<Value, Error> {
    ctywire::to_value(model, ty).map_err(|e| {
        Error::new("Plugin returned a value its schema cannot hold")
            .detail(format!("{}. This is a bug in the plugin.", e.message()))
            .at(e.path().clone())
    })
}

fn optional<M: Model>(value: &Value) -> Result<Option<M>, Error> {
    if value.is_null() {
        return Ok(None);
    }
    read_model(value).map(Some)
}

struct TypedFunction<F> {
    function: F,
    signature: FunctionSignature,
    /// The parameters' names, variadic last: the Args model's fields.
    names: Vec<String>,
}

pub(super) fn function<F: Function>(
    name: &str,
    function: F,
) -> Result<Arc<dyn AnyFunction>, String> {
    if name.is_empty() {
        return Err("a function needs a name".into());
    }
    let (block, _) = checked_block::<F::Args>(&[])?;
    if !block.blocks.is_empty() {
        return Err("its arguments are attributes only, not blocks".into());
    }
    let names: Vec<String> = block.attributes.iter().map(|a| a.name.clone()).collect();
    for allowed in F::ALLOW_UNKNOWN_VALUES {
        if !names.iter().any(|n| n == allowed) {
            return Err(format!(
                "ALLOW_UNKNOWN_VALUES names {allowed:?}, which is no parameter"
            ));
        }
    }
    let mut parameters: Vec<Parameter> = block
        .attributes
        .iter()
        .map(|a| Parameter {
            name: a.name.clone(),
            ty: a.ty.clone(),
            description: Some(a.description.clone()).filter(|d| !d.is_empty()),
            is_nullable: !a.presence.is_required(),
            allow_unknown_values: F::ALLOW_UNKNOWN_VALUES.contains(&a.name.as_str()),
        })
        .collect();
    let variadic_parameter = match F::VARIADIC {
        None => None,
        Some(v) => {
            let last = parameters
                .pop()
                .filter(|p| p.name == v)
                .ok_or_else(|| format!("VARIADIC names {v:?}, which is not the last parameter"))?;
            let Type::List(element) = &last.ty else {
                return Err(format!(
                    "the variadic parameter {v:?} is a Vec, not {}",
                    last.ty
                ));
            };
            Some(Parameter {
                ty: (**element).clone(),
                ..last
            })
        }
    };
    let summary = function
        .summary()
        .map(str::to_string)
        .or_else(|| block.description.lines().next().map(str::to_string))
        .filter(|s| !s.is_empty());
    let signature = FunctionSignature {
        summary,
        description: Some(block.description.clone()).filter(|d| !d.is_empty()),
        deprecation_message: block.deprecation_message.clone(),
        parameters,
        variadic_parameter,
        return_type: F::Output::cty_type(),
    };
    Ok(Arc::new(TypedFunction {
        function,
        signature,
        names,
    }))
}

#[async_trait]
impl<F: Function> AnyFunction for TypedFunction<F> {
    fn signature(&self) -> &FunctionSignature {
        &self.signature
    }

    async fn call(&self, arguments: &[Raw]) -> Result<(Value, Type), ErrorObject> {
        let sig = &self.signature;
        let fixed = sig.parameters.len();
        let count_fits = match sig.variadic_parameter {
            None => arguments.len() == fixed,
            Some(_) => arguments.len() >= fixed,
        };
        if !count_fits {
            return Err(
                ErrorObject::new(code::INVALID_PARAMS, "Wrong number of arguments").with_detail(
                    format!(
                        "the function takes {fixed}{} arguments, {} given",
                        if sig.variadic_parameter.is_some() {
                            " or more"
                        } else {
                            ""
                        },
                        arguments.len()
                    ),
                ),
            );
        }
        let mut values = Vec::with_capacity(arguments.len());
        for (i, raw) in arguments.iter().enumerate() {
            // The count was checked: every argument has its parameter.
            let ty = sig.parameter_of(i).map_or(&Type::Dynamic, |p| &p.ty);
            let v = raw.decode(ty).map_err(|e| ErrorObject {
                function_argument: Some(i as u64),
                ..invalid_params(
                    e.under(PathStep::Index(i as u64))
                        .within(&Path::root().attr("arguments")),
                )
            })?;
            values.push(v);
        }
        let rest = values.split_off(fixed);
        let mut fields: Vec<(&str, Value)> =
            self.names.iter().map(String::as_str).zip(values).collect();
        if let Some(v) = &sig.variadic_parameter {
            let list = Value::list(v.ty.clone(), rest).map_err(invalid_params)?;
            fields.push((&v.name, list));
        }
        let args = ctywire::from_value::<F::Args>(&Value::object(fields)).map_err(|e| {
            let argument = match e.path().steps().first() {
                Some(PathStep::Attr(name)) => self.names.iter().position(|n| n == name),
                _ => None,
            };
            ErrorObject {
                function_argument: argument.map(|i| i.min(fixed) as u64),
                ..ErrorObject::new(code::REQUEST_FAILED, "Invalid argument")
                    .with_detail(e.to_string())
            }
        })?;
        let output = self.function.call(args).await.map_err(refused)?;
        let ty = F::Output::cty_type();
        let value = ctywire::to_value(&output, &ty).map_err(|e| {
            ErrorObject::new(code::INTERNAL_ERROR, "Internal error").with_detail(format!(
                "the function's result does not fit its type: {e}. This is a bug in the plugin."
            ))
        })?;
        Ok((value, ty))
    }
}

struct TypedResource<R> {
    resource: R,
    block: Block,
    ty: Type,
}

pub(super) fn resource<R: Resource>(
    name: &str,
    resource: R,
) -> Result<Arc<dyn AnyResource>, String> {
    if name.is_empty() {
        return Err("a resource type needs a name".into());
    }
    let (block, ty) = checked_block::<R::State>(RESERVED_IN_RESOURCES)?;
    Ok(Arc::new(TypedResource {
        resource,
        block,
        ty,
    }))
}

#[async_trait]
impl<R: Resource> AnyResource for TypedResource<R> {
    fn ty(&self) -> &Type {
        &self.ty
    }

    fn block(&self) -> &Block {
        &self.block
    }

    fn version(&self) -> u64 {
        R::VERSION
    }

    fn plans_itself(&self) -> bool {
        R::PLANS_ITSELF
    }

    fn validate(&self, config: &Value) -> Vec<Error> {
        self.resource.validate(config)
    }

    async fn plan(&self, prior: Value, proposed: Value, config: Value) -> Result<Plan, Error> {
        let prior = optional::<R::State>(&prior)?;
        self.resource.plan(prior, proposed, &config).await
    }

    async fn apply(
        &self,
        prior: Value,
        planned: Value,
        config: Value,
    ) -> Result<Value, Failed<Value>> {
        let prior = optional::<R::State>(&prior)?;
        let planned = optional::<R::State>(&planned)?;
        let done = match (prior, planned) {
            (None, None) => return Ok(Value::null(self.ty.clone())),
            (Some(prior), None) => {
                self.resource.delete(prior).await?;
                return Ok(Value::null(self.ty.clone()));
            }
            (None, Some(planned)) => self.resource.create(planned, &config).await,
            (Some(prior), Some(planned)) => self.resource.update(prior, planned, &config).await,
        };
        match done {
            Ok(state) => Ok(write_model(&state, &self.ty)?),
            Err(Failed { state, error }) => Err(Failed {
                state: state.map(|s| write_model(&s, &self.ty)).transpose()?,
                error,
            }),
        }
    }

    async fn read(&self, state: Value) -> Result<Value, Error> {
        let Some(state) = optional::<R::State>(&state)? else {
            return Ok(Value::null(self.ty.clone()));
        };
        match self.resource.read(state).await? {
            Some(s) => write_model(&s, &self.ty),
            None => Ok(Value::null(self.ty.clone())),
        }
    }

    async fn import(&self, id: &str) -> Result<Value, Error> {
        match self.resource.import(id).await? {
            Some(s) => write_model(&s, &self.ty),
            None => Ok(Value::null(self.ty.clone())),
        }
    }

    async fn upgrade(&self, version: u64, json: String) -> Result<Value, Error> {
        let stored = StoredState { version, json };
        let state = match version.cmp(&R::VERSION) {
            // The host reads these itself (§10); read all the same.
            std::cmp::Ordering::Equal => stored.decode::<R::State>()?,
            std::cmp::Ordering::Less => self.resource.upgrade(stored).await?,
            std::cmp::Ordering::Greater => {
                return Err(Error::new("Cannot upgrade state").detail(format!(
                    "the state was stored at schema version {version}, by a newer plugin than this one (version {})",
                    R::VERSION
                )))
            }
        };
        write_model(&state, &self.ty)
    }
}

struct TypedDataSource<D> {
    data_source: D,
    block: Block,
    ty: Type,
}

pub(super) fn data_source<D: DataSource>(
    name: &str,
    data_source: D,
) -> Result<Arc<dyn AnyDataSource>, String> {
    if name.is_empty() {
        return Err("a data source type needs a name".into());
    }
    let (block, ty) = checked_block::<D::Model>(RESERVED_IN_RESOURCES)?;
    Ok(Arc::new(TypedDataSource {
        data_source,
        block,
        ty,
    }))
}

#[async_trait]
impl<D: DataSource> AnyDataSource for TypedDataSource<D> {
    fn ty(&self) -> &Type {
        &self.ty
    }

    fn block(&self) -> &Block {
        &self.block
    }

    fn validate(&self, config: &Value) -> Vec<Error> {
        self.data_source.validate(config)
    }

    async fn read(&self, config: Value) -> Result<Value, Error> {
        let config = read_model::<D::Model>(&config)?;
        let state = self.data_source.read(config).await?;
        write_model(&state, &self.ty)
    }
}
