//! `#[model(..)]`: what a field (or the struct) declares, read into
//! [`FieldSpec`] with every syntax error spanned on the offending key.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Ident, Lit, LitBool, LitInt, LitStr, Token};

/// Every key a field's `#[model(..)]` takes, for the error on any other.
const FIELD_KEYS: &str = "required, optional, computed, sensitive, write_only, description, deprecated, requires_replace, requires_replace(..), keep_state, default, default_from, same_as, as, identity, block, nested, range, length, pattern, one_of, each, validate, conflicts_with, also_requires, variadic, semantic_equality, timeouts";

/// What a field is in the schema, when it is not an attribute.
pub enum Kind {
    /// `block` or `block(set, min_items = .., max_items = ..)`.
    Block {
        set: Option<Span>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
    /// `nested` or `nested(set)`.
    Nested { set: Option<Span> },
}

/// A declared rule.
pub enum Rule {
    Range {
        min: Option<String>,
        max: Option<String>,
    },
    Length {
        min: Option<u64>,
        max: Option<u64>,
    },
    Pattern {
        regex: LitStr,
        description: LitStr,
    },
    OneOf(Vec<OneOfValue>),
    Each(Vec<(Span, Rule)>),
    Validate(syn::Path),
}

/// `requires_replace(..)`: the condition on which a change replaces.
pub enum ReplaceIf {
    /// `if_values_not_null`.
    ValuesNotNull(Span),
    /// `empty_as_null`.
    EmptyAsNull(Span),
    /// `if = path::to::f`.
    If(syn::Path),
}

/// A literal in `one_of(..)`.
pub enum OneOfValue {
    Str(LitStr),
    Num(String),
    Bool(LitBool),
}

/// An operation of `timeouts(..)` and its default duration, if given.
pub type TimeoutOperation = (Ident, Option<LitStr>);

/// A field's declarations (each `Option<Span>` is a flag, with where it
/// was written).
#[derive(Default)]
pub struct FieldSpec {
    pub kind: Option<Kind>,
    pub required: Option<Span>,
    pub optional: Option<Span>,
    pub computed: Option<Span>,
    pub sensitive: Option<Span>,
    pub write_only: Option<Span>,
    pub description: Option<LitStr>,
    pub deprecated: Option<LitStr>,
    pub requires_replace: Option<Span>,
    /// `requires_replace(..)`'s condition.
    pub replace_if: Option<ReplaceIf>,
    /// `default_from(a)`: the key and the field named.
    pub default_from: Option<(Ident, Vec<Ident>)>,
    pub keep_state: Option<Span>,
    /// `variadic`: a function's last parameter takes the trailing
    /// arguments.
    pub variadic: Option<Span>,
    pub default: Option<Expr>,
    pub same_as: Option<LitStr>,
    /// `semantic_equality = f`: `f` gives a value's canonical form.
    pub semantic_equality: Option<syn::Path>,
    /// `timeouts(create = "20m", read, ..)`: the key, and each operation
    /// with its default.
    pub timeouts: Option<(Ident, Vec<TimeoutOperation>)>,
    pub as_type: Option<syn::Type>,
    /// `identity` (required for import) or `identity(optional)`: the span,
    /// and whether `optional` was given.
    pub identity: Option<(Span, bool)>,
    pub rules: Vec<(Span, Rule)>,
    /// `conflicts_with(a, ..)`: the key and the fields named.
    pub conflicts_with: Option<(Ident, Vec<Ident>)>,
    /// `also_requires(a, ..)`.
    pub also_requires: Option<(Ident, Vec<Ident>)>,
}

/// The struct's `#[model(description = "..", deprecated = "..",
/// exactly_one_of(a, b), at_least_one_of(a, b))]`.
#[derive(Default)]
pub struct StructSpec {
    pub description: Option<LitStr>,
    pub deprecated: Option<LitStr>,
    /// Each `exactly_one_of(..)` and `at_least_one_of(..)`: the key and
    /// the fields named, in order.
    pub combinations: Vec<(Ident, Vec<Ident>)>,
}

/// `(a, b, ..)`: the Rust names of fields, at least one.
fn field_names(input: ParseStream, key: &Ident) -> syn::Result<Vec<Ident>> {
    if !input.peek(syn::token::Paren) {
        return Err(syn::Error::new(
            key.span(),
            format!("`{key}` names fields: `{key}(a, b)`"),
        ));
    }
    let content;
    syn::parenthesized!(content in input);
    let names = Punctuated::<Ident, Token![,]>::parse_terminated_with(&content, Ident::parse_any)?;
    Ok(names.into_iter().collect())
}

fn set_once<T>(slot: &mut Option<T>, value: T, key: &Ident) -> syn::Result<()> {
    if slot.is_some() {
        return Err(syn::Error::new(
            key.span(),
            format!("`{key}` is given twice"),
        ));
    }
    *slot = Some(value);
    Ok(())
}

fn model_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("model"))
}

pub fn struct_spec(attrs: &[Attribute]) -> syn::Result<StructSpec> {
    let mut spec = StructSpec::default();
    for attr in model_attrs(attrs) {
        attr.parse_args_with(|input: ParseStream| {
            while !input.is_empty() {
                let key = Ident::parse_any(input)?;
                match key.to_string().as_str() {
                    "description" => {
                        input.parse::<Token![=]>()?;
                        set_once(&mut spec.description, input.parse()?, &key)?;
                    }
                    "deprecated" => {
                        input.parse::<Token![=]>()?;
                        set_once(&mut spec.deprecated, input.parse()?, &key)?;
                    }
                    "exactly_one_of" | "at_least_one_of" => {
                        let names = field_names(input, &key)?;
                        spec.combinations.push((key, names));
                    }
                    other => {
                        return Err(syn::Error::new(
                            key.span(),
                            format!("unknown model attribute `{other}` on a struct: expected description, deprecated, exactly_one_of or at_least_one_of"),
                        ))
                    }
                }
                if !input.is_empty() {
                    input.parse::<Token![,]>()?;
                }
            }
            Ok(())
        })?;
    }
    Ok(spec)
}

/// `(create = "20m", read, ..)`: operations of a `timeouts` block, each
/// once, with an optional default.
fn timeout_operations(input: ParseStream, key: &Ident) -> syn::Result<Vec<TimeoutOperation>> {
    const OPERATIONS: [&str; 4] = ["create", "read", "update", "delete"];
    if !input.peek(syn::token::Paren) {
        return Err(syn::Error::new(
            key.span(),
            "`timeouts` names its operations: `timeouts(create = \"20m\", delete = \"10m\")`",
        ));
    }
    let content;
    syn::parenthesized!(content in input);
    let mut ops: Vec<TimeoutOperation> = Vec::new();
    while !content.is_empty() {
        let op = Ident::parse_any(&content)?;
        if !OPERATIONS.contains(&op.to_string().as_str()) {
            return Err(syn::Error::new(
                op.span(),
                format!("`{op}` is no operation a timeout applies to: expected create, read, update or delete"),
            ));
        }
        if ops.iter().any(|(o, _)| *o == op) {
            return Err(syn::Error::new(op.span(), format!("`{op}` is given twice")));
        }
        let default = if content.peek(Token![=]) {
            content.parse::<Token![=]>()?;
            Some(content.parse::<LitStr>()?)
        } else {
            None
        };
        ops.push((op, default));
        if !content.is_empty() {
            content.parse::<Token![,]>()?;
        }
    }
    if ops.is_empty() {
        return Err(syn::Error::new(key.span(), "`timeouts` names no operation"));
    }
    Ok(ops)
}

pub fn field_spec(attrs: &[Attribute]) -> syn::Result<FieldSpec> {
    let mut spec = FieldSpec::default();
    for attr in model_attrs(attrs) {
        attr.parse_args_with(|input: ParseStream| {
            while !input.is_empty() {
                item(input, &mut spec)?;
                if !input.is_empty() {
                    input.parse::<Token![,]>()?;
                }
            }
            Ok(())
        })?;
    }
    if spec.timeouts.is_some() && spec.kind.is_none() {
        // plugin-framework-timeouts' `Block`: a single nested block,
        // unless `nested` makes it its `Attributes`.
        spec.kind = Some(Kind::Block {
            set: None,
            min_items: None,
            max_items: None,
        });
    }
    Ok(spec)
}

fn item(input: ParseStream, spec: &mut FieldSpec) -> syn::Result<()> {
    let key = Ident::parse_any(input)?;
    let span = key.span();
    let name = key.to_string();
    let flag = |slot: &mut Option<Span>| set_once(slot, span, &key);
    match name.as_str() {
        "required" => flag(&mut spec.required),
        "optional" => flag(&mut spec.optional),
        "computed" => flag(&mut spec.computed),
        "sensitive" => flag(&mut spec.sensitive),
        "write_only" => flag(&mut spec.write_only),
        "requires_replace" => {
            flag(&mut spec.requires_replace)?;
            if input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in input);
                let k = Ident::parse_any(&content)?;
                let condition = match k.to_string().as_str() {
                    "if_values_not_null" => ReplaceIf::ValuesNotNull(k.span()),
                    "empty_as_null" => ReplaceIf::EmptyAsNull(k.span()),
                    "if" => {
                        content.parse::<Token![=]>()?;
                        ReplaceIf::If(content.parse()?)
                    }
                    other => {
                        return Err(syn::Error::new(
                            k.span(),
                            format!("unknown requires_replace condition `{other}`: expected if_values_not_null, empty_as_null or `if = path::to::f`"),
                        ))
                    }
                };
                if !content.is_empty() {
                    return Err(content.error("requires_replace takes one condition"));
                }
                spec.replace_if = Some(condition);
            }
            Ok(())
        }
        "default_from" => {
            let names = field_names(input, &key)?;
            set_once(&mut spec.default_from, (key.clone(), names), &key)
        }
        "keep_state" => flag(&mut spec.keep_state),
        "variadic" => flag(&mut spec.variadic),
        "description" => {
            input.parse::<Token![=]>()?;
            set_once(&mut spec.description, input.parse()?, &key)
        }
        "deprecated" => {
            input.parse::<Token![=]>()?;
            set_once(&mut spec.deprecated, input.parse()?, &key)
        }
        "default" => {
            input.parse::<Token![=]>()?;
            set_once(&mut spec.default, input.parse()?, &key)
        }
        "same_as" => {
            input.parse::<Token![=]>()?;
            set_once(&mut spec.same_as, input.parse()?, &key)
        }
        "timeouts" => {
            let ops = timeout_operations(input, &key)?;
            set_once(&mut spec.timeouts, (key.clone(), ops), &key)
        }
        "semantic_equality" => {
            input.parse::<Token![=]>()?;
            set_once(&mut spec.semantic_equality, input.parse()?, &key)
        }
        "conflicts_with" => {
            let names = field_names(input, &key)?;
            set_once(&mut spec.conflicts_with, (key.clone(), names), &key)
        }
        "also_requires" => {
            let names = field_names(input, &key)?;
            set_once(&mut spec.also_requires, (key.clone(), names), &key)
        }
        "as" => {
            input.parse::<Token![=]>()?;
            set_once(&mut spec.as_type, input.parse()?, &key)
        }
        "block" => {
            let (mut set, mut min_items, mut max_items) = (None, None, None);
            if input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in input);
                while !content.is_empty() {
                    let k: Ident = content.parse()?;
                    match k.to_string().as_str() {
                        "set" => set_once(&mut set, k.span(), &k)?,
                        "min_items" => {
                            content.parse::<Token![=]>()?;
                            set_once(&mut min_items, content.parse::<LitInt>()?.base10_parse()?, &k)?
                        }
                        "max_items" => {
                            content.parse::<Token![=]>()?;
                            set_once(&mut max_items, content.parse::<LitInt>()?.base10_parse()?, &k)?
                        }
                        other => {
                            return Err(syn::Error::new(
                                k.span(),
                                format!("unknown block option `{other}`: expected set, min_items or max_items"),
                            ))
                        }
                    }
                    if !content.is_empty() {
                        content.parse::<Token![,]>()?;
                    }
                }
            }
            let kind = Kind::Block {
                set,
                min_items,
                max_items,
            };
            set_kind(spec, kind, &key)
        }
        "identity" => {
            let mut optional = false;
            if input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in input);
                let k: Ident = content.parse()?;
                if k != "optional" {
                    return Err(syn::Error::new(
                        k.span(),
                        format!("unknown identity option `{k}`: expected optional"),
                    ));
                }
                optional = true;
            }
            set_once(&mut spec.identity, (span, optional), &key)
        }
        "nested" => {
            let mut set = None;
            if input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in input);
                let k: Ident = content.parse()?;
                if k != "set" {
                    return Err(syn::Error::new(
                        k.span(),
                        format!("unknown nested option `{k}`: expected set"),
                    ));
                }
                set = Some(k.span());
            }
            set_kind(spec, Kind::Nested { set }, &key)
        }
        _ => match rule(&key, input)? {
            Some(r) => {
                spec.rules.push((span, r));
                Ok(())
            }
            None => Err(syn::Error::new(
                span,
                format!("unknown model attribute `{name}`: expected one of {FIELD_KEYS}"),
            )),
        },
    }
}

fn set_kind(spec: &mut FieldSpec, kind: Kind, key: &Ident) -> syn::Result<()> {
    if spec.kind.is_some() {
        return Err(syn::Error::new(
            key.span(),
            "a field is one nested block or one nested attribute: `block` and `nested` go alone, once",
        ));
    }
    spec.kind = Some(kind);
    Ok(())
}

/// A number literal's decimal text: `1`, `-5`, `0.5`, `1e3`, `0xff` (as
/// `255`).
fn number(expr: &Expr) -> syn::Result<String> {
    match expr {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => Ok(i.base10_digits().to_string()),
            Lit::Float(f) => {
                let t = f.base10_digits();
                Ok(if t.ends_with('.') {
                    format!("{t}0")
                } else {
                    t.to_string()
                })
            }
            _ => Err(syn::Error::new_spanned(expr, "expected a number literal")),
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => Ok(format!("-{}", number(&u.expr)?)),
        Expr::Group(g) => number(&g.expr),
        _ => Err(syn::Error::new_spanned(expr, "expected a number literal")),
    }
}

/// `(lo, hi)` or `(min = lo)`, `(max = hi)`, `(min = lo, max = hi)`.
fn bounds<T>(
    content: ParseStream,
    what: &Ident,
    read: impl Fn(&Expr) -> syn::Result<T>,
) -> syn::Result<(Option<T>, Option<T>)> {
    if content.peek(Ident) && content.peek2(Token![=]) {
        let (mut min, mut max) = (None, None);
        while !content.is_empty() {
            let k: Ident = content.parse()?;
            content.parse::<Token![=]>()?;
            let e: Expr = content.parse()?;
            match k.to_string().as_str() {
                "min" => set_once(&mut min, read(&e)?, &k)?,
                "max" => set_once(&mut max, read(&e)?, &k)?,
                _ => return Err(syn::Error::new(k.span(), "expected `min` or `max`")),
            }
            if !content.is_empty() {
                content.parse::<Token![,]>()?;
            }
        }
        if min.is_none() && max.is_none() {
            return Err(syn::Error::new(
                what.span(),
                format!("`{what}` needs a min, a max or both"),
            ));
        }
        return Ok((min, max));
    }
    let args = Punctuated::<Expr, Token![,]>::parse_terminated(content)?;
    if args.len() != 2 {
        return Err(syn::Error::new(
            what.span(),
            format!("`{what}(lo, hi)` takes two bounds; for one, write `{what}(min = lo)` or `{what}(max = hi)`"),
        ));
    }
    let mut it = args.iter();
    match (it.next(), it.next()) {
        (Some(lo), Some(hi)) => Ok((Some(read(lo)?), Some(read(hi)?))),
        _ => Err(syn::Error::new(what.span(), "expected two bounds")),
    }
}

/// A validator key and its arguments, or `None` when the key is none.
fn rule(key: &Ident, input: ParseStream) -> syn::Result<Option<Rule>> {
    let name = key.to_string();
    if name == "validate" {
        input.parse::<Token![=]>()?;
        return Ok(Some(Rule::Validate(input.parse()?)));
    }
    if !["range", "length", "pattern", "one_of", "each"].contains(&name.as_str()) {
        return Ok(None);
    }
    if !input.peek(syn::token::Paren) {
        return Err(syn::Error::new(
            key.span(),
            format!("`{name}` takes arguments: `{name}(..)`"),
        ));
    }
    let content;
    syn::parenthesized!(content in input);
    Ok(Some(match name.as_str() {
        "range" => {
            let (min, max) = bounds(&content, key, number)?;
            Rule::Range { min, max }
        }
        "length" => {
            let (min, max) = bounds(&content, key, |e| match e {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Int(i), ..
                }) => i.base10_parse::<u64>(),
                _ => Err(syn::Error::new_spanned(
                    e,
                    "expected a whole number literal",
                )),
            })?;
            Rule::Length { min, max }
        }
        "pattern" => {
            let regex: LitStr = content.parse()?;
            if let Err(e) = regex_lite::Regex::new(&regex.value()) {
                return Err(syn::Error::new(
                    regex.span(),
                    format!("the pattern does not compile: {e}"),
                ));
            }
            if content.is_empty() {
                return Err(syn::Error::new(
                    regex.span(),
                    "say what the pattern means, for the error a user sees: `pattern(r\"^[a-z]+$\", \"lowercase letters\")`",
                ));
            }
            content.parse::<Token![,]>()?;
            let description: LitStr = content.parse()?;
            if !content.is_empty() {
                content.parse::<Token![,]>()?;
            }
            Rule::Pattern { regex, description }
        }
        "one_of" => {
            let args = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
            let mut values = Vec::new();
            for e in &args {
                values.push(match e {
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Str(s), ..
                    }) => OneOfValue::Str(s.clone()),
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Bool(b), ..
                    }) => OneOfValue::Bool(b.clone()),
                    _ => OneOfValue::Num(number(e).map_err(|_| {
                        syn::Error::new_spanned(e, "expected a string, number or bool literal")
                    })?),
                });
            }
            if values.is_empty() {
                return Err(syn::Error::new(
                    key.span(),
                    "`one_of` needs at least one value",
                ));
            }
            Rule::OneOf(values)
        }
        _ => {
            let mut rules = Vec::new();
            while !content.is_empty() {
                let k = Ident::parse_any(&content)?;
                match rule(&k, &content)? {
                    Some(r) => rules.push((k.span(), r)),
                    None => {
                        return Err(syn::Error::new(
                            k.span(),
                            format!("unknown rule `{k}` in `each`: expected range, length, pattern, one_of, each or validate"),
                        ))
                    }
                }
                if !content.is_empty() {
                    content.parse::<Token![,]>()?;
                }
            }
            if rules.is_empty() {
                return Err(syn::Error::new(
                    key.span(),
                    "`each` needs at least one rule",
                ));
            }
            Rule::Each(rules)
        }
    }))
}

/// A doc comment as a description: each line without the one space after
/// `///`, lines of a paragraph joined by a space, paragraphs by a blank
/// line.
pub fn doc(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
            {
                lines.extend(
                    s.value()
                        .lines()
                        .map(|l| l.trim().to_string())
                        .collect::<Vec<_>>(),
                );
            }
        }
    }
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in lines {
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(&line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    paragraphs.join("\n\n")
}
