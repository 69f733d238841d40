//! The provider side of a denobridge-style bridge, in Rust, on ctywire:
//! Terraform's `ApplyResourceChange` for a create arrives as msgpack; the
//! props go to a child process as exact JSON over JSON-RPC on stdio; the
//! child's answer becomes the new state, encoded as msgpack for Terraform.
//!
//! ```sh
//! cargo run --example denobridge_provider --features runtime   # runs examples/denobridge_provider/child.py
//! ```
//!
//! The child runs under the bridge runtime ([`Child`]): health first,
//! shutdown last, every call with a timeout, its stderr forwarded to `log`
//! and quoted if it dies. Messages are [`Json`] documents end to end; typed
//! messages go in and out with `call_typed`, so the child's numbers are
//! never rounded through `f64`.

use ctywire::bridge::{from_json, from_props, resolve_prop_path, to_props, Json, Unknowns};
use ctywire::protocol::DynamicValue;
use ctywire::rpc::denobridge::{method, CreateParams, CreateResult, HealthResult, Severity};
use ctywire::rpc::runtime::{Child, ChildOptions, Handlers};
use ctywire::schema::{Attribute, Block, Purpose, Schema};
use ctywire::{Path, Type, Unknowable, Value};
use serde::{Deserialize, Serialize};

/// The schema of denobridge's `denobridge_resource`, reduced to what this
/// example uses.
pub fn resource_schema() -> Schema {
    Schema::new(
        Block::new()
            .attribute(Attribute::new("id", Type::String).computed())
            .attribute(Attribute::new("path", Type::String).required())
            .attribute(Attribute::new("props", Type::Dynamic).required())
            .attribute(Attribute::new("state", Type::Dynamic).computed())
            .attribute(
                Attribute::new("sensitive_state", Type::Dynamic)
                    .computed()
                    .sensitive(),
            ),
    )
}

/// What a create produced: the new state for Terraform, and the child's
/// warnings resolved to attribute paths.
pub struct Created {
    pub new_state: DynamicValue,
    pub warnings: Vec<(Path, String)>,
}

/// `denobridge_resource` as a Rust struct: the typed layer reads the
/// planned state into it and writes the new state from it. `id` may be
/// unknown at plan; `props`, `state` and `sensitive_state` are dynamic, so
/// they stay cty values, whatever the script put there.
#[derive(Debug, Serialize, Deserialize)]
pub struct ResourceModel {
    pub id: Unknowable<String>,
    pub path: String,
    pub props: Value,
    pub state: Value,
    pub sensitive_state: Value,
}

/// `ApplyResourceChange` for a create: planned state in, new state out.
pub async fn create(planned_state: &DynamicValue, child: ChildOptions) -> Result<Created, String> {
    let schema = resource_schema();
    let ty = schema.implied_type().map_err(|e| e.to_string())?;
    let planned = planned_state.decode(&ty).map_err(|e| e.to_string())?;
    let problems = schema.block.validate_value(&planned, Purpose::Config);
    if let Some(p) = problems.first() {
        return Err(p.to_string());
    }

    // At apply everything is known; an unknown here is a bug, not "".
    let props = to_props(planned.attr("props").ok_or("no props")?, Unknowns::Refuse)
        .map_err(|e| format!("props{e}"))?;

    let child = Child::spawn(child, Handlers::new()).map_err(|e| e.to_string())?;
    let health = child.health().await.map_err(|e| format!("health: {e}"))?;
    let health: HealthResult = from_json(&health).map_err(|e| format!("health: {e}"))?;
    if !health.ok {
        return Err("the child is not healthy".into());
    }
    let params = CreateParams {
        props: props.json,
        write_only_props: None,
    };
    let result: CreateResult = child
        .peer()
        .call_typed(method::CREATE, &params)
        .await
        .map_err(|e| format!("create: {e}"))?;
    child.shutdown().await;

    // The child's JSON in dynamic positions: arrays become tuples, so a
    // mixed array is fine, and numbers stay exact.
    let state = from_props(&result.state, &Type::Dynamic).map_err(|e| format!("state{e}"))?;
    let sensitive = from_props(&result.sensitive_state, &Type::Dynamic)
        .map_err(|e| format!("sensitiveState{e}"))?;
    let model: ResourceModel = ctywire::from_value(&planned).map_err(|e| e.to_string())?;
    let model = ResourceModel {
        id: Unknowable::Known(result.id),
        state,
        sensitive_state: sensitive,
        ..model
    };
    let new_state = ctywire::to_value(&model, &ty).map_err(|e| e.to_string())?;
    let problems = schema.block.validate_value(&new_state, Purpose::State);
    if let Some(p) = problems.first() {
        return Err(p.to_string());
    }

    let mut warnings = Vec::new();
    for d in result.diagnostics.unwrap_or_default() {
        let path = match &d.prop_path {
            Some(segments) => resolve_prop_path(&new_state, segments)
                .map_err(|e| format!("diagnostic path: {e}"))?,
            None => Path::root(),
        };
        if d.severity == Severity::Error {
            return Err(format!("{path}: {}", d.summary));
        }
        warnings.push((path, d.summary));
    }
    let new_state = DynamicValue::encode(&new_state, &ty).map_err(|e| e.to_string())?;
    Ok(Created {
        new_state,
        warnings,
    })
}

/// The planned state Terraform would send for
/// `props = { name = "web", count = 3, ports = [443, 80, 443] }`.
pub fn example_planned_state() -> DynamicValue {
    let ty = resource_schema().implied_type().expect("schema");
    let props = from_props(
        &Json::parse(r#"{"name": "web", "count": 3, "ports": [443, 80, 443]}"#).expect("JSON"),
        &Type::Dynamic,
    )
    .expect("props");
    let planned = Value::object([
        ("id", Value::unknown(Type::String)),
        ("path", Value::string("./web.py")),
        ("props", props),
        ("state", Value::unknown(Type::Dynamic)),
        ("sensitive_state", Value::unknown(Type::Dynamic)),
    ]);
    DynamicValue::encode(&planned, &ty).expect("encode")
}

/// `python3` running the child script next to this example.
pub fn child_options() -> ChildOptions {
    let script = format!(
        "{}/examples/denobridge_provider/child.py",
        env!("CARGO_MANIFEST_DIR")
    );
    ChildOptions::new("python3", [script])
}

#[allow(dead_code)]
#[tokio::main]
async fn main() {
    let created = match create(&example_planned_state(), child_options()).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let ty = resource_schema().implied_type().expect("schema");
    let state = created.new_state.decode(&ty).expect("decode");
    println!(
        "new state ({} bytes of msgpack): {state}",
        created.new_state.msgpack.len()
    );
    for (path, summary) in created.warnings {
        println!("warning at {path}: {summary}");
    }
}
