//! The provider side of a denobridge-style bridge, in Rust, on ctywire:
//! Terraform's `ApplyResourceChange` for a create arrives as msgpack; the
//! props go to a child process as exact JSON over JSON-RPC on stdio; the
//! child's answer becomes the new state, encoded as msgpack for Terraform.
//!
//! ```sh
//! cargo run --example denobridge_provider --features rpc   # runs examples/denobridge_provider/child.py
//! ```
//!
//! Messages are [`Json`] documents end to end; typed messages go in and out
//! of them with [`to_json`] and [`from_json`], so the child's numbers are
//! never rounded through `f64`.

use std::io::BufReader;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use ctywire::bridge::{
    from_json, from_props, resolve_prop_path, to_json, to_props, Json, Unknowns,
};
use ctywire::protocol::DynamicValue;
use ctywire::rpc::denobridge::{method, CreateParams, CreateResult, HealthResult, Severity};
use ctywire::rpc::jsonrpc::{Id, LineReader, LineWriter, Message};
use ctywire::schema::{Attribute, Block, Purpose, Schema};
use ctywire::{Path, Type, Value};

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

/// A child process spoken to in JSON-RPC over its stdin and stdout.
pub struct ChildRpc {
    child: Child,
    writer: LineWriter<ChildStdin>,
    reader: LineReader<BufReader<ChildStdout>>,
    next_id: i64,
}

impl ChildRpc {
    /// Starts `python3 script`.
    pub fn spawn(script: &str) -> Result<ChildRpc, String> {
        let mut child = Command::new("python3")
            .arg(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting python3 {script}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        Ok(ChildRpc {
            child,
            writer: LineWriter::new(stdin),
            reader: LineReader::new(BufReader::new(stdout), 64 << 20),
            next_id: 1,
        })
    }

    /// Calls `method` and returns the result, or the error as text.
    pub fn call(&mut self, method: &str, params: Option<Json>) -> Result<Json, String> {
        let id = Id::Number(self.next_id.into());
        self.next_id += 1;
        self.writer
            .write(&Message::request(id.clone(), method, params))
            .map_err(|e| e.to_string())?;
        match self.reader.read().map_err(|e| e.to_string())? {
            Some(Ok(Message::Response { id: got, outcome })) if got == id => {
                outcome.map_err(|e| format!("{method}: {} ({})", e.message, e.code))
            }
            Some(Ok(other)) => Err(format!("{method}: unexpected message {other:?}")),
            Some(Err(bad)) => Err(format!(
                "{method}: the child sent an invalid message: {:?}",
                bad.to_json()
            )),
            None => Err(format!("{method}: the child closed its output")),
        }
    }

    /// Sends `shutdown` and waits for the child to exit.
    pub fn shutdown(mut self) -> Result<(), String> {
        self.writer
            .write(&Message::notification(method::SHUTDOWN, None))
            .map_err(|e| e.to_string())?;
        drop(self.writer);
        self.child.wait().map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// What a create produced: the new state for Terraform, and the child's
/// warnings resolved to attribute paths.
pub struct Created {
    pub new_state: DynamicValue,
    pub warnings: Vec<(Path, String)>,
}

/// `ApplyResourceChange` for a create: planned state in, new state out.
pub fn create(planned_state: &DynamicValue, child_script: &str) -> Result<Created, String> {
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

    let mut rpc = ChildRpc::spawn(child_script)?;
    let health: HealthResult =
        from_json(&rpc.call(method::HEALTH, None)?).map_err(|e| format!("health: {e}"))?;
    if !health.ok {
        return Err("the child is not healthy".into());
    }
    let params = to_json(&CreateParams {
        props: props.json,
        write_only_props: None,
    })
    .map_err(|e| e.to_string())?;
    let result: CreateResult = from_json(&rpc.call(method::CREATE, Some(params))?)
        .map_err(|e| format!("create result: {e}"))?;
    rpc.shutdown()?;

    // The child's JSON in dynamic positions: arrays become tuples, so a
    // mixed array is fine, and numbers stay exact.
    let state = from_props(&result.state, &Type::Dynamic).map_err(|e| format!("state{e}"))?;
    let sensitive = from_props(&result.sensitive_state, &Type::Dynamic)
        .map_err(|e| format!("sensitiveState{e}"))?;
    let new_state = planned
        .with_attr("id", Value::string(result.id))
        .and_then(|v| v.with_attr("state", state))
        .and_then(|v| v.with_attr("sensitive_state", sensitive))
        .map_err(|e| e.to_string())?;
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

/// The child script next to this example.
pub fn child_script() -> String {
    format!(
        "{}/examples/denobridge_provider/child.py",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[allow(dead_code)]
fn main() {
    let created = match create(&example_planned_state(), &child_script()) {
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
