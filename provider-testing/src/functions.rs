//! Terraform's collection, encoding and path functions the harness
//! implements beyond the string ones in `eval.rs`: `merge`, `concat`,
//! `coalesce`, `jsondecode`, `abspath`, and `try` (which takes
//! expressions, not values). Each answers as Terraform 1.11 does through
//! go-cty's function machinery (`function.Function.Call`): null arguments
//! a parameter does not allow are refused first, then the return type is
//! worked out (its errors in go-cty's words), then an unknown argument a
//! parameter does not allow makes the result unknown.

use std::collections::BTreeMap;

use ctywire::{Number, Type, Value};
use hcl::expr::{Expression, TraversalOperator};

use crate::eval::{EvalError, Marked};

fn call_failed<T>(name: &str, why: impl std::fmt::Display) -> Result<T, EvalError> {
    Err(EvalError {
        summary: "Error in function call".into(),
        detail: format!("Call to function {name:?} failed: {why}."),
    })
}

fn invalid_argument<T>(param: &str, why: impl std::fmt::Display) -> Result<T, EvalError> {
    Err(EvalError {
        summary: "Invalid function argument".into(),
        detail: format!("Invalid value for {param:?} parameter: {why}."),
    })
}

/// go-cty's check of a parameter that does not allow null.
fn not_null(args: &[Value], param: &str) -> Result<(), EvalError> {
    match args.iter().any(Value::is_null) {
        true => invalid_argument(param, "argument must not be null"),
        false => Ok(()),
    }
}

/// The functions of this file that take values, or `None` for a name
/// they do not implement.
pub(crate) fn call(name: &str, args: &[Value]) -> Option<Result<Value, EvalError>> {
    Some(match name {
        "merge" => merge(args),
        "concat" => concat(args),
        "coalesce" => coalesce(args),
        "jsondecode" => one_string(name, args, "str", |s| {
            jsondecode(s).or_else(|why| call_failed(name, why))
        }),
        "abspath" => one_string(name, args, "path", abspath),
        _ => return None,
    })
}

/// A function of one string parameter that allows neither null nor
/// unknown: unknown in, unknown (of `dynamic`) out.
fn one_string(
    name: &str,
    args: &[Value],
    param: &str,
    f: impl FnOnce(&str) -> Result<Value, EvalError>,
) -> Result<Value, EvalError> {
    if args.len() != 1 {
        return Err(EvalError {
            summary: if args.is_empty() {
                "Not enough function arguments"
            } else {
                "Too many function arguments"
            }
            .into(),
            detail: format!("Function {name:?} expects 1 argument(s)."),
        });
    }
    not_null(args, param)?;
    let v = args[0]
        .convert(&Type::String)
        .or_else(|e| invalid_argument(param, e))?;
    match v.as_str() {
        Some(s) => f(s),
        None => Ok(Value::unknown(if name == "abspath" {
            Type::String
        } else {
            Type::Dynamic
        })),
    }
}

/// `merge(maps...)` (go-cty `stdlib.MergeFunc`): later keys win; maps all
/// of one type give that type, anything else an object.
fn merge(args: &[Value]) -> Result<Value, EvalError> {
    let mut attrs: BTreeMap<String, Type> = BTreeMap::new();
    let mut first: Option<&Type> = None;
    let (mut matching, mut attrs_known, mut dynamic) = (true, true, false);
    for (i, a) in args.iter().enumerate() {
        let ty = a.ty();
        if *ty == Type::Dynamic {
            // The type cannot be worked out; the result is an object.
            dynamic = true;
            break;
        }
        match ty {
            Type::Object(o) if !a.is_null() => {
                for (n, t) in o.attributes() {
                    attrs.insert(n.to_owned(), t.clone());
                }
            }
            Type::Object(_) => {}
            Type::Map(e) => match a.entries() {
                Some(entries) => {
                    for (k, _) in entries {
                        attrs.insert(k.to_owned(), (**e).clone());
                    }
                }
                None if !a.is_known() => attrs_known = false,
                None => {}
            },
            other => {
                return call_failed(
                    "merge",
                    format!("arguments must be maps or objects, got \"{other}\""),
                )
            }
        }
        match first {
            None if i == 0 => first = Some(ty),
            Some(f) if f != ty => matching = false,
            _ => {}
        }
    }
    let ret = match (dynamic, first) {
        (true, _) => Type::Dynamic,
        (false, None) => Type::object(Vec::<(&str, Type)>::new()),
        (false, Some(f)) if matching => f.clone(),
        _ if !attrs_known => Type::Dynamic,
        _ => Type::object(attrs.iter().map(|(n, t)| (n.as_str(), t.clone()))),
    };
    if args.iter().any(|a| !a.is_known()) {
        return Ok(Value::unknown(ret));
    }
    let mut out: BTreeMap<String, Value> = BTreeMap::new();
    for a in args.iter().filter(|a| !a.is_null()) {
        let pairs: Vec<(&str, &Value)> = match (a.entries(), a.attributes()) {
            (Some(e), _) => e.collect(),
            (_, Some(at)) => at.collect(),
            // A known, non-null argument of no map or object type (only
            // when the type was left dynamic): go-cty cannot iterate it.
            _ => {
                return call_failed(
                    "merge",
                    format!("arguments must be maps or objects, got \"{}\"", a.ty()),
                )
            }
        };
        for (k, v) in pairs {
            out.insert(k.to_owned(), v.clone());
        }
    }
    match ret {
        Type::Map(e) => Value::map((*e).clone(), out).or_else(|e| call_failed("merge", e)),
        _ => Ok(Value::object(out)),
    }
}

/// `concat(seqs...)` (go-cty `stdlib.ConcatFunc`): lists all of one type
/// give that list type, anything else a tuple.
fn concat(args: &[Value]) -> Result<Value, EvalError> {
    not_null(args, "seqs")?;
    let Some(first) = args.first() else {
        return call_failed("concat", "at least one argument is required");
    };
    // An unknown of no known type: the result's type is not known either.
    if args.iter().any(|a| *a.ty() == Type::Dynamic) {
        return Ok(Value::unknown(Type::Dynamic));
    }
    let list_type =
        matches!(first.ty(), Type::List(_)) && args.iter().all(|a| a.ty() == first.ty());
    let ret = if list_type {
        first.ty().clone()
    } else {
        let mut etys = Vec::new();
        let mut unknown_list = false;
        for a in args {
            match a.ty() {
                Type::Tuple(es) => etys.extend(es.iter().cloned()),
                Type::List(e) => match a.len() {
                    Some(n) => etys.extend(std::iter::repeat_n((**e).clone(), n)),
                    None => unknown_list = true,
                },
                other => {
                    return invalid_argument(
                        "seqs",
                        format!("all arguments must be lists or tuples; got {other}"),
                    )
                }
            }
        }
        match unknown_list {
            true => Type::Dynamic,
            false => Type::tuple(etys),
        }
    };
    if args.iter().any(|a| !a.is_known()) {
        return Ok(Value::unknown(ret));
    }
    let elements: Vec<Value> = args
        .iter()
        .flat_map(|a| a.elements().unwrap_or_default().iter().cloned())
        .collect();
    match ret {
        Type::List(e) => Value::list((*e).clone(), elements).or_else(|e| call_failed("concat", e)),
        _ => Ok(Value::tuple(elements)),
    }
}

/// `coalesce(vals...)` (go-cty `stdlib.CoalesceFunc`): the first argument
/// neither null nor an empty string, all converted to their unified type.
fn coalesce(args: &[Value]) -> Result<Value, EvalError> {
    let typed: Vec<&Type> = args
        .iter()
        .map(Value::ty)
        .filter(|t| **t != Type::Dynamic)
        .collect();
    let ret = match typed.first() {
        None if args.is_empty() => None,
        None => Some(Type::Dynamic),
        Some(f) if typed.iter().all(|t| t == f) => Some((*f).clone()),
        Some(_) if typed.iter().all(|t| t.is_primitive()) => {
            typed.contains(&&Type::String).then_some(Type::String)
        }
        // go-cty unifies collections and structural types element by
        // element; the harness does not.
        Some(_) => {
            return Err(EvalError {
                summary: "Not implemented by the harness".into(),
                detail: "the harness's coalesce takes arguments of one type, or of primitive types"
                    .into(),
            })
        }
    };
    let Some(ret) = ret else {
        return call_failed("coalesce", "all arguments must have the same type");
    };
    for a in args {
        let v = a.convert(&ret).or_else(|e| call_failed("coalesce", e))?;
        if !v.is_known() {
            return Ok(Value::unknown(ret));
        }
        if v.is_null() || (ret == Type::String && v.as_str() == Some("")) {
            continue;
        }
        return Ok(v);
    }
    call_failed("coalesce", "no non-null, non-empty-string arguments")
}

/// `abspath(path)` (Terraform's `funcs.AbsPathFunc`): Go's `filepath.Abs`,
/// the working directory joined and the result cleaned lexically.
fn abspath(path: &str) -> Result<Value, EvalError> {
    let joined = if path.starts_with('/') {
        path.to_owned()
    } else {
        let cwd = std::env::current_dir().or_else(|e| call_failed("abspath", e))?;
        format!("{}/{path}", cwd.display())
    };
    Ok(Value::string(clean(&joined)))
}

/// Go's `filepath.Clean` of an absolute path: repeated separators, `.`
/// and `..` (`..` of the root is the root) resolved, no trailing `/`.
fn clean(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `jsondecode`'s reading (go-cty's `json.ImpliedType` and `Unmarshal`
/// through Go's `encoding/json` decoder): objects become objects, arrays
/// tuples, numbers exact. Errors are Go's decoder's text.
fn jsondecode(text: &str) -> Result<Value, String> {
    let mut p = JsonText {
        s: text.as_bytes(),
        at: 0,
    };
    let v = p.value(0)?;
    p.space();
    if p.at < p.s.len() {
        return Err("extraneous data after JSON object".into());
    }
    Ok(v)
}

struct JsonText<'a> {
    s: &'a [u8],
    at: usize,
}

/// How Go's scanner quotes a character in its messages.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".into(),
        b'"' => "'\"'".into(),
        c if c.is_ascii_graphic() || c == b' ' => format!("'{}'", c as char),
        c => format!("'\\x{c:02x}'"),
    }
}

impl JsonText<'_> {
    fn space(&mut self) {
        while self
            .s
            .get(self.at)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
    }

    /// The next significant character; the end of the text between
    /// values is Go's `EOF`.
    fn next(&mut self) -> Result<u8, String> {
        self.space();
        self.s.get(self.at).copied().ok_or_else(|| "EOF".to_owned())
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > ctywire::DEFAULT_MAX_DEPTH {
            return Err("exceeded max depth".into());
        }
        let c = self.next()?;
        match c {
            b'{' => {
                self.at += 1;
                let mut attrs: BTreeMap<String, Value> = BTreeMap::new();
                if self.next()? == b'}' {
                    self.at += 1;
                    return Ok(Value::object(attrs));
                }
                loop {
                    let c = self.next()?;
                    if c != b'"' {
                        return Err(format!(
                            "invalid character {} looking for beginning of object key string",
                            quote_char(c)
                        ));
                    }
                    let key = self.string()?;
                    let c = self.next()?;
                    if c != b':' {
                        return Err(format!(
                            "invalid character {} after object key",
                            quote_char(c)
                        ));
                    }
                    self.at += 1;
                    // A repeated key: the last value wins, as in Terraform.
                    attrs.insert(key, self.value(depth + 1)?);
                    match self.next()? {
                        b',' => self.at += 1,
                        b'}' => {
                            self.at += 1;
                            return Ok(Value::object(attrs));
                        }
                        c => {
                            return Err(format!(
                                "invalid character {} after object key:value pair",
                                quote_char(c)
                            ))
                        }
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                if self.next()? == b']' {
                    self.at += 1;
                    return Ok(Value::tuple(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    match self.next()? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Ok(Value::tuple(items));
                        }
                        c => {
                            return Err(format!(
                                "invalid character {} after array element",
                                quote_char(c)
                            ))
                        }
                    }
                }
            }
            b'"' => self.string().map(Value::string),
            b't' => self.literal("true").map(|()| Value::bool(true)),
            b'f' => self.literal("false").map(|()| Value::bool(false)),
            b'n' => self.literal("null").map(|()| Value::null(Type::Dynamic)),
            b'-' | b'0'..=b'9' => self.number(),
            c => Err(format!(
                "invalid character {} looking for beginning of value",
                quote_char(c)
            )),
        }
    }

    fn literal(&mut self, word: &str) -> Result<(), String> {
        for (i, want) in word.bytes().enumerate() {
            match self.s.get(self.at + i) {
                None => return Err("unexpected EOF".into()),
                Some(c) if *c != want => {
                    return Err(format!(
                        "invalid character {} in literal {word} (expecting {})",
                        quote_char(*c),
                        quote_char(want)
                    ))
                }
                Some(_) => {}
            }
        }
        self.at += word.len();
        Ok(())
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.at;
        let digits = |p: &mut Self| {
            let from = p.at;
            while p.s.get(p.at).is_some_and(u8::is_ascii_digit) {
                p.at += 1;
            }
            p.at - from
        };
        let expect_digit = |p: &mut Self, after: &str| match p.s.get(p.at) {
            None => Err("unexpected EOF".to_owned()),
            Some(c) if !c.is_ascii_digit() => {
                Err(format!("invalid character {} {after}", quote_char(*c)))
            }
            Some(_) => Ok(()),
        };
        if self.s.get(self.at) == Some(&b'-') {
            self.at += 1;
            expect_digit(self, "in numeric literal")?;
        }
        if self.s.get(self.at) == Some(&b'0') {
            self.at += 1;
        } else {
            digits(self);
        }
        if self.s.get(self.at) == Some(&b'.') {
            self.at += 1;
            expect_digit(self, "after decimal point in numeric literal")?;
            digits(self);
        }
        if matches!(self.s.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.s.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            expect_digit(self, "in exponent of numeric literal")?;
            digits(self);
        }
        let text = std::str::from_utf8(&self.s[start..self.at]).map_err(|e| e.to_string())?;
        text.parse::<Number>()
            .map(Value::number)
            .map_err(|e| e.to_string())
    }

    /// A string after its opening quote, as Go's decoder reads it:
    /// invalid UTF-8 and unpaired surrogates become U+FFFD.
    fn string(&mut self) -> Result<String, String> {
        self.at += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&c) = self.s.get(self.at) else {
                return Err("unexpected EOF".into());
            };
            self.at += 1;
            match c {
                b'"' => return Ok(String::from_utf8_lossy(&out).into_owned()),
                b'\\' => {
                    let Some(&e) = self.s.get(self.at) else {
                        return Err("unexpected EOF".into());
                    };
                    self.at += 1;
                    let simple = match e {
                        b'"' => Some(b'"'),
                        b'\\' => Some(b'\\'),
                        b'/' => Some(b'/'),
                        b'b' => Some(8),
                        b'f' => Some(12),
                        b'n' => Some(b'\n'),
                        b'r' => Some(b'\r'),
                        b't' => Some(b'\t'),
                        b'u' => None,
                        e => {
                            return Err(format!(
                                "invalid character {} in string escape code",
                                quote_char(e)
                            ))
                        }
                    };
                    if let Some(b) = simple {
                        out.push(b);
                        continue;
                    }
                    let hi = self.hex4()?;
                    let ch = if (0xD800..0xDC00).contains(&hi)
                        && self.s.get(self.at..self.at + 2) == Some(b"\\u")
                    {
                        let save = self.at;
                        self.at += 2;
                        let lo = self.hex4()?;
                        if (0xDC00..0xE000).contains(&lo) {
                            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                        } else {
                            self.at = save;
                            None
                        }
                    } else {
                        char::from_u32(hi)
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(
                        ch.unwrap_or('\u{fffd}').encode_utf8(&mut buf).as_bytes(),
                    );
                }
                c if c < 0x20 => {
                    return Err(format!(
                        "invalid character {} in string literal",
                        quote_char(c)
                    ))
                }
                c => out.push(c),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut n = 0;
        for _ in 0..4 {
            let Some(&c) = self.s.get(self.at) else {
                return Err("unexpected EOF".into());
            };
            let d = (c as char).to_digit(16).ok_or_else(|| {
                format!(
                    "invalid character {} in \\u hexadecimal character escape",
                    quote_char(c)
                )
            })?;
            n = n * 16 + d;
            self.at += 1;
        }
        Ok(n)
    }
}

/// `try(expressions...)` (HCL's `tryfunc.TryFunc`): the first expression
/// that evaluates without an error. One that depends on a value not yet
/// known makes the result unknown, as it may fail once known. Errors the
/// harness reports where Terraform would have refused the configuration
/// before evaluating (an undeclared reference) or where the harness
/// lacks a feature are not caught: catching them would be a different
/// answer.
pub(crate) fn try_expressions(
    args: &[Expression],
    evaluate: &dyn Fn(&Expression) -> Result<Marked, EvalError>,
) -> Result<Marked, EvalError> {
    if args.is_empty() {
        return call_failed("try", "at least one argument is required");
    }
    let mut failures = Vec::new();
    for a in args {
        if depends_on_unknowns(a, evaluate) {
            return Ok(Marked {
                value: Value::unknown(Type::Dynamic),
                marks: Vec::new(),
            });
        }
        match evaluate(a) {
            Ok(v) => return Ok(v),
            Err(e) if !catchable(&e) => return Err(e),
            Err(e) => failures.push(format!("- {}\n  {}", e.summary, e.detail)),
        }
    }
    Err(EvalError {
        summary: "Error in function call".into(),
        detail: format!(
            "Call to function \"try\" failed: no expression succeeded:\n{}\n\nAt least one expression must produce a successful result.",
            failures.join("\n")
        ),
    })
}

/// Errors core finds before evaluating, or that name what the harness
/// lacks: never caught by `try`.
fn catchable(e: &EvalError) -> bool {
    !matches!(
        e.summary.as_str(),
        "Not implemented by the harness"
            | "Reference to undeclared resource"
            | "Reference to undeclared input variable"
            | "Reference to undeclared local value"
            | "Invalid reference"
    )
}

/// Whether a variable `expr` refers to has a value not wholly known
/// (HCL's `dependsOnUnknowns`).
fn depends_on_unknowns(
    expr: &Expression,
    evaluate: &dyn Fn(&Expression) -> Result<Marked, EvalError>,
) -> bool {
    let mut found = false;
    visit_traversals(expr, 0, &mut |t| {
        if let Ok(m) = evaluate(t) {
            found |= !m.value.is_wholly_known();
        }
    });
    found
}

fn visit_traversals(e: &Expression, depth: usize, f: &mut dyn FnMut(&Expression)) {
    if depth > ctywire::DEFAULT_MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    match e {
        Expression::Variable(_) => f(e),
        Expression::Traversal(t) => {
            match &t.expr {
                Expression::Variable(_) => f(e),
                other => visit_traversals(other, d, f),
            }
            for op in &t.operators {
                if let TraversalOperator::Index(i) = op {
                    visit_traversals(i, d, f);
                }
            }
        }
        Expression::Array(a) => a.iter().for_each(|x| visit_traversals(x, d, f)),
        Expression::Object(o) => o.iter().for_each(|(_, v)| visit_traversals(v, d, f)),
        Expression::FuncCall(c) => c.args.iter().for_each(|x| visit_traversals(x, d, f)),
        Expression::Parenthesis(x) => visit_traversals(x, d, f),
        Expression::Conditional(c) => {
            visit_traversals(&c.cond_expr, d, f);
            visit_traversals(&c.true_expr, d, f);
            visit_traversals(&c.false_expr, d, f);
        }
        Expression::Operation(o) => match &**o {
            hcl::expr::Operation::Unary(u) => visit_traversals(&u.expr, d, f),
            hcl::expr::Operation::Binary(b) => {
                visit_traversals(&b.lhs_expr, d, f);
                visit_traversals(&b.rhs_expr, d, f);
            }
        },
        Expression::TemplateExpr(t) => {
            if let Ok(template) = hcl::template::Template::from_expr(t) {
                visit_template(&template, d, f);
            }
        }
        _ => {}
    }
}

fn visit_template(t: &hcl::template::Template, depth: usize, f: &mut dyn FnMut(&Expression)) {
    for el in t.elements() {
        if let hcl::template::Element::Interpolation(i) = el {
            visit_traversals(&i.expr, depth, f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::UnknownScope;
    use crate::eval::evaluate_template;

    fn eval(text: &str) -> Result<Value, EvalError> {
        evaluate_template(text, &UnknownScope).map(|m| m.value)
    }

    fn detail(text: &str) -> String {
        match eval(text) {
            Ok(v) => panic!("{text} answered {v:?}"),
            Err(e) => format!("{}: {}", e.summary, e.detail),
        }
    }

    #[test]
    fn merge_gives_a_map_for_maps_of_one_type_and_an_object_otherwise() {
        assert_eq!(
            eval(r#"${merge(tomap({a = "b"}), tomap({c = "d"}))}"#).unwrap(),
            Value::map(
                Type::String,
                [("a", Value::string("b")), ("c", Value::string("d"))]
            )
            .unwrap()
        );
        assert_eq!(
            eval(r#"${merge({a = "b"}, {c = 1}, {a = "z"})}"#).unwrap(),
            Value::object([("a", Value::string("z")), ("c", Value::number(1u64))])
        );
        assert_eq!(
            eval(r#"${merge(null, {a = 1})}"#).unwrap(),
            Value::object([("a", Value::number(1u64))])
        );
        assert_eq!(
            eval("${merge()}").unwrap(),
            Value::object(Vec::<(&str, Value)>::new())
        );
        assert_eq!(
            detail(r#"${merge("x")}"#),
            "Error in function call: Call to function \"merge\" failed: arguments must be maps or objects, got \"string\"."
        );
    }

    #[test]
    fn concat_keeps_a_list_type_only_when_all_are_that_list_type() {
        assert_eq!(
            eval(r#"${concat(tolist(["a"]), tolist(["b"]))}"#).unwrap(),
            Value::list(Type::String, vec![Value::string("a"), Value::string("b")]).unwrap()
        );
        assert_eq!(
            eval(r#"${concat(["a"], [1])}"#).unwrap(),
            Value::tuple(vec![Value::string("a"), Value::number(1u64)])
        );
        assert_eq!(
            detail(r#"${concat(["a"], "b")}"#),
            "Invalid function argument: Invalid value for \"seqs\" parameter: all arguments must be lists or tuples; got string."
        );
        assert_eq!(
            detail(r#"${concat("b", null)}"#),
            "Invalid function argument: Invalid value for \"seqs\" parameter: argument must not be null."
        );
        assert_eq!(
            detail("${concat()}"),
            "Error in function call: Call to function \"concat\" failed: at least one argument is required."
        );
    }

    #[test]
    fn coalesce_skips_nulls_and_empty_strings_after_unifying() {
        assert_eq!(eval(r#"${coalesce("", "b")}"#).unwrap(), Value::string("b"));
        assert_eq!(
            eval(r#"${coalesce(null, 1, "x")}"#).unwrap(),
            Value::string("1")
        );
        assert_eq!(
            detail(r#"${coalesce(1, true)}"#),
            "Error in function call: Call to function \"coalesce\" failed: all arguments must have the same type."
        );
        assert_eq!(
            detail(r#"${coalesce("", null)}"#),
            "Error in function call: Call to function \"coalesce\" failed: no non-null, non-empty-string arguments."
        );
        assert_eq!(
            detail("${coalesce()}"),
            "Error in function call: Call to function \"coalesce\" failed: all arguments must have the same type."
        );
    }

    #[test]
    fn jsondecode_reads_implied_types_with_exact_numbers() {
        assert_eq!(
            eval(r#"${jsondecode("{\"a\":[1,\"x\",null,true],\"b\":0.1000000000000000000001,\"a\":2}")}"#).unwrap(),
            Value::object([
                ("a", Value::number(2u64)),
                ("b", Value::number("0.1000000000000000000001".parse::<Number>().unwrap())),
            ])
        );
        assert_eq!(
            eval(r#"${jsondecode(" [] ")}"#).unwrap(),
            Value::tuple(vec![])
        );
        assert_eq!(
            eval(r#"${jsondecode("\"\\u00e9\\ud83d\\ude00\"")}"#).unwrap(),
            Value::string("é😀")
        );
        for (text, why) in [
            ("", "EOF"),
            ("[1,", "EOF"),
            ("nul", "unexpected EOF"),
            ("x", "invalid character 'x' looking for beginning of value"),
            (
                "[1,]",
                "invalid character ']' looking for beginning of value",
            ),
            (r#"{\"a\" 1}"#, "invalid character '1' after object key"),
            ("1 2", "extraneous data after JSON object"),
        ] {
            assert_eq!(
                detail(&format!("${{jsondecode(\"{text}\")}}")),
                format!("Error in function call: Call to function \"jsondecode\" failed: {why}."),
                "{text}"
            );
        }
        assert_eq!(
            detail("${jsondecode(null)}"),
            "Invalid function argument: Invalid value for \"str\" parameter: argument must not be null."
        );
        // Nesting past the depth limit is an error, not a stack overflow.
        let deep = "[".repeat(100_000);
        assert!(jsondecode(&deep).is_err());
    }

    #[test]
    fn abspath_joins_the_working_directory_and_cleans_lexically() {
        let cwd = std::env::current_dir().unwrap().display().to_string();
        assert_eq!(
            eval(r#"${abspath("a/../b/")}"#).unwrap(),
            Value::string(format!("{cwd}/b"))
        );
        assert_eq!(
            eval(r#"${abspath("/x/./y//z/..")}"#).unwrap(),
            Value::string("/x/y")
        );
        assert_eq!(eval(r#"${abspath("/..")}"#).unwrap(), Value::string("/"));
        assert_eq!(eval(r#"${abspath("")}"#).unwrap(), Value::string(cwd));
    }

    #[test]
    fn try_answers_the_first_expression_that_succeeds() {
        assert_eq!(
            eval(r#"${try(jsondecode("{"), 2)}"#).unwrap(),
            Value::number(2u64)
        );
        assert_eq!(
            eval(r#"${try({a = 1}.b, "z")}"#).unwrap(),
            Value::string("z")
        );
        assert_eq!(eval(r#"${try(null)}"#).unwrap(), Value::null(Type::Dynamic));
        assert_eq!(
            detail(r#"${try(jsondecode("{"))}"#),
            "Error in function call: Call to function \"try\" failed: no expression succeeded:\n- Error in function call\n  Call to function \"jsondecode\" failed: EOF.\n\nAt least one expression must produce a successful result."
        );
        // What the harness lacks is never caught.
        assert!(detail(r#"${try(title("x"), "y")}"#).starts_with("Not implemented by the harness"));
    }
}
