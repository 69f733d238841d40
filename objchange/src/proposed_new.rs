//! core's `objchange.ProposedNew`: the new object Terraform proposes to a
//! provider's `PlanResourceChange`, made from the prior state and the
//! configuration.
//!
//! Core assumes both values conform to the schema and panics otherwise;
//! here a part that does not conform is proposed as its config value, or
//! when the config value cannot be rebuilt into a collection, left as it
//! is in config.

use ctywire::schema::{Attribute, Block, NestedBlock, NestingMode, Object};
use ctywire::{Type, Value};

use super::schema_pos::{Nested, SchemaPos};
use super::set_match::match_set_elements;
use super::value_ops::{children, MAX_DEPTH};

/// core's `ProposedNew(schema, prior, config)`: configured values, with
/// the prior values of computed attributes the configuration leaves null,
/// through nested blocks and nested attributes (paired by index in lists,
/// by key in maps, and by `validPriorFromConfig` in sets).
pub fn proposed_new(schema: &Block, prior: &Value, config: &Value) -> Value {
    proposed_new_block(schema, prior, config, 0)
}

/// `ProposedNew` below the root too (core calls it for each nested block).
fn proposed_new_block(schema: &Block, prior: &Value, config: &Value, depth: usize) -> Value {
    // Both null: stay null, rather than growing an empty object.
    if config.is_null() && prior.is_null() {
        return prior.clone();
    }
    if prior.is_null() {
        // A synthetic prior like an empty block's decoding, which gives
        // the walk below one non-null level to read from.
        match schema.empty_value() {
            Ok(empty) => return proposed_new_object(schema, &empty, config, depth),
            Err(_) => return config.clone(),
        }
    }
    proposed_new_object(schema, prior, config, depth)
}

/// core's `proposedNew`.
fn proposed_new_object(schema: &Block, prior: &Value, config: &Value, depth: usize) -> Value {
    // A null block config cannot reach here from core; an unknown one is
    // a dynamic block with an unknown for_each. Both take the prior.
    if config.is_null() || !config.is_known() {
        return prior.clone();
    }
    if depth > MAX_DEPTH || config.attributes().is_none() {
        return config.clone();
    }
    let mut attrs = proposed_new_attributes(&schema.attributes, prior, config, depth);
    for nb in &schema.block_types {
        let Some(c) = config.attr(&nb.type_name) else {
            continue;
        };
        let p = attr_of(prior, &nb.type_name, c.ty());
        attrs.push((
            nb.type_name.clone(),
            proposed_new_nested_block(nb, &p, c, depth + 1),
        ));
    }
    Value::object(attrs)
}

/// Attribute `name` of `v` as core's `GetAttr` gives it: the attribute of a
/// known object, an unknown of its type for an unknown object, and a null
/// (of `fallback`'s type where the type has no such attribute) otherwise.
fn attr_of(v: &Value, name: &str, fallback: &Type) -> Value {
    if let Some(a) = v.attr(name) {
        return a.clone();
    }
    let ty = v.ty().attribute_type(name).unwrap_or(fallback).clone();
    if !v.is_known() {
        Value::unknown(ty)
    } else {
        Value::null(ty)
    }
}

/// core's `proposedNewNestedBlock`.
fn proposed_new_nested_block(
    nb: &NestedBlock,
    prior: &Value,
    config: &Value,
    depth: usize,
) -> Value {
    if !config.is_known() {
        return config.clone();
    }
    let nested = Nested::Block(&nb.block);
    match nb.nesting {
        NestingMode::Single if config.is_null() => config.clone(),
        NestingMode::Single | NestingMode::Group => {
            proposed_new_block(&nb.block, prior, config, depth)
        }
        NestingMode::List => proposed_new_list(nested, prior, config, depth),
        NestingMode::Map => proposed_new_map(nested, prior, config, depth),
        NestingMode::Set => proposed_new_set(nested, prior, config, depth),
        NestingMode::Invalid => config.clone(),
    }
}

/// core's `proposedNewNestedType`.
fn proposed_new_nested_type(o: &Object, prior: &Value, config: &Value, depth: usize) -> Value {
    if !config.is_known() {
        return config.clone();
    }
    let nested = Nested::Object(o);
    match o.nesting {
        NestingMode::Single | NestingMode::Group if config.is_null() => config.clone(),
        NestingMode::Single | NestingMode::Group => {
            proposed_new_object_attributes(o, prior, config, depth)
        }
        NestingMode::List => proposed_new_list(nested, prior, config, depth),
        NestingMode::Map => proposed_new_map(nested, prior, config, depth),
        NestingMode::Set => proposed_new_set(nested, prior, config, depth),
        NestingMode::Invalid => config.clone(),
    }
}

/// core's `proposedNewBlockOrObject`.
fn proposed_new_element(schema: Nested<'_>, prior: &Value, config: &Value, depth: usize) -> Value {
    match schema {
        Nested::Block(b) => proposed_new_block(b, prior, config, depth),
        Nested::Object(o) => proposed_new_object_attributes(o, prior, config, depth),
    }
}

/// core's `proposedNewObjectAttributes`.
fn proposed_new_object_attributes(
    o: &Object,
    prior: &Value,
    config: &Value,
    depth: usize,
) -> Value {
    if config.is_null() {
        return config.clone();
    }
    if depth > MAX_DEPTH || config.attributes().is_none() {
        return config.clone();
    }
    Value::object(proposed_new_attributes(&o.attributes, prior, config, depth))
}

/// core's `proposedNewAttributes`. `Required` plays no part: an attribute
/// is computed or not, and optional+computed ones count as computed only
/// when config leaves them null.
fn proposed_new_attributes(
    attrs: &[Attribute],
    prior: &Value,
    config: &Value,
    depth: usize,
) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = Vec::with_capacity(attrs.len());
    for a in attrs {
        let Some(c) = config.attr(&a.name) else {
            continue;
        };
        let p = attr_of(prior, &a.name, c.ty());
        let v = if a.computed && c.is_null() {
            // terraform#32551: a prior nested value holding something only
            // configuration can set shows the user removed it.
            if optional_value_not_computable(a, &p) {
                c.clone()
            } else {
                p
            }
        } else if let Some(o) = &a.nested_type {
            proposed_new_nested_type(o, &p, c, depth + 1)
        } else {
            c.clone()
        };
        out.push((a.name.clone(), v));
    }
    out
}

/// core's `optionalValueNotComputable`: an optional nested attribute whose
/// prior value has a non-null value at some nested attribute that is not
/// computed must have come from configuration.
fn optional_value_not_computable(a: &Attribute, prior: &Value) -> bool {
    let Some(o) = &a.nested_type else {
        return false;
    };
    if !a.optional {
        return false;
    }
    // cty.Walk over the value with Object.AttributeByPath at each path.
    fn found(pos: SchemaPos<'_>, v: &Value, depth: usize) -> bool {
        if depth > MAX_DEPTH || v.is_null() {
            return false;
        }
        if let Some(attr) = pos.attribute() {
            if !attr.computed {
                return true;
            }
        }
        if !v.is_known() {
            return false;
        }
        let set_elements = match v.ty() {
            Type::Set(_) => v.elements().unwrap_or(&[]),
            _ => &[],
        };
        // Set elements are reached by steps keyed by value, which
        // AttributeByPath skips like any index.
        set_elements.iter().any(|e| found(pos, e, depth + 1))
            || children(v)
                .into_iter()
                .any(|(step, cv)| found(pos.step(step), cv, depth + 1))
    }
    found(SchemaPos::Object(o), prior, 0)
}

/// core's `proposedNewNestingList`: elements paired by index; a config
/// element with no prior element at its index is taken as it is.
fn proposed_new_list(schema: Nested<'_>, prior: &Value, config: &Value, depth: usize) -> Value {
    let Some(elems) = config.elements() else {
        return config.clone();
    };
    if elems.is_empty() {
        return config.clone();
    }
    let mut out = Vec::with_capacity(elems.len());
    for (i, c) in elems.iter().enumerate() {
        let p = if prior.is_known() {
            match prior.elements().and_then(|p| p.get(i)) {
                Some(p) => p.clone(),
                None => {
                    out.push(c.clone());
                    continue;
                }
            }
        } else {
            Value::unknown(c.ty().clone())
        };
        out.push(proposed_new_element(schema, &p, c, depth + 1));
    }
    match config.ty() {
        Type::Tuple(_) => Value::tuple(out),
        Type::List(e) => Value::list((**e).clone(), out).unwrap_or_else(|_| config.clone()),
        _ => config.clone(),
    }
}

/// core's `proposedNewNestingMap`: elements paired by key; only config's
/// keys are proposed.
fn proposed_new_map(schema: Nested<'_>, prior: &Value, config: &Value, depth: usize) -> Value {
    if config.is_null() || !config.is_known() || config.is_empty() {
        return config.clone();
    }
    // A map, or an object when the nested schema holds dynamic types.
    let prior_of = |k: &str| -> Option<&Value> {
        if prior.is_null() || !prior.is_known() {
            return None;
        }
        prior.entry(k).or_else(|| prior.attr(k))
    };
    let entries: Vec<(&str, &Value)> = match (config.entries(), config.attributes()) {
        (Some(e), _) => e.collect(),
        (None, Some(a)) => a.collect(),
        _ => return config.clone(),
    };
    let out: Vec<(String, Value)> = entries
        .into_iter()
        .map(|(k, c)| {
            let v = match prior_of(k) {
                Some(p) => proposed_new_element(schema, p, c, depth + 1),
                None => c.clone(),
            };
            (k.to_string(), v)
        })
        .collect();
    match config.ty() {
        Type::Object(_) => Value::object(out),
        Type::Map(e) => Value::map((**e).clone(), out).unwrap_or_else(|_| config.clone()),
        _ => config.clone(),
    }
}

/// core's `proposedNewNestingSet`: each config element is planned from
/// the first unused prior element valid for it (see `set_match`), or from
/// null; the set is rebuilt, so equal results merge.
fn proposed_new_set(schema: Nested<'_>, prior: &Value, config: &Value, depth: usize) -> Value {
    let Type::Set(ety) = config.ty() else {
        return config.clone();
    };
    let Some(elems) = config.elements() else {
        return config.clone();
    };
    if elems.is_empty() {
        return config.clone();
    }
    let prior_elems: &[Value] = if prior.is_known() && !prior.is_null() {
        prior.elements().unwrap_or(&[])
    } else {
        &[]
    };
    let matches = match_set_elements(schema, prior_elems, elems);
    let out: Vec<Value> = elems
        .iter()
        .zip(matches)
        .map(|(c, m)| {
            let p = m
                .and_then(|i| prior_elems.get(i).cloned())
                .unwrap_or_else(|| Value::null((**ety).clone()));
            proposed_new_element(schema, &p, c, depth + 1)
        })
        .collect();
    Value::set((**ety).clone(), out).unwrap_or_else(|_| config.clone())
}
