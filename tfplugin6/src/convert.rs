//! Conversions between the generated protobuf messages and ctywire's
//! types: schemas, values, attribute paths, diagnostics, functions.
//!
//! Every conversion from protobuf is fallible where the message can hold
//! something ctywire cannot (malformed type JSON, a negative index, a path
//! step with no selector) and names where; none of them panics.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ctywire::protocol::{AttributePathStep, DynamicValue};
use ctywire::schema::{
    Attribute, Block, IdentityAttribute, IdentitySchema, NestedBlock, NestingMode, Object, Schema,
    StringKind,
};
use ctywire::{DecodeOptions, Error, Path, Type, Value};

use crate::diagnostics::{Diagnostic, Severity};
use crate::pb::tfplugin6 as pb;
use crate::provider::{
    ClientCapabilities, Deferred, Function, FunctionError, Parameter, RawState, ServerCapabilities,
};

// ---- schemas ----

/// A schema as protobuf.
pub fn schema_to_proto(s: &Schema) -> pb::Schema {
    pb::Schema {
        version: s.version,
        block: Some(block_to_proto(&s.block)),
    }
}

/// A schema from protobuf; an attribute whose type JSON ctywire cannot
/// parse is an error at its path.
pub fn schema_from_proto(s: &pb::Schema) -> Result<Schema, Error> {
    Ok(Schema {
        version: s.version,
        block: match &s.block {
            Some(b) => block_from_proto(b)?,
            None => Block::default(),
        },
    })
}

fn kind_to_proto(k: StringKind) -> i32 {
    match k {
        StringKind::Plain => pb::StringKind::Plain as i32,
        StringKind::Markdown => pb::StringKind::Markdown as i32,
    }
}

fn kind_from_proto(k: i32) -> StringKind {
    if k == pb::StringKind::Markdown as i32 {
        StringKind::Markdown
    } else {
        StringKind::Plain
    }
}

/// A block as protobuf.
pub fn block_to_proto(b: &Block) -> pb::schema::Block {
    pb::schema::Block {
        version: b.version,
        attributes: b.attributes.iter().map(attribute_to_proto).collect(),
        block_types: b.block_types.iter().map(nested_block_to_proto).collect(),
        description: b.description.clone(),
        description_kind: kind_to_proto(b.description_kind),
        deprecated: b.deprecated,
        deprecation_message: b.deprecation_message.clone(),
        computed: b.computed,
    }
}

/// A block from protobuf.
pub fn block_from_proto(b: &pb::schema::Block) -> Result<Block, Error> {
    let mut attributes = Vec::with_capacity(b.attributes.len());
    for a in &b.attributes {
        attributes.push(attribute_from_proto(a)?);
    }
    let mut block_types = Vec::with_capacity(b.block_types.len());
    for nb in &b.block_types {
        block_types.push(nested_block_from_proto(nb)?);
    }
    Ok(Block {
        version: b.version,
        attributes,
        block_types,
        description: b.description.clone(),
        description_kind: kind_from_proto(b.description_kind),
        deprecated: b.deprecated,
        deprecation_message: b.deprecation_message.clone(),
        computed: b.computed,
    })
}

/// An attribute as protobuf: its type as type JSON, or its nested type.
pub fn attribute_to_proto(a: &Attribute) -> pb::schema::Attribute {
    pb::schema::Attribute {
        name: a.name.clone(),
        r#type: a
            .ty
            .as_ref()
            .map(|t| t.to_json().into_bytes())
            .unwrap_or_default(),
        nested_type: a.nested_type.as_ref().map(object_to_proto),
        description: a.description.clone(),
        required: a.required,
        optional: a.optional,
        computed: a.computed,
        sensitive: a.sensitive,
        description_kind: kind_to_proto(a.description_kind),
        deprecated: a.deprecated,
        write_only: a.write_only,
        deprecation_message: a.deprecation_message.clone(),
    }
}

/// An attribute from protobuf; malformed type JSON is an error at the
/// attribute.
pub fn attribute_from_proto(a: &pb::schema::Attribute) -> Result<Attribute, Error> {
    let within = |e: Error| e.within(&Path::root().attr(a.name.clone()));
    let ty = if a.r#type.is_empty() {
        None
    } else {
        Some(Type::parse_with(&a.r#type, &DecodeOptions::default()).map_err(within)?)
    };
    let nested_type = match &a.nested_type {
        Some(o) => Some(object_from_proto(o).map_err(within)?),
        None => None,
    };
    Ok(Attribute {
        name: a.name.clone(),
        ty,
        nested_type,
        description: a.description.clone(),
        description_kind: kind_from_proto(a.description_kind),
        required: a.required,
        optional: a.optional,
        computed: a.computed,
        sensitive: a.sensitive,
        deprecated: a.deprecated,
        write_only: a.write_only,
        deprecation_message: a.deprecation_message.clone(),
    })
}

/// A nested block type as protobuf.
pub fn nested_block_to_proto(nb: &NestedBlock) -> pb::schema::NestedBlock {
    pb::schema::NestedBlock {
        type_name: nb.type_name.clone(),
        block: Some(block_to_proto(&nb.block)),
        nesting: nb.nesting as i32,
        min_items: nb.min_items,
        max_items: nb.max_items,
    }
}

/// A nested block type from protobuf (an unknown nesting number is
/// `Invalid`, as ctywire reads it).
pub fn nested_block_from_proto(nb: &pb::schema::NestedBlock) -> Result<NestedBlock, Error> {
    Ok(NestedBlock {
        type_name: nb.type_name.clone(),
        block: match &nb.block {
            Some(b) => {
                block_from_proto(b).map_err(|e| e.within(&Path::root().attr(&nb.type_name)))?
            }
            None => Block::default(),
        },
        nesting: NestingMode::from_i32(nb.nesting),
        min_items: nb.min_items,
        max_items: nb.max_items,
    })
}

/// Nested attributes as protobuf. `GROUP` does not exist for them in the
/// protocol: it is sent as `INVALID`.
#[allow(deprecated)]
pub fn object_to_proto(o: &Object) -> pb::schema::Object {
    pb::schema::Object {
        attributes: o.attributes.iter().map(attribute_to_proto).collect(),
        nesting: match o.nesting {
            NestingMode::Group => 0,
            n => n as i32,
        },
        min_items: o.min_items,
        max_items: o.max_items,
    }
}

/// Nested attributes from protobuf.
#[allow(deprecated)]
pub fn object_from_proto(o: &pb::schema::Object) -> Result<Object, Error> {
    let mut attributes = Vec::with_capacity(o.attributes.len());
    for a in &o.attributes {
        attributes.push(attribute_from_proto(a)?);
    }
    Ok(Object {
        attributes,
        nesting: match NestingMode::from_i32(o.nesting) {
            NestingMode::Group => NestingMode::Invalid,
            n => n,
        },
        min_items: o.min_items,
        max_items: o.max_items,
    })
}

/// An identity schema as protobuf.
pub fn identity_schema_to_proto(s: &IdentitySchema) -> pb::ResourceIdentitySchema {
    pb::ResourceIdentitySchema {
        version: s.version,
        identity_attributes: (s.identity_attributes.iter())
            .map(|a| pb::resource_identity_schema::IdentityAttribute {
                name: a.name.clone(),
                r#type: a.ty.to_json().into_bytes(),
                required_for_import: a.required_for_import,
                optional_for_import: a.optional_for_import,
                description: a.description.clone(),
            })
            .collect(),
    }
}

/// An identity schema from protobuf; malformed type JSON is an error at
/// the attribute.
pub fn identity_schema_from_proto(s: &pb::ResourceIdentitySchema) -> Result<IdentitySchema, Error> {
    let mut identity_attributes = Vec::with_capacity(s.identity_attributes.len());
    for a in &s.identity_attributes {
        identity_attributes.push(IdentityAttribute {
            name: a.name.clone(),
            ty: parse_type(&a.r#type).map_err(|e| e.within(&Path::root().attr(a.name.clone())))?,
            required_for_import: a.required_for_import,
            optional_for_import: a.optional_for_import,
            description: a.description.clone(),
        });
    }
    Ok(IdentitySchema {
        version: s.version,
        identity_attributes,
    })
}

/// An identity as protobuf: `ResourceIdentityData` around a msgpack
/// `DynamicValue`.
pub fn identity_to_proto(v: &Value, ty: &Type) -> Result<pb::ResourceIdentityData, Error> {
    Ok(pb::ResourceIdentityData {
        identity_data: Some(encode_dynamic_value(v, ty)?),
    })
}

/// An identity from protobuf: `None` when the message (or its data) is
/// absent, as Terraform sends no identity for an object that has none.
pub fn identity_from_proto(
    d: Option<&pb::ResourceIdentityData>,
    ty: &Type,
) -> Result<Option<Value>, Error> {
    match d.and_then(|d| d.identity_data.as_ref()) {
        Some(dv) => decode_dynamic_value(Some(dv), ty).map(Some),
        None => Ok(None),
    }
}

// ---- functions ----

/// A function signature as protobuf.
pub fn function_to_proto(f: &Function) -> pb::Function {
    pb::Function {
        parameters: f.parameters.iter().map(parameter_to_proto).collect(),
        variadic_parameter: f.variadic_parameter.as_ref().map(parameter_to_proto),
        r#return: Some(pb::function::Return {
            r#type: f.return_type.to_json().into_bytes(),
        }),
        summary: f.summary.clone(),
        description: f.description.clone(),
        description_kind: kind_to_proto(f.description_kind),
        deprecation_message: f.deprecation_message.clone(),
    }
}

/// A function signature from protobuf.
pub fn function_from_proto(f: &pb::Function) -> Result<Function, Error> {
    let mut parameters = Vec::with_capacity(f.parameters.len());
    for (i, p) in f.parameters.iter().enumerate() {
        parameters
            .push(parameter_from_proto(p).map_err(|e| e.within(&Path::root().index(i as u64)))?);
    }
    let return_type = match &f.r#return {
        Some(r) => parse_type(&r.r#type)?,
        None => return Err(Error::custom("the function has no return type")),
    };
    Ok(Function {
        parameters,
        variadic_parameter: match &f.variadic_parameter {
            Some(p) => Some(parameter_from_proto(p)?),
            None => None,
        },
        return_type,
        summary: f.summary.clone(),
        description: f.description.clone(),
        description_kind: kind_from_proto(f.description_kind),
        deprecation_message: f.deprecation_message.clone(),
    })
}

fn parse_type(json: &[u8]) -> Result<Type, Error> {
    Type::parse_with(json, &DecodeOptions::default())
}

fn parameter_to_proto(p: &Parameter) -> pb::function::Parameter {
    pb::function::Parameter {
        name: p.name.clone(),
        r#type: p.ty.to_json().into_bytes(),
        allow_null_value: p.allow_null_value,
        allow_unknown_values: p.allow_unknown_values,
        description: p.description.clone(),
        description_kind: kind_to_proto(p.description_kind),
    }
}

fn parameter_from_proto(p: &pb::function::Parameter) -> Result<Parameter, Error> {
    Ok(Parameter {
        name: p.name.clone(),
        ty: parse_type(&p.r#type)?,
        allow_null_value: p.allow_null_value,
        allow_unknown_values: p.allow_unknown_values,
        description: p.description.clone(),
        description_kind: kind_from_proto(p.description_kind),
    })
}

/// A function error as protobuf.
pub fn function_error_to_proto(e: &FunctionError) -> pb::FunctionError {
    pb::FunctionError {
        text: e.text.clone(),
        function_argument: e.function_argument,
    }
}

// ---- values ----

/// Decodes a `DynamicValue` as Terraform encodes it, straight from the
/// message's bytes: msgpack when present, else JSON, else (or when the
/// message is absent) a null of `ty`. Errors carry the path of the
/// offending part.
pub fn decode_dynamic_value(dv: Option<&pb::DynamicValue>, ty: &Type) -> Result<Value, Error> {
    let (msgpack, json) = dv.map_or((&[][..], &[][..]), |dv| (&dv.msgpack[..], &dv.json[..]));
    DynamicValue::decode_parts(msgpack, json, ty, &DecodeOptions::default())
}

/// Encodes a value as a msgpack `DynamicValue` (go-cty's bytes); a value
/// that does not conform to `ty` is an error at its path.
pub fn encode_dynamic_value(v: &Value, ty: &Type) -> Result<pb::DynamicValue, Error> {
    let DynamicValue { msgpack, json } = DynamicValue::encode(v, ty)?;
    Ok(pb::DynamicValue { msgpack, json })
}

/// A `RawState` from protobuf, its JSON and flatmap moved out of the
/// message.
pub fn raw_state_from_proto(r: Option<pb::RawState>) -> RawState {
    match r {
        Some(r) => RawState {
            json: r.json,
            flatmap: r.flatmap.into_iter().collect::<BTreeMap<_, _>>(),
        },
        None => RawState::default(),
    }
}

// ---- paths ----

/// A path as an `AttributePath`.
pub fn path_to_proto(p: &Path) -> pb::AttributePath {
    use pb::attribute_path::step::Selector;
    pb::AttributePath {
        steps: p
            .to_attribute_path()
            .into_iter()
            .map(|s| pb::attribute_path::Step {
                selector: Some(match s {
                    AttributePathStep::AttributeName(n) => Selector::AttributeName(n),
                    AttributePathStep::ElementKeyString(k) => Selector::ElementKeyString(k),
                    AttributePathStep::ElementKeyInt(i) => Selector::ElementKeyInt(i),
                }),
            })
            .collect(),
    }
}

/// A path from an `AttributePath`. A step with no selector, or a negative
/// index, is an error naming the step.
pub fn path_from_proto(p: &pb::AttributePath) -> Result<Path, Error> {
    use pb::attribute_path::step::Selector;
    let mut steps = Vec::with_capacity(p.steps.len());
    for (n, s) in p.steps.iter().enumerate() {
        steps.push(match &s.selector {
            Some(Selector::AttributeName(a)) => AttributePathStep::AttributeName(a.clone()),
            Some(Selector::ElementKeyString(k)) => AttributePathStep::ElementKeyString(k.clone()),
            Some(Selector::ElementKeyInt(i)) => AttributePathStep::ElementKeyInt(*i),
            None => {
                return Err(Error::custom(format!(
                    "step {n} of the attribute path has no selector"
                )))
            }
        });
    }
    Path::from_attribute_path(&steps)
}

// ---- diagnostics ----

/// A diagnostic as protobuf.
pub fn diagnostic_to_proto(d: &Diagnostic) -> pb::Diagnostic {
    pb::Diagnostic {
        severity: match d.severity {
            Severity::Error => pb::diagnostic::Severity::Error as i32,
            Severity::Warning => pb::diagnostic::Severity::Warning as i32,
        },
        summary: d.summary.clone(),
        detail: d.detail.clone(),
        attribute: d.attribute.as_ref().map(path_to_proto),
    }
}

/// A diagnostic from protobuf. A severity other than `WARNING` counts as
/// an error (Terraform treats `INVALID` as one too); a path ctywire cannot
/// hold is dropped and said so in the detail.
pub fn diagnostic_from_proto(d: &pb::Diagnostic) -> Diagnostic {
    let severity = if d.severity == pb::diagnostic::Severity::Warning as i32 {
        Severity::Warning
    } else {
        Severity::Error
    };
    let mut detail = d.detail.clone();
    let attribute = match d.attribute.as_ref().map(path_from_proto) {
        None => None,
        Some(Ok(p)) => (!p.is_root()).then_some(p),
        Some(Err(e)) => {
            if !detail.is_empty() {
                detail.push('\n');
            }
            detail.push_str(&format!("(its attribute path was dropped: {e})"));
            None
        }
    };
    Diagnostic {
        severity,
        summary: d.summary.clone(),
        detail,
        attribute,
    }
}

/// The most diagnostics one answer carries; the rest are counted in one
/// more, "and N more". Terraform shows every diagnostic it gets, so past a
/// screenful more only cost: a provider reporting one per element of a
/// large input once sent 983,041 (89 MB from 5 MB of input).
pub const MAX_DIAGNOSTICS: usize = 100;

/// Diagnostics as protobuf: the first [`MAX_DIAGNOSTICS`], then, if there
/// were more, one saying how many more (an error if any of those was).
/// Every answer's diagnostics are written here.
pub fn diagnostics_to_proto<'a>(
    ds: impl IntoIterator<Item = &'a Diagnostic>,
) -> Vec<pb::Diagnostic> {
    let mut out = Vec::new();
    let (mut more, mut more_errors) = (0usize, false);
    for d in ds {
        if out.len() < MAX_DIAGNOSTICS {
            out.push(diagnostic_to_proto(d));
        } else {
            more += 1;
            more_errors |= d.is_error();
        }
    }
    if more > 0 {
        let summary = format!("...and {more} more diagnostics");
        let d = if more_errors {
            Diagnostic::error(summary)
        } else {
            Diagnostic::warning(summary)
        };
        out.push(diagnostic_to_proto(&d.with_detail(format!(
            "The provider reported {} diagnostics here; only the first {MAX_DIAGNOSTICS} \
             are shown{}.",
            MAX_DIAGNOSTICS + more,
            if more_errors {
                ", and errors are among the rest"
            } else {
                ""
            }
        ))));
    }
    out
}

// ---- small messages ----

/// Client capabilities from protobuf (absent: none).
pub fn client_capabilities_from_proto(c: Option<&pb::ClientCapabilities>) -> ClientCapabilities {
    c.map(|c| ClientCapabilities {
        deferral_allowed: c.deferral_allowed,
        write_only_attributes_allowed: c.write_only_attributes_allowed,
        store_planned_private: c.store_planned_private,
        computed_blocks_allowed: c.computed_blocks_allowed,
    })
    .unwrap_or_default()
}

/// Server capabilities as protobuf.
pub fn server_capabilities_to_proto(c: &ServerCapabilities) -> pb::ServerCapabilities {
    pb::ServerCapabilities {
        plan_destroy: c.plan_destroy,
        get_provider_schema_optional: c.get_provider_schema_optional,
        move_resource_state: c.move_resource_state,
        generate_resource_config: c.generate_resource_config,
    }
}

/// A deferral as protobuf.
pub fn deferred_to_proto(d: &Deferred) -> pb::Deferred {
    use pb::deferred::Reason;
    pb::Deferred {
        reason: match d {
            Deferred::Unknown => Reason::Unknown,
            Deferred::ResourceConfigUnknown => Reason::ResourceConfigUnknown,
            Deferred::ProviderConfigUnknown => Reason::ProviderConfigUnknown,
            Deferred::AbsentPrereq => Reason::AbsentPrereq,
        } as i32,
    }
}

/// A time as a protobuf timestamp (times before 1970 are clamped to it).
pub fn timestamp_to_proto(t: SystemTime) -> prost_types::Timestamp {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    prost_types::Timestamp {
        seconds: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        nanos: d.subsec_nanos() as i32,
    }
}
