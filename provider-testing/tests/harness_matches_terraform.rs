//! The harness (`ctywire_provider::testing`) against Terraform 1.11 itself:
//! each scenario runs its steps through the real CLI (`dev_overrides`,
//! `terraform plan -out` read back with `terraform show -json`, apply,
//! `terraform show -json` for the state) and through the harness, and the
//! plans, states and errors are compared field by field.
//!
//! This test is its own provider binary: Terraform starts a small script
//! that runs this executable with `--serve NAME`, which serves that
//! provider (the kv example, the e2e test provider, or `check`, a provider
//! written here on the raw protocol trait, partly wrong on purpose). So it
//! has its own `main` (`harness = false`). Without `terraform` it says
//! `SKIPPED: …` and passes, except under `CI=true`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ctywire_provider::Diagnostics;
use ctywire_provider_testing::Harness;
use serde_json::{json, Value as Json};

#[path = "../../e2e/tests/support/mod.rs"]
mod support;

#[path = "../../e2e/src/main.rs"]
#[allow(dead_code)]
mod e2e_provider;

#[path = "../../examples/kv/src/main.rs"]
#[allow(dead_code)]
mod kv;

#[path = "harness_matches_terraform/kinds.rs"]
mod kinds;
#[path = "harness_matches_terraform/meta.rs"]
mod meta;

/// `check`: resources written on the raw protocol trait. `check_secret`
/// has a sensitive and a write-only attribute; `check_wrong` breaks
/// core's rules when its name asks it to.
mod check {
    use ctywire::schema::{Attribute, Block, NestedBlock, NestingMode, Schema};
    use ctywire::{Type, Value};
    use ctywire_tfplugin6::{
        async_trait, ApplyResourceChangeRequest, ApplyResourceChangeResponse, Diagnostics,
        PlanResourceChangeRequest, PlanResourceChangeResponse, Provider, Schemas,
    };

    pub struct Check;

    fn secret() -> Schema {
        Schema::new(
            Block::new()
                .attribute(Attribute::new("name", Type::String).required())
                .attribute(Attribute::new("note", Type::String).optional().sensitive())
                .attribute(
                    Attribute::new("password", Type::String)
                        .optional()
                        .write_only(),
                )
                .attribute(Attribute::new("id", Type::String).computed())
                .attribute(Attribute::new("password_length", Type::Number).computed()),
        )
    }

    fn wrong() -> Schema {
        Schema::new(
            Block::new()
                .attribute(Attribute::new("name", Type::String).required())
                .attribute(Attribute::new("value", Type::String).optional())
                .attribute(Attribute::new("id", Type::String).computed()),
        )
    }

    /// A set of strings, which `apply-adds-set-element` gets one more
    /// element of at apply than was planned.
    fn set() -> Schema {
        Schema::new(
            Block::new()
                .attribute(Attribute::new("name", Type::String).required())
                .attribute(Attribute::new("tags", Type::set(Type::String)).optional())
                .attribute(Attribute::new("id", Type::String).computed()),
        )
    }

    /// A set block whose elements get a computed `uid` at create, planned
    /// the way the SDK plans it: from core's proposal, what is new (null)
    /// unknown. Only core's own matching of configured elements to prior
    /// ones (which the framework redoes itself) keeps an element's uid.
    fn group() -> Schema {
        let member = Block::new()
            .attribute(Attribute::new("name", Type::String).required())
            .attribute(Attribute::new("uid", Type::String).computed());
        Schema::new(
            Block::new()
                .attribute(Attribute::new("name", Type::String).required())
                .attribute(Attribute::new("id", Type::String).computed())
                .block(NestedBlock::new("member", NestingMode::Set, member)),
        )
    }

    /// `v`'s `member` set with `f` applied to each element's uid.
    fn members(v: &mut Value, f: impl Fn(&Value, &Value) -> Value) -> Result<(), Diagnostics> {
        let Some(set) = v.attr("member") else {
            return Ok(());
        };
        let Type::Set(ety) = set.ty().clone() else {
            return Ok(());
        };
        let mut out = Vec::new();
        for m in set.elements().unwrap_or(&[]) {
            let uid = f(m, m.attr("uid").unwrap_or(&Value::null(Type::String)));
            out.push(m.with_attr("uid", uid)?);
        }
        v.set_attr("member", Value::set((*ety).clone(), out)?)?;
        Ok(())
    }

    fn name(v: &Value) -> &str {
        v.attr("name").and_then(Value::as_str).unwrap_or("")
    }

    #[async_trait]
    impl Provider for Check {
        fn schemas(&self) -> Schemas {
            Schemas::new(Schema::new(Block::new()))
                .resource("check_secret", secret())
                .resource("check_wrong", wrong())
                .resource("check_set", set())
                .resource("check_group", group())
                .ephemeral_resource("check_token", super::kinds::token_schema())
        }

        async fn open_ephemeral_resource(
            &self,
            req: ctywire_tfplugin6::OpenEphemeralResourceRequest,
        ) -> Result<ctywire_tfplugin6::OpenEphemeralResourceResponse, Diagnostics> {
            super::kinds::open_token(req)
        }

        async fn close_ephemeral_resource(
            &self,
            _: ctywire_tfplugin6::CloseEphemeralResourceRequest,
        ) -> Diagnostics {
            Diagnostics::new()
        }

        async fn plan_resource_change(
            &self,
            req: PlanResourceChangeRequest,
        ) -> Result<PlanResourceChangeResponse, Diagnostics> {
            let mut planned = req.proposed_new_state;
            if planned.is_null() {
                return Ok(PlanResourceChangeResponse::new(planned));
            }
            if req.prior_state.is_null() {
                planned.set_attr("id", Value::unknown(Type::String))?;
                if req.type_name == "check_secret" {
                    planned.set_attr("password_length", Value::unknown(Type::Number))?;
                }
            }
            if req.type_name == "check_group" {
                members(&mut planned, |_, uid| match uid.is_null() {
                    true => Value::unknown(Type::String),
                    false => uid.clone(),
                })?;
            }
            if req.type_name == "check_wrong" && name(&planned) == "plan-changes-config" {
                // Not what the configuration says: core refuses the plan.
                planned.set_attr("value", Value::string("chosen by the provider"))?;
            }
            Ok(PlanResourceChangeResponse::new(planned))
        }

        async fn apply_resource_change(
            &self,
            req: ApplyResourceChangeRequest,
        ) -> Result<ApplyResourceChangeResponse, Diagnostics> {
            let mut new = req.planned_state;
            if new.is_null() {
                return Ok(ApplyResourceChangeResponse::new(new));
            }
            let n = name(&new).to_owned();
            if !new.attr("id").is_some_and(Value::is_known) {
                new.set_attr("id", Value::string(format!("{}-{n}", req.type_name)))?;
            }
            if req.type_name == "check_secret"
                && !new.attr("password_length").is_some_and(Value::is_known)
            {
                // The write-only password is only in the configuration.
                let len = req
                    .config
                    .attr("password")
                    .and_then(Value::as_str)
                    .map_or(0, |p| p.chars().count() as u64);
                new.set_attr("password_length", Value::number(len))?;
            }
            // A known planned value changed at apply: core refuses it, at
            // create (the plan has the unknown id) and at an update whose
            // plan is wholly known.
            let update = !req.prior_state.is_null();
            if req.type_name == "check_wrong"
                && (n == "apply-changes-known" || (n == "update-changes-known" && update))
            {
                new.set_attr("value", Value::string("changed at apply"))?;
            }
            if req.type_name == "check_group" {
                members(&mut new, |m, uid| match uid.is_known() {
                    true => uid.clone(),
                    false => Value::string(format!("uid-{}", name(m))),
                })?;
            }
            if req.type_name == "check_set" && n == "apply-adds-set-element" {
                // Every planned element is there, and one more: core
                // refuses the element it cannot correlate with the plan.
                let mut tags: Vec<Value> = new
                    .attr("tags")
                    .and_then(Value::elements)
                    .map(<[Value]>::to_vec)
                    .unwrap_or_default();
                tags.push(Value::string("added at apply"));
                new.set_attr("tags", Value::set(Type::String, tags)?)?;
            }
            Ok(ApplyResourceChangeResponse::new(new))
        }
    }
}

/// `sets`: a resource on the framework whose set block and nested set
/// attribute have elements with computed attributes, some kept
/// (`keep_state`), and a default. Its state lives in Terraform's state
/// alone (read answers the state as it is), so the harness's and
/// Terraform's runs of it are alike; computed values name the revision
/// that set them, so a kept value is told from a new one.
mod sets {
    use ctywire_provider::{async_trait, Builder, Context, Model, Provider, Resource, Result};
    use serde::{Deserialize, Serialize};

    pub struct Sets;

    #[async_trait]
    impl Provider for Sets {
        type Config = NoConfig;
        type Data = ();

        async fn configure(&self, _: NoConfig) -> Result<()> {
            Ok(())
        }
    }

    #[derive(Serialize, Deserialize, Model)]
    pub struct NoConfig {}

    #[derive(Serialize, Deserialize, Model)]
    struct Group {
        name: String,
        #[model(block(set))]
        member: Vec<Member>,
        #[model(nested(set))]
        port: Option<Vec<Port>>,
        #[model(optional, computed, default = "eu-west-1")]
        region: Option<String>,
        #[model(computed, keep_state)]
        id: Option<String>,
        #[model(computed)]
        revision: Option<u64>,
    }

    #[derive(Serialize, Deserialize, Model)]
    struct Member {
        name: String,
        role: Option<String>,
        /// Set when the member is added, kept while it stays.
        #[model(computed, keep_state)]
        uid: Option<String>,
        /// The revision that last wrote the group.
        #[model(computed)]
        seen: Option<u64>,
    }

    #[derive(Serialize, Deserialize, Model)]
    struct Port {
        number: u32,
        /// Set when the port is opened, kept while it stays.
        #[model(computed, keep_state)]
        opened: Option<String>,
    }

    /// Fills what the plan left unknown (nulls here), as of `revision`.
    fn written(mut g: Group, revision: u64) -> Group {
        g.revision = Some(revision);
        g.id.get_or_insert_with(|| format!("g-{}", g.name));
        for m in &mut g.member {
            m.uid
                .get_or_insert_with(|| format!("{}@{revision}", m.name));
            m.seen = Some(revision);
        }
        for p in g.port.iter_mut().flatten() {
            p.opened
                .get_or_insert_with(|| format!("{}@{revision}", p.number));
        }
        g
    }

    struct Groups;

    #[async_trait]
    impl Resource<()> for Groups {
        type Model = Group;

        async fn create(&self, _: &Context<()>, plan: Group) -> Result<Group> {
            Ok(written(plan, 1))
        }

        async fn read(&self, _: &Context<()>, state: Group) -> Result<Option<Group>> {
            Ok(Some(state))
        }

        async fn update(&self, _: &Context<()>, prior: Group, plan: Group) -> Result<Group> {
            Ok(written(plan, prior.revision.unwrap_or(0) + 1))
        }

        async fn delete(&self, _: &Context<()>, _: Group) -> Result<()> {
            Ok(())
        }
    }

    pub fn provider() -> Builder<Sets> {
        Builder::new(Sets).resource("sets_group", Groups)
    }
}

/// The providers under test.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Which {
    Kv,
    Test,
    Check,
    Sets,
}

impl Which {
    /// The provider's source address and local name.
    fn source(self) -> (&'static str, &'static str) {
        match self {
            Which::Kv => ("registry.terraform.io/ctywire/kv", "kv"),
            Which::Test => ("registry.terraform.io/ctywire/test", "ctywire"),
            Which::Check => ("registry.terraform.io/ctywire/check", "check"),
            Which::Sets => ("registry.terraform.io/ctywire/sets", "sets"),
        }
    }

    fn serve_name(self) -> &'static str {
        match self {
            Which::Kv => "kv",
            Which::Test => "test",
            Which::Check => "check",
            Which::Sets => "sets",
        }
    }

    fn harness(self) -> Result<Harness, Diagnostics> {
        let h = match self {
            // A provider instance per configuration (kinds.rs's aliases).
            Which::Kv => Harness::with_aliases(|| kv::provider().build().expect("kv builds"))?,
            Which::Test => Harness::new(e2e_provider::in_process())?,
            Which::Check => Harness::new(check::Check)?,
            Which::Sets => {
                let built = sets::provider()
                    .build()
                    .map_err(|e| Diagnostics::error(e.to_string()))?;
                Harness::new(built)?
            }
        };
        Ok(h.source(self.source().0))
    }
}

/// A configuration for a store directory: a `main.tf.json` document, or
/// a `main.tf`'s text (a JSON string).
type Doc = fn(&Path) -> Json;

/// Gives the harness a configuration as `Cli::write` gives Terraform one.
fn configure(h: &mut Harness, doc: Json) -> Result<(), Diagnostics> {
    match doc {
        Json::String(text) => h.config_hcl(&text)?,
        doc => h.config(doc)?,
    };
    Ok(())
}

/// One step, run by both sides.
enum Step {
    /// `terraform plan -out`, `show -json`, `apply PLANFILE`, `show -json`.
    Apply(Doc),
    /// `terraform plan -out` and `show -json` only.
    Plan(Doc),
    /// `terraform apply -refresh-only`.
    Refresh(Doc),
    /// `terraform import ADDRESS ID`.
    Import(Doc, &'static str, &'static str),
    /// `terraform destroy`.
    Destroy(Doc),
    /// The plan is refused.
    PlanFails(Doc),
    /// The plan succeeds; its apply is refused.
    ApplyFails(Doc),
    /// Something changes outside Terraform (in the store directory).
    Outside(fn(&Path)),
}

struct Scenario {
    name: &'static str,
    provider: Which,
    steps: Vec<Step>,
}

// ---- configurations -------------------------------------------------------

fn with_provider(which: Which, store: &Path, resources: Json) -> Json {
    let (source, local) = which.source();
    let provider = match which {
        Which::Kv => json!({ "root": store.display().to_string() }),
        Which::Test => json!({ "prefix": "e2e" }),
        Which::Check | Which::Sets => json!({}),
    };
    json!({
        "terraform": { "required_providers": { local: { "source": source } } },
        "provider": { local: provider },
        "resource": resources,
    })
}

fn kv_entry(key: &str, value: &str) -> Json {
    json!({
        "key": key,
        "value": value,
        "tags": { "env": "test" },
        "ports": [443, 80],
        "rule": [{ "port": 80 }, { "port": 443, "note": "tls" }],
    })
}

fn kv_a(store: &Path) -> Json {
    with_provider(
        Which::Kv,
        store,
        json!({ "kv_entry": { "a": kv_entry("a", "one") } }),
    )
}

fn kv_a_updated(store: &Path) -> Json {
    let mut e = kv_entry("a", "two");
    e["tags"] = json!({ "env": "prod", "team": "x" });
    e["rule"] = json!([{ "port": 8080 }]);
    with_provider(Which::Kv, store, json!({ "kv_entry": { "a": e } }))
}

fn kv_a_rekeyed(store: &Path) -> Json {
    with_provider(
        Which::Kv,
        store,
        json!({ "kv_entry": { "a": kv_entry("a2", "two") } }),
    )
}

fn kv_chain(store: &Path) -> Json {
    let mut b = kv_entry("b", "${kv_entry.a.id}");
    b["tags"] = json!({ "from": "${kv_entry.a.key}", "rev": "${kv_entry.a.revision}" });
    with_provider(
        Which::Kv,
        store,
        json!({ "kv_entry": { "a": kv_entry("a", "one"), "b": b } }),
    )
}

fn kv_chain_changed(store: &Path) -> Json {
    let mut b = kv_entry("b", "${kv_entry.a.id}");
    b["tags"] = json!({ "from": "${kv_entry.a.key}", "rev": "${kv_entry.a.revision}" });
    with_provider(
        Which::Kv,
        store,
        json!({ "kv_entry": { "a": kv_entry("a", "changed"), "b": b } }),
    )
}

fn kv_cbd(store: &Path) -> Json {
    let mut e = kv_entry("c2", "one");
    e["lifecycle"] = json!({ "create_before_destroy": true });
    with_provider(Which::Kv, store, json!({ "kv_entry": { "a": e } }))
}

fn kv_cbd_start(store: &Path) -> Json {
    let mut e = kv_entry("c1", "one");
    e["lifecycle"] = json!({ "create_before_destroy": true });
    with_provider(Which::Kv, store, json!({ "kv_entry": { "a": e } }))
}

fn thing_full() -> Json {
    json!({
        "name": "first",
        "size": 0.1,
        // Past an f64's 17 digits: a string, which Terraform and the
        // harness convert to a number exactly (JSON syntax reads a number
        // literal as exactly too, but serde_json would round this one).
        "big": "123456789012345678901234567890",
        "enabled": true,
        "tags": { "env": "test", "team": "codec" },
        "ports": [443, 80, 443],
        "names": ["a", "b"],
        "shape": { "w": 1.5, "h": 2 },
        "pair": ["x", 7],
        "settings": { "level": 3 },
        "rule": [{ "port": 80 }, { "port": 443, "note": "tls" }],
        "ingress": [{ "cidr": "10.0.0.0/8" }, { "cidr": "192.168.0.0/16" }],
        "listener": { "http": { "port": 8080 } },
        "timeouts": { "create": "5m" },
    })
}

fn test_nesting(store: &Path) -> Json {
    with_provider(
        Which::Test,
        store,
        json!({ "ctywire_thing": { "first": thing_full() } }),
    )
}

fn test_nesting_changed(store: &Path) -> Json {
    let mut t = thing_full();
    t["settings"] = Json::Null;
    t["rule"] = json!([{ "port": 443, "note": "tls" }, { "port": 22 }]);
    t["ingress"] = json!([{ "cidr": "10.0.0.0/8" }, { "cidr": "172.16.0.0/12" }]);
    t["listener"] = json!({ "http": { "port": 8081 }, "https": { "port": 8443, "note": "tls" } });
    t["timeouts"] = Json::Null;
    with_provider(
        Which::Test,
        store,
        json!({ "ctywire_thing": { "first": t } }),
    )
}

fn test_dynamic(store: &Path) -> Json {
    let mut t = json!({ "name": "dyn" });
    t["anything"] = json!({ "list": [1, "two", true], "nested": { "deep": [null] } });
    with_provider(Which::Test, store, json!({ "ctywire_thing": { "d": t } }))
}

fn test_dynamic_retyped(store: &Path) -> Json {
    let t = json!({ "name": "dyn", "anything": ["now", "a", "tuple", 3] });
    with_provider(Which::Test, store, json!({ "ctywire_thing": { "d": t } }))
}

fn test_nested_attributes(store: &Path) -> Json {
    let t = json!({
        "name": "n",
        "endpoints": [{ "url": "https://a", "weight": 0.25 }, { "url": "https://b", "weight": null }],
    });
    with_provider(Which::Test, store, json!({ "ctywire_thing": { "n": t } }))
}

fn test_nested_attributes_changed(store: &Path) -> Json {
    let t = json!({
        "name": "n",
        "endpoints": [{ "url": "https://b" }, { "url": "https://c", "weight": 3 }, { "weight": 1 }],
    });
    with_provider(Which::Test, store, json!({ "ctywire_thing": { "n": t } }))
}

fn test_flow(store: &Path) -> Json {
    with_provider(
        Which::Test,
        store,
        json!({ "ctywire_thing": {
            "first": { "name": "first", "ports": [1, 2] },
            "second": {
                "name": "web-${ctywire_thing.first.id}",
                "note": "${ctywire_thing.first.computed_label}",
                "anything": "${ctywire_thing.first.id}",
                "names": ["${ctywire_thing.first.name}", "${ctywire_thing.first.id}"],
            },
        } }),
    )
}

fn test_flow_orphaned(store: &Path) -> Json {
    with_provider(
        Which::Test,
        store,
        json!({ "ctywire_thing": { "first": { "name": "first", "ports": [1, 2] } } }),
    )
}

fn check_secrets(store: &Path) -> Json {
    with_provider(
        Which::Check,
        store,
        json!({ "check_secret": {
            "a": { "name": "a", "note": "hush", "password": "hunter22" },
            "b": { "name": "${check_secret.a.note}", "note": "${check_secret.a.id}" },
        } }),
    )
}

fn check_secrets_changed(store: &Path) -> Json {
    with_provider(
        Which::Check,
        store,
        json!({ "check_secret": {
            "a": { "name": "a", "note": "louder", "password": "hunter2" },
            "b": { "name": "${check_secret.a.note}", "note": "${check_secret.a.id}" },
        } }),
    )
}

fn check_wrong_plan(store: &Path) -> Json {
    with_provider(
        Which::Check,
        store,
        json!({ "check_wrong": { "a": { "name": "plan-changes-config", "value": "configured" } } }),
    )
}

fn check_wrong_apply(store: &Path) -> Json {
    with_provider(
        Which::Check,
        store,
        json!({ "check_wrong": { "a": { "name": "apply-changes-known", "value": "configured" } } }),
    )
}

/// kv's entry `a` with `change` made to it.
fn kv_a_with(store: &Path, change: fn(&mut Json)) -> Json {
    let mut e = kv_entry("a", "one");
    change(&mut e);
    with_provider(Which::Kv, store, json!({ "kv_entry": { "a": e } }))
}

fn kv_required_null(store: &Path) -> Json {
    kv_a_with(store, |e| e["value"] = Json::Null)
}

/// A tag whose value is null: kv's tags are `String`s, which hold no null.
fn kv_null_tag(store: &Path) -> Json {
    kv_a_with(store, |e| e["tags"] = json!({ "key": null }))
}

fn kv_required_missing(store: &Path) -> Json {
    kv_a_with(store, |e| {
        e.as_object_mut().map(|o| o.remove("value"));
    })
}

fn kv_computed_set(store: &Path) -> Json {
    kv_a_with(store, |e| e["revision"] = json!(3))
}

fn kv_computed_null(store: &Path) -> Json {
    kv_a_with(store, |e| e["revision"] = Json::Null)
}

/// `check_wrong` (a provider on the raw protocol, which checks nothing
/// itself) with `change` made to its resource: what core alone answers.
fn check_with(store: &Path, change: fn(&mut Json)) -> Json {
    let mut r = json!({ "name": "n", "value": "v" });
    change(&mut r);
    with_provider(Which::Check, store, json!({ "check_wrong": { "a": r } }))
}

fn check_required_null(store: &Path) -> Json {
    check_with(store, |r| r["name"] = Json::Null)
}

fn check_required_missing(store: &Path) -> Json {
    check_with(store, |r| {
        r.as_object_mut().map(|o| o.remove("name"));
    })
}

fn check_computed_set(store: &Path) -> Json {
    check_with(store, |r| r["id"] = json!("chosen"))
}

fn check_update_start(store: &Path) -> Json {
    check_with(store, |r| r["name"] = json!("update-changes-known"))
}

fn check_update_changed(store: &Path) -> Json {
    check_with(store, |r| {
        r["name"] = json!("update-changes-known");
        r["value"] = json!("updated");
    })
}

fn check_set_added(store: &Path) -> Json {
    with_provider(
        Which::Check,
        store,
        json!({ "check_set": { "a": { "name": "apply-adds-set-element", "tags": ["x", "y"] } } }),
    )
}

/// `check_group.g` with members `names`.
fn check_group_of(store: &Path, names: &[&str]) -> Json {
    let member: Vec<Json> = names.iter().map(|n| json!({ "name": n })).collect();
    with_provider(
        Which::Check,
        store,
        json!({ "check_group": { "g": { "name": "g", "member": member } } }),
    )
}

fn check_group_ab(store: &Path) -> Json {
    check_group_of(store, &["a", "b"])
}

fn check_group_ba(store: &Path) -> Json {
    check_group_of(store, &["b", "a"])
}

fn check_group_bc(store: &Path) -> Json {
    check_group_of(store, &["b", "c"])
}

/// `sets_group.g` with `change` made to its body.
fn sets_with(store: &Path, change: fn(&mut Json)) -> Json {
    let mut g = json!({
        "name": "g",
        "member": [{ "name": "alice" }, { "name": "bob", "role": "admin" }],
        "port": [{ "number": 80 }, { "number": 443 }],
    });
    change(&mut g);
    with_provider(Which::Sets, store, json!({ "sets_group": { "g": g } }))
}

fn sets_a(store: &Path) -> Json {
    sets_with(store, |_| {})
}

/// The same sets, their elements written in another order.
fn sets_reordered(store: &Path) -> Json {
    sets_with(store, |g| {
        g["member"] = json!([{ "name": "bob", "role": "admin" }, { "name": "alice" }]);
        g["port"] = json!([{ "number": 443 }, { "number": 80 }]);
    })
}

/// alice changed (a new element), bob removed, carol added; port 80
/// removed, 8080 added, 443 kept.
fn sets_changed(store: &Path) -> Json {
    sets_with(store, |g| {
        g["member"] = json!([{ "name": "carol" }, { "name": "alice", "role": "owner" }]);
        g["port"] = json!([{ "number": 8080 }, { "number": 443 }]);
    })
}

fn sets_changed_region(store: &Path) -> Json {
    sets_with(store, |g| {
        g["member"] = json!([{ "name": "carol" }, { "name": "alice", "role": "owner" }]);
        g["port"] = json!([{ "number": 8080 }, { "number": 443 }]);
        g["region"] = json!("us-east-1");
    })
}

// HCL configurations (main.tf): expressions evaluated by both sides.

fn hcl_kv(store: &Path, body: &str) -> Json {
    Json::String(format!(
        r#"
terraform {{
  required_providers {{
    kv = {{ source = "ctywire/kv" }}
  }}
}}
provider "kv" {{
  root = {root}
}}
{body}
"#,
        root = Json::String(store.display().to_string()),
    ))
}

fn hcl_expressions(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
variable "env" {
  type    = string
  default = "test"
}
variable "ports" {
  type    = list(number)
  default = [443, 80]
}
locals {
  key  = "app-${var.env}"
  tags = { env = var.env, team = upper("codec") }
}
resource "kv_entry" "a" {
  key   = local.key
  value = jsonencode({ ports = var.ports, n = length(var.ports), b = "<&>" })
  tags  = local.tags
  ports = var.ports
  rule {
    port = 80
    note = format("%s:%d", lower("HTTP"), 80)
  }
}
resource "kv_entry" "b" {
  key   = "${kv_entry.a.key}-b"
  value = join(",", split("-", kv_entry.a.key), [sha256("x"), base64encode("hi"), md5("")])
  tags  = { hash = provider::kv::hash(kv_entry.a.value), id = kv_entry.a.id }
}
"#,
    )
}

fn hcl_expressions_changed(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
variable "env" { default = "prod" }
locals {
  key = "app-${var.env}"
}
resource "kv_entry" "a" {
  key   = local.key
  value = lookup({ a = "1" }, "b", "fallback")
}
resource "kv_entry" "b" {
  key   = "${kv_entry.a.key}-b"
  value = provider::kv::hash(kv_entry.a.id)
}
"#,
    )
}

fn hcl_sensitive_variable(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
variable "secret" {
  type      = string
  default   = "hunter2"
  sensitive = true
}
resource "kv_entry" "a" {
  key   = "s"
  value = "pw=${var.secret}"
  tags  = { plain = "x", hidden = var.secret }
}
"#,
    )
}

fn hcl_outputs(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "a" {
  key   = "o"
  value = "secret"
  tags  = { env = "test" }
}
output "key" {
  value = kv_entry.a.key
}
output "revision" {
  value = kv_entry.a.revision
}
output "entry" {
  value     = kv_entry.a
  sensitive = true
}
output "tags" {
  value = kv_entry.a.tags
}
output "nothing" {
  value = null
}
"#,
    )
}

fn hcl_outputs_changed(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "a" {
  key   = "o"
  value = "secret"
  tags  = { env = "prod" }
}
output "key" {
  value = "${kv_entry.a.key}!"
}
output "tags" {
  value = kv_entry.a.tags
}
"#,
    )
}

fn hcl_output_unmarked_secret(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "a" {
  key   = "o"
  value = "secret"
}
output "value" {
  value = kv_entry.a.value
}
"#,
    )
}

fn hcl_missing_variable(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
variable "name" { type = string }
resource "kv_entry" "a" {
  key   = var.name
  value = "v"
}
"#,
    )
}

fn hcl_unknown_function(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "a" {
  key   = nosuchfunction("x")
  value = "v"
}
"#,
    )
}

// Data sources: kv's `kv_entries` lists the store's keys.

/// Read during plan (its configuration is known), referenced by a
/// resource and an output: the second plan sees the key the first apply
/// wrote.
fn data_known(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
data "kv_entries" "all" {
  prefix = ""
}
resource "kv_entry" "count" {
  key   = "count"
  value = join(",", data.kv_entries.all.keys)
  tags  = { n = length(data.kv_entries.all.keys) }
}
output "keys" {
  value = data.kv_entries.all.keys
}
"#,
    )
}

/// Deferred to apply: its prefix is a resource's attribute unknown until
/// that resource is created; a resource uses what it reads.
fn data_deferred(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "a" {
  key   = "a"
  value = "one"
}
data "kv_entries" "after_a" {
  prefix = "${kv_entry.a.revision}"
}
resource "kv_entry" "b" {
  key   = "b"
  value = "seen: ${join(",", data.kv_entries.after_a.keys)}"
}
output "prefix" {
  value = data.kv_entries.after_a.prefix
}
"#,
    )
}

/// Deferred to apply although its configuration is known: it names a
/// resource in `depends_on`, which changes when `value` does.
fn data_depends_on_value(store: &Path, value: &str) -> Json {
    hcl_kv(
        store,
        &format!(
            r#"
resource "kv_entry" "a" {{
  key   = "a"
  value = "{value}"
}}
data "kv_entries" "all" {{
  depends_on = [kv_entry.a]
}}
"#
        ),
    )
}

fn data_depends_on(store: &Path) -> Json {
    data_depends_on_value(store, "one")
}

fn data_depends_on_changed(store: &Path) -> Json {
    data_depends_on_value(store, "two")
}

/// An argument the data source's schema does not have.
fn data_unsupported_argument(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
data "kv_entries" "all" {
  prefix = "a"
  sort   = "desc"
}
"#,
    )
}

/// The kv store's own file for an entry (what the kv example writes).
fn delete_entry_a(store: &Path) {
    let _ = std::fs::remove_file(store.join("a.json"));
}

fn write_entry_a(store: &Path) {
    let entry = json!({
        "key": "a", "value": "one", "tags": { "env": "test" }, "ports": [80, 443],
        "rule": [{ "port": 80, "note": null }, { "port": 443, "note": "tls" }],
        "id": "a", "revision": 7,
    });
    let _ = std::fs::create_dir_all(store);
    let _ = std::fs::write(store.join("a.json"), entry.to_string());
}

fn scenarios() -> Vec<Scenario> {
    use Step::*;
    let more = [kinds::scenarios(), meta::scenarios()];
    let mut all = vec![
        Scenario {
            name: "data: read during plan when its configuration is known, used by a resource and an output",
            provider: Which::Kv,
            steps: vec![
                Apply(data_known),
                Plan(data_known),
                Apply(data_known),
                Refresh(data_known),
                Destroy(data_known),
            ],
        },
        Scenario {
            name: "data: read during apply when its configuration refers to an unknown",
            provider: Which::Kv,
            steps: vec![Apply(data_deferred), Plan(data_deferred), Apply(data_deferred)],
        },
        Scenario {
            name: "data: read during apply when a resource in its depends_on has a change",
            provider: Which::Kv,
            steps: vec![
                Apply(data_depends_on),
                Plan(data_depends_on),
                Apply(data_depends_on_changed),
            ],
        },
        Scenario {
            name: "data: an argument its schema lacks is refused",
            provider: Which::Kv,
            steps: vec![PlanFails(data_unsupported_argument)],
        },
        Scenario {
            name:
                "hcl: variables, locals, templates, Terraform's functions and a provider function",
            provider: Which::Kv,
            steps: vec![
                Apply(hcl_expressions),
                Plan(hcl_expressions),
                Apply(hcl_expressions_changed),
                Destroy(hcl_expressions_changed),
            ],
        },
        Scenario {
            name: "hcl: a sensitive variable marks what it sets",
            provider: Which::Kv,
            steps: vec![Apply(hcl_sensitive_variable), Plan(hcl_sensitive_variable)],
        },
        Scenario {
            name: "hcl: outputs, sensitive and unknown at plan, changed, removed and destroyed",
            provider: Which::Kv,
            steps: vec![
                Apply(hcl_outputs),
                Plan(hcl_outputs),
                Apply(hcl_outputs_changed),
                Destroy(hcl_outputs_changed),
            ],
        },
        Scenario {
            name: "hcl: an output of a sensitive value not marked sensitive is refused",
            provider: Which::Kv,
            steps: vec![PlanFails(hcl_output_unmarked_secret)],
        },
        Scenario {
            name: "hcl: a required variable without a value is refused",
            provider: Which::Kv,
            steps: vec![PlanFails(hcl_missing_variable)],
        },
        Scenario {
            name: "hcl: a call to an unknown function is refused",
            provider: Which::Kv,
            steps: vec![PlanFails(hcl_unknown_function)],
        },
        Scenario {
            name: "kv: create, empty re-plan, update, replace, destroy",
            provider: Which::Kv,
            steps: vec![
                Apply(kv_a),
                Plan(kv_a),
                Apply(kv_a_updated),
                Apply(kv_a_rekeyed),
                Destroy(kv_a_rekeyed),
            ],
        },
        Scenario {
            name: "kv: an entry deleted outside is planned again, and refreshed away",
            provider: Which::Kv,
            steps: vec![
                Apply(kv_a),
                Outside(delete_entry_a),
                Plan(kv_a),
                Refresh(kv_a),
                Apply(kv_a),
            ],
        },
        Scenario {
            name: "kv: import of an existing entry, then its plan",
            provider: Which::Kv,
            steps: vec![
                Outside(write_entry_a),
                Import(kv_a, "kv_entry.a", "a"),
                Plan(kv_a),
                Apply(kv_a),
            ],
        },
        Scenario {
            name: "kv: values flow from one entry into another, known at apply",
            provider: Which::Kv,
            steps: vec![Apply(kv_chain), Plan(kv_chain), Apply(kv_chain_changed)],
        },
        Scenario {
            name: "kv: create_before_destroy replace",
            provider: Which::Kv,
            steps: vec![Apply(kv_cbd_start), Apply(kv_cbd)],
        },
        Scenario {
            name: "test provider: every nesting mode of blocks, changed",
            provider: Which::Test,
            steps: vec![
                Apply(test_nesting),
                Plan(test_nesting),
                Apply(test_nesting_changed),
            ],
        },
        Scenario {
            name: "test provider: a dynamic attribute changes its type",
            provider: Which::Test,
            steps: vec![
                Apply(test_dynamic),
                Apply(test_dynamic_retyped),
                Plan(test_dynamic_retyped),
            ],
        },
        Scenario {
            name: "test provider: nested attributes",
            provider: Which::Test,
            steps: vec![
                Apply(test_nested_attributes),
                Apply(test_nested_attributes_changed),
            ],
        },
        Scenario {
            name:
                "test provider: refined unknowns flow into another resource; an orphan is destroyed",
            provider: Which::Test,
            steps: vec![Apply(test_flow), Plan(test_flow), Apply(test_flow_orphaned)],
        },
        Scenario {
            name: "check: write-only and sensitive attributes, sensitivity flowing by reference",
            provider: Which::Check,
            steps: vec![
                Apply(check_secrets),
                Plan(check_secrets),
                Apply(check_secrets_changed),
                Destroy(check_secrets_changed),
            ],
        },
        Scenario {
            name: "check: a plan that changes a configured value is refused",
            provider: Which::Check,
            steps: vec![PlanFails(check_wrong_plan)],
        },
        Scenario {
            name: "check: an apply that changes a known planned value is refused",
            provider: Which::Check,
            steps: vec![ApplyFails(check_wrong_apply)],
        },
        Scenario {
            name: "kv: a required argument set to null is refused by the provider's validation",
            provider: Which::Kv,
            steps: vec![PlanFails(kv_required_null)],
        },
        Scenario {
            name: "kv: a null tag is refused by the provider's validation, at the element",
            provider: Which::Kv,
            steps: vec![PlanFails(kv_null_tag)],
        },
        Scenario {
            name: "kv: a missing required argument is refused",
            provider: Which::Kv,
            steps: vec![PlanFails(kv_required_missing)],
        },
        Scenario {
            name: "kv: a computed-only attribute set in configuration is refused",
            provider: Which::Kv,
            steps: vec![PlanFails(kv_computed_set), Apply(kv_computed_null)],
        },
        Scenario {
            name: "sets: elements with computed attributes kept, reordered, added and removed; a default",
            provider: Which::Sets,
            steps: vec![
                Apply(sets_a),
                Plan(sets_reordered),
                Apply(sets_changed),
                Plan(sets_changed),
                Apply(sets_changed_region),
                Apply(sets_changed),
                Destroy(sets_changed),
            ],
        },
        Scenario {
            name: "check: core's proposal keeps set elements' computed values, reordered, added and removed",
            provider: Which::Check,
            steps: vec![
                Apply(check_group_ab),
                Plan(check_group_ba),
                Apply(check_group_bc),
                Plan(check_group_bc),
            ],
        },
        Scenario {
            name: "check: an update changed at apply though its plan was wholly known is refused",
            provider: Which::Check,
            steps: vec![Apply(check_update_start), ApplyFails(check_update_changed)],
        },
        Scenario {
            name: "check: an apply that adds a set element the plan does not have is refused",
            provider: Which::Check,
            steps: vec![ApplyFails(check_set_added)],
        },
        // Terraform 1.11 itself accepts a required argument set to null
        // and a computed-only attribute set in configuration (JSON or HCL
        // alike): refusing them is the provider's part (hashicorp/terraform#30669),
        // so the harness must accept them too.
        Scenario {
            name: "check: core alone accepts a required argument set to null",
            provider: Which::Check,
            steps: vec![Apply(check_required_null)],
        },
        Scenario {
            name: "check: core alone refuses a missing required argument",
            provider: Which::Check,
            steps: vec![PlanFails(check_required_missing)],
        },
        Scenario {
            name: "check: core alone accepts a computed-only attribute set in configuration",
            provider: Which::Check,
            steps: vec![Apply(check_computed_set)],
        },
    ];
    all.extend(more.into_iter().flatten());
    all
}

// ---- the Terraform side ---------------------------------------------------

struct Cli {
    dir: PathBuf,
    store: PathBuf,
    time: Duration,
}

impl Cli {
    fn new(root: &Path, n: usize, which: Which) -> Cli {
        let dir = root.join(format!("tf-{n}"));
        let store = root.join(format!("tf-{n}-store"));
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&store);
        std::fs::create_dir_all(&dir).expect("a scenario directory");
        let bin = root.join(format!("bin-{}", which.serve_name()));
        std::fs::write(
            dir.join("terraformrc"),
            support::dev_overrides(which.source().0, &bin),
        )
        .expect("the CLI configuration");
        Cli {
            dir,
            store,
            time: Duration::ZERO,
        }
    }

    fn run(&mut self, args: &[&str]) -> (i32, String) {
        let start = Instant::now();
        let out = support::terraform(&self.dir)
            .args(args)
            .output()
            .expect("terraform runs");
        self.time += start.elapsed();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code().unwrap_or(-1), text)
    }

    fn ok(&mut self, args: &[&str]) -> Result<String, String> {
        let (code, text) = self.run(args);
        if code != 0 {
            return Err(format!(
                "terraform {} failed ({code}):\n{text}",
                args.join(" ")
            ));
        }
        Ok(text)
    }

    fn write(&self, doc: Doc) {
        let (name, other, text) = match doc(&self.store) {
            Json::String(text) => ("main.tf", "main.tf.json", text),
            doc => ("main.tf.json", "main.tf", doc.to_string()),
        };
        let _ = std::fs::remove_file(self.dir.join(other));
        std::fs::write(self.dir.join(name), text).expect(name);
    }

    fn show_plan(&mut self) -> Result<Json, String> {
        let text = self.ok(&["show", "-json", "-no-color", "tfplan"])?;
        exact(&text).map_err(|e| format!("show -json tfplan: {e}"))
    }

    fn show_state(&mut self) -> Result<Json, String> {
        let text = self.ok(&["show", "-json", "-no-color"])?;
        exact(&text).map_err(|e| format!("show -json: {e}"))
    }

    /// The error diagnostics of a `-json` run: (summary, detail).
    fn errors(text: &str) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Json>(l).ok())
            .filter(|m| m["diagnostic"]["severity"] == "error")
            .map(|m| {
                let d = &m["diagnostic"];
                (
                    d["summary"].as_str().unwrap_or("").to_owned(),
                    d["detail"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect();
        out.sort();
        out
    }
}

const PLAN: &[&str] = &["plan", "-input=false", "-no-color", "-json", "-out=tfplan"];

// ---- comparison -----------------------------------------------------------

/// The key of the object a number becomes in [`exact`]'s documents.
const NUMBER: &str = "\u{0}number";

/// A JSON document read with every number exact (serde_json's `Value`
/// holds an `f64` without `arbitrary_precision`, which would hide a
/// difference past the 17th digit): each number becomes
/// `{NUMBER: its text through ctywire's Number}`, so `1e3` and `1000` are
/// one number and no two numbers that differ anywhere are equal.
fn exact(text: &str) -> Result<Json, String> {
    fn convert(j: &ctywire_bridge::Json) -> Result<Json, String> {
        use ctywire_bridge::Json as J;
        Ok(match j {
            J::Null => Json::Null,
            J::Bool(b) => Json::Bool(*b),
            J::String(s) => Json::String(s.clone()),
            J::Number(n) => {
                let n = n.to_number().map_err(|e| format!("{}: {e}", n.as_str()))?;
                json!({ NUMBER: n.to_string() })
            }
            J::Array(items) => Json::Array(items.iter().map(convert).collect::<Result<_, _>>()?),
            J::Object(o) => Json::Object(
                o.iter()
                    .map(|(k, v)| Ok((k.to_owned(), convert(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
        })
    }
    convert(&ctywire_bridge::Json::parse(text).map_err(|e| e.to_string())?)
}

/// [`exact`] for the harness's own documents.
fn exact_doc(text: &str) -> Result<Json, Diagnostics> {
    exact(text).map_err(|e| Diagnostics::error(format!("the harness's document: {e}")))
}

fn harness_errors(d: &Diagnostics) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = d
        .iter()
        .filter(|d| d.is_error())
        .map(|d| (d.summary.clone(), d.detail.clone()))
        .collect();
    out.sort();
    out
}

/// Compares `resource_changes` entry by entry and field by field.
fn compare_plans(terraform: &Json, harness: &Json, problems: &mut Vec<String>) {
    same(
        "output_changes",
        &terraform["output_changes"],
        &harness["output_changes"],
        problems,
    );
    let empty = Vec::new();
    let tf = terraform["resource_changes"].as_array().unwrap_or(&empty);
    let ours = harness["resource_changes"].as_array().unwrap_or(&empty);
    let addrs = |rs: &[Json]| -> Vec<String> {
        let mut a: Vec<String> = rs
            .iter()
            .map(|r| r["address"].as_str().unwrap_or("").to_owned())
            .collect();
        a.sort();
        a
    };
    if addrs(tf) != addrs(ours) {
        problems.push(format!(
            "resource_changes: terraform has {:?}, the harness {:?}",
            addrs(tf),
            addrs(ours)
        ));
        return;
    }
    for t in tf {
        let address = t["address"].as_str().unwrap_or("");
        let Some(h) = ours.iter().find(|h| h["address"] == address) else {
            continue;
        };
        for field in [
            "mode",
            "type",
            "name",
            "index",
            "provider_name",
            "action_reason",
            "previous_address",
        ] {
            same(
                &format!("{address}.{field}"),
                &t[field],
                &h[field],
                problems,
            );
        }
        for field in [
            "actions",
            "before",
            "after",
            "after_unknown",
            "before_sensitive",
            "after_sensitive",
            "importing",
        ] {
            same(
                &format!("{address}.change.{field}"),
                &t["change"][field],
                &h["change"][field],
                problems,
            );
        }
        // A path set: core lists it in hash order.
        let sorted = |v: &Json| {
            let mut a: Vec<String> = v
                .as_array()
                .map(|a| a.iter().map(Json::to_string).collect())
                .unwrap_or_default();
            a.sort();
            a
        };
        if sorted(&t["change"]["replace_paths"]) != sorted(&h["change"]["replace_paths"]) {
            problems.push(format!(
                "{address}.change.replace_paths: terraform {}, harness {}",
                t["change"]["replace_paths"], h["change"]["replace_paths"]
            ));
        }
    }
}

/// Compares `values.root_module.resources[]` entry by entry.
fn compare_states(terraform: &Json, harness: &Json, problems: &mut Vec<String>) {
    same(
        "state outputs",
        &terraform["values"]["outputs"],
        &harness["values"]["outputs"],
        problems,
    );
    let empty = Vec::new();
    let tf = terraform["values"]["root_module"]["resources"]
        .as_array()
        .unwrap_or(&empty);
    let ours = harness["values"]["root_module"]["resources"]
        .as_array()
        .unwrap_or(&empty);
    let addrs = |rs: &[Json]| -> Vec<String> {
        rs.iter()
            .map(|r| r["address"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    let (mut a, mut b) = (addrs(tf), addrs(ours));
    a.sort();
    b.sort();
    if a != b {
        problems.push(format!("state: terraform has {a:?}, the harness {b:?}"));
        return;
    }
    for t in tf {
        let address = t["address"].as_str().unwrap_or("");
        let Some(h) = ours.iter().find(|h| h["address"] == address) else {
            continue;
        };
        for field in [
            "mode",
            "type",
            "name",
            "index",
            "provider_name",
            "schema_version",
            "values",
            "sensitive_values",
            "depends_on",
            "tainted",
        ] {
            same(
                &format!("state {address}.{field}"),
                &t[field],
                &h[field],
                problems,
            );
        }
    }
}

fn same(what: &str, terraform: &Json, harness: &Json, problems: &mut Vec<String>) {
    if std::env::var_os("HARNESS_SHOW").is_some() {
        eprintln!("{what}: {terraform}");
    }
    if terraform != harness {
        problems.push(format!(
            "{what}:\n    terraform {terraform}\n    harness   {harness}"
        ));
    }
}

// ---- running --------------------------------------------------------------

struct Outcome {
    problems: Vec<String>,
    compared: usize,
}

fn run_scenario(
    root: &Path,
    n: usize,
    s: &Scenario,
    cli_time: &mut Duration,
    harness_time: &mut Duration,
) -> Result<Outcome, String> {
    let mut cli = Cli::new(root, n, s.provider);
    let harness_store = root.join(format!("h-{n}-store"));
    let _ = std::fs::remove_dir_all(&harness_store);
    let start = Instant::now();
    let mut h = s
        .provider
        .harness()
        .map_err(|d| format!("the harness cannot start: {d}"))?;
    *harness_time += start.elapsed();
    let mut problems = Vec::new();
    let mut compared = 0;
    for (i, step) in s.steps.iter().enumerate() {
        let mut p = Vec::new();
        let htime = Instant::now();
        // The harness first (timed alone), then Terraform.
        let ours: Result<(Option<Json>, Option<Json>), Diagnostics> = (|| {
            Ok(match step {
                Step::Apply(doc) => {
                    configure(&mut h, doc(&harness_store))?;
                    let plan = h.plan()?;
                    let state = h.apply_plan(&plan)?;
                    (
                        Some(exact_doc(plan.to_json_text())?),
                        Some(exact_doc(state.to_json_text())?),
                    )
                }
                Step::Plan(doc) => {
                    configure(&mut h, doc(&harness_store))?;
                    (Some(exact_doc(h.plan()?.to_json_text())?), None)
                }
                Step::Refresh(doc) => {
                    configure(&mut h, doc(&harness_store))?;
                    (None, Some(exact_doc(h.refresh()?.to_json_text())?))
                }
                Step::Import(doc, address, id) => {
                    configure(&mut h, doc(&harness_store))?;
                    (
                        None,
                        Some(exact_doc(h.import(address, id)?.to_json_text())?),
                    )
                }
                Step::Destroy(doc) => {
                    configure(&mut h, doc(&harness_store))?;
                    (None, Some(exact_doc(h.destroy()?.to_json_text())?))
                }
                Step::PlanFails(doc) => {
                    configure(&mut h, doc(&harness_store))?;
                    match h.plan() {
                        Ok(_) => return Err(Diagnostics::error("the harness accepted the plan")),
                        Err(d) => (Some(json!({ "errors": harness_errors(&d) })), None),
                    }
                }
                Step::ApplyFails(doc) => {
                    configure(&mut h, doc(&harness_store))?;
                    let plan = h.plan()?;
                    match h.apply_plan(&plan) {
                        Ok(_) => return Err(Diagnostics::error("the harness accepted the apply")),
                        Err(d) => (
                            Some(exact_doc(plan.to_json_text())?),
                            Some(
                                json!({ "errors": harness_errors(&d), "state": exact_doc(h.state()?.to_json_text())? }),
                            ),
                        ),
                    }
                }
                Step::Outside(f) => {
                    f(&harness_store);
                    (None, None)
                }
            })
        })();
        *harness_time += htime.elapsed();
        let (hplan, hstate) = ours.map_err(|d| format!("step {i}: the harness failed: {d}"))?;
        match step {
            Step::Apply(doc) => {
                cli.write(*doc);
                cli.ok(PLAN)?;
                let plan = cli.show_plan()?;
                cli.ok(&["apply", "-input=false", "-no-color", "-json", "tfplan"])?;
                let state = cli.show_state()?;
                compare_plans(&plan, hplan.as_ref().unwrap_or(&Json::Null), &mut p);
                compare_states(&state, hstate.as_ref().unwrap_or(&Json::Null), &mut p);
                compared += 2;
            }
            Step::Plan(doc) => {
                cli.write(*doc);
                cli.ok(PLAN)?;
                let plan = cli.show_plan()?;
                compare_plans(&plan, hplan.as_ref().unwrap_or(&Json::Null), &mut p);
                compared += 1;
            }
            Step::Refresh(doc) => {
                cli.write(*doc);
                cli.ok(&[
                    "apply",
                    "-refresh-only",
                    "-auto-approve",
                    "-input=false",
                    "-no-color",
                    "-json",
                ])?;
                compare_states(
                    &cli.show_state()?,
                    hstate.as_ref().unwrap_or(&Json::Null),
                    &mut p,
                );
                compared += 1;
            }
            Step::Import(doc, address, id) => {
                cli.write(*doc);
                cli.ok(&["import", "-input=false", "-no-color", address, id])?;
                compare_states(
                    &cli.show_state()?,
                    hstate.as_ref().unwrap_or(&Json::Null),
                    &mut p,
                );
                compared += 1;
            }
            Step::Destroy(doc) => {
                cli.write(*doc);
                cli.ok(&[
                    "destroy",
                    "-auto-approve",
                    "-input=false",
                    "-no-color",
                    "-json",
                ])?;
                compare_states(
                    &cli.show_state()?,
                    hstate.as_ref().unwrap_or(&Json::Null),
                    &mut p,
                );
                compared += 1;
            }
            Step::PlanFails(doc) => {
                cli.write(*doc);
                let (code, text) = cli.run(PLAN);
                if code == 0 {
                    return Err(format!("step {i}: terraform accepted the plan"));
                }
                let tf_errors = json!({ "errors": Cli::errors(&text) });
                same(
                    &format!("step {i}: the plan's errors"),
                    &tf_errors,
                    hplan.as_ref().unwrap_or(&Json::Null),
                    &mut p,
                );
                compared += 1;
            }
            Step::ApplyFails(doc) => {
                cli.write(*doc);
                cli.ok(PLAN)?;
                let plan = cli.show_plan()?;
                compare_plans(&plan, hplan.as_ref().unwrap_or(&Json::Null), &mut p);
                let (code, text) =
                    cli.run(&["apply", "-input=false", "-no-color", "-json", "tfplan"]);
                if code == 0 {
                    return Err(format!("step {i}: terraform accepted the apply"));
                }
                let hs = hstate.unwrap_or(Json::Null);
                let tf_errors = json!(Cli::errors(&text));
                same(
                    &format!("step {i}: the apply's errors"),
                    &tf_errors,
                    &hs["errors"],
                    &mut p,
                );
                compare_states(&cli.show_state()?, &hs["state"], &mut p);
                compared += 3;
            }
            Step::Outside(f) => f(&cli.store),
        }
        for x in p {
            problems.push(format!("step {i}: {x}"));
        }
    }
    *cli_time += cli.time;
    Ok(Outcome { problems, compared })
}

/// Serves `name` as Terraform starts it (this binary, run by the
/// provider script).
fn serve(name: &str) {
    match name {
        "kv" => kv::provider().run(),
        "test" => e2e_provider::main(),
        "check" => {
            let rt = tokio::runtime::Runtime::new().expect("a runtime");
            rt.block_on(ctywire_tfplugin6::serve(check::Check));
        }
        "sets" => sets::provider().run(),
        other => {
            eprintln!("no provider {other:?}");
            std::process::exit(2);
        }
    }
}

/// A directory Terraform's dev_overrides points at, holding
/// `terraform-provider-TYPE`: a script running this binary with
/// `--serve NAME`.
fn provider_dir(root: &Path, which: Which) -> std::io::Result<()> {
    let dir = root.join(format!("bin-{}", which.serve_name()));
    std::fs::create_dir_all(&dir)?;
    let exe = std::env::current_exe()?;
    let ty = which.source().0.rsplit('/').next().unwrap_or("x");
    let script = dir.join(format!("terraform-provider-{ty}"));
    let quoted = format!("'{}'", exe.display().to_string().replace('\'', r"'\''"));
    std::fs::write(
        &script,
        format!("#!/bin/sh\nexec {quoted} --serve {}\n", which.serve_name()),
    )?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

/// Which scenarios a run takes, read from libtest's command line as
/// `cargo test -- ...` passes it: names that contain a filter (or equal
/// it, with `--exact`), minus those `--skip` names. libtest's other flags
/// are accepted, those that take a value with their value, so a value
/// (`--test-threads 2`) is never read as a filter.
#[derive(Debug, Default, PartialEq)]
struct Selection {
    filters: Vec<String>,
    skips: Vec<String>,
    exact: bool,
    list: bool,
}

/// libtest's options that take a value (`--name VALUE` or `--name=VALUE`).
const WITH_VALUE: &[&str] = &[
    "--test-threads",
    "--skip",
    "--format",
    "--color",
    "--logfile",
    "--shuffle-seed",
    "-Z",
];

impl Selection {
    fn parse(args: &[String]) -> Result<Selection, String> {
        let mut s = Selection::default();
        let mut args = args.iter();
        while let Some(a) = args.next() {
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) if n.starts_with('-') => (n, Some(v.to_owned())),
                _ => (a.as_str(), None),
            };
            if WITH_VALUE.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => args
                        .next()
                        .cloned()
                        .ok_or_else(|| format!("{name} takes a value"))?,
                };
                if name == "--skip" {
                    s.skips.push(value);
                }
            } else if name == "--exact" {
                s.exact = true;
            } else if name == "--list" {
                s.list = true;
            } else if !name.starts_with('-') {
                s.filters.push(a.clone());
            }
        }
        Ok(s)
    }

    fn matches(&self, f: &str, name: &str) -> bool {
        if self.exact {
            name == f
        } else {
            name.contains(f)
        }
    }

    fn takes(&self, name: &str) -> bool {
        (self.filters.is_empty() || self.filters.iter().any(|f| self.matches(f, name)))
            && !self.skips.iter().any(|f| self.matches(f, name))
    }
}

/// The runner's own behaviour (`--self-test`, run first by every run):
/// values are not filters, `--skip` skips, `--exact` is exact.
fn self_test() -> Result<(), String> {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let s = Selection::parse(&args(&["--test-threads", "2", "--color=never", "kv:"]))?;
    let want = Selection {
        filters: vec!["kv:".into()],
        ..Selection::default()
    };
    if s != want {
        return Err(format!("the runner read {s:?}"));
    }
    let s = Selection::parse(&args(&["kv:", "--skip", "import", "--skip=deleted"]))?;
    let taken: Vec<&str> = ["kv: import of x", "kv: deleted", "kv: create", "check: x"]
        .into_iter()
        .filter(|n| s.takes(n))
        .collect();
    if taken != ["kv: create"] {
        return Err(format!("--skip: the runner took {taken:?}"));
    }
    let s = Selection::parse(&args(&["--exact", "kv"]))?;
    if s.takes("kv: create") || !s.takes("kv") {
        return Err("--exact: the runner matched a part of a name".into());
    }
    if Selection::parse(&args(&["--skip"])).is_ok() {
        return Err("--skip without a value was accepted".into());
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--serve") {
        serve(args.get(i + 1).map(String::as_str).unwrap_or(""));
        return;
    }
    if let Err(e) = self_test() {
        println!("the runner's self-test failed: {e}");
        std::process::exit(1);
    }
    let selection = match Selection::parse(&args[1..]) {
        Ok(s) => s,
        Err(e) => {
            println!("error: {e}");
            std::process::exit(2);
        }
    };
    let all = scenarios();
    let chosen: Vec<(usize, &Scenario)> = all
        .iter()
        .enumerate()
        .filter(|(_, s)| selection.takes(s.name))
        .collect();
    if selection.list {
        for (_, s) in &chosen {
            println!("{}: test", s.name);
        }
        return;
    }
    // A run that compares nothing proves nothing: a filter that matches
    // no scenario is an error, not a pass.
    if chosen.is_empty() {
        println!(
            "error: no scenario matches {:?} (skipping {:?}); `-- --list` lists them",
            selection.filters, selection.skips
        );
        std::process::exit(1);
    }
    if !support::terraform_available() {
        return;
    }
    let root = std::env::temp_dir().join(format!("ctywire-harness-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for w in [Which::Kv, Which::Test, Which::Check, Which::Sets] {
        provider_dir(&root, w).expect("the provider scripts");
    }
    let (mut cli_time, mut harness_time) = (Duration::ZERO, Duration::ZERO);
    let mut failed = 0;
    let mut ran = 0;
    for (n, s) in chosen {
        ran += 1;
        let (mut cli, mut ours) = (Duration::ZERO, Duration::ZERO);
        let outcome = run_scenario(&root, n, s, &mut cli, &mut ours);
        cli_time += cli;
        harness_time += ours;
        match outcome {
            Ok(o) if o.problems.is_empty() => println!(
                "test {} ... ok ({} comparisons; terraform {:.2} s, harness {:.2} ms: {:.0}x)",
                s.name,
                o.compared,
                cli.as_secs_f64(),
                ours.as_secs_f64() * 1000.0,
                cli.as_secs_f64() / ours.as_secs_f64().max(1e-9)
            ),
            Ok(o) => {
                failed += 1;
                println!("test {} ... FAILED", s.name);
                for p in o.problems {
                    println!("    {p}");
                }
            }
            Err(e) => {
                failed += 1;
                println!("test {} ... FAILED\n    {e}", s.name);
            }
        }
    }
    println!(
        "\n{ran} scenarios, {failed} failed; the same steps took terraform {:.1} s and the harness {:.1} ms ({:.0}x)",
        cli_time.as_secs_f64(),
        harness_time.as_secs_f64() * 1000.0,
        cli_time.as_secs_f64() / harness_time.as_secs_f64().max(1e-9)
    );
    if failed == 0 {
        let _ = std::fs::remove_dir_all(&root);
    } else {
        std::process::exit(1);
    }
}
