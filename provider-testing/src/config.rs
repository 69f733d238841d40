//! Configuration as users write it: a body in Terraform's JSON syntax,
//! decoded against a schema block as core decodes it (hcldec through
//! `configschema.Block.DecoderSpec`), with references to other resources
//! (`"${kv_entry.a.id}"`) evaluated against what is known of them.

use std::collections::{BTreeMap, BTreeSet};

use ctywire::schema::{Attribute, Block, NestingMode};
use ctywire::{Number, Path, Type, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use serde_json::{json, Value as Json};

use super::core::Stored;
use super::eval::{evaluate_template, template_text_references, Locals};
use super::instances::{by_resource, instances_in, Repetition};
use super::show::same_path;
use super::Harness;

/// Keys of a resource body that are Terraform's, not the provider's
/// (`configs.Resource`'s meta-arguments).
pub(crate) const META_ARGUMENTS: &[&str] = &[
    "count",
    "for_each",
    "provider",
    "depends_on",
    "lifecycle",
    "connection",
    "provisioner",
];

/// A reference in an interpolation: `TYPE.NAME` followed by a path, or
/// `after_apply.NAME` (the harness's own "unknown until apply" value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reference {
    /// An attribute of another resource (`kv_entry.a.id`).
    Resource { address: String, path: Path },
    /// A value registered with `Harness::known_after_apply`.
    AfterApply(String),
}

/// What a reference evaluates to, as core's evaluator answers it.
pub(crate) trait Scope {
    /// The value, and the paths inside it that are sensitive (marked),
    /// relative to it.
    fn resolve(&self, reference: &Reference) -> Result<(Value, Vec<Path>), String>;

    /// The harness whose variables, locals and provider functions
    /// expressions use; none while validating (they are unknown then).
    fn harness(&self) -> Option<&Harness> {
        None
    }

    /// `count.index`, `each.key` and `each.value` here: none outside a
    /// repeated resource's instance.
    fn repetition(&self) -> Option<&Repetition> {
        None
    }
}

/// A JSON-syntax expression (strings are templates) evaluated in `scope`,
/// as core evaluates a meta-argument such as `count` or `for_each`.
pub(crate) fn evaluate_json(v: &Json, scope: &dyn Scope) -> Result<Decoded, Diagnostics> {
    let decoded = decode_body(
        &Block::new().attribute(Attribute::new("v", Type::Dynamic).optional()),
        &json!({ "v": v }),
        scope,
        &[],
    )?;
    let value = (decoded.value.attr("v").cloned()).unwrap_or(Value::null(Type::Dynamic));
    // The marks, relative to the value.
    let marks = marks_under(&decoded.marks, &Path::root().attr("v"), 1);
    Ok(Decoded { value, marks })
}

/// A decoded body: its value and the paths its references marked
/// sensitive (core's marks on the configuration value).
pub(crate) struct Decoded {
    pub value: Value,
    pub marks: Vec<Path>,
}

/// Where a body's references point: the resource addresses it depends
/// on, through the configuration's locals.
pub(crate) fn references(body: &Json, locals: &Locals) -> Result<BTreeSet<String>, String> {
    let mut out = BTreeSet::new();
    collect_references(body, locals, &mut out, 0)?;
    Ok(out)
}

fn collect_references(
    v: &Json,
    locals: &Locals,
    out: &mut BTreeSet<String>,
    depth: usize,
) -> Result<(), String> {
    if depth > ctywire::DEFAULT_MAX_DEPTH {
        return Err("the configuration is nested too deeply".into());
    }
    match v {
        Json::String(s) => template_text_references(s, locals, out)?,
        Json::Array(a) => {
            for e in a {
                collect_references(e, locals, out, depth + 1)?;
            }
        }
        Json::Object(o) => {
            for e in o.values() {
                collect_references(e, locals, out, depth + 1)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Decodes `body` (a JSON object) as a value of `block`'s implied type.
/// `meta` lists keys that are Terraform's and skipped. Errors say what
/// Terraform's say, at the attribute's path; like Terraform's, their
/// detail does not name the block (Terraform shows its source range).
pub(crate) fn decode_body(
    block: &Block,
    body: &Json,
    scope: &dyn Scope,
    meta: &[&str],
) -> Result<Decoded, Diagnostics> {
    let mut d = Decoder {
        scope,
        marks: Vec::new(),
        diags: Diagnostics::new(),
    };
    let value = d.block(block, body, &Path::root(), meta, 0);
    if d.diags.has_errors() {
        return Err(d.diags);
    }
    Ok(Decoded {
        value,
        marks: d.marks,
    })
}

struct Decoder<'a> {
    scope: &'a dyn Scope,
    marks: Vec<Path>,
    diags: Diagnostics,
}

impl Decoder<'_> {
    fn error(&mut self, path: &Path, summary: &str, detail: String) {
        let mut d = Diagnostic::error(summary).with_detail(detail);
        if !path.is_root() {
            d = d.at(path.clone());
        }
        self.diags.push(d);
    }

    fn block(
        &mut self,
        block: &Block,
        body: &Json,
        path: &Path,
        meta: &[&str],
        depth: usize,
    ) -> Value {
        let fallback = || {
            block
                .empty_value()
                .unwrap_or_else(|_| Value::null(Type::Dynamic))
        };
        if depth > ctywire::DEFAULT_MAX_DEPTH {
            self.error(
                path,
                "Configuration too deep",
                "nested blocks go too deep".into(),
            );
            return fallback();
        }
        let Some(obj) = body.as_object() else {
            self.error(
                path,
                "Incorrect JSON value type",
                "a block body must be a JSON object".into(),
            );
            return fallback();
        };
        for key in obj.keys() {
            // "//" is the JSON syntax's comment property.
            let known = key == "//"
                || meta.contains(&key.as_str())
                || block.find_attribute(key).is_some()
                || block.find_block_type(key).is_some();
            if !known {
                self.error(
                    &path.clone().attr(key.clone()),
                    "Unsupported argument",
                    format!("An argument named {key:?} is not expected here."),
                );
            }
        }
        let mut attrs: Vec<(String, Value)> = Vec::new();
        for a in &block.attributes {
            let apath = path.clone().attr(a.name.clone());
            let v = self.attribute(a, obj.get(&a.name), &apath);
            attrs.push((a.name.clone(), v));
        }
        for b in &block.block_types {
            let Ok(Some(ty)) = b.implied_type() else {
                continue;
            };
            let bpath = path.clone().attr(b.type_name.clone());
            let given = obj.get(&b.type_name).filter(|v| !v.is_null());
            let v = match (b.nesting, given) {
                (NestingMode::Single, None) => Value::null(ty),
                (NestingMode::Group, None) => b.block.empty_value().unwrap_or(Value::null(ty)),
                (NestingMode::Single | NestingMode::Group, Some(body)) => {
                    let bodies = as_bodies(body);
                    if bodies.len() != 1 {
                        self.error(
                            &bpath,
                            "Too many blocks",
                            format!("No more than 1 {:?} blocks are allowed", b.type_name),
                        );
                    }
                    match bodies.first() {
                        Some(body) => self.block(&b.block, body, &bpath, &[], depth + 1),
                        None => Value::null(ty),
                    }
                }
                (NestingMode::List | NestingMode::Set, given) => {
                    let bodies = given.map(as_bodies).unwrap_or_default();
                    // hcldec's BlockListSpec / BlockSetSpec limits.
                    let n = bodies.len() as i64;
                    if b.min_items > 0 && n < b.min_items {
                        self.error(
                            &bpath,
                            "Insufficient blocks",
                            format!(
                                "At least {} {:?} blocks are required.",
                                b.min_items, b.type_name
                            ),
                        );
                    }
                    if b.max_items > 0 && n > b.max_items {
                        self.error(
                            &bpath,
                            "Too many blocks",
                            format!(
                                "No more than {} {:?} blocks are allowed.",
                                b.max_items, b.type_name
                            ),
                        );
                    }
                    let elems: Vec<Value> = bodies
                        .iter()
                        .enumerate()
                        .map(|(i, body)| {
                            self.block(
                                &b.block,
                                body,
                                &bpath.clone().index(i as u64),
                                &[],
                                depth + 1,
                            )
                        })
                        .collect();
                    self.collection(b.nesting, &ty, elems, &bpath)
                }
                (NestingMode::Map, given) => {
                    let mut entries: Vec<(String, Value)> = Vec::new();
                    if let Some(given) = given {
                        match given.as_object() {
                            Some(labels) => {
                                for (label, body) in labels {
                                    let epath = bpath.clone().key(label.clone());
                                    for body in as_bodies(body) {
                                        let v = self.block(&b.block, body, &epath, &[], depth + 1);
                                        entries.push((label.clone(), v));
                                    }
                                }
                            }
                            None => self.error(
                                &bpath,
                                "Incorrect JSON value type",
                                "blocks with labels are a JSON object keyed by label".into(),
                            ),
                        }
                    }
                    match &ty {
                        Type::Map(e) => Value::map((**e).clone(), entries)
                            .unwrap_or_else(|_| Value::null(ty.clone())),
                        _ => Value::object(entries),
                    }
                }
                (NestingMode::Invalid, _) => continue,
            };
            attrs.push((b.type_name.clone(), v));
        }
        Value::object(attrs)
    }

    fn collection(
        &mut self,
        mode: NestingMode,
        ty: &Type,
        elems: Vec<Value>,
        path: &Path,
    ) -> Value {
        let built = match (mode, ty) {
            (NestingMode::List, Type::List(e)) => Value::list((**e).clone(), elems),
            (NestingMode::Set, Type::Set(e)) => Value::set((**e).clone(), elems),
            // A list block with dynamic content is a tuple.
            _ => Ok(Value::tuple(elems)),
        };
        built.unwrap_or_else(|e| {
            self.error(path, "Invalid block", e.to_string());
            Value::null(ty.clone())
        })
    }

    fn attribute(&mut self, a: &Attribute, given: Option<&Json>, path: &Path) -> Value {
        let ty = a.implied_type().unwrap_or(Type::Dynamic);
        let Some(given) = given else {
            if a.required {
                self.error(
                    path,
                    "Missing required argument",
                    format!(
                        "The argument {:?} is required, but no definition was found.",
                        a.name
                    ),
                );
            }
            return Value::null(ty);
        };
        let raw = self.expression(given, path, 0);
        // Nested attributes convert to configschema's `specType`: their
        // optional and computed attributes may be left out (null).
        let converted = match &a.nested_type {
            Some(o) => spec_type(o).and_then(|t| raw.convert(&t)),
            None => raw.convert(&ty),
        };
        match converted {
            Ok(v) => v,
            Err(e) => {
                self.error(
                    path,
                    "Incorrect attribute value type",
                    format!("Inappropriate value for attribute {:?}: {e}.", a.name),
                );
                Value::null(ty)
            }
        }
    }

    /// A JSON expression as HCL's JSON syntax reads it: strings are
    /// templates, arrays tuples, objects objects, `null` a null of any
    /// type.
    fn expression(&mut self, v: &Json, path: &Path, depth: usize) -> Value {
        if depth > ctywire::DEFAULT_MAX_DEPTH {
            self.error(
                path,
                "Configuration too deep",
                "the value nests too deeply".into(),
            );
            return Value::null(Type::Dynamic);
        }
        match v {
            Json::Null => Value::null(Type::Dynamic),
            Json::Bool(b) => Value::bool(*b),
            Json::Number(n) => match n.to_string().parse::<Number>() {
                Ok(n) => Value::number(n),
                Err(e) => {
                    self.error(path, "Invalid number", e.to_string());
                    Value::null(Type::Number)
                }
            },
            Json::String(s) => self.template(s, path),
            Json::Array(a) => Value::tuple(
                a.iter()
                    .enumerate()
                    .map(|(i, e)| self.expression(e, &path.clone().index(i as u64), depth + 1))
                    .collect(),
            ),
            Json::Object(o) => Value::object(
                o.iter()
                    .map(|(k, e)| {
                        (
                            k.clone(),
                            self.expression(e, &path.clone().attr(k.clone()), depth + 1),
                        )
                    })
                    .collect::<Vec<_>>(),
            ),
        }
    }

    /// A string template (HCL's template syntax, any expression in its
    /// interpolations): one whole interpolation keeps the value's type.
    fn template(&mut self, s: &str, path: &Path) -> Value {
        match evaluate_template(s, self.scope) {
            Ok(m) => {
                for mark in m.marks {
                    let mut p = path.clone();
                    for s in mark.steps() {
                        p = match s {
                            ctywire::PathStep::Attr(n) => p.attr(n.clone()),
                            ctywire::PathStep::Key(k) => p.key(k.clone()),
                            ctywire::PathStep::Index(i) => p.index(*i),
                        };
                    }
                    if !self.marks.iter().any(|x| same_path(x, &p)) {
                        self.marks.push(p);
                    }
                }
                m.value
            }
            Err(e) => {
                self.error(path, &e.summary, e.detail);
                Value::null(Type::Dynamic)
            }
        }
    }
}

/// configschema's `Object.specType`: the nested attributes' object type
/// with the optional and computed ones marked optional, wrapped by the
/// nesting.
fn spec_type(o: &ctywire::schema::Object) -> ctywire::Result<Type> {
    let mut attrs: Vec<(String, Type)> = Vec::with_capacity(o.attributes.len());
    for a in &o.attributes {
        let t = match &a.nested_type {
            Some(n) => spec_type(n)?,
            None => a.ty.clone().unwrap_or(Type::Dynamic),
        };
        attrs.push((a.name.clone(), t));
    }
    let optional: Vec<&str> = o
        .attributes
        .iter()
        .filter(|a| a.optional || a.computed)
        .map(|a| a.name.as_str())
        .collect();
    let obj = Type::object_with_optional(attrs, optional)?;
    Ok(match o.nesting {
        NestingMode::List => Type::list(obj),
        NestingMode::Set => Type::set(obj),
        NestingMode::Map => Type::map(obj),
        _ => obj,
    })
}

/// A nested block's JSON: one body (an object) or several (an array).
fn as_bodies(v: &Json) -> Vec<&Json> {
    match v {
        Json::Array(a) => a.iter().collect(),
        other => vec![other],
    }
}

// References resolved: what a reference stands for in each command.

/// JSON whose strings are literal text, not templates: `${` and `%{`
/// escaped.
pub(crate) fn escape_templates(v: Json) -> Json {
    match v {
        Json::String(s) => Json::String(s.replace("${", "$${").replace("%{", "%%{")),
        Json::Array(a) => Json::Array(a.into_iter().map(escape_templates).collect()),
        Json::Object(o) => Json::Object(
            o.into_iter()
                .map(|(k, v)| (k, escape_templates(v)))
                .collect(),
        ),
        other => other,
    }
}

/// References while validating: everything unknown.
pub(crate) struct UnknownScope;

impl Scope for UnknownScope {
    fn resolve(&self, _: &Reference) -> Result<(Value, Vec<Path>), String> {
        Ok((Value::unknown(ctywire::Type::Dynamic), Vec::new()))
    }
}

/// References in the provider block: variables, locals and functions;
/// no resource (the harness configures the provider before any).
pub(crate) struct VariablesScope<'a> {
    pub(crate) harness: &'a Harness,
}

impl Scope for VariablesScope<'_> {
    fn harness(&self) -> Option<&Harness> {
        Some(self.harness)
    }

    fn resolve(&self, _: &Reference) -> Result<(Value, Vec<Path>), String> {
        Err("the harness's provider block cannot refer to resources".into())
    }
}

/// References while planning: the planned values of the resources planned
/// so far (unknown where they are), `after_apply` values unknown.
pub(crate) struct PlanScope<'a> {
    pub(crate) harness: &'a Harness,
    pub(crate) planned: &'a BTreeMap<String, (Value, Vec<Path>)>,
}

impl Scope for PlanScope<'_> {
    fn harness(&self) -> Option<&Harness> {
        Some(self.harness)
    }

    fn resolve(&self, r: &Reference) -> Result<(Value, Vec<Path>), String> {
        match r {
            Reference::AfterApply(name) => {
                if !self.harness.after_apply.contains_key(name) {
                    return Err(format!(
                        "no value {name:?} was declared with known_after_apply"
                    ));
                }
                Ok((Value::unknown(ctywire::Type::Dynamic), Vec::new()))
            }
            Reference::Resource { address, path } if crate::ephemeral::is_ephemeral(address) => {
                let (v, marks) = self.harness.ephemeral_value(address)?;
                resolve_in(&v, &marks, path)
            }
            Reference::Resource { address, path } => {
                let (v, marks) = self
                    .planned
                    .get(address)
                    .ok_or_else(|| format!("{address} has not been planned"))?;
                resolve_in(v, marks, path)
            }
        }
    }
}

/// References while applying: the objects applied so far, `after_apply`
/// values known.
pub(crate) struct ApplyScope<'a> {
    pub(crate) harness: &'a Harness,
    pub(crate) working: &'a BTreeMap<String, Stored>,
    /// The data resources read so far.
    pub(crate) data: &'a BTreeMap<String, (Value, Vec<Path>)>,
}

impl Scope for ApplyScope<'_> {
    fn harness(&self) -> Option<&Harness> {
        Some(self.harness)
    }

    fn resolve(&self, r: &Reference) -> Result<(Value, Vec<Path>), String> {
        match r {
            Reference::AfterApply(name) => {
                let json = self.harness.after_apply.get(name).ok_or_else(|| {
                    format!("no value {name:?} was declared with known_after_apply")
                })?;
                let decoded = evaluate_json(&escape_templates(json.clone()), &UnknownScope)
                    .map_err(|d| d.to_string())?;
                Ok((decoded.value, Vec::new()))
            }
            // An ephemeral resource's value is its own, repeated or not.
            Reference::Resource { address, path } if crate::ephemeral::is_ephemeral(address) => {
                let (v, marks) = self.harness.ephemeral_value(address)?;
                resolve_in(&v, &marks, path)
            }
            // A repeated resource's instances, as one value.
            Reference::Resource { address, path }
                if self.harness.repetition_of(address).is_some() =>
            {
                let mut instances = BTreeMap::new();
                if crate::core::is_data(address) {
                    for (a, read) in instances_in(self.data, address) {
                        instances.insert(a.clone(), read.clone());
                    }
                } else {
                    for (a, stored) in instances_in(self.working, address) {
                        instances.insert(a.clone(), self.object(a, stored)?);
                    }
                }
                let whole = by_resource(self.harness, &instances);
                let (v, marks) = whole
                    .get(address)
                    .ok_or_else(|| format!("{address} has no instances"))?;
                resolve_in(v, marks, path)
            }
            Reference::Resource { address, path } if crate::core::is_data(address) => {
                let (v, marks) = self
                    .data
                    .get(address)
                    .ok_or_else(|| format!("{address} has not been read"))?;
                resolve_in(v, marks, path)
            }
            Reference::Resource { address, path } => {
                let stored = self
                    .working
                    .get(address)
                    .ok_or_else(|| format!("{address} has no object in state"))?;
                let (v, marks) = self.object(address, stored)?;
                resolve_in(&v, &marks, path)
            }
        }
    }
}

impl ApplyScope<'_> {
    /// An object in the working state, with its marks.
    fn object(&self, address: &str, stored: &Stored) -> Result<(Value, Vec<Path>), String> {
        let rs = (self.harness.schemas.resources.get(&stored.type_name))
            .ok_or_else(|| format!("{address}: unknown resource type"))?;
        let v = ctywire::json::decode(&stored.attrs_json, &rs.ty).map_err(|e| e.to_string())?;
        let mut marks = stored.sensitive.clone();
        marks.extend(crate::core::sensitive_paths(&rs.schema.block, &v));
        Ok((v, marks))
    }
}

/// The part of `v` at `path` and the marks inside it (relative to it); a
/// mark above it marks the whole part. Unknown on the way: unknown.
fn resolve_in(v: &Value, marks: &[Path], path: &Path) -> Result<(Value, Vec<Path>), String> {
    let mut cur = v;
    for (i, step) in path.steps().iter().enumerate() {
        if !cur.is_known() {
            return Ok((
                Value::unknown(ctywire::Type::Dynamic),
                marks_under(marks, path, i),
            ));
        }
        cur = super::show::child(cur, step).ok_or_else(|| {
            format!(
                "{} has no {}",
                Path::from(path.steps()[..i].to_vec()),
                Path::from(path.steps()[..=i].to_vec())
            )
        })?;
    }
    Ok((cur.clone(), marks_under(marks, path, path.steps().len())))
}

/// Marks relative to `path` (its first `len` steps): a mark on or above
/// it marks the whole (the root path), one below it keeps its tail.
fn marks_under(marks: &[Path], path: &Path, len: usize) -> Vec<Path> {
    let prefix = &path.steps()[..len.min(path.steps().len())];
    let mut out = Vec::new();
    for m in marks {
        let ms = m.steps();
        let shared = ms.len().min(prefix.len());
        if !same_path(
            &Path::from(ms[..shared].to_vec()),
            &Path::from(prefix[..shared].to_vec()),
        ) {
            continue;
        }
        if ms.len() <= prefix.len() {
            return vec![Path::root()];
        }
        out.push(Path::from(ms[prefix.len()..].to_vec()));
    }
    out
}
