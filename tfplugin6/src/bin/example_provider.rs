//! A small provider served with go-plugin's handshake: the handshake and
//! mTLS tests start this binary as Terraform would.
//!
//! It has one data source, `example_echo` (`output` is `input`), and one
//! resource, `example_secret`, with a write-only `password` that the
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
