//! The provider's operations against real scripts: Deno children written
//! from the denobridge protocol document (`tests/scripts/*.ts`) and a Python
//! child run through `command`, each in a fresh temporary directory. Each
//! test is named for the behaviour it shows; the ones that fix a denobridge
//! defect say so.
//!
//! Deno comes from `scripts/test-peers.sh` (target/peers), `$DENO_BINARY`
//! or `PATH`; without it (or without python3 for the Python test) a test
//! says `SKIPPED: <tool> is missing: <why>` and passes, except under
//! `CI=true`, where it fails (`support::missing`).

use std::path::PathBuf;
use std::time::Duration;

use ctywire::{Number, Path, Type, Value};
use denobridge::data::Opened;
use denobridge::resource::{import_resource, Applied, ApplyRequest, Plan, PlanRequest};
use denobridge::{schema, Runner, Severity};

mod support;
use support::{deno, missing, ScriptDir};

const SCRIPTS: [(&str, &str); 5] = [
    ("rpc.ts", include_str!("scripts/rpc.ts")),
    ("resource.ts", include_str!("scripts/resource.ts")),
    ("datasource.ts", include_str!("scripts/datasource.ts")),
    ("ephemeral.ts", include_str!("scripts/ephemeral.ts")),
    ("resource.py", include_str!("scripts/resource.py")),
];

/// The scripts in a fresh directory (see `support::ScriptDir`), with the
/// log the resource script keeps.
struct Dir(ScriptDir);

impl Dir {
    fn new(name: &str) -> Dir {
        Dir(ScriptDir::new("denobridge-ops", name, &SCRIPTS))
    }

    fn script(&self, name: &str) -> String {
        self.0.script(name)
    }

    fn file(&self, name: &str) -> std::path::PathBuf {
        self.0 .0.join(name)
    }

    fn calls(&self) -> String {
        std::fs::read_to_string(self.file("store/calls.log")).unwrap_or_default()
    }
}

fn runner(deno: PathBuf) -> Runner {
    Runner {
        deno,
        command: None,
        timeout: Duration::from_secs(60),
    }
}

fn num(text: &str) -> Value {
    Value::number(Number::parse(text).unwrap())
}

fn strings(items: &[&str]) -> Vec<Value> {
    items.iter().map(|s| Value::string(*s)).collect()
}

/// Read and write, as `permissions = { allow = ["read", "write"] }`.
fn read_write() -> Value {
    Value::object([
        ("all", Value::null(Type::Bool)),
        (
            "allow",
            Value::list(Type::String, strings(&["read", "write"])).unwrap(),
        ),
        ("deny", Value::null(Type::list(Type::String))),
    ])
}

/// A `denobridge_resource` configuration.
fn resource_config(path: &str, props: Value, write_only: Value) -> Value {
    Value::object([
        ("config_file", Value::null(Type::String)),
        ("id", Value::null(Type::String)),
        ("path", Value::string(path)),
        ("permissions", read_write()),
        ("props", props),
        ("sensitive_state", Value::null(Type::Dynamic)),
        ("state", Value::null(Type::Dynamic)),
        ("write_only_props", write_only),
        ("write_only_props_version", Value::null(Type::Number)),
    ])
}

/// Terraform's proposed new state for an update: the configuration with
/// the computed attributes taken from the prior state.
fn proposed_update(prior: &Value, config: &Value) -> Value {
    let mut v = config
        .with_attr("write_only_props", Value::null(Type::Dynamic))
        .unwrap();
    for computed in ["id", "state", "sensitive_state", "write_only_props_version"] {
        v = v
            .with_attr(computed, prior.attr(computed).unwrap().clone())
            .unwrap();
    }
    v
}

/// The props of the lifecycle: every kind denobridge loses.
fn rich_props(name: &str) -> Value {
    Value::object([
        ("name", Value::string(name)),
        // past 2^64
        ("big", num("123456789012345678901234567890")),
        // 30 fractional digits
        ("fine", num("0.123456789012345678901234567891")),
        // past float64's range
        ("huge", num("1e400")),
        (
            "tags",
            Value::set(Type::String, strings(&["b", "a"])).unwrap(),
        ),
        (
            "nested",
            Value::object([(
                "labels",
                Value::map(
                    Type::String,
                    vec![("x".to_string(), "1".into()), ("y".to_string(), "2".into())],
                )
                .unwrap(),
            )]),
        ),
        ("pair", Value::tuple(vec!["x".into(), Value::number(7)])),
    ])
}

async fn plan(r: &Runner, prior: &Value, proposed: &Value, config: &Value, private: &[u8]) -> Plan {
    r.plan_resource(PlanRequest {
        prior,
        proposed,
        config,
        prior_private: private,
    })
    .await
}

async fn apply(
    r: &Runner,
    prior: &Value,
    planned: &Value,
    config: &Value,
    private: &[u8],
) -> Applied {
    r.apply_resource(ApplyRequest {
        prior,
        planned,
        config,
        planned_private: private,
    })
    .await
}

fn no_errors(d: &denobridge::Diagnostics) {
    assert!(!d.has_errors(), "{d:#?}");
}

fn null_resource() -> Value {
    Value::null(schema::resource().implied_type().unwrap())
}

/// Plans and applies a create; the new state and its private state.
/// What Terraform does for a new resource: plan it from nothing and apply
/// that plan, whatever either says (the caller looks at the diagnostics).
async fn plan_and_apply_new(r: &Runner, config: &Value) -> Applied {
    let p = plan(r, &null_resource(), config, config, &[]).await;
    apply(r, &null_resource(), &p.planned, config, &p.private).await
}

async fn create(r: &Runner, config: &Value) -> (Value, Vec<u8>) {
    let p = plan(r, &null_resource(), config, config, &[]).await;
    no_errors(&p.diags);
    let a = apply(r, &null_resource(), &p.planned, config, &p.private).await;
    no_errors(&a.diags);
    (a.new_state, a.private)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_lives_through_create_read_update_and_delete_losing_nothing() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("lifecycle");
    let r = runner(deno);
    let config = resource_config(
        &dir.script("resource.ts"),
        rich_props("first"),
        Value::null(Type::Dynamic),
    );

    let (state, private) = create(&r, &config).await;
    let id = state
        .attr("id")
        .and_then(Value::as_str)
        .unwrap()
        .to_string();
    assert!(id.starts_with("first-"), "{id}");
    assert_eq!(
        state.attr("write_only_props_version").unwrap(),
        &Value::number(1)
    );
    // Props are stored exactly as configured, kinds and all.
    assert_eq!(state.attr("props"), config.attr("props"));
    // What the script received, echoed into its state: exact numbers, and
    // the set as an array (denobridge sends the string "[\"a\",\"b\"]").
    let echo = state.attr("state").unwrap().attr("echo").unwrap();
    assert_eq!(
        echo.attr("big").unwrap(),
        &num("123456789012345678901234567890")
    );
    assert_eq!(
        echo.attr("fine").unwrap(),
        &num("0.123456789012345678901234567891")
    );
    assert_eq!(echo.attr("huge").unwrap(), &num("1e400"));
    assert_eq!(
        echo.attr("tags").unwrap(),
        &Value::tuple(strings(&["a", "b"]))
    );
    // The script's own exact number, and a mixed array (a crash in
    // denobridge, whose arrays come back as list(dynamic)).
    let st = state.attr("state").unwrap();
    assert_eq!(
        st.attr("big").unwrap(),
        &num("98765432109876543210987654321098765")
    );
    assert_eq!(
        st.attr("mixed").unwrap().ty().to_json(),
        r#"["tuple",["number","string","bool","dynamic"]]"#
    );
    let token = state
        .attr("sensitive_state")
        .unwrap()
        .attr("token")
        .unwrap();
    assert_eq!(token.as_str(), Some(format!("s3cret-{id}").as_str()));

    // Refresh: the props come back at the type Terraform sent (set, map,
    // tuple), so the state is unchanged and a re-plan is empty.
    let read = r.read_resource(&state, &private).await;
    no_errors(&read.diags);
    assert_eq!(read.new_state, state);
    let again = plan(
        &r,
        &state,
        &proposed_update(&state, &config),
        &config,
        &private,
    )
    .await;
    no_errors(&again.diags);
    assert_eq!(
        again.planned, state,
        "an unchanged resource plans no change"
    );

    // Update: changed props reach `update`, whose state is stored.
    let mut props2 = rich_props("first");
    props2 = props2
        .with_attr("fine", num("2.000000000000000000000000000001"))
        .unwrap();
    let config2 = resource_config(
        &dir.script("resource.ts"),
        props2.clone(),
        Value::null(Type::Dynamic),
    );
    let p = plan(
        &r,
        &state,
        &proposed_update(&state, &config2),
        &config2,
        &private,
    )
    .await;
    no_errors(&p.diags);
    assert!(p.requires_replace.is_empty());
    assert!(
        !p.planned.attr("state").unwrap().is_known(),
        "state is recomputed"
    );
    assert_eq!(p.planned.attr("id"), state.attr("id"));
    let a = apply(&r, &state, &p.planned, &config2, &p.private).await;
    no_errors(&a.diags);
    let updated = a.new_state;
    assert_eq!(updated.attr("id"), state.attr("id"));
    assert_eq!(updated.attr("props"), Some(&props2));
    let st = updated.attr("state").unwrap();
    assert_eq!(st.attr("updates").unwrap(), &Value::number(1));
    assert_eq!(
        st.attr("echo").unwrap().attr("fine").unwrap(),
        &num("2.000000000000000000000000000001")
    );
    assert!(
        dir.calls().contains(&format!("update {id} ")),
        "{}",
        dir.calls()
    );

    // Delete.
    let gone = apply(&r, &updated, &null_resource(), &null_resource(), &a.private).await;
    no_errors(&gone.diags);
    assert!(gone.new_state.is_null());
    assert!(!dir.file(&format!("store/{id}.json")).exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_props_at_plan_skip_modify_plan_and_stay_unknown() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("unknowns");
    let r = runner(deno);
    let props = Value::object([
        ("name", Value::string("second")),
        ("parent", Value::unknown(Type::String)),
    ]);
    let config = resource_config(
        &dir.script("resource.ts"),
        props.clone(),
        Value::null(Type::Dynamic),
    );
    let p = plan(&r, &null_resource(), &config, &config, &[]).await;
    no_errors(&p.diags);
    // denobridge would send `"parent": ""` to modifyPlan; here the script
    // is not asked until everything is known...
    assert!(!dir.calls().contains("modifyPlan"), "{}", dir.calls());
    // ...and the unknown stays unknown in the plan.
    assert_eq!(p.planned.attr("props"), Some(&props));
    // With everything known, modifyPlan runs.
    let known = resource_config(
        &dir.script("resource.ts"),
        rich_props("x"),
        Value::null(Type::Dynamic),
    );
    let p = plan(&r, &null_resource(), &known, &known, &[]).await;
    no_errors(&p.diags);
    assert!(dir.calls().contains("modifyPlan create"), "{}", dir.calls());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_reaching_apply_is_an_error_at_its_path_never_a_zero_value() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("apply-unknown");
    let r = runner(deno);
    let props = Value::object([("parent", Value::unknown(Type::String))]);
    let config = resource_config(
        &dir.script("resource.ts"),
        props,
        Value::null(Type::Dynamic),
    );
    let a = plan_and_apply_new(&r, &config).await;
    assert!(a.diags.has_errors());
    assert_eq!(
        a.diags
            .iter()
            .next()
            .unwrap()
            .attribute
            .as_ref()
            .unwrap()
            .to_string(),
        ".props.parent"
    );
    assert!(a.new_state.is_null());
    assert!(!dir.calls().contains("create"), "{}", dir.calls());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modify_plan_can_require_replacement() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("replace");
    let r = runner(deno);
    let config = resource_config(
        &dir.script("resource.ts"),
        rich_props("one"),
        Value::null(Type::Dynamic),
    );
    let (state, private) = create(&r, &config).await;
    let renamed = resource_config(
        &dir.script("resource.ts"),
        rich_props("two"),
        Value::null(Type::Dynamic),
    );
    let p = plan(
        &r,
        &state,
        &proposed_update(&state, &renamed),
        &renamed,
        &private,
    )
    .await;
    no_errors(&p.diags);
    assert_eq!(p.requires_replace, vec![Path::root().attr("props")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modify_plan_diagnostics_count_even_with_no_changes() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("plan-warning");
    let r = runner(deno);
    let props = Value::object([("misbehave", Value::string("plan-warning"))]);
    let config = resource_config(
        &dir.script("resource.ts"),
        props,
        Value::null(Type::Dynamic),
    );
    let p = plan(&r, &null_resource(), &config, &config, &[]).await;
    // denobridge drops diagnostics that come with noChanges.
    let d = p
        .diags
        .iter()
        .find(|d| d.summary == "planned with care")
        .expect("reported");
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(
        d.attribute.as_ref().unwrap().to_string(),
        ".props.misbehave"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_without_props_keeps_the_prior_props() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("omit-props");
    let r = runner(deno);
    let props = Value::object([
        ("misbehave", Value::string("omit-props")),
        ("pair", Value::tuple(vec!["x".into(), Value::number(7)])),
    ]);
    let config = resource_config(
        &dir.script("resource.ts"),
        props.clone(),
        Value::null(Type::Dynamic),
    );
    let (state, private) = create(&r, &config).await;
    let read = r.read_resource(&state, &private).await;
    no_errors(&read.diags);
    // denobridge stores null, and every later plan shows a change.
    assert_eq!(read.new_state.attr("props"), Some(&props));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_the_script_reports_gone_is_removed_from_state() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("gone");
    let r = runner(deno);
    let config = resource_config(
        &dir.script("resource.ts"),
        rich_props("g"),
        Value::null(Type::Dynamic),
    );
    let (state, private) = create(&r, &config).await;
    let id = state.attr("id").and_then(Value::as_str).unwrap();
    std::fs::remove_file(dir.file(&format!("store/{id}.json"))).unwrap();
    let read = r.read_resource(&state, &private).await;
    no_errors(&read.diags);
    assert!(read.new_state.is_null());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_only_props_reach_the_script_are_never_stored_and_a_change_bumps_the_version_at_plan()
{
    let Some(deno) = deno() else { return };
    let dir = Dir::new("write-only");
    let r = runner(deno);
    let wo = |s: &str| Value::object([("password", Value::string(s))]);
    let config = resource_config(&dir.script("resource.ts"), rich_props("w"), wo("hunter2"));
    let (state, private) = create(&r, &config).await;
    assert!(state.attr("write_only_props").unwrap().is_null());
    assert!(
        dir.calls().contains(r#"wo={"password":"hunter2"}"#),
        "{}",
        dir.calls()
    );
    assert_eq!(
        state.attr("state").unwrap().attr("write_only_seen"),
        Some(&Value::bool(true))
    );
    assert!(!private.is_empty(), "the hash is kept in private state");

    // The same write-only props: no change.
    let p = plan(
        &r,
        &state,
        &proposed_update(&state, &config),
        &config,
        &private,
    )
    .await;
    no_errors(&p.diags);
    assert_eq!(p.planned, state);

    // Other write-only props: the version moves, so Terraform updates.
    let config2 = resource_config(
        &dir.script("resource.ts"),
        rich_props("w"),
        wo("correct horse"),
    );
    let p = plan(
        &r,
        &state,
        &proposed_update(&state, &config2),
        &config2,
        &private,
    )
    .await;
    no_errors(&p.diags);
    assert_eq!(
        p.planned.attr("write_only_props_version").unwrap(),
        &Value::number(2)
    );
    let a = apply(&r, &state, &p.planned, &config2, &p.private).await;
    no_errors(&a.diags);
    assert_eq!(
        a.new_state.attr("write_only_props_version").unwrap(),
        &Value::number(2)
    );
    assert!(
        dir.calls().contains(r#"wo={"password":"correct horse"}"#),
        "{}",
        dir.calls()
    );
    assert!(a.new_state.attr("write_only_props").unwrap().is_null());
    let p = plan(
        &r,
        &a.new_state,
        &proposed_update(&a.new_state, &config2),
        &config2,
        &a.private,
    )
    .await;
    assert_eq!(
        p.planned, a.new_state,
        "after the update the hash matches again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_severity_is_reported_as_an_error_not_dropped() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("severity");
    let r = runner(deno);
    let props = Value::object([("misbehave", Value::string("severity"))]);
    let config = resource_config(
        &dir.script("resource.ts"),
        props,
        Value::null(Type::Dynamic),
    );
    let a = plan_and_apply_new(&r, &config).await;
    let d = a
        .diags
        .iter()
        .find(|d| d.summary.contains("denobridge drops"))
        .expect("reported");
    assert_eq!(d.severity, Severity::Error);
    assert!(d.detail.contains("\"fatal\""), "{d:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_diagnostics_is_cut_to_a_hundred_and_a_left_out_error_still_fails() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("flood");
    let r = runner(deno);
    let props = Value::object([("misbehave", Value::string("flood"))]);
    let config = resource_config(
        &dir.script("resource.ts"),
        props,
        Value::null(Type::Dynamic),
    );
    let a = plan_and_apply_new(&r, &config).await;
    assert_eq!(a.diags.iter().count(), 101, "{:?}", a.diags);
    let last = a.diags.iter().last().unwrap();
    assert!(last.summary.contains("500 diagnostics"), "{last:?}");
    assert_eq!(last.severity, Severity::Error);
    // The object was created (the script gave its id): it stays in state,
    // for Terraform to mark tainted, rather than being lost.
    assert!(a.new_state.attr("id").is_some_and(|id| !id.is_null()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_sensitive_state_is_an_error_that_never_quotes_it() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("unreadable-secret");
    let r = runner(deno);
    let props = Value::object([("misbehave", Value::string("unreadable-secret"))]);
    let config = resource_config(
        &dir.script("resource.ts"),
        props,
        Value::null(Type::Dynamic),
    );
    let a = plan_and_apply_new(&r, &config).await;
    assert!(a.diags.has_errors());
    let text = format!("{:?}", a.diags);
    assert!(!text.contains("hunter2"), "{text}");
    let d = a
        .diags
        .iter()
        .find(|d| d.severity == Severity::Error)
        .unwrap();
    assert_eq!(
        d.attribute.as_ref().map(ToString::to_string).as_deref(),
        Some(".sensitive_state.n")
    );
    // Created all the same: kept in state with the unreadable part null.
    assert!(a.new_state.attr("id").is_some_and(|id| !id.is_null()));
    assert!(a
        .new_state
        .attr("sensitive_state")
        .is_some_and(Value::is_null));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prop_path_into_a_map_with_a_numeric_key_is_a_key_step() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("prop-path");
    let r = runner(deno);
    let labels = Value::map(Type::String, vec![("123".to_string(), "x".into())]).unwrap();
    let props = Value::object([("misbehave", Value::string("map-key")), ("labels", labels)]);
    let config = resource_config(
        &dir.script("resource.ts"),
        props,
        Value::null(Type::Dynamic),
    );
    let (_, _) = create(&r, &config).await;
    let a = plan_and_apply_new(&r, &config).await;
    let d = a
        .diags
        .iter()
        .find(|d| d.summary.contains("numeric map key"))
        .unwrap();
    assert_eq!(d.severity, Severity::Warning);
    // denobridge: [attribute "props", key "labels", index 123].
    assert_eq!(
        d.attribute.as_ref().unwrap().to_string(),
        r#".props.labels["123"]"#
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_that_dies_mid_call_is_an_error_with_its_stderr() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("crash");
    let r = runner(deno);
    let props = Value::object([("misbehave", Value::string("crash"))]);
    let config = resource_config(
        &dir.script("resource.ts"),
        props,
        Value::null(Type::Dynamic),
    );
    let a = plan_and_apply_new(&r, &config).await;
    assert!(a.diags.has_errors());
    assert!(a.new_state.is_null());
    let text = format!("{:?}", a.diags);
    assert!(text.contains("crashing on purpose"), "{text}");
}

fn data_config(path: &str, props: Value) -> Value {
    Value::object([
        ("config_file", Value::null(Type::String)),
        ("path", Value::string(path)),
        ("permissions", read_write()),
        ("props", props),
        ("result", Value::null(Type::Dynamic)),
        ("sensitive_result", Value::null(Type::Dynamic)),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_source_reads_exactly_and_its_result_takes_the_json_s_types() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("data");
    let r = runner(deno);
    let props = Value::object([
        ("name", Value::string("d")),
        ("big", num("18446744073709551617")),
    ]);
    let read = r
        .read_data_source(&data_config(&dir.script("datasource.ts"), props))
        .await;
    no_errors(&read.diags);
    let result = read.state.attr("result").unwrap();
    assert_eq!(
        result.attr("echo").unwrap().attr("big").unwrap(),
        &num("18446744073709551617")
    );
    assert_eq!(
        result.attr("exact").unwrap(),
        &num("0.1000000000000000000000000000001")
    );
    assert_eq!(
        result.attr("tuple").unwrap().ty().to_json(),
        r#"["tuple",["string","number","bool"]]"#
    );
    let secret = read
        .state
        .attr("sensitive_result")
        .unwrap()
        .attr("password")
        .unwrap();
    assert_eq!(secret.as_str(), Some("pw-d"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_data_source_read_or_ephemeral_open_is_a_diagnostic_not_a_panic() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("data-fail");
    let r = runner(deno);
    let props = Value::object([("fail", Value::bool(true))]);
    let read = r
        .read_data_source(&data_config(&dir.script("datasource.ts"), props.clone()))
        .await;
    assert!(read.diags.has_errors());
    assert!(format!("{:?}", read.diags).contains("failing on purpose"));
    let opened: Opened = r
        .open_ephemeral(&data_config(&dir.script("ephemeral.ts"), props))
        .await;
    assert!(opened.diags.has_errors());
    assert!(
        format!("{:?}", opened.diags).contains("exit status: 9"),
        "{:?}",
        opened.diags
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ephemeral_resource_opens_renews_and_closes_with_its_private_data() {
    let Some(deno) = deno() else { return };
    let dir = Dir::new("ephemeral");
    let r = runner(deno);
    let props = Value::object([("name", Value::string("e")), ("n", num("1e400"))]);
    let opened = r
        .open_ephemeral(&data_config(&dir.script("ephemeral.ts"), props))
        .await;
    no_errors(&opened.diags);
    assert_eq!(
        opened
            .result
            .attr("result")
            .unwrap()
            .attr("token")
            .unwrap()
            .as_str(),
        Some("tok-e")
    );
    let renewed = r.renew_ephemeral(&opened.private).await;
    no_errors(&renewed.diags);
    let closed = r.close_ephemeral(&renewed.private).await;
    no_errors(&closed);
    let calls = dir.calls();
    // The private data went round exactly, 1e400 included.
    let whole = format!("1{}", "0".repeat(400));
    assert!(
        calls.contains(&format!(r#"close {{"opened":"e","n":{whole}}}"#)),
        "{calls}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_child_runs_through_the_command_option() {
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output();
    if !python.is_ok_and(|o| o.status.success()) {
        missing("python3", "`python3 --version` does not run");
        return;
    }
    let dir = Dir::new("python");
    let r = Runner {
        deno: PathBuf::from("/nonexistent/deno"),
        command: Some(vec!["python3".into()]),
        timeout: Duration::from_secs(60),
    };
    let mut config = resource_config(
        &dir.script("resource.py"),
        rich_props("py"),
        Value::null(Type::Dynamic),
    );
    config = config
        .with_attr("permissions", Value::null(schema_permissions()))
        .unwrap();
    let (state, private) = create(&r, &config).await;
    assert_eq!(state.attr("props"), config.attr("props"));
    let echo = state.attr("state").unwrap().attr("echo").unwrap();
    assert_eq!(echo.attr("huge").unwrap(), &num("1e400"));
    assert_eq!(
        echo.attr("fine").unwrap(),
        &num("0.123456789012345678901234567891")
    );
    let read = r.read_resource(&state, &private).await;
    no_errors(&read.diags);
    assert_eq!(read.new_state, state);
    let gone = apply(&r, &state, &null_resource(), &null_resource(), &private).await;
    no_errors(&gone.diags);
    assert!(dir.calls().contains("delete py-"), "{}", dir.calls());
}

fn schema_permissions() -> Type {
    match schema::resource().implied_type().unwrap() {
        Type::Object(o) => o
            .attributes()
            .find(|(n, _)| *n == "permissions")
            .unwrap()
            .1
            .clone(),
        _ => unreachable!(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runtime_that_cannot_start_is_a_diagnostic_naming_where_deno_is_looked_for() {
    let dir = Dir::new("no-deno");
    let r = runner(PathBuf::from("/nonexistent/deno"));
    let config = resource_config(
        &dir.script("resource.ts"),
        rich_props("x"),
        Value::null(Type::Dynamic),
    );
    let a = plan_and_apply_new(&r, &config).await;
    assert!(a.diags.has_errors());
    assert!(
        format!("{:?}", a.diags).contains("DENO_BINARY"),
        "{:?}",
        a.diags
    );
}

#[test]
fn an_import_id_is_read_exactly() {
    let ty = schema::resource().implied_type().unwrap();
    let v = import_resource(
        r#"{"id":"abc","path":"./r.ts","props":{"n":18446744073709551617,"d":0.100000000000000000000000000001},"permissions":{"allow":["read"]}}"#,
        &ty,
    )
    .unwrap();
    assert_eq!(v.attr("id").unwrap().as_str(), Some("abc"));
    let props = v.attr("props").unwrap();
    assert_eq!(props.attr("n").unwrap(), &num("18446744073709551617"));
    assert_eq!(
        props.attr("d").unwrap(),
        &num("0.100000000000000000000000000001")
    );
    assert!(v
        .attr("permissions")
        .unwrap()
        .attr("all")
        .unwrap()
        .is_null());
    let bad = import_resource("just-an-id", &ty).unwrap_err();
    assert!(bad.has_errors());
}
