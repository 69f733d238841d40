//! `terraform-provider-test`: a test provider built on ctywire and
//! ctywire-tfplugin6, for the real terraform CLI to start and drive.
//!
//! It is served with go-plugin's handshake (Terraform launches it through
//! `dev_overrides`). Every value Terraform sends is decoded with ctywire
//! and re-encoded, and the bytes must be Terraform's bytes exactly, or the
//! call fails with a diagnostic. With `CTYWIRE_RECORD=FILE` (Terraform
//! passes its environment on), each received value is appended to FILE as
//! a fixture line `{"type":T,"msgpack":"<hex>","note":"<rpc>.<field>",...}`.

use std::io::Write;
use std::sync::{Arc, Mutex};

use ctywire::schema::{Attribute, Block, NestedBlock, NestingMode, Object, Purpose, Schema};
use ctywire::{json, msgpack, Refinements, Type, Unknowable, Value};
use ctywire_tfplugin6::{
    async_trait, ApplyResourceChangeRequest, ApplyResourceChangeResponse, Diagnostic, Diagnostics,
    PlanResourceChangeRequest, PlanResourceChangeResponse, Provider, ReadDataSourceRequest,
    ReadDataSourceResponse, ReceivedValue, Schemas, ServeOptions, UpgradeResourceStateRequest,
    UpgradeResourceStateResponse, ValidateResourceConfigRequest,
};
use serde::{Deserialize, Serialize};

fn attr(name: &str, ty: &str) -> Attribute {
    Attribute::new(name, Type::parse(ty).expect("schema type")).optional()
}

/// `ctywire_thing`: every primitive, every collection and structural type,
/// a dynamic attribute, nested attributes, computed attributes unknown at
/// plan, and nested blocks of every nesting mode.
fn thing_schema() -> Schema {
    let rule = Block::new()
        .attribute(Attribute::new("port", Type::Number).required())
        .attribute(attr("note", "\"string\""));
    Schema::new(
        Block::new()
            .attribute(Attribute::new("id", Type::String).computed())
            .attribute(Attribute::new("computed_label", Type::String).computed())
            .attribute(Attribute::new("name", Type::String).required())
            .attribute(attr("note", "\"string\""))
            .attribute(attr("size", "\"number\""))
            .attribute(attr("big", "\"number\""))
            .attribute(attr("enabled", "\"bool\""))
            .attribute(attr("tags", r#"["map","string"]"#))
            .attribute(attr("ports", r#"["set","number"]"#))
            .attribute(attr("names", r#"["list","string"]"#))
            .attribute(attr("shape", r#"["object",{"w":"number","h":"number"}]"#))
            .attribute(attr("pair", r#"["tuple",["string","number"]]"#))
            .attribute(attr("anything", "\"dynamic\""))
            .attribute(
                Attribute::nested(
                    "endpoints",
                    Object::new(
                        NestingMode::List,
                        vec![attr("url", "\"string\""), attr("weight", "\"number\"")],
                    ),
                )
                .optional(),
            )
            .block(NestedBlock::new(
                "settings",
                NestingMode::Single,
                Block::new().attribute(attr("level", "\"number\"")),
            ))
            .block(NestedBlock::new("rule", NestingMode::List, rule.clone()))
            .block(NestedBlock::new(
                "ingress",
                NestingMode::Set,
                Block::new().attribute(attr("cidr", "\"string\"")),
            ))
            .block(NestedBlock::new("listener", NestingMode::Map, rule))
            .block(NestedBlock::new(
                "timeouts",
                NestingMode::Group,
                Block::new().attribute(attr("create", "\"string\"")),
            )),
    )
}

/// `ctywire_thing` as a provider author holds it (the typed layer reads
/// it out of the plan and writes it back): the attributes the provider
/// reads or sets are typed, the rest are cty values it passes through as
/// they are. `name` may be unknown at plan (it can refer to another
/// resource's id); `id` and `computed_label` are computed.
#[derive(Serialize, Deserialize)]
struct Thing {
    id: Unknowable<Option<String>>,
    computed_label: Unknowable<Option<String>>,
    name: Unknowable<String>,
    note: Value,
    size: Value,
    big: Value,
    enabled: Value,
    tags: Value,
    ports: Value,
    names: Value,
    shape: Value,
    pair: Value,
    anything: Value,
    endpoints: Value,
    settings: Value,
    rule: Value,
    ingress: Value,
    listener: Value,
    timeouts: Value,
}

/// `ctywire_echo`: whatever `input` holds, dynamic.
#[derive(Serialize, Deserialize)]
struct Echo {
    input: Value,
    output: Value,
}

/// `ctywire_echo`: `output` is `input`, whatever its type.
fn echo_schema() -> Schema {
    Schema::new(
        Block::new()
            .attribute(Attribute::new("input", Type::Dynamic).required())
            .attribute(Attribute::new("output", Type::Dynamic).computed()),
    )
}

fn provider_schema() -> Schema {
    Schema::new(Block::new().attribute(attr("prefix", "\"string\"")))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Where received values are appended, one JSON line each.
struct Recorder(Option<Mutex<std::fs::File>>);

impl Recorder {
    fn from_env() -> std::io::Result<Recorder> {
        Ok(Recorder(match std::env::var_os("CTYWIRE_RECORD") {
            Some(path) => Some(Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)?,
            )),
            None => None,
        }))
    }

    fn record(&self, line: serde_json::Value) {
        if let Some(f) = &self.0 {
            if let Ok(mut f) = f.lock() {
                // One write per line: several provider processes (one per
                // terraform command) append to the same file.
                let _ = f.write_all(format!("{line}\n").as_bytes());
            }
        }
    }
}

fn type_json(ty: &Type) -> serde_json::Value {
    serde_json::from_str(&ty.to_json()).unwrap_or(serde_json::Value::Null)
}

/// Checks that ctywire writes a received msgpack value back byte for
/// byte, and records it.
fn check_and_record(recorder: &Recorder, v: &ReceivedValue<'_>) -> Result<(), Diagnostic> {
    let note = format!("{}.{}", v.rpc, v.field);
    if v.msgpack.is_empty() {
        return Ok(());
    }
    let again = msgpack::encode(v.value, v.ty).map_err(|e| {
        Diagnostic::error(format!("{note}: ctywire cannot encode it")).with_detail(e.to_string())
    })?;
    if again != v.msgpack {
        return Err(
            Diagnostic::error(format!("{note}: ctywire's bytes differ from Terraform's"))
                .with_detail(format!(
                    "terraform {}\nctywire   {}",
                    hex(v.msgpack),
                    hex(&again)
                )),
        );
    }
    let mut expect = serde_json::json!({ "msgpack": hex(&again) });
    if v.value.is_wholly_known() {
        if let Ok(j) = json::encode_string(v.value, v.ty) {
            expect["json"] = serde_json::Value::String(j);
        }
    }
    recorder.record(serde_json::json!({
        "type": type_json(v.ty), "msgpack": hex(v.msgpack), "note": note, "expect": expect,
    }));
    Ok(())
}

pub(crate) struct TestProvider {
    recorder: Arc<Recorder>,
}

/// The provider without a recorder, for a test that includes this file
/// and drives it in-process (ctywire-provider-testing's harness_matches_terraform);
/// this binary's own `main` serves with a recorder instead.
#[allow(dead_code)]
pub(crate) fn in_process() -> TestProvider {
    TestProvider {
        recorder: Arc::new(Recorder(None)),
    }
}

#[async_trait]
impl Provider for TestProvider {
    fn schemas(&self) -> Schemas {
        Schemas::new(provider_schema())
            .resource("ctywire_thing", thing_schema())
            .data_source("ctywire_echo", echo_schema())
    }

    async fn validate_resource_config(&self, req: ValidateResourceConfigRequest) -> Diagnostics {
        thing_schema()
            .block
            .validate_value(&req.config, Purpose::Config)
            .into_iter()
            .collect()
    }

    /// Reads the stored JSON as the default does, and records it with what
    /// ctywire writes for it.
    async fn upgrade_resource_state(
        &self,
        req: UpgradeResourceStateRequest,
    ) -> Result<UpgradeResourceStateResponse, Diagnostics> {
        let ty = &req.current_type;
        let v = json::decode(&req.raw_state.json, ty).map_err(|e| {
            Diagnostic::error("UpgradeResourceState: ctywire cannot read the state JSON")
                .with_detail(e.to_string())
        })?;
        let ours = json::encode_string(&v, ty)?;
        let mp = msgpack::encode(&v, ty)?;
        self.recorder.record(serde_json::json!({
            "type": type_json(ty),
            "json": String::from_utf8_lossy(&req.raw_state.json),
            "note": "UpgradeResourceState.raw_state.json",
            "expect": { "msgpack": hex(&mp), "json": ours },
        }));
        Ok(UpgradeResourceStateResponse {
            upgraded_state: v,
            diagnostics: Diagnostics::new(),
        })
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> Result<PlanResourceChangeResponse, Diagnostics> {
        let proposed = req.proposed_new_state;
        if proposed.is_null() || !req.prior_state.is_null() {
            // Destroy, or update: nothing is computed again.
            return Ok(PlanResourceChangeResponse::new(proposed));
        }
        // Create: the id is unknown until apply; the label is known to
        // start with "label-" and not to be null.
        let ty = proposed.ty().clone();
        let mut thing: Thing = ctywire::from_value(&proposed)?;
        thing.id = Unknowable::unknown();
        thing.computed_label = Unknowable::Unknown(Refinements {
            not_null: true,
            string_prefix: Some("label-".into()),
            ..Default::default()
        });
        Ok(PlanResourceChangeResponse::new(ctywire::to_value(
            &thing, &ty,
        )?))
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> Result<ApplyResourceChangeResponse, Diagnostics> {
        let planned = req.planned_state;
        if planned.is_null() {
            return Ok(ApplyResourceChangeResponse::new(planned));
        }
        let ty = planned.ty().clone();
        let mut thing: Thing = ctywire::from_value(&planned)?;
        // At apply everything in the config is known.
        let name = thing
            .name
            .known()
            .cloned()
            .unwrap_or_else(|| "unnamed".into());
        if !thing.id.is_known() {
            thing.id = Unknowable::Known(Some(format!("thing-{name}")));
        }
        if !thing.computed_label.is_known() {
            thing.computed_label = Unknowable::Known(Some(format!("label-{name}")));
        }
        Ok(ApplyResourceChangeResponse::new(ctywire::to_value(
            &thing, &ty,
        )?))
    }

    async fn read_data_source(
        &self,
        req: ReadDataSourceRequest,
    ) -> Result<ReadDataSourceResponse, Diagnostics> {
        let ty = req.config.ty().clone();
        let mut echo: Echo = ctywire::from_value(&req.config)?;
        echo.output = echo.input.clone();
        Ok(ReadDataSourceResponse::new(ctywire::to_value(&echo, &ty)?))
    }
}

/// Serves the provider as Terraform starts it (also called by a test that
/// includes this file and serves it from its own binary).
#[tokio::main]
pub(crate) async fn main() {
    let recorder = match Recorder::from_env() {
        Ok(r) => Arc::new(r),
        Err(e) => {
            eprintln!("cannot open CTYWIRE_RECORD: {e}");
            std::process::exit(1);
        }
    };
    let observer = recorder.clone();
    let options =
        ServeOptions::default().observe_values(Arc::new(move |v| check_and_record(&observer, v)));
    ctywire_tfplugin6::serve_with(options, TestProvider { recorder }).await;
}
