//! core's `objchange.AssertObjectCompatible` (compatible.go, Terraform
//! 1.11): is `actual` a valid completion of the possibly partly unknown
//! `planned`? Known planned values must stay as they are; unknowns may
//! become anything their refinements allow; blocks keep their count.
//!
//! Sets are compared by correlation: every planned element must be
//! compatible with some actual element and the other way round. Core tries
//! every pair; here the candidates are narrowed first by what a planned
//! element pins down (see [`correlate`]), with the same answer.

use std::collections::HashMap;
use std::hash::Hasher;

use ctywire::schema::{Block, NestingMode};
use ctywire::{Path, PathStep, Type, Value};

use super::range::range_includes;
use super::value_ops::{
    apply_step, children, go_quote, go_string, hash_unrefined, mismatch_message, FastHasher, Step,
    MAX_DEPTH,
};
use super::Problem;

/// core's `AssertObjectCompatible(schema, planned, actual)`.
pub fn assert_object_compatible(schema: &Block, planned: &Value, actual: &Value) -> Vec<Problem> {
    // A wholly known plan that came out exactly is compatible by
    // definition (every rule compares planned known values with the
    // actual ones): one comparison instead of correlating every set
    // element. `by_rules` is the plain path it is tested against.
    if planned.is_wholly_known() && planned == actual {
        return Vec::new();
    }
    by_rules(schema, planned, actual)
}

/// [`assert_object_compatible`] rule by rule, with no shortcut.
fn by_rules(schema: &Block, planned: &Value, actual: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    object_compatible(schema, planned, actual, &mut Path::root(), &mut out, 0);
    out
}

/// Attribute `name` of `v` as cty's `GetAttr` gives it (an unknown for an
/// unknown object; a null where there is none).
fn get(v: &Value, name: &str) -> Value {
    if let Some(a) = v.attr(name) {
        return a.clone();
    }
    let ty = v
        .ty()
        .attribute_type(name)
        .cloned()
        .unwrap_or(Type::Dynamic);
    if v.is_known() {
        Value::null(ty)
    } else {
        Value::unknown(ty)
    }
}

/// core's `assertObjectCompatible`.
fn object_compatible(
    schema: &Block,
    planned: &Value,
    actual: &Value,
    path: &mut Path,
    out: &mut Vec<Problem>,
    depth: usize,
) {
    let at_root = if path.is_root() { "Root object " } else { "" };
    if planned.is_null() && !actual.is_null() {
        out.push(Problem::new(
            path,
            format!("{at_root}was absent, but now present"),
        ));
        return;
    }
    if actual.is_null() && !planned.is_null() {
        out.push(Problem::new(
            path,
            format!("{at_root}was present, but now absent"),
        ));
        return;
    }
    if planned.is_null() {
        return;
    }
    if depth > MAX_DEPTH {
        out.push(Problem::new(
            path,
            format!("value nests deeper than {MAX_DEPTH} levels"),
        ));
        return;
    }
    let mut attrs: Vec<_> = schema.attributes.iter().collect();
    attrs.sort_by(|a, b| a.name.cmp(&b.name));
    attrs.dedup_by(|a, b| a.name == b.name);
    for a in attrs {
        path.push(PathStep::Attr(a.name.clone()));
        let mut found = Vec::new();
        value_compatible(
            &get(planned, &a.name),
            &get(actual, &a.name),
            path,
            &mut found,
            depth + 1,
        );
        if a.sensitive {
            // One vague message, so as not to show the values.
            if !found.is_empty() {
                out.push(
                    Problem::new(path, "inconsistent values for sensitive attribute")
                        .sensitive(true),
                );
            }
        } else {
            out.append(&mut found);
        }
        path.pop();
    }
    let mut blocks: Vec<_> = schema.block_types.iter().collect();
    blocks.sort_by(|a, b| a.type_name.cmp(&b.type_name));
    for nb in blocks {
        path.push(PathStep::Attr(nb.type_name.clone()));
        let planned_v = get(planned, &nb.type_name);
        let actual_v = get(actual, &nb.type_name);
        block_compatible(
            nb.nesting,
            &nb.block,
            &planned_v,
            &actual_v,
            path,
            out,
            depth + 1,
        );
        path.pop();
    }
}

/// The block-type part of core's `assertObjectCompatible`.
fn block_compatible(
    nesting: NestingMode,
    block: &Block,
    planned_v: &Value,
    actual_v: &Value,
    path: &mut Path,
    out: &mut Vec<Problem>,
    depth: usize,
) {
    let unusable = |v: &Value| !v.is_known() || v.is_null();
    match nesting {
        NestingMode::Single | NestingMode::Group => {
            // An unknown placeholder may have expanded to no block at all.
            if !planned_v.is_known() && actual_v.is_null() {
                return;
            }
            object_compatible(block, planned_v, actual_v, path, out, depth);
        }
        NestingMode::List => {
            if unusable(planned_v) || unusable(actual_v) {
                return;
            }
            let (pe, ae) = (
                planned_v.elements().unwrap_or(&[]),
                actual_v.elements().unwrap_or(&[]),
            );
            if pe.len() != ae.len() {
                out.push(Problem::new(
                    path,
                    format!("block count changed from {} to {}", pe.len(), ae.len()),
                ));
                return;
            }
            for (i, (p, a)) in pe.iter().zip(ae).enumerate() {
                path.push(PathStep::Index(i as u64));
                object_compatible(block, p, a, path, out, depth);
                path.pop();
            }
        }
        NestingMode::Map if matches!(planned_v.ty(), Type::Object(_)) => {
            // An object when the block holds dynamic types: keys are
            // attribute steps, read from the types.
            let names = |t: &Type| -> Vec<String> {
                t.as_object()
                    .map(|o| o.attributes().map(|(n, _)| n.to_string()).collect())
                    .unwrap_or_default()
            };
            let (planned_keys, actual_keys) = (names(planned_v.ty()), names(actual_v.ty()));
            for k in &planned_keys {
                if actual_keys.binary_search(k).is_err() {
                    out.push(Problem::new(
                        path,
                        format!("block key {} has vanished", go_quote(k)),
                    ));
                    continue;
                }
                path.push(PathStep::Attr(k.clone()));
                object_compatible(
                    block,
                    &get(planned_v, k),
                    &get(actual_v, k),
                    path,
                    out,
                    depth,
                );
                path.pop();
            }
            // New blocks may appear where the plan had unknown ones.
            if planned_v.is_known() {
                for k in &actual_keys {
                    if planned_keys.binary_search(k).is_err() {
                        out.push(Problem::new(
                            path,
                            format!("new block key {} has appeared", go_quote(k)),
                        ));
                    }
                }
            }
        }
        NestingMode::Map => {
            if unusable(planned_v) || unusable(actual_v) {
                return;
            }
            let (pl, al) = (planned_v.len().unwrap_or(0), actual_v.len().unwrap_or(0));
            if pl != al {
                out.push(Problem::new(
                    path,
                    format!("block count changed from {pl} to {al}"),
                ));
                return;
            }
            for (k, p) in planned_v.entries().into_iter().flatten() {
                let Some(a) = actual_v.entry(k) else {
                    continue;
                };
                path.push(PathStep::Key(k.to_string()));
                object_compatible(block, p, a, path, out, depth);
                path.pop();
            }
        }
        NestingMode::Set => {
            if unusable(planned_v) || unusable(actual_v) {
                return;
            }
            let compatible = |p: &Value, a: &Value| {
                let mut found = Vec::new();
                object_compatible(block, p, a, &mut Path::root(), &mut found, depth);
                found.is_empty()
            };
            set_values_compatible(planned_v, actual_v, Some(block), path, out, compatible);
            let (pl, al) = (planned_v.len().unwrap_or(0), actual_v.len().unwrap_or(0));
            // Elements may merge once known, but never multiply.
            if pl < al {
                out.push(Problem::new(
                    path,
                    format!("block set length changed from {pl} to {al}"),
                ));
            }
        }
        NestingMode::Invalid => {}
    }
}

/// core's `indexStrForErrors`.
fn index_str(step: Step<'_>) -> String {
    match step {
        Step::Index(i) => i.to_string(),
        Step::Key(k) | Step::Attr(k) => go_quote(k),
    }
}

/// core's `assertValueCompatible`.
fn value_compatible(
    planned: &Value,
    actual: &Value,
    path: &mut Path,
    out: &mut Vec<Problem>,
    depth: usize,
) {
    if *planned.ty() == Type::Dynamic {
        return;
    }
    if !actual.ty().conforms_to(planned.ty()) {
        out.push(Problem::new(
            path,
            format!(
                "wrong final value type: {}",
                mismatch_message(actual.ty(), planned.ty())
            ),
        ));
        return;
    }
    if !planned.is_known() {
        // Only the placeholder's type and refinements bind the result.
        if range_includes(planned, actual) == Some(false) {
            out.push(Problem::new(
                path,
                format!(
                    "final value {} does not conform to planning placeholder {}",
                    go_string(actual),
                    go_string(planned)
                ),
            ));
        }
        return;
    }
    if actual.is_null() {
        if !planned.is_null() {
            out.push(Problem::new(
                path,
                format!("was {}, but now null", go_string(planned)),
            ));
        }
        return;
    }
    if planned.is_null() {
        out.push(Problem::new(
            path,
            format!("was null, but now {}", go_string(actual)),
        ));
        return;
    }
    if !actual.is_known() {
        out.push(Problem::new(path, "was known, but now unknown"));
        return;
    }
    if depth > MAX_DEPTH {
        out.push(Problem::new(
            path,
            format!("value nests deeper than {MAX_DEPTH} levels"),
        ));
        return;
    }
    match planned.ty() {
        Type::String | Type::Number | Type::Bool => {
            if planned != actual {
                out.push(Problem::new(
                    path,
                    format!("was {}, but now {}", go_string(planned), go_string(actual)),
                ));
            }
        }
        Type::List(_) | Type::Map(_) | Type::Tuple(_) => {
            for (step, p) in children(planned) {
                let Some(a) = apply_step(actual, step) else {
                    out.push(Problem::new(
                        path,
                        format!("element {} has vanished", index_str(step)),
                    ));
                    continue;
                };
                path.push(path_step(step));
                value_compatible(p, &a, path, out, depth + 1);
                path.pop();
            }
            for (step, _) in children(actual) {
                if apply_step(planned, step).is_none() {
                    out.push(Problem::new(
                        path,
                        format!("new element {} has appeared", index_str(step)),
                    ));
                }
            }
        }
        Type::Object(_) => {
            for (step, p) in children(planned) {
                let a = match step {
                    Step::Attr(n) => get(actual, n),
                    _ => continue,
                };
                path.push(path_step(step));
                value_compatible(p, &a, path, out, depth + 1);
                path.pop();
            }
        }
        Type::Set(_) => {
            let compatible = |p: &Value, a: &Value| {
                let mut found = Vec::new();
                value_compatible(p, a, &mut Path::root(), &mut found, depth + 1);
                found.is_empty()
            };
            set_values_compatible(planned, actual, None, path, out, compatible);
            let (pl, al) = (planned.len().unwrap_or(0), actual.len().unwrap_or(0));
            if pl < al {
                out.push(Problem::new(
                    path,
                    format!("length changed from {pl} to {al}"),
                ));
            }
        }
        Type::Dynamic => {}
    }
}

fn path_step(step: Step<'_>) -> PathStep {
    match step {
        Step::Attr(n) => PathStep::Attr(n.to_string()),
        Step::Index(i) => PathStep::Index(i as u64),
        Step::Key(k) => PathStep::Key(k.to_string()),
    }
}

/// core's `assertSetValuesCompatible`: every planned element must
/// correlate with some actual element (checked first; if any does not,
/// only those are reported), then every actual element with some planned
/// one.
fn set_values_compatible(
    planned: &Value,
    actual: &Value,
    block: Option<&Block>,
    path: &Path,
    out: &mut Vec<Problem>,
    compatible: impl Fn(&Value, &Value) -> bool,
) {
    let (ps, acts) = (
        planned.elements().unwrap_or(&[]),
        actual.elements().unwrap_or(&[]),
    );
    let (peq, aeq) = correlate(ps, acts, block, compatible);
    let before = out.len();
    for (p, ok) in ps.iter().zip(&peq) {
        if !ok {
            out.push(Problem::new(
                path,
                format!(
                    "planned set element {} does not correlate with any element in actual",
                    go_string(p)
                ),
            ));
        }
    }
    if out.len() > before {
        return;
    }
    for (a, ok) in acts.iter().zip(&aeq) {
        if !ok {
            out.push(Problem::new(
                path,
                format!(
                    "actual set element {} does not correlate with any element in plan",
                    go_string(a)
                ),
            ));
        }
    }
}

/// The plain correlation, as core computes it: every pair.
#[cfg(test)]
pub(crate) fn correlate_plainly(
    planned: &[Value],
    actual: &[Value],
    compatible: impl Fn(&Value, &Value) -> bool,
) -> (Vec<bool>, Vec<bool>) {
    let mut peq = vec![false; planned.len()];
    let mut aeq = vec![false; actual.len()];
    for (i, p) in planned.iter().enumerate() {
        for (j, a) in actual.iter().enumerate() {
            if compatible(p, a) {
                peq[i] = true;
                aeq[j] = true;
            }
        }
    }
    (peq, aeq)
}

/// What a planned value pins down about a compatible actual value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Pin {
    /// Nothing (an unknown, a dynamic null, a set, a nested block: left
    /// to the full test).
    Free,
    /// Equality: a known primitive, or a null.
    Equal,
    /// The same children (object attributes, list indexes, map keys).
    Node(Vec<(PinStep, Pin)>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum PinStep {
    Attr(String),
    Index(usize),
    Key(String),
}

fn pin_step(step: Step<'_>) -> PinStep {
    match step {
        Step::Attr(n) => PinStep::Attr(n.to_string()),
        Step::Index(i) => PinStep::Index(i),
        Step::Key(k) => PinStep::Key(k.to_string()),
    }
}

/// The pin of a planned value under `assertValueCompatible`: a
/// compatible actual value equals its known primitives and nulls, and has
/// exactly its attributes, indexes and keys.
fn pin_of(p: &Value, h: &mut FastHasher, depth: usize) -> Pin {
    if depth > MAX_DEPTH
        || *p.ty() == Type::Dynamic
        || !p.is_known()
        || matches!(p.ty(), Type::Set(_))
    {
        return Pin::Free;
    }
    if p.is_null() || p.ty().is_primitive() {
        hash_unrefined(p, h);
        return Pin::Equal;
    }
    Pin::Node(
        children(p)
            .into_iter()
            .map(|(step, c)| (pin_step(step), pin_of(c, h, depth + 1)))
            .collect(),
    )
}

/// The pin of a planned block object under `assertObjectCompatible`: its
/// attributes pin as values do; nested blocks pin nothing (core skips a
/// block collection that is null or unknown on either side).
fn pin_of_block(block: &Block, p: &Value, h: &mut FastHasher) -> Pin {
    if p.is_null() {
        hash_unrefined(p, h);
        return Pin::Equal;
    }
    if !p.is_known() {
        return Pin::Free;
    }
    Pin::Node(
        children(p)
            .into_iter()
            .map(|(step, c)| {
                let pin = match step {
                    Step::Attr(n) if block.find_attribute(n).is_some() => pin_of(c, h, 1),
                    _ => Pin::Free,
                };
                (pin_step(step), pin)
            })
            .collect(),
    )
}

/// Reads `a` at a pin's places; `None` when no value with this pin can
/// be compatible with `a` (null where the pin has children, or other
/// children: core reports vanished and new elements, or a changed type).
fn read_pin(pin: &Pin, a: &Value, h: &mut FastHasher) -> Option<()> {
    match pin {
        Pin::Free => Some(()),
        Pin::Equal => {
            hash_unrefined(a, h);
            Some(())
        }
        Pin::Node(nodes) => {
            if a.is_null() || (a.is_known() && a.len() != Some(nodes.len())) {
                return None;
            }
            for (s, sub) in nodes {
                let step = match s {
                    PinStep::Attr(n) => Step::Attr(n),
                    PinStep::Index(i) => Step::Index(*i),
                    PinStep::Key(k) => Step::Key(k),
                };
                let child = apply_step(a, step)?;
                read_pin(sub, &child, h)?;
            }
            Some(())
        }
    }
}

/// For each planned element, whether some actual element is compatible
/// with it, and the same for each actual element: core's all-pairs
/// correlation, found through buckets. A planned value pins its known
/// leaves and nulls (a compatible value must equal them there) and its
/// structure; planned elements are grouped by pin, and actual elements
/// bucketed by what they hold at each group's pinned places. Only pairs in
/// the same bucket can be compatible, and each is confirmed with the full
/// test; a partner found ends the search for that element. `block`: the
/// elements are objects of this block (a set block), else plain values.
pub(crate) fn correlate(
    planned: &[Value],
    actual: &[Value],
    block: Option<&Block>,
    compatible: impl Fn(&Value, &Value) -> bool,
) -> (Vec<bool>, Vec<bool>) {
    let mut peq = vec![false; planned.len()];
    let mut aeq = vec![false; actual.len()];
    let mut group_of: HashMap<Pin, usize> = HashMap::new();
    let mut groups: Vec<(Pin, HashMap<u64, Vec<usize>>)> = Vec::new();
    for (i, p) in planned.iter().enumerate() {
        let mut h = FastHasher::default();
        let pin = match block {
            Some(b) => pin_of_block(b, p, &mut h),
            None => pin_of(p, &mut h, 0),
        };
        let g = *group_of.entry(pin.clone()).or_insert_with(|| {
            groups.push((pin, HashMap::new()));
            groups.len() - 1
        });
        groups[g].1.entry(h.finish()).or_default().push(i);
    }
    for (pin, buckets) in &groups {
        let mut by_key: HashMap<u64, Vec<usize>> = HashMap::new();
        for (j, a) in actual.iter().enumerate() {
            let mut h = FastHasher::default();
            if read_pin(pin, a, &mut h).is_some() {
                by_key.entry(h.finish()).or_default().push(j);
            }
        }
        for (key, members) in buckets {
            let Some(candidates) = by_key.get(key) else {
                continue;
            };
            for &i in members {
                if let Some(&j) = candidates
                    .iter()
                    .find(|&&j| compatible(&planned[i], &actual[j]))
                {
                    peq[i] = true;
                    aeq[j] = true;
                }
            }
            for &j in candidates {
                if !aeq[j] && members.iter().any(|&i| compatible(&planned[i], &actual[j])) {
                    aeq[j] = true;
                }
            }
        }
    }
    (peq, aeq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctywire::schema::{Attribute, NestedBlock};

    /// The shortcut (a known plan that came out exactly) agrees with the
    /// plain path: core's rules find nothing either.
    #[test]
    fn an_exact_known_result_is_what_cores_rules_accept() {
        let item = Block::new()
            .attribute(Attribute::new("key", Type::String).required())
            .attribute(Attribute::new("id", Type::String).computed());
        let schema = Block::new()
            .attribute(Attribute::new("name", Type::String).required())
            .attribute(Attribute::new("tags", Type::map(Type::String)).optional())
            .block(NestedBlock::new("item", NestingMode::Set, item));
        let item_ty = Type::object([("key", Type::String), ("id", Type::String)]);
        for n in [0, 1, 50] {
            let items = (0..n)
                .map(|i| {
                    Value::object([
                        ("key", Value::string(format!("k{i}"))),
                        ("id", Value::string(format!("id{i}"))),
                    ])
                })
                .collect();
            let v = Value::object([
                ("name", Value::string("a")),
                (
                    "tags",
                    Value::map(Type::String, [("env", Value::string("x"))]).unwrap(),
                ),
                ("item", Value::set(item_ty.clone(), items).unwrap()),
            ]);
            assert!(by_rules(&schema, &v, &v).is_empty());
            assert!(assert_object_compatible(&schema, &v, &v).is_empty());
        }
    }
}
