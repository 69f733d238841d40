//! `resources.getSchema` (§3.3, §6) read into the framework's schema
//! types: Terraform's `providers schema -json` shapes, as msgpack, plus
//! our `plan_change` beside a schema's `version` and `block`.

use std::collections::BTreeMap;

use ctywire::schema::NestingMode;
use ctywire::{Error, PathStep, Result};
use ctywire_provider::schema::{Attribute, Block, Nested, NestedBlock, Presence};

use crate::protocol::{read_type, Fields};

/// One resource or data source type as the plugin declares it.
#[derive(Clone, Debug)]
pub struct TypeSchema {
    /// The schema version (states stored at another one are refused: the
    /// contract's `resources.upgradeState` is not served yet).
    pub version: i64,
    /// Attributes and nested blocks.
    pub block: Block,
    /// The plugin plans this type itself (`resources.planChange`, §6.2).
    pub plan_change: bool,
}

/// `resources.getSchema`'s result: resource and data source types by the
/// plugin's own names (`thing`, not `NAME_thing`).
#[derive(Clone, Debug, Default)]
pub struct Schemas {
    /// Managed resource types.
    pub resources: BTreeMap<String, TypeSchema>,
    /// Data source types.
    pub data_sources: BTreeMap<String, TypeSchema>,
}

/// How deep blocks and nested attributes may nest: a plugin's answer is
/// input, and the reading recurses, so a limit keeps a hostile schema from
/// exhausting the stack (the framework's walks stop at the same depth).
const MAX_DEPTH: usize = 64;

fn at(key: &str) -> impl Fn(Error) -> Error + '_ {
    move |e| e.under(PathStep::Attr(key.to_string()))
}

/// Reads `{resource_schemas: {TYPE: schema}, data_source_schemas: {...}}`;
/// either map may be missing (no types of that kind).
pub fn read_schemas(result: &Fields) -> Result<Schemas> {
    let kind = |key: &str| -> Result<BTreeMap<String, TypeSchema>> {
        if result.present(key).is_none() {
            return Ok(BTreeMap::new());
        }
        let map = result.fields(key)?;
        each(&map, read_type_schema).map_err(at(key))
    };
    Ok(Schemas {
        resources: kind("resource_schemas")?,
        data_sources: kind("data_source_schemas")?,
    })
}

/// Each entry of `map`, read with `f` (its error under the entry's name).
fn each<T>(map: &Fields, f: impl Fn(&Fields) -> Result<T>) -> Result<BTreeMap<String, T>> {
    let mut out = BTreeMap::new();
    for (name, raw) in map.iter() {
        let read = Fields::read(&raw.0).and_then(|fields| f(&fields));
        out.insert(name.to_string(), read.map_err(at(name))?);
    }
    Ok(out)
}

pub(crate) fn read_type_schema(f: &Fields) -> Result<TypeSchema> {
    let version = match f.present("version") {
        None => 0,
        Some(_) => i64::try_from(f.opt_uint("version")?.unwrap_or(0)).map_err(|_| {
            Error::data("the version is too large").under(PathStep::Attr("version".into()))
        })?,
    };
    Ok(TypeSchema {
        version,
        block: read_block(&f.fields("block")?, 0).map_err(at("block"))?,
        plan_change: f.flag("plan_change")?,
    })
}

fn read_block(f: &Fields, depth: usize) -> Result<Block> {
    if depth > MAX_DEPTH {
        return Err(Error::limit(format!(
            "blocks and nested attributes nest more than {MAX_DEPTH} deep"
        )));
    }
    let attributes = match f.present("attributes") {
        None => BTreeMap::new(),
        Some(_) => each(&f.fields("attributes")?, |a| read_attribute(a, depth))
            .map_err(at("attributes"))?,
    };
    let blocks = match f.present("block_types") {
        None => BTreeMap::new(),
        Some(_) => each(&f.fields("block_types")?, |b| read_block_type(b, depth))
            .map_err(at("block_types"))?,
    };
    Ok(Block {
        attributes: attributes
            .into_iter()
            .map(|(name, mut a)| {
                a.name = name;
                a
            })
            .collect(),
        blocks: blocks
            .into_iter()
            .map(|(name, mut b)| {
                b.name = name;
                b
            })
            .collect(),
        description: f.opt_str("description")?.unwrap_or("").to_string(),
        deprecation_message: deprecated(f)?,
        combinations: Vec::new(),
        defects: Vec::new(),
        computed: false,
    })
}

/// `deprecated`: Terraform's JSON has a bool; a string (the reason) is
/// read too.
fn deprecated(f: &Fields) -> Result<Option<String>> {
    if let Ok(Some(why)) = f.opt_str("deprecated") {
        return Ok(Some(why.to_string()));
    }
    Ok(f.flag("deprecated")?.then(String::new))
}

fn read_attribute(f: &Fields, depth: usize) -> Result<Attribute> {
    let (ty, nested) = match (f.present("type"), f.present("nested_type")) {
        (Some(t), None) => (read_type(&t.0).map_err(at("type"))?, None),
        (None, Some(_)) => {
            let n = read_nested(&f.fields("nested_type")?, depth + 1).map_err(at("nested_type"))?;
            let ty = n.implied_type().map_err(at("nested_type"))?;
            (ty, Some(n))
        }
        _ => {
            return Err(Error::data(
                "an attribute has exactly one of type and nested_type",
            ))
        }
    };
    let presence = match (
        f.flag("required")?,
        f.flag("optional")?,
        f.flag("computed")?,
    ) {
        (true, false, false) => Presence::Required,
        (false, true, false) => Presence::Optional,
        (false, false, true) => Presence::Computed,
        (false, true, true) => Presence::OptionalComputed,
        _ => {
            return Err(Error::data(
                "an attribute is required, optional, computed, or optional and computed",
            ))
        }
    };
    let mut a = Attribute::new("", ty);
    a.nested = nested;
    a.presence = presence;
    a.sensitive = f.flag("sensitive")?;
    a.write_only = f.flag("write_only")?;
    a.description = f.opt_str("description")?.unwrap_or("").to_string();
    a.deprecation_message = deprecated(f)?;
    Ok(a)
}

fn nesting(f: &Fields, block: bool) -> Result<NestingMode> {
    Ok(match f.str("nesting_mode")? {
        "single" => NestingMode::Single,
        "list" => NestingMode::List,
        "set" => NestingMode::Set,
        "map" => NestingMode::Map,
        "group" if block => NestingMode::Group,
        other => {
            return Err(Error::data(format!(
                "nesting_mode is single, list, set, map{}, not {other:?}",
                if block { " or group" } else { "" }
            ))
            .under(PathStep::Attr("nesting_mode".into())))
        }
    })
}

fn read_nested(f: &Fields, depth: usize) -> Result<Nested> {
    Ok(Nested {
        nesting: nesting(f, false)?,
        block: read_block(f, depth)?,
    })
}

fn read_block_type(f: &Fields, depth: usize) -> Result<NestedBlock> {
    Ok(NestedBlock {
        name: String::new(),
        nesting: nesting(f, true)?,
        block: read_block(&f.fields("block")?, depth + 1).map_err(at("block"))?,
        min_items: f.opt_uint("min_items")?.unwrap_or(0),
        max_items: f.opt_uint("max_items")?.unwrap_or(0),
        validators: Vec::new(),
    })
}
