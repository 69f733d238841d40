//! Semantic equality: a configured value that means the prior one plans
//! the prior value (core's functionally equivalent plan), at every depth,
//! set elements paired by meaning, and linearly in the number of elements.

use std::sync::atomic::Ordering;

use super::*;
use crate::plan::semantic::counting;
use crate::schema::SemanticEquality;

/// Names compared without regard to case.
fn case_insensitive() -> SemanticEquality {
    SemanticEquality::new(|v| v.as_str().map(|s| Value::string(s.to_lowercase())))
}

fn semantic(mut a: Attribute, rule: SemanticEquality) -> Attribute {
    a.plan.semantic_equality = Some(rule);
    a
}

/// The value at `path` (attributes and indexes) in `v`.
fn at<'v>(v: &'v Value, path: &Path) -> Option<&'v Value> {
    path.steps().iter().try_fold(v, |v, step| match step {
        ctywire::PathStep::Attr(name) => v.attr(name),
        ctywire::PathStep::Index(i) => v.elements()?.get(usize::try_from(*i).ok()?),
        ctywire::PathStep::Key(k) => v.entry(k),
    })
}

/// `id` computed, `name` required with the rule and `requires_replace`,
/// `label` optional with the rule.
fn named() -> Block {
    block(
        vec![
            attr("id", Type::String, Presence::Computed),
            replace(semantic(
                attr("name", Type::String, Presence::Required),
                case_insensitive(),
            )),
            semantic(
                attr("label", Type::String, Presence::Optional),
                case_insensitive(),
            ),
        ],
        vec![],
    )
}

fn named_value(id: Value, name: &str, label: Value) -> Value {
    obj(vec![("id", id), ("name", s(name)), ("label", label)])
}

#[test]
fn a_configured_value_meaning_the_prior_plans_the_prior_and_replaces_nothing() {
    let b = named();
    let prior = named_value(s("i1"), "web", s("Front"));
    let config = named_value(null_s(), "WEB", s("FRONT"));
    let planned = plan_ok(&b, &prior, &config);
    assert_eq!(
        at(&planned.planned_state, &path(&["name"])),
        Some(&s("web"))
    );
    assert_eq!(
        at(&planned.planned_state, &path(&["label"])),
        Some(&s("Front"))
    );
    // Nothing else changed, so the plan is the prior state: `id` stays.
    assert_eq!(planned.planned_state, prior);
    assert!(planned.requires_replace.is_empty());
}

#[test]
fn a_change_in_meaning_plans_the_configured_value_and_replaces() {
    let b = named();
    let prior = named_value(s("i1"), "web", s("front"));
    let config = named_value(null_s(), "DB", s("FRONT"));
    let planned = plan_ok(&b, &prior, &config);
    assert_eq!(at(&planned.planned_state, &path(&["name"])), Some(&s("DB")));
    // The attribute that still means the same keeps its prior.
    assert_eq!(
        at(&planned.planned_state, &path(&["label"])),
        Some(&s("front"))
    );
    assert!(!planned
        .planned_state
        .attr("id")
        .is_some_and(Value::is_known));
    assert_eq!(planned.requires_replace, vec![path(&["name"])]);
}

#[test]
fn a_null_configuration_against_a_prior_value_is_a_change() {
    let b = named();
    let prior = named_value(s("i1"), "web", s("front"));
    let config = named_value(null_s(), "web", null_s());
    let planned = plan_ok(&b, &prior, &config);
    assert_eq!(
        at(&planned.planned_state, &path(&["label"])),
        Some(&null_s())
    );
}

#[test]
fn an_unknown_configuration_or_prior_is_never_semantically_equal() {
    let b = named();
    let prior = named_value(s("i1"), "web", s("front"));
    let config = named_value(null_s(), "web", unknown_s());
    let planned = plan_ok(&b, &prior, &config);
    assert_eq!(
        at(&planned.planned_state, &path(&["label"])),
        Some(&unknown_s())
    );
    assert!(!case_insensitive().same(&s("web"), &unknown_s()));
}

#[test]
fn a_list_element_keeps_its_prior_value_at_its_index() {
    let rule_body = block(
        vec![semantic(
            attr("note", Type::String, Presence::Required),
            case_insensitive(),
        )],
        vec![],
    );
    let b = block(
        vec![attr("name", Type::String, Presence::Required)],
        vec![nested_block("rule", NestingMode::List, rule_body)],
    );
    let rule_ty = Type::object([("note", Type::String)]);
    let value = |name: &str, notes: &[&str]| {
        obj(vec![
            ("name", s(name)),
            (
                "rule",
                list(
                    rule_ty.clone(),
                    notes.iter().map(|x| obj(vec![("note", s(x))])).collect(),
                ),
            ),
        ])
    };
    let prior = value("a", &["one", "two"]);
    let planned = plan_ok(&b, &prior, &value("a", &["ONE", "three"]));
    let note = |i: u64| Path::root().attr("rule").index(i).attr("note");
    assert_eq!(at(&planned.planned_state, &note(0)), Some(&s("one")));
    assert_eq!(at(&planned.planned_state, &note(1)), Some(&s("three")));
}

/// `tag` a set block of `key` (required, the rule) and `hash` (computed).
fn tagged(rule: SemanticEquality) -> Block {
    let body = block(
        vec![
            semantic(attr("key", Type::String, Presence::Required), rule),
            attr("hash", Type::String, Presence::Computed),
        ],
        vec![],
    );
    block(
        vec![attr("name", Type::String, Presence::Required)],
        vec![nested_block("tag", NestingMode::Set, body)],
    )
}

fn tagged_value(name: &str, tags: Vec<(String, Value)>) -> Value {
    obj(vec![
        ("name", s(name)),
        (
            "tag",
            set(
                tag_ty(),
                tags.into_iter().map(|(k, h)| tag(&k, h)).collect(),
            ),
        ),
    ])
}

#[test]
fn a_set_element_meaning_a_prior_element_keeps_that_element() {
    let b = tagged(case_insensitive());
    let prior = tagged_value("a", vec![("web".into(), s("h1")), ("db".into(), s("h2"))]);
    let config = tagged_value("a", vec![("WEB".into(), null_s()), ("db".into(), null_s())]);
    let planned = plan_ok(&b, &prior, &config);
    // Core's rule pairs neither "WEB" (its key differs); by meaning it
    // continues "web", hash and all: the plan is the prior state.
    assert_eq!(planned.planned_state, prior);

    // With another change the element still continues its prior: its key
    // is the prior's, its computed hash left to the provider.
    let config = tagged_value("b", vec![("WEB".into(), null_s()), ("db".into(), null_s())]);
    let planned = plan_ok(&b, &prior, &config);
    let tags = at(&planned.planned_state, &path(&["tag"])).and_then(Value::elements);
    let keys: Vec<&Value> = tags
        .unwrap_or(&[])
        .iter()
        .filter_map(|t| t.attr("key"))
        .collect();
    assert!(keys.contains(&&s("web")), "{keys:?}");
    assert!(!keys.contains(&&s("WEB")), "{keys:?}");
}

#[test]
fn a_set_of_10_000_elements_is_matched_by_meaning_in_linear_rule_calls() {
    const N: usize = 10_000;
    let (rule, calls) = counting(|v| v.as_str().map(|s| Value::string(s.to_lowercase())));
    let b = tagged(rule);
    let prior = tagged_value(
        "a",
        (0..N)
            .map(|i| (format!("name-{i}"), s(&format!("h{i}"))))
            .collect(),
    );
    let config = tagged_value(
        "a",
        (0..N).map(|i| (format!("NAME-{i}"), null_s())).collect(),
    );
    let planned = plan_ok(&b, &prior, &config);
    assert_eq!(planned.planned_state, prior);
    let used = calls.load(Ordering::Relaxed);
    // Each element of either side put in canonical form a bounded number
    // of times: a pairwise walk would take N² = 100,000,000.
    assert!(used <= 4 * 2 * N, "{used} canonical forms for {N} elements");
    assert!(used >= N, "the rule was not used: {used}");
}

#[test]
fn a_set_attribute_of_10_000_elements_meaning_the_prior_keeps_it_in_linear_rule_calls() {
    const N: usize = 10_000;
    let (rule, calls) = counting(|v| v.as_str().map(|s| Value::string(s.to_lowercase())));
    let b = block(
        vec![semantic(
            attr("names", Type::set(Type::String), Presence::Required),
            rule.each(),
        )],
        vec![],
    );
    let names = |f: &dyn Fn(usize) -> String| {
        obj(vec![(
            "names",
            set(Type::String, (0..N).map(|i| s(&f(i))).collect()),
        )])
    };
    let prior = names(&|i| format!("name-{i}"));
    let planned = plan_ok(&b, &prior, &names(&|i| format!("NAME-{i}")));
    assert_eq!(
        at(&planned.planned_state, &path(&["names"])),
        prior.attr("names")
    );
    let used = calls.load(Ordering::Relaxed);
    assert!(used <= 4 * 2 * N, "{used} canonical forms for {N} elements");

    // One element that means something new: the set as configured (core
    // accepts the prior or the configuration, nothing mixed).
    let changed = names(&|i| {
        if i == 0 {
            "other".into()
        } else {
            format!("NAME-{i}")
        }
    });
    let planned = plan_ok(&b, &prior, &changed);
    assert_eq!(
        at(&planned.planned_state, &path(&["names"])),
        changed.attr("names")
    );
}
