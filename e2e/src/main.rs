//! `terraform-provider-ctywire`: a test provider built on ctywire, for the
//! real terraform CLI to drive.
//!
//! It serves plugin protocol 6 over gRPC on a unix socket and prints the
//! `TF_REATTACH_PROVIDERS` JSON for it on its first output line (Terraform
//! then connects to it instead of starting a plugin). Every `DynamicValue`
//! it receives is decoded with ctywire and re-encoded, and the bytes must
//! be Terraform's bytes exactly, or the call fails with a diagnostic. With
//! `CTYWIRE_RECORD=FILE`, each received value is appended to FILE as a
//! fixture line `{"type":T,"msgpack":"<hex>","note":"<rpc>.<field>",...}`.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

use ctywire::protocol::AttributePathStep;
use ctywire::schema::{Attribute, Block, NestedBlock, NestingMode, Object, Schema};
use ctywire::{json, msgpack, Refinements, Type, Unknowable, Value};
use serde::{Deserialize, Serialize};
use tokio::net::UnixListener;
use tokio_stream::wrappers::UnixListenerStream;
use tonic::{Request, Response, Status};

// Generated from proto/: the request/response wrapper messages are only
// namespaces, never built.
#[allow(dead_code, clippy::all)]
mod pb {
    tonic::include_proto!("tfplugin6");
}
#[allow(dead_code, clippy::all)]
mod health {
    tonic::include_proto!("grpc.health.v1");
}

/// The provider address the reattach configuration is for.
const ADDRESS: &str = "registry.terraform.io/ctywire/test";

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

fn to_pb_schema(s: &Schema) -> pb::Schema {
    pb::Schema {
        version: s.version,
        block: Some(to_pb_block(&s.block)),
    }
}

fn to_pb_block(b: &Block) -> pb::schema::Block {
    pb::schema::Block {
        version: b.version,
        attributes: b.attributes.iter().map(to_pb_attribute).collect(),
        block_types: b
            .block_types
            .iter()
            .map(|nb| pb::schema::NestedBlock {
                type_name: nb.type_name.clone(),
                block: Some(to_pb_block(&nb.block)),
                nesting: nb.nesting as i32,
                min_items: nb.min_items,
                max_items: nb.max_items,
            })
            .collect(),
        description: b.description.clone(),
        description_kind: 0,
        deprecated: b.deprecated,
    }
}

fn to_pb_attribute(a: &Attribute) -> pb::schema::Attribute {
    pb::schema::Attribute {
        name: a.name.clone(),
        r#type: a
            .ty
            .as_ref()
            .map(|t| t.to_json().into_bytes())
            .unwrap_or_default(),
        nested_type: a.nested_type.as_ref().map(|o| pb::schema::Object {
            attributes: o.attributes.iter().map(to_pb_attribute).collect(),
            nesting: o.nesting as i32,
        }),
        description: a.description.clone(),
        required: a.required,
        optional: a.optional,
        computed: a.computed,
        sensitive: a.sensitive,
        description_kind: 0,
        deprecated: a.deprecated,
        write_only: a.write_only,
    }
}

fn error(summary: impl Into<String>, detail: impl Into<String>) -> pb::Diagnostic {
    pb::Diagnostic {
        severity: pb::diagnostic::Severity::Error as i32,
        summary: summary.into(),
        detail: detail.into(),
        attribute: None,
    }
}

fn error_at(e: &ctywire::Error) -> pb::Diagnostic {
    let steps = e
        .path()
        .to_attribute_path()
        .into_iter()
        .map(|s| pb::attribute_path::Step {
            selector: Some(match s {
                AttributePathStep::AttributeName(n) => {
                    pb::attribute_path::step::Selector::AttributeName(n)
                }
                AttributePathStep::ElementKeyString(k) => {
                    pb::attribute_path::step::Selector::ElementKeyString(k)
                }
                AttributePathStep::ElementKeyInt(i) => {
                    pb::attribute_path::step::Selector::ElementKeyInt(i)
                }
            }),
        })
        .collect();
    pb::Diagnostic {
        severity: pb::diagnostic::Severity::Error as i32,
        summary: "ctywire".into(),
        detail: e.to_string(),
        attribute: Some(pb::AttributePath { steps }),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

struct Provider {
    record: Option<Mutex<std::fs::File>>,
}

impl Provider {
    fn schema_for(&self, type_name: &str) -> Result<Schema, pb::Diagnostic> {
        match type_name {
            "ctywire_thing" => Ok(thing_schema()),
            "ctywire_echo" => Ok(echo_schema()),
            other => Err(error("unknown type", other)),
        }
    }

    /// The implied type of a resource or data source type's schema.
    fn type_for(&self, type_name: &str) -> Result<Type, pb::Diagnostic> {
        self.schema_for(type_name)?
            .implied_type()
            .map_err(|e| error_at(&e))
    }

    fn record(&self, line: serde_json::Value) {
        if let Some(f) = &self.record {
            if let Ok(mut f) = f.lock() {
                let _ = writeln!(f, "{line}");
            }
        }
    }

    /// Decodes what Terraform sent and checks that ctywire writes it back
    /// byte for byte.
    fn decode(
        &self,
        note: &str,
        dv: &Option<pb::DynamicValue>,
        ty: &Type,
    ) -> Result<Value, pb::Diagnostic> {
        let type_json: serde_json::Value =
            serde_json::from_str(&ty.to_json()).expect("type JSON is JSON");
        let Some(dv) = dv else {
            return Ok(Value::null(ty.clone()));
        };
        if !dv.msgpack.is_empty() {
            let v = msgpack::decode(&dv.msgpack, ty)
                .map_err(|e| error(format!("{note}: ctywire cannot decode it"), e.to_string()))?;
            let again = msgpack::encode(&v, ty)
                .map_err(|e| error(format!("{note}: ctywire cannot encode it"), e.to_string()))?;
            if again != dv.msgpack {
                return Err(error(
                    format!("{note}: ctywire's bytes differ from Terraform's"),
                    format!("terraform {}\nctywire   {}", hex(&dv.msgpack), hex(&again)),
                ));
            }
            let mut expect = serde_json::json!({ "msgpack": hex(&again) });
            if v.is_wholly_known() {
                if let Ok(j) = json::encode_string(&v, ty) {
                    expect["json"] = serde_json::Value::String(j);
                }
            }
            self.record(serde_json::json!({ "type": type_json, "msgpack": hex(&dv.msgpack), "note": note, "expect": expect }));
            return Ok(v);
        }
        let v = if dv.json.is_empty() {
            Value::null(ty.clone())
        } else {
            json::decode(&dv.json, ty).map_err(|e| {
                error(
                    format!("{note}: ctywire cannot decode its JSON"),
                    e.to_string(),
                )
            })?
        };
        Ok(v)
    }

    fn encode(v: &Value, ty: &Type) -> Result<pb::DynamicValue, pb::Diagnostic> {
        Ok(pb::DynamicValue {
            msgpack: msgpack::encode(v, ty).map_err(|e| error_at(&e))?,
            json: Vec::new(),
        })
    }
}

type Reply<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl pb::provider_server::Provider for Provider {
    async fn get_provider_schema(
        &self,
        _: Request<pb::get_provider_schema::Request>,
    ) -> Reply<pb::get_provider_schema::Response> {
        Ok(Response::new(pb::get_provider_schema::Response {
            provider: Some(to_pb_schema(&provider_schema())),
            resource_schemas: [("ctywire_thing".to_string(), to_pb_schema(&thing_schema()))].into(),
            data_source_schemas: [("ctywire_echo".to_string(), to_pb_schema(&echo_schema()))]
                .into(),
            diagnostics: vec![],
            provider_meta: None,
            server_capabilities: Some(pb::ServerCapabilities::default()),
        }))
    }

    async fn validate_provider_config(
        &self,
        req: Request<pb::validate_provider_config::Request>,
    ) -> Reply<pb::validate_provider_config::Response> {
        let ty = provider_schema()
            .implied_type()
            .map_err(|e| Status::internal(e.to_string()))?;
        let diagnostics = self
            .decode("ValidateProviderConfig.config", &req.get_ref().config, &ty)
            .err()
            .into_iter()
            .collect();
        Ok(Response::new(pb::validate_provider_config::Response {
            diagnostics,
        }))
    }

    async fn validate_resource_config(
        &self,
        req: Request<pb::validate_resource_config::Request>,
    ) -> Reply<pb::validate_resource_config::Response> {
        let r = req.get_ref();
        let diagnostics = match self.schema_for(&r.type_name) {
            Ok(s) => {
                let ty = s
                    .implied_type()
                    .map_err(|e| Status::internal(e.to_string()))?;
                match self.decode("ValidateResourceConfig.config", &r.config, &ty) {
                    Ok(v) => s
                        .block
                        .validate_value(&v, ctywire::schema::Purpose::Config)
                        .iter()
                        .map(error_at)
                        .collect(),
                    Err(d) => vec![d],
                }
            }
            Err(d) => vec![d],
        };
        Ok(Response::new(pb::validate_resource_config::Response {
            diagnostics,
        }))
    }

    async fn validate_data_resource_config(
        &self,
        req: Request<pb::validate_data_resource_config::Request>,
    ) -> Reply<pb::validate_data_resource_config::Response> {
        let r = req.get_ref();
        let diagnostics = match self.type_for(&r.type_name) {
            Ok(ty) => self
                .decode("ValidateDataResourceConfig.config", &r.config, &ty)
                .err()
                .into_iter()
                .collect(),
            Err(d) => vec![d],
        };
        Ok(Response::new(pb::validate_data_resource_config::Response {
            diagnostics,
        }))
    }

    async fn upgrade_resource_state(
        &self,
        req: Request<pb::upgrade_resource_state::Request>,
    ) -> Reply<pb::upgrade_resource_state::Response> {
        let r = req.get_ref();
        let result = (|| {
            let ty = self.type_for(&r.type_name)?;
            let raw = r
                .raw_state
                .as_ref()
                .map(|s| s.json.clone())
                .unwrap_or_default();
            let v = json::decode(&raw, &ty).map_err(|e| {
                error(
                    "UpgradeResourceState: ctywire cannot read the state JSON",
                    e.to_string(),
                )
            })?;
            let type_json: serde_json::Value =
                serde_json::from_str(&ty.to_json()).expect("type JSON");
            let ours = json::encode_string(&v, &ty).map_err(|e| error_at(&e))?;
            let theirs = String::from_utf8_lossy(&raw).to_string();
            let mp = msgpack::encode(&v, &ty).map_err(|e| error_at(&e))?;
            self.record(serde_json::json!({
                "type": type_json, "json": theirs, "note": "UpgradeResourceState.raw_state.json",
                "expect": { "msgpack": hex(&mp), "json": ours },
            }));
            Provider::encode(&v, &ty)
        })();
        Ok(Response::new(match result {
            Ok(state) => pb::upgrade_resource_state::Response {
                upgraded_state: Some(state),
                diagnostics: vec![],
            },
            Err(d) => pb::upgrade_resource_state::Response {
                upgraded_state: None,
                diagnostics: vec![d],
            },
        }))
    }

    async fn configure_provider(
        &self,
        req: Request<pb::configure_provider::Request>,
    ) -> Reply<pb::configure_provider::Response> {
        let ty = provider_schema()
            .implied_type()
            .map_err(|e| Status::internal(e.to_string()))?;
        let diagnostics = self
            .decode("ConfigureProvider.config", &req.get_ref().config, &ty)
            .err()
            .into_iter()
            .collect();
        Ok(Response::new(pb::configure_provider::Response {
            diagnostics,
        }))
    }

    async fn read_resource(
        &self,
        req: Request<pb::read_resource::Request>,
    ) -> Reply<pb::read_resource::Response> {
        let r = req.get_ref();
        let result = (|| {
            let ty = self.type_for(&r.type_name)?;
            let current = self.decode("ReadResource.current_state", &r.current_state, &ty)?;
            Provider::encode(&current, &ty)
        })();
        Ok(Response::new(match result {
            Ok(s) => pb::read_resource::Response {
                new_state: Some(s),
                diagnostics: vec![],
                private: r.private.clone(),
            },
            Err(d) => pb::read_resource::Response {
                new_state: None,
                diagnostics: vec![d],
                private: vec![],
            },
        }))
    }

    async fn plan_resource_change(
        &self,
        req: Request<pb::plan_resource_change::Request>,
    ) -> Reply<pb::plan_resource_change::Response> {
        let r = req.get_ref();
        let result = (|| {
            let ty = self.type_for(&r.type_name)?;
            let prior = self.decode("PlanResourceChange.prior_state", &r.prior_state, &ty)?;
            let proposed = self.decode(
                "PlanResourceChange.proposed_new_state",
                &r.proposed_new_state,
                &ty,
            )?;
            self.decode("PlanResourceChange.config", &r.config, &ty)?;
            if proposed.is_null() || !prior.is_null() {
                // Destroy, or update: nothing is computed again.
                return Provider::encode(&proposed, &ty);
            }
            // Create: the id is unknown until apply; the label is known to
            // start with "label-" and not to be null.
            let mut thing: Thing = ctywire::from_value(&proposed).map_err(|e| error_at(&e))?;
            thing.id = Unknowable::unknown();
            thing.computed_label = Unknowable::Unknown(Refinements {
                not_null: true,
                string_prefix: Some("label-".into()),
                ..Default::default()
            });
            let planned = ctywire::to_value(&thing, &ty).map_err(|e| error_at(&e))?;
            Provider::encode(&planned, &ty)
        })();
        Ok(Response::new(match result {
            Ok(planned) => pb::plan_resource_change::Response {
                planned_state: Some(planned),
                ..Default::default()
            },
            Err(d) => pb::plan_resource_change::Response {
                diagnostics: vec![d],
                ..Default::default()
            },
        }))
    }

    async fn apply_resource_change(
        &self,
        req: Request<pb::apply_resource_change::Request>,
    ) -> Reply<pb::apply_resource_change::Response> {
        let r = req.get_ref();
        let result = (|| {
            let ty = self.type_for(&r.type_name)?;
            self.decode("ApplyResourceChange.prior_state", &r.prior_state, &ty)?;
            let planned =
                self.decode("ApplyResourceChange.planned_state", &r.planned_state, &ty)?;
            self.decode("ApplyResourceChange.config", &r.config, &ty)?;
            if planned.is_null() {
                return Provider::encode(&planned, &ty);
            }
            let mut thing: Thing = ctywire::from_value(&planned).map_err(|e| error_at(&e))?;
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
            let state = ctywire::to_value(&thing, &ty).map_err(|e| error_at(&e))?;
            Provider::encode(&state, &ty)
        })();
        Ok(Response::new(match result {
            Ok(s) => pb::apply_resource_change::Response {
                new_state: Some(s),
                ..Default::default()
            },
            Err(d) => pb::apply_resource_change::Response {
                diagnostics: vec![d],
                ..Default::default()
            },
        }))
    }

    async fn read_data_source(
        &self,
        req: Request<pb::read_data_source::Request>,
    ) -> Reply<pb::read_data_source::Response> {
        let r = req.get_ref();
        let result = (|| {
            let ty = self.type_for(&r.type_name)?;
            let config = self.decode("ReadDataSource.config", &r.config, &ty)?;
            let mut echo: Echo = ctywire::from_value(&config).map_err(|e| error_at(&e))?;
            echo.output = echo.input.clone();
            let state = ctywire::to_value(&echo, &ty).map_err(|e| error_at(&e))?;
            Provider::encode(&state, &ty)
        })();
        Ok(Response::new(match result {
            Ok(s) => pb::read_data_source::Response {
                state: Some(s),
                diagnostics: vec![],
            },
            Err(d) => pb::read_data_source::Response {
                state: None,
                diagnostics: vec![d],
            },
        }))
    }

    async fn stop_provider(
        &self,
        _: Request<pb::stop_provider::Request>,
    ) -> Reply<pb::stop_provider::Response> {
        Ok(Response::new(pb::stop_provider::Response {
            error: String::new(),
        }))
    }
}

struct Health;

#[tonic::async_trait]
impl health::health_server::Health for Health {
    async fn check(
        &self,
        _: Request<health::HealthCheckRequest>,
    ) -> Reply<health::HealthCheckResponse> {
        Ok(Response::new(health::HealthCheckResponse {
            status: health::health_check_response::ServingStatus::Serving as i32,
        }))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::var_os("CTYWIRE_SOCKET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let socket = dir.join(format!("ctywire-provider-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket)?;
    let record = match std::env::var_os("CTYWIRE_RECORD") {
        Some(path) => Some(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)?,
        )),
        None => None,
    };
    let reattach = serde_json::json!({
        ADDRESS: {
            "Protocol": "grpc",
            "ProtocolVersion": 6,
            "Pid": std::process::id(),
            "Test": true,
            "Addr": { "Network": "unix", "String": socket },
        }
    });
    println!("{reattach}");
    std::io::stdout().flush()?;
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    tonic::transport::Server::builder()
        .add_service(pb::provider_server::ProviderServer::new(Provider {
            record,
        }))
        .add_service(health::health_server::HealthServer::new(Health))
        .serve_with_incoming_shutdown(UnixListenerStream::new(listener), shutdown)
        .await?;
    let _ = std::fs::remove_file(&socket);
    Ok(())
}
