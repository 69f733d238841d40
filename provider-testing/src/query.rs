//! `terraform query` (Terraform 1.14): the `list` blocks of a
//! `.tfquery.hcl` file, each run as core runs it (hashicorp/terraform,
//! `internal/configs/query_file.go` for the file,
//! `internal/terraform/node_resource_plan_instance_query.go`,
//! `listResourceExecute`, for the run, `eval_query.go` for `limit` and
//! `include_resource`): the block's `config` evaluated (variables and
//! locals of the configuration) and required to be wholly known,
//! `ValidateListResourceConfig`, then `ListResource` with `limit`
//! (default 100, never negative) and `include_resource` (default false).
//! See `SPEC-list-and-actions.md`.

use std::collections::BTreeMap;

use ctywire::{Type, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use hcl::structure::{Body as HclBody, Structure};
use serde_json::{json, Value as Json};

use crate::config::{decode_body, VariablesScope};
use crate::eval::{evaluate, EvalError};
use crate::show::Listed;
use crate::syntax::{block_json, label};
use crate::Harness;

/// `defaultQueryLimit`.
const DEFAULT_LIMIT: i64 = 100;

fn eval_error(e: EvalError) -> Diagnostics {
    Diagnostic::error(e.summary).with_detail(e.detail).into()
}

impl Harness {
    /// `terraform query` with `text` as the `.tfquery.hcl` file: each
    /// `list "TYPE" "NAME"` block run in order; the results by the block's
    /// address (`list.TYPE.NAME`). The configuration's variables and
    /// locals are in scope; `provider`, `variable` and `locals` blocks in
    /// the query file are not read by the harness (an error naming them).
    pub fn query(&mut self, text: &str) -> Result<BTreeMap<String, Vec<Listed>>, Diagnostics> {
        let body: HclBody = hcl::parse(text).map_err(|e| {
            Diagnostics::from(Diagnostic::error("Invalid query file").with_detail(e.to_string()))
        })?;
        let mut lists = Vec::new();
        for s in body.iter() {
            let Structure::Block(b) = s else {
                return Err(Diagnostics::error(
                    "Unsupported argument: a query file holds blocks only",
                ));
            };
            let labels: Vec<&str> = b.labels.iter().map(label).collect();
            match (b.identifier.as_str(), labels.as_slice()) {
                ("list", [ty, name]) => {
                    let address = format!("list.{ty}.{name}");
                    if lists.iter().any(|(a, _, _)| *a == address) {
                        return Err(Diagnostic::error("Duplicate \"list\" block names")
                            .with_detail(format!(
                                "This query file already has a list block named {ty}.{name}."
                            ))
                            .into());
                    }
                    lists.push((address, (*ty).to_owned(), &b.body));
                }
                (kind @ ("provider" | "variable" | "locals"), _) => {
                    return Err(Diagnostics::error(format!(
                        "the harness reads {kind:?} blocks from the main configuration, not the query file"
                    )))
                }
                (other, _) => {
                    return Err(Diagnostic::error("Invalid block type")
                        .with_detail(format!(
                            "This block type is not valid within a query file: {other}"
                        ))
                        .into())
                }
            }
        }
        self.prepare()?;
        let mut out = BTreeMap::new();
        for (address, ty, body) in lists {
            let listed = self.run_list(&ty, body)?;
            out.insert(address, listed);
        }
        Ok(out)
    }

    /// `listResourceExecute` for one `list` block.
    fn run_list(&mut self, type_name: &str, body: &HclBody) -> Result<Vec<Listed>, Diagnostics> {
        let mut limit = DEFAULT_LIMIT;
        let mut include_resource = false;
        let mut has_provider = false;
        for a in body.attributes() {
            let value = || {
                evaluate(&a.expr, &VariablesScope { harness: self })
                    .map(|m| m.value)
                    .map_err(eval_error)
            };
            match a.key.as_str() {
                "provider" => has_provider = true,
                "limit" => {
                    let v = value()?.convert(&Type::Number).map_err(|e| {
                        Diagnostics::from(Diagnostic::error("Invalid limit argument").with_detail(
                            format!("The given \"limit\" argument value is unsuitable: {e}."),
                        ))
                    })?;
                    limit = v.as_i64().filter(|n| *n >= 0).ok_or_else(|| {
                        Diagnostics::from(Diagnostic::error("Invalid limit argument").with_detail(
                            "The given \"limit\" argument value is unsuitable: must be greater than or equal to zero.",
                        ))
                    })?;
                }
                "include_resource" => {
                    include_resource = value()?
                        .convert(&Type::Bool)
                        .ok()
                        .and_then(|v| v.as_bool())
                        .ok_or_else(|| {
                            Diagnostics::from(Diagnostic::error("Invalid include_resource argument").with_detail(
                                "The given \"include_resource\" argument value is unsuitable: a bool is required.",
                            ))
                        })?;
                }
                key @ ("count" | "for_each") => {
                    return Err(Diagnostics::error(format!(
                        "list.{type_name}: the harness does not support {key:?}"
                    )))
                }
                other => {
                    return Err(Diagnostic::error("Unsupported argument")
                        .with_detail(format!("An argument named {other:?} is not expected here."))
                        .into())
                }
            }
        }
        if !has_provider {
            return Err(Diagnostic::error("Missing \"provider\" attribute")
                .with_detail("You must specify a provider attribute when defining a list block.")
                .into());
        }
        let mut configs = body.blocks().filter(|b| b.identifier.as_str() == "config");
        let config: Json = match configs.next() {
            Some(b) => block_json(&b.body, 0)?,
            None => json!({}),
        };
        if configs.next().is_some() {
            return Err(Diagnostic::error("Duplicate config block")
                .with_detail("A list block must contain only one nested \"config\" block.")
                .into());
        }
        let (ls, _, _) = self.list_schemas(type_name)?;
        let decoded = decode_body(
            &ls.schema.block,
            &config,
            &VariablesScope { harness: self },
            &[],
        )?;
        if !decoded.value.is_wholly_known() {
            return Err(Diagnostics::error("config is not known"));
        }
        let value: Value = decoded.value;
        self.list_value(type_name, &value, include_resource, limit)
    }
}
