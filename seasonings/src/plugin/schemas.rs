//! Schemas written as the contract says (§3.2, §3.3): types as their cty
//! type JSON in msgpack, blocks in `terraform providers schema -json`'s
//! shapes, function signatures with our `allow_unknown_values`. What the
//! host's readers (`protocol::read_function_schemas`,
//! `provider::schema::read_schemas`) take back.

use std::collections::BTreeMap;
use std::sync::Arc;

use ctywire::schema::NestingMode;
use ctywire::Type;
use ctywire_bridge::msgpack_rpc::Raw;
use ctywire_model::schema::{Attribute, Block, NestedBlock, Presence};

use super::typed::{AnyDataSource, AnyFunction, AnyResource};
use crate::msgpack as mp;
use crate::protocol::{Fields, FunctionSignature, Parameter};

/// `{NAME: function schema}`.
pub(super) fn functions(functions: &BTreeMap<String, Arc<dyn AnyFunction>>) -> Raw {
    let mut out = Fields::new();
    for (name, f) in functions {
        out.insert_raw(name, signature(f.signature()));
    }
    out.encode()
}

/// `resources.getSchema`'s whole result.
pub(super) fn resources(
    resources: &BTreeMap<String, Arc<dyn AnyResource>>,
    data_sources: &BTreeMap<String, Arc<dyn AnyDataSource>>,
) -> Raw {
    let mut managed = Fields::new();
    for (name, r) in resources {
        managed.insert_raw(name, type_schema(r.version(), r.block(), r.plans_itself()));
    }
    let mut data = Fields::new();
    for (name, d) in data_sources {
        data.insert_raw(name, type_schema(0, d.block(), false));
    }
    let mut out = Fields::new();
    out.insert_raw("resource_schemas", managed.encode());
    out.insert_raw("data_source_schemas", data.encode());
    out.encode()
}

fn type_schema(version: u64, block: &Block, plan_change: bool) -> Raw {
    let mut f = Fields::new();
    f.insert_raw("version", uint(version));
    f.insert_raw("block", write_block(block));
    if plan_change {
        f.insert_raw("plan_change", Raw(vec![0xc3]));
    }
    f.encode()
}

fn signature(s: &FunctionSignature) -> Raw {
    let mut f = Fields::new();
    optional_str(&mut f, "summary", s.summary.as_deref());
    optional_str(&mut f, "description", s.description.as_deref());
    optional_str(
        &mut f,
        "deprecation_message",
        s.deprecation_message.as_deref(),
    );
    f.insert_raw("return_type", write_type(&s.return_type));
    let mut params = Vec::new();
    mp::write_array_len(&mut params, s.parameters.len());
    s.parameters
        .iter()
        .for_each(|p| params.extend_from_slice(&parameter(p).0));
    f.insert_raw("parameters", Raw(params));
    if let Some(v) = &s.variadic_parameter {
        f.insert_raw("variadic_parameter", parameter(v));
    }
    f.encode()
}

fn parameter(p: &Parameter) -> Raw {
    let mut f = Fields::new();
    f.insert_str("name", &p.name);
    f.insert_raw("type", write_type(&p.ty));
    optional_str(&mut f, "description", p.description.as_deref());
    flag(&mut f, "is_nullable", p.is_nullable);
    flag(&mut f, "allow_unknown_values", p.allow_unknown_values);
    f.encode()
}

fn write_block(b: &Block) -> Raw {
    let mut f = attributes_of(b);
    let mut blocks = Fields::new();
    for nb in &b.blocks {
        blocks.insert_raw(&nb.name, block_type(nb));
    }
    f.insert_raw("block_types", blocks.encode());
    optional_str(
        &mut f,
        "description",
        Some(&b.description)
            .filter(|d| !d.is_empty())
            .map(String::as_str),
    );
    deprecated(&mut f, b.deprecation_message.as_deref());
    f.encode()
}

/// `{attributes: {...}}`, the part a block and a nested type share.
fn attributes_of(b: &Block) -> Fields {
    let mut attrs = Fields::new();
    for a in &b.attributes {
        attrs.insert_raw(&a.name, attribute(a));
    }
    let mut f = Fields::new();
    f.insert_raw("attributes", attrs.encode());
    f
}

fn attribute(a: &Attribute) -> Raw {
    let mut f = Fields::new();
    match &a.nested {
        Some(n) => {
            let mut nested = attributes_of(&n.block);
            nested.insert_str("nesting_mode", nesting(n.nesting));
            f.insert_raw("nested_type", nested.encode());
        }
        None => f.insert_raw("type", write_type(&a.ty)),
    }
    optional_str(
        &mut f,
        "description",
        Some(&a.description)
            .filter(|d| !d.is_empty())
            .map(String::as_str),
    );
    let (required, optional, computed) = match a.presence {
        Presence::Required => (true, false, false),
        Presence::Optional => (false, true, false),
        Presence::Computed => (false, false, true),
        Presence::OptionalComputed => (false, true, true),
    };
    flag(&mut f, "required", required);
    flag(&mut f, "optional", optional);
    flag(&mut f, "computed", computed);
    flag(&mut f, "sensitive", a.sensitive);
    flag(&mut f, "write_only", a.write_only);
    deprecated(&mut f, a.deprecation_message.as_deref());
    f.encode()
}

fn block_type(nb: &NestedBlock) -> Raw {
    let mut f = Fields::new();
    f.insert_str("nesting_mode", nesting(nb.nesting));
    f.insert_raw("block", write_block(&nb.block));
    if nb.min_items > 0 {
        f.insert_raw("min_items", uint(nb.min_items));
    }
    if nb.max_items > 0 {
        f.insert_raw("max_items", uint(nb.max_items));
    }
    f.encode()
}

fn nesting(n: NestingMode) -> &'static str {
    match n {
        // `Invalid` is the protocol's zero value, which a block built from
        // a model never holds (Block::check refuses it).
        NestingMode::Single | NestingMode::Invalid => "single",
        NestingMode::List => "list",
        NestingMode::Set => "set",
        NestingMode::Map => "map",
        NestingMode::Group => "group",
    }
}

/// A type as its cty type JSON, in msgpack (§3.2).
pub(super) fn write_type(ty: &Type) -> Raw {
    let mut out = Vec::new();
    type_into(ty, &mut out);
    Raw(out)
}

fn type_into(ty: &Type, out: &mut Vec<u8>) {
    let collection = |kind: &str, element: &Type, out: &mut Vec<u8>| {
        mp::write_array_len(out, 2);
        mp::write_str(out, kind);
        type_into(element, out);
    };
    match ty {
        Type::String => mp::write_str(out, "string"),
        Type::Number => mp::write_str(out, "number"),
        Type::Bool => mp::write_str(out, "bool"),
        Type::Dynamic => mp::write_str(out, "dynamic"),
        Type::List(e) => collection("list", e, out),
        Type::Set(e) => collection("set", e, out),
        Type::Map(e) => collection("map", e, out),
        Type::Tuple(elements) => {
            mp::write_array_len(out, 2);
            mp::write_str(out, "tuple");
            mp::write_array_len(out, elements.len());
            elements.iter().for_each(|e| type_into(e, out));
        }
        Type::Object(o) => {
            let optional: Vec<&str> = o.optional_names().collect();
            mp::write_array_len(out, if optional.is_empty() { 2 } else { 3 });
            mp::write_str(out, "object");
            mp::write_map_len(out, o.len());
            for (name, t) in o.attributes() {
                mp::write_str(out, name);
                type_into(t, out);
            }
            if !optional.is_empty() {
                mp::write_array_len(out, optional.len());
                optional.iter().for_each(|n| mp::write_str(out, n));
            }
        }
    }
}

fn uint(n: u64) -> Raw {
    let mut out = Vec::new();
    mp::write_uint(&mut out, n);
    Raw(out)
}

fn flag(f: &mut Fields, key: &str, on: bool) {
    if on {
        f.insert_raw(key, Raw(vec![0xc3]));
    }
}

fn optional_str(f: &mut Fields, key: &str, s: Option<&str>) {
    if let Some(s) = s {
        f.insert_str(key, s);
    }
}

/// Terraform's JSON has `deprecated: true` (§3.3): the reason has no field
/// there, as in `terraform providers schema -json`.
fn deprecated(f: &mut Fields, why: Option<&str>) {
    flag(f, "deprecated", why.is_some());
}
