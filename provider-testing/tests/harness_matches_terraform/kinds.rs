//! Scenarios for the kinds of things a configuration holds beyond managed
//! resources and data sources: ephemeral resources (the `check` provider's
//! `check_token`) and Terraform's collection and encoding functions.

use std::path::Path;

use ctywire::schema::{Attribute, Block, Schema};
use ctywire::{Type, Value};
use ctywire_tfplugin6::{Diagnostics, OpenEphemeralResourceRequest, OpenEphemeralResourceResponse};
use serde_json::Value as Json;

use super::{hcl_kv, Scenario, Step, Which};

/// `check_token`: an ephemeral resource whose `value` is a token made of
/// its `name`.
pub fn token_schema() -> Schema {
    Schema::new(
        Block::new()
            .attribute(Attribute::new("name", Type::String).required())
            .attribute(Attribute::new("value", Type::String).computed()),
    )
}

/// `check_token`'s open: `value` is `token-NAME`.
pub fn open_token(
    req: OpenEphemeralResourceRequest,
) -> Result<OpenEphemeralResourceResponse, Diagnostics> {
    let name = req
        .config
        .attr("name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let result = req
        .config
        .with_attr("value", Value::string(format!("token-{name}")))?;
    Ok(OpenEphemeralResourceResponse {
        result,
        private: None,
        renew_at: None,
        diagnostics: Diagnostics::new(),
        deferred: None,
    })
}

fn hcl_check(body: &str) -> Json {
    Json::String(format!(
        r#"
terraform {{
  required_providers {{
    check = {{ source = "ctywire/check" }}
  }}
}}
{body}
"#
    ))
}

/// An ephemeral token into a write-only attribute, directly and through
/// a local; the apply computes the password's length from it.
fn ephemeral_write_only(_: &Path) -> Json {
    hcl_check(
        r#"
ephemeral "check_token" "db" {
  name = "db"
}
locals {
  password = "${ephemeral.check_token.db.value}!"
}
resource "check_secret" "direct" {
  name     = "direct"
  password = ephemeral.check_token.db.value
}
resource "check_secret" "local" {
  name     = "local"
  password = local.password
}
"#,
    )
}

/// The token's configuration is unknown until a resource is created: not
/// opened at plan, opened at apply.
fn ephemeral_unknown_at_plan(_: &Path) -> Json {
    hcl_check(
        r#"
resource "check_secret" "a" {
  name = "a"
}
ephemeral "check_token" "later" {
  name = check_secret.a.id
}
resource "check_secret" "b" {
  name     = "b"
  password = ephemeral.check_token.later.value
}
"#,
    )
}

fn ephemeral_in_normal_attribute(_: &Path) -> Json {
    hcl_check(
        r#"
ephemeral "check_token" "db" {
  name = "db"
}
resource "check_secret" "s" {
  name = "s"
  note = ephemeral.check_token.db.value
}
"#,
    )
}

/// In a nested block, core's walk up from the attribute ends at the block,
/// which is no attribute at all.
fn ephemeral_in_nested_block(_: &Path) -> Json {
    hcl_check(
        r#"
ephemeral "check_token" "db" {
  name = "db"
}
resource "check_group" "g" {
  name = "g"
  member {
    name = ephemeral.check_token.db.value
  }
}
"#,
    )
}

fn ephemeral_in_output(_: &Path) -> Json {
    hcl_check(
        r#"
ephemeral "check_token" "db" {
  name = "db"
}
output "token" {
  value = ephemeral.check_token.db.value
}
"#,
    )
}

/// merge, concat, coalesce, try, jsondecode and abspath in expressions,
/// their results in attributes and outputs.
fn functions(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
locals {
  base = { env = "test", team = "a" }
  doc  = jsondecode("{\"name\":\"web\",\"ports\":[80,443],\"ratio\":0.1000000000000000000001,\"on\":true,\"none\":null}")
}
resource "kv_entry" "a" {
  key   = coalesce("", null, "fn-${local.doc.name}")
  value = jsonencode(concat(local.doc.ports, [8080], ["x", local.doc.ratio, local.doc.on]))
  tags  = merge(local.base, { team = "b", extra = try(local.doc.missing, "fallback") }, tomap({ k = "v" }))
  ports = concat(tolist([22]), tolist([443]))
}
resource "kv_entry" "b" {
  key   = "${kv_entry.a.key}-b"
  value = coalesce(try(jsondecode(kv_entry.a.key), ""), kv_entry.a.id)
  tags  = merge(kv_entry.a.tags, { path = abspath("/srv/./data/../www//") })
}
output "doc" {
  value = local.doc
}
output "merged" {
  value = merge({ a = 1 }, { b = "x" }, null)
}
output "later" {
  value = try(kv_entry.a.revision, 0)
}
"#,
    )
}

fn function_error(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "a" {
  key   = "a"
  value = jsondecode("{\"a\" 1}")
}
"#,
    )
}

fn function_argument_error(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "a" {
  key   = "a"
  value = "v"
  tags  = merge({ a = "b" }, "c")
}
"#,
    )
}

/// `hcl_kv` with a second configuration of kv, `kv.other`, whose store
/// is a directory of its own.
fn hcl_kv_other(store: &Path, body: &str) -> Json {
    let other = Json::String(store.join("other").display().to_string());
    hcl_kv(
        store,
        &format!("provider \"kv\" {{\n  alias = \"other\"\n  root  = {other}\n}}\n{body}"),
    )
}

/// Two configurations of kv, each with its own store directory: `b` and
/// the data source go through the alias. The data source waits for every
/// resource it could list (without `b` in its `depends_on`, Terraform
/// reads it while `b` is being created, listing `b` or not as the race
/// goes).
fn aliases_with(store: &Path, with_b: bool) -> Json {
    let depends_on = match with_b {
        true => "[kv_entry.a, kv_entry.b]",
        false => "[kv_entry.a]",
    };
    let b = match with_b {
        true => {
            r#"
resource "kv_entry" "b" {
  provider = kv.other
  key      = "b"
  value    = kv_entry.a.id
}
"#
        }
        false => "",
    };
    hcl_kv_other(
        store,
        &format!(
            r#"
resource "kv_entry" "a" {{
  key   = "a"
  value = "one"
}}
{b}
data "kv_entries" "other" {{
  provider   = kv.other
  depends_on = {depends_on}
}}
output "other_keys" {{
  value = data.kv_entries.other.keys
}}
"#
        ),
    )
}

fn aliases(store: &Path) -> Json {
    aliases_with(store, true)
}

fn aliases_b_removed(store: &Path) -> Json {
    aliases_with(store, false)
}

/// Aliases per instance: a resource with `count` and a data source with
/// `for_each`, both through `kv.other` (their keys land in its store);
/// an instance dropped is destroyed through it with core's reason.
fn aliased_instances_of(store: &Path, n: u32) -> Json {
    hcl_kv_other(
        store,
        &format!(
            r#"
resource "kv_entry" "n" {{
  provider = kv.other
  count    = {n}
  key      = "n${{count.index}}"
  value    = "v${{count.index}}"
}}
data "kv_entries" "by" {{
  provider   = kv.other
  for_each   = toset(["n0", "n1"])
  prefix     = each.key
  depends_on = [kv_entry.n]
}}
output "first" {{
  value = kv_entry.n[0].id
}}
output "n1_keys" {{
  value = data.kv_entries.by["n1"].keys
}}
"#
        ),
    )
}

fn aliased_instances_2(store: &Path) -> Json {
    aliased_instances_of(store, 2)
}

fn aliased_instances_1(store: &Path) -> Json {
    aliased_instances_of(store, 1)
}

pub fn scenarios() -> Vec<Scenario> {
    use Step::*;
    vec![
        Scenario {
            name: "ephemeral: a token into write-only attributes, directly and through a local, kept out of plan and state",
            provider: Which::Check,
            steps: vec![Apply(ephemeral_write_only), Plan(ephemeral_write_only)],
        },
        Scenario {
            name: "ephemeral: a configuration unknown at plan is opened at apply",
            provider: Which::Check,
            steps: vec![Apply(ephemeral_unknown_at_plan)],
        },
        Scenario {
            name: "ephemeral: a value in an attribute that is not write-only is refused",
            provider: Which::Check,
            steps: vec![PlanFails(ephemeral_in_normal_attribute)],
        },
        Scenario {
            name: "ephemeral: a value in a nested block's attribute is refused",
            provider: Which::Check,
            steps: vec![PlanFails(ephemeral_in_nested_block)],
        },
        Scenario {
            name: "ephemeral: a value in a root module output is refused",
            provider: Which::Check,
            steps: vec![PlanFails(ephemeral_in_output)],
        },
        Scenario {
            name: "aliases: a second kv configuration with its own store, for a resource and a data source; its object destroyed through it",
            provider: Which::Kv,
            steps: vec![Apply(aliases), Plan(aliases), Apply(aliases_b_removed)],
        },
        Scenario {
            name: "aliases per instance: count and for_each through kv.other; the instance dropped destroyed through it",
            provider: Which::Kv,
            steps: vec![
                Apply(aliased_instances_2),
                Plan(aliased_instances_2),
                Apply(aliased_instances_1),
            ],
        },
        Scenario {
            name: "functions: merge, concat, coalesce, try, jsondecode and abspath in attributes and outputs",
            provider: Which::Kv,
            steps: vec![Apply(functions), Plan(functions)],
        },
        Scenario {
            name: "functions: jsondecode's syntax error in Terraform's words",
            provider: Which::Kv,
            steps: vec![PlanFails(function_error)],
        },
        Scenario {
            name: "functions: merge of a string in Terraform's words",
            provider: Which::Kv,
            steps: vec![PlanFails(function_argument_error)],
        },
    ]
}
