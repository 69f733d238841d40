// The crate documentation is its README, the page crates.io shows: one text,
// and its examples run as doctests.
#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod actions;
mod aliases;
mod backend;
mod client;
mod config;
mod core;
mod data;
mod ephemeral;
mod eval;
mod functions;
mod instances;
mod lifecycle;
mod moved;
mod order;
mod outputs;
mod query;
mod show;
mod state_store;
mod steps;
mod syntax;
#[cfg(test)]
mod tests;
mod triggers;
mod unit;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use ctywire::{Path, Value};
use ctywire_tfplugin6::pb::tfplugin6::provider_server::Provider as Service;
use ctywire_tfplugin6::{
    Diagnostic, Diagnostics, InvokeActionStream, ListResourceStream, ProviderService,
};
use serde_json::{json, Map, Value as Json};

use self::client::{Client, Schemas};
use self::config::{
    decode_body, ApplyScope, Decoded, PlanScope, Scope, UnknownScope, VariablesScope,
    META_ARGUMENTS,
};
pub use self::core::ChangeAction;
use self::core::{is_data, type_of, Change, Core, Object, Stored};
use self::data::{DataPlan, DataValues};
pub use self::eval::FUNCTIONS;
use self::instances::{
    by_resource, instance_address, key_of, resource_of, InstanceKey, Repeated, Repetition,
};
use self::lifecycle::{check_prevent_destroy, Lifecycle};
use self::moved::{Notes, Statements};
use self::order::depth_in;
pub use self::show::{Listed, Plan, State};
pub use self::state_store::{
    InProcess, ReadChunk, StateStoreClient, DEFAULT_CHUNK_SIZE, MAX_CHUNK_SIZE,
};
pub use self::steps::Step;
use self::syntax::{Document, Output, Variable};
pub use self::triggers::Triggered;
pub use self::unit::{Invoked, Opened, Renewed, UnitClient};

/// An in-process Terraform core holding one provider, a configuration and
/// the state. See the [crate documentation](crate).
pub struct Harness {
    client: Client,
    schemas: Schemas,
    provider: String,
    provider_type: String,
    provider_config: Json,
    /// The provider configuration's value last sent in
    /// `ConfigureProvider`.
    configured: Option<Value>,
    resources: BTreeMap<String, Body>,
    /// `action` blocks' bodies, by address (`action.TYPE.NAME`).
    actions: BTreeMap<String, Json>,
    variables: BTreeMap<String, Variable>,
    /// Values the test gave input variables (`-var`).
    variable_values: BTreeMap<String, Value>,
    locals: eval::Locals,
    outputs: BTreeMap<String, Output>,
    /// The `moved` and `import` blocks.
    statements: Statements,
    /// The outputs' values in state, and whether each is sensitive.
    output_values: BTreeMap<String, (Value, bool)>,
    after_apply: BTreeMap<String, Json>,
    state: BTreeMap<String, Stored>,
    /// The data resources' values in state.
    data_state: DataValues,
    serial: u64,
    warnings: Diagnostics,
    /// The ephemeral resources of the operation under way.
    ephemerals: ephemeral::Sessions,
    /// Starts another instance of the provider (`with_aliases`).
    start: Option<aliases::Start>,
    /// `provider` blocks with an `alias`, by alias.
    provider_aliases: aliases::Aliases,
    /// Their provider instances.
    instances: BTreeMap<String, aliases::Instance>,
    /// The state store the state is kept in ([`state_store`](Self::state_store)).
    backend: Option<backend::Backend>,
    /// The actions the last apply's resources triggered (`triggered`).
    triggered: std::sync::Mutex<Vec<Triggered>>,
}

/// A resource's configuration: Terraform JSON syntax, or a value.
#[derive(Clone, Debug)]
enum Body {
    Json(Json),
    Value(Value),
}

impl Body {
    fn json(&self) -> Option<&Json> {
        match self {
            Body::Json(j) => Some(j),
            Body::Value(_) => None,
        }
    }
}

/// What a plan walk found.
struct Walk {
    changes: Vec<Change>,
    /// The refreshed (and imported) objects, by instance address.
    prior: BTreeMap<String, Object>,
    data: DataValues,
    /// The configured managed instances.
    configured: BTreeSet<String>,
    notes: Notes,
    /// The actions the changes trigger (`action_trigger`).
    invocations: Vec<triggers::Invocation>,
}

/// What a command plans.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Normal,
    Destroy,
    RefreshOnly,
}

impl Harness {
    /// A harness for `provider`, served in-process by tfplugin6's
    /// [`ProviderService`]; its schemas are read at once
    /// (`GetProviderSchema`). The provider's address is
    /// `registry.terraform.io/hashicorp/TYPE`, TYPE taken from its
    /// resource types' prefix; [`source`](Self::source) sets another.
    pub fn new<P: ctywire_tfplugin6::Provider>(provider: P) -> Result<Harness, Diagnostics> {
        Harness::from_service(ProviderService::new(provider))
    }

    /// A harness for any implementation of the protocol's generated
    /// service trait (a provider served some other way).
    pub fn from_service(
        service: impl Service<
            ListResourceStream = ListResourceStream,
            InvokeActionStream = InvokeActionStream,
            ReadStateBytesStream = ctywire_tfplugin6::ReadStateBytesStream,
        >,
    ) -> Result<Harness, Diagnostics> {
        let client = Client::new(Arc::new(service))?;
        let schemas = client.schemas()?;
        let provider_type = schemas
            .resources
            .keys()
            .next()
            .map(|t| type_of_provider(t).to_owned())
            .unwrap_or_else(|| "provider".to_owned());
        Ok(Harness {
            provider: format!("registry.terraform.io/hashicorp/{provider_type}"),
            provider_type,
            client,
            schemas,
            provider_config: json!({}),
            configured: None,
            resources: BTreeMap::new(),
            actions: BTreeMap::new(),
            variables: BTreeMap::new(),
            variable_values: BTreeMap::new(),
            locals: BTreeMap::new(),
            outputs: BTreeMap::new(),
            statements: Statements::default(),
            output_values: BTreeMap::new(),
            after_apply: BTreeMap::new(),
            state: BTreeMap::new(),
            data_state: BTreeMap::new(),
            serial: 0,
            warnings: Diagnostics::new(),
            ephemerals: Default::default(),
            start: None,
            provider_aliases: BTreeMap::new(),
            instances: BTreeMap::new(),
            backend: None,
            triggered: Default::default(),
        })
    }

    /// The provider's source address as `required_providers` writes it
    /// (`"ctywire/kv"`, or in full `"registry.terraform.io/ctywire/kv"`);
    /// messages and `provider_name` show it. The provider's local name
    /// (its `provider` block's label) stays its resource types' prefix.
    pub fn source(mut self, source: &str) -> Self {
        self.provider = match source.split('/').count() {
            2 => format!("registry.terraform.io/{source}"),
            _ => source.to_owned(),
        };
        self
    }

    /// The harness speaks as Terraform 1.16 (protocol 6.11) instead of
    /// 1.11: it tells the provider it allows computed blocks and stores
    /// planned private data, plans with a computed block's empty
    /// configuration as null (core's `PrepareComputedBlocks`), and hands
    /// the private data a plan answered back on the plan before apply
    /// (`planned_private`). Everything else is 1.11's.
    pub fn terraform_1_16(mut self) -> Self {
        self.client.speaks = client::Speaks::Terraform1_16;
        self
    }

    /// The provider's address, as messages print it.
    pub fn provider_address(&self) -> &str {
        &self.provider
    }

    /// The whole configuration, as a `main.tf.json` document: `provider`
    /// (`{"kv": {...}}`), `resource` (`{"kv_entry": {"a": {...}}}`),
    /// `data` (the same shape, for data sources), `variable`, `locals`,
    /// `output`, `moved` and `import` (`[{"from": "TYPE.NAME", "to": ...}]`,
    /// `[{"to": "TYPE.NAME", "id": "..."}]`);
    /// a `terraform` block is allowed and not read. It replaces the
    /// configuration held so far.
    pub fn config(&mut self, document: Json) -> Result<&mut Self, Diagnostics> {
        let Json::Object(doc) = document else {
            return Err(Diagnostics::error("a configuration is a JSON object"));
        };
        let mut provider_config = json!({});
        let mut provider_aliases = aliases::Aliases::new();
        let mut resources = BTreeMap::new();
        let mut declarations = Document::default();
        for (key, v) in doc {
            match key.as_str() {
                "terraform" | "//" => {}
                "action" => syntax::json_actions(&v, &mut declarations)?,
                "variable" | "locals" | "output" => {
                    syntax::json_declarations(&key, &v, &mut declarations)?
                }
                "moved" | "import" => {
                    let blocks = match v {
                        Json::Array(a) => a,
                        one => vec![one],
                    };
                    for b in blocks {
                        let arg = |name: &str| match b.get(name).and_then(Json::as_str) {
                            Some(t) => syntax::address_text(&key, name, t),
                            None => Err(Diagnostics::error(format!(
                                "{key} block: Missing required argument {name:?}"
                            ))),
                        };
                        if key == "moved" {
                            declarations
                                .statements
                                .moved
                                .push((arg("from")?, arg("to")?));
                        } else {
                            let id = b.get("id").cloned().ok_or_else(|| {
                                Diagnostics::error("import block: Missing required argument \"id\"")
                            })?;
                            declarations.statements.imports.push((arg("to")?, id));
                        }
                    }
                }
                "provider" => {
                    let body = v.get(&self.provider_type).cloned().ok_or_else(|| {
                        Diagnostics::error(format!(
                            "the configuration's provider block names no {:?} provider",
                            self.provider_type
                        ))
                    })?;
                    let bodies = match body {
                        Json::Array(a) => a,
                        b => vec![b],
                    };
                    let (default, aliased) = aliases::split_providers(&self.provider_type, bodies)?;
                    provider_config = default.unwrap_or_else(|| json!({}));
                    provider_aliases = aliased;
                }
                "resource" | "data" | "ephemeral" => {
                    let Json::Object(types) = v else {
                        return Err(Diagnostics::error(format!(
                            "{key:?} is an object of resource types"
                        )));
                    };
                    let mode = match key.as_str() {
                        "data" => core::DATA,
                        "ephemeral" => ephemeral::EPHEMERAL,
                        _ => "",
                    };
                    for (ty, names) in types {
                        let Json::Object(names) = names else {
                            return Err(Diagnostics::error(format!(
                                "resource type {ty:?}: an object of resource names"
                            )));
                        };
                        for (name, body) in names {
                            let body = match body {
                                Json::Array(mut a) if a.len() == 1 => a.remove(0),
                                b => b,
                            };
                            resources.insert(format!("{mode}{ty}.{name}"), body);
                        }
                    }
                }
                other => {
                    return Err(Diagnostics::error(format!(
                        "the harness does not support {other:?} blocks yet"
                    )))
                }
            }
        }
        declarations.provider = Some(provider_config);
        declarations.provider_aliases = provider_aliases;
        declarations.resources = resources;
        self.set_document(declarations)
    }

    /// The whole configuration as the text of a `main.tf` (HCL native
    /// syntax): `provider`, `resource`, `data`, `variable`, `locals`,
    /// `output`, `moved` and `import` blocks; a `terraform` block is allowed and not read. Expressions
    /// are evaluated as Terraform evaluates them, with the functions in
    /// [`FUNCTIONS`] and the provider's own (`provider::NAME::fn(...)`);
    /// anything else the harness does not evaluate is an error naming
    /// it. It replaces the configuration held so far.
    pub fn config_hcl(&mut self, text: &str) -> Result<&mut Self, Diagnostics> {
        let doc = syntax::parse_hcl(text, &self.provider_type)?;
        self.set_document(doc)
    }

    fn set_document(&mut self, doc: Document) -> Result<&mut Self, Diagnostics> {
        for address in doc.resources.keys() {
            self.check_resource_address(address)?;
        }
        self.provider_config = doc.provider.unwrap_or_else(|| json!({}));
        self.resources = doc
            .resources
            .into_iter()
            .map(|(a, b)| (a, Body::Json(b)))
            .collect();
        self.variables = doc.variables;
        self.locals = doc.locals;
        self.outputs = doc.outputs;
        self.actions = doc.actions;
        self.provider_aliases = doc.provider_aliases;
        self.statements = doc.statements;
        Ok(self)
    }

    /// Gives the input variable `name` a value, as `-var` does (JSON read
    /// as data: strings are not templates). It is converted to the
    /// variable's type at plan.
    pub fn variable(&mut self, name: &str, value: Json) -> Result<&mut Self, Diagnostics> {
        let v = syntax::json_value(&value)?;
        self.variable_values.insert(name.to_owned(), v);
        Ok(self)
    }

    /// The provider block's body (Terraform JSON syntax, no references).
    pub fn provider_config(&mut self, body: Json) -> &mut Self {
        self.provider_config = body;
        self
    }

    /// Sets the body of the resource at `address` (`TYPE.NAME`, or
    /// `data.TYPE.NAME` for a data source), in
    /// Terraform's JSON syntax: strings may refer to other resources
    /// (`"${kv_entry.a.id}"`) and to [`known_after_apply`](Self::known_after_apply)
    /// values; `count`, `for_each`, `depends_on` and `lifecycle` are read
    /// as core reads them.
    pub fn resource(&mut self, address: &str, body: Json) -> Result<&mut Self, Diagnostics> {
        self.check_resource_address(address)?;
        self.resources.insert(address.to_owned(), Body::Json(body));
        Ok(self)
    }

    /// Sets the body of the resource at `address` from a value of its
    /// schema's type (or one that converts to it), wholly known: as
    /// core's decoder would produce it from a body (unset attributes null,
    /// unset list/set/map blocks empty).
    pub fn resource_value(
        &mut self,
        address: &str,
        value: Value,
    ) -> Result<&mut Self, Diagnostics> {
        self.check_resource_address(address)?;
        let ty = self.core().schema_of(address)?.ty.clone();
        let value = value.convert(&ty)?;
        if !value.is_wholly_known() {
            return Err(Diagnostics::error(
                "a value body must be wholly known: write a value unknown until apply as \"${after_apply.NAME}\" in a JSON body",
            ));
        }
        self.resources
            .insert(address.to_owned(), Body::Value(value));
        Ok(self)
    }

    /// Removes a resource from the configuration: the next plan destroys
    /// its object.
    pub fn remove_resource(&mut self, address: &str) -> &mut Self {
        self.resources.remove(address);
        self
    }

    /// A value the configuration can use as `"${after_apply.NAME}"`:
    /// unknown while planning, `value` at apply (as a value computed by
    /// a resource outside this provider would be).
    pub fn known_after_apply(&mut self, name: &str, value: Json) -> &mut Self {
        self.after_apply.insert(name.to_owned(), value);
        self
    }

    /// Warnings the provider gave, in the order they came.
    pub fn warnings(&self) -> &Diagnostics {
        &self.warnings
    }

    /// `terraform validate`: every resource's configuration decoded (with
    /// references unknown) and sent to `ValidateResourceConfig`, and the
    /// provider's to `ValidateProviderConfig`.
    pub fn validate(&mut self) -> Result<(), Diagnostics> {
        let (provider_ty, provider_value) = self.provider_value()?;
        let d = self
            .client
            .validate_provider_config(&provider_value, &provider_ty)?;
        self.take(d)?;
        self.validate_resources()
    }

    /// `terraform plan`: refreshes every object in state, plans every
    /// configured resource and destroys what is no longer configured.
    /// The state is not changed; the plan can be applied with
    /// [`apply_plan`](Self::apply_plan).
    pub fn plan(&mut self) -> Result<Plan, Diagnostics> {
        self.with_state_lock("OperationTypePlan", |h| h.plan_mode(Mode::Normal))
    }

    /// `terraform apply -auto-approve`: [`plan`](Self::plan), then
    /// [`apply_plan`](Self::apply_plan).
    pub fn apply(&mut self) -> Result<State, Diagnostics> {
        self.plan_and_apply(Mode::Normal)
    }

    /// `terraform plan -destroy` and its apply: every object refreshed,
    /// then destroyed.
    pub fn destroy(&mut self) -> Result<State, Diagnostics> {
        self.plan_and_apply(Mode::Destroy)
    }

    /// `terraform plan -destroy` alone.
    pub fn plan_destroy(&mut self) -> Result<Plan, Diagnostics> {
        self.with_state_lock("OperationTypePlan", |h| h.plan_mode(Mode::Destroy))
    }

    /// `terraform apply -refresh-only -auto-approve`: every object read
    /// again (`ReadResource`); what the provider no longer finds leaves
    /// the state.
    pub fn refresh(&mut self) -> Result<State, Diagnostics> {
        self.plan_and_apply(Mode::RefreshOnly)
    }

    /// A plan and its apply, as `terraform apply` runs them: under one
    /// hold of the state's lock, from before the plan to after the apply.
    fn plan_and_apply(&mut self, mode: Mode) -> Result<State, Diagnostics> {
        self.with_state_lock("OperationTypeApply", |h| {
            let plan = h.plan_mode(mode)?;
            h.apply_plan(&plan)
        })
    }

    /// `terraform import ADDRESS ID`: `ImportResourceState`, then a
    /// refresh of the object, saved at `address` (which must be
    /// configured and not yet in state).
    pub fn import(&mut self, address: &str, id: &str) -> Result<State, Diagnostics> {
        // `terraform import` locks as an operation of no type.
        self.with_state_lock("OperationTypeInvalid", |h| h.import_with(address, id, None))
    }

    fn import_with(
        &mut self,
        address: &str,
        id: &str,
        identity: Option<Value>,
    ) -> Result<State, Diagnostics> {
        self.check_address(address)?;
        if !self.resources.contains_key(resource_of(address)) {
            return Err(Diagnostic::error("Import to non-existent resource address")
                .with_detail(format!("The resource {address} is not in the configuration: add a resource block for it first."))
                .into());
        }
        if self.state.contains_key(address) {
            return Err(Diagnostic::error("Resource already managed by Terraform")
                .with_detail(format!("Terraform is already managing a remote object for {address}. To import to this address you must first remove the existing object from the state."))
                .into());
        }
        self.prepare()?;
        let mut warnings = Diagnostics::new();
        let result = (self.core_for(address))
            .and_then(|core| core.import(address, id, identity.as_ref(), &mut warnings));
        self.warnings.extend(warnings);
        let obj = result?;
        let mut stored = self.core().store(type_of(address), &obj)?;
        stored.provider_alias = self.configured_alias(address)?;
        self.state.insert(address.to_owned(), stored);
        self.serial += 1;
        self.state()
    }

    /// An `import` block with `identity` (protocol 6.9, Terraform 1.12):
    /// `ImportResourceState` with the identity (an object of the resource
    /// type's identity attributes, in Terraform's JSON syntax) and no id,
    /// then a refresh, saved at `address` as [`import`](Self::import) does.
    pub fn import_identity(&mut self, address: &str, identity: Json) -> Result<State, Diagnostics> {
        let Some(it) = self.schemas.identities.get(type_of(address)) else {
            return Err(Diagnostic::error("Invalid import identity")
                .with_detail(format!(
                    "The resource type of {address} has no identity schema."
                ))
                .into());
        };
        let bytes = serde_json::to_vec(&identity)
            .map_err(|e| Diagnostics::error(format!("the identity is no JSON: {e}")))?;
        let value =
            ctywire::json::decode(&bytes, &it.ty).map_err(|e| {
                Diagnostics::from(Diagnostic::error("Invalid import identity").with_detail(
                    format!("The identity does not fit the identity schema: {e}"),
                ))
            })?;
        self.with_state_lock("OperationTypeInvalid", |h| {
            h.import_with(address, "", Some(value))
        })
    }

    /// A `list` block (protocol 6.10, `terraform query`): `config` is its
    /// `config` block in Terraform's JSON syntax, validated
    /// (`ValidateListResourceConfig`) and sent with `ListResource`; the
    /// results are read until the stream ends or `limit` of them came.
    pub fn list(
        &mut self,
        type_name: &str,
        config: Json,
        include_resource: bool,
        limit: i64,
    ) -> Result<Vec<Listed>, Diagnostics> {
        self.prepare()?;
        let (ls, _, _) = self.list_schemas(type_name)?;
        let decoded = decode_body(&ls.schema.block, &config, &UnknownScope, &[])?;
        self.list_value(type_name, &decoded.value, include_resource, limit)
    }

    /// A list resource type's schemas: its `config`'s, its resource
    /// type's and its identity's.
    fn list_schemas(
        &self,
        type_name: &str,
    ) -> Result<
        (
            client::ResourceSchema,
            client::ResourceSchema,
            client::IdentityType,
        ),
        Diagnostics,
    > {
        let (Some(ls), Some(rs), Some(it)) = (
            self.schemas.lists.get(type_name).cloned(),
            self.schemas.resources.get(type_name).cloned(),
            self.schemas.identities.get(type_name).cloned(),
        ) else {
            return Err(Diagnostic::error("Invalid list resource type")
                .with_detail(format!(
                    "The provider has no list resource {type_name:?} (with a resource type and identity of that name)."
                ))
                .into());
        };
        Ok((ls, rs, it))
    }

    /// `ValidateListResourceConfig` and `ListResource` with a decoded
    /// `config` block, the stream read until it ends or `limit` results
    /// came.
    fn list_value(
        &mut self,
        type_name: &str,
        config: &Value,
        include_resource: bool,
        limit: i64,
    ) -> Result<Vec<Listed>, Diagnostics> {
        let (ls, rs, it) = self.list_schemas(type_name)?;
        let d = self.client.validate_list(type_name, config, &ls.ty)?;
        self.take(d)?;
        let (listed, d) = self.client.list(
            type_name,
            config,
            include_resource,
            limit,
            (&ls.ty, &rs.ty, &it.ty),
        )?;
        self.take(d)?;
        Ok(listed
            .into_iter()
            .map(|l| Listed {
                identity_json: show::to_json(&l.identity),
                object_json: l.object.as_ref().map(show::to_json),
                display_name: l.display_name,
                identity: l.identity,
                object: l.object,
            })
            .collect())
    }

    /// The state as `terraform show -json` prints it. An object the
    /// provider's schema cannot read is an error, not an object left out
    /// (a state that looks empty must be empty).
    pub fn state(&self) -> Result<State, Diagnostics> {
        // Data resources first (`addrs.Resource.Less`), as core's
        // read-at-plan values kept with their marks.
        let mut resources = Vec::new();
        for (address, (value, marks)) in &self.data_state {
            let rs = self.core().schema_of(address)?;
            let mut r = self.address_json(address);
            r.insert("schema_version".into(), json!(rs.schema.version));
            show::insert_values(&mut r, value, marks);
            resources.push(Json::Object(r));
        }
        for (address, stored) in &self.state {
            let unreadable = |why: String| {
                Diagnostics::from(
                    Diagnostic::error("Invalid resource instance data in state").with_detail(
                        format!("The object of {address} in state cannot be read: {why}."),
                    ),
                )
            };
            let rs = (self.schemas.resources.get(&stored.type_name)).ok_or_else(|| {
                unreadable(format!(
                    "the provider has no resource type {:?}",
                    stored.type_name
                ))
            })?;
            let value = ctywire::json::decode(&stored.attrs_json, &rs.ty)
                .map_err(|e| unreadable(e.to_string()))?;
            let mut r = self.address_json(address);
            r.insert("schema_version".into(), json!(stored.schema_version));
            let mut marks = stored.sensitive.clone();
            marks.extend(core::sensitive_paths(&rs.schema.block, &value));
            show::insert_values(&mut r, &value, &marks);
            if !stored.dependencies.is_empty() {
                r.insert("depends_on".into(), json!(stored.dependencies));
            }
            if stored.tainted {
                r.insert("tainted".into(), json!(true));
            }
            // Terraform 1.12's jsonstate: the identity and its version.
            let identity =
                (stored.identity.as_ref()).zip(self.schemas.identities.get(&stored.type_name));
            if let Some(((json, version), it)) = identity {
                let v = ctywire::json::decode(json, &it.ty)
                    .map_err(|e| unreadable(format!("its identity: {e}")))?;
                r.insert("identity_schema_version".into(), json!(version));
                r.insert("identity".into(), show::to_tagged(&v));
            }
            resources.push(Json::Object(r));
        }
        let mut values = json!({ "root_module": { "resources": resources } });
        if let Some(o) = outputs::outputs_json(&self.output_values) {
            values["outputs"] = o;
        }
        let tagged = json!({ "values": values });
        Ok(State {
            text: show::exact_text(&tagged),
            json: show::plain(tagged),
        })
    }

    /// `terraform apply PLANFILE`: re-plans each change with what is known
    /// by then, checks the new plan against the saved one, applies it and
    /// checks the result. A plan made before the state last changed is
    /// refused, as Terraform refuses a stale plan file. The state keeps
    /// what was applied before an error.
    pub fn apply_plan(&mut self, plan: &Plan) -> Result<State, Diagnostics> {
        self.with_state_lock("OperationTypeApply", |h| h.apply_plan_locked(plan))
    }

    fn apply_plan_locked(&mut self, plan: &Plan) -> Result<State, Diagnostics> {
        if plan.serial != self.serial {
            return Err(Diagnostic::error("Saved plan is stale")
                .with_detail("The given plan file can no longer be applied because the state was changed by another operation after the plan was created.")
                .into());
        }
        self.prepare()?;
        // The refreshed objects become the state, as core saves them.
        let mut working: BTreeMap<String, Stored> = BTreeMap::new();
        for (address, obj) in &plan.prior {
            let mut stored = self.core().store(type_of(address), obj)?;
            // A configured object's configuration is its resource's (the
            // state may hold it under the address it was moved from).
            stored.provider_alias = self.alias_of(address)?;
            working.insert(address.clone(), stored);
        }
        let mut data = plan.data.clone();
        let mut warnings = Diagnostics::new();
        if let Ok(mut log) = self.triggered.lock() {
            log.clear();
        }
        let mut result = self.apply_changes(plan, &mut working, &mut data, &mut warnings);
        match self.close_ephemerals() {
            Ok(w) => warnings.extend(w),
            Err(e) if result.is_ok() => result = Err(e),
            Err(_) => {}
        }
        self.warnings.extend(warnings);
        if result.is_ok() {
            // The outputs, from the applied objects.
            let values = if plan.destroy {
                Ok(BTreeMap::new())
            } else {
                self.evaluate_outputs(&ApplyScope {
                    harness: self,
                    working: &working,
                    data: &data,
                })
            };
            match values {
                // A null output is not kept in state.
                Ok(v) => {
                    self.output_values = v.into_iter().filter(|(_, (v, _))| !v.is_null()).collect()
                }
                Err(e) => result = Err(e),
            }
        }
        self.state = working;
        self.data_state = data;
        self.serial += 1;
        result?;
        self.state()
    }

    fn apply_changes(
        &self,
        plan: &Plan,
        working: &mut BTreeMap<String, Stored>,
        data: &mut DataValues,
        warnings: &mut Diagnostics,
    ) -> Result<(), Diagnostics> {
        // Deletes of objects no longer configured go first, dependents
        // before what they depend on.
        let mut deletes: Vec<&Change> = plan
            .changes
            .iter()
            .filter(|c| c.action == ChangeAction::Delete)
            .collect();
        deletes.sort_by_key(|c| std::cmp::Reverse(depth_in(&c.address, working)));
        for change in deletes {
            let current = match working.get(&change.address) {
                Some(s) => Some(
                    self.core_for(&change.address)?
                        .read_state(&change.address, s)?,
                ),
                None => None,
            };
            let (new, d) = self
                .core_for(&change.address)?
                .apply(current.as_ref(), change, None);
            self.save(working, &change.address, new, change, &d)?;
            split(d, warnings)?;
        }
        for resource in self.order()? {
            if ephemeral::is_ephemeral(&resource) {
                if !plan.destroy {
                    let scope = ApplyScope {
                        harness: self,
                        working,
                        data,
                    };
                    self.open_ephemerals(&resource, &scope, warnings)?;
                }
                continue;
            }
            let changes: Vec<&Change> = (plan.changes.iter())
                .filter(|c| resource_of(&c.address) == resource)
                .filter(|c| !matches!(c.action, ChangeAction::NoOp | ChangeAction::Delete))
                .collect();
            if changes.is_empty() {
                continue;
            }
            // The instances' repetition data, evaluated again with what is
            // known now (as the apply walk expands the resource again).
            let instances = self
                .expand(
                    &resource,
                    &ApplyScope {
                        harness: self,
                        working,
                        data,
                    },
                )?
                .instances();
            let lifecycle = self.lifecycle(&resource)?;
            for change in changes {
                let address = change.address.clone();
                let key = key_of(&address).map_err(Diagnostics::error)?;
                let rep = (instances.iter())
                    .find(|(k, _)| k.as_ref() == key.as_ref())
                    .map(|(_, r)| r.clone())
                    .unwrap_or_default();
                self.apply_instance(
                    change,
                    &address,
                    &rep,
                    &lifecycle,
                    &plan.invocations,
                    working,
                    data,
                    warnings,
                )?;
            }
        }
        Ok(())
    }

    /// One planned change of `address` applied (re-planned with what is
    /// known now, checked against the plan, applied and saved), the
    /// actions it triggers invoked before and after its apply.
    #[allow(clippy::too_many_arguments)]
    fn apply_instance(
        &self,
        change: &Change,
        address: &str,
        rep: &Repetition,
        lifecycle: &Lifecycle,
        invocations: &[triggers::Invocation],
        working: &mut BTreeMap<String, Stored>,
        data: &mut DataValues,
        warnings: &mut Diagnostics,
    ) -> Result<(), Diagnostics> {
        let address = address.to_owned();
        {
            // applyDataSource: the read the plan deferred, with what is
            // known now.
            if change.action == ChangeAction::Read {
                let scope = ApplyScope {
                    harness: self,
                    working,
                    data,
                };
                let decoded = self.decode(&address, &Repeated { inner: &scope, rep })?;
                let read = self.read_data(&address, &decoded, warnings)?;
                data.insert(address, read);
                return Ok(());
            }
            let type_name = type_of(&address);
            let mut deposed = None;
            match change.action {
                ChangeAction::DeleteThenCreate => {
                    // The destroy node: `Simplify(true)` of the replace.
                    let destroy = destroy_part(change);
                    let current = match working.get(&address) {
                        Some(s) => Some(self.core_for(&address)?.read_state(&address, s)?),
                        None => None,
                    };
                    let (new, d) = self
                        .core_for(&address)?
                        .apply(current.as_ref(), &destroy, None);
                    self.save(working, &address, new, &destroy, &d)?;
                    split(d, warnings)?;
                }
                ChangeAction::CreateThenDelete => deposed = working.remove(&address),
                _ => {}
            }
            // The apply node's before_* actions (a replace's destroy node
            // ran first), then its apply, then its after_* actions
            // (`NodeApplyableResourceInstance.managedResourceExecute`).
            self.invoke_action_triggers(
                invocations,
                lifecycle,
                &address,
                rep,
                true,
                working,
                data,
                warnings,
            )?;
            let decoded = self.decode(
                &address,
                &Repeated {
                    inner: &ApplyScope {
                        harness: self,
                        working,
                        data,
                    },
                    rep,
                },
            )?;
            let current = match working.get(&address) {
                Some(s) => Some(self.core_for(&address)?.read_state(&address, s)?),
                None => None,
            };
            let actual = self.core_for(&address)?.plan(
                &address,
                type_name,
                &decoded,
                current.as_ref(),
                Some(change),
                lifecycle,
                warnings,
            )?;
            split(self.core().check_planned_change(change, &actual), warnings)?;
            // `reducePlan`: the apply node of a replace creates.
            let reduced = if actual.action.is_replace() {
                Change {
                    action: ChangeAction::Create,
                    before: Value::null(actual.after.ty().clone()),
                    before_marks: Vec::new(),
                    ..actual
                }
            } else {
                actual
            };
            let (new, d) =
                self.core_for(&address)?
                    .apply(current.as_ref(), &reduced, Some(&decoded));
            self.save(working, &address, new, &reduced, &d)?;
            split(d, warnings)?;
            self.invoke_action_triggers(
                invocations,
                lifecycle,
                &address,
                rep,
                false,
                working,
                data,
                warnings,
            )?;
            if let Some(old) = deposed {
                // create_before_destroy: the deposed object goes last. A
                // provider that answers its delete with an object is
                // refused by `apply` (core keeps such an object deposed in
                // state; the harness keeps no deposed objects).
                let obj = self.core().read_state(&address, &old)?;
                let (_, d) =
                    self.core_for(&address)?
                        .apply(Some(&obj), &destroy_part(change), None);
                split(d, warnings)?;
            }
        }
        Ok(())
    }

    /// Writes an applied object to the working state, tainting a failed
    /// create (`maybeTainted`) and recording its dependencies.
    fn save(
        &self,
        working: &mut BTreeMap<String, Stored>,
        address: &str,
        new: Option<Object>,
        change: &Change,
        diags: &Diagnostics,
    ) -> Result<(), Diagnostics> {
        match new {
            None => {
                working.remove(address);
            }
            Some(mut obj) => {
                if diags.has_errors() && change.action == ChangeAction::Create {
                    obj.tainted = true;
                }
                obj.dependencies = self.dependencies(resource_of(address));
                let mut stored = self.core().store(type_of(address), &obj)?;
                stored.provider_alias = match self.resources.contains_key(resource_of(address)) {
                    true => self.configured_alias(address)?,
                    false => (working.get(address)).and_then(|s| s.provider_alias.clone()),
                };
                working.insert(address.to_owned(), stored);
            }
        }
        Ok(())
    }

    fn plan_mode(&mut self, mode: Mode) -> Result<Plan, Diagnostics> {
        self.prepare()?;
        if mode == Mode::Normal {
            self.validate_resources()?;
            self.forbid_ephemeral_outputs()?;
        }
        let order = self.order()?;
        let mut warnings = Diagnostics::new();
        let result = self.plan_walk(mode, &order, &mut warnings);
        // The walk's ephemeral resources are closed as it ends.
        let closed = self.close_ephemerals();
        self.warnings.extend(warnings);
        let Walk {
            changes,
            prior,
            data,
            configured,
            notes,
            invocations,
        } = result?;
        self.warnings.extend(closed?);
        // Outputs are planned with what the resources' plans say (with
        // the refreshed objects for the resources not planned).
        let new_outputs = match mode {
            Mode::Destroy => None,
            _ => {
                let mut planned: outputs::Planned = data.clone();
                for (address, obj) in &prior {
                    let rs = self.core().schema(type_of(address))?;
                    let mut marks = obj.marks.clone();
                    marks.extend(core::sensitive_paths(&rs.schema.block, &obj.value));
                    planned.insert(address.clone(), (obj.value.clone(), marks));
                }
                for c in &changes {
                    let rs = self.core().schema_of(&c.address)?;
                    let mut marks = c.after_marks.clone();
                    marks.extend(core::sensitive_paths(&rs.schema.block, &c.after));
                    planned.insert(c.address.clone(), (c.after.clone(), marks));
                }
                let planned = by_resource(self, &planned);
                Some(self.evaluate_outputs(&PlanScope {
                    harness: self,
                    planned: &planned,
                })?)
            }
        };
        let output_changes = self.output_changes(new_outputs.as_ref());
        let mut tagged = self.plan_json(&changes, &notes);
        if !output_changes.is_empty() {
            tagged["output_changes"] = outputs::output_changes_json(&output_changes);
        }
        if !invocations.is_empty() {
            tagged["action_invocations"] = triggers::invocations_json(self, &invocations);
        }
        Ok(Plan {
            changes,
            configured,
            prior,
            data,
            serial: self.serial,
            text: show::exact_text(&tagged),
            json: show::plain(tagged),
            destroy: mode == Mode::Destroy,
            invocations,
        })
    }

    fn plan_walk(
        &self,
        mode: Mode,
        order: &[String],
        warnings: &mut Diagnostics,
    ) -> Result<Walk, Diagnostics> {
        let core = self.core();
        let mut notes = Notes::default();
        let state = match mode {
            Mode::Normal => self.apply_moves(&self.state, &mut notes),
            _ => self.state.clone(),
        };
        let mut prior: BTreeMap<String, Object> = BTreeMap::new();
        for (address, stored) in &state {
            let obj = core.read_state(address, stored)?;
            if let Some(o) =
                (self.core_for(address)?).refresh(address, &stored.type_name, &obj, warnings)?
            {
                prior.insert(address.clone(), o);
            }
        }
        let mut changes = Vec::new();
        let mut data = DataValues::new();
        let mut configured = BTreeSet::new();
        let mut invocations = Vec::new();
        match mode {
            // Data resources are read again with the refreshed objects;
            // one whose read would wait for apply stays out of state.
            Mode::RefreshOnly => {
                // A resource with no object yet is unknown, as core's
                // evaluator answers for it.
                let mut instances: BTreeMap<String, (Value, Vec<Path>)> = (prior.iter())
                    .map(|(a, o)| (a.clone(), (o.value.clone(), o.marks.clone())))
                    .collect();
                for a in (order.iter()).filter(|a| !is_data(a) && !ephemeral::is_ephemeral(a)) {
                    if self.repetition_of(a).is_none() && !prior.contains_key(a) {
                        let unknown = Value::unknown(core.schema_of(a)?.ty.clone());
                        instances.insert(a.clone(), (unknown, Vec::new()));
                    }
                }
                let mut planned = by_resource(self, &instances);
                for address in (order.iter()).filter(|a| is_data(a) || ephemeral::is_ephemeral(a)) {
                    let scope = PlanScope {
                        harness: self,
                        planned: &planned,
                    };
                    if ephemeral::is_ephemeral(address) {
                        self.open_ephemerals(address, &scope, warnings)?;
                        continue;
                    }
                    let mut read = BTreeMap::new();
                    for (key, rep) in self.expand(address, &scope)?.instances() {
                        let instance = instance_address(address, key.as_ref());
                        let scope = Repeated {
                            inner: &scope,
                            rep: &rep,
                        };
                        if let DataPlan::Read(v, marks) =
                            self.plan_data(&instance, &scope, &changes, warnings)?
                        {
                            read.insert(instance, (v, marks));
                        }
                    }
                    let whole = by_resource(self, &read);
                    planned.extend(whole.into_iter().filter(|(a, _)| a == address));
                    data.extend(read);
                }
            }
            Mode::Destroy => {
                for (address, obj) in &prior {
                    let change = (self.core_for(address)?).plan_destroy(
                        address,
                        type_of(address),
                        Some(obj),
                        warnings,
                    )?;
                    if self.resources.contains_key(resource_of(address)) {
                        check_prevent_destroy(&self.lifecycle(resource_of(address))?, &change)?;
                    }
                    changes.push(change);
                }
            }
            Mode::Normal => {
                let mut planned: BTreeMap<String, (Value, Vec<Path>)> = BTreeMap::new();
                for address in order {
                    let scope = PlanScope {
                        harness: self,
                        planned: &planned,
                    };
                    if ephemeral::is_ephemeral(address) {
                        self.open_ephemerals(address, &scope, warnings)?;
                        continue;
                    }
                    if is_data(address) {
                        let mut instances = BTreeMap::new();
                        for (key, rep) in self.expand(address, &scope)?.instances() {
                            let instance = instance_address(address, key.as_ref());
                            let scope = Repeated {
                                inner: &scope,
                                rep: &rep,
                            };
                            let read = match self
                                .plan_data(&instance, &scope, &changes, warnings)?
                            {
                                DataPlan::Read(v, marks) => {
                                    data.insert(instance.clone(), (v.clone(), marks.clone()));
                                    (v, marks)
                                }
                                DataPlan::Deferred(change) => {
                                    let read = (change.after.clone(), change.after_marks.clone());
                                    changes.push(*change);
                                    read
                                }
                            };
                            instances.insert(instance, read);
                        }
                        planned.extend(
                            by_resource(self, &instances)
                                .into_iter()
                                .filter(|(a, _)| a == address),
                        );
                        continue;
                    }
                    let lifecycle = self.lifecycle(address)?;
                    let mut instances = BTreeMap::new();
                    for (key, rep) in self.expand(address, &scope)?.instances() {
                        let instance = instance_address(address, key.as_ref());
                        configured.insert(instance.clone());
                        let scope = Repeated {
                            inner: &scope,
                            rep: &rep,
                        };
                        let decoded = self.decode(&instance, &scope)?;
                        // An import block's target not yet in state is
                        // imported now; the apply saves it.
                        if !prior.contains_key(&instance) {
                            if let Some(id) = self.import_id(&instance)? {
                                let obj = (self.core_for(&instance)?)
                                    .import(&instance, &id, None, warnings)?;
                                prior.insert(instance.clone(), obj);
                                notes.importing.insert(instance.clone(), id);
                            }
                        }
                        let lifecycle = Lifecycle {
                            force_replace: self
                                .replace_triggered(&instance, &lifecycle, &rep, &changes)?,
                            ..lifecycle.clone()
                        };
                        let change = (self.core_for(&instance)?).plan(
                            &instance,
                            type_of(address),
                            &decoded,
                            prior.get(&instance),
                            None,
                            &lifecycle,
                            warnings,
                        )?;
                        check_prevent_destroy(&lifecycle, &change)?;
                        if !lifecycle.action_triggers.is_empty() {
                            let mut mine = instances.clone();
                            mine.insert(
                                instance.clone(),
                                (change.after.clone(), change.after_marks.clone()),
                            );
                            invocations.extend(self.plan_action_triggers(
                                &lifecycle.action_triggers,
                                &change,
                                &planned,
                                &mine,
                                &rep,
                                warnings,
                            )?);
                        }
                        instances
                            .insert(instance, (change.after.clone(), change.after_marks.clone()));
                        changes.push(change);
                    }
                    // The resource's instances no longer configured are
                    // planned with it, as core's expansion of a resource
                    // plans its orphans: what depends on the resource
                    // (a data source's depends_on) sees their deletes.
                    let orphans = (prior.iter())
                        .filter(|(a, _)| resource_of(a) == address && !configured.contains(*a));
                    for (orphan, obj) in orphans {
                        changes.push(self.plan_orphan(orphan, obj, &notes, warnings)?);
                    }
                    planned.extend(
                        by_resource(self, &instances)
                            .into_iter()
                            .filter(|(a, _)| a == address),
                    );
                }
                self.check_imports(&configured)?;
                self.validate_moves(&configured)?;
                // The objects of resources no longer configured.
                for (address, obj) in &prior {
                    if !self.resources.contains_key(resource_of(address)) {
                        changes.push(self.plan_orphan(address, obj, &notes, warnings)?);
                    }
                }
            }
        }
        Ok(Walk {
            changes,
            prior,
            data,
            configured,
            notes,
            invocations,
        })
    }

    /// NodePlannableResourceInstanceOrphan: an object no longer
    /// configured is destroyed (unless `prevent_destroy` forbids it), and
    /// the plan says why.
    fn plan_orphan(
        &self,
        address: &str,
        obj: &Object,
        notes: &Notes,
        warnings: &mut Diagnostics,
    ) -> Result<Change, Diagnostics> {
        let mut change = (self.core_for(address)?).plan_destroy(
            address,
            type_of(address),
            Some(obj),
            warnings,
        )?;
        if change.action == ChangeAction::Delete {
            change.action_reason = Some(self.delete_reason(address, notes));
        }
        if self.resources.contains_key(resource_of(address)) {
            check_prevent_destroy(&self.lifecycle(resource_of(address))?, &change)?;
        }
        Ok(change)
    }

    /// `NodePlannableResourceInstanceOrphan.deleteActionReason`.
    fn delete_reason(&self, address: &str, notes: &Notes) -> &'static str {
        let resource = resource_of(address);
        let Some(_) = self.resources.get(resource) else {
            return match notes.previous.contains_key(address) {
                true => "delete_because_no_move_target",
                false => "delete_because_no_resource_config",
            };
        };
        match (key_of(address), self.repetition_of(resource)) {
            (Ok(Some(InstanceKey::Int(_))), Some(("count", _))) => "delete_because_count_index",
            (Ok(Some(InstanceKey::Str(_))), Some(("for_each", _))) => "delete_because_each_key",
            _ => "delete_because_wrong_repetition",
        }
    }

    /// `terraform show -json PLANFILE`'s `resource_changes`.
    /// The plan's document, tagged (numbers exact; see `show::TAG`).
    fn plan_json(&self, changes: &[Change], notes: &Notes) -> Json {
        let mut out: Vec<Json> = Vec::new();
        let mut sorted: Vec<&Change> = changes.iter().collect();
        sorted.sort_by_key(|c| core::address_order(&c.address));
        for c in sorted {
            let Ok(rs) = self.core().schema_of(&c.address) else {
                continue;
            };
            let block = &rs.schema.block;
            let mut change = Map::new();
            change.insert("actions".into(), json!(c.action.actions()));
            // marshalResourceChange: marks of the change plus the schema's.
            change.insert("before".into(), show::to_tagged(&c.before));
            if let Some(after) = show::after(&c.after) {
                change.insert("after".into(), after);
            }
            change.insert("after_unknown".into(), show::after_unknown(&c.after));
            let mut bm = c.before_marks.clone();
            bm.extend(core::sensitive_paths(block, &c.before));
            change.insert(
                "before_sensitive".into(),
                show::sensitive_as_bool(&c.before, &bm),
            );
            let mut am = c.after_marks.clone();
            am.extend(core::sensitive_paths(block, &c.after));
            change.insert(
                "after_sensitive".into(),
                show::sensitive_as_bool(&c.after, &am),
            );
            if !c.required_replace.is_empty() {
                change.insert(
                    "replace_paths".into(),
                    Json::Array(c.required_replace.iter().map(show::path_json).collect()),
                );
            }
            if let Some(id) = notes.importing.get(&c.address) {
                change.insert("importing".into(), json!({ "id": id }));
            }
            let mut r = self.address_json(&c.address);
            if let Some(previous) = notes.previous.get(&c.address) {
                r.insert("previous_address".into(), json!(previous));
            }
            r.insert("change".into(), Json::Object(change));
            if let Some(reason) = c.action_reason {
                r.insert("action_reason".into(), json!(reason));
            }
            out.push(Json::Object(r));
        }
        json!({ "resource_changes": out })
    }

    /// How `show -json` names a resource instance: its address, mode,
    /// type, name, instance key (`index`) and provider.
    fn address_json(&self, address: &str) -> Map<String, Json> {
        let resource = resource_of(address);
        let (mode, rest) = match resource.strip_prefix(core::DATA) {
            Some(rest) => ("data", rest),
            None => ("managed", resource),
        };
        let (type_name, name) = rest.split_once('.').unwrap_or((rest, ""));
        let mut r = Map::new();
        r.insert("address".into(), json!(address));
        r.insert("mode".into(), json!(mode));
        r.insert("type".into(), json!(type_name));
        r.insert("name".into(), json!(name));
        if let Ok(Some(key)) = key_of(address) {
            r.insert("index".into(), key.json());
        }
        r.insert("provider_name".into(), json!(self.provider));
        r
    }

    fn core(&self) -> Core<'_> {
        Core {
            client: &self.client,
            schemas: &self.schemas,
            provider: &self.provider,
            provider_type: &self.provider_type,
        }
    }

    /// A resource's address (configuration is per resource: its
    /// instances come from `count` or `for_each`).
    fn check_resource_address(&self, address: &str) -> Result<(), Diagnostics> {
        if address.contains('[') {
            return Err(Diagnostics::error(format!(
                "{address:?} is a resource instance's address: configure its resource (TYPE.NAME), with count or for_each"
            )));
        }
        self.check_address(address)
    }

    /// A resource's or a resource instance's address.
    fn check_address(&self, address: &str) -> Result<(), Diagnostics> {
        key_of(address).map_err(Diagnostics::error)?;
        let resource = resource_of(address);
        let ok = (resource.strip_prefix(core::DATA))
            .or_else(|| resource.strip_prefix(ephemeral::EPHEMERAL))
            .unwrap_or(resource)
            .split_once('.')
            .is_some_and(|(t, n)| !t.is_empty() && !n.is_empty() && !n.contains('.'));
        if !ok {
            return Err(Diagnostics::error(format!(
                "{address:?} is not a resource address: write TYPE.NAME, TYPE.NAME[KEY], data.TYPE.NAME or ephemeral.TYPE.NAME"
            )));
        }
        self.core().schema_of(address).map(|_| ())
    }

    /// Splits warnings off into the harness's list; errors are returned.
    fn take(&mut self, d: Diagnostics) -> Result<(), Diagnostics> {
        if d.has_errors() {
            return Err(d);
        }
        self.warnings.extend(d);
        Ok(())
    }

    fn provider_value(&self) -> Result<(ctywire::Type, Value), Diagnostics> {
        let p = &self.schemas.provider;
        let decoded = decode_body(
            &p.schema.block,
            &self.provider_config,
            &VariablesScope { harness: self },
            &["alias", "version"],
        )?;
        Ok((p.ty.clone(), decoded.value))
    }

    /// The input variables checked as core checks them before a plan:
    /// each declared one has a value of its type, each given one is
    /// declared.
    fn check_variables(&self) -> Result<(), Diagnostics> {
        for (name, v) in &self.variables {
            v.value(name, self.variable_values.get(name)).map_err(|e| {
                Diagnostics::from(Diagnostic::error(e.summary).with_detail(e.detail))
            })?;
        }
        if let Some(name) = self
            .variable_values
            .keys()
            .find(|n| !self.variables.contains_key(*n))
        {
            return Err(Diagnostic::error("Value for undeclared variable")
                .with_detail(format!("A variable named {name:?} was assigned a value, but the root module does not declare a variable of that name. To use this value, add a \"variable\" block to the configuration."))
                .into());
        }
        Ok(())
    }

    /// The provider validated and configured, once per configuration.
    fn prepare(&mut self) -> Result<(), Diagnostics> {
        self.check_variables()?;
        let (ty, value) = self.provider_value()?;
        if self.configured.as_ref() != Some(&value) {
            let d = self.client.validate_provider_config(&value, &ty)?;
            self.take(d)?;
            let d = self.client.configure(&value, &ty)?;
            self.take(d)?;
            self.configured = Some(value);
        }
        self.configure_aliases()
    }

    /// The validate walk: each body with its references unknown, sent to
    /// `ValidateResourceConfig` or `ValidateDataResourceConfig`.
    fn validate_resources(&mut self) -> Result<(), Diagnostics> {
        let addresses: Vec<String> = self.resources.keys().cloned().collect();
        for address in addresses {
            // core's validate walk: one evaluation, the repetition data
            // of a repeated resource unknown.
            let rep = match self.repetition_of(&address) {
                Some(("count", _)) => Repetition {
                    count_index: Repetition::unknown().count_index,
                    ..Repetition::default()
                },
                Some(_) => Repetition {
                    count_index: None,
                    ..Repetition::unknown()
                },
                None => Repetition::default(),
            };
            let scope = Repeated {
                inner: &UnknownScope,
                rep: &rep,
            };
            let decoded = self.decode(&address, &scope)?;
            let ty = &self.core().schema_of(&address)?.ty;
            let type_name = type_of(&address);
            if !ephemeral::is_ephemeral(&address) {
                let block = &self.core().schema_of(&address)?.schema.block;
                self.forbid_ephemeral_values(&address, block)?;
            }
            let d = if ephemeral::is_ephemeral(&address) {
                self.client_for(&address)?
                    .validate_ephemeral(type_name, &decoded.value, ty)?
            } else if is_data(&address) {
                self.client_for(&address)?
                    .validate_data_resource(type_name, &decoded.value, ty)?
            } else {
                self.client_for(&address)?
                    .validate_resource(type_name, &decoded.value, ty)?
            };
            self.take(d)?;
        }
        Ok(())
    }

    /// The configuration of the instance at `address` decoded in `scope`
    /// (its resource's body, with the instance's repetition data when
    /// `scope` has them).
    fn decode(&self, address: &str, scope: &dyn Scope) -> Result<Decoded, Diagnostics> {
        let rs = self.core().schema_of(address)?;
        match self.resources.get(resource_of(address)) {
            Some(Body::Json(body)) => {
                check_meta(address, body)?;
                self.configured_alias(address)?;
                decode_body(&rs.schema.block, body, scope, META_ARGUMENTS)
            }
            Some(Body::Value(value)) => Ok(Decoded {
                value: value.clone(),
                marks: Vec::new(),
            }),
            None => Err(Diagnostics::error(format!(
                "{address} is not in the configuration"
            ))),
        }
    }
}

/// A resource type's provider: the part before its first `_`.
fn type_of_provider(resource_type: &str) -> &str {
    resource_type.split('_').next().unwrap_or(resource_type)
}

/// Of Terraform's meta-arguments, `count`, `for_each`, `depends_on`,
/// `provider` (an alias, checked by `Harness::configured_alias`) and (on
/// managed resources) `lifecycle` are honoured; the others are refused
/// rather than ignored (`lifecycle`'s unknown keys by `Harness::lifecycle`).
fn check_meta(address: &str, body: &Json) -> Result<(), Diagnostics> {
    let mut refused = vec!["connection", "provisioner"];
    if is_data(address) || ephemeral::is_ephemeral(address) {
        refused.push("lifecycle");
    }
    for key in refused {
        if body.get(key).is_some() {
            return Err(Diagnostics::error(format!(
                "{address}: the harness does not support {key:?}"
            )));
        }
    }
    if body.get("count").is_some() && body.get("for_each").is_some() {
        return Err(Diagnostic::error("Invalid combination of \"count\" and \"for_each\"")
            .with_detail("The \"count\" and \"for_each\" meta-arguments are mutually-exclusive, only one should be used to be explicit about the number of resources to be created.")
            .into());
    }
    Ok(())
}

/// The destroy node's half of a replace (`Change.Simplify(true)`): a
/// delete of the prior object, with the replace's private data.
fn destroy_part(change: &Change) -> Change {
    Change {
        action: ChangeAction::Delete,
        after: Value::null(change.before.ty().clone()),
        after_marks: Vec::new(),
        required_replace: Vec::new(),
        action_reason: None,
        identity: None,
        ..change.clone()
    }
}

/// Errors stop; warnings are kept.
pub(crate) fn split(d: Diagnostics, warnings: &mut Diagnostics) -> Result<(), Diagnostics> {
    if d.has_errors() {
        return Err(d);
    }
    warnings.extend(d);
    Ok(())
}
