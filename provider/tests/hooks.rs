//! The author's hooks through the model, and the plan rules declared on
//! its fields, as Terraform meets them through the framework's dispatch:
//! a typed `validate_model` (an unknown in an `Unknowable` field seen, in
//! any other deferring the check), a typed `modify_plan_model` that
//! changes a planned field and marks one by its typed path, each
//! `requires_replace(..)` condition, and a default taken from another
//! attribute. Modelled on terraform-provider-random's `random_password`.

use std::collections::BTreeMap;

use ctywire_provider::tfplugin6::{self as tf, Provider as _};
use ctywire_provider::{
    async_trait, Builder, Context, Diagnostic, Diagnostics, FnProvider, Framework, Model,
    ModelPlan, Path, Resource, Result, Type, Unknowable, Value,
};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Model)]
struct NoConfig {}

/// A generated password.
#[derive(Serialize, Deserialize, Model)]
struct Password {
    /// How many characters; a change replaces it only when it shrinks.
    #[model(requires_replace(if = shrinks))]
    length: Unknowable<u64>,
    /// Values whose change makes a new password, when not null.
    #[model(requires_replace(if_values_not_null))]
    keepers: Option<BTreeMap<String, Option<String>>>,
    /// The special characters to use; "" is the same as none.
    #[model(requires_replace(empty_as_null))]
    override_special: Option<String>,
    /// Whether to use special characters.
    special: Option<bool>,
    /// Whether to use digits (deprecated in random for `numeric`).
    #[model(optional, computed, default = true)]
    number: Option<bool>,
    /// Whether to use digits: `number`'s value unless set.
    #[model(optional, computed, default_from(number))]
    numeric: Option<bool>,
    /// What the plan hook says the password will be.
    #[model(computed)]
    summary: Unknowable<Option<String>>,
    /// The password; Unknowable, as the plan hook reads the plan, where it
    /// is unknown until created.
    #[model(computed, keep_state)]
    result: Unknowable<Option<String>>,
}

/// `length`'s condition: only a shorter password is a new one.
fn shrinks(prior: &Value, planned: &Value) -> bool {
    let length = |v: &Value| v.as_number().and_then(|n| n.to_u64());
    match (length(prior), length(planned)) {
        (Some(p), Some(n)) => n < p,
        // A length not known yet may be shorter.
        _ => true,
    }
}

/// `random_password`: the declarations alone, no hook (what they are
/// for); `hooked_password`: the same with the typed hooks (`hooks`).
struct Passwords {
    hooks: bool,
}

#[async_trait]
impl Resource<()> for Passwords {
    type Model = Password;

    async fn create(&self, _: &Context<()>, mut plan: Password) -> Result<Password> {
        let length = plan.length.known().copied().unwrap_or(0);
        plan.result = Unknowable::Known(Some("x".repeat(length as usize)));
        Ok(plan)
    }
    async fn read(&self, _: &Context<()>, state: Password) -> Result<Option<Password>> {
        Ok(Some(state))
    }
    async fn update(&self, _: &Context<()>, _: Password, plan: Password) -> Result<Password> {
        Ok(plan)
    }
    async fn delete(&self, _: &Context<()>, _: Password) -> Result<()> {
        Ok(())
    }

    fn validate_model(&self, config: Password) -> Diagnostics {
        let mut diags = Diagnostics::new();
        if !self.hooks {
            return diags;
        }
        if let Some(&n) = config.length.known() {
            if n < 4 {
                diags.push(
                    Diagnostic::error("Password too short")
                        .with_detail(format!("length is {n}; it must be 4 or more"))
                        .at(Password::field_paths().length),
                );
            }
        }
        diags
    }

    async fn modify_plan_model(
        &self,
        _: &Context<()>,
        plan: &mut ModelPlan<'_, Password>,
    ) -> Result<()> {
        if !self.hooks {
            return Ok(());
        }
        let mut planned = plan.planned()?;
        if let Some(n) = planned.length.known() {
            planned.summary = Unknowable::Known(Some(format!("{n} characters")));
        }
        // Turning special characters on makes a new password.
        if let Some(prior) = plan.prior()? {
            if prior.special == Some(false) && planned.special == Some(true) {
                plan.require_replace(Password::field_paths().special);
            }
        }
        plan.set_planned(&planned)
    }
}

/// The provider: nothing to configure.
type Random = Framework<FnProvider<NoConfig, ()>>;

async fn configured() -> Random {
    let framework = Builder::from_fn(|_: NoConfig| Ok(()))
        .resource(PLAIN, Passwords { hooks: false })
        .resource(HOOKED, Passwords { hooks: true })
        .build()
        .expect("a valid schema");
    let empty = Value::object(Vec::<(&str, Value)>::new());
    let diags = framework
        .configure_provider(tf::ConfigureProviderRequest {
            terraform_version: "1.11.4".into(),
            config: empty,
            client_capabilities: Default::default(),
        })
        .await;
    assert!(diags.is_empty(), "{diags:?}");
    framework
}

fn keepers_type() -> Type {
    Type::map(Type::String)
}

/// A configuration: `length`, then the rest null.
fn config(length: Value) -> Value {
    Value::object([
        ("length", length),
        ("keepers", Value::null(keepers_type())),
        ("override_special", Value::null(Type::String)),
        ("special", Value::null(Type::Bool)),
        ("number", Value::null(Type::Bool)),
        ("numeric", Value::null(Type::Bool)),
        ("summary", Value::null(Type::String)),
        ("result", Value::null(Type::String)),
    ])
}

fn with(v: &Value, name: &str, x: Value) -> Value {
    v.with_attr(name, x).unwrap()
}

fn keepers(entries: &[(&str, Option<&str>)]) -> Value {
    Value::map(
        Type::String,
        entries
            .iter()
            .map(|(k, v)| (*k, Value::from_option(v.map(Value::string), Type::String))),
    )
    .unwrap()
}

async fn validate(p: &Random, config: Value) -> Diagnostics {
    p.validate_resource_config(tf::ValidateResourceConfigRequest {
        type_name: HOOKED.into(),
        config,
        client_capabilities: Default::default(),
    })
    .await
}

/// `random_password`'s and `hooked_password`'s type names.
const PLAIN: &str = "random_password";
const HOOKED: &str = "hooked_password";

/// Plans `config` from `prior` (null: a create) as `type_name`, core's
/// proposal being the configuration with the prior's computed values
/// where it leaves them null.
async fn plan(
    p: &Random,
    type_name: &str,
    prior: &Value,
    config: &Value,
) -> Result<tf::PlanResourceChangeResponse> {
    let mut proposed = config.clone();
    if !prior.is_null() {
        for name in ["number", "numeric", "summary", "result"] {
            if config.attr(name).is_some_and(Value::is_null) {
                proposed = with(&proposed, name, prior.attr(name).unwrap().clone());
            }
        }
    }
    p.plan_resource_change(tf::PlanResourceChangeRequest {
        type_name: type_name.into(),
        prior_state: prior.clone(),
        proposed_new_state: proposed,
        config: config.clone(),
        prior_private: Vec::new(),
        provider_meta: None,
        client_capabilities: Default::default(),
        prior_identity: None,
        planned_private: Vec::new(),
    })
    .await
}

/// The state applying `config` leaves (a create through the provider).
async fn applied(p: &Random, config: &Value) -> Value {
    let ty = config.ty().clone();
    let planned = plan(p, PLAIN, &Value::null(ty.clone()), config)
        .await
        .unwrap();
    p.apply_resource_change(tf::ApplyResourceChangeRequest {
        type_name: PLAIN.into(),
        prior_state: Value::null(ty),
        planned_state: planned.planned_state,
        config: config.clone(),
        planned_private: Vec::new(),
        provider_meta: None,
        planned_identity: None,
    })
    .await
    .unwrap()
    .new_state
}

fn paths(ps: &[Path]) -> Vec<String> {
    ps.iter().map(ToString::to_string).collect()
}

#[tokio::test]
async fn typed_validate_sees_an_unknown_field_as_unknown_and_a_known_one_at_its_path() {
    let p = configured().await;
    let short = validate(&p, config(Value::number(2))).await;
    let found: Vec<(String, Option<String>)> = short
        .iter()
        .map(|d| (d.summary.clone(), d.attribute.as_ref().map(Path::to_string)))
        .collect();
    assert_eq!(
        found,
        [(
            "Password too short".to_string(),
            Some(".length".to_string())
        )]
    );
    // Unknown: the Unknowable field holds it, and the hook lets it be.
    let unknown = validate(&p, config(Value::unknown(Type::Number))).await;
    assert!(unknown.is_empty(), "{unknown:?}");
}

#[tokio::test]
async fn typed_validate_is_deferred_while_a_field_that_is_no_unknowable_is_unknown() {
    let p = configured().await;
    // `override_special` is an Option<String>: the model cannot hold its
    // unknown, so the hook (which would refuse length 2) waits for it.
    let c = with(
        &config(Value::number(2)),
        "override_special",
        Value::unknown(Type::String),
    );
    let diags = validate(&p, c.clone()).await;
    assert!(diags.is_empty(), "{diags:?}");
    let known = with(&c, "override_special", Value::string("!"));
    assert_eq!(validate(&p, known).await.len(), 1);
}

#[tokio::test]
async fn typed_modify_plan_changes_a_planned_field_and_marks_one_by_its_path() {
    let p = configured().await;
    let c = with(&config(Value::number(8)), "special", Value::bool(false));
    let created = plan(&p, HOOKED, &Value::null(c.ty().clone()), &c)
        .await
        .unwrap();
    assert_eq!(
        created.planned_state.attr("summary"),
        Some(&Value::string("8 characters"))
    );
    assert!(created.requires_replace.is_empty());

    let state = applied(&p, &c).await;
    let special = with(&c, "special", Value::bool(true));
    let updated = plan(&p, HOOKED, &state, &special).await.unwrap();
    assert_eq!(paths(&updated.requires_replace), [".special"]);
    // Unknown length: the hook leaves the summary to the framework.
    let unknown = with(&c, "length", Value::unknown(Type::Number));
    let planned = plan(&p, HOOKED, &state, &unknown).await.unwrap();
    assert!(!planned.planned_state.attr("summary").unwrap().is_known());
}

#[tokio::test]
async fn a_plan_hook_reading_an_unknown_into_a_field_that_cannot_hold_it_names_the_field() {
    let p = configured().await;
    let c = with(
        &config(Value::number(8)),
        "special",
        Value::unknown(Type::Bool),
    );
    let err = plan(&p, HOOKED, &Value::null(c.ty().clone()), &c)
        .await
        .unwrap_err();
    let d = err.iter().next().unwrap();
    assert_eq!(d.summary, "Plan hook cannot read the plan as its model");
    assert_eq!(
        d.attribute.as_ref().map(Path::to_string).as_deref(),
        Some(".special")
    );
    assert!(d.detail.contains("Unknowable"), "{}", d.detail);
}

#[tokio::test]
async fn requires_replace_if_values_not_null_replaces_only_when_a_non_null_value_changes() {
    let p = configured().await;
    let c = with(
        &config(Value::number(8)),
        "keepers",
        keepers(&[("a", Some("1")), ("b", None)]),
    );
    let state = applied(&p, &c).await;
    let replaced = |ks: Value| {
        let c = with(&c, "keepers", ks);
        let (p, state) = (&p, &state);
        async move { paths(&plan(p, PLAIN, state, &c).await.unwrap().requires_replace) }
    };
    // A null value added, removed or the whole map's nulls dropped: no.
    assert!(replaced(keepers(&[("a", Some("1"))])).await.is_empty());
    assert!(
        replaced(keepers(&[("a", Some("1")), ("b", None), ("c", None)]))
            .await
            .is_empty()
    );
    // A non-null value changed, added or removed: yes, at `keepers`.
    assert_eq!(replaced(keepers(&[("a", Some("2"))])).await, [".keepers"]);
    assert_eq!(
        replaced(keepers(&[("a", Some("1")), ("b", Some("x"))])).await,
        [".keepers"]
    );
    assert_eq!(replaced(keepers(&[("b", None)])).await, [".keepers"]);
    assert_eq!(replaced(Value::null(keepers_type())).await, [".keepers"]);
    assert_eq!(replaced(Value::unknown(keepers_type())).await, [".keepers"]);
}

#[tokio::test]
async fn requires_replace_empty_as_null_treats_an_empty_string_and_null_alike() {
    let p = configured().await;
    let c = with(
        &config(Value::number(8)),
        "override_special",
        Value::string(""),
    );
    let state = applied(&p, &c).await;
    let to = |v: Value| with(&c, "override_special", v);
    let none = plan(&p, PLAIN, &state, &to(Value::null(Type::String)))
        .await
        .unwrap();
    assert!(none.requires_replace.is_empty());
    let some = plan(&p, PLAIN, &state, &to(Value::string("!")))
        .await
        .unwrap();
    assert_eq!(paths(&some.requires_replace), [".override_special"]);
}

#[tokio::test]
async fn requires_replace_with_a_condition_in_code_replaces_when_it_says_so() {
    let p = configured().await;
    let c = config(Value::number(8));
    let state = applied(&p, &c).await;
    let longer = plan(&p, PLAIN, &state, &config(Value::number(12)))
        .await
        .unwrap();
    assert!(longer.requires_replace.is_empty());
    let shorter = plan(&p, PLAIN, &state, &config(Value::number(6)))
        .await
        .unwrap();
    assert_eq!(paths(&shorter.requires_replace), [".length"]);
    let unknown = plan(&p, PLAIN, &state, &config(Value::unknown(Type::Number)))
        .await
        .unwrap();
    assert_eq!(paths(&unknown.requires_replace), [".length"]);
}

#[tokio::test]
async fn a_default_from_another_attribute_follows_its_configured_value() {
    let p = configured().await;
    let c = config(Value::number(8));
    let create = |c: Value| {
        let p = &p;
        async move {
            let planned = plan(p, PLAIN, &Value::null(c.ty().clone()), &c)
                .await
                .unwrap();
            planned.planned_state.attr("numeric").unwrap().clone()
        }
    };
    // Unset: `number`'s own default.
    assert_eq!(create(c.clone()).await, Value::bool(true));
    // Configured: its value; unknown: unknown.
    let number = |v: Value| with(&c, "number", v);
    assert_eq!(create(number(Value::bool(false))).await, Value::bool(false));
    let unknown = create(number(Value::unknown(Type::Bool))).await;
    assert!(!unknown.is_known() && unknown.ty() == &Type::Bool);
    // Configured itself: its own value wins.
    let own = with(&number(Value::bool(false)), "numeric", Value::bool(true));
    assert_eq!(create(own).await, Value::bool(true));

    // Changing `number` changes the default, in an update too.
    let state = applied(&p, &c).await;
    let updated = plan(&p, PLAIN, &state, &number(Value::bool(false)))
        .await
        .unwrap();
    assert_eq!(
        updated.planned_state.attr("numeric"),
        Some(&Value::bool(false))
    );
    // And nothing changed plans the state as it is.
    let again = plan(&p, PLAIN, &state, &c).await.unwrap();
    assert_eq!(again.planned_state, state);
}

#[test]
fn a_default_from_an_attribute_of_another_type_is_a_schema_error() {
    #[derive(Serialize, Deserialize, Model)]
    struct Mixed {
        count: Option<u32>,
        #[model(optional, computed, default_from(count))]
        label: Option<String>,
    }
    let err = Mixed::block().check().unwrap_err();
    assert_eq!(
        err,
        ".label: `default_from` names \"count\", a number, but this attribute is a string"
    );
}

#[test]
fn field_paths_name_each_field_by_serdes_name() {
    #[derive(Serialize, Deserialize, Model)]
    #[serde(rename_all = "camelCase")]
    struct Renamed {
        max_size: u32,
        #[serde(rename = "type")]
        r#kind: String,
    }
    assert_eq!(Renamed::field_paths().max_size.to_string(), ".maxSize");
    assert_eq!(Renamed::field_paths().kind.to_string(), ".type");
}
