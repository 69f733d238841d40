//! HCL expressions evaluated as core evaluates them (`lang.Scope`):
//! through cty values, with references resolved by a [`Scope`], input
//! variables and locals from the harness, Terraform's functions (the ones
//! listed in [`FUNCTIONS`]) and the provider's own
//! (`provider::NAME::fn(...)`). Anything the harness does not evaluate is
//! an error naming it, never a different answer.

use std::collections::BTreeSet;

use base64::Engine as _;
use ctywire::{Number, Path, PathStep, Type, Value};
use hcl::expr::{
    BinaryOperator, Expression, FuncCall, ObjectKey, Operation, TraversalOperator, UnaryOperator,
};
use hcl::template::{Element, Strip, Template};

use super::config::{Reference, Scope};
use super::show::same_path;

/// Terraform's functions the harness implements, each as Terraform 1.11
/// answers it. Any other function is an error at plan.
pub const FUNCTIONS: &[&str] = &[
    "abspath",
    "base64decode",
    "base64encode",
    "coalesce",
    "concat",
    "file",
    "format",
    "join",
    "jsondecode",
    "jsonencode",
    "keys",
    "length",
    "lookup",
    "lower",
    "md5",
    "merge",
    "sha1",
    "sha256",
    "split",
    "tolist",
    "tomap",
    "toset",
    "try",
    "upper",
    "values",
];

/// addrs.parseRef's answer to `data` not followed by a type and a name.
const DATA_NAMES: &str = "The \"data\" object must be followed by two attribute names: the data source type and the resource name.";

/// The configuration's `locals`, by name.
pub(crate) type Locals = std::collections::BTreeMap<String, Expression>;

/// An evaluation error: a summary and a detail, as Terraform's
/// diagnostics have them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EvalError {
    pub summary: String,
    pub detail: String,
}

fn err<T>(summary: &str, detail: impl Into<String>) -> Result<T, EvalError> {
    Err(EvalError {
        summary: summary.into(),
        detail: detail.into(),
    })
}

/// A value and the paths inside it that are sensitive (core's marks).
#[derive(Clone)]
pub(crate) struct Marked {
    pub value: Value,
    pub marks: Vec<Path>,
}

impl Marked {
    fn plain(value: Value) -> Marked {
        Marked {
            value,
            marks: Vec::new(),
        }
    }

    /// A value derived from `inputs`: wholly sensitive if any input has a
    /// mark (cty's marks on an operation's result).
    fn derived(value: Value, inputs: &[&Marked]) -> Marked {
        let marked = inputs.iter().any(|m| !m.marks.is_empty());
        Marked {
            value,
            marks: if marked {
                vec![Path::root()]
            } else {
                Vec::new()
            },
        }
    }
}

/// Evaluates `expr` in `scope`.
pub(crate) fn evaluate(expr: &Expression, scope: &dyn Scope) -> Result<Marked, EvalError> {
    Evaluator::new(scope).expr(expr, 0)
}

/// Evaluates a template (a JSON-syntax string) in `scope`: one whole
/// interpolation keeps its value's type.
pub(crate) fn evaluate_template(text: &str, scope: &dyn Scope) -> Result<Marked, EvalError> {
    let template: Template = text.parse().map_err(|e: hcl::Error| EvalError {
        summary: "Invalid template".into(),
        detail: format!("{text:?}: {e}"),
    })?;
    Evaluator::new(scope).template(&template, 0)
}

/// The resource addresses `expr` refers to, locals followed through
/// `scope` (core's `References` for ordering).
pub(crate) fn expression_references(
    expr: &Expression,
    locals: &Locals,
    out: &mut BTreeSet<String>,
    depth: usize,
) -> Result<(), String> {
    references_in(expr, locals, out, &mut BTreeSet::new(), depth)
}

/// `seen`: the locals already followed (each once, so locals that use
/// each other many times over cost their number, not their paths).
fn references_in(
    expr: &Expression,
    locals: &Locals,
    out: &mut BTreeSet<String>,
    seen: &mut BTreeSet<String>,
    depth: usize,
) -> Result<(), String> {
    if depth > ctywire::DEFAULT_MAX_DEPTH {
        return Err("the expression nests too deeply".into());
    }
    macro_rules! visit {
        ($e:expr) => {
            references_in($e, locals, out, seen, depth + 1)
        };
    }
    match expr {
        Expression::Array(a) => a.iter().try_for_each(|e| visit!(e)),
        Expression::Object(o) => o.iter().try_for_each(|(k, v)| {
            if let ObjectKey::Expression(k) = k {
                visit!(k)?;
            }
            visit!(v)
        }),
        Expression::TemplateExpr(t) => {
            let t = Template::from_expr(t).map_err(|e| e.to_string())?;
            template_references(&t, &mut |e| {
                expression_references(e, locals, out, depth + 1)
            })
        }
        Expression::Variable(_) => Ok(()),
        Expression::Traversal(t) => {
            if let Expression::Variable(root) = &t.expr {
                let first = t.operators.first();
                match (root.as_str(), first) {
                    ("local", Some(TraversalOperator::GetAttr(name))) => {
                        if let Some(l) = locals.get(name.as_str()) {
                            if seen.insert(name.as_str().to_owned()) {
                                visit!(l)?;
                            }
                        }
                    }
                    ("var" | "after_apply" | "path" | "terraform" | "count" | "each", _) => {}
                    (mode @ ("data" | "ephemeral"), Some(TraversalOperator::GetAttr(ty))) => {
                        if let Some(TraversalOperator::GetAttr(name)) = t.operators.get(1) {
                            out.insert(format!("{mode}.{}.{}", ty.as_str(), name.as_str()));
                        }
                    }
                    (ty, Some(TraversalOperator::GetAttr(name))) => {
                        out.insert(format!("{ty}.{}", name.as_str()));
                    }
                    _ => {}
                }
            } else {
                visit!(&t.expr)?;
            }
            t.operators.iter().try_for_each(|op| match op {
                TraversalOperator::Index(e) => visit!(e),
                _ => Ok(()),
            })
        }
        Expression::FuncCall(f) => f.args.iter().try_for_each(|e| visit!(e)),
        Expression::Parenthesis(e) => visit!(e),
        Expression::Conditional(c) => {
            visit!(&c.cond_expr)?;
            visit!(&c.true_expr)?;
            visit!(&c.false_expr)
        }
        Expression::Operation(o) => match &**o {
            Operation::Unary(u) => visit!(&u.expr),
            Operation::Binary(b) => {
                visit!(&b.lhs_expr)?;
                visit!(&b.rhs_expr)
            }
        },
        Expression::ForExpr(f) => {
            visit!(&f.collection_expr)?;
            visit!(&f.value_expr)
        }
        _ => Ok(()),
    }
}

fn template_references(
    t: &Template,
    visit: &mut dyn FnMut(&Expression) -> Result<(), String>,
) -> Result<(), String> {
    for e in t.elements() {
        if let Element::Interpolation(i) = e {
            visit(&i.expr)?;
        }
    }
    Ok(())
}

/// The resource addresses a JSON-syntax template refers to.
pub(crate) fn template_text_references(
    text: &str,
    locals: &Locals,
    out: &mut BTreeSet<String>,
) -> Result<(), String> {
    let t: Template = text.parse().map_err(|e: hcl::Error| e.to_string())?;
    template_references(&t, &mut |e| expression_references(e, locals, out, 0))
}

struct Evaluator<'a> {
    scope: &'a dyn Scope,
    /// Locals evaluated so far: each is evaluated once, however often
    /// it is used (core evaluates each local once too).
    locals: std::cell::RefCell<std::collections::BTreeMap<String, Marked>>,
}

impl<'a> Evaluator<'a> {
    fn new(scope: &'a dyn Scope) -> Evaluator<'a> {
        Evaluator {
            scope,
            locals: Default::default(),
        }
    }

    fn expr(&self, e: &Expression, depth: usize) -> Result<Marked, EvalError> {
        if depth > ctywire::DEFAULT_MAX_DEPTH {
            return err("Expression too deep", "the expression nests too deeply");
        }
        let d = depth + 1;
        Ok(match e {
            Expression::Null => Marked::plain(Value::null(Type::Dynamic)),
            Expression::Bool(b) => Marked::plain(Value::bool(*b)),
            Expression::Number(n) => Marked::plain(number(&n.to_string())?),
            Expression::String(s) => Marked::plain(Value::string(s.clone())),
            Expression::Array(a) => {
                let mut values = Vec::with_capacity(a.len());
                let mut marks = Vec::new();
                for (i, e) in a.iter().enumerate() {
                    let m = self.expr(e, d)?;
                    marks.extend(under(&m.marks, PathStep::Index(i as u64)));
                    values.push(m.value);
                }
                Marked {
                    value: Value::tuple(values),
                    marks,
                }
            }
            Expression::Object(o) => {
                let mut attrs = Vec::with_capacity(o.len());
                let mut marks = Vec::new();
                for (k, v) in o.iter() {
                    let key = match k {
                        ObjectKey::Identifier(i) => i.as_str().to_owned(),
                        ObjectKey::Expression(k) => {
                            let k = self.expr(k, d)?;
                            match k.value.convert(&Type::String) {
                                Ok(s) if s.is_known() && !s.is_null() => {
                                    s.as_str().unwrap_or_default().to_owned()
                                }
                                _ => {
                                    return err(
                                        "Incorrect key type",
                                        "an object key must be a known string (the harness does not evaluate unknown keys)",
                                    )
                                }
                            }
                        }
                        _ => return err("Invalid object key", "an object key must be a name or an expression"),
                    };
                    let m = self.expr(v, d)?;
                    marks.extend(under(&m.marks, PathStep::Attr(key.clone())));
                    attrs.push((key, m.value));
                }
                Marked {
                    value: Value::object(attrs),
                    marks,
                }
            }
            Expression::TemplateExpr(t) => {
                let t = Template::from_expr(t).map_err(|e| EvalError {
                    summary: "Invalid template".into(),
                    detail: e.to_string(),
                })?;
                self.template(&t, d)?
            }
            Expression::Variable(v) if v.as_str() == "data" => {
                return err("Invalid reference", DATA_NAMES)
            }
            Expression::Variable(v) => {
                return err(
                    "Invalid reference",
                    format!(
                        "A reference to a resource type must be followed by at least one attribute access, specifying the resource name ({:?}).",
                        v.as_str()
                    ),
                )
            }
            Expression::Traversal(t) => self.traversal(&t.expr, &t.operators, d)?,
            Expression::FuncCall(f) => self.call(f, d)?,
            Expression::Parenthesis(e) => self.expr(e, d)?,
            Expression::Conditional(c) => {
                let cond = self.expr(&c.cond_expr, d)?;
                let b = cond.value.convert(&Type::Bool).map_err(|e| EvalError {
                    summary: "Incorrect condition type".into(),
                    detail: format!("The condition expression must be of type bool: {e}."),
                })?;
                if b.is_null() {
                    return err(
                        "Null condition",
                        "The condition value is null. Conditions must either be true or false.",
                    );
                }
                let t = self.expr(&c.true_expr, d)?;
                let f = self.expr(&c.false_expr, d)?;
                if !b.is_known() {
                    return err(
                        "Unknown condition",
                        "the harness does not evaluate a conditional whose condition is unknown",
                    );
                }
                let chosen = if b.as_bool() == Some(true) { t } else { f };
                if cond.marks.is_empty() {
                    chosen
                } else {
                    let value = chosen.value.clone();
                    Marked::derived(value, &[&cond])
                }
            }
            Expression::Operation(o) => self.operation(o, d)?,
            _ => {
                return err(
                    "Not implemented by the harness",
                    "the harness does not evaluate for expressions",
                )
            }
        })
    }

    fn template(&self, t: &Template, depth: usize) -> Result<Marked, EvalError> {
        let elems = t.elements();
        if let [Element::Interpolation(i)] = elems {
            if i.strip == Strip::None {
                return self.expr(&i.expr, depth);
            }
        }
        let mut out = String::new();
        let mut unknown = false;
        let mut marked = false;
        for e in elems {
            match e {
                Element::Literal(l) => out.push_str(l),
                Element::Interpolation(i) => {
                    if i.strip != Strip::None {
                        return err(
                            "Not implemented by the harness",
                            "the harness does not evaluate template strip markers (~)",
                        );
                    }
                    let m = self.expr(&i.expr, depth)?;
                    marked |= !m.marks.is_empty();
                    if !m.value.is_known() {
                        unknown = true;
                        continue;
                    }
                    match m.value.convert(&Type::String) {
                        Ok(s) if !s.is_null() && s.is_known() => {
                            out.push_str(s.as_str().unwrap_or_default())
                        }
                        Ok(s) if !s.is_known() => unknown = true,
                        Ok(_) => {
                            return err(
                                "Invalid template interpolation value",
                                "The expression result is null. Cannot include a null value in a string template.",
                            )
                        }
                        Err(e) => {
                            return err(
                                "Invalid template interpolation value",
                                format!("Cannot include the given value in a string template: {e}."),
                            )
                        }
                    }
                }
                Element::Directive(_) => {
                    return err(
                        "Not implemented by the harness",
                        "the harness does not evaluate template directives (%{...})",
                    )
                }
            }
        }
        let value = if unknown {
            Value::unknown(Type::String)
        } else {
            Value::string(out)
        };
        Ok(Marked {
            value,
            marks: if marked {
                vec![Path::root()]
            } else {
                Vec::new()
            },
        })
    }

    fn traversal(
        &self,
        root: &Expression,
        ops: &[TraversalOperator],
        depth: usize,
    ) -> Result<Marked, EvalError> {
        let attr = |i: usize| match ops.get(i) {
            Some(TraversalOperator::GetAttr(n)) => Some(n.as_str()),
            _ => None,
        };
        let (base, rest) = match root {
            Expression::Variable(v) => match v.as_str() {
                "var" => {
                    let Some(name) = attr(0) else {
                        return err("Invalid reference", "The \"var\" object cannot be accessed directly. Instead, access one of its attributes.");
                    };
                    (self.variable(name)?, &ops[1..])
                }
                "local" => {
                    let Some(name) = attr(0) else {
                        return err("Invalid reference", "The \"local\" object cannot be accessed directly. Instead, access one of its attributes.");
                    };
                    (self.local(name, depth)?, &ops[1..])
                }
                "path" => {
                    let value = match attr(0) {
                        Some("module" | "root") => Value::string("."),
                        Some("cwd") => Value::string(
                            std::env::current_dir()
                                .map(|p| p.to_string_lossy().replace('\\', "/"))
                                .unwrap_or_else(|_| ".".into()),
                        ),
                        _ => {
                            return err(
                                "Invalid \"path\" attribute",
                                "The \"path\" object has attributes module, root and cwd.",
                            )
                        }
                    };
                    (Marked::plain(value), &ops[1..])
                }
                "terraform" => match attr(0) {
                    Some("workspace") => (Marked::plain(Value::string("default")), &ops[1..]),
                    _ => {
                        return err(
                            "Invalid \"terraform\" attribute",
                            "The harness evaluates terraform.workspace only.",
                        )
                    }
                },
                "count" | "each" => (self.repetition(v.as_str(), attr(0))?, &ops[1..]),
                "self" => {
                    return err(
                        "Not implemented by the harness",
                        "the harness does not evaluate \"self\" (provisioners are not supported)",
                    )
                }
                _ => {
                    // `TYPE.NAME`, or `data.TYPE.NAME` (a data resource's
                    // address has the mode in front).
                    let (address, mut used) = match (v.as_str(), attr(0), attr(1)) {
                        (mode @ ("data" | "ephemeral"), Some(ty), Some(name)) => (format!("{mode}.{ty}.{name}"), 2),
                        ("data", _, _) => return err("Invalid reference", DATA_NAMES),
                        ("ephemeral", _, _) => return err("Invalid reference", "The \"ephemeral\" object must be followed by two attribute names: the ephemeral resource type and its name."),
                        (ty, Some(name), _) => (format!("{ty}.{name}"), 1),
                        (ty, None, _) => return err("Invalid reference", format!("A reference to a resource type must be followed by at least one attribute access, specifying the resource name ({ty:?}).")),
                    };
                    // The longest prefix of static steps goes to the scope
                    // (its marks are exact); the rest is indexing.
                    let mut path = Path::root();
                    if v.as_str() != "after_apply" {
                        for op in &ops[used..] {
                            path = match op {
                                TraversalOperator::GetAttr(n) => path.attr(n.as_str()),
                                TraversalOperator::LegacyIndex(i) => path.index(*i),
                                TraversalOperator::Index(Expression::Number(n)) => {
                                    match n.as_u64() {
                                        Some(i) => path.index(i),
                                        None => break,
                                    }
                                }
                                TraversalOperator::Index(Expression::String(s)) => {
                                    path.key(s.clone())
                                }
                                _ => break,
                            };
                            used += 1;
                        }
                    }
                    let reference = match address.strip_prefix("after_apply.") {
                        Some(name) => Reference::AfterApply(name.to_owned()),
                        None => Reference::Resource { address, path },
                    };
                    let (value, marks) = self.scope.resolve(&reference).map_err(|e| EvalError {
                        summary: "Reference to undeclared resource".into(),
                        detail: format!("{}: {e}", describe(&reference)),
                    })?;
                    (Marked { value, marks }, &ops[used..])
                }
            },
            other => (self.expr(other, depth)?, ops),
        };
        let mut cur = base;
        for op in rest {
            cur = self.step(cur, op, depth)?;
        }
        Ok(cur)
    }

    /// One traversal step on a value (hcl's `GetAttr` and `Index`).
    fn step(&self, cur: Marked, op: &TraversalOperator, depth: usize) -> Result<Marked, EvalError> {
        let key = match op {
            TraversalOperator::GetAttr(n) => Marked::plain(Value::string(n.as_str())),
            TraversalOperator::LegacyIndex(i) => Marked::plain(Value::number(Number::from_u64(*i))),
            TraversalOperator::Index(e) => self.expr(e, depth)?,
            TraversalOperator::AttrSplat | TraversalOperator::FullSplat => {
                return err(
                    "Not implemented by the harness",
                    "the harness does not evaluate splat expressions",
                )
            }
        };
        if !cur.value.is_known() || !key.value.is_known() {
            return Ok(Marked::derived(
                Value::unknown(Type::Dynamic),
                &[&cur, &key],
            ));
        }
        if cur.value.is_null() {
            return err(
                "Attempt to get attribute from null value",
                "This value is null, so it does not have any attributes.",
            );
        }
        let (child, step) = match (cur.value.ty(), op) {
            // `.name` and `["name"]` alike (the key of `.name` is its
            // name as a string).
            (Type::Object(_) | Type::Map(_), _) => {
                let k = key
                    .value
                    .convert(&Type::String)
                    .ok()
                    .and_then(|k| k.as_str().map(str::to_owned))
                    .unwrap_or_default();
                let step = if matches!(cur.value.ty(), Type::Object(_)) {
                    PathStep::Attr(k)
                } else {
                    PathStep::Key(k)
                };
                (super::show::child(&cur.value, &step), step)
            }
            (Type::List(_) | Type::Tuple(_), _) => {
                let i = key
                    .value
                    .convert(&Type::Number)
                    .ok()
                    .and_then(|n| n.as_u64());
                match i {
                    Some(i) => {
                        let step = PathStep::Index(i);
                        (super::show::child(&cur.value, &step), step)
                    }
                    None => return err("Invalid index", "The given key does not identify an element in this collection value: a whole number is required."),
                }
            }
            _ => {
                return err(
                    "Invalid index",
                    format!("This value does not have any indices ({}).", cur.value.ty()),
                )
            }
        };
        let Some(child) = child else {
            return err(
                "Invalid index",
                "The given key does not identify an element in this collection value.",
            );
        };
        let mut marks = Vec::new();
        for m in &cur.marks {
            match m.steps().split_first() {
                None => marks = vec![Path::root()],
                Some((first, tail))
                    if same_path(
                        &Path::from(vec![first.clone()]),
                        &Path::from(vec![step.clone()]),
                    ) =>
                {
                    marks.push(Path::from(tail.to_vec()))
                }
                _ => {}
            }
        }
        if !key.marks.is_empty() {
            marks = vec![Path::root()];
        }
        Ok(Marked {
            value: child.clone(),
            marks,
        })
    }

    /// `count.index`, `each.key` or `each.value`, with core's words
    /// (`evaluationStateData.GetCountAttr` / `GetForEachAttr`).
    fn repetition(&self, root: &str, name: Option<&str>) -> Result<Marked, EvalError> {
        let rep = self.scope.repetition();
        let name = name.unwrap_or("");
        let mut marks = Vec::new();
        let value = match (root, name) {
            ("count", "index") => rep.and_then(|r| r.count_index.clone()).ok_or_else(|| EvalError {
                summary: "Reference to \"count\" in non-counted context".into(),
                detail: "The \"count\" object can only be used in \"module\", \"resource\", and \"data\" blocks, and only when the \"count\" argument is set.".into(),
            })?,
            ("count", _) => return err("Invalid \"count\" attribute", format!("The \"count\" object does not have an attribute named {name:?}. The only supported attribute is count.index, which is the index of each instance of a resource block that has the \"count\" argument set.")),
            (_, "key" | "value") => {
                let v = rep.and_then(|r| match name {
                    "key" => r.each_key.clone(),
                    _ => {
                        marks = r.each_value_marks.clone();
                        r.each_value.clone()
                    }
                });
                v.ok_or_else(|| EvalError {
                    summary: "Reference to \"each\" in context without for_each".into(),
                    detail: "The \"each\" object can be used only in \"module\" or \"resource\" blocks, and only when the \"for_each\" argument is set.".into(),
                })?
            }
            _ => return err("Invalid \"each\" attribute", format!("The \"each\" object does not have an attribute named {name:?}. The supported attributes are each.key and each.value, the current key and value pair of the \"for_each\" attribute set.")),
        };
        Ok(Marked { value, marks })
    }

    fn variable(&self, name: &str) -> Result<Marked, EvalError> {
        let Some(h) = self.scope.harness() else {
            // While validating, variables are unknown (as core's
            // validate walk has them).
            return Ok(Marked::plain(Value::unknown(Type::Dynamic)));
        };
        match h.variables.get(name) {
            Some(v) => v.value(name, h.variable_values.get(name)).map(|value| Marked {
                value,
                // A sensitive variable marks its whole value.
                marks: if v.sensitive { vec![Path::root()] } else { Vec::new() },
            }),
            None => err(
                "Reference to undeclared input variable",
                format!("An input variable with the name {name:?} has not been declared. This variable can be declared with a variable \"{name}\" {{}} block."),
            ),
        }
    }

    fn local(&self, name: &str, depth: usize) -> Result<Marked, EvalError> {
        let Some(h) = self.scope.harness() else {
            return Ok(Marked::plain(Value::unknown(Type::Dynamic)));
        };
        if let Some(m) = self.locals.borrow().get(name) {
            return Ok(m.clone());
        }
        match h.locals.get(name) {
            // A cycle ends at the depth limit.
            Some(e) => {
                let m = self.expr(e, depth + 1)?;
                self.locals.borrow_mut().insert(name.to_owned(), m.clone());
                Ok(m)
            }
            None => err(
                "Reference to undeclared local value",
                format!("A local value with the name {name:?} has not been declared."),
            ),
        }
    }

    fn operation(&self, o: &Operation, depth: usize) -> Result<Marked, EvalError> {
        match o {
            Operation::Unary(u) => {
                let v = self.expr(&u.expr, depth)?;
                match u.operator {
                    UnaryOperator::Not => {
                        let b = to_type(&v.value, &Type::Bool, "Invalid operand")?;
                        let r = if b.is_known() {
                            match b.as_bool() {
                                Some(b) => Value::bool(!b),
                                None => return err("Invalid operand", "Unsuitable value for unary operand: a null value cannot be negated."),
                            }
                        } else {
                            Value::unknown(Type::Bool)
                        };
                        Ok(Marked::derived(r, &[&v]))
                    }
                    UnaryOperator::Neg => err(
                        "Not implemented by the harness",
                        "the harness does not evaluate arithmetic (unary -)",
                    ),
                }
            }
            Operation::Binary(b) => {
                let l = self.expr(&b.lhs_expr, depth)?;
                let r = self.expr(&b.rhs_expr, depth)?;
                let value = match b.operator {
                    BinaryOperator::Eq | BinaryOperator::NotEq => {
                        if !l.value.is_wholly_known() || !r.value.is_wholly_known() {
                            Value::unknown(Type::Bool)
                        } else {
                            let eq = l.value == r.value;
                            Value::bool(eq == (b.operator == BinaryOperator::Eq))
                        }
                    }
                    BinaryOperator::And | BinaryOperator::Or => {
                        let lb = to_type(&l.value, &Type::Bool, "Invalid operand")?;
                        let rb = to_type(&r.value, &Type::Bool, "Invalid operand")?;
                        if !lb.is_known() || !rb.is_known() {
                            Value::unknown(Type::Bool)
                        } else {
                            match (lb.as_bool(), rb.as_bool()) {
                                (Some(x), Some(y)) => Value::bool(if b.operator == BinaryOperator::And { x && y } else { x || y }),
                                _ => return err("Invalid operand", "Unsuitable value for an operand: a bool is required, not null."),
                            }
                        }
                    }
                    BinaryOperator::Less
                    | BinaryOperator::LessEq
                    | BinaryOperator::Greater
                    | BinaryOperator::GreaterEq => {
                        let ln = to_type(&l.value, &Type::Number, "Invalid operand")?;
                        let rn = to_type(&r.value, &Type::Number, "Invalid operand")?;
                        if !ln.is_known() || !rn.is_known() {
                            Value::unknown(Type::Bool)
                        } else {
                            match (ln.as_number(), rn.as_number()) {
                                (Some(x), Some(y)) => {
                                    let o = x.numeric_cmp(y);
                                    use std::cmp::Ordering::*;
                                    Value::bool(match b.operator {
                                        BinaryOperator::Less => o == Less,
                                        BinaryOperator::LessEq => o != Greater,
                                        BinaryOperator::Greater => o == Greater,
                                        _ => o != Less,
                                    })
                                }
                                _ => return err("Invalid operand", "Unsuitable value for an operand: a number is required, not null."),
                            }
                        }
                    }
                    op => {
                        return err(
                            "Not implemented by the harness",
                            format!("the harness does not evaluate arithmetic ({op:?})"),
                        )
                    }
                };
                Ok(Marked::derived(value, &[&l, &r]))
            }
        }
    }

    fn call(&self, f: &FuncCall, depth: usize) -> Result<Marked, EvalError> {
        if f.expand_final {
            return err(
                "Not implemented by the harness",
                "the harness does not evaluate expanded arguments (...)",
            );
        }
        // `try` takes its arguments unevaluated.
        if f.name.namespace.is_empty() && f.name.name.as_str() == "try" {
            return crate::functions::try_expressions(&f.args, &|e| self.expr(e, depth));
        }
        let mut args = Vec::with_capacity(f.args.len());
        for a in &f.args {
            args.push(self.expr(a, depth)?);
        }
        let ns: Vec<&str> = f.name.namespace.iter().map(|i| i.as_str()).collect();
        let name = f.name.name.as_str();
        let values: Vec<Value> = args.iter().map(|m| m.value.clone()).collect();
        let refs: Vec<&Marked> = args.iter().collect();
        let value = match ns.as_slice() {
            [] => builtin(name, &values)?,
            ["provider", provider] => self.provider_function(provider, name, values)?,
            _ => {
                return err(
                    "Call to unknown function",
                    format!("There is no function named \"{}::{name}\".", ns.join("::")),
                )
            }
        };
        // `length` allows marked arguments (lang/funcs' LengthFunc): only
        // a mark on the collection itself, not inside it, marks the count.
        if ns.is_empty() && name == "length" {
            let shallow: Vec<Marked> = (args.iter())
                .map(|m| Marked {
                    value: Value::null(Type::Dynamic),
                    marks: m.marks.iter().filter(|p| p.is_root()).cloned().collect(),
                })
                .collect();
            return Ok(Marked::derived(value, &shallow.iter().collect::<Vec<_>>()));
        }
        Ok(Marked::derived(value, &refs))
    }

    /// `provider::NAME::fn(...)`: arguments converted to the parameters'
    /// types; an unknown argument where the parameter does not allow one
    /// makes the result unknown without a call (core's
    /// `providers.FunctionDecl`).
    fn provider_function(
        &self,
        provider: &str,
        name: &str,
        args: Vec<Value>,
    ) -> Result<Value, EvalError> {
        let full = format!("provider::{provider}::{name}");
        let Some(h) = self.scope.harness() else {
            return Ok(Value::unknown(Type::Dynamic));
        };
        if provider != h.provider_type {
            return err(
                "Unknown provider function",
                format!(
                    "There is no function named {full:?}: the configuration's provider is {:?}.",
                    h.provider_type
                ),
            );
        }
        let Some(sig) = h.schemas.functions.get(name) else {
            return err(
                "Unknown provider function",
                format!(
                    "Provider {:?} does not have a function named {name:?}.",
                    h.provider_type
                ),
            );
        };
        let n = sig.parameters.len();
        if args.len() < n || (sig.variadic_parameter.is_none() && args.len() > n) {
            return err(
                "Not enough function arguments",
                format!(
                    "Function {full:?} expects {n} argument(s). Missing value for {:?}.",
                    sig.parameters
                        .get(args.len())
                        .map(|p| p.name.as_str())
                        .unwrap_or("")
                ),
            );
        }
        let mut converted = Vec::with_capacity(args.len());
        for (i, a) in args.into_iter().enumerate() {
            let Some(p) = sig.parameters.get(i).or(sig.variadic_parameter.as_ref()) else {
                return err(
                    "Too many function arguments",
                    format!("Function {full:?} expects only {n} argument(s)."),
                );
            };
            let v = a.convert(&p.ty).map_err(|e| EvalError {
                summary: "Invalid function argument".into(),
                detail: format!("Invalid value for {:?} parameter: {e}.", p.name),
            })?;
            if v.is_null() && !p.allow_null_value {
                return err(
                    "Invalid function argument",
                    format!(
                        "Invalid value for {:?} parameter: argument must not be null.",
                        p.name
                    ),
                );
            }
            if !v.is_wholly_known() && !p.allow_unknown_values {
                return Ok(Value::unknown(sig.return_type.clone()));
            }
            converted.push((v, p.ty.clone()));
        }
        h.client
            .call_function(name, sig, &converted)
            .map_err(|e| EvalError {
                summary: "Error in function call".into(),
                detail: format!("Call to function {full:?} failed: {}.", e.text),
            })
    }
}

fn describe(r: &Reference) -> String {
    match r {
        Reference::Resource { address, path } => format!("{address}{path}"),
        Reference::AfterApply(name) => format!("after_apply.{name}"),
    }
}

/// Marks moved under `step`.
fn under(marks: &[Path], step: PathStep) -> Vec<Path> {
    marks
        .iter()
        .map(|m| {
            let mut steps = vec![step.clone()];
            steps.extend(m.steps().iter().cloned());
            Path::from(steps)
        })
        .collect()
}

fn number(text: &str) -> Result<Value, EvalError> {
    text.parse::<Number>()
        .map(Value::number)
        .map_err(|e| EvalError {
            summary: "Invalid number".into(),
            detail: e.to_string(),
        })
}

fn to_type(v: &Value, ty: &Type, summary: &str) -> Result<Value, EvalError> {
    v.convert(ty).map_err(|e| EvalError {
        summary: summary.into(),
        detail: format!("Unsuitable value: {e}."),
    })
}

/// The name of function `name`'s parameter `i`, as Terraform's messages
/// name it (`function.Parameter.Name`).
fn parameter(name: &str, i: usize) -> &'static str {
    match (name, i) {
        ("file", _) => "path",
        ("join" | "split", 0) => "separator",
        ("join", _) => "lists",
        ("format", 0) => "format",
        ("format", _) => "args",
        ("lookup", 0) => "inputMap",
        ("lookup", 1) => "key",
        ("lookup", _) => "default",
        _ => "str",
    }
}

/// A function argument converted to `ty`, with Terraform's wording.
fn arg(args: &[Value], i: usize, ty: &Type, name: &str) -> Result<Value, EvalError> {
    let v = args.get(i).ok_or_else(|| EvalError {
        summary: "Not enough function arguments".into(),
        detail: format!("Function {name:?} expects more arguments."),
    })?;
    v.convert(ty).map_err(|e| EvalError {
        summary: "Invalid function argument".into(),
        detail: format!("Invalid value for {:?} parameter: {e}.", parameter(name, i)),
    })
}

fn arity(args: &[Value], n: usize, name: &str) -> Result<(), EvalError> {
    if args.len() != n {
        return err(
            if args.len() < n {
                "Not enough function arguments"
            } else {
                "Too many function arguments"
            },
            format!("Function {name:?} expects {n} argument(s)."),
        );
    }
    Ok(())
}

/// A string argument, or `None` when it is unknown (the result is then
/// unknown, as for cty's functions whose parameters do not allow
/// unknowns). Null is an error.
fn string_arg(args: &[Value], i: usize, name: &str) -> Result<Option<String>, EvalError> {
    let v = arg(args, i, &Type::String, name)?;
    if !v.is_known() {
        return Ok(None);
    }
    match v.as_str() {
        Some(s) => Ok(Some(s.to_owned())),
        None => err(
            "Invalid function argument",
            format!(
                "Invalid value for {:?} parameter: argument must not be null.",
                parameter(name, i)
            ),
        ),
    }
}

/// A string function of one string: unknown in, unknown out.
fn string_fn(
    args: &[Value],
    name: &str,
    f: impl FnOnce(&str) -> Result<String, EvalError>,
) -> Result<Value, EvalError> {
    arity(args, 1, name)?;
    Ok(match string_arg(args, 0, name)? {
        Some(s) => Value::string(f(&s)?),
        None => Value::unknown(Type::String),
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Case mapping the harness does as Terraform does: ASCII (Go's
/// `strings.ToUpper` maps other letters by Unicode tables of its own
/// version, which the harness does not reproduce).
fn ascii_case(s: &str, name: &str, upper: bool) -> Result<String, EvalError> {
    if !s.is_ascii() {
        return err(
            "Not implemented by the harness",
            format!("the harness implements {name} for ASCII text only"),
        );
    }
    Ok(if upper {
        s.to_ascii_uppercase()
    } else {
        s.to_ascii_lowercase()
    })
}

/// Terraform's built-in functions listed in [`FUNCTIONS`].
fn builtin(name: &str, args: &[Value]) -> Result<Value, EvalError> {
    use sha1::Digest as _;
    if let Some(answer) = crate::functions::call(name, args) {
        return answer;
    }
    match name {
        "upper" => string_fn(args, name, |s| ascii_case(s, name, true)),
        "lower" => string_fn(args, name, |s| ascii_case(s, name, false)),
        "base64encode" => string_fn(args, name, |s| {
            Ok(base64::engine::general_purpose::STANDARD.encode(s))
        }),
        "base64decode" => string_fn(args, name, |s| {
            // Go's decoder skips line breaks.
            let s: String = s.chars().filter(|c| *c != '\r' && *c != '\n').collect();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&s)
                .map_err(|_| EvalError {
                    summary: "Error in function call".into(),
                    detail: format!("Call to function \"base64decode\" failed: failed to decode base64 data {s:?}."),
                })?;
            String::from_utf8(bytes).map_err(|_| EvalError {
                summary: "Error in function call".into(),
                detail: "Call to function \"base64decode\" failed: the result of decoding the provided string is not valid UTF-8.".into(),
            })
        }),
        "md5" => string_fn(args, name, |s| Ok(hex(&md5::Md5::digest(s.as_bytes())))),
        "sha1" => string_fn(args, name, |s| Ok(hex(&sha1::Sha1::digest(s.as_bytes())))),
        "sha256" => string_fn(args, name, |s| Ok(hex(&sha2::Sha256::digest(s.as_bytes())))),
        "file" => string_fn(args, name, |p| {
            let bytes = std::fs::read(p).map_err(|e| EvalError {
                summary: "Invalid function argument".into(),
                detail: format!("Invalid value for \"path\" parameter: no file exists at {p:?}; this function works only with files that are distributed as part of the configuration source code ({e})."),
            })?;
            String::from_utf8(bytes).map_err(|_| EvalError {
                summary: "Invalid function argument".into(),
                detail: format!("Invalid value for \"path\" parameter: contents of {p:?} are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead."),
            })
        }),
        "jsonencode" => {
            arity(args, 1, name)?;
            let v = &args[0];
            if !v.is_wholly_known() {
                return Ok(Value::unknown(Type::String));
            }
            ctywire::json::encode_string(v, v.ty())
                .map(Value::string)
                .map_err(|e| EvalError {
                    summary: "Error in function call".into(),
                    detail: format!("Call to function \"jsonencode\" failed: {e}."),
                })
        }
        "join" => {
            if args.len() < 2 {
                return err(
                    "Not enough function arguments",
                    "Function \"join\" expects at least 2 argument(s).",
                );
            }
            let Some(sep) = string_arg(args, 0, name)? else {
                return Ok(Value::unknown(Type::String));
            };
            let mut parts = Vec::new();
            for (i, _) in args.iter().enumerate().skip(1) {
                let list = arg(args, i, &Type::list(Type::String), name)?;
                if !list.is_wholly_known() {
                    return Ok(Value::unknown(Type::String));
                }
                let Some(elems) = list.elements() else {
                    return err(
                        "Invalid function argument",
                        format!(
                            "Invalid value for {:?} parameter: argument must not be null.",
                            parameter(name, i)
                        ),
                    );
                };
                for (j, e) in elems.iter().enumerate() {
                    match e.as_str() {
                        Some(s) => parts.push(s.to_owned()),
                        None => return err("Invalid function argument", format!("Invalid value for \"lists\" parameter: element {j} is null; cannot concatenate null values.")),
                    }
                }
            }
            Ok(Value::string(parts.join(&sep)))
        }
        "split" => {
            arity(args, 2, name)?;
            let (Some(sep), Some(s)) = (string_arg(args, 0, name)?, string_arg(args, 1, name)?)
            else {
                return Ok(Value::unknown(Type::list(Type::String)));
            };
            // Go's strings.Split: an empty separator splits after each
            // UTF-8 sequence.
            let parts: Vec<Value> = if sep.is_empty() {
                s.chars().map(|c| Value::string(c.to_string())).collect()
            } else {
                s.split(sep.as_str()).map(Value::string).collect()
            };
            Value::list(Type::String, parts).map_err(|e| EvalError {
                summary: "Error in function call".into(),
                detail: e.to_string(),
            })
        }
        "length" => {
            arity(args, 1, name)?;
            let v = &args[0];
            if !v.is_known() {
                return Ok(Value::unknown(Type::Number));
            }
            if v.is_null() {
                return err(
                    "Invalid function argument",
                    "Invalid value for \"value\" parameter: argument must not be null.",
                );
            }
            let n = match v.ty() {
                Type::String => {
                    let s = v.as_str().unwrap_or_default();
                    // Grapheme clusters: for ASCII, every byte but the
                    // "\n" of a "\r\n" pair.
                    if !s.is_ascii() {
                        return err("Not implemented by the harness", "the harness implements length of a string for ASCII text only (Terraform counts grapheme clusters)");
                    }
                    s.len() - s.matches("\r\n").count()
                }
                Type::Object(_) => v.attributes().map_or(0, |a| a.len()),
                Type::List(_) | Type::Set(_) | Type::Tuple(_) | Type::Map(_) => v.len().unwrap_or(0),
                other => return err("Invalid function argument", format!("Invalid value for \"value\" parameter: argument must be a string, a collection type, or a structural type, not {other}.")),
            };
            Ok(Value::number(Number::from_u64(n as u64)))
        }
        "keys" | "values" => {
            arity(args, 1, name)?;
            let v = &args[0];
            if v.is_null() {
                return err(
                    "Invalid function argument",
                    "Invalid value for \"inputMap\" parameter: argument must not be null.",
                );
            }
            let keys = name == "keys";
            match v.ty() {
                Type::Map(e) => {
                    if !v.is_known() {
                        return Ok(Value::unknown(if keys { Type::list(Type::String) } else { Type::list((**e).clone()) }));
                    }
                    let entries: Vec<(String, Value)> = v.entries().map(|i| i.map(|(k, v)| (k.to_owned(), v.clone())).collect()).unwrap_or_default();
                    let out: Vec<Value> = entries.into_iter().map(|(k, v)| if keys { Value::string(k) } else { v }).collect();
                    Value::list(if keys { Type::String } else { (**e).clone() }, out).map_err(|e| EvalError { summary: "Error in function call".into(), detail: e.to_string() })
                }
                Type::Object(_) => {
                    if !v.is_known() {
                        return Ok(Value::unknown(Type::Dynamic));
                    }
                    let attrs: Vec<(String, Value)> = v.attributes().map(|i| i.map(|(k, v)| (k.to_owned(), v.clone())).collect()).unwrap_or_default();
                    if keys {
                        Value::list(Type::String, attrs.into_iter().map(|(k, _)| Value::string(k)).collect()).map_err(|e| EvalError { summary: "Error in function call".into(), detail: e.to_string() })
                    } else {
                        Ok(Value::tuple(attrs.into_iter().map(|(_, v)| v).collect()))
                    }
                }
                Type::Dynamic => Ok(Value::unknown(Type::Dynamic)),
                other => err("Invalid function argument", format!("Invalid value for \"inputMap\" parameter: must have map or object type, not {other}.")),
            }
        }
        "lookup" => {
            if args.len() != 3 {
                return err(
                    "Not implemented by the harness",
                    "the harness implements lookup with a default (three arguments) only",
                );
            }
            let (m, k, default) = (&args[0], &args[1], &args[2]);
            let Some(key) = string_arg(args, 1, name)? else {
                return Ok(Value::unknown(Type::Dynamic));
            };
            let _ = k;
            if !m.is_known() {
                return Ok(Value::unknown(Type::Dynamic));
            }
            let found = match m.ty() {
                Type::Map(_) => m.entry(&key).cloned(),
                Type::Object(_) => m.attr(&key).cloned(),
                other => return err("Invalid function argument", format!("Invalid value for \"inputMap\" parameter: the given value is {other}, not a map or object.")),
            };
            match (m.ty(), found) {
                (Type::Map(e), Some(v)) => Ok(v.convert(e).unwrap_or(v)),
                (_, Some(v)) => Ok(v),
                (Type::Map(e), None) => default.convert(e).map_err(|e| EvalError {
                    summary: "Invalid function argument".into(),
                    detail: format!("Invalid value for \"default\" parameter: {e}."),
                }),
                (_, None) => Ok(default.clone()),
            }
        }
        "tolist" | "toset" | "tomap" => {
            arity(args, 1, name)?;
            let ty = match name {
                "tolist" => Type::list(Type::Dynamic),
                "toset" => Type::set(Type::Dynamic),
                _ => Type::map(Type::Dynamic),
            };
            args[0].convert(&ty).map_err(|e| EvalError {
                summary: "Invalid function argument".into(),
                detail: format!(
                    "Invalid value for \"v\" parameter: cannot convert {} to {}: {e}.",
                    args[0].ty(),
                    ty
                ),
            })
        }
        "format" => {
            if args.is_empty() {
                return err(
                    "Not enough function arguments",
                    "Function \"format\" expects at least 1 argument(s).",
                );
            }
            let Some(fmt) = string_arg(args, 0, name)? else {
                return Ok(Value::unknown(Type::String));
            };
            format(&fmt, &args[1..])
        }
        other => err(
            if FUNCTION_NAMES_TERRAFORM.contains(&other) {
                "Not implemented by the harness"
            } else {
                "Call to unknown function"
            },
            if FUNCTION_NAMES_TERRAFORM.contains(&other) {
                format!(
                    "the harness does not implement the function {other:?}; it implements {}",
                    FUNCTIONS.join(", ")
                )
            } else {
                format!("There is no function named {other:?}.")
            },
        ),
    }
}

/// `format`'s verbs the harness implements: `%s`, `%d` and `%%`; any
/// other verb, flag or width is an error naming it.
fn format(fmt: &str, args: &[Value]) -> Result<Value, EvalError> {
    let mut out = String::new();
    let mut next = 0;
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let verb = chars.next();
        match verb {
            Some('%') => out.push('%'),
            Some(v @ ('s' | 'd')) => {
                let Some(a) = args.get(next) else {
                    return err("Error in function call", format!("Call to function \"format\" failed: not enough arguments for \"%{v}\" at {}: need index {}.", out.chars().count(), next + 1));
                };
                next += 1;
                if !a.is_wholly_known() {
                    return Ok(Value::unknown(Type::String));
                }
                if a.is_null() {
                    return err("Error in function call", format!("Call to function \"format\" failed: unsupported value for \"%{v}\" at {}: null value cannot be formatted.", out.chars().count()));
                }
                if v == 's' {
                    match a.convert(&Type::String) {
                        Ok(s) => out.push_str(s.as_str().unwrap_or_default()),
                        Err(_) => return err("Error in function call", format!("Call to function \"format\" failed: unsupported value for \"%s\" at {}: string required.", out.chars().count())),
                    }
                } else {
                    match a.convert(&Type::Number).ok().and_then(|n| n.as_number().filter(|n| n.is_integer()).map(|n| n.to_string())) {
                        Some(n) => out.push_str(&n),
                        None => return err("Error in function call", format!("Call to function \"format\" failed: unsupported value for \"%d\" at {}: an integer is required.", out.chars().count())),
                    }
                }
            }
            other => {
                return err(
                    "Not implemented by the harness",
                    format!(
                        "the harness's format implements %s, %d and %% only, not \"%{}\"",
                        other.map(String::from).unwrap_or_default()
                    ),
                )
            }
        }
    }
    if next < args.len() {
        return err("Error in function call", format!("Call to function \"format\" failed: too many arguments; only {next} used by format string."));
    }
    Ok(Value::string(out))
}

/// Terraform 1.11's built-in functions (`lang.Scope.Functions`), so that
/// one the harness lacks is told apart from a misspelt name.
const FUNCTION_NAMES_TERRAFORM: &[&str] = &[
    "abs",
    "abspath",
    "alltrue",
    "anytrue",
    "base64decode",
    "base64encode",
    "base64gzip",
    "base64sha256",
    "base64sha512",
    "basename",
    "bcrypt",
    "can",
    "ceil",
    "chomp",
    "chunklist",
    "cidrhost",
    "cidrnetmask",
    "cidrsubnet",
    "cidrsubnets",
    "coalesce",
    "coalescelist",
    "compact",
    "concat",
    "contains",
    "csvdecode",
    "dirname",
    "distinct",
    "element",
    "endswith",
    "ephemeralasnull",
    "file",
    "filebase64",
    "filebase64sha256",
    "filebase64sha512",
    "fileexists",
    "filemd5",
    "fileset",
    "filesha1",
    "filesha256",
    "filesha512",
    "flatten",
    "floor",
    "format",
    "formatdate",
    "formatlist",
    "indent",
    "index",
    "issensitive",
    "join",
    "jsondecode",
    "jsonencode",
    "keys",
    "length",
    "list",
    "log",
    "lookup",
    "lower",
    "map",
    "matchkeys",
    "max",
    "md5",
    "merge",
    "min",
    "nonsensitive",
    "one",
    "parseint",
    "pathexpand",
    "plantimestamp",
    "pow",
    "range",
    "regex",
    "regexall",
    "replace",
    "reverse",
    "rsadecrypt",
    "sensitive",
    "setintersection",
    "setproduct",
    "setsubtract",
    "setunion",
    "sha1",
    "sha256",
    "sha512",
    "signum",
    "slice",
    "sort",
    "split",
    "startswith",
    "strcontains",
    "strrev",
    "substr",
    "sum",
    "templatefile",
    "textdecodebase64",
    "textencodebase64",
    "timeadd",
    "timecmp",
    "timestamp",
    "title",
    "tobool",
    "tolist",
    "tomap",
    "tonumber",
    "toset",
    "tostring",
    "transpose",
    "trim",
    "trimprefix",
    "trimspace",
    "trimsuffix",
    "try",
    "type",
    "upper",
    "urldecode",
    "urlencode",
    "uuid",
    "uuidv5",
    "values",
    "yamldecode",
    "yamlencode",
    "zipmap",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::UnknownScope;

    fn eval(text: &str) -> Value {
        evaluate_template(text, &UnknownScope).unwrap().value
    }

    #[test]
    fn a_null_argument_is_refused_naming_its_parameter_as_terraform_does() {
        for (call, param) in [
            ("upper(null)", "str"),
            ("md5(null)", "str"),
            ("base64decode(null)", "str"),
            ("split(null, \"a\")", "separator"),
            ("split(\",\", null)", "str"),
            ("join(null, [\"a\"])", "separator"),
            ("join(\",\", null)", "lists"),
            ("format(null)", "format"),
            ("lookup({a = \"b\"}, null, \"x\")", "key"),
            ("file(null)", "path"),
        ] {
            let e = evaluate_template(&format!("${{{call}}}"), &UnknownScope)
                .err()
                .unwrap_or_else(|| panic!("{call} was accepted"));
            assert_eq!(
                (e.summary.as_str(), e.detail.as_str()),
                (
                    "Invalid function argument",
                    format!("Invalid value for {param:?} parameter: argument must not be null.")
                        .as_str()
                ),
                "{call}"
            );
        }
    }

    #[test]
    fn escapes_are_literal_text() {
        assert_eq!(eval("a$${b}%%{c}"), Value::string("a${b}%{c}"));
        assert_eq!(eval(""), Value::string(""));
    }

    #[test]
    fn one_whole_interpolation_keeps_its_type() {
        assert_eq!(eval("${1 == 1}"), Value::bool(true));
        assert_eq!(eval("x${1 == 1}"), Value::string("xtrue"));
        // A brace inside a string does not end the interpolation.
        assert_eq!(eval("${\"}\"}"), Value::string("}"));
    }

    #[test]
    fn a_map_is_indexed_by_name_and_by_key() {
        assert_eq!(eval("${{a = \"x\"}.a}"), Value::string("x"));
        assert_eq!(eval("${{a = \"x\"}[\"a\"]}"), Value::string("x"));
        assert_eq!(eval("${tomap({a = \"x\"}).a}"), Value::string("x"));
        assert!(evaluate_template("${{a = 1}.b}", &UnknownScope).is_err());
    }

    #[test]
    fn references_are_found_through_locals() {
        let mut locals = Locals::new();
        locals.insert("x".into(), "kv_entry.a.id".parse().unwrap());
        let mut out = BTreeSet::new();
        template_text_references("${local.x}-${kv_entry.b.key}", &locals, &mut out).unwrap();
        assert_eq!(
            out.into_iter().collect::<Vec<_>>(),
            ["kv_entry.a", "kv_entry.b"]
        );
    }

    #[test]
    fn locals_that_use_each_other_are_followed_once() {
        let mut locals = Locals::new();
        locals.insert("x".into(), "[local.y, kv_entry.a]".parse().unwrap());
        locals.insert("y".into(), "[local.x, local.x]".parse().unwrap());
        let mut out = BTreeSet::new();
        template_text_references("${local.x}", &locals, &mut out).unwrap();
        assert_eq!(out.into_iter().collect::<Vec<_>>(), ["kv_entry.a"]);
    }

    /// Every resource is `{plain = "p", secret = "s"}`, its `secret`
    /// sensitive.
    struct Secrets;

    impl Scope for Secrets {
        fn resolve(&self, r: &Reference) -> Result<(Value, Vec<Path>), String> {
            let Reference::Resource { path, .. } = r else {
                return Err("not a resource".into());
            };
            let secret = Path::root().attr("secret");
            if path.is_root() {
                let v = Value::object([
                    ("plain", Value::string("p")),
                    ("secret", Value::string("s")),
                ]);
                return Ok((v, vec![secret]));
            }
            Ok((Value::string("s"), vec![Path::root()]))
        }
    }

    #[test]
    fn length_is_sensitive_only_when_its_argument_itself_is() {
        let m = evaluate_template("${length(x_y.a)}", &Secrets).unwrap();
        assert_eq!(m.value, Value::number(Number::from_u64(2)));
        assert!(
            m.marks.is_empty(),
            "a sensitive attribute inside: {:?}",
            m.marks
        );
        let m = evaluate_template("${length(x_y.a.secret)}", &Secrets).unwrap();
        assert_eq!(m.marks.len(), 1, "the argument itself is sensitive");
    }

    #[test]
    fn count_and_each_outside_a_repeated_resource_are_refused_in_cores_words() {
        let refused = |text: &str| evaluate_template(text, &Secrets).err().map(|e| e.summary);
        assert_eq!(
            refused("${count.index}").as_deref(),
            Some("Reference to \"count\" in non-counted context")
        );
        assert_eq!(
            refused("${each.key}").as_deref(),
            Some("Reference to \"each\" in context without for_each")
        );
        assert_eq!(
            refused("${count.nope}").as_deref(),
            Some("Invalid \"count\" attribute")
        );
    }
}
