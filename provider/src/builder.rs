//! [`Builder`]: registers each of a provider's types under its name,
//! checking its schema, and builds the [`Framework`] that serves them.

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, RwLock};

use ctywire::schema::{IdentitySchema, Schema};
use ctywire::Type;
use ctywire_tfplugin6 as tf;
use ctywire_tfplugin6::{Diagnostics, FunctionError};

use crate::action::Action;
use crate::data_source::DataSource;
use crate::dynamic::{Dyn, DynDataSource, DynEphemeral, DynFunction, DynResource};
use crate::ephemeral::EphemeralResource;
use crate::erased::{
    AnyAction, AnyDataSource, AnyEphemeral, AnyFunction, AnyList, AnyResource, Typed,
};
use crate::function::Function;
use crate::list::ListResource;
use crate::model::{AttributeType, Model};
use crate::plan::Forms;
use crate::provider::{FnProvider, Provider};
use crate::resource::Resource;
use crate::schema::{Block, RESERVED_IN_PROVIDER, RESERVED_IN_RESOURCES};
use crate::server::Framework;
use crate::state_store::{AnyStateStore, StateStore, Store};

/// One registered type: its framework schema, the protocol's schema, the
/// type its values have, and its implementation.
pub(crate) struct Kind<T: ?Sized> {
    pub(crate) block: Block,
    /// The protocol forms of what `block` nests, which planning reads:
    /// made here once.
    pub(crate) forms: Forms,
    pub(crate) schema: Schema,
    pub(crate) ty: Type,
    pub(crate) imp: Box<T>,
    /// The implementing Rust type (a list resource and its resource are
    /// one type).
    pub(crate) rust: TypeId,
    /// A resource's identity schema and type (protocol 6.9), from its
    /// model's `identity` attributes.
    pub(crate) identity: Option<(IdentitySchema, Type)>,
    /// A typed resource's [`StateUpgraders`](crate::StateUpgraders),
    /// built once here: building them checks each prior model's schema,
    /// too much to repeat for every instance on every plan.
    pub(crate) upgraders: Option<Arc<dyn Any + Send + Sync>>,
}

pub(crate) struct FunctionKind {
    pub(crate) signature: tf::Function,
    pub(crate) parameter_names: Vec<String>,
    /// A typed function's variadic parameter's type: the trailing
    /// arguments are gathered into one list of it, its last field.
    pub(crate) variadic: Option<Type>,
    pub(crate) imp: Box<dyn AnyFunction>,
}

/// Registers a provider's resources, data sources, ephemeral resources and
/// functions by type name, then serves them (or builds the
/// [`tfplugin6::Provider`](ctywire_tfplugin6::Provider) for tests).
pub struct Builder<P: Provider> {
    provider: P,
    resources: BTreeMap<String, Kind<dyn AnyResource<P::Data>>>,
    data_sources: BTreeMap<String, Kind<dyn AnyDataSource<P::Data>>>,
    ephemerals: BTreeMap<String, Kind<dyn AnyEphemeral<P::Data>>>,
    lists: BTreeMap<String, Kind<dyn AnyList<P::Data>>>,
    actions: BTreeMap<String, Kind<dyn AnyAction<P::Data>>>,
    state_stores: BTreeMap<String, Kind<dyn AnyStateStore<P::Data>>>,
    functions: BTreeMap<String, FunctionKind>,
    problems: Vec<String>,
    plan_destroy: bool,
}

/// Why a provider cannot be served: its types' schemas, each problem
/// named by type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    problems: Vec<String>,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the provider's schema is not valid:")?;
        for p in &self.problems {
            write!(f, "\n  - {p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SchemaError {}

/// `M`'s schemas, or what is wrong with them. Only a resource (whose
/// identity version is `identity_version`) may have identity attributes.
fn kind_of<M: Model, T: ?Sized>(
    what: &str,
    version: i64,
    identity_version: Option<i64>,
    rust: TypeId,
    imp: Box<T>,
) -> Result<Kind<T>, String> {
    kind_of_block(what, M::block(), version, identity_version, rust, imp)
}

/// [`kind_of`] for a block known at runtime.
fn kind_of_block<T: ?Sized>(
    what: &str,
    block: Block,
    version: i64,
    identity_version: Option<i64>,
    rust: TypeId,
    imp: Box<T>,
) -> Result<Kind<T>, String> {
    block.check().map_err(|e| format!("{what}: {e}"))?;
    if let Some(a) = block.attributes.iter().find(|a| a.variadic) {
        return Err(format!(
            "{what}: .{}: only a function's last parameter can be variadic",
            a.name
        ));
    }
    let reserved = block.reserved_names(RESERVED_IN_RESOURCES);
    if !reserved.is_empty() {
        return Err(format!("{what}: {}", reserved.join("\n")));
    }
    let identity = match identity_version {
        Some(v) => block.identity_schema(v).map(|s| (s, block.identity_type())),
        None if block.attributes.iter().any(|a| a.identity.is_some()) => {
            return Err(format!(
                "{what}: identity attributes identify a managed resource; this is no resource"
            ))
        }
        None => None,
    };
    let schema = Schema {
        version,
        block: block.to_schema_block(),
    };
    let ty = schema
        .implied_type()
        .map_err(|e| format!("{what}: {}", e.message()))?;
    Ok(Kind {
        forms: Forms::of(&block),
        block,
        schema,
        ty,
        imp,
        rust,
        identity,
        upgraders: None,
    })
}

impl<C: Model, D: Send + Sync + 'static> Builder<FnProvider<C, D>> {
    /// A provider whose configuring is the plain `fn` `configure`: its
    /// argument is the provider block's model, its result the data every
    /// call receives ([`Context::data`](crate::Context::data)). For a provider whose
    /// configuring needs no `.await` and no cross-attribute checks;
    /// otherwise implement [`Provider`] and use [`new`](Builder::new).
    ///
    /// ```
    /// use ctywire_provider::{Builder, Model, Result};
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Serialize, Deserialize, Model)]
    /// struct Config {
    ///     greeting: String,
    /// }
    ///
    /// fn configure(config: Config) -> Result<String> {
    ///     Ok(config.greeting)
    /// }
    ///
    /// let provider = Builder::from_fn(configure).build();
    /// assert!(provider.is_ok());
    /// ```
    pub fn from_fn(configure: fn(C) -> Result<D, Diagnostics>) -> Self {
        Builder::new(FnProvider(configure))
    }
}

impl<P: Provider> Builder<P> {
    /// A provider with nothing registered yet.
    pub fn new(provider: P) -> Self {
        Builder {
            provider,
            resources: BTreeMap::new(),
            data_sources: BTreeMap::new(),
            ephemerals: BTreeMap::new(),
            lists: BTreeMap::new(),
            actions: BTreeMap::new(),
            state_stores: BTreeMap::new(),
            functions: BTreeMap::new(),
            problems: Vec::new(),
            plan_destroy: false,
        }
    }

    fn add<T: ?Sized>(
        problems: &mut Vec<String>,
        map: &mut BTreeMap<String, Kind<T>>,
        name: &str,
        kind: Result<Kind<T>, String>,
    ) {
        match kind {
            Ok(_) if map.contains_key(name) => {
                problems.push(format!("{name} is registered twice"));
            }
            Ok(kind) => {
                map.insert(name.to_owned(), kind);
            }
            Err(e) => problems.push(e),
        }
    }

    /// Serves `resource` as the managed resource type `name` (`kv_entry`).
    pub fn resource<R: Resource<P::Data>>(mut self, name: &str, resource: R) -> Self {
        let upgraders = resource.state_upgraders();
        let problems = upgraders.problems(R::VERSION);
        (self.problems).extend(problems.into_iter().map(|p| format!("{name}: {p}")));
        let imp: Box<dyn AnyResource<P::Data>> = Box::new(Typed(resource));
        let version = Some(R::IDENTITY_VERSION);
        let kind =
            kind_of::<R::Model, _>(name, R::VERSION, version, TypeId::of::<R>(), imp).map(|kind| {
                Kind {
                    upgraders: Some(Arc::new(upgraders)),
                    ..kind
                }
            });
        Self::add(&mut self.problems, &mut self.resources, name, kind);
        self
    }

    /// Serves `source` as the data source type `name`.
    pub fn data_source<S: DataSource<P::Data>>(mut self, name: &str, source: S) -> Self {
        let imp: Box<dyn AnyDataSource<P::Data>> = Box::new(Typed(source));
        let kind = kind_of::<S::Model, _>(name, 0, None, TypeId::of::<S>(), imp);
        Self::add(&mut self.problems, &mut self.data_sources, name, kind);
        self
    }

    /// Serves `resource` as the ephemeral resource type `name`.
    pub fn ephemeral_resource<E: EphemeralResource<P::Data>>(
        mut self,
        name: &str,
        resource: E,
    ) -> Self {
        let imp: Box<dyn AnyEphemeral<P::Data>> = Box::new(Typed(resource));
        let kind = kind_of::<E::Model, _>(name, 0, None, TypeId::of::<E>(), imp);
        Self::add(&mut self.problems, &mut self.ephemerals, name, kind);
        self
    }

    /// Serves `list` as the list resource type `name` (protocol 6.10): it
    /// lists the objects of the managed resource type registered as
    /// `name`, which must be the same Rust type and have an identity.
    pub fn list_resource<L: ListResource<P::Data>>(mut self, name: &str, list: L) -> Self {
        let imp: Box<dyn AnyList<P::Data>> = Box::new(Typed(list));
        let kind = kind_of::<L::Config, _>(name, 0, None, TypeId::of::<L>(), imp);
        Self::add(&mut self.problems, &mut self.lists, name, kind);
        self
    }

    /// Serves `action` as the action type `name` (protocol 6.10).
    pub fn action<A: Action<P::Data>>(mut self, name: &str, action: A) -> Self {
        let imp: Box<dyn AnyAction<P::Data>> = Box::new(Typed(action));
        let kind = kind_of::<A::Config, _>(name, 0, None, TypeId::of::<A>(), imp);
        Self::add(&mut self.problems, &mut self.actions, name, kind);
        self
    }

    /// Serves `store` as the state store type `name` (protocol 6.11,
    /// experimental in Terraform): a `state_store "name"` block in a
    /// `terraform` block keeps Terraform's state there.
    pub fn state_store<S: StateStore<P::Data>>(mut self, name: &str, store: S) -> Self {
        let imp: Box<dyn AnyStateStore<P::Data>> = Box::new(Store::new(store));
        let kind = kind_of::<S::Config, _>(name, 0, None, TypeId::of::<S>(), imp);
        Self::add(&mut self.problems, &mut self.state_stores, name, kind);
        self
    }

    /// Serves `store` as the state store type `name` with the schema
    /// `block` known only at runtime: its `Config` reads the whole
    /// configuration (a newtype over [`Value`](crate::Value) with `#[serde(transparent)]`).
    pub fn state_store_with_schema<S: StateStore<P::Data>>(
        mut self,
        name: &str,
        block: Block,
        store: S,
    ) -> Self {
        let imp: Box<dyn AnyStateStore<P::Data>> = Box::new(Store::new(store));
        let kind = kind_of_block(name, block, 0, None, TypeId::of::<S>(), imp);
        Self::add(&mut self.problems, &mut self.state_stores, name, kind);
        self
    }

    /// Serves `resource` as the managed resource type `name`, with the
    /// schema `block` (at schema version `version`) known only at runtime
    /// (see [`DynResource`]). It has no identity.
    pub fn resource_with_schema<R: DynResource<P::Data>>(
        mut self,
        name: &str,
        version: i64,
        block: Block,
        resource: R,
    ) -> Self {
        let imp: Box<dyn AnyResource<P::Data>> = Box::new(Dyn(resource));
        let kind = kind_of_block(name, block, version, None, TypeId::of::<R>(), imp);
        Self::add(&mut self.problems, &mut self.resources, name, kind);
        self
    }

    /// Serves `source` as the data source type `name`, with the schema
    /// `block` known only at runtime (see [`DynDataSource`]).
    pub fn data_source_with_schema<S: DynDataSource<P::Data>>(
        mut self,
        name: &str,
        block: Block,
        source: S,
    ) -> Self {
        let imp: Box<dyn AnyDataSource<P::Data>> = Box::new(Dyn(source));
        let kind = kind_of_block(name, block, 0, None, TypeId::of::<S>(), imp);
        Self::add(&mut self.problems, &mut self.data_sources, name, kind);
        self
    }

    /// Serves `resource` as the ephemeral resource type `name`, with the
    /// schema `block` known only at runtime (see [`DynEphemeral`]).
    pub fn ephemeral_resource_with_schema<E: DynEphemeral<P::Data>>(
        mut self,
        name: &str,
        block: Block,
        resource: E,
    ) -> Self {
        let imp: Box<dyn AnyEphemeral<P::Data>> = Box::new(Dyn(resource));
        let kind = kind_of_block(name, block, 0, None, TypeId::of::<E>(), imp);
        Self::add(&mut self.problems, &mut self.ephemerals, name, kind);
        self
    }

    /// Has Terraform plan destroys with the provider too (the server
    /// capability `plan_destroy`, Terraform 1.3 and later): each
    /// resource's `plan_destroy` hook ([`Resource::plan_destroy`],
    /// [`DynResource::plan_destroy`]) may then warn about a destroy, or
    /// stop it with an error, before anything is deleted. Without it
    /// Terraform plans destroys alone and the hooks are never asked.
    pub fn plan_destroy(mut self) -> Self {
        self.plan_destroy = true;
        self
    }

    /// Serves `function` as `provider::<provider>::name(...)`, with the
    /// signature `signature` known only at runtime (see [`DynFunction`]).
    pub fn function_with_signature<F: DynFunction>(
        mut self,
        name: &str,
        signature: tf::Function,
        function: F,
    ) -> Self {
        let parameter_names = signature
            .parameters
            .iter()
            .map(|p| p.name.clone())
            .collect();
        self.add_function(
            name,
            FunctionKind {
                signature,
                parameter_names,
                variadic: None,
                imp: Box::new(Dyn(function)),
            },
        );
        self
    }

    fn add_function(&mut self, name: &str, kind: FunctionKind) {
        if self.functions.contains_key(name) {
            self.problems
                .push(format!("function {name} is registered twice"));
        } else {
            self.functions.insert(name.to_owned(), kind);
        }
    }

    /// Serves the plain `fn` `f` as `provider::<provider>::name(...)`: its
    /// argument is the [`Function::Args`] model, its result the output.
    /// Terraform requires provider functions to be pure (the same
    /// arguments always give the same result, with no side effects), so
    /// most need no state, no provider data and no `.await`: a `fn` is
    /// all there is to write. A function that does need state implements
    /// [`Function`] and is served with [`function`](Self::function).
    pub fn pure_function<A, O>(self, name: &str, f: fn(A) -> Result<O, FunctionError>) -> Self
    where
        A: Model,
        O: serde::Serialize + AttributeType + Send + 'static,
    {
        self.function(name, crate::function::PureFn(f))
    }

    /// Serves `function` as `provider::<provider>::name(...)`.
    pub fn function<F: Function>(mut self, name: &str, function: F) -> Self {
        let args = F::Args::block();
        if let Err(e) = args.check() {
            self.problems.push(format!("function {name}: {e}"));
            return self;
        }
        if !args.blocks.is_empty() {
            self.problems.push(format!(
                "function {name}: its arguments are attributes only, not blocks"
            ));
            return self;
        }
        let (fixed, variadic) = match args.attributes.split_last() {
            Some((last, fixed)) if last.variadic => (fixed, Some(last)),
            _ => (&args.attributes[..], None),
        };
        if let Some(a) = fixed.iter().find(|a| a.variadic) {
            self.problems.push(format!(
                "function {name}: .{}: only the last parameter can be variadic",
                a.name
            ));
            return self;
        }
        let parameter = |a: &crate::schema::Attribute, ty: &Type| tf::Parameter {
            name: a.name.clone(),
            ty: ty.clone(),
            allow_null_value: !a.presence.is_required(),
            allow_unknown_values: false,
            description: a.description.clone(),
            description_kind: Default::default(),
        };
        let parameters = fixed.iter().map(|a| parameter(a, &a.ty)).collect();
        // Each trailing argument is one element of the variadic field's
        // list (Block::check has made sure it is a list).
        let variadic = variadic.and_then(|a| match &a.ty {
            Type::List(element) => Some(((**element).clone(), a)),
            _ => None,
        });
        let signature = tf::Function {
            parameters,
            variadic_parameter: variadic.as_ref().map(|(element, a)| {
                let mut p = parameter(a, element);
                // The elements of a `Vec<T>`: no nulls.
                p.allow_null_value = false;
                p
            }),
            return_type: F::Output::cty_type(),
            summary: match function.summary() {
                Some(summary) => summary.to_owned(),
                None => args.description.lines().next().unwrap_or("").to_owned(),
            },
            description: args.description.clone(),
            description_kind: Default::default(),
            deprecation_message: args.deprecation_message.clone().unwrap_or_default(),
        };
        let parameter_names = args.attributes.iter().map(|a| a.name.clone()).collect();
        self.add_function(
            name,
            FunctionKind {
                signature,
                parameter_names,
                variadic: variadic.map(|(element, _)| element),
                imp: Box::new(Typed(function)),
            },
        );
        self
    }

    /// The provider, ready to serve: every schema checked.
    pub fn build(self) -> Result<Framework<P>, SchemaError> {
        let mut problems = self.problems;
        for (name, list) in &self.lists {
            match self.resources.get(name) {
                None => problems.push(format!(
                    "list resource {name}: there is no resource {name} for it to list"
                )),
                Some(r) if r.rust != list.rust => problems.push(format!(
                    "list resource {name}: the resource {name} is another Rust type; register the same one for both"
                )),
                Some(r) if r.identity.is_none() => problems.push(format!(
                    "list resource {name}: the resource {name} has no identity (mark its identifying attributes #[model(identity)])"
                )),
                Some(_) => {}
            }
        }
        let config = P::Config::block();
        if let Err(e) = config.check() {
            problems.push(format!("the provider block: {e}"));
        }
        for r in config.reserved_names(RESERVED_IN_PROVIDER) {
            problems.push(format!("the provider block: {r}"));
        }
        let config_schema = Schema::new(config.to_schema_block());
        if let Err(e) = config_schema.implied_type() {
            problems.push(format!("the provider block: {}", e.message()));
        }
        if !problems.is_empty() {
            return Err(SchemaError { problems });
        }
        Ok(Framework {
            provider: self.provider,
            config_block: config,
            config_schema,
            resources: self.resources,
            data_sources: self.data_sources,
            ephemerals: self.ephemerals,
            lists: self.lists,
            actions: self.actions,
            state_stores: self.state_stores,
            functions: self.functions,
            plan_destroy: self.plan_destroy,
            data: RwLock::new(None),
            terraform_version: RwLock::new(String::new()),
        })
    }

    /// [`serve`](Self::serve) on a new tokio runtime, for a plain `main`.
    pub fn run(self) {
        match tokio::runtime::Runtime::new() {
            Ok(runtime) => runtime.block_on(self.serve()),
            Err(e) => {
                eprintln!("cannot start the async runtime: {e}");
                std::process::exit(1);
            }
        }
    }

    /// Serves the provider as Terraform launches it (go-plugin's handshake
    /// on stdout), logging to Terraform's log (`TF_LOG`). A schema problem
    /// is printed and the process exits with status 1.
    pub async fn serve(self) {
        match self.build() {
            Ok(framework) => framework.serve().await,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
    }
}
