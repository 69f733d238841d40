//! Schemas from the JSON that `terraform providers schema -json` prints.
//!
//! Read with ctywire's own JSON reader
//! ([`Json`]): members keep their written order (nested blocks come out in
//! the order the document lists them), and nesting is bounded by
//! [`DEFAULT_MAX_DEPTH`](ctywire::DEFAULT_MAX_DEPTH), not by a parser's
//! recursion limit of 128.

use std::collections::BTreeMap;

use crate::json::{Json, Object as Map};

use ctywire::schema::{Attribute, Block, NestedBlock, NestingMode, Object, Schema, StringKind};
use ctywire::PathStep;
use ctywire::Type;
use ctywire::{Error, Result};

/// The document `terraform providers schema -json` prints: the schemas of
/// every provider in a configuration, by provider address.
///
/// ```
/// use ctywire_bridge::schema_json::ProviderSchemas;
/// let doc = r#"{"format_version":"1.0","provider_schemas":{"registry.terraform.io/x/y":{
///     "resource_schemas":{"y_thing":{"version":1,"block":{
///         "attributes":{"id":{"type":"string","computed":true}},
///         "block_types":{"rule":{"nesting_mode":"set","block":{"attributes":{"port":{"type":"number","required":true}}}}}}}}}}}"#;
/// let schemas = ProviderSchemas::from_json(doc)?;
/// let thing = schemas.resource("y_thing").unwrap();
/// assert_eq!(thing.version, 1);
/// assert_eq!(thing.implied_type()?.to_json(), r#"["object",{"id":"string","rule":["set",["object",{"port":"number"}]]}]"#);
/// # Ok::<(), ctywire::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProviderSchemas {
    /// `format_version`.
    pub format_version: String,
    /// Each provider's schemas, by provider address.
    pub providers: BTreeMap<String, ProviderSchema>,
}

/// One provider's schemas.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProviderSchema {
    /// The provider configuration block.
    pub provider: Option<Schema>,
    /// Managed resource types.
    pub resource_schemas: BTreeMap<String, Schema>,
    /// Data source types.
    pub data_source_schemas: BTreeMap<String, Schema>,
    /// Ephemeral resource types.
    pub ephemeral_resource_schemas: BTreeMap<String, Schema>,
}

impl ProviderSchemas {
    /// Reads the document. Every field is checked; an error names where.
    pub fn from_json(text: &str) -> Result<ProviderSchemas> {
        let doc = Json::parse(text)?;
        let doc = object(&doc)?;
        let format_version = match doc.get("format_version") {
            Some(Json::String(s)) => s.clone(),
            Some(_) => return Err(Error::data("must be a string").under(attr("format_version"))),
            None => String::new(),
        };
        let mut providers = BTreeMap::new();
        if let Some(ps) = doc.get("provider_schemas") {
            for (addr, p) in object(ps).map_err(|e| e.under(attr("provider_schemas")))? {
                let p =
                    provider(p).map_err(|e| e.under(key(addr)).under(attr("provider_schemas")))?;
                providers.insert(addr.to_string(), p);
            }
        }
        Ok(ProviderSchemas {
            format_version,
            providers,
        })
    }

    /// The schema of managed resource type `name`, in any provider.
    pub fn resource(&self, name: &str) -> Option<&Schema> {
        self.providers
            .values()
            .find_map(|p| p.resource_schemas.get(name))
    }

    /// The schema of data source type `name`, in any provider.
    pub fn data_source(&self, name: &str) -> Option<&Schema> {
        self.providers
            .values()
            .find_map(|p| p.data_source_schemas.get(name))
    }
}

/// Reads one schema in the form of `providers schema -json`:
/// `{"version": N, "block": {...}}`.
///
/// ```
/// let s = ctywire_bridge::schema_json::schema_from_json(
///     r#"{"version":2,"block":{"attributes":{"id":{"type":"string","computed":true}}}}"#,
/// )?;
/// assert_eq!((s.version, s.implied_type()?.to_json()), (2, r#"["object",{"id":"string"}]"#.to_string()));
/// # Ok::<(), ctywire::Error>(())
/// ```
pub fn schema_from_json(text: &str) -> Result<Schema> {
    let doc = Json::parse(text)?;
    schema(&doc)
}

fn attr(name: &str) -> PathStep {
    PathStep::Attr(name.to_string())
}

fn key(k: &str) -> PathStep {
    PathStep::Key(k.to_string())
}

fn object(v: &Json) -> Result<&Map> {
    v.as_object()
        .ok_or_else(|| Error::data("must be a JSON object"))
}

fn provider(v: &Json) -> Result<ProviderSchema> {
    let o = object(v)?;
    let mut p = ProviderSchema::default();
    if let Some(s) = o.get("provider") {
        p.provider = Some(schema(s).map_err(|e| e.under(attr("provider")))?);
    }
    for (field, into) in [
        ("resource_schemas", &mut p.resource_schemas),
        ("data_source_schemas", &mut p.data_source_schemas),
        (
            "ephemeral_resource_schemas",
            &mut p.ephemeral_resource_schemas,
        ),
    ] {
        if let Some(m) = o.get(field) {
            for (name, s) in object(m).map_err(|e| e.under(attr(field)))? {
                let s = schema(s).map_err(|e| e.under(key(name)).under(attr(field)))?;
                into.insert(name.to_string(), s);
            }
        }
    }
    Ok(p)
}

fn schema(v: &Json) -> Result<Schema> {
    let o = object(v)?;
    let version = int(o, "version")?;
    let block = match o.get("block") {
        Some(b) => block(b).map_err(|e| e.under(attr("block")))?,
        None => Block::default(),
    };
    Ok(Schema { version, block })
}

fn int(o: &Map, field: &str) -> Result<i64> {
    match o.get(field) {
        None | Some(Json::Null) => Ok(0),
        Some(Json::Number(n)) => n
            .as_i64()
            .ok_or_else(|| Error::data("must be an integer").under(attr(field))),
        Some(_) => Err(Error::data("must be an integer").under(attr(field))),
    }
}

fn flag(o: &Map, field: &str) -> Result<bool> {
    match o.get(field) {
        None | Some(Json::Null) => Ok(false),
        Some(Json::Bool(b)) => Ok(*b),
        Some(_) => Err(Error::data("must be true or false").under(attr(field))),
    }
}

fn text(o: &Map, field: &str) -> Result<String> {
    match o.get(field) {
        None | Some(Json::Null) => Ok(String::new()),
        Some(Json::String(s)) => Ok(s.clone()),
        Some(_) => Err(Error::data("must be a string").under(attr(field))),
    }
}

fn string_kind(o: &Map) -> Result<StringKind> {
    match text(o, "description_kind")?.as_str() {
        "" | "plain" => Ok(StringKind::Plain),
        "markdown" => Ok(StringKind::Markdown),
        other => Err(Error::data(format!("unknown description kind {other:?}"))
            .under(attr("description_kind"))),
    }
}

fn nesting(o: &Map) -> Result<NestingMode> {
    match text(o, "nesting_mode")?.as_str() {
        "single" => Ok(NestingMode::Single),
        "list" => Ok(NestingMode::List),
        "set" => Ok(NestingMode::Set),
        "map" => Ok(NestingMode::Map),
        "group" => Ok(NestingMode::Group),
        other => Err(Error::data(format!(
            "unknown nesting mode {other:?} (single, list, set, map or group)"
        ))
        .under(attr("nesting_mode"))),
    }
}

fn block(v: &Json) -> Result<Block> {
    let o = object(v)?;
    let mut b = Block {
        description: text(o, "description")?,
        description_kind: string_kind(o)?,
        deprecated: flag(o, "deprecated")?,
        deprecation_message: text(o, "deprecation_message")?,
        computed: flag(o, "computed")?,
        ..Default::default()
    };
    b.attributes = attributes(o)?;
    if let Some(bt) = o.get("block_types") {
        for (name, nb) in object(bt).map_err(|e| e.under(attr("block_types")))? {
            let at = |e: Error| e.under(key(name)).under(attr("block_types"));
            let no = object(nb).map_err(at)?;
            let inner = match no.get("block") {
                Some(ib) => block(ib).map_err(|e| at(e.under(attr("block"))))?,
                None => Block::default(),
            };
            b.block_types.push(NestedBlock {
                type_name: name.to_string(),
                block: inner,
                nesting: nesting(no).map_err(at)?,
                min_items: int(no, "min_items").map_err(at)?,
                max_items: int(no, "max_items").map_err(at)?,
            });
        }
    }
    Ok(b)
}

fn attributes(o: &Map) -> Result<Vec<Attribute>> {
    let mut out = Vec::new();
    let Some(attrs) = o.get("attributes") else {
        return Ok(out);
    };
    for (name, a) in object(attrs).map_err(|e| e.under(attr("attributes")))? {
        let at = |e: Error| e.under(key(name)).under(attr("attributes"));
        out.push(attribute(name, a).map_err(at)?);
    }
    Ok(out)
}

fn attribute(name: &str, v: &Json) -> Result<Attribute> {
    let o = object(v)?;
    let ty = match o.get("type") {
        None | Some(Json::Null) => None,
        Some(t) => Some(Type::parse(&t.to_string()).map_err(|e| e.under(attr("type")))?),
    };
    let nested_type = match o.get("nested_type") {
        None | Some(Json::Null) => None,
        Some(n) => {
            let no = object(n).map_err(|e| e.under(attr("nested_type")))?;
            let nesting = nesting(no).map_err(|e| e.under(attr("nested_type")))?;
            if nesting == NestingMode::Group {
                return Err(Error::data("nested attributes cannot have GROUP nesting")
                    .under(attr("nested_type")));
            }
            Some(Object {
                attributes: attributes(no).map_err(|e| e.under(attr("nested_type")))?,
                nesting,
                min_items: int(no, "min_items").map_err(|e| e.under(attr("nested_type")))?,
                max_items: int(no, "max_items").map_err(|e| e.under(attr("nested_type")))?,
            })
        }
    };
    Ok(Attribute {
        name: name.to_string(),
        ty,
        nested_type,
        description: text(o, "description")?,
        description_kind: string_kind(o)?,
        required: flag(o, "required")?,
        optional: flag(o, "optional")?,
        computed: flag(o, "computed")?,
        sensitive: flag(o, "sensitive")?,
        deprecated: flag(o, "deprecated")?,
        write_only: flag(o, "write_only")?,
        deprecation_message: text(o, "deprecation_message")?,
    })
}
