//! One test per plan rule, worked examples over one resource schema
//! ([`Spec`]) with this framework's answers, and a property: a plan, its
//! apply, and a second plan with the same configuration plans nothing.

use super::elements::match_set_elements;
use super::*;
use crate::schema::Attribute;
use crate::schema::{NestedBlock, Presence};
use ctywire::schema::NestingMode;
use ctywire::Type;
use ctywire_objchange as objchange;

// ---- building schemas and values ------------------------------------

fn attr(name: &str, ty: Type, presence: Presence) -> Attribute {
    let mut a = Attribute::new(name, ty);
    a.presence = presence;
    a
}

fn keep(mut a: Attribute) -> Attribute {
    a.plan.keep_state = true;
    a
}

fn replace(mut a: Attribute) -> Attribute {
    a.plan.requires_replace = true;
    a
}

fn default(mut a: Attribute, v: Value) -> Attribute {
    a.plan.default = Some(v);
    a
}

fn block(attributes: Vec<Attribute>, blocks: Vec<NestedBlock>) -> Block {
    Block {
        attributes,
        blocks,
        ..Block::default()
    }
}

fn nested_block(name: &str, nesting: NestingMode, body: Block) -> NestedBlock {
    NestedBlock {
        name: name.into(),
        nesting,
        block: body,
        min_items: 0,
        max_items: 0,
        validators: Vec::new(),
    }
}

fn nested_attr(name: &str, nesting: NestingMode, body: Block, presence: Presence) -> Attribute {
    let mut a = Attribute::new(name, Type::Dynamic);
    a.nested = Some(Nested {
        nesting,
        block: body,
    });
    a.presence = presence;
    a.ty = a.to_schema().implied_type().unwrap_or(Type::Dynamic);
    a
}

fn s(x: &str) -> Value {
    Value::string(x)
}

fn n(x: i64) -> Value {
    Value::number(x)
}

fn null_s() -> Value {
    Value::null(Type::String)
}

fn null_n() -> Value {
    Value::null(Type::Number)
}

fn unknown_s() -> Value {
    Value::unknown(Type::String)
}

fn obj(attrs: Vec<(&str, Value)>) -> Value {
    Value::object(attrs)
}

fn list(ety: Type, elems: Vec<Value>) -> Value {
    Value::list(ety, elems).unwrap()
}

fn set(ety: Type, elems: Vec<Value>) -> Value {
    Value::set(ety, elems).unwrap()
}

fn path(steps: &[&str]) -> Path {
    steps.iter().fold(Path::root(), |p, s| p.attr(*s))
}

/// Plans as Terraform asks, with core's proposal, and checks the answer
/// as core does (`AssertPlanValid`).
fn plan_ok(block: &Block, prior: &Value, config: &Value) -> Planned {
    let schema = block.to_schema_block();
    let proposed = objchange::proposed_new(&schema, prior, config);
    let planned = match plan(block, prior, config, &proposed) {
        Ok(p) => p,
        Err(d) => panic!("plan failed: {d}"),
    };
    let problems = objchange::assert_plan_valid(&schema, prior, config, &planned.planned_state);
    assert!(problems.is_empty(), "core rejects the plan: {problems:?}");
    planned
}

fn plan_err(block: &Block, prior: &Value, config: &Value) -> Diagnostic {
    let proposed = objchange::proposed_new(&block.to_schema_block(), prior, config);
    match plan(block, prior, config, &proposed) {
        Ok(p) => panic!("planned {:?}", p.planned_state),
        Err(d) => d.into_iter().next().expect("an error"),
    }
}

// ---- the worked examples' schema --------------------------------------------

/// `id` computed; `name` required; `size` optional+computed; `stamp`
/// computed; list block `rule {port required; rid computed}`; set block
/// `tag {key required; hash computed}`.
struct Spec {
    keep_id: bool,
    keep_size: bool,
    keep_rid: bool,
    keep_hash: bool,
    replace_port: bool,
    size_default: Option<Value>,
}

impl Spec {
    fn plain() -> Spec {
        Spec {
            keep_id: false,
            keep_size: false,
            keep_rid: false,
            keep_hash: false,
            replace_port: false,
            size_default: None,
        }
    }

    fn block(&self) -> Block {
        let mut id = attr("id", Type::String, Presence::Computed);
        id.plan.keep_state = self.keep_id;
        let mut size = attr("size", Type::Number, Presence::OptionalComputed);
        size.plan.keep_state = self.keep_size;
        size.plan.default = self.size_default.clone();
        let mut port = attr("port", Type::Number, Presence::Required);
        port.plan.requires_replace = self.replace_port;
        let mut rid = attr("rid", Type::String, Presence::Computed);
        rid.plan.keep_state = self.keep_rid;
        let mut hash = attr("hash", Type::String, Presence::Computed);
        hash.plan.keep_state = self.keep_hash;
        block(
            vec![
                id,
                attr("name", Type::String, Presence::Required),
                size,
                attr("stamp", Type::String, Presence::Computed),
            ],
            vec![
                nested_block("rule", NestingMode::List, block(vec![port, rid], vec![])),
                nested_block(
                    "tag",
                    NestingMode::Set,
                    block(
                        vec![attr("key", Type::String, Presence::Required), hash],
                        vec![],
                    ),
                ),
            ],
        )
    }
}

fn rule_ty() -> Type {
    Type::object([("port", Type::Number), ("rid", Type::String)])
}

fn tag_ty() -> Type {
    Type::object([("hash", Type::String), ("key", Type::String)])
}

fn rule(port: i64, rid: Value) -> Value {
    obj(vec![("port", n(port)), ("rid", rid)])
}

fn tag(key: &str, hash: Value) -> Value {
    obj(vec![("key", s(key)), ("hash", hash)])
}

/// A resource of the worked examples' schema.
fn res(
    id: Value,
    name: &str,
    size: Value,
    stamp: Value,
    rules: Vec<Value>,
    tags: Vec<Value>,
) -> Value {
    obj(vec![
        ("id", id),
        ("name", s(name)),
        ("size", size),
        ("stamp", stamp),
        ("rule", list(rule_ty(), rules)),
        ("tag", set(tag_ty(), tags)),
    ])
}

fn config(name: &str, size: Value, rules: Vec<Value>, tags: Vec<Value>) -> Value {
    res(null_s(), name, size, null_s(), rules, tags)
}

fn prior_b() -> Value {
    res(s("i1"), "a", n(3), s("t1"), vec![], vec![])
}

// ---- the rules -------------------------------------------------------

#[test]
fn destroy_plans_null_without_looking_at_the_schema() {
    let prior = prior_b();
    let proposed = Value::null(prior.ty().clone());
    let planned = plan(
        &Block::default(),
        &prior,
        &Value::null(prior.ty().clone()),
        &proposed,
    )
    .unwrap();
    assert!(planned.planned_state.is_null());
    assert!(planned.requires_replace.is_empty());
}

#[test]
fn example_a_create_marks_every_computed_attribute_unknown() {
    let spec = Spec {
        keep_id: true,
        keep_rid: true,
        ..Spec::plain()
    };
    let c = config(
        "a",
        null_n(),
        vec![rule(80, null_s())],
        vec![tag("x", null_s())],
    );
    let p = plan_ok(&spec.block(), &Value::null(c.ty().clone()), &c);
    let want = res(
        unknown_s(),
        "a",
        Value::unknown(Type::Number),
        unknown_s(),
        vec![rule(80, unknown_s())],
        vec![tag("x", unknown_s())],
    );
    assert_eq!(p.planned_state, want);
    assert!(p.requires_replace.is_empty());
}

#[test]
fn example_b_an_unchanged_resource_plans_its_prior_state() {
    let prior = res(
        s("i1"),
        "a",
        n(3),
        s("t1"),
        vec![rule(80, s("r1"))],
        vec![tag("x", s("h1"))],
    );
    let c = config(
        "a",
        null_n(),
        vec![rule(80, null_s())],
        vec![tag("x", null_s())],
    );
    let p = plan_ok(&Spec::plain().block(), &prior, &c);
    assert_eq!(p.planned_state, prior);
    assert!(p.requires_replace.is_empty());
}

#[test]
fn example_c_an_update_marks_computed_attributes_unless_they_keep_their_state() {
    let c = config("b", null_n(), vec![], vec![]);
    let kept = Spec {
        keep_id: true,
        ..Spec::plain()
    };
    let p = plan_ok(&kept.block(), &prior_b(), &c);
    assert_eq!(
        p.planned_state,
        res(
            s("i1"),
            "b",
            Value::unknown(Type::Number),
            unknown_s(),
            vec![],
            vec![]
        )
    );
    let p = plan_ok(&Spec::plain().block(), &prior_b(), &c);
    assert_eq!(
        p.planned_state,
        res(
            unknown_s(),
            "b",
            Value::unknown(Type::Number),
            unknown_s(),
            vec![],
            vec![]
        )
    );
}

#[test]
fn example_d_a_new_list_element_gets_unknown_never_a_null_from_nowhere() {
    let spec = Spec {
        keep_rid: true,
        keep_id: true,
        ..Spec::plain()
    };
    let prior = res(s("i1"), "a", n(3), s("t1"), vec![rule(80, s("r1"))], vec![]);
    let c = config(
        "a",
        null_n(),
        vec![rule(80, null_s()), rule(443, null_s())],
        vec![],
    );
    let p = plan_ok(&spec.block(), &prior, &c);
    let rules = p.planned_state.attr("rule").unwrap().elements().unwrap();
    assert_eq!(rules, &[rule(80, s("r1")), rule(443, unknown_s())]);
    // Without keep_state both are unknown, as the framework plans.
    let p = plan_ok(&Spec::plain().block(), &prior, &c);
    let rules = p.planned_state.attr("rule").unwrap().elements().unwrap();
    assert_eq!(rules, &[rule(80, unknown_s()), rule(443, unknown_s())]);
}

#[test]
fn example_d_prime_removing_the_head_of_a_list_keeps_each_elements_own_state() {
    let spec = Spec {
        keep_rid: true,
        ..Spec::plain()
    };
    let prior = res(
        s("i1"),
        "a",
        n(3),
        s("t1"),
        vec![rule(80, s("r1")), rule(443, s("r2"))],
        vec![],
    );
    let c = config("a", null_n(), vec![rule(443, null_s())], vec![]);
    let p = plan_ok(&spec.block(), &prior, &c);
    let rules = p.planned_state.attr("rule").unwrap().elements().unwrap();
    // r2 belongs to the rule for 443; index pairing would give r1 (#709).
    assert_eq!(rules, &[rule(443, s("r2"))]);
}

#[test]
fn reordering_a_list_keeps_each_elements_state_with_its_content() {
    let spec = Spec {
        keep_rid: true,
        ..Spec::plain()
    };
    let prior = res(
        s("i1"),
        "a",
        n(3),
        s("t1"),
        vec![rule(80, s("r1")), rule(443, s("r2")), rule(22, s("r3"))],
        vec![],
    );
    let c = config(
        "a",
        null_n(),
        vec![rule(22, null_s()), rule(80, null_s()), rule(8080, null_s())],
        vec![],
    );
    let p = plan_ok(&spec.block(), &prior, &c);
    let rules = p.planned_state.attr("rule").unwrap().elements().unwrap();
    assert_eq!(
        rules,
        &[
            rule(22, s("r3")),
            rule(80, s("r1")),
            rule(8080, unknown_s())
        ]
    );
}

#[test]
fn example_e_set_elements_are_matched_by_value_not_position() {
    let spec = Spec {
        keep_hash: true,
        ..Spec::plain()
    };
    let prior = res(
        s("i1"),
        "a",
        n(3),
        s("t1"),
        vec![],
        vec![tag("a", s("h1")), tag("b", s("h2"))],
    );
    let c = config(
        "a",
        null_n(),
        vec![],
        vec![tag("a", null_s()), tag("c", null_s())],
    );
    let p = plan_ok(&spec.block(), &prior, &c);
    let want = set(tag_ty(), vec![tag("a", s("h1")), tag("c", unknown_s())]);
    assert_eq!(p.planned_state.attr("tag"), Some(&want));
    // Whatever the order of the prior elements.
    let prior = res(
        s("i1"),
        "a",
        n(3),
        s("t1"),
        vec![],
        vec![tag("zz", s("h0")), tag("b", s("h2")), tag("a", s("h1"))],
    );
    let p = plan_ok(&spec.block(), &prior, &c);
    assert_eq!(p.planned_state.attr("tag"), Some(&want));
}

#[test]
fn example_f_a_replacing_change_inside_a_list_is_reported_at_its_index() {
    let spec = Spec {
        replace_port: true,
        keep_rid: true,
        ..Spec::plain()
    };
    let prior = res(s("i1"), "a", n(3), s("t1"), vec![rule(80, s("r1"))], vec![]);
    let c = config("a", null_n(), vec![rule(8080, null_s())], vec![]);
    let p = plan_ok(&spec.block(), &prior, &c);
    assert_eq!(
        p.planned_state.attr("rule").unwrap().elements().unwrap(),
        &[rule(8080, unknown_s())]
    );
    assert_eq!(
        p.requires_replace,
        vec![Path::root().attr("rule").index(0).attr("port")]
    );
    // The replacing re-plan is a create.
    let p = plan_ok(&spec.block(), &Value::null(c.ty().clone()), &c);
    assert_eq!(p.planned_state.attr("id"), Some(&unknown_s()));
    assert!(p.requires_replace.is_empty());
}

#[test]
fn example_g_an_unset_optional_computed_attribute_follows_the_plan() {
    let prior = prior_b();
    // Nothing changed: its value stays.
    let p = plan_ok(
        &Spec::plain().block(),
        &prior,
        &config("a", null_n(), vec![], vec![]),
    );
    assert_eq!(p.planned_state, prior);
    // Something changed: unknown, unless it keeps its state.
    let changed = config("b", null_n(), vec![], vec![]);
    let p = plan_ok(&Spec::plain().block(), &prior, &changed);
    assert_eq!(
        p.planned_state.attr("size"),
        Some(&Value::unknown(Type::Number))
    );
    let kept = Spec {
        keep_size: true,
        ..Spec::plain()
    };
    let p = plan_ok(&kept.block(), &prior, &changed);
    assert_eq!(p.planned_state.attr("size"), Some(&n(3)));
    // With a default, the default: the resource changes, so the other
    // computed attributes are unknown.
    let defaulted = Spec {
        size_default: Some(n(1)),
        ..Spec::plain()
    };
    let p = plan_ok(
        &defaulted.block(),
        &prior,
        &config("a", null_n(), vec![], vec![]),
    );
    assert_eq!(
        p.planned_state,
        res(unknown_s(), "a", n(1), unknown_s(), vec![], vec![])
    );
}

#[test]
fn example_g_prime_a_removed_optional_computed_value_is_kept() {
    let prior = res(s("i1"), "a", n(5), s("t1"), vec![], vec![]);
    let p = plan_ok(
        &Spec::plain().block(),
        &prior,
        &config("a", null_n(), vec![], vec![]),
    );
    assert_eq!(p.planned_state, prior);
}

#[test]
fn write_only_attributes_plan_null() {
    let mut secret = attr("secret", Type::String, Presence::Optional);
    secret.write_only = true;
    let b = block(
        vec![attr("name", Type::String, Presence::Required), secret],
        vec![],
    );
    let c = obj(vec![("name", s("a")), ("secret", s("hunter2"))]);
    let p = plan_ok(&b, &Value::null(c.ty().clone()), &c);
    assert_eq!(p.planned_state.attr("secret"), Some(&null_s()));
    // And an unchanged resource is unchanged despite the configured value.
    let prior = obj(vec![("name", s("a")), ("secret", null_s())]);
    let p = plan_ok(&b, &prior, &c);
    assert_eq!(p.planned_state, prior);
}

fn defaulted_tags() -> Block {
    block(
        vec![],
        vec![nested_block(
            "tag",
            NestingMode::Set,
            block(
                vec![
                    attr("key", Type::String, Presence::Required),
                    default(
                        attr("mode", Type::String, Presence::OptionalComputed),
                        s("auto"),
                    ),
                    attr("hash", Type::String, Presence::Computed),
                ],
                vec![],
            ),
        )],
    )
}

fn mode_tag(key: &str, mode: Value, hash: Value) -> Value {
    obj(vec![("key", s(key)), ("mode", mode), ("hash", hash)])
}

fn mode_tag_ty() -> Type {
    mode_tag("k", null_s(), null_s()).ty().clone()
}

#[test]
fn defaults_inside_set_elements_follow_each_elements_own_configuration() {
    let b = defaulted_tags();
    let c = obj(vec![(
        "tag",
        set(
            mode_tag_ty(),
            vec![
                mode_tag("a", null_s(), null_s()),
                mode_tag("b", s("manual"), null_s()),
            ],
        ),
    )]);
    let created = plan_ok(&b, &Value::null(c.ty().clone()), &c).planned_state;
    let want = set(
        mode_tag_ty(),
        vec![
            mode_tag("a", s("auto"), unknown_s()),
            mode_tag("b", s("manual"), unknown_s()),
        ],
    );
    assert_eq!(created.attr("tag"), Some(&want));
    // Applied: the same configuration plans nothing (no flip-flop, #1036).
    let applied = obj(vec![(
        "tag",
        set(
            mode_tag_ty(),
            vec![
                mode_tag("a", s("auto"), s("h1")),
                mode_tag("b", s("manual"), s("h2")),
            ],
        ),
    )]);
    let p = plan_ok(&b, &applied, &c);
    assert_eq!(p.planned_state, applied);
}

#[test]
fn defaults_apply_in_new_list_elements_and_nested_attribute_elements() {
    let inner = block(
        vec![
            attr("port", Type::Number, Presence::Required),
            default(
                attr("proto", Type::String, Presence::OptionalComputed),
                s("tcp"),
            ),
        ],
        vec![],
    );
    let b = block(
        vec![nested_attr(
            "ports",
            NestingMode::List,
            inner.clone(),
            Presence::Optional,
        )],
        vec![nested_block("rule", NestingMode::List, inner)],
    );
    let el = |port: i64, proto: Value| obj(vec![("port", n(port)), ("proto", proto)]);
    let ety = el(1, null_s()).ty().clone();
    let c = obj(vec![
        (
            "ports",
            list(ety.clone(), vec![el(1, null_s()), el(2, s("udp"))]),
        ),
        ("rule", list(ety.clone(), vec![el(3, null_s())])),
    ]);
    let p = plan_ok(&b, &Value::null(c.ty().clone()), &c).planned_state;
    assert_eq!(
        p.attr("ports").unwrap().elements().unwrap(),
        &[el(1, s("tcp")), el(2, s("udp"))]
    );
    assert_eq!(
        p.attr("rule").unwrap().elements().unwrap(),
        &[el(3, s("tcp"))]
    );
}

#[test]
fn a_default_on_an_attribute_that_is_not_computed_is_a_schema_error_at_its_path() {
    let b = block(
        vec![],
        vec![nested_block(
            "rule",
            NestingMode::List,
            block(
                vec![default(
                    attr("note", Type::String, Presence::Optional),
                    s("x"),
                )],
                vec![],
            ),
        )],
    );
    let c = obj(vec![(
        "rule",
        list(
            Type::object([("note", Type::String)]),
            vec![obj(vec![("note", null_s())])],
        ),
    )]);
    let d = plan_err(&b, &Value::null(c.ty().clone()), &c);
    assert_eq!(
        d.attribute,
        Some(Path::root().attr("rule").index(0).attr("note"))
    );
    assert!(d.detail.contains("not computed"), "{}", d.detail);
}

fn same_as_block() -> Block {
    let mut id = attr("id", Type::String, Presence::Computed);
    id.plan.same_as = Some("key".into());
    let mut alias = attr("alias", Type::String, Presence::Computed);
    alias.plan.same_as = Some("id".into());
    block(
        vec![
            alias,
            id,
            replace(attr("key", Type::String, Presence::Required)),
        ],
        vec![],
    )
}

#[test]
fn same_as_plans_the_siblings_value_known_or_unknown_following_chains() {
    let b = same_as_block();
    let c = obj(vec![("alias", null_s()), ("id", null_s()), ("key", s("k"))]);
    let p = plan_ok(&b, &Value::null(c.ty().clone()), &c).planned_state;
    assert_eq!(
        p,
        obj(vec![("alias", s("k")), ("id", s("k")), ("key", s("k"))])
    );
    let c = obj(vec![
        ("alias", null_s()),
        ("id", null_s()),
        ("key", unknown_s()),
    ]);
    let p = plan_ok(&b, &Value::null(c.ty().clone()), &c).planned_state;
    assert_eq!(p.attr("id"), Some(&unknown_s()));
    assert_eq!(p.attr("alias"), Some(&unknown_s()));
}

#[test]
fn same_as_naming_no_sibling_or_going_round_is_a_schema_error() {
    let mut id = attr("id", Type::String, Presence::Computed);
    id.plan.same_as = Some("nope".into());
    let b = block(vec![id], vec![]);
    let c = obj(vec![("id", null_s())]);
    let d = plan_err(&b, &Value::null(c.ty().clone()), &c);
    assert!(d.detail.contains("\"nope\""), "{}", d.detail);
    let mut x = attr("x", Type::String, Presence::Computed);
    x.plan.same_as = Some("y".into());
    let mut y = attr("y", Type::String, Presence::Computed);
    y.plan.same_as = Some("x".into());
    let b = block(
        vec![],
        vec![nested_block(
            "in",
            NestingMode::Single,
            block(vec![x, y], vec![]),
        )],
    );
    let inner = obj(vec![("x", null_s()), ("y", null_s())]);
    let c = obj(vec![("in", inner)]);
    let d = plan_err(&b, &Value::null(c.ty().clone()), &c);
    assert_eq!(d.attribute, Some(path(&["in"])));
    assert!(d.detail.contains("circle"), "{}", d.detail);
}

#[test]
fn requires_replace_reports_changed_attributes_sorted_once_each() {
    let b = same_as_block();
    let prior = obj(vec![("alias", s("k")), ("id", s("k")), ("key", s("k"))]);
    let c = obj(vec![("alias", null_s()), ("id", null_s()), ("key", s("j"))]);
    let p = plan_ok(&b, &prior, &c);
    assert_eq!(p.planned_state.attr("id"), Some(&s("j")));
    assert_eq!(p.requires_replace, vec![path(&["key"])]);
    // Unchanged: nothing to replace.
    let c = obj(vec![("alias", null_s()), ("id", null_s()), ("key", s("k"))]);
    assert!(plan_ok(&b, &prior, &c).requires_replace.is_empty());
}

#[test]
fn requires_replace_counts_an_unknown_as_a_change() {
    let b = block(
        vec![
            attr("name", Type::String, Presence::Required),
            replace(attr("serial", Type::String, Presence::Computed)),
        ],
        vec![],
    );
    let prior = obj(vec![("name", s("a")), ("serial", s("s1"))]);
    let c = obj(vec![("name", s("b")), ("serial", null_s())]);
    let p = plan_ok(&b, &prior, &c);
    assert_eq!(p.planned_state.attr("serial"), Some(&unknown_s()));
    assert_eq!(p.requires_replace, vec![path(&["serial"])]);
}

#[test]
fn requires_replace_inside_a_set_is_reported_at_the_set() {
    let b = block(
        vec![attr("name", Type::String, Presence::Required)],
        vec![nested_block(
            "tag",
            NestingMode::Set,
            block(
                vec![
                    attr("key", Type::String, Presence::Required),
                    replace(attr("hash", Type::String, Presence::Computed)),
                ],
                vec![],
            ),
        )],
    );
    let prior = obj(vec![
        ("name", s("a")),
        (
            "tag",
            set(tag_ty(), vec![tag("x", s("h1")), tag("y", s("h2"))]),
        ),
    ]);
    let c = obj(vec![
        ("name", s("b")),
        (
            "tag",
            set(tag_ty(), vec![tag("x", null_s()), tag("y", null_s())]),
        ),
    ]);
    let p = plan_ok(&b, &prior, &c);
    assert_eq!(p.requires_replace, vec![path(&["tag"])]);
}

#[test]
fn map_blocks_pair_by_key_and_report_at_the_key() {
    let b = block(
        vec![],
        vec![nested_block(
            "site",
            NestingMode::Map,
            block(
                vec![
                    replace(attr("host", Type::String, Presence::Required)),
                    keep(attr("ip", Type::String, Presence::Computed)),
                ],
                vec![],
            ),
        )],
    );
    let site = |host: &str, ip: Value| obj(vec![("host", s(host)), ("ip", ip)]);
    let ety = site("h", null_s()).ty().clone();
    let map = |es: Vec<(&str, Value)>| Value::map(ety.clone(), es).unwrap();
    let prior = obj(vec![(
        "site",
        map(vec![
            ("a", site("h1", s("10.0.0.1"))),
            ("b", site("h2", s("10.0.0.2"))),
        ]),
    )]);
    let c = obj(vec![(
        "site",
        map(vec![
            ("a", site("h1", null_s())),
            ("b", site("h3", null_s())),
            ("c", site("h4", null_s())),
        ]),
    )]);
    let p = plan_ok(&b, &prior, &c);
    assert_eq!(
        p.planned_state.attr("site"),
        Some(&map(vec![
            ("a", site("h1", s("10.0.0.1"))),
            ("b", site("h3", s("10.0.0.2"))),
            ("c", site("h4", unknown_s())),
        ]))
    );
    assert_eq!(
        p.requires_replace,
        vec![Path::root().attr("site").key("b").attr("host")]
    );
}

#[test]
fn nested_attributes_plan_their_computed_children_at_every_depth() {
    let inner = block(
        vec![
            attr("name", Type::String, Presence::Required),
            keep(attr("uid", Type::String, Presence::Computed)),
            attr("etag", Type::String, Presence::Computed),
        ],
        vec![],
    );
    let b = block(
        vec![
            attr("label", Type::String, Presence::Required),
            nested_attr(
                "one",
                NestingMode::Single,
                inner.clone(),
                Presence::Optional,
            ),
            nested_attr("many", NestingMode::Set, inner.clone(), Presence::Optional),
            nested_attr("status", NestingMode::Single, inner, Presence::Computed),
        ],
        vec![],
    );
    let el = |name: &str, uid: Value, etag: Value| {
        obj(vec![("name", s(name)), ("uid", uid), ("etag", etag)])
    };
    let ety = el("x", null_s(), null_s()).ty().clone();
    let prior = obj(vec![
        ("label", s("l1")),
        ("one", el("o", s("u0"), s("e0"))),
        (
            "many",
            set(
                ety.clone(),
                vec![el("m1", s("u1"), s("e1")), el("m2", s("u2"), s("e2"))],
            ),
        ),
        ("status", el("s", s("u9"), s("e9"))),
    ]);
    let c = obj(vec![
        ("label", s("l2")),
        ("one", el("o", null_s(), null_s())),
        (
            "many",
            set(
                ety.clone(),
                vec![el("m2", null_s(), null_s()), el("m3", null_s(), null_s())],
            ),
        ),
        ("status", Value::null(ety.clone())),
    ]);
    let p = plan_ok(&b, &prior, &c).planned_state;
    assert_eq!(p.attr("one"), Some(&el("o", s("u0"), unknown_s())));
    assert_eq!(
        p.attr("many"),
        Some(&set(
            ety.clone(),
            vec![
                el("m2", s("u2"), unknown_s()),
                el("m3", unknown_s(), unknown_s())
            ]
        ))
    );
    // A computed nested attribute the configuration leaves null is one
    // unknown, as in the framework.
    assert_eq!(p.attr("status"), Some(&Value::unknown(ety)));
}

#[test]
fn an_unknown_block_collection_stays_unknown() {
    let spec = Spec::plain();
    let mut c = config("a", null_n(), vec![], vec![]);
    c.set_attr("rule", Value::unknown(Type::list(rule_ty())))
        .unwrap();
    let p = plan_ok(&spec.block(), &prior_b(), &c);
    assert_eq!(
        p.planned_state.attr("rule"),
        Some(&Value::unknown(Type::list(rule_ty())))
    );
}

#[test]
fn a_value_of_another_shape_is_an_error_not_a_panic() {
    let c = obj(vec![("name", s("a"))]);
    let d = plan_err(&Spec::plain().block(), &Value::null(c.ty().clone()), &c);
    assert!(d.detail.contains("no attribute \"id\""), "{}", d.detail);
    assert!(plan(
        &Spec::plain().block(),
        &Value::null(Type::String),
        &s("x"),
        &s("x")
    )
    .is_err());
}

#[test]
fn a_set_element_whose_configured_twin_took_its_prior_is_new() {
    // cty orders {a, "y"} before {a, null}: the first takes the prior
    // element {a, "y"} as its own, so {a, null} is new and its unset
    // computed value unknown, as core's proposal has it.
    let b = block(
        vec![attr("name", Type::String, Presence::Required)],
        vec![nested_block(
            "tag",
            NestingMode::Set,
            block(
                vec![
                    attr("key", Type::String, Presence::Required),
                    keep(attr("mode", Type::String, Presence::OptionalComputed)),
                ],
                vec![],
            ),
        )],
    );
    let el = |m: Value| obj(vec![("key", s("a")), ("mode", m)]);
    let ety = el(null_s()).ty().clone();
    let prior = obj(vec![
        ("name", s("n")),
        ("tag", set(ety.clone(), vec![el(s("y"))])),
    ]);
    let c = obj(vec![
        ("name", s("n")),
        ("tag", set(ety.clone(), vec![el(null_s()), el(s("y"))])),
    ]);
    assert_eq!(
        plan_ok(&b, &prior, &c).planned_state.attr("tag"),
        Some(&set(ety, vec![el(s("y")), el(unknown_s())]))
    );
}

// ---- element matching -------------------------------------------------

#[test]
fn a_set_element_with_a_configured_computed_value_matches_only_an_equal_prior() {
    let schema = block(
        vec![
            attr("key", Type::String, Presence::Required),
            attr("mode", Type::String, Presence::OptionalComputed),
        ],
        vec![],
    )
    .to_schema_block();
    let el = |k: &str, m: Value| obj(vec![("key", s(k)), ("mode", m)]);
    let prior = [el("a", s("x")), el("a", s("y")), el("b", s("x"))];
    let config = [el("a", s("y")), el("a", null_s()), el("c", null_s())];
    assert_eq!(
        match_set_elements(&schema, &prior, &config),
        vec![Some(1), Some(0), None]
    );
}

// ---- scale ------------------------------------------------------------

fn big_set(n_elems: usize, hashed: bool) -> (Block, Value, Value) {
    let b = block(
        vec![attr("name", Type::String, Presence::Required)],
        vec![nested_block(
            "item",
            NestingMode::Set,
            block(
                vec![
                    attr("key", Type::String, Presence::Required),
                    keep(attr("hash", Type::String, Presence::Computed)),
                ],
                vec![],
            ),
        )],
    );
    let item = |i: usize, h: bool| {
        obj(vec![
            ("key", s(&format!("key-{i}"))),
            ("hash", if h { s(&format!("h{i}")) } else { null_s() }),
        ])
    };
    let ety = item(0, false).ty().clone();
    let c = obj(vec![
        ("name", s("b")),
        (
            "item",
            set(ety.clone(), (0..n_elems).map(|i| item(i, false)).collect()),
        ),
    ]);
    let prior = obj(vec![
        ("name", s("a")),
        (
            "item",
            set(ety, (0..n_elems).map(|i| item(i, hashed)).collect()),
        ),
    ]);
    (b, prior, c)
}

#[test]
fn a_large_set_keeps_every_elements_own_state() {
    let (b, prior, c) = big_set(2_000, true);
    let p = plan_ok(&b, &prior, &c).planned_state;
    // Only `name` changed; every element keeps its own hash.
    let mut want = prior.clone();
    want.set_attr("name", s("b")).unwrap();
    assert_eq!(p, want);
}

/// `cargo test --release -p ctywire-provider -- --ignored --nocapture`
/// prints the figures for 100,000 elements (the engine alone; the
/// proposal and core's check are left out of the timing).
#[test]
#[ignore = "a timing: meaningful in release mode only"]
fn a_set_of_100_000_blocks_plans_in_well_under_a_second() {
    let (b, prior, c) = big_set(100_000, true);
    let timed = |prior: &Value, config: &Value| {
        let start = std::time::Instant::now();
        let planned = plan(&b, prior, config, config).unwrap();
        (planned, start.elapsed())
    };
    let (created, create) = timed(&Value::null(c.ty().clone()), &c);
    let (updated, update) = timed(&prior, &c);
    let mut same = c.clone();
    same.set_attr("name", s("a")).unwrap();
    let (unchanged, noop) = timed(&prior, &same);
    println!(
        "{{\"elements\":100000,\"create_ms\":{},\"update_ms\":{},\"noop_ms\":{}}}",
        create.as_millis(),
        update.as_millis(),
        noop.as_millis()
    );
    assert_eq!(
        created.planned_state.attr("item").and_then(Value::len),
        Some(100_000)
    );
    assert_eq!(updated.planned_state.attr("item"), prior.attr("item"));
    assert_eq!(unchanged.planned_state, prior);
    for t in [create, update, noop] {
        assert!(t.as_millis() < 500, "{t:?}");
    }
}

mod property;
mod semantic;
