//! A configuration's text: HCL native syntax (a `main.tf`, parsed with
//! `hcl-rs`) or Terraform's JSON syntax (a `main.tf.json`), read into one
//! shape: the provider block's and resources' bodies in JSON syntax
//! (which the decoder reads, expressions as `"${...}"` templates), the
//! input variables, the locals and the outputs as expressions.

use std::collections::BTreeMap;

use ctywire::{Type, Value};
use ctywire_tfplugin6::{Diagnostic, Diagnostics};
use hcl::expr::{Expression, ObjectKey, TemplateExpr, TraversalOperator};
use hcl::structure::{Block, BlockLabel, Body as HclBody, Structure};
use serde_json::{Map, Value as Json};

use crate::config::escape_templates;
use crate::eval::{EvalError, Locals};
use crate::instances::{instance_address, key_of, resource_of};
use crate::moved::Statements;

/// A `variable` block: its type constraint, default and the value the
/// test gave (`Harness::variable`).
#[derive(Clone, Debug)]
pub(crate) struct Variable {
    pub ty: Type,
    pub default: Option<Value>,
    pub sensitive: bool,
    pub nullable: bool,
}

impl Variable {
    /// The variable's value as core's `prepareFinalInputVariableValue`
    /// makes it: the given value or the default, converted to the type.
    pub(crate) fn value(&self, name: &str, given: Option<&Value>) -> Result<Value, EvalError> {
        let raw = match (given, &self.default) {
            (Some(v), _) if !v.is_null() || self.nullable => v.clone(),
            (_, Some(d)) => d.clone(),
            _ => {
                return Err(EvalError {
                    summary: "No value for required variable".into(),
                    detail: format!("The root module input variable {name:?} is not set, and has no default value. Use a -var or -var-file command line argument to provide a value for this variable."),
                })
            }
        };
        raw.convert(&self.ty).map_err(|e| EvalError {
            summary: "Invalid value for input variable".into(),
            detail: format!("The given value is not suitable for var.{name}: {e}."),
        })
    }
}

/// A configuration read from its text.
#[derive(Default)]
pub(crate) struct Document {
    pub provider: Option<Json>,
    pub resources: BTreeMap<String, Json>,
    pub variables: BTreeMap<String, Variable>,
    pub locals: Locals,
    pub outputs: BTreeMap<String, Output>,
    /// `action` blocks' bodies (JSON syntax), by `action.TYPE.NAME`.
    pub actions: BTreeMap<String, Json>,
    /// `provider` blocks with an `alias`, by alias.
    pub provider_aliases: crate::aliases::Aliases,
    pub statements: Statements,
}

/// An `output` block.
#[derive(Clone, Debug)]
pub(crate) struct Output {
    pub value: Expression,
    pub sensitive: bool,
}

fn error<T>(message: impl Into<String>) -> Result<T, Diagnostics> {
    Err(Diagnostics::error(message.into()))
}

/// Reads a `main.tf`'s text. `provider_type` is the provider's local
/// name: its `provider` block is the one read.
pub(crate) fn parse_hcl(text: &str, provider_type: &str) -> Result<Document, Diagnostics> {
    let body: HclBody = hcl::parse(text).map_err(|e| {
        Diagnostics::from(Diagnostic::error("Invalid configuration").with_detail(e.to_string()))
    })?;
    let mut doc = Document::default();
    let mut providers = Vec::new();
    for s in body.iter() {
        let b = match s {
            Structure::Block(b) => b,
            Structure::Attribute(a) => {
                return error(format!(
                    "Unsupported argument: an argument named {:?} is not expected at the top level of a configuration",
                    a.key.as_str()
                ))
            }
        };
        let labels: Vec<&str> = b.labels.iter().map(label).collect();
        match (b.identifier.as_str(), labels.as_slice()) {
            ("terraform", []) => {}
            ("provider", [name]) => {
                if *name != provider_type {
                    return error(format!("the configuration's provider block is for {name:?}; the harness holds the {provider_type:?} provider"));
                }
                providers.push(block_json(&b.body, 0)?);
            }
            ("resource", [ty, name]) => {
                let address = format!("{ty}.{name}");
                if doc.resources.insert(address.clone(), block_json(&b.body, 0)?).is_some() {
                    return error(format!("Duplicate resource {address}: a resource with this type and name is already declared"));
                }
            }
            // Data and ephemeral resources: the mode in front of the address.
            (mode @ ("data" | "ephemeral"), [ty, name]) => {
                let address = format!("{mode}.{ty}.{name}");
                if doc.resources.insert(address.clone(), block_json(&b.body, 0)?).is_some() {
                    let what = match mode {
                        "data" => "a data resource",
                        _ => "an ephemeral resource",
                    };
                    return error(format!("Duplicate {mode} \"{ty}\" configuration: {what} named {name:?} is already declared"));
                }
            }
            ("variable", [name]) => {
                let v = variable(b)?;
                if doc.variables.insert((*name).to_owned(), v).is_some() {
                    return error(format!("Duplicate variable declaration: a variable named {name:?} is already declared"));
                }
            }
            ("locals", []) => {
                for a in b.body.attributes() {
                    if doc.locals.insert(a.key.as_str().to_owned(), a.expr.clone()).is_some() {
                        return error(format!("Duplicate local value definition: a local value named {:?} is already defined", a.key.as_str()));
                    }
                }
            }
            ("output", [name]) => {
                let o = output(&b.body, name)?;
                doc.outputs.insert((*name).to_owned(), o);
            }
            ("action", [ty, name]) => {
                let address = format!("action.{ty}.{name}");
                if doc.actions.insert(address.clone(), block_json(&b.body, 0)?).is_some() {
                    return error(format!("Duplicate action \"{ty}\" configuration: an action named {name:?} is already declared"));
                }
            }
            ("moved", []) => {
                let from = address_attribute(&b.body, "moved", "from")?;
                let to = address_attribute(&b.body, "moved", "to")?;
                doc.statements.moved.push((from, to));
            }
            ("import", []) => {
                let to = address_attribute(&b.body, "import", "to")?;
                let id = b.body.attributes().find(|a| a.key.as_str() == "id").ok_or_else(|| {
                    Diagnostics::error("import block: Missing required argument \"id\" (the harness does not support \"identity\" in import blocks)")
                })?;
                doc.statements.imports.push((to, expression_json(&id.expr, 0)?));
            }
            (kind @ ("module" | "removed" | "check" | "list"), _) => {
                return error(format!("the harness does not support {kind:?} blocks yet"))
            }
            (other, labels) => {
                return error(format!(
                    "Unsupported block type: blocks of type {other:?} with {} label(s) are not expected here",
                    labels.len()
                ))
            }
        }
    }
    let (default, aliases) = crate::aliases::split_providers(provider_type, providers)?;
    doc.provider = default;
    doc.provider_aliases = aliases;
    Ok(doc)
}

/// Reads a `main.tf.json` document's `variable`, `locals` and `output`
/// properties (the others are read by `Harness::config`).
pub(crate) fn json_declarations(
    key: &str,
    v: &Json,
    doc: &mut Document,
) -> Result<(), Diagnostics> {
    let Json::Object(entries) = v else {
        return error(format!("{key:?} is a JSON object"));
    };
    for (name, body) in entries {
        match key {
            "locals" => {
                doc.locals.insert(name.clone(), json_expression(body, 0)?);
            }
            "variable" => {
                let Json::Object(attrs) = body else {
                    return error(format!("variable {name:?}: a JSON object"));
                };
                let ty = match attrs.get("type") {
                    Some(Json::String(t)) => {
                        let e: Expression = t.parse().map_err(|e| {
                            Diagnostics::error(format!(
                                "variable {name:?}: invalid type {t:?}: {e}"
                            ))
                        })?;
                        type_expr(&e)?
                    }
                    Some(_) => return error(format!("variable {name:?}: a type is a string")),
                    None => Type::Dynamic,
                };
                let default = match attrs.get("default") {
                    Some(d) => Some(literal(&json_expression(&escape_templates(d.clone()), 0)?)?),
                    None => None,
                };
                doc.variables.insert(
                    name.clone(),
                    Variable {
                        ty,
                        default,
                        sensitive: attrs
                            .get("sensitive")
                            .and_then(Json::as_bool)
                            .unwrap_or(false),
                        nullable: attrs
                            .get("nullable")
                            .and_then(Json::as_bool)
                            .unwrap_or(true),
                    },
                );
            }
            "output" => {
                let value = body.get("value").ok_or_else(|| {
                    Diagnostics::error(format!(
                        "output {name:?}: Missing required argument \"value\""
                    ))
                })?;
                doc.outputs.insert(
                    name.clone(),
                    Output {
                        value: json_expression(value, 0)?,
                        sensitive: body
                            .get("sensitive")
                            .and_then(Json::as_bool)
                            .unwrap_or(false),
                    },
                );
            }
            _ => return error(format!("{key:?} is not a declaration")),
        }
    }
    Ok(())
}

/// A `main.tf.json` document's `action` property: `{"TYPE": {"NAME": {...}}}`.
pub(crate) fn json_actions(v: &Json, doc: &mut Document) -> Result<(), Diagnostics> {
    let Json::Object(types) = v else {
        return error("\"action\" is an object of action types");
    };
    for (ty, names) in types {
        let Json::Object(names) = names else {
            return error(format!("action type {ty:?}: an object of action names"));
        };
        for (name, body) in names {
            let body = match body {
                Json::Array(a) if a.len() == 1 => a[0].clone(),
                b => b.clone(),
            };
            doc.actions.insert(format!("action.{ty}.{name}"), body);
        }
    }
    Ok(())
}

/// A `moved` or `import` block's address argument (`from`, `to`): a
/// resource or resource instance, as its address.
fn address_attribute(body: &HclBody, block: &str, name: &str) -> Result<String, Diagnostics> {
    let a = body
        .attributes()
        .find(|a| a.key.as_str() == name)
        .ok_or_else(|| {
            Diagnostics::error(format!("{block} block: Missing required argument {name:?}"))
        })?;
    let text = hcl::format::to_string(&a.expr)
        .map_err(|e| Diagnostics::error(format!("{block} block: {name}: {e}")))?;
    address_text(block, name, &text)
}

/// An address as written (`kv_entry.a`, `kv_entry.a[0]`,
/// `kv_entry.a["k"]`), checked and in its canonical form.
pub(crate) fn address_text(block: &str, name: &str, text: &str) -> Result<String, Diagnostics> {
    let bad = |why: String| {
        Diagnostics::from(Diagnostic::error("Invalid address").with_detail(format!(
            "{block} block: {name} = {text}: {why} (the harness moves and imports resources of the root module: TYPE.NAME, TYPE.NAME[INDEX] or TYPE.NAME[\"KEY\"])"
        )))
    };
    let resource = resource_of(text);
    let ok = resource.split_once('.').is_some_and(|(t, n)| {
        !t.is_empty() && !n.is_empty() && !n.contains('.') && t != "data" && t != "module"
    });
    if !ok {
        return Err(bad("not a managed resource".into()));
    }
    let key = key_of(text).map_err(bad)?;
    Ok(instance_address(resource, key.as_ref()))
}

pub(crate) fn label(l: &BlockLabel) -> &str {
    match l {
        BlockLabel::Identifier(i) => i.as_str(),
        BlockLabel::String(s) => s,
    }
}

fn variable(b: &Block) -> Result<Variable, Diagnostics> {
    let mut v = Variable {
        ty: Type::Dynamic,
        default: None,
        sensitive: false,
        nullable: true,
    };
    for s in b.body.iter() {
        match s {
            Structure::Attribute(a) => match a.key.as_str() {
                "type" => v.ty = type_expr(&a.expr)?,
                "default" => v.default = Some(literal(&a.expr)?),
                "sensitive" => v.sensitive = bool_literal(&a.expr, "sensitive")?,
                "nullable" => v.nullable = bool_literal(&a.expr, "nullable")?,
                "description" | "ephemeral" => {}
                other => return error(format!("Unsupported argument: an argument named {other:?} is not expected in a variable block")),
            },
            Structure::Block(inner) => {
                return error(format!(
                    "the harness does not support {:?} blocks in a variable",
                    inner.identifier.as_str()
                ))
            }
        }
    }
    if let Some(d) = &v.default {
        let converted = d.convert(&v.ty).map_err(|e| {
            Diagnostics::error(format!("Invalid default value for variable: this default value is not compatible with the variable's type constraint: {e}."))
        })?;
        v.default = Some(converted);
    }
    Ok(v)
}

fn output(body: &HclBody, name: &str) -> Result<Output, Diagnostics> {
    let mut value = None;
    let mut sensitive = false;
    for a in body.attributes() {
        match a.key.as_str() {
            "value" => value = Some(a.expr.clone()),
            "sensitive" => sensitive = bool_literal(&a.expr, "sensitive")?,
            "description" => {}
            other => {
                return error(format!(
                    "output {name:?}: the harness does not support {other:?}"
                ))
            }
        }
    }
    if body.blocks().next().is_some() {
        return error(format!(
            "output {name:?}: the harness does not support blocks in an output"
        ));
    }
    let value = value.ok_or_else(|| {
        Diagnostics::error(format!(
            "Missing required argument: the argument \"value\" is required in output {name:?}"
        ))
    })?;
    Ok(Output { value, sensitive })
}

fn bool_literal(e: &Expression, what: &str) -> Result<bool, Diagnostics> {
    match e {
        Expression::Bool(b) => Ok(*b),
        _ => error(format!("{what}: a literal true or false is required")),
    }
}

/// A constant expression's value (a variable's default is one).
fn literal(e: &Expression) -> Result<Value, Diagnostics> {
    struct NoReferences;
    impl crate::config::Scope for NoReferences {
        fn resolve(
            &self,
            _: &crate::config::Reference,
        ) -> Result<(Value, Vec<ctywire::Path>), String> {
            Err("Variables not allowed: variables may not be used here".into())
        }
    }
    crate::eval::evaluate(e, &NoReferences)
        .map(|m| m.value)
        .map_err(|e| Diagnostics::from(Diagnostic::error(e.summary).with_detail(e.detail)))
}

/// A type constraint (`string`, `list(number)`, `object({a = string})`),
/// as core's `typeexpr`; `optional(...)` is not read by the harness.
pub(crate) fn type_expr(e: &Expression) -> Result<Type, Diagnostics> {
    let bad = |what: String| -> Result<Type, Diagnostics> {
        error(format!("Invalid type specification: {what}"))
    };
    match e {
        Expression::Variable(v) => match v.as_str() {
            "string" => Ok(Type::String),
            "number" => Ok(Type::Number),
            "bool" => Ok(Type::Bool),
            "any" => Ok(Type::Dynamic),
            other => bad(format!(
                "the keyword {other:?} is not a valid type specification"
            )),
        },
        Expression::FuncCall(f) if f.name.namespace.is_empty() && f.args.len() == 1 => {
            let arg = &f.args[0];
            match f.name.name.as_str() {
                "list" => Ok(Type::list(type_expr(arg)?)),
                "set" => Ok(Type::set(type_expr(arg)?)),
                "map" => Ok(Type::map(type_expr(arg)?)),
                "tuple" => match arg {
                    Expression::Array(a) => Ok(Type::tuple(
                        a.iter().map(type_expr).collect::<Result<Vec<_>, _>>()?,
                    )),
                    _ => bad("tuple requires a list of element types".into()),
                },
                "object" => match arg {
                    Expression::Object(o) => {
                        let mut attrs = Vec::new();
                        for (k, v) in o.iter() {
                            let name = match k {
                                ObjectKey::Identifier(i) => i.as_str().to_owned(),
                                ObjectKey::Expression(Expression::String(s)) => s.clone(),
                                _ => {
                                    return bad("object attribute names must be identifiers".into())
                                }
                            };
                            attrs.push((name, type_expr(v)?));
                        }
                        Ok(Type::object(
                            attrs.iter().map(|(n, t)| (n.as_str(), t.clone())),
                        ))
                    }
                    _ => bad("object requires a map of attribute types".into()),
                },
                other => bad(format!(
                    "the harness does not read the type constructor {other:?}"
                )),
            }
        }
        _ => bad("a type keyword or constructor is required".into()),
    }
}

/// A body in JSON syntax: attributes as JSON expressions, nested blocks
/// as objects (an array of them when repeated), labelled blocks keyed by
/// label.
pub(crate) fn block_json(body: &HclBody, depth: usize) -> Result<Json, Diagnostics> {
    if depth > ctywire::DEFAULT_MAX_DEPTH {
        return error("the configuration is nested too deeply");
    }
    let mut out = Map::new();
    let mut blocks = std::collections::BTreeSet::new();
    for s in body.iter() {
        match s {
            Structure::Attribute(a) => {
                let key = a.key.as_str();
                let v = if key == "depends_on" {
                    depends_on(&a.expr)?
                } else if key == "provider" {
                    provider_reference(&a.expr)?
                } else {
                    expression_json(&a.expr, depth)?
                };
                if out.insert(key.to_owned(), v).is_some() {
                    return error(format!(
                        "Attribute redefined: the argument {key:?} was already set"
                    ));
                }
            }
            Structure::Block(b) => {
                let key = b.identifier.as_str();
                blocks.insert(key.to_owned());
                if key == "dynamic" {
                    return error("the harness does not support dynamic blocks");
                }
                let inner = block_json(&b.body, depth + 1)?;
                let slot = out.entry(key.to_owned()).or_insert(Json::Array(Vec::new()));
                match (b.labels.as_slice(), slot) {
                    ([], Json::Array(a)) => a.push(inner),
                    ([l], Json::Array(a)) if a.is_empty() => {
                        let mut m = Map::new();
                        m.insert(label(l).to_owned(), inner);
                        *out.get_mut(key).expect("inserted above") = Json::Object(m);
                    }
                    ([l], Json::Object(m)) => {
                        if m.insert(label(l).to_owned(), inner).is_some() {
                            return error(format!(
                                "Duplicate {key:?} block with label {:?}",
                                label(l)
                            ));
                        }
                    }
                    _ => return error(format!("the {key:?} blocks mix labels")),
                }
            }
        }
    }
    // One unlabelled block is one body (an object), as the JSON syntax
    // writes it: `lifecycle` is read as an object.
    for key in &blocks {
        if let Some(Json::Array(a)) = out.get_mut(key) {
            if a.len() == 1 {
                let body = a.remove(0);
                out.insert(key.clone(), body);
            }
        }
    }
    Ok(Json::Object(out))
}

/// `provider = kv.other`: the configuration's address as JSON syntax
/// writes it (`"kv.other"`), not a reference to a value.
fn provider_reference(e: &Expression) -> Result<Json, Diagnostics> {
    match e {
        Expression::Variable(v) => Ok(Json::String(v.as_str().to_owned())),
        Expression::Traversal(t) => match (&t.expr, t.operators.as_slice()) {
            (Expression::Variable(p), [TraversalOperator::GetAttr(alias)]) => {
                Ok(Json::String(format!("{}.{}", p.as_str(), alias.as_str())))
            }
            _ => error("provider names a provider configuration (NAME or NAME.ALIAS)"),
        },
        _ => error("provider names a provider configuration (NAME or NAME.ALIAS)"),
    }
}

/// `depends_on = [kv_entry.a]`: the addresses as JSON syntax writes them.
fn depends_on(e: &Expression) -> Result<Json, Diagnostics> {
    let Expression::Array(a) = e else {
        return error("depends_on is a list of references");
    };
    let mut out = Vec::new();
    for r in a {
        match r {
            Expression::Traversal(t) => match (&t.expr, t.operators.as_slice()) {
                (Expression::Variable(ty), [TraversalOperator::GetAttr(n)]) => {
                    out.push(Json::String(format!("{}.{}", ty.as_str(), n.as_str())))
                }
                _ => return error("depends_on names resources (TYPE.NAME)"),
            },
            _ => return error("depends_on names resources (TYPE.NAME)"),
        }
    }
    Ok(Json::Array(out))
}

/// An expression in JSON syntax: literals as JSON, anything else as a
/// template of one interpolation (which keeps the value's type).
fn expression_json(e: &Expression, depth: usize) -> Result<Json, Diagnostics> {
    if depth > ctywire::DEFAULT_MAX_DEPTH {
        return error("the configuration is nested too deeply");
    }
    Ok(match e {
        Expression::Null => Json::Null,
        Expression::Bool(b) => Json::Bool(*b),
        Expression::Number(n) => serde_json::from_str(&n.to_string())
            .map_err(|e| Diagnostics::error(format!("invalid number {n}: {e}")))?,
        Expression::String(s) => escape_templates(Json::String(s.clone())),
        Expression::Array(a) => Json::Array(
            a.iter()
                .map(|e| expression_json(e, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Expression::Object(o)
            if o.iter().all(|(k, _)| {
                matches!(
                    k,
                    ObjectKey::Identifier(_) | ObjectKey::Expression(Expression::String(_))
                )
            }) =>
        {
            let mut m = Map::new();
            for (k, v) in o.iter() {
                let k = match k {
                    ObjectKey::Identifier(i) => i.as_str().to_owned(),
                    ObjectKey::Expression(Expression::String(s)) => s.clone(),
                    _ => unreachable_key()?,
                };
                m.insert(k, expression_json(v, depth + 1)?);
            }
            Json::Object(m)
        }
        other => {
            let text = hcl::format::to_string(other)
                .map_err(|e| Diagnostics::error(format!("cannot read an expression: {e}")))?;
            Json::String(format!("${{{text}}}"))
        }
    })
}

fn unreachable_key() -> Result<String, Diagnostics> {
    error("an object key must be a name or a string")
}

/// A JSON-syntax expression as an HCL expression: strings are templates.
fn json_expression(v: &Json, depth: usize) -> Result<Expression, Diagnostics> {
    if depth > ctywire::DEFAULT_MAX_DEPTH {
        return error("the configuration is nested too deeply");
    }
    Ok(match v {
        Json::Null => Expression::Null,
        Json::Bool(b) => Expression::Bool(*b),
        Json::Number(n) => {
            let parsed: Expression = n
                .to_string()
                .parse()
                .map_err(|e| Diagnostics::error(format!("invalid number {n}: {e}")))?;
            parsed
        }
        Json::String(s) => Expression::TemplateExpr(Box::new(TemplateExpr::QuotedString(
            // The JSON string is the template's text; a quoted string's
            // raw text has `"` and `\` escaped.
            s.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n"),
        ))),
        Json::Array(a) => Expression::Array(
            a.iter()
                .map(|e| json_expression(e, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Json::Object(o) => {
            let mut obj = hcl::Object::new();
            for (k, v) in o {
                obj.insert(
                    ObjectKey::Expression(Expression::String(k.clone())),
                    json_expression(v, depth + 1)?,
                );
            }
            Expression::Object(obj)
        }
    })
}

/// A value the test gives (a variable's): JSON read as literal data.
pub(crate) fn json_value(v: &Json) -> Result<Value, Diagnostics> {
    literal(&json_expression(&escape_templates(v.clone()), 0)?)
}
