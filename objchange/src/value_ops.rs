//! The cty operations core's rules are written in, over ctywire values:
//! `RawEquals` of unrefined values, a hash consistent with it, path steps
//! applied as `cty.Path.Apply` applies them, and the `%#v` (GoString)
//! rendering that core's messages embed.

use std::hash::Hasher;

use ctywire::{Number, Path, Refinements, Type, Value};

/// How deep any walk over values or schemas goes — core's rules here and
/// the framework's plan and validation walks alike. Values deeper than
/// this are treated as not matching (and reported where a report is due),
/// so that no input can exhaust the stack. It is ctywire's decoding limit:
/// every value these walks see was decoded under it, so a lower limit
/// would refuse values Terraform legitimately sent (a value nests at
/// least one level per schema level, a list block two), and a higher
/// one could never be reached.
pub const MAX_DEPTH: usize = ctywire::DEFAULT_MAX_DEPTH;

/// core's `unrefinedValue(a).RawEquals(unrefinedValue(b))`: equal types and
/// equal values, an unknown equal to an unknown of the same type whatever
/// their refinements. Past [`MAX_DEPTH`] nothing is equal.
pub fn raw_eq_unrefined(a: &Value, b: &Value) -> bool {
    eq_at(a, b, 0)
}

fn eq_at(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH || a.ty() != b.ty() {
        return false;
    }
    if a.is_null() || b.is_null() {
        return a.is_null() && b.is_null();
    }
    if !a.is_known() || !b.is_known() {
        return !a.is_known() && !b.is_known();
    }
    if let (Some(x), Some(y)) = (a.as_str(), b.as_str()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_bool(), b.as_bool()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.elements(), b.elements()) {
        return x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq_at(p, q, depth + 1));
    }
    if let (Some(x), Some(y)) = (a.entries(), b.entries()) {
        return x.len() == y.len()
            && x.zip(y)
                .all(|((kp, p), (kq, q))| kp == kq && eq_at(p, q, depth + 1));
    }
    if let (Some(x), Some(y)) = (a.attributes(), b.attributes()) {
        // Equal types: the same names in the same order.
        return x.zip(y).all(|((_, p), (_, q))| eq_at(p, q, depth + 1));
    }
    false
}

/// A small, fast 64-bit hasher (FxHash's mixing step) for bucketing set
/// elements; collisions only cost a comparison, never a wrong answer.
#[derive(Default)]
pub struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
        self.write_u64(bytes.len() as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Feeds `v` into `h` so that values [`raw_eq_unrefined`] calls equal
/// hash equal. Types are left out (equal values have equal types, and
/// leaving them out only merges buckets); numbers go in by their canonical
/// text, which equal numbers share (`-0` is folded into `0`).
pub fn hash_unrefined(v: &Value, h: &mut FastHasher) {
    hash_at(v, h, 0);
}

fn hash_at(v: &Value, h: &mut FastHasher, depth: usize) {
    if depth > MAX_DEPTH {
        h.write_u64(0xdead);
        return;
    }
    if v.is_null() {
        h.write_u64(1);
    } else if !v.is_known() {
        h.write_u64(2);
    } else if let Some(s) = v.as_str() {
        h.write_u64(3);
        h.write(s.as_bytes());
    } else if let Some(n) = v.as_number() {
        h.write_u64(4);
        let text = n.to_string();
        h.write(if text == "-0" { b"0" } else { text.as_bytes() });
    } else if let Some(b) = v.as_bool() {
        h.write_u64(5 + u64::from(b));
    } else if let Some(elems) = v.elements() {
        h.write_u64(7);
        h.write_u64(elems.len() as u64);
        for e in elems {
            hash_at(e, h, depth + 1);
        }
    } else if let Some(entries) = v.entries() {
        h.write_u64(8);
        h.write_u64(entries.len() as u64);
        for (k, e) in entries {
            h.write(k.as_bytes());
            hash_at(e, h, depth + 1);
        }
    } else if let Some(attrs) = v.attributes() {
        h.write_u64(9);
        for (_, e) in attrs {
            hash_at(e, h, depth + 1);
        }
    }
}

/// One step of a `cty.Path` as `cty.Walk` makes them: an attribute, a list
/// or tuple index, a map key. (A set element's step is never applied by
/// the rules here: core stops at sets before that.) The framework's walks
/// take the same steps, borrowed from the schema, in a [`Trail`].
#[derive(Clone, Copy, Debug)]
pub enum Step<'a> {
    /// An attribute or nested block.
    Attr(&'a str),
    /// A list or tuple element.
    Index(usize),
    /// A map element.
    Key(&'a str),
}

/// cty's `GetAttrStep.Apply` / `IndexStep.Apply` on `v`: `None` where cty
/// returns an error (null, the wrong kind of value, a missing attribute,
/// index or key); an unknown collection or object gives an unknown of the
/// element's type, as `HasIndex` being unknown does in cty.
pub(crate) fn apply_step<'v>(v: &'v Value, step: Step<'_>) -> Option<std::borrow::Cow<'v, Value>> {
    use std::borrow::Cow;
    if v.is_null() {
        return None;
    }
    let ty = v.ty();
    match step {
        Step::Attr(name) => {
            let aty = ty.attribute_type(name)?;
            if !v.is_known() {
                return Some(Cow::Owned(Value::unknown(aty.clone())));
            }
            v.attr(name).map(Cow::Borrowed)
        }
        Step::Index(i) => match ty {
            Type::List(e) if !v.is_known() => Some(Cow::Owned(Value::unknown((**e).clone()))),
            Type::Tuple(ts) if !v.is_known() => {
                ts.get(i).cloned().map(|t| Cow::Owned(Value::unknown(t)))
            }
            Type::List(_) | Type::Tuple(_) => v.elements()?.get(i).map(Cow::Borrowed),
            _ => None,
        },
        Step::Key(k) => match ty {
            Type::Map(e) if !v.is_known() => Some(Cow::Owned(Value::unknown((**e).clone()))),
            Type::Map(_) => v.entry(k).map(Cow::Borrowed),
            _ => None,
        },
    }
}

/// The children of a known, non-null value with the steps `cty.Walk`
/// reaches them by: object attributes, list and tuple indexes, map keys.
/// Sets and primitives have none here (the callers stop at sets first).
pub(crate) fn children(v: &Value) -> Vec<(Step<'_>, &Value)> {
    if let Some(attrs) = v.attributes() {
        return attrs.map(|(n, a)| (Step::Attr(n), a)).collect();
    }
    if let Some(entries) = v.entries() {
        return entries.map(|(k, e)| (Step::Key(k), e)).collect();
    }
    match (v.ty(), v.elements()) {
        (Type::List(_) | Type::Tuple(_), Some(elems)) => elems
            .iter()
            .enumerate()
            .map(|(i, e)| (Step::Index(i), e))
            .collect(),
        _ => Vec::new(),
    }
}

/// Go's `strconv.Quote`, which Terraform uses for keys in paths and values
/// in messages. ctywire's path rendering already quotes keys exactly so;
/// it is borrowed from there rather than written twice.
pub(crate) fn go_quote(s: &str) -> String {
    let rendered = Path::root().key(s).to_string();
    rendered
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .map_or(rendered.clone(), str::to_string)
}

/// A number as Go prints a `big.Float` or `float64` with `%v`/`%#v`: the
/// shortest digits, in `%e` form when the exponent is below -4 or at
/// least 6 (`1e+06`, `123456`, `1.5e-05`).
pub(crate) fn go_g_shortest(n: &Number) -> String {
    let text = n.to_string();
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.trim_start_matches('+')),
    };
    if body == "Inf" {
        return if negative {
            "-Inf".into()
        } else {
            "+Inf".into()
        };
    }
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let all: String = format!("{int}{frac}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_start_matches('0').trim_end_matches('0');
    let sign = if negative { "-" } else { "" };
    if digits.is_empty() {
        return format!("{sign}0");
    }
    // The value is 0.DIGITS × 10^point.
    let point = int.len() as i64 - lead as i64;
    let exp = point - 1;
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let mantissa = if rest.is_empty() {
            first.to_string()
        } else {
            format!("{first}.{rest}")
        };
        let (esign, e) = if exp < 0 { ('-', -exp) } else { ('+', exp) };
        format!("{sign}{mantissa}e{esign}{e:02}")
    } else if point <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!(
            "{sign}{digits}{}",
            "0".repeat(point as usize - digits.len())
        )
    } else {
        let (i, f) = digits.split_at(point as usize);
        format!("{sign}{i}.{f}")
    }
}

/// A type as go-cty's `%#v` writes it (`cty.List(cty.String)`).
pub(crate) fn go_type(t: &Type) -> String {
    match t {
        Type::String => "cty.String".into(),
        Type::Number => "cty.Number".into(),
        Type::Bool => "cty.Bool".into(),
        Type::Dynamic => "cty.DynamicPseudoType".into(),
        Type::List(e) => format!("cty.List({})", go_type(e)),
        Type::Set(e) => format!("cty.Set({})", go_type(e)),
        Type::Map(e) => format!("cty.Map({})", go_type(e)),
        Type::Tuple(ts) if ts.is_empty() => "cty.EmptyTuple".into(),
        Type::Tuple(ts) => format!(
            "cty.Tuple([]cty.Type{{{}}})",
            ts.iter().map(go_type).collect::<Vec<_>>().join(", ")
        ),
        Type::Object(o) if o.is_empty() => "cty.EmptyObject".into(),
        Type::Object(o) => {
            let attrs = o
                .attributes()
                .map(|(n, t)| format!("{}:{}", go_quote(n), go_type(t)))
                .collect::<Vec<_>>()
                .join(", ");
            if o.has_optional() {
                let names = o
                    .optional_names()
                    .map(go_quote)
                    .collect::<Vec<_>>()
                    .join(", ");
                format!("cty.ObjectWithOptionalAttrs(map[string]cty.Type{{{attrs}}}, []string{{{names}}})")
            } else {
                format!("cty.Object(map[string]cty.Type{{{attrs}}})")
            }
        }
    }
}

/// A value as go-cty's `%#v` (`Value.GoString`) writes it, which core puts
/// in its messages: `cty.StringVal("a")`, `cty.NullVal(cty.String)`,
/// `cty.UnknownVal(cty.String).RefineNotNull()`,
/// `cty.ObjectVal(map[string]cty.Value{"a":cty.NumberIntVal(1)})`.
pub(crate) fn go_string(v: &Value) -> String {
    let mut out = String::new();
    write_go(v, &mut out, 0);
    out
}

fn write_go(v: &Value, out: &mut String, depth: usize) {
    if depth > MAX_DEPTH {
        out.push_str("...");
        return;
    }
    let ty = v.ty();
    if v.is_null() {
        out.push_str(&format!("cty.NullVal({})", go_type(ty)));
        return;
    }
    if !v.is_known() {
        if *ty == Type::Dynamic {
            out.push_str("cty.DynamicVal");
            return;
        }
        out.push_str(&format!("cty.UnknownVal({})", go_type(ty)));
        if let Some(r) = v.refinements() {
            out.push_str(&refinement_suffix(r));
        }
        return;
    }
    if let Some(b) = v.as_bool() {
        out.push_str(if b { "cty.True" } else { "cty.False" });
        return;
    }
    if let Some(n) = v.as_number() {
        out.push_str(&go_number(n));
        return;
    }
    if let Some(s) = v.as_str() {
        out.push_str(&format!("cty.StringVal({})", go_quote(s)));
        return;
    }
    let seq = |out: &mut String, elems: &[Value]| {
        out.push_str("[]cty.Value{");
        for (i, e) in elems.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_go(e, out, depth + 1);
        }
        out.push('}');
    };
    let map = |out: &mut String, entries: &mut dyn Iterator<Item = (&str, &Value)>| {
        out.push_str("map[string]cty.Value{");
        for (i, (k, e)) in entries.enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&go_quote(k));
            out.push(':');
            write_go(e, out, depth + 1);
        }
        out.push('}');
    };
    match ty {
        Type::List(e) | Type::Set(e) => {
            let kind = if matches!(ty, Type::List(_)) {
                "List"
            } else {
                "Set"
            };
            let elems = v.elements().unwrap_or(&[]);
            if elems.is_empty() {
                out.push_str(&format!("cty.{kind}ValEmpty({})", go_type(e)));
            } else {
                out.push_str(&format!("cty.{kind}Val("));
                seq(out, elems);
                out.push(')');
            }
        }
        Type::Map(e) => match v.entries() {
            Some(entries) if entries.len() > 0 => {
                out.push_str("cty.MapVal(");
                map(out, &mut v.entries().into_iter().flatten());
                out.push(')');
            }
            _ => out.push_str(&format!("cty.MapValEmpty({})", go_type(e))),
        },
        Type::Tuple(ts) if ts.is_empty() => out.push_str("cty.EmptyTupleVal"),
        Type::Tuple(_) => {
            out.push_str("cty.TupleVal(");
            seq(out, v.elements().unwrap_or(&[]));
            out.push(')');
        }
        Type::Object(o) if o.is_empty() => out.push_str("cty.EmptyObjectVal"),
        Type::Object(_) => {
            out.push_str("cty.ObjectVal(");
            map(out, &mut v.attributes().into_iter().flatten());
            out.push(')');
        }
        _ => out.push_str(&v.to_string()),
    }
}

/// `cty.NumberIntVal(…)`, `cty.NumberFloatVal(…)` or
/// `cty.MustParseNumberVal("…")`, chosen as go-cty chooses: integers,
/// then numbers a float64 holds exactly, then the rest.
pub(crate) fn go_number(n: &Number) -> String {
    if n.is_infinite() {
        return format!("cty.NumberFloatVal({})", go_g_shortest(n));
    }
    if n.is_integer() {
        return format!("cty.NumberIntVal({})", go_g_shortest(n));
    }
    let exact_f64 = n
        .to_string()
        .parse::<f64>()
        .ok()
        .and_then(|f| Number::from_f64(f).ok())
        .is_some_and(|f| f.numeric_cmp(n).is_eq());
    if exact_f64 {
        format!("cty.NumberFloatVal({})", go_g_shortest(n))
    } else {
        format!("cty.MustParseNumberVal({})", go_quote(&n.to_string()))
    }
}

/// The refinement calls go-cty's GoString appends to an unknown.
fn refinement_suffix(r: &Refinements) -> String {
    let mut calls = String::new();
    if r.not_null {
        calls.push_str(".NotNull()");
    }
    if let Some(p) = &r.string_prefix {
        calls.push_str(&format!(".StringPrefixFull({})", go_quote(p)));
    }
    if let Some(b) = &r.lower {
        calls.push_str(&format!(
            ".NumberLowerBound({}, {})",
            go_number(&b.value),
            b.inclusive
        ));
    }
    if let Some(b) = &r.upper {
        calls.push_str(&format!(
            ".NumberUpperBound({}, {})",
            go_number(&b.value),
            b.inclusive
        ));
    }
    if r.length_min != 0 {
        calls.push_str(&format!(".CollectionLengthLowerBound({})", r.length_min));
    }
    if let Some(max) = r.length_max {
        calls.push_str(&format!(".CollectionLengthUpperBound({max})"));
    }
    if calls == ".NotNull()" {
        ".RefineNotNull()".into()
    } else {
        format!(".Refine(){calls}.NewValue()")
    }
}

/// go-cty's `Type.FriendlyNameForConstraint`.
pub(crate) fn friendly_constraint(t: &Type) -> String {
    match t {
        Type::String => "string".into(),
        Type::Number => "number".into(),
        Type::Bool => "bool".into(),
        Type::Dynamic => "any type".into(),
        Type::List(e) => format!("list of {}", friendly_constraint(e)),
        Type::Set(e) => format!("set of {}", friendly_constraint(e)),
        Type::Map(e) => format!("map of {}", friendly_constraint(e)),
        Type::Object(_) => "object".into(),
        Type::Tuple(_) => "tuple".into(),
    }
}

/// go-cty's `convert.MismatchMessage(got, want)`, for the cases a
/// provider's result can reach ("wrong final value type"). Whether a
/// conversion exists is asked of ctywire's conversion of an unknown value
/// (go-cty's safe and unsafe conversions are not told apart).
pub(crate) fn mismatch_message(got: &Type, want: &Type) -> String {
    let converts = |g: &Type, w: &Type| Value::unknown(g.clone()).convert(w).is_ok();
    match (got, want) {
        (Type::Object(g), Type::Object(w)) => {
            let mut missing: Vec<&str> = Vec::new();
            let mut mismatch: Option<String> = None;
            for (i, (name, wt)) in w.attributes().enumerate() {
                match got.attribute_type(name) {
                    None if !w.is_optional(i) => missing.push(name),
                    None => {}
                    Some(gt) if gt == wt => {}
                    Some(gt) if mismatch.is_none() && !converts(gt, wt) => {
                        mismatch = Some(format!(
                            "attribute {}: {}",
                            go_quote(name),
                            mismatch_message(gt, wt)
                        ));
                    }
                    Some(_) => {}
                }
            }
            let _ = g;
            match missing.as_slice() {
                [] => mismatch.unwrap_or_else(|| "incorrect object attributes".into()),
                [one] => format!("attribute {} is required", go_quote(one)),
                [a, b] => format!(
                    "attributes {} and {} are required",
                    go_quote(a),
                    go_quote(b)
                ),
                [init @ .., last] => format!(
                    "attributes {}and {} are required",
                    init.iter()
                        .map(|n| format!("{}, ", go_quote(n)))
                        .collect::<String>(),
                    go_quote(last)
                ),
            }
        }
        (Type::Tuple(_), Type::List(e)) if **e == Type::Dynamic => {
            "all list elements must have the same type".into()
        }
        (Type::Tuple(_), Type::Set(e)) if **e == Type::Dynamic => {
            "all set elements must have the same type".into()
        }
        (Type::Object(_), Type::Map(e)) if **e == Type::Dynamic => {
            "all map elements must have the same type".into()
        }
        (Type::Tuple(ts), Type::List(e) | Type::Set(e)) => ts
            .iter()
            .enumerate()
            .find(|(_, t)| *t != &**e && !converts(t, e))
            .map(|(i, t)| format!("element {i}: {}", mismatch_message(t, e)))
            .unwrap_or_else(|| format!("all elements must be {}", friendly_constraint(e))),
        (Type::Object(o), Type::Map(e)) => o
            .attributes()
            .find(|(_, t)| *t != &**e && !converts(t, e))
            .map(|(n, t)| format!("element {}: {}", go_quote(n), mismatch_message(t, e)))
            .unwrap_or_else(|| format!("all elements must be {}", friendly_constraint(e))),
        (Type::List(g) | Type::Set(g), Type::List(w) | Type::Set(w))
        | (Type::Map(g), Type::Map(w)) => {
            let noun = match want {
                Type::List(_) => "list element type",
                Type::Set(_) => "set element type",
                _ => "map element type",
            };
            format!("incorrect {noun}: {}", mismatch_message(g, w))
        }
        _ => format!("{} required", friendly_constraint(want)),
    }
}

/// Where a walk through a value is, kept as borrowed steps so walking a
/// large value allocates nothing until a path is reported. Inside a set
/// the reported path stops at the set: the protocol has no step for a set
/// element.
#[derive(Debug, Default)]
pub struct Trail<'a> {
    steps: Vec<Step<'a>>,
    /// How many steps lead to the outermost set the walk is inside.
    set_at: Option<usize>,
}

impl<'a> Trail<'a> {
    /// Steps into `step`.
    pub fn push(&mut self, step: Step<'a>) {
        self.steps.push(step);
    }

    /// Steps back out of the last step.
    pub fn pop(&mut self) {
        self.steps.pop();
    }

    /// Enters the elements of a set at the current step; hand the answer
    /// back to [`leave_set`](Self::leave_set).
    pub fn enter_set(&mut self) -> Option<usize> {
        let before = self.set_at;
        self.set_at.get_or_insert(self.steps.len());
        before
    }

    /// Leaves the set [`enter_set`](Self::enter_set) entered.
    pub fn leave_set(&mut self, before: Option<usize>) {
        self.set_at = before;
    }

    /// The path to report: the steps, cut at the outermost set.
    pub fn path(&self) -> Path {
        to_path(&self.steps[..self.set_at.unwrap_or(self.steps.len())])
    }

    /// The reported path as text for a message (`rule[0].port`).
    pub fn shown(&self) -> String {
        shown(&self.steps[..self.set_at.unwrap_or(self.steps.len())])
    }

    /// The steps inside the outermost set element, as text (`port`);
    /// empty outside sets and at the element itself.
    pub fn shown_in_set(&self) -> String {
        self.set_at
            .map(|at| shown(&self.steps[at..]))
            .unwrap_or_default()
    }
}

fn to_path(steps: &[Step<'_>]) -> Path {
    let mut path = Path::root();
    for s in steps {
        path = match *s {
            Step::Attr(n) => path.attr(n),
            Step::Index(i) => path.index(i as u64),
            Step::Key(k) => path.key(k),
        };
    }
    path
}

/// Steps as Terraform writes a reference: `rule[0].port`, `tags["a"]`.
fn shown(steps: &[Step<'_>]) -> String {
    let text = to_path(steps).to_string();
    match text.strip_prefix('.') {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_go_prints_big_floats() {
        let cases = [
            (Number::from(0), "0"),
            (Number::from(80), "80"),
            (Number::from(-3), "-3"),
            (Number::from(999_999), "999999"),
            (Number::from(1_000_000), "1e+06"),
            (Number::from(1_234_567), "1.234567e+06"),
            (Number::from_f64(1.5).unwrap(), "1.5"),
            (Number::from_f64(0.000015).unwrap(), "1.5e-05"),
            (Number::from_f64(0.0001).unwrap(), "0.0001"),
        ];
        for (n, want) in cases {
            assert_eq!(go_g_shortest(&n), want, "{n}");
        }
    }

    #[test]
    fn values_render_as_gocty_gostring() {
        let obj = Value::object([
            ("a", Value::string("x\"y")),
            ("b", Value::number(1)),
            ("c", Value::null(Type::list(Type::String))),
        ]);
        assert_eq!(
            go_string(&obj),
            r#"cty.ObjectVal(map[string]cty.Value{"a":cty.StringVal("x\"y"), "b":cty.NumberIntVal(1), "c":cty.NullVal(cty.List(cty.String))})"#
        );
        let set = Value::set(Type::Number, vec![Value::number(2), Value::number(1)]).unwrap();
        assert_eq!(
            go_string(&set),
            "cty.SetVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)})"
        );
        assert_eq!(
            go_string(&Value::list(Type::Bool, vec![]).unwrap()),
            "cty.ListValEmpty(cty.Bool)"
        );
        let refined = Value::unknown(Type::String)
            .refined(Refinements {
                not_null: true,
                ..Default::default()
            })
            .unwrap();
        assert_eq!(
            go_string(&refined),
            "cty.UnknownVal(cty.String).RefineNotNull()"
        );
        let prefixed = Value::unknown(Type::String)
            .refined(Refinements {
                not_null: true,
                string_prefix: Some("ab".into()),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(
            go_string(&prefixed),
            r#"cty.UnknownVal(cty.String).Refine().NotNull().StringPrefixFull("ab").NewValue()"#
        );
        assert_eq!(go_string(&Value::unknown(Type::Dynamic)), "cty.DynamicVal");
        assert_eq!(
            go_number(&"0.1".parse().unwrap()),
            r#"cty.MustParseNumberVal("0.1")"#
        );
        assert_eq!(
            go_number(&"0.5".parse().unwrap()),
            "cty.NumberFloatVal(0.5)"
        );
    }

    #[test]
    fn unrefined_equality_ignores_refinements_but_not_types() {
        let refined = Value::unknown(Type::String)
            .refined(Refinements {
                not_null: true,
                ..Default::default()
            })
            .unwrap();
        assert!(raw_eq_unrefined(&refined, &Value::unknown(Type::String)));
        assert!(!raw_eq_unrefined(
            &Value::unknown(Type::Number),
            &Value::unknown(Type::String)
        ));
        assert!(!raw_eq_unrefined(
            &Value::null(Type::Number),
            &Value::number(1)
        ));
        let h = |v: &Value| {
            let mut h = FastHasher::default();
            hash_unrefined(v, &mut h);
            h.finish()
        };
        assert_eq!(h(&refined), h(&Value::unknown(Type::String)));
        assert_eq!(
            h(&Value::number(0)),
            h(&Value::number(Number::from_f64(-0.0).unwrap()))
        );
    }

    #[test]
    fn type_mismatches_are_worded_as_gocty_words_them() {
        assert_eq!(
            mismatch_message(&Type::Number, &Type::Bool),
            "bool required"
        );
        let want = Type::object([("a", Type::String), ("b", Type::String)]);
        let got = Type::object([("c", Type::String)]);
        assert_eq!(
            mismatch_message(&got, &want),
            r#"attributes "a" and "b" are required"#
        );
        assert_eq!(
            mismatch_message(
                &Type::list(Type::Bool),
                &Type::list(Type::list(Type::String))
            ),
            "incorrect list element type: list of string required"
        );
    }
}
