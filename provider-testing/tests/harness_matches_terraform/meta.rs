//! Scenarios for Terraform's meta-arguments and blocks: `count`,
//! `for_each`, `depends_on`, `lifecycle` (`prevent_destroy`,
//! `ignore_changes`, `replace_triggered_by`), `moved` and `import`,
//! each run through Terraform 1.11 and the harness.

use std::path::Path;

use serde_json::Value as Json;

use super::{hcl_kv, write_entry_a, Scenario, Step, Which};

/// `count` instances referring to `count.index`, and a resource using
/// one instance and the whole resource (a tuple).
fn count_of(store: &Path, n: u32) -> Json {
    hcl_kv(
        store,
        &format!(
            r#"
variable "n" {{ default = {n} }}
resource "kv_entry" "a" {{
  count = var.n
  key   = "a-${{count.index}}"
  value = "v${{count.index}}"
}}
resource "kv_entry" "b" {{
  key   = "b"
  value = kv_entry.a[0].id
  tags  = {{ n = length(kv_entry.a), first = kv_entry.a[0].key }}
}}
output "first" {{
  value = kv_entry.a[0].key
}}
"#
        ),
    )
}

fn count_2(store: &Path) -> Json {
    count_of(store, 2)
}
fn count_3(store: &Path) -> Json {
    count_of(store, 3)
}
fn count_1(store: &Path) -> Json {
    count_of(store, 1)
}

/// `for_each` over a set of strings, then a map: `each.key`,
/// `each.value`, and references by key and to the whole (an object).
fn for_each_set(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "m" {
  for_each = toset(["x", "y"])
  key      = "m-${each.key}"
  value    = each.value
}
resource "kv_entry" "user" {
  key   = "user"
  value = kv_entry.m["x"].id
  tags  = { n = length(kv_entry.m), y = kv_entry.m["y"].key }
}
"#,
    )
}

fn for_each_map(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
variable "entries" {
  type    = map(string)
  default = { x = "one", z = "three" }
}
resource "kv_entry" "m" {
  for_each = var.entries
  key      = "m-${each.key}"
  value    = each.value
  tags     = { key = each.key }
}
resource "kv_entry" "user" {
  key   = "user"
  value = kv_entry.m["x"].id
  tags  = { n = length(kv_entry.m), z = kv_entry.m["z"].key }
}
"#,
    )
}

/// `for_each` over an object with a sensitive attribute: allowed (the
/// object itself is not sensitive), and that instance's `each.value` is
/// sensitive.
fn for_each_sensitive_value(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
variable "secret" {
  default   = "hunter2"
  sensitive = true
}
resource "kv_entry" "m" {
  for_each = { x = var.secret, y = "plain" }
  key      = "m-${each.key}"
  value    = "v"
  tags     = { v = each.value, k = each.key }
}
"#,
    )
}

/// A data source with `count` (read during plan) and one with
/// `for_each` whose configuration is unknown until apply (read then),
/// referred to by instance and as a whole.
fn data_repeated(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "a" {
  key   = "a"
  value = "one"
}
data "kv_entries" "counted" {
  count  = 2
  prefix = ["a", "b"][count.index]
}
data "kv_entries" "each" {
  for_each = toset(["x"])
  prefix   = "${each.key}${kv_entry.a.revision}"
}
resource "kv_entry" "b" {
  key   = "b"
  value = "seen"
  tags  = { n = length(data.kv_entries.counted), first = join(",", data.kv_entries.counted[0].keys), x = data.kv_entries.each["x"].prefix }
}
output "counted" {
  value = data.kv_entries.counted[1].prefix
}
"#,
    )
}

/// `depends_on` between managed resources: recorded in state, and the
/// destroy goes in reverse.
fn depends_on(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "a" {
  key   = "a"
  value = "one"
}
resource "kv_entry" "b" {
  key        = "b"
  value      = "two"
  depends_on = [kv_entry.a]
}
"#,
    )
}

fn prevent_destroy_with(store: &Path, key: &str) -> Json {
    hcl_kv(
        store,
        &format!(
            r#"
resource "kv_entry" "a" {{
  key   = "{key}"
  value = "one"
  lifecycle {{
    prevent_destroy = true
  }}
}}
"#
        ),
    )
}

fn prevent_destroy(store: &Path) -> Json {
    prevent_destroy_with(store, "a")
}

/// The key requires replacement: the replace would destroy.
fn prevent_destroy_rekeyed(store: &Path) -> Json {
    prevent_destroy_with(store, "a2")
}

fn ignore_changes_with(store: &Path, value: &str, env: &str, ignore: &str) -> Json {
    hcl_kv(
        store,
        &format!(
            r#"
resource "kv_entry" "a" {{
  key   = "a"
  value = "{value}"
  tags  = {{ env = "{env}", team = "{value}" }}
  lifecycle {{
    ignore_changes = {ignore}
  }}
}}
"#
        ),
    )
}

fn ignore_changes(store: &Path) -> Json {
    ignore_changes_with(store, "one", "test", r#"[value, tags["env"]]"#)
}

/// `value` and `tags["env"]` change and are ignored; `tags["team"]` too,
/// and is not.
fn ignore_changes_changed(store: &Path) -> Json {
    ignore_changes_with(store, "two", "prod", r#"[value, tags["env"]]"#)
}

fn ignore_all(store: &Path) -> Json {
    ignore_changes_with(store, "one", "test", "all")
}

fn ignore_all_changed(store: &Path) -> Json {
    ignore_changes_with(store, "two", "prod", "all")
}

fn triggers_with(store: &Path, value: &str) -> Json {
    hcl_kv(
        store,
        &format!(
            r#"
resource "kv_entry" "a" {{
  key   = "a"
  value = "{value}"
}}
resource "kv_entry" "b" {{
  key   = "b"
  value = "b"
  lifecycle {{
    replace_triggered_by = [kv_entry.a]
  }}
}}
resource "kv_entry" "c" {{
  count = 2
  key   = "c${{count.index}}"
  value = "c"
  lifecycle {{
    replace_triggered_by = [kv_entry.a.tags]
  }}
}}
"#
        ),
    )
}

fn triggers(store: &Path) -> Json {
    triggers_with(store, "one")
}

/// `a` is updated: `b` is replaced by its trigger; `c`'s trigger names
/// `a.tags`, which does not change.
fn triggers_changed(store: &Path) -> Json {
    triggers_with(store, "two")
}

fn moved_start(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "a" {
  key   = "a"
  value = "one"
}
resource "kv_entry" "old" {
  key   = "old"
  value = "x"
}
"#,
    )
}

/// `a` moves to `b` (unchanged), `old` into `new[0]` (with an update),
/// and a move from what is not in state (`never` to `c`) does nothing.
fn moved(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "b" {
  key   = "a"
  value = "one"
}
resource "kv_entry" "new" {
  count = 1
  key   = "old"
  value = "y"
}
moved {
  from = kv_entry.a
  to   = kv_entry.b
}
moved {
  from = kv_entry.old
  to   = kv_entry.new[0]
}
moved {
  from = kv_entry.never
  to   = kv_entry.c
}
resource "kv_entry" "c" {
  key   = "c"
  value = "z"
}
"#,
    )
}

/// A resource without `count`, then with it, then without: core's
/// implied moves take `a` to `a[0]` and back.
fn implied_with(store: &Path, count: &str, key: &str) -> Json {
    hcl_kv(
        store,
        &format!(
            r#"
resource "kv_entry" "a" {{
  {count}
  key   = {key}
  value = "one"
}}
"#
        ),
    )
}

fn implied_single(store: &Path) -> Json {
    implied_with(store, "", r#""a""#)
}

fn implied_counted(store: &Path) -> Json {
    implied_with(store, "count = 2", r#"["a", "a1"][count.index]"#)
}

/// An `import` block for the entry written outside Terraform; its
/// configuration differs in `value`, so the import plans an update.
fn import_block(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
variable "id" { default = "a" }
import {
  to = kv_entry.a
  id = var.id
}
resource "kv_entry" "a" {
  key   = "a"
  value = "changed"
  tags  = { env = "test" }
  ports = [80, 443]
  rule {
    port = 80
  }
  rule {
    port = 443
    note = "tls"
  }
}
"#,
    )
}

/// An `import` block whose target instance the configuration does not
/// declare (`count` makes one instance, the block names `[1]`).
fn import_undeclared(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
import {
  to = kv_entry.a[1]
  id = "a"
}
resource "kv_entry" "a" {
  count = 1
  key   = "a"
  value = "one"
}
"#,
    )
}

/// `count` from an attribute unknown until apply.
fn count_unknown(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "a" {
  key   = "a"
  value = "one"
}
resource "kv_entry" "n" {
  count = kv_entry.a.revision
  key   = "n${count.index}"
  value = "v"
}
"#,
    )
}

/// `for_each` over a list, which core refuses.
fn for_each_list(store: &Path) -> Json {
    hcl_kv(
        store,
        r#"
resource "kv_entry" "m" {
  for_each = ["x"]
  key      = each.key
  value    = "v"
}
"#,
    )
}

pub fn scenarios() -> Vec<Scenario> {
    use Step::*;
    vec![
        Scenario {
            name: "meta: count adds and removes instances, referred to one by one and as a whole",
            provider: Which::Kv,
            steps: vec![
                Apply(count_2),
                Plan(count_2),
                Apply(count_3),
                Apply(count_1),
                Destroy(count_1),
            ],
        },
        Scenario {
            name: "meta: for_each over a set, then a map, adds and removes instances by key",
            provider: Which::Kv,
            steps: vec![Apply(for_each_set), Apply(for_each_map), Plan(for_each_map)],
        },
        Scenario {
            name: "meta: for_each over an object with a sensitive value keeps each.value sensitive",
            provider: Which::Kv,
            steps: vec![Apply(for_each_sensitive_value)],
        },
        Scenario {
            name: "meta: data sources with count and for_each, read during plan and during apply",
            provider: Which::Kv,
            steps: vec![
                Apply(data_repeated),
                Plan(data_repeated),
                Refresh(data_repeated),
            ],
        },
        Scenario {
            name: "meta: depends_on orders resources and is kept in state",
            provider: Which::Kv,
            steps: vec![Apply(depends_on), Destroy(depends_on)],
        },
        Scenario {
            name: "meta: prevent_destroy refuses a plan that replaces the resource",
            provider: Which::Kv,
            steps: vec![Apply(prevent_destroy), PlanFails(prevent_destroy_rekeyed)],
        },
        Scenario {
            name: "meta: ignore_changes keeps ignored attributes and map keys as they are",
            provider: Which::Kv,
            steps: vec![Apply(ignore_changes), Apply(ignore_changes_changed)],
        },
        Scenario {
            name: "meta: ignore_changes = all plans nothing when the configuration changes",
            provider: Which::Kv,
            steps: vec![Apply(ignore_all), Apply(ignore_all_changed)],
        },
        Scenario {
            name: "meta: replace_triggered_by replaces when the resource it names is updated",
            provider: Which::Kv,
            steps: vec![
                Apply(triggers),
                Apply(triggers_changed),
                Plan(triggers_changed),
            ],
        },
        Scenario {
            name: "meta: moved blocks move objects in state, shown with their previous address",
            provider: Which::Kv,
            steps: vec![Apply(moved_start), Apply(moved), Plan(moved)],
        },
        Scenario {
            name: "meta: a resource that gains count moves to [0], and back when it loses it",
            provider: Which::Kv,
            steps: vec![
                Apply(implied_single),
                Apply(implied_counted),
                Apply(implied_single),
            ],
        },
        Scenario {
            name: "meta: an import block imports during plan and the apply keeps the object",
            provider: Which::Kv,
            steps: vec![
                Outside(write_entry_a),
                Apply(import_block),
                Plan(import_block),
            ],
        },
        Scenario {
            name: "meta: an import block for an instance the configuration lacks is refused",
            provider: Which::Kv,
            steps: vec![Outside(write_entry_a), PlanFails(import_undeclared)],
        },
        Scenario {
            name: "meta: a count unknown until apply is refused in core's words",
            provider: Which::Kv,
            steps: vec![PlanFails(count_unknown)],
        },
        Scenario {
            name: "meta: for_each over a list is refused in core's words",
            provider: Which::Kv,
            steps: vec![PlanFails(for_each_list)],
        },
    ]
}
