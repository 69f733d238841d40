//! Data resources as core plans and applies them (`planDataSource`,
//! `readDataSource` and `applyDataSource` in
//! `internal/terraform/node_resource_abstract_instance.go`): read during
//! plan when the configuration is wholly known and no managed resource
//! named in `depends_on` has a change pending; otherwise planned as a
//! `read` change (`objchange.PlannedDataResourceObject`: computed
//! attributes unknown) and read during apply.

use std::collections::BTreeMap;

use ctywire::{Path, Value};
use ctywire_objchange::proposed_new;
use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use serde_json::Value as Json;

use crate::config::{Decoded, Scope};
use crate::core::{self, is_data, normalize_marks, type_of, Change, ChangeAction};
use crate::instances::resource_of;
use crate::{split, Body, Harness};

/// Data resources' values by address, with their sensitive paths.
pub(crate) type DataValues = BTreeMap<String, (Value, Vec<Path>)>;

/// What a plan does with a data resource.
pub(crate) enum DataPlan {
    /// Read during plan: its value and sensitive paths.
    Read(Value, Vec<Path>),
    /// To be read during apply.
    Deferred(Box<Change>),
}

impl Harness {
    /// `planDataSource` for the data resource at `address`; `changes` are
    /// the managed resources' changes planned so far (all it depends on).
    pub(crate) fn plan_data(
        &self,
        address: &str,
        scope: &dyn Scope,
        changes: &[Change],
        warnings: &mut Diagnostics,
    ) -> Result<DataPlan, Diagnostics> {
        let block = &self.core().data_schema(type_of(address))?.schema.block;
        let decoded = self.decode(address, scope)?;
        // An unknown configuration is the more specific reason.
        let reason = if !decoded.value.is_wholly_known() {
            "read_because_config_unknown"
        } else if self.depends_on_pending(address, changes) {
            "read_because_dependency_pending"
        } else {
            let (value, marks) = self.read_data(address, &decoded, warnings)?;
            return Ok(DataPlan::Read(value, marks));
        };
        // PlannedDataResourceObject: ProposedNew against a wholly unknown
        // prior, so what the configuration leaves null is unknown.
        let after = proposed_new(
            block,
            &Value::unknown(decoded.value.ty().clone()),
            &decoded.value,
        );
        let mut after_marks = decoded.marks;
        after_marks.extend(core::sensitive_paths(block, &after));
        Ok(DataPlan::Deferred(Box::new(Change {
            address: address.to_owned(),
            type_name: type_of(address).to_owned(),
            action: ChangeAction::Read,
            before: Value::null(after.ty().clone()),
            after_marks: normalize_marks(&after, &after_marks),
            after,
            before_marks: Vec::new(),
            private: Vec::new(),
            required_replace: Vec::new(),
            action_reason: Some(reason),
            identity: None,
        })))
    }

    /// `dependenciesHavePendingChanges`: a managed resource named in
    /// `depends_on` has a change other than a no-op (references alone
    /// show up as unknowns in the configuration instead).
    fn depends_on_pending(&self, address: &str, changes: &[Change]) -> bool {
        let Some(Json::Array(deps)) = self
            .resources
            .get(resource_of(address))
            .and_then(Body::json)
            .and_then(|b| b.get("depends_on"))
        else {
            return false;
        };
        deps.iter()
            .filter_map(Json::as_str)
            .filter(|d| !is_data(d))
            .any(|d| {
                changes
                    .iter()
                    .any(|c| resource_of(&c.address) == d && c.action != ChangeAction::NoOp)
            })
    }

    /// `readDataSource`: `ValidateDataResourceConfig` with the final
    /// configuration, then `ReadDataSource`; the value must be a wholly
    /// known object. Its marks are the configuration's and the schema's
    /// sensitive attributes.
    pub(crate) fn read_data(
        &self,
        address: &str,
        decoded: &Decoded,
        warnings: &mut Diagnostics,
    ) -> Result<(Value, Vec<Path>), Diagnostics> {
        let core = self.core();
        let type_name = type_of(address);
        let rs = core.data_schema(type_name)?;
        let client = self.client_for(address)?;
        let d = client.validate_data_resource(type_name, &decoded.value, &rs.ty)?;
        split(d, warnings)?;
        let (value, d) = client.read_data_source(type_name, &decoded.value, &rs.ty)?;
        split(d, warnings)?;
        let bug = |summary: &str, what: &str| -> Diagnostics {
            Diagnostic::error(summary)
                .with_detail(format!(
                    "Provider {} produced {what} for {address}.\n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker.",
                    core.resolved_provider()
                ))
                .into()
        };
        if value.is_null() {
            return Err(bug("Provider produced null object", "a null value"));
        }
        if !value.is_wholly_known() {
            return Err(bug(
                "Provider produced invalid object",
                "a value that is not wholly known",
            ));
        }
        let mut marks = decoded.marks.clone();
        marks.extend(core::sensitive_paths(&rs.schema.block, &value));
        Ok((value.clone(), normalize_marks(&value, &marks)))
    }
}
