//! For generated schemas (computed children of list and set blocks that
//! keep their state or not, defaults or not) and configurations: a plan,
//! an apply that fills its unknowns, and a second plan with the same
//! configuration plans exactly the applied state; and so does a plan
//! after an update and its apply. Every plan passes core's
//! `AssertPlanValid`, and the applied state core's
//! `AssertObjectCompatible` with its plan. A changed object's
//! computed-only attributes are unknown, or kept with `keep_state`.
//! Conditional replacement (`keepers` replacing only when a non-null
//! value changes, a rule's `note` with "" and null alike) and a default
//! from another attribute (`numeric` from `size`) hold the same.

use proptest::prelude::*;

use super::*;
use std::collections::BTreeMap;

use crate::schema::{Combination, ReplaceIf};
use crate::validate::validate;

#[derive(Clone, Debug)]
struct Shape {
    keep_id: bool,
    size_default: bool,
    keep_rid: bool,
    mode_default: bool,
    keep_hash: bool,
    level_default: bool,
    replace_port: bool,
    /// The rule block's config validator: exactly one of `note` and
    /// `mode` (which planning must ignore, and whose verdict an unknown
    /// may only defer).
    one_of_note_mode: bool,
    /// `name` and the tag's `key` compare without regard to case
    /// (semantic equality): a configuration in another case plans the
    /// prior value, and a tag by meaning continues its prior element.
    case_insensitive: bool,
    /// A rule's `note` requires replacement, "" and null alike.
    replace_note: bool,
    /// `keepers` requires replacement when a non-null value changes.
    replace_keepers: bool,
    /// `numeric` defaults to `size`'s configured value (or its default).
    numeric_from_size: bool,
}

fn shapes() -> impl Strategy<Value = Shape> {
    (any::<[bool; 12]>()).prop_map(|b| Shape {
        keep_id: b[0],
        size_default: b[1],
        keep_rid: b[2],
        mode_default: b[3],
        keep_hash: b[4],
        level_default: b[5],
        replace_port: b[6],
        one_of_note_mode: b[7],
        case_insensitive: b[8],
        replace_note: b[9],
        replace_keepers: b[10],
        numeric_from_size: b[11],
    })
}

fn schema(shape: &Shape) -> Block {
    let mut id = attr("id", Type::String, Presence::Computed);
    id.plan.keep_state = shape.keep_id;
    let mut size = attr("size", Type::Number, Presence::OptionalComputed);
    if shape.size_default {
        size.plan.default = Some(n(7));
    }
    let mut port = attr("port", Type::Number, Presence::Required);
    port.plan.requires_replace = shape.replace_port;
    let mut rid = attr("rid", Type::String, Presence::Computed);
    rid.plan.keep_state = shape.keep_rid;
    let mut mode = attr("mode", Type::String, Presence::OptionalComputed);
    if shape.mode_default {
        mode.plan.default = Some(s("auto"));
    }
    let mut hash = attr("hash", Type::String, Presence::Computed);
    hash.plan.keep_state = shape.keep_hash;
    let mut level = attr("level", Type::Number, Presence::OptionalComputed);
    if shape.level_default {
        level.plan.default = Some(n(1));
    }
    let mut name = attr("name", Type::String, Presence::Required);
    let mut key = attr("key", Type::String, Presence::Required);
    if shape.case_insensitive {
        name.plan.semantic_equality = Some(case_insensitive());
        key.plan.semantic_equality = Some(case_insensitive());
    }
    let mut same = attr("same", Type::String, Presence::Computed);
    same.plan.same_as = Some("name".into());
    let mut note = attr("note", Type::String, Presence::Optional);
    if shape.replace_note {
        note.plan.requires_replace = true;
        note.plan.replace_if = Some(ReplaceIf::EmptyAsNull);
    }
    let mut keepers = attr("keepers", Type::map(Type::String), Presence::Optional);
    if shape.replace_keepers {
        keepers.plan.requires_replace = true;
        keepers.plan.replace_if = Some(ReplaceIf::ValuesNotNull);
    }
    let mut numeric = attr("numeric", Type::Number, Presence::OptionalComputed);
    if shape.numeric_from_size {
        numeric.plan.default_from = Some("size".into());
    }
    let mut rule = block(vec![port, note, rid, mode], vec![]);
    if shape.one_of_note_mode {
        rule.combinations = vec![Combination::ExactlyOneOf(vec![
            "note".into(),
            "mode".into(),
        ])];
    }
    block(
        vec![id, name, size, same, keepers, numeric],
        vec![
            nested_block("rule", NestingMode::List, rule),
            nested_block(
                "tag",
                NestingMode::Set,
                block(vec![key, hash, level], vec![]),
            ),
        ],
    )
}

/// Strings compared without regard to case.
fn case_insensitive() -> crate::schema::SemanticEquality {
    crate::schema::SemanticEquality::new(|v| v.as_str().map(|s| Value::string(s.to_lowercase())))
}

#[derive(Clone, Debug)]
struct Config {
    name: u8,
    /// `name` and the tags' keys in capitals.
    upper: bool,
    size: Option<u8>,
    keepers: Option<BTreeMap<u8, Option<u8>>>,
    numeric: Option<u8>,
    rules: Vec<(u8, Option<u8>, Option<u8>)>,
    tags: Vec<(u8, Option<u8>)>,
}

fn configs() -> impl Strategy<Value = Config> {
    (
        0u8..3,
        any::<bool>(),
        proptest::option::of(0u8..3),
        proptest::collection::vec(
            (
                0u8..4,
                proptest::option::of(0u8..2),
                proptest::option::of(0u8..2),
            ),
            0..5,
        ),
        proptest::collection::btree_map(0u8..8, proptest::option::of(0u8..3), 0..6),
        proptest::option::of(proptest::collection::btree_map(
            0u8..3,
            proptest::option::of(0u8..2),
            0..3,
        )),
        proptest::option::of(0u8..3),
    )
        .prop_map(
            |(name, upper, size, rules, tags, keepers, numeric)| Config {
                name,
                upper,
                size,
                keepers,
                numeric,
                rules,
                tags: tags.into_iter().collect(),
            },
        )
}

fn opt_s(v: Option<u8>) -> Value {
    v.map_or_else(null_s, |x| s(&format!("v{x}")))
}

/// A rule's note: `Some(0)` is "", which `replace_note` takes as null.
fn note_s(v: Option<u8>) -> Value {
    match v {
        Some(0) => s(""),
        v => opt_s(v),
    }
}

fn opt_n(v: Option<u8>) -> Value {
    v.map_or_else(null_n, |x| n(i64::from(x)))
}

fn rule_el(port: Value, note: Value, rid: Value, mode: Value) -> Value {
    obj(vec![
        ("port", port),
        ("note", note),
        ("rid", rid),
        ("mode", mode),
    ])
}

fn tag_el(key: Value, hash: Value, level: Value) -> Value {
    obj(vec![("key", key), ("hash", hash), ("level", level)])
}

fn cased(c: &Config, x: &str) -> String {
    if c.upper {
        x.to_uppercase()
    } else {
        x.to_string()
    }
}

fn config_value(c: &Config) -> Value {
    let rule_ty = rule_el(null_n(), null_s(), null_s(), null_s()).ty().clone();
    let tag_ty = tag_el(null_s(), null_s(), null_n()).ty().clone();
    obj(vec![
        ("id", null_s()),
        ("name", s(&cased(c, &format!("n{}", c.name)))),
        ("size", opt_n(c.size)),
        ("same", null_s()),
        (
            "keepers",
            match &c.keepers {
                None => Value::null(Type::map(Type::String)),
                Some(ks) => Value::map(
                    Type::String,
                    ks.iter().map(|(k, v)| (format!("k{k}"), opt_s(*v))),
                )
                .unwrap_or_else(|_| Value::null(Type::map(Type::String))),
            },
        ),
        ("numeric", opt_n(c.numeric)),
        (
            "rule",
            list(
                rule_ty,
                c.rules
                    .iter()
                    .map(|(port, note, mode)| {
                        rule_el(n(i64::from(*port)), note_s(*note), null_s(), opt_s(*mode))
                    })
                    .collect(),
            ),
        ),
        (
            "tag",
            set(
                tag_ty,
                c.tags
                    .iter()
                    .map(|(key, level)| {
                        tag_el(s(&cased(c, &format!("k{key}"))), null_s(), opt_n(*level))
                    })
                    .collect(),
            ),
        ),
    ])
}

/// `c` with every rule's `note` unknown, set or not, as a reference to
/// another resource's attribute not yet applied would make it.
fn notes_unknown(c: &Value) -> Value {
    let mut out = c.clone();
    let rules: Vec<Value> = c
        .attr("rule")
        .and_then(Value::elements)
        .unwrap_or(&[])
        .iter()
        .map(|r| {
            r.with_attr("note", Value::unknown(Type::String))
                .unwrap_or_else(|_| r.clone())
        })
        .collect();
    if !rules.is_empty() {
        let _ = out.set_attr("rule", list(Type::Dynamic, rules));
    }
    out
}

/// Each error of `validate` as (summary, path).
fn refusals(b: &Block, c: &Value) -> Vec<(String, Option<Path>)> {
    validate(b, c)
        .iter()
        .filter(|d| d.is_error())
        .map(|d| (d.summary.clone(), d.attribute.clone()))
        .collect()
}

/// The `keepers` entries whose values are not null.
fn non_null_entries(v: &Value) -> Vec<(String, Value)> {
    let keepers = v.attr("keepers").and_then(Value::entries);
    (keepers.into_iter().flatten())
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// What a provider's apply does with a plan: every unknown becomes a
/// value (fresh each time, so kept state is told from new state).
fn apply(v: &Value, counter: &mut i64) -> Value {
    if !v.is_known() {
        *counter += 1;
        return match v.ty() {
            Type::String => s(&format!("applied-{counter}")),
            Type::Number => n(*counter),
            Type::Bool => Value::bool(true),
            other => Value::null(other.clone()),
        };
    }
    match v.ty() {
        Type::Object(_) => {
            let attrs: Vec<(String, Value)> = v
                .attributes()
                .into_iter()
                .flatten()
                .map(|(k, e)| (k.to_string(), apply(e, counter)))
                .collect();
            Value::object(attrs)
        }
        Type::List(_) if !v.is_empty() => {
            let es = v
                .elements()
                .unwrap_or(&[])
                .iter()
                .map(|e| apply(e, counter))
                .collect();
            list(Type::Dynamic, es)
        }
        Type::Set(_) if !v.is_empty() => {
            let es = v
                .elements()
                .unwrap_or(&[])
                .iter()
                .map(|e| apply(e, counter))
                .collect();
            set(Type::Dynamic, es)
        }
        _ => v.clone(),
    }
}

/// Plans with core's proposal, and fails unless core accepts the plan.
fn plan_or_fail(b: &Block, prior: &Value, c: &Value) -> Result<Planned, TestCaseError> {
    let schema = b.to_schema_block();
    let proposed = objchange::proposed_new(&schema, prior, c);
    let planned = plan(b, prior, c, &proposed)
        .map_err(|d| TestCaseError::fail(format!("plan failed: {d}")))?;
    let problems = objchange::assert_plan_valid(&schema, prior, c, &planned.planned_state);
    prop_assert!(problems.is_empty(), "core rejects the plan: {:?}", problems);
    Ok(planned)
}

/// The rule for a changed object's computed-only attributes: without
/// `keep_state` (nor `same_as` or a default) each is planned unknown;
/// with it, each is unknown or the value of a prior object it may
/// continue, and is exactly the prior value where the planned element is
/// the prior one (the object itself; a list element at the same index, a
/// set element with the same planned attributes).
fn changed_computed_follow_their_rule(
    shape: &Shape,
    prior: &Value,
    planned: &Value,
) -> Result<(), TestCaseError> {
    let attr = |v: &Value, name: &str| v.attr(name).cloned().unwrap_or_else(null_s);
    let elements = |v: &Value, name: &str| -> Vec<Value> {
        v.attr(name)
            .and_then(Value::elements)
            .map(<[Value]>::to_vec)
            .unwrap_or_default()
    };
    // `same`: the prior value when the planned element is the prior one;
    // `candidates`: the values of prior elements it may continue.
    let check = |keep: bool, what: &str, same: Option<Value>, candidates: &[Value], v: Value| {
        if !keep {
            prop_assert!(
                !v.is_known(),
                "{} is computed without keep_state: unknown, not {:?}",
                what,
                v
            );
        } else if let Some(p) = same {
            prop_assert_eq!(v, p, "{} is kept", what);
        } else if v.is_known() {
            prop_assert!(
                candidates.contains(&v),
                "{} = {:?} is no prior value",
                what,
                v
            );
        }
        Ok(())
    };
    let id = attr(prior, "id");
    check(
        shape.keep_id,
        "id",
        Some(id.clone()),
        &[id],
        attr(planned, "id"),
    )?;

    let prior_rules = elements(prior, "rule");
    let rids: Vec<Value> = prior_rules.iter().map(|p| attr(p, "rid")).collect();
    let configured = |r: &Value| (attr(r, "port"), attr(r, "note"), attr(r, "mode"));
    for (i, r) in elements(planned, "rule").iter().enumerate() {
        let same = (prior_rules.get(i))
            .filter(|p| configured(p) == configured(r))
            .map(|p| attr(p, "rid"));
        let what = format!("rule[{i}].rid");
        check(shape.keep_rid, &what, same, &rids, attr(r, "rid"))?;
    }

    let prior_tags = elements(prior, "tag");
    for t in elements(planned, "tag") {
        let key = attr(&t, "key");
        let same_key: Vec<&Value> = prior_tags
            .iter()
            .filter(|p| attr(p, "key") == key)
            .collect();
        let same = (same_key.iter())
            .find(|p| attr(p, "level") == attr(&t, "level"))
            .map(|p| attr(p, "hash"));
        let hashes: Vec<Value> = same_key.iter().map(|p| attr(p, "hash")).collect();
        let what = format!("tag {key:?}'s hash");
        check(shape.keep_hash, &what, same, &hashes, attr(&t, "hash"))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_second_plan_after_apply_is_empty(shape in shapes(), first in configs(), second in configs()) {
        let b = schema(&shape);
        let mut counter = 0;
        let c1 = config_value(&first);
        // Config validators: an unknown only defers their verdict, so
        // every refusal with unknowns is one the known values earn too;
        // and planning goes on whatever they say (Terraform validates
        // first; the plan must hold either way).
        let known = refusals(&b, &c1);
        for refusal in refusals(&b, &notes_unknown(&c1)) {
            prop_assert!(known.contains(&refusal), "{:?} only with unknowns; known: {:?}", refusal, known);
        }
        let created = plan_or_fail(&b, &Value::null(c1.ty().clone()), &c1)?;
        prop_assert!(created.requires_replace.is_empty());
        let state = apply(&created.planned_state, &mut counter);
        let schema = b.to_schema_block();
        let problems = objchange::assert_object_compatible(&schema, &created.planned_state, &state);
        prop_assert!(problems.is_empty(), "{:?}", problems);
        prop_assert!(state.is_wholly_known());
        let again = plan_or_fail(&b, &state, &c1)?;
        prop_assert_eq!(&again.planned_state, &state);
        prop_assert!(again.requires_replace.is_empty());

        // An update, its apply, and again nothing left to plan.
        let c2 = config_value(&second);
        let updated = plan_or_fail(&b, &state, &c2)?;
        if !(shape.size_default || shape.mode_default || shape.level_default || shape.numeric_from_size) {
            // Without defaults the engine's own "nothing changes" is core's
            // proposal equalling the prior state; with semantic equality,
            // its proposal for a configuration in the prior's case.
            let c2_as_prior = if shape.case_insensitive && second.upper != first.upper {
                config_value(&Config { upper: first.upper, ..second.clone() })
            } else {
                c2.clone()
            };
            let proposed = objchange::proposed_new(&schema, &state, &c2_as_prior);
            prop_assert_eq!(updated.planned_state == state, proposed == state);
        }
        if shape.case_insensitive {
            // A name meaning the prior one plans the prior one, and is no
            // change to replace for.
            let lower = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_lowercase);
            let (was, now) = (state.attr("name"), updated.planned_state.attr("name"));
            if lower(was) == lower(c2.attr("name")) {
                prop_assert_eq!(now, was);
            }
        }
        if updated.planned_state != state && updated.requires_replace.is_empty() {
            changed_computed_follow_their_rule(&shape, &state, &updated.planned_state)?;
        }
        if shape.replace_keepers {
            // Replaced exactly when the keys with non-null values differ.
            let replaced = updated.requires_replace.contains(&Path::root().attr("keepers"));
            prop_assert_eq!(
                replaced,
                non_null_entries(&state) != non_null_entries(&updated.planned_state)
            );
        }
        if shape.replace_note {
            // "" and null alike: going from one to the other never replaces.
            let notes = |v: &Value| -> Vec<Value> {
                (v.attr("rule").and_then(Value::elements).unwrap_or(&[]).iter())
                    .map(|r| r.attr("note").cloned().unwrap_or_else(null_s))
                    .collect()
            };
            let blank = |v: &Value| v.is_null() || v.as_str() == Some("");
            for (i, (a, b)) in notes(&state).iter().zip(notes(&updated.planned_state).iter()).enumerate() {
                let at = Path::root().attr("rule").index(i as u64).attr("note");
                if blank(a) && blank(b) {
                    prop_assert!(!updated.requires_replace.contains(&at), "{} replaced", at);
                } else if a != b {
                    prop_assert!(updated.requires_replace.contains(&at), "{} not replaced", at);
                }
            }
        }
        let state2 = apply(&updated.planned_state, &mut counter);
        let again = plan_or_fail(&b, &state2, &c2)?;
        prop_assert_eq!(&again.planned_state, &state2);
        prop_assert!(again.requires_replace.is_empty());
    }
}
