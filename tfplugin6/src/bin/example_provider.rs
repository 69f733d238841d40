//! A small provider served with go-plugin's handshake: the handshake and
//! mTLS tests start this binary as Terraform would.
//!
//! It has a data source, `example_echo` (`output` is `input`); a data
//! source that blocks its thread, `example_block` (it sleeps `seconds`
//! with `std::thread::sleep`, as careless synchronous code would); one
//! whose provider code panics, `example_panic`; and a resource, `example_secret`, with a write-only `password` that the
//! server must null in every state it returns.

use ctywire::schema::{Attribute, Block, Schema};
use ctywire::{Type, Value};
use ctywire_tfplugin6::*;

struct Example;

#[async_trait]
impl Provider for Example {
    fn schemas(&self) -> Schemas {
        Schemas::new(Schema::new(
            Block::new().attribute(Attribute::new("prefix", Type::String).optional()),
        ))
        .data_source(
            "example_echo",
            Schema::new(
                Block::new()
                    .attribute(Attribute::new("input", Type::Dynamic).required())
                    .attribute(Attribute::new("output", Type::Dynamic).computed()),
            ),
        )
        .data_source(
            "example_block",
            Schema::new(Block::new().attribute(Attribute::new("seconds", Type::Number).required())),
        )
        .data_source(
            "example_panic",
            Schema::new(Block::new().attribute(Attribute::new("message", Type::String).required())),
        )
        .resource(
            "example_secret",
            Schema::new(
                Block::new()
                    .attribute(Attribute::new("id", Type::String).computed())
                    .attribute(
                        Attribute::new("password", Type::String)
                            .optional()
                            .write_only(),
                    ),
            ),
        )
    }

    async fn read_data_source(
        &self,
        req: ReadDataSourceRequest,
    ) -> Result<ReadDataSourceResponse, Diagnostics> {
        if req.type_name == "example_panic" {
            let message = req.config.attr("message").and_then(Value::as_str);
            panic!("{}", message.unwrap_or("no message"));
        }
        if req.type_name == "example_block" {
            let seconds = req.config.attr("seconds").and_then(Value::as_f64);
            std::thread::sleep(std::time::Duration::from_secs_f64(
                seconds.unwrap_or(0.0).clamp(0.0, 60.0),
            ));
            return Ok(ReadDataSourceResponse::new(req.config));
        }
        let input = req
            .config
            .attr("input")
            .cloned()
            .unwrap_or_else(|| Value::null(Type::Dynamic));
        Ok(ReadDataSourceResponse::new(
            req.config.with_attr("output", input)?,
        ))
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> Result<PlanResourceChangeResponse, Diagnostics> {
        // Returns the proposal as it is, password included: the server
        // nulls the write-only attribute.
        Ok(PlanResourceChangeResponse::new(req.proposed_new_state))
    }
}

#[tokio::main]
async fn main() {
    serve(Example).await;
}
