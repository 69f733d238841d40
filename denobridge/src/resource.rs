//! `denobridge_resource`: plan (with the script's `modifyPlan`), apply
//! (`create`, `update`, `delete`), read and import, over ctywire values.

use ctywire::{Number, Path, Type, Value};
use ctywire_bridge::{Json, Object};

use crate::diag::{self, Diagnostic, Diagnostics};
use crate::private::Private;
use crate::props::{first_unknown, hash, receive, receive_like, send};
use crate::script::{params, Answer, Runner, Script};

/// What `PlanResourceChange` receives.
#[derive(Clone, Debug)]
pub struct PlanRequest<'a> {
    /// The prior state (null when creating).
    pub prior: &'a Value,
    /// Terraform's proposed new state (null when destroying).
    pub proposed: &'a Value,
    /// The configuration (null when destroying).
    pub config: &'a Value,
    /// The prior private state.
    pub prior_private: &'a [u8],
}

/// What `PlanResourceChange` answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The planned state.
    pub planned: Value,
    /// Attributes whose change needs a replacement.
    pub requires_replace: Vec<Path>,
    /// The planned private state.
    pub private: Vec<u8>,
    /// Problems.
    pub diags: Diagnostics,
}

/// What `ApplyResourceChange` receives.
#[derive(Clone, Debug)]
pub struct ApplyRequest<'a> {
    /// The prior state (null when creating).
    pub prior: &'a Value,
    /// The planned state (null when destroying).
    pub planned: &'a Value,
    /// The configuration (holds the write-only props).
    pub config: &'a Value,
    /// The planned private state.
    pub planned_private: &'a [u8],
}

/// What `ApplyResourceChange` and `ReadResource` answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// The new state (null: the resource does not exist).
    pub new_state: Value,
    /// The new private state.
    pub private: Vec<u8>,
    /// Problems.
    pub diags: Diagnostics,
}

/// `v` with attribute `name` set, in place (the rest is not copied).
fn put(mut v: Value, name: &str, new: Value) -> Result<Value, Diagnostic> {
    v.set_attr(name, new)
        .map_err(|e| unexpected_shape(name, e))?;
    Ok(v)
}

fn unexpected_shape(name: &str, e: ctywire::Error) -> Diagnostic {
    crate::diag::error(
        "The resource's value has an unexpected shape",
        format!("Setting `{name}`: {e}"),
    )
}

fn dynamic_null() -> Value {
    Value::null(Type::Dynamic)
}

fn plan_type(t: &str) -> Json {
    Json::String(t.into())
}

fn is_true(j: Option<&Json>) -> bool {
    matches!(j, Some(Json::Bool(true)))
}

/// A field that is there and not null.
fn present<'a>(result: &'a Json, key: &str) -> Option<&'a Json> {
    result.get(key).filter(|j| !j.is_null())
}

fn field<'a>(result: &'a Json, key: &str) -> &'a Json {
    result.get(key).unwrap_or(&Json::Null)
}

/// The write-only props from the configuration as JSON, `Ok(None)` when
/// they are null, or an error at their unknown part.
fn write_only(config: &Value) -> Result<Option<Json>, Diagnostic> {
    let j = send(config, "write_only_props")?;
    Ok((!j.is_null()).then_some(j))
}

impl Runner {
    /// `PlanResourceChange`.
    ///
    /// As terraform-plugin-framework plans denobridge's schema: on create
    /// `id`, `state` and `sensitive_state` are unknown; on update `id` keeps
    /// its value and, when anything changed, `state` and `sensitive_state`
    /// become unknown. The write-only props are compared by hash with the
    /// one kept in private state, *at plan*: a change bumps
    /// `write_only_props_version`, which makes the update Terraform would
    /// otherwise never see (write-only values are not in the plan).
    ///
    /// Then the script's `modifyPlan`, unless the props are unchanged (as
    /// denobridge) or **not wholly known**: denobridge sends unknowns as
    /// `""`, `false`, `[]` or `"<nil>"`, indistinguishable from real values;
    /// this provider does not call `modifyPlan` then, and the unknowns stay
    /// unknown in the plan. The script sees the props at apply, all known.
    pub async fn plan_resource(&self, req: PlanRequest<'_>) -> Plan {
        let mut diags = Diagnostics::new();
        let private = Private::parse(req.prior_private);
        let done = |planned: Value, replace: Vec<Path>, diags: Diagnostics, p: &Private| Plan {
            planned,
            requires_replace: replace,
            private: p.to_bytes(),
            diags,
        };
        if req.proposed.is_null() {
            // Destroy: denobridge asks modifyPlan too (planType "delete"),
            // for its diagnostics.
            if !req.prior.is_null() {
                let d = self.modify_plan(req.prior, req.proposed).await;
                diags.extend(d.diags);
            }
            return done(req.proposed.clone(), Vec::new(), diags, &private);
        }
        match self.planned(&req, &private) {
            Ok(planned) => {
                let mut planned = planned;
                let mut replace = Vec::new();
                let unchanged_props =
                    !req.prior.is_null() && req.prior.attr("props") == req.proposed.attr("props");
                if !unchanged_props {
                    let m = self.modify_plan(req.prior, &planned).await;
                    diags.extend(m.diags);
                    if m.replace {
                        replace.push(Path::root().attr("props"));
                    }
                    if let Some(props) = m.props {
                        if let Err(e) = planned.set_attr("props", props) {
                            diags.push(unexpected_shape("props", e));
                        }
                    }
                }
                done(planned, replace, diags, &private)
            }
            Err(d) => {
                diags.push(d);
                done(req.proposed.clone(), Vec::new(), diags, &private)
            }
        }
    }

    /// The framework's part of the plan, before `modifyPlan`.
    fn planned(&self, req: &PlanRequest<'_>, private: &Private) -> Result<Value, Diagnostic> {
        // Write-only attributes are never planned nor stored.
        let planned = put(req.proposed.clone(), "write_only_props", dynamic_null())?;
        if req.prior.is_null() {
            let p = put(planned, "id", Value::unknown(Type::String))?;
            let p = put(p, "state", Value::unknown(Type::Dynamic))?;
            let p = put(p, "sensitive_state", Value::unknown(Type::Dynamic))?;
            return put(p, "write_only_props_version", Value::number(1));
        }
        let prior_version = req
            .prior
            .attr("write_only_props_version")
            .cloned()
            .unwrap_or_else(|| Value::null(Type::Number));
        let planned = put(
            planned,
            "id",
            req.prior
                .attr("id")
                .cloned()
                .unwrap_or_else(|| Value::null(Type::String)),
        )?;
        // The version only moves when the write-only props are known now
        // (they can come from an ephemeral value that is not) and their hash
        // differs from the one kept at the last apply.
        let bump = match req.config.attr("write_only_props") {
            Some(wo) if wo.is_wholly_known() && !wo.is_null() => {
                let json = send(req.config, "write_only_props")?;
                hash(&json).as_deref() != private.write_only_hash()
            }
            _ => false,
        };
        let base = put(req.prior.clone(), "write_only_props", dynamic_null())?;
        let changed = planned != base;
        if !changed && !bump {
            return Ok(planned);
        }
        let version = if bump {
            let n = prior_version.as_i64().unwrap_or(0).saturating_add(1);
            Value::number(Number::from_i64(n))
        } else {
            prior_version
        };
        let p = put(planned, "state", Value::unknown(Type::Dynamic))?;
        let p = put(p, "sensitive_state", Value::unknown(Type::Dynamic))?;
        put(p, "write_only_props_version", version)
    }

    /// The script's `modifyPlan` for `planned` (null: a destroy). Its
    /// diagnostics always count (denobridge drops them when the answer also
    /// says `noChanges`, `requiresReplacement` or `modifiedProps`).
    async fn modify_plan(&self, prior: &Value, planned: &Value) -> Modified {
        let mut out = Modified::default();
        let subject = if planned.is_null() { prior } else { planned };
        if !planned.is_null() {
            if let Some(at) = planned.attr("props").and_then(first_unknown) {
                log::debug!(
                    "modifyPlan skipped: props{at} is not known yet; the script sees it at apply"
                );
                return out;
            }
        }
        let Ok(script) = Script::from_value(subject) else {
            // A path or permissions not known yet: nothing to run.
            log::debug!("modifyPlan skipped: the script is not known yet");
            return out;
        };
        let mut p = Object::new();
        let kind = match (prior.is_null(), planned.is_null()) {
            (true, _) => "create",
            (false, false) => "update",
            (false, true) => "delete",
        };
        if !prior.is_null() {
            if let Some(id) = prior.attr("id").and_then(Value::as_str) {
                p.insert("id", Json::String(id.to_string()));
            }
        }
        p.insert("planType", plan_type(kind));
        let next = if planned.is_null() {
            Ok(Json::Null)
        } else {
            send(planned, "props")
        };
        match next {
            Ok(j) => p.insert("nextProps", j),
            Err(d) => {
                out.diags.push(d);
                return out;
            }
        };
        if !prior.is_null() {
            for (key, attr) in [
                ("currentProps", "props"),
                ("currentState", "state"),
                ("currentSensitiveState", "sensitive_state"),
            ] {
                match send(prior, attr) {
                    Ok(j) => p.insert(key, j),
                    Err(d) => {
                        out.diags.push(d);
                        return out;
                    }
                };
            }
        }
        let session = match self.start(&script).await {
            Ok(s) => s,
            Err(d) => {
                out.diags.push(d);
                return out;
            }
        };
        let answer = session.call_optional("modifyPlan", Json::Object(p)).await;
        session.finish(&mut out.diags).await;
        let result = match answer {
            Ok(Answer::Result(r)) => r,
            Ok(Answer::NotFound) => return out,
            Err(d) => {
                out.diags.push(d);
                return out;
            }
        };
        out.diags
            .extend(diag::from_child(result.get("diagnostics"), subject));
        if is_true(result.get("noChanges")) || planned.is_null() {
            return out;
        }
        if is_true(result.get("requiresReplacement")) {
            out.replace = true;
            return out;
        }
        if let Some(modified) = present(&result, "modifiedProps") {
            let like = planned.attr("props").cloned().unwrap_or_else(dynamic_null);
            match receive_like(modified, &like, "props") {
                Ok(v) => out.props = Some(v),
                Err(d) => out.diags.push(d),
            }
        }
        out
    }

    /// `ApplyResourceChange`: `create`, `update` or `delete`.
    pub async fn apply_resource(&self, req: ApplyRequest<'_>) -> Applied {
        let mut private = Private::parse(req.planned_private);
        let mut diags = Diagnostics::new();
        let outcome = if req.planned.is_null() {
            self.delete(req.prior, &mut diags)
                .await
                .map(|()| dynamic_null_state(req.prior))
        } else if req.prior.is_null() {
            self.create(&req, &mut private, &mut diags).await
        } else {
            self.update(&req, &mut private, &mut diags).await
        };
        let new_state = match outcome {
            Ok(v) if !diags.has_errors() => v,
            // A created object is kept despite errors: Terraform records it
            // as tainted (and replaces it next time) instead of losing it.
            Ok(v) if req.prior.is_null() => v,
            Ok(_) | Err(()) => {
                // Nothing changed as far as Terraform is told: on create no
                // object, otherwise the prior one.
                req.prior.clone()
            }
        };
        Applied {
            new_state,
            private: if req.planned.is_null() {
                Vec::new()
            } else {
                private.to_bytes()
            },
            diags,
        }
    }

    async fn create(
        &self,
        req: &ApplyRequest<'_>,
        private: &mut Private,
        diags: &mut Diagnostics,
    ) -> Result<Value, ()> {
        let script = Script::from_value(req.planned).map_err(|d| diags.push(d))?;
        let props = send(req.planned, "props").map_err(|d| diags.push(d))?;
        let wo = write_only(req.config).map_err(|d| diags.push(d))?;
        if let Some(d) = self.unused_settings(&script) {
            diags.push(d);
        }
        let mut p = Object::new();
        p.insert("props", props);
        if let Some(wo) = &wo {
            p.insert("writeOnlyProps", wo.clone());
        }
        let result = self.run(&script, "create", Json::Object(p), diags).await?;
        let id = match result.get("id") {
            Some(Json::String(s)) => Some(s.clone()),
            _ => None,
        };
        let state = receive(field(&result, "state"), "state");
        let sensitive = receive(field(&result, "sensitiveState"), "sensitive_state");
        let new_state = (|| {
            let id = id.ok_or_else(|| {
                crate::diag::error(
                    "The script's create returned no id",
                    // The keys only: the answer may hold sensitive state.
                    format!(
                        "`id` must be a string; the answer had the keys {}",
                        diag::shorten(&answer_keys(&result))
                    ),
                )
            })?;
            // The object exists once the script gave its id: it goes into
            // state even when the rest of the answer cannot be read (the
            // error then has Terraform mark it tainted), never lost.
            let mut unreadable = |r: Result<Value, Diagnostic>| {
                r.unwrap_or_else(|d| {
                    diags.push(d);
                    dynamic_null()
                })
            };
            let (state, sensitive) = (unreadable(state), unreadable(sensitive));
            let v = put(req.planned.clone(), "id", Value::string(id))?;
            let v = put(v, "state", state)?;
            let v = put(v, "sensitive_state", sensitive)?;
            put(v, "write_only_props_version", Value::number(1))
        })();
        let target = new_state.as_ref().unwrap_or(req.planned);
        diags.extend(diag::from_child(result.get("diagnostics"), target));
        let v = new_state.map_err(|d| diags.push(d))?;
        if let Some(h) = wo.as_ref().and_then(hash) {
            private.set_write_only_hash(&h);
        }
        Ok(v)
    }

    async fn update(
        &self,
        req: &ApplyRequest<'_>,
        private: &mut Private,
        diags: &mut Diagnostics,
    ) -> Result<Value, ()> {
        let script = Script::from_value(req.planned).map_err(|d| diags.push(d))?;
        let id = req
            .prior
            .attr("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let next = send(req.planned, "props").map_err(|d| diags.push(d))?;
        let wo = write_only(req.config).map_err(|d| diags.push(d))?;
        let mut p = Object::new();
        p.insert("id", Json::String(id.clone()));
        p.insert("nextProps", next);
        if let Some(wo) = &wo {
            p.insert("nextWriteOnlyProps", wo.clone());
        }
        for (key, attr) in [
            ("currentProps", "props"),
            ("currentState", "state"),
            ("currentSensitiveState", "sensitive_state"),
        ] {
            p.insert(key, send(req.prior, attr).map_err(|d| diags.push(d))?);
        }
        if let Some(d) = self.unused_settings(&script) {
            diags.push(d);
        }
        let result = self.run(&script, "update", Json::Object(p), diags).await?;
        // A missing state is null, as in denobridge: the script says there
        // is none.
        let state = receive(field(&result, "state"), "state");
        let sensitive = receive(field(&result, "sensitiveState"), "sensitive_state");
        let version = match req.planned.attr("write_only_props_version") {
            Some(v) if v.is_known() => v.clone(),
            _ => req
                .prior
                .attr("write_only_props_version")
                .cloned()
                .unwrap_or_else(|| Value::null(Type::Number)),
        };
        let new_state = (|| {
            let v = put(req.planned.clone(), "id", Value::string(id))?;
            let v = put(v, "state", state?)?;
            let v = put(v, "sensitive_state", sensitive?)?;
            put(v, "write_only_props_version", version)
        })();
        let target = new_state.as_ref().unwrap_or(req.planned);
        diags.extend(diag::from_child(result.get("diagnostics"), target));
        let v = new_state.map_err(|d| diags.push(d))?;
        if let Some(h) = wo.as_ref().and_then(hash) {
            private.set_write_only_hash(&h);
        }
        Ok(v)
    }

    async fn delete(&self, prior: &Value, diags: &mut Diagnostics) -> Result<(), ()> {
        let script = Script::from_value(prior).map_err(|d| diags.push(d))?;
        let id = prior.attr("id").and_then(Value::as_str).unwrap_or_default();
        let mut p = Object::new();
        p.insert("id", Json::String(id.to_string()));
        for (key, attr) in [
            ("props", "props"),
            ("state", "state"),
            ("sensitiveState", "sensitive_state"),
        ] {
            p.insert(key, send(prior, attr).map_err(|d| diags.push(d))?);
        }
        let result = self.run(&script, "delete", Json::Object(p), diags).await?;
        diags.extend(diag::from_child(result.get("diagnostics"), prior));
        if diags.has_errors() {
            return Err(());
        }
        if !is_true(result.get("done")) {
            diags.push(crate::diag::error(
                "Failed to delete resource",
                "The script did not report the operation as done (`done: true`).",
            ));
            return Err(());
        }
        Ok(())
    }

    /// `ReadResource`: the script's `read`. `{"exists": false}` removes the
    /// resource from state (so the next plan creates it again). The props
    /// it returns are decoded at the type they had, so unchanged props stay
    /// equal to the configuration; props it leaves out are kept (denobridge
    /// nulls them, which shows as a change on every plan). A state or
    /// sensitive state left out is null, as in denobridge.
    pub async fn read_resource(&self, current: &Value, private: &[u8]) -> Applied {
        let mut diags = Diagnostics::new();
        let new_state = self
            .read(current, &mut diags)
            .await
            .unwrap_or_else(|()| current.clone());
        Applied {
            new_state,
            private: private.to_vec(),
            diags,
        }
    }

    async fn read(&self, current: &Value, diags: &mut Diagnostics) -> Result<Value, ()> {
        if current.is_null() {
            return Ok(current.clone());
        }
        let script = Script::from_value(current).map_err(|d| diags.push(d))?;
        let id = current
            .attr("id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let props = send(current, "props").map_err(|d| diags.push(d))?;
        let p = params([("id", Json::String(id.to_string())), ("props", props)]);
        let result = self.run(&script, "read", p, diags).await?;
        diags.extend(diag::from_child(result.get("diagnostics"), current));
        if diags.has_errors() {
            return Err(());
        }
        if matches!(result.get("exists"), Some(Json::Bool(false))) {
            return Ok(dynamic_null_state(current));
        }
        let props = match result.get("props") {
            None => Ok(current.attr("props").cloned().unwrap_or_else(dynamic_null)),
            Some(j) => receive_like(j, current.attr("props").unwrap_or(&dynamic_null()), "props"),
        };
        let state = receive(field(&result, "state"), "state");
        let sensitive = receive(field(&result, "sensitiveState"), "sensitive_state");
        let v = (|| {
            let v = put(current.clone(), "props", props?)?;
            let v = put(v, "state", state?)?;
            put(v, "sensitive_state", sensitive?)
        })();
        v.map_err(|d| diags.push(d))
    }

    /// Starts `script`, calls `method`, shuts it down: the result, or
    /// `Err` with the reason in `diags`. A result that is not an object is
    /// an error naming what came.
    pub(crate) async fn run(
        &self,
        script: &Script,
        method: &str,
        params: Json,
        diags: &mut Diagnostics,
    ) -> Result<Json, ()> {
        let session = self.start(script).await.map_err(|d| diags.push(d))?;
        let answer = session.call(method, params).await;
        session.finish(diags).await;
        let result = answer.map_err(|d| diags.push(d))?;
        if result.as_object().is_none() {
            diags.push(crate::diag::error(
                format!("The script's `{method}` answered with something else than an object"),
                format!("It answered with {}.", result.kind()),
            ));
            return Err(());
        }
        Ok(result)
    }
}

fn dynamic_null_state(v: &Value) -> Value {
    Value::null(v.ty().clone())
}

#[derive(Default)]
struct Modified {
    replace: bool,
    props: Option<Value>,
    diags: Diagnostics,
}

/// `ImportResourceState`: denobridge's import id, a JSON object
/// `{"id", "path", "props"?, "config_file"?, "permissions"?}`, read exactly
/// (the props' numbers are not rounded). `ReadResource` runs next and fills
/// in the rest from the script.
pub fn import_resource(import_id: &str, ty: &Type) -> Result<Value, Diagnostics> {
    let bad = |why: String| -> Diagnostics {
        crate::diag::error(
            "Invalid import ID",
            format!(
                "The import ID must be a JSON object {{\"id\": ..., \"path\": ..., \"props\"?: ..., \"config_file\"?: ..., \"permissions\"?: {{\"all\"?, \"allow\"?, \"deny\"?}}}}: {why}"
            ),
        )
        .into()
    };
    let json = Json::parse(import_id).map_err(|e| bad(e.to_string()))?;
    let Some(obj) = json.as_object() else {
        return Err(bad("it is not an object".into()));
    };
    // Go's encoding/json matches field names case-insensitively, so
    // denobridge accepts `"Path"` as well as `"path"`.
    let get = |name: &str| {
        obj.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
            .filter(|v| !v.is_null())
    };
    let string = |name: &str, required: bool| -> Result<Value, Diagnostics> {
        match get(name) {
            Some(Json::String(s)) => Ok(Value::string(s.as_str())),
            None if !required => Ok(Value::null(Type::String)),
            None => Err(bad(format!("\"{name}\" is missing"))),
            Some(other) => Err(bad(format!("\"{name}\" is {other}, not a string"))),
        }
    };
    let id = string("id", true)?;
    let path = string("path", true)?;
    let config_file = string("config_file", false)?;
    let props = match get("props") {
        Some(p) => receive(p, "props").map_err(Diagnostics::from)?,
        None => dynamic_null(),
    };
    let list_ty = Type::list(Type::String);
    let permissions = match get("permissions") {
        None => None,
        Some(Json::Object(p)) => {
            let field = |name: &str| {
                p.iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v)
                    .filter(|v| !v.is_null())
            };
            let all = match field("all") {
                None => Value::null(Type::Bool),
                Some(Json::Bool(b)) => Value::bool(*b),
                Some(other) => return Err(bad(format!("permissions.all is {other}"))),
            };
            let list = |name: &str| -> Result<Value, Diagnostics> {
                match field(name) {
                    None => Ok(Value::null(list_ty.clone())),
                    Some(Json::Array(items)) => {
                        let mut out = Vec::new();
                        for i in items {
                            match i {
                                Json::String(s) => out.push(Value::string(s.as_str())),
                                other => {
                                    return Err(bad(format!(
                                        "permissions.{name} holds {other}, not a string"
                                    )))
                                }
                            }
                        }
                        Value::list(Type::String, out).map_err(|e| bad(e.to_string()))
                    }
                    Some(other) => Err(bad(format!("permissions.{name} is {other}"))),
                }
            };
            Some(Value::object([
                ("all", all),
                ("allow", list("allow")?),
                ("deny", list("deny")?),
            ]))
        }
        Some(other) => return Err(bad(format!("permissions is {other}"))),
    };
    let permissions_ty = match ty {
        Type::Object(o) => o
            .attributes()
            .find(|(n, _)| *n == "permissions")
            .map(|(_, t)| t.clone()),
        _ => None,
    }
    .unwrap_or(Type::Dynamic);
    Ok(Value::object([
        ("config_file", config_file),
        ("id", id),
        ("path", path),
        (
            "permissions",
            permissions.unwrap_or_else(|| Value::null(permissions_ty)),
        ),
        ("props", props),
        ("sensitive_state", dynamic_null()),
        ("state", dynamic_null()),
        ("write_only_props", dynamic_null()),
        ("write_only_props_version", Value::null(Type::Number)),
    ]))
}

/// The keys of a script's answer, for a message that must not show the
/// values (they may be sensitive).
fn answer_keys(answer: &Json) -> String {
    match answer.as_object() {
        Some(o) => o
            .keys()
            .map(|k| format!("{k:?}"))
            .collect::<Vec<_>>()
            .join(", "),
        None => format!("(none: it is {})", answer.kind()),
    }
}
